/*
 * What a TREE_CONNECT must ask NSS before it can decide (smb2_tcon.c):
 * the gids of the `@group` entries of the share's `valid users`,
 * `invalid users`, `read list` and `write list`, the `force user` and
 * `force group` accounts, and for [homes] the user's home directory.
 * NSS may block (nss_winbind waiting for winbindd or the DC, LDAP,
 * sssd), and a worker's loop serves every client of its CPU, so the loop
 * only collects the names; tcon_names_resolve() asks NSS in the pool;
 * the loop then decides from the answers (the group_gid callback of
 * struct smbd_user_id, tcon_names_gid) and never calls NSS itself.
 */
#ifndef SMBD_SMB2_TCON_NAMES_H
#define SMBD_SMB2_TCON_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <talloc.h>
#include "lib/ntstatus.h"

struct auth_user_info;

struct tcon_names {
	char **groups;		/* `@group` names asked */
	gid_t *gids;
	bool *found;
	size_t ngroups;
	char *force_user;	/* NULL: none */
	struct auth_user_info *force_user_info;
	NTSTATUS force_user_status;
	char *force_group;	/* as configured, '+' kept; NULL: none */
	gid_t force_gid;
	NTSTATUS force_group_status;
	char *home_user;	/* [homes]: whose home; NULL: none */
	char *home;		/* its directory, NULL when none */
};

/* An empty set on a context of its own (pool threads allocate on it). */
struct tcon_names *tcon_names_new(void);
/* One more group name (each once); false: no memory. */
bool tcon_names_add_group(struct tcon_names *n, const char *name);
/* The `@group`/`+group` entries of a user list. */
bool tcon_names_add_list(struct tcon_names *n, const char *const *list);
bool tcon_names_empty(const struct tcon_names *n);
/* Pool thread: ask NSS for everything n holds. */
void tcon_names_resolve(struct tcon_names *n);
/* struct smbd_user_id's group_gid over a resolved set (priv). */
bool tcon_names_gid(void *priv, const char *name, gid_t *gid);

#endif
