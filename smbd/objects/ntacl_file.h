/*
 * NT ACLs of files on `vfs objects = acl_xattr` shares: the stored
 * security.NTACL descriptor read, written and checked (smbd/objects/ntacl.h
 * holds the pure semantics, vfs/ntacl_xattr.h the xattr).  Runs in pool
 * jobs as the session's user.
 */
#ifndef SMBD_NTACL_FILE_H
#define SMBD_NTACL_FILE_H

#include <stdbool.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/objects/ntacl.h"
#include "smbd/wire/sd.h"
#include "vfs/vfs.h"

/* The descriptor stored on fd; NOT_FOUND when there is none or it does
 * not parse (the Unix mode then decides, as before NT ACLs). */
NTSTATUS ntacl_file_get(TALLOC_CTX *mem_ctx, int fd, struct sd **out);
/* Store sd as a version 1 blob. */
NTSTATUS ntacl_file_set(int fd, const struct sd *sd);
/* The descriptor the Unix owner, group and mode give (smbd/objects/secdesc.h),
 * for files without a stored one; with domain the owner and group are
 * the domain SIDs winbindd maps the ids to (ntacl_sid_of_id: blocks). */
NTSTATUS ntacl_file_from_mode(TALLOC_CTX *mem_ctx, int fd, bool domain,
                              struct sd **out);
/* The descriptor of the directory holding share-relative path (the
 * share root for a name at the top); NOT_FOUND when it has none. */
NTSTATUS ntacl_file_get_parent(TALLOC_CTX *mem_ctx,
                               const struct vfs_share *share,
                               const char *path,
                               struct sd **out);

struct smbd_session;
/* The session's token (its Unix ids as the pool jobs use them). */
struct smbd_tcon;
/* ... or the tree's `force user`/`force group` ids. */
NTSTATUS ntacl_session_token(TALLOC_CTX *mem_ctx,
                             const struct smbd_session *s,
                             const struct smbd_tcon *t,
                             struct ntacl_token **out);

/*
 * SET_INFO security on an acl_xattr share (MS-SMB2 3.3.5.21.3): the
 * parts secinfo names replace those of the stored descriptor (or of the
 * mode's when none is stored) and the result is stored.  The new owner
 * must be one of the token's SIDs unless root (INVALID_OWNER).  A DACL
 * that names an NFS SID (S-1-5-88-*, ntacl_nfs.h) sets nothing, as in
 * Samba's acl_xattr.
 */
NTSTATUS ntacl_file_set_info(int fd,
                             const struct ntacl_token *tok,
                             const uint8_t *buf,
                             size_t len,
                             uint32_t secinfo);

#endif
