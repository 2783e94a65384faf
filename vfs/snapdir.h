/*
 * Snapshot directories: what vfs_shadow_copy2 and vfs_snapper share
 * (issue 15 item 7).
 *
 * Both see a snapshot as a directory plus a time: the snapshots of a
 * share are entries of one directory (SNAPDIR), and each module only
 * says which entries are snapshots, when each was taken, and where the
 * snapshot's copy of the share root lies below SNAPDIR:
 *
 *   shadow_copy2:  SNAPDIR/NAME       time read from NAME by shadow:format,
 *                                      root NAME/REL
 *   snapper:       SUBVOL/.snapshots/N time read from N/info.xml's <date>,
 *                                      root N/snapshot/REL
 *
 * Everything else is here, once: opening SNAPDIR confined, listing and
 * sorting the times (FSCTL_SRV_ENUMERATE_SNAPSHOTS), and opening the
 * root of the snapshot of a given time (an @GMT path or a TWrp create).
 *
 * Confinement: SNAPDIR is named by the admin (shadow:snapdir) or found
 * by walking up from the share (snapper's .snapshots).  When it lies
 * inside the share it is opened beneath the share's root with the
 * share's openat2 rules, so a user who can write the share cannot point
 * it elsewhere with a symlink; a module's own reads inside it
 * (info.xml) and a snapshot's root are opened beneath it with
 * RESOLVE_BENEATH; the client's path is then resolved beneath that root
 * with the share's rules (smbd/smb2/smb2_create.c).  All of it runs in the
 * pool thread with the session user's credentials.
 */
#ifndef VFS_SNAPDIR_H
#define VFS_SNAPDIR_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "vfs/vfs.h"

/* More snapshots than any file system keeps; bounds what one listing
 * holds (and an FSCTL answer: 50 bytes each). */
#define VFS_SNAPDIR_MAX 4096

enum vfs_snapdir_sort {
	VFS_SNAPDIR_SORT_NONE,	/* as the directory lists them */
	VFS_SNAPDIR_SORT_ASC,	/* oldest first */
	VFS_SNAPDIR_SORT_DESC,	/* newest first */
};

struct vfs_snapdir {
	const char *path;	/* absolute */
	/* the same, share-relative, when it lies inside the share (then
	 * opened beneath the share's root with its rules); else NULL */
	const char *in_share;
	/* outside the share: refuse a symlink as path's last component
	 * (a directory found by walking up, not written by the admin) */
	bool nofollow;
	enum vfs_snapdir_sort sort;
	/*
	 * Whether the entry name of the snapshot directory (dir_fd, never
	 * "." or "..") is a snapshot: then its time (UTC seconds) in *t
	 * and, on mem_ctx, the path of its copy of the share root relative
	 * to dir_fd in *root.  Runs in the pool thread as the user; what
	 * it opens it opens beneath dir_fd (vfs_snapdir_openat).
	 */
	bool (*entry)(const void *priv, int dir_fd, const char *name,
		      TALLOC_CTX *mem_ctx, int64_t *t, char **root);
	const void *priv;
};

/* The times of the snapshots, sorted as d->sort says, on mem_ctx (none
 * when the directory is missing or unreadable: no previous versions). */
NTSTATUS vfs_snapdir_list(const struct vfs_snapdir *d, TALLOC_CTX *mem_ctx,
			  const struct vfs_share *sh, int64_t **times,
			  size_t *n);

/* An O_PATH directory fd of the share root in the snapshot taken at t
 * (the first such entry); OBJECT_NAME_NOT_FOUND when there is none,
 * OBJECT_PATH_NOT_FOUND when that snapshot has no copy of the share. */
NTSTATUS vfs_snapdir_root(const struct vfs_snapdir *d,
			  const struct vfs_share *sh, int64_t t, int *fd);

/* open(2) of path beneath dir_fd, RESOLVE_BENEATH (symlinks followed
 * only while they stay below dir_fd); -1 and errno. */
int vfs_snapdir_openat(int dir_fd, const char *path, int flags);

/* Path helpers for the modules' connect hooks (admin-given paths). */
/* path without trailing slashes ("/" stays), on mem_ctx */
char *vfs_snapdir_trim(TALLOC_CTX *mem_ctx, const char *path);
/* What follows prefix in path ("" when equal), or NULL when path is not
 * prefix or below it. */
const char *vfs_snapdir_below(const char *path, const char *prefix);
/* path with its symlinks resolved when it exists, else as written (NULL
 * stays NULL), trimmed, on mem_ctx */
char *vfs_snapdir_canon(TALLOC_CTX *mem_ctx, const char *path);
/* The share's canonical path (as Samba's modules compare it), on
 * mem_ctx */
char *vfs_snapdir_share_path(TALLOC_CTX *mem_ctx, const struct vfs_share *sh);

#endif
