/*
 * Hand-built streams that make the MS-XCA decoders (lib/xca_*.c) work
 * hardest per byte, for issue 34's "decompression cost": the unit test
 * test_xca_cost counts their steps against XCA_STEPS_MAX (lib/xca.h),
 * the benchmark testsuite/bench/xca_cost times them.  Each is a valid
 * stream (it decodes to exactly out_len bytes), written here from
 * MS-XCA's formats, independently of the compressors:
 *
 * LZNT1 (2.5)       chunks of one literal and 1365 three-byte matches,
 *                   each at the chunk's start (the longest displacement)
 *                   or one byte back; chunks of 6 literals and 2 matches
 *                   per flag byte (no 8-literal fast path); empty
 *                   compressed chunks (3 bytes of input, no output).
 * Plain LZ77 (2.4)  three-byte matches one byte back or 8192 back;
 *                   25-byte matches through the 32-bit length escape;
 *                   a literal and a match in turn.
 * LZ77+Huffman (2.2) a new table every 64 KiB block, of 512 11-bit codes
 *                   (256 subtables, the most a table can need), the block
 *                   one long match; literals of 15-bit codes (two lookups
 *                   and a refill each); three-byte matches 32 KiB back
 *                   and one byte back behind 1-bit codes.
 */
#ifndef TESTSUITE_XCA_ADVERSARY_H
#define TESTSUITE_XCA_ADVERSARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xca_adv_codec { XCA_ADV_LZNT1, XCA_ADV_LZ77, XCA_ADV_HUFF };

struct xca_adv {
	const char *name;
	const char *what;
	enum xca_adv_codec codec;
	uint8_t *in;		/* talloc'ed, a child of the xca_adv */
	size_t in_len;
	size_t out_len;
};

/* How many there are. */
unsigned xca_adv_count(void);
/* Adversary i (< xca_adv_count()) for an output of at most out bytes
 * (out >= 1 MiB; the empty-chunk one takes out bytes of input and
 * gives none); NULL when out of memory. */
struct xca_adv *xca_adv_new(void *mem_ctx, unsigned i, size_t out);
/* Decode it into out (out_len bytes): whether the decoder took it. */
bool xca_adv_decode(const struct xca_adv *a, uint8_t *out);

#endif
