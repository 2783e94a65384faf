/*
 * Plain file calls for smbd/smb2/'s FSCTL, copy and info handlers
 * (design in fsctl_io.h).
 */
#include "vfs/fsctl_io.h"
#include "vfs/anchor.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

NTSTATUS vfs_fd_dup(int fd, int *out)
{
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return *out != -1 ? NT_STATUS_OK : vfs_map_errno(errno);
}

void vfs_fd_close(int fd)
{
	if (fd != -1) {
		close(fd);
	}
}

NTSTATUS vfs_fd_stat(int fd, struct stat *sb)
{
	return fstat(fd, sb) == 0 ? NT_STATUS_OK : vfs_map_errno(errno);
}

NTSTATUS vfs_fd_utimens(int fd, const struct timespec ts[2])
{
	return futimens(fd, ts) == 0 ? NT_STATUS_OK : vfs_map_errno(errno);
}

bool vfs_dir_writable(int dirfd)
{
	return faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) == 0;
}

bool vfs_link_refused(const struct vfs_share *sh, int root_fd,
		      const char *path)
{
	struct stat sb;

	if (vfs_stat_beneath(sh, root_fd, path, &sb) == 0) {
		return false;
	}
	return errno == ELOOP || errno == EXDEV;
}

bool vfs_copy_range(int src_fd, uint64_t src_off, int dst_fd,
		    uint64_t dst_off, size_t len, NTSTATUS *status)
{
	loff_t in = (loff_t)src_off, out = (loff_t)dst_off;
	size_t left = len;

	*status = NT_STATUS_OK;
	while (left > 0) {
		ssize_t n = copy_file_range(src_fd, &in, dst_fd, &out, left,
					    0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && left == len &&
		    (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
		     errno == EOPNOTSUPP || errno == EBADF)) {
			return false;
		}
		if (n < 0) {
			*status = vfs_map_errno(errno);
			return true;
		}
		if (n == 0) {
			/* The source shrank under us. */
			*status = NT_STATUS_INVALID_VIEW_SIZE;
			return true;
		}
		left -= (size_t)n;
	}
	return true;
}

NTSTATUS vfs_pread_all(int fd, void *buf, size_t len, uint64_t off,
		       size_t *done)
{
	uint8_t *p = buf;

	*done = 0;
	while (*done < len) {
		ssize_t n = pread(fd, p + *done, len - *done,
				  (off_t)(off + *done));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return vfs_map_errno(errno);
		}
		if (n == 0) {
			break;
		}
		*done += (size_t)n;
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done,
				   (off_t)(off + done));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? vfs_map_errno(errno)
				     : NT_STATUS_DISK_FULL;
		}
		done += (size_t)n;
	}
	return NT_STATUS_OK;
}
