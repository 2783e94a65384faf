/*
 * nbench: replays an NBENCH load file against an SMB2/SMB3 server with N
 * forked clients (see README.md in this directory).  This header is the
 * contract between the parent (nbench.c: options, fork, progress, report)
 * and each client process (nbench_client.c: one libsmbclient context
 * replaying the load in its own directory).
 *
 * They share one anonymous MAP_SHARED mapping: a phase word the parent
 * advances (connect -> warm-up -> measure -> stop) and one record per
 * client with its counters and per-operation latency histograms.  A client
 * counts an operation in the measured figures only if the phase was
 * "measure" when the operation completed, so the figures cover exactly the
 * parent's measured window.
 */
#ifndef TESTSUITE_BENCH_NBENCH_H
#define TESTSUITE_BENCH_NBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libsmbclient.h>

#include "testsuite/bench/nbench_load.h"
#include "testsuite/bench/nbench_stats.h"

enum nb_phase {
	NB_PHASE_CONNECT = 0,
	NB_PHASE_WARMUP,
	NB_PHASE_MEASURE,
	NB_PHASE_STOP
};

enum nb_client_state {
	NB_CLIENT_STARTING = 0,
	NB_CLIENT_READY,
	NB_CLIENT_DONE,
	NB_CLIENT_FAILED
};

struct nb_client_rec {
	int state;          /* enum nb_client_state */
	uint64_t ops_all;   /* operations replayed, warm-up included */
	uint64_t bytes_all; /* bytes read + written, warm-up included */
	uint64_t ops;       /* measured window only, from here on */
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t fails;   /* result differs from the load file's */
	uint64_t skipped; /* operations with no libsmbclient call */
	uint64_t loops;   /* completed passes over the load file */
	uint64_t op_fail[NB_OP_COUNT];
	uint64_t op_skipped[NB_OP_COUNT];
	struct nb_hist hist[NB_OP_COUNT];
	char msg[256]; /* why a client failed */
};

struct nb_shared {
	int phase; /* enum nb_phase, written by the parent only */
	int nclients;
	struct nb_client_rec client[];
};

struct nb_options {
	const char *server;
	unsigned port;
	const char *share;
	const char *user;
	const char *password;
	const char *domain;
	const char *loadfile;
	const char *max_protocol; /* "SMB3" unless given */
	const char *min_protocol; /* "SMB2_02": never SMB1 */
	int nclients;
	double warmup_s;
	double time_s;
	int op_timeout_ms;
	bool signing;
	bool signing_set;
	bool encrypt;
	bool cleanup;
	bool verbose;
	int debug_level;
	/* --idle-connections N --hold S mode */
	int idle_connections;
	double hold_s;
	/* libsmbclient configuration file written by the parent */
	const char *client_conf;
};

/* A libsmbclient context configured from OPTS, connected to the share. */
SMBCCTX *
nb_smb_connect(const struct nb_options *opts, char *err, size_t errlen);
void nb_smb_free(SMBCCTX *ctx);

/*
 * Body of client ID (1-based): connect, report READY, replay LOAD until
 * the phase reaches STOP.  Returns the exit code for the process.
 */
int nb_client_run(const struct nb_options *opts,
                  const struct nb_load *load,
                  struct nb_shared *shm,
                  int id);

static inline int nb_phase_get(const struct nb_shared *shm)
{
	return __atomic_load_n(&shm->phase, __ATOMIC_ACQUIRE);
}

static inline void nb_count(uint64_t *p, uint64_t v)
{
	/* One writer per counter: a relaxed store keeps parent reads whole. */
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

#endif
