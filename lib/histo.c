/*
 * The log-linear histogram's bucket arithmetic, merge and quantiles
 * (lib/histo.h says why this layout).
 */
#include "lib/histo.h"


uint64_t histo_bucket_lower(unsigned i)
{
	unsigned g, s;

	if (i < HISTO_SUB) {
		return i;
	}
	if (i >= HISTO_OVERFLOW) {
		return 1ull << (HISTO_MAX_EXP + 1);
	}
	g = i / HISTO_SUB;	/* exponent e = g + HISTO_SUB_BITS - 1 */
	s = i % HISTO_SUB;
	return (uint64_t)(HISTO_SUB + s) << (g - 1);
}

uint64_t histo_bucket_upper(unsigned i)
{
	if (i >= HISTO_OVERFLOW) {
		return UINT64_MAX;
	}
	return histo_bucket_lower(i + 1);
}

void histo_merge(struct histo *dst, const struct histo *src)
{
	unsigned i;

	for (i = 0; i < HISTO_NBUCKETS; i++) {
		dst->bucket[i] += METRIC_GET(&src->bucket[i]);
	}
	dst->sum_us += METRIC_GET(&src->sum_us);
}

uint64_t histo_count(const struct histo *h)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < HISTO_NBUCKETS; i++) {
		n += METRIC_GET(&h->bucket[i]);
	}
	return n;
}

uint64_t histo_quantile(const struct histo *h, double q)
{
	uint64_t n = histo_count(h), rank, seen = 0;
	unsigned i;

	if (n == 0 || !(q > 0.0)) {
		return 0;
	}
	if (q > 1.0) {
		q = 1.0;
	}
	/* The rank of the q-quantile among n sorted values, 1-based. */
	rank = (uint64_t)(q * (double)n);
	if ((double)rank < q * (double)n || rank == 0) {
		rank++;
	}
	if (rank > n) {
		rank = n;
	}
	for (i = 0; i < HISTO_NBUCKETS; i++) {
		seen += METRIC_GET(&h->bucket[i]);
		if (seen >= rank) {
			return histo_bucket_upper(i);
		}
	}
	return UINT64_MAX;
}
