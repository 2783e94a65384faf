/*
 * The POSIX file-system module: path resolution confined to the share,
 * case-insensitive lookup, opening, and statx into struct vfs_file_info.
 *
 * Confinement (issue 4): every open goes through openat2() relative to
 * the share's root fd with RESOLVE_BENEATH (no "..", absolute path or
 * symlink may leave the share) and RESOLVE_NO_MAGICLINKS (no /proc
 * jumps); `follow symlinks = no` adds RESOLVE_NO_SYMLINKS; `wide links =
 * yes` drops RESOLVE_BENEATH so symlinks may point anywhere, as in Samba.
 */
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/name.h"
#include "vfs/dircache.h"
#include "vfs/fault.h"
#include "lib/clock.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

static bool share_str_copy(TALLOC_CTX *mem_ctx, const char **s)
{
	if (*s == NULL) {
		return true;
	}
	*s = talloc_strdup(mem_ctx, *s);
	return *s != NULL;
}

bool vfs_share_copy(TALLOC_CTX *mem_ctx, struct vfs_share *dst,
		    const struct vfs_share *src)
{
	*dst = *src;
	return share_str_copy(mem_ctx, &dst->path) &&
	       share_str_copy(mem_ctx, &dst->veto_files) &&
	       share_str_copy(mem_ctx, &dst->hide_files);
}

NTSTATUS vfs_map_errno(int err)
{
	switch (err) {
	case 0:
		return NT_STATUS_OK;
	case EPERM:
	case EACCES:
	case EROFS:
		return NT_STATUS_ACCESS_DENIED;
	case ENOENT:
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	case ENOTDIR:
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	case EEXIST:
		return NT_STATUS_OBJECT_NAME_COLLISION;
	case EISDIR:
		return NT_STATUS_FILE_IS_A_DIRECTORY;
	case ENOTEMPTY:
		return NT_STATUS_DIRECTORY_NOT_EMPTY;
	case ENOSPC:
	case EDQUOT:
		return NT_STATUS_DISK_FULL;
	case ENOMEM:
		return NT_STATUS_NO_MEMORY;
	case EMFILE:
	case ENFILE:
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	case ENAMETOOLONG:
		return NT_STATUS_OBJECT_NAME_INVALID;
	case ELOOP:
	case EXDEV:
		/* RESOLVE_BENEATH/NO_SYMLINKS refused a way out. */
		return NT_STATUS_ACCESS_DENIED;
	case EBADF:
		return NT_STATUS_INVALID_HANDLE;
	case EINVAL:
		return NT_STATUS_INVALID_PARAMETER;
	case EFBIG:
		return NT_STATUS_DISK_FULL;
	case ENOTSUP:
		return NT_STATUS_NOT_SUPPORTED;
	case EBUSY:
		return NT_STATUS_SHARING_VIOLATION;
	case EIO:
		/* As Samba maps it: the device failed, not the request. */
		return NT_STATUS_IO_DEVICE_ERROR;
	case ENXIO:
		/* A socket, or a FIFO opened for writing (vfs_openat_beneath),
		 * and ESPIPE: a FIFO read or written at an offset.  Samba
		 * 4.17 answers ACCESS_DENIED for both (its default). */
	case ESPIPE:
		return NT_STATUS_ACCESS_DENIED;
	default:
		return NT_STATUS_UNSUCCESSFUL;
	}
}

static uint64_t resolve_flags(const struct vfs_share *sh)
{
	uint64_t r = RESOLVE_NO_MAGICLINKS;

	if (!sh->wide_links) {
		r |= RESOLVE_BENEATH;
	}
	if (!sh->follow_symlinks) {
		r |= RESOLVE_NO_SYMLINKS;
	}
	return r;
}

bool vfs_fs_is_local(int fd)
{
	/* Not all in linux/magic.h of every kernel's headers. */
	static const unsigned long remote[] = {
		0x6969,		/* NFS */
		0x517B,		/* SMB (smbfs) */
		0xFF534D42,	/* CIFS */
		0xFE534D42,	/* SMB2 */
		0x65735546,	/* FUSE */
		0x01021997,	/* 9p */
		0x5346414F,	/* AFS */
		0x6B414653,	/* kAFS */
		0x73757245,	/* Coda */
		0x00C36400,	/* Ceph */
		0x01161970,	/* GFS2 */
		0x7461636F,	/* OCFS2 */
		0x0BD00BD0,	/* Lustre */
		0x47504653,	/* GPFS */
	};
	struct statfs fs;
	size_t i;

	if (fstatfs(fd, &fs) != 0) {
		return false;
	}
	for (i = 0; i < sizeof(remote) / sizeof(remote[0]); i++) {
		if ((unsigned long)(unsigned int)fs.f_type == remote[i]) {
			return false;
		}
	}
	return true;
}

/* Why a share's root could not be had: the user's rights, the server's
 * own state (descriptors, memory), or a path that leads to no directory
 * (missing, not a directory, a symlink loop). */
static NTSTATUS share_root_errno(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return NT_STATUS_ACCESS_DENIED;
	case EMFILE:
	case ENFILE:
	case ENOMEM:
		return vfs_map_errno(err);
	default:
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	}
}

NTSTATUS vfs_share_root_open(const char *path, int *fd, bool *local_fs)
{
	int root, dot, err;

	*fd = -1;
	*local_fs = false;
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root == -1) {
		return share_root_errno(errno);
	}
	/* O_PATH itself asks nothing of the root; a lookup in it does
	 * (search permission, as chdir(2) into it would). */
	dot = openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dot == -1) {
		err = errno;
		close(root);
		return share_root_errno(err);
	}
	close(dot);
	*local_fs = vfs_fs_is_local(root);
	*fd = root;
	return NT_STATUS_OK;
}

/*
 * Whether an open with these flags may find a FIFO or a device and wait
 * in the kernel for a peer (a FIFO's writer) or a line: any open of an
 * existing name for its data.  O_PATH, O_DIRECTORY (O_TMPFILE holds it)
 * and O_CREAT|O_EXCL (a new regular file) cannot.
 */
static bool open_may_wait(int flags)
{
	return (flags & (O_PATH | O_DIRECTORY)) == 0 &&
	       (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
}

/*
 * After a data open made with O_NONBLOCK (issue 34 item 2): the type is
 * the fd's, so no rename between a stat and the open can swap a FIFO in.
 * A regular file gets its blocking mode back (io_uring and some file
 * systems treat O_NONBLOCK on a regular file as "fail with EAGAIN"
 * instead of waiting for the disk); F_SETFL sets only the status flags,
 * which are the ones we opened with less O_NONBLOCK.  A FIFO opened for
 * reading and a device keep O_NONBLOCK: a read finds no data rather than
 * waiting for it, and a pread on a FIFO fails (ESPIPE) as in Samba.  A
 * FIFO opened for writing is refused with ENXIO: smbd opens read-write,
 * which on a FIFO never waits but would make smbd its own reader, where
 * Samba's O_WRONLY|O_NONBLOCK open fails (ENXIO) while nobody reads.
 * A socket never opens (ENXIO from the kernel).  false: fd closed,
 * errno set.
 */
static bool open_settle(int fd, int flags, mode_t mode)
{
	int err;

	if (S_ISREG(mode)) {
		if (fcntl(fd, F_SETFL, flags & (O_APPEND | O_DIRECT |
						O_NOATIME)) == 0) {
			return true;
		}
		err = errno;
	} else if (S_ISFIFO(mode) && (flags & O_ACCMODE) != O_RDONLY) {
		err = ENXIO;
	} else {
		return true;
	}
	close(fd);
	errno = err;
	return false;
}

/* The open itself, under the fault rules (vfs/fault.h). */
static int openat_beneath(const struct vfs_share *sh, int dirfd,
			  const char *path, int flags, mode_t mode)
{
	struct open_how how;
	long fd;
	int fault = vfs_fault_hit_at(VFS_FAULT_OPEN, dirfd, path);

	if (fault != 0) {
		errno = fault;
		return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW_SAFE(flags));
	if (open_may_wait(flags)) {
		how.flags |= O_NONBLOCK;
	}
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = resolve_flags(sh);
	if (path[0] == '\0') {
		path = ".";
	}
	do {
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	} while (fd == -1 && errno == EAGAIN);
	return (int)fd;
}

int vfs_open_settle(int fd, int flags)
{
	struct stat sb;

	if (fd == -1) {
		return -1;
	}
	if (fstat(fd, &sb) != 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return open_settle(fd, flags, sb.st_mode) ? fd : -1;
}

int vfs_openat_beneath(const struct vfs_share *sh, int dirfd,
		       const char *path, int flags, mode_t mode)
{
	int fd = openat_beneath(sh, dirfd, path, flags, mode);

	if (fd == -1 || !open_may_wait(flags)) {
		return fd;
	}
	return vfs_open_settle(fd, flags);
}

int vfs_openat_beneath_info(const struct vfs_share *sh, int dirfd,
			    const char *path, int flags, mode_t mode,
			    struct vfs_file_info *fi)
{
	int fd = openat_beneath(sh, dirfd, path, flags, mode);
	NTSTATUS st;

	if (fd == -1) {
		return -1;
	}
	st = vfs_fstat_info(fd, fi);
	if (!NT_STATUS_IS_OK(st)) {
		int err = errno;	/* statx's: the mapping keeps it */

		close(fd);
		errno = err;
		return -1;
	}
	if (open_may_wait(flags) && !open_settle(fd, flags, fi->mode)) {
		return -1;
	}
	return fd;
}

/* The lstat of a name found in another case, when the caller wants it:
 * one fstatat where its stat by path would open, stat and close. */
static NTSTATUS component_stat(int dirfd, const char *name, struct stat *stp)
{
	if (stp != NULL && fstatat(dirfd, name, stp, AT_SYMLINK_NOFOLLOW) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

/*
 * Find the on-disk name of one component under dirfd: the exact name if
 * it exists, else (case-insensitive shares) the entry whose name matches
 * without case, else the 8.3 alias's long name.  *found false when none.
 * A last component in a directory the user may not list ("dropbox", -wx)
 * is taken as given and not found, so a file can still be dropped there,
 * as on Samba; anywhere else an unlistable directory is ACCESS_DENIED.
 */
static NTSTATUS resolve_component(TALLOC_CTX *mem_ctx,
				  const struct vfs_share *sh, int dirfd,
				  const char *comp, bool last,
				  bool known_absent, char **real, bool *found,
				  struct stat *stp)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd;
	bool mangled;

	*found = false;
	*real = NULL;
	if (!known_absent) {
		if (fstatat(dirfd, comp, stp ? stp : &st,
			    AT_SYMLINK_NOFOLLOW) == 0) {
			*found = true;
			*real = talloc_strdup(mem_ctx, comp);
			return *real ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
		}
		if (errno != ENOENT) {
			return vfs_map_errno(errno);
		}
	}
	mangled = vfs_name_is_mangled(comp);
	if (sh->case_sensitive && !mangled) {
		return NT_STATUS_OK;
	}
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 && errno == EACCES && last) {
		return NT_STATUS_OK;
	}
	if (fd == -1) {
		return vfs_map_errno(errno);
	}
	if (!sh->case_sensitive) {
		/* The directory's names cached by case-folded name
		 * (dircache.c): no scan while the directory is unchanged.
		 * An alias not found as a name still needs the scan. */
		enum vfs_dircache_answer a =
			vfs_dircache_lookup(mem_ctx, fd, comp, real);

		if (a == VFS_DIRCACHE_FOUND ||
		    (a == VFS_DIRCACHE_ABSENT && !mangled)) {
			close(fd);
			*found = a == VFS_DIRCACHE_FOUND;
			return *found ? component_stat(dirfd, *real, stp)
				      : NT_STATUS_OK;
		}
	}
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return NT_STATUS_NO_MEMORY;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0) {
			continue;
		}
		if (!sh->case_sensitive &&
		    vfs_strcasecmp(de->d_name, comp) == 0) {
			break;
		}
		if (mangled && !vfs_name_is_8_3(de->d_name)) {
			char *alias = vfs_name_mangle(mem_ctx, de->d_name);
			bool hit = alias && vfs_strcasecmp(alias, comp) == 0;

			talloc_free(alias);
			if (hit) {
				break;
			}
		}
	}
	if (de != NULL) {
		*found = true;
		*real = talloc_strdup(mem_ctx, de->d_name);
	}
	closedir(d);
	if (*found && *real == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (*found) {
		return component_stat(dirfd, *real, stp);
	}
	if (!*found && mangled) {
		/* An alias we handed out for a name that is gone: creating
		 * "by the alias" gets the long name back, as on Windows. */
		*real = vfs_name_demangle_cached(mem_ctx, comp);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_lookup_component(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			      int dirfd, const char *comp, bool last,
			      char **real, bool *found, struct stat *stp)
{
	return resolve_component(mem_ctx, sh, dirfd, comp, last, false, real,
				 found, stp);
}

/* Whether a component of path (share-relative, '/' separated) is in
 * the share's `veto files`. */
bool vfs_path_vetoed(const struct vfs_share *sh, const char *path)
{
	char comp[NAME_MAX + 1];
	const char *p = path;

	if (sh->veto_files == NULL || sh->veto_files[0] == '\0') {
		return false;
	}
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n > NAME_MAX) {
			return true;	/* the walk will say what is wrong */
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (n > 0 &&
		    vfs_name_in_list(sh->veto_files, comp, sh->case_sensitive)) {
			return true;
		}
		p += n;
		p += *p == '/';
	}
	return false;
}

/*
 * The common case in one lookup: every component exists with exactly the
 * name given (the exact name wins over a case-insensitive match and over
 * an 8.3 alias in the walk as well), so the on-disk path is the path.
 * One openat2 under the share's RESOLVE_* rules stands for the walk's
 * open, stat and close per component (issue 18's syscall count); the
 * last component is not followed, as the walk's fstatat does not.  Any
 * failure (a missing name, another case, a vetoed one, a permission)
 * leaves the answer to the walk, which says which.
 */
static bool resolve_exact(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			  const char *path, struct vfs_resolved *out,
			  bool *absent)
{
	struct open_how how;
	long fd;

	*absent = false;
	if (vfs_path_vetoed(sh, path)) {
		return false;
	}
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(O_PATH | O_NOFOLLOW | O_CLOEXEC);
	how.resolve = resolve_flags(sh);
	do {
		fd = syscall(SYS_openat2, sh->root_fd, path, &how, sizeof(how));
	} while (fd == -1 && errno == EAGAIN);
	if (fd == -1) {
		*absent = errno == ENOENT;
		return false;
	}
	/* The caller's next question is what the name is (a CREATE's
	 * file or directory): the fd answers it for one fstat, where a
	 * stat by path would open, stat and close again. */
	out->have_stat = fstat((int)fd, &out->stat) == 0;
	close((int)fd);
	out->path = talloc_strdup(mem_ctx, path);
	if (out->path == NULL) {
		out->have_stat = false;
		return false;
	}
	out->exists = true;
	out->parent_exists = true;
	return true;
}

/*
 * The next most common case: a name to create (or given in another case)
 * in a directory named exactly.  The parent in one openat2 (the share
 * root's fd itself for a top-level name), then the last component as the
 * walk finds it.  Before this, a CREATE of a new file four levels down
 * cost the walk's four openat2, four fstatat and four close.  Anything
 * unusual (a vetoed name, a parent not there exactly, an error) goes to
 * the walk, which has the answer and the status for every case.  absent:
 * the exact lookup has just found no such name, so the name's own stat
 * is not made again (should another client make it in between, the
 * create's O_EXCL collides and the CREATE looks again, as after any race
 * it lost: create_lookup_open).
 */
static bool resolve_in_exact_parent(TALLOC_CTX *mem_ctx,
				    const struct vfs_share *sh,
				    const char *path, bool absent,
				    struct vfs_resolved *out)
{
	const char *slash = strrchr(path, '/');
	const char *comp = slash != NULL ? slash + 1 : path;
	char *parent = NULL, *rc = NULL;
	int dirfd = sh->root_fd;
	bool found;
	NTSTATUS st;

	if (comp[0] == '\0' || vfs_path_vetoed(sh, path)) {
		return false;
	}
	if (slash != NULL) {
		parent = talloc_strndup(mem_ctx, path, (size_t)(slash - path));
		if (parent == NULL) {
			return false;
		}
		dirfd = vfs_openat_beneath(sh, sh->root_fd, parent,
					   O_PATH | O_DIRECTORY, 0);
		if (dirfd == -1) {
			talloc_free(parent);
			return false;
		}
	}
	st = resolve_component(mem_ctx, sh, dirfd, comp, true, absent, &rc,
			       &found, &out->stat);
	if (dirfd != sh->root_fd) {
		close(dirfd);
	}
	if (!NT_STATUS_IS_OK(st) ||
	    (rc != NULL &&
	     vfs_name_in_list(sh->veto_files, rc, sh->case_sensitive))) {
		talloc_free(parent);
		talloc_free(rc);
		return false;
	}
	out->path = talloc_asprintf(mem_ctx, "%s%s%s",
				    parent != NULL ? parent : "",
				    parent != NULL ? "/" : "",
				    rc != NULL ? rc : comp);
	talloc_free(parent);
	talloc_free(rc);
	if (out->path == NULL) {
		return false;
	}
	out->exists = found;
	out->have_stat = found;	/* resolve_component's lstat */
	out->parent_exists = true;
	return true;
}

/*
 * Why the walk could not enter real (its last component rc, under
 * dirfd): a symbolic link the share's rules do not follow (RESOLVE_
 * NO_SYMLINKS says ELOOP, RESOLVE_BENEATH EXDEV for a way out) is
 * STOPPED_ON_SYMLINK with out->link_comp and out->link_path (issue 35:
 * the CREATE answers with the link); a name that is no directory is
 * OBJECT_PATH_NOT_FOUND.
 */
static NTSTATUS walk_dir_error(TALLOC_CTX *mem_ctx, int dirfd,
			       const char *rc, const char *real, size_t idx,
			       struct vfs_resolved *out)
{
	int err = errno;
	struct stat sb;

	if ((err == ELOOP || err == EXDEV) &&
	    fstatat(dirfd, rc, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(sb.st_mode)) {
		out->link_path = talloc_strdup(mem_ctx, real);
		out->link_comp = idx;
		return out->link_path != NULL ? NT_STATUS_STOPPED_ON_SYMLINK
					      : NT_STATUS_NO_MEMORY;
	}
	/* a file, or a symlink that dangles (an msdfs link where DFS is
	 * off): no directory on the way, as Samba says */
	return err == ENOTDIR || err == ENOENT
		       ? NT_STATUS_OBJECT_PATH_NOT_FOUND
		       : vfs_map_errno(err);
}

NTSTATUS vfs_resolve(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
		     const char *path, struct vfs_resolved *out)
{
	return vfs_resolve_known(mem_ctx, sh, path, false, out);
}

NTSTATUS vfs_resolve_known(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			   const char *path, bool exact_absent,
			   struct vfs_resolved *out)
{
	char *work = talloc_strdup(mem_ctx, path);
	char *real = talloc_strdup(mem_ctx, "");
	char *save = NULL, *comp, *next;
	int dirfd = -1;
	size_t idx = 0;
	NTSTATUS st = NT_STATUS_OK;

	memset(out, 0, sizeof(*out));
	if (work == NULL || real == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (path[0] == '\0') {
		out->path = real;
		out->exists = true;
		out->parent_exists = true;
		return NT_STATUS_OK;
	}
	if (!vfs_fault_armed(VFS_FAULT_OPEN)) {
		bool absent = exact_absent;

		if ((!exact_absent &&
		     resolve_exact(mem_ctx, sh, path, out, &absent)) ||
		    resolve_in_exact_parent(mem_ctx, sh, path, absent, out)) {
			return NT_STATUS_OK;
		}
	}
	dirfd = vfs_openat_beneath(sh, sh->root_fd, "",
				   O_PATH | O_DIRECTORY, 0);
	if (dirfd == -1) {
		return vfs_map_errno(errno);
	}
	comp = strtok_r(work, "/", &save);
	while (comp != NULL) {
		char *rc;
		bool found;

		next = strtok_r(NULL, "/", &save);
		st = resolve_component(mem_ctx, sh, dirfd, comp, next == NULL,
				       false, &rc, &found, NULL);
		if (!NT_STATUS_IS_OK(st)) {
			break;
		}
		if (vfs_name_in_list(sh->veto_files, comp, sh->case_sensitive) ||
		    (rc != NULL && vfs_name_in_list(sh->veto_files, rc,
						    sh->case_sensitive))) {
			/* `veto files`: as if it were not there, and it
			 * cannot be made (Samba: NAME_NOT_FOUND for the
			 * last component, PATH_NOT_FOUND on the way). */
			st = next == NULL ? NT_STATUS_OBJECT_NAME_NOT_FOUND
					  : NT_STATUS_OBJECT_PATH_NOT_FOUND;
			break;
		}
		real = talloc_asprintf(mem_ctx, "%s%s%s", real,
				       real[0] ? "/" : "",
				       rc != NULL ? rc : comp);
		if (real == NULL) {
			st = NT_STATUS_NO_MEMORY;
			break;
		}
		if (next == NULL) {
			out->exists = found;
			out->parent_exists = true;
			break;
		}
		if (!found) {
			/* A missing directory on the way. */
			st = NT_STATUS_OBJECT_PATH_NOT_FOUND;
			break;
		}
		{
			/* From the root, as resolve_exact: a relative link
			 * to a sibling ("../x") is inside the share even
			 * where it is outside dirfd. */
			int nfd = vfs_openat_beneath(sh, sh->root_fd, real,
						     O_PATH | O_DIRECTORY, 0);
			if (nfd == -1) {
				st = walk_dir_error(mem_ctx, dirfd, rc, real,
						    idx, out);
				break;
			}
			close(dirfd);
			dirfd = nfd;
		}
		comp = next;
		idx++;
	}
	close(dirfd);
	out->path = real;
	return st;
}

uint32_t vfs_reparse_tag_of_mode(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFLNK:
		return IO_REPARSE_TAG_SYMLINK;
	case S_IFIFO:
	case S_IFSOCK:
	case S_IFCHR:
	case S_IFBLK:
		return IO_REPARSE_TAG_NFS;
	default:
		return 0;
	}
}

static uint64_t ts_nttime(const struct statx_timestamp *t)
{
	struct timespec ts = {.tv_sec = t->tv_sec, .tv_nsec = t->tv_nsec};
	return nttime_from_timespec(&ts);
}

void vfs_statx_to_info(const struct statx *stx, struct vfs_file_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->access_time = ts_nttime(&stx->stx_atime);
	fi->write_time = ts_nttime(&stx->stx_mtime);
	fi->inode_ctime = ts_nttime(&stx->stx_ctime);
	/* Without a create time stored in user.DOSATTRIB (dosmode.c): the
	 * birth time where the file system keeps one, else the oldest time
	 * we know, as Samba.  Never the oldest of all where a birth time
	 * exists: a client that sets an old write time must not move the
	 * creation time with it (issue 35 item 5).  ChangeTime is the write
	 * time, since ctime cannot be set and clients expect to read back
	 * what they set (a ChangeTime a client set is kept by the locking DB
	 * while the file is open: share_mode_file_state). */
	if (stx->stx_mask & STATX_BTIME) {
		fi->create_time = ts_nttime(&stx->stx_btime);
	} else {
		fi->create_time = fi->inode_ctime < fi->write_time
					  ? fi->inode_ctime
					  : fi->write_time;
		if (fi->access_time < fi->create_time) {
			fi->create_time = fi->access_time;
		}
	}
	fi->change_time = fi->write_time;
	fi->is_dir = S_ISDIR(stx->stx_mode);
	fi->reparse_tag = vfs_reparse_tag_of_mode(stx->stx_mode);
	/* A symbolic link holds no data, as an NTFS one (its size is its
	 * target's length, which FSCTL_GET_REPARSE_POINT gives). */
	fi->end_of_file = fi->is_dir || S_ISLNK(stx->stx_mode)
				  ? 0
				  : stx->stx_size;
	fi->allocation_size = fi->is_dir || S_ISLNK(stx->stx_mode)
				      ? 0
				      : stx->stx_blocks * 512;
	fi->nlink = stx->stx_nlink;
	fi->ino = stx->stx_ino;
	fi->dev = ((uint64_t)stx->stx_dev_major << 32) | stx->stx_dev_minor;
	fi->file_id = stx->stx_ino;
	fi->mode = stx->stx_mode;
	fi->uid = stx->stx_uid;
	fi->gid = stx->stx_gid;
}

NTSTATUS vfs_fstat_info(int fd, struct vfs_file_info *fi)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT,
		  STATX_BASIC_STATS | STATX_BTIME, &stx) != 0) {
		return vfs_map_errno(errno);
	}
	vfs_statx_to_info(&stx, fi);
	return NT_STATUS_OK;
}

int vfs_reopen_append(int fd)
{
	char p[32];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	/* a device opened for writing may be such an fd: no waiting */
	return vfs_open_settle(open(p, O_WRONLY | O_APPEND | O_CLOEXEC |
					       O_NONBLOCK),
			       O_WRONLY | O_APPEND);
}

bool vfs_ea_is_ea(const char *xattr_name)
{
	return strncmp(xattr_name, "user.", 5) == 0 &&
	       strcmp(xattr_name, "user.DOSATTRIB") != 0 &&
	       strncmp(xattr_name, "user.DosStream.", 15) != 0;
}

ssize_t vfs_ea_flist(int fd, char *list, size_t size)
{
	ssize_t n = flistxattr(fd, list, size);
	char proc[32];

	if (n < 0 && errno == EBADF) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		n = listxattr(proc, list, size);
	}
	return n;
}

ssize_t vfs_ea_fget(int fd, const char *name, void *val, size_t size)
{
	ssize_t n = fgetxattr(fd, name, val, size);
	char proc[32];

	if (n < 0 && errno == EBADF) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		n = getxattr(proc, name, val, size);
	}
	return n;
}


/*
 * Linux 6.13's getxattrat/listxattrat: an entry's xattrs by dirfd and
 * name, one short path walk.  Older kernels (6.1 among them) answer
 * ENOSYS once and the /proc/self/fd/DIRFD/NAME path is used from then on
 * (a walk through /proc, the magic link and the name: about twice the
 * kernel time per entry of a large listing).
 */
#ifndef __NR_getxattrat
#define __NR_getxattrat 464
#endif
#ifndef __NR_listxattrat
#define __NR_listxattrat 465
#endif

struct xattrat_args {	/* the kernel's struct xattr_args */
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static _Atomic bool xattrat_missing;

static bool xattr_proc_path(char *buf, size_t size, int dirfd,
			    const char *name)
{
	int n = snprintf(buf, size, "/proc/self/fd/%d/%s", dirfd, name);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

ssize_t vfs_xattr_list_at(int dirfd, const char *name, char *list,
			  size_t size)
{
	char proc[64 + NAME_MAX + 1];

	if (!xattrat_missing) {
		long n = syscall(__NR_listxattrat, dirfd, name,
				 AT_SYMLINK_NOFOLLOW, list, size);

		if (n >= 0 || errno != ENOSYS) {
			return n;
		}
		xattrat_missing = true;
	}
	if (!xattr_proc_path(proc, sizeof(proc), dirfd, name)) {
		return -1;
	}
	return llistxattr(proc, list, size);
}

ssize_t vfs_xattr_get_at(int dirfd, const char *name, const char *attr,
			 void *val, size_t size)
{
	char proc[64 + NAME_MAX + 1];

	if (!xattrat_missing) {
		struct xattrat_args args = {
			.value = (uint64_t)(uintptr_t)val,
			.size = (uint32_t)(size > UINT32_MAX ? UINT32_MAX
							     : size)};
		long n = syscall(__NR_getxattrat, dirfd, name,
				 AT_SYMLINK_NOFOLLOW, attr, &args,
				 sizeof(args));

		if (n >= 0 || errno != ENOSYS) {
			return n;
		}
		xattrat_missing = true;
	}
	if (!xattr_proc_path(proc, sizeof(proc), dirfd, name)) {
		return -1;
	}
	return lgetxattr(proc, attr, val, size);
}

/*
 * FileEaInformation.EaSize of the EAs among list (n bytes, a listxattr
 * answer; n < 0: none could be read): each value's size from fd, or
 * when fd is -1 from the entry name of dirfd.
 */
static uint32_t ea_size_of(const char *list, ssize_t n, int fd, int dirfd,
			   const char *name)
{
	uint32_t total = 0;
	ssize_t i = 0;

	while (n > 0 && i < n) {
		const char *ea = list + i;
		size_t len = strlen(ea);
		ssize_t v;
		uint32_t e;

		i += (ssize_t)len + 1;
		if (!vfs_ea_is_ea(ea)) {
			continue;
		}
		/* NextEntryOffset(4) Flags(1) EaNameLength(1)
		 * EaValueLength(2) EaName NUL EaValue */
		v = fd != -1 ? vfs_ea_fget(fd, ea, NULL, 0)
			     : vfs_xattr_get_at(dirfd, name, ea, NULL, 0);
		e = 8 + (uint32_t)(len - 5) + 1 + (uint32_t)(v > 0 ? v : 0);
		total += (e + 3) & ~3u;
	}
	return total;
}

uint32_t vfs_ea_size(int fd)
{
	char list[4096];

	return ea_size_of(list, vfs_ea_flist(fd, list, sizeof(list)), fd, -1,
			  NULL);
}

uint32_t vfs_ea_size_list_at(const char *list, ssize_t n, int dirfd,
			     const char *name)
{
	return ea_size_of(list, n, -1, dirfd, name);
}
