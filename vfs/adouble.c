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

/*
 * Netatalk's metadata xattr (layout in adouble.h).  The entries in the
 * order Samba's fruit writes them (by id; the data is in another order);
 * the private ones carry Netatalk's ids.
 */
#define META_DATES_EPOCH 946684800	/* 2000-01-01 in Unix seconds */
#define META_NEVER 0x80000000		/* the earliest AppleDouble date */

static const struct {
	uint32_t id, off, len;
} meta_entries[] = {
	{4, 154, 0},		/* Comment */
	{8, 354, 16},		/* File Dates */
	{AD_ENTRY_FINDER, 122, VFS_ADOUBLE_FINDER_SIZE},
	{14, 370, 4},		/* AFP File Info */
	{0x80444556, 374, 0},	/* Netatalk's dev */
	{0x80494E4F, 382, 0},	/* ino */
	{0x8053594E, 390, 0},	/* syn */
	{0x8053567E, 398, 0},	/* id */
};
#define META_DATES_OFF 354

NTSTATUS vfs_adouble_meta_finder(const uint8_t *buf, size_t len,
				 size_t *finder_off)
{
	TALLOC_CTX *tmp;
	struct vfs_adouble ad;
	NTSTATUS st;

	if (len != VFS_ADOUBLE_META_SIZE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* a Finder Info entry longer than the FinderInfo could carry an
	 * ATTR block: the parse's attributes are not wanted here */
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = vfs_adouble_parse(tmp, buf, len, &ad);
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (ad.finder == NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*finder_off = (size_t)(ad.finder - buf);
	return NT_STATUS_OK;
}

void vfs_adouble_meta_init(uint8_t buf[VFS_ADOUBLE_META_SIZE], int64_t now)
{
	uint32_t date = (uint32_t)(now - META_DATES_EPOCH);
	size_t i;

	memset(buf, 0, VFS_ADOUBLE_META_SIZE);
	put_be32(buf, AD_MAGIC);
	put_be32(buf + 4, AD_VERSION);
	buf[24] = 0;
	buf[25] = sizeof(meta_entries) / sizeof(meta_entries[0]);
	for (i = 0; i < sizeof(meta_entries) / sizeof(meta_entries[0]); i++) {
		uint8_t *e = buf + AD_HEADER + 12 * i;

		put_be32(e, meta_entries[i].id);
		put_be32(e + 4, meta_entries[i].off);
		put_be32(e + 8, meta_entries[i].len);
	}
	put_be32(buf + META_DATES_OFF, date);		/* create */
	put_be32(buf + META_DATES_OFF + 4, date);	/* modify */
	put_be32(buf + META_DATES_OFF + 8, META_NEVER);	/* backup */
	put_be32(buf + META_DATES_OFF + 12, date);	/* access */
}

/*
 * Apple's empty resource fork, built from the resource file layout
 * (Inside Macintosh: More Macintosh Toolbox, 1-121): a 16-byte header
 * (data offset 0x100, map offset 0x100, data length 0, map length 0x1e),
 * the text in the 240 bytes reserved after it, then the map: a copy of
 * the header, 8 bytes of handle, file reference and attributes, the type
 * list offset 0x1c, the name list offset 0x1e and the count of types
 * less one, 0xffff for none.
 */
static void blank_rsrc(uint8_t b[VFS_ADOUBLE_BLANK_RSRC_SIZE])
{
	static const char text[] =
		"This resource fork intentionally left blank   ";
	uint8_t *map = b + 0x100;

	memset(b, 0, VFS_ADOUBLE_BLANK_RSRC_SIZE);
	put_be32(b, 0x100);
	put_be32(b + 4, 0x100);
	put_be32(b + 12, 0x1e);
	memcpy(b + 16, text, sizeof(text) - 1);
	memcpy(map, b, 16);
	map[25] = 0x1c;
	map[27] = 0x1e;
	map[28] = 0xff;
	map[29] = 0xff;
}

bool vfs_adouble_rsrc_blank(const uint8_t *rsrc, size_t len)
{
	uint8_t blank[VFS_ADOUBLE_BLANK_RSRC_SIZE];

	if (rsrc == NULL || len != sizeof(blank)) {
		return false;
	}
	blank_rsrc(blank);
	return memcmp(rsrc, blank, sizeof(blank)) == 0;
}
