/*
 * What the objects room keeps per worker (issue 37 item 2): the opens of
 * all its connections by volatile FileId (breaks and cross-connection
 * lookups name them), the opens holding a lease by lease key, the opens
 * waiting for a break, the directory watches, the disconnected durable
 * opens and the reclaims asked of other workers, the deferred cluster
 * reads.  Registered in the worker's SMBD_WCTX_OBJECTS slot at its start
 * (smbd_objects_worker_start: by the cluster's start where there is one,
 * else by smb2_server_install) and reached with smbd_objects_of(): one
 * pointer load, as the FileId lookup is on every request's path.
 * smbd/conn/ sees none of it.
 */
#ifndef SMBD_OBJECTS_OBJECTS_WORKER_H
#define SMBD_OBJECTS_OBJECTS_WORKER_H

#include <stdbool.h>

#include "smbd/conn/worker.h"

struct smbd_open;
struct smbd_waiter;
struct dirwatch;
struct durable_wait;
struct ev_deferred;

struct smbd_objects_worker {
	/* Opens by FileId.Volatile across connections: breaks name them. */
#define SMBD_WORKER_OPEN_BUCKETS 1024
	struct smbd_open *open_hash[SMBD_WORKER_OPEN_BUCKETS];
	/* Opens holding a lease, by lease key: lease creates and acks. */
#define SMBD_WORKER_LEASE_BUCKETS 256
	struct smbd_open *lease_hash[SMBD_WORKER_LEASE_BUCKETS];
	struct smbd_waiter *waiters;	/* opens waiting for a break */
	struct dirwatch *dirwatch;	/* fanotify (dirwatch.c) */
	/* Holds the disconnected durable opens (durable.c): no socket, no
	 * session; made on first use. */
	struct smbd_conn *durable_conn;
	struct durable_wait *durable_waits;	/* reclaims asked of others */
	struct ev_deferred *cluster_deferred;	/* cluster.c */
	uint64_t open_seq;		/* FileId.Volatile (open.c) */
	uint64_t wake_gen;		/* waiters' wake rounds (oplock.c) */
};

/* w's objects state; set from the worker's start on. */
static inline struct smbd_objects_worker *smbd_objects_of(
	const struct smbd_worker *w)
{
	return (struct smbd_objects_worker *)w->ctx[SMBD_WCTX_OBJECTS];
}

/* At the worker's start, before anything may reach the state (the
 * cluster's first round trip may queue messages): make and register w's
 * objects state, once; later calls find it (false: out of memory). */
bool smbd_objects_worker_start(struct smbd_worker *w);

#endif
