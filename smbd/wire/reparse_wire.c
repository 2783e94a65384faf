/*
 * Reparse buffers on the wire (see reparse_wire.h): every field read
 * through the checked cursor, every length checked against what is
 * there before it is used, nothing allocated beyond the 16 KiB a reparse
 * buffer may hold.
 */
#include "smbd/wire/reparse_wire.h"
#include "lib/charset.h"
#include "vfs/vfs.h"

#include <string.h>

NTSTATUS reparse_set_parse(const uint8_t *buf, size_t len,
			   struct reparse_in *out)
{
	struct wire_cur c;
	uint16_t rdl;
	size_t hdr;

	memset(out, 0, sizeof(*out));
	if (len == 0) {
		return NT_STATUS_INVALID_BUFFER_SIZE;
	}
	if (len < REPARSE_HDR_LEN || len > REPARSE_MAX_LEN) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	wire_cur_init(&c, buf, len);
	(void)wire_pull_le32(&c, &out->tag);
	(void)wire_pull_le16(&c, &rdl);
	/* 2.1.5.10.37: the length is the data's plus one header or the
	 * other, exactly (no slack either way). */
	if (len == (size_t)rdl + REPARSE_HDR_LEN) {
		hdr = REPARSE_HDR_LEN;
	} else if (len == (size_t)rdl + REPARSE_GUID_HDR_LEN) {
		hdr = REPARSE_GUID_HDR_LEN;
	} else {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	if (reparse_tag_reserved(out->tag)) {
		return NT_STATUS_IO_REPARSE_TAG_INVALID;
	}
	/* A tag that is not Microsoft's comes with its GUID (2.1.2.3). */
	if (!reparse_tag_is_microsoft(out->tag) &&
	    hdr != REPARSE_GUID_HDR_LEN) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	out->guid_form = hdr == REPARSE_GUID_HDR_LEN;
	out->data = buf + hdr;
	out->data_len = rdl;
	return NT_STATUS_OK;
}

NTSTATUS reparse_delete_parse(const uint8_t *buf, size_t len, uint32_t *tag)
{
	uint16_t rdl;

	*tag = 0;
	if (len != REPARSE_HDR_LEN && len != REPARSE_GUID_HDR_LEN) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	*tag = le32(buf);
	rdl = le16(buf + 4);
	if (rdl != 0) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	if (reparse_tag_reserved(*tag)) {
		return NT_STATUS_IO_REPARSE_TAG_INVALID;
	}
	return NT_STATUS_OK;
}

/* A name [off, off+n) of PathBuffer (plen bytes): inside, even. */
static bool name_ok(uint16_t off, uint16_t n, size_t plen)
{
	return (n % 2) == 0 && wire_range_ok(off, n, plen);
}

NTSTATUS reparse_symlink_parse(TALLOC_CTX *mem_ctx, const uint8_t *data,
			       size_t data_len, char **target,
			       bool *relative)
{
	struct wire_cur c;
	uint16_t soff, slen, poff, plen;
	uint32_t flags;
	const uint8_t *path;
	size_t path_len;
	char *t, *p;

	*target = NULL;
	*relative = false;
	wire_cur_init(&c, data, data_len);
	if (!NT_STATUS_IS_OK(wire_pull_le16(&c, &soff)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &slen)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &poff)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &plen)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &flags))) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	path = wire_ptr(&c);
	path_len = wire_remaining(&c);
	if (slen == 0 || !name_ok(soff, slen, path_len) ||
	    !name_ok(poff, plen, path_len)) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	if (!NT_STATUS_IS_OK(charset_utf16_to_utf8(mem_ctx, path + soff, slen,
						   &t))) {
		return NT_STATUS_IO_REPARSE_DATA_INVALID;
	}
	for (p = t; *p != '\0'; p++) {
		if (*p == '\\') {
			*p = '/';
		}
	}
	*target = t;
	*relative = (flags & SYMLINK_FLAG_RELATIVE) != 0;
	return NT_STATUS_OK;
}

/* target (UTF-8, '/') as UTF-16LE with '\' separators, on mem_ctx. */
static NTSTATUS target_to_wire(TALLOC_CTX *mem_ctx, const char *target,
			       uint8_t **u16, size_t *n)
{
	size_t i;
	NTSTATUS status = charset_utf8_to_utf16(mem_ctx, target, u16, n);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i + 1 < *n; i += 2) {
		if ((*u16)[i] == '/' && (*u16)[i + 1] == 0) {
			(*u16)[i] = '\\';
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS reparse_symlink_push(struct wire_buf *b, const char *target,
			      bool relative, uint16_t reserved)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *u16 = NULL;
	size_t n = 0, names;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = target_to_wire(tmp, target, &u16, &n);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	if (n == 0 || REPARSE_HDR_LEN + REPARSE_SYMLINK_FIXED + n >
			      REPARSE_MAX_LEN) {
		talloc_free(tmp);
		return n == 0 ? NT_STATUS_INVALID_PARAMETER
			      : NT_STATUS_NAME_TOO_LONG;
	}
	/* Both names when they fit, as Windows writes them; else the one a
	 * client follows. */
	names = REPARSE_HDR_LEN + REPARSE_SYMLINK_FIXED + 2 * n <=
				REPARSE_MAX_LEN
			? 2 * n
			: n;
	wire_push_le32(b, IO_REPARSE_TAG_SYMLINK);
	wire_push_le16(b, (uint16_t)(REPARSE_SYMLINK_FIXED + names));
	wire_push_le16(b, reserved);
	wire_push_le16(b, 0);			/* SubstituteNameOffset */
	wire_push_le16(b, (uint16_t)n);		/* SubstituteNameLength */
	wire_push_le16(b, (uint16_t)(names > n ? n : 0)); /* PrintName.. */
	wire_push_le16(b, (uint16_t)(names > n ? n : 0));
	wire_push_le32(b, relative ? SYMLINK_FLAG_RELATIVE : 0);
	wire_push_bytes(b, u16, n);
	if (names > n) {
		wire_push_bytes(b, u16, n);
	}
	talloc_free(tmp);
	return b->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

void reparse_nfs_push(struct wire_buf *b, uint64_t type, uint32_t major,
		      uint32_t minor)
{
	bool dev = type == NFS_SPECFILE_CHR || type == NFS_SPECFILE_BLK;

	wire_push_le32(b, IO_REPARSE_TAG_NFS);
	wire_push_le16(b, dev ? 16 : 8);
	wire_push_le16(b, 0);
	wire_push_le64(b, type);
	if (dev) {
		/* 2.1.2.6: DeviceMajor, then DeviceMinor */
		wire_push_le32(b, major);
		wire_push_le32(b, minor);
	}
}

NTSTATUS reparse_symlink_error_push(struct wire_buf *b, const char *target,
				    bool relative, uint16_t unparsed)
{
	size_t start = b->len;
	NTSTATUS status;

	wire_push_le32(b, 0);	/* SymLinkLength, below */
	wire_push_le32(b, SYMLINK_ERROR_TAG);
	status = reparse_symlink_push(b, target, relative, unparsed);
	if (!NT_STATUS_IS_OK(status)) {
		b->len = start;
		return status;
	}
	if (b->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	/* the length of what follows SymLinkLength */
	put_le32(b->data + start, (uint32_t)(b->len - start - 4));
	return NT_STATUS_OK;
}
