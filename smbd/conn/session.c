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

	for (s = *session_bucket(conn, id); s != NULL; s = s->hnext) {
		if (s->id == id) {
			return s;
		}
	}
	return NULL;
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
