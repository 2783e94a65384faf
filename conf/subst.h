/*
 * `%` substitution (smb.conf(5) "VARIABLE SUBSTITUTIONS"), conf/subst.c.
 *
 * The bottom of conf/: it includes nothing else of conf/ and calls no
 * other file of it.  Whoever calls it hands in the values that come from
 * the configuration (%L/%N, %D), so it never has to look them up:
 * loadparm.c (lp_substitute, lp_str_subst) passes the loaded [global],
 * parse.c passes the [global] it is reading for `include = ...%L`.
 */
#ifndef CONF_SUBST_H
#define CONF_SUBST_H

#include <talloc.h>

/*
 * Values for `%` substitution.  Unknown (NULL) fields expand to "".
 * Client-supplied fields (user, group, client name and address) are made
 * safe for use in paths: '/' and '\' become '_' and a leading '.' is
 * replaced, so "%m" can never be "..".
 */
struct lp_subst {
	const char *user;        /* %U session user */
	const char *group;       /* %G primary group of %U */
	const char *home;        /* %H home directory of %U */
	const char *share;       /* %S */
	const char *share_path;  /* %P */
	const char *client_name; /* %m client NetBIOS name */
	const char *client_ip;   /* %I */
	const char *server_name; /* %L (NULL: `netbios name`) */
	const char *unix_user;   /* %u */
	const char *unix_group;  /* %g */
};

/*
 * Expand %U %G %H %S %P %m %I %L %h %v %T %D %u %g %N %$(VAR) %% in str
 * (NULL reads as "") from s (NULL: all fields unknown).  server_name is
 * the `netbios name` for %L and %N unless s->server_name is set;
 * workgroup is %D.  A result on mem_ctx, NULL when out of memory.
 */
char *conf_substitute(TALLOC_CTX *mem_ctx, const char *server_name,
		      const char *workgroup, const char *str,
		      const struct lp_subst *s);

#endif
