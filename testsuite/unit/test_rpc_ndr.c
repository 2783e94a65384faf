/*
 * Unit tests for smbd/rpc/ndr.c and the SID helpers in rpc_sid.c:
 * alignment, bounds, conformant varying strings (including counts that
 * lie), RPC_UNICODE_STRING buffers, SID text and NDR forms, Samba's
 * secrets.tdb SID record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <stdlib.h>
#include <talloc.h>
#include <unistd.h>

#include "conf/loadparm.h"
#include "smbd/rpc/ndr.h"
#include "smbd/rpc/rpc_sid.h"

static void test_pull_align_bounds(void **state)
{
	const uint8_t buf[] = { 0x01, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00,
				0x00, 0x03, 0x00 };
	struct ndr_pull n;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;

	ndr_pull_init(&n, buf, sizeof(buf));
	assert_int_equal(ndr_pull_u8(&n, &u8), NT_STATUS_OK);
	assert_int_equal(u8, 1);
	/* u32 aligns to 4: skips the padding */
	assert_int_equal(ndr_pull_u32(&n, &u32), NT_STATUS_OK);
	assert_int_equal(u32, 2);
	assert_int_equal(ndr_pull_u16(&n, &u16), NT_STATUS_OK);
	assert_int_equal(u16, 3);
	/* nothing left */
	assert_int_equal(ndr_pull_u8(&n, &u8), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(ndr_pull_u32(&n, &u32), NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(n.off, sizeof(buf));
}

static void test_wstring_roundtrip(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct ndr_push p;
	struct ndr_pull n;
	char *s;

	ndr_push_init(&p, ctx);
	ndr_push_u8(&p, 7);
	ndr_push_unique_wstring(&p, "Grüße");
	ndr_push_unique_wstring(&p, NULL);
	ndr_push_wstring(&p, "");
	assert_true(ndr_push_ok(&p));
	/* 1 + pad 3 + ptr 4 + 12 + 6 units * 2 = 32, then NULL ptr ... */
	ndr_pull_init(&n, p.b.data, p.b.len);
	assert_int_equal(ndr_pull_align(&n, 4), NT_STATUS_OK);
	assert_int_equal(n.off, 0);
	n.off = 1;
	assert_int_equal(ndr_pull_unique_wstring(&n, ctx, &s), NT_STATUS_OK);
	assert_string_equal(s, "Grüße");
	assert_int_equal(ndr_pull_unique_wstring(&n, ctx, &s), NT_STATUS_OK);
	assert_null(s);
	assert_int_equal(ndr_pull_wstring(&n, ctx, &s), NT_STATUS_OK);
	assert_string_equal(s, "");
	assert_int_equal(n.off, n.len);
	talloc_free(ctx);
}

static void test_wstring_lies(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	/* max 2, offset 0, actual 3: actual > max */
	const uint8_t bad1[] = { 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
				 'a', 0, 'b', 0, 'c', 0 };
	/* actual 0x7fffffff: far past the end */
	const uint8_t bad2[] = { 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0,
				 0xff, 0xff, 0xff, 0x7f, 'a', 0 };
	/* offset != 0 */
	const uint8_t bad3[] = { 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 'a', 0 };
	/* unpaired surrogate */
	const uint8_t bad4[] = { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x00,
				 0xd8 };
	const uint8_t *bad[] = { bad1, bad2, bad3, bad4 };
	const size_t len[] = { sizeof(bad1), sizeof(bad2), sizeof(bad3),
			       sizeof(bad4) };
	struct ndr_pull n;
	char *s;
	size_t i;

	for (i = 0; i < 4; i++) {
		ndr_pull_init(&n, bad[i], len[i]);
		assert_int_equal(ndr_pull_wstring(&n, ctx, &s),
				 NT_STATUS_INVALID_PARAMETER);
	}
	talloc_free(ctx);
}

static void test_unicode_string(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct ndr_push p;
	struct ndr_pull n;
	uint16_t len, max;
	uint32_t ptr;
	char *s;

	ndr_push_init(&p, ctx);
	ndr_push_u16(&p, 9); /* misalign: the struct realigns to 4 */
	ndr_push_unicode_fixed(&p, "BUILTIN");
	ndr_push_unicode_buffer(&p, "BUILTIN");
	assert_int_equal(p.b.len, 4 + 8 + 12 + 14);
	ndr_pull_init(&n, p.b.data, p.b.len);
	n.off = 4;
	assert_int_equal(ndr_pull_u16(&n, &len), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u16(&n, &max), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&n, &ptr), NT_STATUS_OK);
	assert_int_equal(len, 14);
	assert_int_not_equal(ptr, 0);
	assert_int_equal(ndr_pull_unicode_buffer(&n, ctx, len, max, &s),
			 NT_STATUS_OK);
	assert_string_equal(s, "BUILTIN");
	/* Length disagreeing with actual_count */
	n.off = 12;
	assert_int_equal(ndr_pull_unicode_buffer(&n, ctx, 12, max, &s),
			 NT_STATUS_INVALID_PARAMETER);
	n.off = 12;
	assert_int_equal(ndr_pull_unicode_buffer(&n, ctx, 15, 16, &s),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(ctx);
}

static void test_check_count(void **state)
{
	uint8_t buf[16] = { 0 };
	struct ndr_pull n;

	ndr_pull_init(&n, buf, sizeof(buf));
	assert_int_equal(ndr_check_count(&n, 4, 4), NT_STATUS_OK);
	assert_int_equal(ndr_check_count(&n, 5, 4),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(ndr_check_count(&n, 0xffffffff, 0xffffffff),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_sid_text(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct rpc_sid s, d;
	uint32_t rid;

	assert_true(rpc_sid_parse("S-1-5-21-1-2-3-1000", &s));
	assert_int_equal(s.num_auths, 5);
	assert_string_equal(rpc_sid_string(ctx, &s), "S-1-5-21-1-2-3-1000");
	assert_true(rpc_sid_split(&s, &d, &rid));
	assert_int_equal(rid, 1000);
	assert_string_equal(rpc_sid_string(ctx, &d), "S-1-5-21-1-2-3");
	assert_true(rpc_sid_parse("S-1-1-0", &s));
	assert_string_equal(rpc_sid_string(ctx, &s), "S-1-1-0");
	assert_false(rpc_sid_parse("S-1-", &s));
	assert_false(rpc_sid_parse("S-1-5-", &s));
	assert_false(rpc_sid_parse("S-1-5-x", &s));
	assert_false(rpc_sid_parse("S-1-5-4294967296", &s));
	assert_false(rpc_sid_parse("X-1-5", &s));
	assert_false(rpc_sid_parse(
		"S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16", &s));
	talloc_free(ctx);
}

static void test_sid_ndr(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct rpc_sid s, r;
	struct ndr_push p;
	struct ndr_pull n;
	uint8_t bad[8 + 4 + 16 * 4] = { 16, 0, 0, 0, 1, 16 };

	assert_true(rpc_sid_parse("S-1-5-32-544", &s));
	ndr_push_init(&p, ctx);
	ndr_push_sid(&p, &s);
	assert_int_equal(p.b.len, 4 + 8 + 8);
	ndr_pull_init(&n, p.b.data, p.b.len);
	assert_int_equal(ndr_pull_sid(&n, &r), NT_STATUS_OK);
	assert_true(rpc_sid_equal(&s, &r));
	/* 16 sub-authorities: more than a SID may have */
	ndr_pull_init(&n, bad, sizeof(bad));
	assert_int_equal(ndr_pull_sid(&n, &r), NT_STATUS_INVALID_PARAMETER);
	/* conformance disagrees with SubAuthorityCount */
	p.b.data[0] = 1;
	ndr_pull_init(&n, p.b.data, p.b.len);
	assert_int_equal(ndr_pull_sid(&n, &r), NT_STATUS_INVALID_PARAMETER);
	/* truncated */
	p.b.data[0] = 2;
	ndr_pull_init(&n, p.b.data, p.b.len - 1);
	assert_int_equal(ndr_pull_sid(&n, &r), NT_STATUS_INVALID_PARAMETER);
	talloc_free(ctx);
}

static void test_secrets_sid(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	/* struct dom_sid as Samba stores it: 68 bytes */
	uint8_t rec[68] = { 1, 4, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0,
			    0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xff,
			    7, 0, 0, 0 };
	struct rpc_sid s;

	assert_true(rpc_sid_from_secrets(rec, sizeof(rec), &s));
	assert_string_equal(rpc_sid_string(ctx, &s),
			    "S-1-5-21-67305985-4294967295-7");
	rec[1] = 16;
	assert_false(rpc_sid_from_secrets(rec, sizeof(rec), &s));
	rec[1] = 4;
	assert_false(rpc_sid_from_secrets(rec, 20, &s));
	talloc_free(ctx);
}

/* SID <-> name without passdb: well-known, Unix users and groups. */
static void test_lookups(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(ctx);
	struct rpc_server_ctx srv = { 0 };
	struct rpc_sid dom, s;
	struct rpc_name n;

	assert_true(lp_load_string(lp, "t", "[global]\nnetbios name = NB\n"));
	srv.lp = lp;
	srv.private_dir = "/nonexistent";
	assert_true(rpc_sid_parse("S-1-5-21-1-2-3", &dom));

	assert_true(rpc_sid_parse("S-1-22-2-0", &s));
	assert_true(rpc_lookup_sid(ctx, &srv, &dom, &s, &n));
	assert_string_equal(n.domain, "Unix Group");
	assert_string_equal(n.name, "root");
	assert_int_equal(n.type, RPC_SID_GROUP);
	assert_string_equal(rpc_sid_string(ctx, &n.domain_sid), "S-1-22-2");

	assert_true(rpc_sid_parse("S-1-22-1-0", &s));
	assert_true(rpc_lookup_sid(ctx, &srv, &dom, &s, &n));
	assert_string_equal(n.domain, "Unix User");
	assert_int_equal(n.type, RPC_SID_USER);

	assert_true(rpc_lookup_sid(ctx, &srv, &dom, &dom, &n));
	assert_string_equal(n.name, "NB");
	assert_int_equal(n.type, RPC_SID_DOMAIN);

	assert_true(rpc_sid_parse("S-1-5-21-1-2-3-513", &s));
	assert_true(rpc_lookup_sid(ctx, &srv, &dom, &s, &n));
	assert_string_equal(n.name, "None");

	assert_true(rpc_sid_parse("S-1-5-21-1-2-3-1000", &s));
	assert_false(rpc_lookup_sid(ctx, &srv, &dom, &s, &n));
	assert_true(rpc_sid_parse("S-1-5-21-9-9-9-1000", &s));
	assert_false(rpc_lookup_sid(ctx, &srv, &dom, &s, &n));

	assert_true(rpc_lookup_name(ctx, &srv, &dom, "Unix Group\\root", &n));
	assert_string_equal(rpc_sid_string(ctx, &n.sid), "S-1-22-2-0");
	assert_true(rpc_lookup_name(ctx, &srv, &dom, "NT Authority\\SYSTEM",
				    &n));
	assert_string_equal(rpc_sid_string(ctx, &n.sid), "S-1-5-18");
	assert_true(rpc_lookup_name(ctx, &srv, &dom, "builtin\\users", &n));
	assert_string_equal(rpc_sid_string(ctx, &n.sid), "S-1-5-32-545");
	assert_true(rpc_lookup_name(ctx, &srv, &dom, "NB", &n));
	assert_int_equal(n.type, RPC_SID_DOMAIN);
	assert_true(rpc_lookup_name(ctx, &srv, &dom, "NB\\None", &n));
	assert_string_equal(rpc_sid_string(ctx, &n.sid),
			    "S-1-5-21-1-2-3-513");
	assert_false(rpc_lookup_name(ctx, &srv, &dom, "OTHER\\root", &n));
	assert_false(rpc_lookup_name(ctx, &srv, &dom, "no-such-user-x", &n));
	assert_false(rpc_lookup_name(ctx, &srv, &dom, "\\", &n));
	talloc_free(ctx);
}

/* No secrets.tdb: a SID is made once and kept in the state directory. */
static void test_domain_sid_kept(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(ctx);
	struct rpc_server_ctx srv = { 0 };
	struct rpc_sid a, b;
	char dir[] = "/tmp/test_rpc_sid.XXXXXX";
	char *path;

	assert_non_null(mkdtemp(dir));
	srv.lp = lp;
	srv.state_dir = dir;
	srv.private_dir = dir;
	rpc_domain_sid(&srv, &a);
	rpc_domain_sid(&srv, &b);
	assert_true(rpc_sid_equal(&a, &b));
	assert_int_equal(a.num_auths, 4);
	assert_int_equal(a.sub[0], 21);
	path = talloc_asprintf(ctx, "%s/smbd-ng-domain-sid", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pull_align_bounds),
		cmocka_unit_test(test_wstring_roundtrip),
		cmocka_unit_test(test_wstring_lies),
		cmocka_unit_test(test_unicode_string),
		cmocka_unit_test(test_check_count),
		cmocka_unit_test(test_sid_text),
		cmocka_unit_test(test_sid_ndr),
		cmocka_unit_test(test_secrets_sid),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_domain_sid_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
