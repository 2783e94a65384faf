/*
 * The live metrics table (issue 20): one shared-memory file that the
 * server's workers write and any process may read.
 *
 * Design.  The master creates <lock directory>/smbd_metrics.dat before it
 * forks the workers: a header, then one page-aligned block per worker.
 * It maps the file MAP_SHARED, the workers inherit the mapping, and each
 * writes only its own block, with plain relaxed-atomic stores (lib/
 * histo.h METRIC_ADD): no lock, no cache line shared between workers, no
 * system call on the request path.  Readers (smbstatus --profile, the
 * Prometheus endpoint) map the file read-only and add the blocks up; a
 * worker that is restarted goes on adding to the same block, so the
 * counters never go back while the server runs (a new start of the
 * server makes a new file: Prometheus sees a counter reset).  A file and
 * not an anonymous mapping because smbstatus is not our child.
 *
 * The table knows nothing of SMB: the creator names up to METRICS_MAX_OPS
 * operations (SMB2 commands) in the header, and results are counted in
 * the four classes of an NTSTATUS's top two bits (success,
 * informational, warning, error; MS-ERREF 2.3) and, for a few statuses
 * the creator names (metrics_name_statuses), one by one.
 *
 * Shares are a fixed table of METRICS_SHARES named slots shared by all
 * workers, claimed by name with a compare-and-swap the first time a
 * worker sees a share; when all are taken the rest count in the "other"
 * slot (METRICS_SHARE_OTHER), so a client making up names (a [homes]
 * share per user) cannot grow the table.
 */
#ifndef LIB_METRICS_H
#define LIB_METRICS_H

#include "lib/histo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#define METRICS_FILE "smbd_metrics.dat"
#define METRICS_MAGIC 0x3152544d424d53ull	/* "SMBMTR1" */
#define METRICS_VERSION 1
#define METRICS_MAX_OPS 20	/* SMB2 has 19 commands */
#define METRICS_NAME_LEN 24
#define METRICS_SHARES 255
#define METRICS_SHARE_OTHER METRICS_SHARES
#define METRICS_SHARE_NAME_LEN 80
#define METRICS_MAX_WORKERS 1024
#define METRICS_MAX_NAMED 16	/* statuses counted one by one */
#define METRICS_STATUS_NAME_LEN 48

enum metrics_class {
	METRICS_SUCCESS,
	METRICS_INFO,
	METRICS_WARNING,
	METRICS_ERROR,
	METRICS_NCLASSES
};

/* One operation's counts (overall, or in one share). */
struct metrics_op {
	uint64_t count;
	uint64_t bytes_in;	/* request bytes (a WRITE's data included) */
	uint64_t bytes_out;	/* reply bytes (a READ's data included) */
	uint64_t status[METRICS_NCLASSES];
};

/* Gauges and counters of a worker as a whole. */
struct metrics_worker_info {
	uint64_t pid;		/* 0: never started */
	uint64_t cpu;
	uint64_t connections;	/* now */
	uint64_t sessions;	/* now, refreshed about once a second */
	uint64_t opens;		/* now, ditto */
	uint64_t accepted;	/* connections taken from its socket */
	uint64_t accepted_local;	/* ... received on its own CPU */
	uint64_t handed_over;	/* connections moved to another worker */
	uint64_t starts;	/* times this worker slot was started */
};

struct metrics_worker {
	struct metrics_worker_info info;
	struct metrics_op op[METRICS_MAX_OPS];
	struct histo latency[METRICS_MAX_OPS];
	uint64_t named[METRICS_MAX_OPS][METRICS_MAX_NAMED];
	struct metrics_op share[METRICS_SHARES + 1][METRICS_MAX_OPS];
};

enum metrics_slot_state { SLOT_FREE, SLOT_CLAIMING, SLOT_NAMED };

struct metrics_share_slot {
	uint32_t state;		/* enum metrics_slot_state */
	char name[METRICS_SHARE_NAME_LEN];
};

struct metrics_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t nworkers;
	uint32_t nops;
	uint32_t worker_size;	/* sizeof(struct metrics_worker) */
	uint64_t workers_off;	/* file offset of worker 0's block */
	uint64_t worker_stride;
	int64_t started;	/* unix time of the master's start */
	char op_name[METRICS_MAX_OPS][METRICS_NAME_LEN];
	uint32_t nnamed;	/* stored last, with release */
	uint32_t named_code[METRICS_MAX_NAMED];
	char named_name[METRICS_MAX_NAMED][METRICS_STATUS_NAME_LEN];
	struct metrics_share_slot shares[METRICS_SHARES];
};

/* A mapping of the table (the creator's or a reader's). */
struct metrics_shm {
	struct metrics_hdr *hdr;
	size_t size;
	bool writable;
};

/*
 * Create (replacing any old one) dir/METRICS_FILE for nworkers workers
 * and nops operations named names[]; NULL on failure (logged).  The
 * mapping is freed with the returned object.
 */
struct metrics_shm *metrics_create(TALLOC_CTX *mem_ctx, const char *dir,
				   unsigned nworkers, const char *const *names,
				   unsigned nops);
/* The creator, before its workers start: the n (at most
 * METRICS_MAX_NAMED) statuses counted one by one, worker->named[op][i]
 * counting codes[i]. */
void metrics_name_statuses(struct metrics_shm *m, const uint32_t *codes,
			   const char *const *names, unsigned n);
/* How many statuses are named (readers). */
unsigned metrics_nnamed(const struct metrics_shm *m);

/* Map an existing table read-only; NULL with errno (ENOENT: no server
 * has made one, EINVAL: not a table of this version). */
struct metrics_shm *metrics_attach(TALLOC_CTX *mem_ctx, const char *dir);

static inline struct metrics_worker *metrics_worker(struct metrics_shm *m,
						    unsigned i)
{
	return (struct metrics_worker *)((char *)m->hdr +
					 m->hdr->workers_off +
					 i * m->hdr->worker_stride);
}

static inline enum metrics_class metrics_class_of(uint32_t ntstatus)
{
	return (enum metrics_class)(ntstatus >> 30);
}

const char *metrics_class_name(enum metrics_class c);

/* The slot of share name (case-insensitive), claiming a free one; the
 * other slot when the table is full.  Only writers call it. */
unsigned metrics_share_slot(struct metrics_shm *m, const char *name);
/* The name of slot i, NULL while it is free. */
const char *metrics_share_name(const struct metrics_shm *m, unsigned i);

/* dst += src (a snapshot of a live block). */
void metrics_op_add(struct metrics_op *dst, const struct metrics_op *src);

/* All workers' blocks added up (info: the counts summed, pid 0), a
 * talloc object on mem_ctx; NULL when out of memory. */
struct metrics_worker *metrics_sum(TALLOC_CTX *mem_ctx,
				   struct metrics_shm *m);

/* The Prometheus text format (0.0.4) of the whole table, a talloc string
 * on mem_ctx; NULL when out of memory. */
char *metrics_prom_text(TALLOC_CTX *mem_ctx, struct metrics_shm *m);

#endif
