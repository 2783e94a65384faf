/*
 * READ (MS-SMB2 2.2.19, 2.2.20, 3.3.5.12).  The pread runs in the pool
 * as the session's user, straight into a buffer laid out as the reply
 * (room for the transport and SMB2 headers and the response body in
 * front), which the job owns until it is done, so a dropped connection
 * never leaves a thread writing into freed memory.  When the READ is the
 * first reply of its frame that buffer becomes the frame's output and
 * the data is never copied in user space; otherwise it is appended.
 * The open's handle (vfs/handle.h) says how its data is read.  A file's
 * own data the page cache holds whole is read on the loop thread
 * instead, without waiting for the disk (vfs_posix_pread_cached).
 *
 * Zero-copy (`use sendfile`): a read of a range the page cache holds
 * whole, whose reply goes out as plain bytes (smb2_reply_can_send_file:
 * alone in its frame, neither signed nor encrypted), is answered with
 * the header and body only; the loop then sends the data with sendfile
 * from a dup of the open's fd, after the header.  Everything else takes
 * the paths above, which stay the fallback.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/conn/session.h"
#include "vfs/vfs.h"
#include "vfs/handle.h"
#include "vfs/fsctl_io.h"
#include "conf/loadparm.h"
#include "lib/log.h"

#include <stdint.h>
#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_READFLAG_READ_UNBUFFERED 0x01
#define SMB2_READFLAG_REQUEST_COMPRESSED 0x02
/* Below this a compressed reply saves too little to pay for the work. */
#define READ_COMPRESS_MIN 1024
/* Transport header, SMB2 header and READ response body in front of the
 * data, so a lone READ's reply can be sent from the job's buffer. */
#define READ_REPLY_ROOM (4 + SMB2_HDR_LEN + 16)
/* Below this a copy costs less than the dup, fstat and cachestat the
 * zero-copy path makes, and small reads are the ones clients compound. */
#define READ_SENDFILE_MIN (16 * 1024)

struct read_state {
	/* the open's handle: fd borrowed, stream's xattr copied */
	struct vfs_handle h;
	uint64_t offset;
	uint32_t length;
	uint32_t min_count;
	uint8_t *base;		/* READ_REPLY_ROOM bytes, then the data */
	uint8_t *buf;		/* base + READ_REPLY_ROOM */
	size_t got;
	NTSTATUS status;
};

static void read_job(void *p)
{
	struct read_state *st = p;

	st->status = vfs_pread(&st->h, st->buf, st->length, st->offset,
			       &st->got);
}

static void read_orphan(void *p)
{
}

/* 2.2.20 READ Response: the data right after the 16-byte body. */
static void read_push_body(struct wire_buf *out, uint32_t got)
{
	wire_push_le16(out, 17);
	wire_push_u8(out, SMB2_HDR_LEN + 16);
	wire_push_u8(out, 0);
	wire_push_le32(out, got);
	wire_push_le32(out, 0); /* DataRemaining */
	wire_push_le32(out, 0);
}

static NTSTATUS read_done(struct smb2_request *req, void *p)
{
	struct read_state *st = p;
	struct wire_buf *out = req->out;

	if (!NT_STATUS_IS_OK(st->status) && st->got == 0) {
		return st->status;
	}
	if (st->got == 0 || (uint32_t)st->got < st->min_count) {
		return NT_STATUS_END_OF_FILE;
	}
	if (req->out_hdr == 4 && out->len == 4 + SMB2_HDR_LEN && !out->failed) {
		/* The first reply of its frame: the data is already where
		 * the reply needs it; take the job's buffer as the frame's
		 * (one copy of 84 bytes instead of one of the data). */
		uint8_t *old = out->data;

		memcpy(st->base, old, 4 + SMB2_HDR_LEN);
		out->data = talloc_steal(talloc_parent(old), st->base);
		out->len = 4 + SMB2_HDR_LEN;
		out->cap = READ_REPLY_ROOM + st->length;
		talloc_free(old);
		read_push_body(out, (uint32_t)st->got);
		out->len += (size_t)st->got;
		return NT_STATUS_OK;
	}
	read_push_body(out, (uint32_t)st->got);
	wire_push_bytes(out, st->buf, (size_t)st->got);
	return out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/*
 * The zero-copy reply: false to take the buffered path; true when the
 * reply is decided (*status).  DataLength must be what will really be
 * sent, so the size is taken now (3.3.5.12: up to the end of the file,
 * STATUS_END_OF_FILE at or past it or under MinimumCount); a truncate
 * after this is padded with zeros by the loop (lib/ev.c).
 */
static bool read_send_file(struct smb2_request *req, struct smbd_open *op,
			   uint64_t offset, uint32_t length,
			   uint32_t min_count, NTSTATUS *status)
{
	NTSTATUS s;
	uint64_t count;
	int fd;

	if (length < READ_SENDFILE_MIN ||
	    !vfs_handle_has(&op->h, VFS_HANDLE_FD_DATA) ||
	    op->tcon == NULL || !op->tcon->use_sendfile ||
	    !smb2_reply_can_send_file(req)) {
		return false;
	}
	s = vfs_posix_send_range(op->h.fd, offset, length, min_count,
				 READ_SENDFILE_MIN, &count, &fd);
	if (s == NT_STATUS_END_OF_FILE) {
		*status = s;
		return true;
	}
	if (!NT_STATUS_IS_OK(s)) {
		return false;
	}
	DBG_DEBUG("zero-copy READ of %llu bytes at %llu\n",
		  (unsigned long long)count, (unsigned long long)offset);
	read_push_body(req->out, (uint32_t)count);
	if (req->out->failed) {
		vfs_fd_close(fd);
		*status = NT_STATUS_NO_MEMORY;
		return true;
	}
	smb2_request_send_file(req, fd, offset, (size_t)count);
	*status = NT_STATUS_OK;
	return true;
}

/*
 * 3.3.5.12, 3.1.4.4: the reply goes compressed when the connection
 * negotiated compression and the share's `smb3 compression` says so:
 * auto when the client set SMB2_READFLAG_REQUEST_COMPRESSED, yes always
 * (only ever where it shrinks), no never.  Compressed data passes
 * through our hands, so such a reply is never zero-copy: compression
 * and sendfile are alternatives, chosen here per request.
 */
static void read_decide_compress(struct smb2_request *req,
				 const struct smbd_open *op, uint8_t flags,
				 uint32_t length)
{
	int policy;

	if (req->conn->compress.n == 0 || op->tcon == NULL ||
	    length < READ_COMPRESS_MIN) {
		return;
	}
	policy = op->tcon->compress_reads;
	if (policy == LP_COMPRESS_YES ||
	    (policy == LP_COMPRESS_AUTO &&
	     (flags & SMB2_READFLAG_REQUEST_COMPRESSED))) {
		/* the header and the READ response body stay plain */
		smb2_reply_compress(req, SMB2_HDR_LEN + 16);
	}
}

/* 3.3.5.2.5: a request moving more than 64 KiB must pay for it. */
NTSTATUS smb2_check_io_charge(struct smb2_request *req, uint32_t len)
{
	uint32_t need = len == 0 ? 1 : (len - 1) / 65536 + 1;

	if (req->conn->dialect >= SMB2_DIALECT_0210 &&
	    req->credit_charge < need) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_read(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct read_state *st;
	struct smbd_open *op;
	uint32_t length, min_count;
	uint64_t offset;
	uint8_t fid[16], flags;
	NTSTATUS status;

	(void)wire_skip(b, 3);
	(void)wire_pull_u8(b, &flags);
	(void)wire_pull_le32(b, &length);
	(void)wire_pull_le64(b, &offset);
	(void)wire_pull_bytes(b, fid, 16);
	(void)wire_pull_le32(b, &min_count);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (length > req->conn->max_read) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_check_io_charge(req, length);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (op->pipe != NULL) {
		return smb2_pipe_read(req, op, length);
	}
	if (op->is_dir) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (!(op->access_mask & (SEC_FILE_READ_DATA | SEC_FILE_EXECUTE)) ||
	    op->opath) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (offset > INT64_MAX || length > INT64_MAX - offset) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (min_count > length) {
		return NT_STATUS_END_OF_FILE;
	}
	if (length == 0) {
		/* A zero-byte read succeeds with no data (MS-FSA). */
		wire_push_le16(req->out, 17);
		wire_push_u8(req->out, SMB2_HDR_LEN + 16);
		wire_push_zero(req->out, 13);
		wire_push_u8(req->out, 0);
		return NT_STATUS_OK;
	}
	status = smbd_open_check_io(op, offset, length, false);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	read_decide_compress(req, op, flags, length);
	if (read_send_file(req, op, offset, length, min_count, &status)) {
		op->position = offset + length;
		return status;
	}
	st = talloc_zero(NULL, struct read_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->base = talloc_size(st, READ_REPLY_ROOM + (size_t)length);
	st->buf = st->base ? st->base + READ_REPLY_ROOM : NULL;
	st->offset = offset;
	st->length = length;
	st->min_count = min_count;
	if (st->buf == NULL) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	op->position = offset + length;
	if (vfs_handle_has(&op->h, VFS_HANDLE_FD_DATA) &&
	    vfs_posix_pread_cached(op->h.fd, st->buf, st->length,
				   st->offset)) {
		st->got = st->length;
		/* Served from the page cache on the loop thread: no hop
		 * through the pool.  st belongs to the request now. */
		(void)talloc_steal(req->mem_ctx, st);
		return read_done(req, st);
	}
	/* The open's fd, held for the job: a CLOSE racing this read does
	 * not pull it away (open.h). */
	status = smbd_open_handle_borrow(op, st, &st->h);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	return smb2_job_run(req, st, read_job, read_done, read_orphan);
}
