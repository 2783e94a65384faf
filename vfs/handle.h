/*
 * A handle's data ops (issue 37 item 1), as SQLite's sqlite3_file and
 * sqlite3_io_methods: an open's data is read, written, sized and synced
 * through the ops table its module gave the handle when it was opened,
 * so READ, WRITE, SET_INFO (end of file, allocation), QUERY_INFO and
 * CLOSE never ask which module is under it.  The modules with a table:
 *
 *   posix      the file's own data (vfs/handle_posix.c): pread/pwrite
 *              with the fault hooks (vfs/fault.h) and the EINTR and
 *              short-count loops, ftruncate, fstat, fsync
 *   stream     streams_xattr's named stream (vfs/streams.c)
 *   afpinfo    fruit's AFP_AfpInfo record (vfs/fruit.c)
 *   rsrc       fruit's AFP_Resource kept as a stream or Netatalk's xattr
 *              (vfs/fruit.c), or as the "._" file's fork
 *              (vfs/fruit_rsrc.c)
 *
 * The choice is made once, by vfs_handle_pick() (vfs/fruit.c, which
 * knows the stream names it takes over), when CREATE opens the stream.
 *
 * struct vfs_handle is a small value: a pool job copies it (with the
 * fd it borrowed from the open, smbd_open_handle_borrow, and its own
 * copy of the xattr name), since the open may be closed, or its stream
 * renamed, while the job runs.  Every op runs where the caller is: the
 * handler decides pool, ring or loop thread, as before.  Results are
 * NTSTATUS; errno is mapped inside vfs/, once.
 */
#ifndef VFS_HANDLE_H
#define VFS_HANDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <talloc.h>

#include "lib/ntstatus.h"

struct vfs_handle;
struct vfs_share;

/* ops->flags */
/* Delete-on-close (at CREATE or by SET_INFO) is ignored on this handle:
 * fruit's AFP_Resource, which macOS empties rather than deletes. */
#define VFS_HANDLE_IGNORE_DELETE_ON_CLOSE 0x01
/* The fd's own bytes are the handle's data (the posix module): READ may
 * try the page cache on the loop thread and send it with sendfile,
 * WRITE may go through the ring, CLOSE may run inline. */
#define VFS_HANDLE_FD_DATA 0x02

/* pwrite's offset meaning "at the end" (an O_APPEND descriptor). */
#define VFS_HANDLE_APPEND UINT64_MAX

struct vfs_handle_ops {
	const char *name;	/* for logs */
	unsigned flags;		/* VFS_HANDLE_* */
	/* Up to len bytes at off into buf; *got what was read (0 at the
	 * end).  An error after some bytes still sets *got. */
	NTSTATUS (*pread)(const struct vfs_handle *h, uint8_t *buf,
			  size_t len, uint64_t off, size_t *got);
	/* len bytes of data at off (VFS_HANDLE_APPEND: at the end);
	 * *written what went, also after an error. */
	NTSTATUS (*pwrite)(const struct vfs_handle *h, const uint8_t *data,
			   size_t len, uint64_t off, size_t *written);
	/* What the data holds now (CLOSE's end of file). */
	NTSTATUS (*size)(const struct vfs_handle *h, uint64_t *size);
	/* The end of file QUERY_INFO and CREATE report. */
	NTSTATUS (*info_size)(const struct vfs_handle *h, uint64_t *size);
	/* SET_INFO FileEndOfFileInformation. */
	NTSTATUS (*set_size)(const struct vfs_handle *h, uint64_t size);
	/* SET_INFO FileAllocationInformation. */
	NTSTATUS (*allocate)(const struct vfs_handle *h, uint64_t size);
	/* WRITE through / FLUSH (data_only: fdatasync). */
	NTSTATUS (*sync)(const struct vfs_handle *h, bool data_only);
	/* Delete-on-close of a stream: the stream goes, its file stays. */
	NTSTATUS (*remove)(const struct vfs_handle *h);
	/*
	 * CREATE of a named stream (NULL in the posix table: CREATE opens
	 * a file's own data itself).  h->fd is the base file's, *aux an
	 * fd the module may keep until the open is made (-1 at first;
	 * the caller closes one left over).  share and path (share-
	 * relative, on disk) name the base file.
	 *
	 * stream_open: whether the stream exists for this module (*exists
	 * comes in as its xattr's existence); the module may keep it in
	 * another xattr (*xattr replaced by one on mem_ctx).
	 * stream_empty: whether an existing stream holds no data.
	 * stream_reset: create it empty, or empty it (an overwrite).
	 * stream_opened: the open is made: its size for CREATE's reply,
	 * and the handle's fd from now on (h->fd may become *aux).
	 */
	NTSTATUS (*stream_open)(TALLOC_CTX *mem_ctx, const struct vfs_handle *h,
				const struct vfs_share *share,
				const char *path, bool writes, int *aux,
				char **xattr, bool *exists);
	bool (*stream_empty)(const struct vfs_handle *h, int aux);
	NTSTATUS (*stream_reset)(const struct vfs_handle *h,
				 const struct vfs_share *share,
				 const char *path, int *aux);
	NTSTATUS (*stream_opened)(struct vfs_handle *h, int *aux,
				  uint64_t *size);
};

struct vfs_handle {
	const struct vfs_handle_ops *ops;
	int fd;			/* the module's: base file, "._" file ... */
	/* The stream's xattr (NULL for the file's own data); in the open
	 * it is the open's stream name (smbd_open.stream) */
	const char *xattr;
	/* The module's per-open mode (fruit's AfpInfo: enum
	 * vfs_fruit_meta), fixed at the open */
	int mode;
};

/* The posix module's table: a file's own data. */
extern const struct vfs_handle_ops vfs_posix_handle_ops;

/* The handle of a file's own data on fd. */
static inline void vfs_handle_init(struct vfs_handle *h, int fd)
{
	h->ops = &vfs_posix_handle_ops;
	h->fd = fd;
	h->xattr = NULL;
	h->mode = 0;
}

static inline NTSTATUS vfs_pread(const struct vfs_handle *h, uint8_t *buf,
				 size_t len, uint64_t off, size_t *got)
{
	return h->ops->pread(h, buf, len, off, got);
}

static inline NTSTATUS vfs_pwrite(const struct vfs_handle *h,
				  const uint8_t *data, size_t len,
				  uint64_t off, size_t *written)
{
	return h->ops->pwrite(h, data, len, off, written);
}

static inline NTSTATUS vfs_handle_size(const struct vfs_handle *h,
				       uint64_t *size)
{
	return h->ops->size(h, size);
}

static inline NTSTATUS vfs_handle_info_size(const struct vfs_handle *h,
					    uint64_t *size)
{
	return h->ops->info_size(h, size);
}

static inline NTSTATUS vfs_handle_set_size(const struct vfs_handle *h,
					   uint64_t size)
{
	return h->ops->set_size(h, size);
}

static inline NTSTATUS vfs_handle_allocate(const struct vfs_handle *h,
					   uint64_t size)
{
	return h->ops->allocate(h, size);
}

static inline NTSTATUS vfs_handle_sync(const struct vfs_handle *h,
				       bool data_only)
{
	return h->ops->sync(h, data_only);
}

static inline NTSTATUS vfs_handle_remove(const struct vfs_handle *h)
{
	return h->ops->remove(h);
}

static inline bool vfs_handle_has(const struct vfs_handle *h, unsigned flag)
{
	return (h->ops->flags & flag) != 0;
}

/* Close h's fd (every module's handle has one), if it has one, in the
 * pool where close(2) may block; h->fd is -1 after. */
void vfs_handle_close(struct vfs_handle *h);
/* *fd := a new O_APPEND descriptor of fd's file, for writing at its end
 * (vfs_reopen_append); the caller closes it (vfs_handle_close). */
NTSTATUS vfs_handle_reopen_append(int fd, int *out);

/*
 * Descriptor calls around a handle (vfs/handle_fd.c), errno mapped:
 * vfs_handle_openat: vfs_openat_beneath (vfs_posix.h) into *fd (-1 on
 * failure).  vfs_handle_may: faccessat(how) with the effective ids.
 * vfs_handle_dir_info: the identity and times of directory dir
 * (share-relative, opened beneath the share's root).
 */
struct stat;
struct vfs_share;
struct vfs_file_info;
NTSTATUS vfs_handle_openat(const struct vfs_share *sh, int dirfd,
			   const char *path, int flags, mode_t mode, int *fd);
bool vfs_handle_may(int dirfd, const char *name, int how);
NTSTATUS vfs_handle_dir_info(const struct vfs_share *sh, int root_fd,
			     const char *dir, struct vfs_file_info *fi);

/*
 * CREATE's calls (vfs/handle_fd.c), errno decided here:
 * vfs_handle_openat_info: vfs_openat_beneath_info.
 * vfs_handle_open_existing: an existing name opened with flags (and its
 * statx into fi unless NULL); with attr_only, a name whose data cannot
 * be opened (EACCES: no permission on it; ENXIO: a socket) is opened
 * O_PATH instead (*opath), for its attributes or its delete, as Samba
 * does.
 * vfs_handle_stat_beneath: vfs_stat_beneath (vfs/anchor.h); *stopped
 * (unless NULL): the share's resolve rules refused to follow a symlink
 * on the way (ELOOP, EXDEV).
 * vfs_handle_truncate_data: empty fd's data; a character or block
 * device, which has none to empty (EINVAL), is left as it is.
 * vfs_handle_reserve: FALLOC_FL_KEEP_SIZE of size bytes; a file system
 * that cannot reserve still has the file (failures are not reported).
 * vfs_handle_chmod: fchmod.
 */
NTSTATUS vfs_handle_openat_info(const struct vfs_share *sh, int dirfd,
				const char *path, int flags, mode_t mode,
				struct vfs_file_info *fi, int *fd);
NTSTATUS vfs_handle_open_existing(const struct vfs_share *sh, int dirfd,
				  const char *path, int flags,
				  struct vfs_file_info *fi, bool attr_only,
				  int *fd, bool *opath);
NTSTATUS vfs_handle_stat_beneath(const struct vfs_share *sh, int root_fd,
				 const char *path, struct stat *sb,
				 bool *stopped);
NTSTATUS vfs_handle_truncate_data(int fd);
void vfs_handle_reserve(int fd, uint64_t size);
NTSTATUS vfs_handle_chmod(int fd, mode_t mode);

/*
 * The posix module's calls for a file's own data that are not ops of
 * every module (vfs/handle_posix.c):
 *
 * vfs_posix_pread_cached: READ on the loop thread, from the page cache
 * only (preadv2 RWF_NOWAIT: never waits for the disk): true when all len
 * bytes came; false (nothing to report) when any page was not cached, or
 * a fault rule for reads is armed (faults live on the pool's path).
 *
 * vfs_posix_send_range: whether [off, off + len) of fd can be sent from
 * the page cache with sendfile on the loop thread (zero-copy READ).
 * NT_STATUS_OK: *count bytes (at most len, to the end of the file) from
 * *send_fd, a duplicate of fd the caller owns; NT_STATUS_END_OF_FILE: the
 * file ends at or before off, or before off + min_count; anything else
 * (NT_STATUS_NOT_SUPPORTED): take the buffered path.  Fewer than min_send
 * bytes, a range the cache does not hold whole, a fault rule for reads
 * all answer NOT_SUPPORTED.  The cache is asked with cachestat(2), or
 * with mincore(2) on a kernel without it (Linux < 6.5: ENOSYS).
 */
/* The posix op other modules share: a sync of fd. */
NTSTATUS vfs_posix_handle_sync(const struct vfs_handle *h, bool data_only);
/* fd's modification time (kept across a truncate of a sticky one). */
NTSTATUS vfs_posix_mtime(int fd, struct timespec *mtime);
bool vfs_posix_pread_cached(int fd, uint8_t *buf, size_t len, uint64_t off);
NTSTATUS vfs_posix_send_range(int fd, uint64_t off, uint64_t len,
			      uint64_t min_count, uint64_t min_send,
			      uint64_t *count, int *send_fd);

#endif
