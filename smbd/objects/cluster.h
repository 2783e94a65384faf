/*
 * Messages between workers of different nodes (`clustering = yes`): the
 * same typed messages as the mailbox (smbd/msg/mailbox.h), carried by
 * ctdbd to the worker that must act (an oplock or lease break for one of
 * its opens) or to every worker of every node (a break ended: look
 * again).  On arrival a message goes through the receiving worker's own
 * mailbox handlers, as if a local worker had sent it, so each owner
 * (oplock.c, ...) keeps one handler per message type.
 *
 * Each worker's own ctdbd connection (the locking database's) registers
 * two srvids in the CIFS range: one for its index, one all workers share.
 * Messages carry no file descriptors.
 */
#ifndef SMBD_OBJECTS_CLUSTER_H
#define SMBD_OBJECTS_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smbd/msg/mailbox.h"

struct smbd_worker;

/* At the worker's start, after its loop and locking database: registers
 * the srvids and watches the socket.  True when not clustered. */
bool smbd_cluster_worker_init(struct smbd_worker *w);
/* This node's number, or false when not clustered. */
bool smbd_cluster_pnn(struct smbd_worker *w, uint32_t *pnn);
/* To worker `worker` of node pnn. */
bool smbd_cluster_send(struct smbd_worker *w, uint32_t pnn, int worker,
		       enum smbd_msg_type type, const void *body, size_t len);
/* To every worker of every other node (this node's go by the mailbox). */
void smbd_cluster_broadcast(struct smbd_worker *w, enum smbd_msg_type type,
			    const void *body, size_t len);

/*
 * The master, after a worker of this node died and its entries in the
 * records held here were dropped (locking_cleanup_pid()): worker 0 of
 * every node drops its entries from the records held there, since the
 * records the dead worker touched may have moved.  Nothing when not
 * clustered.
 */
struct locking_db;
void smbd_cluster_owner_gone(struct locking_db *db, uint32_t pid);

#endif
