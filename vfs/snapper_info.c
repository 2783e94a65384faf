/*
 * snapper's info.xml: the <date> of a snapshot (design in
 * snapper_info.h).  One pass over the bytes, no recursion, no
 * allocation: a stack of at most VFS_SNAPPER_INFO_DEPTH open element
 * names (pointers into the buffer).
 */
#include "vfs/snapper_info.h"
#include "vfs/snapshot.h"

#include <string.h>

struct info_name {
	const char *s;
	size_t n;
};

struct info_parse {
	const char *buf;
	size_t len, i;
	struct info_name open[VFS_SNAPPER_INFO_DEPTH];
	unsigned depth;
	bool root_seen, root_closed;
	/* the text of <snapshot><date> */
	bool in_date, date_seen;
	const char *date;
	size_t date_n;
};

static bool info_space(char c)
{
	/* XML 1.0 production S */
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A name ends at white space, '/', '>' or the end; empty is no name. */
static bool info_name_char(char c)
{
	return !info_space(c) && c != '/' && c != '>' && c != '<' &&
	       c != '=' && c != '\0';
}

static bool info_is(const struct info_name *n, const char *lit)
{
	size_t l = strlen(lit);

	return n->n == l && memcmp(n->s, lit, l) == 0;
}

/* Skip to just after the first occurrence of end from i; false when it
 * never comes. */
static bool info_skip_past(struct info_parse *p, const char *end)
{
	size_t l = strlen(end);

	while (p->len - p->i >= l) {
		if (memcmp(p->buf + p->i, end, l) == 0) {
			p->i += l;
			return true;
		}
		p->i++;
	}
	return false;
}

static bool info_starts(const struct info_parse *p, const char *lit)
{
	size_t l = strlen(lit);

	return p->len - p->i >= l && memcmp(p->buf + p->i, lit, l) == 0;
}

/* Character data up to the next '<' (or the end). */
static bool info_text(struct info_parse *p)
{
	size_t start = p->i;

	while (p->i < p->len && p->buf[p->i] != '<') {
		char c = p->buf[p->i];

		/* NUL is no XML character; outside the root only white
		 * space may stand. */
		if (c == '\0' || (p->depth == 0 && !info_space(c))) {
			return false;
		}
		p->i++;
	}
	if (p->in_date) {
		p->date = p->buf + start;
		p->date_n = p->i - start;
	}
	return true;
}

static bool info_end_tag(struct info_parse *p)
{
	struct info_name n;

	p->i += 2; /* "</" */
	n.s = p->buf + p->i;
	while (p->i < p->len && info_name_char(p->buf[p->i])) {
		p->i++;
	}
	n.n = (size_t)(p->buf + p->i - n.s);
	while (p->i < p->len && info_space(p->buf[p->i])) {
		p->i++;
	}
	if (p->i == p->len || p->buf[p->i] != '>' || p->depth == 0 ||
	    n.n != p->open[p->depth - 1].n ||
	    memcmp(n.s, p->open[p->depth - 1].s, n.n) != 0) {
		return false;
	}
	p->i++;
	p->depth--;
	p->in_date = false;
	if (p->depth == 0) {
		p->root_closed = true;
	}
	return true;
}

/* Attributes are skipped: up to '>' or "/>", quoted values whole. */
static bool info_skip_attrs(struct info_parse *p, bool *empty)
{
	while (p->i < p->len) {
		char c = p->buf[p->i];

		if (c == '"' || c == '\'') {
			const char *q = memchr(p->buf + p->i + 1, c,
					       p->len - p->i - 1);

			if (q == NULL) {
				return false;
			}
			p->i = (size_t)(q - p->buf) + 1;
			continue;
		}
		if (c == '<' || c == '\0') {
			return false;
		}
		if (c == '>') {
			*empty = false;
			p->i++;
			return true;
		}
		if (c == '/') {
			if (p->len - p->i < 2 || p->buf[p->i + 1] != '>') {
				return false;
			}
			*empty = true;
			p->i += 2;
			return true;
		}
		p->i++;
	}
	return false;
}

static bool info_start_tag(struct info_parse *p)
{
	struct info_name n;
	bool empty;

	p->i++; /* "<" */
	n.s = p->buf + p->i;
	while (p->i < p->len && info_name_char(p->buf[p->i])) {
		p->i++;
	}
	n.n = (size_t)(p->buf + p->i - n.s);
	/* an element inside <date>, a second root, no name at all */
	if (n.n == 0 || p->in_date || p->root_closed ||
	    !info_skip_attrs(p, &empty)) {
		return false;
	}
	if (p->depth == 0) {
		if (!info_is(&n, "snapshot")) {
			return false;
		}
		p->root_seen = true;
	} else if (p->depth == 1 && info_is(&n, "date")) {
		if (p->date_seen || empty) {
			return false;
		}
		p->date_seen = true;
		p->in_date = true;
		p->date = NULL;
		p->date_n = 0;
	}
	if (empty) {
		if (p->depth == 0) {
			p->root_closed = true;
		}
		return true;
	}
	if (p->depth == VFS_SNAPPER_INFO_DEPTH) {
		return false;
	}
	p->open[p->depth++] = n;
	return true;
}

static bool info_markup(struct info_parse *p)
{
	if (info_starts(p, "<?")) {
		return info_skip_past(p, "?>");
	}
	if (info_starts(p, "<!--")) {
		p->i += 4;
		return !p->in_date && info_skip_past(p, "-->");
	}
	if (info_starts(p, "<!")) {
		/* DOCTYPE (entities), CDATA: snapper writes neither */
		return false;
	}
	if (info_starts(p, "</")) {
		return info_end_tag(p);
	}
	return info_start_tag(p);
}

bool vfs_snapper_info_date(const char *buf, size_t len, int64_t *t)
{
	struct info_parse p;
	const char *d;
	size_t n;

	if (len > VFS_SNAPPER_INFO_MAX) {
		return false;
	}
	memset(&p, 0, sizeof(p));
	p.buf = buf;
	p.len = len;
	/* a UTF-8 byte order mark */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		p.i = 3;
	}
	while (p.i < p.len) {
		if (!(p.buf[p.i] == '<' ? info_markup(&p) : info_text(&p))) {
			return false;
		}
	}
	if (!p.root_seen || !p.root_closed || !p.date_seen || p.date == NULL) {
		return false;
	}
	d = p.date;
	n = p.date_n;
	while (n > 0 && info_space(d[0])) {
		d++;
		n--;
	}
	while (n > 0 && info_space(d[n - 1])) {
		n--;
	}
	return vfs_date_parse(d, n, "YYYY-MM-DD hh:mm:ss", t);
}
