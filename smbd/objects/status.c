/*
 * Records for smbstatus (locking/status_db.c): who is logged on, which
 * shares they use, which files are open.  Written by the worker that
 * holds them, removed when they go; the master drops a dead worker's.
 */
#include "smbd/objects/status.h"
#include "smbd/conn/conn_state.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "locking/locking.h"
#include "smbd/objects/smbd_locking.h"

#include "smbd/conn/smb2_signing.h"
#include "lib/proc.h"
#include "lib/clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

/* The names smbstatus shows, as Samba's: the cipher of an encrypted
 * session ("-" when none) and the signing algorithm. */
static const char *status_cipher(const struct smbd_session *s)
{
	static const char *const names[] = {"-", "AES-128-CCM", "AES-128-GCM",
					    "AES-256-CCM", "AES-256-GCM"};
	unsigned c = s->conn->cipher;

	return s->encrypt && c < sizeof(names) / sizeof(names[0]) ? names[c]
								   : "-";
}

static const char *status_sign_algo(const struct smbd_session *s)
{
	if (!s->has_keys) {
		return "-";
	}
	switch (s->sign_algo) {
	case SMB2_SIGN_AES_CMAC:
		return "AES-128-CMAC";
	case SMB2_SIGN_AES_GMAC:
		return "AES-128-GMAC";
	default:
		return "HMAC-SHA256";
	}
}

static struct locking_db *status_db(struct smbd_conn *conn)
{
	return conn != NULL && conn->sink == NULL ? smbd_locking(conn->worker)
						  : NULL;
}

void smbd_status_session(struct smbd_session *s, bool up)
{
	struct smbd_conn *conn = s->conn;
	struct locking_db *db = status_db(conn);
	char text[512];

	if (db == NULL) {
		return;
	}
	if (!up) {
		status_db_del(db, STATUS_SESSION, (uint32_t)proc_pid(), s->id,
			      0);
		return;
	}
	snprintf(text, sizeof(text),
		 "user=%s\ndomain=%s\nunix=%s\nuid=%u\ngid=%u\nclient=%s\n"
		 "raddr=%s\nrport=%u\ndialect=%x\nsigning=%s\nencryption=%s\n"
		 "cipher=%s\nsignalgo=%s\nunique=%" PRIu64 "\n",
		 s->anonymous ? "(anonymous)"
			      : s->account_name ? s->account_name : "",
		 s->domain ? s->domain : "", s->unix_name ? s->unix_name : "",
		 (unsigned)s->uid, (unsigned)s->gid, conn->remote,
		 conn->remote_addr, (unsigned)conn->remote_port,
		 (unsigned)conn->dialect,
		 s->signing_required ? "required" : "no",
		 s->encrypt ? "yes" : "no", status_cipher(s),
		 status_sign_algo(s), conn->worker->srv->start_nttime);
	status_db_put(db, STATUS_SESSION, (uint32_t)proc_pid(), s->id, 0, text);
}

void smbd_status_tcon(struct smbd_tcon *t, bool up)
{
	struct locking_db *db = status_db(t->session->conn);
	char text[512];

	if (db == NULL) {
		return;
	}
	if (!up) {
		status_db_del(db, STATUS_TCON, (uint32_t)proc_pid(),
			      t->session->id, t->id);
		return;
	}
	snprintf(text, sizeof(text),
		 "share=%s\npath=%s\nclient=%s\nconnected=%" PRIu64 "\n",
		 t->share_name ? t->share_name : "",
		 t->path ? t->path : "", t->session->conn->remote,
		 clock_nttime());
	status_db_put(db, STATUS_TCON, (uint32_t)proc_pid(), t->session->id,
		      t->id, text);
}

void smbd_status_open(struct smbd_open *op, bool up)
{
	struct locking_db *db = status_db(op->conn);
	char text[1024];

	if (db == NULL) {
		return;
	}
	if (!up) {
		status_db_del(db, STATUS_OPEN, (uint32_t)proc_pid(),
			      op->fid_volatile, 0);
		return;
	}
	snprintf(text, sizeof(text),
		 "session=%" PRIx64 "\nshare=%s\nsharepath=%s\nname=%s\n"
		 "stream=%s\ndev=%" PRIu64 "\nino=%" PRIu64 "\nuid=%u\n"
		 "opened=%" PRIu64 "\n",
		 op->session ? op->session->id : 0,
		 op->tcon && op->tcon->share_name ? op->tcon->share_name : "",
		 op->tcon && op->tcon->path ? op->tcon->path : "",
		 op->path ? op->path : "", op->stream ? op->stream : "",
		 op->dev, op->ino,
		 op->session ? (unsigned)op->session->uid : 0u,
		 op->opened_nttime ? op->opened_nttime : clock_nttime());
	status_db_put(db, STATUS_OPEN, (uint32_t)proc_pid(), op->fid_volatile,
		      0, text);
}
