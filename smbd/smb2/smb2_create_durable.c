/*
 * The durable-handle side of CREATE (MS-SMB2 3.3.5.9.6 DHnQ, 3.3.5.9.7
 * DHnC, 3.3.5.9.10 DH2Q, 3.3.5.9.12 DH2C): which durable context a
 * CREATE asks for, reclaims of a disconnected open (here or on another
 * worker) and DH2Q replays, answered from the open that exists.  The
 * durable opens themselves live in durable.c; this is the CREATE
 * request's part, split from smb2_create.c.
 *
 * This file supplies, smb2_create_reply.c builds: what it learns goes
 * into the create state (st->durable, st->durable_granted, the lease and
 * oplock of an existing open) and create_reply() turns that into the
 * response, the DHnQ/DH2Q contexts (2.2.14.2.3, 2.2.14.2.12) included.
 * The reply builder never calls back here.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/status.h"
#include "smbd/objects/oplock.h"
#include "conf/loadparm.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "smbd/smbd.h"
#include "smbd/wire/create_ctx.h"
#include "smbd/objects/durable.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/conn/session.h"
#include "vfs/dosattrib.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <string.h>

/*
 * The take step of the rows DH2C, DH2Q, DHnC, DHnQ (in that order in
 * create_ctx_ops[]): DHnQ/DHnC (3.3.5.9.6, 3.3.5.9.7) and DH2Q/DH2C
 * (3.3.5.9.10, 3.3.5.9.12; 3.x dialects only, the rows' CREATE_CTX_SMB3
 * ignores them before).  The first one taken is the one used; a v2
 * context with any other durable context is INVALID_PARAMETER, and
 * DHnC, taken before DHnQ, makes DHnQ moot.
 */
static bool durable_ctx_v2(const struct create_ctx *c)
{
	return c->tag[2] == '2';	/* DH2Q, DH2C; not DHnQ, DHnC */
}

NTSTATUS create_durable_take(struct smb2_request *req,
			     struct create_state *st,
			     const struct create_ctx *c)
{
	if (st->durable_seen) {
		/* Only DHnQ after DHnC is no conflict (rows' order). */
		return st->durable_v2_seen || durable_ctx_v2(c)
			       ? NT_STATUS_INVALID_PARAMETER
			       : NT_STATUS_OK;
	}
	st->durable_seen = true;
	st->durable_v2_seen = durable_ctx_v2(c);
	if ((strcmp(c->tag, "DHnQ") == 0 || strcmp(c->tag, "DH2Q") == 0) &&
	    !lp_bool(req->conn->worker->srv->lp, req->tcon->snum,
		     LP_DURABLE_HANDLES)) {
		/* `durable handles = no`: a request is not granted. */
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(create_ctx_durable_parse(c, &st->durable))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	st->reconnect = st->durable.reconnect;
	st->want_durable = !st->durable.reconnect;
	return NT_STATUS_OK;
}

/* The CREATE response for an open that exists already: a reclaimed
 * durable open or a replayed DH2Q (replay: st holds what the replay asked
 * for).  Consumes st. */
static NTSTATUS create_reply_existing(struct smb2_request *req,
				      struct create_state *st,
				      struct smbd_open *op, bool replay)
{
	struct locking_db *db = smbd_locking(req->conn->worker);
	struct share_mode_entry e;
	struct file_key k;
	struct open_owner o;
	NTSTATUS status;

	status = vfs_fstat_info(op->h.fd, &st->fi);
	if (NT_STATUS_IS_OK(status)) {
		vfs_fill_dos_attributes(&op->tcon->share, op->h.fd, false,
					op->path, &st->fi);
		smbd_open_keys(op, &k, &o);
		memset(&e, 0, sizeof(e));
		if (db != NULL) {
			(void)share_mode_get_entry(db, &k, &o, &e);
		}
		st->lease = op->caching == CACHING_LEASE;
		st->lease_version = op->lease_version;
		memcpy(st->lease_key, op->lease_key, 16);
		memcpy(st->parent_key, op->parent_lease_key, 16);
		st->has_parent_key = op->has_parent_key;
		st->granted_state = e.state;
		st->granted_epoch = e.epoch;
		if (replay && !st->lease) {
			/* 3.3.5.9.10: a replay answers with the oplock it
			 * asks for, as far as the open holds it, and is
			 * durable only if that level would make it so. */
			st->granted_state &=
				smbd_oplock_level_to_state(st->oplock_level);
		}
		if (replay) {
			st->durable_granted = smbd_durable_grantable(
				op, st->lease, st->granted_state);
		}
		st->lease_breaking = (e.flags & SHARE_ENTRY_BREAKING) != 0;
		smbd_open_fid_bytes(op, req->fid);
		status = create_reply(req, st, op);
	}
	talloc_free(st);
	return status;
}

/* The open came from another worker (or did not). */
static void create_reclaimed(void *priv, struct smbd_open *op,
			     NTSTATUS status)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;

	if (NT_STATUS_IS_OK(status)) {
		status = create_reply_existing(req, st, op, false);
	} else {
		talloc_free(st);
	}
	smb2_frame_resume(req, status);
}

/* DHnC / DH2C: reclaim a disconnected durable open (durable.c). */
static NTSTATUS create_reconnect(struct smb2_request *req,
				 struct create_state *st)
{
	struct smbd_open *op;
	NTSTATUS status;

	/* 3.3.5.9.7: the open as it is; no durable context in the reply. */
	st->action = FILE_OPENED;
	st->durable_granted = false;
	status = smbd_durable_reconnect(req, &st->durable, st->path,
					st->lease ? st->lease_key : NULL, &op);
	if (status == NT_STATUS_NOT_FOUND) {
		/* Kept by another worker, maybe. */
		st->req = req;
		(void)talloc_steal(req->mem_ctx, st);
		status = smbd_durable_reclaim_remote(
			req, &st->durable, st->path,
			st->lease ? st->lease_key : NULL, create_reclaimed, st);
		if (status == SMBD_STATUS_ASYNC) {
			return status;
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	return create_reply_existing(req, st, op, false);
}

/*
 * 3.3.5.9.10: a replayed DH2Q (SMB2_FLAGS_REPLAY_OPERATION) whose
 * CreateGuid names an open of this client gets that open back, as the
 * first CREATE answered it, until another request used the open (then
 * the replay opens anew, as Samba's purged replay cache does).  Without
 * the flag such a CREATE is refused with DUPLICATE_OBJECTID.
 * NT_STATUS_NOT_FOUND: none, open anew.
 */
static NTSTATUS create_replay(struct smb2_request *req,
			      struct create_state *st)
{
	struct smbd_open *op = smbd_durable_find_guid(
		req->conn->worker, req->conn->client_guid,
		st->durable.create_guid);

	if (op == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	if (!(req->flags & SMB2_FLAGS_REPLAY_OPERATION)) {
		if (op->disconnected) {
			return NT_STATUS_NOT_FOUND;	/* reclaimed by DH2C */
		}
		talloc_free(st);
		return NT_STATUS_DUPLICATE_OBJECTID;
	}
	if (!op->replay_ok && !op->create_pending) {
		return NT_STATUS_NOT_FOUND;
	}
	if (op->create_pending) {
		/* Its CREATE still waits for a break (Samba answers so;
		 * smbtorture smb2.replay.dhv2-pending*-sane). */
		talloc_free(st);
		return NT_STATUS_FILE_NOT_AVAILABLE;
	}
	if (op->disconnected || op->session != req->session ||
	    op->tcon != req->tcon) {
		talloc_free(st);
		return NT_STATUS_DUPLICATE_OBJECTID;
	}
	if ((op->caching == CACHING_LEASE) != st->lease ||
	    (st->lease && memcmp(op->lease_key, st->lease_key, 16) != 0)) {
		/* Replayed with a lease for an oplock open, or the other
		 * way round, or another lease (Windows: ACCESS_DENIED). */
		talloc_free(st);
		return NT_STATUS_ACCESS_DENIED;
	}
	st->action = op->create_action;
	return create_reply_existing(req, st, op, true);
}

/* The apply step of DH2C and DHnC: the reclaim answers the CREATE. */
bool create_reclaim_apply(struct smb2_request *req, struct create_state *st,
			  NTSTATUS *status)
{
	if (!st->reconnect) {
		return false;
	}
	*status = create_reconnect(req, st);
	return true;
}

/* The apply step of DH2Q: a replay answers the CREATE from the open it
 * made, or the CREATE goes on to open anew. */
bool create_replay_apply(struct smb2_request *req, struct create_state *st,
			 NTSTATUS *status)
{
	if (!st->want_durable || !st->durable.v2) {
		return false;
	}
	*status = create_replay(req, st);
	return *status != NT_STATUS_NOT_FOUND;
}
