/*
 * Unit tests: the CREATE context chain parser (MS-SMB2 2.2.13.2) and the
 * security descriptor -> Unix mode mapping (MS-DTYP 2.4.6).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/create_ctx.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/open.h"
#include "lib/wire.h"

static void push_ctx(struct wire_buf *b, size_t *prev, const char *name,
		     size_t dlen)
{
	uint8_t data[64];

	memset(data, 0x5a, sizeof(data));
	create_ctx_push(b, 0, prev, name, data, dlen);
}

static void test_parse_chain(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct wire_buf b;
	struct create_ctx_list l;
	size_t prev = (size_t)-1;

	wire_buf_init(&b, t, 128);
	push_ctx(&b, &prev, "MxAc", 0);
	push_ctx(&b, &prev, "QFid", 0);
	push_ctx(&b, &prev, "AlSi", 8);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l), NT_STATUS_OK);
	assert_int_equal(l.n, 3);
	assert_non_null(create_ctx_find(&l, "MxAc"));
	assert_non_null(create_ctx_find(&l, "AlSi"));
	assert_int_equal(create_ctx_find(&l, "AlSi")->data_len, 8);
	assert_null(create_ctx_find(&l, "DHnQ"));
	talloc_free(t);
}

static void test_parse_errors(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct wire_buf b;
	struct create_ctx_list l;
	size_t prev = (size_t)-1;

	wire_buf_init(&b, t, 128);
	push_ctx(&b, &prev, "MxAc", 0);
	/* truncated header */
	assert_int_equal(create_ctx_parse(t, b.data, 10, &l),
			 NT_STATUS_INVALID_PARAMETER);
	/* name shorter than 4 bytes */
	put_le16(b.data + 6, 3);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l),
			 NT_STATUS_INVALID_PARAMETER);
	put_le16(b.data + 6, 4);
	/* data past the end */
	put_le16(b.data + 10, 24);
	put_le32(b.data + 12, 1000);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(b.data + 12, 0);
	/* Next not 8-aligned, then past the end */
	put_le32(b.data, 12);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(b.data, 0x7ffffff8);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l),
			 NT_STATUS_INVALID_PARAMETER);
	/* the same context twice */
	b.len = 0;
	prev = (size_t)-1;
	push_ctx(&b, &prev, "MxAc", 0);
	push_ctx(&b, &prev, "MxAc", 0);
	assert_int_equal(create_ctx_parse(t, b.data, b.len, &l),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);
}

/* A DACL with one ALLOWED ACE per (sid, mask). */
static void sd_build(struct wire_buf *b, bool null_dacl, int n,
		     const uint8_t auth[], const uint32_t sub0[],
		     const uint32_t sub1[], const uint32_t mask[])
{
	int i;
	size_t acl;

	wire_push_u8(b, 1);
	wire_push_u8(b, 0);
	wire_push_le16(b, 0x8004);
	wire_push_le32(b, 0);
	wire_push_le32(b, 0);
	wire_push_le32(b, 0);
	wire_push_le32(b, null_dacl ? 0 : 20);
	if (null_dacl) {
		return;
	}
	acl = b->len;
	wire_push_u8(b, 2);
	wire_push_u8(b, 0);
	wire_push_le16(b, 0);
	wire_push_le16(b, (uint16_t)n);
	wire_push_le16(b, 0);
	for (i = 0; i < n; i++) {
		uint8_t cnt = sub1[i] == (uint32_t)-1 ? 1 : 2;

		wire_push_u8(b, 0);
		wire_push_u8(b, 0);
		wire_push_le16(b, (uint16_t)(8 + 8 + 4 * cnt));
		wire_push_le32(b, mask[i]);
		wire_push_u8(b, 1);
		wire_push_u8(b, cnt);
		wire_push_zero(b, 5);
		wire_push_u8(b, auth[i]);
		wire_push_le32(b, sub0[i]);
		if (cnt == 2) {
			wire_push_le32(b, sub1[i]);
		}
	}
	put_le16(b->data + acl + 2, (uint16_t)(b->len - acl));
}

/* RqLs v1 and v2 (MS-SMB2 2.2.13.2.8, 2.2.13.2.10). */
static void test_lease_parse(void **state)
{
	uint8_t v2[52];
	struct create_ctx c = {.data = v2, .data_len = 52};
	struct create_lease l;

	memset(v2, 0, sizeof(v2));
	memset(v2, 0xab, 16);
	v2[16] = 0x0f;		/* R|H|W and a bit that is not a state */
	v2[20] = 0x04;		/* PARENT_LEASE_KEY_SET */
	memset(v2 + 32, 0xcd, 16);
	v2[48] = 0x11;
	v2[49] = 0x47;
	assert_int_equal(create_ctx_lease_parse(&c, true, &l), NT_STATUS_OK);
	assert_int_equal(l.version, 2);
	assert_int_equal(l.state, 7);
	assert_true(l.has_parent);
	assert_int_equal(l.parent_key[15], 0xcd);
	assert_int_equal(l.epoch, 0x4711);
	/* The same bytes on 2.1 are a v1 request. */
	assert_int_equal(create_ctx_lease_parse(&c, false, &l), NT_STATUS_OK);
	assert_int_equal(l.version, 1);
	assert_false(l.has_parent);
	assert_int_equal(l.epoch, 0);
	assert_int_equal(l.key[0], 0xab);
	/* v1 size; too short. */
	c.data_len = 32;
	assert_int_equal(create_ctx_lease_parse(&c, true, &l), NT_STATUS_OK);
	assert_int_equal(l.version, 1);
	c.data_len = 31;
	assert_int_equal(create_ctx_lease_parse(&c, true, &l),
			 NT_STATUS_INVALID_PARAMETER);
	/* v2 without the flag: no parent key. */
	v2[20] = 0;
	c.data_len = 52;
	assert_int_equal(create_ctx_lease_parse(&c, true, &l), NT_STATUS_OK);
	assert_false(l.has_parent);
	assert_int_equal(l.parent_key[0], 0);
}

/* DHnQ, DHnC, DH2Q, DH2C (MS-SMB2 2.2.13.2.3, .4, .11, .12). */
/* 2.2.13.2.7 SMB2_CREATE_TIMEWARP_TOKEN: exactly a FILETIME. */
static void test_twrp_parse(void **state)
{
	uint8_t d[9] = {0x80, 0x35, 0x06, 0x7f, 0x4d, 0x3d, 0xda, 0x01, 0x7};
	struct create_ctx c = {.tag = "TWrp", .data = d, .data_len = 8};
	uint64_t ft;

	(void)state;
	assert_int_equal(create_ctx_twrp_parse(&c, &ft), NT_STATUS_OK);
	assert_true(ft == 0x01da3d4d7f063580ULL);
	c.data_len = 7;
	assert_int_equal(create_ctx_twrp_parse(&c, &ft),
			 NT_STATUS_INVALID_PARAMETER);
	c.data_len = 9;
	assert_int_equal(create_ctx_twrp_parse(&c, &ft),
			 NT_STATUS_INVALID_PARAMETER);
	c.data_len = 0;
	assert_int_equal(create_ctx_twrp_parse(&c, &ft),
			 NT_STATUS_INVALID_PARAMETER);
}

/* AAPL server query (Apple's extension as Samba's fruit answers it). */
static void test_aapl(void **state)
{
	uint8_t d[24] = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,
			 0xd, 0, 0, 0, 0, 0, 0, 0};
	struct create_ctx c = {.tag = "AAPL", .data = d, .data_len = 24};
	struct create_aapl q;
	uint8_t *r;
	size_t len = 0;

	(void)state;
	assert_int_equal(create_ctx_aapl_parse(&c, &q), NT_STATUS_OK);
	assert_int_equal(q.command, SMB2_AAPL_SERVER_QUERY);
	assert_true(q.request_bitmap == 7);
	assert_true(q.client_caps == 0xd);
	r = create_ctx_aapl_reply(NULL, &q, SMB2_AAPL_UNIX_BASED,
				  SMB2_AAPL_CASE_SENSITIVE, "MacSamba", &len);
	assert_non_null(r);
	/* smbtorture's size: 40 bytes and the UTF-16 model */
	assert_int_equal(len, 40 + 16);
	assert_int_equal(le32(r), 1);
	assert_true(le64(r + 8) == 7);
	assert_true(le64(r + 16) == SMB2_AAPL_UNIX_BASED);
	assert_true(le64(r + 24) == SMB2_AAPL_CASE_SENSITIVE);
	assert_int_equal(le32(r + 32), 0);
	assert_int_equal(le32(r + 36), 16);
	assert_memory_equal(r + 40, "M\0a\0c\0S\0", 8);
	talloc_free(r);
	/* only what was asked for, in order; unknown bits dropped */
	q.request_bitmap = SMB2_AAPL_VOLUME_CAPS | 0x100;
	r = create_ctx_aapl_reply(NULL, &q, 4, 2, "x", &len);
	assert_int_equal(len, 24);
	assert_true(le64(r + 8) == SMB2_AAPL_VOLUME_CAPS);
	assert_true(le64(r + 16) == 2);
	talloc_free(r);
	/* a short server query; another command needs only its 8 bytes */
	c.data_len = 23;
	assert_int_equal(create_ctx_aapl_parse(&c, &q),
			 NT_STATUS_INVALID_PARAMETER);
	d[0] = 2;
	c.data_len = 8;
	assert_int_equal(create_ctx_aapl_parse(&c, &q), NT_STATUS_OK);
	assert_int_equal(q.command, 2);
	c.data_len = 7;
	assert_int_equal(create_ctx_aapl_parse(&c, &q),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_durable_parse(void **state)
{
	uint8_t d[36];
	struct create_ctx c = {.data = d, .data_len = 36};
	struct create_durable du;

	memset(d, 0, sizeof(d));
	strcpy(c.tag, "DHnQ");
	c.data_len = 16;
	assert_int_equal(create_ctx_durable_parse(&c, &du), NT_STATUS_OK);
	assert_false(du.v2);
	assert_false(du.reconnect);
	c.data_len = 15;
	assert_int_equal(create_ctx_durable_parse(&c, &du),
			 NT_STATUS_INVALID_PARAMETER);

	strcpy(c.tag, "DHnC");
	d[0] = 0x11;
	d[8] = 0x22;
	c.data_len = 16;
	assert_int_equal(create_ctx_durable_parse(&c, &du), NT_STATUS_OK);
	assert_true(du.reconnect);
	assert_int_equal(du.fid_persistent, 0x11);
	assert_int_equal(du.fid_volatile, 0x22);

	strcpy(c.tag, "DH2Q");
	memset(d, 0, sizeof(d));
	d[0] = 0x10;
	d[1] = 0x27;		/* 10000 ms */
	d[4] = 0x02;		/* persistent */
	memset(d + 16, 0x5a, 16);
	c.data_len = 32;
	assert_int_equal(create_ctx_durable_parse(&c, &du), NT_STATUS_OK);
	assert_true(du.v2);
	assert_false(du.reconnect);
	assert_int_equal(du.timeout_ms, 10000);
	assert_int_equal(du.flags, SMB2_DHANDLE_FLAG_PERSISTENT);
	assert_int_equal(du.create_guid[15], 0x5a);
	c.data_len = 31;
	assert_int_equal(create_ctx_durable_parse(&c, &du),
			 NT_STATUS_INVALID_PARAMETER);

	strcpy(c.tag, "DH2C");
	memset(d, 0, sizeof(d));
	d[0] = 1;
	d[8] = 2;
	memset(d + 16, 0x77, 16);
	d[32] = 0x02;
	c.data_len = 36;
	assert_int_equal(create_ctx_durable_parse(&c, &du), NT_STATUS_OK);
	assert_true(du.v2 && du.reconnect);
	assert_int_equal(du.fid_persistent, 1);
	assert_int_equal(du.fid_volatile, 2);
	assert_int_equal(du.create_guid[0], 0x77);
	assert_int_equal(du.flags, 2);
	c.data_len = 35;
	assert_int_equal(create_ctx_durable_parse(&c, &du),
			 NT_STATUS_INVALID_PARAMETER);

	/* Not a durable context at all. */
	strcpy(c.tag, "RqLs");
	assert_int_equal(create_ctx_durable_parse(&c, &du),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_sd_to_mode(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct wire_buf b;
	mode_t m;
	const uint8_t auth[] = {22, 22, 1};
	const uint32_t s0[] = {1, 2, 0};
	const uint32_t s1[] = {1000, 100, (uint32_t)-1};
	const uint32_t mask[] = {SEC_RIGHTS_FILE_READ | SEC_RIGHTS_FILE_WRITE,
				 SEC_RIGHTS_FILE_READ, 0};

	wire_buf_init(&b, t, 128);
	sd_build(&b, false, 3, auth, s0, s1, mask);
	assert_int_equal(secdesc_to_mode(b.data, b.len, SECINFO_DACL, 1000, 100,
					 0100777, &m),
			 NT_STATUS_OK);
	assert_int_equal(m, 0100640);
	/* without SECINFO_DACL nothing changes */
	assert_int_equal(secdesc_to_mode(b.data, b.len, SECINFO_OWNER, 1000,
					 100, 0100777, &m),
			 NT_STATUS_OK);
	assert_int_equal(m, 0100777);
	/* NULL DACL: everyone everything */
	b.len = 0;
	sd_build(&b, true, 0, NULL, NULL, NULL, NULL);
	assert_int_equal(secdesc_to_mode(b.data, b.len, SECINFO_DACL, 1, 1,
					 0100600, &m),
			 NT_STATUS_OK);
	assert_int_equal(m, 0100777);
	/* malformed: ACL size past the end, short buffer */
	b.len = 0;
	sd_build(&b, false, 3, auth, s0, s1, mask);
	put_le16(b.data + 22, 4000);
	assert_int_equal(secdesc_to_mode(b.data, b.len, SECINFO_DACL, 1, 1,
					 0100600, &m),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(secdesc_to_mode(b.data, 10, SECINFO_DACL, 1, 1,
					 0100600, &m),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);
}

static void test_sd_from_mode_roundtrip(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct wire_buf b;
	mode_t m;

	wire_buf_init(&b, t, 128);
	secdesc_from_mode(&b, SECINFO_OWNER | SECINFO_GROUP | SECINFO_DACL,
			  1000, 100, 0100754, false);
	assert_int_equal(secdesc_to_mode(b.data, b.len, SECINFO_DACL, 1000, 100,
					 0100000, &m),
			 NT_STATUS_OK);
	/* What we hand out maps back to the same mode. */
	assert_int_equal(m & 0777, 0754);
	talloc_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_chain),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_lease_parse),
		cmocka_unit_test(test_durable_parse),
		cmocka_unit_test(test_aapl),
		cmocka_unit_test(test_twrp_parse),
		cmocka_unit_test(test_sd_to_mode),
		cmocka_unit_test(test_sd_from_mode_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
