/*
 * The `username map` file parser and lookup (format in usermap.h).
 */
#include "smbd/auth/usermap.h"
#include "lib/log.h"

#include <string.h>
#include <strings.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void bad_line(struct usermap *map, const char *origin, unsigned line,
		     const char *why)
{
	map->bad_lines++;
	DBG_WARNING("username map %s line %u: %s: line ignored\n", origin, line,
		    why);
}

/*
 * The client names right of '=': separated by blanks or commas, a
 * "quoted name" kept whole.  Returns NULL with *why set when the list
 * does not parse.
 */
static const char *parse_names(TALLOC_CTX *tmp, struct usermap_rule *r,
			       const char *p, const char *end)
{
	while (p < end) {
		const char *start, *stop;
		char **names;

		while (p < end && (is_space(*p) || *p == ',')) {
			p++;
		}
		if (p == end) {
			break;
		}
		if (*p == '"') {
			start = ++p;
			stop = memchr(p, '"', (size_t)(end - p));
			if (stop == NULL) {
				return "unterminated quote";
			}
			p = stop + 1;
		} else {
			start = p;
			while (p < end && !is_space(*p) && *p != ',') {
				if (*p == '"') {
					return "quote inside a name";
				}
				p++;
			}
			stop = p;
		}
		if (stop == start) {
			return "empty name";
		}
		names = talloc_realloc(tmp, r->names, char *, r->nnames + 1);
		if (names == NULL) {
			return "out of memory";
		}
		r->names = names;
		names[r->nnames] = talloc_strndup(names, start,
						  (size_t)(stop - start));
		if (names[r->nnames] == NULL) {
			return "out of memory";
		}
		r->nnames++;
	}
	return r->nnames == 0 ? "no client names after '='" : NULL;
}

/* One line without its newline: a rule, a comment or a logged error. */
static bool parse_line(struct usermap *map, const char *p, const char *end,
		       const char *origin, unsigned line)
{
	struct usermap_rule r = {.line = line};
	struct usermap_rule *rules;
	const char *eq, *ue, *why;
	void *tmp;

	while (p < end && is_space(*p)) {
		p++;
	}
	if (p == end || *p == '#' || *p == ';') {
		return true;
	}
	if (*p == '!') {
		r.stop = true;
		p++;
		while (p < end && is_space(*p)) {
			p++;
		}
	}
	eq = memchr(p, '=', (size_t)(end - p));
	if (eq == NULL) {
		bad_line(map, origin, line, "no '='");
		return true;
	}
	for (ue = eq; ue > p && is_space(ue[-1]); ue--) {
	}
	if (ue == p) {
		bad_line(map, origin, line, "no Unix name before '='");
		return true;
	}
	if (memchr(p, '"', (size_t)(ue - p)) != NULL ||
	    memchr(p, ' ', (size_t)(ue - p)) != NULL ||
	    memchr(p, '\t', (size_t)(ue - p)) != NULL) {
		bad_line(map, origin, line, "the Unix name is not one word");
		return true;
	}
	tmp = talloc_new(map);
	if (tmp == NULL) {
		return false;
	}
	r.unix_name = talloc_strndup(tmp, p, (size_t)(ue - p));
	if (r.unix_name == NULL) {
		talloc_free(tmp);
		return false;
	}
	why = parse_names(tmp, &r, eq + 1, end);
	if (why != NULL) {
		bool oom = strcmp(why, "out of memory") == 0;

		talloc_free(tmp);
		if (oom) {
			return false;
		}
		bad_line(map, origin, line, why);
		return true;
	}
	rules = talloc_realloc(map, map->rules, struct usermap_rule,
			       map->nrules + 1);
	if (rules == NULL) {
		talloc_free(tmp);
		return false;
	}
	map->rules = rules;
	/* what the rule holds moves from tmp to the rules array */
	(void)talloc_steal(rules, r.unix_name);
	(void)talloc_steal(rules, r.names);
	talloc_free(tmp);
	rules[map->nrules++] = r;
	return true;
}

struct usermap *usermap_parse(TALLOC_CTX *mem_ctx, const char *text,
			      size_t len, const char *origin)
{
	struct usermap *map = talloc_zero(mem_ctx, struct usermap);
	const char *p = text, *end = text + len;
	unsigned line = 0;

	if (map == NULL) {
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;
		const char *nul = memchr(p, '\0', (size_t)(le - p));

		line++;
		if (!parse_line(map, p, nul != NULL ? nul : le, origin,
				line)) {
			talloc_free(map);
			return NULL;
		}
		p = nl != NULL ? nl + 1 : end;
	}
	return map;
}

static bool name_matches(const char *entry, const char *name,
			 usermap_group_fn in_group, void *priv)
{
	if (strcmp(entry, "*") == 0) {
		return true;
	}
	if (entry[0] == '@' || entry[0] == '+' || entry[0] == '&') {
		return entry[1] != '\0' && in_group != NULL &&
		       in_group(priv, name, entry + 1);
	}
	return strcasecmp(entry, name) == 0;
}

const char *usermap_map(const struct usermap *map, const char *name,
			usermap_group_fn in_group, void *priv)
{
	const char *mapped = NULL;
	size_t i, j;

	for (i = 0; map != NULL && i < map->nrules; i++) {
		const struct usermap_rule *r = &map->rules[i];

		for (j = 0; j < r->nnames; j++) {
			if (name_matches(r->names[j], name, in_group, priv)) {
				break;
			}
		}
		if (j == r->nnames) {
			continue;
		}
		mapped = r->unix_name;
		if (r->stop) {
			break;
		}
	}
	return mapped;
}
