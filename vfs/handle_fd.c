/*
 * Descriptor calls smbd/smb2/ and smbd/objects/ made themselves around
 * an open's handle (issue 37 item 1: no syscall and no errno above
 * vfs/): an open beneath the share, a duplicate, a close, a stat, the
 * modification time set, an access check, a directory's identity.
 * Each is the one call it replaces, with errno mapped here once by
 * vfs_map_errno (an errno a caller told apart has its own NTSTATUS,
 * as vfs_map_errno gives it: EISDIR is NT_STATUS_FILE_IS_A_DIRECTORY).
 */
#include "vfs/handle.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/anchor.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

NTSTATUS vfs_handle_openat(const struct vfs_share *sh, int dirfd,
			   const char *path, int flags, mode_t mode, int *fd)
{
	*fd = vfs_openat_beneath(sh, dirfd, path, flags, mode);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

bool vfs_handle_may(int dirfd, const char *name, int how)
{
	return faccessat(dirfd, name, how, AT_EACCESS) == 0;
}

NTSTATUS vfs_handle_dir_info(const struct vfs_share *sh, int root_fd,
			     const char *dir, struct vfs_file_info *fi)
{
	struct statx stx;
	int pfd = vfs_openat_beneath(sh, root_fd, dir, O_PATH | O_DIRECTORY,
				     0);
	int rc;

	if (pfd == -1) {
		return vfs_map_errno(errno);
	}
	rc = statx(pfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
	if (rc != 0) {
		NTSTATUS status = vfs_map_errno(errno);

		close(pfd);
		return status;
	}
	close(pfd);
	vfs_statx_to_info(&stx, fi);
	return NT_STATUS_OK;
}

NTSTATUS vfs_handle_openat_info(const struct vfs_share *sh, int dirfd,
				const char *path, int flags, mode_t mode,
				struct vfs_file_info *fi, int *fd)
{
	*fd = vfs_openat_beneath_info(sh, dirfd, path, flags, mode, fi);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_handle_open_existing(const struct vfs_share *sh, int dirfd,
				  const char *path, int flags,
				  struct vfs_file_info *fi, bool attr_only,
				  int *fd, bool *opath)
{
	*opath = false;
	*fd = fi != NULL
		      ? vfs_openat_beneath_info(sh, dirfd, path, flags, 0, fi)
		      : vfs_openat_beneath(sh, dirfd, path, flags, 0);
	if (*fd == -1 && (errno == EACCES || errno == ENXIO) && attr_only) {
		*fd = vfs_openat_beneath(sh, dirfd, path, O_PATH, 0);
		*opath = *fd != -1;
	}
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_handle_stat_beneath(const struct vfs_share *sh, int root_fd,
				 const char *path, struct stat *sb,
				 bool *stopped)
{
	int err;

	if (stopped != NULL) {
		*stopped = false;
	}
	if (vfs_stat_beneath(sh, root_fd, path, sb) == 0) {
		return NT_STATUS_OK;
	}
	err = errno;
	if (stopped != NULL) {
		*stopped = err == ELOOP || err == EXDEV;
	}
	return vfs_map_errno(err);
}

NTSTATUS vfs_handle_truncate_data(int fd)
{
	struct stat sb;
	int err;

	if (ftruncate(fd, 0) == 0) {
		return NT_STATUS_OK;
	}
	err = errno;
	if (err == EINVAL && fstat(fd, &sb) == 0 &&
	    (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode))) {
		return NT_STATUS_OK;
	}
	return vfs_map_errno(err);
}

void vfs_handle_reserve(int fd, uint64_t size)
{
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
}

NTSTATUS vfs_handle_chmod(int fd, mode_t mode)
{
	return fchmod(fd, mode) != 0 ? vfs_map_errno(errno) : NT_STATUS_OK;
}
