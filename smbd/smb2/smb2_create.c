/*
 * CREATE (MS-SMB2 2.2.13, 2.2.14, 3.3.5.9; the open semantics of MS-FSA
 * 2.1.5.1).
 *
 * The loop thread checks the request and what the share allows; the
 * file-system work (resolve, open/create, stat) runs as the session's
 * user in the thread pool, so the kernel checks the Unix permissions
 * (and, on acl_xattr shares, smb2_create_access.c a stored NT ACL first).
 * Share modes, oplocks and leases go through locking/.  Durable opens
 * live in durable.c, the CREATE side of them in smb2_create_durable.c.
 *
 * This file holds the request checks, the open in the thread pool and
 * the share-mode step; the rest of CREATE is split out to keep files
 * small (shared declarations in smb2_create_private.h):
 * smb2_create_access.c the access checks (MS-FSA 2.1.5.1.2.1),
 * smb2_create_ctx_apply.c the table of create contexts and its walks
 * (2.2.13.2),
 * smb2_create_durable.c the durable contexts, reclaims and replays
 * (3.3.5.9.6/7/10/12), smb2_create_reply.c the response (2.2.14).  CLOSE
 * (3.3.5.10) is smb2_close.c.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/status.h"
#include "smbd/objects/oplock.h"
#include "smbd/objects/dirwatch.h"
#include "conf/loadparm.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "smbd/smbd.h"
#include "smbd/wire/create_ctx.h"
#include "smbd/objects/durable.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/wire/dfs_wire.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_file.h"
#include "smbd/conn/session.h"
#include "vfs/name_map.h"
#include "vfs/dosattrib.h"
#include "vfs/stream_policy.h"
#include "vfs/fsctl_io.h"
#include "smbd/smb2/aapl_session.h"
#include "vfs/name.h"
#include "vfs/streams.h"
#include "vfs/anchor.h"
#include "vfs/vfs_posix.h"
#include "vfs/module.h"
#include "vfs/msdfs.h"
#include "vfs/fault.h"
#include "vfs/snapshot.h"
#include "lib/log.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2


static void create_orphan(void *p)
{
	struct create_state *st = p;

	vfs_fd_close(st->fd);
	st->fd = -1;
	vfs_fd_close(st->aux_fd);
	st->aux_fd = -1;
}

static int create_state_destructor(struct create_state *st)
{
	vfs_stack_unref(st->vfs);
	create_parent_fd_close(st);
	/* A borrowed root goes back when its holder (st) is freed. */
	if (st->root_owned) {
		vfs_fd_close(st->share.root_fd);
	}
	return 0;
}

static int create_open_flags(const struct create_state *st, bool is_dir)
{
	if (is_dir) {
		return O_RDONLY | O_DIRECTORY;
	}
	if (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA)) {
		return O_RDWR;
	}
	return O_RDONLY;
}

/* What create_new made goes again when it cannot be finished (a bad
 * SecD or ExtA context): nobody has seen it. */
static void create_new_undo(struct create_state *st, bool dir)
{
	struct vfs_file_id id = vfs_file_id_of_fd(st->fd);

	vfs_fd_close(st->fd);
	st->fd = -1;
	st->aux_fd = -1;
	(void)vfs_unlink_anchored(&st->share, st->share.root_fd, st->real_path,
				  dir, &id);
}

/* Create a new file or directory (the name does not exist). */
/* `inherit permissions`: the mode of the directory the new name goes
 * in; 0 when the share does not inherit (or the parent is gone, which the
 * create itself then reports). */
static mode_t create_parent_mode(struct create_state *st)
{
	struct stat sb;
	const char *base;
	int pfd;

	if (!st->share.inherit_permissions) {
		return 0;
	}
	pfd = vfs_open_parent(&st->share, st->share.root_fd, st->real_path,
			      &base);
	if (pfd == -1) {
		return 0;
	}
	if (!NT_STATUS_IS_OK(vfs_fd_stat(pfd, &sb))) {
		sb.st_mode = 0;
	}
	vfs_fd_close(pfd);
	return sb.st_mode & 07777;
}

static void create_new(struct create_state *st)
{
	bool dir = (st->options & FILE_DIRECTORY_FILE) != 0;
	mode_t mode;

	st->new_dos_stored = false;
	/* MS-FSA 2.1.5.1.1: a new read-only file cannot be delete-on-close;
	 * refused before anything is created (smb2.delete-on-close-perms
	 * READONLY creates the same name again next). */
	if ((st->options & FILE_DELETE_ON_CLOSE) &&
	    (st->attrs & FILE_ATTRIBUTE_READONLY)) {
		st->status = NT_STATUS_CANNOT_DELETE;
		return;
	}
	if (st->share.acl_xattr && !create_parent_allows(st, dir)) {
		st->status = NT_STATUS_ACCESS_DENIED;
		return;
	}
	/* New files are ARCHIVE (MS-FSA 2.1.5.1.2.1), which `map archive`
	 * turns into the owner's execute bit. */
	mode = vfs_mode_from_dos(&st->share,
				 st->attrs | (dir ? 0 : FILE_ATTRIBUTE_ARCHIVE),
				 dir, create_parent_mode(st));
	if (dir) {
		st->status = vfs_mkdir_anchored(&st->share, st->share.root_fd,
						st->real_path, mode);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
		st->status = vfs_handle_openat(&st->share,
					       st->share.root_fd,
					       st->real_path,
					       O_RDONLY | O_DIRECTORY, 0,
					       &st->fd);
	} else {
		st->status = vfs_handle_openat(&st->share,
					       st->share.root_fd,
					       st->real_path,
					       O_RDWR | O_CREAT | O_EXCL, mode,
					       &st->fd);
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	st->action = FILE_CREATED;
	if (st->share.acl_xattr) {
		create_set_ntacl(st, dir);
		if (!NT_STATUS_IS_OK(st->status)) {
			create_new_undo(st, dir);
			return;
		}
	} else if (st->sd != NULL) {
		struct stat sb;
		mode_t m;

		if (NT_STATUS_IS_OK(vfs_fd_stat(st->fd, &sb)) &&
		    NT_STATUS_IS_OK(secdesc_to_mode(st->sd, st->sd_len,
						    SECINFO_DACL, sb.st_uid,
						    sb.st_gid, sb.st_mode, &m)) &&
		    m != sb.st_mode) {
			(void)vfs_handle_chmod(st->fd, m & 07777);
		}
	}
	if (st->share.store_dos_attributes) {
		struct vfs_file_info fi;
		struct dos_info di;

		memset(&di, 0, sizeof(di));
		di.attrs = (st->attrs & FILE_ATTRIBUTE_SETTABLE) |
			   (dir ? FILE_ATTRIBUTE_DIRECTORY
				: FILE_ATTRIBUTE_ARCHIVE);
		/* The creation time goes with the attributes, as Samba
		 * 4.17 writes it (version 5, ATTRIB|CREATE_TIME): it then
		 * stays whatever happens to the other times. */
		if (NT_STATUS_IS_OK(vfs_fstat_info(st->fd, &fi))) {
			di.has_create_time = true;
			di.create_time = fi.create_time;
		}
		st->new_dos_stored = NT_STATUS_IS_OK(dosattrib_fset(st->fd,
								    &di));
		st->new_dos = di;
	}
	create_set_eas(st);
	if (!NT_STATUS_IS_OK(st->status)) {
		create_new_undo(st, dir);
	}
}

/* Open an existing name, with the disposition's truncation. */
static void create_existing(struct create_state *st, bool is_dir)
{
	int flags = create_open_flags(st, is_dir);
	bool overwrite = st->disposition == FILE_OVERWRITE ||
			 st->disposition == FILE_OVERWRITE_IF ||
			 st->disposition == FILE_SUPERSEDE;

	if (is_dir && overwrite) {
		st->status = NT_STATUS_INVALID_PARAMETER;
		return;
	}
	if (overwrite) {
		/* MS-FSA 2.1.5.1.2.2: a read-only file cannot be
		 * overwritten, and HIDDEN/SYSTEM must be asked for again;
		 * check before O_TRUNC destroys anything. */
		struct vfs_file_info old;
		int fd0 = vfs_openat_beneath(&st->share, st->share.root_fd,
					     st->real_path, O_RDONLY, 0);

		if (fd0 != -1 && NT_STATUS_IS_OK(vfs_fstat_info(fd0, &old))) {
			vfs_fill_dos_attributes(&st->share, fd0, false,
						st->real_path, &old);
			if ((old.attributes & FILE_ATTRIBUTE_READONLY) ||
			    ((old.attributes &
			      (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM)) &
			     ~st->attrs) != 0) {
				st->status = NT_STATUS_ACCESS_DENIED;
				vfs_fd_close(fd0);
				return;
			}
		}
		vfs_fd_close(fd0);
		/* Truncated later, after the share-mode check (create_done):
		 * another open may forbid writing. */
		flags = O_RDWR;
		st->need_truncate = true;
	}
	if (!is_dir && flags == O_RDONLY && !st->read_only_share &&
	    (st->access & SEC_FLAG_MAXIMUM_ALLOWED)) {
		/* MAXIMUM_ALLOWED may grant write access: open for writing
		 * when the permissions allow it, or a later SET_INFO EOF or
		 * WRITE through it would fail (smb2.oplock.batch11's
		 * setpathinfo). */
		st->fd = vfs_openat_beneath_info(&st->share,
						 st->share.root_fd,
						 st->real_path, O_RDWR, 0,
						 &st->fi);
		if (st->fd != -1) {
			st->fi_valid = true;
			goto opened;
		}
	}
	/* Overwrite: the information comes after the truncation; else
	 * the open's statx is the type check on the fd and st->fi, as for
	 * create_open_exact.  Attribute-only access needs no permission on
	 * the data, nor data at all: a socket opens O_PATH, as in Samba,
	 * for its attributes or its delete. */
	st->status = vfs_handle_open_existing(
		&st->share, st->share.root_fd, st->real_path, flags,
		overwrite ? NULL : &st->fi,
		!overwrite && !(st->access & (SEC_FILE_READ_DATA |
					      SEC_FILE_WRITE_DATA |
					      SEC_FILE_APPEND_DATA |
					      SEC_FILE_EXECUTE)),
		&st->fd, &st->opath);
	st->fi_valid = !overwrite && NT_STATUS_IS_OK(st->status) &&
		       !st->opath;
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
opened:
	st->action = st->disposition == FILE_SUPERSEDE ? FILE_SUPERSEDED
		     : overwrite			 ? FILE_OVERWRITTEN
							 : FILE_OPENED;
}

/* Overwrite/supersede, once share modes allowed it: empty the file, give
 * it the attributes asked for, reserve AlSi, stat again. */
static void create_truncate_job(void *p)
{
	struct create_state *st = p;
	/* A device has nothing to empty: its overwrite opens it, as
	 * Samba's O_TRUNC open does (vfs_handle_truncate_data). */
	NTSTATUS ts = vfs_handle_truncate_data(st->fd);

	if (!NT_STATUS_IS_OK(ts)) {
		st->status = ts;
	}
	if (NT_STATUS_IS_OK(st->status) && st->share.streams) {
		/* The file is replaced, its named streams with it (MS-FSA
		 * 2.1.5.1.2.1; Samba and smbtorture's
		 * smb2.streams.create-disposition): a Zone.Identifier or a
		 * Mac's resource fork must not outlive the data. */
		st->status = vfs_stream_delete_all(st->fd);
	}
	if (NT_STATUS_IS_OK(st->status) && st->share.store_dos_attributes) {
		struct dos_info di;

		memset(&di, 0, sizeof(di));
		(void)dosattrib_fget(st->fd, &di);
		di.attrs = (st->attrs & FILE_ATTRIBUTE_SETTABLE) |
			   FILE_ATTRIBUTE_ARCHIVE;
		(void)dosattrib_fset(st->fd, &di);
	}
	if (NT_STATUS_IS_OK(st->status) && st->alloc_size > 0) {
		vfs_handle_reserve(st->fd, st->alloc_size);
	}
	create_set_eas(st);
	if (NT_STATUS_IS_OK(st->status)) {
		st->status = vfs_fstat_info(st->fd, &st->fi);
	}
	if (NT_STATUS_IS_OK(st->status)) {
		vfs_fill_dos_attributes(&st->share, st->fd, false,
					st->real_path, &st->fi);
	}
	vfs_fd_close(st->fd);
	st->fd = -1;
	st->aux_fd = -1;
}


/* The stream handle CREATE is making (vfs/handle.h). */
static struct vfs_handle create_stream_handle(const struct create_state *st)
{
	struct vfs_handle h = {.ops = st->hops,
			       .fd = st->fd,
			       .xattr = st->stream_xattr,
			       .mode = st->hmode};

	return h;
}

/*
 * The disposition applied to a stream that exists or not: false with
 * st->status set when it refuses or a reset fails.
 */
static bool create_stream_disposition(struct create_state *st, bool exists)
{
	struct vfs_handle h;
	bool existed = exists;

	switch (st->disposition) {
	case FILE_OPEN:
	case FILE_OVERWRITE:
		if (!exists) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return false;
		}
		break;
	case FILE_CREATE:
		if (exists) {
			st->status = NT_STATUS_OBJECT_NAME_COLLISION;
			return false;
		}
		break;
	default:
		break;
	}
	if (exists && st->disposition != FILE_OVERWRITE &&
	    st->disposition != FILE_OVERWRITE_IF &&
	    st->disposition != FILE_SUPERSEDE) {
		st->action = FILE_OPENED;
		return true;
	}
	if (st->read_only_share) {
		st->status = NT_STATUS_ACCESS_DENIED;
		return false;
	}
	/* created or emptied as its module keeps it (vfs/handle.h) */
	h = create_stream_handle(st);
	st->status = h.ops->stream_reset(&h, &st->share, st->real_path,
					 &st->aux_fd);
	if (!NT_STATUS_IS_OK(st->status)) {
		return false;
	}
	st->action = !existed ? FILE_CREATED
		     : st->disposition == FILE_SUPERSEDE ? FILE_SUPERSEDED
							  : FILE_OVERWRITTEN;
	return true;
}

/*
 * A named stream (vfs/streams.h): the base file is found or created, then
 * the disposition applies to the stream itself.
 */
static void create_stream(struct create_state *st, bool base_exists)
{
	bool writes = st->disposition != FILE_OPEN ||
		      (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
				     SEC_STD_DELETE | SEC_FLAG_MAXIMUM_ALLOWED));
	struct vfs_handle h;
	bool exists = false;
	uint64_t size = 0;

	if (st->options & FILE_DIRECTORY_FILE) {
		st->status = NT_STATUS_NOT_A_DIRECTORY;
		return;
	}
	if (!base_exists) {
		if (st->disposition == FILE_OPEN ||
		    st->disposition == FILE_OVERWRITE) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return;
		}
		st->options |= FILE_NON_DIRECTORY_FILE;
		create_new(st);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	} else {
		const char *p = st->real_path[0] ? st->real_path : ".";

		st->status = vfs_handle_openat(&st->share, st->share.root_fd,
					       p, writes ? O_RDWR : O_RDONLY,
					       0, &st->fd);
		if (st->status == NT_STATUS_FILE_IS_A_DIRECTORY) {
			/* a directory's streams: read-only base (EISDIR) */
			st->status = vfs_handle_openat(
				&st->share, st->share.root_fd, p,
				O_RDONLY | O_DIRECTORY, 0, &st->fd);
		}
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	}
	st->status = vfs_stream_xattr(st, st->fd, st->stream,
				      &st->stream_xattr, &exists);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	/* The handle's module, chosen once (vfs/handle.h), says whether
	 * the stream is there and keeps it */
	st->hops = vfs_stream_handle_pick(&st->streams, st->stream_xattr,
					  &st->hmode);
	h = create_stream_handle(st);
	st->status = h.ops->stream_open(st, &h, &st->share, st->real_path,
					writes, &st->aux_fd,
					&st->stream_xattr, &exists);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	h = create_stream_handle(st);
	if (exists && st->aapl_session && st->disposition == FILE_OPEN &&
	    h.ops->stream_empty(&h, st->aux_fd)) {
		/* Samba's fruit: on a Mac's session an empty named stream
		 * is not there for a plain open (smbtorture vfs.fruit
		 * "empty_stream", "setinfo eof stream") */
		exists = false;
	}
	if (!create_stream_disposition(st, exists)) {
		return;
	}
	st->status = vfs_fstat_info(st->fd, &st->fi);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	vfs_fill_dos_attributes(&st->share, st->fd, false, st->real_path,
				&st->fi);
	/* The size; the handle's fd from here on (a module may read and
	 * write another file's); the identity (st->fi) stays the base
	 * file's. */
	h = create_stream_handle(st);
	st->status = h.ops->stream_opened(&h, &st->aux_fd, &size);
	st->fd = h.fd;
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	/* The handle is the stream's: its size, a file's attributes. */
	st->fi.is_dir = false;
	st->fi.end_of_file = size;
	st->fi.allocation_size = (size + 4095) & ~(uint64_t)4095;
	st->fi.attributes &= ~FILE_ATTRIBUTE_DIRECTORY;
	if (st->fi.attributes == 0) {
		st->fi.attributes = FILE_ATTRIBUTE_NORMAL;
	}
	create_access(st, st->real_path[0] ? st->real_path : ".");
}

/*
 * The most common CREATE in one call: a plain open (FILE_OPEN, FILE_OPEN_IF)
 * of a name that exists exactly as spelled.  The open itself, under the
 * share's resolve rules and not following a symlink at the end, stands
 * for the lookup's open, stat and close (issue 18's syscall count); its
 * fstat is the one the open needs anyway (st->fi, st->fi_valid).  Returns
 * false, with nothing open, for anything else (no such name, another
 * case, a symlink, a directory opened for writing, EACCES, an open of a
 * reparse point itself: smb2_create_link.c): the general
 * path then says what it is, and *absent says the name was not there.
 */
static bool create_open_exact(struct create_state *st, bool *absent)
{
	int flags = create_open_flags(st, false);
	NTSTATUS status;
	int fd;

	*absent = false;
	if (st->stream != NULL || !vfs_stream_policy_plain(&st->streams) ||
	    st->path[0] == '\0' ||
	    (st->options & FILE_OPEN_REPARSE_POINT) ||
	    (st->disposition != FILE_OPEN &&
	     st->disposition != FILE_OPEN_IF) ||
	    (st->access & SEC_FLAG_MAXIMUM_ALLOWED) ||
	    vfs_fault_armed(VFS_FAULT_OPEN) ||
	    vfs_path_vetoed(&st->share, st->path)) {
		return false;
	}
	/* The open's statx is the type check on the fd (a FIFO, vfs_posix.h)
	 * and st->fi at once. */
	status = vfs_handle_openat_info(&st->share, st->share.root_fd,
					st->path, flags | O_NOFOLLOW, 0,
					&st->fi, &fd);
	if (!NT_STATUS_IS_OK(status)) {
		/* ENOENT's, and only its */
		*absent = status == NT_STATUS_OBJECT_NAME_NOT_FOUND;
		return false;
	}
	st->real_path = talloc_strdup(st, st->path);
	if (st->real_path == NULL) {
		vfs_fd_close(fd);
		return false;
	}
	st->fd = fd;
	st->fi_valid = true;
	if (st->fi.is_dir && st->data_stream) {
		/* A directory has no unnamed data stream. */
		st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
	} else if (st->fi.is_dir &&
		   (st->options & FILE_NON_DIRECTORY_FILE)) {
		st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
	} else if (!st->fi.is_dir && (st->options & FILE_DIRECTORY_FILE)) {
		st->status = NT_STATUS_NOT_A_DIRECTORY;
	} else {
		st->action = FILE_OPENED;
		return true;
	}
	vfs_fd_close(fd);
	st->fd = -1;
	return true;
}

/*
 * Find the name and open or create it as the disposition says.  Returns
 * true when the create lost a race: the name did not exist at the lookup
 * but did when we made it (another client, or another worker, created it
 * in between; smbtorture smb2.create.mkdir-dup makes two FILE_OPEN_IF
 * creates of one directory at once).  Such an open is looked up again, so
 * the loser opens the winner's object as MS-FSA 2.1.5.1 would have done
 * had it come second.
 */
static bool create_lookup_open(struct create_state *st)
{
	struct vfs_resolved r;
	struct stat sb;
	bool is_dir = false, absent;

	st->fi_valid = false;
	if (create_open_exact(st, &absent)) {
		return false;
	}
	st->status = vfs_resolve_known(st, &st->share, st->path, absent, &r);
	if (st->status == NT_STATUS_STOPPED_ON_SYMLINK) {
		create_link_stopped(st, r.link_comp, r.link_path);
		return false;
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		return false;
	}
	st->real_path = r.path;
	if (create_link_open(st, &r)) {
		return false;
	}
	if (r.exists && !st->read_only_share) {
		/* What the modules do to a name found before anything
		 * looks at its streams (fruit's "._" conversion) */
		vfs_stream_policy_found(&st->streams, &st->share, r.path);
	}
	if (st->stream != NULL) {
		create_stream(st, r.exists);
		return false;
	}
	if (r.exists) {
		/* The lookup's own lstat serves unless the name is a
		 * symlink (which the share's rules may follow). */
		if (r.have_stat && !S_ISLNK(r.stat.st_mode)) {
			sb = r.stat;
		} else {
			st->status = vfs_handle_stat_beneath(
				&st->share, st->share.root_fd, r.path, &sb,
				NULL);
			if (!NT_STATUS_IS_OK(st->status)) {
				return false;
			}
		}
		is_dir = S_ISDIR(sb.st_mode);
		if (is_dir && st->data_stream) {
			/* A directory has no unnamed data stream. */
			st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
			return false;
		}
		if (st->disposition == FILE_CREATE) {
			st->status = NT_STATUS_OBJECT_NAME_COLLISION;
			return false;
		}
		if (is_dir && (st->options & FILE_NON_DIRECTORY_FILE)) {
			st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
			return false;
		}
		if (!is_dir && (st->options & FILE_DIRECTORY_FILE)) {
			st->status = NT_STATUS_NOT_A_DIRECTORY;
			return false;
		}
		if (st->read_only_share &&
		    st->disposition != FILE_OPEN &&
		    st->disposition != FILE_OPEN_IF) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return false;
		}
		create_existing(st, is_dir);
	} else {
		if (st->disposition == FILE_OPEN ||
		    st->disposition == FILE_OVERWRITE) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return false;
		}
		if (st->read_only_share) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return false;
		}
		create_new(st);
		return st->fd == -1 &&
		       st->status == NT_STATUS_OBJECT_NAME_COLLISION &&
		       st->disposition != FILE_CREATE;
	}
	return false;
}

static void create_job_run(struct create_state *st)
{
	if (st->snapshot) {
		int sfd;

		/* Everything below resolves beneath the snapshot's copy of
		 * the share root instead of the live one. */
		st->status = vfs_stack_snap_root(st->vfs, &st->share,
						 st->snap_time, &sfd);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
		/* the tree's root stays borrowed until st goes */
		st->share.root_fd = sfd;
		st->root_owned = true;
	}
	if (create_lookup_open(st)) {
		st->status = NT_STATUS_OK;
		(void)create_lookup_open(st);
	}
	/* A stream's open is complete (create_stream): its handle has the
	 * stream's size and a file's attributes, not its file's. */
	if (!NT_STATUS_IS_OK(st->status) || st->stream != NULL) {
		return;
	}
	/* Only an open that made the entry, or may change or delete it,
	 * will break its directory's leases: a read or stat open (most of
	 * them) costs nothing here. */
	if (st->want_parent && !st->snapshot &&
	    (st->action != FILE_OPENED ||
	     (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
			    SEC_FILE_WRITE_ATTRIBUTE | SEC_STD_DELETE |
			    SEC_FLAG_MAXIMUM_ALLOWED)) ||
	     (st->options & FILE_DELETE_ON_CLOSE))) {
		/* A change of the object is a change of its entry there. */
		st->parent = vfs_parent_id(st->share.root_fd, st->real_path);
	}
	if (st->alloc_size > 0 && !st->opath && st->action != FILE_OPENED &&
	    !(st->options & FILE_DIRECTORY_FILE)) {
		/* Reserve the space asked for; a file system that cannot
		 * (tmpfs without it, say) still gets the open. */
		vfs_handle_reserve(st->fd, st->alloc_size);
	}
	if (!st->fi_valid) {
		st->status = vfs_fstat_info(st->fd, &st->fi);
	}
	if (NT_STATUS_IS_OK(st->status) && st->new_dos_stored &&
	    st->action == FILE_CREATED) {
		vfs_fill_dos_attributes_known(&st->share, &st->new_dos,
					      st->real_path, &st->fi);
	} else if (NT_STATUS_IS_OK(st->status)) {
		vfs_fill_dos_attributes(&st->share, st->fd, st->opath,
					st->real_path, &st->fi);
		if (st->link_dir) {
			st->fi.attributes |= FILE_ATTRIBUTE_DIRECTORY;
		}
	}
	/* Always: the desired access is checked against it (until NT ACLs
	 * are stored, the Unix permissions decide, MS-FSA 2.1.5.1.2.1). */
	if (NT_STATUS_IS_OK(st->status)) {
		create_access(st, st->real_path[0] ? st->real_path : ".");
	}
}

/*
 * A DFS root (`msdfs root`): a path that reaches or goes through an
 * msdfs link is not ours to open but the link's targets' (MS-SMB2
 * 3.3.5.9, MS-DFSC 3.1.4.1: the client then asks for a referral).
 * Such an open always fails here, the link dangling, so only a failed
 * one looks for a link on its path, as the user, and whatever it failed
 * with becomes STATUS_PATH_NOT_COVERED, Samba's answer for any
 * disposition.  (A link whose "msdfs:..." target happens to exist as a
 * file in the same directory opens that file.)
 */
static void create_msdfs_check(struct create_state *st)
{
	size_t depth = 0;
	char *text = NULL;

	if (NT_STATUS_IS_OK(vfs_msdfs_find(st, &st->share, st->path, &depth,
					   &text)) &&
	    depth > 0) {
		st->status = NT_STATUS_PATH_NOT_COVERED;
	}
	talloc_free(text);
}

static void create_job(void *p)
{
	struct create_state *st = p;

	create_job_run(st);
	if (st->share.msdfs && !NT_STATUS_IS_OK(st->status)) {
		create_msdfs_check(st);
	}
	create_parent_fd_close(st);	/* in the pool, not the loop */
}

static NTSTATUS create_truncate_done(struct smb2_request *req, void *p)
{
	struct create_state *st = p;
	struct smbd_open *op;
	NTSTATUS status;

	status = smbd_open_lookup(req, req->fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		talloc_free(op);
		return st->status;
	}
	return create_reply(req, st, op);
}

static NTSTATUS create_after_share(struct smb2_request *req,
				   struct create_state *st,
				   struct smbd_open *op, NTSTATUS status);

/*
 * The locking DB decides (locking/oplock.c): breaks of other holders,
 * share modes, and the oplock or lease this open gets.  The breaks go out
 * whatever the outcome; NT_STATUS_OPLOCK_BREAK_IN_PROGRESS means wait.
 */
static NTSTATUS create_share(struct smb2_request *req,
			     struct create_state *st, struct smbd_open *op)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	const struct lp_ctx *lp = w->srv->lp;
	struct share_open_req q;
	struct share_open_res res;
	struct file_key k;
	TALLOC_CTX *tmp;
	NTSTATUS status;

	if (db == NULL) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	memset(&q, 0, sizeof(q));
	smbd_open_keys(op, &k, &q.o);
	q.worker = (uint16_t)w->index;
	q.access_mask = op->access_mask;
	q.share_access = op->share_access;
	q.overwrite = st->need_truncate || st->action == FILE_OVERWRITTEN ||
		      st->action == FILE_SUPERSEDED;
	q.is_dir = op->is_dir;
	q.level2_ok = lp_bool(lp, req->tcon->snum, LP_LEVEL2_OPLOCKS);
	q.retry = st->waiter != NULL;
	if (st->lease) {
		q.caching = CACHING_LEASE;
		q.want = st->lease_state & CACHE_RWH;
		q.lease_version = st->lease_version;
		q.epoch = st->lease_epoch;
		memcpy(q.lease_key, st->lease_key, 16);
		memcpy(q.client_guid, req->conn->client_guid, 16);
	} else if (st->oplock_level != SMB2_OPLOCK_LEVEL_NONE &&
		   lp_bool(lp, req->tcon->snum, LP_OPLOCKS)) {
		q.caching = CACHING_OPLOCK;
		q.want = smbd_oplock_level_to_state(st->oplock_level);
	}
	if (st->lease) {
		/* 3.3.5.9.8: a lease key names one file of the client. */
		struct smbd_open *other = smbd_open_find_lease(req->conn,
							       st->lease_key);
		struct file_key ok;
		struct open_owner oo;

		if (other != NULL) {
			smbd_open_keys(other, &ok, &oo);
			if (ok.dev != k.dev || ok.ino != k.ino) {
				return NT_STATUS_INVALID_PARAMETER;
			}
		}
	}
	if (st->lease && op->is_dir &&
	    (!(req->conn->server_caps & SMB2_GLOBAL_CAP_DIRECTORY_LEASING) ||
	     st->lease_version != 2)) {
		/* Directory leases only where NEGOTIATE offered them, and
		 * only through the 3.x (v2) context (3.3.5.9.11); else the
		 * reply carries no lease (smb2.lease.request).  The locking
		 * DB grants a directory R and H at most. */
		st->lease = false;
		q.caching = CACHING_NONE;
	}
	if (st->lease && op->is_dir) {
		smbd_dirlease_arm(w);	/* before the grant (oplock.h) */
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = share_mode_open(db, tmp, &k, &q, &res);
	smbd_breaks_deliver(w, &k, res.breaks, res.nbreaks);
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	op->share_registered = true;
	if (op->stream != NULL) {
		struct file_key bk;
		struct open_owner bo;

		/* The file's own record hears of the stream open too. */
		smbd_open_locking_ids(op, &bk, &bo);
		status = share_mode_add_stream_ref(db, &bk, &bo,
						   st->share_access);
		if (!NT_STATUS_IS_OK(status)) {
			bool dn, db2;

			smbd_open_share_release(op, &dn, &db2);
			return status;
		}
		op->stream_ref = true;
	}
	smbd_status_open(op, true);
	if (st->lease) {
		/* The lease's version is its first open's. */
		st->lease_version = res.lease_version;
		op->caching = CACHING_LEASE;
		op->lease_version = st->lease_version;
		memcpy(op->lease_key, st->lease_key, 16);
		memcpy(op->client_guid, req->conn->client_guid, 16);
		memcpy(op->parent_lease_key, st->parent_key, 16);
		op->has_parent_key = st->has_parent_key;
		smbd_open_lease_link(op);
		if (op->is_dir && res.granted != 0) {
			/* Local changes break it too (dirwatch.h). */
			smbd_dirwatch_add(w, op);
		}
	} else if (res.granted != 0) {
		op->caching = CACHING_OPLOCK;
	}
	st->granted_state = res.granted;
	st->granted_epoch = res.epoch;
	st->lease_breaking = res.breaking;
	op->create_action = st->action;
	if (st->action != FILE_OPENED && op->stream == NULL) {
		/* A new, overwritten or superseded entry of its directory. */
		struct smbd_dir_change c;

		smbd_dir_change_of(op, &c);
		smbd_dirlease_break(w, &c);
	}
	if (st->want_durable &&
	    lp_bool(lp, req->tcon->snum, LP_DURABLE_HANDLES) &&
	    smbd_durable_grantable(op, st->lease, res.granted)) {
		smbd_durable_grant(op, &st->durable, req->session->uid);
		st->durable_granted = true;
	}
	if (op->delete_on_close) {
		struct open_owner o;

		smbd_open_keys(op, &k, &o);
		(void)share_mode_set_open_delete_on_close(db, &k, &o, true);
	}
	return NT_STATUS_OK;
}

static void create_wait_cancel(void *priv)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;
	struct smbd_open *op = smbd_open_by_id(req->conn->worker,
					       st->wait_open_id);

	TALLOC_FREE(st->waiter);
	talloc_free(op);
	smb2_frame_resume(req, NT_STATUS_CANCELLED);
}

static void create_wait_retry(void *priv, bool expired)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;
	struct smbd_worker *w = req->conn->worker;
	struct smbd_open *op = smbd_open_by_id(w, st->wait_open_id);
	NTSTATUS status;

	if (op == NULL) {
		/* Its tree or session went away while it waited. */
		TALLOC_FREE(st->waiter);
		smb2_frame_resume(req, NT_STATUS_NETWORK_NAME_DELETED);
		return;
	}
	if (expired) {
		/* 3.3.6.1: the holders did not answer in time; they get
		 * what the break said and the open goes on. */
		struct locking_db *db = smbd_locking(w);
		struct share_ack_res res;
		struct file_key k;
		struct open_owner o;
		TALLOC_CTX *tmp = talloc_new(NULL);

		smbd_open_keys(op, &k, &o);
		if (db != NULL && tmp != NULL) {
			(void)share_mode_break_timeout(db, tmp, &k, NULL, NULL,
						       NULL, &res);
			smbd_breaks_deliver(w, &k, res.breaks, res.nbreaks);
		}
		talloc_free(tmp);
	}
	status = create_share(req, st, op);
	if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		return;
	}
	TALLOC_FREE(st->waiter);
	status = create_after_share(req, st, op, status);
	smb2_frame_resume(req, status);
}

/* MS-SMB2 3.3.5.9: the open waits for the holders to acknowledge (an
 * interim STATUS_PENDING reply goes out; CANCEL ends the wait). */
static NTSTATUS create_wait(struct smb2_request *req, struct create_state *st,
			    struct smbd_open *op)
{
	struct file_key k;
	struct open_owner o;

	smbd_open_keys(op, &k, &o);
	st->req = req;
	st->wait_open_id = op->fid_volatile;
	st->waiter = smbd_waiter_add(st, req->conn->worker, &k,
				     create_wait_retry, st);
	if (st->waiter == NULL) {
		talloc_free(op);
		return NT_STATUS_NO_MEMORY;
	}
	smb2_request_set_cancel(req, create_wait_cancel, st);
	return SMBD_STATUS_ASYNC;
}

/*
 * The open exists; now the shared locking DB decides whether it may
 * (MS-FSA 2.1.5.1.2 share access, delete pending).  A file this CREATE
 * made is removed again when it may not be opened after all.
 */
static NTSTATUS create_done(struct smb2_request *req, void *p)
{
	struct create_state *st = p;
	struct smbd_open *op;
	uint32_t granted = 0;
	NTSTATUS status = st->status;

	if (NT_STATUS_IS_OK(status)) {
		status = create_grant(st, &granted);
	}
	if (!NT_STATUS_IS_OK(status)) {
		create_orphan(st);
		return status == NT_STATUS_STOPPED_ON_SYMLINK
			       ? create_link_error(req, st)
			       : status;
	}
	op = smbd_open_new(req->conn, req->session, req->tcon, st->fd);
	if (op == NULL) {
		create_orphan(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	st->aux_fd = -1;
	op->channel.seq = req->channel_seq;	/* 3.3.5.9 */
	op->is_dir = st->fi.is_dir;
	op->opath = st->opath;
	op->pdev = st->parent.dev;
	op->pino = st->parent.ino;
	op->path = talloc_steal(op, st->real_path);
	if (st->snapshot) {
		/* Later path-relative work on this open (a listing's
		 * symlinks) stays inside the snapshot. */
		(void)vfs_fd_dup(st->share.root_fd, &op->snap_root_fd);
		if (op->snap_root_fd == -1) {
			talloc_free(op);
			return NT_STATUS_TOO_MANY_OPENED_FILES;
		}
	}
	op->stream = talloc_steal(op, st->stream_xattr);
	if (op->stream != NULL && st->hops != NULL) {
		op->h.ops = st->hops;
		op->h.mode = st->hmode;
	}
	op->h.xattr = op->stream;
	op->access_mask = granted;
	op->share_access = st->share_access;
	op->create_options = st->options;
	op->create_disposition = st->disposition;
	op->delete_on_close =
		(st->options & FILE_DELETE_ON_CLOSE) != 0 &&
		!vfs_handle_has(&op->h, VFS_HANDLE_IGNORE_DELETE_ON_CLOSE);
	if (st->want_durable && st->durable.v2) {
		/* 3.3.5.9.10: a replay of this DH2Q finds the open by its
		 * CreateGuid, durable or not, and is refused while the
		 * CREATE still waits (create_pending). */
		op->has_create_guid = true;
		op->replay_ok = true;
		op->create_pending = true;
		memcpy(op->create_guid, st->durable.create_guid, 16);
		memcpy(op->client_guid, req->conn->client_guid, 16);
	}
	op->dev = st->fi.dev;
	op->ino = st->fi.ino;
	smbd_open_fid_bytes(op, req->fid);
	status = create_share(req, st, op);
	if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		return create_wait(req, st, op);
	}
	return create_after_share(req, st, op, status);
}

/* The share-mode entry exists (or was refused): finish the CREATE. */
static NTSTATUS create_after_share(struct smb2_request *req,
				   struct create_state *st,
				   struct smbd_open *op, NTSTATUS status)
{
	op->create_pending = false;
	if (!NT_STATUS_IS_OK(status)) {
		if (st->action == FILE_CREATED && op->stream == NULL) {
			/* Nobody saw it: undo what this CREATE made.  On
			 * the loop thread, so only the very file it made
			 * (its inode), under its own directory. */
			struct vfs_file_id id = {op->dev, op->ino};

			(void)vfs_unlink_anchored(&req->tcon->share,
						  req->tcon->share.root_fd,
						  op->path, op->is_dir, &id);
		}
		talloc_free(op);
		return status;
	}
	if (st->need_truncate && op->stream == NULL) {
		status = vfs_fd_dup(op->h.fd, &st->fd);
		if (!NT_STATUS_IS_OK(status)) {
			talloc_free(op);
			return status;
		}
		return smb2_job_run(req, st, create_truncate_job,
				    create_truncate_done, create_orphan);
	}
	return create_reply(req, st, op);
}

/* Desired-access bits no open can be granted (reserved, MS-DTYP 2.4.3). */
#define SEC_ACCESS_RESERVED 0x0ce0fe00u
/* FileAttributes a create may carry (MS-FSCC 2.6; the rest is invalid). */
#define FILE_ATTRIBUTES_VALID 0x00007fb7u
#define FILE_CREATE_TREE_CONNECTION 0x00000080

/*
 * 3.3.5.9 checks on the fixed fields that need no file system, in the
 * order Windows applies them (smbtorture's gentest pins it down).
 */
static NTSTATUS create_check_fields(uint32_t imp, uint32_t disposition,
				    uint32_t options, uint32_t attrs,
				    uint32_t access)
{
	if (imp > 3) {
		return NT_STATUS_BAD_IMPERSONATION_LEVEL;
	}
	if ((options & ~FILE_OPTIONS_VALID) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (access == 0 || (access & SEC_ACCESS_RESERVED) != 0) {
		/* Nothing, or what can never be granted. */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (access & SEC_FLAG_SYSTEM_SECURITY) {
		return NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	if (disposition > FILE_OVERWRITE_IF ||
	    (attrs & ~FILE_ATTRIBUTES_VALID) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((options & (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE)) ==
	    (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (options & (FILE_OPEN_BY_FILE_ID | FILE_RESERVE_OPFILTER |
		       FILE_CREATE_TREE_CONNECTION)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if ((options & FILE_DIRECTORY_FILE) &&
	    ((disposition != FILE_CREATE && disposition != FILE_OPEN &&
	      disposition != FILE_OPEN_IF) ||
	     (attrs & FILE_ATTRIBUTE_TEMPORARY))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((options & FILE_DELETE_ON_CLOSE) &&
	    !(access & (SEC_STD_DELETE | SEC_FLAG_MAXIMUM_ALLOWED |
			SEC_GENERIC_ALL))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* Whether the UTF-16LE name names a stream (a ':' anywhere, "::$DATA"
 * included: MS-FSCC 2.1.5 stream names). */
static bool name_has_stream_syntax(const uint8_t *name, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		if (name[i] == ':' && name[i + 1] == 0) {
			return true;
		}
	}
	return false;
}

/*
 * An open of a previous version (MS-SMB2 3.3.5.9: the snapshot is read
 * only): a request for a right that writes is refused as a read-only
 * volume refuses it, STATUS_MEDIA_WRITE_PROTECTED; nothing is created
 * or overwritten in it (the read-only-share rules of create_job).
 */
static NTSTATUS create_snapshot_check(struct create_state *st,
				      struct smbd_tcon *t)
{
	if ((st->access & SEC_RIGHTS_WRITE_ANY) ||
	    (st->options & FILE_DELETE_ON_CLOSE)) {
		return NT_STATUS_MEDIA_WRITE_PROTECTED;
	}
	st->read_only_share = true;
	st->vfs = vfs_stack_ref(t->vfs);
	return NT_STATUS_OK;
}

/*
 * The name the request opens (UTF-16LE; NULL and 0 for the share
 * root).  With SMB2_FLAGS_DFS_OPERATIONS it is "server\share\path"
 * (MS-SMB2 3.3.5.9): the path is what follows the share, as Samba takes
 * it on any share the client sets the flag on (dfs_wire.h).
 */
static NTSTATUS create_wire_name(struct smb2_request *req, uint16_t off,
				 uint16_t len, const uint8_t **name,
				 size_t *name_len)
{
	size_t skip;
	NTSTATUS status;

	*name = len > 0 ? req->in + off : NULL;
	*name_len = len;
	if (!(req->flags & SMB2_FLAGS_DFS_OPERATIONS) || len == 0) {
		return NT_STATUS_OK;
	}
	status = dfs_create_name_strip(req->mem_ctx, *name, len,
				       req->tcon->share_name, &skip);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*name += skip;
	*name_len -= skip;
	if (*name_len == 0) {
		*name = NULL;
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_create(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct smbd_tcon *t = req->tcon;
	struct create_state *st;
	uint32_t imp, access, attrs, share_access, disposition, options;
	uint32_t ctx_off, ctx_len;
	uint16_t name_off, name_len;
	const uint8_t *name;
	size_t nlen;
	char *path = NULL, *stream = NULL;
	bool snapshot = false;
	int64_t snap_time = 0;
	NTSTATUS status;

	uint8_t oplock_level = 0;
	bool reclaim;

	(void)wire_skip(b, 3);
	(void)wire_pull_u8(b, &oplock_level);
	(void)wire_pull_le32(b, &imp);
	(void)wire_skip(b, 16); /* SmbCreateFlags, Reserved */
	(void)wire_pull_le32(b, &access);
	(void)wire_pull_le32(b, &attrs);
	(void)wire_pull_le32(b, &share_access);
	(void)wire_pull_le32(b, &disposition);
	(void)wire_pull_le32(b, &options);
	(void)wire_pull_le16(b, &name_off);
	(void)wire_pull_le16(b, &name_len);
	(void)wire_pull_le32(b, &ctx_off);
	(void)wire_pull_le32(b, &ctx_len);

	/* 3.3.5.9.7/3.3.5.9.12: a reclaim ignores the fixed fields (the
	 * open has its access and options already). */
	reclaim = create_is_reconnect(req, ctx_off, ctx_len);
	status = reclaim ? NT_STATUS_OK
			 : create_check_fields(imp, disposition, options,
					       attrs, access);
	DBG_DEBUG("%s: CREATE access 0x%x attrs 0x%x share 0x%x disp %u "
		  "options 0x%x: %s\n",
		  req->conn->remote, access, attrs, share_access, disposition,
		  options, nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (t->ipc) {
		return smb2_pipe_create(req,
					name_len ? req->in + name_off : NULL,
					name_len, ntacl_map_generic(access));
	}
	status = create_wire_name(req, name_off, name_len, &name, &nlen);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!t->share.streams && vfs_name_wire_has_stream(name, nlen)) {
		/* No streams on this share: even "f::$DATA" (Samba 4.17
		 * without a streams module answers the same). */
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	status = vfs_name_from_wire(req->mem_ctx, name, nlen, &path, &stream);
	DBG_DEBUG("%s: CREATE '%s'%s%s: %s\n", req->conn->remote,
		  path ? path : "?", stream ? " stream " : "",
		  stream ? stream : "", nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		if (log_class_level[DBGC_CLASS] >= LOG_DEBUG) {
			char hex[129];
			size_t i;

			for (i = 0; i < nlen && i < 64; i++) {
				snprintf(hex + 2 * i, 3, "%02x", name[i]);
			}
			hex[2 * i] = '\0';
			DBG_DEBUG("refused name bytes: %s\n", hex);
		}
		return status;
	}
	/* vfs_catia: the client's characters to the on-disk ones */
	status = vfs_name_map_to_disk(req->mem_ctx, t->share.name_map, &path,
				      &stream);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}

	if (vfs_stack_has_snapshots(t->vfs)) {
		/* A previous version named by an @GMT component anywhere in
		 * the path, as Windows sends it (vfs/snapshot.h). */
		char *rest;

		status = vfs_gmt_strip(req->mem_ctx, path, &rest, &snapshot,
				       &snap_time);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		path = rest;
	}
	if (name_has_stream_syntax(name, nlen) &&
	    (options & FILE_DIRECTORY_FILE)) {
		/* A data stream is never a directory (MS-FSA 2.1.5.1:
		 * smbtorture smb2.streams.dir). */
		return NT_STATUS_NOT_A_DIRECTORY;
	}
	access = ntacl_map_generic(access);
	if (!reclaim && t->read_only && (access & SEC_RIGHTS_WRITE_ANY) &&
	    !(access & SEC_FLAG_MAXIMUM_ALLOWED)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	st = talloc_zero(NULL, struct create_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	st->aux_fd = -1;
	st->parent_fd = -1;
	if (!vfs_share_copy(st, &st->share, &t->share)) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->share.root_fd = smbd_tcon_root_borrow(t, st);
	talloc_set_destructor(st, create_state_destructor);
	st->path = talloc_steal(st, path);
	st->stream = talloc_steal(st, stream);
	st->data_stream = stream == NULL && name_has_stream_syntax(name, nlen);
	st->disposition = disposition;
	st->options = options;
	st->share_access = share_access;
	st->access = access;
	st->attrs = attrs;
	st->read_only_share = t->read_only;
	vfs_stream_policy_of(t->vfs, &st->streams);
	st->aapl_session = smb2_aapl_session(req) != NULL;
	st->oplock_level = oplock_level;
	st->snapshot = snapshot;
	st->snap_time = snap_time;
	st->want_parent =
		lp_bool(req->conn->worker->srv->lp, LP_GLOBAL,
			LP_SMB2_LEASES) &&
		lp_bool(req->conn->worker->srv->lp, LP_GLOBAL,
			LP_SMB3_DIRECTORY_LEASES);
	status = create_contexts(req, st, ctx_off, ctx_len);
	if (NT_STATUS_IS_OK(status) && st->snapshot) {
		status = create_snapshot_check(st, req->tcon);
	}
	if (NT_STATUS_IS_OK(status) && st->share.acl_xattr) {
		status = ntacl_session_token(st, req->session, req->tcon,
					     &st->tok);
	}
	if (st->share.root_fd == -1 || !NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return NT_STATUS_IS_OK(status) ? NT_STATUS_TOO_MANY_OPENED_FILES
					       : status;
	}
	if (create_ctx_apply(req, st, &status)) {
		return status;	/* a reclaim or a replay answered */
	}
	return smb2_job_run(req, st, create_job, create_done, create_orphan);
}
