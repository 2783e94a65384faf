/*
 * libFuzzer target: the previous-version parsers (vfs/snapshot.c): @GMT
 * components taken out of a path, the token parser and formatter, and
 * the TWrp create context (smbd/wire/create_ctx.c).
 *
 * The input (cut at its first NUL) is a share-relative path.  What
 * vfs_gmt_strip returns keeps every other component in order and holds
 * no token any more (stripping it again finds none and changes nothing);
 * a token it found formats back to a token of the same time.  Every
 * 24-byte window that parses as a token formats back to those bytes.
 * The first 8 bytes (or all of them) are a TWrp body.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/create_ctx.h"
#include "vfs/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_strip(TALLOC_CTX *t, const char *path)
{
	char tok[VFS_GMT_TOKEN_LEN + 1];
	char *out, *again;
	bool found, found2;
	int64_t when, when2;
	NTSTATUS st = vfs_gmt_strip(t, path, &out, &found, &when);

	if (!NT_STATUS_IS_OK(st)) {
		if (st != NT_STATUS_OBJECT_NAME_INVALID &&
		    st != NT_STATUS_NO_MEMORY) {
			abort();
		}
		return;
	}
	if (strlen(out) > strlen(path)) {
		abort();
	}
	if (!NT_STATUS_IS_OK(vfs_gmt_strip(t, out, &again, &found2, &when2)) ||
	    found2 || strcmp(again, out) != 0) {
		abort();
	}
	if (found) {
		if (!vfs_gmt_token_format(when, tok) ||
		    !vfs_gmt_token_parse(tok, strlen(tok), &when2) ||
		    when2 != when || strstr(path, tok) == NULL) {
			abort();
		}
	} else if (strcmp(out, path) != 0 && strstr(path, "//") == NULL &&
		   path[0] != '/' && path[strlen(path) - 1] != '/') {
		/* nothing found: only empty components may have gone */
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *t = talloc_new(NULL);
	char *path = talloc_strndup(t, (const char *)data, size);
	char tok[VFS_GMT_TOKEN_LEN + 1];
	struct create_ctx c;
	uint64_t ft;
	int64_t when;
	size_t i;

	if (path == NULL) {
		talloc_free(t);
		return 0;
	}
	check_strip(t, path);
	for (i = 0; i + VFS_GMT_TOKEN_LEN <= size; i++) {
		if (vfs_gmt_token_parse((const char *)data + i,
					VFS_GMT_TOKEN_LEN, &when)) {
			if (!vfs_gmt_token_format(when, tok) ||
			    memcmp(tok, data + i, VFS_GMT_TOKEN_LEN) != 0) {
				abort();
			}
		}
	}
	memset(&c, 0, sizeof(c));
	memcpy(c.tag, "TWrp", 5);
	c.data = data;
	c.data_len = size;
	if (NT_STATUS_IS_OK(create_ctx_twrp_parse(&c, &ft)) &&
	    (size != 8 || vfs_filetime_to_unix(ft) < -11644473600LL)) {
		abort();
	}
	talloc_free(t);
	return 0;
}
