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
 * layout, numbered snapshots with their dates in info.xml, is
 * vfs_snapper: snapper.c.)
 *
 * This file only reads the options and says which entries of SNAPDIR
 * are snapshots (shadow_entry: NAME read by the format, root NAME/REL);
 * listing (ordered by `shadow:sort`), opening the root of a snapshot and
 * the confinement rules are vfs/snapdir.c's, shared with snapper.
 */
#include "vfs/module.h"
#include "vfs/snapdir.h"
#include "lib/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define SHADOW_DEFAULT_FORMAT "@GMT-%Y.%m.%d-%H.%M.%S"
struct shadow_conf {
	struct vfs_snapdir dir;	/* priv: this configuration */
	char *snapdir;		/* absolute */
	char *snapdir_in_share;	/* the same, share-relative, when inside */
	char *rel;		/* the share root inside a snapshot */
	char *format;
	bool localtime;
};

static bool shadow_entry(const void *priv, int dir_fd, const char *name,
			 TALLOC_CTX *mem_ctx, int64_t *t, char **root);

/* Options of Samba's module that change the layout in ways we do not
 * follow: a share that sets one is told so in the log. */
static const char *const shadow_unsupported[] = {
	"snapdirseverywhere", "crossmountpoints", "fixinodes", "sscanf",
	"snapprefix", "delimiter",
};

/* An absolute snapshot directory: its parent canonical, its own name
 * as written (a symlink there, inside a share, is not followed to
 * decide where it is). */
static char *shadow_canon_dir(TALLOC_CTX *mem_ctx, const char *path)
{
	char *p = vfs_snapdir_trim(mem_ctx, path);
	char *slash = p ? strrchr(p, '/') : NULL;
	char *parent;

	if (slash == NULL || slash == p || slash[1] == '\0') {
		return p;
	}
	parent = vfs_snapdir_canon(mem_ctx,
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
	const char *opt, *below;
	char *share, *mount, *base;
	size_t i;

	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* As Samba: the share's canonical path (symlinks resolved). */
	share = vfs_snapdir_share_path(c, sh);
	opt = p->str(p->ctx, c, "shadow", "mountpoint");
	mount = opt != NULL && opt[0] == '/' ? vfs_snapdir_canon(c, opt)
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
	c->snapdir = c->snapdir ? vfs_snapdir_trim(c, c->snapdir) : NULL;
	opt = p->str(p->ctx, c, "shadow", "basedir");
	base = opt != NULL && opt[0] == '/' ? vfs_snapdir_canon(c, opt) : mount;
	if (share == NULL || mount == NULL || c->snapdir == NULL ||
	    base == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	below = vfs_snapdir_below(share, base);
	if (below == NULL) {
		DBG_WARNING("shadow:basedir %s does not hold the share %s; "
			    "using the mount point %s\n", base, share, mount);
		below = vfs_snapdir_below(share, mount);
	}
	opt = p->str(p->ctx, c, "shadow", "snapsharepath");
	c->rel = talloc_strdup(c, opt != NULL ? opt : below ? below : "");
	while (c->rel != NULL && c->rel[0] == '/') {
		memmove(c->rel, c->rel + 1, strlen(c->rel));
	}
	below = vfs_snapdir_below(c->snapdir, share);
	c->snapdir_in_share = below != NULL ? talloc_strdup(c, below) : NULL;
	opt = p->str(p->ctx, c, "shadow", "format");
	c->format = talloc_strdup(c, opt != NULL && opt[0] != '\0'
					     ? opt
					     : SHADOW_DEFAULT_FORMAT);
	c->localtime = p->boolean(p->ctx, "shadow", "localtime", false);
	opt = p->str(p->ctx, c, "shadow", "sort");
	c->dir.sort = opt == NULL || strcasecmp(opt, "desc") == 0
			      ? VFS_SNAPDIR_SORT_DESC
		      : strcasecmp(opt, "asc") == 0 ? VFS_SNAPDIR_SORT_ASC
						    : VFS_SNAPDIR_SORT_NONE;
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
	c->dir.path = c->snapdir;
	c->dir.in_share = c->snapdir_in_share;
	c->dir.entry = shadow_entry;
	c->dir.priv = c;
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

/* An entry of SNAPDIR is a snapshot when the format reads its whole
 * name; its copy of the share is NAME/REL. */
static bool shadow_entry(const void *priv, int dir_fd, const char *name,
			 TALLOC_CTX *mem_ctx, int64_t *t, char **root)
{
	const struct shadow_conf *c = priv;

	(void)dir_fd;
	if (!shadow_name_time(c, name, t)) {
		return false;
	}
	*root = talloc_asprintf(mem_ctx, "%s%s%s", name, c->rel[0] ? "/" : "",
				c->rel);
	return *root != NULL;
}

static NTSTATUS shadow_snap_list(const struct vfs_call *call,
				 TALLOC_CTX *mem_ctx,
				 const struct vfs_share *sh, int64_t **times,
				 size_t *n)
{
	const struct shadow_conf *c = call->priv;

	return vfs_snapdir_list(&c->dir, mem_ctx, sh, times, n);
}

static NTSTATUS shadow_snap_root(const struct vfs_call *call,
				 const struct vfs_share *sh, int64_t t,
				 int *out)
{
	const struct shadow_conf *c = call->priv;

	return vfs_snapdir_root(&c->dir, sh, t, out);
}

const struct vfs_module vfs_module_shadow_copy2 = {
	.name = "shadow_copy2",
	.connect = shadow_connect,
	.snap_list = shadow_snap_list,
	.snap_root = shadow_snap_root,
};
