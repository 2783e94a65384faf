/*
 * Alternate data streams kept in extended attributes, byte-compatible
 * with Samba's vfs_streams_xattr: stream "NAME" of a file is the xattr
 * "user.DosStream.NAME:$DATA" on it, holding the data plus one trailing
 * NUL byte (so an empty stream is a one-byte value).  Stream names are
 * matched without case, as on NTFS.  Everything takes an fd of the base
 * file opened for reading (and writing, to change a stream).  The calls
 * that take an xattr name also take one outside the prefix, whose value
 * is the data alone, without the NUL: fruit:resource = xattr's fork
 * (vfs/fruit_rsrc.h), handled as a stream.
 */
#ifndef VFS_STREAMS_H
#define VFS_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/handle.h"

#define VFS_STREAM_PREFIX "user.DosStream."
#define VFS_STREAM_SUFFIX ":$DATA"
/* An xattr value is at most 64 KiB on Linux (XATTR_SIZE_MAX). */
#define VFS_STREAM_MAX (65536 - 1)

/* The stream name ("NAME") an xattr holds, or NULL when it is not one
 * of ours. */
char *vfs_stream_name(TALLOC_CTX *mem_ctx, const char *xattr);
/* The xattr holding stream `name` on fd (case-insensitive lookup of an
 * existing one; else the name a new one gets).  *exists tells which. */
NTSTATUS vfs_stream_xattr(TALLOC_CTX *mem_ctx, int fd, const char *name,
			  char **xattr, bool *exists);
/* Create (empty) or truncate to zero. */
NTSTATUS vfs_stream_reset(int fd, const char *xattr);
NTSTATUS vfs_stream_size(int fd, const char *xattr, uint64_t *size);
/* The size of stream xattr of fd, or with xattr NULL of fd's own data. */
NTSTATUS vfs_data_size(int fd, const char *xattr, uint64_t *size);
NTSTATUS vfs_stream_pread(int fd, const char *xattr, uint8_t *buf,
			  size_t len, uint64_t off, size_t *got);
NTSTATUS vfs_stream_pwrite(int fd, const char *xattr, const uint8_t *data,
			   size_t len, uint64_t off);
NTSTATUS vfs_stream_truncate(int fd, const char *xattr, uint64_t size);
NTSTATUS vfs_stream_delete(int fd, const char *xattr);
/*
 * Stream renames (MS-FSA 2.1.5.14.11.1), fd the base file:
 * vfs_stream_rename: stream xattr `from` becomes `to`; `replaced` (may
 * be NULL) is an existing target stream's xattr, removed first when its
 * name differs from `to` (another case).
 * vfs_stream_to_data: the stream becomes the file's (empty) data.
 * vfs_data_to_stream: the file's data becomes stream `to` and the data
 * is left empty; NT_STATUS_DISK_FULL when it is larger than a stream
 * can be (VFS_STREAM_MAX).
 * The last two write the file through a new descriptor of their own, so
 * fd may be read-only or O_PATH.
 */
NTSTATUS vfs_stream_rename(int fd, const char *from, const char *to,
			   const char *replaced);
NTSTATUS vfs_stream_to_data(int fd, const char *from);
NTSTATUS vfs_data_to_stream(int fd, const char *to);
/* Delete every named stream of the file (its data stays): overwriting or
 * superseding a file's data replaces the file (MS-FSA 2.1.5.1.2.1). */
NTSTATUS vfs_stream_delete_all(int fd);
/* All streams of a file as FileStreamInformation names (":NAME:$DATA")
 * with their sizes; the default "::$DATA" is not included. */
NTSTATUS vfs_stream_list(TALLOC_CTX *mem_ctx, int fd, char ***names,
			 uint64_t **sizes, size_t *count);

/*
 * The stream module's handle ops (vfs/handle.h): h->fd the base file,
 * h->xattr the stream's xattr.  A failed read answers
 * NT_STATUS_IO_DEVICE_ERROR, a failed write NT_STATUS_DISK_FULL when the
 * xattr could not grow and NT_STATUS_IO_DEVICE_ERROR otherwise, as READ
 * and WRITE answered before the ops table.  Shared with fruit's
 * AFP_Resource kept as a stream or an xattr (vfs/fruit.c).
 */
extern const struct vfs_handle_ops vfs_stream_handle_ops;
NTSTATUS vfs_stream_handle_pread(const struct vfs_handle *h, uint8_t *buf,
				 size_t len, uint64_t off, size_t *got);
NTSTATUS vfs_stream_handle_pwrite(const struct vfs_handle *h,
				  const uint8_t *data, size_t len,
				  uint64_t off, size_t *written);
NTSTATUS vfs_stream_handle_size(const struct vfs_handle *h, uint64_t *size);
NTSTATUS vfs_stream_handle_set_size(const struct vfs_handle *h,
				    uint64_t size);
/* SET_INFO FileAllocationInformation of any stream table: below the
 * handle's info_size, its set_size; the base file is left alone. */
NTSTATUS vfs_stream_handle_allocate(const struct vfs_handle *h,
				    uint64_t size);
NTSTATUS vfs_stream_handle_remove(const struct vfs_handle *h);
NTSTATUS vfs_stream_handle_open(TALLOC_CTX *mem_ctx,
				const struct vfs_handle *h,
				const struct vfs_share *share,
				const char *path, bool writes, int *aux,
				char **xattr, bool *exists);
bool vfs_stream_handle_empty(const struct vfs_handle *h, int aux);
NTSTATUS vfs_stream_handle_reset(const struct vfs_handle *h,
				 const struct vfs_share *share,
				 const char *path, int *aux);
NTSTATUS vfs_stream_handle_opened(struct vfs_handle *h, int *aux,
				  uint64_t *size);

#endif
