/*
 * fruit:resource = file (Samba's default): the AFP_Resource stream of
 * NAME is the resource fork entry (id 2) of the AppleDouble file
 * "._NAME" in the same directory (layout in vfs/adouble.h), so a Mac's
 * forks may be any size (an xattr holds a block) and read the same
 * through Samba's smbd on the same directory.
 *
 * A "._" file this module makes is what Samba's fruit writes: the
 * header, two entries (Finder Info, id 9, at 0x32, 32 bytes; resource
 * fork, id 2, at 0x52), the fork from 0x52 to the end of the file.  One
 * made elsewhere (by macOS) is used as it is, as long as its fork is
 * its last bytes: the fork then grows and shrinks with the file, and
 * the header's fork length is rewritten after each change so other
 * readers see the same size.  A "._" file whose fork is not last is not
 * taken (NT_STATUS_INVALID_PARAMETER): a write would overwrite what
 * follows.
 *
 * The fd in the calls below is the "._" file's, opened by
 * vfs_rsrc_open; everything runs in the pool thread.
 */
#ifndef VFS_FRUIT_RSRC_H
#define VFS_FRUIT_RSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/handle.h"

struct vfs_share;

/*
 * fruit:resource = xattr: the fork is the value of this xattr of the
 * file, the bytes alone (Samba's and Netatalk's name for it, which they
 * use where a file system's xattrs hold a fork, Solaris's ZFS; Samba 4.17
 * on Linux cannot open it).  The handle of AFP_Resource then works on it
 * through vfs/streams.h, as a stream without streams_xattr's NUL, so it
 * holds what one xattr holds (64 KiB less one byte at most here).
 */
#define VFS_RSRC_XATTR "user.org.netatalk.ResourceFork"

/* Where the fork of the layout this module writes starts. */
#define VFS_RSRC_DATA_OFF 0x52
/* The most a header may take: magic, version, filler, count, and
 * VFS_ADOUBLE_MAX_ENTRIES entries of 12 bytes. */
#define VFS_RSRC_HEADER_MAX (26 + 12 * 64)

/* Where the resource fork entry of a "._" file is. */
struct vfs_rsrc_entry {
	uint32_t off;		/* the fork's first byte in the file */
	uint32_t len;		/* the header's length of the fork */
	size_t len_pos;		/* where that length is in the header */
};

/*
 * The resource fork entry of the header buf (len bytes, the file's start
 * or all of it).  NT_STATUS_INVALID_PARAMETER for a buffer that is not
 * an AppleDouble header with a fork entry whose offset lies past the
 * entries; read through the checked cursor.
 */
NTSTATUS vfs_rsrc_parse(const uint8_t *buf, size_t len,
			struct vfs_rsrc_entry *e);

/* The header and empty Finder Info of a new "._" file with an empty
 * fork: VFS_RSRC_DATA_OFF bytes into buf. */
void vfs_rsrc_header_init(uint8_t buf[VFS_RSRC_DATA_OFF]);

/* "dir/._name" for share-relative "dir/name"; NULL for a "._" name or
 * the share root. */
char *vfs_rsrc_path(TALLOC_CTX *mem_ctx, const char *path);

/*
 * Open the "._" file of share-relative path (read-write with `writes`).
 * *exists: whether it is there with a fork entry.  With `create` a
 * missing one is made with an empty fork.  *fd is -1 when it does not
 * exist and is not created.  A "._" file that is not an AppleDouble
 * file with its fork last is NT_STATUS_INVALID_PARAMETER.
 */
NTSTATUS vfs_rsrc_open(const struct vfs_share *sh, const char *path,
		       bool writes, bool create, int *fd, bool *exists);

/* The "._" file adpath (share-relative) := this layout with fork
 * (len bytes) as its fork: what remains of a converted macOS file. */
NTSTATUS vfs_rsrc_rewrite(const struct vfs_share *sh, const char *adpath,
			  const uint8_t *fork, size_t len);

/*
 * The "._" file follows its file: renamed from's to to's (share-relative
 * paths of the file, done after the file's own rename, replacing one at
 * the new name), removed with it.  No "._" file: success.  A directory's
 * "._" file is left alone: Samba keeps it in the directory.
 */
NTSTATUS vfs_rsrc_rename(const struct vfs_share *sh, const char *from,
			 const char *to);
NTSTATUS vfs_rsrc_unlink(const struct vfs_share *sh, int root_fd,
			 const char *path);

/* The fork's size of share-relative path's "._" file; 0 without one. */
NTSTATUS vfs_rsrc_path_size(const struct vfs_share *sh, const char *path,
			    uint64_t *size);

NTSTATUS vfs_rsrc_size(int fd, uint64_t *size);
/* The fork's size of the "._" file of entry `name` (on disk) of the
 * directory dirfd, as vfs_rsrc_size reads it; 0 without one (a listing's
 * path: one openat, then a read and a stat only where it exists). */
NTSTATUS vfs_rsrc_size_at(int dirfd, const char *name, uint64_t *size);
NTSTATUS vfs_rsrc_pread(int fd, uint8_t *buf, size_t len, uint64_t off,
			size_t *got);
/* Writes past the end leave a hole (a sparse file), as a stream's do. */
NTSTATUS vfs_rsrc_pwrite(int fd, const uint8_t *data, size_t len,
			 uint64_t off);
NTSTATUS vfs_rsrc_truncate(int fd, uint64_t size);

/* The handle ops of AFP_Resource with fruit:resource = file (h->fd the
 * "._" file's; vfs/handle.h): delete-on-close is ignored, errors answer
 * as a stream's (vfs/streams.h). */
extern const struct vfs_handle_ops vfs_rsrc_handle_ops;

#endif
