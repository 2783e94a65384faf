/*
 * libFuzzer target: lib/xca_lz77.c, MS-XCA 2.3/2.4 Plain LZ77.
 *
 * The first 2 bytes (little-endian) are an output length, at most 64 KiB
 * by construction; the rest is decoded into a buffer of exactly that size
 * (allocated to the byte, so AddressSanitizer catches any write past it
 * and any read past the input).  The rest must also round-trip: compress
 * with room to spare must succeed and decode back to the same bytes, and
 * compress into less room than the input must either fail or give a
 * stream that decodes back too.  The decoder's work, counted
 * (XCA_COUNT_STEPS, lib/xca.h), may not pass XCA_STEPS_MAX.  Anything
 * else aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xca.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Exactly n bytes (malloc(0) is a real, empty block under ASan). */
static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n);

	if (p == NULL) {
		abort();
	}
	return p;
}

/* z[0..c) must decode to exactly in[0..n). */
static void check_decodes(const uint8_t *z, size_t c, const uint8_t *in,
			  size_t n)
{
	uint8_t *back = xmalloc(n);

	if (!xca_lz77_decompress(z, c, back, n) ||
	    (n > 0 && memcmp(back, in, n) != 0)) {
		abort();
	}
	free(back);
}

static void round_trip(const uint8_t *in, size_t n)
{
	size_t cap = n + n / 8 + 64, c;
	uint8_t *z = xmalloc(cap);

	c = xca_lz77_compress(in, n, z, cap);
	if (c == 0 || c > cap) {
		abort();
	}
	check_decodes(z, c, in, n);
	free(z);
	/* Tight room: exactly what it asks for, or refuse. */
	if (n > 1) {
		cap = n - 1;
		z = xmalloc(cap);
		c = xca_lz77_compress(in, n, z, cap);
		if (c > cap) {
			abort();
		}
		if (c > 0) {
			check_decodes(z, c, in, n);
		}
		free(z);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t out_len;
	uint8_t *out;

	if (size < 2) {
		return 0;
	}
	out_len = (size_t)data[0] | ((size_t)data[1] << 8);
	out = xmalloc(out_len);
	/* Exact-size heap buffers: ASan sees any overrun either side. */
	{
		uint8_t *in = xmalloc(size - 2);

		bool ok;

		memcpy(in, data + 2, size - 2);
		/* Linear work whatever the input (lib/xca.h). */
		xca_steps = 0;
		ok = xca_lz77_decompress(in, size - 2, out, out_len);
		if (xca_steps > XCA_STEPS_MAX(size - 2, out_len)) {
			abort();
		}
		if (ok) {
			/* What decoded must survive a round trip too. */
			round_trip(out, out_len);
		}
		free(in);
	}
	free(out);
	round_trip(data + 2, size - 2);
	return 0;
}
