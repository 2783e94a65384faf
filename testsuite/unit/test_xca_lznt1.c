/*
 * lib/xca_lznt1.c: MS-XCA LZNT1 (2.5) against the example of MS-XCA
 * 3.3, round trips at and around the 4096-byte chunk size, and the
 * decoder's refusals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lib/xca.h"

#define GUARD 64

/* MS-XCA 3.3: 142 bytes, the string below with its NUL, in one chunk. */
static const char tune[] =
	"F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# "
	"E D D E E F# D E F# G F# D E F# G F# E D E A F# F# G A A G F# E "
	"D D E F# E D D";
static const uint8_t tune_nt1[] = {
	0x38, 0xb0, 0x88, 0x46, 0x23, 0x20, 0x00, 0x20,
	0x47, 0x20, 0x41, 0x00, 0x10, 0xa2, 0x47, 0x01,
	0xa0, 0x45, 0x20, 0x44, 0x00, 0x08, 0x45, 0x01,
	0x50, 0x79, 0x00, 0xc0, 0x45, 0x20, 0x05, 0x24,
	0x13, 0x88, 0x05, 0xb4, 0x02, 0x4a, 0x44, 0xef,
	0x03, 0x58, 0x02, 0x8c, 0x09, 0x16, 0x01, 0x48,
	0x45, 0x00, 0xbe, 0x00, 0x9e, 0x00, 0x04, 0x01,
	0x18, 0x90, 0x00,
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static void fill_text(uint8_t *p, size_t n)
{
	static const char *words[] = {
		"The quick brown fox ", "jumps over the lazy dog. ",
		"Pack my box with ", "five dozen liquor jugs. ",
		"How vexingly quick daft zebras jump! ", "\n",
	};
	size_t i = 0;

	while (i < n) {
		const char *w = words[rnd8() % 6];
		size_t l = strlen(w);

		if (l > n - i) {
			l = n - i;
		}
		memcpy(p + i, w, l);
		i += l;
	}
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = rnd8();
	}
}

/* Random bytes with copies of many lengths and distances. */
static void fill_mixed(uint8_t *p, size_t n)
{
	size_t i = 0, len = 3;

	while (i < n) {
		size_t lit = rnd8() % 8, dist = 1 + (rnd8() * 37u) % 4096;

		while (lit-- > 0 && i < n) {
			p[i++] = rnd8();
		}
		if (dist > i) {
			continue;
		}
		for (size_t k = 0; k < len && i < n; k++, i++) {
			p[i] = p[i - dist];
		}
		len = len >= 300 ? 3 : len + 1;
	}
}

/* Compress, decode into a guarded buffer, compare; the stream size. */
static size_t round_trip(const uint8_t *in, size_t n)
{
	size_t cap = n + n / 1024 + 64, c;
	uint8_t *z = malloc(cap), *back = malloc(n + GUARD);

	assert_non_null(z);
	assert_non_null(back);
	c = xca_lznt1_compress(in, n, z, cap);
	assert_true(c >= 2 && c <= cap);
	/* Never more than the data and 2 bytes a chunk. */
	assert_true(c <= n + 2 * ((n + 4095) / 4096) + 2);
	memset(back, 0xa5, n + GUARD);
	assert_true(xca_lznt1_decompress(z, c, back, n));
	assert_memory_equal(back, in, n);
	for (size_t i = n; i < n + GUARD; i++) {
		assert_int_equal(back[i], 0xa5);
	}
	if (n > 0) {
		assert_false(xca_lznt1_decompress(z, c, back, n - 1));
	}
	assert_false(xca_lznt1_decompress(z, c, back, n + 1));
	free(z);
	free(back);
	return c;
}

static void test_spec_example(void **state)
{
	uint8_t out[sizeof(tune) + GUARD], z[256];
	size_t c;

	(void)state;
	assert_int_equal(sizeof(tune), 142);
	memset(out, 0xa5, sizeof(out));
	assert_true(xca_lznt1_decompress(tune_nt1, sizeof(tune_nt1), out,
					 sizeof(tune)));
	assert_memory_equal(out, tune, sizeof(tune));
	assert_int_equal(out[sizeof(tune)], 0xa5);
	c = xca_lznt1_compress((const uint8_t *)tune, sizeof(tune), z,
			       sizeof(z));
	assert_true(c > 0 && c <= sizeof(tune_nt1));
	assert_true(xca_lznt1_decompress(z, c, out, sizeof(tune)));
	assert_memory_equal(out, tune, sizeof(tune));
}

static void test_small(void **state)
{
	uint8_t one = 'x', z[8], out[4];
	static const uint8_t end[] = { 0x00, 0x00 };
	/* "x" stored uncompressed. */
	static const uint8_t raw[] = { 0x00, 0x30, 'x' };

	(void)state;
	assert_int_equal(round_trip(&one, 1), 3);
	assert_int_equal(round_trip(&one, 0), 2);
	assert_true(xca_lznt1_decompress(z, 0, out, 0));
	assert_true(xca_lznt1_decompress(end, 2, out, 0));
	assert_false(xca_lznt1_decompress(end, 2, out, 1));
	assert_true(xca_lznt1_decompress(raw, 3, out, 1));
	assert_int_equal(out[0], 'x');
	assert_int_equal(xca_lznt1_compress(&one, 0, z, 1), 0);
	assert_int_equal(xca_lznt1_compress(&one, 1, z, 2), 0);
}

static void test_zeros(void **state)
{
	size_t n = 65536 + 3;
	uint8_t *p = calloc(1, n);

	(void)state;
	assert_non_null(p);
	/* Runs cost a few tokens per chunk. */
	assert_true(round_trip(p, n) < n / 64);
	free(p);
}

static void test_text_sizes(void **state)
{
	static const size_t sizes[] = {
		2, 3, 4, 15, 16, 17, 18, 4095, 4096, 4097, 8191, 8192, 8193,
		65536 + 3,
	};
	uint8_t *p = malloc(65536 + 3);

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fill_text(p, sizes[i]);
		round_trip(p, sizes[i]);
		fill_mixed(p, sizes[i]);
		round_trip(p, sizes[i]);
	}
	fill_text(p, 65536 + 3);
	assert_true(round_trip(p, 65536 + 3) < 65536 / 2);
	free(p);
}

/* Incompressible chunks are stored, so the stream barely grows. */
static void test_random(void **state)
{
	size_t n = 65536 + 3, c;
	uint8_t *p = malloc(n), *z = malloc(n);

	(void)state;
	assert_non_null(p);
	assert_non_null(z);
	fill_random(p, n);
	assert_int_equal(xca_lznt1_compress(p, n, z, n - 1), 0);
	c = round_trip(p, n);
	assert_int_equal(c, n + 2 * 17);
	free(p);
	free(z);
}

static void test_8mib(void **state)
{
	size_t n = 8u << 20;
	uint8_t *p = malloc(n);

	(void)state;
	assert_non_null(p);
	fill_text(p, n);
	assert_true(round_trip(p, n) < n / 2);
	fill_mixed(p, n);
	round_trip(p, n);
	memset(p, 0, n);
	round_trip(p, n);
	free(p);
}

/* Too small an out_cap: 0, and nothing written from out_cap on. */
static void test_out_cap(void **state)
{
	size_t n = 9000, full, cap;
	uint8_t *p = malloc(n), *z = malloc(n + 100);

	(void)state;
	assert_non_null(p);
	assert_non_null(z);
	fill_text(p, 5000);
	fill_random(p + 5000, n - 5000);
	full = xca_lznt1_compress(p, n, z, n + 100);
	assert_true(full > 0);
	for (cap = 0; cap < full; cap++) {
		memset(z, 0x5a, n + 100);
		assert_int_equal(xca_lznt1_compress(p, n, z, cap), 0);
		for (size_t i = cap; i < n + 100; i++) {
			assert_int_equal(z[i], 0x5a);
		}
	}
	assert_int_equal(xca_lznt1_compress(p, n, z, full), full);
	free(p);
	free(z);
}

static void test_truncated(void **state)
{
	uint8_t out[sizeof(tune)], *p = malloc(10000), *z = malloc(11000);
	size_t c, k;

	(void)state;
	assert_non_null(p);
	assert_non_null(z);
	for (k = 0; k < sizeof(tune_nt1); k++) {
		assert_false(xca_lznt1_decompress(tune_nt1, k, out,
						  sizeof(tune)));
	}
	fill_mixed(p, 10000);
	c = xca_lznt1_compress(p, 10000, z, 11000);
	assert_true(c > 0);
	for (k = 0; k < c; k++) {
		assert_false(xca_lznt1_decompress(z, k, p, 10000));
	}
	free(p);
	free(z);
}

static void test_malformed(void **state)
{
	/* A match first: nothing to refer to. */
	static const uint8_t before[] = { 0x02, 0xb0, 0x01, 0x00, 0x00 };
	/* 'a', then displacement 2 (4 bits of it at U = 1). */
	static const uint8_t before2[] = {
		0x03, 0xb0, 0x02, 'a', 0x00, 0x10,
	};
	/* 'a', then a copy running past the 4096 bytes of the chunk. */
	static const uint8_t overrun[] = {
		0x03, 0xb0, 0x02, 'a', 0xff, 0x0f,
	};
	/* Signature 2 instead of 3. */
	static const uint8_t badsig[] = { 0x00, 0x20, 'x' };
	/* A chunk longer than the input. */
	static const uint8_t longer[] = { 0x05, 0x30, 'x', 'y' };
	/* A 1-byte chunk, then a second chunk: the first was short. */
	static const uint8_t short1[] = { 0x00, 0x30, 'x', 0x00, 0x30, 'y' };
	/* A match word cut in half. */
	static const uint8_t halfword[] = { 0x02, 0xb0, 0x02, 'a', 0x00 };
	/* A stray byte after a chunk. */
	static const uint8_t stray[] = { 0x00, 0x30, 'x', 0x01 };
	uint8_t *out = malloc(8192);

	(void)state;
	assert_non_null(out);
	assert_false(xca_lznt1_decompress(before, sizeof(before), out, 3));
	assert_false(xca_lznt1_decompress(before2, sizeof(before2), out, 4));
	assert_false(xca_lznt1_decompress(overrun, sizeof(overrun), out,
					  8192));
	assert_false(xca_lznt1_decompress(badsig, sizeof(badsig), out, 1));
	assert_false(xca_lznt1_decompress(longer, sizeof(longer), out, 2));
	assert_false(xca_lznt1_decompress(short1, sizeof(short1), out, 2));
	assert_false(xca_lznt1_decompress(halfword, sizeof(halfword), out,
					  4));
	assert_false(xca_lznt1_decompress(stray, sizeof(stray), out, 1));
	assert_false(xca_lznt1_decompress(tune_nt1, sizeof(tune_nt1), out,
					  sizeof(tune) - 1));
	assert_false(xca_lznt1_decompress(tune_nt1, sizeof(tune_nt1), out,
					  sizeof(tune) + 1));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_zeros),
		cmocka_unit_test(test_text_sizes),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_8mib),
		cmocka_unit_test(test_out_cap),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
