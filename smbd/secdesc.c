/*
 * Unix mode -> NT security descriptor (see secdesc.h).  Owner and group
 * use Samba's Unix SIDs (S-1-22-1-uid, S-1-22-2-gid), "other" maps to
 * Everyone (S-1-1-0), each rwx triple to the generic file rights.
 */
#include <stdbool.h>
#include "smbd/secdesc.h"
#include "smbd/open.h"

#include <string.h>

#define SE_DACL_PRESENT 0x0004
#define SE_SELF_RELATIVE 0x8000
#define ACCESS_ALLOWED_ACE_TYPE 0
#define CONTAINER_INHERIT_ACE 0x02
#define OBJECT_INHERIT_ACE 0x01

struct sid_small {
	uint8_t auth;		/* identifier authority (last byte) */
	uint8_t count;
	uint32_t sub[2];
};

static size_t sid_len(const struct sid_small *s)
{
	return 8 + 4 * (size_t)s->count;
}

static void push_sid(struct wire_buf *out, const struct sid_small *s)
{
	uint8_t i;

	wire_push_u8(out, 1);
	wire_push_u8(out, s->count);
	wire_push_zero(out, 5);
	wire_push_u8(out, s->auth);
	for (i = 0; i < s->count; i++) {
		wire_push_le32(out, s->sub[i]);
	}
}

static uint32_t perm_mask(unsigned rwx, bool owner)
{
	uint32_t m = SEC_FILE_READ_ATTRIBUTE | SEC_STD_READ_CONTROL |
		     SEC_STD_SYNCHRONIZE | SEC_FILE_READ_EA;

	if (rwx & 4) {
		m |= SEC_RIGHTS_FILE_READ;
	}
	if (rwx & 2) {
		/* Write permission on a directory lets one delete what is
		 * in it: FILE_DELETE_CHILD (rwx is then full control, as
		 * Windows and Samba show it), which an NT ACL stored from
		 * this descriptor must keep granting. */
		m |= SEC_RIGHTS_FILE_WRITE | SEC_STD_DELETE |
		     SEC_DIR_DELETE_CHILD;
	}
	if (rwx & 1) {
		m |= SEC_RIGHTS_FILE_EXECUTE;
	}
	if (owner) {
		/* The owner may always change the permissions. */
		m |= SEC_STD_WRITE_DAC | SEC_STD_WRITE_OWNER |
		     SEC_FILE_WRITE_ATTRIBUTE;
	}
	return m;
}

static void push_ace(struct wire_buf *out, const struct sid_small *s,
		     uint32_t mask, uint8_t flags)
{
	wire_push_u8(out, ACCESS_ALLOWED_ACE_TYPE);
	wire_push_u8(out, flags);
	wire_push_le16(out, (uint16_t)(8 + sid_len(s)));
	wire_push_le32(out, mask);
	push_sid(out, s);
}

void secdesc_from_mode(struct wire_buf *out, uint32_t secinfo, uid_t uid,
		       gid_t gid, mode_t mode, bool is_dir)
{
	struct sid_small owner = {22, 2, {1, (uint32_t)uid}};
	struct sid_small group = {22, 2, {2, (uint32_t)gid}};
	struct sid_small world = {1, 1, {0, 0}};
	size_t start = out->len, off = 20;
	uint8_t flags = is_dir ? (CONTAINER_INHERIT_ACE | OBJECT_INHERIT_ACE)
			       : 0;
	uint16_t control = SE_SELF_RELATIVE;
	size_t owner_off = 0, group_off = 0, dacl_off = 0;

	if (secinfo & SECINFO_OWNER) {
		owner_off = off;
		off += sid_len(&owner);
	}
	if (secinfo & SECINFO_GROUP) {
		group_off = off;
		off += sid_len(&group);
	}
	if (secinfo & SECINFO_DACL) {
		dacl_off = off;
		control |= SE_DACL_PRESENT;
	}
	wire_push_u8(out, 1);
	wire_push_u8(out, 0);
	wire_push_le16(out, control);
	wire_push_le32(out, (uint32_t)owner_off);
	wire_push_le32(out, (uint32_t)group_off);
	wire_push_le32(out, 0); /* no SACL */
	wire_push_le32(out, (uint32_t)dacl_off);
	if (owner_off) {
		push_sid(out, &owner);
	}
	if (group_off) {
		push_sid(out, &group);
	}
	if (dacl_off) {
		size_t acl = out->len;

		wire_push_u8(out, 2);
		wire_push_u8(out, 0);
		wire_push_le16(out, 0); /* AclSize, patched */
		wire_push_le16(out, 3);
		wire_push_le16(out, 0);
		push_ace(out, &owner, perm_mask((mode >> 6) & 7, true), flags);
		push_ace(out, &group, perm_mask((mode >> 3) & 7, false), flags);
		push_ace(out, &world, perm_mask(mode & 7, false), flags);
		if (!out->failed) {
			put_le16(out->data + acl + 2, (uint16_t)(out->len - acl));
		}
	}
	(void)start;
}

/* ---- NT security descriptor -> Unix mode (SET_INFO security) ---- */

struct sd_sid {
	uint8_t auth;
	uint8_t count;
	uint32_t sub[2];
	bool valid;	/* one of the forms we map */
};

/* Read a SID at off; only the forms the mapping needs are recognised. */
static NTSTATUS sd_pull_sid(const uint8_t *buf, size_t len, uint32_t off,
			    struct sd_sid *out)
{
	struct wire_cur c;
	uint8_t rev, count, ida[6];
	uint32_t i, v;

	memset(out, 0, sizeof(*out));
	if (!NT_STATUS_IS_OK(wire_slice(buf, len, off, 8, &c))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	(void)wire_pull_u8(&c, &rev);
	(void)wire_pull_u8(&c, &count);
	(void)wire_pull_bytes(&c, ida, 6);
	if (rev != 1 || count > 15 ||
	    !NT_STATUS_IS_OK(wire_slice(buf, len, (uint64_t)off + 8,
					(uint64_t)count * 4, &c))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->auth = ida[5];
	out->count = count;
	for (i = 0; i < count; i++) {
		(void)wire_pull_le32(&c, &v);
		if (i < 2) {
			out->sub[i] = v;
		}
	}
	out->valid = ida[0] == 0 && ida[1] == 0 && ida[2] == 0 &&
		     ida[3] == 0 && ida[4] == 0 && count <= 2;
	return NT_STATUS_OK;
}

static unsigned sd_rwx(uint32_t mask)
{
	unsigned b = 0;

	if (mask & (SEC_FILE_READ_DATA | SEC_GENERIC_READ | SEC_GENERIC_ALL)) {
		b |= 4;
	}
	if (mask & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
		    SEC_GENERIC_WRITE | SEC_GENERIC_ALL)) {
		b |= 2;
	}
	if (mask & (SEC_FILE_EXECUTE | SEC_GENERIC_EXECUTE | SEC_GENERIC_ALL)) {
		b |= 1;
	}
	return b;
}

NTSTATUS secdesc_to_mode(const uint8_t *buf, size_t len, uint32_t secinfo,
			 uid_t uid, gid_t gid, mode_t old, mode_t *mode)
{
	struct wire_cur c;
	uint8_t rev;
	uint16_t control, acl_size, count, i;
	uint32_t off_dacl, pos;
	unsigned owner = 0, group = 0, other = 0;

	*mode = old;
	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(wire_pull_u8(&c, &rev)) || rev != 1 ||
	    !NT_STATUS_IS_OK(wire_skip(&c, 1)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &control)) ||
	    !NT_STATUS_IS_OK(wire_skip(&c, 12)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &off_dacl))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(secinfo & SECINFO_DACL) || !(control & SE_DACL_PRESENT)) {
		return NT_STATUS_OK; /* owner/group: kept (no chown) */
	}
	if (off_dacl == 0) {
		/* A NULL DACL grants everyone everything. */
		*mode = (old & ~0777u) | 0777u;
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(wire_slice(buf, len, off_dacl, 8, &c))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	(void)wire_skip(&c, 2);
	(void)wire_pull_le16(&c, &acl_size);
	(void)wire_pull_le16(&c, &count);
	if (acl_size < 8 || !wire_range_ok(off_dacl, acl_size, len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	pos = off_dacl + 8;
	for (i = 0; i < count; i++) {
		uint8_t type;
		uint16_t size;
		uint32_t mask;
		struct sd_sid sid;
		struct wire_cur a;

		if (!NT_STATUS_IS_OK(wire_slice(buf, off_dacl + acl_size, pos,
						8, &a))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		(void)wire_pull_u8(&a, &type);
		(void)wire_skip(&a, 1);
		(void)wire_pull_le16(&a, &size);
		(void)wire_pull_le32(&a, &mask);
		if (size < 16 || !wire_range_ok(pos, size, off_dacl + acl_size) ||
		    !NT_STATUS_IS_OK(sd_pull_sid(buf, pos + size, pos + 8,
						 &sid))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		pos += size;
		if (type != 0 /* ACCESS_ALLOWED */ || !sid.valid) {
			continue; /* deny ACEs and other SIDs: no mode bits */
		}
		if (sid.auth == 22 && sid.count == 2 && sid.sub[0] == 1 &&
		    sid.sub[1] == (uint32_t)uid) {
			owner |= sd_rwx(mask);
		} else if (sid.auth == 22 && sid.count == 2 &&
			   sid.sub[0] == 2 && sid.sub[1] == (uint32_t)gid) {
			group |= sd_rwx(mask);
		} else if (sid.auth == 1 && sid.count == 1 && sid.sub[0] == 0) {
			other |= sd_rwx(mask);
		} else if (sid.auth == 5 && sid.count == 1 &&
			   sid.sub[0] == 11) {
			/* Authenticated Users: as "other" here. */
			other |= sd_rwx(mask);
		}
	}
	/* Everyone's rights apply to owner and group too. */
	owner |= other;
	group |= other;
	/* The owner never locks itself out of reading the file. */
	owner |= 4;
	*mode = (old & ~0777u) | (owner << 6) | (group << 3) | other;
	return NT_STATUS_OK;
}
