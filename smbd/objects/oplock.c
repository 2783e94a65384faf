/*
 * Oplock and lease breaks across workers: notifications, waiters, and
 * their two mailbox messages (see oplock.h).
 */
#include "smbd/objects/oplock.h"
#include "smbd/objects/durable.h"
#include "smbd/conn/conn_state.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/objects_worker.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smbd.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "lib/clock.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/wire.h"
#include "smbd/msg/mailbox.h"
#include "smbd/objects/cluster.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* Waiters look again this often even without a wake-up. */
#define WAITER_POLL_MS 250

uint32_t smbd_oplock_level_to_state(uint8_t level)
{
	switch (level) {
	case SMB2_OPLOCK_LEVEL_BATCH:
		return CACHE_RWH;
	case SMB2_OPLOCK_LEVEL_EXCLUSIVE:
		return CACHE_R | CACHE_W;
	case SMB2_OPLOCK_LEVEL_II:
		return CACHE_R;
	default:
		return 0;
	}
}

uint8_t smbd_oplock_state_to_level(uint32_t state)
{
	if ((state & CACHE_RWH) == CACHE_RWH) {
		return SMB2_OPLOCK_LEVEL_BATCH;
	}
	if (state & CACHE_W) {
		return SMB2_OPLOCK_LEVEL_EXCLUSIVE;
	}
	return (state & CACHE_R) ? SMB2_OPLOCK_LEVEL_II : SMB2_OPLOCK_LEVEL_NONE;
}

/* ---- notifications ---- */

/* SMBD_MSG_BREAK: a break for an open of the receiving worker. */
struct break_msg {
	struct file_key key;
	struct share_break brk;
};

/* 2.2.23.1 Oplock Break Notification. */
static void send_oplock_break(struct smbd_open *op, uint32_t to)
{
	uint8_t body[24];

	memset(body, 0, sizeof(body));
	put_le16(body, 24);
	body[2] = smbd_oplock_state_to_level(to);
	smbd_open_fid_bytes(op, body + 8);
	smb2_send_notification(op->conn, op->session, SMB2_OP_BREAK, body,
			       sizeof(body));
}

/* 2.2.23.2 Lease Break Notification. */
#define SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED 0x01
static void send_lease_break(struct smbd_open *op,
			     const struct share_break *b)
{
	uint8_t body[44];

	memset(body, 0, sizeof(body));
	put_le16(body, 44);
	put_le16(body + 2, b->lease_version == 2 ? b->epoch : 0);
	put_le32(body + 4, b->ack_required
				   ? SMB2_NOTIFY_BREAK_LEASE_FLAG_ACK_REQUIRED
				   : 0);
	memcpy(body + 8, b->lease_key, 16);
	put_le32(body + 24, b->from);
	put_le32(body + 28, b->to);
	DBG_DEBUG("%s: lease break 0x%x -> 0x%x epoch %u%s\n",
		  op->conn->remote, b->from, b->to, b->epoch,
		  b->ack_required ? " (ack required)" : "");
	smb2_send_notification(op->conn, op->session, SMB2_OP_BREAK, body,
			       sizeof(body));
}

void smbd_breaks_deliver(struct smbd_worker *w, const struct file_key *k,
			 const struct share_break *b, unsigned n)
{
	uint32_t mine = 0, node;
	bool clustered = smbd_cluster_pnn(w, &mine);
	unsigned i;

	for (i = 0; i < n; i++) {
		struct smbd_open *op;

		if (clustered && locking_pid_node(b[i].pid, &node) &&
		    node != mine) {
			/* An open on another node: its worker there. */
			struct break_msg m = {.key = *k, .brk = b[i]};

			if (!smbd_cluster_send(w, node, b[i].worker,
					       SMBD_MSG_BREAK, &m,
					       sizeof(m))) {
				DBG_ERR("cannot send a break to node %u\n",
					(unsigned)node);
			}
			continue;
		}
		if (b[i].worker != w->index) {
			struct break_msg m = {.key = *k, .brk = b[i]};

			(void)smbd_mailbox_send(w->mbox, b[i].worker,
						SMBD_MSG_BREAK, &m, sizeof(m),
						-1);
			continue;
		}
		op = smbd_open_by_id(w, b[i].open_id);
		if (op == NULL || op->conn == NULL) {
			/* Closed meanwhile: its close ended the break. */
			continue;
		}
		if (smbd_durable_break(op)) {
			/* Disconnected durable open: closed instead
			 * (nobody could answer the break). */
			continue;
		}
		DBG_DEBUG("break %s of %s: 0x%x -> 0x%x%s\n",
			  b[i].caching == CACHING_LEASE ? "lease" : "oplock",
			  op->path, b[i].from, b[i].to,
			  b[i].ack_required ? " (ack required)" : "");
		if (b[i].caching == CACHING_LEASE) {
			send_lease_break(op, &b[i]);
		} else {
			send_oplock_break(op, b[i].to);
		}
	}
}

/* ---- waiters ---- */

struct smbd_waiter {
	struct smbd_waiter *prev, *next;
	struct smbd_worker *w;
	struct file_key key;
	void (*fn)(void *priv, bool expired);
	void *priv;
	uint64_t deadline;
	uint64_t gen;		/* the last wake round that fired it */
	struct ev_timer *timer;
};

static void waiter_poll(void *priv);

static int waiter_destructor(struct smbd_waiter *wt)
{
	if (wt->prev != NULL) {
		wt->prev->next = wt->next;
	} else {
		smbd_objects_of(wt->w)->waiters = wt->next;
	}
	if (wt->next != NULL) {
		wt->next->prev = wt->prev;
	}
	return 0;
}

struct smbd_waiter *smbd_waiter_add(TALLOC_CTX *mem_ctx,
				    struct smbd_worker *w,
				    const struct file_key *k,
				    void (*fn)(void *priv, bool expired),
				    void *priv)
{
	struct smbd_objects_worker *ow = smbd_objects_of(w);
	struct smbd_waiter *wt = talloc_zero(mem_ctx, struct smbd_waiter);

	if (wt == NULL) {
		return NULL;
	}
	wt->w = w;
	wt->key = *k;
	wt->fn = fn;
	wt->priv = priv;
	wt->deadline = clock_mono_ms() + SMBD_BREAK_TIMEOUT_MS;
	wt->gen = ow->wake_gen;
	wt->timer = ev_timer_add(wt, w->loop, WAITER_POLL_MS, waiter_poll, wt);
	if (wt->timer == NULL) {
		talloc_free(wt);
		return NULL;
	}
	wt->next = ow->waiters;
	if (wt->next != NULL) {
		wt->next->prev = wt;
	}
	ow->waiters = wt;
	talloc_set_destructor(wt, waiter_destructor);
	return wt;
}

/* fn may free the waiter (and more): call it last. */
static void waiter_fire(struct smbd_waiter *wt)
{
	bool expired = clock_mono_ms() >= wt->deadline;

	wt->fn(wt->priv, expired);
}

static void waiter_poll(void *priv)
{
	struct smbd_waiter *wt = priv;

	/* Re-armed first: fn usually frees wt, and the timer with it. */
	wt->timer = ev_timer_add(wt, wt->w->loop, WAITER_POLL_MS, waiter_poll,
				 wt);
	waiter_fire(wt);
}

static void waiters_wake(struct smbd_worker *w, const struct file_key *k)
{
	struct smbd_objects_worker *ow = smbd_objects_of(w);
	uint64_t gen = ++ow->wake_gen;
	struct smbd_waiter *wt;

	/* fn may free any waiter and add new ones: each waiter of k fires
	 * once per round (its generation says so), starting over after
	 * every call. */
	for (;;) {
		for (wt = ow->waiters; wt != NULL; wt = wt->next) {
			if (wt->key.dev == k->dev && wt->key.ino == k->ino &&
			    wt->gen != gen) {
				break;
			}
		}
		if (wt == NULL) {
			return;
		}
		wt->gen = gen;
		waiter_fire(wt);
	}
}

void smbd_breaks_wake(struct smbd_worker *w, const struct file_key *k)
{
	smbd_mailbox_broadcast(w->mbox, SMBD_MSG_WAKE, k, sizeof(*k));
	/* Waiters on other nodes (nothing when not clustered); they also
	 * look again every WAITER_POLL_MS. */
	smbd_cluster_broadcast(w, SMBD_MSG_WAKE, k, sizeof(*k));
}

static void breaks_msg_wake(void *priv, int from, const void *body, int fd)
{
	struct file_key k;

	memcpy(&k, body, sizeof(k));
	waiters_wake(priv, &k);
}

static void breaks_msg_break(void *priv, int from, const void *body, int fd)
{
	struct smbd_worker *w = priv;
	struct break_msg m;

	memcpy(&m, body, sizeof(m));
	if (m.brk.worker == w->index) {
		smbd_breaks_deliver(w, &m.key, &m.brk, 1);
	}
}

void smbd_breaks_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_BREAK, breaks_msg_break,
			    sizeof(struct break_msg), false);
	smbd_mailbox_handle(w->mbox, SMBD_MSG_WAKE, breaks_msg_wake,
			    sizeof(struct file_key), false);
}

/* ---- contention ---- */

void smbd_dir_change_of(const struct smbd_open *op, struct smbd_dir_change *c)
{
	memset(c, 0, sizeof(*c));
	c->dev = op->pdev;
	c->ino = op->pino;
	c->spare = op->caching == CACHING_LEASE && op->has_parent_key;
	if (c->spare) {
		memcpy(c->guid, op->client_guid, 16);
		memcpy(c->key, op->parent_lease_key, 16);
	}
}

bool smbd_dirlease_flag_create(struct smbd_server *srv)
{
	/* Shared with the workers forked after it (lib/proc.h). */
	void *p = proc_shared_alloc(sizeof(uint32_t),
				    "directory leases: shared flag");

	if (p == NULL) {
		return false;
	}
	srv->dirlease_armed = p;
	return true;
}

void smbd_dirlease_arm(struct smbd_worker *w)
{
	uint32_t *f = w->srv->dirlease_armed;

	if (f != NULL && __atomic_load_n(f, __ATOMIC_RELAXED) == 0) {
		__atomic_store_n(f, 1, __ATOMIC_SEQ_CST);
	}
}

/* Whether a directory lease may exist (see smbd_dirlease_arm); without
 * the shared flag (a unit test's worker), always. */
static bool dirlease_armed(const struct smbd_worker *w)
{
	const uint32_t *f = w->srv->dirlease_armed;

	return f == NULL || __atomic_load_n(f, __ATOMIC_SEQ_CST) != 0;
}

void smbd_dirlease_break(struct smbd_worker *w,
			 const struct smbd_dir_change *c)
{
	struct locking_db *db = smbd_locking(w);
	struct file_key k = {.dev = c->dev, .ino = c->ino};
	struct share_break *b = NULL;
	unsigned n = 0;
	TALLOC_CTX *tmp;

	if (db == NULL || (c->dev == 0 && c->ino == 0) ||
	    !dirlease_armed(w) || share_mode_cached_opens(db, &k) == 0) {
		return;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return;
	}
	if (NT_STATUS_IS_OK(share_mode_break_dir_leases(
		    db, tmp, &k, c->spare ? c->guid : NULL,
		    c->spare ? c->key : NULL, &b, &n))) {
		smbd_breaks_deliver(w, &k, b, n);
	}
	talloc_free(tmp);
}

void smbd_break_readers(struct smbd_open *op)
{
	struct smbd_worker *w = op->conn->worker;
	struct locking_db *db = smbd_locking(w);
	struct share_break *b = NULL;
	struct file_key k;
	struct open_owner o;
	unsigned n = 0;
	TALLOC_CTX *tmp;

	if (db == NULL || !op->share_registered) {
		return;
	}
	smbd_open_keys(op, &k, &o);
	/* The common case, nobody caches: one in-place read. */
	if (share_mode_cached_opens(db, &k) == 0) {
		return;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return;
	}
	if (NT_STATUS_IS_OK(share_mode_break_readers(
		    db, tmp, &k, &o,
		    op->caching == CACHING_LEASE ? op->client_guid : NULL,
		    op->caching == CACHING_LEASE ? op->lease_key : NULL, &b,
		    &n))) {
		smbd_breaks_deliver(w, &k, b, n);
	}
	talloc_free(tmp);
}
