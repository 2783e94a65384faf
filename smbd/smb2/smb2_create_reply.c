/*
 * The CREATE response (MS-SMB2 2.2.14) and its contexts: MxAc
 * (2.2.14.2.5), QFid (2.2.14.2.9), AAPL, the lease (2.2.14.2.10/11) and
 * DHnQ/DH2Q (2.2.14.2.3, 2.2.14.2.12), built from what the create state
 * and the open say: create_reply() walks the contexts' table
 * (create_ctx_ops[], smb2_create_ctx_apply.c), as create_contexts()
 * handed it in the state, and each row's reply builder, here, appends
 * its context when the state says one is owed.
 * Everything of CREATE that answers comes here last: a new open
 * (smb2_create.c) and an open that exists already, reclaimed or replayed
 * (smb2_create_durable.c).  This file only builds, from data the others
 * supplied: it names nothing of the other CREATE files (the table comes
 * in the state, and the reply steps it calls are its own), so they all
 * stand above it and none of them calls another back.  The CLOSE response
 * borrows the attributes part (create_push_times).
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/objects/oplock.h"
#include "smbd/wire/create_ctx.h"
#include "smbd/objects/open.h"
#include "vfs/stack_props.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

void create_push_times(struct wire_buf *out,
		       const struct vfs_file_info *fi)
{
	wire_push_le64(out, fi->create_time);
	wire_push_le64(out, fi->access_time);
	wire_push_le64(out, fi->write_time);
	wire_push_le64(out, fi->change_time);
	wire_push_le64(out, fi->allocation_size);
	wire_push_le64(out, fi->end_of_file);
	wire_push_le32(out, fi->attributes);
}

/* MxAc (2.2.14.2.5): QueryStatus, MaximalAccess (3.3.5.9.5). */
void create_reply_mxac(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev)
{
	uint8_t mx[8];

	(void)op;
	if (!st->want_max_access) {
		return;
	}
	put_le32(mx, NT_STATUS_OK);
	put_le32(mx + 4, st->max_access);
	create_ctx_push(req->out, req->out_hdr, prev, "MxAc", mx, 8);
}

/* QFid (2.2.14.2.9): DiskFileId (inode, device), VolumeId. */
void create_reply_qfid(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev)
{
	uint8_t q[32];

	(void)op;
	if (!st->want_qfid) {
		return;
	}
	memset(q, 0, sizeof(q));
	put_le64(q, st->fi.ino);
	put_le64(q + 8, st->fi.dev);
	create_ctx_push(req->out, req->out_hdr, prev, "QFid", q, 32);
}

/* 2.2.14.2.10 / 2.2.14.2.11: the lease the open got. */
#define SMB2_LEASE_FLAG_BREAK_IN_PROGRESS 0x02
#define SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET 0x04
void create_reply_lease(struct smb2_request *req,
			const struct create_state *st,
			const struct smbd_open *op, size_t *prev)
{
	uint8_t l[52];
	uint32_t flags = st->lease_breaking ? SMB2_LEASE_FLAG_BREAK_IN_PROGRESS
					    : 0;

	(void)op;
	if (!st->lease) {
		return;
	}
	memset(l, 0, sizeof(l));
	memcpy(l, st->lease_key, 16);
	put_le32(l + 16, st->granted_state);
	if (st->lease_version == 2) {
		if (st->has_parent_key) {
			flags |= SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET;
			memcpy(l + 32, st->parent_key, 16);
		}
		put_le16(l + 48, st->granted_epoch);
	}
	put_le32(l + 20, flags);
	create_ctx_push(req->out, req->out_hdr, prev, "RqLs", l,
			st->lease_version == 2 ? 52 : 32);
}

/* 2.2.14.2.3 DHnQ response (8 reserved bytes), 2.2.14.2.12 DH2Q
 * response (Timeout, Flags: never persistent here), all from data: that
 * the open is durable was decided before (st->durable_granted, by
 * create_share or a replay's create_reply_existing), the kind asked for
 * is st->durable.v2 and the timeout the one the grant gave the open
 * (durable.c).  The DH2Q row answers a v2 grant, the DHnQ row a v1. */
static void create_push_durable(struct smb2_request *req, size_t *prev,
				const struct create_state *st,
				const struct smbd_open *op)
{
	uint8_t d[8];

	memset(d, 0, sizeof(d));
	if (st->durable.v2) {
		put_le32(d, op->durable_timeout_ms);
	}
	create_ctx_push(req->out, req->out_hdr, prev,
			st->durable.v2 ? "DH2Q" : "DHnQ", d, 8);
}

void create_reply_dh2q(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev)
{
	if (st->durable_granted && st->durable.v2) {
		create_push_durable(req, prev, st, op);
	}
}

void create_reply_dhnq(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev)
{
	if (st->durable_granted && !st->durable.v2) {
		create_push_durable(req, prev, st, op);
	}
}

/*
 * The AAPL server query's answer (create_ctx.h).  Server caps: UNIX_BASED,
 * what this server is; READ_DIR_ATTR when the client asked for it in its
 * client caps and the share has streams (as Samba's fruit grants it): the
 * session's listings then carry the Mac metadata (smb2_querydir.c);
 * NFS_ACE with fruit:nfs_aces (ntacl_nfs.h; Samba claims it whatever the
 * client's caps say); OSX_COPYFILE with fruit:copyfile (a copychunk of 0
 * chunks copies the whole file, smb2_copychunk.c).  Volume caps:
 * CASE_SENSITIVE on a case-sensitive share, FULL_SYNC with fruit:time
 * machine (a FLUSH is an fsync); no RESOLVE_ID (vfs_fruit.8).
 */
void create_reply_aapl(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev)
{
	const struct vfs_aapl *a = vfs_stack_aapl(req->tcon->vfs);
	uint64_t rdattr = (st->aapl.request_bitmap & SMB2_AAPL_SERVER_CAPS) &&
				  (st->aapl.client_caps &
				   SMB2_AAPL_SUPPORTS_READ_DIR_ATTR) &&
				  st->share.streams
			  ? SMB2_AAPL_SUPPORTS_READ_DIR_ATTR
			  : 0;
	uint64_t more;
	uint8_t *r;
	size_t len = 0;

	(void)op;
	if (!st->want_aapl || a == NULL) {
		return;
	}
	more = (vfs_aapl_nfs_aces(a) ? SMB2_AAPL_SUPPORTS_NFS_ACE : 0) |
	       (vfs_aapl_copyfile(a) ? SMB2_AAPL_SUPPORTS_OSX_COPYFILE : 0);
	r = create_ctx_aapl_reply(req->mem_ctx, &st->aapl,
				  SMB2_AAPL_UNIX_BASED | rdattr | more,
				  (st->share.case_sensitive
					   ? SMB2_AAPL_CASE_SENSITIVE
					   : 0) |
					  (vfs_aapl_full_sync(a)
						   ? SMB2_AAPL_FULL_SYNC
						   : 0),
				  vfs_aapl_model(a), &len);
	if (r == NULL) {
		DBG_WARNING("AAPL: fruit:model '%s' is not UTF-8, or no "
			    "memory: no AAPL reply\n", vfs_aapl_model(a));
		return;
	}
	create_ctx_push(req->out, req->out_hdr, prev, "AAPL", r, len);
	talloc_free(r);
	req->session->aapl = true;
	req->session->aapl_readdir |= rdattr != 0;
}

NTSTATUS create_reply(struct smb2_request *req,
		      struct create_state *st, struct smbd_open *op)
{
	struct wire_buf *out = req->out;
	const struct create_ctx_op *row;
	size_t body = out->len, prev = (size_t)-1, ctx_start;
	uint8_t fid[16];

	smbd_open_fid_bytes(op, fid);

	/* 2.2.14 CREATE Response */
	wire_push_le16(out, 89);
	wire_push_u8(out, st->lease ? SMB2_OPLOCK_LEVEL_LEASE
				    : smbd_oplock_state_to_level(
					      st->granted_state));
	wire_push_u8(out, 0);
	wire_push_le32(out, st->action);
	/* A ChangeTime another open set (write_time.h). */
	smbd_ct_report(req->conn->worker, &st->fi);
	create_push_times(out, &st->fi);
	wire_push_le32(out, 0);
	wire_push_bytes(out, fid, 16);
	wire_push_le32(out, 0); /* CreateContextsOffset, patched */
	wire_push_le32(out, 0); /* CreateContextsLength, patched */
	ctx_start = out->len;
	for (row = st->ctx_ops; row != NULL && row->tag != NULL; row++) {
		if (row->reply != NULL) {
			row->reply(req, st, op, &prev);
		}
	}
	if (prev != (size_t)-1 && !out->failed) {
		size_t first = ctx_start + ((8 - ((ctx_start - req->out_hdr) & 7)) & 7);

		put_le32(out->data + body + 80, (uint32_t)(first - req->out_hdr));
		put_le32(out->data + body + 84, (uint32_t)(out->len - first));
	} else {
		wire_push_u8(out, 0);
	}
	DBG_DEBUG("%s: opened '%s' fid %llu\n", req->conn->remote, op->path,
		  (unsigned long long)op->fid_volatile);
	return out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}
