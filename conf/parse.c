/*
 * The smb.conf file syntax, as Samba reads it (smb.conf(5) "FILE FORMAT"):
 *
 *   [section]            a share, or [global] / [globals]
 *   name = value         name case-insensitive, spaces and '_' ignored
 *   # ... and ; ...      comment lines
 *   value \              a trailing backslash joins the next line "in the
 *     more               customary UNIX fashion": backslash and newline
 *                        go, the next line is kept as it is
 *   include = FILE       read FILE here (% substituted, relative to the
 *                        cwd as in Samba; a missing file is skipped, since
 *                        "include = smb.conf.%m" is a common idiom)
 *   copy = SHARE         copy every value set in an earlier share
 *
 * Unknown parameters warn and loading goes on; invalid values and lines of
 * no known form are errors that make the load fail, but parsing continues
 * so that every error is reported at once.  Includes nest at most
 * CONF_MAX_INCLUDE_DEPTH deep, which also stops include loops.
 *
 * Who calls whom (conf/parse.h): loadparm.c calls conf_parse_text() with a
 * struct conf_parse_ops, and every section and parameter read goes back
 * up through it; this file calls no function of loadparm.c.  It calls
 * down into conf/subst.c for the `%` in include paths and into the
 * parameter table for conf_name_eq().
 */
#include "conf/parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf/param_table.h"
#include "conf/subst.h"
#include "lib/file.h"
#include "lib/log.h"

struct conf_parser {
	const struct conf_parse_ops *ops;
	void *priv; /* the caller's, for ops */
	/* after a section that could not be added: its lines are dropped */
	bool lost;
	unsigned depth; /* include nesting */
	unsigned errors;
};

static bool parse_buffer(struct conf_parser *p, const char *label,
			 const char *text, size_t len);

char *conf_read_file(TALLOC_CTX *mem_ctx, const char *path, size_t *len,
		     int *err)
{
	return file_read_all(mem_ctx, path, CONF_MAX_FILE_SIZE, len, err);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * Trim whitespace at both ends, in place, and squeeze each inner run of
 * whitespace to its first character: Samba reads "a    b" as "a b", also
 * across continuation lines, and the same file must give the same values.
 */
static char *trim(char *s)
{
	char *r, *w;

	while (is_space(*s)) {
		s++;
	}
	for (r = w = s; *r != '\0'; r++) {
		if (is_space(*r) && r > s && is_space(r[-1])) {
			continue;
		}
		*w++ = *r;
	}
	while (w > s && is_space(w[-1])) {
		w--;
	}
	*w = '\0';
	return s;
}

/*
 * A logical line being joined from physical ones.  Lengths are tracked
 * and the buffer doubles, so even a file of a million continuation lines
 * joins in linear time.
 */
struct conf_line {
	char *buf;
	size_t len;
	size_t alloc;
};

static bool line_append(TALLOC_CTX *mem_ctx, struct conf_line *ln,
			const char *s, size_t l)
{
	if (ln->len + l + 1 > ln->alloc) {
		size_t want = ln->alloc == 0 ? 256 : ln->alloc;
		char *nb;

		while (want < ln->len + l + 1) {
			want *= 2;
		}
		nb = talloc_realloc(mem_ctx, ln->buf, char, want);
		if (nb == NULL) {
			return false;
		}
		ln->buf = nb;
		ln->alloc = want;
	}
	memcpy(ln->buf + ln->len, s, l);
	ln->len += l;
	ln->buf[ln->len] = '\0';
	return true;
}

/* Does the line end in "\" (maybe followed by whitespace)?  Cut it. */
static bool ends_with_backslash(struct conf_line *ln)
{
	size_t l = ln->len;

	while (l > 0 && is_space(ln->buf[l - 1])) {
		l--;
	}
	if (l == 0 || ln->buf[l - 1] != '\\') {
		return false;
	}
	ln->len = l - 1;
	ln->buf[ln->len] = '\0';
	return true;
}

static void do_include(struct conf_parser *p, const char *value,
		       const char *where)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct lp_subst s = {0};
	const char *server_name, *workgroup;
	char *path, *text;
	size_t len;
	int err;

	p->ops->include_vars(p->priv, &server_name, &workgroup);
	path = conf_substitute(tmp, server_name, workgroup, value, &s);
	if (path == NULL) {
		p->errors++;
		goto done;
	}
	if (path[0] == '\0') {
		DBG_WARNING("%s: empty include, ignored\n", where);
		goto done;
	}
	if (p->depth >= CONF_MAX_INCLUDE_DEPTH) {
		DBG_ERR("%s: include of %s nested more than %d deep "
			"(an include loop?)\n",
			where, path, CONF_MAX_INCLUDE_DEPTH);
		p->errors++;
		goto done;
	}
	text = conf_read_file(tmp, path, &len, &err);
	if (text == NULL) {
		if (err == ENOENT) {
			DBG_WARNING("%s: include file %s not found, "
				    "skipped\n",
				    where, path);
		} else {
			DBG_ERR("%s: can't read include file %s: %s\n", where,
				path, strerror(err));
			p->errors++;
		}
		goto done;
	}
	p->depth++;
	(void)parse_buffer(p, path, text, len);
	p->depth--;
done:
	talloc_free(tmp);
}

static void do_copy(struct conf_parser *p, const char *value,
		    const char *where)
{
	switch (p->ops->copy(p->priv, value)) {
	case CONF_COPY_OK:
		return;
	case CONF_COPY_IN_GLOBAL:
		DBG_ERR("%s: copy is not allowed in [global]\n", where);
		break;
	case CONF_COPY_NO_SHARE:
		DBG_ERR("%s: copy: no share [%s] defined before this line\n",
			where, value);
		break;
	case CONF_COPY_NOMEM:
		DBG_ERR("out of memory\n");
		break;
	}
	p->errors++;
}

static void do_section(struct conf_parser *p, char *line, const char *where)
{
	char *end = strchr(line, ']');
	char *name, *rest;

	if (end == NULL) {
		DBG_ERR("%s: section header without ']'\n", where);
		p->errors++;
		return;
	}
	*end = '\0';
	rest = trim(end + 1);
	if (rest[0] != '\0' && rest[0] != '#' && rest[0] != ';') {
		/* Samba ignores it silently; say so, but go on. */
		DBG_WARNING("%s: text after section header ignored: \"%s\"\n",
			    where, rest);
	}
	name = trim(line + 1);
	if (name[0] == '\0') {
		DBG_ERR("%s: empty section name\n", where);
		p->errors++;
		return;
	}
	/* [global] can always be entered: a failing section is a share. */
	if (!p->ops->section(p->priv, name)) {
		DBG_ERR("%s: can't add share [%s]\n", where, name);
		p->errors++;
		/* Values up to the next section would land in the wrong one. */
		p->lost = true;
		return;
	}
	p->lost = false;
}

static void do_line(struct conf_parser *p, char *line, const char *label,
		    unsigned lineno)
{
	struct conf_where w = {label, lineno};
	char where[512];
	char *eq, *name, *value;

	snprintf(where, sizeof(where), "%s:%u", label, lineno);
	if (line[0] == '[') {
		do_section(p, line, where);
		return;
	}
	eq = strchr(line, '=');
	if (eq == NULL) {
		DBG_ERR("%s: neither a section, a parameter nor a comment: "
			"\"%s\"\n",
			where, line);
		p->errors++;
		return;
	}
	*eq = '\0';
	name = trim(line);
	value = trim(eq + 1);
	if (name[0] == '\0') {
		DBG_ERR("%s: parameter without a name\n", where);
		p->errors++;
		return;
	}
	if (p->lost) {
		/* after a section that could not be added: already reported */
		return;
	}
	if (conf_name_eq(name, "include")) {
		/* Kept as the section's `include` value, for testparm's
		 * dump (Samba's testparm shows it); read here, in place. */
		if (!p->ops->parameter(p->priv, name, value, &w)) {
			p->errors++;
		}
		do_include(p, value, where);
		return;
	}
	if (conf_name_eq(name, "copy")) {
		do_copy(p, value, where);
		return;
	}
	if (!p->ops->parameter(p->priv, name, value, &w)) {
		p->errors++;
	}
}

/* The physical line at *pos: its start and length, *pos moves past it. */
static const char *next_line(const char *text, size_t len, size_t *pos,
			     size_t *llen)
{
	const char *s = text + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	size_t l = nl != NULL ? (size_t)(nl - s) : len - *pos;

	*pos += l + (nl != NULL ? 1 : 0);
	if (l > 0 && s[l - 1] == '\r') {
		l--;
	}
	*llen = l;
	return s;
}

static bool parse_buffer(struct conf_parser *p, const char *label,
			 const char *text, size_t len)
{
	unsigned lineno = 0;
	size_t pos = 0;

	/* A UTF-8 byte order mark, as some editors write. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		pos = 3;
	}
	while (pos < len) {
		TALLOC_CTX *tmp;
		struct conf_line ln = {0};
		const char *s;
		size_t l, i = 0;
		unsigned first;
		bool nul, ok;

		s = next_line(text, len, &pos, &l);
		first = ++lineno;
		nul = memchr(s, '\0', l) != NULL;
		while (i < l && is_space(s[i])) {
			i++;
		}
		if (i == l || s[i] == '#' || s[i] == ';') {
			continue;
		}
		tmp = talloc_new(NULL);
		ok = tmp != NULL && line_append(tmp, &ln, s + i, l - i);
		/*
		 * Continuation: a "\" at the end, whitespace after it
		 * allowed, joins the next line (Samba does the same).
		 */
		while (ok && ends_with_backslash(&ln) && pos < len) {
			s = next_line(text, len, &pos, &l);
			lineno++;
			nul = nul || memchr(s, '\0', l) != NULL;
			ok = line_append(tmp, &ln, s, l);
		}
		if (!ok) {
			DBG_ERR("out of memory\n");
			talloc_free(tmp);
			p->errors++;
			return false;
		}
		if (nul) {
			DBG_ERR("%s:%u: NUL byte in line\n", label, first);
			p->errors++;
		} else {
			do_line(p, ln.buf, label, first);
		}
		talloc_free(tmp);
	}
	return p->errors == 0;
}

bool conf_parse_text(const struct conf_parse_ops *ops, void *priv,
		     const char *label, const char *text, size_t len)
{
	struct conf_parser p = {.ops = ops, .priv = priv};

	(void)parse_buffer(&p, label, text, len);
	return p.errors == 0;
}
