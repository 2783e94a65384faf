/*
 * vfs_snapper: snapper's snapshots as Windows "Previous Versions"
 * (vfs_snapper(8); issue 15 item 7).
 *
 * Samba's module asks snapperd over D-Bus for the snapshots of the
 * share's subvolume.  We read snapper's layout on disk instead, so the
 * server needs neither snapperd nor D-Bus:
 *
 *   SUBVOL/.snapshots/N/snapshot/REL/FILE  is  SHARE/FILE  at the time
 *   SUBVOL/.snapshots/N/info.xml's <date> says (UTC)
 *
 * where SUBVOL is the share's path or the nearest directory above it
 * that has a .snapshots directory (snapper's configuration covers a
 * subvolume and everything below it), found once at tree connect, N a
 * snapshot number (decimal, 1 or more: snapper's 0 is the live system
 * and has no directory), and REL the share's path below SUBVOL.  A
 * numbered directory whose info.xml is missing or does not parse
 * (vfs/snapper_info.c) is not listed, and logged.  The list is oldest
 * first, as snapper numbers them and Samba lists them.
 *
 * Listing, opening a snapshot's root (read-only opens of @GMT paths and
 * TWrp creates) and the confinement rules are vfs/snapdir.c's, shared
 * with shadow_copy2: a .snapshots inside the share (SUBVOL is the
 * share's path) is opened beneath the share's root with the share's
 * rules; one above the share must be a directory, not a symlink;
 * info.xml and N/snapshot/REL are opened beneath .snapshots.  All in the
 * pool thread, as the session user: snapper's .snapshots must let the
 * users through (its SYNC_ACL), as with Samba.
 */
#include "vfs/module.h"
#include "vfs/snapdir.h"
#include "vfs/snapper_info.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAPPER_DIR ".snapshots"
/* snapper's numbers are unsigned 32-bit: at most 10 digits */
#define SNAPPER_NUM_MAX_DIGITS 10

struct snapper_conf {
	struct vfs_snapdir dir;	/* path NULL: no .snapshots found */
	char *rel;		/* the share below SUBVOL, "" when it is */
};

/* The nearest of share and the directories above it with a .snapshots
 * directory (lstat: a symlink there is not snapper's), on mem_ctx;
 * NULL when none. */
static char *snapper_find_subvol(TALLOC_CTX *mem_ctx, const char *share)
{
	char *cur = talloc_strdup(mem_ctx, share);

	while (cur != NULL) {
		char *cand = talloc_asprintf(mem_ctx, "%s%s" SNAPPER_DIR, cur,
					     strcmp(cur, "/") ? "/" : "");
		struct stat st;
		char *slash;

		if (cand == NULL) {
			return NULL;
		}
		if (lstat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
			talloc_free(cand);
			return cur;
		}
		talloc_free(cand);
		if (strcmp(cur, "/") == 0) {
			break;
		}
		slash = strrchr(cur, '/');
		if (slash == NULL) {
			break;
		}
		*(slash == cur ? slash + 1 : slash) = '\0';
	}
	talloc_free(cur);
	return NULL;
}

static bool snapper_entry(const void *priv, int dir_fd, const char *name,
			  TALLOC_CTX *mem_ctx, int64_t *t, char **root);

static NTSTATUS snapper_connect(TALLOC_CTX *mem_ctx,
				const struct vfs_module_params *p,
				const struct vfs_share *sh, void **priv)
{
	struct snapper_conf *c = talloc_zero(mem_ctx, struct snapper_conf);
	char *share, *subvol;
	const char *below;

	(void)p;
	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	share = vfs_snapdir_share_path(c, sh);
	if (share == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	c->dir.sort = VFS_SNAPDIR_SORT_ASC;
	c->dir.entry = snapper_entry;
	c->dir.priv = c;
	subvol = snapper_find_subvol(c, share);
	if (subvol == NULL) {
		DBG_WARNING("snapper: no " SNAPPER_DIR " in %s or above it: "
			    "no previous versions\n", share);
		c->rel = talloc_strdup(c, "");
		*priv = c;
		return c->rel != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	below = vfs_snapdir_below(share, subvol);
	c->rel = talloc_strdup(c, below != NULL ? below : "");
	c->dir.path = talloc_asprintf(c, "%s%s" SNAPPER_DIR, subvol,
				      strcmp(subvol, "/") ? "/" : "");
	if (c->rel == NULL || c->dir.path == NULL) {
		talloc_free(c);
		return NT_STATUS_NO_MEMORY;
	}
	if (c->rel[0] == '\0') {
		/* SUBVOL is the share: .snapshots is the share's, opened
		 * with its rules. */
		c->dir.in_share = SNAPPER_DIR;
	} else {
		/* Found, not written by the admin: no symlink there. */
		c->dir.nofollow = true;
	}
	DBG_INFO("snapper: snapshots of %s in %s/<N>/snapshot%s%s\n", share,
		 c->dir.path, c->rel[0] ? "/" : "", c->rel);
	*priv = c;
	return NT_STATUS_OK;
}

/* A snapshot number as snapper names its directories. */
static bool snapper_num(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > SNAPPER_NUM_MAX_DIGITS || name[0] == '0') {
		return false;
	}
	for (i = 0; i < n; i++) {
		if (name[i] < '0' || name[i] > '9') {
			return false;
		}
	}
	return true;
}

/* N/info.xml into buf (at most VFS_SNAPPER_INFO_MAX bytes), its length
 * in *len; -1 and errno (EFBIG: larger; EINVAL: not a regular file). */
static int snapper_read_info(int dir_fd, const char *num, char *buf,
			     size_t *len)
{
	char path[SNAPPER_NUM_MAX_DIGITS + sizeof("/info.xml")];
	struct stat st;
	size_t got = 0;
	int fd, err;

	snprintf(path, sizeof(path), "%s/info.xml", num);
	/* O_NONBLOCK: a FIFO there must not hold the pool thread. */
	fd = vfs_snapdir_openat(dir_fd, path, O_RDONLY | O_NONBLOCK);
	if (fd == -1) {
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	/* read one byte past the limit to see a file that grew */
	while (got <= VFS_SNAPPER_INFO_MAX) {
		ssize_t r = read(fd, buf + got, VFS_SNAPPER_INFO_MAX + 1 - got);

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			goto fail;
		}
		if (r == 0) {
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (got > VFS_SNAPPER_INFO_MAX) {
		errno = EFBIG;
		return -1;
	}
	*len = got;
	return 0;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static bool snapper_entry(const void *priv, int dir_fd, const char *name,
			  TALLOC_CTX *mem_ctx, int64_t *t, char **root)
{
	const struct snapper_conf *c = priv;
	char *buf;
	size_t len;

	if (!snapper_num(name)) {
		return false;
	}
	buf = talloc_size(mem_ctx, VFS_SNAPPER_INFO_MAX + 1);
	if (buf == NULL) {
		return false;
	}
	if (snapper_read_info(dir_fd, name, buf, &len) != 0) {
		/* none yet: snapper may be making it right now */
		if (errno == ENOENT) {
			DBG_INFO("snapper: %s/%s has no info.xml yet\n",
				 c->dir.path, name);
		} else {
			DBG_WARNING("snapper: %s/%s/info.xml: %s: snapshot "
				    "skipped\n", c->dir.path, name,
				    strerror(errno));
		}
		return false;
	}
	if (!vfs_snapper_info_date(buf, len, t)) {
		DBG_WARNING("snapper: %s/%s/info.xml has no valid <date>: "
			    "snapshot skipped\n", c->dir.path, name);
		return false;
	}
	*root = talloc_asprintf(mem_ctx, "%s/snapshot%s%s", name,
				c->rel[0] ? "/" : "", c->rel);
	return *root != NULL;
}

static NTSTATUS snapper_snap_list(const struct vfs_call *call,
				  TALLOC_CTX *mem_ctx,
				  const struct vfs_share *sh, int64_t **times,
				  size_t *n)
{
	const struct snapper_conf *c = call->priv;

	if (c->dir.path == NULL) {
		*times = NULL;
		*n = 0;
		return NT_STATUS_OK;
	}
	return vfs_snapdir_list(&c->dir, mem_ctx, sh, times, n);
}

static NTSTATUS snapper_snap_root(const struct vfs_call *call,
				  const struct vfs_share *sh, int64_t t,
				  int *fd)
{
	const struct snapper_conf *c = call->priv;

	if (c->dir.path == NULL) {
		*fd = -1;
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return vfs_snapdir_root(&c->dir, sh, t, fd);
}

const struct vfs_module vfs_module_snapper = {
	.name = "snapper",
	.connect = snapper_connect,
	.snap_list = snapper_snap_list,
	.snap_root = snapper_snap_root,
};
