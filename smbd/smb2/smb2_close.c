/*
 * CLOSE (MS-SMB2 2.2.15, 2.2.16, 3.3.5.10): the locking DB says whether
 * this close deletes the file (a pending delete, last open).  The common
 * close is done on the loop thread (close_inline); a delete, or a
 * stream's close, closes the fd, deletes and reads the attributes in the
 * thread pool.
 * Split from smb2_create.c (one file per command); the attributes are
 * pushed as the CREATE response does (create_push_times).
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/conn/session.h"
#include "smbd/objects/write_time.h"
#include "vfs/anchor.h"
#include "vfs/module.h"
#include "vfs/dosattrib.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_CLOSE_FLAGS_FULL_INFORMATION 0x0001

struct close_state {
	/* the open's handle, its fd now the job's (closed here) and its
	 * stream's xattr copied */
	struct vfs_handle h;
	int root_fd;
	char *path;
	bool is_dir;
	bool delete_on_close;
	bool delete_base;	/* the stream's file goes too */
	bool want_info;
	struct vfs_file_id id;	/* the file a delete may remove */
	struct vfs_share share;
	struct vfs_stack *vfs;	/* the share's modules: our reference */
	NTSTATUS status;
	struct vfs_file_info fi;
	struct smbd_dir_change dir;	/* a delete breaks its leases */
	/* A ChangeTime this open set, and the ctime it holds for: its
	 * entry is gone before the job stats the file (write_time.h). */
	bool change_set;
	uint64_t change_time, change_ctime;
};

static void close_job(void *p)
{
	struct close_state *st = p;

	if (st->want_info && st->h.fd != -1) {
		st->status = vfs_fstat_info(st->h.fd, &st->fi);
		if (NT_STATUS_IS_OK(st->status)) {
			vfs_fill_dos_attributes(&st->share, st->h.fd, false,
						st->path, &st->fi);
		}
		if (NT_STATUS_IS_OK(st->status) && st->h.xattr != NULL) {
			uint64_t size = 0;

			(void)vfs_handle_size(&st->h, &size);
			st->fi.end_of_file = size;
			st->fi.allocation_size = (size + 4095) & ~4095ULL;
		}
	}
	if (st->h.xattr != NULL) {
		if (st->delete_on_close && st->h.fd != -1) {
			(void)vfs_handle_remove(&st->h);
		}
		/* The file itself goes when this stream open was the last
		 * thing keeping its pending delete. */
		st->delete_on_close = st->delete_base;
	}
	vfs_handle_close(&st->h);
	if (st->delete_on_close && st->path[0] != '\0') {
		/* Anchored to the file's directory and checked to be this
		 * file (vfs/anchor.h): never through a re-pointed path. */
		NTSTATUS ds = vfs_stack_unlink(st->vfs, &st->share,
					       st->root_fd, st->path,
					       st->is_dir, &st->id);

		if (!NT_STATUS_IS_OK(ds)) {
			DBG_NOTICE("delete on close of %s: %s\n", st->path,
				   nt_errstr(ds));
		}
		/* After a delete the reply carries no attributes. */
		st->want_info = false;
	}
}

static int close_state_destructor(struct close_state *st)
{
	vfs_stack_unref(st->vfs);
	return 0;
}

static void close_orphan(void *p)
{
}

static NTSTATUS close_done(struct smb2_request *req, void *p)
{
	struct close_state *st = p;
	struct wire_buf *out = req->out;

	/* The job deleted the file (or the stream's file): its directory's
	 * leases break now that the entry is gone. */
	if (st->delete_on_close) {
		smbd_dirlease_break(req->conn->worker, &st->dir);
	}
	/* 2.2.16 CLOSE Response */
	wire_push_le16(out, 60);
	wire_push_le16(out, st->want_info && NT_STATUS_IS_OK(st->status)
				    ? SMB2_CLOSE_FLAGS_FULL_INFORMATION
				    : 0);
	wire_push_le32(out, 0);
	if (st->want_info && NT_STATUS_IS_OK(st->status)) {
		if (st->change_set &&
		    st->fi.inode_ctime == st->change_ctime) {
			st->fi.change_time = st->change_time;
		} else {
			smbd_ct_report(req->conn->worker, &st->fi);
		}
		create_push_times(out, &st->fi);
	} else {
		wire_push_zero(out, 52);
	}
	return NT_STATUS_OK;
}

/*
 * The common CLOSE, on the loop thread: no delete to do, no stream.  What
 * is left is close(2) of a local file's fd, and for FULL_INFORMATION an
 * fstat and the DOS attributes' fgetxattr of a file just used, all
 * served from cached inodes; the hop through the pool cost more than the
 * work (DESIGN.md "Deviations": about 2 futex calls, an eventfd write
 * and read, and the share root's dup and close).  No identity is needed:
 * closing is not permission-checked, and the attributes are read off the
 * handle the client opened with its own rights, as the pool would.  A
 * delete, the streams' and resource fork's sizes, and every close on a
 * network or FUSE file system (close flushes there) stay in the job.
 */
static bool close_inline(struct smbd_open *op, struct close_state *st)
{
	if (st->delete_on_close || st->delete_base || op->stream != NULL ||
	    !vfs_handle_has(&op->h, VFS_HANDLE_FD_DATA) ||
	    !op->tcon->share.local_fs) {
		return false;
	}
	if (st->want_info) {
		if (op->h.fd == -1) {
			return false;
		}
		st->status = vfs_fstat_info(op->h.fd, &st->fi);
		if (NT_STATUS_IS_OK(st->status)) {
			vfs_fill_dos_attributes(&op->tcon->share, op->h.fd,
						false, op->path, &st->fi);
		}
	}
	return true;
}

NTSTATUS smb2_close(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct close_state *st;
	struct smbd_open *op;
	uint8_t fid[16];
	uint16_t flags;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_le16(b, &flags);
	(void)wire_skip(b, 4);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (op->pipe != NULL) {
		return smb2_pipe_close(req, op);
	}
	st = talloc_zero(NULL, struct close_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->want_info = (flags & SMB2_CLOSE_FLAGS_FULL_INFORMATION) != 0;
	/* Before the attributes are read: a write since the last write
	 * time update sets it now (write_time.h). */
	smbd_wt_close(op);
	st->change_set = op->wt.change_time != 0;
	st->change_time = op->wt.change_time;
	st->change_ctime = op->wt.change_ctime;
	/* The locking DB knows whether this close deletes the file: the
	 * last open of one whose delete is pending. */
	smbd_open_share_release(op, &st->delete_on_close, &st->delete_base);
	if (close_inline(op, st)) {
		talloc_free(op);	/* closes the fd (or leaves it to jobs) */
		(void)talloc_steal(req->mem_ctx, st);
		return close_done(req, st);
	}
	st->is_dir = op->is_dir;
	smbd_dir_change_of(op, &st->dir);
	st->id.dev = op->dev;
	st->id.ino = op->ino;
	st->vfs = vfs_stack_ref(op->tcon->vfs);
	talloc_set_destructor(st, close_state_destructor);
	st->path = talloc_strdup(st, op->path);
	if (!vfs_share_copy(st, &st->share, &op->tcon->share)) {
		st->path = NULL;	/* fails below: out of memory */
	}
	st->h = op->h;
	st->h.xattr = op->stream ? talloc_strdup(st, op->stream) : NULL;
	/* the tree's, held until st goes (smbd_tcon_root_borrow) */
	st->root_fd = smbd_tcon_root_borrow(op->tcon, st);
	st->h.fd = smbd_open_detach(op);
	talloc_free(op);
	if (st->path == NULL || st->root_fd == -1) {
		vfs_handle_close(&st->h);
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	return smb2_job_run(req, st, close_job, close_done, close_orphan);
}

