/*
 * The POSIX module's calls (vfs_posix.c): resolution inside the share,
 * confined opens, stat into struct vfs_file_info.
 */
#ifndef VFS_VFS_POSIX_H
#define VFS_VFS_POSIX_H

#include <sys/stat.h>
#include "vfs/vfs.h"

/* openat2 never follows a symlink in the last component by itself when
 * O_NOFOLLOW is set; we leave following to RESOLVE_* rules. */
#define O_NOFOLLOW_SAFE(flags) 0

struct vfs_resolved {
	char *path;		/* on-disk names, '/' separated; "" = root */
	bool exists;		/* the last component exists */
	bool parent_exists;
};

/* Resolve a share-relative path (case-insensitively where the share says
 * so, and 8.3 aliases).  OBJECT_PATH_NOT_FOUND when a directory on the
 * way is missing. */
NTSTATUS vfs_resolve(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
		     const char *path, struct vfs_resolved *out);

/* openat2 under dirfd with the share's RESOLVE_* rules; -1 and errno. */
int vfs_openat_beneath(const struct vfs_share *sh, int dirfd,
		       const char *path, int flags, mode_t mode);

/* A second fd on the same open file that writes at the end (O_APPEND). */
int vfs_reopen_append(int fd);

void vfs_statx_to_info(const struct statx *stx, struct vfs_file_info *fi);
NTSTATUS vfs_fstat_info(int fd, struct vfs_file_info *fi);

/* Attributes and create time from user.DOSATTRIB or the mode bits
 * (dosmode.c); path's last component decides `hide dot files`. */
void vfs_fill_dos_attributes(const struct vfs_share *sh, int fd, bool opath,
			     const char *path, struct vfs_file_info *fi);

#endif
