/*
 * fruit:copyfile (vfs_fruit.8): a Mac that was told OSX_COPYFILE in the
 * AAPL reply copies a file with one copychunk request of 0 chunks, and
 * the server copies the data and then every named stream the file has,
 * the Finder's AFP_AfpInfo and the resource fork included, as Samba's
 * fruit does (its fruit_offload_write_done copies each stream that
 * FileStreamInformation lists but ::$DATA).  The copy itself is the
 * copychunk job's (smbd/smb2/smb2_copychunk.c); what is here is the one
 * thing it needs from fruit: which streams a file has, as the share
 * keeps them.
 */
#ifndef VFS_FRUIT_COPY_H
#define VFS_FRUIT_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "vfs/vfs.h"
#include "vfs/fruit.h"

/* The stream whose name says where fruit:resource = file keeps it. */
#define VFS_FRUIT_RESOURCE "AFP_Resource"

/* A file and how its share keeps the file's streams. */
struct vfs_fruit_file {
	/* root_fd: the caller's dup of the share root (or of the
	 * snapshot the open is in), for the "._" file */
	struct vfs_share sh;
	int fd;			/* the file (its data, not a stream) */
	const char *path;	/* share-relative, '/' separated */
	/* fruit:metadata: AFP_AfpInfo exists only with a valid record,
	 * kept as a stream or in Netatalk's xattr (vfs/fruit.h); NONE: an
	 * ordinary stream */
	enum vfs_fruit_meta meta;
	/* fruit:resource = file: AFP_Resource is the fork in the "._"
	 * file (vfs/fruit_rsrc.h), not an xattr */
	bool rsrc_file;
	/* fruit:resource = xattr: AFP_Resource is Netatalk's fork xattr
	 * VFS_RSRC_XATTR */
	bool rsrc_xattr;
};

/*
 * The names ("NAME", as stored: no ':' and no ":$DATA") of the streams
 * FileStreamInformation lists for f, on mem_ctx: its stream xattrs where
 * the share has streams, but for an AFP_AfpInfo that holds no valid
 * record (meta) and, with rsrc_file or rsrc_xattr, the xattr
 * AFP_Resource; with netatalk AFP_AfpInfo while Netatalk's xattr holds
 * a record; VFS_FRUIT_RESOURCE while the "._" file (rsrc_file) or
 * Netatalk's fork xattr (rsrc_xattr) holds a fork that is not empty (a
 * "._" file fruit cannot use: none).  Errors are the file system's.
 */
NTSTATUS vfs_fruit_stream_names(TALLOC_CTX *mem_ctx,
				const struct vfs_fruit_file *f, char ***names,
				size_t *count);

#endif
