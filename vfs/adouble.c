/*
 * AppleDouble parsing (layout in adouble.h).
 */
#include "vfs/adouble.h"
#include "lib/wire.h"

#include <string.h>

#define AD_MAGIC 0x00051607
#define AD_VERSION 0x00020000
#define AD_HEADER 26		/* magic, version, filler, count */
#define AD_ENTRY_FINDER 9
#define AD_ENTRY_RSRC 2
#define ATTR_MAGIC 0x41545452	/* "ATTR" */
/* From the Finder Info entry's start: FinderInfo, 2 bytes of padding,
 * then the ATTR header of 36 bytes. */
#define ATTR_OFF (VFS_ADOUBLE_FINDER_SIZE + 2)
#define ATTR_HEADER 36

static NTSTATUS pull_be16(struct wire_cur *c, uint16_t *v)
{
	const uint8_t *p;
	NTSTATUS st = wire_pull_ref(c, &p, 2);

	if (NT_STATUS_IS_OK(st)) {
		*v = be16(p);
	}
	return st;
}

static NTSTATUS pull_be32(struct wire_cur *c, uint32_t *v)
{
	const uint8_t *p;
	NTSTATUS st = wire_pull_ref(c, &p, 4);

	if (NT_STATUS_IS_OK(st)) {
		*v = be32(p);
	}
	return st;
}

/* One ATTR entry at the cursor: the name must end with its NUL inside
 * its length, the data lie inside the file. */
static NTSTATUS parse_xattr(struct wire_cur *c, const uint8_t *buf,
			    size_t len, struct vfs_adouble_xattr *x)
{
	uint32_t off, dlen;
	uint16_t flags;
	uint8_t nlen;
	const uint8_t *name;
	NTSTATUS st;

	if (!NT_STATUS_IS_OK(st = pull_be32(c, &off)) ||
	    !NT_STATUS_IS_OK(st = pull_be32(c, &dlen)) ||
	    !NT_STATUS_IS_OK(st = pull_be16(c, &flags)) ||
	    !NT_STATUS_IS_OK(st = wire_pull_u8(c, &nlen)) ||
	    !NT_STATUS_IS_OK(st = wire_pull_ref(c, &name, nlen))) {
		return st;
	}
	if (nlen < 2 || name[nlen - 1] != '\0' ||
	    memchr(name, '\0', nlen - 1) != NULL ||
	    !wire_range_ok(off, dlen, len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	x->name = (const char *)name;
	x->data = buf + off;
	x->len = dlen;
	/* the next entry starts on a 4-byte boundary of the file */
	if (c->off % 4 != 0 && wire_remaining(c) > 0) {
		size_t pad = 4 - c->off % 4;

		return wire_skip(c, pad < wire_remaining(c)
					    ? pad
					    : wire_remaining(c));
	}
	return NT_STATUS_OK;
}

/* The ATTR block after the FinderInfo of the entry at [off, off+elen),
 * if there is one (an entry of just the FinderInfo has none). */
static NTSTATUS parse_attrs(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			    size_t len, uint32_t off, uint32_t elen,
			    struct vfs_adouble *ad)
{
	struct wire_cur c;
	uint32_t magic;
	uint16_t count, i;
	NTSTATUS st;

	if (elen < ATTR_OFF + ATTR_HEADER) {
		return NT_STATUS_OK;
	}
	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(st = wire_seek(&c, (size_t)off + ATTR_OFF)) ||
	    !NT_STATUS_IS_OK(st = pull_be32(&c, &magic))) {
		return st;
	}
	if (magic != ATTR_MAGIC) {
		return NT_STATUS_OK;	/* padding, not attributes */
	}
	/* debug tag, total size, data start, data length, reserved, flags */
	if (!NT_STATUS_IS_OK(st = wire_skip(&c, 4 + 4 + 4 + 4 + 12 + 2)) ||
	    !NT_STATUS_IS_OK(st = pull_be16(&c, &count))) {
		return st;
	}
	if (count > VFS_ADOUBLE_MAX_XATTRS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (count == 0) {
		return NT_STATUS_OK;
	}
	ad->xattrs = talloc_zero_array(mem_ctx, struct vfs_adouble_xattr,
				       count);
	if (ad->xattrs == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		st = parse_xattr(&c, buf, len, &ad->xattrs[i]);
		if (!NT_STATUS_IS_OK(st)) {
			TALLOC_FREE(ad->xattrs);
			return st;
		}
	}
	ad->nxattrs = count;
	return NT_STATUS_OK;
}

NTSTATUS vfs_adouble_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct vfs_adouble *ad)
{
	struct wire_cur c;
	uint32_t magic, version;
	uint16_t n, i;
	NTSTATUS st;

	memset(ad, 0, sizeof(*ad));
	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(st = pull_be32(&c, &magic)) ||
	    !NT_STATUS_IS_OK(st = pull_be32(&c, &version)) ||
	    !NT_STATUS_IS_OK(st = wire_skip(&c, 16)) ||
	    !NT_STATUS_IS_OK(st = pull_be16(&c, &n))) {
		return st;
	}
	if (magic != AD_MAGIC || version != AD_VERSION ||
	    n > VFS_ADOUBLE_MAX_ENTRIES) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < n; i++) {
		uint32_t id, off, elen;

		if (!NT_STATUS_IS_OK(st = pull_be32(&c, &id)) ||
		    !NT_STATUS_IS_OK(st = pull_be32(&c, &off)) ||
		    !NT_STATUS_IS_OK(st = pull_be32(&c, &elen))) {
			return st;
		}
		if (!wire_range_ok(off, elen, len)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (id == AD_ENTRY_FINDER && ad->finder == NULL) {
			if (elen < VFS_ADOUBLE_FINDER_SIZE) {
				return NT_STATUS_INVALID_PARAMETER;
			}
			ad->finder = buf + off;
			st = parse_attrs(mem_ctx, buf, len, off, elen, ad);
			if (!NT_STATUS_IS_OK(st)) {
				return st;
			}
		} else if (id == AD_ENTRY_RSRC && ad->rsrc == NULL) {
			ad->rsrc = buf + off;
			ad->rsrc_len = elen;
		}
	}
	return NT_STATUS_OK;
}
