/*
 * The NSS questions of a tree connect, asked in the pool (see
 * smb2_tcon_names.h).
 */
#include "smbd/smb2/smb2_tcon_names.h"

#include <pwd.h>
#include <string.h>

#include "smbd/auth/auth.h"

struct tcon_names *tcon_names_new(void)
{
	return talloc_zero(NULL, struct tcon_names);
}

bool tcon_names_add_group(struct tcon_names *n, const char *name)
{
	char **g;
	gid_t *gids;
	bool *found;
	size_t i;

	for (i = 0; i < n->ngroups; i++) {
		if (strcmp(n->groups[i], name) == 0) {
			return true;
		}
	}
	g = talloc_realloc(n, n->groups, char *, n->ngroups + 1);
	if (g == NULL) {
		return false;
	}
	n->groups = g;
	gids = talloc_realloc(n, n->gids, gid_t, n->ngroups + 1);
	if (gids == NULL) {
		return false;
	}
	n->gids = gids;
	found = talloc_realloc(n, n->found, bool, n->ngroups + 1);
	if (found == NULL) {
		return false;
	}
	n->found = found;
	g[n->ngroups] = talloc_strdup(g, name);
	if (g[n->ngroups] == NULL) {
		return false;
	}
	found[n->ngroups] = false;
	n->ngroups++;
	return true;
}

bool tcon_names_add_list(struct tcon_names *n, const char *const *list)
{
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		/* smbd_user_in_list's group entries (access.c) */
		if ((list[i][0] == '@' || list[i][0] == '+') &&
		    !tcon_names_add_group(n, list[i] + 1)) {
			return false;
		}
	}
	return true;
}

bool tcon_names_empty(const struct tcon_names *n)
{
	return n->ngroups == 0 && n->force_user == NULL &&
	       n->force_group == NULL && n->home_user == NULL;
}

static void resolve_home(struct tcon_names *n)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[4096];

	if (getpwnam_r(n->home_user, &pwbuf, buf, sizeof(buf), &pw) == 0 &&
	    pw != NULL) {
		n->home = talloc_strdup(n, pw->pw_dir);
	}
}

void tcon_names_resolve(struct tcon_names *n)
{
	size_t i;

	for (i = 0; i < n->ngroups; i++) {
		n->found[i] = NT_STATUS_IS_OK(
			auth_unix_group_gid(n->groups[i], &n->gids[i]));
	}
	if (n->force_user != NULL) {
		n->force_user_status = auth_unix_user_info(
			n, n->force_user, &n->force_user_info);
	}
	if (n->force_group != NULL) {
		const char *g = n->force_group[0] == '+' ? n->force_group + 1
							: n->force_group;

		n->force_group_status = auth_unix_group_gid(g, &n->force_gid);
	}
	if (n->home_user != NULL) {
		resolve_home(n);
	}
}

bool tcon_names_gid(void *priv, const char *name, gid_t *gid)
{
	const struct tcon_names *n = priv;
	size_t i;

	for (i = 0; i < n->ngroups; i++) {
		if (strcmp(n->groups[i], name) == 0) {
			*gid = n->gids[i];
			return n->found[i];
		}
	}
	/* not collected: not asked of NSS on the loop either */
	return false;
}
