/*
 * The SMB2 dispatch table: for each command its policy (MS-SMB2 3.3.5.2:
 * the request's StructureSize, 3.3.5.2.9 whether it needs a session,
 * 3.3.5.2.11 a tree connect) and its handler.  The dispatcher
 * (smbd/conn/smb2_dispatch.c) sits below the commands and reaches them
 * only through this table, which the worker registers at start.
 */
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/objects/durable.h"
#include "smbd/objects/objects_worker.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/objects/status.h"
#include "smbd/msg/mailbox.h"

#define CMD(op, n, size, neg, sess, tree, handler)                             \
	[op] = {.name = n,                                                    \
		.body_size = size,                                            \
		.need_negotiate = neg,                                        \
		.need_session = sess,                                         \
		.need_tree = tree,                                            \
		.fn = handler}

static const struct smb2_cmd smb2_cmds[SMB2_OP_MAX] = {
	CMD(SMB2_OP_NEGPROT, "NEGOTIATE", 36, false, false, false,
	    smb2_negotiate),
	CMD(SMB2_OP_SESSSETUP, "SESSION_SETUP", 25, true, false, false,
	    smb2_sesssetup),
	CMD(SMB2_OP_LOGOFF, "LOGOFF", 4, true, true, false, smb2_logoff),
	CMD(SMB2_OP_TCON, "TREE_CONNECT", 9, true, true, false, smb2_tcon),
	CMD(SMB2_OP_TDIS, "TREE_DISCONNECT", 4, true, true, true, smb2_tdis),
	CMD(SMB2_OP_CREATE, "CREATE", 57, true, true, true, smb2_create),
	CMD(SMB2_OP_CLOSE, "CLOSE", 24, true, true, true, smb2_close),
	CMD(SMB2_OP_FLUSH, "FLUSH", 24, true, true, true, smb2_flush),
	CMD(SMB2_OP_READ, "READ", 49, true, true, true, smb2_read),
	CMD(SMB2_OP_WRITE, "WRITE", 49, true, true, true, smb2_write),
	CMD(SMB2_OP_LOCK, "LOCK", 48, true, true, true, smb2_lock),
	CMD(SMB2_OP_IOCTL, "IOCTL", 57, true, true, true, smb2_ioctl),
	CMD(SMB2_OP_CANCEL, "CANCEL", 4, true, false, false, NULL),
	CMD(SMB2_OP_KEEPALIVE, "ECHO", 4, true, false, false, smb2_echo),
	CMD(SMB2_OP_QUERY_DIRECTORY, "QUERY_DIRECTORY", 33, true, true, true,
	    smb2_querydir),
	CMD(SMB2_OP_NOTIFY, "CHANGE_NOTIFY", 32, true, true, true,
	    smb2_notify),
	CMD(SMB2_OP_GETINFO, "QUERY_INFO", 41, true, true, true, smb2_getinfo),
	CMD(SMB2_OP_SETINFO, "SET_INFO", 33, true, true, true, smb2_setinfo),
	CMD(SMB2_OP_BREAK, "OPLOCK_BREAK", 24, true, true, true, smb2_break),
};
#undef CMD

NTSTATUS smb2_echo(struct smb2_request *req)
{
	/* MS-SMB2 2.2.29 ECHO Response: StructureSize 4, Reserved. */
	wire_push_le16(req->out, 4);
	wire_push_le16(req->out, 0);
	return NT_STATUS_OK;
}

const struct smb2_protocol smb2_protocol = {
	.cmds = smb2_cmds,
	.negotiate_smb1 = smb1_negotiate,
	/* 3.3.4.1: every reply takes its request off its open's channel
	 * sequence count (smbd/objects/open.c). */
	.reply_done = smbd_open_channel_done,
};

/* A session's first connection dropped and another channel carries it
 * (smbd/conn/session.c): its opens follow, smbstatus sees its new
 * address. */
static void session_moved(struct smbd_session *s, struct smbd_conn *from)
{
	smbd_open_session_moved(s, from);
	smbd_status_session(s, true);
}

/* The handlers' own state of w (smb2_worker.h). */
static bool smb2_worker_start(struct smbd_worker *w)
{
	struct smb2_worker *sw = talloc_zero(w, struct smb2_worker);

	if (!smbd_worker_ctx_register(w, SMBD_WCTX_SMB2, sw)) {
		talloc_free(sw);
		return false;
	}
	return true;
}

bool smb2_server_install(struct smbd_worker *w)
{
	/* First, before anything reaches them: the rooms' worker state
	 * (conn.h "Per-room worker state"). */
	if (!smbd_objects_worker_start(w) || !smb2_worker_start(w)) {
		return false;
	}
	w->smb2 = &smb2_protocol;
	w->hooks.conn_lost = smbd_durable_conn_lost;
	w->hooks.open_closing = smbd_notify_close;
	w->hooks.session_moved = session_moved;
	if (w->mbox == NULL) {
		w->mbox = smbd_mailbox_new(w, w->srv, w->index, w);
		if (w->mbox == NULL) {
			return false;
		}
	}
	smbd_conn_register(w);
	smbd_conn_handover_register(w);
	smbd_barrier_register(w);
	smbd_breaks_register(w);
	smbd_durable_register(w);
	smbd_notify_register(w);
	smbd_sesssetup_register(w);
	return true;
}
