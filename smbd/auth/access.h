/*
 * smb.conf host and user access lists (access.c).
 */
#ifndef SMBD_ACCESS_H
#define SMBD_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct smbd_user_id {
	const char *name;	/* account name as logged on */
	const char *unix_name;
	gid_t gid;
	const gid_t *groups;
	size_t ngroups;
	/*
	 * The gid of an `@group` entry: when set, asked of this (answers
	 * found in the pool beforehand, smb2_tcon_names.h) instead of NSS,
	 * which may block (nss_winbind, LDAP) and must not on a loop
	 * thread.  false: no such group.
	 */
	bool (*group_gid)(void *priv, const char *name, gid_t *gid);
	void *group_priv;
};

/* What decided a host check, for the log line: list is "hosts allow" or
 * "hosts deny" (NULL when no list applied), entry the entry that
 * matched (NULL when the client matched none of list). */
struct smbd_host_verdict {
	const char *list;
	const char *entry;
};

/* NULL-terminated lists (NULL or empty: no restriction).  The verdict's
 * strings point into the lists. */
bool smbd_host_check(const char *const *allow, const char *const *deny,
		     const char *addr, struct smbd_host_verdict *v);
bool smbd_host_allowed(const char *const *allow, const char *const *deny,
		       const char *addr);
bool smbd_user_in_list(const char *const *list, const struct smbd_user_id *u);

#endif
