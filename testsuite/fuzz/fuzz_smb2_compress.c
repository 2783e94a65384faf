/*
 * libFuzzer target for the COMPRESSION_TRANSFORM framing
 * (smbd/conn/smb2_compress.c): arbitrary bytes, made to start with
 * 0xFC 'S' 'M' 'B', go through smb2_decompress with every algorithm
 * negotiated, chained and not, under a 1 MiB limit.  Nothing may crash,
 * read out of bounds, leak, or come out larger than the limit.
 *
 * The same bytes, taken as an SMB2 message, also go through
 * smb2_compress_msg under each negotiated set (the first input byte picks
 * it) and must decompress back to exactly themselves.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "lib/wire.h"
#include "smbd/conn/smb2_compress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_LIMIT (1024 * 1024)

static const struct smb2_compress_caps sets[] = {
	{{SMB2_COMPRESSION_LZ77}, 1, false},
	{{SMB2_COMPRESSION_LZNT1}, 1, false},
	{{SMB2_COMPRESSION_LZ77_HUFFMAN}, 1, false},
	{{SMB2_COMPRESSION_LZ4}, 1, false},
	{{SMB2_COMPRESSION_PATTERN_V1}, 1, true},
	{{SMB2_COMPRESSION_LZ77, SMB2_COMPRESSION_PATTERN_V1}, 2, true},
	{{SMB2_COMPRESSION_LZ4, SMB2_COMPRESSION_PATTERN_V1,
	  SMB2_COMPRESSION_LZNT1, SMB2_COMPRESSION_LZ77_HUFFMAN,
	  SMB2_COMPRESSION_LZ77},
	 5,
	 true},
	{{SMB2_COMPRESSION_LZ77_HUFFMAN, SMB2_COMPRESSION_PATTERN_V1}, 2,
	 true},
};
#define NSETS (sizeof(sets) / sizeof(sets[0]))

static void decode(const uint8_t *data, size_t size,
		   const struct smb2_compress_caps *caps)
{
	uint8_t *out = NULL;
	size_t out_len = 0;
	NTSTATUS st;

	st = smb2_decompress(NULL, caps, data, size, FUZZ_LIMIT, &out,
			     &out_len);
	if (NT_STATUS_IS_OK(st)) {
		if (out_len > FUZZ_LIMIT ||
		    talloc_get_size(out) != out_len) {
			abort();
		}
		talloc_free(out);
	}
}

static void roundtrip(const uint8_t *msg, size_t len,
		      const struct smb2_compress_caps *caps, size_t plain)
{
	uint8_t *frame = malloc(len + 1), *back = NULL;
	size_t n, back_len = 0;

	if (frame == NULL) {
		return;
	}
	n = smb2_compress_msg(caps, msg, len, plain, frame, len);
	if (n > 0) {
		if (n >= len ||
		    !NT_STATUS_IS_OK(smb2_decompress(NULL, caps, frame, n,
						     FUZZ_LIMIT, &back,
						     &back_len)) ||
		    back_len != len || memcmp(back, msg, len) != 0) {
			abort();
		}
		talloc_free(back);
	}
	free(frame);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t i;

	if (size < 1 || size > FUZZ_LIMIT) {
		return 0;
	}
	buf = malloc(size + 4);
	if (buf == NULL) {
		return 0;
	}
	put_le32(buf, SMB2_COMP_TF_MAGIC);
	memcpy(buf + 4, data, size);
	for (i = 0; i < NSETS; i++) {
		decode(buf, size + 4, &sets[i]);
	}
	roundtrip(data + 1, size - 1, &sets[data[0] % NSETS],
		  size - 1 > 80 ? 80 : (data[0] >> 4) % (size));
	free(buf);
	return 0;
}
