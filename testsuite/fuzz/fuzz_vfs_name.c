/*
 * libFuzzer target: vfs/name.c.
 *
 * The whole input is an SMB2 CREATE name (UTF-16LE) for
 * vfs_name_from_wire; what it accepts must be a clean share-relative path
 * (no '\', no empty, "." or ".." component, no leading '/') that parses
 * to itself again.  The input cut at its first 0xFF byte is also a
 * (pattern, name) pair of UTF-8 strings for the matcher, the name lists
 * of `veto files`, the case folding and the 8.3 functions, whose
 * invariants are checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/charset.h"
#include "vfs/name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_path(TALLOC_CTX *ctx, const char *path, const char *stream)
{
	const char *c = path;
	char *back, *p2, *s2, *q;
	uint8_t *u16;
	size_t len;

	if (path[0] == '/' || strchr(path, '\\') != NULL) {
		abort();
	}
	while (*c != '\0') {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.')) {
			abort();
		}
		c += n;
		if (*c == '/') {
			c++;
			if (*c == '\0') {
				abort();	/* trailing '/' */
			}
		}
	}
	if (stream != NULL &&
	    (stream[0] == '\0' || strpbrk(stream, ":/\\") != NULL)) {
		abort();
	}
	/* Back to the wire form: it must parse to the same thing. */
	back = talloc_strdup(ctx, path);
	for (q = back; *q != '\0'; q++) {
		if (*q == '/') {
			*q = '\\';
		}
	}
	if (stream != NULL) {
		back = talloc_asprintf(ctx, "%s:%s", back, stream);
	}
	if (!NT_STATUS_IS_OK(charset_utf8_to_utf16(ctx, back, &u16, &len)) ||
	    !NT_STATUS_IS_OK(vfs_name_from_wire(ctx, u16, len, &p2, &s2)) ||
	    strcmp(p2, path) != 0 || (s2 == NULL) != (stream == NULL) ||
	    (s2 != NULL && strcmp(s2, stream) != 0)) {
		abort();
	}
}

static void check_strings(TALLOC_CTX *ctx, const char *pat, const char *name)
{
	int ab = vfs_strcasecmp(pat, name), ba = vfs_strcasecmp(name, pat);
	char *m;

	if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0) ||
	    vfs_strcasecmp(name, name) != 0) {
		abort();
	}
	(void)vfs_name_matches(pat, name, false);
	(void)vfs_name_matches(pat, name, true);
	/* A name without wildcards matches itself, in any case. */
	if (name[0] != '\0' && !vfs_name_has_wildcard(name) &&
	    (!vfs_name_matches(name, name, true) ||
	     !vfs_name_matches(name, name, false))) {
		abort();
	}
	if (vfs_name_matches(pat, name, true) &&
	    !vfs_name_matches(pat, name, false)) {
		abort();
	}
	/* As a `veto files` list: a case-sensitive hit is a hit without
	 * case too, and a list holding the pattern alone decides as the
	 * pattern does (when it has no '/' and fits). */
	if (vfs_name_in_list(pat, name, true) &&
	    !vfs_name_in_list(pat, name, false)) {
		abort();
	}
	if (pat[0] != '\0' && strchr(pat, '/') == NULL && strlen(pat) < 256 &&
	    vfs_name_in_list(pat, name, false) !=
		    vfs_name_matches(pat, name, false)) {
		abort();
	}
	(void)vfs_name_is_8_3(name);
	(void)vfs_name_is_mangled(name);
	m = vfs_name_mangle(ctx, name);
	if (m == NULL || !vfs_name_is_8_3(m) || !vfs_name_is_mangled(m)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	const uint8_t *cut;
	char *path, *stream, *pat, *name;
	size_t plen;

	if (NT_STATUS_IS_OK(vfs_name_from_wire(ctx, data, size, &path,
					       &stream))) {
		check_path(ctx, path, stream);
	}
	cut = memchr(data, 0xff, size);
	plen = (cut == NULL) ? size : (size_t)(cut - data);
	pat = talloc_strndup(ctx, (const char *)data, plen);
	name = (cut == NULL) ? talloc_strdup(ctx, "")
			     : talloc_strndup(ctx, (const char *)cut + 1,
					      size - plen - 1);
	if (pat != NULL && name != NULL) {
		check_strings(ctx, pat, name);
	}
	talloc_free(ctx);
	return 0;
}
