/*
 * A small text file of the server's own configuration read whole, and
 * whether it changed since (textfile.c): the `username map` file, which
 * smbd/smb2/user_map.c reads again when an admin edits it, as Samba
 * reads it at every logon.  Not a share's file: a path of smb.conf's,
 * read as the daemon, on the calling (loop) thread, as before issue 37.
 */
#ifndef VFS_TEXTFILE_H
#define VFS_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <talloc.h>
#include <time.h>

#include "lib/ntstatus.h"

/* What tells one version of the file from another. */
struct vfs_text_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* Whether path is still the file stamp describes (stat(2)). */
bool vfs_text_unchanged(const char *path, const struct vfs_text_stamp *stamp);

enum vfs_text_result {
	VFS_TEXT_OK,
	VFS_TEXT_NO_OPEN,	/* *status says why */
	VFS_TEXT_NOT_SMALL,	/* not a regular file of at most max bytes */
	VFS_TEXT_NO_READ,	/* out of memory or a read error */
};

/*
 * The whole of path (a regular file of at most max bytes, opened without
 * following it to a terminal or blocking on a FIFO), NUL-terminated, as a
 * talloc child of mem_ctx in *text, its length in *len, its stamp.
 */
enum vfs_text_result vfs_text_read(TALLOC_CTX *mem_ctx, const char *path,
				   size_t max, char **text, size_t *len,
				   struct vfs_text_stamp *stamp,
				   NTSTATUS *status);

#endif
