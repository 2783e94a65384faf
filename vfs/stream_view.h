/*
 * FileStreamInformation as a share's modules show it (issue 37: the
 * handler lists, vfs/ decides what is listed).  streams_xattr lists a
 * file's stream xattrs (vfs_stream_list); fruit then leaves out an
 * AFP_AfpInfo without a valid record (or, with fruit:metadata =
 * netatalk, lists the record of Netatalk's xattr in its place), an
 * empty named stream to a session that negotiated AAPL, and lists
 * AFP_Resource from where fruit:resource keeps it (the "._" file or
 * Netatalk's xattr) rather than from a stream xattr, as Samba's fruit
 * lists them (man/vfs_fruit.8).
 *
 * The view is taken from the stack on the loop thread (a job may
 * outlive the tree); the listing runs in the job.
 */
#ifndef VFS_STREAM_VIEW_H
#define VFS_STREAM_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/fruit.h"
#include "vfs/module.h"

struct vfs_share;

struct vfs_stream_view {
	/* fruit's AFP_AfpInfo keeping; NONE without fruit */
	enum vfs_fruit_meta meta;
	/* a session that negotiated AAPL: empty named streams unlisted */
	bool hide_empty;
	/* AFP_Resource listed from the "._" file (needs the share's root)
	 * or from Netatalk's xattr: only for a file's own open */
	bool fork_file;
	bool fork_xattr;
};

/* The view of stack s for a listing on an open: aapl_session, its
 * session negotiated AAPL; own_data, the open is the file's own data
 * (not a named stream) and the listing is asked for. */
void vfs_stream_view_of(const struct vfs_stack *s, bool aapl_session,
			bool own_data, struct vfs_stream_view *v);

/* Whether vfs_stream_view_list needs sh->root_fd (a "._" file). */
static inline bool vfs_stream_view_needs_root(const struct vfs_stream_view *v)
{
	return v->fork_file;
}

/*
 * fd's named streams as listed (":NAME:$DATA") with their sizes, on
 * mem_ctx: the stream xattrs when `streams` (the share has them; a
 * failed list counts as none, as before), less those the view hides,
 * then those the modules keep elsewhere.  sh->root_fd: the share's root
 * for the "._" file of share-relative path, or -1 (then it is not
 * listed); is_dir: a directory has no fork.  NT_STATUS_NO_MEMORY only.
 */
NTSTATUS vfs_stream_view_list(TALLOC_CTX *mem_ctx,
			      const struct vfs_stream_view *v,
			      const struct vfs_share *sh, const char *path,
			      int fd, bool streams, bool is_dir,
			      char ***names, uint64_t **sizes, size_t *n);

#endif
