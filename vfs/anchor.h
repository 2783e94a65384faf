/*
 * Name-changing calls (unlink, rmdir, mkdir, rename, link) anchored to a
 * directory fd (issue 14 item 2).
 *
 * A share-relative path handed to unlinkat(root_fd, "a/b/c") follows
 * whatever "a" and "a/b" are when the call runs: a local user who swaps
 * "a" for a symlink to /etc between our open and our delete makes us
 * delete /etc/c.  Here the parent directory is opened first through the
 * share's openat2 rules (RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS, and
 * RESOLVE_NO_SYMLINKS with `follow symlinks = no`), so no symlink on the
 * way may leave the share, and the call then names only the last
 * component under that fd.  Where the caller knows which file it means
 * (an open's device and inode), the entry is checked to still be that
 * file before it is removed or renamed: a file put in its place by
 * someone else is never touched.
 *
 * These run in the caller's thread under its credentials: the pool
 * thread of the session user, never the loop thread as root.
 */
#ifndef VFS_ANCHOR_H
#define VFS_ANCHOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "vfs/vfs.h"

/* Which file the caller means, dev encoded as in struct vfs_file_info
 * (major << 32 | minor); dev and ino 0 mean "whatever is there". */
struct vfs_file_id {
	uint64_t dev, ino;
};

/* The id of the file fd refers to ({0, 0} when fstat fails). */
struct vfs_file_id vfs_file_id_of_fd(int fd);

/* Open the directory holding path's last component under root_fd with
 * the share's rules (O_PATH); *base points into path at that component.
 * -1 and errno on failure (EINVAL for an empty path). */
int vfs_open_parent(const struct vfs_share *sh, int root_fd,
		    const char *path, const char **base);

/* The id of the directory holding path's last component ({0, 0} for
 * the share's root, whose directory is outside the share, or when it
 * cannot be stat'ed).  One fstatat by path, without the share's openat2
 * rules: the id only says whose directory leases an entry's change
 * breaks (path was just resolved under those rules), so a symlink
 * swapped in meanwhile costs at most a break missed or made in vain,
 * never access; an open, stat and close of the parent cost three calls
 * on each CREATE that may change its entry (issue 18). */
struct vfs_file_id vfs_parent_id(int root_fd, const char *path);

/* stat of path under root_fd with the share's openat2 rules (a symlink
 * at the end is followed within them, as open would); -1 and errno. */
int vfs_stat_beneath(const struct vfs_share *sh, int root_fd,
		     const char *path, struct stat *st);

/* Remove path (a directory when is_dir); if want names a file, only
 * when the entry still is that file, or a symbolic link leading to it
 * under the share's rules (an open through a link: the link goes, never
 * what it leads to, as in Samba); else OBJECT_NAME_NOT_FOUND. */
NTSTATUS vfs_unlink_anchored(const struct vfs_share *sh, int root_fd,
			     const char *path, bool is_dir,
			     const struct vfs_file_id *want);

/* mkdir under the parent's fd. */
NTSTATUS vfs_mkdir_anchored(const struct vfs_share *sh, int root_fd,
			    const char *path, mode_t mode);

/* renameat2 (flags: RENAME_NOREPLACE or 0) or, with link, linkat; each
 * name's directory opened as above, the source checked against want as
 * vfs_unlink_anchored checks it (a link to want is renamed itself). */
NTSTATUS vfs_rename_anchored(const struct vfs_share *sh, int root_fd,
			     const char *from, const char *to, bool link,
			     unsigned flags, const struct vfs_file_id *want);

#endif
