/*
 * vfs_recycle: a deleted file moves into a repository on the share
 * instead of going (vfs_recycle(8) semantics, checked side by side with
 * Samba 4.17's module: see testsuite/integration/test_vfs_modules.py).
 *
 * Options, read at tree connect (module.h):
 *   recycle:repository   where files go, share-relative, % macros done by
 *                        the caller (default .recycle); an absolute path
 *                        inside the share is taken relative to it
 *   recycle:keeptree     keep the file's directory path under it
 *   recycle:versions     a name already there: "Copy #n of NAME"
 *   recycle:noversions   names (wildcards) that replace instead
 *   recycle:touch, recycle:touch_mtime   the moved file's atime / its
 *                        mtime and atime become now
 *   recycle:exclude, recycle:exclude_dir   names, and directories on the
 *                        way (any component), that are deleted for real
 *   recycle:minsize, recycle:maxsize   bytes; outside them: deleted
 *   recycle:directory_mode, recycle:subdir_mode   modes of the
 *                        repository's first component and of every
 *                        directory made below it
 *
 * As in Samba: directories are removed for real (only files are kept);
 * a file inside the repository is deleted for real; when the repository
 * cannot be made or the move fails, the file is deleted for real (the
 * client asked for a delete) and the reason is logged.
 *
 * Every step is anchored (vfs/anchor.h): the directories are made with
 * mkdirat under the share's rules, the move is a renameat2 between
 * parent fds opened beneath the share's root, checked to still be the
 * file the open meant.  All of it runs in the pool thread as the user
 * whose delete it is, so the repository and what is in it belong to
 * that user and the kernel checks each step.
 */
#include "vfs/module.h"
#include "vfs/anchor.h"
#include "vfs/name.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As Samba's: "Copy #n of " names are tried up to this many. */
#define RECYCLE_MAX_VERSIONS 10000
#define RECYCLE_PATH_MAX 4096

struct recycle_conf {
	char *repository;	/* share-relative, no trailing '/', not "" */
	bool keeptree, versions, touch, touch_mtime;
	const char **exclude, **exclude_dir, **noversions;
	uint64_t minsize, maxsize;	/* 0: no bound */
	mode_t dir_mode, subdir_mode;
};

/* Normalise the repository name: share-relative, no "." or empty
 * components, no ".." (which could only leave the share). */
static char *recycle_repo_path(TALLOC_CTX *mem_ctx, const char *repo,
			       const struct vfs_share *sh)
{
	size_t plen = sh->path != NULL ? strlen(sh->path) : 0;
	char *work, *save = NULL, *comp, *out;

	if (repo[0] == '/') {
		/* An absolute repository is kept only inside the share:
		 * every move here is a rename beneath the share's root. */
		while (plen > 1 && sh->path[plen - 1] == '/') {
			plen--;
		}
		if (plen == 0 || strncmp(repo, sh->path, plen) != 0 ||
		    (repo[plen] != '/' && repo[plen] != '\0')) {
			return NULL;
		}
		repo += plen;
	}
	work = talloc_strdup(mem_ctx, repo);
	out = talloc_strdup(mem_ctx, "");
	if (work == NULL || out == NULL) {
		return NULL;
	}
	for (comp = strtok_r(work, "/", &save); comp != NULL;
	     comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0) {
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			return NULL;
		}
		out = talloc_asprintf_append(out, "%s%s", out[0] ? "/" : "",
					     comp);
		if (out == NULL) {
			return NULL;
		}
	}
	talloc_free(work);
	return out[0] != '\0' ? out : NULL;
}

static NTSTATUS recycle_connect(TALLOC_CTX *mem_ctx,
				const struct vfs_module_params *p,
				const struct vfs_share *sh, void **priv)
{
	struct recycle_conf *c = talloc_zero(mem_ctx, struct recycle_conf);
	const char *repo;
	int mode;

	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	repo = p->str(p->ctx, c, "recycle", "repository");
	if (repo == NULL || repo[0] == '\0') {
		repo = ".recycle";
	}
	/* As Samba's module: the repository's macros are expanded. */
	repo = p->subst(p->ctx, c, repo);
	if (repo == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	c->repository = recycle_repo_path(c, repo, sh);
	if (c->repository == NULL) {
		/* Deleting for real would lose what the admin meant to
		 * keep: refuse the tree connect and say why. */
		DBG_ERR("recycle:repository = %s: not a directory inside "
			"the share %s\n", repo, sh->path ? sh->path : "");
		talloc_free(c);
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	c->keeptree = p->boolean(p->ctx, "recycle", "keeptree", false);
	c->versions = p->boolean(p->ctx, "recycle", "versions", false);
	c->touch = p->boolean(p->ctx, "recycle", "touch", false);
	c->touch_mtime = p->boolean(p->ctx, "recycle", "touch_mtime", false);
	c->exclude = p->list(p->ctx, c, "recycle", "exclude");
	c->exclude_dir = p->list(p->ctx, c, "recycle", "exclude_dir");
	c->noversions = p->list(p->ctx, c, "recycle", "noversions");
	c->minsize = p->bytes(p->ctx, "recycle", "minsize", 0);
	c->maxsize = p->bytes(p->ctx, "recycle", "maxsize", 0);
	mode = p->integer(p->ctx, "recycle", "directory_mode", 0700);
	c->dir_mode = (mode_t)mode & 07777;
	mode = p->integer(p->ctx, "recycle", "subdir_mode", (int)c->dir_mode);
	c->subdir_mode = (mode_t)mode & 07777;
	if (c->exclude == NULL || c->exclude_dir == NULL ||
	    c->noversions == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	*priv = c;
	return NT_STATUS_OK;
}

/* Samba matches these lists without regard to case. */
static bool recycle_match(const char *const *list, const char *name)
{
	for (; *list != NULL; list++) {
		if (vfs_name_matches(*list, name, false)) {
			return true;
		}
	}
	return false;
}

/* Any directory component of dir (a share-relative path) in the list. */
static bool recycle_dir_excluded(const struct recycle_conf *c,
				 const char *dir)
{
	char comp[256];

	while (*dir != '\0') {
		const char *slash = strchr(dir, '/');
		size_t n = slash ? (size_t)(slash - dir) : strlen(dir);

		if (n > 0 && n < sizeof(comp)) {
			memcpy(comp, dir, n);
			comp[n] = '\0';
			if (recycle_match(c->exclude_dir, comp)) {
				return true;
			}
		}
		dir += n;
		if (*dir == '/') {
			dir++;
		}
	}
	return false;
}

/* path is the repository or inside it. */
static bool recycle_in_repo(const struct recycle_conf *c, const char *path)
{
	size_t n = strlen(c->repository);

	return strncmp(path, c->repository, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* Make every directory of rel (a share-relative path) that is missing:
 * as Samba's module, the first component with directory_mode and every
 * one after it (the rest of the repository's own path, %U say, and the
 * tree keeptree keeps) with subdir_mode. */
static int recycle_mkdirs(const struct recycle_conf *c,
			  const struct vfs_share *sh, int root_fd,
			  const char *rel)
{
	char buf[RECYCLE_PATH_MAX];
	size_t len = strlen(rel), i;
	unsigned depth = 0;

	if (len >= sizeof(buf)) {
		return ENAMETOOLONG;
	}
	memcpy(buf, rel, len + 1);
	for (i = 0; i <= len; i++) {
		struct stat st;
		NTSTATUS s;

		if (buf[i] != '/' && buf[i] != '\0') {
			continue;
		}
		buf[i] = '\0';
		depth++;
		if (vfs_stat_beneath(sh, root_fd, buf, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				return ENOTDIR;
			}
		} else if (errno != ENOENT) {
			return errno;
		} else {
			s = vfs_mkdir_anchored(sh, root_fd, buf,
					       depth == 1 ? c->dir_mode
							  : c->subdir_mode);
			/* Another delete may have made it meanwhile. */
			if (!NT_STATUS_IS_OK(s) &&
			    s != NT_STATUS_OBJECT_NAME_COLLISION) {
				return EACCES;
			}
		}
		if (i < len) {
			buf[i] = '/';
		}
	}
	return 0;
}

static bool recycle_exists(const struct vfs_share *sh, int root_fd,
			   const char *path)
{
	const char *base;
	struct stat st;
	int dfd = vfs_open_parent(sh, root_fd, path, &base);
	bool there;

	if (dfd == -1) {
		return false;
	}
	there = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	close(dfd);
	return there;
}

/* recycle:touch sets the moved file's atime to now; recycle:touch_mtime
 * its mtime and, as in Samba's module, its atime too. */
static void recycle_touch(const struct recycle_conf *c,
			  const struct vfs_share *sh, int root_fd,
			  const char *path)
{
	struct timespec ts[2] = {
		{.tv_nsec = UTIME_NOW},
		{.tv_nsec = c->touch_mtime ? UTIME_NOW : UTIME_OMIT},
	};
	const char *base;
	int dfd;

	if (!c->touch && !c->touch_mtime) {
		return;
	}
	dfd = vfs_open_parent(sh, root_fd, path, &base);
	if (dfd == -1) {
		return;
	}
	if (utimensat(dfd, base, ts, AT_SYMLINK_NOFOLLOW) != 0) {
		DBG_NOTICE("recycle: touching %s: %s\n", path,
			   strerror(errno));
	}
	close(dfd);
}

/* The name the file gets in the repository; NULL when out of memory. */
static char *recycle_target(TALLOC_CTX *mem_ctx, const struct recycle_conf *c,
			    const struct vfs_call *call,
			    const struct vfs_share *sh, int root_fd,
			    const char *dir, const char *base)
{
	char *bin = talloc_asprintf(mem_ctx, "%s%s%s", c->repository,
				    c->keeptree && dir[0] ? "/" : "",
				    c->keeptree ? dir : "");
	char *t;
	unsigned i;

	if (bin == NULL) {
		return NULL;
	}
	t = talloc_asprintf(mem_ctx, "%s/%s", bin, base);
	if (t == NULL || !recycle_exists(sh, root_fd, t)) {
		return t;
	}
	if (!c->versions || recycle_match(c->noversions, base)) {
		/* One copy per name: the older one goes for real. */
		NTSTATUS s = vfs_next_unlink(call, sh, root_fd, t, false,
					     NULL);

		DBG_INFO("recycle: removing old %s from the repository: "
			 "%s\n", t, nt_errstr(s));
		return t;
	}
	for (i = 1; i < RECYCLE_MAX_VERSIONS; i++) {
		talloc_free(t);
		t = talloc_asprintf(mem_ctx, "%s/Copy #%u of %s", bin, i, base);
		if (t == NULL || !recycle_exists(sh, root_fd, t)) {
			return t;
		}
	}
	return t;
}

static NTSTATUS recycle_unlink(const struct vfs_call *call,
			       const struct vfs_share *sh, int root_fd,
			       const char *path, bool is_dir,
			       const struct vfs_file_id *want)
{
	const struct recycle_conf *c = call->priv;
	TALLOC_CTX *tmp;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir, *target;
	struct stat st;
	const char *p;
	NTSTATUS s;
	int err;

	if (is_dir || recycle_in_repo(c, path) ||
	    recycle_match(c->exclude, base)) {
		return vfs_next_unlink(call, sh, root_fd, path, is_dir, want);
	}
	tmp = talloc_new(NULL);
	dir = tmp ? talloc_strndup(tmp, path,
				   slash ? (size_t)(slash - path) : 0)
		  : NULL;
	if (dir == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	if (recycle_dir_excluded(c, dir)) {
		goto purge;
	}
	{
		const char *b;
		int dfd = vfs_open_parent(sh, root_fd, path, &b);

		err = dfd == -1 ? errno
				: fstatat(dfd, b, &st, AT_SYMLINK_NOFOLLOW) == 0
					  ? 0
					  : errno;
		if (dfd != -1) {
			close(dfd);
		}
	}
	if (err != 0) {
		goto purge;
	}
	if ((c->maxsize > 0 && (uint64_t)st.st_size > c->maxsize) ||
	    (c->minsize > 0 && (uint64_t)st.st_size < c->minsize)) {
		DBG_INFO("recycle: %s is %lld bytes, outside min/maxsize: "
			 "deleted\n", path, (long long)st.st_size);
		goto purge;
	}
	p = c->keeptree && dir[0] != '\0'
		    ? talloc_asprintf(tmp, "%s/%s", c->repository, dir)
		    : c->repository;
	if (p == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	err = recycle_mkdirs(c, sh, root_fd, p);
	if (err != 0) {
		DBG_WARNING("recycle: cannot make the repository for %s: "
			    "%s; deleted\n", path, strerror(err));
		goto purge;
	}
	target = recycle_target(tmp, c, call, sh, root_fd, dir, base);
	if (target == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	s = vfs_rename_anchored(sh, root_fd, path, target, false,
				RENAME_NOREPLACE, want);
	if (s == NT_STATUS_OBJECT_NAME_NOT_FOUND) {
		/* Not the file the open meant any more: as the POSIX
		 * call, touch nothing. */
		talloc_free(tmp);
		return s;
	}
	if (!NT_STATUS_IS_OK(s)) {
		DBG_WARNING("recycle: moving %s to %s: %s; deleted\n", path,
			    target, nt_errstr(s));
		goto purge;
	}
	recycle_touch(c, sh, root_fd, target);
	DBG_INFO("recycle: %s moved to %s\n", path, target);
	talloc_free(tmp);
	return NT_STATUS_OK;
purge:
	talloc_free(tmp);
	return vfs_next_unlink(call, sh, root_fd, path, is_dir, want);
}

const struct vfs_module vfs_module_recycle = {
	.name = "recycle",
	.connect = recycle_connect,
	.unlink = recycle_unlink,
};
