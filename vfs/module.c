/*
 * The VFS module registry and per-share stacks (design in module.h).
 */
#include "vfs/module.h"
#include "lib/bug.h"
#include "vfs/streams.h"
#include "lib/log.h"

#include <string.h>
#include <strings.h>

/* acl_xattr's work (NT ACLs in security.NTACL) is done by the CREATE,
 * QUERY_INFO and SET_INFO handlers on shares whose stack has it; it
 * intercepts no call here. */
static const struct vfs_module vfs_module_acl_xattr = {
	.name = "acl_xattr",
};

/*
 * streams_xattr: a share has alternate data streams in Samba's
 * streams_xattr layout (vfs/streams.h) when its `vfs objects` is empty or
 * names this module (struct vfs_share.streams), so the name is
 * known; its options that would change the layout are not followed and
 * are reported as such.
 */
static NTSTATUS streams_xattr_connect(TALLOC_CTX *mem_ctx,
				      const struct vfs_module_params *p,
				      const struct vfs_share *sh, void **priv)
{
	const char *prefix = p->str(p->ctx, mem_ctx, "streams_xattr",
				    "prefix");
	bool typed = p->boolean(p->ctx, "streams_xattr", "store_stream_type",
				true);

	(void)sh;
	if ((prefix != NULL && strcmp(prefix, VFS_STREAM_PREFIX) != 0) ||
	    !typed) {
		DBG_WARNING("streams_xattr:prefix and "
			    "streams_xattr:store_stream_type are not "
			    "supported: streams are kept as "
			    VFS_STREAM_PREFIX "NAME" VFS_STREAM_SUFFIX "\n");
	}
	*priv = NULL;
	return NT_STATUS_OK;
}

static const struct vfs_module vfs_module_streams_xattr = {
	.name = "streams_xattr",
	.connect = streams_xattr_connect,
};

/* Samba's asynchronous I/O back-ends: every file-system call of this
 * server already goes through the worker's io_uring or its thread pool
 * (DESIGN.md "Worker"), so a Debian configuration naming them keeps
 * working. */
static const struct vfs_module vfs_module_io_uring = {
	.name = "io_uring",
	.builtin = "file I/O goes through the worker's io_uring and thread "
		   "pool already",
};

static const struct vfs_module vfs_module_aio_pthread = {
	.name = "aio_pthread",
	.builtin = "file I/O goes through the worker's thread pool and "
		   "io_uring already",
};

static const struct vfs_module *const registry[] = {
	&vfs_module_acl_xattr,
	&vfs_module_aio_pthread,
	&vfs_module_io_uring,
	&vfs_module_streams_xattr,
	&vfs_module_catia,
	&vfs_module_fruit,
	&vfs_module_recycle,
	&vfs_module_shadow_copy2,
	&vfs_module_snapper,
};

#define NREGISTRY (sizeof(registry) / sizeof(registry[0]))
/* More than any real configuration stacks; bounds the table. */
#define VFS_STACK_MAX 16

struct vfs_stack_entry {
	const struct vfs_module *mod;
	void *priv;
};

struct vfs_stack {
	unsigned refs;
	unsigned n;
	struct vfs_stack_entry e[VFS_STACK_MAX];
};

const struct vfs_module *vfs_module_find(const char *name)
{
	size_t i;

	for (i = 0; i < NREGISTRY; i++) {
		if (strcasecmp(registry[i]->name, name) == 0) {
			return registry[i];
		}
	}
	return NULL;
}

static bool add_unknown(TALLOC_CTX *mem_ctx, const char ***unknown,
			const char *name)
{
	size_t n = 0;
	const char **l = *unknown;

	while (l != NULL && l[n] != NULL) {
		n++;
	}
	l = talloc_realloc(mem_ctx, l, const char *, n + 2);
	if (l == NULL) {
		return false;
	}
	l[n] = talloc_strdup(l, name);
	l[n + 1] = NULL;
	*unknown = l;
	return l[n] != NULL;
}

NTSTATUS vfs_stack_build(TALLOC_CTX *mem_ctx, const char *const *names,
			 const struct vfs_module_params *p,
			 const struct vfs_share *sh, struct vfs_stack **out,
			 const char ***unknown)
{
	/* Its own talloc root: references, not a parent, decide when it goes. */
	struct vfs_stack *s = talloc_zero(NULL, struct vfs_stack);
	size_t i;

	*out = NULL;
	*unknown = NULL;
	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s->refs = 1;
	for (i = 0; names != NULL && names[i] != NULL; i++) {
		const struct vfs_module *m = vfs_module_find(names[i]);
		void *priv = NULL;
		NTSTATUS st;

		if (m == NULL) {
			if (!add_unknown(mem_ctx, unknown, names[i])) {
				talloc_free(s);
				return NT_STATUS_NO_MEMORY;
			}
			continue;
		}
		/* Samba loads a module named twice once, where it is
		 * first listed. */
		if (m->builtin != NULL || vfs_stack_has(s, m->name)) {
			continue;
		}
		if (s->n == VFS_STACK_MAX) {
			talloc_free(s);
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (m->connect != NULL) {
			st = m->connect(s, p, sh, &priv);
			if (!NT_STATUS_IS_OK(st)) {
				talloc_free(s);
				return st;
			}
		}
		s->e[s->n].mod = m;
		s->e[s->n].priv = priv;
		s->n++;
	}
	*out = s;
	return NT_STATUS_OK;
}

bool vfs_stack_has(const struct vfs_stack *s, const char *name)
{
	unsigned i;

	for (i = 0; s != NULL && i < s->n; i++) {
		if (strcasecmp(s->e[i].mod->name, name) == 0) {
			return true;
		}
	}
	return false;
}

const void *vfs_stack_priv(const struct vfs_stack *s, const char *name)
{
	unsigned i;

	for (i = 0; s != NULL && i < s->n; i++) {
		if (strcasecmp(s->e[i].mod->name, name) == 0) {
			return s->e[i].priv;
		}
	}
	return NULL;
}

struct vfs_stack *vfs_stack_ref(struct vfs_stack *s)
{
	if (s != NULL) {
		s->refs++;
	}
	return s;
}

void vfs_stack_unref(struct vfs_stack *s)
{
	BUG_ON(s != NULL && s->refs == 0);
	if (s != NULL && --s->refs == 0) {
		talloc_free(s);
	}
}

enum vfs_hook { HOOK_UNLINK, HOOK_SNAP_LIST, HOOK_SNAP_ROOT };

static bool has_hook(const struct vfs_module *m, enum vfs_hook h)
{
	switch (h) {
	case HOOK_UNLINK:
		return m->unlink != NULL;
	case HOOK_SNAP_LIST:
		return m->snap_list != NULL;
	case HOOK_SNAP_ROOT:
		return m->snap_root != NULL;
	}
	return false;
}

/* The depth of the first module at or below depth from that has hook h;
 * s->n (or 0 for no stack) when none has it: the POSIX layer's turn. */
static unsigned next_with(const struct vfs_stack *s, unsigned from,
			  enum vfs_hook h)
{
	unsigned d;

	if (s == NULL) {
		return 0;
	}
	for (d = from; d < s->n && !has_hook(s->e[d].mod, h); d++) {
	}
	return d;
}

NTSTATUS vfs_next_unlink(const struct vfs_call *c, const struct vfs_share *sh,
			 int root_fd, const char *path, bool is_dir,
			 const struct vfs_file_id *want)
{
	const struct vfs_stack *s = c->stack;
	unsigned d = next_with(s, c->depth + 1, HOOK_UNLINK);

	if (s != NULL && d < s->n) {
		struct vfs_call next = {s, d, s->e[d].priv};

		return s->e[d].mod->unlink(&next, sh, root_fd, path, is_dir,
					   want);
	}
	return vfs_unlink_anchored(sh, root_fd, path, is_dir, want);
}

NTSTATUS vfs_stack_unlink(const struct vfs_stack *s,
			  const struct vfs_share *sh, int root_fd,
			  const char *path, bool is_dir,
			  const struct vfs_file_id *want)
{
	/* depth "-1": the search starts at the top module */
	struct vfs_call top = {s, (unsigned)-1, NULL};

	return vfs_next_unlink(&top, sh, root_fd, path, is_dir, want);
}

NTSTATUS vfs_next_snap_list(const struct vfs_call *c, TALLOC_CTX *mem_ctx,
			    const struct vfs_share *sh, int64_t **times,
			    size_t *n)
{
	const struct vfs_stack *s = c->stack;
	unsigned d = next_with(s, c->depth + 1, HOOK_SNAP_LIST);

	if (s != NULL && d < s->n) {
		struct vfs_call next = {s, d, s->e[d].priv};

		return s->e[d].mod->snap_list(&next, mem_ctx, sh, times, n);
	}
	*times = NULL;
	*n = 0;
	return NT_STATUS_OK;
}

NTSTATUS vfs_next_snap_root(const struct vfs_call *c,
			    const struct vfs_share *sh, int64_t t, int *fd)
{
	const struct vfs_stack *s = c->stack;
	unsigned d = next_with(s, c->depth + 1, HOOK_SNAP_ROOT);

	if (s != NULL && d < s->n) {
		struct vfs_call next = {s, d, s->e[d].priv};

		return s->e[d].mod->snap_root(&next, sh, t, fd);
	}
	*fd = -1;
	return NT_STATUS_OBJECT_NAME_NOT_FOUND;
}

bool vfs_stack_has_snapshots(const struct vfs_stack *s)
{
	return s != NULL && next_with(s, 0, HOOK_SNAP_ROOT) < s->n;
}

NTSTATUS vfs_stack_snap_list(const struct vfs_stack *s, TALLOC_CTX *mem_ctx,
			     const struct vfs_share *sh, int64_t **times,
			     size_t *n)
{
	struct vfs_call top = {s, (unsigned)-1, NULL};

	return vfs_next_snap_list(&top, mem_ctx, sh, times, n);
}

NTSTATUS vfs_stack_snap_root(const struct vfs_stack *s,
			     const struct vfs_share *sh, int64_t t, int *fd)
{
	struct vfs_call top = {s, (unsigned)-1, NULL};

	return vfs_next_snap_root(&top, sh, t, fd);
}
