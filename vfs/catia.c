/*
 * vfs_catia: the name map (design in catia.h) and the module descriptor.
 *
 * The map keeps one sorted table of pairs per direction and looks each
 * code point up by binary search: a name of n characters costs
 * n * log2(pairs) comparisons, no allocation but the result.
 */
#include "vfs/catia.h"
#include "vfs/module.h"
#include "lib/charset.h"
#include "lib/log.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct name_pair {
	uint16_t from, to;
};

struct vfs_name_map {
	size_t n;		/* entries used */
	/* [0]: VFS_NAME_TO_DISK, keyed by the client character;
	 * [1]: VFS_NAME_TO_WIRE, keyed by the server character;
	 * each sorted by key, each key once. */
	struct name_pair *t[2];
	size_t len[2];
};

/* "0x3a" or "3a": 1-4 hex digits (a BMP code point), else -1. */
static long parse_hex(const char *s, size_t len)
{
	long v = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		i = 2;
	}
	if (len == i || len - i > 4) {
		return -1;
	}
	for (; i < len; i++) {
		char c = s[i];
		int d;

		if (c >= '0' && c <= '9') {
			d = c - '0';
		} else if (c >= 'a' && c <= 'f') {
			d = c - 'a' + 10;
		} else if (c >= 'A' && c <= 'F') {
			d = c - 'A' + 10;
		} else {
			return -1;
		}
		v = v * 16 + d;
	}
	return v;
}

/* Why a character cannot be mapped (see catia.h), or NULL. */
static const char *bad_char(long c, bool server)
{
	if (c <= 0 || c > 0xffff) {
		return "not a code point of 0x0001-0xFFFF";
	}
	if (c >= 0xd800 && c <= 0xdfff) {
		return "a surrogate";
	}
	if (c == '/') {
		return "'/' separates path components";
	}
	if (!server && c == '\\') {
		return "'\\' separates path components on the wire";
	}
	return NULL;
}

/* One entry "S:C", leading and trailing blanks allowed. */
static bool parse_entry(const char *e, uint16_t *server, uint16_t *client)
{
	const char *colon;
	size_t len;
	long s, c;
	const char *why;

	while (*e == ' ' || *e == '\t') {
		e++;
	}
	len = strlen(e);
	while (len > 0 && (e[len - 1] == ' ' || e[len - 1] == '\t')) {
		len--;
	}
	colon = memchr(e, ':', len);
	if (colon == NULL) {
		DBG_WARNING("catia:mappings: '%s' is not SERVER:CLIENT; "
			    "skipped\n", e);
		return false;
	}
	s = parse_hex(e, colon - e);
	c = parse_hex(colon + 1, len - (colon + 1 - e));
	if (s < 0 || c < 0) {
		DBG_WARNING("catia:mappings: '%s' is not two hexadecimal "
			    "code points; skipped\n", e);
		return false;
	}
	why = bad_char(s, true);
	if (why == NULL) {
		why = bad_char(c, false);
	}
	if (why != NULL) {
		DBG_WARNING("catia:mappings: '%s': %s; skipped\n", e, why);
		return false;
	}
	*server = (uint16_t)s;
	*client = (uint16_t)c;
	return true;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct name_pair *x = a, *y = b;

	return (int)x->from - (int)y->from;
}

/* Add from -> to unless from already has a mapping: the first entry
 * written wins (a linear check; a map has at most VFS_NAME_MAP_MAX
 * entries and is parsed once per tree connect). */
static void add_pair(struct vfs_name_map *m, int d, uint16_t from,
		     uint16_t to)
{
	size_t i;

	for (i = 0; i < m->len[d]; i++) {
		if (m->t[d][i].from == from) {
			return;
		}
	}
	m->t[d][m->len[d]++] = (struct name_pair){from, to};
}

NTSTATUS vfs_name_map_parse(TALLOC_CTX *mem_ctx, const char *const *entries,
			    struct vfs_name_map **out, unsigned *skipped)
{
	struct vfs_name_map *m;
	size_t count = 0, i;
	unsigned bad = 0;

	*out = NULL;
	while (entries != NULL && entries[count] != NULL) {
		count++;
	}
	if (count > VFS_NAME_MAP_MAX) {
		DBG_WARNING("catia:mappings: %zu entries, only the first %d "
			    "are used\n", count, VFS_NAME_MAP_MAX);
		bad += count - VFS_NAME_MAP_MAX;
		count = VFS_NAME_MAP_MAX;
	}
	m = talloc_zero(mem_ctx, struct vfs_name_map);
	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	m->t[0] = talloc_array(m, struct name_pair, count);
	m->t[1] = talloc_array(m, struct name_pair, count);
	if (m->t[0] == NULL || m->t[1] == NULL) {
		talloc_free(m);
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		uint16_t s, c;

		if (!parse_entry(entries[i], &s, &c)) {
			bad++;
			continue;
		}
		add_pair(m, 0, c, s);
		add_pair(m, 1, s, c);
		m->n++;
	}
	if (skipped != NULL) {
		*skipped = bad;
	}
	if (m->n == 0) {
		talloc_free(m);
		return NT_STATUS_OK;
	}
	qsort(m->t[0], m->len[0], sizeof(struct name_pair), pair_cmp);
	qsort(m->t[1], m->len[1], sizeof(struct name_pair), pair_cmp);
	*out = m;
	return NT_STATUS_OK;
}

size_t vfs_name_map_count(const struct vfs_name_map *m)
{
	return m != NULL ? m->n : 0;
}

static bool lookup(const struct name_pair *t, size_t len, uint32_t cp,
		   uint16_t *to)
{
	size_t lo = 0, hi = len;

	if (cp == 0 || cp > 0xffff) {
		return false;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].from == cp) {
			*to = t[mid].to;
			return true;
		}
		if (t[mid].from < cp) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return false;
}

char *vfs_name_map_apply(TALLOC_CTX *mem_ctx, const struct vfs_name_map *m,
			 enum vfs_name_map_dir dir, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	int d = dir == VFS_NAME_TO_DISK ? 0 : 1;
	size_t len = strlen(name);
	char *out, *o;

	if (m == NULL) {
		return talloc_strdup(mem_ctx, name);
	}
	if (len > (SIZE_MAX - 1) / 3) {
		return NULL;
	}
	/* a 1-byte character may become a 3-byte one */
	out = talloc_array(mem_ctx, char, 3 * len + 1);
	if (out == NULL) {
		return NULL;
	}
	o = out;
	while (*s != '\0') {
		uint32_t cp;
		uint16_t to;
		/* 4: the NUL ends any sequence early (charset.h) */
		size_t n = charset_utf8_next(s, 4, &cp);

		if (n == 0) {
			*o++ = (char)*s++;	/* not UTF-8: kept */
			continue;
		}
		if (lookup(m->t[d], m->len[d], cp, &to)) {
			o += charset_utf8_put(to, (uint8_t *)o);
		} else {
			memcpy(o, s, n);
			o += n;
		}
		s += n;
	}
	*o = '\0';
	return talloc_realloc(mem_ctx, out, char, o - out + 1);
}

NTSTATUS vfs_name_map_to_disk(TALLOC_CTX *mem_ctx,
			      const struct vfs_name_map *m, char **path,
			      char **stream)
{
	char *p, *s = NULL;

	if (m == NULL) {
		return NT_STATUS_OK;
	}
	p = vfs_name_map_apply(mem_ctx, m, VFS_NAME_TO_DISK, *path);
	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* Samba's catia maps the stream name too ("f:col\uf022on" is the
	 * xattr user.DosStream.col:on:$DATA) */
	if (stream != NULL && *stream != NULL) {
		s = vfs_name_map_apply(mem_ctx, m, VFS_NAME_TO_DISK, *stream);
		if (s == NULL) {
			talloc_free(p);
			return NT_STATUS_NO_MEMORY;
		}
		*stream = s;
	}
	*path = p;
	return NT_STATUS_OK;
}

/*
 * The module: its configuration is the map (NULL without catia:mappings,
 * and then it changes nothing, as Samba's catia without mappings).  The
 * tree connect hands it to the share (struct vfs_share's name_map) for
 * the handlers that take names off and put names on the wire.
 */
static NTSTATUS catia_connect(TALLOC_CTX *mem_ctx,
			      const struct vfs_module_params *p,
			      const struct vfs_share *sh, void **priv)
{
	const char **l = p->list(p->ctx, mem_ctx, "catia", "mappings");
	struct vfs_name_map *m = NULL;
	unsigned skipped = 0;
	NTSTATUS st;

	(void)sh;
	if (l == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = vfs_name_map_parse(mem_ctx, l, &m, &skipped);
	talloc_free(l);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (skipped > 0) {
		DBG_WARNING("catia:mappings: %u entries skipped\n", skipped);
	}
	*priv = m;
	return NT_STATUS_OK;
}

const struct vfs_module vfs_module_catia = {
	.name = "catia",
	.connect = catia_connect,
};
