/*
 * lib/xca_lz77.c: MS-XCA Plain LZ77 (2.3, 2.4) against the examples of
 * MS-XCA 3.1, round trips over data shaped to reach every length
 * encoding, and the decoder's refusals.
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

/* MS-XCA 3.1: 26 literals, the unused flag bits set. */
static const uint8_t alpha_lz[] = {
	0x3f, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66,
	0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70,
	0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
};
static const char alpha[] = "abcdefghijklmnopqrstuvwxyz";

/* MS-XCA 3.1: "abc" * 100 as abc[match: distance 3, length 297]. */
static const uint8_t abc_lz[] = {
	0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f,
	0xff, 0x26, 0x01,
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static void fill_abc(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = (uint8_t)"abc"[i % 3];
	}
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

/* Random bytes with copies of every length 3..400 and a few huge runs. */
static void fill_mixed(uint8_t *p, size_t n)
{
	size_t i = 0, len = 3;

	while (i < n) {
		size_t lit = rnd8() % 8, dist = 1 + (rnd8() * 37u) % 8192;

		while (lit-- > 0 && i < n) {
			p[i++] = rnd8();
		}
		if (dist > i) {
			continue;
		}
		for (size_t k = 0; k < len && i < n; k++, i++) {
			p[i] = p[i - dist];
		}
		len = len >= 400 ? 3 : len + 1;
	}
}

/* Compress, decode into a guarded buffer, compare; the stream size. */
static size_t round_trip(const uint8_t *in, size_t n)
{
	size_t cap = n + n / 8 + 64, c;
	uint8_t *z = malloc(cap), *back = malloc(n + GUARD);

	assert_non_null(z);
	assert_non_null(back);
	c = xca_lz77_compress(in, n, z, cap);
	assert_true(c >= 4 && c <= cap);
	memset(back, 0xa5, n + GUARD);
	assert_true(xca_lz77_decompress(z, c, back, n));
	assert_memory_equal(back, in, n);
	for (size_t i = n; i < n + GUARD; i++) {
		assert_int_equal(back[i], 0xa5);
	}
	/* One byte less or more than the stream holds is refused. */
	if (n > 0) {
		assert_false(xca_lz77_decompress(z, c, back, n - 1));
	}
	assert_false(xca_lz77_decompress(z, c, back, n + 1));
	free(z);
	free(back);
	return c;
}

static void test_spec_examples(void **state)
{
	uint8_t out[300 + GUARD], abc[300], z[400];
	size_t c;

	(void)state;
	fill_abc(abc, sizeof(abc));
	memset(out, 0xa5, sizeof(out));
	assert_true(xca_lz77_decompress(alpha_lz, sizeof(alpha_lz), out, 26));
	assert_memory_equal(out, alpha, 26);
	assert_int_equal(out[26], 0xa5);
	assert_true(xca_lz77_decompress(abc_lz, sizeof(abc_lz), out, 300));
	assert_memory_equal(out, abc, 300);
	assert_int_equal(out[300], 0xa5);
	/* Our compressor's output for both decodes back. */
	c = xca_lz77_compress((const uint8_t *)alpha, 26, z, sizeof(z));
	assert_true(c > 0 && c <= sizeof(alpha_lz));
	assert_true(xca_lz77_decompress(z, c, out, 26));
	assert_memory_equal(out, alpha, 26);
	c = xca_lz77_compress(abc, 300, z, sizeof(z));
	assert_true(c > 0 && c <= sizeof(abc_lz));
	assert_true(xca_lz77_decompress(z, c, out, 300));
	assert_memory_equal(out, abc, 300);
}

static void test_small(void **state)
{
	uint8_t one = 'x', z[16], out[4];

	(void)state;
	assert_int_equal(round_trip(&one, 1), 5);
	assert_int_equal(round_trip(&one, 0), 4);
	/* No input at all is an empty result. */
	assert_true(xca_lz77_decompress(z, 0, out, 0));
	assert_false(xca_lz77_decompress(z, 0, out, 1));
	/* An empty input still needs room for its flag word. */
	assert_int_equal(xca_lz77_compress(&one, 0, z, 3), 0);
}

static void test_zeros(void **state)
{
	size_t n = 100000;
	uint8_t *p = calloc(1, n);

	(void)state;
	assert_non_null(p);
	/* One literal and one match with a 32-bit length. */
	assert_true(round_trip(p, n) < 32);
	assert_true(round_trip(p, 65536 + 3) < 32);
	free(p);
}

static void test_text_sizes(void **state)
{
	static const size_t sizes[] = {
		2, 3, 4, 31, 32, 33, 4095, 4096, 4097, 8191, 8192, 8193,
		65536 + 3,
	};
	uint8_t *p = malloc(65536 + 3);

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fill_text(p, sizes[i]);
		round_trip(p, sizes[i]);
	}
	fill_text(p, 65536 + 3);
	assert_true(round_trip(p, 65536 + 3) < 65536 / 3);
	fill_mixed(p, 65536 + 3);
	round_trip(p, 65536 + 3);
	free(p);
}

static void test_random(void **state)
{
	size_t n = 65536 + 3, c;
	uint8_t *p = malloc(n), *z = malloc(n);

	(void)state;
	assert_non_null(p);
	assert_non_null(z);
	fill_random(p, n);
	/* Incompressible: no output below the input's size. */
	assert_int_equal(xca_lz77_compress(p, n, z, n - 1), 0);
	c = round_trip(p, n);
	assert_true(c > n);
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
	assert_true(round_trip(p, n) < n / 3);
	fill_mixed(p, n);
	round_trip(p, n);
	memset(p, 0, n);
	round_trip(p, n);
	free(p);
}

/* Too small an out_cap: 0, and nothing written from out_cap on. */
static void test_out_cap(void **state)
{
	size_t n = 3000, full, cap;
	uint8_t *p = malloc(n), z[4000];

	(void)state;
	assert_non_null(p);
	fill_mixed(p, n);
	full = xca_lz77_compress(p, n, z, sizeof(z));
	assert_true(full > 0);
	for (cap = 0; cap < full; cap++) {
		memset(z, 0x5a, sizeof(z));
		assert_int_equal(xca_lz77_compress(p, n, z, cap), 0);
		for (size_t i = cap; i < sizeof(z); i++) {
			assert_int_equal(z[i], 0x5a);
		}
	}
	assert_int_equal(xca_lz77_compress(p, n, z, full), full);
	free(p);
}

/* Every cut of a stream is refused (bar a dropped last flag word). */
static void test_truncated(void **state)
{
	uint8_t abc[300], out[300], *p = malloc(5000), z[6000];
	size_t c, k;

	(void)state;
	assert_non_null(p);
	fill_abc(abc, sizeof(abc));
	for (k = 0; k < sizeof(abc_lz); k++) {
		assert_false(xca_lz77_decompress(abc_lz, k, out, 300));
	}
	for (k = 0; k < sizeof(alpha_lz); k++) {
		assert_false(xca_lz77_decompress(alpha_lz, k, out, 26));
	}
	fill_mixed(p, 5000);
	c = xca_lz77_compress(p, 5000, z, sizeof(z));
	assert_true(c > 4);
	for (k = 0; k + 4 < c; k++) {
		assert_false(xca_lz77_decompress(z, k, p, 5000));
	}
	free(p);
}

static void test_malformed(void **state)
{
	/* A match first: nothing to refer to. */
	static const uint8_t before[] = { 0, 0, 0, 0x80, 0x00, 0x00 };
	/* 'a', then distance 2. */
	static const uint8_t before2[] = {
		0, 0, 0, 0x40, 'a', 0x08, 0x00,
	};
	/* abc, then a 16-bit length of 5 (< 22, which bytes cover). */
	static const uint8_t short16[] = {
		0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x17, 0x00, 0x0f,
		0xff, 0x05, 0x00,
	};
	/* abc, then a 32-bit length of 5. */
	static const uint8_t short32[] = {
		0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x17, 0x00, 0x0f,
		0xff, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	};
	/* abc, then a 32-bit length of 4 GiB: far more than out_len. */
	static const uint8_t huge[] = {
		0xff, 0xff, 0xff, 0x1f, 'a', 'b', 'c', 0x17, 0x00, 0x0f,
		0xff, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};
	/* Two or three bytes where a flag word should be. */
	static const uint8_t cut_flags[] = {
		0x00, 0x00, 0x00, 0x00, 'a', 'a', 'a', 'a', 'a', 'a', 'a',
		'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
		'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
		'a', 0xff, 0xff,
	};
	uint8_t out[400];

	(void)state;
	assert_false(xca_lz77_decompress(before, sizeof(before), out, 3));
	assert_false(xca_lz77_decompress(before2, sizeof(before2), out, 4));
	assert_false(xca_lz77_decompress(short16, sizeof(short16), out,
					 300));
	assert_false(xca_lz77_decompress(short32, sizeof(short32), out,
					 300));
	assert_false(xca_lz77_decompress(huge, sizeof(huge), out,
					 sizeof(out)));
	assert_false(xca_lz77_decompress(cut_flags, sizeof(cut_flags), out,
					 32));
	assert_true(xca_lz77_decompress(cut_flags, sizeof(cut_flags) - 2,
					out, 32));
	/* The example with a wrong size either way. */
	assert_false(xca_lz77_decompress(abc_lz, sizeof(abc_lz), out, 299));
	assert_false(xca_lz77_decompress(abc_lz, sizeof(abc_lz), out, 301));
	assert_false(xca_lz77_decompress(alpha_lz, sizeof(alpha_lz), out,
					 25));
	assert_false(xca_lz77_decompress(alpha_lz, sizeof(alpha_lz), out,
					 27));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_examples),
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
