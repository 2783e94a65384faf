/*
 * The request's CREATE contexts (MS-SMB2 2.2.13.2; 3.3.5.9): the table
 * of the contexts CREATE handles, create_ctx_ops[], one row per context
 * with its take, apply and reply steps (smb2_create_private.h says what
 * each is), and the walks over it: create_contexts() takes the request's
 * contexts into the create state, create_ctx_apply() runs the steps that
 * answer a CREATE before its open (a durable reclaim or replay), and
 * create_reply() (smb2_create_reply.c) builds the response contexts
 * from the table create_contexts() hands it (st->ctx_ops).
 * The take steps of MxAc, QFid, AlSi, SecD, AAPL, ExtA, RqLs and TWrp
 * are here (the durable ones are smb2_create_durable.c's), and the
 * effects of ExtA (3.3.5.9.2) and SecD (3.3.5.9.3) on what the open
 * made.  The wire codecs are smbd/wire/create_ctx.c's.  Split from
 * smb2_create.c, which does the open itself, to keep each file to one
 * concern.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/smb2/smb2_cmds.h"
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
#include "smbd/wire/create_ctx.h"
#include "smbd/objects/durable.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/conn/session.h"
#include "vfs/dosattrib.h"
#include "vfs/stack_props.h"
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
static NTSTATUS create_eas_take(struct smb2_request *req,
				struct create_state *st,
				const struct create_ctx *c)
{
	NTSTATUS status;

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
 * (3.3.5.9.8, 3.3.5.9.11); v2 needs 3.x.  Anything else: no lease, so
 * the row runs without the context too (CREATE_CTX_ABSENT).
 */
static NTSTATUS create_lease_take(struct smb2_request *req,
				  struct create_state *st,
				  const struct create_ctx *c)
{
	struct smbd_conn *conn = req->conn;
	struct create_lease l;
	NTSTATUS status;

	if (st->reclaim) {
		/* 3.3.5.9.7: the lease of the open reclaimed is named by
		 * its RqLs whatever the OplockLevel field says.  (A reclaim
		 * context that fails its own take fails the CREATE with
		 * INVALID_PARAMETER, as a bad RqLs would.) */
		st->oplock_level = SMB2_OPLOCK_LEVEL_LEASE;
	}
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

/*
 * AAPL (create_ctx.h): only a share whose stack speaks AAPL answers it
 * (fruit, with fruit:aapl), as Samba, where a share without fruit
 * ignores the context.  Only the
 * server query is answered; other commands get no reply context.
 */
static NTSTATUS create_aapl_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	const struct vfs_aapl *a = vfs_stack_aapl(req->tcon->vfs);
	NTSTATUS status;

	if (a == NULL || !vfs_aapl_answers(a)) {
		return NT_STATUS_OK;
	}
	status = create_ctx_aapl_parse(c, &st->aapl);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->want_aapl = st->aapl.command == SMB2_AAPL_SERVER_QUERY;
	return NT_STATUS_OK;
}

/* MxAc (2.2.13.2.5): the reply carries the maximal access (3.3.5.9.5);
 * its optional Timestamp is not looked at. */
static NTSTATUS create_mxac_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	(void)req;
	(void)c;
	st->want_max_access = true;
	return NT_STATUS_OK;
}

/* QFid (2.2.13.2.9): the reply carries the disk file id (3.3.5.9.9). */
static NTSTATUS create_qfid_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	(void)req;
	(void)c;
	st->want_qfid = true;
	return NT_STATUS_OK;
}

/* AlSi (2.2.13.2.6): the allocation size, 8 bytes (3.3.5.9.3); the job
 * reserves it on a file it creates or overwrites. */
static NTSTATUS create_alsi_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	(void)req;
	if (c->data_len != 8) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	st->alloc_size = le64(c->data);
	return NT_STATUS_OK;
}

/* SecD (2.2.13.2.2): kept as it came; the job parses and applies it to
 * a new object (create_apply_secd, 3.3.5.9.3). */
static NTSTATUS create_secd_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	(void)req;
	st->sd = talloc_memdup(st, c->data, c->data_len);
	st->sd_len = c->data_len;
	if (st->sd == NULL && c->data_len > 0) {
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_OK;
}

/* TWrp (2.2.13.2.7, 3.3.5.9.4): the version at that time; it names the
 * same snapshot as an @GMT component would (vfs/snapshot.h). */
static NTSTATUS create_twrp_take(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	uint64_t when;
	NTSTATUS status;

	if (!vfs_stack_has_snapshots(req->tcon->vfs)) {
		/* No snapshots are exposed here (no `vfs objects =
		 * shadow_copy2`): no such previous version. */
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	status = create_ctx_twrp_parse(c, &when);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->snapshot = true;
	st->snap_time = vfs_filetime_to_unix(when);
	return NT_STATUS_OK;
}

/*
 * The table.  Its order is the order of each walk: the take steps run
 * in it (an earlier row's failure is the CREATE's status, and RqLs reads
 * what the walk learnt of a reclaim; DH2C, DH2Q, DHnC, DHnQ is the
 * durable contexts' precedence, create_durable_take), and the response
 * contexts come out in it (MxAc, QFid, AAPL, RqLs, DHnQ or DH2Q).
 */
static const struct create_ctx_op create_ctx_ops[] = {
	{"MxAc", 0, create_mxac_take, NULL, create_reply_mxac},
	{"QFid", 0, create_qfid_take, NULL, create_reply_qfid},
	{"AlSi", 0, create_alsi_take, NULL, NULL},
	{"SecD", 0, create_secd_take, NULL, NULL},
	{"AAPL", 0, create_aapl_take, NULL, create_reply_aapl},
	{"ExtA", 0, create_eas_take, NULL, NULL},
	{"RqLs", CREATE_CTX_ABSENT, create_lease_take, NULL,
	 create_reply_lease},
	{"DH2C", CREATE_CTX_SMB3 | CREATE_CTX_RECLAIM, create_durable_take,
	 create_reclaim_apply, NULL},
	{"DH2Q", CREATE_CTX_SMB3, create_durable_take, create_replay_apply,
	 create_reply_dh2q},
	{"DHnC", CREATE_CTX_RECLAIM, create_durable_take, create_reclaim_apply,
	 NULL},
	{"DHnQ", 0, create_durable_take, NULL, create_reply_dhnq},
	{"TWrp", 0, create_twrp_take, NULL, NULL},
	{NULL, 0, NULL, NULL, NULL},
};

#define CREATE_CTX_ROWS \
	(sizeof(create_ctx_ops) / sizeof(create_ctx_ops[0]) - 1)

/* st->ctx_present has a bit per row. */
_Static_assert(CREATE_CTX_ROWS <= 32,
	       "create_ctx_ops[] outgrew create_state.ctx_present");

/* The row's context in l, NULL when absent or not for this dialect. */
static const struct create_ctx *
create_ctx_row_find(const struct smb2_request *req,
		    const struct create_ctx_op *row,
		    const struct create_ctx_list *l)
{
	if ((row->flags & CREATE_CTX_SMB3) && req->conn->dialect < 0x0300) {
		return NULL;
	}
	return create_ctx_find(l, row->tag);
}

NTSTATUS create_contexts(struct smb2_request *req,
			 struct create_state *st, uint32_t off,
			 uint32_t len)
{
	const struct create_ctx *found[CREATE_CTX_ROWS];
	struct create_ctx_list l;
	NTSTATUS status;
	size_t i;

	/* The reply walk goes over the table it is handed here: the reply
	 * builder, below this file, names nothing of the files above it. */
	st->ctx_ops = create_ctx_ops;
	if (len == 0) {
		/* No contexts: no row runs, CREATE_CTX_ABSENT's neither. */
		return NT_STATUS_OK;
	}
	status = create_ctx_parse(st, req->in + off, len, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i < CREATE_CTX_ROWS; i++) {
		found[i] = create_ctx_row_find(req, &create_ctx_ops[i], &l);
		if (found[i] != NULL) {
			st->ctx_present |= 1u << i;
			if (create_ctx_ops[i].flags & CREATE_CTX_RECLAIM) {
				st->reclaim = true;
			}
		}
	}
	for (i = 0; i < CREATE_CTX_ROWS; i++) {
		const struct create_ctx_op *row = &create_ctx_ops[i];

		if (found[i] == NULL && !(row->flags & CREATE_CTX_ABSENT)) {
			continue;
		}
		status = row->take(req, st, found[i]);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return NT_STATUS_OK;
}

bool create_ctx_apply(struct smb2_request *req, struct create_state *st,
		      NTSTATUS *status)
{
	size_t i;

	for (i = 0; i < CREATE_CTX_ROWS; i++) {
		const struct create_ctx_op *row = &create_ctx_ops[i];

		if (row->apply != NULL && (st->ctx_present & (1u << i)) &&
		    row->apply(req, st, status)) {
			return true;
		}
	}
	return false;
}

bool create_is_reconnect(struct smb2_request *req, uint32_t off,
			 uint32_t len)
{
	TALLOC_CTX *tmp;
	struct create_ctx_list l;
	bool ret = false;
	size_t i;

	if (len == 0 || req->tcon->ipc) {
		return false;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL ||
	    !NT_STATUS_IS_OK(create_ctx_parse(tmp, req->in + off, len, &l))) {
		talloc_free(tmp);
		return false;
	}
	for (i = 0; i < CREATE_CTX_ROWS && !ret; i++) {
		ret = (create_ctx_ops[i].flags & CREATE_CTX_RECLAIM) &&
		      create_ctx_row_find(req, &create_ctx_ops[i], &l) != NULL;
	}
	talloc_free(tmp);
	return ret;
}
