/*
 * Log-linear latency histogram (see nbench_stats.h).
 *
 * Index of v: below NB_HIST_SUB it is v itself.  Otherwise let k be the
 * position of the top bit (k >= NB_HIST_SUB_BITS); the next
 * NB_HIST_SUB_BITS bits below it pick the sub-bucket, and the group of k
 * starts at (k - NB_HIST_SUB_BITS + 1) * NB_HIST_SUB.
 */
#include "testsuite/bench/nbench_stats.h"

#include <math.h>
#include <string.h>

unsigned nb_hist_index(uint64_t v)
{
	unsigned k, sub, idx;

	if (v < NB_HIST_SUB) {
		return (unsigned)v;
	}
	k = 63u - (unsigned)__builtin_clzll(v);
	if (k >= NB_HIST_MAX_BITS) {
		return NB_HIST_BUCKETS - 1;
	}
	sub = (unsigned)(v >> (k - NB_HIST_SUB_BITS)) & (NB_HIST_SUB - 1);
	idx = (k - NB_HIST_SUB_BITS + 1) * NB_HIST_SUB + sub;
	return idx;
}

void nb_hist_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned group, sub, k;
	uint64_t width;

	if (idx < NB_HIST_SUB) {
		*lo = *hi = idx;
		return;
	}
	if (idx >= NB_HIST_BUCKETS) {
		idx = NB_HIST_BUCKETS - 1;
	}
	group = idx / NB_HIST_SUB;
	sub = idx % NB_HIST_SUB;
	k = group + NB_HIST_SUB_BITS - 1;
	width = 1ull << (k - NB_HIST_SUB_BITS);
	*lo = (1ull << k) + sub * width;
	*hi = *lo + width - 1;
}

void nb_hist_reset(struct nb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void nb_hist_add(struct nb_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns) {
		h->max_ns = ns;
	}
	h->bucket[nb_hist_index(ns)]++;
}

void nb_hist_merge(struct nb_hist *dst, const struct nb_hist *src)
{
	unsigned i;

	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns) {
		dst->max_ns = src->max_ns;
	}
	for (i = 0; i < NB_HIST_BUCKETS; i++) {
		dst->bucket[i] += src->bucket[i];
	}
}

double nb_hist_mean(const struct nb_hist *h)
{
	if (h->count == 0) {
		return 0.0;
	}
	return (double)h->sum_ns / (double)h->count;
}

uint64_t nb_hist_quantile(const struct nb_hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (h->count == 0) {
		return 0;
	}
	if (!(q > 0.0)) {
		q = 1e-9;
	}
	if (q > 1.0) {
		q = 1.0;
	}
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0) {
		rank = 1;
	}
	if (rank >= h->count) {
		return h->max_ns; /* the largest sample is known exactly */
	}
	for (i = 0; i < NB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t lo, hi, mid;

			nb_hist_range(i, &lo, &hi);
			mid = lo + (hi - lo) / 2;
			return mid > h->max_ns ? h->max_ns : mid;
		}
	}
	return h->max_ns;
}
