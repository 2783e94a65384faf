/*
 * security.NTACL get/set (see ntacl_xattr.h).  An O_PATH descriptor (an
 * attribute-only open) has no xattr calls of its own: its /proc/self/fd
 * link is used, as dosattrib.c does.
 */
#include "vfs/ntacl_xattr.h"
#include "vfs/vfs.h"
#include "lib/tpool.h"

#include <errno.h>
#include <stdio.h>
#include <sys/xattr.h>

static ssize_t ntacl_getx(int fd, void *val, size_t size)
{
	ssize_t n = fgetxattr(fd, NTACL_XATTR_NAME, val, size);
	char proc[32];

	if (n < 0 && errno == EBADF && fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		n = getxattr(proc, NTACL_XATTR_NAME, val, size);
	}
	return n;
}

NTSTATUS
vfs_ntacl_fget(TALLOC_CTX *mem_ctx, int fd, uint8_t **blob, size_t *len)
{
	uint8_t *buf;
	ssize_t n = ntacl_getx(fd, NULL, 0);

	if (n < 0) {
		return errno == ENODATA || errno == ENOTSUP
		               ? NT_STATUS_NOT_FOUND
		               : vfs_map_errno(errno);
	}
	if (n == 0 || n > NTACL_XATTR_MAX) {
		return NT_STATUS_NOT_FOUND;
	}
	buf = talloc_size(mem_ctx, (size_t)n);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n = ntacl_getx(fd, buf, (size_t)n);
	if (n <= 0) {
		talloc_free(buf);
		return n == 0 || errno == ENODATA ? NT_STATUS_NOT_FOUND
		                                  : vfs_map_errno(errno);
	}
	*blob = buf;
	*len = (size_t)n;
	return NT_STATUS_OK;
}

struct ntacl_set_args {
	int fd;
	const uint8_t *blob;
	size_t len;
};

/* The only thing done as root: one setxattr of security.NTACL. */
static int ntacl_setx(void *p)
{
	const struct ntacl_set_args *a = p;
	char proc[32];

	if (fsetxattr(a->fd, NTACL_XATTR_NAME, a->blob, a->len, 0) == 0) {
		return 0;
	}
	if (errno != EBADF) {
		return -errno;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", a->fd);
	return setxattr(proc, NTACL_XATTR_NAME, a->blob, a->len, 0) == 0
	               ? 0
	               : -errno;
}

NTSTATUS vfs_ntacl_fset(int fd, const uint8_t *blob, size_t len)
{
	struct ntacl_set_args a = {fd, blob, len};
	int ret = tpool_as_root(ntacl_setx, &a);

	return ret == 0 ? NT_STATUS_OK : vfs_map_errno(-ret);
}
