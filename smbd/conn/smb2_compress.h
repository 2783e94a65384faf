/*
 * SMB 3.1.1 compression (MS-SMB2 2.2.3.1.3, 2.2.42, 3.1.4.4, 3.1.5):
 * what a connection negotiated, and the COMPRESSION_TRANSFORM_HEADER in
 * both forms (unchained and chained) taken apart and put together.
 * smb2_compress.c says how the pieces fit.
 */
#ifndef SMBD_SMB2_COMPRESS_H
#define SMBD_SMB2_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ntstatus.h"

/* 2.2.3.1.3 CompressionAlgorithms. */
#define SMB2_COMPRESSION_NONE 0x0000
#define SMB2_COMPRESSION_LZNT1 0x0001
#define SMB2_COMPRESSION_LZ77 0x0002
#define SMB2_COMPRESSION_LZ77_HUFFMAN 0x0003
#define SMB2_COMPRESSION_PATTERN_V1 0x0004
#define SMB2_COMPRESSION_LZ4 0x0005
/* 2.2.3.1.3 Flags. */
#define SMB2_COMPRESSION_CAPABILITIES_FLAG_NONE 0x00000000u
#define SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED 0x00000001u
/* 2.2.42 Flags. */
#define SMB2_COMPRESSION_FLAG_NONE 0x0000
#define SMB2_COMPRESSION_FLAG_CHAINED 0x0001

/* 0xFC 'S' 'M' 'B' read as a little-endian 32-bit value. */
#define SMB2_COMP_TF_MAGIC 0x424D53FCu
/* 2.2.42.1: ProtocolId, OriginalCompressedSegmentSize, CompressionAlgorithm,
 * Flags, Offset. */
#define SMB2_COMP_TF_HDR_LEN 16
/* 2.2.42.2: ProtocolId and OriginalCompressedSegmentSize, then payloads. */
#define SMB2_COMP_TF_CHAINED_HDR_LEN 8
/* 2.2.42.2.1 without OriginalPayloadSize. */
#define SMB2_COMP_PAYLOAD_HDR_LEN 8
/* 2.2.42.2.2. */
#define SMB2_COMP_PATTERN_LEN 8
/* 3.1.4.4.1: shorter runs are not worth a Pattern_V1 payload. */
#define SMB2_COMP_PATTERN_MIN 64

/* The algorithms a connection may use, at most one of each (all of ours:
 * the four codecs and Pattern_V1). */
#define SMB2_COMPRESS_MAX_IDS 5

/* What NEGOTIATE settled (3.3.1.7 Connection.CompressionIds,
 * Connection.SupportsChainedCompression); n == 0: no compression. */
struct smb2_compress_caps {
	uint16_t ids[SMB2_COMPRESS_MAX_IDS];	/* client's order, no NONE */
	uint8_t n;
	bool chained;
};

/* An algorithm id we implement (NONE is not an algorithm). */
bool smb2_compress_algo_known(uint16_t id);
bool smb2_compress_has(const struct smb2_compress_caps *caps, uint16_t id);

/*
 * 3.3.5.4: the server's answer to a client's SMB2_COMPRESSION_CAPABILITIES
 * (data, len: the context's Data).  INVALID_PARAMETER for no algorithm, a
 * DataLength short of the list, or flags other than NONE/CHAINED; else
 * caps holds the ones we implement in the client's order (Pattern_V1 only
 * with chaining, where alone it can be used; chaining only when the
 * client asked for it and allow_chained).  caps->n may be 0: none in
 * common, the reply says NONE.
 */
NTSTATUS smb2_compress_negotiate(const uint8_t *data, size_t len,
				 bool allow_chained,
				 struct smb2_compress_caps *caps);

/* Upper bound of a decompressed message on a connection (3.3.5.2.x: 256
 * plus the transform header plus the largest of MaxRead, MaxWrite,
 * MaxTransact): a larger OriginalCompressedSegmentSize is refused before
 * anything is allocated. */
size_t smb2_decompress_limit(uint32_t max_read, uint32_t max_write,
			     uint32_t max_trans);

/*
 * Decompress a received COMPRESSION_TRANSFORM message (buf, len; starts
 * with 0xFC 'S' 'M' 'B'), chained or not, with the algorithms of caps.
 * On NT_STATUS_OK *out (talloc'ed on mem_ctx) holds *out_len bytes, the
 * message as it was before compression.  NT_STATUS_INVALID_PARAMETER for
 * anything malformed or over limit (the caller drops the connection,
 * 3.3.5.2), NT_STATUS_NO_MEMORY when the allocation failed.
 */
NTSTATUS smb2_decompress(void *mem_ctx, const struct smb2_compress_caps *caps,
			 const uint8_t *buf, size_t len, size_t limit,
			 uint8_t **out, size_t *out_len);

/*
 * 3.1.4.4: compress msg (len bytes, one SMB2 message, signed already)
 * into out, a COMPRESSION_TRANSFORM message of at most out_cap bytes.
 * The first plain bytes (the header and fixed body of a READ reply) stay
 * uncompressed, as Windows sends them.  Chained when caps->chained, with
 * Pattern_V1 for a leading and trailing run of one byte (3.1.4.4.1);
 * unchained otherwise.  Returns the length written, or 0 when it would
 * not be smaller than msg or fit in out_cap: then msg goes as it is.
 * No allocation: runs in a pool thread.
 */
size_t smb2_compress_msg(const struct smb2_compress_caps *caps,
			 const uint8_t *msg, size_t len, size_t plain,
			 uint8_t *out, size_t out_cap);

#endif
