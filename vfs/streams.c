/*
 * Streams in xattrs (see streams.h).  A stream is read and written
 * whole: xattrs have no partial I/O, and their 64 KiB limit keeps that
 * cheap.
 */
#include "vfs/streams.h"
#include "vfs/name.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static const size_t prefix_len = sizeof(VFS_STREAM_PREFIX) - 1;
static const size_t suffix_len = sizeof(VFS_STREAM_SUFFIX) - 1;

/* "user.DosStream.NAME:$DATA" -> "NAME" (in place), or NULL. */
static char *stream_of_xattr(char *x)
{
	size_t len = strlen(x);

	if (len <= prefix_len + suffix_len ||
	    strncmp(x, VFS_STREAM_PREFIX, prefix_len) != 0 ||
	    strcmp(x + len - suffix_len, VFS_STREAM_SUFFIX) != 0) {
		return NULL;
	}
	x[len - suffix_len] = '\0';
	return x + prefix_len;
}

char *vfs_stream_name(TALLOC_CTX *mem_ctx, const char *xattr)
{
	char *x = talloc_strdup(mem_ctx, xattr);
	char *name = x ? stream_of_xattr(x) : NULL;

	return name ? talloc_strdup(mem_ctx, name) : NULL;
}

static NTSTATUS stream_listxattr(TALLOC_CTX *mem_ctx, int fd, char **buf,
				 ssize_t *len)
{
	ssize_t n = flistxattr(fd, NULL, 0);

	if (n < 0) {
		return errno == ENOTSUP ? NT_STATUS_OK : vfs_map_errno(errno);
	}
	*buf = talloc_size(mem_ctx, (size_t)n + 1);
	if (*buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n = flistxattr(fd, *buf, (size_t)n);
	if (n < 0) {
		return vfs_map_errno(errno);
	}
	(*buf)[n] = '\0';
	*len = n;
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_xattr(TALLOC_CTX *mem_ctx, int fd, const char *name,
			  char **xattr, bool *exists)
{
	char *list = NULL, *p;
	ssize_t n = 0;
	NTSTATUS st = stream_listxattr(mem_ctx, fd, &list, &n);

	*exists = false;
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	for (p = list; p != NULL && p < list + n; p += strlen(p) + 1) {
		char *copy = talloc_strdup(mem_ctx, p);
		char *s = copy ? stream_of_xattr(copy) : NULL;

		if (s != NULL && vfs_strcasecmp(s, name) == 0) {
			*exists = true;
			*xattr = talloc_strdup(mem_ctx, p);
			talloc_free(copy);
			talloc_free(list);
			return *xattr ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
		}
		talloc_free(copy);
	}
	talloc_free(list);
	*xattr = talloc_asprintf(mem_ctx, VFS_STREAM_PREFIX "%s"
				 VFS_STREAM_SUFFIX, name);
	return *xattr ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/* The bytes after the data in xattr's value: streams_xattr's NUL in
 * its own names, none in another (streams.h). */
static size_t stream_tail(const char *xattr)
{
	return strncmp(xattr, VFS_STREAM_PREFIX, prefix_len) == 0 ? 1 : 0;
}

NTSTATUS vfs_stream_reset(int fd, const char *xattr)
{
	const uint8_t nul = 0;

	if (fsetxattr(fd, xattr, &nul, stream_tail(xattr), 0) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

/* The whole value (data + trailing NUL) into a buffer of `extra` more. */
static NTSTATUS stream_get(TALLOC_CTX *mem_ctx, int fd, const char *xattr,
			   uint8_t **val, size_t *size)
{
	ssize_t n = fgetxattr(fd, xattr, NULL, 0);

	if (n < 0) {
		return errno == ENODATA ? NT_STATUS_OBJECT_NAME_NOT_FOUND
					: vfs_map_errno(errno);
	}
	*val = talloc_size(mem_ctx, (size_t)n + 1);
	if (*val == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n = fgetxattr(fd, xattr, *val, (size_t)n);
	if (n < 0) {
		return vfs_map_errno(errno);
	}
	/* The data is everything but the trailing NUL Samba stores. */
	*size = (size_t)n > stream_tail(xattr) ? (size_t)n - stream_tail(xattr)
					       : 0;
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_size(int fd, const char *xattr, uint64_t *size)
{
	ssize_t n = fgetxattr(fd, xattr, NULL, 0);

	if (n < 0) {
		return errno == ENODATA ? NT_STATUS_OBJECT_NAME_NOT_FOUND
					: vfs_map_errno(errno);
	}
	*size = (size_t)n > stream_tail(xattr)
			? (uint64_t)n - stream_tail(xattr)
			: 0;
	return NT_STATUS_OK;
}

NTSTATUS vfs_data_size(int fd, const char *xattr, uint64_t *size)
{
	struct stat sb;

	if (xattr != NULL) {
		return vfs_stream_size(fd, xattr, size);
	}
	if (fstat(fd, &sb) != 0) {
		return vfs_map_errno(errno);
	}
	*size = (uint64_t)sb.st_size;
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_pread(int fd, const char *xattr, uint8_t *buf,
			  size_t len, uint64_t off, size_t *got)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *val = NULL;
	size_t size = 0;
	NTSTATUS st = stream_get(tmp, fd, xattr, &val, &size);

	*got = 0;
	if (NT_STATUS_IS_OK(st) && off < size) {
		*got = size - off < len ? size - (size_t)off : len;
		memcpy(buf, val + off, *got);
	}
	talloc_free(tmp);
	return st;
}

/* Store data[0..size) with the trailing NUL. */
static NTSTATUS stream_put(int fd, const char *xattr, uint8_t *val,
			   size_t size)
{
	val[size] = 0;
	if (fsetxattr(fd, xattr, val, size + stream_tail(xattr), 0) != 0) {
		return errno == E2BIG || errno == ENOSPC
			       ? NT_STATUS_DISK_FULL
			       : vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_pwrite(int fd, const char *xattr, const uint8_t *data,
			   size_t len, uint64_t off)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *val = NULL;
	size_t size = 0, end;
	NTSTATUS st;

	if (off > VFS_STREAM_MAX || len > VFS_STREAM_MAX - off) {
		talloc_free(tmp);
		return NT_STATUS_DISK_FULL;
	}
	st = stream_get(tmp, fd, xattr, &val, &size);
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(tmp);
		return st;
	}
	end = (size_t)off + len > size ? (size_t)off + len : size;
	val = talloc_realloc(tmp, val, uint8_t, end + 1);
	if (val == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	if (off > size) {
		memset(val + size, 0, (size_t)off - size);
	}
	memcpy(val + off, data, len);
	st = stream_put(fd, xattr, val, end);
	talloc_free(tmp);
	return st;
}

NTSTATUS vfs_stream_truncate(int fd, const char *xattr, uint64_t new_size)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *val = NULL;
	size_t size = 0;
	NTSTATUS st;

	if (new_size > VFS_STREAM_MAX) {
		talloc_free(tmp);
		return NT_STATUS_DISK_FULL;
	}
	st = stream_get(tmp, fd, xattr, &val, &size);
	if (NT_STATUS_IS_OK(st)) {
		val = talloc_realloc(tmp, val, uint8_t, new_size + 1);
		if (val == NULL) {
			talloc_free(tmp);
			return NT_STATUS_NO_MEMORY;
		}
		if (new_size > size) {
			memset(val + size, 0, (size_t)new_size - size);
		}
		st = stream_put(fd, xattr, val, (size_t)new_size);
	}
	talloc_free(tmp);
	return st;
}

NTSTATUS vfs_stream_delete(int fd, const char *xattr)
{
	if (fremovexattr(fd, xattr) != 0 && errno != ENODATA) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_delete_all(int fd)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *list = NULL, *p;
	ssize_t n = 0;
	NTSTATUS st = tmp != NULL ? stream_listxattr(tmp, fd, &list, &n)
				  : NT_STATUS_NO_MEMORY;

	for (p = list; NT_STATUS_IS_OK(st) && p != NULL && p < list + n;
	     p += strlen(p) + 1) {
		char *copy = talloc_strdup(tmp, p);

		if (copy != NULL && stream_of_xattr(copy) != NULL) {
			st = vfs_stream_delete(fd, p);
		}
	}
	talloc_free(tmp);
	return st;
}

NTSTATUS vfs_stream_list(TALLOC_CTX *mem_ctx, int fd, char ***names,
			 uint64_t **sizes, size_t *count)
{
	char *list = NULL, *p;
	ssize_t n = 0;
	NTSTATUS st = stream_listxattr(mem_ctx, fd, &list, &n);

	*names = NULL;
	*sizes = NULL;
	*count = 0;
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	for (p = list; p != NULL && p < list + n; p += strlen(p) + 1) {
		char *copy = talloc_strdup(mem_ctx, p);
		char *s = copy ? stream_of_xattr(copy) : NULL;
		uint64_t size;

		if (s == NULL || !NT_STATUS_IS_OK(vfs_stream_size(fd, p,
								  &size))) {
			continue;
		}
		*names = talloc_realloc(mem_ctx, *names, char *, *count + 1);
		*sizes = talloc_realloc(mem_ctx, *sizes, uint64_t, *count + 1);
		if (*names == NULL || *sizes == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		(*names)[*count] = talloc_asprintf(*names, ":%s:$DATA", s);
		(*sizes)[*count] = size;
		(*count)++;
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_stream_rename(int fd, const char *from, const char *to,
			   const char *replaced)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *val = NULL;
	size_t size = 0;
	NTSTATUS st = stream_get(tmp, fd, from, &val, &size);

	if (NT_STATUS_IS_OK(st) && replaced != NULL &&
	    strcmp(replaced, to) != 0 && strcmp(replaced, from) != 0) {
		st = vfs_stream_delete(fd, replaced);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = stream_put(fd, to, val, size);
	}
	if (NT_STATUS_IS_OK(st) && strcmp(from, to) != 0) {
		st = vfs_stream_delete(fd, from);
	}
	talloc_free(tmp);
	return st;
}

/* A descriptor of fd's file open for writing (fd may be O_PATH). */
static int stream_writable_fd(int fd)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	/* fd may name a FIFO or a device: no waiting (vfs_posix.h) */
	return vfs_open_settle(open(proc, O_RDWR | O_CLOEXEC | O_NONBLOCK),
			       O_RDWR);
}

NTSTATUS vfs_stream_to_data(int fd, const char *from)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *val = NULL;
	size_t size = 0, done = 0;
	NTSTATUS st = stream_get(tmp, fd, from, &val, &size);
	int wfd = -1;

	if (NT_STATUS_IS_OK(st)) {
		wfd = stream_writable_fd(fd);
		if (wfd == -1) {
			st = vfs_map_errno(errno);
		}
	}
	while (NT_STATUS_IS_OK(st) && done < size) {
		ssize_t n = pwrite(wfd, val + done, size - done, (off_t)done);

		if (n <= 0) {
			st = n < 0 ? vfs_map_errno(errno) : NT_STATUS_DISK_FULL;
			break;
		}
		done += (size_t)n;
	}
	if (NT_STATUS_IS_OK(st) && ftruncate(wfd, (off_t)size) != 0) {
		st = vfs_map_errno(errno);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = vfs_stream_delete(fd, from);
	}
	if (wfd != -1) {
		close(wfd);
	}
	talloc_free(tmp);
	return st;
}

NTSTATUS vfs_data_to_stream(int fd, const char *to)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	int wfd = stream_writable_fd(fd);
	struct stat sb;
	uint8_t *val = NULL;
	size_t done = 0;
	NTSTATUS st = NT_STATUS_OK;

	if (wfd == -1 || fstat(wfd, &sb) != 0) {
		st = vfs_map_errno(errno);
	} else if ((uint64_t)sb.st_size > VFS_STREAM_MAX) {
		st = NT_STATUS_DISK_FULL;
	} else {
		val = talloc_size(tmp, (size_t)sb.st_size + 1);
		st = val ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	while (NT_STATUS_IS_OK(st) && done < (size_t)sb.st_size) {
		ssize_t n = pread(wfd, val + done, (size_t)sb.st_size - done,
				  (off_t)done);

		if (n < 0) {
			st = vfs_map_errno(errno);
		}
		if (n <= 0) {
			break; /* 0: the file shrank meanwhile */
		}
		done += (size_t)n;
	}
	if (NT_STATUS_IS_OK(st)) {
		st = stream_put(fd, to, val, done);
	}
	if (NT_STATUS_IS_OK(st) && ftruncate(wfd, 0) != 0) {
		st = vfs_map_errno(errno);
		(void)vfs_stream_delete(fd, to);
	}
	if (wfd != -1) {
		close(wfd);
	}
	talloc_free(tmp);
	return st;
}

/* ---- the stream module's handle ops (vfs/handle.h) ---- */

NTSTATUS vfs_stream_handle_pread(const struct vfs_handle *h, uint8_t *buf,
				 size_t len, uint64_t off, size_t *got)
{
	NTSTATUS status = vfs_stream_pread(h->fd, h->xattr, buf, len, off,
					   got);

	return NT_STATUS_IS_OK(status) ? status : NT_STATUS_IO_DEVICE_ERROR;
}

NTSTATUS vfs_stream_handle_pwrite(const struct vfs_handle *h,
				  const uint8_t *data, size_t len,
				  uint64_t off, size_t *written)
{
	NTSTATUS status = vfs_stream_pwrite(h->fd, h->xattr, data, len, off);

	*written = NT_STATUS_IS_OK(status) ? len : 0;
	if (NT_STATUS_IS_OK(status) || status == NT_STATUS_DISK_FULL) {
		return status;
	}
	return NT_STATUS_IO_DEVICE_ERROR;
}

NTSTATUS vfs_stream_handle_size(const struct vfs_handle *h, uint64_t *size)
{
	return vfs_stream_size(h->fd, h->xattr, size);
}

NTSTATUS vfs_stream_handle_set_size(const struct vfs_handle *h,
				    uint64_t size)
{
	return vfs_stream_truncate(h->fd, h->xattr, size);
}

/*
 * MS-FSA 2.1.5.14.1 (FileAllocationInformation) on a stream's open: an
 * AllocationSize below the stream's end of file cuts the stream, by
 * the handle's own set_size (a named stream's xattr, fruit's fork in
 * its "._" file, AfpInfo's fixed record); h->fd, the base file or the
 * "._" file, is never truncated, as on NTFS and in Samba.  Above the
 * end nothing is reserved, as for a file's own data.
 */
NTSTATUS vfs_stream_handle_allocate(const struct vfs_handle *h,
				    uint64_t size)
{
	uint64_t eof;
	NTSTATUS status = h->ops->info_size(h, &eof);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return size < eof ? h->ops->set_size(h, size) : NT_STATUS_OK;
}

NTSTATUS vfs_stream_handle_remove(const struct vfs_handle *h)
{
	return vfs_stream_delete(h->fd, h->xattr);
}

/* CREATE: a stream is its xattr, nothing more to find. */
NTSTATUS vfs_stream_handle_open(TALLOC_CTX *mem_ctx,
				const struct vfs_handle *h,
				const struct vfs_share *share,
				const char *path, bool writes, int *aux,
				char **xattr, bool *exists)
{
	(void)mem_ctx, (void)h, (void)share, (void)path, (void)writes;
	(void)aux, (void)xattr, (void)exists;
	return NT_STATUS_OK;
}

bool vfs_stream_handle_empty(const struct vfs_handle *h, int aux)
{
	uint64_t size = 1;

	(void)aux;
	return NT_STATUS_IS_OK(vfs_stream_size(h->fd, h->xattr, &size)) &&
	       size == 0;
}

NTSTATUS vfs_stream_handle_reset(const struct vfs_handle *h,
				 const struct vfs_share *share,
				 const char *path, int *aux)
{
	(void)share, (void)path, (void)aux;
	return vfs_stream_reset(h->fd, h->xattr);
}

/* The size as it is (an error reads as 0, as CREATE took it). */
NTSTATUS vfs_stream_handle_opened(struct vfs_handle *h, int *aux,
				  uint64_t *size)
{
	(void)aux;
	*size = 0;
	(void)vfs_stream_size(h->fd, h->xattr, size);
	return NT_STATUS_OK;
}

/* Sync acts on the base file's fd (FLUSH of a stream flushes its file);
 * an allocation below the stream's size cuts the stream, never the base
 * file (vfs_stream_handle_allocate). */
const struct vfs_handle_ops vfs_stream_handle_ops = {
	.name = "streams_xattr",
	.flags = 0,
	.pread = vfs_stream_handle_pread,
	.pwrite = vfs_stream_handle_pwrite,
	.size = vfs_stream_handle_size,
	.info_size = vfs_stream_handle_size,
	.set_size = vfs_stream_handle_set_size,
	.allocate = vfs_stream_handle_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = vfs_stream_handle_remove,
	.stream_open = vfs_stream_handle_open,
	.stream_empty = vfs_stream_handle_empty,
	.stream_reset = vfs_stream_handle_reset,
	.stream_opened = vfs_stream_handle_opened,
};
