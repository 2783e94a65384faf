/*
 * Symbolic links as reparse points (design in symlink.h).
 */
#include "vfs/symlink.h"
#include "vfs/vfs_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* readlinkat into a talloc string. */
static NTSTATUS readlink_talloc(TALLOC_CTX *mem_ctx, int dirfd,
				const char *name, char **out)
{
	char buf[PATH_MAX + 1];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf));

	if (n < 0) {
		return vfs_map_errno(errno);
	}
	if ((size_t)n >= sizeof(buf) || n == 0) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	*out = talloc_strndup(mem_ctx, buf, (size_t)n);
	return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

/*
 * The components of path ('/' separated) with "." dropped and ".."
 * taking one back, into comps (room for strlen(path) / 2 + 1); -1 when
 * a ".." climbs above the start.  path is modified (split in place).
 */
static int split_lexical(char *path, char **comps)
{
	char *save = NULL, *c;
	int n = 0;

	for (c = strtok_r(path, "/", &save); c != NULL;
	     c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0) {
			continue;
		}
		if (strcmp(c, "..") == 0) {
			if (n == 0) {
				return -1;
			}
			n--;
			continue;
		}
		comps[n++] = c;
	}
	return n;
}

/* The share root's path as the kernel resolved it (its fd's), or the
 * configured one; on mem_ctx. */
static char *share_root_path(TALLOC_CTX *mem_ctx, const struct vfs_share *sh)
{
	char proc[32], buf[PATH_MAX + 1];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", sh->root_fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '/') {
		return talloc_strndup(mem_ctx, buf, (size_t)n);
	}
	return talloc_strdup(mem_ctx, sh->path != NULL ? sh->path : "/");
}

/*
 * abs (absolute, normalized comps/na) below root (comps/nr): the
 * share-relative components start at *first.
 */
static bool below(char **root, int nr, char **abs, int na, int *first)
{
	int i;

	if (na < nr) {
		return false;
	}
	for (i = 0; i < nr; i++) {
		if (strcmp(root[i], abs[i]) != 0) {
			return false;
		}
	}
	*first = nr;
	return true;
}

/*
 * An absolute target inside the share, as a path relative to the
 * directory of link_path; NULL when it is not inside (or no memory).
 */
static char *absolute_to_relative(TALLOC_CTX *mem_ctx,
				  const struct vfs_share *sh,
				  const char *target, const char *link_path)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char *t = talloc_strdup(tmp, target);
	char *r = share_root_path(tmp, sh);
	char *l = talloc_strdup(tmp, link_path);
	char **tc, **rc, **lc;
	int nt, nr, nl, first = 0, common, i;
	char *out = NULL;

	if (t == NULL || r == NULL || l == NULL) {
		goto done;
	}
	tc = talloc_array(tmp, char *, strlen(t) / 2 + 2);
	rc = talloc_array(tmp, char *, strlen(r) / 2 + 2);
	lc = talloc_array(tmp, char *, strlen(l) / 2 + 2);
	if (tc == NULL || rc == NULL || lc == NULL) {
		goto done;
	}
	nt = split_lexical(t, tc);
	nr = split_lexical(r, rc);
	nl = split_lexical(l, lc) - 1;	/* the link's directory */
	if (nt < 0 || nr < 0 || nl < 0 || !below(rc, nr, tc, nt, &first)) {
		goto done;
	}
	tc += first;
	nt -= first;
	for (common = 0; common < nt && common < nl &&
			 strcmp(tc[common], lc[common]) == 0;
	     common++) {
	}
	out = talloc_strdup(tmp, "");
	for (i = common; out != NULL && i < nl; i++) {
		out = talloc_asprintf_append_buffer(out, "%s..",
						    out[0] ? "/" : "");
	}
	for (i = common; out != NULL && i < nt; i++) {
		out = talloc_asprintf_append_buffer(out, "%s%s",
						    out[0] ? "/" : "", tc[i]);
	}
	if (out != NULL && out[0] == '\0') {
		out = talloc_strdup(tmp, ".");
	}
	out = talloc_steal(mem_ctx, out);
done:
	talloc_free(tmp);
	return out;
}

NTSTATUS vfs_link_target(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			 int dirfd, const char *name, const char *link_path,
			 char **target, bool *relative)
{
	char *t = NULL, *rel;
	NTSTATUS status = readlink_talloc(mem_ctx, dirfd, name, &t);

	*target = NULL;
	*relative = false;
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (t[0] != '/') {
		*target = t;
		*relative = true;
		return NT_STATUS_OK;
	}
	rel = absolute_to_relative(mem_ctx, sh, t, link_path);
	if (rel != NULL) {
		talloc_free(t);
		*target = rel;
		*relative = true;
		return NT_STATUS_OK;
	}
	*target = t;
	return NT_STATUS_OK;
}

bool vfs_link_target_inside(const char *link_path, const char *target)
{
	const char *p = link_path;
	long depth = 0;
	size_t n;

	if (target[0] == '/' || target[0] == '\0') {
		return false;
	}
	/* the components of the link's directory */
	while ((p = strchr(p, '/')) != NULL) {
		depth++;
		p++;
	}
	for (p = target; *p != '\0'; p += n + (p[n] == '/')) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0) {
				return false;
			}
			continue;
		}
		depth++;
	}
	return true;
}

static bool entry_is(const struct stat *sb, const struct vfs_file_id *want)
{
	return want == NULL ||
	       (((uint64_t)major(sb->st_dev) << 32 | minor(sb->st_dev)) ==
			want->dev &&
		(uint64_t)sb->st_ino == want->ino);
}

/* Put back an empty entry where one was taken away for a link that
 * could not be made. */
static void put_back(int dfd, const char *base, const struct stat *was)
{
	int fd;

	if (S_ISDIR(was->st_mode)) {
		(void)mkdirat(dfd, base, was->st_mode & 07777);
		return;
	}
	if (S_ISREG(was->st_mode)) {
		fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    was->st_mode & 07777);
		if (fd != -1) {
			close(fd);
		}
	}
	/* a link whose new target failed: lost, as its replacement would
	 * have removed it anyway */
}

NTSTATUS vfs_link_replace(const struct vfs_share *sh, int root_fd,
			  const char *path, const struct vfs_file_id *want,
			  const char *target)
{
	const char *base;
	struct stat sb;
	NTSTATUS status = NT_STATUS_OK;
	int dfd = vfs_open_parent(sh, root_fd, path, &base);
	int flags = 0;

	if (dfd == -1) {
		return vfs_map_errno(errno);
	}
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !entry_is(&sb, want)) {
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
		goto out;
	}
	switch (sb.st_mode & S_IFMT) {
	case S_IFREG:
		if (sb.st_size != 0) {
			status = NT_STATUS_NOT_SUPPORTED;
			goto out;
		}
		break;
	case S_IFDIR:
		flags = AT_REMOVEDIR;
		break;
	case S_IFLNK:
		break;
	default:
		status = NT_STATUS_IO_REPARSE_TAG_MISMATCH;
		goto out;
	}
	/* No name of ours in between (a CHANGE_NOTIFY watcher would see
	 * it): the entry goes and the link takes its name.  rmdir itself
	 * says whether a directory is still empty. */
	if (unlinkat(dfd, base, flags) != 0) {
		status = errno == ENOTEMPTY || errno == EEXIST
				 ? NT_STATUS_DIRECTORY_NOT_EMPTY
				 : vfs_map_errno(errno);
		goto out;
	}
	if (symlinkat(target, dfd, base) != 0) {
		status = vfs_map_errno(errno);
		put_back(dfd, base, &sb);
	}
out:
	close(dfd);
	return status;
}

NTSTATUS vfs_link_unreplace(const struct vfs_share *sh, int root_fd,
			    const char *path, const struct vfs_file_id *want,
			    mode_t file_mode, mode_t dir_mode)
{
	const char *base;
	struct stat sb, to;
	NTSTATUS status = NT_STATUS_OK;
	bool dir;
	int dfd = vfs_open_parent(sh, root_fd, path, &base);
	int fd;

	if (dfd == -1) {
		return vfs_map_errno(errno);
	}
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !entry_is(&sb, want) || !S_ISLNK(sb.st_mode)) {
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
		goto out;
	}
	/* A directory link leaves a directory, as an NTFS directory with
	 * a reparse point stays one. */
	dir = vfs_stat_beneath(sh, root_fd, path, &to) == 0 &&
	      S_ISDIR(to.st_mode);
	if (unlinkat(dfd, base, 0) != 0) {
		status = vfs_map_errno(errno);
		goto out;
	}
	if (dir) {
		if (mkdirat(dfd, base, dir_mode) != 0) {
			status = vfs_map_errno(errno);
		}
		goto out;
	}
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    file_mode);
	if (fd == -1) {
		status = vfs_map_errno(errno);
	} else {
		close(fd);
	}
out:
	close(dfd);
	return status;
}
