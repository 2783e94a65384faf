/*
 * What a share's modules decide about CREATE's names and streams (issue
 * 37: smb2/ asks this, never a module by name).  Taken from the share's
 * module stack on the loop thread, as a value (a job may outlive the
 * tree): with fruit, where AFP_AfpInfo and AFP_Resource are kept and how
 * "._" files are converted (vfs/fruit.c fills and reads it).  All zero
 * when no module takes over names or streams.
 */
#ifndef VFS_STREAM_POLICY_H
#define VFS_STREAM_POLICY_H

#include <stdbool.h>

struct vfs_handle_ops;
struct vfs_share;
struct vfs_stack;

struct vfs_stream_policy {
	bool active;	/* a module takes over names and streams */
	int meta;	/* the module's: where the metadata stream is kept */
	int rsrc;	/* the module's: where the resource stream is kept */
	unsigned conv;	/* the module's conversion flags */
};

/* The policy of stack s (NULL: all zero). */
void vfs_stream_policy_of(const struct vfs_stack *s,
			  struct vfs_stream_policy *p);

/* Whether CREATE may open an exactly spelled name in one call, before
 * any lookup: not where a name's "._" file becomes its streams first. */
static inline bool vfs_stream_policy_plain(const struct vfs_stream_policy *p)
{
	return !p->active;
}

/*
 * CREATE found share-relative path (a writable share): what the modules
 * do to it before anything looks at it.  With fruit, a "._"
 * AppleDouble file next to it becomes its streams
 * (vfs_fruit_convert_adouble); a failure leaves the "._" file and is
 * logged there.
 */
void vfs_stream_policy_found(const struct vfs_stream_policy *p,
			     const struct vfs_share *sh, const char *path);

/*
 * The one choice of a stream handle's module (vfs/handle.h), made when
 * CREATE opens stream xattr (vfs_stream_xattr's) on a share with policy
 * p: fruit's AFP_AfpInfo (*mode: the meta), AFP_Resource (as the "._"
 * file's fork, vfs/fruit_rsrc.h, as a stream or as Netatalk's xattr:
 * delete-on-close ignored), else streams_xattr's.
 */
const struct vfs_handle_ops *
vfs_stream_handle_pick(const struct vfs_stream_policy *p, const char *xattr,
		       int *mode);

#endif
