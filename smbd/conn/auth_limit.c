/*
 * The authentication rate limiter (design in auth_limit.h).
 */
#include "smbd/conn/auth_limit.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

/* ---- the arithmetic ---------------------------------------------------- */

/*
 * The bucket holds at most twice the budget: after an attack it stays
 * over the budget (its logons queued, one per delay, which costs a
 * lone good logon nothing: the queue is empty) for budget x delay ms at
 * most, however large the attack was.
 */
void auth_limit_cell_fail(struct auth_limit_cell *c, uint64_t now,
			  unsigned delay_ms, unsigned budget)
{
	uint64_t cap = now + 2 * (uint64_t)budget * delay_ms;
	uint64_t old = __atomic_load_n(&c->empty_at, __ATOMIC_RELAXED);
	uint64_t next;

	do {
		next = (old > now ? old : now) + delay_ms;
		if (next > cap) {
			next = cap > old ? cap : old;
		}
	} while (next != old &&
		 !__atomic_compare_exchange_n(&c->empty_at, &old, next, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

uint64_t auth_limit_cell_admit(struct auth_limit_cell *c, uint64_t now,
			       unsigned delay_ms, unsigned budget)
{
	uint64_t full = (uint64_t)budget * delay_ms;
	uint64_t e = __atomic_load_n(&c->empty_at, __ATOMIC_RELAXED);
	uint64_t old, slot;

	if (budget == 0 || delay_ms == 0 || e <= now || e - now <= full) {
		return 0;
	}
	/* over the budget: the next slot of the address's queue */
	old = __atomic_load_n(&c->next_slot, __ATOMIC_RELAXED);
	do {
		slot = old > now ? old : now;
	} while (!__atomic_compare_exchange_n(&c->next_slot, &old,
					      slot + delay_ms, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return slot - now;
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ p[i]) * 16777619u;
	}
	return h;
}

unsigned auth_limit_cell_of(const char *addr)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0,
					     0, 0, 0, 0, 0xff, 0xff};
	uint8_t a[16];

	if (inet_pton(AF_INET, addr, a) == 1) {
		return fnv1a(a, 4) % SMBD_AUTH_LIMIT_CELLS;
	}
	if (inet_pton(AF_INET6, addr, a) == 1) {
		if (memcmp(a, v4mapped, sizeof(v4mapped)) == 0) {
			return fnv1a(a + 12, 4) % SMBD_AUTH_LIMIT_CELLS;
		}
		/* the /64: what one subscriber is given */
		return fnv1a(a, 8) % SMBD_AUTH_LIMIT_CELLS;
	}
	/* not numeric (a test connection): the name itself */
	return fnv1a((const uint8_t *)addr, strlen(addr)) %
	       SMBD_AUTH_LIMIT_CELLS;
}

/* ---- the server's table ------------------------------------------------ */

bool smbd_auth_limit_create(struct smbd_server *srv)
{
	size_t len = sizeof(struct auth_limit_cell) * SMBD_AUTH_LIMIT_CELLS;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		DBG_ERR("cannot map the authentication rate limiter's table: "
			"%s\n", log_syserr());
		return false;
	}
	srv->auth_limit = p;
	return true;
}

bool smbd_auth_limit_counts(NTSTATUS status)
{
	/*
	 * What a wrong guess is answered (NO_SUCH_USER and WRONG_PASSWORD
	 * are LOGON_FAILURE on the wire, MS-NLMP 3.2.5.1.2).  Every
	 * LOGON_FAILURE is held, also one PAM gave for a right password
	 * (an expired account): answered faster, it would tell the
	 * password was right.  The refusals that already say so by their
	 * status (PASSWORD_MUST_CHANGE, ACCESS_DENIED for a client that
	 * cannot encrypt or a pam_access rule) come only after a right
	 * password, so holding them would protect nothing.
	 */
	switch (status) {
	case NT_STATUS_LOGON_FAILURE:
	case NT_STATUS_WRONG_PASSWORD:
	case NT_STATUS_NO_SUCH_USER:
		return true;
	default:
		return false;
	}
}

static unsigned limit_delay(const struct smbd_conn *conn)
{
	int d = lp_int(conn->worker->srv->lp, LP_GLOBAL,
		       LP_SMBD_AUTH_RATE_LIMITER_DELAY);

	return d > 0 ? (unsigned)d : 0;
}

static struct auth_limit_cell *cell_of(const struct smbd_conn *conn,
				       unsigned *budget)
{
	const struct smbd_server *srv = conn->worker->srv;
	int b = lp_int(srv->lp, LP_GLOBAL, LP_SMBD_AUTH_RATE_LIMITER_BUDGET);

	if (srv->auth_limit == NULL || b <= 0) {
		return NULL;
	}
	*budget = (unsigned)b;
	return &srv->auth_limit[auth_limit_cell_of(conn->remote_addr)];
}

/*
 * Now, read afresh: the loop's cached clock (lib/clock.h) is as old as
 * its iteration, which on a busy worker can be a good part of a second,
 * and a delay counted from it would end early.  CLOCK_MONOTONIC_COARSE,
 * as the cache: a vDSO read, no system call, on a failed logon only.
 */
static uint64_t limit_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A loop timer due at the fresh time due (ev_timer_add counts from the
 * cached clock). */
static struct ev_timer *timer_at(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
				 uint64_t due, void (*fn)(void *priv),
				 void *priv)
{
	uint64_t cached = clock_mono_ms();

	return ev_timer_add(mem_ctx, loop, due > cached ? due - cached : 0, fn,
			    priv);
}

/* ---- requests that wait ------------------------------------------------ */

/* A request's wait: for its turn (retry) or to be answered (status).
 * On the request's frame, so a connection that goes frees it and its
 * timer; job_priv finds it again when the handler runs once more. */
struct auth_limit_wait {
	struct smb2_request *req;
	NTSTATUS (*retry)(struct smb2_request *req);
	NTSTATUS status;
	bool slot_taken;	/* the address's queue gave it its slot */
};

static void wait_fire(void *priv)
{
	struct auth_limit_wait *w = priv;
	struct smb2_request *req = w->req;

	/* the loop freed the timer; w lives on the frame, so the handler
	 * sees it again through job_priv and takes no second slot */
	smb2_frame_resume(req, w->retry(req));
}

static void hold_fire(void *priv)
{
	struct auth_limit_wait *w = priv;

	smb2_frame_resume(w->req, w->status);
}

NTSTATUS smbd_auth_limit_wait(struct smb2_request *req,
			      NTSTATUS (*retry)(struct smb2_request *req))
{
	struct smbd_conn *conn = req->conn;
	unsigned delay = limit_delay(conn), budget = 0;
	uint64_t now = limit_now_ms(), wait = 0;
	struct auth_limit_wait *w = req->job_priv != NULL
		? talloc_get_type(req->job_priv, struct auth_limit_wait)
		: NULL;
	struct auth_limit_cell *c;

	if (delay == 0 || conn->worker->loop == NULL) {
		return NT_STATUS_OK;
	}
	if (conn->auth_gate_ms > now) {
		wait = conn->auth_gate_ms - now;
	}
	c = cell_of(conn, &budget);
	if (c != NULL && (w == NULL || !w->slot_taken)) {
		uint64_t slot = auth_limit_cell_admit(c, now, delay, budget);

		if (slot > wait) {
			wait = slot;
		}
		if (w == NULL && slot > 0) {
			DBG_NOTICE("%s: over the failed logon budget of its "
				   "address: its logon waits %llu ms\n",
				   conn->remote, (unsigned long long)slot);
		}
		if (w == NULL) {
			w = talloc_zero(req->mem_ctx, struct auth_limit_wait);
			if (w == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
			req->job_priv = w;
		}
		w->slot_taken = true;
	}
	if (wait == 0) {
		return NT_STATUS_OK;
	}
	if (w == NULL) {
		w = talloc_zero(req->mem_ctx, struct auth_limit_wait);
		if (w == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		req->job_priv = w;
	}
	w->req = req;
	w->retry = retry;
	if (timer_at(w, conn->worker->loop, now + wait, wait_fire, w) ==
	    NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	return SMBD_STATUS_ASYNC;
}

NTSTATUS smbd_auth_limit_hold(struct smb2_request *req, NTSTATUS status)
{
	struct smbd_conn *conn = req->conn;
	unsigned delay = limit_delay(conn), budget = 0;
	uint64_t now = limit_now_ms();
	struct auth_limit_cell *c;
	struct auth_limit_wait *w;

	if (delay == 0 || conn->worker->loop == NULL ||
	    !smbd_auth_limit_counts(status)) {
		return status;
	}
	/* the connection's next credentials wait for this answer */
	if (conn->auth_gate_ms < now + delay) {
		conn->auth_gate_ms = now + delay;
	}
	c = cell_of(conn, &budget);
	if (c != NULL) {
		auth_limit_cell_fail(c, now, delay, budget);
	}
	w = talloc_zero(req->mem_ctx, struct auth_limit_wait);
	if (w == NULL ||
	    timer_at(w, conn->worker->loop, now + delay, hold_fire, w) ==
		    NULL) {
		/* no memory for the wait: the answer goes now, and the
		 * gate still holds the connection's next try */
		talloc_free(w);
		return status;
	}
	w->req = req;
	w->status = status;
	DBG_INFO("%s: failed logon (%s) answered in %u ms\n", conn->remote,
		 nt_errstr(status), delay);
	return SMBD_STATUS_ASYNC;
}
