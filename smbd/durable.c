/*
 * Durable handles: grant, keep across a lost connection, scavenge,
 * reclaim (design in durable.h).
 */
#include "smbd/durable.h"
#include "smbd/conn.h"
#include "smbd/create_ctx.h"
#include "smbd/open.h"
#include "smbd/session.h"
#include "smbd/smb2_server.h"
#include "smbd/status.h"
#include "locking/locking_rec.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

bool smbd_durable_grantable(const struct smbd_open *op, bool lease,
			    uint32_t granted_state)
{
	if (op->is_dir || op->stream != NULL) {
		return false;
	}
	if (lease) {
		return (granted_state & CACHE_H) != 0;
	}
	/* A batch oplock is R|W|H in locking/'s terms. */
	return granted_state == CACHE_RWH;
}

void smbd_durable_grant(struct smbd_open *op, const struct create_durable *req,
			uid_t owner)
{
	op->durable = true;
	op->durable_v2 = req->v2;
	op->owner_uid = owner;
	/* 3.3.5.9.10: Timeout 0 lets the server choose; ours caps it. */
	op->durable_timeout_ms = SMBD_DURABLE_DEFAULT_TIMEOUT_MS;
	if (req->v2 && req->timeout_ms != 0) {
		op->durable_timeout_ms =
			req->timeout_ms > SMBD_DURABLE_MAX_TIMEOUT_MS
				? SMBD_DURABLE_MAX_TIMEOUT_MS
				: req->timeout_ms;
	}
	memcpy(op->create_guid, req->create_guid, 16);
	if (op->caching != CACHING_LEASE) {
		/* The lease keeps its own; an oplock open remembers whose
		 * it is for a DH2C (3.3.5.9.12 ClientGuid check). */
		memcpy(op->client_guid, op->conn->client_guid, 16);
	}
}

/* The worker's connection for disconnected opens: no socket, nothing is
 * ever sent on it (breaks to its opens close them instead). */
static void durable_sink(struct smbd_conn *conn, uint8_t *buf, size_t len)
{
	(void)conn;
	(void)len;
	talloc_free(buf);
}

static struct smbd_conn *durable_conn(struct smbd_worker *w)
{
	struct smbd_conn *c = w->durable_conn;

	if (c != NULL) {
		return c;
	}
	c = talloc_zero(w, struct smbd_conn);
	if (c == NULL) {
		return NULL;
	}
	c->worker = w;
	c->id = ++w->conn_seq;
	c->sink = durable_sink;
	c->dead = true;
	snprintf(c->remote, sizeof(c->remote), "durable");
	w->durable_conn = c;
	return c;
}

static int ghost_tcon_destructor(struct smbd_tcon *t)
{
	if (t->share.root_fd != -1) {
		close(t->share.root_fd);
		t->share.root_fd = -1;
	}
	return 0;
}

/* The share as the open needs it while its tree connect is gone. */
static struct smbd_tcon *ghost_tcon(struct smbd_open *op)
{
	const struct smbd_tcon *t = op->tcon;
	struct smbd_tcon *g = talloc_zero(op, struct smbd_tcon);

	if (g == NULL) {
		return NULL;
	}
	g->snum = t->snum;
	g->read_only = t->read_only;
	g->maximal_access = t->maximal_access;
	g->use_sendfile = t->use_sendfile;
	g->share = t->share;
	g->share_name = talloc_strdup(g, t->share_name ? t->share_name : "");
	g->path = talloc_strdup(g, t->path ? t->path : "");
	g->share.path = g->path;
	g->share.root_fd = fcntl(t->share.root_fd, F_DUPFD_CLOEXEC, 0);
	if (g->share.root_fd == -1 || g->share_name == NULL ||
	    g->path == NULL) {
		talloc_free(g);
		return NULL;
	}
	talloc_set_destructor(g, ghost_tcon_destructor);
	return g;
}

static void durable_expire(void *priv)
{
	struct smbd_open *op = priv;

	op->durable_timer = NULL; /* the loop freed it */
	DBG_INFO("durable open %llu of '%s' not reclaimed: closed\n",
		 (unsigned long long)op->fid_volatile, op->path);
	talloc_free(op);
}

/* Keep one open of a dropped connection (3.3.7.1: Open.Connection and
 * Open.Session become NULL, the open stays in the GlobalOpenTable). */
static bool durable_detach(struct smbd_open *op, struct smbd_conn *dc)
{
	struct smbd_tcon *g = ghost_tcon(op);

	if (g == NULL) {
		return false;
	}
	op->durable_timer = ev_timer_add(op, dc->worker->loop,
					 op->durable_timeout_ms,
					 durable_expire, op);
	if (op->durable_timer == NULL) {
		talloc_free(g);
		return false;
	}
	smbd_open_move(op, dc);
	(void)talloc_steal(dc, op);
	op->tcon = g;
	op->session = NULL;
	op->disconnected = true;
	DBG_INFO("durable open %llu of '%s' kept for %u ms\n",
		 (unsigned long long)op->fid_volatile, op->path,
		 op->durable_timeout_ms);
	return true;
}

void smbd_durable_conn_lost(struct smbd_conn *conn)
{
	smbd_durable_session_lost(conn, NULL);
}

void smbd_durable_session_lost(struct smbd_conn *conn,
			       const struct smbd_session *s)
{
	struct smbd_conn *dc;
	unsigned i;

	if (conn->nopens == 0 || conn == conn->worker->durable_conn) {
		return;
	}
	dc = durable_conn(conn->worker);
	if (dc == NULL) {
		return;
	}
	for (i = 0; i < SMBD_OPEN_BUCKETS; i++) {
		struct smbd_open *op = conn->open_hash[i], *next;

		for (; op != NULL; op = next) {
			next = op->hnext;
			if (op->durable && op->fd != -1 &&
			    (s == NULL || op->session == s)) {
				(void)durable_detach(op, dc);
			}
		}
	}
}

bool smbd_durable_break(struct smbd_open *op)
{
	if (!op->disconnected) {
		return false;
	}
	/* Closed from the loop: the caller is in the middle of a locking
	 * call for this file. */
	TALLOC_FREE(op->durable_timer);
	op->durable_timer = ev_timer_add(op, op->worker->loop, 0,
					 durable_expire, op);
	return true;
}

struct smbd_open *smbd_durable_find_guid(struct smbd_worker *w,
					 const uint8_t client_guid[16],
					 const uint8_t create_guid[16])
{
	unsigned i;

	for (i = 0; i < SMBD_WORKER_OPEN_BUCKETS; i++) {
		struct smbd_open *op;

		for (op = w->open_hash[i]; op != NULL; op = op->whnext) {
			if (op->durable_v2 &&
			    memcmp(op->create_guid, create_guid, 16) == 0 &&
			    memcmp(op->client_guid, client_guid, 16) == 0) {
				return op;
			}
		}
	}
	return NULL;
}

/* The checks of 3.3.5.9.7 and 3.3.5.9.12 on the open found. */
static NTSTATUS durable_check(struct smb2_request *req,
			      const struct create_durable *d,
			      const struct smbd_open *op, const char *path,
			      const uint8_t *lease_key, const char **why)
{
	if (op == NULL) {
		*why = "no such open";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	/* Either reconnect reclaims either kind of open: a DHnC names the
	 * open by its FileId alone, a DH2C adds the CreateGuid (zero for an
	 * open made with DHnQ). */
	if (op->fid_persistent != d->fid_persistent || !op->durable) {
		*why = "not durable";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (d->v2 && memcmp(op->create_guid, d->create_guid, 16) != 0) {
		*why = "CreateGuid differs";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if ((op->caching == CACHING_LEASE) != (lease_key != NULL)) {
		*why = "lease or no lease";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (lease_key != NULL &&
	    (memcmp(op->lease_key, lease_key, 16) != 0 ||
	     memcmp(op->client_guid, req->conn->client_guid, 16) != 0)) {
		*why = "lease key or client differs";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (!op->disconnected) {
		/* Still in use on its connection. */
		*why = "open still connected";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (req->session->uid != op->owner_uid) {
		*why = "another user";
		return NT_STATUS_ACCESS_DENIED;
	}
	if (lease_key != NULL && strcasecmp(op->path, path) != 0) {
		/* A lease names its file (3.3.5.9.7). */
		*why = "another name";
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS smbd_durable_reconnect(struct smb2_request *req,
				const struct create_durable *d,
				const char *path, const uint8_t *lease_key,
				struct smbd_open **out)
{
	struct smbd_open *op = smbd_open_by_id(req->conn->worker,
					       d->fid_volatile);
	const char *why = "";
	struct smbd_tcon *g;
	NTSTATUS status;

	*out = NULL;
	status = durable_check(req, d, op, path, lease_key, &why);
	DBG_DEBUG("%s: durable reconnect of %llu: %s %s\n", req->conn->remote,
		  (unsigned long long)d->fid_volatile, nt_errstr(status), why);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	TALLOC_FREE(op->durable_timer);
	g = op->tcon;
	smbd_open_move(op, req->conn);
	(void)talloc_steal(req->tcon, op);
	op->tcon = req->tcon;
	op->session = req->session;
	op->disconnected = false;
	talloc_free(g);
	smbd_status_open(op, true);
	*out = op;
	return NT_STATUS_OK;
}
