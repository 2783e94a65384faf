/*
 * FileStreamInformation as the share's modules show it: the design is
 * in stream_view.h.  The rules are fruit's (vfs/fruit.h,
 * vfs/fruit_rsrc.h), matched here so that the handler names none.
 */
#include "vfs/stream_view.h"

#include <string.h>
#include <strings.h>

#include "vfs/fruit_rsrc.h"
#include "vfs/vfs.h"
#include "vfs/streams.h"

#define RESOURCE_LISTED ":AFP_Resource" VFS_STREAM_SUFFIX
#define AFPINFO_LISTED ":AFP_AfpInfo" VFS_STREAM_SUFFIX

void vfs_stream_view_of(const struct vfs_stack *s, bool aapl_session,
			bool own_data, struct vfs_stream_view *v)
{
	v->meta = vfs_fruit_meta(s);
	v->hide_empty = aapl_session;
	v->fork_file = own_data && vfs_fruit_rsrc_file(s);
	v->fork_xattr = own_data && vfs_fruit_rsrc_xattr(s);
}

struct listing {
	char **names;
	uint64_t *sizes;
	size_t n;
	bool failed;
};

/* One more entry at the end (the name is copied). */
static void listing_add(TALLOC_CTX *mem_ctx, struct listing *l,
			const char *name, uint64_t size)
{
	char **names = talloc_realloc(mem_ctx, l->names, char *, l->n + 1);
	uint64_t *sizes;

	if (names == NULL) {
		l->failed = true;
		return;
	}
	l->names = names;
	sizes = talloc_realloc(mem_ctx, l->sizes, uint64_t, l->n + 1);
	if (sizes == NULL) {
		l->failed = true;
		return;
	}
	l->sizes = sizes;
	names[l->n] = talloc_strdup(names, name);
	if (names[l->n] == NULL) {
		l->failed = true;
		return;
	}
	sizes[l->n++] = size;
}

/* Whether stream xattr entry `name` (size bytes) is left out. */
static bool view_hides(const struct vfs_stream_view *v, int fd,
		       const char *name, uint64_t size)
{
	return (v->hide_empty && size == 0) ||
	       (v->meta != VFS_FRUIT_META_NONE &&
		vfs_fruit_stream_hidden(fd, v->meta, name)) ||
	       ((v->fork_file || v->fork_xattr) &&
		strcasecmp(name, RESOURCE_LISTED) == 0);
}

/* What the modules keep outside the stream xattrs: fruit's record in
 * Netatalk's xattr, a non-empty fork in the "._" file or in Netatalk's
 * xattr (Samba leaves out an empty one). */
static void view_add_kept(TALLOC_CTX *mem_ctx,
			  const struct vfs_stream_view *v,
			  const struct vfs_share *sh, const char *path,
			  int fd, bool is_dir, struct listing *l)
{
	uint64_t size = 0;

	if (vfs_fruit_netatalk_listed(fd, v->meta)) {
		listing_add(mem_ctx, l, AFPINFO_LISTED, VFS_AFPINFO_SIZE);
	}
	if (v->fork_file && !is_dir && sh->root_fd != -1 &&
	    NT_STATUS_IS_OK(vfs_rsrc_path_size(sh, path, &size)) &&
	    size != 0) {
		listing_add(mem_ctx, l, RESOURCE_LISTED, size);
	}
	size = 0;
	if (v->fork_xattr &&
	    NT_STATUS_IS_OK(vfs_stream_size(fd, VFS_RSRC_XATTR, &size)) &&
	    size > 0) {
		listing_add(mem_ctx, l, RESOURCE_LISTED, size);
	}
}

NTSTATUS vfs_stream_view_list(TALLOC_CTX *mem_ctx,
			      const struct vfs_stream_view *v,
			      const struct vfs_share *sh, const char *path,
			      int fd, bool streams, bool is_dir,
			      char ***names, uint64_t **sizes, size_t *n)
{
	struct listing l = {0};
	char **all = NULL;
	uint64_t *all_sizes = NULL;
	size_t count = 0, i;

	if (!streams ||
	    !NT_STATUS_IS_OK(vfs_stream_list(mem_ctx, fd, &all, &all_sizes,
					     &count))) {
		count = 0;
	}
	l.names = talloc_array(mem_ctx, char *, count);
	l.sizes = talloc_array(mem_ctx, uint64_t, count);
	if (l.names == NULL || l.sizes == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		if (!view_hides(v, fd, all[i], all_sizes[i])) {
			l.names[l.n] = talloc_steal(l.names, all[i]);
			l.sizes[l.n++] = all_sizes[i];
		}
	}
	view_add_kept(mem_ctx, v, sh, path, fd, is_dir, &l);
	if (l.failed) {
		return NT_STATUS_NO_MEMORY;
	}
	*names = l.names;
	*sizes = l.sizes;
	*n = l.n;
	return NT_STATUS_OK;
}
