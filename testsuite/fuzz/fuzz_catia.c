/*
 * libFuzzer target: vfs/catia.c.  The input's first line is a
 * catia:mappings value (split on commas), the rest a name to map both
 * ways.  Whatever the map, a mapped name keeps its '/' separators (no
 * more, no fewer), holds no NUL, and grows at most threefold.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "vfs/catia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t slashes(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		n += *s == '/';
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	const uint8_t *nl = memchr(data, '\n', size);
	size_t llen = nl != NULL ? (size_t)(nl - data) : size;
	char *list = talloc_strndup(ctx, (const char *)data, llen);
	char *name = talloc_strndup(ctx, nl != NULL ? (const char *)nl + 1 : "",
				    nl != NULL ? size - llen - 1 : 0);
	const char **entries = talloc_zero_array(ctx, const char *, 1);
	struct vfs_name_map *m = NULL;
	size_t n = 0;
	char *tok, *save = NULL;
	int d;

	if (list == NULL || name == NULL || entries == NULL) {
		abort();
	}
	for (tok = strtok_r(list, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		entries = talloc_realloc(ctx, entries, const char *, n + 2);
		entries[n++] = tok;
		entries[n] = NULL;
	}
	if (!NT_STATUS_IS_OK(vfs_name_map_parse(ctx, entries, &m, NULL))) {
		abort();
	}
	for (d = 0; d < 2; d++) {
		char *out = vfs_name_map_apply(ctx, m, d == 0 ? VFS_NAME_TO_DISK
							   : VFS_NAME_TO_WIRE,
					       name);

		if (out == NULL || slashes(out) != slashes(name) ||
		    strlen(out) > 3 * strlen(name) ||
		    talloc_get_size(out) != strlen(out) + 1) {
			abort();
		}
	}
	talloc_free(ctx);
	return 0;
}
