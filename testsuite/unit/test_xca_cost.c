/*
 * The MS-XCA decoders' work is linear in their input and output
 * (lib/xca.h, issue 34 "decompression cost"), checked by counting, not
 * timing: this program is built with its own copy of lib/xca_*.c under
 * XCA_COUNT_STEPS, and every decode below must stay within
 * XCA_STEPS_MAX(in_len, out_len):
 *
 * - the hand-built adversaries (testsuite/common/xca_adversary.c), each
 *   a valid stream that must decode;
 * - what our compressors make of text, zeros and noise;
 * - streams the decoders refuse (cut short, corrupted), which cost
 *   steps too before the refusal.
 *
 * The fuzz targets assert the same bound on every input they try.  The
 * largest steps / (in + out) seen is printed, to show the bound is not
 * loose by orders of magnitude.
 */
#include "lib/xca.h"
#include "testsuite/common/xca_adversary.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#define MIB (1024 * 1024)

static double worst_ratio;

static void check_steps(const char *what, size_t in_len, size_t out_len,
			uint64_t steps)
{
	double ratio = (double)steps / (double)(in_len + out_len + 1);

	if (ratio > worst_ratio) {
		worst_ratio = ratio;
	}
	if (steps > XCA_STEPS_MAX(in_len, out_len)) {
		fail_msg("%s: %llu steps for %zu bytes in, %zu out: over "
			 "XCA_STEPS_MAX %llu", what,
			 (unsigned long long)steps, in_len, out_len,
			 (unsigned long long)XCA_STEPS_MAX(in_len, out_len));
	}
}

static void test_adversaries(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < xca_adv_count(); i++) {
		struct xca_adv *a = xca_adv_new(NULL, i, 2 * MIB);
		uint8_t *out;

		assert_non_null(a);
		out = malloc(a->out_len + 1);
		assert_non_null(out);
		xca_steps = 0;
		if (!xca_adv_decode(a, out)) {
			fail_msg("%s: the decoder refused it", a->name);
		}
		print_message("%-20s %8zu in %8zu out %9llu steps "
			      "(%.2f per byte)\n", a->name, a->in_len,
			      a->out_len, (unsigned long long)xca_steps,
			      (double)xca_steps /
				      (double)(a->in_len + a->out_len));
		check_steps(a->name, a->in_len, a->out_len, xca_steps);
		/* Cut short and with a byte flipped: refused or not, no
		 * more work than the bound. */
		xca_steps = 0;
		(void)xca_adv_decode(&(struct xca_adv){
			.codec = a->codec, .in = a->in,
			.in_len = a->in_len / 2, .out_len = a->out_len}, out);
		check_steps(a->name, a->in_len / 2, a->out_len, xca_steps);
		a->in[a->in_len / 3] ^= 0x5a;
		xca_steps = 0;
		(void)xca_adv_decode(a, out);
		check_steps(a->name, a->in_len, a->out_len, xca_steps);
		free(out);
		talloc_free(a);
	}
}

typedef size_t (*compress_fn)(const uint8_t *, size_t, uint8_t *, size_t);
typedef bool (*decompress_fn)(const uint8_t *, size_t, uint8_t *, size_t);

static void round_trip(const char *name, compress_fn c, decompress_fn d,
		       const uint8_t *data, size_t len)
{
	size_t cap = len + len / 8 + 4096, n;
	uint8_t *z = malloc(cap), *back = malloc(len);

	assert_non_null(z);
	assert_non_null(back);
	n = c(data, len, z, cap);
	assert_true(n > 0);
	xca_steps = 0;
	assert_true(d(z, n, back, len));
	assert_memory_equal(back, data, len);
	check_steps(name, n, len, xca_steps);
	free(z);
	free(back);
}

static void test_compressed_data(void **state)
{
	static const char line[] = "the quick brown fox jumps over the "
				   "lazy dog, again and again.\n";
	size_t len = 1 * MIB, i;
	uint8_t *text = malloc(len), *zeros = calloc(1, len),
		*noise = malloc(len);
	uint32_t x = 1;

	(void)state;
	assert_non_null(text);
	assert_non_null(zeros);
	assert_non_null(noise);
	for (i = 0; i < len; i++) {
		text[i] = (uint8_t)line[i % (sizeof(line) - 1)];
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 16);
	}
	round_trip("lznt1 text", xca_lznt1_compress, xca_lznt1_decompress,
		   text, len);
	round_trip("lznt1 zeros", xca_lznt1_compress, xca_lznt1_decompress,
		   zeros, len);
	round_trip("lznt1 noise", xca_lznt1_compress, xca_lznt1_decompress,
		   noise, len);
	round_trip("lz77 text", xca_lz77_compress, xca_lz77_decompress, text,
		   len);
	round_trip("lz77 zeros", xca_lz77_compress, xca_lz77_decompress,
		   zeros, len);
	round_trip("lz77 noise", xca_lz77_compress, xca_lz77_decompress,
		   noise, len);
	round_trip("huff text", xca_huff_compress, xca_huff_decompress, text,
		   len);
	round_trip("huff zeros", xca_huff_compress, xca_huff_decompress,
		   zeros, len);
	round_trip("huff noise", xca_huff_compress, xca_huff_decompress,
		   noise, len);
	free(text);
	free(zeros);
	free(noise);
}

/* A stream of nothing but tables, and one that claims a huge output:
 * the work stays bounded by what the call allows. */
static void test_degenerate(void **state)
{
	uint8_t in[4096], *out = malloc(4 * MIB);

	(void)state;
	assert_non_null(out);
	/* every code 1 bit: oversubscribed */
	memset(in, 0x11, sizeof(in));
	xca_steps = 0;
	assert_false(xca_huff_decompress(in, sizeof(in), out, 4 * MIB));
	check_steps("huff oversubscribed", sizeof(in), 4 * MIB, xca_steps);
	memset(in, 0, sizeof(in));	/* no codes at all */
	xca_steps = 0;
	assert_false(xca_huff_decompress(in, sizeof(in), out, 4 * MIB));
	check_steps("huff empty table", sizeof(in), 4 * MIB, xca_steps);
	xca_steps = 0;
	assert_false(xca_lz77_decompress(in, sizeof(in), out, 4 * MIB));
	check_steps("lz77 zeros", sizeof(in), 4 * MIB, xca_steps);
	xca_steps = 0;
	(void)xca_lznt1_decompress(in, sizeof(in), out, 4 * MIB);
	check_steps("lznt1 zeros", sizeof(in), 4 * MIB, xca_steps);
	free(out);
}

static int report(void **state)
{
	(void)state;
	print_message("largest steps per byte in + out: %.2f\n", worst_ratio);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adversaries),
		cmocka_unit_test(test_compressed_data),
		cmocka_unit_test(test_degenerate),
	};

	return cmocka_run_group_tests(tests, NULL, report);
}
