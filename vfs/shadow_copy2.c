/*
 * vfs_shadow_copy2: file-system snapshots (btrfs/ZFS/LVM snapshot
 * directories, snapper's layout) as Windows "Previous Versions"
 * (vfs_shadow_copy2(8) semantics; checked side by side with Samba 4.17:
 * testsuite/integration/test_vfs_modules.py).
 *
 * Layout, as Samba's module reads it:
 *   SNAPDIR/NAME/REL/FILE   is   SHARE/FILE   at the time NAME says,
 * where SNAPDIR is `shadow:snapdir` (default .snapshots; relative to the
 * mount point of the share's file system, `shadow:mountpoint` when set),
 * NAME a directory whose name `shadow:format` (strptime, default
 * @GMT-%Y.%m.%d-%H.%M.%S; `shadow:localtime` for local-time names)
 * parses completely, and REL the share's path below `shadow:basedir`
 * (default the mount point), or `shadow:snapsharepath`.  (Snapper's own
 * layout, numbered snapshots with their dates in info.xml, is Samba's
 * vfs_snapper, which this server does not have.)
 *
 * FSCTL_SRV_ENUMERATE_SNAPSHOTS lists the times (snap_list, ordered by
 * `shadow:sort`); an @GMT path or a TWrp create resolves beneath the
 * snapshot's copy of the share root (snap_root), read-only.
 *
 * Confinement: the snapshot directory is named by the admin; when it
 * lies inside the share (the usual .snapshots at the share's root) it is
 * opened beneath the share's root with the share's openat2 rules, so a
 * user who can write the share cannot point it elsewhere with a symlink;
 * NAME/REL is then opened beneath it with RESOLVE_BENEATH, and the
 * client's path beneath that with the share's rules.  All of it runs in
 * the pool thread with the user's credentials.
 */
#include "vfs/module.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SHADOW_DEFAULT_FORMAT "@GMT-%Y.%m.%d-%H.%M.%S"
/* More snapshots than any file system keeps; bounds what one listing
 * holds (and an FSCTL answer: 50 bytes each). */
#define SHADOW_MAX_SNAPSHOTS 4096

enum shadow_sort { SHADOW_SORT_NONE, SHADOW_SORT_ASC, SHADOW_SORT_DESC };

struct shadow_conf {
	char *snapdir;		/* absolute */
	char *snapdir_in_share;	/* the same, share-relative, when inside */
	char *rel;		/* the share root inside a snapshot */
	char *format;
	bool localtime;
	enum shadow_sort sort;
};

/* Options of Samba's module that change the layout in ways we do not
 * follow: a share that sets one is told so in the log. */
static const char *const shadow_unsupported[] = {
	"snapdirseverywhere", "crossmountpoints", "fixinodes", "sscanf",
	"snapprefix", "delimiter",
};

/* path without trailing slashes ("/" stays). */
static char *shadow_trim(TALLOC_CTX *mem_ctx, const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/') {
		n--;
	}
	return talloc_strndup(mem_ctx, path, n);
}

/* What follows prefix in path ("" when equal), or NULL when path is not
 * prefix or below it. */
static const char *shadow_below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0) {
		return path + 1;
	}
	if (strncmp(path, prefix, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/')) {
		return NULL;
	}
	return path[n] == '/' ? path + n + 1 : path + n;
}

/* An admin-given path with its symlinks resolved when it exists (so it
 * compares with the share's canonical path), else as written. */
static char *shadow_canon(TALLOC_CTX *mem_ctx, const char *path)
{
	char real[PATH_MAX];

	if (path == NULL) {
		return NULL;
	}
	return shadow_trim(mem_ctx, realpath(path, real) ? real : path);
}

/* An absolute snapshot directory: its parent canonical, its own name
 * as written (a symlink there, inside a share, is not followed to
 * decide where it is). */
static char *shadow_canon_dir(TALLOC_CTX *mem_ctx, const char *path)
{
	char *p = shadow_trim(mem_ctx, path);
	char *slash = p ? strrchr(p, '/') : NULL;
	char *parent;

	if (slash == NULL || slash == p || slash[1] == '\0') {
		return p;
	}
	parent = shadow_canon(mem_ctx,
			      talloc_strndup(mem_ctx, p, (size_t)(slash - p)));
	return parent ? talloc_asprintf(mem_ctx, "%s%s", parent, slash) : NULL;
}

/* The mount point of the file system holding path: the highest
 * directory above it on the same device. */
static char *shadow_mountpoint(TALLOC_CTX *mem_ctx, const char *path)
{
	char *cur = talloc_strdup(mem_ctx, path);
	struct stat st, up;

	if (cur == NULL || stat(cur, &st) != 0) {
		return cur;
	}
	while (strcmp(cur, "/") != 0) {
		char *slash = strrchr(cur, '/');
		char *parent = slash == cur ? talloc_strdup(mem_ctx, "/")
					    : talloc_strndup(mem_ctx, cur,
							     (size_t)(slash -
								      cur));

		if (parent == NULL || stat(parent, &up) != 0 ||
		    up.st_dev != st.st_dev) {
			talloc_free(parent);
			break;
		}
		talloc_free(cur);
		cur = parent;
	}
	return cur;
}

static NTSTATUS shadow_connect(TALLOC_CTX *mem_ctx,
			       const struct vfs_module_params *p,
			       const struct vfs_share *sh, void **priv)
{
	struct shadow_conf *c = talloc_zero(mem_ctx, struct shadow_conf);
	char real[PATH_MAX];
	const char *opt, *below;
	char *share, *mount, *base;
	size_t i;

	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* As Samba: the share's canonical path (symlinks resolved). */
	share = shadow_trim(c, sh->path != NULL && realpath(sh->path, real)
				       ? real
				       : (sh->path ? sh->path : "/"));
	opt = p->str(p->ctx, c, "shadow", "mountpoint");
	mount = opt != NULL && opt[0] == '/' ? shadow_canon(c, opt)
					     : shadow_mountpoint(c, share);
	if (share == NULL || mount == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	opt = p->str(p->ctx, c, "shadow", "snapdir");
	if (opt == NULL || opt[0] == '\0') {
		opt = ".snapshots";
	}
	c->snapdir = opt[0] == '/'
			     ? shadow_canon_dir(c, opt)
			     : talloc_asprintf(c, "%s%s%s", mount,
					       strcmp(mount, "/") ? "/" : "",
					       opt);
	c->snapdir = c->snapdir ? shadow_trim(c, c->snapdir) : NULL;
	opt = p->str(p->ctx, c, "shadow", "basedir");
	base = opt != NULL && opt[0] == '/' ? shadow_canon(c, opt) : mount;
	if (share == NULL || mount == NULL || c->snapdir == NULL ||
	    base == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	below = shadow_below(share, base);
	if (below == NULL) {
		DBG_WARNING("shadow:basedir %s does not hold the share %s; "
			    "using the mount point %s\n", base, share, mount);
		below = shadow_below(share, mount);
	}
	opt = p->str(p->ctx, c, "shadow", "snapsharepath");
	c->rel = talloc_strdup(c, opt != NULL ? opt : below ? below : "");
	while (c->rel != NULL && c->rel[0] == '/') {
		memmove(c->rel, c->rel + 1, strlen(c->rel));
	}
	below = shadow_below(c->snapdir, share);
	c->snapdir_in_share = below != NULL ? talloc_strdup(c, below) : NULL;
	opt = p->str(p->ctx, c, "shadow", "format");
	c->format = talloc_strdup(c, opt != NULL && opt[0] != '\0'
					     ? opt
					     : SHADOW_DEFAULT_FORMAT);
	c->localtime = p->boolean(p->ctx, "shadow", "localtime", false);
	opt = p->str(p->ctx, c, "shadow", "sort");
	c->sort = opt == NULL || strcasecmp(opt, "desc") == 0
			  ? SHADOW_SORT_DESC
		  : strcasecmp(opt, "asc") == 0 ? SHADOW_SORT_ASC
						: SHADOW_SORT_NONE;
	if (c->rel == NULL || c->format == NULL ||
	    (below != NULL && c->snapdir_in_share == NULL)) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < sizeof(shadow_unsupported) /
				sizeof(shadow_unsupported[0]);
	     i++) {
		if (p->str(p->ctx, c, "shadow", shadow_unsupported[i])) {
			DBG_WARNING("shadow:%s is not supported by this "
				    "server: snapshots are looked for in %s "
				    "only\n",
				    shadow_unsupported[i], c->snapdir);
		}
	}
	DBG_INFO("shadow_copy2: snapshots of %s in %s/<%s>/%s\n", share,
		 c->snapdir, c->format, c->rel);
	*priv = c;
	return NT_STATUS_OK;
}

/* The time a snapshot directory's name stands for, if the format reads
 * all of it. */
static bool shadow_name_time(const struct shadow_conf *c, const char *name,
			     int64_t *t)
{
	struct tm tm;
	const char *end;
	time_t tt;

	memset(&tm, 0, sizeof(tm));
	end = strptime(name, c->format, &tm);
	if (end == NULL || *end != '\0') {
		return false;
	}
	if (c->localtime) {
		tm.tm_isdst = -1;
		tt = mktime(&tm);
	} else {
		tt = timegm(&tm);
	}
	if (tt == (time_t)-1) {
		return false;
	}
	*t = (int64_t)tt;
	return true;
}

/* The snapshot directory, readable (a DIR stream), or NULL and errno. */
static DIR *shadow_open_snapdir(const struct shadow_conf *c,
				const struct vfs_share *sh)
{
	int fd;
	DIR *d;

	if (c->snapdir_in_share != NULL) {
		fd = vfs_openat_beneath(sh, sh->root_fd, c->snapdir_in_share,
					O_RDONLY | O_DIRECTORY, 0);
	} else {
		fd = open(c->snapdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd == -1) {
		return NULL;
	}
	d = fdopendir(fd);
	if (d == NULL) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return d;
}

static bool shadow_dot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static int shadow_cmp_asc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int shadow_cmp_desc(const void *a, const void *b)
{
	return shadow_cmp_asc(b, a);
}

static NTSTATUS shadow_snap_list(const struct vfs_call *call,
				 TALLOC_CTX *mem_ctx,
				 const struct vfs_share *sh, int64_t **times,
				 size_t *n)
{
	const struct shadow_conf *c = call->priv;
	DIR *d = shadow_open_snapdir(c, sh);
	struct dirent *de;
	int64_t *t = NULL;
	size_t cnt = 0;

	*times = NULL;
	*n = 0;
	if (d == NULL) {
		/* No snapshot taken yet (or none this user may see): no
		 * previous versions, as Samba answers. */
		DBG_INFO("shadow_copy2: %s: %s\n", c->snapdir,
			 strerror(errno));
		return NT_STATUS_OK;
	}
	while ((de = readdir(d)) != NULL && cnt < SHADOW_MAX_SNAPSHOTS) {
		int64_t when;

		if (shadow_dot(de->d_name)) {
			continue;
		}
		if (!shadow_name_time(c, de->d_name, &when)) {
			continue;
		}
		if (cnt % 32 == 0) {
			int64_t *nt = talloc_realloc(mem_ctx, t, int64_t,
						     cnt + 32);

			if (nt == NULL) {
				closedir(d);
				talloc_free(t);
				return NT_STATUS_NO_MEMORY;
			}
			t = nt;
		}
		t[cnt++] = when;
	}
	closedir(d);
	if (c->sort != SHADOW_SORT_NONE && cnt > 1) {
		qsort(t, cnt, sizeof(*t),
		      c->sort == SHADOW_SORT_ASC ? shadow_cmp_asc
						 : shadow_cmp_desc);
	}
	*times = t;
	*n = cnt;
	return NT_STATUS_OK;
}

static NTSTATUS shadow_snap_root(const struct vfs_call *call,
				 const struct vfs_share *sh, int64_t t,
				 int *out)
{
	const struct shadow_conf *c = call->priv;
	/* Inside a snapshot: beneath it, symlinks only within it. */
	const struct vfs_share inside = {.follow_symlinks = true};
	DIR *d = shadow_open_snapdir(c, sh);
	struct dirent *de;
	NTSTATUS status = NT_STATUS_OBJECT_NAME_NOT_FOUND;

	*out = -1;
	if (d == NULL) {
		return errno == ENOENT ? NT_STATUS_OBJECT_NAME_NOT_FOUND
				       : vfs_map_errno(errno);
	}
	while ((de = readdir(d)) != NULL) {
		char sub[PATH_MAX];
		int64_t when;
		int n, fd;

		if (shadow_dot(de->d_name) ||
		    !shadow_name_time(c, de->d_name, &when) || when != t) {
			continue;
		}
		n = snprintf(sub, sizeof(sub), "%s%s%s", de->d_name,
			     c->rel[0] ? "/" : "", c->rel);
		if (n < 0 || (size_t)n >= sizeof(sub)) {
			status = NT_STATUS_OBJECT_NAME_INVALID;
			break;
		}
		fd = vfs_openat_beneath(&inside, dirfd(d), sub,
					O_PATH | O_DIRECTORY, 0);
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
	closedir(d);
	return status;
}

const struct vfs_module vfs_module_shadow_copy2 = {
	.name = "shadow_copy2",
	.connect = shadow_connect,
	.snap_list = shadow_snap_list,
	.snap_root = shadow_snap_root,
};
