/*
 * The compression codecs SMB 3.1.1 compression uses (MS-SMB2 2.2.3.1.3,
 * 3.1.4.4; MS-XCA): Plain LZ77 (MS-XCA 2.3, 2.4), LZ77+Huffman (2.1, 2.2)
 * and LZNT1 (2.5), written from MS-XCA because no Debian library has
 * them.  Pattern_V1 and LZ4 (liblz4) live with the transform code that
 * uses them.
 *
 * Every codec is a pair of plain functions over caller-owned buffers, no
 * allocation on the decode side and no state between calls, so they run
 * on the loop thread or in the worker's pool alike.
 *
 * Compressors: compress in[0..in_len) into out[0..out_cap) and return the
 * compressed length, or 0 when the output would not fit in out_cap (the
 * caller then sends the data as it is: compression is only ever worth it
 * when the data shrinks, so callers pass out_cap < in_len).
 *
 * Decompressors: decode in[0..in_len) into exactly out_len bytes at out.
 * SMB2 always knows the original size (OriginalCompressedSegmentSize,
 * OriginalPayloadSize), so a stream that is malformed, truncated, refers
 * before the start of the output, or decodes to more or fewer than out_len
 * bytes is refused (false) and nothing past out[out_len) is ever written.
 */
#ifndef LIB_XCA_H
#define LIB_XCA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MS-XCA 2.3/2.4 Plain LZ77. */
size_t xca_lz77_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_cap);
bool xca_lz77_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_len);

/* MS-XCA 2.1/2.2 LZ77+Huffman. */
size_t xca_huff_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_cap);
bool xca_huff_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_len);

/* MS-XCA 2.5 LZNT1. */
size_t xca_lznt1_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap);
bool xca_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_len);

/*
 * The decoders' cost (issue 34, "decompression cost"): a decoder's work
 * is linear in its input and output, whatever the input, by
 * construction:
 *
 * - every iteration of a symbol loop reads at least one input byte
 *   (LZ77, LZNT1: a literal, a 2-byte match, a flag byte or word, a
 *   chunk header) or writes at least one output byte (LZ77+Huffman,
 *   whose codes may be 1 bit: a literal, or a match of 3 or more);
 * - a match copy moves 8 bytes a step once its distance reaches 8, and
 *   a shorter distance doubles to 8 in at most 3 steps (xca_private.h),
 *   so a 2-byte match token costs at most 6 steps and 1 per 8 bytes out;
 * - LZ77+Huffman builds a table per block: at most about 37,000 steps
 *   (the fixed passes over 512 symbols, and table entries filled, at
 *   most 2^15 as the code lengths' Kraft sum is at most 1), and every
 *   block but the last writes at least 64 KiB: at most out_len / 65536
 *   + 1 tables.
 *
 * So at most 3 steps per input byte, 2 per output byte and one table:
 * XCA_STEPS_MAX allows 4, 4 and 65536.  Builds that define
 * XCA_COUNT_STEPS (the fuzz targets, FUZZING, and the unit test
 * test_xca_cost) count the work in xca_steps: one per loop iteration of
 * a decoder, per table entry filled and per 64 bytes of a memcpy or
 * memset; other builds count nothing, at no cost.  The fuzz targets
 * assert the bound on every input they try, test_xca_cost on
 * hand-built worst cases (testsuite/common/xca_adversary.c), and
 * testsuite/bench/xca_cost measures those in time
 * (testsuite/bench/README.md).
 */
#define XCA_STEPS_MAX(in_len, out_len) \
	(4 * (uint64_t)(in_len) + 4 * (uint64_t)(out_len) + 65536)
#if defined(FUZZING) && !defined(XCA_COUNT_STEPS)
#define XCA_COUNT_STEPS 1
#endif
#ifdef XCA_COUNT_STEPS
extern uint64_t xca_steps;
#endif

#endif
