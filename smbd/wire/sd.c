/*
 * Self-relative SECURITY_DESCRIPTOR codec (MS-DTYP 2.4.2, 2.4.4, 2.4.5,
 * 2.4.6) and Samba's security.NTACL xattr (see sd.h).
 */
#include "smbd/wire/sd.h"

#include <string.h>

#define SD_HEADER_LEN 20
#define ACL_HEADER_LEN 8
#define ACE_HEADER_LEN 4

/* MS-DTYP 2.4.4.1 AceType values whose body is Mask followed by a SID. */
static bool ace_type_simple(uint8_t type)
{
	switch (type) {
	case 0x00: /* ACCESS_ALLOWED_ACE_TYPE */
	case 0x01: /* ACCESS_DENIED_ACE_TYPE */
	case 0x02: /* SYSTEM_AUDIT_ACE_TYPE */
	case 0x03: /* SYSTEM_ALARM_ACE_TYPE */
	case 0x11: /* SYSTEM_MANDATORY_LABEL_ACE_TYPE */
	case 0x13: /* SYSTEM_SCOPED_POLICY_ID_ACE_TYPE */
		return true;
	default:
		return false;
	}
}

static size_t sid_size(const struct sd_sid *sid)
{
	return 8 + 4 * (size_t)sid->num_auths;
}

/* MS-DTYP 2.4.2.2: Revision 1, at most 15 sub-authorities. */
static NTSTATUS sid_pull(struct wire_cur *c, struct sd_sid *sid)
{
	uint8_t i;

	memset(sid, 0, sizeof(*sid));
	if (!NT_STATUS_IS_OK(wire_pull_u8(c, &sid->revision)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(c, &sid->num_auths)) ||
	    sid->revision != 1 || sid->num_auths > SD_SID_MAX_SUB_AUTHS ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(c, sid->id_auth, 6))) {
		return NT_STATUS_INVALID_SID;
	}
	for (i = 0; i < sid->num_auths; i++) {
		if (!NT_STATUS_IS_OK(wire_pull_le32(c, &sid->sub_auths[i]))) {
			return NT_STATUS_INVALID_SID;
		}
	}
	return NT_STATUS_OK;
}

static void sid_push(struct wire_buf *out, const struct sd_sid *sid)
{
	uint8_t i, n = sid->num_auths;

	if (n > SD_SID_MAX_SUB_AUTHS) {
		n = SD_SID_MAX_SUB_AUTHS;
	}
	wire_push_u8(out, sid->revision);
	wire_push_u8(out, n);
	wire_push_bytes(out, sid->id_auth, 6);
	for (i = 0; i < n; i++) {
		wire_push_le32(out, sid->sub_auths[i]);
	}
}

/* One ACE (MS-DTYP 2.4.4.1 ACE_HEADER then the body), c at its start. */
static NTSTATUS ace_pull(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			 struct sd_ace *ace)
{
	uint16_t size;
	struct wire_cur body;
	const uint8_t *p;

	memset(ace, 0, sizeof(*ace));
	if (!NT_STATUS_IS_OK(wire_pull_u8(c, &ace->type)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(c, &ace->flags)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(c, &size)) ||
	    size < ACE_HEADER_LEN ||
	    !NT_STATUS_IS_OK(wire_pull_ref(c, &p, size - ACE_HEADER_LEN))) {
		return NT_STATUS_INVALID_ACL;
	}
	wire_cur_init(&body, p, size - ACE_HEADER_LEN);
	if (ace_type_simple(ace->type)) {
		NTSTATUS status;

		if (!NT_STATUS_IS_OK(wire_pull_le32(&body, &ace->mask))) {
			return NT_STATUS_INVALID_ACL;
		}
		status = sid_pull(&body, &ace->sid);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (wire_remaining(&body) == 0) {
			return NT_STATUS_OK;
		}
	}
	/* Unknown type or trailing bytes: keep the body as it came. */
	ace->opaque = talloc_size(mem_ctx, size - ACE_HEADER_LEN + 1U);
	if (ace->opaque == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(ace->opaque, p, size - ACE_HEADER_LEN);
	ace->opaque_len = (uint16_t)(size - ACE_HEADER_LEN);
	ace->mask = 0;
	memset(&ace->sid, 0, sizeof(ace->sid));
	return NT_STATUS_OK;
}

/* MS-DTYP 2.4.5: the ACL at off in buf, AclSize bytes that hold every ACE. */
static NTSTATUS acl_pull(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			 uint32_t off, struct sd_acl **out)
{
	struct wire_cur c, aces;
	struct sd_acl *acl;
	uint8_t sbz1;
	uint16_t size, sbz2, i;
	NTSTATUS status;

	acl = talloc_zero(mem_ctx, struct sd_acl);
	if (acl == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(wire_slice(buf, len, off, ACL_HEADER_LEN, &c)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&c, &acl->revision)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&c, &sbz1)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &size)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &acl->num_aces)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &sbz2)) ||
	    /* ACL_REVISION 2 or ACL_REVISION_DS 4 (MS-DTYP 2.4.5), and
	     * 3 (ACL_REVISION3), which Windows' RtlValidAcl and Samba
	     * take and smbcacls --set sends */
	    acl->revision < 2 || acl->revision > 4 ||
	    size < ACL_HEADER_LEN ||
	    !NT_STATUS_IS_OK(wire_slice(buf, len, (uint64_t)off +
					ACL_HEADER_LEN,
					size - ACL_HEADER_LEN, &aces)) ||
	    (size_t)acl->num_aces * ACE_HEADER_LEN >
	     (size_t)size - ACL_HEADER_LEN) {
		talloc_free(acl);
		return NT_STATUS_INVALID_ACL;
	}
	acl->aces = talloc_zero_array(acl, struct sd_ace, acl->num_aces);
	if (acl->aces == NULL && acl->num_aces != 0) {
		talloc_free(acl);
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < acl->num_aces; i++) {
		status = ace_pull(acl->aces, &aces, &acl->aces[i]);
		if (!NT_STATUS_IS_OK(status)) {
			talloc_free(acl);
			return status;
		}
	}
	*out = acl;
	return NT_STATUS_OK;
}

static NTSTATUS sid_pull_at(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			    size_t len, uint32_t off, struct sd_sid **out)
{
	struct wire_cur c;
	struct sd_sid *sid;
	NTSTATUS status;

	if (off >= len ||
	    !NT_STATUS_IS_OK(wire_slice(buf, len, off, len - off, &c))) {
		return NT_STATUS_INVALID_SID;
	}
	sid = talloc(mem_ctx, struct sd_sid);
	if (sid == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = sid_pull(&c, sid);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(sid);
		return status;
	}
	*out = sid;
	return NT_STATUS_OK;
}

NTSTATUS sd_parse_at(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
		     size_t hdr_off, struct sd **out)
{
	struct wire_cur c;
	struct sd *sd;
	uint32_t owner, group, sacl, dacl;
	NTSTATUS status = NT_STATUS_OK;

	sd = talloc_zero(mem_ctx, struct sd);
	if (sd == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* MS-DTYP 2.4.6: Revision 1, Sbz1, Control, four Offset fields. */
	if (!NT_STATUS_IS_OK(wire_slice(buf, len, hdr_off, SD_HEADER_LEN,
					&c)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&c, &sd->revision)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&c, &sd->sbz1)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &sd->control)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &owner)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &group)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &sacl)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &dacl)) ||
	    sd->revision != 1) {
		talloc_free(sd);
		return NT_STATUS_INVALID_SECURITY_DESCR;
	}
	if (owner != 0) {
		status = sid_pull_at(sd, buf, len, owner, &sd->owner);
	}
	if (NT_STATUS_IS_OK(status) && group != 0) {
		status = sid_pull_at(sd, buf, len, group, &sd->group);
	}
	if (NT_STATUS_IS_OK(status) && sacl != 0) {
		status = acl_pull(sd, buf, len, sacl, &sd->sacl);
	}
	if (NT_STATUS_IS_OK(status) && dacl != 0) {
		status = acl_pull(sd, buf, len, dacl, &sd->dacl);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(sd);
		return status;
	}
	*out = sd;
	return NT_STATUS_OK;
}

static size_t ace_size(const struct sd_ace *ace)
{
	if (ace->opaque != NULL) {
		return ACE_HEADER_LEN + ace->opaque_len;
	}
	return ACE_HEADER_LEN + 4 + sid_size(&ace->sid);
}

size_t sd_acl_size(const struct sd_acl *acl)
{
	size_t size = ACL_HEADER_LEN;
	uint16_t i;

	for (i = 0; i < acl->num_aces; i++) {
		size += ace_size(&acl->aces[i]);
	}
	return size;
}

static void acl_push(struct wire_buf *out, const struct sd_acl *acl)
{
	size_t size = sd_acl_size(acl);
	uint16_t i;

	wire_push_u8(out, acl->revision);
	wire_push_u8(out, 0);
	wire_push_le16(out, (uint16_t)size);
	wire_push_le16(out, acl->num_aces);
	wire_push_le16(out, 0);
	for (i = 0; i < acl->num_aces; i++) {
		const struct sd_ace *ace = &acl->aces[i];

		wire_push_u8(out, ace->type);
		wire_push_u8(out, ace->flags);
		wire_push_le16(out, (uint16_t)ace_size(ace));
		if (ace->opaque != NULL) {
			wire_push_bytes(out, ace->opaque, ace->opaque_len);
		} else {
			wire_push_le32(out, ace->mask);
			sid_push(out, &ace->sid);
		}
	}
}

/* Patch the Offset field at field_pos with where the next part starts. */
static void patch_offset(struct wire_buf *out, size_t field_pos, size_t hdr,
			 size_t bias)
{
	uint32_t v;

	wire_push_align_from(out, hdr, 4);
	if (out->failed) {
		return;
	}
	v = (uint32_t)(out->len - hdr + bias);
	put_le32(out->data + field_pos, v);
}

void sd_push(struct wire_buf *out, const struct sd *sd, size_t bias)
{
	size_t hdr = out->len;

	wire_push_u8(out, sd->revision);
	wire_push_u8(out, sd->sbz1);
	wire_push_le16(out, sd->control | SD_SE_SELF_RELATIVE);
	wire_push_zero(out, 16); /* Offsets, patched below */
	if (sd->owner != NULL) {
		patch_offset(out, hdr + 4, hdr, bias);
		sid_push(out, sd->owner);
	}
	if (sd->group != NULL) {
		patch_offset(out, hdr + 8, hdr, bias);
		sid_push(out, sd->group);
	}
	if (sd->sacl != NULL) {
		patch_offset(out, hdr + 12, hdr, bias);
		acl_push(out, sd->sacl);
	}
	if (sd->dacl != NULL) {
		patch_offset(out, hdr + 16, hdr, bias);
		acl_push(out, sd->dacl);
	}
}

NTSTATUS sd_marshal(TALLOC_CTX *mem_ctx, const struct sd *sd, uint8_t **blob,
		    size_t *len)
{
	struct wire_buf b;

	wire_buf_init(&b, mem_ctx, 128);
	sd_push(&b, sd, 0);
	if (b.failed) {
		return NT_STATUS_NO_MEMORY;
	}
	*blob = b.data;
	*len = b.len;
	return NT_STATUS_OK;
}

/*
 * NDR of xattr_NTACL (Samba xattr.idl): uint16 version, the union's uint16
 * level (the same number), then a unique pointer (uint32 referent, 4-byte
 * aligned) to the version's structure.  Deferred data follows: for v1 the
 * descriptor itself; for v2-v4 a security_descriptor_hash_vN whose first
 * member is again a pointer to the descriptor, which comes after it:
 *   v2: sd ptr, hash[16]
 *   v3: sd ptr, uint16 hash_type, hash[64]
 *   v4: sd ptr, uint16 hash_type, hash[64], NUL-terminated ASCII
 *       description, NTTIME (4-byte aligned), sys_acl_hash[64]
 * The descriptor's Offset fields count from the start of the blob.
 */
static NTSTATUS ntacl_hash_skip(struct wire_cur *c, uint16_t version)
{
	uint16_t hash_type;
	const uint8_t *p;

	if (version == 2) {
		return wire_skip(c, 16);
	}
	if (!NT_STATUS_IS_OK(wire_pull_le16(c, &hash_type)) ||
	    !NT_STATUS_IS_OK(wire_skip(c, 64))) {
		return NT_STATUS_INVALID_SECURITY_DESCR;
	}
	if (version == 3) {
		return NT_STATUS_OK;
	}
	/* The description string runs to its NUL. */
	p = memchr(wire_ptr(c), '\0', wire_remaining(c));
	if (p == NULL || !NT_STATUS_IS_OK(wire_skip(c, (size_t)(p - wire_ptr(c))
						    + 1)) ||
	    !NT_STATUS_IS_OK(wire_skip(c, (4 - c->off % 4) % 4)) ||
	    !NT_STATUS_IS_OK(wire_skip(c, 8 + 64))) {
		return NT_STATUS_INVALID_SECURITY_DESCR;
	}
	return NT_STATUS_OK;
}

NTSTATUS ntacl_blob_parse(TALLOC_CTX *mem_ctx, const uint8_t *blob, size_t len,
			  struct sd **out, uint16_t *version)
{
	struct wire_cur c;
	uint16_t ver, level;
	uint32_t ptr;

	wire_cur_init(&c, blob, len);
	if (!NT_STATUS_IS_OK(wire_pull_le16(&c, &ver)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &level)) ||
	    ver != level || ver < 1 || ver > 4 ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &ptr)) || ptr == 0) {
		return NT_STATUS_INVALID_SECURITY_DESCR;
	}
	if (ver > 1) {
		if (!NT_STATUS_IS_OK(wire_pull_le32(&c, &ptr)) || ptr == 0 ||
		    !NT_STATUS_IS_OK(ntacl_hash_skip(&c, ver)) ||
		    !NT_STATUS_IS_OK(wire_skip(&c, (4 - c.off % 4) % 4))) {
			return NT_STATUS_INVALID_SECURITY_DESCR;
		}
	}
	*version = ver;
	return sd_parse_at(mem_ctx, blob, len, c.off, out);
}

NTSTATUS ntacl_blob_push(TALLOC_CTX *mem_ctx, const struct sd *sd,
			 uint8_t **blob, size_t *len)
{
	struct wire_buf b;

	wire_buf_init(&b, mem_ctx, 128);
	wire_push_le16(&b, 1);		/* version */
	wire_push_le16(&b, 1);		/* union level */
	wire_push_le32(&b, 0x00020000); /* referent id, as Samba's NDR */
	sd_push(&b, sd, b.len);
	if (b.failed) {
		return NT_STATUS_NO_MEMORY;
	}
	*blob = b.data;
	*len = b.len;
	return NT_STATUS_OK;
}
