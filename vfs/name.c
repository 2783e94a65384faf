/*
 * Name rules (see name.h): SMB2 path parsing, MS-FSA wildcard matching,
 * case folding and 8.3 aliases.
 *
 * vfs_name_from_wire works on the UTF-16 units as they came off the wire:
 * the limits (255 units a component, 32767 a path) and the character rules
 * are defined on units, so checking them before conversion is both exact
 * and cheap.  Only the validated components are converted to UTF-8, with
 * lib/charset.h's converter.
 *
 * Matching runs a set-of-states simulation of the MS-FSA 2.1.4.4
 * expression over code points (two bitmaps of pattern positions), so a
 * hostile pattern of many '*' costs O(pattern * name), never exponential
 * backtracking.
 *
 * Case folding is lib/charset.h's (one decoder, one mapping for the whole
 * project), restricted to the BMP as NTFS's upcase table is.
 */
#include "vfs/name.h"
#include "lib/charset.h"

#include <pthread.h>
#include <string.h>

/* ---- Case folding --------------------------------------------------- */

/*
 * One code point from UTF-8 at s (NUL-terminated) with lib/charset.h's
 * decoder; returns the bytes used.  A byte that does not start a valid
 * sequence decodes to 0x110000 + byte: outside Unicode, so it equals only
 * the same invalid byte (a name on disk need not be UTF-8).
 */
static inline size_t next_cp(const uint8_t *s, uint32_t *cp)
{
	size_t len;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	/* 4: the NUL ends any sequence early (charset.h). */
	len = charset_utf8_next(s, 4, cp);
	if (len == 0) {
		*cp = 0x110000 + s[0];
		return 1;
	}
	return len;
}

int vfs_strcasecmp(const char *a, const char *b)
{
	const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;

	while (*pa != '\0' && *pb != '\0') {
		uint32_t ca, cb;

		pa += next_cp(pa, &ca);
		pb += next_cp(pb, &cb);
		ca = charset_toupper(ca);
		cb = charset_toupper(cb);
		if (ca != cb) {
			return ca < cb ? -1 : 1;
		}
	}
	if (*pa == *pb) {
		return 0;
	}
	return *pa == '\0' ? -1 : 1;
}

/* FNV-1a over each folded code point's four bytes: names equal under
 * vfs_strcasecmp decode to the same folded sequence, so hash alike. */
uint32_t vfs_name_case_hash(const char *name)
{
	const uint8_t *p = (const uint8_t *)name;
	uint32_t h = 2166136261u;

	while (*p != '\0') {
		uint32_t c;
		int i;

		p += next_cp(p, &c);
		c = charset_toupper(c);
		for (i = 0; i < 4; i++) {
			h ^= (c >> (8 * i)) & 0xff;
			h *= 16777619u;
		}
	}
	return h;
}

/* ---- SMB2 path parsing ---------------------------------------------- */

#define U_BACKSLASH 0x5c
#define U_COLON 0x3a
#define U_DOT 0x2e

struct name_comp {
	size_t off;	/* in units */
	size_t len;	/* in units */
};

static uint16_t unit(const uint8_t *p, size_t i)
{
	return (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
}

/* MS-FSCC 2.1.5.2: characters a file name component may not hold. */
static bool unit_bad_in_name(uint16_t u)
{
	return u < 0x20 || u == '"' || u == '*' || u == '/' || u == '<' ||
	       u == '>' || u == '?' || u == '|' || u == ':' ||
	       u == U_BACKSLASH;
}

/* The unit string [off, off+len) equals the ASCII string s exactly. */
static bool units_eq(const uint8_t *p, size_t off, size_t len, const char *s,
		     bool fold)
{
	size_t i;

	if (strlen(s) != len) {
		return false;
	}
	for (i = 0; i < len; i++) {
		uint16_t u = unit(p, off + i);

		if (fold && u >= 'a' && u <= 'z') {
			u -= 32;
		}
		if (u != (uint8_t)s[i]) {
			return false;
		}
	}
	return true;
}

/* Odd length, unpaired surrogates: the string is not UTF-16 at all. */
static NTSTATUS check_utf16(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint16_t u = unit(p, i);

		if (u >= 0xd800 && u <= 0xdbff) {
			if (i + 1 >= n || unit(p, i + 1) < 0xdc00 ||
			    unit(p, i + 1) > 0xdfff) {
				return NT_STATUS_ILLEGAL_CHARACTER;
			}
			i++;
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			return NT_STATUS_ILLEGAL_CHARACTER;
		}
	}
	return NT_STATUS_OK;
}

/*
 * Split [0, end) on '\', check each component and resolve "." and ".."
 * into comps (room for end/2 + 1 entries).
 */
static NTSTATUS split_path(const uint8_t *p, size_t end,
			   struct name_comp *comps, size_t *ncomps)
{
	size_t n = 0, start = 0, i;

	for (i = 0; i <= end; i++) {
		struct name_comp c;
		size_t j;

		if (i < end && unit(p, i) != U_BACKSLASH) {
			continue;
		}
		c.off = start;
		c.len = i - start;
		start = i + 1;
		if (c.len == 0) {
			continue;	/* "a\\b", trailing '\' (Samba) */
		}
		if (c.len > VFS_NAME_MAX_COMPONENT) {
			return NT_STATUS_OBJECT_NAME_INVALID;
		}
		for (j = 0; j < c.len; j++) {
			if (unit_bad_in_name(unit(p, c.off + j))) {
				return NT_STATUS_OBJECT_NAME_INVALID;
			}
		}
		if (units_eq(p, c.off, c.len, "..", false)) {
			/* As POSIX: "." is no level, so "d\.\.." is "". */
			while (n > 0 &&
			       units_eq(p, comps[n - 1].off, comps[n - 1].len,
					".", false)) {
				n--;
			}
			/* Climbing above the share: what Samba answers and
			 * smbtorture's smb2.dir tests ("..\..\.."). */
			if (n == 0) {
				return NT_STATUS_OBJECT_PATH_SYNTAX_BAD;
			}
			n--;
			continue;
		}
		comps[n++] = c;
	}
	for (i = 0; i < n; i++) {
		if (units_eq(p, comps[i].off, comps[i].len, ".", false)) {
			return (i + 1 == n) ? NT_STATUS_OBJECT_NAME_INVALID
					    : NT_STATUS_OBJECT_PATH_NOT_FOUND;
		}
	}
	*ncomps = n;
	return NT_STATUS_OK;
}

/*
 * The part after the first ':' (units [off, end)): "stream[:type]".
 * *name_len is 0 for the default stream.
 */
static NTSTATUS check_stream(const uint8_t *p, size_t off, size_t end,
			     size_t *name_len)
{
	size_t i, colon = end;

	for (i = off; i < end; i++) {
		uint16_t u = unit(p, i);

		if (u == U_COLON) {
			if (colon != end) {
				return NT_STATUS_OBJECT_NAME_INVALID;
			}
			colon = i;
		} else if (u == U_BACKSLASH || u == '/') {
			/* MS-FSCC 2.1.5.3/2.1.5.4 */
			return NT_STATUS_OBJECT_NAME_INVALID;
		}
	}
	*name_len = colon - off;
	if (*name_len > VFS_NAME_MAX_COMPONENT) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	if (colon == end) {
		/* "f:" names no stream at all. */
		return *name_len == 0 ? NT_STATUS_OBJECT_NAME_INVALID
				      : NT_STATUS_OK;
	}
	if (colon + 1 == end) {
		return NT_STATUS_OBJECT_NAME_INVALID;	/* "f:s:" */
	}
	/* Only the data stream type exists on a POSIX file system; Samba
	 * answers INVALID_PARAMETER for $INDEX_ALLOCATION and the rest. */
	if (!units_eq(p, colon + 1, end - colon - 1, "$DATA", true)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS join_path(TALLOC_CTX *mem_ctx, const uint8_t *p,
			  const struct name_comp *comps, size_t n, char **out)
{
	char *path = talloc_strdup(mem_ctx, "");
	size_t i;

	for (i = 0; path != NULL && i < n; i++) {
		char *c;
		NTSTATUS status = charset_utf16_to_utf8(
			path, p + 2 * comps[i].off, 2 * comps[i].len, &c);

		if (!NT_STATUS_IS_OK(status)) {
			talloc_free(path);
			return status;
		}
		path = talloc_asprintf_append_buffer(path, "%s%s",
						     i == 0 ? "" : "/", c);
		talloc_free(c);
	}
	if (path == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*out = path;
	return NT_STATUS_OK;
}

bool vfs_name_wire_has_stream(const uint8_t *utf16, size_t len)
{
	size_t i;

	for (i = 0; utf16 != NULL && i + 1 < len; i += 2) {
		if (utf16[i] == ':' && utf16[i + 1] == 0) {
			return true;
		}
	}
	return false;
}

NTSTATUS vfs_name_from_wire(TALLOC_CTX *mem_ctx, const uint8_t *utf16,
			    size_t len, char **path, char **stream)
{
	TALLOC_CTX *tmp;
	struct name_comp *comps;
	size_t n = len / 2, i, colon, ncomps = 0, stream_len = 0;
	char *p = NULL, *s = NULL;
	NTSTATUS status;

	if (len % 2 != 0) {
		return NT_STATUS_ILLEGAL_CHARACTER;
	}
	/* Clients (smbtorture, some Unix clients) send '/' as a separator
	 * and Samba accepts it as one; so do we, in the path part. */
	/* len 0 comes with utf16 NULL (an empty name, the share root):
	 * memchr(NULL, c, 0) is undefined behaviour (UBSan, asan step). */
	if (len > 0 && memchr(utf16, '/', len) != NULL) {
		uint8_t *copy = talloc_memdup(mem_ctx, utf16, len);
		size_t k;

		if (copy == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		for (k = 0; k < n && unit(copy, k) != U_COLON; k++) {
			if (unit(copy, k) == '/') {
				copy[2 * k] = '\\';
			}
		}
		utf16 = copy;
	}
	status = check_utf16(utf16, n);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-SMB2 3.3.5.9: "If the file name ... begins with \". */
	if (n > 0 && unit(utf16, 0) == U_BACKSLASH) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (n > VFS_NAME_MAX_PATH) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	colon = n;
	for (i = 0; i < n; i++) {
		uint16_t u = unit(utf16, i);

		if (u == 0) {
			return NT_STATUS_OBJECT_NAME_INVALID;
		}
		if (u == U_COLON && colon == n) {
			colon = i;
		}
	}
	if (colon < n) {
		/* "d\:s": a stream of nothing. */
		if (colon > 0 && unit(utf16, colon - 1) == U_BACKSLASH) {
			return NT_STATUS_OBJECT_NAME_INVALID;
		}
		status = check_stream(utf16, colon + 1, n, &stream_len);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	comps = talloc_array(tmp, struct name_comp, colon / 2 + 1);
	if (comps == NULL) {
		status = NT_STATUS_NO_MEMORY;
		goto done;
	}
	status = split_path(utf16, colon, comps, &ncomps);
	if (!NT_STATUS_IS_OK(status)) {
		goto done;
	}
	status = join_path(tmp, utf16, comps, ncomps, &p);
	if (!NT_STATUS_IS_OK(status)) {
		goto done;
	}
	if (stream_len > 0) {
		status = charset_utf16_to_utf8(tmp, utf16 + 2 * (colon + 1),
					       2 * stream_len, &s);
		if (!NT_STATUS_IS_OK(status)) {
			goto done;
		}
	}
	*path = talloc_steal(mem_ctx, p);
	*stream = (s == NULL) ? NULL : talloc_steal(mem_ctx, s);
done:
	talloc_free(tmp);
	return status;
}

/* ---- Wildcards (MS-FSA 2.1.4.4) ------------------------------------- */

#define DOS_STAR '<'
#define DOS_QM '>'
#define DOS_DOT '"'

bool vfs_name_has_wildcard(const char *pattern)
{
	return strpbrk(pattern, "*?<>\"") != NULL;
}

/* Decode s into out (room for strlen(s) entries), folded unless cs. */
static size_t decode_cps(const char *s, bool cs, uint32_t *out)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t i = 0, n = 0;

	while (u[i] != '\0') {
		uint32_t c;

		i += next_cp(u + i, &c);
		out[n++] = cs ? c : charset_toupper(c);
	}
	return n;
}

/*
 * Follow the transitions that consume nothing at name position k: a '*'
 * or '<' may match zero characters; a '>' is skipped at a '.' or at the
 * end of the name; a '"' matches zero characters only at the end.  All
 * go forward, so one ascending pass closes the set.
 */
static void match_close(const uint32_t *p, size_t np, bool *st, bool at_end,
			bool at_dot)
{
	size_t i;

	for (i = 0; i < np; i++) {
		if (!st[i]) {
			continue;
		}
		if (p[i] == '*' || p[i] == DOS_STAR ||
		    (p[i] == DOS_QM && (at_end || at_dot)) ||
		    (p[i] == DOS_DOT && at_end)) {
			st[i + 1] = true;
		}
	}
}

static bool match_cps(const uint32_t *p, size_t np, const uint32_t *s,
		      size_t ns, bool *cur, bool *next)
{
	size_t i, k, last_dot = ns;

	for (k = 0; k < ns; k++) {
		if (s[k] == '.') {
			last_dot = k;
		}
	}
	memset(cur, 0, np + 1);
	cur[0] = true;
	for (k = 0;; k++) {
		bool any = false;

		match_close(p, np, cur, k == ns, k < ns && s[k] == '.');
		if (k == ns) {
			return cur[np];
		}
		memset(next, 0, np + 1);
		for (i = 0; i < np; i++) {
			uint32_t c = s[k];

			if (!cur[i]) {
				continue;
			}
			switch (p[i]) {
			case '*':
				next[i] = true;
				break;
			case DOS_STAR:
				/* Zero or more characters up to the last
				 * '.', which it leaves to the pattern. */
				if (c != '.' || k != last_dot) {
					next[i] = true;
				}
				break;
			case DOS_QM:
				if (c != '.') {
					next[i + 1] = true;
				}
				break;
			case DOS_DOT:
				if (c == '.') {
					next[i + 1] = true;
				}
				break;
			case '?':
				next[i + 1] = true;
				break;
			default:
				if (p[i] == c) {
					next[i + 1] = true;
				}
				break;
			}
		}
		for (i = 0; i <= np; i++) {
			cur[i] = next[i];
			any |= next[i];
		}
		if (!any) {
			return false;
		}
	}
}

/* Up to this many bytes of pattern and name, no allocation. */
#define MATCH_STACK 256

bool vfs_name_matches(const char *pattern, const char *name,
		      bool case_sensitive)
{
	uint32_t pbuf[MATCH_STACK], sbuf[MATCH_STACK], *p = pbuf, *s = sbuf;
	bool c1[MATCH_STACK + 1], c2[MATCH_STACK + 1], *cur = c1, *next = c2;
	size_t plen = strlen(pattern), slen = strlen(name), np, ns;
	TALLOC_CTX *tmp = NULL;
	bool ret;

	/* MS-FSA 2.1.4.4 part 1. */
	if (name[0] == '\0' || pattern[0] == '\0') {
		return name[0] == '\0' && pattern[0] == '\0';
	}
	if (strcmp(pattern, "*") == 0 || strcmp(pattern, "*.*") == 0) {
		return true;
	}
	if (plen > MATCH_STACK || slen > MATCH_STACK) {
		tmp = talloc_new(NULL);
		if (tmp == NULL) {
			return false;
		}
		p = talloc_array(tmp, uint32_t, plen);
		s = talloc_array(tmp, uint32_t, slen);
		cur = talloc_array(tmp, bool, plen + 1);
		next = talloc_array(tmp, bool, plen + 1);
		if (p == NULL || s == NULL || cur == NULL || next == NULL) {
			talloc_free(tmp);
			return false;
		}
	}
	np = decode_cps(pattern, case_sensitive, p);
	ns = decode_cps(name, case_sensitive, s);
	ret = match_cps(p, np, s, ns, cur, next);
	talloc_free(tmp);
	return ret;
}

/* ---- 8.3 names ------------------------------------------------------ */

/* MS-FSCC 2.1.5.2.1: the ASCII characters an 8.3 name may hold. */
static bool is_83_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("$%'-_@~`!(){}^#&", c) != NULL);
}

bool vfs_name_in_list(const char *list, const char *name,
		      bool case_sensitive)
{
	char pat[256];
	const char *p = list;

	if (list == NULL) {
		return false;
	}
	while (*p != '\0') {
		const char *e = strchr(p, '/');
		size_t n = e != NULL ? (size_t)(e - p) : strlen(p);

		if (n > 0 && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (vfs_name_matches(pat, name, case_sensitive)) {
				return true;
			}
		}
		if (e == NULL) {
			break;
		}
		p = e + 1;
	}
	return false;
}

bool vfs_name_is_8_3(const char *name)
{
	const char *dot;
	size_t len = strlen(name), base, i;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		return true;
	}
	if (len == 0 || len > 12) {
		return false;
	}
	dot = strchr(name, '.');
	base = (dot == NULL) ? len : (size_t)(dot - name);
	if (base == 0 || base > 8) {
		return false;
	}
	if (dot != NULL && (len - base - 1 == 0 || len - base - 1 > 3)) {
		return false;
	}
	for (i = 0; i < len; i++) {
		if (i != base && !is_83_char((unsigned char)name[i])) {
			return false;
		}
	}
	return true;
}

static const char base36[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* One character of the alias: 8.3 characters upper-cased, others '_'. */
static char alias_char(uint32_t c)
{
	if (c < 0x80 && is_83_char((unsigned char)c)) {
		return (char)((c >= 'a' && c <= 'z') ? c - 32 : c);
	}
	return '_';
}

static char *mangle_alias(TALLOC_CTX *mem_ctx, const char *name,
			  unsigned prefix)
{
	const uint8_t *u = (const uint8_t *)name;
	const char *dot = strrchr(name, '.');
	char out[13];
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t o = 0, i, nhash;

	if (prefix < 1) {
		prefix = 1;
	} else if (prefix > 6) {
		prefix = 6;
	}
	if (dot == name || (dot != NULL && dot[1] == '\0')) {
		dot = NULL;	/* ".profile", "trail.": no extension */
	}
	/* FNV-1a 64: fixed constants, so stable everywhere. */
	for (i = 0; u[i] != '\0'; i++) {
		h ^= u[i];
		h *= 0x100000001b3ULL;
	}
	for (i = 0; o < prefix && u[i] != '\0' &&
		    (dot == NULL || u + i < (const uint8_t *)dot);) {
		uint32_t c;

		i += next_cp(u + i, &c);
		out[o++] = alias_char(c);
	}
	/* Hash characters fill the base to 6, then '~' and one more. */
	nhash = 7 - o;
	for (i = 0; i < nhash; i++) {
		char c = base36[h % 36];

		h /= 36;
		if (i + 1 == nhash) {
			out[o++] = '~';
		}
		out[o++] = c;
	}
	if (dot != NULL) {
		const uint8_t *e = (const uint8_t *)dot + 1;

		out[o++] = '.';
		for (i = 0; i < 3 && *e != '\0'; i++) {
			uint32_t c;

			e += next_cp(e, &c);
			out[o++] = alias_char(c);
		}
	}
	out[o] = '\0';
	return talloc_strdup(mem_ctx, out);
}

/*
 * The aliases this process handed out, so a client may use one for a
 * name that is gone (smbtorture smb2.mangle deletes by the alias and
 * creates by it again, then expects the long name; Samba's hash2 keeps a
 * cache like this).  Direct-mapped on a hash of the upper-cased alias; a
 * newer alias evicts an older one in its slot.
 */
#define DEMANGLE_SLOTS 4096

struct demangle_slot {
	char alias[13];
	char *name;	/* talloc, no parent */
};

static struct demangle_slot demangle_cache[DEMANGLE_SLOTS];
static pthread_mutex_t demangle_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t demangle_index(const char *alias)
{
	uint32_t h = 2166136261u;

	for (; *alias != '\0'; alias++) {
		char c = *alias;

		h ^= (uint8_t)((c >= 'a' && c <= 'z') ? c - 32 : c);
		h *= 16777619u;
	}
	return h % DEMANGLE_SLOTS;
}

static void demangle_remember(const char *alias, const char *name)
{
	struct demangle_slot *slot = &demangle_cache[demangle_index(alias)];
	char *copy;

	pthread_mutex_lock(&demangle_lock);
	if (slot->name != NULL && strcmp(slot->alias, alias) == 0 &&
	    strcmp(slot->name, name) == 0) {
		pthread_mutex_unlock(&demangle_lock);
		return;
	}
	copy = talloc_strdup(NULL, name);
	if (copy != NULL) {
		talloc_free(slot->name);
		slot->name = copy;
		/* alias is at most 12 characters (8.3) */
		memcpy(slot->alias, alias, strlen(alias) + 1);
	}
	pthread_mutex_unlock(&demangle_lock);
}

char *vfs_name_demangle_cached(TALLOC_CTX *mem_ctx, const char *alias)
{
	struct demangle_slot *slot;
	char *ret = NULL;

	if (!vfs_name_is_mangled(alias)) {
		return NULL;
	}
	slot = &demangle_cache[demangle_index(alias)];
	pthread_mutex_lock(&demangle_lock);
	if (slot->name != NULL && vfs_strcasecmp(slot->alias, alias) == 0) {
		ret = talloc_strdup(mem_ctx, slot->name);
	}
	pthread_mutex_unlock(&demangle_lock);
	return ret;
}

char *vfs_name_mangle_prefix(TALLOC_CTX *mem_ctx, const char *name,
			     unsigned prefix)
{
	char *alias = mangle_alias(mem_ctx, name, prefix);

	if (alias != NULL) {
		demangle_remember(alias, name);
	}
	return alias;
}

char *vfs_name_mangle(TALLOC_CTX *mem_ctx, const char *name)
{
	return vfs_name_mangle_prefix(mem_ctx, name, 1);
}

bool vfs_name_is_mangled(const char *name)
{
	size_t len = strlen(name), i;
	char last;

	/* "XXXXXX~H" plus an optional ".EXT" of 1-3 characters. */
	if (len != 8 && (len < 10 || len > 12 || name[8] != '.')) {
		return false;
	}
	if (name[6] != '~') {
		return false;
	}
	last = name[7];
	if (last >= 'a' && last <= 'z') {
		last = (char)(last - 32);
	}
	if (strchr(base36, last) == NULL || last == '\0') {
		return false;
	}
	for (i = 0; i < len; i++) {
		if (i != 6 && i != 7 && i != 8 &&
		    !is_83_char((unsigned char)name[i])) {
			return false;
		}
	}
	return true;
}
