/*
 * Latency histogram for the NBENCH replayer.
 *
 * Each forked client records every operation's latency into a fixed-size
 * histogram that lives in memory shared with the parent (no allocation, no
 * pointers, so a MAP_SHARED mapping can hold it).  Buckets are log-linear
 * as in HdrHistogram: values below 2^NB_HIST_SUB_BITS nanoseconds have a
 * bucket each, above that every power of two is split into
 * 2^NB_HIST_SUB_BITS equal buckets, so any percentile read back is within
 * 1/32 (3 %) of the true value; the exact sum and maximum are kept too.
 * The parent merges the clients' histograms and reads mean and p99.
 */
#ifndef TESTSUITE_BENCH_NBENCH_STATS_H
#define TESTSUITE_BENCH_NBENCH_STATS_H

#include <stdint.h>

#define NB_HIST_SUB_BITS 5
#define NB_HIST_SUB (1u << NB_HIST_SUB_BITS)
/* Up to 2^40 ns (18 minutes); longer values land in the last bucket. */
#define NB_HIST_MAX_BITS 40
#define NB_HIST_BUCKETS                                                        \
	((NB_HIST_MAX_BITS - NB_HIST_SUB_BITS + 1) * NB_HIST_SUB)

struct nb_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t bucket[NB_HIST_BUCKETS];
};

void nb_hist_reset(struct nb_hist *h);
void nb_hist_add(struct nb_hist *h, uint64_t ns);
/* DST += SRC */
void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src);
/* Mean in ns, 0 for an empty histogram. */
double nb_hist_mean(const struct nb_hist *h);
/*
 * The value at quantile Q (0 < Q <= 1) in ns: the midpoint of the bucket
 * holding the ceil(Q * count)-th smallest sample, capped at the maximum;
 * the exact maximum when that sample is the largest.  0 when empty.
 */
uint64_t nb_hist_quantile(const struct nb_hist *h, double q);

/* Exposed for the unit tests: bucket index of V and its [lo, hi] range. */
unsigned nb_hist_index(uint64_t v);
void nb_hist_range(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
