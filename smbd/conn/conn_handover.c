/*
 * A connection moves to another worker (multichannel, MS-SMB2 3.3.5.5).
 *
 * All channels of a session are served by the worker that set the
 * session up: its opens, trees and keys live in that process.  A new
 * connection that binds to such a session arrives wherever the kernel
 * steered it, so when the session is elsewhere the connection goes there
 * before its SESSION_SETUP runs: the socket by SCM_RIGHTS through the
 * mailbox, with what NEGOTIATE agreed (3.3.1.7 Connection), the credit
 * window as it was before the request, and the request's bytes, which
 * the other worker feeds to the new connection as if they had just come
 * in.  DESIGN notes and the measurement: testsuite/bench/README.md
 * "Multichannel".
 *
 * The socket leaves this worker's loop without a shutdown (ev_stream_detach):
 * once the recv is cancelled and nothing is in flight, the descriptor is
 * sent and closed here.  Bytes that came in meanwhile (a client should
 * wait for the answer, but need not) ride along after the request.
 */
#include "smbd/conn/conn.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/smbd.h"
#include "smbd/msg/mailbox.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>
#include <unistd.h>

/* The request and what followed it: binding legs are small (NTLMSSP in
 * SPNEGO, a few hundred bytes), so this bounds nothing real. */
#define HANDOVER_BYTES_MAX 5120

struct conn_move_msg {
	uint16_t dialect, client_security_mode, server_security_mode;
	uint16_t cipher, signing_algo, client_ndialects;
	uint8_t negotiated, signing_algo_negotiated, nbt, nbt_session_ok;
	uint8_t smb1_wildcard;
	uint32_t client_caps, server_caps, max_trans, max_read, max_write;
	uint16_t client_dialects[16];
	uint8_t client_guid[16];
	uint8_t preauth_hash[64];
	struct smb2_compress_caps compress;
	uint64_t seq_low, seq_high;
	uint32_t cur_credits;
	uint32_t len;		/* of bytes: NetBIOS-framed, as received */
	uint8_t seq_bitmap[SMBD_SEQ_BITS / 8];
	uint8_t bytes[HANDOVER_BYTES_MAX];
};

struct handover_guard;

struct conn_handover {
	struct smbd_worker *w;
	struct smbd_conn *conn;	/* NULL once it went meanwhile */
	struct handover_guard *guard;	/* conn's child */
	int to;
	struct conn_move_msg m;
};

static void handover_state_out(const struct smbd_conn *c,
			       struct conn_move_msg *m)
{
	m->dialect = c->dialect;
	m->client_security_mode = c->client_security_mode;
	m->server_security_mode = c->server_security_mode;
	m->cipher = c->cipher;
	m->signing_algo = c->signing_algo;
	m->client_ndialects = c->client_ndialects;
	m->negotiated = c->negotiated;
	m->smb1_wildcard = c->smb1_wildcard;
	m->signing_algo_negotiated = c->signing_algo_negotiated;
	m->nbt = c->nbt;
	m->nbt_session_ok = c->nbt_session_ok;
	m->client_caps = c->client_caps;
	m->server_caps = c->server_caps;
	m->max_trans = c->max_trans;
	m->max_read = c->max_read;
	m->max_write = c->max_write;
	memcpy(m->client_dialects, c->client_dialects,
	       sizeof(m->client_dialects));
	memcpy(m->client_guid, c->client_guid, 16);
	memcpy(m->preauth_hash, c->preauth_hash, 64);
	m->compress = c->compress;
	m->seq_low = c->seq_low;
	m->seq_high = c->seq_high;
	m->cur_credits = c->cur_credits;
	memcpy(m->seq_bitmap, c->seq_bitmap, sizeof(m->seq_bitmap));
}

/* What another worker sent is checked as anything from outside: a
 * window the credit code could not work with is refused. */
static bool handover_state_ok(const struct conn_move_msg *m)
{
	return m->seq_low <= m->seq_high &&
	       m->seq_high - m->seq_low <= SMBD_SEQ_BITS &&
	       m->cur_credits <= m->seq_high - m->seq_low &&
	       m->cur_credits <= SMBD_MAX_CREDITS &&
	       m->len <= sizeof(m->bytes) && m->client_ndialects <= 16 &&
	       m->compress.n <= SMB2_COMPRESS_MAX_IDS;
}

static void handover_state_in(struct smbd_conn *c,
			      const struct conn_move_msg *m)
{
	c->dialect = m->dialect;
	c->client_security_mode = m->client_security_mode;
	c->server_security_mode = m->server_security_mode;
	c->cipher = m->cipher;
	c->signing_algo = m->signing_algo;
	c->client_ndialects = m->client_ndialects;
	c->negotiated = m->negotiated != 0;
	c->smb1_wildcard = m->smb1_wildcard != 0;
	c->signing_algo_negotiated = m->signing_algo_negotiated != 0;
	c->nbt = m->nbt != 0;
	c->nbt_session_ok = m->nbt_session_ok != 0;
	c->client_caps = m->client_caps;
	c->server_caps = m->server_caps;
	c->max_trans = m->max_trans;
	c->max_read = m->max_read;
	c->max_write = m->max_write;
	memcpy(c->client_dialects, m->client_dialects,
	       sizeof(c->client_dialects));
	memcpy(c->client_guid, m->client_guid, 16);
	memcpy(c->preauth_hash, m->preauth_hash, 64);
	c->compress = m->compress;
	c->seq_low = m->seq_low;
	c->seq_high = m->seq_high;
	c->cur_credits = m->cur_credits;
	memcpy(c->seq_bitmap, m->seq_bitmap, sizeof(m->seq_bitmap));
}

/* A child of the connection: freed with it (a timer dropped it while
 * its socket was leaving), it tells the hand-over, so the connection
 * needs to know nothing of moves. */
struct handover_guard {
	struct conn_handover *h;
};

static int handover_guard_destructor(struct handover_guard *g)
{
	g->h->conn = NULL;
	return 0;
}

static void handover_take(struct smbd_worker *w, struct conn_move_msg *m,
			  int fd);

/* The socket is out of this worker's loop: send it, and let go. */
static void handover_detached(void *priv, int fd, const uint8_t *extra,
			      size_t len)
{
	struct conn_handover *h = priv;
	struct smbd_worker *w = h->w;

	if (h->conn != NULL) {
		/* the old connection ends here, its socket does not */
		talloc_set_destructor(h->guard, NULL);
		h->conn->handover = NULL;
		talloc_free(h->conn);
	}
	if (len > sizeof(h->m.bytes) - h->m.len) {
		DBG_NOTICE("%zu bytes came while a connection moved: "
			   "dropped with it\n", len);
		close(fd);
		talloc_free(h);
		return;
	}
	if (len > 0) {
		memcpy(h->m.bytes + h->m.len, extra, len);
		h->m.len += (uint32_t)len;
	}
	if (!smbd_mailbox_send(w->mbox, h->to, SMBD_MSG_CONN_MOVE, &h->m,
			       sizeof(h->m), fd)) {
		/* Served here rather than lost: the request then fails as
		 * one for a session of another worker. */
		int copy = dup(fd);

		if (copy != -1) {
			handover_take(w, &h->m, copy);
		}
	}
	close(fd);
	talloc_free(h);
}


bool smbd_conn_hand_over(struct smb2_request *req, int to)
{
	struct smbd_conn *conn = req->conn;
	struct conn_handover *h;
	size_t need = 4 + req->in_len + conn->rest_len;

	if (conn->moved || conn->handover != NULL || conn->stream == NULL ||
	    conn->sink != NULL || conn->worker->mbox == NULL ||
	    !smb2_request_alone(req) || need > HANDOVER_BYTES_MAX) {
		return false;
	}
	/* The loop may reap the stream after the connection went (a
	 * timer): the hand-over is the worker's, not the connection's. */
	h = talloc_zero(conn->worker, struct conn_handover);
	if (h == NULL) {
		return false;
	}
	h->guard = talloc(conn, struct handover_guard);
	if (h->guard == NULL) {
		talloc_free(h);
		return false;
	}
	h->guard->h = h;
	talloc_set_destructor(h->guard, handover_guard_destructor);
	h->w = conn->worker;
	h->conn = conn;
	h->to = to;
	/* As the client sent it: the NetBIOS length, the request, and
	 * whatever followed it in the same read. */
	h->m.bytes[0] = 0;
	h->m.bytes[1] = (uint8_t)(req->in_len >> 16);
	h->m.bytes[2] = (uint8_t)(req->in_len >> 8);
	h->m.bytes[3] = (uint8_t)req->in_len;
	memcpy(h->m.bytes + 4, req->in, req->in_len);
	if (conn->rest_len > 0) {
		memcpy(h->m.bytes + 4 + req->in_len, conn->rest,
		       conn->rest_len);
	}
	h->m.len = (uint32_t)need;
	smb2_credits_uncharge(conn, req->mid, req->credit_charge);
	handover_state_out(conn, &h->m);
	conn->handover = h;
	req->no_reply = true;
	smbd_metrics_handed_over(conn->worker);
	DBG_NOTICE("%s: moves to worker %d, which serves its client\n",
		   conn->remote, to);
	ev_stream_detach(conn->stream, handover_detached, h);
	/* The stream is the loop's now; nothing more is read here. */
	conn->stream = NULL;
	return true;
}

const size_t smbd_conn_move_msg_len = sizeof(struct conn_move_msg);

bool smbd_conn_move_apply(struct smbd_conn *conn, const void *body)
{
	const struct conn_move_msg *m = body;

	if (!handover_state_ok(m)) {
		return false;
	}
	handover_state_in(conn, m);
	conn->moved = true;
	DBG_NOTICE("%s: moved here from another worker\n", conn->remote);
	smbd_conn_input(conn, m->bytes, m->len);
	return true;
}

static void handover_take(struct smbd_worker *w, struct conn_move_msg *m,
			  int fd)
{
	struct smbd_conn *conn;

	if (!handover_state_ok(m)) {
		DBG_ERR("a moved connection with a bad state: dropped\n");
		close(fd);
		return;
	}
	conn = smbd_conn_start(w, fd);
	if (conn != NULL) {
		(void)smbd_conn_move_apply(conn, m);
	}
}

/* SMBD_MSG_CONN_MOVE: a connection another worker moved to this one. */
static void handover_msg(void *priv, int from, const void *body, int fd)
{
	struct conn_move_msg *m;

	(void)from;
	if (fd == -1) {
		return;
	}
	/* The body is only valid during the call and may be unaligned. */
	m = talloc(NULL, struct conn_move_msg);
	if (m == NULL) {
		close(fd);
		return;
	}
	memcpy(m, body, sizeof(*m));
	handover_take(priv, m, fd);
	talloc_free(m);
}

void smbd_conn_handover_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_CONN_MOVE, handover_msg,
			    sizeof(struct conn_move_msg), true);
}
