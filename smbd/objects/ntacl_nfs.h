/*
 * vfs_fruit's NFS ACEs (fruit:nfs_aces, man/vfs_fruit.8): how a Mac reads
 * and sets a file's Unix owner, group and mode over SMB.  The SIDs are
 * those of Windows' Server for NFS, in the authority S-1-5-88:
 *   S-1-5-88-1-<uid>, S-1-5-88-2-<gid>, S-1-5-88-3-<st_mode>.
 * On a session that negotiated AAPL (smbd/smb2/aapl_session.h), a
 * QUERY_INFO that asks for the DACL gets three ACCESS_DENIED ACEs with an
 * empty mask and no flags for them at the end of the DACL (they deny
 * nothing); a SET_INFO DACL that holds S-1-5-88-3-<mode> asks for a chmod
 * to mode & 0777, and no S-1-5-88 ACE is ever stored as part of the NT
 * ACL.  This is what Samba 4.17's fruit does (its fget/fset_nt_acl).
 *
 * Pure functions over struct sd (smbd/wire/sd.h), unit tested in
 * testsuite/unit/test_ntacl_nfs.c and fuzzed by fuzz_ntacl_nfs.c.
 */
#ifndef SMBD_NTACL_NFS_H
#define SMBD_NTACL_NFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/wire/sd.h"

/* The second sub-authority: what the third one holds. */
#define NTACL_NFS_USER 1
#define NTACL_NFS_GROUP 2
#define NTACL_NFS_MODE 3

/* S-1-5-88-kind-value. */
void ntacl_nfs_sid(struct sd_sid *sid, uint32_t kind, uint32_t value);

/* Whether sid is in the authority S-1-5-88 (S-1-5-88 itself included, as
 * Samba strips it too). */
bool ntacl_nfs_sid_is(const struct sd_sid *sid);

/* Whether acl (may be NULL) holds an ACE for such a SID. */
bool ntacl_nfs_acl_has(const struct sd_acl *acl);

/*
 * Removes every ACE of acl (may be NULL) for an S-1-5-88 SID; the first
 * S-1-5-88-3-<mode> among them (any ACE type, as Samba) gives *mode.
 * Returns whether one did.  ACEs kept opaque by sd.c (object ACEs) are
 * not looked into and stay.
 */
bool ntacl_nfs_strip(struct sd_acl *acl, uint32_t *mode);

/*
 * QUERY_INFO: sd's DACL without the NFS ACEs it may hold, then the three
 * of uid, gid and mode (the whole st_mode, file type bits included, as
 * Samba sends it).  A missing or NULL DACL becomes one holding just
 * them, as in Samba.  INVALID_ACL when they would not fit in an ACL.
 */
NTSTATUS ntacl_nfs_add(TALLOC_CTX *mem_ctx, struct sd *sd, uid_t uid,
		       gid_t gid, uint32_t mode);

/*
 * SET_INFO: the descriptor buf[0..len) as it is to be set, without its
 * NFS ACEs, in *out (on mem_ctx).  When *secinfo names the DACL and the
 * DACL held a mode ACE, *chmod is true and *mode is its value & 0777.
 * A DACL that had ACEs and held only NFS ones is no longer set: DACL
 * leaves *secinfo (and SE_DACL_PRESENT the descriptor), as Samba's fruit
 * does, so a bare chmod request leaves the NT ACL as it is.  Without the
 * DACL in *secinfo the descriptor is passed on as it came.
 * INVALID_PARAMETER for a descriptor that does not parse, as SET_INFO
 * answers for one.
 */
NTSTATUS ntacl_nfs_set_prepare(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, uint32_t *secinfo, uint8_t **out,
			       size_t *out_len, bool *chmod, mode_t *mode);

#endif
