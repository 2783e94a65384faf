/*
 * Unit tests for locking/ctdb/ctdb_proto.c, the ctdbd client protocol
 * codec: the exact bytes of every packet we send (ctdbd reads them as C
 * structs, so one field off by 4 is a protocol break nobody reports
 * back), the parsing of every packet we read, and its refusal of
 * anything malformed, lengths that would wrap a 32-bit sum included
 * (ctdbd is trusted, but a broken stream must not make us read past a
 * buffer).  Everything is in host byte order, as on the wire.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "locking/ctdb/ctdb_proto.h"

#define BAD NT_STATUS_INVALID_NETWORK_RESPONSE

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Every byte of [from, to) is zero: padding and fields ctdbd fills in. */
static void assert_zero(const uint8_t *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		assert_int_equal(p[i], 0);
	}
}

/* The header every encoder writes; generation and srcnode are ctdbd's. */
static void check_hdr(const uint8_t *p, size_t len, uint32_t op,
		      uint32_t destnode, uint32_t reqid)
{
	assert_int_equal(len % 8, 0);
	assert_int_equal(talloc_get_size(p), len);
	assert_int_equal(get32(p), len);
	assert_int_equal(get32(p + 4), 0x43544442);
	assert_int_equal(get32(p + 4), CTDB_MAGIC);
	assert_int_equal(get32(p + 8), 1);
	assert_int_equal(get32(p + 12), 0);
	assert_int_equal(get32(p + 16), op);
	assert_int_equal(get32(p + 20), destnode);
	assert_int_equal(get32(p + 24), 0);
	assert_int_equal(get32(p + 28), reqid);
}

/* A received packet's header, as ctdbd would send it, into buf. */
static void mk_hdr(uint8_t *buf, size_t len, uint32_t op)
{
	memset(buf, 0, len);
	put32(buf, (uint32_t)len);
	put32(buf + 4, CTDB_MAGIC);
	put32(buf + 8, CTDB_PROTOCOL);
	put32(buf + 12, 7);		/* generation */
	put32(buf + 16, op);
	put32(buf + 20, 3);		/* destnode */
	put32(buf + 24, 1);		/* srcnode */
	put32(buf + 28, 0x1234);	/* reqid */
}

static void test_pkt_length(void **state)
{
	uint8_t b[4];
	uint32_t len;

	(void)state;
	put32(b, 32);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_length(b, &len)));
	assert_int_equal(len, 32);
	put32(b, 4096);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_length(b, &len)));
	assert_int_equal(len, 4096);
	put32(b, CTDB_MAX_PACKET);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_length(b, &len)));
	assert_int_equal(len, CTDB_MAX_PACKET);

	/* shorter than a header, or more than we would ever allocate */
	put32(b, 0);
	assert_int_equal(ctdb_pkt_length(b, &len), BAD);
	put32(b, 31);
	assert_int_equal(ctdb_pkt_length(b, &len), BAD);
	put32(b, CTDB_MAX_PACKET + 1);
	assert_int_equal(ctdb_pkt_length(b, &len), BAD);
	put32(b, UINT32_MAX);
	assert_int_equal(ctdb_pkt_length(b, &len), BAD);
}

static void test_call_bytes(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	const uint8_t key[] = {'k', 'e', 'y', '0', '1'};
	const uint8_t key8[] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t *p;
	size_t len = 0;

	(void)state;
	/* 32 + 24 + 5 = 61, padded to 64 */
	p = ctdb_pkt_call(ctx, 0xAABBCCDD, 0x11223344,
			  CTDB_IMMEDIATE_MIGRATION, CTDB_NULL_FUNC, key,
			  sizeof(key), &len);
	assert_non_null(p);
	assert_int_equal(len, 64);
	assert_ptr_equal(talloc_parent(p), ctx);
	check_hdr(p, len, CTDB_REQ_CALL, CTDB_CURRENT_NODE, 0xAABBCCDD);
	assert_int_equal(get32(p + 32), CTDB_IMMEDIATE_MIGRATION); /* flags */
	assert_int_equal(get32(p + 36), 0x11223344);	/* db_id */
	assert_int_equal(get32(p + 40), CTDB_NULL_FUNC);	/* callid */
	assert_int_equal(get32(p + 44), 0);		/* hopcount */
	assert_int_equal(get32(p + 48), sizeof(key));	/* keylen */
	assert_int_equal(get32(p + 52), 0);		/* calldatalen */
	assert_memory_equal(p + 56, key, sizeof(key));
	assert_zero(p, 61, 64);

	/* 32 + 24 + 8 = 64: already aligned, no padding added */
	p = ctdb_pkt_call(ctx, 1, 2, 0, CTDB_FETCH_FUNC, key8, sizeof(key8),
			  &len);
	assert_non_null(p);
	assert_int_equal(len, 64);
	check_hdr(p, len, CTDB_REQ_CALL, CTDB_CURRENT_NODE, 1);
	assert_int_equal(get32(p + 32), 0);
	assert_int_equal(get32(p + 40), CTDB_FETCH_FUNC);
	assert_int_equal(get32(p + 48), 8);
	assert_memory_equal(p + 56, key8, sizeof(key8));

	/* 32 + 24 + 9 = 65, padded to 72 */
	p = ctdb_pkt_call(ctx, 3, 2, 0, CTDB_NULL_FUNC,
			  (const uint8_t *)"123456789", 9, &len);
	assert_non_null(p);
	assert_int_equal(len, 72);
	check_hdr(p, len, CTDB_REQ_CALL, CTDB_CURRENT_NODE, 3);
	assert_int_equal(get32(p + 48), 9);
	assert_memory_equal(p + 56, "123456789", 9);
	assert_zero(p, 65, 72);

	/* an empty key, as NULL: 32 + 24 = 56, already aligned */
	p = ctdb_pkt_call(ctx, 4, 2, 0, CTDB_NULL_FUNC, NULL, 0, &len);
	assert_non_null(p);
	assert_int_equal(len, 56);
	check_hdr(p, len, CTDB_REQ_CALL, CTDB_CURRENT_NODE, 4);
	assert_int_equal(get32(p + 48), 0);
	talloc_free(ctx);
}

static void test_control_bytes(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	const uint8_t d[] = {0xDE, 0xAD, 0xBE};
	uint8_t *p;
	size_t len = 0;

	(void)state;
	/* 32 + 28 + 3 = 63, padded to 64 */
	p = ctdb_pkt_control(ctx, 42, 5, CTDB_CONTROL_DB_ATTACH,
			     0x0102030405060708ULL, CTDB_CTRL_FLAG_NOREPLY, d,
			     sizeof(d), &len);
	assert_non_null(p);
	assert_int_equal(len, 64);
	assert_ptr_equal(talloc_parent(p), ctx);
	check_hdr(p, len, CTDB_REQ_CONTROL, 5, 42);
	/* opcode */
	assert_int_equal(get32(p + 32), CTDB_CONTROL_DB_ATTACH);
	assert_int_equal(get32(p + 36), 0);			/* pad */
	assert_int_equal(get64(p + 40), 0x0102030405060708ULL);	/* srvid */
	assert_int_equal(get32(p + 48), 0);			/* client_id */
	/* flags */
	assert_int_equal(get32(p + 52), CTDB_CTRL_FLAG_NOREPLY);
	assert_int_equal(get32(p + 56), sizeof(d));		/* datalen */
	assert_memory_equal(p + 60, d, sizeof(d));
	assert_zero(p, 63, 64);

	/* no data (GET_PNN): 60, padded to 64; NULL data is allowed */
	p = ctdb_pkt_control(ctx, 43, CTDB_CURRENT_NODE, CTDB_CONTROL_GET_PNN,
			     0, 0, NULL, 0, &len);
	assert_non_null(p);
	assert_int_equal(len, 64);
	check_hdr(p, len, CTDB_REQ_CONTROL, CTDB_CURRENT_NODE, 43);
	assert_int_equal(get32(p + 32), CTDB_CONTROL_GET_PNN);
	assert_int_equal(get64(p + 40), 0);
	assert_int_equal(get32(p + 52), 0);
	assert_int_equal(get32(p + 56), 0);
	assert_zero(p, 60, 64);

	/* 32 + 28 + 4 = 64 exactly; 32 + 28 + 5 = 65, padded to 72 */
	p = ctdb_pkt_control(ctx, 44, 0, CTDB_CONTROL_GET_DB_SEQNUM, 0, 0,
			     "abcd", 4, &len);
	assert_non_null(p);
	assert_int_equal(len, 64);
	assert_int_equal(get32(p + 56), 4);
	assert_memory_equal(p + 60, "abcd", 4);
	p = ctdb_pkt_control(ctx, 45, 0, CTDB_CONTROL_GET_DB_SEQNUM, 0, 0,
			     "abcde", 5, &len);
	assert_non_null(p);
	assert_int_equal(len, 72);
	check_hdr(p, len, CTDB_REQ_CONTROL, 0, 45);
	assert_int_equal(get32(p + 56), 5);
	assert_memory_equal(p + 60, "abcde", 5);
	assert_zero(p, 65, 72);
	talloc_free(ctx);
}

static void test_message_bytes(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	uint8_t *p;
	size_t len = 0;

	(void)state;
	/* 32 + 12 + 5 = 49, padded to 56 */
	p = ctdb_pkt_message(ctx, 7, CTDB_BROADCAST_CONNECTED,
			     CTDB_SRVID_RELEASE_IP, "hello", 5, &len);
	assert_non_null(p);
	assert_int_equal(len, 56);
	assert_ptr_equal(talloc_parent(p), ctx);
	check_hdr(p, len, CTDB_REQ_MESSAGE, CTDB_BROADCAST_CONNECTED, 7);
	assert_int_equal(get64(p + 32), CTDB_SRVID_RELEASE_IP);	/* srvid */
	assert_int_equal(get32(p + 40), 5);			/* datalen */
	assert_memory_equal(p + 44, "hello", 5);
	assert_zero(p, 49, 56);

	/* 32 + 12 + 4 = 48 exactly */
	p = ctdb_pkt_message(ctx, 8, 2, 1, "abcd", 4, &len);
	assert_non_null(p);
	assert_int_equal(len, 48);
	check_hdr(p, len, CTDB_REQ_MESSAGE, 2, 8);
	assert_int_equal(get64(p + 32), 1);
	assert_int_equal(get32(p + 40), 4);

	/* no data: 44, padded to 48 */
	p = ctdb_pkt_message(ctx, 9, 2, 1, NULL, 0, &len);
	assert_non_null(p);
	assert_int_equal(len, 48);
	assert_int_equal(get32(p + 40), 0);
	assert_zero(p, 44, 48);
	talloc_free(ctx);
}

static void test_parse_reply_call(void **state)
{
	uint8_t buf[48];
	struct ctdb_pkt p;

	(void)state;
	/* 32 + 8 + 3 = 43, padded to 48 as ctdbd sends it */
	mk_hdr(buf, sizeof(buf), CTDB_REPLY_CALL);
	put32(buf + 32, (uint32_t)-5);
	put32(buf + 36, 3);
	memcpy(buf + 40, "abc", 3);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.length, 48);
	assert_int_equal(p.hdr.magic, CTDB_MAGIC);
	assert_int_equal(p.hdr.version, CTDB_PROTOCOL);
	assert_int_equal(p.hdr.generation, 7);
	assert_int_equal(p.hdr.operation, CTDB_REPLY_CALL);
	assert_int_equal(p.hdr.destnode, 3);
	assert_int_equal(p.hdr.srcnode, 1);
	assert_int_equal(p.hdr.reqid, 0x1234);
	assert_int_equal(p.status, -5);
	assert_ptr_equal(p.data, buf + 40);
	assert_int_equal(p.datalen, 3);
	assert_null(p.errmsg);
	assert_int_equal(p.errlen, 0);

	/* data up to the very last byte is still inside */
	put32(buf + 36, 8);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.datalen, 8);

	/* an empty reply (the NULL_FUNC migration) */
	mk_hdr(buf, 40, CTDB_REPLY_CALL);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, 40, &p)));
	assert_int_equal(p.status, 0);
	assert_int_equal(p.datalen, 0);
}

static void test_parse_reply_error(void **state)
{
	uint8_t buf[48];
	struct ctdb_pkt p;

	(void)state;
	mk_hdr(buf, sizeof(buf), CTDB_REPLY_ERROR);
	put32(buf + 32, (uint32_t)-1);
	put32(buf + 36, 4);
	memcpy(buf + 40, "oops", 4);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.operation, CTDB_REPLY_ERROR);
	assert_int_equal(p.status, -1);
	/* the message is the error, not data */
	assert_ptr_equal(p.errmsg, buf + 40);
	assert_int_equal(p.errlen, 4);
	assert_null(p.data);
	assert_int_equal(p.datalen, 0);
}

static void test_parse_message(void **state)
{
	uint8_t buf[56];
	struct ctdb_pkt p;

	(void)state;
	/* 32 + 12 + 6 = 50, padded to 56 */
	mk_hdr(buf, sizeof(buf), CTDB_REQ_MESSAGE);
	put64(buf + 32, CTDB_SRVID_SAMBA_RANGE | 0x1234);
	put32(buf + 40, 6);
	memcpy(buf + 44, "msg123", 6);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.operation, CTDB_REQ_MESSAGE);
	assert_int_equal(p.srvid, CTDB_SRVID_SAMBA_RANGE | 0x1234);
	assert_ptr_equal(p.data, buf + 44);
	assert_int_equal(p.datalen, 6);
	assert_null(p.errmsg);
	assert_int_equal(p.errlen, 0);

	/* up to the last byte */
	put32(buf + 40, 12);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.datalen, 12);
}

static void test_parse_reply_control(void **state)
{
	uint8_t buf[56];
	struct ctdb_pkt p;

	(void)state;
	/* 32 + 12 + 3 + 5 = 52, padded to 56 */
	mk_hdr(buf, sizeof(buf), CTDB_REPLY_CONTROL);
	put32(buf + 32, (uint32_t)-22);
	put32(buf + 36, 3);
	put32(buf + 40, 5);
	memcpy(buf + 44, "xyz", 3);
	memcpy(buf + 47, "error", 5);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.operation, CTDB_REPLY_CONTROL);
	assert_int_equal(p.status, -22);
	assert_ptr_equal(p.data, buf + 44);
	assert_int_equal(p.datalen, 3);
	/* the error string follows the data */
	assert_ptr_equal(p.errmsg, buf + 47);
	assert_int_equal(p.errlen, 5);

	/* no error string: no pointer to one */
	put32(buf + 32, 0);
	put32(buf + 40, 0);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.status, 0);
	assert_null(p.errmsg);
	assert_int_equal(p.errlen, 0);

	/* data and error together fill the packet to the last byte */
	put32(buf + 36, 4);
	put32(buf + 40, 8);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_ptr_equal(p.errmsg, buf + 48);
	assert_int_equal(p.errlen, 8);
}

static void test_parse_other_ops(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	uint8_t buf[32];
	uint8_t *pk;
	size_t len;
	struct ctdb_pkt p;

	(void)state;
	/* operations we never read pass with only the header checked */
	mk_hdr(buf, sizeof(buf), CTDB_REQ_CALL);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.operation, CTDB_REQ_CALL);
	assert_null(p.data);
	assert_null(p.errmsg);
	mk_hdr(buf, sizeof(buf), 99);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, sizeof(buf), &p)));
	assert_int_equal(p.hdr.operation, 99);

	/* what our encoders build has a header the parser accepts */
	pk = ctdb_pkt_call(ctx, 5, 6, 0, CTDB_NULL_FUNC,
			   (const uint8_t *)"k", 1, &len);
	assert_non_null(pk);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(pk, len, &p)));
	assert_int_equal(p.hdr.reqid, 5);
	pk = ctdb_pkt_control(ctx, 6, 0, CTDB_CONTROL_GET_PNN, 0, 0, NULL, 0,
			      &len);
	assert_non_null(pk);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(pk, len, &p)));
	assert_int_equal(p.hdr.operation, CTDB_REQ_CONTROL);
	talloc_free(ctx);
}

static void test_parse_bad_header(void **state)
{
	uint8_t buf[64];
	struct ctdb_pkt p;
	size_t n;

	(void)state;
	/* shorter than a header, even when its length field agrees */
	for (n = 0; n < CTDB_HDR_LEN; n++) {
		mk_hdr(buf, sizeof(buf), CTDB_REQ_CALL);
		put32(buf, (uint32_t)n);
		assert_int_equal(ctdb_pkt_parse(buf, n, &p), BAD);
	}

	/* wrong magic or version */
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	put32(buf + 4, 0x42445443);	/* "CTDB" byte-swapped */
	assert_int_equal(ctdb_pkt_parse(buf, 32, &p), BAD);
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	put32(buf + 4, 0);
	assert_int_equal(ctdb_pkt_parse(buf, 32, &p), BAD);
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	put32(buf + 8, 0);
	assert_int_equal(ctdb_pkt_parse(buf, 32, &p), BAD);
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	put32(buf + 8, 2);
	assert_int_equal(ctdb_pkt_parse(buf, 32, &p), BAD);
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	put32(buf + 8, 0x01000000);	/* version 1 from the other endian */
	assert_int_equal(ctdb_pkt_parse(buf, 32, &p), BAD);

	/* the header's length must be the buffer's, neither more nor less */
	mk_hdr(buf, 40, CTDB_REPLY_CALL);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(buf, 40, &p)));
	put32(buf, 48);
	assert_int_equal(ctdb_pkt_parse(buf, 40, &p), BAD);
	put32(buf, 39);
	assert_int_equal(ctdb_pkt_parse(buf, 40, &p), BAD);
	put32(buf, 0);
	assert_int_equal(ctdb_pkt_parse(buf, 40, &p), BAD);
	put32(buf, UINT32_MAX);
	assert_int_equal(ctdb_pkt_parse(buf, 40, &p), BAD);
	/* a buffer longer than the packet is a framing bug too */
	mk_hdr(buf, 32, CTDB_REQ_CALL);
	assert_int_equal(ctdb_pkt_parse(buf, 64, &p), BAD);
}

/* A packet of op, len bytes long, that parses with the given lengths. */
static NTSTATUS parse_with(uint8_t *buf, size_t len, uint32_t op,
			   size_t len_off, uint32_t l1, uint32_t l2)
{
	struct ctdb_pkt p;

	mk_hdr(buf, len, op);
	if (len >= len_off + 4) {
		put32(buf + len_off, l1);
	}
	if (len >= len_off + 8) {
		put32(buf + len_off + 4, l2);
	}
	return ctdb_pkt_parse(buf, len, &p);
}

static void test_parse_bad_body(void **state)
{
	uint8_t buf[64];
	size_t n;

	(void)state;
	/* too short for the fixed part of each body */
	for (n = 32; n < 40; n++) {
		assert_int_equal(parse_with(buf, n, CTDB_REPLY_CALL, 36, 0, 0),
				 BAD);
		assert_int_equal(parse_with(buf, n, CTDB_REPLY_ERROR, 36, 0,
					    0),
				 BAD);
	}
	for (n = 32; n < 44; n++) {
		assert_int_equal(parse_with(buf, n, CTDB_REQ_MESSAGE, 40, 0,
					    0),
				 BAD);
		assert_int_equal(parse_with(buf, n, CTDB_REPLY_CONTROL, 36, 0,
					    0),
				 BAD);
	}
	/* the smallest of each is fine */
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 40, CTDB_REPLY_CALL, 36,
					       0, 0)));
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 44, CTDB_REQ_MESSAGE, 40,
					       0, 0)));
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 44, CTDB_REPLY_CONTROL,
					       36, 0, 0)));

	/*
	 * REPLY_CALL/ERROR: datalen at 36, data at 40.  One byte too many,
	 * and values whose sum with the offset wraps 32 bits to something
	 * small (40 + (2^32 - 40) = 0, 40 + (2^32 - 32) = 8).
	 */
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 64, CTDB_REPLY_CALL, 36,
					       24, 0)));
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CALL, 36, 25, 0), BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CALL, 36,
				    UINT32_MAX, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CALL, 36,
				    UINT32_MAX - 39, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CALL, 36,
				    UINT32_MAX - 31, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CALL, 36,
				    0x80000000u, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_ERROR, 36, 25, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_ERROR, 36,
				    UINT32_MAX, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_ERROR, 36,
				    UINT32_MAX - 39, 0),
			 BAD);

	/* REQ_MESSAGE: datalen at 40, data at 44 */
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 64, CTDB_REQ_MESSAGE, 40,
					       20, 0)));
	assert_int_equal(parse_with(buf, 64, CTDB_REQ_MESSAGE, 40, 21, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REQ_MESSAGE, 40,
				    UINT32_MAX, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REQ_MESSAGE, 40,
				    UINT32_MAX - 43, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REQ_MESSAGE, 40,
				    UINT32_MAX - 35, 0),
			 BAD);

	/*
	 * REPLY_CONTROL: datalen at 36, errorlen at 40, both after 44.
	 * Each alone and their sum must fit; a 32-bit sum would wrap
	 * 4 + (2^32 - 4) to 0 and 2^32 - 1 + 1 to 0.
	 */
	assert_true(NT_STATUS_IS_OK(parse_with(buf, 64, CTDB_REPLY_CONTROL,
					       36, 10, 10)));
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36, 21, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36, 0, 21),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36, 11, 10),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36, 4,
				    UINT32_MAX - 3),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36,
				    UINT32_MAX, 1),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36,
				    UINT32_MAX, UINT32_MAX),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36,
				    0x80000000u, 0x80000000u),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36,
				    UINT32_MAX - 43, 0),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36, 0,
				    UINT32_MAX - 43),
			 BAD);
	assert_int_equal(parse_with(buf, 64, CTDB_REPLY_CONTROL, 36,
				    UINT32_MAX - 50, 10),
			 BAD);
}

static void test_message_roundtrip(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	const uint8_t d[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	const uint64_t srvid = CTDB_SRVID_SAMBA_RANGE | 0x00ABCDEF00000001ULL;
	struct ctdb_pkt p;
	uint8_t *pk;
	size_t len;

	(void)state;
	pk = ctdb_pkt_message(ctx, 77, 4, srvid, d, sizeof(d), &len);
	assert_non_null(pk);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(pk, len, &p)));
	assert_int_equal(p.hdr.length, len);
	assert_int_equal(p.hdr.operation, CTDB_REQ_MESSAGE);
	assert_int_equal(p.hdr.destnode, 4);
	assert_int_equal(p.hdr.reqid, 77);
	assert_int_equal(p.srvid, srvid);
	assert_int_equal(p.datalen, sizeof(d));
	assert_ptr_equal(p.data, pk + 44);
	assert_memory_equal(p.data, d, sizeof(d));

	/* an empty message too */
	pk = ctdb_pkt_message(ctx, 78, 4, 1, NULL, 0, &len);
	assert_non_null(pk);
	assert_true(NT_STATUS_IS_OK(ctdb_pkt_parse(pk, len, &p)));
	assert_int_equal(p.srvid, 1);
	assert_int_equal(p.datalen, 0);
	talloc_free(ctx);
}

static void test_ltdb_hdr(void **state)
{
	uint8_t b[CTDB_LTDB_HDR_LEN + 1];
	struct ctdb_ltdb_hdr h = {
		.rsn = 0x0102030405060708ULL,
		.dmaster = 3,
		.flags = CTDB_REC_FLAG_AUTOMATIC |
			 CTDB_REC_FLAG_MIGRATED_WITH_DATA,
	};
	struct ctdb_ltdb_hdr g;

	(void)state;
	/* reserved fields come out zero whatever was in the buffer */
	memset(b, 0xAA, sizeof(b));
	ctdb_ltdb_hdr_push(b, &h);
	assert_int_equal(get64(b), h.rsn);		/* rsn */
	assert_int_equal(get32(b + 8), 3);		/* dmaster */
	assert_int_equal(get32(b + 12), 0);		/* reserved1 */
	assert_int_equal(get32(b + 16), h.flags);	/* flags */
	assert_int_equal(get32(b + 20), 0);		/* padding */
	assert_int_equal(b[24], 0xAA);		/* nothing past 24 */

	memset(&g, 0x55, sizeof(g));
	assert_true(ctdb_ltdb_hdr_pull(b, CTDB_LTDB_HDR_LEN, &g));
	assert_int_equal(g.rsn, h.rsn);
	assert_int_equal(g.dmaster, h.dmaster);
	assert_int_equal(g.flags, h.flags);
	/* a record's data may follow the header */
	assert_true(ctdb_ltdb_hdr_pull(b, sizeof(b), &g));
	assert_int_equal(g.rsn, h.rsn);

	/* shorter than a header, or no record at all */
	assert_false(ctdb_ltdb_hdr_pull(b, CTDB_LTDB_HDR_LEN - 1, &g));
	assert_false(ctdb_ltdb_hdr_pull(b, 0, &g));
	assert_false(ctdb_ltdb_hdr_pull(NULL, 0, &g));
	assert_false(ctdb_ltdb_hdr_pull(NULL, CTDB_LTDB_HDR_LEN, &g));
}

static void test_recbuf(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct ctdb_recbuf rb;
	const struct ctdb_ltdb_hdr h1 = {.rsn = 10, .dmaster = 1,
					 .flags = 0};
	const struct ctdb_ltdb_hdr h2 = {.rsn = 0xFFFFFFFF00000001ULL,
					 .dmaster = 2,
					 .flags = CTDB_REC_FLAG_AUTOMATIC};
	struct ctdb_ltdb_hdr g;
	const uint8_t *r;
	size_t r1len = 16 + 2 + 24 + 3;	/* k1, "abc" */
	size_t r2len = 16 + 4 + 24 + 0;	/* key2, no data (a deletion) */

	(void)state;
	assert_true(ctdb_recbuf_init(ctx, &rb, 0xCAFEF00D));
	assert_non_null(rb.buf);
	assert_int_equal(rb.len, 8);
	assert_int_equal(rb.count, 0);
	assert_int_equal(get32(rb.buf), 0xCAFEF00D);
	assert_int_equal(get32(rb.buf + 4), 0);

	assert_true(ctdb_recbuf_add(&rb, (const uint8_t *)"k1", 2, &h1,
				    (const uint8_t *)"abc", 3));
	assert_true(ctdb_recbuf_add(&rb, (const uint8_t *)"key2", 4, &h2,
				    NULL, 0));
	assert_int_equal(rb.count, 2);
	assert_int_equal(rb.len, 8 + r1len + r2len);
	/* still mem_ctx's after the reallocations, and no bigger */
	assert_ptr_equal(talloc_parent(rb.buf), ctx);
	assert_int_equal(talloc_get_size(rb.buf), rb.len);
	assert_int_equal(get32(rb.buf), 0xCAFEF00D);	/* db_id */
	assert_int_equal(get32(rb.buf + 4), 2);		/* count */

	/* record 1: length includes its 16-byte head, datalen the header */
	r = rb.buf + 8;
	assert_int_equal(get32(r), r1len);		/* length */
	assert_int_equal(get32(r + 4), 0);		/* reqid */
	assert_int_equal(get32(r + 8), 2);		/* keylen */
	assert_int_equal(get32(r + 12), 24 + 3);	/* datalen */
	assert_memory_equal(r + 16, "k1", 2);
	assert_true(ctdb_ltdb_hdr_pull(r + 18, 24, &g));
	assert_int_equal(g.rsn, 10);
	assert_int_equal(g.dmaster, 1);
	assert_int_equal(g.flags, 0);
	assert_int_equal(get32(r + 18 + 12), 0);
	assert_int_equal(get32(r + 18 + 20), 0);
	assert_memory_equal(r + 42, "abc", 3);

	/* record 2 right after, no padding between records */
	r = rb.buf + 8 + r1len;
	assert_int_equal(get32(r), r2len);
	assert_int_equal(get32(r + 4), 0);
	assert_int_equal(get32(r + 8), 4);
	assert_int_equal(get32(r + 12), 24);
	assert_memory_equal(r + 16, "key2", 4);
	assert_true(ctdb_ltdb_hdr_pull(r + 20, 24, &g));
	assert_int_equal(g.rsn, h2.rsn);
	assert_int_equal(g.dmaster, 2);
	assert_int_equal(g.flags, CTDB_REC_FLAG_AUTOMATIC);
	assert_ptr_equal(r + 44, rb.buf + rb.len);

	/*
	 * Too big for one packet: refused, the buffer left as it was.  The
	 * lengths near SIZE_MAX make 16 + keylen + 24 + datalen wrap 64
	 * bits to 38, 100 and 40: nothing may be copied.
	 */
	assert_false(ctdb_recbuf_add(&rb, (const uint8_t *)"k", 1, &h1,
				     (const uint8_t *)"x", CTDB_MAX_PACKET));
	assert_false(ctdb_recbuf_add(&rb, (const uint8_t *)"k", SIZE_MAX,
				     &h1, (const uint8_t *)"x", SIZE_MAX));
	assert_false(ctdb_recbuf_add(&rb, (const uint8_t *)"k", SIZE_MAX - 39,
				     &h1, (const uint8_t *)"x", 100));
	assert_false(ctdb_recbuf_add(&rb, (const uint8_t *)"k", 1, &h1,
				     (const uint8_t *)"x", SIZE_MAX));
	/* the sum of records is bounded too, not only each one */
	assert_false(ctdb_recbuf_add(&rb, (const uint8_t *)"k", 1, &h1,
				     (const uint8_t *)"x",
				     CTDB_MAX_PACKET - 16 - 1 - 24));
	assert_int_equal(rb.count, 2);
	assert_int_equal(rb.len, 8 + r1len + r2len);
	assert_int_equal(get32(rb.buf + 4), 2);

	/* an empty key and no data, both NULL: 16 + 24 bytes */
	assert_true(ctdb_recbuf_init(ctx, &rb, 1));
	assert_true(ctdb_recbuf_add(&rb, NULL, 0, &h1, NULL, 0));
	assert_int_equal(rb.len, 8 + 40);
	assert_int_equal(get32(rb.buf + 8), 40);
	assert_int_equal(get32(rb.buf + 16), 0);
	assert_int_equal(get32(rb.buf + 20), 24);
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pkt_length),
		cmocka_unit_test(test_call_bytes),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_message_bytes),
		cmocka_unit_test(test_parse_reply_call),
		cmocka_unit_test(test_parse_reply_error),
		cmocka_unit_test(test_parse_message),
		cmocka_unit_test(test_parse_reply_control),
		cmocka_unit_test(test_parse_other_ops),
		cmocka_unit_test(test_parse_bad_header),
		cmocka_unit_test(test_parse_bad_body),
		cmocka_unit_test(test_message_roundtrip),
		cmocka_unit_test(test_ltdb_hdr),
		cmocka_unit_test(test_recbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
