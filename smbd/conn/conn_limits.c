/*
 * Connection admission and pre-logon limits (design in conn_limits.h).
 */
#include "smbd/conn/conn_limits.h"
#include "smbd/auth/access.h"
#include "smbd/conn/conn.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#define LIMITS_HOST_BUCKETS 1024

struct conn_limits_row {
	uint32_t total;
	uint16_t per_host[LIMITS_HOST_BUCKETS];
};

static unsigned host_bucket(const char *addr)
{
	/* FNV-1a: addresses that share a bucket are counted together,
	 * which can only refuse early, never let more through. */
	uint32_t h = 2166136261u;

	for (; *addr != '\0'; addr++) {
		h = (h ^ (uint8_t)*addr) * 16777619u;
	}
	return h % LIMITS_HOST_BUCKETS;
}

bool smbd_conn_limits_create(struct smbd_server *srv)
{
	size_t len = sizeof(struct conn_limits_row) * (size_t)srv->nworkers;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		DBG_ERR("cannot map the connection table: %s\n",
			log_syserr());
		return false;
	}
	srv->conn_limits = p;
	return true;
}

static struct conn_limits_row *row_of(const struct smbd_server *srv, int i)
{
	return &((struct conn_limits_row *)srv->conn_limits)[i];
}

void smbd_conn_limits_worker_init(struct smbd_worker *w)
{
	if (w->srv->conn_limits != NULL) {
		memset(row_of(w->srv, w->index), 0,
		       sizeof(struct conn_limits_row));
	}
}

unsigned smbd_conn_limits_total(const struct smbd_server *srv)
{
	uint64_t all = 0;
	int i;

	for (i = 0; srv->conn_limits != NULL && i < srv->nworkers; i++) {
		all += __atomic_load_n(&row_of(srv, i)->total,
				       __ATOMIC_RELAXED);
	}
	return all > UINT32_MAX ? UINT32_MAX : (unsigned)all;
}

bool smbd_conn_hosts_admit(struct smbd_conn *conn, int fd)
{
	/*
	 * RFC 1002 4.3.4 NEGATIVE SESSION RESPONSE, error 0x81 "not
	 * listening on called name": what Samba 4.17 sends, unasked, to a
	 * refused host before it closes (a client then reports the refusal
	 * instead of a bare reset).
	 */
	static const uint8_t negative[5] = {0x83, 0x00, 0x00, 0x01, 0x81};
	const struct lp_ctx *lp = conn->worker->srv->lp;
	TALLOC_CTX *tmp = talloc_new(conn);
	const char **allow = lp_list(tmp, lp, LP_GLOBAL, LP_HOSTS_ALLOW);
	const char **deny = lp_list(tmp, lp, LP_GLOBAL, LP_HOSTS_DENY);
	struct smbd_host_verdict v;
	bool ok = smbd_host_check(allow, deny, conn->remote_addr, &v);

	if (!ok) {
		DBG_WARNING("refusing connection from %s: %s%s%s%s\n",
			    conn->remote,
			    v.entry != NULL ? "[global] " : "not in [global] ",
			    v.list, v.entry != NULL ? " entry " : "",
			    v.entry != NULL ? v.entry : "");
		/* A fresh socket's send buffer is empty: this cannot block,
		 * and if it fails the close says no just the same. */
		(void)send(fd, negative, sizeof(negative),
			   MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	talloc_free(tmp);
	return ok;
}

bool smbd_conn_limits_admit(struct smbd_conn *conn)
{
	struct smbd_worker *w = conn->worker;
	const struct smbd_server *srv = w->srv;
	int max_all = lp_int(srv->lp, LP_GLOBAL, LP_MAX_SMBD_PROCESSES);
	int max_host = lp_int(srv->lp, LP_GLOBAL, LP_SMBD_MAX_CLIENTS_PER_HOST);
	unsigned b = host_bucket(conn->remote_addr);
	uint64_t all = 0, host = 0;
	struct conn_limits_row *mine;
	int i;

	if (srv->conn_limits == NULL) {
		return true;
	}
	for (i = 0; i < srv->nworkers; i++) {
		const struct conn_limits_row *r = row_of(srv, i);

		all += __atomic_load_n(&r->total, __ATOMIC_RELAXED);
		host += __atomic_load_n(&r->per_host[b], __ATOMIC_RELAXED);
	}
	if (max_all > 0 && all >= (uint64_t)max_all) {
		DBG_WARNING("refusing connection from %s: max smbd processes "
			    "(%d) reached\n", conn->remote, max_all);
		return false;
	}
	if (max_host > 0 && host >= (uint64_t)max_host) {
		DBG_WARNING("refusing connection from %s: smbd max clients per "
			    "host (%d) reached\n", conn->remote, max_host);
		return false;
	}
	mine = row_of(srv, w->index);
	__atomic_store_n(&mine->total, mine->total + 1, __ATOMIC_RELAXED);
	if (mine->per_host[b] < UINT16_MAX) {
		__atomic_store_n(&mine->per_host[b],
				 (uint16_t)(mine->per_host[b] + 1),
				 __ATOMIC_RELAXED);
	}
	conn->limits_bucket = b;
	conn->limits_counted = true;
	return true;
}

void smbd_conn_limits_release(struct smbd_conn *conn)
{
	struct conn_limits_row *mine;

	TALLOC_FREE(conn->logon_timer);
	if (!conn->limits_counted || conn->worker->srv->conn_limits == NULL) {
		return;
	}
	conn->limits_counted = false;
	mine = row_of(conn->worker->srv, conn->worker->index);
	if (mine->total > 0) {
		__atomic_store_n(&mine->total, mine->total - 1,
				 __ATOMIC_RELAXED);
	}
	if (mine->per_host[conn->limits_bucket] > 0) {
		__atomic_store_n(&mine->per_host[conn->limits_bucket],
				 (uint16_t)(mine->per_host[conn->limits_bucket] -
					    1),
				 __ATOMIC_RELAXED);
	}
}

static void logon_timeout(void *priv)
{
	struct smbd_conn *conn = priv;

	conn->logon_timer = NULL; /* the loop frees it */
	smbd_conn_disconnect(conn, "no logon within smbd logon timeout");
}

void smbd_conn_logon_timer_start(struct smbd_conn *conn)
{
	int secs = lp_int(conn->worker->srv->lp, LP_GLOBAL,
			  LP_SMBD_LOGON_TIMEOUT);

	if (secs <= 0 || conn->worker->loop == NULL) {
		return;
	}
	conn->logon_timer = ev_timer_add(conn, conn->worker->loop,
					 (uint64_t)secs * 1000, logon_timeout,
					 conn);
}

void smbd_conn_logged_on(struct smbd_conn *conn)
{
	conn->logged_on = true;
	TALLOC_FREE(conn->logon_timer);
}

/* ---- decompressed bytes of waiting requests (issue 34) ---- */

/* A `smbd max decompressed ...` bound in bytes: MiB, at least one
 * message. */
static size_t decomp_bound(const struct smbd_worker *w, enum lp_param p,
			   size_t msg_max)
{
	int mib = lp_int(w->srv->lp, LP_GLOBAL, p);
	size_t b = mib > 0 ? (size_t)mib * 1024 * 1024 : 0;

	return b > msg_max ? b : msg_max;
}

static void decomp_drop(void *priv)
{
	smbd_conn_disconnect(priv, "it held the most decompressed bytes of "
				   "a worker at smbd max decompressed per "
				   "worker");
}

bool smbd_conn_decomp_admit(struct smbd_conn *conn, size_t size,
			    size_t msg_max)
{
	struct smbd_worker *w = conn->worker;
	size_t conn_max = decomp_bound(
		w, LP_SMBD_MAX_DECOMPRESSED_PER_CONNECTION, msg_max);
	size_t worker_max = decomp_bound(
		w, LP_SMBD_MAX_DECOMPRESSED_PER_WORKER, msg_max);
	size_t mine = conn->decomp_held + size;
	size_t total = w->decomp_held + size;

	if (mine > conn_max) {
		DBG_WARNING("%s: its waiting requests would hold %zu bytes of "
			    "decompressed messages, over smbd max decompressed "
			    "per connection = %zu MiB: dropping it\n",
			    conn->remote, mine, conn_max >> 20);
		return false;
	}
	while (total > worker_max) {
		struct smbd_conn *c, *big = NULL;
		size_t big_held = mine, doomed = 0;

		/* Connections already to be dropped free theirs soon. */
		for (c = w->conns; c != NULL; c = c->wnext) {
			if (c->decomp_doomed) {
				doomed += c->decomp_held;
			} else if (c != conn && c->decomp_held > big_held) {
				big = c;
				big_held = c->decomp_held;
			}
		}
		if (total - doomed <= worker_max) {
			break;
		}
		if (big == NULL || w->loop == NULL) {
			DBG_WARNING("%s: its waiting requests would hold %zu "
				    "bytes of decompressed messages, the most "
				    "on worker %d, which would hold %zu, over "
				    "smbd max decompressed per worker = %zu "
				    "MiB: dropping it\n", conn->remote, mine,
				    w->index, total - doomed,
				    worker_max >> 20);
			return false;
		}
		DBG_WARNING("%s: its waiting requests hold %zu bytes of "
			    "decompressed messages, the most on worker %d, "
			    "which would hold %zu with a request of %s, over "
			    "smbd max decompressed per worker = %zu MiB: "
			    "dropping it\n", big->remote, big_held, w->index,
			    total - doomed, conn->remote, worker_max >> 20);
		big->decomp_doomed = true;
		if (ev_after_poll(big, w->loop, decomp_drop, big) == NULL) {
			return false;
		}
	}
	return true;
}
