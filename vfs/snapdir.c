/*
 * Snapshot directories shared by shadow_copy2 and snapper (design in
 * snapdir.h).
 */
#include "vfs/snapdir.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *vfs_snapdir_trim(TALLOC_CTX *mem_ctx, const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/') {
		n--;
	}
	return talloc_strndup(mem_ctx, path, n);
}

const char *vfs_snapdir_below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0) {
		return path[0] == '/' ? path + 1 : NULL;
	}
	if (strncmp(path, prefix, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/')) {
		return NULL;
	}
	return path[n] == '/' ? path + n + 1 : path + n;
}

char *vfs_snapdir_canon(TALLOC_CTX *mem_ctx, const char *path)
{
	char real[PATH_MAX];

	if (path == NULL) {
		return NULL;
	}
	return vfs_snapdir_trim(mem_ctx, realpath(path, real) ? real : path);
}

char *vfs_snapdir_share_path(TALLOC_CTX *mem_ctx, const struct vfs_share *sh)
{
	return vfs_snapdir_canon(mem_ctx, sh->path != NULL ? sh->path : "/");
}

int vfs_snapdir_openat(int dir_fd, const char *path, int flags)
{
	/* Inside a snapshot directory: beneath it, symlinks only within. */
	const struct vfs_share inside = {.follow_symlinks = true};

	return vfs_openat_beneath(&inside, dir_fd, path, flags, 0);
}

/* The snapshot directory, readable (a DIR stream), or NULL and errno. */
static DIR *snapdir_open(const struct vfs_snapdir *d,
			 const struct vfs_share *sh)
{
	int fd;
	DIR *dir;

	if (d->in_share != NULL) {
		fd = vfs_openat_beneath(sh, sh->root_fd, d->in_share,
					O_RDONLY | O_DIRECTORY, 0);
	} else {
		fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
					   (d->nofollow ? O_NOFOLLOW : 0));
	}
	if (fd == -1) {
		return NULL;
	}
	dir = fdopendir(fd);
	if (dir == NULL) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return dir;
}

static bool snapdir_dot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static int snapdir_cmp_asc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int snapdir_cmp_desc(const void *a, const void *b)
{
	return snapdir_cmp_asc(b, a);
}

/*
 * The next snapshot of the directory: its time and root (on mem_ctx,
 * a context of the caller's for this loop alone: what the previous
 * entry left there is freed first), true; false at the end.  The
 * entries that are not snapshots are passed over.
 */
static bool snapdir_next(const struct vfs_snapdir *d, DIR *dir,
			 TALLOC_CTX *mem_ctx, int64_t *t, char **root)
{
	struct dirent *de;

	while ((de = readdir(dir)) != NULL) {
		talloc_free_children(mem_ctx);
		if (!snapdir_dot(de->d_name) &&
		    d->entry(d->priv, dirfd(dir), de->d_name, mem_ctx, t,
			     root)) {
			return true;
		}
	}
	return false;
}

NTSTATUS vfs_snapdir_list(const struct vfs_snapdir *d, TALLOC_CTX *mem_ctx,
			  const struct vfs_share *sh, int64_t **times,
			  size_t *n)
{
	DIR *dir = snapdir_open(d, sh);
	TALLOC_CTX *tmp;
	int64_t *t = NULL;
	size_t cnt = 0;
	char *root;
	int64_t when;

	*times = NULL;
	*n = 0;
	if (dir == NULL) {
		/* No snapshot taken yet (or none this user may see): no
		 * previous versions, as Samba answers. */
		DBG_INFO("snapshots: %s: %s\n", d->path, strerror(errno));
		return NT_STATUS_OK;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		closedir(dir);
		return NT_STATUS_NO_MEMORY;
	}
	while (cnt < VFS_SNAPDIR_MAX &&
	       snapdir_next(d, dir, tmp, &when, &root)) {
		if (cnt % 32 == 0) {
			int64_t *nt = talloc_realloc(mem_ctx, t, int64_t,
						     cnt + 32);

			if (nt == NULL) {
				closedir(dir);
				talloc_free(tmp);
				talloc_free(t);
				return NT_STATUS_NO_MEMORY;
			}
			t = nt;
		}
		t[cnt++] = when;
	}
	closedir(dir);
	talloc_free(tmp);
	if (d->sort != VFS_SNAPDIR_SORT_NONE && cnt > 1) {
		qsort(t, cnt, sizeof(*t),
		      d->sort == VFS_SNAPDIR_SORT_ASC ? snapdir_cmp_asc
						      : snapdir_cmp_desc);
	}
	*times = t;
	*n = cnt;
	return NT_STATUS_OK;
}

NTSTATUS vfs_snapdir_root(const struct vfs_snapdir *d,
			  const struct vfs_share *sh, int64_t t, int *out)
{
	DIR *dir = snapdir_open(d, sh);
	NTSTATUS status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
	TALLOC_CTX *tmp;
	size_t seen = 0;
	char *root;
	int64_t when;

	*out = -1;
	if (dir == NULL) {
		return errno == ENOENT ? NT_STATUS_OBJECT_NAME_NOT_FOUND
				       : vfs_map_errno(errno);
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		closedir(dir);
		return NT_STATUS_NO_MEMORY;
	}
	/* The same snapshots the listing reads, no more. */
	while (seen++ < VFS_SNAPDIR_MAX &&
	       snapdir_next(d, dir, tmp, &when, &root)) {
		int fd;

		if (when != t) {
			continue;
		}
		fd = vfs_snapdir_openat(dirfd(dir), root,
					O_PATH | O_DIRECTORY);
		if (fd == -1) {
			/* The share did not exist yet at that time. */
			status = errno == ENOENT
					 ? NT_STATUS_OBJECT_PATH_NOT_FOUND
					 : vfs_map_errno(errno);
			break;
		}
		*out = fd;
		status = NT_STATUS_OK;
		break;
	}
	talloc_free(tmp);
	closedir(dir);
	return status;
}
