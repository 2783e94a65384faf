/*
 * A warm cache of directories' names for case-insensitive lookup (issue
 * 18, "Large directories").  Without it, a name given in another case
 * than on disk costs a scan of its directory; with it, one fstat of the
 * directory and a hash probe.  The design and its limits are in
 * dircache.c's head comment.
 *
 * Three pieces, each usable alone (the unit tests take them apart):
 * - struct vfs_dirnames: one directory's names as read once, with a hash
 *   index by case-folded name (vfs_strcasecmp's folding); immutable once
 *   built, so readers need no lock of their own;
 * - struct vfs_dircache: a bounded set of those keyed by the directory's
 *   identity and validated by its timestamps, least recently used out
 *   first, one mutex around it (the worker's pool threads share it);
 * - vfs_dircache_lookup(): the file-system glue resolve_component calls.
 */
#ifndef VFS_DIRCACHE_H
#define VFS_DIRCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include <time.h>

/* ---- one directory's names ------------------------------------------ */

struct vfs_dirnames;

/* An empty set that takes at most max_names names (0: no names). */
struct vfs_dirnames *vfs_dirnames_new(TALLOC_CTX *mem_ctx, size_t max_names);
/* Add one on-disk name (len bytes, no NUL needed).  A name equal to one
 * already there without case is not added (the first in readdir order is
 * the one a scan finds).  false: over max_names or out of memory (the
 * set is then unusable: free it). */
bool vfs_dirnames_add(struct vfs_dirnames *t, const char *name, size_t len);
/* Give back the memory the growth left unused; call once, after the last
 * add.  false: out of memory (the set is still usable). */
bool vfs_dirnames_seal(struct vfs_dirnames *t);
/* The on-disk name equal to name without case, or NULL.  The pointer
 * lives as long as the set. */
const char *vfs_dirnames_find(const struct vfs_dirnames *t, const char *name);
size_t vfs_dirnames_count(const struct vfs_dirnames *t);
/* Bytes the set holds (what the cache's budget counts). */
size_t vfs_dirnames_bytes(const struct vfs_dirnames *t);

/* ---- the cache ------------------------------------------------------- */

/* Which directory, and as of when: dev/ino name it, its modification
 * and change times at the moment its names were read stand for its
 * contents (every entry created, removed or renamed in it moves both). */
struct vfs_dircache_key {
	uint64_t dev, ino;
	struct timespec mtime, ctime;
};

enum vfs_dircache_answer {
	VFS_DIRCACHE_UNKNOWN,	/* no valid entry: the caller scans */
	VFS_DIRCACHE_ABSENT,	/* no name matches without case */
	VFS_DIRCACHE_FOUND,	/* *real: the on-disk name */
};

struct vfs_dircache;

/* At most max_bytes of names (vfs_dirnames_bytes) in at most max_dirs
 * directories.  Freed with talloc_free (no thread may be using it). */
struct vfs_dircache *vfs_dircache_new(TALLOC_CTX *mem_ctx, size_t max_bytes,
				      size_t max_dirs);
/* Look name up in the directory key->dev/ino as of key's times.  An
 * entry for the directory with other times is stale: it is dropped and
 * the answer is UNKNOWN.  FOUND: *real is a copy on mem_ctx (NULL when
 * out of memory: then UNKNOWN). */
enum vfs_dircache_answer vfs_dircache_get(struct vfs_dircache *c,
					  const struct vfs_dircache_key *key,
					  const char *name, TALLOC_CTX *mem_ctx,
					  char **real);
/* Keep t (sealed) for key; the cache takes it over (talloc_steal), the
 * caller must not use it afterwards.  One that cannot fit the budget at
 * all is freed and false returned.  Least recently used directories go
 * to make room; an older entry for the same dev/ino is replaced. */
bool vfs_dircache_put(struct vfs_dircache *c,
		      const struct vfs_dircache_key *key,
		      struct vfs_dirnames *t);
/* What it holds now (tests, logs). */
void vfs_dircache_usage(struct vfs_dircache *c, size_t *dirs, size_t *bytes);

/* ---- the file-system glue -------------------------------------------- */

/*
 * name (one component) without case in the directory open as dirfd
 * (O_RDONLY | O_DIRECTORY, at offset 0, opened by the caller as the
 * user: that open is the permission check a scan makes), through the
 * process's cache: one fstat, and a read of the whole directory when the
 * cache has no valid entry for it and the directory has been quiet long
 * enough to trust its times (see dircache.c).  UNKNOWN leaves dirfd at
 * offset 0 for the caller's own scan.
 */
enum vfs_dircache_answer vfs_dircache_lookup(TALLOC_CTX *mem_ctx, int dirfd,
					     const char *name, char **real);

/* Whether a directory with these times (stat st_mtim, st_ctim) was
 * quiet long enough before now (CLOCK_REALTIME_COARSE) that any later
 * change to it must give it other times. */
bool vfs_dircache_quiet(const struct timespec *mtime,
			const struct timespec *ctime,
			const struct timespec *now);

#endif
