/*
 * The worker, as the pipeline sees it (split off conn.h, issue 37 item 2):
 * a worker's loop, mailbox, pool, sessions by id, connections, what the
 * rooms above register at its start (the command table, the hooks) and
 * the slots of their own per-worker state.  The rooms above reach their
 * state through their accessor (smbd/objects/objects_worker.h,
 * smbd/smb2/smb2_worker.h); a file that needs the worker but no
 * connection's insides includes this header, not conn.h.
 */
#ifndef SMBD_CONN_WORKER_H
#define SMBD_CONN_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

struct smbd_server;
struct smbd_session;
struct smbd_open;
struct tpool;
struct tpool_lane;
struct ev_loop;
struct smbd_barrier;
struct smb2_protocol;
struct smbd_mailbox;
struct smbd_conn;
struct metrics_worker;
struct locking_db;

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
	struct locking_db *locking;	/* shared DB (objects/smbd_locking.h) */
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

#endif
