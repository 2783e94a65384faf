/*
 * A connection's sessions and a session's tree connects, by id: the
 * lookups every request makes (smb2_dispatch.c, per 3.3.5.2.9 and
 * 3.3.5.2.11) and the list a connection keeps of its sessions.
 *
 * They live here, below the SMB2 commands, because the pipeline needs
 * them before any handler runs; SESSION_SETUP (smbd/smb2/smb2_sesssetup.c)
 * and TREE_CONNECT (smbd/smb2/smb2_tcon.c) create and end the objects
 * and call down into this file to link and unlink them.  The identity
 * a tree's file-system work runs as is here too: jobs of the pipeline
 * (smb2_job.c) and opens (smbd/objects/open.c) both take it.
 */
#include "smbd/conn/session.h"
#include "lib/fd_share.h"
#include "smbd/conn/conn.h"
#include "lib/tpool.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "locking/locking.h"
#include "conf/loadparm.h"
#include "smbd/smbd.h"

#include <inttypes.h>
#include <stdio.h>

#include <errno.h>
#include <string.h>
#include <talloc.h>

static struct smbd_session **session_bucket(struct smbd_conn *conn,
					    uint64_t id)
{
	return &conn->session_hash[id % SMBD_SESSION_BUCKETS];
}

struct smbd_session *smbd_session_find(struct smbd_conn *conn, uint64_t id)
{
	struct smbd_session *s;
	struct smbd_channel *ch;

	for (s = *session_bucket(conn, id); s != NULL; s = s->hnext) {
		if (s->id == id) {
			return s;
		}
	}
	/* A channel takes requests once bound; while binding only
	 * SESSION_SETUP knows it (smbd_channel_find). */
	for (ch = conn->channels; ch != NULL; ch = ch->cnext) {
		if (ch->bound && ch->session->id == id) {
			return ch->session;
		}
	}
	return NULL;
}

static struct smbd_session **worker_bucket(struct smbd_worker *w,
					   uint64_t id)
{
	return &w->session_hash[id % SMBD_WORKER_SESSION_BUCKETS];
}

struct smbd_session *smbd_session_find_worker(struct smbd_worker *w,
					      uint64_t id)
{
	struct smbd_session *s;

	for (s = *worker_bucket(w, id); s != NULL; s = s->whnext) {
		if (s->id == id) {
			return s;
		}
	}
	return NULL;
}

struct smbd_channel *smbd_channel_find(struct smbd_session *s,
				       const struct smbd_conn *conn)
{
	struct smbd_channel *ch;

	for (ch = s->channels; ch != NULL; ch = ch->next) {
		if (ch->conn == conn) {
			return ch;
		}
	}
	return NULL;
}

void smbd_session_channel_status(const struct smbd_session *s,
				 const struct smbd_conn *conn, uint64_t since,
				 bool up)
{
	struct locking_db *db = conn->worker->locking;
	char text[256];

	if (db == NULL || conn->sink != NULL) {
		return;
	}
	if (!up) {
		status_db_del(db, STATUS_CHANNEL, (uint32_t)proc_pid(), s->id,
			      conn->id);
		return;
	}
	snprintf(text, sizeof(text),
		 "raddr=%s\nrport=%u\nladdr=%s\nlport=%u\nworker=%d\n"
		 "since=%" PRIu64 "\n",
		 conn->remote_addr, (unsigned)conn->remote_port,
		 conn->local_addr, (unsigned)conn->local_port,
		 conn->worker->index, since);
	status_db_put(db, STATUS_CHANNEL, (uint32_t)proc_pid(), s->id,
		      conn->id, text);
}

static int channel_destructor(struct smbd_channel *ch)
{
	struct smbd_session *s = ch->session;
	struct smbd_channel **pp;

	if (ch->prev != NULL) {
		ch->prev->next = ch->next;
	} else {
		s->channels = ch->next;
	}
	if (ch->next != NULL) {
		ch->next->prev = ch->prev;
	}
	s->nchannels--;
	if (ch->bound) {
		smbd_session_channel_status(s, ch->conn, 0, false);
	}
	for (pp = &ch->conn->channels; *pp != NULL; pp = &(*pp)->cnext) {
		if (*pp == ch) {
			*pp = ch->cnext;
			break;
		}
	}
	explicit_bzero(ch->signing_key, sizeof(ch->signing_key));
	return 0;
}

struct smbd_channel *smbd_channel_new(struct smbd_session *s,
				      struct smbd_conn *conn)
{
	struct smbd_channel *ch = talloc_zero(conn, struct smbd_channel);

	if (ch == NULL) {
		return NULL;
	}
	ch->session = s;
	ch->conn = conn;
	memcpy(ch->preauth_hash, conn->preauth_hash, sizeof(ch->preauth_hash));
	ch->next = s->channels;
	if (ch->next != NULL) {
		ch->next->prev = ch;
	}
	s->channels = ch;
	s->nchannels++;
	ch->cnext = conn->channels;
	conn->channels = ch;
	talloc_set_destructor(ch, channel_destructor);
	return ch;
}

void smbd_session_sign_key(const struct smbd_session *s,
			   const struct smbd_conn *conn, uint8_t key[16],
			   enum smb2_sign_algo *algo)
{
	const struct smbd_channel *ch;

	if (conn != s->conn) {
		for (ch = s->channels; ch != NULL; ch = ch->next) {
			if (ch->conn == conn && ch->bound) {
				memcpy(key, ch->signing_key, 16);
				*algo = ch->sign_algo;
				return;
			}
		}
		/* binding: the session's own (3.3.5.2.4) */
		memcpy(key, s->keys.signing, 16);
		*algo = s->sign_algo;
		return;
	}
	memcpy(key, s->conn_key, 16);
	*algo = s->conn_algo;
}

/* s moves to the connection of its bound channel ch, which stops being a
 * channel: it is the session's connection now. */
static void session_move(struct smbd_session *s, struct smbd_channel *ch)
{
	struct smbd_conn *from = s->conn, *to = ch->conn;
	struct smbd_worker *w = from->worker;

	memcpy(s->conn_key, ch->signing_key, 16);
	s->conn_algo = ch->sign_algo;
	s->since = ch->since;
	ch->bound = false;	/* its record stays: the session's now */
	talloc_free(ch);
	smbd_session_channel_status(s, from, 0, false);
	smbd_session_unlink(s);
	s->conn = to;
	smbd_session_link(to, s);
	(void)talloc_steal(to, s);
	DBG_NOTICE("session %llx: %s dropped, carries on over %s\n",
		   (unsigned long long)s->id, from->remote, to->remote);
	if (w->hooks.session_moved != NULL) {
		w->hooks.session_moved(s, from);
	}
}

void smbd_sessions_conn_lost(struct smbd_conn *conn)
{
	struct smbd_session *s, *next;

	for (s = conn->sessions; s != NULL; s = next) {
		struct smbd_channel *ch;

		next = s->next;
		for (ch = s->channels; ch != NULL; ch = ch->next) {
			if (ch->bound && !ch->conn->dead) {
				session_move(s, ch);
				break;
			}
		}
	}
}

void smbd_session_link(struct smbd_conn *conn, struct smbd_session *s)
{
	struct smbd_session **b = session_bucket(conn, s->id);

	s->prev = NULL;
	s->next = conn->sessions;
	if (s->next != NULL) {
		s->next->prev = s;
	}
	conn->sessions = s;
	s->hnext = *b;
	*b = s;
	b = worker_bucket(conn->worker, s->id);
	s->whnext = *b;
	*b = s;
	conn->nsessions++;
}

void smbd_session_unlink(struct smbd_session *s)
{
	struct smbd_conn *conn = s->conn;
	struct smbd_session **pp;

	if (s->prev != NULL) {
		s->prev->next = s->next;
	} else {
		conn->sessions = s->next;
	}
	if (s->next != NULL) {
		s->next->prev = s->prev;
	}
	for (pp = session_bucket(conn, s->id); *pp != NULL;
	     pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			break;
		}
	}
	for (pp = worker_bucket(conn->worker, s->id); *pp != NULL;
	     pp = &(*pp)->whnext) {
		if (*pp == s) {
			*pp = s->whnext;
			break;
		}
	}
	conn->nsessions--;
}

struct smbd_tcon *smbd_tcon_find(struct smbd_session *s, uint32_t id)
{
	struct smbd_tcon *t;

	for (t = s->tcons; t != NULL; t = t->next) {
		if (t->id == id) {
			return t;
		}
	}
	return NULL;
}

int smbd_tcon_root_borrow(struct smbd_tcon *t, TALLOC_CTX *holder)
{
	return fd_share_borrow(&t->root_share, t->share.root_fd, holder);
}

void smbd_tcon_root_release(struct smbd_tcon *t)
{
	fd_share_release(&t->root_share, t->share.root_fd);
	t->share.root_fd = -1;
}

/* The tree's hold on its lane, a talloc child of the tree: given back
 * with the tree's children, which its destructor frees first (jobs
 * still queued or running keep the lane themselves); an open freed
 * after it sends its delete-on-close to the default lane. */
struct tcon_lane_ref {
	struct smbd_tcon *t;
	struct tpool_lane *lane;
};

static int tcon_lane_ref_destructor(struct tcon_lane_ref *r)
{
	r->t->lane = NULL;
	tpool_lane_put(r->lane);
	return 0;
}

struct tpool_lane *smbd_tcon_lane(struct smbd_worker *w, struct smbd_tcon *t)
{
	struct tcon_lane_ref *r;
	char *key;
	int cap;

	if (t->lane != NULL || w->tpool == NULL || t->section == NULL) {
		return t->lane;
	}
	r = talloc_zero(t, struct tcon_lane_ref);
	key = talloc_asprintf(r, "[%s]", t->section);
	if (r == NULL || key == NULL) {
		talloc_free(r);
		return NULL;
	}
	cap = lp_int(w->srv->lp, t->snum, LP_SMBD_POOL_THREADS_PER_SHARE);
	r->lane = tpool_lane_get(w->tpool, key,
				 cap < 1 ? 1 : (unsigned)cap);
	talloc_free(key);
	if (r->lane == NULL) {
		talloc_free(r);
		return NULL;
	}
	r->t = t;
	talloc_set_destructor(r, tcon_lane_ref_destructor);
	t->lane = r->lane;
	return t->lane;
}

static int personality_register(void *loop)
{
	return ev_personality_register(loop);
}

int smbd_tcon_personality(struct smbd_tcon *t, struct ev_loop *loop)
{
	struct tpool_cred c;
	TALLOC_CTX *tmp;
	int id;

	if (t->personality != 0) {
		return t->personality;
	}
	t->personality = -1;
	tmp = talloc_new(NULL);
	if (tmp == NULL || !smbd_tree_cred(tmp, t->session, t, &c)) {
		talloc_free(tmp);
		return -1;
	}
	/* The ring takes the credentials of the thread that registers:
	 * the loop thread becomes the user for the call. */
	id = tpool_run_as(&c, personality_register, loop);
	talloc_free(tmp);
	if (id <= 0) {
		DBG_INFO("no ring personality for uid %u: %s; WRITEs go "
			 "through the pool\n", (unsigned)c.uid,
			 strerror(id < 0 ? -id : EINVAL));
		return -1;
	}
	t->personality = id;
	t->personality_loop = loop;
	return id;
}

void smbd_tcon_personality_release(struct smbd_tcon *t)
{
	if (t->personality > 0 && t->personality_loop != NULL) {
		ev_personality_unregister(t->personality_loop,
					  t->personality);
	}
	t->personality = 0;
	t->personality_loop = NULL;
}

bool smbd_tree_cred(TALLOC_CTX *mem_ctx, const struct smbd_session *s,
		    const struct smbd_tcon *t, struct tpool_cred *out)
{
	const gid_t *src = s->groups;
	gid_t *groups = NULL;

	memset(out, 0, sizeof(*out));
	out->uid = s->uid;
	out->gid = s->gid;
	out->ngroups = s->ngroups;
	if (t != NULL && t->forced) {
		out->uid = t->force_uid;
		out->gid = t->force_gid;
		out->ngroups = t->force_ngroups;
		src = t->force_groups;
	}
	if (out->ngroups > 0) {
		groups = talloc_memdup(mem_ctx, src,
				       sizeof(gid_t) * out->ngroups);
		if (groups == NULL) {
			return false;
		}
	}
	out->groups = groups;
	return true;
}
