/*
 * Samba's user.DOSATTRIB xattr: decode every version Samba wrote, encode
 * what Samba 4.17 writes (layout in dosattrib.h).
 *
 * The decoder reads through the checked cursor (lib/wire.h) and follows
 * Samba's own reader on the corner cases, found by feeding blobs to
 * Samba 4.17's NDR code (python3-samba's ndr_unpack): a lone string is the
 * Samba 3.0 hex form, parsed the way sscanf("%x") does; padding bytes are
 * not checked; trailing bytes are ignored.
 *
 * The fd helpers are the only errno users here; they map the few errnos
 * an xattr call gives once, at the call.
 */
#include "vfs/dosattrib.h"
#include "vfs/vfs_posix.h"
#include "lib/wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

/* Samba reads the xattr into an fstring. */
#define DOSATTRIB_MAX_READ 256

static bool null_nttime(uint64_t t)
{
	return t == 0 || t == UINT64_MAX;
}

static int hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/*
 * Samba reads the old form with sscanf(s, "%x"): leading white space, a
 * sign, an optional 0x, hex digits, the value truncated to 32 bits (as
 * strtoul then the cast to unsigned int would).  No digit at all leaves
 * Samba's variable unset: we call that malformed.
 */
static NTSTATUS parse_hex(const uint8_t *s, size_t n, uint32_t *out)
{
	size_t i = 0;
	bool neg = false, any = false;
	uint64_t v = 0;

	while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) {
		i++;
	}
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	if (i + 1 < n && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		any = true;	/* the '0' counts as the digit */
		i += 2;
	}
	for (; i < n && hex_digit(s[i]) >= 0; i++) {
		if (v > UINT64_MAX / 16) {
			v = UINT64_MAX;	/* strtoul saturates */
		} else {
			v = v * 16 + (uint64_t)hex_digit(s[i]);
		}
		any = true;
	}
	if (!any) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (neg) {
		v = (uint64_t)0 - v;
	}
	*out = (uint32_t)v;
	return NT_STATUS_OK;
}

/* Skip to a multiple of align from the start of the blob. */
static NTSTATUS align_cur(struct wire_cur *c, size_t align)
{
	size_t pad = (align - c->off % align) % align;

	return wire_skip(c, pad);
}

/* The v1-v5 bodies; c is aligned to 4 at the body's start. */
static NTSTATUS decode_body(struct wire_cur *c, uint16_t version,
			    struct dos_info *out)
{
	uint32_t flags = 0, attrib = 0, u32;
	uint64_t u64, create = 0;
	NTSTATUS st;

	/* The first word: attrib in v1, flags in v2, valid_flags after. */
	st = wire_pull_le32(c, version == 1 ? &attrib : &flags);
	if (NT_STATUS_IS_OK(st) && version != 1) {
		st = wire_pull_le32(c, &attrib);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	switch (version) {
	case 1:
	case 2:
	case 3:
		/* ea_size, size, alloc_size, create_time, change_time */
		st = wire_pull_le32(c, &u32);
		if (NT_STATUS_IS_OK(st)) {
			st = wire_skip(c, 16);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le64(c, &create);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le64(c, &u64);
		}
		if (NT_STATUS_IS_OK(st) && version == 2) {
			/* write_time, then the NUL-terminated name, which
			 * may run to the end as NDR allows */
			st = wire_pull_le64(c, &u64);
			if (NT_STATUS_IS_OK(st) && wire_remaining(c) == 0) {
				st = NT_STATUS_INVALID_PARAMETER;
			}
		}
		break;
	case 4:
		st = wire_pull_le64(c, &out->itime);
		if (NT_STATUS_IS_OK(st)) {
			out->has_itime = (flags & DOSATTRIB_VALID_ITIME) != 0;
			st = wire_pull_le64(c, &create);
		}
		break;
	case 5:
		st = wire_pull_le64(c, &create);
		break;
	default:
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	out->attrs = attrib;
	out->create_time = create;
	if (version == 1) {
		out->has_create_time = !null_nttime(create);
	} else if (version >= 3) {
		out->has_create_time =
			(flags & DOSATTRIB_VALID_CREATE_TIME) != 0 &&
			!null_nttime(create);
	}
	return NT_STATUS_OK;
}

NTSTATUS dosattrib_decode(const uint8_t *blob, size_t len,
			  struct dos_info *out)
{
	struct dos_info info = {0};
	struct wire_cur c;
	const uint8_t *nul;
	size_t slen, i;
	uint16_t version, level;
	NTSTATUS st;

	if (blob == NULL || len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	nul = memchr(blob, 0, len);
	slen = (nul == NULL) ? len : (size_t)(nul - blob);
	for (i = 0; i < slen; i++) {
		if (blob[i] >= 0x80) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	wire_cur_init(&c, blob, len);
	st = wire_skip(&c, nul == NULL ? len : slen + 1);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (wire_remaining(&c) == 0) {
		/* Samba 3.0's form: the hex string and nothing else. */
		st = parse_hex(blob, slen, &info.attrs);
		if (!NT_STATUS_IS_OK(st)) {
			return st;
		}
		info.version = DOSATTRIB_VERSION_HEX;
		*out = info;
		return NT_STATUS_OK;
	}
	st = align_cur(&c, 2);
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le16(&c, &version);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le16(&c, &level);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = align_cur(&c, 4);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	/* NDR checks the union's switch against the version. */
	if (version != level || version < 1 || version > 5) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	st = decode_body(&c, version, &info);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	info.version = version;
	*out = info;
	return NT_STATUS_OK;
}

NTSTATUS dosattrib_encode(TALLOC_CTX *mem_ctx, const struct dos_info *in,
			  uint8_t **blob, size_t *len)
{
	uint8_t *b = talloc_zero_array(mem_ctx, uint8_t, 24);
	uint32_t flags = DOSATTRIB_VALID_ATTRIB;

	if (b == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (in->has_create_time) {
		flags |= DOSATTRIB_VALID_CREATE_TIME;
	}
	/* b[0]: attrib_hex "", b[1]: pad */
	put_le16(b + 2, 5);
	put_le16(b + 4, 5);
	/* b[6..7]: pad to 4 */
	put_le32(b + 8, flags);
	/* MS-FSCC 2.6 OFFLINE: Samba leaves it to the HSM, never stores it. */
	put_le32(b + 12, in->attrs & ~(uint32_t)0x00001000);
	put_le64(b + 16, in->has_create_time ? in->create_time : 0);
	*blob = b;
	*len = 24;
	return NT_STATUS_OK;
}

static NTSTATUS xattr_errno(int err)
{
	switch (err) {
	case ENODATA:
		return NT_STATUS_NOT_FOUND;
	case ENOTSUP:
		return NT_STATUS_NOT_SUPPORTED;
	case EACCES:
	case EPERM:
		return NT_STATUS_ACCESS_DENIED;
	case ERANGE:
	case E2BIG:
		return NT_STATUS_INVALID_PARAMETER;
	case EBADF:
		return NT_STATUS_INVALID_HANDLE;
	case ENOMEM:
		return NT_STATUS_NO_MEMORY;
	default:
		return NT_STATUS_UNSUCCESSFUL;
	}
}

NTSTATUS dosattrib_fget(int fd, struct dos_info *out)
{
	uint8_t buf[DOSATTRIB_MAX_READ];
	ssize_t n;

	n = fgetxattr(fd, DOSATTRIB_XATTR_NAME, buf, sizeof(buf));
	if (n < 0 && errno == EBADF && fd >= 0) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		n = getxattr(proc, DOSATTRIB_XATTR_NAME, buf, sizeof(buf));
		if (n < 0 && errno == ENOENT) {
			errno = EBADF;	/* not an open descriptor */
		}
	}
	if (n < 0) {
		return xattr_errno(errno);
	}
	return dosattrib_decode(buf, (size_t)n, out);
}

NTSTATUS dosattrib_get_at(int dirfd, const char *name, struct dos_info *out)
{
	uint8_t buf[DOSATTRIB_MAX_READ];
	ssize_t n = vfs_xattr_get_at(dirfd, name, DOSATTRIB_XATTR_NAME, buf,
				     sizeof(buf));

	if (n < 0) {
		return xattr_errno(errno);
	}
	return dosattrib_decode(buf, (size_t)n, out);
}

NTSTATUS dosattrib_fset(int fd, const struct dos_info *in)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *blob;
	size_t len;
	NTSTATUS st;
	int ret;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = dosattrib_encode(tmp, in, &blob, &len);
	if (!NT_STATUS_IS_OK(st)) {
		goto done;
	}
	ret = fsetxattr(fd, DOSATTRIB_XATTR_NAME, blob, len, 0);
	if (ret != 0 && errno == EBADF && fd >= 0) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		ret = setxattr(proc, DOSATTRIB_XATTR_NAME, blob, len, 0);
		if (ret != 0 && errno == ENOENT) {
			errno = EBADF;
		}
	}
	if (ret != 0) {
		st = xattr_errno(errno);
	}
done:
	talloc_free(tmp);
	return st;
}
