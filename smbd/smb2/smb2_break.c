/*
 * OPLOCK_BREAK requests: the client's acknowledgement of an oplock break
 * (2.2.24.1, 24 bytes) or of a lease break (2.2.24.2, 36 bytes), and the
 * responses (2.2.25.1, 2.2.25.2); MS-SMB2 3.3.5.22.
 *
 * The state lives in the locking DB (locking/oplock.c); acknowledging
 * may end a break other opens wait for (wake them on every worker) or
 * start the next one (a later open wanted less than the first break
 * said: that break goes out now).
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "locking/locking.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* After the DB changed: breaks to send, waiters to wake. */
static void break_after(struct smbd_worker *w, const struct file_key *k,
			const struct share_ack_res *res)
{
	smbd_breaks_deliver(w, k, res->breaks, res->nbreaks);
	if (res->wake) {
		smbd_breaks_wake(w, k);
	}
}

/* 3.3.5.22.1 */
static NTSTATUS oplock_ack(struct smb2_request *req)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	struct wire_cur *b = &req->body;
	struct share_ack_res res;
	struct smbd_open *op;
	struct file_key k;
	struct open_owner o;
	uint8_t level, fid[16];
	TALLOC_CTX *tmp;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_u8(b, &level);
	(void)wire_skip(b, 5);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (level != SMB2_OPLOCK_LEVEL_NONE && level != SMB2_OPLOCK_LEVEL_II) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (db == NULL || op->caching != CACHING_OPLOCK) {
		return NT_STATUS_INVALID_OPLOCK_PROTOCOL;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smbd_open_keys(op, &k, &o);
	memset(&res, 0, sizeof(res));
	status = share_mode_oplock_ack(db, tmp, &k, &o,
				       smbd_oplock_level_to_state(level), &res);
	break_after(w, &k, &res);
	talloc_free(tmp);
	DBG_DEBUG("%s: oplock ack of %s to %u: %s\n", req->conn->remote,
		  op->path, level, nt_errstr(status));
	if (res.state == 0) {
		op->caching = CACHING_NONE;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	wire_push_le16(req->out, 24);
	wire_push_u8(req->out, smbd_oplock_state_to_level(res.state));
	wire_push_u8(req->out, 0);
	wire_push_le32(req->out, 0);
	wire_push_bytes(req->out, req->fid, 16);
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/* 3.3.5.22.2 */
static NTSTATUS lease_ack(struct smb2_request *req)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	struct wire_cur *b = &req->body;
	struct share_ack_res res;
	struct smbd_open *op;
	struct file_key k;
	struct open_owner o;
	uint8_t key[16];
	uint32_t state;
	TALLOC_CTX *tmp;
	NTSTATUS status;

	(void)wire_skip(b, 8);	/* StructureSize, Reserved, Flags */
	(void)wire_pull_bytes(b, key, 16);
	(void)wire_pull_le32(b, &state);
	if (req->conn->dialect < 0x0210) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (db == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	op = smbd_open_find_lease(req->conn, key);
	if (op != NULL) {
		smbd_open_keys(op, &k, &o);
	} else if (!share_mode_find_lease(db, req->conn->client_guid, key,
					  &k)) {
		/* The client's opens of the lease live on another worker,
		 * or there are none: the database knows. */
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memset(&res, 0, sizeof(res));
	status = share_mode_lease_ack(db, tmp, &k, req->conn->client_guid, key,
				      state, &res);
	break_after(w, &k, &res);
	talloc_free(tmp);
	DBG_DEBUG("%s: lease ack of %s to 0x%x: %s\n", req->conn->remote,
		  op ? op->path : "(another worker's)", state,
		  nt_errstr(status));
	if (status == NT_STATUS_INVALID_OPLOCK_PROTOCOL) {
		/* No break under way for this lease. */
		return NT_STATUS_UNSUCCESSFUL;
	}
	if (status == NT_STATUS_NOT_FOUND) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	wire_push_le16(req->out, 36);
	wire_push_le16(req->out, 0);
	wire_push_le32(req->out, 0);
	wire_push_bytes(req->out, key, 16);
	wire_push_le32(req->out, state);
	wire_push_le64(req->out, 0);
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

NTSTATUS smb2_break(struct smb2_request *req)
{
	/* smb2_pdu.c let through 24 or 36 only. */
	return wire_remaining(&req->body) >= 36 && le16(wire_ptr(&req->body)) == 36
		       ? lease_ack(req)
		       : oplock_ack(req);
}
