/*
 * Security descriptors derived from the Unix owner, group and mode
 * (MS-DTYP 2.4.6), until NT ACLs are stored: what QUERY_INFO's security
 * class and the Security tab see.
 */
#ifndef SMBD_SECDESC_H
#define SMBD_SECDESC_H

#include <stdint.h>
#include <sys/types.h>
#include "lib/ntstatus.h"
#include "lib/wire.h"
#include "smbd/wire/sd.h"

#define SECINFO_OWNER 0x00000001
#define SECINFO_GROUP 0x00000002
#define SECINFO_DACL 0x00000004
#define SECINFO_SACL 0x00000008

/* Append the self-relative descriptor for the parts secinfo asks for. */
void secdesc_from_mode(struct wire_buf *out, uint32_t secinfo, uid_t uid,
		       gid_t gid, mode_t mode, bool is_dir);
/* The same with the owner's and group's SIDs given (a member's: the
 * domain SIDs of the ids, ntacl_sid_of_id). */
void secdesc_from_mode_sids(struct wire_buf *out, uint32_t secinfo,
			    const struct sd_sid *owner,
			    const struct sd_sid *group, mode_t mode,
			    bool is_dir);

/*
 * SET_INFO's security descriptor as far as a Unix mode can hold it: the
 * ALLOWED ACEs of the DACL for the owner's and group's Unix SIDs and for
 * Everyone give the rwx bits; a NULL DACL gives 0777.  Deny ACEs and other
 * SIDs cannot be expressed and are dropped (NT ACLs come with their own
 * issue).  INVALID_PARAMETER for a malformed descriptor.
 */
NTSTATUS secdesc_to_mode(const uint8_t *buf, size_t len, uint32_t secinfo,
			 uid_t uid, gid_t gid, mode_t old, mode_t *mode);
/* The same where owner and group also stand for the owner and group
 * (a member's domain SIDs of the ids, as QUERY_INFO showed them). */
NTSTATUS secdesc_to_mode_sids(const uint8_t *buf, size_t len,
			      uint32_t secinfo, uid_t uid, gid_t gid,
			      const struct sd_sid *owner,
			      const struct sd_sid *group, mode_t old,
			      mode_t *mode);

#endif
