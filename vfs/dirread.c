/*
 * Directories as the listings and the change watches read them: the
 * design is in dirread.h.  Every function is the one call (or the one
 * pass) the handler made itself before issue 37, with the same flags, so
 * no path gains a system call: QUERY_DIRECTORY's per-entry statx stays
 * one statx, the names stay one batched getdents64 pass (vfs_dir_each).
 */
#include "vfs/dirread.h"
#include "vfs/dirents.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void vfs_dir_close(int fd)
{
	if (fd != -1) {
		(void)close(fd);
	}
}

NTSTATUS vfs_dir_reopen(int dirfd, bool path_only, int *fd)
{
	*fd = openat(dirfd, ".",
		     (path_only ? O_PATH : O_RDONLY) | O_DIRECTORY |
			     O_CLOEXEC);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_dir_open_sub_path(int dirfd, const char *rel, int *fd)
{
	*fd = openat(dirfd, rel,
		     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_dir_dup(int fd, int *out)
{
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return *out == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

bool vfs_dir_entry_exists(int dirfd, const char *name)
{
	struct stat sb;

	return fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
}

NTSTATUS vfs_dir_read_names(int dirfd,
			    bool (*fn)(void *priv, const char *name),
			    void *priv, bool *cut)
{
	NTSTATUS status;
	int dfd, got, err;

	*cut = false;
	/* A description of our own: the open's file offset is shared by
	 * every dup of it. */
	status = vfs_dir_reopen(dirfd, false, &dfd);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	got = vfs_dir_each(dfd, fn, priv);
	err = errno;
	close(dfd);
	if (got == -1) {
		return vfs_map_errno(err);
	}
	*cut = got == 1;
	return NT_STATUS_OK;
}

bool vfs_dir_entry_statx(int dirfd, const char *name, struct statx *stx)
{
	return statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT,
		     STATX_BASIC_STATS | STATX_BTIME, stx) == 0;
}

int vfs_dir_entry_opath(int dirfd, const char *name)
{
	return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

bool vfs_dir_path_reachable(const struct vfs_share *sh, int dirfd,
			    const char *path)
{
	int fd = vfs_openat_beneath(sh, dirfd, path, O_PATH, 0);

	if (fd == -1) {
		return false;
	}
	close(fd);
	return true;
}

bool vfs_dir_may_delete_child(int dirfd)
{
	return faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) == 0;
}

uid_t vfs_dir_euid(void)
{
	return geteuid();
}

void vfs_dir_each_subdir(int dir,
			 bool (*fn)(void *priv, int subfd, const char *name),
			 void *priv)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (!NT_STATUS_IS_OK(vfs_dir_reopen(dir, false, &fd))) {
		return;
	}
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		bool more;
		int sfd;

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0) {
			continue;
		}
		/* O_RDONLY, not O_PATH: the user must be able to open it. */
		sfd = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd == -1) {
			continue;
		}
		more = fn(priv, sfd, de->d_name);
		close(sfd);
		if (!more) {
			break;
		}
	}
	closedir(d);
}
