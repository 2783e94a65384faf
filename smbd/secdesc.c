/*
 * Unix mode -> NT security descriptor (see secdesc.h).  Owner and group
 * use Samba's Unix SIDs (S-1-22-1-uid, S-1-22-2-gid), "other" maps to
 * Everyone (S-1-1-0), each rwx triple to the generic file rights.
 */
#include <stdbool.h>
#include "smbd/secdesc.h"
#include "smbd/open.h"

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
		m |= SEC_RIGHTS_FILE_WRITE | SEC_STD_DELETE;
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
