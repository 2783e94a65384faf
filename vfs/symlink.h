/*
 * Symbolic links as reparse points (issue 35): what a client is shown
 * of a link, and the links clients make and remove through
 * FSCTL_SET/DELETE_REPARSE_POINT.
 *
 * A link's target is shown as the client would follow it on its own
 * (macOS, Linux cifs.ko and Windows' `dir` read it with
 * FSCTL_GET_REPARSE_POINT or from a STOPPED_ON_SYMLINK answer): a
 * relative target as it is; an absolute one that lies inside the share
 * rewritten relative to the link's directory, so that following it on
 * the client reaches what the server reaches; one outside the share as
 * it is, absolute (no client can follow that through the share).
 *
 * Links are made and removed in the entry's directory, opened through
 * the share's rules (vfs/anchor.h), and only where the entry still is
 * the file the caller's open names.  Run in a pool thread with the
 * session user's credentials.
 */
#ifndef VFS_SYMLINK_H
#define VFS_SYMLINK_H

#include <stdbool.h>
#include <sys/types.h>
#include <talloc.h>

#include "vfs/vfs.h"
#include "vfs/anchor.h"

/*
 * The target of the link name under dirfd (name "" with dirfd an O_PATH
 * descriptor of the link itself) as a client is shown it (above), on
 * mem_ctx; link_path is the link's share-relative path ('/' separated),
 * whose directory a rewritten target is relative to.  *relative: the
 * target is relative (SYMLINK_FLAG_RELATIVE).
 */
NTSTATUS vfs_link_target(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			 int dirfd, const char *name, const char *link_path,
			 char **target, bool *relative);

/*
 * Whether target, a link a client asks for at link_path, stays inside
 * the share: relative, and its ".." never climbing above the share's
 * root from the link's directory (read as written, without following
 * any link on the way: the check of a link that does not exist yet).
 */
bool vfs_link_target_inside(const char *link_path, const char *target);

/*
 * Make path a symbolic link to target in place of what is there: the
 * file want (an empty regular file, an empty directory, or a link
 * whose target changes).  OBJECT_NAME_NOT_FOUND when the entry is no
 * longer want, DIRECTORY_NOT_EMPTY for a directory with entries,
 * NOT_SUPPORTED for a file holding data (a link holds none, and the
 * data would be lost), IO_REPARSE_TAG_MISMATCH for a FIFO, socket or
 * device (already another kind of reparse point).  Should the link not
 * be made after the entry went, an empty file or directory is put back.
 */
NTSTATUS vfs_link_replace(const struct vfs_share *sh, int root_fd,
			  const char *path, const struct vfs_file_id *want,
			  const char *target);

/*
 * Remove the link path (the file want) and leave in its place an empty
 * directory (mode dir_mode) when the link led to a directory inside the
 * share, else an empty file (file_mode): what remains of a reparse
 * point once its reparse data is gone (MS-FSA 2.1.5.10.6).
 */
NTSTATUS vfs_link_unreplace(const struct vfs_share *sh, int root_fd,
			    const char *path, const struct vfs_file_id *want,
			    mode_t file_mode, mode_t dir_mode);

#endif
