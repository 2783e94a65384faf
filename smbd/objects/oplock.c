/*
 * Oplock and lease breaks across workers: mailboxes, notifications,
 * waiters (see oplock.h).
 */
#include "smbd/objects/oplock.h"
#include "smbd/objects/durable.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "lib/clock.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* ---- mailboxes ---- */

#define MSG_MAGIC 0x4b4f4c4fu /* "OLOK" */
enum msg_type {
	MSG_BREAK = 1,
	MSG_WAKE = 2,
	MSG_CONN = 3,	/* a connection's fd rides along (SCM_RIGHTS) */
	MSG_DIR_DELETE_PENDING = 4,	/* CHANGE_NOTIFYs on key end */
	MSG_SESSION_PREVIOUS = 5,	/* log off a replaced session */
	MSG_BARRIER = 6,	/* answer after your next poll (conn_barrier.c) */
	MSG_BARRIER_ACK = 7,
	MSG_DURABLE_REQ = 8,	/* reclaim of a durable open (durable.c) */
	MSG_DURABLE_GIVE = 9,	/* its hand-over; its fd rides along */
	MSG_DURABLE_NACK = 10,	/* refused */
	MSG_CONTROL = 11,	/* from the master: smbcontrol (control.c) */
};

/* Between processes of one server on one host: native layout, checked
 * on receipt (size, magic, type) all the same. */
struct smbd_msg {
	uint32_t magic;
	uint32_t type;
	struct file_key key;
	struct share_break brk;
	uint64_t session_id;	/* also the barrier's token */
	int32_t from;		/* sender's worker index (barrier) */
	char account[64];	/* NUL-terminated (checked on receipt) */
	struct smbd_durable_xfer dh;	/* MSG_DURABLE_* */
	char text[256];		/* MSG_CONTROL's argument, NUL-terminated */
};

bool smbd_mailboxes_create(struct smbd_server *srv)
{
	int i;

	if (lp_bool(srv->lp, LP_GLOBAL, LP_SMBD_SPREAD_CONNECTIONS)) {
		void *p = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			DBG_ERR("smbd spread connections: %s\n",
				strerror(errno));
			return false;
		}
		srv->spread_ctr = p;
	}

	srv->mbox = talloc_array(srv, int, 2 * srv->nworkers);
	if (srv->mbox == NULL) {
		return false;
	}
	for (i = 0; i < srv->nworkers; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       0, sv) != 0) {
			DBG_ERR("cannot create worker mailboxes: %s\n",
				strerror(errno));
			return false;
		}
		srv->mbox[2 * i] = sv[0];	/* worker i reads */
		srv->mbox[2 * i + 1] = sv[1];	/* everyone writes */
	}
	return true;
}

static void waiters_wake(struct smbd_worker *w, const struct file_key *k);

/* One datagram, and the descriptor it carries if any. */
static ssize_t mailbox_recv(int fd, struct smbd_msg *m, int *passed)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = m, .iov_len = sizeof(*m)};
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	ssize_t got = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (got < 0) {
		return got;
	}
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(passed, CMSG_DATA(c), sizeof(int));
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		return (ssize_t)sizeof(*m) + 1; /* refused as malformed */
	}
	return got;
}

static void mailbox_readable(void *priv)
{
	struct smbd_worker *w = priv;
	int fd = w->srv->mbox[2 * w->index];
	struct smbd_msg m;
	int n;

	/* A bounded batch, then back to the loop: connections get their
	 * turn even when the mailbox is busy. */
	for (n = 0; n < 64; n++) {
		int passed = -1;
		ssize_t got = mailbox_recv(fd, &m, &passed);

		if (got < 0) {
			break;
		}
		if ((size_t)got != sizeof(m) || m.magic != MSG_MAGIC ||
		    (passed != -1 && m.type != MSG_CONN &&
		     m.type != MSG_DURABLE_GIVE)) {
			DBG_WARNING("worker %d: malformed mailbox message "
				    "(%zd bytes)\n", w->index, got);
			if (passed != -1) {
				close(passed);
			}
			continue;
		}
		switch (m.type) {
		case MSG_CONN:
			if (passed != -1) {
				smbd_conn_accept(w, passed);
			}
			break;
		case MSG_BREAK:
			if (m.brk.worker == w->index) {
				smbd_breaks_deliver(w, &m.key, &m.brk, 1);
			}
			break;
		case MSG_WAKE:
			waiters_wake(w, &m.key);
			break;
		case MSG_DURABLE_REQ:
			smbd_durable_msg_req(w, &m.dh);
			break;
		case MSG_DURABLE_GIVE:
			smbd_durable_msg_give(w, &m.dh, passed);
			break;
		case MSG_DURABLE_NACK:
			smbd_durable_msg_nack(w, &m.dh);
			break;
		case MSG_DIR_DELETE_PENDING:
			smbd_notify_delete_pending(w, m.key.dev, m.key.ino);
			break;
		case MSG_SESSION_PREVIOUS:
			if (memchr(m.account, '\0', sizeof(m.account)) != NULL) {
				smbd_session_logoff_previous(w, m.session_id,
							     m.account);
			}
			break;
		case MSG_BARRIER:
			smbd_barrier_request(w, m.from, m.session_id);
			break;
		case MSG_CONTROL:
			if (memchr(m.text, '\0', sizeof(m.text)) != NULL &&
			    w->on_control != NULL) {
				w->on_control(w, (int)m.session_id, m.text);
			}
			break;
		case MSG_BARRIER_ACK:
			smbd_barrier_answered(w, m.session_id);
			break;
		default:
			DBG_WARNING("worker %d: unknown message type %u\n",
				    w->index, m.type);
		}
	}
}

bool smbd_mailbox_listen(struct smbd_worker *w)
{
	if (w->srv->mbox == NULL) {
		return true;
	}
	return ev_watch_fd(w->loop, w, w->srv->mbox[2 * w->index],
			   mailbox_readable, w) == 0;
}

static void mailbox_send(struct smbd_worker *w, int to,
			 const struct smbd_msg *m)
{
	if (w->srv->mbox == NULL || to < 0 || to >= w->srv->nworkers) {
		return;
	}
	if (send(w->srv->mbox[2 * to + 1], m, sizeof(*m), MSG_DONTWAIT) !=
	    (ssize_t)sizeof(*m)) {
		/* A full mailbox: the waiters' poll still finds the end of
		 * the break; a lost break notification ends by timeout. */
		DBG_WARNING("worker %d: message to worker %d lost: %s\n",
			    w->index, to, strerror(errno));
	}
}

bool smbd_mailbox_send_control(struct smbd_server *srv, int to, int op,
			       const char *arg)
{
	struct smbd_msg m = {
		.magic = MSG_MAGIC,
		.type = MSG_CONTROL,
		.session_id = (uint64_t)op,
		.from = -1,
	};

	if (srv->mbox == NULL || to < 0 || to >= srv->nworkers ||
	    strlen(arg) >= sizeof(m.text)) {
		return false;
	}
	memcpy(m.text, arg, strlen(arg) + 1);
	return send(srv->mbox[2 * to + 1], &m, sizeof(m), MSG_DONTWAIT) ==
	       (ssize_t)sizeof(m);
}

bool smbd_mailbox_barrier(struct smbd_worker *w, int to, uint64_t token,
			  bool ack)
{
	struct smbd_msg m = {
		.magic = MSG_MAGIC,
		.type = ack ? MSG_BARRIER_ACK : MSG_BARRIER,
		.session_id = token,
		.from = w->index,
	};

	if (w->srv->mbox == NULL || to < 0 || to >= w->srv->nworkers) {
		return false;
	}
	return send(w->srv->mbox[2 * to + 1], &m, sizeof(m), MSG_DONTWAIT) ==
	       (ssize_t)sizeof(m);
}

void smbd_spread_accept(struct smbd_worker *w, int fd)
{
	struct smbd_server *srv = w->srv;
	struct smbd_msg m = {.magic = MSG_MAGIC, .type = MSG_CONN};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	int to;

	if (srv->spread_ctr == NULL || srv->mbox == NULL) {
		smbd_conn_accept(w, fd);
		return;
	}
	to = (int)(__atomic_fetch_add(srv->spread_ctr, 1, __ATOMIC_RELAXED) %
		   (uint64_t)srv->nworkers);
	if (to == w->index) {
		smbd_conn_accept(w, fd);
		return;
	}
	memset(cm.buf, 0, sizeof(cm.buf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(srv->mbox[2 * to + 1], &mh, MSG_DONTWAIT) !=
	    (ssize_t)sizeof(m)) {
		/* Serve it here rather than lose it. */
		smbd_conn_accept(w, fd);
		return;
	}
	close(fd);
}

bool smbd_mailbox_send_durable(struct smbd_worker *w, int to, bool give,
			       bool nack, const struct smbd_durable_xfer *x,
			       int fd)
{
	struct smbd_server *srv = w->srv;
	struct smbd_msg *m;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *c;
	bool ok;

	if (srv->mbox == NULL || to < 0 || to >= srv->nworkers) {
		return false;
	}
	m = talloc_zero(NULL, struct smbd_msg);
	if (m == NULL) {
		return false;
	}
	m->magic = MSG_MAGIC;
	m->type = give ? MSG_DURABLE_GIVE
		       : nack ? MSG_DURABLE_NACK : MSG_DURABLE_REQ;
	m->dh = *x;
	iov.iov_base = m;
	iov.iov_len = sizeof(*m);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd != -1) {
		memset(cm.buf, 0, sizeof(cm.buf));
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ok = sendmsg(srv->mbox[2 * to + 1], &mh, MSG_DONTWAIT) ==
	     (ssize_t)sizeof(*m);
	if (!ok) {
		DBG_WARNING("worker %d: durable message to worker %d lost: "
			    "%s\n", w->index, to, strerror(errno));
	}
	talloc_free(m);
	return ok;
}

/* ---- notifications ---- */

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
	unsigned i;

	for (i = 0; i < n; i++) {
		struct smbd_open *op;

		if (b[i].worker != w->index) {
			struct smbd_msg m = {
				.magic = MSG_MAGIC, .type = MSG_BREAK,
				.key = *k, .brk = b[i],
			};

			mailbox_send(w, b[i].worker, &m);
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
		wt->w->waiters = wt->next;
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
	struct smbd_waiter *wt = talloc_zero(mem_ctx, struct smbd_waiter);

	if (wt == NULL) {
		return NULL;
	}
	wt->w = w;
	wt->key = *k;
	wt->fn = fn;
	wt->priv = priv;
	wt->deadline = clock_mono_ms() + SMBD_BREAK_TIMEOUT_MS;
	wt->gen = w->wake_gen;
	wt->timer = ev_timer_add(wt, w->loop, WAITER_POLL_MS, waiter_poll, wt);
	if (wt->timer == NULL) {
		talloc_free(wt);
		return NULL;
	}
	wt->next = w->waiters;
	if (wt->next != NULL) {
		wt->next->prev = wt;
	}
	w->waiters = wt;
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
	uint64_t gen = ++w->wake_gen;
	struct smbd_waiter *wt;

	/* fn may free any waiter and add new ones: each waiter of k fires
	 * once per round (its generation says so), starting over after
	 * every call. */
	for (;;) {
		for (wt = w->waiters; wt != NULL; wt = wt->next) {
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

void smbd_dir_delete_pending(struct smbd_worker *w, uint64_t dev,
			     uint64_t ino)
{
	struct smbd_msg m = {.magic = MSG_MAGIC,
			     .type = MSG_DIR_DELETE_PENDING,
			     .key = {.dev = dev, .ino = ino}};
	int i;

	for (i = 0; w->srv->mbox != NULL && i < w->srv->nworkers; i++) {
		if (i != w->index) {
			mailbox_send(w, i, &m);
		}
	}
	smbd_notify_delete_pending(w, dev, ino);
}

void smbd_session_previous(struct smbd_worker *w, uint64_t id,
			   const char *account)
{
	/* session_new(): bits 18-23 are the index of the worker. */
	int to = (int)((id >> 18) & 0x3f);
	struct smbd_msg m = {.magic = MSG_MAGIC, .type = MSG_SESSION_PREVIOUS,
			     .session_id = id};

	if (to == w->index || w->srv->mbox == NULL) {
		smbd_session_logoff_previous(w, id, account);
		return;
	}
	if (strlen(account) >= sizeof(m.account)) {
		return;
	}
	memcpy(m.account, account, strlen(account) + 1);
	mailbox_send(w, to, &m);
}

void smbd_breaks_wake(struct smbd_worker *w, const struct file_key *k)
{
	struct smbd_msg m = {.magic = MSG_MAGIC, .type = MSG_WAKE, .key = *k};
	int i;

	for (i = 0; w->srv->mbox != NULL && i < w->srv->nworkers; i++) {
		if (i != w->index) {
			mailbox_send(w, i, &m);
		}
	}
	waiters_wake(w, k);
}

/* ---- contention ---- */

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
