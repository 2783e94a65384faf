/*
 * Unit tests for smbd/wire/fsctl_wire.c (the FSCTL structures of MS-SMB2
 * 2.2.31.1 / 2.2.32.x and MS-FSCC 2.3).
 *
 * Requests are built here at the offsets of the spec's tables (byte
 * offsets written out, not structures), so a wrong offset or width in
 * the parser shows up.  Covers the copychunk limits (3.3.3
 * Windows defaults) and every status the smbtorture smb2.ioctl tests
 * expect from a malformed input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>
#include <sys/socket.h>

#include "smbd/wire/fsctl_wire.h"

/* SRV_COPYCHUNK_COPY with n chunks of len bytes, chunk i from i*len to
 * 1000000 + i*len. */
static size_t cc_build(uint8_t *buf, uint32_t count, uint32_t n, uint32_t len)
{
	uint32_t i;

	memset(buf, 0, 32 + 24 * (size_t)n);
	for (i = 0; i < 24; i++) {
		buf[i] = (uint8_t)(0xa0 + i);
	}
	put_le32(buf + 24, count);
	for (i = 0; i < n; i++) {
		put_le64(buf + 32 + 24 * i, (uint64_t)i * len);
		put_le64(buf + 32 + 24 * i + 8, 1000000 + (uint64_t)i * len);
		put_le32(buf + 32 + 24 * i + 16, len);
		put_le32(buf + 32 + 24 * i + 20, 0xdeadbeef); /* Reserved */
	}
	return 32 + 24 * (size_t)n;
}

/* cc_build, then a parse that must succeed. */
static void cc_parse_ok(TALLOC_CTX *mem, uint8_t *buf, uint32_t count,
			uint32_t n, uint32_t len, struct fsctl_copychunk *cc)
{
	size_t size = cc_build(buf, count, n, len);

	assert_int_equal(fsctl_copychunk_parse(mem, buf, size, cc),
			 NT_STATUS_OK);
}

static void test_copychunk_parse(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	static uint8_t buf[32 + 24 * 300];
	struct fsctl_copychunk cc;
	size_t len;

	(void)state;
	len = cc_build(buf, 2, 2, 4096);
	assert_int_equal(fsctl_copychunk_parse(mem, buf, len, &cc),
			 NT_STATUS_OK);
	assert_int_equal(cc.count, 2);
	assert_int_equal(cc.key[0], 0xa0);
	assert_int_equal(cc.key[23], 0xa0 + 23);
	assert_int_equal(cc.chunks[1].src_off, 4096);
	assert_int_equal(cc.chunks[1].dst_off, 1000000 + 4096);
	assert_int_equal(cc.chunks[1].len, 4096);
	assert_true(fsctl_copychunk_limits_ok(&cc));

	/* Shorter than the 32-byte header, or than the array. */
	assert_int_equal(fsctl_copychunk_parse(mem, buf, 31, &cc),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(fsctl_copychunk_parse(mem, buf, len - 1, &cc),
			 NT_STATUS_INVALID_PARAMETER);
	/* Bytes past the announced chunks are ignored. */
	cc_parse_ok(mem, buf, 1, 2, 4096, &cc);
	assert_int_equal(cc.count, 1);

	/* No chunks at all: nothing to copy, nothing allocated. */
	cc_parse_ok(mem, buf, 0, 0, 0, &cc);
	assert_null(cc.chunks);
	assert_true(fsctl_copychunk_limits_ok(&cc));

	/* Over the chunk limit: parsed without reading (or allocating)
	 * the array, refused by the limits. */
	cc_parse_ok(mem, buf, 0xffffffff, 0, 0, &cc);
	assert_null(cc.chunks);
	assert_false(fsctl_copychunk_limits_ok(&cc));
	talloc_free(mem);
}

static void test_copychunk_limits(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	static uint8_t buf[32 + 24 * 300];
	struct fsctl_copychunk cc;

	(void)state;
	/* 256 chunks of 64 KiB (16 MiB): the most allowed. */
	cc_parse_ok(mem, buf, 256, 256, 65536, &cc);
	assert_true(fsctl_copychunk_limits_ok(&cc));
	cc_parse_ok(mem, buf, 257, 257, 1, &cc);
	assert_false(fsctl_copychunk_limits_ok(&cc));

	/* One chunk of 1 MiB is fine, one byte more is not; nor is 0
	 * (smbtorture copy_chunk_zero_length) or UINT_MAX
	 * (copy_chunk_limits). */
	cc_parse_ok(mem, buf, 1, 1, 1024 * 1024, &cc);
	assert_true(fsctl_copychunk_limits_ok(&cc));
	cc.chunks[0].len = 1024 * 1024 + 1;
	assert_false(fsctl_copychunk_limits_ok(&cc));
	cc.chunks[0].len = 0;
	assert_false(fsctl_copychunk_limits_ok(&cc));
	cc.chunks[0].len = 0xffffffff;
	assert_false(fsctl_copychunk_limits_ok(&cc));

	/* 16 MiB in total, then one chunk too many. */
	cc_parse_ok(mem, buf, 16, 16, 1024 * 1024, &cc);
	assert_true(fsctl_copychunk_limits_ok(&cc));
	cc_parse_ok(mem, buf, 17, 17, 1024 * 1024, &cc);
	assert_false(fsctl_copychunk_limits_ok(&cc));
	talloc_free(mem);
}

static void test_copychunk_rsp(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;

	(void)state;
	wire_buf_init(&b, mem, 0);
	fsctl_copychunk_rsp_push(&b, FSCTL_COPYCHUNK_MAX_CHUNKS,
				 FSCTL_COPYCHUNK_MAX_CHUNK_LEN,
				 FSCTL_COPYCHUNK_MAX_TOTAL);
	assert_int_equal(b.len, FSCTL_COPYCHUNK_RSP_LEN);
	assert_int_equal(le32(b.data + 0), 256);
	assert_int_equal(le32(b.data + 4), 1048576);
	assert_int_equal(le32(b.data + 8), 16777216);
	talloc_free(mem);
}

static void test_resume_key(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fsctl_resume_key k = {
		.fid_volatile = 0x1122334455667788ULL,
		.fid_persistent = 0x99aabbccddeeff00ULL,
		.tag = 0x0102030405060708ULL,
	};
	struct fsctl_resume_key k2;
	uint8_t key[FSCTL_RESUME_KEY_LEN];
	struct wire_buf b;

	(void)state;
	fsctl_resume_key_encode(&k, key);
	assert_int_equal(le64(key + 0), k.fid_volatile);
	assert_int_equal(le64(key + 8), k.fid_persistent);
	assert_int_equal(le64(key + 16), k.tag);
	fsctl_resume_key_decode(key, &k2);
	assert_memory_equal(&k, &k2, sizeof(k));

	/* SRV_REQUEST_RESUME_KEY: key, ContextLength 0, and the 4 bytes
	 * of Context Windows sends when there is room. */
	wire_buf_init(&b, mem, 0);
	assert_int_equal(fsctl_resume_key_rsp_push(&b, key, 27),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(b.len, 0);
	assert_int_equal(fsctl_resume_key_rsp_push(&b, key, 28), NT_STATUS_OK);
	assert_int_equal(b.len, 28);
	assert_memory_equal(b.data, key, 24);
	assert_int_equal(le32(b.data + 24), 0);
	b.len = 0;
	assert_int_equal(fsctl_resume_key_rsp_push(&b, key, 32), NT_STATUS_OK);
	assert_int_equal(b.len, 32);
	assert_int_equal(le32(b.data + 28), 0);
	talloc_free(mem);
}

/* FILE_ALLOCATED_RANGE_BUFFER / FILE_ZERO_DATA_INFORMATION of two
 * fields, parsed from size bytes. */
static NTSTATUS qar_of(uint64_t a, uint64_t b, size_t size)
{
	uint8_t buf[32];
	uint64_t off, len;
	NTSTATUS status;

	put_le64(buf + 0, a);
	put_le64(buf + 8, b);
	memcpy(buf + 16, buf, 16);
	status = fsctl_qar_parse(buf, size, &off, &len);
	if (NT_STATUS_IS_OK(status)) {
		assert_int_equal(off, a);
		assert_int_equal(len, b);
	}
	return status;
}

static NTSTATUS zero_data_of(uint64_t a, uint64_t b, size_t size)
{
	uint8_t buf[16];
	uint64_t off, bfz;
	NTSTATUS status;

	put_le64(buf + 0, a);
	put_le64(buf + 8, b);
	status = fsctl_zero_data_parse(buf, size, &off, &bfz);
	if (NT_STATUS_IS_OK(status)) {
		assert_int_equal(off, a);
		assert_int_equal(bfz, b);
	}
	return status;
}

static void test_qar_parse(void **state)
{
	(void)state;
	assert_int_equal(qar_of(4096, 1024, 16), NT_STATUS_OK);
	/* A second range after the first is ignored (sparse_qar_malformed
	 * "oversize"), an empty or short one refused ("qar empty"). */
	assert_int_equal(qar_of(4096, 1024, 32), NT_STATUS_OK);
	assert_int_equal(qar_of(4096, 1024, 0), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(qar_of(4096, 1024, 15), NT_STATUS_INVALID_PARAMETER);
	/* offset + length wraps (sparse_qar_overflow). */
	assert_int_equal(qar_of(512, 0xffffffffffffffffULL, 16),
			 NT_STATUS_INVALID_PARAMETER);
	/* Negative as a LONGLONG, and a sum past INT64_MAX. */
	assert_int_equal(qar_of(0x8000000000000000ULL, 0, 16),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(qar_of(0x7fffffffffffff00ULL, 0xff, 16),
			 NT_STATUS_OK);
	assert_int_equal(qar_of(0x7fffffffffffff00ULL, 0x100, 16),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_zero_data_parse(void **state)
{
	(void)state;
	assert_int_equal(zero_data_of(4095, 4095, 16), NT_STATUS_OK);
	/* FileOffset past BeyondFinalZero (sparse_punch_invalid). */
	assert_int_equal(zero_data_of(4096, 4095, 16),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(zero_data_of(0, 4095, 8),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(zero_data_of(0, 0xffffffffffffffffULL, 16),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_small_inputs(void **state)
{
	uint8_t buf[100];
	uint16_t fmt;

	(void)state;
	memset(buf, 0, sizeof(buf));
	/* FILE_SET_SPARSE_BUFFER: none means set (sparse_set_nobuf); a
	 * larger buffer counts by its first byte (sparse_set_oversize). */
	assert_true(fsctl_set_sparse_parse(NULL, 0));
	assert_false(fsctl_set_sparse_parse(buf, 1));
	assert_false(fsctl_set_sparse_parse(buf, sizeof(buf)));
	buf[0] = 0xff;
	assert_true(fsctl_set_sparse_parse(buf, 1));
	assert_true(fsctl_set_sparse_parse(buf, sizeof(buf)));

	buf[0] = 2;
	buf[1] = 0;
	assert_int_equal(fsctl_compression_parse(buf, 2, &fmt), NT_STATUS_OK);
	assert_int_equal(fmt, FSCTL_COMPRESSION_FORMAT_LZNT1);
	assert_int_equal(fsctl_compression_parse(buf, 1, &fmt),
			 NT_STATUS_INVALID_PARAMETER);
}

/* NETWORK_RESILIENCY_REQUEST through fsctl_resiliency_parse(). */
static NTSTATUS resiliency_of(uint32_t timeout_ms, uint32_t reserved,
			      size_t len, uint32_t *out)
{
	uint8_t buf[12];

	put_le32(buf, timeout_ms);
	put_le32(buf + 4, reserved);
	put_le32(buf + 8, 0xdeadbeef);
	*out = 0x5a5a5a5a;
	return fsctl_resiliency_parse(buf, len, 300000, 120000, out);
}

static void test_resiliency_parse(void **state)
{
	uint32_t t;

	(void)state;
	/* 3.3.5.15.9: the requested Timeout is taken as it is ... */
	assert_int_equal(resiliency_of(1000, 0, 8, &t), NT_STATUS_OK);
	assert_int_equal(t, 1000);
	assert_int_equal(resiliency_of(1, 0, 8, &t), NT_STATUS_OK);
	assert_int_equal(t, 1);
	/* ... up to the maximum, compared in seconds */
	assert_int_equal(resiliency_of(300000, 0, 8, &t), NT_STATUS_OK);
	assert_int_equal(t, 300000);
	assert_int_equal(resiliency_of(300999, 0, 8, &t), NT_STATUS_OK);
	assert_int_equal(t, 300999);
	assert_int_equal(resiliency_of(301000, 0, 8, &t),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(t, 0x5a5a5a5a);
	assert_int_equal(resiliency_of(0xffffffff, 0, 8, &t),
			 NT_STATUS_INVALID_PARAMETER);
	/* 0: the server's choice */
	assert_int_equal(resiliency_of(0, 0, 8, &t), NT_STATUS_OK);
	assert_int_equal(t, 120000);
	/* Reserved and what follows are ignored */
	assert_int_equal(resiliency_of(5000, 0xffffffff, 12, &t),
			 NT_STATUS_OK);
	assert_int_equal(t, 5000);
	/* shorter than the structure: INVALID_PARAMETER, even when the
	 * Timeout itself is all there */
	assert_int_equal(resiliency_of(1000, 0, 7, &t),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(resiliency_of(1000, 0, 4, &t),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(fsctl_resiliency_parse(NULL, 0, 300000, 120000, &t),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(t, 0x5a5a5a5a);
}

static void test_object_id(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	uint8_t vol[16];
	struct wire_buf b;

	(void)state;
	memset(vol, 0x5a, sizeof(vol));
	wire_buf_init(&b, mem, 0);
	fsctl_object_id_push(&b, 0x0801, 123456789, vol);
	assert_int_equal(b.len, FSCTL_OBJECTID_LEN);
	assert_int_equal(le64(b.data + 0), 123456789);
	assert_int_equal(le64(b.data + 8), 0x0801);
	assert_memory_equal(b.data + 16, vol, 16);
	assert_memory_equal(b.data + 32, b.data, 16);
	assert_int_equal(le64(b.data + 48), 0);
	assert_int_equal(le64(b.data + 56), 0);
	talloc_free(mem);
}

/* 2.2.32.2 SRV_SNAPSHOT_ARRAY as 3.3.5.15.1 sizes it (and as Samba
 * answers the 16-byte query: the 12-byte header, zero padded). */
static void test_snapshot_array(void **state)
{
	static const char *const tok[] = {"@GMT-2024.01.02-03.04.05",
					  "@GMT-2023.05.06-07.08.09"};
	static const char *const bad[] = {"@GMT-2024.01.02-03.04.0"};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;
	size_t i;

	(void)state;
	/* under 16: refused */
	wire_buf_init(&b, mem, 0);
	assert_int_equal(fsctl_snapshot_array_push(&b, tok, 2, 15),
			 NT_STATUS_INVALID_PARAMETER);
	/* the size-only answer, for 16 and for anything short of 114 */
	for (i = 16; i < 114; i += 97) {
		wire_buf_init(&b, mem, 0);
		assert_int_equal(fsctl_snapshot_array_push(&b, tok, 2,
							   (uint32_t)i),
				 NT_STATUS_OK);
		assert_int_equal(b.len, 16);
		assert_int_equal(le32(b.data), 2);
		assert_int_equal(le32(b.data + 4), 0);
		assert_int_equal(le32(b.data + 8), 102);
		assert_int_equal(le32(b.data + 12), 0);
	}
	/* all of it: the tokens as NUL-terminated UTF-16, a final NUL */
	wire_buf_init(&b, mem, 0);
	assert_int_equal(fsctl_snapshot_array_push(&b, tok, 2, 114),
			 NT_STATUS_OK);
	assert_int_equal(b.len, 114);
	assert_int_equal(le32(b.data + 4), 2);
	for (i = 0; i < 24; i++) {
		assert_int_equal(b.data[12 + 2 * i], tok[0][i]);
		assert_int_equal(b.data[12 + 2 * i + 1], 0);
		assert_int_equal(b.data[62 + 2 * i], tok[1][i]);
	}
	assert_int_equal(le16(b.data + 60), 0);
	assert_int_equal(le16(b.data + 110), 0);
	assert_int_equal(le16(b.data + 112), 0);
	/* none: an empty list is its final NUL */
	wire_buf_init(&b, mem, 0);
	assert_int_equal(fsctl_snapshot_array_push(&b, NULL, 0, 16),
			 NT_STATUS_OK);
	assert_int_equal(b.len, 14);
	assert_int_equal(le32(b.data), 0);
	assert_int_equal(le32(b.data + 8), 2);
	/* a malformed token is refused, nothing half-written matters */
	wire_buf_init(&b, mem, 0);
	assert_int_equal(fsctl_snapshot_array_push(&b, bad, 1, 1000),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

static void test_net_iface(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fsctl_net_iface v[2];
	struct wire_buf b;
	size_t i;

	(void)state;
	memset(v, 0, sizeof(v));
	v[0].if_index = 2;
	v[0].link_speed = 10000000000ULL;
	v[0].family = AF_INET;
	v[0].addr[0] = 192;
	v[0].addr[1] = 168;
	v[0].addr[2] = 1;
	v[0].addr[3] = 7;
	v[1].if_index = 3;
	v[1].capability = FSCTL_NET_IFACE_RSS_CAPABLE;
	v[1].link_speed = 1000000000ULL;
	v[1].family = AF_INET6;
	for (i = 0; i < 16; i++) {
		v[1].addr[i] = (uint8_t)(0x20 + i);
	}
	v[1].scope_id = 9;

	wire_buf_init(&b, mem, 0);
	fsctl_net_iface_push(&b, v, 2);
	assert_int_equal(b.len, 2 * FSCTL_NET_IFACE_LEN);
	/* 2.2.32.5: Next, IfIndex, Capability, Reserved, LinkSpeed,
	 * SockAddr_Storage (Family, then the 2.2.32.5.1.x address). */
	assert_int_equal(le32(b.data + 0), FSCTL_NET_IFACE_LEN);
	assert_int_equal(le32(b.data + 4), 2);
	assert_int_equal(le32(b.data + 8), 0);
	assert_int_equal(le64(b.data + 16), 10000000000ULL);
	assert_int_equal(b.data[24], 0x02);
	assert_int_equal(b.data[25], 0x00);
	assert_int_equal(b.data[26], 0); /* Port */
	assert_int_equal(b.data[28], 192);
	assert_int_equal(b.data[31], 7);
	assert_int_equal(le32(b.data + 152), 0); /* the last entry */
	assert_int_equal(le32(b.data + 152 + 8), FSCTL_NET_IFACE_RSS_CAPABLE);
	assert_int_equal(b.data[152 + 24], 0x17);
	assert_int_equal(le32(b.data + 152 + 28), 0); /* FlowInfo */
	assert_int_equal(b.data[152 + 32], 0x20);
	assert_int_equal(b.data[152 + 47], 0x2f);
	assert_int_equal(le32(b.data + 152 + 48), 9);
	for (i = 152 + 52; i < 2 * FSCTL_NET_IFACE_LEN; i++) {
		assert_int_equal(b.data[i], 0);
	}
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copychunk_parse),
		cmocka_unit_test(test_copychunk_limits),
		cmocka_unit_test(test_copychunk_rsp),
		cmocka_unit_test(test_resume_key),
		cmocka_unit_test(test_qar_parse),
		cmocka_unit_test(test_zero_data_parse),
		cmocka_unit_test(test_small_inputs),
		cmocka_unit_test(test_resiliency_parse),
		cmocka_unit_test(test_object_id),
		cmocka_unit_test(test_net_iface),
		cmocka_unit_test(test_snapshot_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
