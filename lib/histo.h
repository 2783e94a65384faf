/*
 * A log-linear latency histogram (HdrHistogram's layout, fixed size):
 * values are whole microseconds; below HISTO_SUB each value has its own
 * bucket, above it every power of two [2^e, 2^(e+1)) is cut into
 * HISTO_SUB equal sub-buckets, so a bucket is at most 25% wide at any
 * scale.  The top regular bucket ends at 2^(HISTO_MAX_EXP+1) us (134 s);
 * one more bucket takes everything above.
 *
 * Why fixed buckets and no floats: recording is a shift, a count of
 * leading zeros and two adds, and histograms of different workers merge
 * by adding bucket by bucket.  A single writer per histogram (its worker)
 * stores with relaxed atomics, so a reader in another process sees each
 * counter whole, never torn; a reader merging while a worker writes may
 * see a count one ahead of the sum, which a scrape tolerates.
 */
#ifndef LIB_HISTO_H
#define LIB_HISTO_H

#include <stdint.h>

#define HISTO_SUB_BITS 2
#define HISTO_SUB (1u << HISTO_SUB_BITS)
#define HISTO_MAX_EXP 26
/* 0..HISTO_SUB-1 linear, then HISTO_SUB per exponent from HISTO_SUB_BITS
 * to HISTO_MAX_EXP, then the overflow bucket. */
#define HISTO_NBUCKETS                                                        \
	(HISTO_SUB + (HISTO_MAX_EXP - HISTO_SUB_BITS + 1) * HISTO_SUB + 1)
#define HISTO_OVERFLOW (HISTO_NBUCKETS - 1)

struct histo {
	uint64_t bucket[HISTO_NBUCKETS];
	uint64_t sum_us;	/* of the recorded values (before bucketing) */
};

/* Add n to a counter that only this process writes (see above). */
#define METRIC_ADD(p, n)                                                      \
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + (n),    \
			 __ATOMIC_RELAXED)
#define METRIC_GET(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define METRIC_SET(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static inline unsigned histo_index(uint64_t us)
{
	unsigned e;

	if (us < HISTO_SUB) {
		return (unsigned)us;
	}
	e = 63u - (unsigned)__builtin_clzll(us);
	if (e > HISTO_MAX_EXP) {
		return HISTO_OVERFLOW;
	}
	return (e - HISTO_SUB_BITS + 1) * HISTO_SUB +
	       (unsigned)(us >> (e - HISTO_SUB_BITS)) - HISTO_SUB;
}

static inline void histo_record(struct histo *h, uint64_t us)
{
	METRIC_ADD(&h->bucket[histo_index(us)], 1);
	METRIC_ADD(&h->sum_us, us);
}

/* The first value (us) above bucket i; UINT64_MAX for the overflow. */
uint64_t histo_bucket_upper(unsigned i);
/* The smallest value that falls into bucket i. */
uint64_t histo_bucket_lower(unsigned i);
/* dst += src, counter by counter (a snapshot of a live src). */
void histo_merge(struct histo *dst, const struct histo *src);
uint64_t histo_count(const struct histo *h);
/*
 * The q-quantile (0 < q <= 1) as the upper end of the bucket it falls in
 * (an upper bound, at most 25% above the true value); 0 when empty,
 * UINT64_MAX when it lies in the overflow bucket.
 */
uint64_t histo_quantile(const struct histo *h, double q);

#endif
