/*
 * msdfs links: DFS links as Samba keeps them on disk, a symbolic link
 * in an `msdfs root` share whose target reads
 * "msdfs:server\share[,server2\share2...]" (the client follows a
 * referral to the targets; the link itself dangles).  Samba 4.17's
 * reading of that text, checked link by link against its referrals:
 * the "msdfs:" prefix in any case; targets separated by ','; empty
 * ones skipped; '/' read as '\'; leading '\'s dropped and one put back;
 * what else a target holds (spaces, a trailing '\', a path after the
 * share) kept as it is.  `msdfs proxy` takes the same list without the
 * prefix.
 *
 * Pure parsing, and a walk of a path that runs as the caller's thread's
 * user in the pool like every vfs/ call (the kernel decides what the
 * user may look at).  Nothing here knows the wire (smbd/wire/dfs_wire.h
 * does).
 */
#ifndef VFS_MSDFS_H
#define VFS_MSDFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/vfs.h"

/* MS-FSCC 2.1.2.1: what a DFS link is, as a reparse point. */
#ifndef IO_REPARSE_TAG_DFS
#define IO_REPARSE_TAG_DFS 0x8000000A
#endif

/* A link's text past its "msdfs:" prefix (any case), or NULL when text
 * is no msdfs link. */
const char *vfs_msdfs_link_text(const char *text);

/*
 * The targets of a list ("srv\share,srv2\share2", a link's text past its
 * prefix or an `msdfs proxy` value), each as "\srv\share" on mem_ctx;
 * *n may be 0.  false when out of memory.
 */
bool vfs_msdfs_targets(TALLOC_CTX *mem_ctx, const char *list,
		       char ***targets, size_t *n);

/* Shuffle n targets in place (`msdfs shuffle referrals`): each order
 * equally likely, from the given random words (n - 1 of them used). */
void vfs_msdfs_shuffle(char **targets, size_t n, const uint32_t *rnd);

/*
 * Whether name in the directory dirfd is an msdfs link (a readlinkat,
 * no allocation: safe on the helper threads of a listing).
 */
bool vfs_msdfs_is_link_at(int dirfd, const char *name);

/*
 * The first component of path (share-relative, '/' separated, the
 * client's spelling) that is an msdfs link, in the share sh: each name
 * found as a CREATE finds it (the case the share ignores, 8.3 aliases,
 * `veto files`), each directory entered under the share's resolve
 * rules.  *depth is its 1-based place in path and *text its target list
 * (past the prefix, on mem_ctx); *depth 0 when the walk ends without
 * one: at a name that is not there, a file, a symlink that is no msdfs
 * link and is not followed.  A lookup the user may not make is its
 * status (ACCESS_DENIED: Samba answers a referral so too).
 */
NTSTATUS vfs_msdfs_find(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			const char *path, size_t *depth, char **text);

#endif
