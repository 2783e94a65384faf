/*
 * Apple's copyfile (the AAPL server caps OSX_COPYFILE, vfs/stack_props.h):
 * a copychunk of 0 chunks on a session that negotiated AAPL copies the
 * whole file, its data (smbd/smb2/smb2_copychunk.c) and then every named
 * stream the source lists, as the share's modules keep them (fruit's
 * AFP_AfpInfo record, its resource fork in the "._" file or Netatalk's
 * xattr, streams_xattr's streams; vfs/fruit_copy.c), as Samba's fruit
 * copies them.  The handler names no module: it makes each side on the
 * loop thread and runs the streams' copy in its last pool job.
 */
#ifndef VFS_COPYFILE_H
#define VFS_COPYFILE_H

#include <stddef.h>
#include <stdint.h>

#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/module.h"
#include "vfs/vfs.h"

struct vfs_copy_side;

/*
 * On the loop thread: one side of the copy, on mem_ctx: the file fd
 * (its data, not a stream; the caller's, left open), at share-relative
 * path of share, whose root (or the snapshot's the open is in) is
 * dup'ed here, with how stack s keeps streams.  *out is set also on
 * an error (then NT_STATUS_NO_MEMORY, or TOO_MANY_OPENED_FILES when the
 * root could not be dup'ed), for vfs_copy_side_close.
 */
NTSTATUS vfs_copy_side_new(TALLOC_CTX *mem_ctx, const struct vfs_stack *s,
			   const struct vfs_share *share, int root,
			   const char *path, int fd,
			   struct vfs_copy_side **out);

/* Close the side's dup of the root (in the pool: close(2) may block);
 * NULL, or a side closed already: nothing. */
void vfs_copy_side_close(struct vfs_copy_side *side);

/*
 * In the pool: every stream `from` lists, in that order, onto `to`,
 * through buf (buf_len bytes).  A stream `to` lists already ends the
 * copy with NT_STATUS_OBJECT_NAME_COLLISION, those before it stay
 * copied (Samba's fruit creates each with FILE_CREATE); when one was
 * copied, `to`'s file takes `from`'s write time, as Samba's copy gives
 * it when it closes the stream (as far as the user may set times).
 */
NTSTATUS vfs_copy_streams(TALLOC_CTX *mem_ctx,
			  const struct vfs_copy_side *from,
			  const struct vfs_copy_side *to, uint8_t *buf,
			  size_t buf_len);

#endif
