/*
 * smbd/conn/: the request pipeline.  A worker's connections (conn.c:
 * the socket, NetBIOS framing, limits before logon), the PDU checks and
 * compound split (smb2_pdu.c), the dispatcher with credits and the
 * message-id window (smb2_dispatch.c), signing and the transform
 * (smb2_signing.c, smb2_transform.c), pool jobs (smb2_job.c), the accept
 * barrier, and the sessions and tree connects every request is checked
 * against (session.c: lookups only; SESSION_SETUP and TREE_CONNECT make
 * them).
 *
 * What it may use: the rooms below it (rpc, auth, locking, vfs, conf,
 * msg, lib).  It sits below the SMB2 commands and the objects, which use
 * its request, session and tree types; it reaches them only through what
 * they register at the worker's start: the command table (smbd_worker.smb2),
 * the hooks (smbd_worker.hooks) and their own per-worker state
 * (smbd_worker.ctx, opaque here).  One circle stays inside the room,
 * as one mechanism: a connection hands its frames to the dispatcher and
 * the dispatcher its replies (and a disconnect) to the connection, and the
 * pre-logon limits drop a connection that overstays (conn.c, smb2_dispatch.c,
 * conn_limits.c).
 *
 * This header: worker and connection state.  A worker owns its
 * connections; a connection owns its sessions (issue 3) and everything
 * below them, as a talloc tree (DESIGN.md "Memory").  Multichannel: a
 * session's other connections hold only a channel record (session.h);
 * all of them are on one worker (conn_handover.c moves a connection to
 * the worker of its client or of the session it binds to).
 */
#ifndef SMBD_CONN_H
#define SMBD_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/conn/smb2_compress.h"

struct smbd_server;
struct smbd_session;
struct smbd_open;
struct smb2_frame;
struct tpool;
struct tpool_lane;
struct ev_loop;
struct ev_stream;
struct ctdb_conn;
struct smbd_barrier;
struct smb2_protocol;
struct smbd_mailbox;
struct smbd_conn;
struct conn_handover;
struct smbd_channel;

/*
 * Per-room worker state (issue 37 item 2), as nginx's module contexts
 * (ngx_http_get_module_ctx): a room above this one keeps what it holds
 * for a worker (the objects' open and lease hashes, the handlers' notify
 * state) in a struct of its own, registers it in its slot at the worker's
 * start (smb2_server_install), and reaches it through its own accessor,
 * one pointer load (w->ctx[slot]).  This header names the slots, never
 * the fields.  The worker owns each (talloc): freed with it, after the
 * connections made later.
 */
enum smbd_wctx {
	SMBD_WCTX_OBJECTS,	/* smbd/objects/objects_worker.h */
	SMBD_WCTX_SMB2,		/* smbd/smb2/smb2_worker.h */
	SMBD_WCTX_MAX
};

struct smbd_worker {
	struct smbd_server *srv;
	int index;
	int cpu;
	struct ev_loop *loop;
	/* Messages from the other workers and the master (smbd/msg/): each
	 * owner registers its types at the worker's start. */
	struct smbd_mailbox *mbox;
	/* Calls from this layer and the objects' up to the ones above, set
	 * at the worker's start (smb2_server_install), so nothing here
	 * names what lies above it.  NULL: nobody to tell. */
	struct smbd_hooks {
		/* A connection ends (before its opens): durable opens
		 * outlive it (3.3.7.1, smbd/objects/durable.c). */
		void (*conn_lost)(struct smbd_conn *conn);
		/* An open ends: its CHANGE_NOTIFY watch and pending
		 * requests end with it (smbd/smb2/smb2_notify.c). */
		void (*open_closing)(struct smbd_open *op);
		/* Session s moved from connection from to s->conn, its
		 * first channel having dropped: its opens follow
		 * (smbd/objects/open.c). */
		void (*session_moved)(struct smbd_session *s,
				      struct smbd_conn *from);
	} hooks;
	/* Set by the worker's start: the SMB2 commands the dispatcher calls
	 * (smbd/smb2/smb2_cmds.c), from the layer above this one. */
	const struct smb2_protocol *smb2;
	unsigned nconns;
	/* Connections this worker took, and of those how many the kernel
	 * received on its CPU (SO_INCOMING_CPU): smbstatus --workers. */
	uint64_t accepted, accepted_local;
	/* Its block of the metrics table (smb2_metrics.h), NULL when off. */
	struct metrics_worker *metrics;
	uint64_t conn_seq;
	uint64_t async_seq;		/* AsyncIds (3.3.4.2) */
	/* Bytes of decompressed messages that waiting requests keep, on
	 * all its connections (conn_limits.h, issue 34). */
	size_t decomp_held;
	uint64_t nonce_ctr;		/* transform nonces (3.1.4.3) */
	uint32_t nonce_salt;
	struct tpool *tpool;		/* file-system calls */
	/* The pool's lane for logon work (`username map script`, PAM):
	 * its own cap, so no share's hung calls hold a logon and no slow
	 * script holds a share's work (lib/tpool.h). */
	struct tpool_lane *logon_lane;
	struct locking_db *locking;	/* shared DB: smbd/objects/smbd_locking.h */
	bool stopping;
	/* Sessions of all its connections by id (a binding, a refusal
	 * signed with the key of a session of another connection): a
	 * lookup, not a walk over the connections. */
#define SMBD_WORKER_SESSION_BUCKETS 1024
	struct smbd_session *session_hash[SMBD_WORKER_SESSION_BUCKETS];
	struct smbd_conn *conns;	/* every connection of the worker */
	struct smbd_barrier *barriers;	/* accepts waiting (conn_barrier.c) */
	uint64_t barrier_seq;
	/* What each room above keeps per worker (smbd_worker_ctx_register). */
	void *ctx[SMBD_WCTX_MAX];
};

/* Register ctx (a talloc object) as w's state of the room of slot: the
 * worker takes it over.  False: the slot is taken (a second start). */
static inline bool smbd_worker_ctx_register(struct smbd_worker *w,
					    enum smbd_wctx slot, void *ctx)
{
	if (w->ctx[slot] != NULL || ctx == NULL) {
		return false;
	}
	w->ctx[slot] = talloc_steal(w, ctx);
	return true;
}

/* Bits of the message-id window bitmap (MS-SMB2 3.3.1.1): two full credit
 * windows, so a client may leave gaps without being starved at once. */
#define SMBD_SEQ_BITS (2 * 8192)

struct smbd_conn {
	struct smbd_worker *worker;
	struct smbd_conn *wprev, *wnext;	/* worker->conns */
	struct ev_stream *stream;
	struct ctdb_conn *ctdb_tcp;	/* clustered: on ctdbd's tickle list */
	uint64_t id;
	char remote[64];	/* "addr:port" for logs */
	char remote_addr[48];	/* numeric address, for hosts allow / %I */
	char local_addr[48];	/* numeric, for the auth audit lines */
	uint16_t remote_port;
	uint16_t local_port;
	int log_slot;		/* conn_log.c: client log handle + 1, or 0 */
	bool nbt;		/* port 139: NetBIOS session request first */
	bool nbt_session_ok;
	/* Tests and fuzzers: frames go here instead of a socket.  The sink
	 * owns the buffer. */
	void (*sink)(struct smbd_conn *conn, uint8_t *buf, size_t len);
	bool busy;		/* a frame is being handled */
	bool dead;		/* dropped while busy: freed after it */

	/* Frame reassembly: only an incomplete tail is ever copied. */
	uint8_t hdr[4];
	size_t hdr_have;
	uint8_t *frame;
	size_t frame_len, frame_have;

	/* Negotiate (MS-SMB2 3.3.1.7 Connection). */
	bool negotiated;	/* SMB2 dialect chosen */
	bool smb1_wildcard;	/* SMB1 NEGOTIATE answered 0x02FF */
	uint16_t dialect;
	uint16_t client_security_mode;
	uint32_t client_caps;
	uint32_t server_caps;
	uint8_t client_guid[16];
	uint16_t client_dialects[16];
	uint16_t client_ndialects;
	uint16_t server_security_mode;
	uint16_t cipher;	/* 0: none negotiated */
	uint16_t signing_algo;	/* SMB2_SIGNING_* */
	bool signing_algo_negotiated;
	uint8_t preauth_hash[64];
	uint32_t max_trans, max_read, max_write;
	struct smb2_compress_caps compress;	/* 3.1.1 only */

	/* Credits and the message-id window (MS-SMB2 3.3.1.1, 3.3.1.2). */
	uint64_t seq_low;	/* lowest id not yet used */
	uint64_t seq_high;	/* first id past the window */
	uint32_t cur_credits;	/* unused ids in [seq_low, seq_high) */
	uint8_t *seq_bitmap;	/* SMBD_SEQ_BITS bits, id % SMBD_SEQ_BITS */

	struct smbd_session *sessions;
	/* conn_limits.c */
	bool logged_on;		/* a session has logged on */
	bool limits_counted;
	unsigned limits_bucket;
	struct ev_timer *logon_timer;
	/* auth_limit.c: no credentials are checked on this connection
	 * before this CLOCK_MONOTONIC ms (its last failure's answer). */
	uint64_t auth_gate_ms;
	/* Sessions by id (smbd_session_find), and how many: a client may
	 * hold at most SMBD_MAX_SESSIONS, of which SMBD_MAX_PENDING_SESSIONS
	 * still authenticating (issue 14 item 6). */
#define SMBD_SESSION_BUCKETS 64
	struct smbd_session *session_hash[SMBD_SESSION_BUCKETS];
	unsigned nsessions;
	/* Sessions of other connections this one is bound to (session.h). */
	struct smbd_channel *channels;
	struct smb2_frame *waiting_frames;	/* cancellable (dispatch) */
	/* Bytes of decompressed messages its waiting requests keep, and
	 * whether it is to be dropped for holding the most of a worker at
	 * its bound (conn_limits.h, issue 34). */
	size_t decomp_held;
	bool decomp_doomed;

	/* While a frame is handled: the bytes of the input after it (valid
	 * only then), which go along if the connection moves. */
	const uint8_t *rest;
	size_t rest_len;
	/* Moving to another worker (conn_handover.c), or moved here from
	 * one: it does not move again. */
	struct conn_handover *handover;
	bool moved;
	/* counted in the status DB as a connection of its ClientGuid on
	 * this worker (smb2_negotiate.c) */
	bool client_claimed;

	/* Opens by volatile FileId (open.c). */
#define SMBD_OPEN_BUCKETS 256
	struct smbd_open *open_hash[SMBD_OPEN_BUCKETS];
	unsigned nopens;
};

void smbd_conn_accept(struct smbd_worker *w, int fd);
/* A connection on fd, admitted (`hosts allow`, limits) and reading; NULL
 * when refused (fd is closed then). */
struct smbd_conn *smbd_conn_start(struct smbd_worker *w, int fd);
/* At the worker's start: its mailbox takes SMBD_MSG_CONN_MOVE
 * (conn_handover.c). */
void smbd_conn_handover_register(struct smbd_worker *w);
/* The body of SMBD_MSG_CONN_MOVE: its size, and what the receiving
 * worker does with it on the new connection (checked: false, nothing
 * done, for a state the credit code could not work with; else the state
 * is the connection's and its bytes are input).  The fuzz target calls
 * it on a test connection. */
extern const size_t smbd_conn_move_msg_len;
bool smbd_conn_move_apply(struct smbd_conn *conn, const void *body);
/* Publish w's connection counts (at its start, then at each accept). */
void smbd_conn_stats_publish(struct smbd_worker *w);
/* `smbd spread connections`: accept fd here or hand it to the next
 * worker in turn (tests of cross-worker behaviour).  The master makes
 * the shared turn counter before forking (false: out of memory). */
bool smbd_spread_create(struct smbd_server *srv);
void smbd_spread_accept(struct smbd_worker *w, int fd);
/* At the worker's start: its mailbox takes SMBD_MSG_CONN (a connection
 * spread to it) and the accept barrier's SMBD_MSG_BARRIER(_ACK). */
void smbd_conn_register(struct smbd_worker *w);
void smbd_barrier_register(struct smbd_worker *w);
/*
 * conn_barrier.c: start(w, fd) runs once every other worker has handled
 * what the kernel finished for it before now (a client's dropped earlier
 * connection), or after a short timeout.
 */
void smbd_accept_after_barrier(struct smbd_worker *w, int fd,
			       void (*start)(struct smbd_worker *w, int fd));
/* Bytes from the socket (also the entry point for tests and fuzzers). */
void smbd_conn_input(struct smbd_conn *conn, const uint8_t *data, size_t len);
/* A connection without a socket, for tests and fuzzers. */
struct smbd_conn *smbd_conn_new_detached(struct smbd_worker *w,
					 void (*sink)(struct smbd_conn *,
						      uint8_t *, size_t));
/* Send one frame: buf starts with 4 bytes the function fills with the
 * NetBIOS session-message header; it takes ownership of buf. */
void smbd_conn_send_frame(struct smbd_conn *conn, uint8_t *buf, size_t len);
/* The same, the frame's payload continuing with flen bytes of the file
 * fd from off, sent from the page cache without a copy (zero-copy READ);
 * takes fd.  Only for a connection with a socket (conn->sink == NULL). */
void smbd_conn_send_frame_file(struct smbd_conn *conn, uint8_t *buf,
			       size_t len, int fd, uint64_t off, size_t flen);
/* Drop the connection (logged at level 3 with the reason). */
void smbd_conn_disconnect(struct smbd_conn *conn, const char *why);

#endif
