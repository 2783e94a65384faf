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
};

/* NULL-terminated lists (NULL or empty: no restriction). */
bool smbd_host_allowed(const char *const *allow, const char *const *deny,
		       const char *addr);
bool smbd_user_in_list(const char *const *list, const struct smbd_user_id *u);

#endif
