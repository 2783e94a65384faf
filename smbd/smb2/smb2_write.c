/*
 * WRITE and FLUSH (MS-SMB2 2.2.21-2.2.22, 3.3.5.13; 2.2.17-2.2.18,
 * 3.3.5.11).  The data is written from the request buffer itself, which
 * the frame keeps for the job, and the job's state with it: a disconnect
 * meanwhile frees the frame, not the data (smb2_request_keep_input).
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/conn/session.h"
#include "vfs/fault.h"
#include "vfs/vfs.h"
#include "vfs/handle.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <stdint.h>
#include <string.h>

#define SMB2_WRITEFLAG_WRITE_THROUGH 0x00000001
#define SMB2_WRITEFLAG_WRITE_UNBUFFERED 0x00000002
#define SMB2_APPEND_OFFSET 0xFFFFFFFFFFFFFFFFULL
/* MS-FSA 2.1.5.3: the largest file offset a write may reach. */
#define SMBD_MAX_FILE_SIZE 0xfffffff0000ULL

struct write_state {
	struct smbd_worker *worker;
	uint64_t open_id;	/* the open's FileId.Volatile */
	bool wt_begun;		/* counted by smbd_wt_write_begin */
	/* the open's handle: fd borrowed (open.h) or an O_APPEND reopen
	 * (own_fd, closed here); stream's xattr copied */
	struct vfs_handle h;
	bool own_fd;
	bool append;
	bool sync;
	uint64_t offset;
	const uint8_t *data;
	uint32_t length;
	size_t written;
	int err;		/* the ring's result (smb2_ring_write) */
	NTSTATUS status;	/* the handle's */
};

static void write_job(void *p)
{
	struct write_state *st = p;

	st->status = vfs_pwrite(&st->h, st->data, st->length,
				st->append ? VFS_HANDLE_APPEND : st->offset,
				&st->written);
	/* Write-through syncs a file's own data (a stream's write never
	 * did) */
	if (st->sync && NT_STATUS_IS_OK(st->status) &&
	    vfs_handle_has(&st->h, VFS_HANDLE_FD_DATA)) {
		st->status = vfs_handle_sync(&st->h, true);
	}
}

/*
 * The write is over for the open's write time (write_time.h), once:
 * write_done calls this before the answer goes out; a write that is
 * orphaned, refused or never run ends when its state is freed.  The open
 * may be gone by then, so it is looked up by its id.
 */
static void write_finished(struct write_state *st)
{
	struct smbd_open *op;

	if (!st->wt_begun) {
		return;
	}
	st->wt_begun = false;
	op = smbd_open_by_id(st->worker, st->open_id);
	if (op != NULL) {
		smbd_wt_write_end(op);
	}
}

static int write_state_destructor(struct write_state *st)
{
	write_finished(st);
	if (st->own_fd) {
		vfs_handle_close(&st->h);
	}
	return 0;
}

static void write_orphan(void *p)
{
}

static NTSTATUS write_done(struct smb2_request *req, void *p)
{
	struct write_state *st = p;
	struct wire_buf *out = req->out;

	write_finished(st);
	if (!NT_STATUS_IS_OK(st->status) && st->written == 0) {
		return st->status;
	}
	if (st->err != 0 && st->written == 0) {
		return vfs_map_errno(st->err);
	}
	/* 2.2.22 WRITE Response */
	wire_push_le16(out, 17);
	wire_push_le16(out, 0);
	wire_push_le32(out, (uint32_t)st->written);
	wire_push_le32(out, 0);
	wire_push_le16(out, 0);
	wire_push_le16(out, 0);
	wire_push_u8(out, 0);
	return NT_STATUS_OK;
}

NTSTATUS smb2_write(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct write_state *st;
	struct smbd_open *op;
	uint16_t data_off;
	uint32_t length, flags;
	uint64_t offset;
	uint8_t fid[16];
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_le16(b, &data_off);
	(void)wire_pull_le32(b, &length);
	(void)wire_pull_le64(b, &offset);
	(void)wire_pull_bytes(b, fid, 16);
	(void)wire_skip(b, 12); /* Channel, RemainingBytes, channel info */
	(void)wire_pull_le32(b, &flags);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (length > req->conn->max_write) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_check_io_charge(req, length);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (op->pipe != NULL) {
		return smb2_pipe_write(req, op, req->in + data_off, length);
	}
	if (op->is_dir) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (req->tcon->read_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (offset == SMB2_APPEND_OFFSET &&
	    (op->access_mask & SEC_FILE_APPEND_DATA) &&
	    !(op->access_mask & SEC_FILE_WRITE_DATA)) {
		/* 3.3.5.13: an append-only open writes at the end. */
	} else if (!(op->access_mask &
		     (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA)) ||
		   op->opath) {
		return NT_STATUS_ACCESS_DENIED;
	} else if (offset > INT64_MAX ||
		   (length > 0 && (offset >= SMBD_MAX_FILE_SIZE ||
				   length > SMBD_MAX_FILE_SIZE - offset))) {
		/* Past what NTFS can hold (MS-FSA MAXFILESIZE). */
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (length == 0) {
		wire_push_le16(req->out, 17);
		wire_push_zero(req->out, 15);
		return NT_STATUS_OK;
	}
	if (offset != SMB2_APPEND_OFFSET) {
		status = smbd_open_check_io(op, offset, length, true);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	/* MS-FSA 2.1.4.12: a write ends other opens' read caching. */
	smbd_break_readers(op);
	st = talloc_zero(NULL, struct write_state);
	/* The pdu table checked DataOffset/Length lie in the request; the
	 * data stays with st while the job writes it, even if the
	 * connection goes meanwhile. */
	if (st == NULL || !smb2_request_keep_input(req, st)) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->append = offset == SMB2_APPEND_OFFSET &&
		     !(op->access_mask & SEC_FILE_WRITE_DATA) && !op->stream;
	if (st->append) {
		vfs_handle_init(&st->h, -1);
		status = vfs_handle_reopen_append(op->h.fd, &st->h.fd);
		st->own_fd = NT_STATUS_IS_OK(status);
	} else {
		status = smbd_open_handle_borrow(op, st, &st->h);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	st->offset = offset;
	st->data = req->in + data_off;
	st->length = length;
	st->sync = (flags & SMB2_WRITEFLAG_WRITE_THROUGH) ||
		   (op->create_options & 0x00000002 /* WRITE_THROUGH */);
	st->worker = op->worker;
	st->open_id = op->fid_volatile;
	if (!st->append) {
		op->position = offset + length;
	}
	st->wt_begun = smbd_wt_write_begin(op);
	op->modified = true;
	talloc_set_destructor(st, write_state_destructor);
	if (!st->append && vfs_handle_has(&st->h, VFS_HANDLE_FD_DATA) &&
	    !st->sync && !vfs_fault_armed(VFS_FAULT_WRITE)) {
		/* Plain data to the open's fd: the ring writes it, as the
		 * user (smb2_ring.c); the pool where there is no ring. */
		status = smb2_ring_write(req, st, st->h.fd, st->data,
					 st->length, st->offset, &st->written,
					 &st->err, write_done, write_orphan);
		if (status != NT_STATUS_NOT_SUPPORTED) {
			return status;
		}
	}
	return smb2_job_run(req, st, write_job, write_done, write_orphan);
}

/* ---- FLUSH ---- */

struct flush_state {
	struct vfs_handle h;
	NTSTATUS status;
};

static void flush_job(void *p)
{
	struct flush_state *st = p;

	st->status = vfs_handle_sync(&st->h, false);
}

static NTSTATUS flush_done(struct smb2_request *req, void *p)
{
	struct flush_state *st = p;

	if (!NT_STATUS_IS_OK(st->status)) {
		return st->status;
	}
	wire_push_le16(req->out, 4);
	wire_push_le16(req->out, 0);
	return NT_STATUS_OK;
}

NTSTATUS smb2_flush(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct flush_state *st;
	struct smbd_open *op;
	uint8_t fid[16];
	NTSTATUS status;

	(void)wire_skip(b, 8);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* 3.3.5.11: flushing needs write access (directories: any). */
	if (!op->is_dir &&
	    !(op->access_mask & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (op->opath) {
		wire_push_le16(req->out, 4);
		wire_push_le16(req->out, 0);
		return NT_STATUS_OK;
	}
	/* smb2.timestamps.delayed-write-vs-flush: a pending write time
	 * update happens now. */
	smbd_wt_flush(op);
	st = talloc_zero(NULL, struct flush_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = smbd_open_handle_borrow(op, st, &st->h);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	return smb2_job_run(req, st, flush_job, flush_done, write_orphan);
}
