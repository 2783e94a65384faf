/*
 * `username map`: the file that maps the names clients log on with to
 * Unix (and passdb) account names, in Samba's format (smb.conf(5)
 * "username map"):
 *
 *	# comment            ; comment
 *	unixname = name1 name2 "Name With Spaces" @group
 *	!unixname = name3    a match on a '!' line ends the search
 *	unixname = *         every name
 *
 * Every line is tried in order and the last line that matches wins,
 * except that a matching '!' line stops the search there (measured
 * against Samba 4.17: a final "u = *" maps everybody, earlier matches
 * included).  Names compare without case; "@group" (also "+group",
 * "&group") matches a client name that is a Unix user in that group,
 * asked through a callback so the parser stays pure (unit tests, fuzz).
 * A line that does not parse is logged with the file and line number and
 * ignored; the rest of the file still applies.
 */
#ifndef SMBD_AUTH_USERMAP_H
#define SMBD_AUTH_USERMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>

/* What a map file may hold (a bigger one is refused whole: logged). */
#define USERMAP_MAX_FILE (1024 * 1024)

struct usermap_rule {
	char *unix_name;
	bool stop;		/* the line began with '!' */
	char **names;		/* nnames client names, "*" or "@group" */
	size_t nnames;
	unsigned line;
};

struct usermap {
	struct usermap_rule *rules;
	size_t nrules;
	unsigned bad_lines;	/* lines logged and ignored */
};

/* Whether Unix user `user` is in Unix group `group`. */
typedef bool (*usermap_group_fn)(void *priv, const char *user,
				 const char *group);

/*
 * Parse len bytes of map text (NUL bytes end a line's text); `origin`
 * names the file in log lines.  NULL only when out of memory.
 */
struct usermap *usermap_parse(TALLOC_CTX *mem_ctx, const char *text,
			      size_t len, const char *origin);

/*
 * The Unix name `name` maps to (a string of map), or NULL when no line
 * matches.  in_group may be NULL: group entries then match nothing.
 */
const char *usermap_map(const struct usermap *map, const char *name,
			usermap_group_fn in_group, void *priv);

#endif
