/*
 * libFuzzer target: vfs/adouble.c.  The input is a "._" file.  Whatever
 * it holds, the parse is refused or every result lies inside the input:
 * the FinderInfo, the resource fork, each attribute's data, and each
 * name, which ends with its NUL inside the input.  The same input goes
 * to fruit:resource = file's header parser (vfs/fruit_rsrc.h): the fork
 * entry it finds, if any, lies inside the input and its fork starts past
 * the entries.  And to fruit:metadata = netatalk's reader of Netatalk's
 * metadata xattr: the FinderInfo it finds lies inside the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "vfs/adouble.h"
#include "vfs/fruit_rsrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const uint8_t *data, size_t size, const void *p,
		   size_t len)
{
	const uint8_t *q = p;

	if (q < data || q > data + size || len > (size_t)(data + size - q)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct vfs_adouble ad;
	struct vfs_rsrc_entry e;
	size_t i, fo;

	if (ctx == NULL) {
		abort();
	}
	if (NT_STATUS_IS_OK(vfs_adouble_parse(ctx, data, size, &ad))) {
		if (ad.finder != NULL) {
			inside(data, size, ad.finder, VFS_ADOUBLE_FINDER_SIZE);
		}
		if (ad.rsrc != NULL) {
			inside(data, size, ad.rsrc, ad.rsrc_len);
		}
		/* wipe_intentionally_left_blank_rfork's test of the fork */
		(void)vfs_adouble_rsrc_blank(ad.rsrc, ad.rsrc_len);
		if (ad.nxattrs > VFS_ADOUBLE_MAX_XATTRS) {
			abort();
		}
		for (i = 0; i < ad.nxattrs; i++) {
			const struct vfs_adouble_xattr *x = &ad.xattrs[i];

			inside(data, size, x->data, x->len);
			inside(data, size, x->name, strlen(x->name) + 1);
		}
	}
	if (NT_STATUS_IS_OK(vfs_rsrc_parse(data, size, &e)) &&
	    (e.len_pos + 4 > size || e.off < 26 + 12 ||
	     e.off < e.len_pos + 4)) {
		abort();
	}
	if (NT_STATUS_IS_OK(vfs_adouble_meta_finder(data, size, &fo))) {
		inside(data, size, data + fo, VFS_ADOUBLE_FINDER_SIZE);
	}
	talloc_free(ctx);
	return 0;
}
