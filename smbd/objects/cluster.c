/*
 * Messages between nodes through ctdbd (see cluster.h).
 *
 * On the wire (a CTDB message's data): le32 type, le32 the sender's
 * node, then the mailbox body as the mailbox would carry it.
 */
#include "smbd/objects/cluster.h"
#include "smbd/smbd.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/objects_worker.h"
#include "locking/locking.h"
#include "locking/ctdb/ctdb_conn.h"
#include "locking/ctdb/ctdb_proto.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <string.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* Our srvids: Samba's CIFS range, a sub-range of our own ("5D" in the
 * second byte), the worker index in the low 16 bits. */
#define SMBD_SRVID_BASE (CTDB_SRVID_SAMBA_RANGE | 0x005D000000000000ULL)
#define SMBD_SRVID_ALL (SMBD_SRVID_BASE | 0x0000000100000000ULL)
#define CLUSTER_MSG_HDR 8
/* Not a mailbox message: handled here (body: le32 owner pid). */
#define CLUSTER_MSG_OWNER_GONE 0x100

static struct ctdb_conn *worker_ctdb(struct smbd_worker *w)
{
	return w->locking != NULL ? locking_db_ctdb(w->locking) : NULL;
}

bool smbd_cluster_pnn(struct smbd_worker *w, uint32_t *pnn)
{
	struct ctdb_conn *c = worker_ctdb(w);

	if (c == NULL) {
		return false;
	}
	*pnn = ctdb_conn_pnn(c);
	return true;
}

static void cluster_message(uint64_t srvid, const uint8_t *data, size_t len,
			    void *priv)
{
	struct smbd_worker *w = priv;
	uint32_t type;

	if (len < CLUSTER_MSG_HDR || len - CLUSTER_MSG_HDR > SMBD_MSG_BODY_MAX) {
		DBG_NOTICE("a cluster message of %zu bytes: dropped\n", len);
		return;
	}
	type = le32(data);
	if (type == CLUSTER_MSG_OWNER_GONE && len == CLUSTER_MSG_HDR + 4) {
		locking_cleanup_owner(w->locking, le32(data + CLUSTER_MSG_HDR));
		return;
	}
	if (type == 0 || type >= SMBD_MSG_MAX || type == SMBD_MSG_CONN ||
	    type == SMBD_MSG_DURABLE_GIVE) {
		/* Messages that carry a file descriptor stay on a node. */
		DBG_NOTICE("cluster message of type %u from node %u: "
			   "dropped\n", (unsigned)type, (unsigned)le32(data + 4));
		return;
	}
	/* To ourselves: the mailbox runs the handler at once, with its
	 * checks of the type's body length. */
	(void)smbd_mailbox_send(w->mbox, w->index, (enum smbd_msg_type)type,
				data + CLUSTER_MSG_HDR, len - CLUSTER_MSG_HDR,
				-1);
}

static void cluster_readable(void *priv)
{
	struct smbd_worker *w = priv;
	struct ctdb_conn *c = worker_ctdb(w);

	if (c == NULL) {
		return;
	}
	if (!NT_STATUS_IS_OK(ctdb_conn_dispatch(c)) && ctdb_conn_fd(c) < 0) {
		/* Without ctdbd this node can lock nothing, and its
		 * clients would only get errors: as Samba's smbd does, the
		 * worker ends; the master starts a new one (at most one a
		 * second), which serves again once ctdbd is back. */
		DBG_ERR("worker %d lost its connection to ctdbd at %s: "
			"exiting\n", w->index, ctdb_conn_path(c));
		_exit(1);
	}
}

static void cluster_deferred(void *priv)
{
	struct smbd_worker *w = priv;

	smbd_objects_of(w)->cluster_deferred = NULL;
	cluster_readable(w);
}

/* A wait for a reply left messages queued: hand them out soon. */
static void cluster_queued(void *priv)
{
	struct smbd_worker *w = priv;
	struct smbd_objects_worker *ow = smbd_objects_of(w);

	if (ow->cluster_deferred == NULL) {
		ow->cluster_deferred = ev_after_poll(w, w->loop,
						     cluster_deferred, w);
	}
}

bool smbd_cluster_worker_init(struct smbd_worker *w)
{
	struct ctdb_conn *c = worker_ctdb(w);

	if (c == NULL) {
		return true;
	}
	/* cluster_queued may run in the round trips below. */
	if (!smbd_objects_worker_start(w)) {
		return false;
	}
	ctdb_conn_set_handlers(c, cluster_message, cluster_queued, w);
	if (!NT_STATUS_IS_OK(ctdb_conn_register_srvid(
		    c, SMBD_SRVID_BASE | (uint64_t)w->index)) ||
	    !NT_STATUS_IS_OK(ctdb_conn_register_srvid(c, SMBD_SRVID_ALL))) {
		DBG_ERR("worker %d: cannot register with ctdbd\n", w->index);
		return false;
	}
	if (ev_watch_fd(w->loop, w, ctdb_conn_fd(c), cluster_readable, w) !=
	    0) {
		return false;
	}
	DBG_INFO("worker %d: node %u, cluster messages on\n", w->index,
		 (unsigned)ctdb_conn_pnn(c));
	return true;
}

static bool cluster_put(struct smbd_worker *w, uint32_t pnn, uint64_t srvid,
			enum smbd_msg_type type, const void *body, size_t len)
{
	struct ctdb_conn *c = worker_ctdb(w);
	uint8_t buf[CLUSTER_MSG_HDR + SMBD_MSG_BODY_MAX];

	if (c == NULL || len > SMBD_MSG_BODY_MAX) {
		return false;
	}
	put_le32(buf, (uint32_t)type);
	put_le32(buf + 4, ctdb_conn_pnn(c));
	memcpy(buf + CLUSTER_MSG_HDR, body, len);
	return NT_STATUS_IS_OK(ctdb_conn_send_message(
		c, pnn, srvid, buf, CLUSTER_MSG_HDR + len));
}

bool smbd_cluster_send(struct smbd_worker *w, uint32_t pnn, int worker,
		       enum smbd_msg_type type, const void *body, size_t len)
{
	return cluster_put(w, pnn, SMBD_SRVID_BASE | (uint64_t)(uint16_t)worker,
			   type, body, len);
}

void smbd_cluster_broadcast(struct smbd_worker *w, enum smbd_msg_type type,
			    const void *body, size_t len)
{
	/* Every connected node, ours too: our workers get it twice (once by
	 * the mailbox), which a wake-up allows. */
	(void)cluster_put(w, CTDB_BROADCAST_CONNECTED, SMBD_SRVID_ALL, type,
			  body, len);
}

void smbd_cluster_owner_gone(struct locking_db *db, uint32_t pid)
{
	struct ctdb_conn *c = locking_db_ctdb(db);
	uint8_t buf[CLUSTER_MSG_HDR + 4];

	if (c == NULL) {
		return;
	}
	put_le32(buf, CLUSTER_MSG_OWNER_GONE);
	put_le32(buf + 4, ctdb_conn_pnn(c));
	put_le32(buf + CLUSTER_MSG_HDR, locking_db_owner_pid(db, pid));
	/* Worker 0 of every node, ours too (its master already cleaned
	 * what it holds: a second pass finds nothing). */
	if (!NT_STATUS_IS_OK(ctdb_conn_send_message(
		    c, CTDB_BROADCAST_CONNECTED, SMBD_SRVID_BASE, buf,
		    sizeof(buf)))) {
		DBG_ERR("cannot tell the other nodes that process %u "
			"died\n", (unsigned)pid);
	}
}
