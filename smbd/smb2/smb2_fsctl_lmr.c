/*
 * FSCTL_LMR_REQUEST_RESILIENCY (MS-SMB2 2.2.31.3, 3.3.5.15.9): a client
 * asks that an open survive a network failure for a while.  The open
 * becomes resilient (smbd/objects/durable.c keeps it over a lost
 * connection, ends its breaks while nobody can answer them, and gives it
 * back to a DHnC or DH2C from the same user) and its LOCK requests get
 * replay detection (3.3.5.14, smb2_lock.c).  Windows clients ask for it
 * on files they keep open over network blips (Office, mapped drives);
 * Samba 4.17 answers NOT_SUPPORTED.
 *
 * What is answered:
 *   - a 2.0.2 connection: INVALID_DEVICE_REQUEST (3.3.5.15.9 allows it;
 *     2.2.31.3: "not valid for the SMB 2.0.2 dialect");
 *   - a directory, a stream or a pipe: NOT_SUPPORTED (what a server that
 *     does not support the request answers): keeping one over a lost
 *     connection is not implemented (their pending notify and directory
 *     state belong to the connection, and a reclaim moves only a file's
 *     data fd between workers);
 *   - an input shorter than NETWORK_RESILIENCY_REQUEST, or a Timeout over
 *     the maximum (in seconds, as 3.3.5.15.9 compares): INVALID_PARAMETER;
 *   - otherwise success with an empty output, the Timeout (0: 120 s) now
 *     the open's ResiliencyTimeout.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/objects/open.h"
#include "smbd/objects/durable.h"
#include "lib/log.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

NTSTATUS smb2_fsctl_request_resiliency(struct smb2_ioctl_state *st)
{
	struct smb2_request *req = st->req;
	struct smbd_open *op = st->op;
	uint32_t timeout_ms;
	NTSTATUS status;

	if (req->conn->dialect == SMB2_DIALECT_0202) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (op->is_dir || op->stream != NULL || op->pipe != NULL) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	status = fsctl_resiliency_parse(wire_ptr(&st->in),
					wire_remaining(&st->in),
					SMBD_RESILIENT_MAX_TIMEOUT_MS,
					SMBD_RESILIENT_DEFAULT_TIMEOUT_MS,
					&timeout_ms);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_DEBUG("%s: resiliency request on '%s': %s\n",
			  req->conn->remote, op->path, nt_errstr(status));
		return status;
	}
	smbd_resilient_grant(op, timeout_ms, req->session->uid);
	return NT_STATUS_OK;
}
