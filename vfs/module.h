/*
 * The stackable VFS module layer (issue 15 item 7): `vfs objects` in
 * smb.conf names modules that sit above the POSIX calls of vfs/ for one
 * share, in the order written, as in Samba.
 *
 * - A module is a static, const descriptor (struct vfs_module) in the
 *   registry table of module.c, found by name.  It has a connect hook
 *   that reads its options once at tree connect into a private,
 *   immutable configuration, and one pointer per operation it
 *   intercepts; an operation it leaves NULL goes straight to the next
 *   module below.  A module that does nothing of its own (acl_xattr,
 *   whose work is elsewhere) has only a name.
 * - The stack of a share (struct vfs_stack) is built at tree connect from
 *   the list (vfs_stack_build) and never changes; a reload builds new
 *   stacks for new trees.  A call enters at the top (vfs_stack_unlink,
 *   vfs_stack_snap_list, vfs_stack_snap_root) and each module hands on
 *   with vfs_next_<op>(); under the last module is the POSIX behaviour
 *   (vfs/anchor.h's unlink; no snapshots).  Modules get the share (struct
 *   vfs_share, with root_fd) and a share-relative path, never a path to
 *   resolve as root: what they do is anchored like every other call.
 * - Lifetime: pool jobs outlive the request (and may outlive the tree), so
 *   a stack is reference counted.  The tree holds one reference, a job
 *   that calls into the stack takes one (vfs_stack_ref) when it is made
 *   and drops it (vfs_stack_unref) when it is freed.  References are taken
 *   and dropped only on the worker's loop thread; pool threads only read
 *   the (immutable) stack, so the count needs no atomics.
 * - Options come through struct vfs_module_params, which the caller
 *   (smbd/smb2/smb2_tcon.c) implements over conf/loadparm's parametric lookups
 *   ("recycle:repository"), so vfs/ does not depend on conf/.
 * - A name the registry does not know is reported to the caller, which
 *   refuses the tree connect as Samba does when it cannot load a module
 *   (issue 34 item 7: a share served without its `vfs objects`, say
 *   ceph's, would serve the local directory instead); testparm reports
 *   it as an error.  A few of Samba's modules do a job this server does
 *   anyway (io_uring, aio_pthread: how the file I/O is issued): they are
 *   in the registry with a `builtin` note, known, and never stacked.
 *
 * Adding an operation (the rest of vfs_fruit may want stat and open): a
 * pointer in struct vfs_module with the POSIX call's signature plus the
 * stack handle, a vfs_stack_<op> entry and a vfs_next_<op>, as for unlink.
 *
 * Everything a module's operation does runs in the pool thread with the
 * session user's credentials, like the rest of vfs/.
 */
#ifndef VFS_MODULE_H
#define VFS_MODULE_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "vfs/anchor.h"
#include "vfs/vfs.h"

/* How a module reads its options ("module:option") at tree connect. */
struct vfs_module_params {
	/* The value as written (NULL when unset), on mem_ctx: Samba's
	 * modules read most options without `%` macros (shadow:format is
	 * strftime's, its %S is not the share name). */
	const char *(*str)(void *ctx, TALLOC_CTX *mem_ctx, const char *mod,
			   const char *opt);
	/* value with the share's `%` macros expanded (recycle:repository's
	 * %U), on mem_ctx; NULL when out of memory. */
	char *(*subst)(void *ctx, TALLOC_CTX *mem_ctx, const char *value);
	bool (*boolean)(void *ctx, const char *mod, const char *opt, bool def);
	/* strtol base 0: "0700" is octal */
	int (*integer)(void *ctx, const char *mod, const char *opt, int def);
	/* a size, "10K" */
	uint64_t (*bytes)(void *ctx, const char *mod, const char *opt,
			  uint64_t def);
	/* NULL-terminated, empty when unset; NULL when out of memory */
	const char **(*list)(void *ctx, TALLOC_CTX *mem_ctx, const char *mod,
			     const char *opt);
	void *ctx;
};

struct vfs_stack;

/* One operation's call as a module sees it: at depth, the module's own
 * configuration in priv. */
struct vfs_call {
	const struct vfs_stack *stack;
	unsigned depth;
	const void *priv;
};

struct vfs_module {
	const char *name;
	/* Samba's module whose job is this server's own (why, for a log
	 * line): accepted, never stacked, no hooks.  NULL for the rest. */
	const char *builtin;
	/* Read the options into a configuration on mem_ctx (*priv); NULL
	 * for a module without options.  An error fails the tree connect. */
	NTSTATUS (*connect)(TALLOC_CTX *mem_ctx,
			    const struct vfs_module_params *p,
			    const struct vfs_share *sh, void **priv);
	/* The removal of a name (delete on close, what an open leaves to
	 * delete): vfs_unlink_anchored's arguments. */
	NTSTATUS (*unlink)(const struct vfs_call *c, const struct vfs_share *sh,
			   int root_fd, const char *path, bool is_dir,
			   const struct vfs_file_id *want);
	/* Previous versions (FSCTL_SRV_ENUMERATE_SNAPSHOTS): the times
	 * (seconds since 1970, UTC) of the share's snapshots, in the order
	 * to list them, on mem_ctx.  Below every module: none. */
	NTSTATUS (*snap_list)(const struct vfs_call *c, TALLOC_CTX *mem_ctx,
			      const struct vfs_share *sh, int64_t **times,
			      size_t *n);
	/* An O_PATH directory fd of the share's root as the snapshot taken
	 * at t has it (an @GMT path or TWrp open resolves beneath it).
	 * Below every module: OBJECT_NAME_NOT_FOUND. */
	NTSTATUS (*snap_root)(const struct vfs_call *c,
			      const struct vfs_share *sh, int64_t t, int *fd);
};

/* The registry: the module of that name (case-insensitive), or NULL. */
const struct vfs_module *vfs_module_find(const char *name);

/*
 * Build a share's stack from `vfs objects` (names in order).  Unknown
 * names are skipped and returned in *unknown (NULL-terminated, on
 * mem_ctx; NULL when none) for the caller to refuse; builtin ones are
 * skipped.  The stack starts with one reference.  Errors of a module's
 * connect are returned as they are.
 */
NTSTATUS vfs_stack_build(TALLOC_CTX *mem_ctx, const char *const *names,
			 const struct vfs_module_params *p,
			 const struct vfs_share *sh, struct vfs_stack **out,
			 const char ***unknown);

/* Whether the stack has that module (acl_xattr's switch). */
bool vfs_stack_has(const struct vfs_stack *s, const char *name);
/* The module configuration of name in the stack, or NULL. */
const void *vfs_stack_priv(const struct vfs_stack *s, const char *name);

/* Loop thread only.  vfs_stack_ref returns s (NULL stays NULL). */
struct vfs_stack *vfs_stack_ref(struct vfs_stack *s);
void vfs_stack_unref(struct vfs_stack *s);

/* unlink through the stack (s may be NULL: the POSIX call alone). */
NTSTATUS vfs_stack_unlink(const struct vfs_stack *s,
			  const struct vfs_share *sh, int root_fd,
			  const char *path, bool is_dir,
			  const struct vfs_file_id *want);
/* What a module's unlink calls to hand on. */
NTSTATUS vfs_next_unlink(const struct vfs_call *c, const struct vfs_share *sh,
			 int root_fd, const char *path, bool is_dir,
			 const struct vfs_file_id *want);

/* Whether a module of the stack serves previous versions (snap_root):
 * only then are @GMT components taken out of paths. */
bool vfs_stack_has_snapshots(const struct vfs_stack *s);
NTSTATUS vfs_stack_snap_list(const struct vfs_stack *s, TALLOC_CTX *mem_ctx,
			     const struct vfs_share *sh, int64_t **times,
			     size_t *n);
NTSTATUS vfs_stack_snap_root(const struct vfs_stack *s,
			     const struct vfs_share *sh, int64_t t, int *fd);
NTSTATUS vfs_next_snap_list(const struct vfs_call *c, TALLOC_CTX *mem_ctx,
			    const struct vfs_share *sh, int64_t **times,
			    size_t *n);
NTSTATUS vfs_next_snap_root(const struct vfs_call *c,
			    const struct vfs_share *sh, int64_t t, int *fd);

/* The modules the registry has (for testparm and the man page). */
extern const struct vfs_module vfs_module_catia;
extern const struct vfs_module vfs_module_fruit;
extern const struct vfs_module vfs_module_recycle;
extern const struct vfs_module vfs_module_shadow_copy2;
extern const struct vfs_module vfs_module_snapper;

#endif
