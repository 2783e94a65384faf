/*
 * CREATE and symbolic links (issue 35): opening a link itself, and the
 * answer for a link the share's rules do not follow.  Split from
 * smb2_create.c, which calls these at its one lookup.
 *
 * How the share's parameters decide (Samba 4.17 follows links inside the
 * share for every client; Samba 4.22+ keeps that for clients without
 * the SMB3 POSIX extensions, which this server does not implement):
 *
 * - A link the server follows (`follow symlinks = yes`, the default: one
 *   whose target stays inside the share, or any with `wide links =
 *   yes`) is followed on open, as before: Windows Explorer, smbclient
 *   and macOS open through it and get its target, and Windows clients,
 *   whose default policy refuses remote-to-remote links, never have to
 *   follow one themselves.
 * - With FILE_OPEN_REPARSE_POINT (MS-FSA 2.1.5.1: the reparse point
 *   itself is opened) a link as the last component opens the link
 *   (O_PATH|O_NOFOLLOW), and so does a FIFO, socket or device (its NFS
 *   reparse point, not its data): its attributes say REPARSE_POINT, its
 *   FileAttributeTagInformation IO_REPARSE_TAG_SYMLINK,
 *   FSCTL_GET_REPARSE_POINT reads it and a delete removes the link,
 *   not its target (Windows' `del` and `rmdir` of a link, cifs.ko's
 *   readlink).
 * - A link the server does not follow (`follow symlinks = no`; one that
 *   leaves the share without `wide links`) is answered, wherever it is
 *   on the path, with STATUS_STOPPED_ON_SYMLINK and the Symbolic Link
 *   Error Response (MS-SMB2 2.2.2.2.1; on 3.1.1 as an error context,
 *   2.2.2.1), as Windows and Samba 4.22+ answer: a client may follow it
 *   on its own side.  The server never follows it out of the share.
 *   Samba 4.17 answers OBJECT_NAME_NOT_FOUND / OBJECT_PATH_NOT_FOUND
 *   there, ours ACCESS_DENIED before this.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/wire/reparse_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "lib/charset.h"
#include "vfs/name_map.h"
#include "vfs/symlink.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

void create_link_stopped(struct create_state *st, size_t comp,
			 const char *link_path)
{
	NTSTATUS s = vfs_link_target(st, &st->share, st->share.root_fd,
				     link_path, link_path, &st->link_target,
				     &st->link_relative);

	if (!NT_STATUS_IS_OK(s)) {
		/* gone meanwhile (or unreadable): as a missing name */
		st->status = NT_STATUS_OBJECT_PATH_NOT_FOUND;
		return;
	}
	st->link_comp = comp;
	st->status = NT_STATUS_STOPPED_ON_SYMLINK;
}

/* The number of components of path (as vfs_resolve counts them). */
static size_t path_comps(const char *path)
{
	size_t n = 0;

	while (*path != '\0') {
		size_t len = strcspn(path, "/");

		n += len > 0;
		path += len;
		path += *path == '/';
	}
	return n;
}

/* The reparse point's own open: the last component, with FILE_OPEN_
 * REPARSE_POINT.  fd is its O_PATH|O_NOFOLLOW descriptor. */
static void create_link_open_self(struct create_state *st, int fd)
{
	struct stat to;

	if (st->disposition == FILE_CREATE) {
		st->status = NT_STATUS_OBJECT_NAME_COLLISION;
	} else if (st->disposition != FILE_OPEN &&
		   st->disposition != FILE_OPEN_IF) {
		/* An overwrite would give a link (or FIFO, socket,
		 * device) data it cannot hold; FSCTL_DELETE_REPARSE_POINT
		 * first makes a link a file. */
		st->status = NT_STATUS_ACCESS_DENIED;
	} else {
		st->status = vfs_fstat_info(fd, &st->fi);
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		vfs_fd_close(fd);
		return;
	}
	st->fd = fd;
	st->opath = true;
	st->fi_valid = true;
	st->link_open = true;
	st->action = FILE_OPENED;
	/* A link to a directory shows FILE_ATTRIBUTE_DIRECTORY as well, as
	 * Windows' directory links do (`dir` says <SYMLINKD>); the open is
	 * the link's, never the directory's. */
	st->link_dir = vfs_stat_beneath(&st->share, st->share.root_fd,
					st->real_path, &to) == 0 &&
		       S_ISDIR(to.st_mode);
}

/* A reparse point of this file system: a link, FIFO, socket, device. */
static bool is_reparse_point(mode_t mode)
{
	return !S_ISREG(mode) && !S_ISDIR(mode);
}

bool create_link_open(struct create_state *st, const struct vfs_resolved *r)
{
	bool self = (st->options & FILE_OPEN_REPARSE_POINT) &&
		    st->stream == NULL && !st->data_stream;
	struct stat sb;
	int fd;

	if (!r->exists ||
	    (r->have_stat && !S_ISLNK(r->stat.st_mode) &&
	     !(self && is_reparse_point(r->stat.st_mode)))) {
		return false;	/* the common case: no call at all */
	}
	fd = vfs_openat_beneath(&st->share, st->share.root_fd, r->path,
				O_PATH | O_NOFOLLOW, 0);
	if (fd == -1) {
		return false;	/* the open below says why */
	}
	if (!NT_STATUS_IS_OK(vfs_fd_stat(fd, &sb)) ||
	    !is_reparse_point(sb.st_mode) ||
	    (!S_ISLNK(sb.st_mode) && !self)) {
		vfs_fd_close(fd);
		return false;
	}
	if (self) {
		/* The reparse point itself: the link, or the FIFO, socket
		 * or device as the NFS reparse point it is, never its data
		 * (so never a wait for a FIFO's writer). */
		create_link_open_self(st, fd);
		return true;
	}
	vfs_fd_close(fd);
	/* Does the server follow it?  Then the open below does; a
	 * dangling one, the open says NOT_FOUND. */
	if (!vfs_link_refused(&st->share, st->share.root_fd, r->path)) {
		return false;
	}
	create_link_stopped(st, path_comps(st->path) - 1, r->path);
	return true;
}

/*
 * UnparsedPathLength (2.2.2.2.1): the bytes of the client's path after
 * the link's component, its '\' included: the components of st->path
 * past link_comp, in their wire spelling.
 */
static uint16_t create_link_unparsed(struct smb2_request *req,
				     struct create_state *st)
{
	const char *p = st->path;
	size_t i = 0, n = 0;
	char *rest, *wire;
	uint8_t *u16;

	while (*p != '\0' && i <= st->link_comp) {
		size_t len = strcspn(p, "/");

		i += len > 0;
		p += len;
		if (i <= st->link_comp) {
			p += *p == '/';
		}
	}
	if (*p == '\0') {
		return 0;
	}
	rest = talloc_strdup(req->mem_ctx, p);
	wire = rest == NULL ? NULL
			    : vfs_name_map_apply(req->mem_ctx,
						 req->tcon->share.name_map,
						 VFS_NAME_TO_WIRE, rest);
	if (wire == NULL ||
	    !NT_STATUS_IS_OK(charset_utf8_to_utf16(req->mem_ctx, wire, &u16,
						   &n))) {
		return 0;
	}
	return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

NTSTATUS create_link_error(struct smb2_request *req, struct create_state *st)
{
	struct wire_buf b;
	NTSTATUS s;

	wire_buf_init(&b, req->mem_ctx, 64);
	s = reparse_symlink_error_push(&b, st->link_target, st->link_relative,
				       create_link_unparsed(req, st));
	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	/* 2.2.2: ErrorData; on 3.1.1 in an ERROR Context of ErrorId 0
	 * (2.2.2.1), as Windows sends it. */
	if (!smb2_request_error_data(req, b.data, b.len, true)) {
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_STOPPED_ON_SYMLINK;
}
