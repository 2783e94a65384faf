/*
 * IOCTL (MS-SMB2 2.2.31, 2.2.32, 3.3.5.15): a table of the FSCTLs we
 * implement, each handled in the file of its family (smb2_copychunk.c,
 * smb2_fsctl_fs.c, smb2_fsctl_net.c, smb2_fsctl_dfs.c,
 * smb2_fsctl_reparse.c, smb2_fsctl_lmr.c, smb2_pipe.c); an unknown code
 * gets STATUS_NOT_SUPPORTED.  Handlers write their output into a buffer
 * of their own and smb2_ioctl_reply() frames it, at once or when a pool
 * job finishes.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/wire/dfs_wire.h"
#include "smbd/wire/reparse_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_0_IOCTL_IS_FSCTL 0x00000001

#define FSCTL_VALIDATE_NEGOTIATE_INFO 0x00140204

struct smb2_fsctl {
	uint32_t code;
	bool on_file;		/* FileId names an open (FILE_CLOSED if not) */
	NTSTATUS (*fn)(struct smb2_ioctl_state *st);
};

/*
 * 3.3.5.15.12: the client repeats what it sent in NEGOTIATE; any
 * difference means a man in the middle changed it, so drop the
 * connection.  3.1.1 has the preauth hash instead, and a client that
 * still sends this is dropped too.
 */
static NTSTATUS fsctl_validate_negotiate(struct smb2_ioctl_state *st)
{
	struct smbd_conn *conn = st->req->conn;
	uint32_t caps;
	uint8_t guid[16];
	uint16_t secmode, count, d, i, best = 0;
	const struct lp_ctx *lp = conn->worker->srv->lp;

	if (conn->dialect == SMB2_DIALECT_0311 ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&st->in, &caps)) ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(&st->in, guid, 16)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&st->in, &secmode)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&st->in, &count)) ||
	    wire_remaining(&st->in) < (size_t)count * 2 || st->call.max_out < 24) {
		st->req->disconnect = true;
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < count; i++) {
		(void)wire_pull_le16(&st->in, &d);
		if (d >= lp_int(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL) &&
		    d <= lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL) &&
		    d != SMB2_DIALECT_WILDCARD && d > best) {
			best = d;
		}
	}
	if (caps != conn->client_caps ||
	    memcmp(guid, conn->client_guid, 16) != 0 ||
	    secmode != conn->client_security_mode || best != conn->dialect) {
		DBG_ERR("%s: VALIDATE_NEGOTIATE_INFO mismatch: dropping the "
			"connection\n",
			conn->remote);
		st->req->disconnect = true;
		return NT_STATUS_ACCESS_DENIED;
	}
	wire_push_le32(st->out, conn->server_caps);
	wire_push_bytes(st->out, conn->worker->srv->server_guid, 16);
	wire_push_le16(st->out, conn->server_security_mode);
	wire_push_le16(st->out, conn->dialect);
	/* The answer proves the server's side: it must be signed. */
	st->req->sign_reply = true;
	return NT_STATUS_OK;
}

/* 3.3.5.15.1 / MS-FSCC 2.3.50: write a request, read the answer. */
static NTSTATUS fsctl_pipe_transceive(struct smb2_ioctl_state *st)
{
	return smb2_pipe_transceive(st->req, st->op, &st->call,
				    wire_ptr(&st->in), wire_remaining(&st->in),
				    st->out);
}

/* 3.3.5.15.10 */
static NTSTATUS fsctl_pipe_wait(struct smb2_ioctl_state *st)
{
	return smb2_pipe_wait(st->req, wire_ptr(&st->in),
			      wire_remaining(&st->in));
}

static const struct smb2_fsctl smb2_fsctls[] = {
	{FSCTL_DFS_GET_REFERRALS, false, smb2_fsctl_dfs_get_referrals},
	{FSCTL_DFS_GET_REFERRALS_EX, false, smb2_fsctl_dfs_get_referrals_ex},
	{FSCTL_VALIDATE_NEGOTIATE_INFO, false, fsctl_validate_negotiate},
	{FSCTL_PIPE_TRANSCEIVE, true, fsctl_pipe_transceive},
	{FSCTL_PIPE_WAIT, false, fsctl_pipe_wait},
	{FSCTL_QUERY_NETWORK_INTERFACE_INFO, false,
	 smb2_fsctl_network_interface_info},
	{FSCTL_LMR_REQUEST_RESILIENCY, true, smb2_fsctl_request_resiliency},
	{FSCTL_SRV_REQUEST_RESUME_KEY, true, smb2_fsctl_request_resume_key},
	{FSCTL_SRV_COPYCHUNK, true, smb2_fsctl_copychunk},
	{FSCTL_SRV_COPYCHUNK_WRITE, true, smb2_fsctl_copychunk},
	{FSCTL_SET_SPARSE, true, smb2_fsctl_set_sparse},
	{FSCTL_SET_ZERO_DATA, true, smb2_fsctl_set_zero_data},
	{FSCTL_QUERY_ALLOCATED_RANGES, true,
	 smb2_fsctl_query_allocated_ranges},
	{FSCTL_GET_COMPRESSION, true, smb2_fsctl_get_compression},
	{FSCTL_SET_COMPRESSION, true, smb2_fsctl_set_compression},
	{FSCTL_CREATE_OR_GET_OBJECT_ID, true, smb2_fsctl_object_id},
	{FSCTL_GET_OBJECT_ID, true, smb2_fsctl_object_id},
	{FSCTL_SRV_ENUMERATE_SNAPSHOTS, true, smb2_fsctl_enumerate_snapshots},
	{FSCTL_GET_REPARSE_POINT, true, smb2_fsctl_get_reparse_point},
	{FSCTL_SET_REPARSE_POINT, true, smb2_fsctl_set_reparse_point},
	{FSCTL_DELETE_REPARSE_POINT, true, smb2_fsctl_delete_reparse_point},
};

#define SMB2_NUM_FSCTLS (sizeof(smb2_fsctls) / sizeof(smb2_fsctls[0]))

NTSTATUS smb2_ioctl(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct smb2_ioctl_state st;
	struct wire_buf out;
	uint32_t in_off, in_len, out_off, out_len, max_in, flags;
	size_t i;
	NTSTATUS status = NT_STATUS_NOT_SUPPORTED;

	memset(&st, 0, sizeof(st));
	st.req = req;
	(void)wire_skip(b, 4);
	(void)wire_pull_le32(b, &st.call.ctl_code);
	(void)wire_pull_bytes(b, st.call.file_id, 16);
	(void)wire_pull_le32(b, &in_off);
	(void)wire_pull_le32(b, &in_len);
	(void)wire_pull_le32(b, &max_in);
	(void)wire_pull_le32(b, &out_off);
	(void)wire_pull_le32(b, &out_len);
	(void)wire_pull_le32(b, &st.call.max_out);
	(void)wire_pull_le32(b, &flags);
	if (in_len > 0) {
		wire_cur_init(&st.in, req->in + in_off, in_len);
	}
	if (flags != SMB2_0_IOCTL_IS_FSCTL) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	/* 3.3.5.15: what the client lets us return must fit a transact;
	 * handlers may size buffers by max_out. */
	if (st.call.max_out > req->conn->max_trans ||
	    max_in > req->conn->max_trans) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_buf_init(&out, req->mem_ctx, 64);
	st.out = &out;

	for (i = 0; i < SMB2_NUM_FSCTLS; i++) {
		if (smb2_fsctls[i].code == st.call.ctl_code) {
			break;
		}
	}
	DBG_DEBUG("%s: IOCTL 0x%08x%s\n", req->conn->remote, st.call.ctl_code,
		  i == SMB2_NUM_FSCTLS ? " (not supported)" : "");
	if (i == SMB2_NUM_FSCTLS || smb2_fsctls[i].on_file) {
		/* File FSCTLs, known or not, first need a live open
		 * (3.3.5.15: FILE_CLOSED before anything else). */
		status = smbd_open_lookup(req, st.call.file_id, &st.op);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		status = NT_STATUS_NOT_SUPPORTED;
	}
	if (i < SMB2_NUM_FSCTLS) {
		status = smb2_fsctls[i].fn(&st);
	}
	if (status == SMBD_STATUS_ASYNC) {
		return status;
	}
	return smb2_ioctl_reply(req, &st.call, status, &out);
}
