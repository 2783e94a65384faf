/*
 * The request's CREATE contexts (MS-SMB2 2.2.13.2; 3.3.5.9): parsing the
 * list a CREATE carries (MxAc, QFid, AlSi, SecD, ExtA, RqLs, TWrp; the
 * durable ones go to smb2_create_durable.c) into the create state, and
 * applying ExtA (3.3.5.9.2) and SecD (3.3.5.9.3) to what the open made.
 * The response contexts are smb2_create_reply.c's.  Split from
 * smb2_create.c, which does the open itself, to keep each file to one
 * concern.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/status.h"
#include "smbd/objects/oplock.h"
#include "conf/loadparm.h"
#include "vfs/module.h"
#include "vfs/snapshot.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "smbd/smbd.h"
#include "smbd/objects/create_ctx.h"
#include "smbd/objects/durable.h"
#include "smbd/objects/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/conn/session.h"
#include "vfs/dosattrib.h"
#include "vfs/fruit.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* MS-SMB2 3.3.5.9.2: the EAs of an ExtA context go on the file the
 * CREATE made or overwrote; a failure fails the CREATE (the new file is
 * then removed by the caller's cleanup like any failed create). */
void create_set_eas(struct create_state *st)
{
	if (st->num_eas > 0 && NT_STATUS_IS_OK(st->status)) {
		st->status = smbd_eas_set(st, st->fd, st->eas, st->num_eas);
	}
}

/* The SecD context's owner, group and DACL over what the new object
 * inherits (MS-SMB2 3.3.5.9.3); INVALID_OWNER for an owner not in the
 * creator's token (MS-FSA 2.1.5.1.1). */
NTSTATUS create_apply_secd(struct create_state *st, struct sd **sd)
{
	struct sd *secd, *merged;
	uint32_t parts = 0;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(sd_parse(st, st->sd, st->sd_len, &secd))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (secd->owner != NULL) {
		parts |= SECINFO_OWNER;
		if (!st->tok->root && !ntacl_token_has(st->tok, secd->owner)) {
			return NT_STATUS_INVALID_OWNER;
		}
	}
	if (secd->group != NULL) {
		parts |= SECINFO_GROUP;
	}
	if (secd->control & SD_SE_DACL_PRESENT) {
		parts |= SECINFO_DACL;
	}
	status = ntacl_merge(st, *sd, secd, parts, &merged);
	if (NT_STATUS_IS_OK(status)) {
		*sd = merged;
	}
	return status;
}

/* ExtA (MS-SMB2 2.2.13.2.1): a FILE_FULL_EA_INFORMATION list, checked
 * here so a malformed one fails the CREATE before anything is made. */
static NTSTATUS create_eas_ctx(struct smb2_request *req,
			       struct create_state *st,
			       const struct create_ctx *c)
{
	NTSTATUS status;

	if (c == NULL) {
		return NT_STATUS_OK;
	}
	if (!req->tcon->share.ea_support) {
		return NT_STATUS_EAS_NOT_SUPPORTED;
	}
	status = fscc_ea_list_pull(st, c->data, c->data_len, &st->eas,
				   &st->num_eas);
	if (status == NT_STATUS_INFO_LENGTH_MISMATCH) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return status;
}

/*
 * RqLs (2.2.13.2.8 v1, 32 bytes; 2.2.13.2.10 v2, 52 bytes), taken only
 * with OplockLevel LEASE, on 2.1 and later, when `smb2 leases` is on
 * (3.3.5.9.8, 3.3.5.9.11); v2 needs 3.x.  Anything else: no lease.
 */
static NTSTATUS create_lease_ctx(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	struct smbd_conn *conn = req->conn;
	struct create_lease l;
	NTSTATUS status;

	if (c == NULL || st->oplock_level != SMB2_OPLOCK_LEVEL_LEASE ||
	    conn->dialect < 0x0210 ||
	    !lp_bool(conn->worker->srv->lp, LP_GLOBAL, LP_SMB2_LEASES)) {
		if (st->oplock_level == SMB2_OPLOCK_LEVEL_LEASE) {
			st->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
		}
		return NT_STATUS_OK;
	}
	status = create_ctx_lease_parse(c, conn->dialect >= 0x0300, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->lease = true;
	st->lease_version = l.version;
	memcpy(st->lease_key, l.key, 16);
	st->lease_state = l.state;
	st->lease_epoch = l.epoch;
	/* 3.3.5.9.11: the parent's key counts only where directory
	 * leases are offered. */
	st->has_parent_key =
		l.has_parent && (conn->server_caps &
				 SMB2_GLOBAL_CAP_DIRECTORY_LEASING) != 0;
	memcpy(st->parent_key, l.parent_key, 16);
	return NT_STATUS_OK;
}

/* The contexts we act on; the rest are ignored as 3.3.5.9 allows. */
/*
 * AAPL (create_ctx.h): only a share with fruit and fruit:aapl answers it,
 * as Samba, where a share without fruit ignores the context.  Only the
 * server query is answered; other commands get no reply context.
 */
static NTSTATUS create_aapl_ctx(struct smb2_request *req,
				struct create_state *st,
				const struct create_ctx *c)
{
	const struct vfs_fruit_config *fc = vfs_fruit_config(req->tcon->vfs);
	NTSTATUS status;

	if (c == NULL || fc == NULL || !fc->aapl) {
		return NT_STATUS_OK;
	}
	status = create_ctx_aapl_parse(c, &st->aapl);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->want_aapl = st->aapl.command == SMB2_AAPL_SERVER_QUERY;
	return NT_STATUS_OK;
}

NTSTATUS create_contexts(struct smb2_request *req,
			 struct create_state *st, uint32_t off,
			 uint32_t len)
{
	struct create_ctx_list l;
	NTSTATUS status;

	if (len == 0) {
		return NT_STATUS_OK;
	}
	status = create_ctx_parse(st, req->in + off, len, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (create_ctx_find(&l, "MxAc") != NULL) {
		st->want_max_access = true;
	}
	if (create_ctx_find(&l, "QFid") != NULL) {
		st->want_qfid = true;
	}
	{
		const struct create_ctx *al = create_ctx_find(&l, "AlSi");

		if (al != NULL) {
			if (al->data_len != 8) {
				return NT_STATUS_INVALID_PARAMETER;
			}
			st->alloc_size = le64(al->data);
		}
	}
	{
		const struct create_ctx *sd = create_ctx_find(&l, "SecD");

		if (sd != NULL) {
			st->sd = talloc_memdup(st, sd->data, sd->data_len);
			st->sd_len = sd->data_len;
			if (st->sd == NULL && sd->data_len > 0) {
				return NT_STATUS_NO_MEMORY;
			}
		}
	}
	status = create_aapl_ctx(req, st, create_ctx_find(&l, "AAPL"));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = create_eas_ctx(req, st, create_ctx_find(&l, "ExtA"));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = create_durable_ctx(req, st, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (st->reconnect) {
		/* 3.3.5.9.7: the lease of the open reclaimed is named by
		 * its RqLs whatever the OplockLevel field says. */
		st->oplock_level = SMB2_OPLOCK_LEVEL_LEASE;
	}
	status = create_lease_ctx(req, st, create_ctx_find(&l, "RqLs"));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	{
		const struct create_ctx *tw = create_ctx_find(&l, "TWrp");
		uint64_t when;

		if (tw == NULL) {
			return NT_STATUS_OK;
		}
		if (!vfs_stack_has_snapshots(req->tcon->vfs)) {
			/* No snapshots are exposed here (no `vfs objects =
			 * shadow_copy2`): no such previous version. */
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		status = create_ctx_twrp_parse(tw, &when);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		/* 2.2.13.2.7: the version at that time; it names the same
		 * snapshot as an @GMT component would. */
		st->snapshot = true;
		st->snap_time = vfs_filetime_to_unix(when);
	}
	return NT_STATUS_OK;
}
