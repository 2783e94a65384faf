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

#endif
