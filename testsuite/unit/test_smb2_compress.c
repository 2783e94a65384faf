/*
 * Unit tests for smbd/conn/smb2_compress.c: the compression context of
 * NEGOTIATE (MS-SMB2 3.3.5.4), COMPRESSION_TRANSFORM parsing under the
 * connection's limit (3.1.5, 3.3.5.2), and the sender's chained and
 * unchained forms (3.1.4.4, 3.1.4.4.1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "lib/wire.h"
#include "smbd/conn/smb2_compress.h"

#define LIMIT (8 * 1024 * 1024 + 256 + 16)
#define STATUS_IS(a, b) ((a) == (b))

static size_t ctx(uint8_t *b, uint32_t flags, const uint16_t *ids,
		  uint16_t n)
{
	uint16_t i;

	put_le16(b, n);
	put_le16(b + 2, 0);
	put_le32(b + 4, flags);
	for (i = 0; i < n; i++) {
		put_le16(b + 8 + 2 * i, ids[i]);
	}
	return 8 + 2 * (size_t)n;
}

static void test_negotiate(void **state)
{
	uint8_t b[64];
	struct smb2_compress_caps caps;
	const uint16_t all[] = {0x0005, 0x0004, 0x0099, 0x0002, 0x0002,
				0x0001, 0x0003, 0x0000};
	const uint16_t lz77[] = {SMB2_COMPRESSION_LZ77};
	const uint16_t pat[] = {SMB2_COMPRESSION_PATTERN_V1,
				SMB2_COMPRESSION_LZ4};
	size_t n;

	(void)state;
	n = ctx(b, SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED, all, 8);
	assert_true(NT_STATUS_IS_OK(smb2_compress_negotiate(b, n, true,
							    &caps)));
	/* ours in the client's order; unknown, duplicate and NONE left out */
	assert_int_equal(caps.n, 5);
	assert_int_equal(caps.ids[0], SMB2_COMPRESSION_LZ4);
	assert_int_equal(caps.ids[1], SMB2_COMPRESSION_PATTERN_V1);
	assert_int_equal(caps.ids[2], SMB2_COMPRESSION_LZ77);
	assert_int_equal(caps.ids[3], SMB2_COMPRESSION_LZNT1);
	assert_int_equal(caps.ids[4], SMB2_COMPRESSION_LZ77_HUFFMAN);
	assert_true(caps.chained);
	/* not chained: Pattern_V1 has no use */
	n = ctx(b, 0, pat, 2);
	assert_true(NT_STATUS_IS_OK(smb2_compress_negotiate(b, n, true,
							    &caps)));
	assert_int_equal(caps.n, 1);
	assert_int_equal(caps.ids[0], SMB2_COMPRESSION_LZ4);
	assert_false(caps.chained);
	/* the server may refuse chaining */
	n = ctx(b, SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED, lz77, 1);
	assert_true(NT_STATUS_IS_OK(smb2_compress_negotiate(b, n, false,
							    &caps)));
	assert_false(caps.chained);
	/* 3.3.5.4: no algorithm, a short list, unknown flags */
	n = ctx(b, 0, lz77, 0);
	assert_true(STATUS_IS(smb2_compress_negotiate(b, n, true, &caps),
				    NT_STATUS_INVALID_PARAMETER));
	n = ctx(b, 0, lz77, 1);
	put_le16(b, 2);
	assert_true(STATUS_IS(smb2_compress_negotiate(b, n, true, &caps),
				    NT_STATUS_INVALID_PARAMETER));
	n = ctx(b, 0x2, lz77, 1);
	assert_true(STATUS_IS(smb2_compress_negotiate(b, n, true, &caps),
				    NT_STATUS_INVALID_PARAMETER));
	assert_true(STATUS_IS(smb2_compress_negotiate(b, 7, true, &caps),
				    NT_STATUS_INVALID_PARAMETER));
}

static const struct smb2_compress_caps chained_caps = {
	{SMB2_COMPRESSION_LZ4, SMB2_COMPRESSION_PATTERN_V1}, 2, true};
static const struct smb2_compress_caps lz4_caps = {
	{SMB2_COMPRESSION_LZ4}, 1, false};

static NTSTATUS dec(const struct smb2_compress_caps *caps, const uint8_t *b,
		    size_t len, uint8_t **out, size_t *out_len)
{
	return smb2_decompress(NULL, caps, b, len, LIMIT, out, out_len);
}

static void test_bombs(void **state)
{
	uint8_t b[64];
	uint8_t *out = NULL;
	size_t out_len = 0;

	(void)state;
	/* unchained: 16 MiB claimed: refused before anything is made */
	memset(b, 0, sizeof(b));
	put_le32(b, SMB2_COMP_TF_MAGIC);
	put_le32(b + 4, 16 * 1024 * 1024);
	put_le16(b + 8, SMB2_COMPRESSION_LZ4);
	assert_true(STATUS_IS(dec(&lz4_caps, b, 64, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* Offset past the end of the message */
	put_le32(b + 4, 100);
	put_le32(b + 12, 49);
	assert_true(STATUS_IS(dec(&lz4_caps, b, 64, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* chained: a pattern of 16 MiB */
	put_le32(b + 4, 16 * 1024 * 1024);
	put_le16(b + 8, SMB2_COMPRESSION_PATTERN_V1);
	put_le16(b + 10, SMB2_COMPRESSION_FLAG_CHAINED);
	put_le32(b + 12, 8);
	put_le32(b + 20, 16 * 1024 * 1024);
	assert_true(STATUS_IS(dec(&chained_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* within the limit, but more repetitions than announced */
	put_le32(b + 4, 4096);
	put_le32(b + 20, 4097);
	assert_true(STATUS_IS(dec(&chained_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* fewer */
	put_le32(b + 20, 4095);
	assert_true(STATUS_IS(dec(&chained_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* exact: 4096 bytes of 0x00 */
	put_le32(b + 20, 4096);
	assert_true(NT_STATUS_IS_OK(dec(&chained_caps, b, 24, &out, &out_len)));
	assert_int_equal(out_len, 4096);
	assert_int_equal(out[4095], 0);
	talloc_free(out);
	/* a Pattern_V1 payload of the wrong length */
	put_le32(b + 12, 9);
	assert_true(STATUS_IS(dec(&chained_caps, b, 25, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* Pattern_V1 not negotiated */
	put_le32(b + 12, 8);
	assert_true(STATUS_IS(dec(&lz4_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* a NONE payload longer than the message */
	put_le16(b + 8, SMB2_COMPRESSION_NONE);
	put_le32(b + 12, 100);
	assert_true(STATUS_IS(dec(&chained_caps, b, 64, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* an algorithm that does not exist */
	put_le16(b + 8, 0x0042);
	put_le32(b + 12, 8);
	assert_true(STATUS_IS(dec(&chained_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* flags that are neither form */
	put_le16(b + 10, 2);
	assert_true(STATUS_IS(dec(&chained_caps, b, 24, &out, &out_len),
				    NT_STATUS_INVALID_PARAMETER));
	/* nothing negotiated */
	{
		struct smb2_compress_caps none = {{0}, 0, false};

		put_le16(b + 10, 0);
		assert_true(STATUS_IS(dec(&none, b, 24, &out, &out_len),
					    NT_STATUS_INVALID_PARAMETER));
	}
}

/* A READ reply's look: a header, the body, then data. */
static uint8_t *message(size_t data_len, int kind, size_t *len)
{
	uint8_t *m = malloc(80 + data_len);
	size_t i;

	memset(m, 0x11, 80);
	put_le32(m, 0x424D53FEu);
	for (i = 0; i < data_len; i++) {
		switch (kind) {
		case 0:
			m[80 + i] = 0;
			break;
		case 1:
			m[80 + i] = "the quick brown fox jumps "[i % 26];
			break;
		default:
			m[80 + i] = (uint8_t)((i * 2654435761u) >> 13);
			break;
		}
	}
	*len = 80 + data_len;
	return m;
}

static void roundtrip(const struct smb2_compress_caps *caps, int kind,
		      size_t data_len, bool expect)
{
	size_t len, n, back_len = 0;
	uint8_t *m = message(data_len, kind, &len), *back = NULL;
	uint8_t *f = malloc(len);

	n = smb2_compress_msg(caps, m, len, 80, f, len);
	if (!expect) {
		assert_int_equal(n, 0);
	} else {
		assert_true(n > 0 && n < len);
		assert_int_equal(le32(f), SMB2_COMP_TF_MAGIC);
		assert_true(NT_STATUS_IS_OK(dec(caps, f, n, &back,
						&back_len)));
		assert_int_equal(back_len, len);
		assert_memory_equal(back, m, len);
		talloc_free(back);
	}
	free(f);
	free(m);
}

static void test_roundtrips(void **state)
{
	const struct smb2_compress_caps pattern_only = {
		{SMB2_COMPRESSION_PATTERN_V1}, 1, true};

	(void)state;
	roundtrip(&lz4_caps, 0, 65536, true);
	roundtrip(&lz4_caps, 1, 65536, true);
	roundtrip(&chained_caps, 0, 65536, true);
	roundtrip(&chained_caps, 1, 65536, true);
	roundtrip(&pattern_only, 0, 65536, true);
	/* text has no run worth a pattern, and Pattern_V1 is all there is */
	roundtrip(&pattern_only, 1, 65536, false);
	roundtrip(&lz4_caps, 1, 300, true);
	roundtrip(&lz4_caps, 1, 1, false);
}

/* 3.1.4.4.1: zeros, data, zeros: NONE(plain), Pattern, LZ4, Pattern. */
static void test_chained_layout(void **state)
{
	size_t len, n, off;
	uint8_t *m = message(8192, 1, &len), *f = malloc(len);
	uint16_t algs[8];
	unsigned na = 0;

	(void)state;
	memset(m + 80, 0, 1000);
	memset(m + len - 700, 0xAB, 700);
	n = smb2_compress_msg(&chained_caps, m, len, 80, f, len);
	assert_true(n > 0);
	assert_int_equal(le32(f + 4), len);
	/* the first payload says CHAINED; the others do not */
	assert_int_equal(le16(f + 10), SMB2_COMPRESSION_FLAG_CHAINED);
	for (off = 8; off < n && na < 8; off += 8 + le32(f + off + 4)) {
		algs[na] = le16(f + off);
		if (na > 0) {
			assert_int_equal(le16(f + off + 2), 0);
		}
		na++;
	}
	assert_int_equal(off, n);
	assert_int_equal(na, 4);
	assert_int_equal(algs[0], SMB2_COMPRESSION_NONE);
	assert_int_equal(algs[1], SMB2_COMPRESSION_PATTERN_V1);
	assert_int_equal(algs[2], SMB2_COMPRESSION_LZ4);
	assert_int_equal(algs[3], SMB2_COMPRESSION_PATTERN_V1);
	free(f);
	free(m);
}

static void test_limit(void **state)
{
	(void)state;
	assert_int_equal(smb2_decompress_limit(8388608, 1048576, 65536),
			 8388608 + 256 + 16);
	assert_int_equal(smb2_decompress_limit(65536, 65536, 1048576),
			 1048576 + 256 + 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_bombs),
		cmocka_unit_test(test_roundtrips),
		cmocka_unit_test(test_chained_layout),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
