/*
 * Security descriptors derived from the Unix owner, group and mode
 * (MS-DTYP 2.4.6), until NT ACLs are stored: what QUERY_INFO's security
 * class and the Security tab see.
 */
#ifndef SMBD_SECDESC_H
#define SMBD_SECDESC_H

#include <stdint.h>
#include <sys/types.h>
#include "lib/wire.h"

#define SECINFO_OWNER 0x00000001
#define SECINFO_GROUP 0x00000002
#define SECINFO_DACL 0x00000004
#define SECINFO_SACL 0x00000008

/* Append the self-relative descriptor for the parts secinfo asks for. */
void secdesc_from_mode(struct wire_buf *out, uint32_t secinfo, uid_t uid,
		       gid_t gid, mode_t mode, bool is_dir);

#endif
