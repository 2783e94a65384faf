/*
 * Reparse point FSCTLs on a file (issue 35): FSCTL_GET_REPARSE_POINT,
 * FSCTL_SET_REPARSE_POINT and FSCTL_DELETE_REPARSE_POINT (MS-FSA
 * 2.1.5.10.14, 2.1.5.10.37, 2.1.5.10.6; MS-SMB2 3.3.5.15.13).
 *
 * The reparse points of this file system are its file types (vfs.h): a
 * symbolic link (IO_REPARSE_TAG_SYMLINK, its target as vfs/symlink.h
 * shows it), a FIFO, socket or device (IO_REPARSE_TAG_NFS, MS-FSCC
 * 2.1.2.6, as Windows' NFS server and Samba 4.21+ show them).  A regular
 * file or directory is none: GET and DELETE answer
 * STATUS_NOT_A_REPARSE_POINT, as Windows and Samba (4.17 included) do.
 * A handle sees the link itself only when it was opened with
 * FILE_OPEN_REPARSE_POINT (smb2_create_link.c).
 *
 * SET makes a symbolic link (an empty file or directory becomes one, or
 * a link gets a new target) when the share allows it:
 *  - `follow symlinks = no`: never (the server follows none);
 *  - a target that stays inside the share (relative, its ".." never
 *    above the root): yes;
 *  - an absolute target, or one leaving the share: only with `wide
 *    links = yes` and `allow insecure wide links = yes`;
 *  - on a `wide links = yes` share without `allow insecure wide links`:
 *    no link at all, since the server follows links out of such a share
 *    and a client's link moved by a rename could lead out of it (Samba
 *    4.17 likewise turns wide links off while clients may make links,
 *    its unix extensions, unless `allow insecure wide links`).
 * A refusal is STATUS_PRIVILEGE_NOT_HELD, as Windows answers a user who
 * may not make links.  Other tags are not kept (this file system stores
 * no reparse data of its own): STATUS_NOT_SUPPORTED.
 *
 * DELETE turns a link back into an empty file (an empty directory where
 * it led to one), as an NTFS file stays when its reparse point goes.
 *
 * The file-system work runs in the pool as the session user; the
 * handle keeps naming what it was opened on, which SET and DELETE
 * replace in the directory (a Unix file cannot change its type).
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/reparse_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/objects/open.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "vfs/fsctl_io.h"
#include "vfs/symlink.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

enum reparse_job_kind {
	REPARSE_GET,
	REPARSE_SET,
	REPARSE_DELETE,
};

struct reparse_job {
	struct smb2_ioctl_call call;
	enum reparse_job_kind kind;
	/* root_fd borrowed from the tree, or (root_owned) a dup of a
	 * previous version's root the open is in */
	struct vfs_share share;
	bool root_owned;
	int fd;			/* dup of the open's */
	char *path;		/* the open's, share-relative */
	struct vfs_file_id id;	/* the open's file */
	uint32_t tag;		/* DELETE: the tag asked for */
	char *target;		/* SET: the link's target */
	struct wire_buf out;	/* GET: the reparse buffer */
	NTSTATUS status;
};

/* ---- in the pool ---- */

static void reparse_get(struct reparse_job *j, const struct stat *sb)
{
	char *target;
	bool rel;

	switch (sb->st_mode & S_IFMT) {
	case S_IFLNK:
		j->status = vfs_link_target(j, &j->share, j->fd, "", j->path,
					    &target, &rel);
		if (NT_STATUS_IS_OK(j->status)) {
			j->status = reparse_symlink_push(&j->out, target, rel,
							 0);
		}
		return;
	case S_IFIFO:
		reparse_nfs_push(&j->out, NFS_SPECFILE_FIFO, 0, 0);
		return;
	case S_IFSOCK:
		reparse_nfs_push(&j->out, NFS_SPECFILE_SOCK, 0, 0);
		return;
	case S_IFCHR:
	case S_IFBLK:
		reparse_nfs_push(&j->out,
				 S_ISCHR(sb->st_mode) ? NFS_SPECFILE_CHR
						      : NFS_SPECFILE_BLK,
				 major(sb->st_rdev), minor(sb->st_rdev));
		return;
	default:
		j->status = NT_STATUS_NOT_A_REPARSE_POINT;
	}
}

static void reparse_delete(struct reparse_job *j, const struct stat *sb)
{
	uint32_t has = vfs_reparse_tag_of_mode(sb->st_mode);

	if (has == 0) {
		j->status = NT_STATUS_NOT_A_REPARSE_POINT;
	} else if (has != j->tag) {
		j->status = NT_STATUS_IO_REPARSE_TAG_MISMATCH;
	} else if (!S_ISLNK(sb->st_mode)) {
		/* a FIFO or device is what it is; no data to take away */
		j->status = NT_STATUS_NOT_SUPPORTED;
	} else {
		j->status = vfs_link_unreplace(
			&j->share, j->share.root_fd, j->path, &j->id,
			vfs_mode_from_dos(&j->share, FILE_ATTRIBUTE_ARCHIVE,
					  false, 0),
			vfs_mode_from_dos(&j->share, 0, true, 0));
	}
}

/* The job's work once the open file's stat is known. */
static void reparse_job_act(struct reparse_job *j, const struct stat *sb)
{
	if (j->kind == REPARSE_GET) {
		reparse_get(j, sb);
	} else if (j->kind == REPARSE_DELETE) {
		reparse_delete(j, sb);
	} else if (S_ISLNK(sb->st_mode) || S_ISREG(sb->st_mode) ||
		   S_ISDIR(sb->st_mode)) {
		j->status = vfs_link_replace(&j->share, j->share.root_fd,
					     j->path, &j->id, j->target);
	} else {
		/* already an NFS reparse point */
		j->status = NT_STATUS_IO_REPARSE_TAG_MISMATCH;
	}
}

static void reparse_job_run(void *p)
{
	struct reparse_job *j = p;
	struct stat sb;

	j->status = vfs_fd_stat(j->fd, &sb);
	if (NT_STATUS_IS_OK(j->status)) {
		reparse_job_act(j, &sb);
	}
	vfs_fd_close(j->fd);
	j->fd = -1;
}

static void reparse_job_orphan(void *p)
{
}

static NTSTATUS reparse_job_done(struct smb2_request *req, void *p)
{
	struct reparse_job *j = p;
	struct wire_buf *out = &j->out;
	NTSTATUS status = j->status;

	if (j->kind != REPARSE_GET || !NT_STATUS_IS_OK(status)) {
		return smb2_ioctl_reply(req, &j->call, status, NULL);
	}
	/* MS-FSA 2.1.5.10.14: the fixed part must fit; what does not fit
	 * of the rest is cut, with STATUS_BUFFER_OVERFLOW. */
	if (j->call.max_out < REPARSE_HDR_LEN) {
		return smb2_ioctl_reply(req, &j->call,
					NT_STATUS_BUFFER_TOO_SMALL, NULL);
	}
	if (out->len > j->call.max_out) {
		out->len = j->call.max_out;
		status = STATUS_BUFFER_OVERFLOW;
	}
	return smb2_ioctl_reply(req, &j->call, status, out);
}

/* ---- on the loop thread ---- */

static int reparse_job_destructor(struct reparse_job *j)
{
	vfs_fd_close(j->fd);
	if (j->root_owned) {
		vfs_fd_close(j->share.root_fd);
	}
	return 0;
}

static NTSTATUS reparse_job_start(struct smb2_ioctl_state *st,
				  struct reparse_job *j)
{
	struct smbd_open *op = st->op;
	struct smbd_tcon *t = st->req->tcon;

	j->call = st->call;
	j->fd = -1;
	j->share.root_fd = -1;
	talloc_set_destructor(j, reparse_job_destructor);
	wire_buf_init(&j->out, j, 64);
	j->id.dev = op->dev;
	j->id.ino = op->ino;
	j->path = talloc_strdup(j, op->path);
	if (j->path == NULL || !vfs_share_copy(j, &j->share, &t->share)) {
		talloc_free(j);
		return NT_STATUS_NO_MEMORY;
	}
	j->root_owned = op->snap_root_fd != -1;
	if (j->root_owned) {
		(void)vfs_fd_dup(op->snap_root_fd, &j->share.root_fd);
	} else {
		j->share.root_fd = smbd_tcon_root_borrow(t, j);
	}
	(void)vfs_fd_dup(op->h.fd, &j->fd);
	if (j->fd == -1 || j->share.root_fd == -1) {
		talloc_free(j);
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	return smb2_job_run(st->req, j, reparse_job_run, reparse_job_done,
			    reparse_job_orphan);
}

static struct reparse_job *reparse_job_new(enum reparse_job_kind kind)
{
	struct reparse_job *j = talloc_zero(NULL, struct reparse_job);

	if (j != NULL) {
		j->kind = kind;
		j->fd = -1;
	}
	return j;
}

/* A file or directory of the share (not a pipe, not a stream). */
static NTSTATUS reparse_check_open(const struct smbd_open *op)
{
	if (op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (op->h.fd == -1) {
		return NT_STATUS_FILE_CLOSED;
	}
	return NT_STATUS_OK;
}

/* MS-FSA 2.1.5.10.37, 2.1.5.10.6: WRITE_DATA or WRITE_ATTRIBUTES. */
static NTSTATUS reparse_check_write(const struct smbd_open *op)
{
	NTSTATUS s = reparse_check_open(op);

	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (!(op->access_mask &
	      (SEC_FILE_WRITE_DATA | SEC_FILE_WRITE_ATTRIBUTE))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_fsctl_get_reparse_point(struct smb2_ioctl_state *st)
{
	struct reparse_job *j;
	NTSTATUS s = reparse_check_open(st->op);

	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (st->op->stream != NULL) {
		/* a named stream is data of a file, never a reparse point */
		return NT_STATUS_NOT_A_REPARSE_POINT;
	}
	j = reparse_job_new(REPARSE_GET);
	return j != NULL ? reparse_job_start(st, j) : NT_STATUS_NO_MEMORY;
}

/* Whether the share lets a client make this link (see the top). */
static NTSTATUS reparse_link_allowed(const struct vfs_share *sh,
				     const char *path, const char *target,
				     bool relative, bool insecure)
{
	bool inside = relative && vfs_link_target_inside(path, target);

	if (!sh->follow_symlinks) {
		return NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	if (sh->wide_links) {
		return insecure ? NT_STATUS_OK : NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	return inside ? NT_STATUS_OK : NT_STATUS_PRIVILEGE_NOT_HELD;
}

NTSTATUS smb2_fsctl_set_reparse_point(struct smb2_ioctl_state *st)
{
	struct smbd_open *op = st->op;
	struct smbd_tcon *t = st->req->tcon;
	struct reparse_in in;
	struct reparse_job *j;
	bool relative;
	NTSTATUS s = reparse_check_write(op);

	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	s = reparse_set_parse(wire_ptr(&st->in), wire_remaining(&st->in), &in);
	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (in.tag != IO_REPARSE_TAG_SYMLINK) {
		DBG_INFO("%s: SET_REPARSE_POINT tag 0x%08x: not kept here\n",
			 op->path, in.tag);
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (op->stream != NULL || op->path[0] == '\0') {
		/* a stream's data, or the share's root */
		return NT_STATUS_INVALID_PARAMETER;
	}
	j = reparse_job_new(REPARSE_SET);
	if (j == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s = reparse_symlink_parse(j, in.data, in.data_len, &j->target,
				  &relative);
	if (NT_STATUS_IS_OK(s)) {
		s = reparse_link_allowed(
			&t->share, op->path, j->target, relative,
			lp_bool(st->req->conn->worker->srv->lp, LP_GLOBAL,
				LP_ALLOW_INSECURE_WIDE_LINKS));
	}
	if (!NT_STATUS_IS_OK(s)) {
		DBG_INFO("%s: link to '%s' refused: %s\n", op->path,
			 j->target != NULL ? j->target : "?", nt_errstr(s));
		talloc_free(j);
		return s;
	}
	/* its close changes the directory's entry (directory leases) */
	op->modified = true;
	return reparse_job_start(st, j);
}

NTSTATUS smb2_fsctl_delete_reparse_point(struct smb2_ioctl_state *st)
{
	struct reparse_job *j;
	uint32_t tag;
	NTSTATUS s = reparse_check_write(st->op);

	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	s = reparse_delete_parse(wire_ptr(&st->in), wire_remaining(&st->in),
				 &tag);
	if (!NT_STATUS_IS_OK(s)) {
		return s;
	}
	if (st->op->stream != NULL) {
		return NT_STATUS_NOT_A_REPARSE_POINT;
	}
	j = reparse_job_new(REPARSE_DELETE);
	if (j == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	j->tag = tag;
	st->op->modified = true;
	return reparse_job_start(st, j);
}
