/*
 * SET_INFO's file-system calls (design in setinfo.h).
 */
#include "vfs/setinfo.h"
#include "vfs/anchor.h"
#include "vfs/vfs_posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The /proc/self/fd link of fd, which chmod and utimensat follow to the
 * file even for an O_PATH fd. */
static void proc_fd_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

NTSTATUS vfs_fd_chmod(int fd, mode_t mode)
{
	char proc[32];

	proc_fd_path(proc, sizeof(proc), fd);
	return chmod(proc, mode) != 0 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_fd_set_times(int fd, const struct timespec ts[2])
{
	char proc[32];

	proc_fd_path(proc, sizeof(proc), fd);
	return utimensat(AT_FDCWD, proc, ts, 0) != 0 ? vfs_map_errno(errno)
						     : NT_STATUS_OK;
}

NTSTATUS vfs_fd_dos_mode(const struct vfs_share *sh, int fd, uint32_t attrs)
{
	char proc[32];
	struct stat sb;
	mode_t m;

	proc_fd_path(proc, sizeof(proc), fd);
	if (stat(proc, &sb) != 0) {
		return vfs_map_errno(errno);
	}
	m = vfs_mode_with_dos(sh, attrs, sb.st_mode);
	if (m != (sb.st_mode & 07777) && chmod(proc, m) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

bool vfs_dir_is_empty(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd == -1 ? NULL : fdopendir(dfd);
	struct dirent *de;
	bool empty = true;

	if (d == NULL) {
		if (dfd != -1) {
			close(dfd);
		}
		return true;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

bool vfs_entry_is_dir(const struct vfs_share *sh, int root_fd,
		      const char *path)
{
	const char *base;
	struct stat sb;
	int dfd = vfs_open_parent(sh, root_fd, path, &base);
	bool is_dir = dfd != -1 &&
		      fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISDIR(sb.st_mode);

	if (dfd != -1) {
		close(dfd);
	}
	return is_dir;
}

NTSTATUS vfs_ea_fset(int fd, const char *xattr, const void *val, size_t len)
{
	if (len == 0) {
		return fremovexattr(fd, xattr) != 0 && errno != ENODATA
			       ? vfs_map_errno(errno)
			       : NT_STATUS_OK;
	}
	if (fsetxattr(fd, xattr, val, len, 0) != 0) {
		return errno == E2BIG || errno == ERANGE
			       ? NT_STATUS_EA_TOO_LARGE
			       : vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}
