/*
 * SMB2 glue for named pipes on IPC$ (see smb2_pipe.h); the pipe itself
 * (DCE/RPC, services) is smbd/rpc/pipe.h.
 *
 * A pipe open is an ordinary struct smbd_open with fd -1 and op->pipe
 * set, so the FileId table, session/tree checks, compounds and teardown
 * (the pipe is a talloc child of the open) work as for files.  The
 * handlers answer at once: every complete request the client wrote has
 * been answered before its WRITE/IOCTL returns.  One exception: on a
 * member (security = ads) an lsarpc lookup of domain accounts waits for
 * winbindd (smbd/rpc/rpc_domain.h); the WRITE or IOCTL then goes async
 * while a pool job asks winbindd, on a copy of the questions, and
 * finishes when the answers are back on the loop.
 */
#include "smbd/smb2/smb2_pipe.h"

#include <string.h>
#include <talloc.h>

#include "conf/loadparm.h"
#include "lib/log.h"
#include "lib/charset.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/objects/open.h"
#include "smbd/rpc/pipe.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smbd.h"
#include "smbd/smb2/smb2_ioctl.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define PIPE_FILE_OPENED 1
#define PIPE_FILE_ATTRIBUTE_NORMAL 0x80
#define PIPE_INFO_FILE 0x01
#define PIPE_CLASS_BASIC 4
#define PIPE_CLASS_STANDARD 5
#define PIPE_CLASS_PIPE 23
#define PIPE_CLASS_PIPE_LOCAL 24

NTSTATUS smb2_pipe_create(struct smb2_request *req, const uint8_t *name,
			  size_t name_len, uint32_t access)
{
	struct smbd_conn *conn = req->conn;
	struct smbd_session *s = req->session;
	const struct lp_ctx *lp = conn->worker->srv->lp;
	struct rpc_server_ctx ctx;
	struct rpc_pipe *pipe;
	struct smbd_open *op;
	struct wire_buf *out = req->out;
	char *uname = NULL;
	uint8_t fid[16];
	NTSTATUS status;

	if (name == NULL || name_len == 0) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	status = charset_utf16_to_utf8(req->mem_ctx, name, name_len, &uname);
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.lp = lp;
	ctx.account_name = s->account_name;
	ctx.domain = s->domain;
	ctx.uid = s->uid;
	ctx.gid = s->gid;
	ctx.anonymous = s->anonymous || s->guest;
	ctx.unix_name = s->unix_name != NULL
				? s->unix_name
				: lp_str(lp, LP_GLOBAL, LP_GUEST_ACCOUNT);
	ctx.groups = s->groups;
	ctx.ngroups = s->ngroups;
	ctx.client_addr = conn->remote_addr;
	ctx.server_start_nttime = conn->worker->srv->start_nttime;
	ctx.state_dir = lp_str(lp, LP_GLOBAL, LP_STATE_DIRECTORY);
	ctx.private_dir = lp_str(lp, LP_GLOBAL, LP_PRIVATE_DIR);
	ctx.passdb = smb2_worker_of(conn->worker)->passdb;
	ctx.member = lp_security_ads(lp);
	status = rpc_pipe_open(req->mem_ctx, uname, &ctx, &pipe);
	DBG_INFO("%s: open pipe '%s': %s\n", conn->remote, uname,
		 nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	op = smbd_open_new(conn, s, req->tcon, -1);
	if (op == NULL) {
		talloc_free(pipe);
		return NT_STATUS_NO_MEMORY;
	}
	op->pipe = talloc_steal(op, pipe);
	talloc_set_name_const(pipe, "rpc_pipe");
	op->path = talloc_strdup(op, rpc_pipe_name(pipe));
	op->is_dir = false;
	op->access_mask = access;
	smbd_open_fid_bytes(op, fid);
	memcpy(req->fid, fid, 16);

	/* 2.2.14 CREATE Response; 3.3.5.9: a pipe has no times or sizes */
	wire_push_le16(out, 89);
	wire_push_u8(out, 0);
	wire_push_u8(out, 0);
	wire_push_le32(out, PIPE_FILE_OPENED);
	wire_push_zero(out, 32);	/* times */
	wire_push_le64(out, 4096);	/* AllocationSize, as Windows */
	wire_push_le64(out, 0);		/* EndOfFile */
	wire_push_le32(out, PIPE_FILE_ATTRIBUTE_NORMAL);
	wire_push_le32(out, 0);
	wire_push_bytes(out, fid, 16);
	wire_push_le32(out, 0);
	wire_push_le32(out, 0);
	wire_push_u8(out, 0);
	return out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

NTSTATUS smb2_pipe_read(struct smb2_request *req, struct smbd_open *op,
			uint32_t length)
{
	struct wire_buf *out = req->out;
	uint8_t *data;
	size_t len;
	bool more;
	NTSTATUS status;

	status = rpc_pipe_read(op->pipe, req->mem_ctx, length, &data, &len,
			       &more);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* 2.2.20 READ Response */
	wire_push_le16(out, 17);
	wire_push_u8(out, SMB2_HDR_LEN + 16);
	wire_push_u8(out, 0);
	wire_push_le32(out, (uint32_t)len);
	wire_push_le32(out, 0);
	wire_push_le32(out, 0);
	wire_push_bytes(out, data, len);
	if (len == 0) {
		wire_push_u8(out, 0);
	}
	if (out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	/* 3.3.5.12: a message longer than the read: the rest comes next */
	return more ? STATUS_BUFFER_OVERFLOW : NT_STATUS_OK;
}

/* ---- a lookup call waiting for winbindd (see the top) ---- */

struct pipe_lookup {
	uint8_t fid[16];
	struct rpc_dbatch *batch;
	bool ioctl;
	uint32_t length;		/* WRITE */
	struct smb2_ioctl_call call;	/* IOCTL */
};

static NTSTATUS pipe_write_reply(struct smb2_request *req, uint32_t length);
static NTSTATUS pipe_transceive_read(struct smbd_open *op, uint32_t max_out,
				     struct wire_buf *out);

static void pipe_lookup_work(void *priv)
{
	struct pipe_lookup *pl = priv;

	rpc_pipe_lookup(pl->batch);
}

static NTSTATUS pipe_lookup_done(struct smb2_request *req, void *priv)
{
	struct pipe_lookup *pl = priv;
	struct smbd_open *op = NULL;
	struct wire_buf out;
	NTSTATUS status;

	/* closed meanwhile: the answers go with the job */
	status = smbd_open_lookup(req, pl->fid, &op);
	if (!NT_STATUS_IS_OK(status) || op->pipe == NULL) {
		return NT_STATUS_FILE_CLOSED;
	}
	rpc_pipe_resume(op->pipe, pl->batch);
	if (!pl->ioctl) {
		return pipe_write_reply(req, pl->length);
	}
	wire_buf_init(&out, req->mem_ctx, pl->call.max_out + 1);
	status = pipe_transceive_read(op, pl->call.max_out, &out);
	return smb2_ioctl_reply(req, &pl->call, status, &out);
}

/* The call op's pipe stalled on: its questions to winbindd in a job;
 * call is the IOCTL's (NULL for a WRITE of length bytes). */
static NTSTATUS pipe_lookup_start(struct smb2_request *req,
				  struct smbd_open *op, uint32_t length,
				  const struct smb2_ioctl_call *call)
{
	struct pipe_lookup *pl = talloc_zero(NULL, struct pipe_lookup);
	NTSTATUS status;

	if (pl == NULL) {
		rpc_pipe_resume(op->pipe, NULL);
		return NT_STATUS_NO_MEMORY;
	}
	pl->length = length;
	pl->ioctl = call != NULL;
	if (call != NULL) {
		pl->call = *call;
	}
	pl->batch = rpc_pipe_wanted(op->pipe, pl);
	if (pl->batch == NULL) {
		/* no memory for the questions: answered as unmapped */
		talloc_free(pl);
		rpc_pipe_resume(op->pipe, NULL);
		return NT_STATUS_NO_MEMORY;
	}
	smbd_open_fid_bytes(op, pl->fid);
	/* as the user, in IPC$'s lane: lookups never take logon threads */
	status = smb2_job_run(req, pl, pipe_lookup_work, pipe_lookup_done,
			      NULL);
	if (status != SMBD_STATUS_ASYNC) {
		rpc_pipe_resume(op->pipe, NULL);
	}
	return status;
}

static NTSTATUS pipe_write_reply(struct smb2_request *req, uint32_t length)
{
	/* 2.2.22 WRITE Response */
	wire_push_le16(req->out, 17);
	wire_push_le16(req->out, 0);
	wire_push_le32(req->out, length);
	wire_push_zero(req->out, 9);
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

NTSTATUS smb2_pipe_write(struct smb2_request *req, struct smbd_open *op,
			 const uint8_t *data, uint32_t length)
{
	NTSTATUS status = rpc_pipe_write(op->pipe, data, length);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (rpc_pipe_stalled(op->pipe)) {
		return pipe_lookup_start(req, op, length, NULL);
	}
	return pipe_write_reply(req, length);
}

NTSTATUS smb2_pipe_transceive(struct smb2_request *req, struct smbd_open *op,
			      const struct smb2_ioctl_call *call,
			      const uint8_t *in, size_t in_len,
			      struct wire_buf *out)
{
	NTSTATUS status;

	if (op->pipe == NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	status = rpc_pipe_write(op->pipe, in, in_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (rpc_pipe_stalled(op->pipe)) {
		return pipe_lookup_start(req, op, 0, call);
	}
	return pipe_transceive_read(op, call->max_out, out);
}

/* The transceive's answer: up to max_out bytes of the pipe's message. */
static NTSTATUS pipe_transceive_read(struct smbd_open *op, uint32_t max_out,
				     struct wire_buf *out)
{
	TALLOC_CTX *tmp;
	uint8_t *data;
	size_t len;
	bool more;
	NTSTATUS status;

	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = rpc_pipe_read(op->pipe, tmp, max_out, &data, &len, &more);
	if (NT_STATUS_IS_OK(status)) {
		wire_push_bytes(out, data, len);
		/* MS-FSCC 2.3.50: the rest is read with READ */
		status = more ? STATUS_BUFFER_OVERFLOW : NT_STATUS_OK;
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS smb2_pipe_wait(struct smb2_request *req, const uint8_t *in,
			size_t in_len)
{
	struct wire_cur c;
	uint64_t timeout;
	uint32_t name_len;
	uint8_t specified, pad;
	const uint8_t *name;
	char *uname;
	struct rpc_pipe *p;
	struct rpc_server_ctx ctx;
	NTSTATUS status;

	if (req->tcon == NULL || !req->tcon->ipc) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	/* FSCTL_PIPE_WAIT_REQUEST (MS-FSCC 2.3.49) */
	wire_cur_init(&c, in, in_len);
	status = wire_pull_le64(&c, &timeout);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le32(&c, &name_len);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(&c, &specified);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(&c, &pad);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_ref(&c, &name, name_len);
	}
	if (!NT_STATUS_IS_OK(status) || name_len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(charset_utf16_to_utf8(req->mem_ctx, name, name_len,
						   &uname))) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	/* Our pipes always have a free instance: open one to see. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.lp = req->conn->worker->srv->lp;
	status = rpc_pipe_open(req->mem_ctx, uname, &ctx, &p);
	if (NT_STATUS_IS_OK(status)) {
		talloc_free(p);
	}
	return status;
}

NTSTATUS smb2_pipe_getinfo(struct smb2_request *req, struct smbd_open *op,
			   uint8_t type, uint8_t cls, uint32_t max_out)
{
	struct wire_buf *out = req->out;
	size_t body = out->len, data, need;

	if (type != PIPE_INFO_FILE) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	switch (cls) {
	case PIPE_CLASS_BASIC:
		need = 40;
		break;
	case PIPE_CLASS_STANDARD:
		need = 24;
		break;
	case PIPE_CLASS_PIPE:
		need = 8;
		break;
	case PIPE_CLASS_PIPE_LOCAL:
		need = 40;
		break;
	default:
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (max_out < need) {
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	/* 2.2.38 QUERY_INFO Response */
	wire_push_le16(out, 9);
	wire_push_le16(out, 0);
	wire_push_le32(out, 0);
	data = out->len;
	switch (cls) {
	case PIPE_CLASS_BASIC: /* MS-FSCC 2.4.7 */
		wire_push_zero(out, 32);
		wire_push_le32(out, PIPE_FILE_ATTRIBUTE_NORMAL);
		wire_push_le32(out, 0);
		break;
	case PIPE_CLASS_STANDARD: /* MS-FSCC 2.4.41, as Windows for pipes */
		wire_push_le64(out, 4096);
		wire_push_le64(out, 0);
		wire_push_le32(out, 1);
		wire_push_u8(out, 1);	/* DeletePending */
		wire_push_u8(out, 0);
		wire_push_le16(out, 0);
		break;
	case PIPE_CLASS_PIPE: /* MS-FSCC 2.4.31: message read, queued */
		wire_push_le32(out, 1);
		wire_push_le32(out, 0);
		break;
	default: /* MS-FSCC 2.4.32 FilePipeLocalInformation */
		wire_push_le32(out, 1);	 /* message type */
		wire_push_le32(out, 2);	 /* full duplex */
		wire_push_le32(out, 0xffffffff);
		wire_push_le32(out, 1);
		wire_push_le32(out, 65536);
		wire_push_le32(out, (uint32_t)rpc_pipe_pending(op->pipe));
		wire_push_le32(out, 65536);
		wire_push_le32(out, 65536);
		wire_push_le32(out, 3);	 /* connected */
		wire_push_le32(out, 1);	 /* server end */
		break;
	}
	if (out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	put_le16(out->data + body + 2, (uint16_t)(data - req->out_hdr));
	put_le32(out->data + body + 4, (uint32_t)(out->len - data));
	return NT_STATUS_OK;
}

NTSTATUS smb2_pipe_close(struct smb2_request *req, struct smbd_open *op)
{
	(void)smbd_open_detach(op);
	talloc_free(op);
	/* 2.2.16 CLOSE Response: no attributes for a pipe */
	wire_push_le16(req->out, 60);
	wire_push_le16(req->out, 0);
	wire_push_le32(req->out, 0);
	wire_push_zero(req->out, 52);
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}
