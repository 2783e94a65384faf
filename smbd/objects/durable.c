/*
 * Durable and resilient handles: grant, keep across a lost connection,
 * scavenge, reclaim (design in durable.h).
 */
#include "smbd/objects/durable.h"
#include "smbd/conn/conn_state.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/objects_worker.h"
#include "smbd/wire/create_ctx.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/smbd.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/objects/status.h"
#include "locking/locking.h"
#include "vfs/anchor.h"
#include "vfs/module.h"
#include "vfs/handle.h"
#include "vfs/fsctl_io.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "lib/proc.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "smbd/msg/mailbox.h"

#include <string.h>
#include <strings.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

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
	op->has_create_guid = req->v2;
	if (op->caching != CACHING_LEASE) {
		/* The lease keeps its own; an oplock open remembers whose
		 * it is for a DH2C (3.3.5.9.12 ClientGuid check). */
		memcpy(op->client_guid, op->conn->client_guid, 16);
	}
}

void smbd_resilient_grant(struct smbd_open *op, uint32_t timeout_ms,
			  uid_t owner)
{
	/* 3.3.5.15.9: IsDurable FALSE, IsResilient TRUE, ResiliencyTimeout,
	 * DurableOwner the session's user.  A durable open stops being one:
	 * what keeps it now is the resiliency, with its timeout. */
	op->durable = false;
	op->resilient = true;
	op->durable_timeout_ms = timeout_ms;
	op->owner_uid = owner;
	if (op->caching != CACHING_LEASE) {
		/* As smbd_durable_grant(): whose open it is, for a DH2C. */
		memcpy(op->client_guid, op->conn->client_guid, 16);
	}
	DBG_DEBUG("open %llu of '%s' resilient for %u ms\n",
		  (unsigned long long)op->fid_volatile, op->path, timeout_ms);
}

/* Whether op outlives its connection (3.3.7.1). */
static bool durable_kept(const struct smbd_open *op)
{
	return op->durable || op->resilient;
}

/* The worker's connection for disconnected opens: no socket, nothing is
 * ever sent on it (breaks to its opens close them, or end at once for
 * resilient ones, instead). */
static void durable_sink(struct smbd_conn *conn, uint8_t *buf, size_t len)
{
	(void)conn;
	(void)len;
	talloc_free(buf);
}

static struct smbd_conn *durable_conn(struct smbd_worker *w)
{
	struct smbd_conn *c = smbd_objects_of(w)->durable_conn;

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
	smbd_objects_of(w)->durable_conn = c;
	return c;
}

static int ghost_tcon_destructor(struct smbd_tcon *t)
{
	vfs_stack_unref(t->vfs);
	t->vfs = NULL;
	smbd_tcon_root_release(t);
	smbd_tcon_personality_release(t);
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
	g->compress_reads = t->compress_reads;
	g->share_name = talloc_strdup(g, t->share_name ? t->share_name : "");
	g->path = talloc_strdup(g, t->path ? t->path : "");
	if (!vfs_share_copy(g, &g->share, &t->share)) {
		talloc_free(g);
		return NULL;
	}
	g->share.path = g->path;
	(void)vfs_fd_dup(t->share.root_fd, &g->share.root_fd);
	if (g->share.root_fd == -1 || g->share_name == NULL ||
	    g->path == NULL) {
		talloc_free(g);
		return NULL;
	}
	/* What the open leaves to delete still goes through the share's
	 * modules (recycle) when its tree is gone. */
	g->vfs = vfs_stack_ref(t->vfs);
	talloc_set_destructor(g, ghost_tcon_destructor);
	return g;
}

static void durable_expire(void *priv)
{
	struct smbd_open *op = priv;

	op->durable_timer = NULL; /* the loop freed it */
	DBG_INFO("%s open %llu of '%s' not reclaimed: closed\n",
		 op->resilient ? "resilient" : "durable",
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
	/* The requests of the lost connection never complete: none is
	 * outstanding under any channel sequence any more (3.3.5.2.10). */
	op->channel.outstanding = 0;
	op->channel.outstanding_pre = 0;
	op->tcon = g;
	op->session = NULL;
	op->disconnected = true;
	DBG_INFO("%s open %llu of '%s' kept for %u ms\n",
		 op->resilient ? "resilient" : "durable",
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

	if (conn->nopens == 0 ||
	    conn == smbd_objects_of(conn->worker)->durable_conn) {
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
			if (durable_kept(op) && op->h.fd != -1 &&
			    (s == NULL || op->session == s)) {
				(void)durable_detach(op, dc);
			}
		}
	}
}

/*
 * 3.3.4.6, 3.3.6.1 for a disconnected resilient open: its break ends as
 * one nobody acknowledged in time ends, and what waited for it goes on.
 */
static void resilient_settle(void *priv)
{
	struct smbd_open *op = priv;
	struct locking_db *db = smbd_locking(op->worker);
	struct share_ack_res res;
	struct file_key k;
	struct open_owner o;
	TALLOC_CTX *tmp;
	NTSTATUS status;
	bool lease = op->caching == CACHING_LEASE;

	op->settle_timer = NULL; /* the loop freed it */
	tmp = talloc_new(NULL);
	if (db == NULL || tmp == NULL) {
		talloc_free(tmp);
		return;
	}
	smbd_open_keys(op, &k, &o);
	memset(&res, 0, sizeof(res));
	status = share_mode_break_timeout(db, tmp, &k, lease ? NULL : &o,
					  lease ? op->client_guid : NULL,
					  lease ? op->lease_key : NULL, &res);
	DBG_INFO("break of disconnected resilient open %llu of '%s' ended "
		 "for it: 0x%x (%s)\n",
		 (unsigned long long)op->fid_volatile, op->path, res.state,
		 nt_errstr(status));
	if (NT_STATUS_IS_OK(status) && !lease && res.state == 0) {
		op->caching = CACHING_NONE;
	}
	smbd_breaks_deliver(op->worker, &k, res.breaks, res.nbreaks);
	if (res.wake) {
		smbd_breaks_wake(op->worker, &k);
	}
	talloc_free(tmp);
}

/* A break still to end for op ends before its client has it back: the
 * client was never told of it and would not answer it either. */
static void resilient_settle_now(struct smbd_open *op)
{
	if (op->settle_timer != NULL) {
		TALLOC_FREE(op->settle_timer);
		resilient_settle(op);
	}
}

bool smbd_durable_break(struct smbd_open *op)
{
	if (!op->disconnected) {
		return false;
	}
	if (op->resilient) {
		if (op->settle_timer == NULL) {
			op->settle_timer = ev_timer_add(op, op->worker->loop, 0,
							resilient_settle, op);
		}
		return true;
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
	struct smbd_objects_worker *ow = smbd_objects_of(w);
	unsigned i;

	for (i = 0; i < SMBD_WORKER_OPEN_BUCKETS; i++) {
		struct smbd_open *op;

		for (op = ow->open_hash[i]; op != NULL; op = op->whnext) {
			if (op->has_create_guid &&
			    memcmp(op->create_guid, create_guid, 16) == 0 &&
			    memcmp(op->client_guid, client_guid, 16) == 0) {
				return op;
			}
		}
	}
	return NULL;
}

/* What a reclaim presents (from the CREATE, or from another worker's
 * MSG_DURABLE_REQ). */
struct durable_claim {
	uint64_t fid_persistent;
	bool v2;
	uint8_t create_guid[16];
	bool has_lease;
	uint8_t lease_key[16];
	uint8_t client_guid[16];
	uid_t uid;
	const char *path;
	/* The tree connect it would land in: a reclaim never moves an open
	 * to another share (its access was decided against this one). */
	const char *share_name;
	uint64_t root_dev, root_ino;	/* the share's directory */
};

/* The device and inode of a tree's share directory (0, 0 if unknown). */
static void durable_root_id(const struct smbd_tcon *t, uint64_t *dev,
			    uint64_t *ino)
{
	struct vfs_file_id id = vfs_file_id_of_fd(t->share.root_fd);

	*dev = id.dev;
	*ino = id.ino;
}

static bool durable_same_root(const struct smbd_tcon *t, uint64_t dev,
			      uint64_t ino)
{
	uint64_t d, i;

	durable_root_id(t, &d, &i);
	return d == dev && i == ino && (d != 0 || i != 0);
}

/* The checks of 3.3.5.9.7 and 3.3.5.9.12 on the open found. */
static NTSTATUS durable_check(const struct durable_claim *c,
			      const struct smbd_open *op, const char **why)
{
	if (op == NULL) {
		*why = "no such open";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	/* Either reconnect reclaims either kind of open: a DHnC names the
	 * open by its FileId alone, a DH2C adds the CreateGuid (zero for an
	 * open made with DHnQ). */
	if (op->fid_persistent != c->fid_persistent || !durable_kept(op)) {
		*why = "neither durable nor resilient";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (c->v2 && memcmp(op->create_guid, c->create_guid, 16) != 0) {
		*why = "CreateGuid differs";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if ((op->caching == CACHING_LEASE) != c->has_lease) {
		*why = "lease or no lease";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (c->has_lease &&
	    (memcmp(op->lease_key, c->lease_key, 16) != 0 ||
	     memcmp(op->client_guid, c->client_guid, 16) != 0)) {
		*why = "lease key or client differs";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (!op->disconnected) {
		/* Still in use on its connection. */
		*why = "open still connected";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (strcasecmp(op->tcon->share_name, c->share_name) != 0 ||
	    !durable_same_root(op->tcon, c->root_dev, c->root_ino)) {
		/* Not in the spec's list, but the open's rights, read-only
		 * state and root fd are the share's: moving it to another
		 * tree would let its delete-on-close or writes land where
		 * this user was never granted them (Samba refuses too). */
		*why = "another share";
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (c->uid != op->owner_uid) {
		*why = "another user";
		return NT_STATUS_ACCESS_DENIED;
	}
	if (c->has_lease && strcasecmp(op->path, c->path) != 0) {
		/* A lease names its file (3.3.5.9.7).  Without one the name
		 * is not looked at ("no Path Name Validation"; smbtorture
		 * durable-open.reopen2 reclaims under another name): the
		 * open keeps its own file, and the share and user checks
		 * above are what bound it. */
		*why = "another name";
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static void durable_claim_from_req(struct durable_claim *c,
				   struct smb2_request *req,
				   const struct create_durable *d,
				   const char *path, const uint8_t *lease_key)
{
	memset(c, 0, sizeof(*c));
	c->fid_persistent = d->fid_persistent;
	c->v2 = d->v2;
	memcpy(c->create_guid, d->create_guid, 16);
	c->has_lease = lease_key != NULL;
	if (lease_key != NULL) {
		memcpy(c->lease_key, lease_key, 16);
	}
	memcpy(c->client_guid, req->conn->client_guid, 16);
	c->uid = req->session->uid;
	c->path = path;
	c->share_name = req->tcon->share_name ? req->tcon->share_name : "";
	durable_root_id(req->tcon, &c->root_dev, &c->root_ino);
}

/* Whether the open named is not this worker's to judge: none here, or
 * a local open that happens to have the same volatile id. */
static bool durable_elsewhere(const struct smbd_open *op,
			      const struct create_durable *d)
{
	return op == NULL || op->fid_persistent != d->fid_persistent ||
	       !durable_kept(op);
}

NTSTATUS smbd_durable_reconnect(struct smb2_request *req,
				const struct create_durable *d,
				const char *path, const uint8_t *lease_key,
				struct smbd_open **out)
{
	struct smbd_open *op = smbd_open_by_id(req->conn->worker,
					       d->fid_volatile);
	struct durable_claim c;
	const char *why = "";
	struct smbd_tcon *g;
	NTSTATUS status;

	*out = NULL;
	durable_claim_from_req(&c, req, d, path, lease_key);
	status = durable_check(&c, op, &why);
	DBG_DEBUG("%s: durable reconnect of %llu: %s %s\n", req->conn->remote,
		  (unsigned long long)d->fid_volatile, nt_errstr(status), why);
	if (!NT_STATUS_IS_OK(status)) {
		if (durable_elsewhere(op, d)) {
			return NT_STATUS_NOT_FOUND;
		}
		return status;
	}
	TALLOC_FREE(op->durable_timer);
	resilient_settle_now(op);
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

/* ---- reclaim on another worker ---- */

#define DURABLE_REMOTE_TIMEOUT_MS 5000

struct durable_wait {
	struct durable_wait *prev, *next;	/* worker->durable_waits */
	struct smbd_worker *w;
	struct smb2_request *req;
	uint64_t token;
	struct ev_timer *timer;
	smbd_durable_done_fn done;
	void *priv;
};

static int durable_wait_destructor(struct durable_wait *dw)
{
	if (dw->prev != NULL) {
		dw->prev->next = dw->next;
	} else {
		struct smbd_objects_worker *ow = smbd_objects_of(dw->w);

		if (ow->durable_waits == dw) {
			ow->durable_waits = dw->next;
		}
	}
	if (dw->next != NULL) {
		dw->next->prev = dw->prev;
	}
	return 0;
}

static struct durable_wait *durable_wait_find(struct smbd_worker *w,
					      uint64_t token)
{
	struct durable_wait *dw;

	for (dw = smbd_objects_of(w)->durable_waits; dw != NULL;
	     dw = dw->next) {
		if (dw->token == token) {
			return dw;
		}
	}
	return NULL;
}

/* The wait ends: freed first, then its owner hears (it may free the
 * request). */
static void durable_wait_end(struct durable_wait *dw, struct smbd_open *op,
			     NTSTATUS status)
{
	smbd_durable_done_fn done = dw->done;
	void *priv = dw->priv;

	talloc_free(dw);
	done(priv, op, status);
}

static void durable_wait_timeout(void *priv)
{
	struct durable_wait *dw = priv;

	dw->timer = NULL; /* the loop freed it */
	durable_wait_end(dw, NULL, NT_STATUS_OBJECT_NAME_NOT_FOUND);
}

NTSTATUS smbd_durable_reclaim_remote(struct smb2_request *req,
				     const struct create_durable *d,
				     const char *path,
				     const uint8_t *lease_key,
				     smbd_durable_done_fn done, void *priv)
{
	struct smbd_worker *w = req->conn->worker;
	/* The FileId names the worker that made the open (open.c). */
	uint64_t holder = (d->fid_volatile >> SMBD_OPEN_ID_WORKER_SHIFT);
	struct smbd_durable_xfer *x;
	struct durable_wait *dw;
	struct smbd_objects_worker *ow;
	static uint64_t token_seq;

	if (holder == 0 || holder > (uint64_t)w->srv->nworkers ||
	    holder - 1 == (uint64_t)w->index ||
	    strlen(path) >= SMBD_DURABLE_XFER_PATH ||
	    req->tcon->share_name == NULL ||
	    strlen(req->tcon->share_name) >= SMBD_DURABLE_XFER_SHARE) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	dw = talloc_zero(req->mem_ctx, struct durable_wait);
	x = talloc_zero(dw, struct smbd_durable_xfer);
	if (dw == NULL || x == NULL) {
		talloc_free(dw);
		return NT_STATUS_NO_MEMORY;
	}
	dw->w = w;
	dw->req = req;
	dw->token = ((uint64_t)w->index << 48) | ++token_seq;
	dw->done = done;
	dw->priv = priv;
	dw->timer = ev_timer_add(dw, w->loop, DURABLE_REMOTE_TIMEOUT_MS,
				 durable_wait_timeout, dw);
	if (dw->timer == NULL) {
		talloc_free(dw);
		return NT_STATUS_NO_MEMORY;
	}
	x->token = dw->token;
	x->from_worker = (uint16_t)w->index;
	x->fid_persistent = d->fid_persistent;
	x->fid_volatile = d->fid_volatile;
	x->v2 = d->v2;
	memcpy(x->create_guid, d->create_guid, 16);
	x->has_lease = lease_key != NULL;
	if (lease_key != NULL) {
		memcpy(x->lease_key, lease_key, 16);
	}
	memcpy(x->client_guid, req->conn->client_guid, 16);
	x->uid = (uint32_t)req->session->uid;
	memcpy(x->path, path, strlen(path) + 1);
	memcpy(x->share_name, req->tcon->share_name,
	       strlen(req->tcon->share_name) + 1);
	durable_root_id(req->tcon, &x->root_dev, &x->root_ino);
	if (!smbd_mailbox_send(w->mbox, (int)(holder - 1),
			       SMBD_MSG_DURABLE_REQ, x, sizeof(*x), -1)) {
		talloc_free(dw);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	ow = smbd_objects_of(w);
	dw->next = ow->durable_waits;
	if (dw->next != NULL) {
		dw->next->prev = dw;
	}
	ow->durable_waits = dw;
	talloc_set_destructor(dw, durable_wait_destructor);
	talloc_free(x);
	DBG_DEBUG("%s: durable reclaim of %llx asked of worker %llu\n",
		  req->conn->remote, (unsigned long long)d->fid_volatile,
		  (unsigned long long)(holder - 1));
	return SMBD_STATUS_ASYNC;
}

static void durable_xfer_fill(struct smbd_durable_xfer *y,
			      const struct smbd_open *op)
{
	y->old_pid = smbd_locking_pid(op->worker);
	y->old_open_id = op->fid_volatile;
	y->fid_persistent = op->fid_persistent;
	y->dev = op->dev;
	y->ino = op->ino;
	y->pdev = op->pdev;
	y->pino = op->pino;
	y->modified = op->modified;
	y->access_mask = op->access_mask;
	y->share_access = op->share_access;
	y->create_options = op->create_options;
	y->create_disposition = op->create_disposition;
	y->create_action = op->create_action;
	y->is_dir = op->is_dir;
	y->opath = op->opath;
	y->delete_on_close = op->delete_on_close;
	y->caching = op->caching;
	y->lease_version = op->lease_version;
	memcpy(y->lease_key, op->lease_key, 16);
	memcpy(y->client_guid, op->client_guid, 16);
	memcpy(y->parent_lease_key, op->parent_lease_key, 16);
	y->has_parent_key = op->has_parent_key;
	y->durable_v2 = op->durable_v2;
	y->durable = op->durable;
	y->resilient = op->resilient;
	memcpy(y->create_guid, op->create_guid, 16);
	y->uid = (uint32_t)op->owner_uid;
	y->durable_timeout_ms = op->durable_timeout_ms;
	memcpy(y->lock_seq, op->lock_seq, sizeof(y->lock_seq));
	y->position = op->position;
	y->mode = op->mode;
	y->channel_seq = op->channel.seq;
	memcpy(y->path, op->path, strlen(op->path) + 1);
}

/* SMBD_MSG_DURABLE_REQ: another worker's client reclaims an open of ours. */
static void durable_msg_req(void *priv, int from, const void *body, int fd)
{
	struct smbd_worker *w = priv;
	const struct smbd_durable_xfer *x = body;
	struct smbd_open *op = smbd_open_by_id(w, x->fid_volatile);
	struct smbd_durable_xfer *y;
	struct durable_claim c;
	const char *why = "";
	NTSTATUS status;

	if (memchr(x->path, '\0', sizeof(x->path)) == NULL ||
	    memchr(x->share_name, '\0', sizeof(x->share_name)) == NULL) {
		return;
	}
	memset(&c, 0, sizeof(c));
	c.fid_persistent = x->fid_persistent;
	c.v2 = x->v2 != 0;
	memcpy(c.create_guid, x->create_guid, 16);
	c.has_lease = x->has_lease != 0;
	memcpy(c.lease_key, x->lease_key, 16);
	memcpy(c.client_guid, x->client_guid, 16);
	c.uid = (uid_t)x->uid;
	c.path = x->path;
	c.share_name = x->share_name;
	c.root_dev = x->root_dev;
	c.root_ino = x->root_ino;
	status = durable_check(&c, op, &why);
	y = talloc_zero(NULL, struct smbd_durable_xfer);
	if (y == NULL) {
		return;
	}
	y->token = x->token;
	DBG_DEBUG("worker %d: durable reclaim of %llu for worker %u: %s %s\n",
		  w->index, (unsigned long long)x->fid_volatile,
		  (unsigned)x->from_worker, nt_errstr(status), why);
	if (!NT_STATUS_IS_OK(status)) {
		y->status = (uint32_t)status;
		(void)smbd_mailbox_send(w->mbox, x->from_worker,
					SMBD_MSG_DURABLE_NACK, y, sizeof(*y),
					-1);
		talloc_free(y);
		return;
	}
	resilient_settle_now(op);
	durable_xfer_fill(y, op);
	if (smbd_mailbox_send(w->mbox, x->from_worker, SMBD_MSG_DURABLE_GIVE,
			      y, sizeof(*y), op->h.fd)) {
		/* Handed over: forget the open, but leave its entries in
		 * the locking DB for the new worker to take over. */
		smbd_status_open(op, false);
		op->share_registered = false;
		TALLOC_FREE(op->durable_timer);
		talloc_free(op);
	}
	talloc_free(y);
}

/* A hand-over nobody waits for: the entries it left go. */
static void durable_give_orphan(struct smbd_worker *w,
				const struct smbd_durable_xfer *x, int fd)
{
	struct locking_db *db = smbd_locking(w);
	struct file_key k = {.dev = x->dev, .ino = x->ino};
	struct open_owner o = {.pid = x->old_pid, .open_id = x->old_open_id};
	bool last, dn;

	if (db != NULL) {
		brl_remove_owner(db, &k, &o);
		(void)share_mode_remove(db, &k, &o, &last, &dn);
		smbd_breaks_wake(w, &k);
	}
	vfs_fd_close(fd);
}

/* The open given to this worker, in req's connection, session and tree;
 * its locking entries move over to it. */
static NTSTATUS durable_adopt(struct smb2_request *req,
			      const struct smbd_durable_xfer *x, int fd,
			      struct smbd_open **out)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	struct file_key k = {.dev = x->dev, .ino = x->ino};
	struct open_owner from = {.pid = x->old_pid,
				  .open_id = x->old_open_id};
	struct open_owner to;
	struct file_key nk;
	struct smbd_open *op;
	NTSTATUS status;

	op = smbd_open_new(req->conn, req->session, req->tcon, fd);
	if (op == NULL || db == NULL) {
		talloc_free(op);
		return NT_STATUS_NO_MEMORY;
	}
	op->fid_persistent = x->fid_persistent;
	op->path = talloc_strdup(op, x->path);
	op->dev = x->dev;
	op->ino = x->ino;
	op->pdev = x->pdev;
	op->pino = x->pino;
	op->modified = x->modified != 0;
	op->access_mask = x->access_mask;
	op->share_access = x->share_access;
	op->create_options = x->create_options;
	op->create_disposition = x->create_disposition;
	op->create_action = x->create_action;
	op->is_dir = x->is_dir;
	op->opath = x->opath;
	op->delete_on_close = x->delete_on_close;
	op->caching = x->caching;
	op->lease_version = x->lease_version;
	memcpy(op->lease_key, x->lease_key, 16);
	memcpy(op->client_guid, x->client_guid, 16);
	memcpy(op->parent_lease_key, x->parent_lease_key, 16);
	op->has_parent_key = x->has_parent_key;
	op->durable = x->durable != 0;
	op->resilient = x->resilient != 0;
	op->durable_v2 = x->durable_v2;
	memcpy(op->create_guid, x->create_guid, 16);
	op->owner_uid = (uid_t)x->uid;
	op->durable_timeout_ms = x->durable_timeout_ms;
	memcpy(op->lock_seq, x->lock_seq, sizeof(op->lock_seq));
	op->position = x->position;
	op->mode = x->mode;
	op->channel.seq = x->channel_seq;
	if (op->path == NULL) {
		talloc_free(op);
		return NT_STATUS_NO_MEMORY;
	}
	smbd_open_locking_ids(op, &nk, &to);
	status = share_mode_move_owner(db, &k, &from, &to, (uint16_t)w->index);
	if (!NT_STATUS_IS_OK(status)) {
		/* Its worker died and was cleaned up meanwhile. */
		talloc_free(op);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	(void)brl_move_owner(db, &k, &from, &to);
	op->share_registered = true;
	if (op->caching == CACHING_LEASE) {
		smbd_open_lease_link(op);
	}
	smbd_status_open(op, true);
	*out = op;
	return NT_STATUS_OK;
}

/* SMBD_MSG_DURABLE_GIVE: the open we asked for, with its descriptor. */
static void durable_msg_give(void *priv, int from, const void *body, int fd)
{
	struct smbd_worker *w = priv;
	const struct smbd_durable_xfer *x = body;
	struct durable_wait *dw = durable_wait_find(w, x->token);
	struct smb2_request *req;
	struct smbd_open *op = NULL;
	NTSTATUS status;

	if (fd == -1 || memchr(x->path, '\0', sizeof(x->path)) == NULL) {
		vfs_fd_close(fd);
		return;
	}
	if (dw == NULL) {
		durable_give_orphan(w, x, fd);
		return;
	}
	req = dw->req;
	/* The session or tree may have gone while it waited. */
	req->session = smbd_session_find(req->conn, req->session_id);
	req->tcon = req->session != NULL
			    ? smbd_tcon_find(req->session, req->tree_id)
			    : NULL;
	if (req->tcon == NULL) {
		durable_give_orphan(w, x, fd);
		durable_wait_end(dw, NULL, NT_STATUS_NETWORK_NAME_DELETED);
		return;
	}
	status = durable_adopt(req, x, fd, &op);
	DBG_DEBUG("%s: durable open %llu taken over from pid %u: %s\n",
		  req->conn->remote, (unsigned long long)x->old_open_id,
		  (unsigned)x->old_pid, nt_errstr(status));
	durable_wait_end(dw, op, status);
}

/* SMBD_MSG_DURABLE_NACK: the holder refused (x->status says why). */
static void durable_msg_nack(void *priv, int from, const void *body, int fd)
{
	struct smbd_worker *w = priv;
	const struct smbd_durable_xfer *x = body;
	struct durable_wait *dw = durable_wait_find(w, x->token);

	if (dw != NULL) {
		durable_wait_end(dw, NULL, (NTSTATUS)x->status);
	}
}

void smbd_durable_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_DURABLE_REQ, durable_msg_req,
			    sizeof(struct smbd_durable_xfer), false);
	smbd_mailbox_handle(w->mbox, SMBD_MSG_DURABLE_GIVE, durable_msg_give,
			    sizeof(struct smbd_durable_xfer), true);
	smbd_mailbox_handle(w->mbox, SMBD_MSG_DURABLE_NACK, durable_msg_nack,
			    sizeof(struct smbd_durable_xfer), false);
}
