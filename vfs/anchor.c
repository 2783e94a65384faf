/*
 * Name-changing calls anchored to a directory fd (design in anchor.h).
 */
#include "vfs/anchor.h"
#include "vfs/vfs_posix.h"
#include "vfs/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Longest share-relative path we split (PATH_MAX, as the kernel). */
#define ANCHOR_PATH_MAX 4096

int vfs_open_parent(const struct vfs_share *sh, int root_fd,
		    const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[ANCHOR_PATH_MAX];
	size_t n;

	*base = NULL;
	if (path[0] == '\0' || (slash != NULL && slash[1] == '\0')) {
		errno = EINVAL;
		return -1;
	}
	if (slash == NULL) {
		*base = path;
		return vfs_openat_beneath(sh, root_fd, "",
					  O_PATH | O_DIRECTORY, 0);
	}
	n = (size_t)(slash - path);
	if (n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	*base = slash + 1;
	return vfs_openat_beneath(sh, root_fd, dir, O_PATH | O_DIRECTORY, 0);
}

static struct vfs_file_id anchor_id_of(const struct stat *st)
{
	struct vfs_file_id id;

	id.dev = ((uint64_t)major(st->st_dev) << 32) | minor(st->st_dev);
	id.ino = (uint64_t)st->st_ino;
	return id;
}

struct vfs_file_id vfs_file_id_of_fd(int fd)
{
	struct vfs_file_id id = {0, 0};
	struct stat st;

	if (fd != -1 && fstat(fd, &st) == 0) {
		id = anchor_id_of(&st);
	}
	return id;
}

int vfs_stat_beneath(const struct vfs_share *sh, int root_fd,
		     const char *path, struct stat *st)
{
	int fd = vfs_openat_beneath(sh, root_fd, path, O_PATH, 0);
	int rc, err;

	if (fd == -1) {
		return -1;
	}
	rc = fstat(fd, st);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

struct vfs_file_id vfs_parent_id(int root_fd, const char *path)
{
	struct vfs_file_id id = {0, 0};
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];
	struct stat st;
	size_t n;
	int rc;

	if (path[0] == '\0') {
		return id;
	}
	if (slash == NULL) {
		rc = fstat(root_fd, &st);
	} else {
		n = (size_t)(slash - path);
		if (n >= sizeof(parent)) {
			return id;
		}
		memcpy(parent, path, n);
		parent[n] = '\0';
		rc = fstatat(root_fd, parent, &st, 0);
	}
	if (rc == 0) {
		id = anchor_id_of(&st);
	}
	return id;
}

/* Whether dirfd/base is still the file the caller means. */
static bool anchor_is(int dirfd, const char *base,
		      const struct vfs_file_id *want)
{
	struct vfs_file_id got;
	struct stat st;

	if (want == NULL || (want->dev == 0 && want->ino == 0)) {
		return true;
	}
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		return false;
	}
	got = anchor_id_of(&st);
	return got.dev == want->dev && got.ino == want->ino;
}

/*
 * The same, or a symbolic link there that leads to that file under the
 * share's rules (path: dirfd/base from the share's root): an open made
 * through a link names the link, and its delete or rename removes or
 * renames the link, never its target, as Samba does (issue 35: clients
 * see links as reparse points and delete them).  *is_link says which.
 */
static bool anchor_is_or_leads(const struct vfs_share *sh, int root_fd,
			       const char *path, int dirfd, const char *base,
			       const struct vfs_file_id *want, bool *is_link)
{
	struct vfs_file_id got;
	struct stat st;

	*is_link = false;
	if (anchor_is(dirfd, base, want)) {
		return true;
	}
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISLNK(st.st_mode) ||
	    vfs_stat_beneath(sh, root_fd, path, &st) != 0) {
		return false;
	}
	got = anchor_id_of(&st);
	*is_link = got.dev == want->dev && got.ino == want->ino;
	return *is_link;
}

NTSTATUS vfs_unlink_anchored(const struct vfs_share *sh, int root_fd,
			     const char *path, bool is_dir,
			     const struct vfs_file_id *want)
{
	const char *base;
	int fault = vfs_fault_hit_at(VFS_FAULT_UNLINK, root_fd, path);
	int dfd = fault ? -1 : vfs_open_parent(sh, root_fd, path, &base);
	NTSTATUS status = NT_STATUS_OK;
	bool is_link;

	if (dfd == -1) {
		return vfs_map_errno(fault ? fault : errno);
	}
	if (!anchor_is_or_leads(sh, root_fd, path, dfd, base, want,
				&is_link)) {
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
	} else if (unlinkat(dfd, base,
			    is_dir && !is_link ? AT_REMOVEDIR : 0) != 0) {
		status = vfs_map_errno(errno);
	}
	close(dfd);
	return status;
}

NTSTATUS vfs_mkdir_anchored(const struct vfs_share *sh, int root_fd,
			    const char *path, mode_t mode)
{
	const char *base;
	int fault = vfs_fault_hit_at(VFS_FAULT_MKDIR, root_fd, path);
	int dfd = fault ? -1 : vfs_open_parent(sh, root_fd, path, &base);
	NTSTATUS status = NT_STATUS_OK;

	if (dfd == -1) {
		return vfs_map_errno(fault ? fault : errno);
	}
	if (mkdirat(dfd, base, mode) != 0) {
		status = vfs_map_errno(errno);
	}
	close(dfd);
	return status;
}

NTSTATUS vfs_rename_anchored(const struct vfs_share *sh, int root_fd,
			     const char *from, const char *to, bool link,
			     unsigned flags, const struct vfs_file_id *want)
{
	const char *fbase, *tbase;
	int fault = vfs_fault_hit_at(VFS_FAULT_RENAME, root_fd, from);
	int fdir = fault ? -1 : vfs_open_parent(sh, root_fd, from, &fbase);
	int tdir;
	NTSTATUS status = NT_STATUS_OK;
	bool is_link;
	int rc;

	if (fdir == -1) {
		return vfs_map_errno(fault ? fault : errno);
	}
	tdir = vfs_open_parent(sh, root_fd, to, &tbase);
	if (tdir == -1) {
		status = vfs_map_errno(errno);
		close(fdir);
		return status;
	}
	if (!anchor_is_or_leads(sh, root_fd, from, fdir, fbase, want,
				&is_link)) {
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
	} else {
		rc = link ? linkat(fdir, fbase, tdir, tbase, 0)
			  : renameat2(fdir, fbase, tdir, tbase, flags);
		if (rc != 0) {
			status = vfs_map_errno(errno);
		}
	}
	close(tdir);
	close(fdir);
	return status;
}
