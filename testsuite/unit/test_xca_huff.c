/*
 * Unit tests for lib/xca_huff.c, MS-XCA LZ77+Huffman (MS-XCA 2.1, 2.2):
 * the examples of MS-XCA 3.2 decode exactly, round trips over the kinds
 * of data and the sizes around the 64 KiB block boundary, and the
 * decompressor refuses what is malformed without writing out of bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/xca.h"

/* MS-XCA 3.2: "abcdefghijklmnopqrstuvwxyz" as literals, then EOF. */
static const uint8_t spec_alpha[] = {
	[48] = 0x50, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
	0x55, 0x45, 0x44, 0x04,
	[128] = 0x04,
	[256] = 0xd8, 0x52, 0x3e, 0xd7, 0x94, 0x11, 0x5b, 0xe9, 0x19, 0x5f,
	0xf9, 0xd6, 0x7c, 0xdf, 0x8d, 0x04, 0x00, 0x00, 0x00, 0x00,
};

/*
 * MS-XCA 3.2: "abc" * 100, i.e. a b c [match: offset 3, length 297] EOF.
 * Codes: c, EOF and the match symbol 287 (length nibble 15, offset high
 * bit 1) 2 bits, a and b 3 bits; the length 297 is escaped as 255 then
 * 16 bits of 294 (ff 26 01) after the two bit-stream words.
 */
static const uint8_t spec_abc[] = {
	[48] = 0x30, 0x23,
	[128] = 0x02,
	[143] = 0x20,
	[256] = 0xa8, 0xdc, 0x00, 0x00, 0xff, 0x26, 0x01,
};

static void test_spec_alpha(void **state)
{
	uint8_t out[26];

	(void)state;
	assert_int_equal(sizeof(spec_alpha), 276);
	assert_true(xca_huff_decompress(spec_alpha, sizeof(spec_alpha), out,
					sizeof(out)));
	assert_memory_equal(out, "abcdefghijklmnopqrstuvwxyz", 26);
	/* One byte more or less than the stream holds is refused. */
	assert_false(xca_huff_decompress(spec_alpha, sizeof(spec_alpha), out,
					 25));
	{
		uint8_t big[27];

		assert_false(xca_huff_decompress(spec_alpha,
						 sizeof(spec_alpha), big, 27));
	}
}

/* Our compressor builds the same codes, so it reproduces both vectors. */
static void test_spec_encode(void **state)
{
	uint8_t out[400], abc[300];
	size_t i;

	(void)state;
	assert_int_equal(xca_huff_compress((const uint8_t *)
					   "abcdefghijklmnopqrstuvwxyz", 26,
					   out, sizeof(out)),
			 sizeof(spec_alpha));
	assert_memory_equal(out, spec_alpha, sizeof(spec_alpha));
	for (i = 0; i < sizeof(abc); i++) {
		abc[i] = (uint8_t)("abc"[i % 3]);
	}
	assert_int_equal(xca_huff_compress(abc, sizeof(abc), out,
					   sizeof(out)), sizeof(spec_abc));
	assert_memory_equal(out, spec_abc, sizeof(spec_abc));
}

static void test_spec_abc(void **state)
{
	uint8_t out[300], want[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want); i++) {
		want[i] = (uint8_t)("abc"[i % 3]);
	}
	assert_int_equal(sizeof(spec_abc), 263);
	assert_true(xca_huff_decompress(spec_abc, sizeof(spec_abc), out,
					sizeof(out)));
	assert_memory_equal(out, want, sizeof(want));
	assert_false(xca_huff_decompress(spec_abc, sizeof(spec_abc), out,
					 299));
}

/* Compress, check the bound, decompress, compare; returns the size. */
static size_t round_trip(const uint8_t *in, size_t len)
{
	size_t cap = len + len / 4 + 1024, n;
	uint8_t *c = malloc(cap);
	uint8_t *d = malloc(len + 1);

	assert_non_null(c);
	assert_non_null(d);
	n = xca_huff_compress(in, len, c, cap);
	assert_true(n > 0);
	assert_true(n <= cap);
	assert_true(xca_huff_decompress(c, n, d, len));
	assert_memory_equal(d, in, len);
	/* Any other expected size is refused. */
	assert_false(xca_huff_decompress(c, n, d, len + 1));
	if (len > 0) {
		assert_false(xca_huff_decompress(c, n, d, len - 1));
	}
	free(c);
	free(d);
	return n;
}

static uint8_t *make_text(size_t len)
{
	static const char s[] =
		"The quick brown fox jumps over the lazy dog; "
		"Pack my box with five dozen liquor jugs. "
		"How vexingly quick daft zebras jump!\n";
	uint8_t *p = malloc(len + 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++) {
		p[i] = (uint8_t)s[i % (sizeof(s) - 1)];
		/* Some variation, so that not everything is one match. */
		if (i % 997 == 0) {
			p[i] = (uint8_t)('0' + i % 10);
		}
	}
	return p;
}

static uint8_t *make_random(size_t len, uint32_t seed)
{
	uint8_t *p = malloc(len + 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 23);
	}
	return p;
}

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 100, 4096, 65535, 65536, 65537, 131072,
	3 * 65536 + 5,
};

static void test_round_trip_zeros(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *z = calloc(1, sizes[i] + 1);
		size_t n = round_trip(z, sizes[i]);

		/* A table and a handful of words per 64 KiB block. */
		assert_true(n <= 300 * (sizes[i] / 65536 + 1));
		free(z);
	}
}

static void test_round_trip_text(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *t = make_text(sizes[i]);
		size_t n = round_trip(t, sizes[i]);

		if (sizes[i] >= 4096) {
			assert_true(n < sizes[i] / 4);
		}
		free(t);
	}
}

static void test_round_trip_random(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *r = make_random(sizes[i], (uint32_t)i + 1);
		uint8_t *c = malloc(sizes[i] + 1);

		round_trip(r, sizes[i]);
		/* Random data does not shrink: with out_cap < in_len the
		 * compressor gives up. */
		if (sizes[i] > 0) {
			assert_int_equal(xca_huff_compress(r, sizes[i], c,
							   sizes[i] - 1), 0);
		}
		free(c);
		free(r);
	}
}

/* Mixed: random, then text, then zeros, matches across blocks. */
static void test_round_trip_mixed(void **state)
{
	size_t len = 5 * 65536 + 123, i;
	uint8_t *m = make_random(len, 7);
	uint8_t *t = make_text(len);

	(void)state;
	for (i = 0; i < len; i++) {
		if (i % 100000 > 30000) {
			m[i] = i % 100000 > 70000 ? 0 : t[i];
		}
	}
	/* Repeat one stretch right across a block boundary. */
	memcpy(m + 2 * 65536 - 1000, m + 2 * 65536 - 40000, 3000);
	round_trip(m, len);
	free(m);
	free(t);
}

static void test_round_trip_8m(void **state)
{
	size_t len = 8u << 20;
	uint8_t *t = make_text(len);
	uint8_t *r = make_random(len, 99);
	uint8_t *z = calloc(1, len + 1);

	(void)state;
	round_trip(t, len);
	round_trip(r, len);
	round_trip(z, len);
	free(t);
	free(r);
	free(z);
}

/*
 * Skewed symbol frequencies (Fibonacci counts: 1, 1, 2, 3, 5, ...) give a
 * Huffman tree far deeper than 15; the codes must still be limited.  The
 * bytes are shuffled so that literals, not matches, carry the counts.
 */
static void test_deep_tree(void **state)
{
	size_t len = 0, i;
	uint8_t *p = malloc(1u << 18);
	uint32_t a = 1, b = 1, seed = 1;
	unsigned sym;

	(void)state;
	assert_non_null(p);
	for (sym = 0; sym < 25; sym++) {
		uint32_t t = a + b;

		for (i = 0; i < a; i++) {
			p[len++] = (uint8_t)(sym * 7 + 1);
		}
		a = b;
		b = t;
	}
	for (i = len - 1; i > 0; i--) {
		size_t j;
		uint8_t x;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % (i + 1);
		x = p[i];
		p[i] = p[j];
		p[j] = x;
	}
	round_trip(p, len);
	round_trip(p, 65536);
	free(p);
}

/*
 * A match may run past the 64 KiB block end (2.2.4 checks BlockEnd only
 * before a symbol); the next block's table then follows the words read so
 * far and its 64 KiB count from where the match ended.  Block 1: 'x' and
 * a match of 65537 at offset 1 (symbol 271, escape ff then 16 bits of
 * 65534), 65538 bytes; block 2: 'y' and EOF.
 */
static void test_match_across_block(void **state)
{
	uint8_t s[2 * 260 + 3] = { 0 };
	uint8_t *out = malloc(65540);
	size_t i;

	(void)state;
	assert_non_null(out);
	s[0x3c] = 0x01;			/* 'x' 1 bit: code 0 */
	s[135] = 0x10;			/* 271 1 bit: code 1 */
	s[257] = 0x40;			/* 0 1, then 14 bits of padding */
	s[260] = 0xff;
	s[261] = 0xfe;
	s[262] = 0xff;
	s[263 + 0x3c] = 0x10;		/* 'y' 1 bit: code 0 */
	s[263 + 128] = 0x01;		/* EOF 1 bit: code 1 */
	s[263 + 257] = 0x40;		/* 0 1 */
	assert_true(xca_huff_decompress(s, sizeof(s), out, 65539));
	for (i = 0; i < 65538; i++) {
		assert_int_equal(out[i], 'x');
	}
	assert_int_equal(out[65538], 'y');
	assert_false(xca_huff_decompress(s, sizeof(s), out, 65538));
	assert_false(xca_huff_decompress(s, sizeof(s), out, 65540));
	free(out);
}

/* Every prefix of a valid stream is refused. */
static void test_truncated(void **state)
{
	uint8_t *t = make_text(70000);
	uint8_t *c = malloc(80000);
	uint8_t *d = malloc(70000);
	size_t n, k;

	(void)state;
	for (k = 0; k < sizeof(spec_alpha); k++) {
		assert_false(xca_huff_decompress(spec_alpha, k, d, 26));
	}
	for (k = 0; k < sizeof(spec_abc); k++) {
		assert_false(xca_huff_decompress(spec_abc, k, d, 300));
	}
	n = xca_huff_compress(t, 70000, c, 80000);
	assert_true(n > 0);
	for (k = 0; k < n; k += (k < 600 || n - k < 600) ? 1 : 97) {
		assert_false(xca_huff_decompress(c, k, d, 70000));
	}
	free(t);
	free(c);
	free(d);
}

/* Code 0 = literal 0x00, code 1 = symbol 256 (match 3 at offset 1). */
static void lit0_and_256(uint8_t *s, uint16_t word0)
{
	memset(s, 0, 260);
	s[0] = 0x01;		/* symbol 0: 1 bit */
	s[128] = 0x01;		/* symbol 256: 1 bit */
	s[256] = (uint8_t)word0;
	s[257] = (uint8_t)(word0 >> 8);
}

static void test_backref_before_start(void **state)
{
	uint8_t s[260], out[8];

	(void)state;
	/* 0 1 1: literal, match 3 at offset 1, EOF -> 4 zero bytes. */
	lit0_and_256(s, 0x6000);
	memset(out, 0xaa, sizeof(out));
	assert_true(xca_huff_decompress(s, sizeof(s), out, 4));
	assert_memory_equal(out, "\0\0\0\0\xaa", 5);
	/* 1: a match at output position 0 refers before the start. */
	lit0_and_256(s, 0x8000);
	assert_false(xca_huff_decompress(s, sizeof(s), out, 3));
	assert_false(xca_huff_decompress(s, sizeof(s), out, 4));
	/* 0 1 with only 3 bytes expected: the match would overrun. */
	lit0_and_256(s, 0x6000);
	memset(out, 0xaa, sizeof(out));
	assert_false(xca_huff_decompress(s, sizeof(s), out, 3));
	assert_int_equal(out[3], 0xaa);
}

static void test_bad_table(void **state)
{
	uint8_t s[276], out[26];

	(void)state;
	/* Over-subscribed: one 1-bit code too many. */
	memcpy(s, spec_alpha, sizeof(s));
	s[0] = 0x11;
	assert_false(xca_huff_decompress(s, sizeof(s), out, 26));
	/* All 512 symbols 1 bit long. */
	memset(s, 0x11, 256);
	assert_false(xca_huff_decompress(s, sizeof(s), out, 26));
	/* No codes at all. */
	memset(s, 0, 256);
	assert_false(xca_huff_decompress(s, sizeof(s), out, 26));
	/* Incomplete: a bit pattern no code starts with is refused
	 * (only 'a' with a 1-bit code, the stream starts with 1). */
	memset(s, 0, sizeof(s));
	s[48] = 0x10;
	s[257] = 0x80;
	assert_false(xca_huff_decompress(s, sizeof(s), out, 1));
	/* Empty input with output expected; no input, none expected. */
	assert_false(xca_huff_decompress(s, 0, out, 1));
	assert_true(xca_huff_decompress(s, 0, out, 0));
}

/* Long-length escapes: the 16-bit form below 15 is invalid. */
static void test_bad_length(void **state)
{
	uint8_t s[263], out[300];

	(void)state;
	memcpy(s, spec_abc, sizeof(s));
	s[260] = 0xff;
	s[261] = 14;
	s[262] = 0;
	assert_false(xca_huff_decompress(s, sizeof(s), out, 300));
	/* 16-bit 0 announces 32 bits that are not there. */
	s[261] = 0;
	assert_false(xca_huff_decompress(s, sizeof(s), out, 300));
}

static void test_small_cap(void **state)
{
	uint8_t *t = make_text(200000);
	uint8_t *c = malloc(200000 + 64);
	size_t n, cap;

	(void)state;
	n = xca_huff_compress(t, 200000, c, 200000);
	assert_true(n > 0);
	for (cap = 0; cap < n; cap += (n - cap > 300 && cap > 300) ? 61 : 1) {
		memset(c, 0x5a, 200000 + 64);
		assert_int_equal(xca_huff_compress(t, 200000, c, cap), 0);
		/* Nothing past out_cap. */
		for (size_t k = cap; k < 200000 + 64; k++) {
			assert_int_equal(c[k], 0x5a);
		}
	}
	assert_int_equal(xca_huff_compress(t, 200000, c, n), n);
	free(t);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_alpha),
		cmocka_unit_test(test_spec_abc),
		cmocka_unit_test(test_spec_encode),
		cmocka_unit_test(test_round_trip_zeros),
		cmocka_unit_test(test_round_trip_text),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_round_trip_mixed),
		cmocka_unit_test(test_round_trip_8m),
		cmocka_unit_test(test_deep_tree),
		cmocka_unit_test(test_match_across_block),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_backref_before_start),
		cmocka_unit_test(test_bad_table),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_small_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
