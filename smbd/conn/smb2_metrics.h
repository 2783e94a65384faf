/*
 * Per-request metrics of the SMB2 pipeline (issue 20): the recording side
 * of lib/metrics.h's shared table.  The master makes the table before it
 * forks (smbd_metrics_create), each worker finds its block at start, and
 * the dispatcher reports each finished reply (smbd_metrics_reply).
 *
 * Cost on the request path: one CLOCK_MONOTONIC read (vDSO) per received
 * frame and one per reply, and a dozen relaxed stores into the worker's
 * own block.  `smbd metrics = no` makes both a test of a NULL pointer
 * (no table, no clock read).
 */
#ifndef SMBD_CONN_SMB2_METRICS_H
#define SMBD_CONN_SMB2_METRICS_H

#include "lib/ntstatus.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct smbd_server;
struct smbd_worker;
struct smbd_conn;
struct smb2_request;
struct metrics_shm;

/* Master, before the workers are forked: make the table in `lock
 * directory` unless `smbd metrics = no`; false only on a hard error. */
bool smbd_metrics_create(struct smbd_server *srv);
/* The master's table (NULL when off), for its readers. */
struct metrics_shm *smbd_metrics_table(const struct smbd_server *srv);
/* Worker start: its block; a timer keeps its gauges a second fresh. */
void smbd_metrics_worker_init(struct smbd_worker *w);

/* Now in ns for a request's start, 0 when metrics are off. */
static inline uint64_t smbd_metrics_clock(const void *worker_metrics)
{
	struct timespec ts;

	if (worker_metrics == NULL) {
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A reply is finished: out_bytes of it (data sent after it included);
 * t0 from smbd_metrics_clock when its frame arrived. */
void smbd_metrics_reply(const struct smb2_request *req, NTSTATUS status,
			size_t out_bytes, uint64_t t0);
/* The worker accepted a connection, received on its own CPU or not. */
void smbd_metrics_accepted(struct smbd_worker *w, bool local);
/* A connection of this worker moved to another one. */
void smbd_metrics_handed_over(struct smbd_worker *w);

#endif
