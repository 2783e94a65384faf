/*
 * SET_INFO (MS-SMB2 2.2.39, 2.2.40, 3.3.5.21): decode with smbd/wire/fscc,
 * check the open's access on the loop thread, do the file-system change
 * in the pool as the session's user.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "conf/loadparm.h"
#include "smbd/conn/conn.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_file.h"
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/conn/session.h"
#include "smbd/objects/status.h"
#include "smbd/smbd.h"
#include "lib/charset.h"
#include "vfs/name_map.h"
#include "vfs/dosattrib.h"
#include "vfs/name.h"
#include "smbd/smb2/aapl_session.h"
#include "vfs/streams.h"
#include "vfs/anchor.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"
#include "vfs/setinfo.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_0_INFO_FILE 0x01
#define SMB2_0_INFO_SECURITY 0x03

/* FileModeInformation bits a client may set (MS-FSCC 2.4.26). */
#define FILE_MODE_SETTABLE 0x0000003e

struct setinfo_state {
	struct fscc_set_info in;
	struct vfs_share share;		/* root_fd is our own dup */
	int fd;
	bool opath;
	bool is_dir;
	char *path;			/* the open's path */
	char *new_path;			/* rename/link target (resolved) */
	struct vfs_file_id new_parent;	/* its directory (directory leases) */
	NTSTATUS status;
	bool have_mtime;		/* mtime: the file's before a truncate */
	struct timespec mtime;
	bool have_after;		/* after: the file once times were set */
	struct vfs_file_info after;
	char *stream;			/* the open is this stream (xattr) */
	/* the open's handle (vfs/handle.h), on fd and stream below */
	struct vfs_handle h;
	/* the stack keeps a companion beside the file (fruit:resource =
	 * file: the "._" file), which follows its renames */
	bool companions;
	/* A stream rename (MS-FSA 2.1.5.14.11.1): the new stream's name
	 * (NULL: the file's data, "::$DATA"), and the xattr it ends up in */
	bool stream_rename;
	char *new_stream;
	char *new_xattr;
	/* security: the descriptor, stored on acl_xattr shares (tok says
	 * who sets it), otherwise applied as a mode */
	bool security;
	bool acl_xattr;
	struct ntacl_token *tok;
	uint32_t secinfo;
	uint8_t *sd;
	size_t sd_len;
	/* fruit:nfs_aces on a Mac's session, the DACL sent: its NFS ACEs
	 * are a chmod (smbd/objects/ntacl_nfs.h) */
	bool nfs_aces;
	/* security = ads: the owner and group were shown as domain SIDs */
	bool domain_ids;
};

static void setinfo_security_sd(struct setinfo_state *st)
{
	struct stat sb;
	mode_t mode;

	if (st->acl_xattr) {
		st->status = ntacl_file_set_info(st->fd, st->tok, st->sd,
						 st->sd_len, st->secinfo);
		return;
	}
	st->status = vfs_fd_stat(st->fd, &sb);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	if (st->domain_ids) {
		/* a member showed the owner and group as domain SIDs */
		struct sd_sid du, dg;

		ntacl_sid_of_id(&du, false, sb.st_uid, true);
		ntacl_sid_of_id(&dg, true, sb.st_gid, true);
		st->status = secdesc_to_mode_sids(st->sd, st->sd_len,
						  st->secinfo, sb.st_uid,
						  sb.st_gid, &du, &dg,
						  sb.st_mode, &mode);
	} else {
		st->status = secdesc_to_mode(st->sd, st->sd_len, st->secinfo,
					     sb.st_uid, sb.st_gid, sb.st_mode,
					     &mode);
	}
	if (!NT_STATUS_IS_OK(st->status) || mode == sb.st_mode) {
		return;
	}
	/* as the session's user: the kernel checks it is the owner */
	st->status = vfs_fd_chmod(st->fd, mode & 07777);
}

/*
 * SET_INFO security.  A Mac's NFS ACEs come out of the DACL first; the
 * rest is set as from any client, then the mode ACE's chmod, as in
 * Samba's fruit.  Not on an acl_xattr share: there Samba's acl_xattr
 * ignores the chmod (the NT ACL holds the permissions), and so does this.
 */
static void setinfo_security(struct setinfo_state *st)
{
	bool chmod_asked = false;
	mode_t mode = 0;

	if (st->nfs_aces) {
		st->status = ntacl_nfs_set_prepare(st, st->sd, st->sd_len,
						   &st->secinfo, &st->sd,
						   &st->sd_len, &chmod_asked,
						   &mode);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	}
	setinfo_security_sd(st);
	if (NT_STATUS_IS_OK(st->status) && chmod_asked && !st->acl_xattr) {
		st->status = vfs_fd_chmod(st->fd, mode);
	}
}


static void setinfo_basic(struct setinfo_state *st)
{
	const typeof(st->in.basic) *b = &st->in.basic;
	struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};

	if (b->access_time != 0 && b->access_time < FSCC_TIME_UNFREEZE) {
		timespec_from_nttime(b->access_time, &ts[0]);
	}
	if (b->write_time != 0 && b->write_time < FSCC_TIME_UNFREEZE) {
		timespec_from_nttime(b->write_time, &ts[1]);
	}
	if (ts[0].tv_nsec != UTIME_OMIT || ts[1].tv_nsec != UTIME_OMIT) {
		/* attribute-only (O_PATH) opens too (vfs/setinfo.h) */
		st->status = vfs_fd_set_times(st->fd, ts);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	}
	if ((b->attributes != 0 ||
	     (b->create_time != 0 && b->create_time < FSCC_TIME_UNFREEZE)) &&
	    st->share.store_dos_attributes && !st->opath) {
		struct dos_info di;

		memset(&di, 0, sizeof(di));
		(void)dosattrib_fget(st->fd, &di);
		if (b->attributes != 0) {
			uint32_t keep = di.attrs & ~FILE_ATTRIBUTE_SETTABLE;

			di.attrs = keep | (b->attributes &
					   FILE_ATTRIBUTE_SETTABLE);
			if (st->is_dir) {
				di.attrs |= FILE_ATTRIBUTE_DIRECTORY;
			}
		}
		if (b->create_time != 0 && b->create_time < FSCC_TIME_UNFREEZE) {
			di.has_create_time = true;
			di.create_time = b->create_time;
		}
		st->status = dosattrib_fset(st->fd, &di);
	} else if (b->attributes != 0 && !st->share.store_dos_attributes &&
		   !st->is_dir) {
		/* `store dos attributes = no`: the attributes live in the
		 * mode bits (`map archive/system/hidden`, READONLY as the
		 * write bits), as Samba keeps them.  Directories keep their
		 * mode: their attributes are not mapped. */
		st->status = vfs_fd_dos_mode(&st->share, st->fd,
					     b->attributes);
	}
}

/* The file (for a stream open, the file it belongs to) is
 * FILE_ATTRIBUTE_READONLY; directories are never refused for it. */
static bool setinfo_readonly(struct setinfo_state *st)
{
	struct vfs_file_info fi;

	if (st->is_dir || !NT_STATUS_IS_OK(vfs_fstat_info(st->fd, &fi))) {
		return false;
	}
	vfs_fill_dos_attributes(&st->share, st->fd, st->opath, st->path, &fi);
	return (fi.attributes & FILE_ATTRIBUTE_READONLY) != 0;
}

/*
 * The resolved target's directory with the last component as the client
 * spelled it: a new name keeps the case it was asked for.
 */
static char *setinfo_client_case(struct setinfo_state *st,
				 const char *resolved)
{
	const char *slash = strrchr(st->new_path, '/');
	const char *dslash = strrchr(resolved, '/');

	return talloc_asprintf(st, "%.*s%s",
			       dslash ? (int)(dslash + 1 - resolved) : 0,
			       resolved, slash ? slash + 1 : st->new_path);
}

/* Rename or hard link: resolve the target, honour ReplaceIfExists. */
static void setinfo_rename(struct setinfo_state *st, bool link)
{
	struct vfs_resolved r;
	bool replace = st->in.rename.replace_if_exists;
	bool same_file;
	unsigned flags;

	st->status = vfs_resolve(st, &st->share, st->new_path, &r);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	same_file = r.exists && strcmp(r.path, st->path) == 0;
	if (r.exists && !same_file) {
		if (!replace) {
			st->status = NT_STATUS_OBJECT_NAME_COLLISION;
			return;
		}
		if (vfs_entry_is_dir(&st->share, st->share.root_fd, r.path)) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return;
		}
	}
	flags = r.exists && replace ? 0 : RENAME_NOREPLACE;
	if (!r.exists) {
		r.path = setinfo_client_case(st, r.path);
	} else if (same_file && !link) {
		/*
		 * The new name finds the open's own file (MS-FSA 2.1.5.14.11:
		 * the target is the same file): a case-only rename, which
		 * renames it on disk to the client's spelling (Explorer's
		 * report.txt -> Report.txt), or a rename to itself, which
		 * succeeds and changes nothing.  The new spelling does not
		 * exist on disk, else the lookup would have found it.
		 */
		r.path = setinfo_client_case(st, r.path);
		if (r.path != NULL && strcmp(r.path, st->path) == 0) {
			st->new_path = r.path;
			return;
		}
		flags = RENAME_NOREPLACE;
	}
	if (r.path == NULL) {
		st->status = NT_STATUS_NO_MEMORY;
		return;
	}
	/* Both names anchored to their directories, the source checked
	 * to still be the open's file (vfs/anchor.h). */
	{
		struct vfs_file_id id = vfs_file_id_of_fd(st->fd);

		st->status = vfs_rename_anchored(&st->share,
						 st->share.root_fd, st->path,
						 r.path, link, flags, &id);
	}
	st->new_path = r.path;
	if (NT_STATUS_IS_OK(st->status) && st->companions && !link &&
	    !st->is_dir) {
		/* the companion goes with its file (vfs/stack_props.h);
		 * the rename itself stands whatever becomes of it */
		NTSTATUS rs = vfs_companion_rename(&st->share, st->path,
						   r.path);

		if (!NT_STATUS_IS_OK(rs)) {
			DBG_WARNING("%s: its \"._\" file stays: %s\n",
				    st->path, nt_errstr(rs));
		}
	}
	if (NT_STATUS_IS_OK(st->status)) {
		st->new_parent = vfs_parent_id(st->share.root_fd, r.path);
	}
}

/*
 * MS-FSA 2.1.5.14.11.1 Algorithm for Performing Stream Rename.  The
 * open is a named stream or the file's data; so is the target.  A target
 * that exists is replaced only with ReplaceIfExists and only while it is
 * empty (STATUS_INVALID_PARAMETER otherwise); renaming a stream onto
 * itself succeeds (and may change the case of its name).
 */
static void setinfo_stream_rename(struct setinfo_state *st)
{
	bool replace = st->in.rename.replace_if_exists;
	char *target = NULL;
	bool exists = true;
	uint64_t size = 0;

	if (st->is_dir && (st->stream == NULL || st->new_stream == NULL)) {
		/* A directory has no unnamed data stream. */
		st->status = NT_STATUS_INVALID_PARAMETER;
		return;
	}
	if (st->stream == NULL && st->new_stream == NULL) {
		return; /* "::$DATA" onto itself */
	}
	if (st->new_stream != NULL) {
		st->status = vfs_stream_xattr(st, st->fd, st->new_stream,
					      &target, &exists);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
		st->new_xattr = talloc_asprintf(st, VFS_STREAM_PREFIX "%s"
						VFS_STREAM_SUFFIX,
						st->new_stream);
		if (st->new_xattr == NULL) {
			st->status = NT_STATUS_NO_MEMORY;
			return;
		}
	}
	if (exists) {
		st->status = vfs_data_size(st->fd, target, &size);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	}
	if (exists && st->stream != NULL && target != NULL &&
	    strcmp(target, st->stream) == 0) {
		/* Onto itself: at most the case of its name changes. */
		st->status = vfs_stream_rename(st->fd, st->stream,
					       st->new_xattr, NULL);
		return;
	}
	if (exists && !replace) {
		st->status = NT_STATUS_OBJECT_NAME_COLLISION;
		return;
	}
	if (exists && size != 0) {
		st->status = NT_STATUS_INVALID_PARAMETER;
		return;
	}
	if (st->new_stream == NULL) {
		st->status = vfs_stream_to_data(st->fd, st->stream);
	} else if (st->stream == NULL) {
		st->status = vfs_data_to_stream(st->fd, st->new_xattr);
	} else {
		st->status = vfs_stream_rename(st->fd, st->stream,
					       st->new_xattr,
					       exists ? target : NULL);
	}
}

/*
 * MS-FSCC 2.4.15: EAs are kept as user.NAME xattrs, as Samba keeps them;
 * an empty value removes the EA.  Samba's own metadata names are not EAs
 * and cannot be written this way.
 */
NTSTATUS smbd_eas_set(TALLOC_CTX *mem_ctx, int fd, const struct fscc_ea *eas,
		      size_t count)
{
	NTSTATUS status = NT_STATUS_OK;
	size_t i;

	for (i = 0; i < count && NT_STATUS_IS_OK(status); i++) {
		const struct fscc_ea *ea = &eas[i];
		char *x = talloc_asprintf(mem_ctx, "user.%s", ea->name);

		if (x == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		if (strcasecmp(ea->name, "DOSATTRIB") == 0 ||
		    strncasecmp(ea->name, "DosStream.", 10) == 0) {
			talloc_free(x);
			return NT_STATUS_ACCESS_DENIED;
		}
		/* an empty value removes the EA */
		status = vfs_ea_fset(fd, x, ea->value, ea->value_len);
		talloc_free(x);
	}
	return status;
}

static void setinfo_eas(struct setinfo_state *st)
{
	st->status = smbd_eas_set(st, st->fd, st->in.eas, st->in.num_eas);
}

/* The mtime before is kept for an open whose write time is sticky. */
static void setinfo_end_of_file(struct setinfo_state *st)
{
	if (vfs_handle_has(&st->h, VFS_HANDLE_FD_DATA)) {
		st->have_mtime =
			NT_STATUS_IS_OK(vfs_posix_mtime(st->fd, &st->mtime));
	}
	st->status = vfs_handle_set_size(&st->h, st->in.end_of_file);
}

static void setinfo_job(void *p)
{
	struct setinfo_state *st = p;

	st->status = NT_STATUS_OK;
	if (st->security) {
		setinfo_security(st);
		return;
	}
	switch (st->in.info_class) {
	case FSCC_FILE_BASIC_INFORMATION:
		setinfo_basic(st);
		/* Its ctime: what a ChangeTime set now is kept against
		 * (write_time.h). */
		st->have_after = NT_STATUS_IS_OK(st->status) &&
				 NT_STATUS_IS_OK(vfs_fstat_info(st->fd,
								&st->after));
		break;
	case FSCC_FILE_END_OF_FILE_INFORMATION:
		setinfo_end_of_file(st);
		break;
	case FSCC_FILE_ALLOCATION_INFORMATION:
		/* MS-FSA 2.1.5.15.1: below the end of file truncates. */
		st->status = vfs_handle_allocate(&st->h,
						 st->in.allocation_size);
		break;
	case FSCC_FILE_DISPOSITION_INFORMATION:
	case FSCC_FILE_DISPOSITION_INFORMATION_EX:
		if (st->in.delete_pending && st->is_dir &&
		    !vfs_dir_is_empty(st->fd)) {
			st->status = NT_STATUS_DIRECTORY_NOT_EMPTY;
		} else if (st->in.delete_pending && setinfo_readonly(st)) {
			/* MS-FSA 2.1.5.14.3 */
			st->status = NT_STATUS_CANNOT_DELETE;
		}
		break;
	case FSCC_FILE_RENAME_INFORMATION:
	case FSCC_FILE_RENAME_INFORMATION_EX:
		if (st->stream_rename) {
			setinfo_stream_rename(st);
			break;
		}
		setinfo_rename(st, false);
		break;
	case FSCC_FILE_LINK_INFORMATION:
		setinfo_rename(st, true);
		break;
	case FSCC_FILE_FULL_EA_INFORMATION:
		setinfo_eas(st);
		break;
	default:
		st->status = NT_STATUS_INVALID_INFO_CLASS;
		break;
	}
}

static void setinfo_orphan(void *p)
{
}

static NTSTATUS setinfo_reply(struct smb2_request *req)
{
	wire_push_le16(req->out, 2); /* 2.2.40 SET_INFO Response */
	return NT_STATUS_OK;
}

/*
 * A rename (moved: the entry left op's directory for the new one) or a
 * hard link (a new entry in the new directory): the leases of the
 * directories whose entries changed break (oplock.h).
 */
static void setinfo_dir_changed(struct smbd_open *op,
				const struct vfs_file_id *new_parent,
				bool moved)
{
	struct smbd_dir_change c;
	bool same = op->pdev == new_parent->dev &&
		    op->pino == new_parent->ino;

	if (new_parent->dev == 0 && new_parent->ino == 0) {
		return;	/* a rename to its own name: nothing changed */
	}
	smbd_dir_change_of(op, &c);
	if (moved) {
		smbd_dirlease_break(op->worker, &c);
		op->pdev = new_parent->dev;
		op->pino = new_parent->ino;
	}
	if (!moved || !same) {
		c.dev = new_parent->dev;
		c.ino = new_parent->ino;
		smbd_dirlease_break(op->worker, &c);
	}
}

static NTSTATUS setinfo_done(struct smb2_request *req, void *p)
{
	struct setinfo_state *st = p;
	struct smbd_open *op;
	uint8_t fid[16];

	if (!NT_STATUS_IS_OK(st->status)) {
		return st->status;
	}
	memcpy(fid, req->fid, 16);
	if (NT_STATUS_IS_OK(smbd_open_lookup(req, fid, &op))) {
		switch (st->in.info_class) {
		case FSCC_FILE_DISPOSITION_INFORMATION:
		case FSCC_FILE_DISPOSITION_INFORMATION_EX: {
			NTSTATUS s2;

			s2 = smbd_open_set_delete_pending(op,
							  st->in.delete_pending);

			if (!NT_STATUS_IS_OK(s2)) {
				return s2;
			}
			/* AFP_Resource: pending for other opens, but macOS
			 * keeps the fork (smbd_open_share_release) */
			op->delete_on_close =
				st->in.delete_pending &&
				!vfs_handle_has(
					&op->h,
					VFS_HANDLE_IGNORE_DELETE_ON_CLOSE);
			break;
		}
		case FSCC_FILE_RENAME_INFORMATION:
		case FSCC_FILE_RENAME_INFORMATION_EX:
			if (st->stream_rename) {
				/* The open goes on as the renamed stream
				 * (or as the file's data). */
				(void)smbd_open_rename_stream(op,
							      st->new_xattr);
				smbd_status_open(op, true);
				break;
			}
			talloc_free(op->path);
			op->path = talloc_strdup(op, st->new_path);
			smbd_status_open(op, true); /* smbstatus, open-below */
			setinfo_dir_changed(op, &st->new_parent, true);
			break;
		case FSCC_FILE_LINK_INFORMATION:
			setinfo_dir_changed(op, &st->new_parent, false);
			break;
		case FSCC_FILE_BASIC_INFORMATION:
			if (st->have_after) {
				smbd_ct_set_basic(op, st->in.basic.change_time,
						  &st->after);
			}
			op->modified = true;
			break;
		case FSCC_FILE_ALLOCATION_INFORMATION:
			/* Its entry changes: its close breaks its directory's
			 * leases, as after a write. */
			op->modified = true;
			break;
		case FSCC_FILE_END_OF_FILE_INFORMATION:
			/* smb2.timestamps.delayed-write-vs-seteof: the
			 * write time moves now, pending update or not. */
			smbd_wt_resized(op, st->have_mtime ? &st->mtime : NULL);
			op->modified = true;
			break;
		default:
			break;
		}
		if (st->security ||
		    st->in.info_class != FSCC_FILE_BASIC_INFORMATION) {
			/* A ChangeTime set through this open stays. */
			smbd_ct_changed(op);
		}
	}
	return setinfo_reply(req);
}

/* The target of a rename/link: share-relative, validated like CREATE. */
static NTSTATUS setinfo_target(struct smb2_request *req, struct smbd_open *op,
			       struct setinfo_state *st, bool rename)
{
	const char *n = st->in.rename.new_name;
	uint8_t *u16;
	size_t u16len;
	char *path, *stream;
	NTSTATUS status;

	if (st->in.rename.root_dir != 0) {
		return NT_STATUS_INVALID_PARAMETER; /* 3.3.5.21.1 */
	}
	while (*n == '\\') {
		n++; /* the SMB2 form is relative to the share root */
	}
	status = charset_utf8_to_utf16(st, n, &u16, &u16len);
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	if (!req->tcon->share.streams && vfs_name_wire_has_stream(u16, u16len)) {
		return NT_STATUS_OBJECT_NAME_INVALID;	/* as CREATE */
	}
	status = vfs_name_from_wire(st, u16, u16len, &path, &stream);
	if (NT_STATUS_IS_OK(status)) {
		/* vfs_catia, as CREATE */
		status = vfs_name_map_to_disk(st, req->tcon->share.name_map,
					      &path, &stream);
	}
	if (rename && n[0] == ':') {
		/* MS-FSA 2.1.5.14.11.1: a stream rename, ":name[:$DATA]"
		 * or "::$DATA"; a name it cannot take is
		 * STATUS_INVALID_PARAMETER, a type other than $DATA
		 * STATUS_OBJECT_TYPE_MISMATCH. */
		if (status == NT_STATUS_INVALID_PARAMETER) {
			return NT_STATUS_OBJECT_TYPE_MISMATCH;
		}
		if (!NT_STATUS_IS_OK(status) || path[0] != '\0') {
			return NT_STATUS_INVALID_PARAMETER;
		}
		st->stream_rename = true;
		st->new_stream = stream;
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (rename && stream != NULL && op->stream != NULL) {
		/* "file:stream" for a stream: Windows takes a stream's
		 * new name only in the ":stream" form and refuses this
		 * one with SHARING_VIOLATION (smbtorture
		 * smb2.streams.rename2). */
		return NT_STATUS_SHARING_VIOLATION;
	}
	if (stream != NULL || path[0] == '\0') {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	st->new_path = path;
	return NT_STATUS_OK;
}

/* Whether a rename's new name is a stream's (":name"). */
/* fruit:posix_rename: a Mac's session (AAPL negotiated) renames a
 * directory whatever is open below it, as Samba's fruit lets it; others
 * get Windows's ACCESS_DENIED (smbtorture vfs.fruit rename_dir_openfile). */
static bool setinfo_posix_rename(const struct smb2_request *req)
{
	const struct vfs_aapl *a = smb2_aapl_session(req);

	return a != NULL && vfs_aapl_posix_rename(a);
}

static bool setinfo_names_stream(const struct setinfo_state *st)
{
	const char *n = st->in.rename.new_name;

	while (n != NULL && *n == '\\') {
		n++;
	}
	return n != NULL && *n == ':';
}

/* A stream rename's target must not be open: its opens would lose the
 * stream under them (its key is the one the renamed open moves to). */
static NTSTATUS setinfo_stream_target_free(struct smbd_open *op,
					   struct setinfo_state *st)
{
	char *x = NULL;
	bool busy;

	if (st->new_stream != NULL) {
		x = talloc_asprintf(st, VFS_STREAM_PREFIX "%s"
				    VFS_STREAM_SUFFIX, st->new_stream);
		if (x == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		if (op->stream != NULL && vfs_strcasecmp(x, op->stream) == 0) {
			talloc_free(x);
			return NT_STATUS_OK; /* onto itself */
		}
	} else if (op->stream == NULL) {
		return NT_STATUS_OK;
	}
	busy = smbd_open_stream_busy(op, x);
	talloc_free(x);
	return busy ? NT_STATUS_SHARING_VIOLATION : NT_STATUS_OK;
}

/*
 * MS-FSA 2.1.5.15.2 FileBasicInformation, its only refusals: a time
 * below -2 (-1 and -2 freeze and unfreeze the automatic updates), no
 * DIRECTORY on a file, no TEMPORARY on a directory.  Any other bit is
 * fine: NORMAL with others, or bits the file system does not have, are
 * ignored (only ValidSetAttributes are set, setinfo_basic()), as NTFS and
 * Samba do: smbclient -Tx restores a tar by setting the attributes it
 * builds from the Unix mode (0x81A4 for 0644) on every file.
 */
static NTSTATUS setinfo_basic_check(const struct fscc_set_info *in,
				    bool is_dir)
{
	const typeof(in->basic) *b = &in->basic;

	if ((int64_t)b->create_time < -2 || (int64_t)b->access_time < -2 ||
	    (int64_t)b->write_time < -2 || (int64_t)b->change_time < -2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (is_dir ? (b->attributes & FILE_ATTRIBUTE_TEMPORARY) != 0
		   : (b->attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* 3.3.5.21.1: the access each class needs, and what runs without I/O. */
static NTSTATUS setinfo_check(struct smb2_request *req, struct smbd_open *op,
			      struct setinfo_state *st, bool *sync_done)
{
	uint32_t a = op->access_mask;

	*sync_done = false;
	switch (st->in.info_class) {
	case FSCC_FILE_BASIC_INFORMATION:
		if (!(a & SEC_FILE_WRITE_ATTRIBUTE)) {
			return NT_STATUS_ACCESS_DENIED;
		}
		return setinfo_basic_check(&st->in, op->is_dir);
	case FSCC_FILE_END_OF_FILE_INFORMATION:
	case FSCC_FILE_ALLOCATION_INFORMATION:
		if (op->is_dir) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (!(a & SEC_FILE_WRITE_DATA) || op->opath) {
			return NT_STATUS_ACCESS_DENIED;
		}
		/* A size change ends other opens' read caching. */
		smbd_break_readers(op);
		return NT_STATUS_OK;
	case FSCC_FILE_DISPOSITION_INFORMATION:
	case FSCC_FILE_DISPOSITION_INFORMATION_EX:
		if (!(a & SEC_STD_DELETE)) {
			return NT_STATUS_ACCESS_DENIED;
		}
		return NT_STATUS_OK;
	case FSCC_FILE_RENAME_INFORMATION:
	case FSCC_FILE_RENAME_INFORMATION_EX: {
		NTSTATUS s2;

		if (!(a & SEC_STD_DELETE)) {
			return NT_STATUS_ACCESS_DENIED;
		}
		/* Other opens must share delete (MS-FSA 2.1.5.14.11). */
		s2 = smbd_open_check_delete(op);
		if (!NT_STATUS_IS_OK(s2)) {
			return s2;
		}
		if (setinfo_names_stream(st)) {
			/* The file keeps its name: its directory and
			 * what is below it do not matter. */
			s2 = setinfo_target(req, op, st, true);
			return NT_STATUS_IS_OK(s2)
				       ? setinfo_stream_target_free(op, st)
				       : s2;
		}
		s2 = smbd_open_check_rename_parent(op);
		if (!NT_STATUS_IS_OK(s2)) {
			return s2;
		}
		if (!setinfo_posix_rename(req)) {
			s2 = smbd_open_check_open_below(op);
			if (!NT_STATUS_IS_OK(s2)) {
				return s2;
			}
		}
		return setinfo_target(req, op, st, true);
	}
	case FSCC_FILE_LINK_INFORMATION:
		return setinfo_target(req, op, st, false);
	case FSCC_FILE_POSITION_INFORMATION:
		op->position = st->in.position;
		*sync_done = true;
		return NT_STATUS_OK;
	case FSCC_FILE_MODE_INFORMATION:
		if (st->in.mode & ~FILE_MODE_SETTABLE) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		op->mode = st->in.mode;
		*sync_done = true;
		return NT_STATUS_OK;
	case FSCC_FILE_FULL_EA_INFORMATION:
		if (!req->tcon->share.ea_support) {
			return NT_STATUS_EAS_NOT_SUPPORTED;
		}
		return (a & SEC_FILE_WRITE_EA) && !op->opath
			       ? NT_STATUS_OK
			       : NT_STATUS_ACCESS_DENIED;
	default:
		return NT_STATUS_INVALID_INFO_CLASS;
	}
}

/*
 * A rename first takes handle caching away from the other leases of the
 * file and waits for their acknowledgements (smbtorture
 * smb2.lease.v2_rename, rename_wait), like a CREATE waits for its breaks.
 */
struct setinfo_wait {
	struct smb2_request *req;
	struct setinfo_state *st;
	uint64_t open_id;
	struct smbd_waiter *waiter;
};

static NTSTATUS setinfo_break_handles(struct smb2_request *req,
				      struct smbd_open *op,
				      struct setinfo_state *st, bool retry)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	struct share_break *b = NULL;
	struct file_key k;
	struct open_owner o;
	unsigned n = 0;
	NTSTATUS status;
	TALLOC_CTX *tmp;

	if (db == NULL || !op->share_registered) {
		return NT_STATUS_OK;
	}
	smbd_open_keys(op, &k, &o);
	if (share_mode_cached_opens(db, &k) == 0) {
		return NT_STATUS_OK; /* nobody caches: no record change */
	}
	tmp = talloc_new(st);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = share_mode_break_handles(
		db, tmp, &k, &o,
		op->caching == CACHING_LEASE ? op->client_guid : NULL,
		op->caching == CACHING_LEASE ? op->lease_key : NULL, retry, &b,
		&n);
	smbd_breaks_deliver(w, &k, b, n);
	talloc_free(tmp);
	return status;
}

static void setinfo_wait_cancel(void *priv)
{
	struct setinfo_wait *sw = priv;
	struct smb2_request *req = sw->req;

	talloc_free(sw->st);
	smb2_frame_resume(req, NT_STATUS_CANCELLED);
}

static void setinfo_wait_retry(void *priv, bool expired)
{
	struct setinfo_wait *sw = priv;
	struct smb2_request *req = sw->req;
	struct smbd_open *op = smbd_open_by_id(req->conn->worker, sw->open_id);
	struct setinfo_state *st = sw->st;
	NTSTATUS status;

	if (op == NULL) {
		talloc_free(st);
		smb2_frame_resume(req, NT_STATUS_FILE_CLOSED);
		return;
	}
	if (expired) {
		struct locking_db *db = smbd_locking(req->conn->worker);
		struct share_ack_res res;
		struct file_key k;
		struct open_owner o;

		smbd_open_keys(op, &k, &o);
		if (db != NULL) {
			(void)share_mode_break_timeout(db, st, &k, NULL, NULL,
						       NULL, &res);
		}
	}
	status = setinfo_break_handles(req, op, st, true);
	if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		return;
	}
	/* sw is a child of st: the job owns both from here. */
	TALLOC_FREE(sw->waiter);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		smb2_frame_resume(req, status);
		return;
	}
	smb2_frame_resume(req, smb2_job_run(req, st, setinfo_job, setinfo_done,
					    setinfo_orphan));
}

static NTSTATUS setinfo_wait(struct smb2_request *req, struct smbd_open *op,
			     struct setinfo_state *st)
{
	struct setinfo_wait *sw = talloc_zero(st, struct setinfo_wait);
	struct file_key k;
	struct open_owner o;

	if (sw == NULL || !smb2_request_keep_input(req, NULL)) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	/* The state lives with the request's frame while it waits. */
	(void)talloc_steal(req->mem_ctx, st);
	smbd_open_keys(op, &k, &o);
	sw->req = req;
	sw->st = st;
	sw->open_id = op->fid_volatile;
	sw->waiter = smbd_waiter_add(sw, req->conn->worker, &k,
				     setinfo_wait_retry, sw);
	if (sw->waiter == NULL) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	smb2_request_set_cancel(req, setinfo_wait_cancel, sw);
	return SMBD_STATUS_ASYNC;
}

NTSTATUS smb2_setinfo(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct setinfo_state *st;
	struct smbd_open *op;
	uint8_t type, cls, fid[16];
	uint32_t len, secinfo;
	uint16_t off;
	bool sync_done;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_u8(b, &type);
	(void)wire_pull_u8(b, &cls);
	(void)wire_pull_le32(b, &len);
	(void)wire_pull_le16(b, &off);
	(void)wire_skip(b, 2);
	(void)wire_pull_le32(b, &secinfo);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (len > req->conn->max_trans) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (type != SMB2_0_INFO_FILE && type != SMB2_0_INFO_SECURITY) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (type == SMB2_0_INFO_SECURITY &&
	    (((secinfo & SECINFO_DACL) &&
	      !(op->access_mask & SEC_STD_WRITE_DAC)) ||
	     ((secinfo & (SECINFO_OWNER | SECINFO_GROUP)) &&
	      !(op->access_mask & SEC_STD_WRITE_OWNER)))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (req->tcon->read_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	st = talloc_zero(NULL, struct setinfo_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	if (!vfs_share_copy(st, &st->share, &req->tcon->share)) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->share.root_fd = -1;
	sync_done = false;
	if (type == SMB2_0_INFO_SECURITY) {
		const struct vfs_aapl *mac = smb2_aapl_session(req);

		st->security = true;
		st->secinfo = secinfo;
		st->sd = talloc_memdup(st, req->in + off, len);
		st->sd_len = len;
		status = len >= 20 && st->sd != NULL ? NT_STATUS_OK
						     : NT_STATUS_INVALID_PARAMETER;
		st->acl_xattr = req->tcon->share.acl_xattr;
		st->domain_ids = lp_security_ads(req->conn->worker->srv->lp);
		st->nfs_aces = (secinfo & SECINFO_DACL) && mac != NULL &&
			       vfs_aapl_nfs_aces(mac);
		if (NT_STATUS_IS_OK(status) && st->acl_xattr) {
			status = ntacl_session_token(st, req->session,
						     req->tcon, &st->tok);
		}
		if (NT_STATUS_IS_OK(status) && st->tok != NULL) {
			/* a member's local users too: ids as QUERY_INFO
			 * shows them */
			st->tok->domain = st->domain_ids;
		}
	} else {
		status = fscc_set_info_pull(st, cls, len ? req->in + off : NULL,
					    len, &st->in);
		if (NT_STATUS_IS_OK(status)) {
			status = setinfo_check(req, op, st, &sync_done);
		}
		DBG_DEBUG("%s: SET_INFO class %u len %u on '%s': %s\n",
			  req->conn->remote, cls, len, op->path,
			  nt_errstr(status));
	}
	if (!NT_STATUS_IS_OK(status) || sync_done) {
		talloc_free(st);
		return NT_STATUS_IS_OK(status) ? setinfo_reply(req) : status;
	}
	st->opath = op->opath;
	st->is_dir = op->is_dir;
	st->stream = op->stream ? talloc_strdup(st, op->stream) : NULL;
	st->h = op->h;
	st->companions = vfs_stack_companions(req->tcon->vfs);
	st->path = talloc_strdup(st, op->path);
	/* The open's fd and the tree's root, held (not dup'ed) until st
	 * goes: a CLOSE or TREE_DISCONNECT meanwhile leaves them open. */
	st->fd = smbd_open_fd_borrow(op, st);
	st->h.fd = st->fd;
	st->h.xattr = st->stream;
	st->share.root_fd = smbd_tcon_root_borrow(req->tcon, st);
	if (st->fd == -1 || st->share.root_fd == -1 || st->path == NULL) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	if (cls == FSCC_FILE_BASIC_INFORMATION) {
		/* Before the job: a delayed update must not overwrite the
		 * time it sets (write_time.h). */
		smbd_wt_set_basic(op, st->in.basic.write_time);
	}
	if (cls == FSCC_FILE_RENAME_INFORMATION ||
	    cls == FSCC_FILE_RENAME_INFORMATION_EX) {
		status = setinfo_break_handles(req, op, st, false);
		if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
			return setinfo_wait(req, op, st);
		}
	}
	return smb2_job_run(req, st, setinfo_job, setinfo_done,
			    setinfo_orphan);
}
