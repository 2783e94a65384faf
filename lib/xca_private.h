/*
 * What the MS-XCA decoders share (lib/xca_lz77.c, lib/xca_lznt1.c,
 * lib/xca_huff.c): the back-reference copy, the inner loop of every
 * LZ77-family decoder, and the count of their work (xca.h).
 */
#ifndef LIB_XCA_PRIVATE_H
#define LIB_XCA_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/xca.h"

/* n steps of a decoder's work (xca.h: counted only with XCA_COUNT_STEPS). */
#ifdef XCA_COUNT_STEPS
#define XCA_STEP(n) (xca_steps += (uint64_t)(n))
#else
#define XCA_STEP(n) ((void)0)
#endif
/* A memcpy or memset of n bytes, in steps. */
#define XCA_STEP_BYTES(n) XCA_STEP(1 + (size_t)(n) / 64)

/*
 * Copy len bytes from dist back, with room >= len bytes of output from
 * op on.  Overlap (dist < len) is how runs are encoded, so the result
 * must be as if copied a byte at a time: a short distance is first
 * widened (the bytes just copied repeat with period dist, so twice dist
 * names the same bytes), then 8 bytes go at a time, which is safe once
 * the source is at least 8 bytes behind.
 */
static inline void xca_copy_match(uint8_t *op, size_t dist, size_t len, size_t room)
{
	/*
	 * Short, far copies in whole 8-byte blocks, where the output has
	 * room for the last block's overshoot (later output overwrites it).
	 */
	if (dist >= 8 && room - len >= 8) {
		XCA_STEP(1 + len / 8);
		for (size_t k = 0; k < len; k += 8) {
			memcpy(op + k, op + k - dist, 8);
		}
		return;
	}
	XCA_STEP(1);
	while (dist < 8 && len > dist) {
		XCA_STEP(1);
		memcpy(op, op - dist, dist);
		op += dist;
		len -= dist;
		dist *= 2;
	}
	if (dist >= len) {
		XCA_STEP_BYTES(len);
		memcpy(op, op - dist, len);
		return;
	}
	XCA_STEP(len / 8);
	while (len >= 8) {
		memcpy(op, op - dist, 8);
		op += 8;
		len -= 8;
	}
	memcpy(op, op - dist, len);
}

#endif
