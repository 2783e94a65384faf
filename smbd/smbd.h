/*
 * Process-wide server state (with smb2.h, the wire constants, the base
 * of smbd/: every room of the daemon may include these two, and they
 * include nothing of the daemon's).  The process model's entry points are
 * in smbd/process/process.h.
 *
 * struct smbd_server is built by the master before forking and inherited
 * by every worker: the configuration, the persistent server GUID and the
 * listening sockets.  It holds no connection state (that lives per
 * worker, per connection), so there is no global request state to regret.
 */
#ifndef SMBD_SMBD_H
#define SMBD_SMBD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>

struct lp_ctx;
struct ev_loop;
struct heartbeat_slot;
struct locking_db;
struct metrics_shm;

struct smbd_listen_group {
	char addr[64];	/* numeric address, for logs */
	uint16_t port;
	int *fds;	/* one SO_REUSEPORT socket per worker, in CPU order */
};

struct smbd_server {
	struct lp_ctx *lp;
	const char *config_file;
	bool foreground;
	bool no_process_group;
	uint8_t server_guid[16];
	uint64_t start_nttime;
	int nworkers;
	int *worker_cpus;	/* worker i runs pinned on worker_cpus[i] */
	struct smbd_listen_group *groups;
	size_t ngroups;
	char *pidfile;
	struct locking_db *locking;	/* the master's handle (cleanup) */
	int *mbox;	/* worker i reads mbox[2i], others write mbox[2i+1] */
	/* `smbd spread connections`: a counter shared by the workers
	 * (MAP_SHARED), NULL when off. */
	uint64_t *spread_ctr;
	void *conn_limits;	/* shared connection counts (conn_limits.c) */
	/* The authentication rate limiter's per-address cells, shared by
	 * the workers (auth_limit.c). */
	struct auth_limit_cell *auth_limit;
	/* Set (MAP_SHARED, never cleared) before the first directory lease
	 * is granted by any worker (oplock.h smbd_dirlease_arm). */
	uint32_t *dirlease_armed;
	int control_fd;		/* smbcontrol's socket (control.c), or -1 */
	/* A pipe nobody writes to: the master keeps its write end, each
	 * child closes it and watches the read end, which reads EOF once
	 * the master is gone, however the child's credentials changed
	 * (the parent-death signal does not survive that).  -1 before
	 * the master runs. */
	int alive_rd, alive_wr;
	/* One per worker (MAP_SHARED, lib/heartbeat.h): its loop stamps
	 * it, the master's watchdog reads it. */
	struct heartbeat_slot *heartbeats;
	/* Processes of a previous run killed at start (orphans.c), and
	 * whether that run ended without its master's clean stop. */
	uint32_t *orphans;
	size_t norphans;
	bool unclean_stop;
	/* The live metrics table (lib/metrics.h), NULL when `smbd metrics =
	 * no`; workers inherit the shared mapping. */
	struct metrics_shm *metrics;
};

#endif
