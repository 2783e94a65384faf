/*
 * libFuzzer target: lib/xca_huff.c, MS-XCA LZ77+Huffman.
 *
 * The first byte picks how the expected size is read: below 0x80 from the
 * next 2 bytes (at most 64 KiB, one block), else from the next 3 (at most
 * 256 KiB, so the decoder goes on to later blocks).  The bytes after that
 * are decompressed into a buffer of exactly that size, which must not
 * crash or touch anything outside it, nor take more than XCA_STEPS_MAX
 * steps of work (counted: XCA_COUNT_STEPS, lib/xca.h).  The same bytes
 * are then compressed with room to spare, which must succeed, and
 * decompressed again, which must give them back; one byte less room
 * than that must make the compressor give up without writing past it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xca.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_any(const uint8_t *data, size_t size)
{
	size_t hdr, out_len;
	uint8_t *out;

	if (size < 1) {
		return;
	}
	if (data[0] < 0x80) {
		hdr = 3;
		if (size < hdr) {
			return;
		}
		out_len = (size_t)data[1] | (size_t)data[2] << 8;
	} else {
		hdr = 4;
		if (size < hdr) {
			return;
		}
		out_len = ((size_t)data[1] | (size_t)data[2] << 8 |
			   (size_t)data[3] << 16) % (256u * 1024 + 1);
	}
	out = malloc(out_len + 1);
	if (out == NULL) {
		abort();
	}
	/* Linear work whatever the input (lib/xca.h). */
	xca_steps = 0;
	(void)xca_huff_decompress(data + hdr, size - hdr, out, out_len);
	if (xca_steps > XCA_STEPS_MAX(size - hdr, out_len)) {
		abort();
	}
	free(out);
}

static void round_trip(const uint8_t *in, size_t len)
{
	/* Per 64 KiB: table, words; at most ~10 bits a byte of data. */
	size_t cap = 2 * len + 300 * (len / 65536 + 2), n;
	uint8_t *c = malloc(cap);
	uint8_t *d = malloc(len + 1);

	if (c == NULL || d == NULL) {
		abort();
	}
	n = xca_huff_compress(in, len, c, cap);
	if (n == 0 || n > cap) {
		abort();
	}
	if (!xca_huff_decompress(c, n, d, len) || memcmp(d, in, len) != 0) {
		abort();
	}
	free(c);
	/* Exactly one byte too little room: refused, nothing written past
	 * it (the allocation is that size, so ASan would see it). */
	c = malloc(n - 1);
	if (c == NULL) {
		abort();
	}
	if (xca_huff_compress(in, len, c, n - 1) != 0) {
		abort();
	}
	free(c);
	free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_any(data, size);
	if (size >= 1) {
		round_trip(data + 1, size - 1);
	}
	return 0;
}
