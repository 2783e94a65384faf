/*
 * General self-relative SECURITY_DESCRIPTOR codec (MS-DTYP 2.4.6) and
 * Samba's security.NTACL xattr blob (NDR xattr_NTACL, versions 1-4).
 *
 * Parsing checks every offset and length: malformed input gives
 * INVALID_SECURITY_DESCR, INVALID_ACL or INVALID_SID, never a read out of
 * bounds.  Parsed structures are talloc children of the caller's context.
 */
#ifndef SMBD_SD_H
#define SMBD_SD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "lib/wire.h"

/* MS-DTYP 2.4.6 Control bits used here. */
#define SD_SE_SACL_PRESENT 0x0010
#define SD_SE_DACL_PRESENT 0x0004
#define SD_SE_SELF_RELATIVE 0x8000

#define SD_SID_MAX_SUB_AUTHS 15

/* MS-DTYP 2.4.2.2 SID. */
struct sd_sid {
	uint8_t revision;
	uint8_t num_auths;
	uint8_t id_auth[6];
	uint32_t sub_auths[SD_SID_MAX_SUB_AUTHS];
};

/*
 * MS-DTYP 2.4.4 ACE.  Types whose body is Mask + SID (allowed, denied,
 * audit, alarm, mandatory label, scoped policy id) and whose AceSize is
 * exactly that are decoded; any other ACE keeps its body (the AceSize - 4
 * bytes after the header) in opaque so it is written back unchanged.
 */
struct sd_ace {
	uint8_t type;
	uint8_t flags;
	uint32_t mask;
	struct sd_sid sid;
	uint8_t *opaque; /* NULL for a decoded ACE */
	uint16_t opaque_len;
};

/* MS-DTYP 2.4.5 ACL. */
struct sd_acl {
	uint8_t revision;
	uint16_t num_aces;
	struct sd_ace *aces;
};

/*
 * MS-DTYP 2.4.6.  A NULL dacl with SE_DACL_PRESENT in control is a NULL
 * DACL (everyone has access); a dacl with no ACEs is an empty DACL.
 */
struct sd {
	uint8_t revision;
	uint8_t sbz1;
	uint16_t control;
	struct sd_sid *owner;
	struct sd_sid *group;
	struct sd_acl *sacl;
	struct sd_acl *dacl;
};

/*
 * Parse the self-relative descriptor whose header starts at hdr_off in
 * buf[0..len); its Offset fields count from buf (base) rather than from the
 * header when they are not 0, which Samba's NDR does inside an NTACL blob.
 * For a plain descriptor pass hdr_off 0.
 */
NTSTATUS sd_parse_at(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
		     size_t hdr_off, struct sd **out);

static inline NTSTATUS sd_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				size_t len, struct sd **out)
{
	return sd_parse_at(mem_ctx, buf, len, 0, out);
}

/*
 * Append sd in self-relative form (owner, group, SACL, DACL, each 4-byte
 * aligned) with SE_SELF_RELATIVE set; the Offset fields count from the
 * header plus bias (bias 0 for a plain descriptor).
 */
void sd_push(struct wire_buf *out, const struct sd *sd, size_t bias);

/* The AclSize acl marshals to (its 16-bit field holds at most 0xffff). */
size_t sd_acl_size(const struct sd_acl *acl);

/* Marshal into a new talloc buffer: NO_MEMORY or OK. */
NTSTATUS sd_marshal(TALLOC_CTX *mem_ctx, const struct sd *sd, uint8_t **blob,
		    size_t *len);

/*
 * security.NTACL (Samba librpc/idl/xattr.idl xattr_NTACL): accept versions
 * 1 to 4 and return the stored descriptor; *version says which it was.
 * Hashes in versions 2-4 are not checked (they describe the file system ACL
 * at the time of writing, see ntacl_blob_push).
 */
NTSTATUS ntacl_blob_parse(TALLOC_CTX *mem_ctx, const uint8_t *blob, size_t len,
			  struct sd **out, uint16_t *version);

/*
 * Write version 1 (the descriptor alone), which Samba's acl_xattr accepts
 * without a hash check.  Samba itself writes version 4, whose hashes are of
 * the POSIX ACL and of the descriptor Samba maps from it, not of the stored
 * one, so a v4 blob we wrote would be ignored as stale.
 */
NTSTATUS ntacl_blob_push(TALLOC_CTX *mem_ctx, const struct sd *sd,
			 uint8_t **blob, size_t *len);

#endif
