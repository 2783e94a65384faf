/*
 * Unit tests for the nbench latency histogram
 * (testsuite/bench/nbench_stats.c): bucket boundaries are contiguous and
 * within 1/32 relative width, quantiles of known distributions, merging,
 * and values past the last bucket.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "testsuite/bench/nbench_stats.h"

static void test_buckets(void **state)
{
	uint64_t prev_hi = 0, lo, hi;
	unsigned i;

	for (i = 0; i < NB_HIST_BUCKETS; i++) {
		nb_hist_range(i, &lo, &hi);
		if (i > 0) {
			assert_int_equal(lo, prev_hi + 1);
		}
		assert_true(hi >= lo);
		/* Relative bucket width at most 1/32. */
		assert_true((hi - lo) * NB_HIST_SUB <= lo || lo < NB_HIST_SUB);
		assert_int_equal(nb_hist_index(lo), i);
		assert_int_equal(nb_hist_index(hi), i);
		prev_hi = hi;
	}
	assert_int_equal(nb_hist_index(0), 0);
	assert_int_equal(nb_hist_index(31), 31);
	assert_int_equal(nb_hist_index(32), 32);
	assert_int_equal(nb_hist_index(UINT64_MAX), NB_HIST_BUCKETS - 1);
	assert_int_equal(nb_hist_index(1ull << NB_HIST_MAX_BITS),
	                 NB_HIST_BUCKETS - 1);
}

static void test_quantiles(void **state)
{
	static struct nb_hist h, h2;
	uint64_t v, p50, p99;

	nb_hist_reset(&h);
	assert_int_equal(nb_hist_quantile(&h, 0.99), 0);
	assert_true(nb_hist_mean(&h) == 0.0);
	/* 1..10000 us */
	for (v = 1; v <= 10000; v++) {
		nb_hist_add(&h, v * 1000);
	}
	assert_int_equal(h.count, 10000);
	assert_int_equal(h.max_ns, 10000000);
	assert_true(nb_hist_mean(&h) > 5000499.0 &&
	            nb_hist_mean(&h) < 5000501.0);
	p50 = nb_hist_quantile(&h, 0.5);
	p99 = nb_hist_quantile(&h, 0.99);
	assert_true(p50 > 5000000 * 0.96 && p50 < 5000000 * 1.04);
	assert_true(p99 > 9900000 * 0.96 && p99 < 9900000 * 1.04);
	assert_int_equal(nb_hist_quantile(&h, 1.0), 10000000);
	assert_true(nb_hist_quantile(&h, 0.0) <= 1100);
	assert_true(nb_hist_quantile(&h, 2.0) == 10000000);

	/* A single slow outlier among 99 fast: p99 is fast, max is slow. */
	nb_hist_reset(&h2);
	for (v = 0; v < 99; v++) {
		nb_hist_add(&h2, 100);
	}
	nb_hist_add(&h2, 1000000000);
	assert_true(nb_hist_quantile(&h2, 0.99) <= 104);
	assert_int_equal(nb_hist_quantile(&h2, 1.0), 1000000000);

	nb_hist_merge(&h, &h2);
	assert_int_equal(h.count, 10100);
	assert_int_equal(h.max_ns, 1000000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_buckets),
	        cmocka_unit_test(test_quantiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
