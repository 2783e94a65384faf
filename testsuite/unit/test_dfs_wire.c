/*
 * Unit tests for smbd/wire/dfs_wire.c: the DFS referral request parsers
 * (MS-DFSC 2.2.2, 2.2.3), the response encoder (2.2.4, 2.2.5.2,
 * 2.2.5.3), the referral path helpers and a CREATE's DFS name
 * (MS-SMB2 3.3.5.9).
 *
 * The expected responses are the bytes Samba 4.17's smbd sent for the
 * same referrals (captured with the raw client of
 * testsuite/integration/test_dfs.py from a root share [dfsroot] with
 * links to \127.91.0.1\target), so the encoder matches them byte for
 * byte; requests are built here at the offsets of the spec's tables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/wire/dfs_wire.h"

/* Samba 4.17: \127.91.0.1\dfsroot at MaxReferralLevel 4 (a root). */
static const char samba_root_v3[] =
	"260001000300000003002200010000005802000022004a007200000000000000"
	"000000000000000000005c003100320037002e00390031002e0030002e003100"
	"5c0064006600730072006f006f00740000005c003100320037002e0039003100"
	"2e0030002e0031005c0064006600730072006f006f00740000005c0031003200"
	"37002e00390031002e0030002e0031005c0064006600730072006f006f007400"
	"0000";
/* ... at level 1 (Samba answers V2 to 0, 1 and 2). */
static const char samba_root_v2[] =
	"26000100030000000200160001000000000000005802000016003e0066005c00"
	"3100320037002e00390031002e0030002e0031005c0064006600730072006f00"
	"6f00740000005c003100320037002e00390031002e0030002e0031005c006400"
	"6600730072006f006f00740000005c003100320037002e00390031002e003000"
	"2e0031005c0064006600730072006f006f0074000000";
/* \127.91.0.1\dfsroot\link (-> msdfs:127.91.0.1\target), level 4. */
static const char samba_link_v3[] =
	"3000010002000000030022000000000058020000220054008600000000000000"
	"000000000000000000005c003100320037002e00390031002e0030002e003100"
	"5c0064006600730072006f006f0074005c006c0069006e006b0000005c003100"
	"320037002e00390031002e0030002e0031005c0064006600730072006f006f00"
	"74005c006c0069006e006b0000005c003100320037002e00390031002e003000"
	"2e0031005c007400610072006700650074000000";
/* ... level 1. */
static const char samba_link_v2[] =
	"300001000200000002001600000000000000000058020000160048007a005c00"
	"3100320037002e00390031002e0030002e0031005c0064006600730072006f00"
	"6f0074005c006c0069006e006b0000005c003100320037002e00390031002e00"
	"30002e0031005c0064006600730072006f006f0074005c006c0069006e006b00"
	"00005c003100320037002e00390031002e0030002e0031005c00740061007200"
	"6700650074000000";
/* \127.91.0.1\dfsroot\multi (-> msdfs:127.91.0.1\target\sub,
 * 127.0.0.2\target), level 4: two entries. */
static const char samba_multi_v3[] =
	"320002000200000003002200000000005802000044007800ac00000000000000"
	"00000000000000000000030022000000000058020000b800ec00200100000000"
	"0000000000000000000000005c003100320037002e00390031002e0030002e00"
	"31005c0064006600730072006f006f0074005c006d0075006c00740069000000"
	"5c003100320037002e00390031002e0030002e0031005c006400660073007200"
	"6f006f0074005c006d0075006c007400690000005c003100320037002e003900"
	"31002e0030002e0031005c007400610072006700650074005c00730075006200"
	"00005c003100320037002e00390031002e0030002e0031005c00640066007300"
	"72006f006f0074005c006d0075006c007400690000005c003100320037002e00"
	"390031002e0030002e0031005c0064006600730072006f006f0074005c006d00"
	"75006c007400690000005c003100320037002e0030002e0030002e0032005c00"
	"7400610072006700650074000000";

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t i, n = strlen(hex) / 2;

	for (i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

/* The response for r at level within max_out must be hex (cut to
 * max_out, with BUFFER_OVERFLOW, when overflow). */
static void expect_resp(const struct dfs_referral_resp *r, uint16_t level,
			uint32_t max_out, const char *hex, bool overflow)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	uint8_t want[1024];
	size_t n = unhex(hex, want);
	struct wire_buf b;

	if (overflow) {
		n = max_out;
	}
	wire_buf_init(&b, mem, 16);
	assert_int_equal(dfs_referral_resp_push(&b, level, r, max_out),
			 overflow ? STATUS_BUFFER_OVERFLOW : NT_STATUS_OK);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.data, want, n);
	talloc_free(mem);
}

static const char *const root_t[] = {"\\127.91.0.1\\dfsroot"};
static const struct dfs_referral_resp root_r = {
	.path_consumed = 38, .root = true,
	.dfs_path = "\\127.91.0.1\\dfsroot", .targets = root_t,
	.ntargets = 1};
static const char *const link_t[] = {"\\127.91.0.1\\target"};
static const struct dfs_referral_resp link_r = {
	.path_consumed = 48, .root = false,
	.dfs_path = "\\127.91.0.1\\dfsroot\\link", .targets = link_t,
	.ntargets = 1};
static const char *const multi_t[] = {"\\127.91.0.1\\target\\sub",
				      "\\127.0.0.2\\target"};
static const struct dfs_referral_resp multi_r = {
	.path_consumed = 50, .root = false,
	.dfs_path = "\\127.91.0.1\\dfsroot\\multi", .targets = multi_t,
	.ntargets = 2};

static void test_resp_samba_bytes(void **state)
{
	(void)state;
	expect_resp(&root_r, 4, 4096, samba_root_v3, false);
	expect_resp(&root_r, 3, 4096, samba_root_v3, false);
	expect_resp(&root_r, 5, 4096, samba_root_v3, false);
	expect_resp(&root_r, 1, 4096, samba_root_v2, false);
	expect_resp(&root_r, 0, 4096, samba_root_v2, false);
	expect_resp(&link_r, 4, 4096, samba_link_v3, false);
	expect_resp(&link_r, 2, 4096, samba_link_v2, false);
	expect_resp(&multi_r, 4, 4096, samba_multi_v3, false);
	/* exactly enough */
	expect_resp(&link_r, 4, 180, samba_link_v3, false);
}

/* Too small for one entry: Samba's bytes cut at MaxOutputResponse and
 * STATUS_BUFFER_OVERFLOW (its answers at 10, 40, 100 and 179). */
static void test_resp_overflow(void **state)
{
	(void)state;
	expect_resp(&link_r, 4, 10, samba_link_v3, true);
	expect_resp(&link_r, 4, 40, samba_link_v3, true);
	expect_resp(&link_r, 4, 100, samba_link_v3, true);
	expect_resp(&link_r, 4, 179, samba_link_v3, true);
	expect_resp(&multi_r, 4, 150, samba_multi_v3, true);
	expect_resp(&link_r, 4, 0, samba_link_v3, true);
}

/* MS-DFSC 3.2.5.1: room for the first of two entries (and its strings)
 * but not the second: the first alone, complete, and success. */
static void test_resp_partial(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;
	/* header, one V3 entry, 3 strings of 52, 52 and 46 bytes */
	uint32_t one = 8 + 34 + 52 + 52 + 46;

	(void)state;
	wire_buf_init(&b, mem, 16);
	assert_int_equal(dfs_referral_resp_push(&b, 4, &multi_r, one + 50),
			 NT_STATUS_OK);
	assert_int_equal(b.len, one);
	assert_int_equal(le16(b.data + 2), 1);		/* NumberOfReferrals */
	assert_int_equal(le16(b.data + 8 + 12), 34);	/* DFSPathOffset */
	assert_int_equal(le16(b.data + 8 + 16), 34 + 104); /* NetworkAddress */
	assert_memory_equal(b.data + 8 + 34 + 104,
			    "\\\0" "1\0" "2\0" "7\0", 8);
	talloc_free(mem);
}

/* An empty link ("msdfs:"): the header alone, as Samba answers. */
static void test_resp_no_targets(void **state)
{
	static const struct dfs_referral_resp r = {
		.path_consumed = 50, .dfs_path = "\\127.91.0.1\\dfsroot\\empty",
		.ntargets = 0};

	(void)state;
	expect_resp(&r, 4, 4096, "3200000002000000", false);
	expect_resp(&r, 4, 6, "3200000002000000", true);
}

/* Offsets are 16 bits: a DFSPath too long for them cannot be sent;
 * with several targets, those past their reach are left out. */
static void test_resp_offsets(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char *big = talloc_array(mem, char, 20001);
	const char *t[3] = {"\\a\\b", "\\c\\d", "\\e\\f"};
	struct dfs_referral_resp r = {.dfs_path = big, .targets = t,
				      .ntargets = 3};
	struct wire_buf b;

	(void)state;
	memset(big, 'x', 20000);
	big[20000] = '\0';
	wire_buf_init(&b, mem, 16);
	assert_int_equal(dfs_referral_resp_push(&b, 4, &r, 1u << 20),
			 NT_STATUS_OBJECT_NAME_INVALID);
	/* 12,000 units: one entry's strings reach 34 + 2 * 24002 */
	big[12000] = '\0';
	wire_buf_init(&b, mem, 16);
	assert_int_equal(dfs_referral_resp_push(&b, 4, &r, 1u << 20),
			 NT_STATUS_OK);
	assert_int_equal(le16(b.data + 2), 1);
	talloc_free(mem);
}

static void test_resp_bad_utf8(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *t[1] = {"\\a\\\xff"};
	struct dfs_referral_resp r = {.dfs_path = "\\a\\b", .targets = t,
				      .ntargets = 1};
	struct wire_buf b;

	(void)state;
	wire_buf_init(&b, mem, 16);
	assert_int_not_equal(dfs_referral_resp_push(&b, 4, &r, 4096),
			     NT_STATUS_OK);
	talloc_free(mem);
}

/* "\a\b" as UTF-16LE at buf + off, with or without its NUL. */
static size_t put_name(uint8_t *buf, const char *s, bool nul)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		buf[2 * i] = (uint8_t)s[i];
		buf[2 * i + 1] = 0;
	}
	if (nul) {
		buf[2 * n] = buf[2 * n + 1] = 0;
		return 2 * n + 2;
	}
	return 2 * n;
}

static void test_req_parse(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct dfs_referral_req q;
	uint8_t buf[256];
	size_t n;

	(void)state;
	put_le16(buf, 4);
	n = 2 + put_name(buf + 2, "\\srv\\share\\link", true);
	assert_int_equal(dfs_referral_req_parse(mem, buf, n, &q), NT_STATUS_OK);
	assert_int_equal(q.max_level, 4);
	assert_string_equal(q.path, "\\srv\\share\\link");
	assert_null(q.site);
	/* what follows the NUL is not the name's */
	buf[n] = 'z';
	buf[n + 1] = 0;
	assert_int_equal(dfs_referral_req_parse(mem, buf, n + 2, &q),
			 NT_STATUS_OK);
	assert_string_equal(q.path, "\\srv\\share\\link");
	/* no NUL: the whole buffer; an odd last byte is left out */
	n = 2 + put_name(buf + 2, "\\s\\x", false);
	assert_int_equal(dfs_referral_req_parse(mem, buf, n, &q), NT_STATUS_OK);
	assert_string_equal(q.path, "\\s\\x");
	buf[n] = 'q';
	assert_int_equal(dfs_referral_req_parse(mem, buf, n + 1, &q),
			 NT_STATUS_OK);
	assert_string_equal(q.path, "\\s\\x");
	/* level only: an empty name */
	assert_int_equal(dfs_referral_req_parse(mem, buf, 2, &q), NT_STATUS_OK);
	assert_string_equal(q.path, "");
	/* too short */
	assert_int_equal(dfs_referral_req_parse(mem, buf, 1, &q),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(dfs_referral_req_parse(mem, buf, 0, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* an unpaired surrogate */
	put_le16(buf + 2, 0xD800);
	put_le16(buf + 4, 'a');
	assert_int_equal(dfs_referral_req_parse(mem, buf, 6, &q),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

static void test_req_parse_too_long(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	size_t units = DFS_PATH_MAX_UNITS + 1, i;
	uint8_t *buf = talloc_zero_array(mem, uint8_t, 2 + 2 * units);
	struct dfs_referral_req q;

	(void)state;
	for (i = 0; i < units; i++) {
		buf[2 + 2 * i] = 'a';
	}
	assert_int_equal(dfs_referral_req_parse(mem, buf, 2 + 2 * units, &q),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(dfs_referral_req_parse(mem, buf, 2 * units, &q),
			 NT_STATUS_OK);
	talloc_free(mem);
}

/* REQ_GET_DFS_REFERRAL_EX with the file name (and site) given. */
static size_t ex_build(uint8_t *buf, uint16_t flags, const char *name,
		       bool nul, const char *site)
{
	size_t n, off = 8;

	put_le16(buf, 4);
	put_le16(buf + 2, flags);
	n = put_name(buf + off + 2, name, nul);
	put_le16(buf + off, (uint16_t)n);
	off += 2 + n;
	if (site != NULL) {
		n = put_name(buf + off + 2, site, true);
		put_le16(buf + off, (uint16_t)n);
		off += 2 + n;
	}
	put_le32(buf + 4, (uint32_t)(off - 8));
	return off;
}

static void test_req_ex_parse(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct dfs_referral_req q;
	uint8_t buf[256];
	size_t n;

	(void)state;
	n = ex_build(buf, 0, "\\s\\r\\l", true, NULL);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_OK);
	assert_int_equal(q.max_level, 4);
	assert_string_equal(q.path, "\\s\\r\\l");
	assert_null(q.site);
	n = ex_build(buf, 0, "\\s\\r\\l", false, NULL);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_OK);
	assert_string_equal(q.path, "\\s\\r\\l");
	n = ex_build(buf, DFS_REQ_EX_SITE_NAME, "\\s\\r", true, "Site-1");
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_OK);
	assert_string_equal(q.path, "\\s\\r");
	assert_string_equal(q.site, "Site-1");
	/* bytes after RequestData are not looked at */
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n + 10, &q),
			 NT_STATUS_OK);
	/* RequestDataLength past the buffer */
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n - 1, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* the site flag without a site */
	n = ex_build(buf, DFS_REQ_EX_SITE_NAME, "\\s\\r", true, NULL);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* a name longer than RequestData */
	n = ex_build(buf, 0, "\\s\\r", true, NULL);
	put_le32(buf + 4, 4);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* an odd name length */
	n = ex_build(buf, 0, "\\s\\r", true, NULL);
	put_le16(buf + 8, 5);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* a NUL inside the name */
	n = ex_build(buf, 0, "\\s\\r", false, NULL);
	buf[10 + 2] = 0;
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* shorter than the fixed part */
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, 7, &q),
			 NT_STATUS_INVALID_PARAMETER);
	/* RequestDataLength 0xFFFFFFFF cannot wrap */
	n = ex_build(buf, 0, "\\s\\r", true, NULL);
	put_le32(buf + 4, 0xFFFFFFFF);
	assert_int_equal(dfs_referral_req_ex_parse(mem, buf, n, &q),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

static void test_utf16_len(void **state)
{
	(void)state;
	assert_int_equal(dfs_utf16_len("\\a\\b", 4), 8);
	assert_int_equal(dfs_utf16_len("\xc3\xa9t\xc3\xa9", 5), 6);
	assert_int_equal(dfs_utf16_len("\xe2\x82\xac", 3), 2);
	assert_int_equal(dfs_utf16_len("\xf0\x9f\x98\x80x", 5), 6);
	assert_int_equal(dfs_utf16_len("abc", 0), 0);
}

static void test_path_split(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct dfs_path p;

	(void)state;
	assert_int_equal(dfs_path_split(mem, "\\x\\dfsroot", &p),
			 NT_STATUS_OK);
	assert_string_equal(p.full, "\\x\\dfsroot");
	assert_string_equal(p.share, "dfsroot");
	assert_string_equal(p.rest, "");
	assert_int_equal(dfs_path_split(mem, "\\x\\dfsroot\\", &p),
			 NT_STATUS_OK);
	assert_string_equal(p.rest, "");
	/* a doubled leading '\': echoed with one */
	assert_int_equal(dfs_path_split(mem, "\\\\x\\Root\\a\\b", &p),
			 NT_STATUS_OK);
	assert_string_equal(p.full, "\\x\\Root\\a\\b");
	assert_string_equal(p.share, "Root");
	assert_string_equal(p.rest, "a\\b");
	/* none at all */
	assert_int_equal(dfs_path_split(mem, "x\\r\\l", &p), NT_STATUS_OK);
	assert_string_equal(p.full, "x\\r\\l");
	assert_string_equal(p.share, "r");
	assert_string_equal(p.rest, "l");
	assert_int_equal(dfs_path_split(mem, "\\x\\r\\\\l", &p), NT_STATUS_OK);
	assert_string_equal(p.rest, "\\l");
	/* no share */
	assert_int_equal(dfs_path_split(mem, "\\dfsroot", &p),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(dfs_path_split(mem, "", &p), NT_STATUS_NOT_FOUND);
	assert_int_equal(dfs_path_split(mem, "\\x\\\\r", &p),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(dfs_path_split(mem, "\\x\\", &p), NT_STATUS_NOT_FOUND);
	talloc_free(mem);
}

static size_t prefix(TALLOC_CTX *mem, const char *path, const char *norm,
		     size_t ncomp)
{
	struct dfs_path p;

	assert_int_equal(dfs_path_split(mem, path, &p), NT_STATUS_OK);
	return dfs_path_prefix_len(&p, norm, ncomp);
}

static void test_path_prefix(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);

	(void)state;
	assert_int_equal(prefix(mem, "\\x\\r\\link\\file", "link/file", 1),
			 strlen("\\x\\r\\link"));
	assert_int_equal(prefix(mem, "\\x\\r\\a\\b\\c", "a/b/c", 2),
			 strlen("\\x\\r\\a\\b"));
	assert_int_equal(prefix(mem, "\\x\\r\\a\\b\\c", "a/b/c", 3),
			 strlen("\\x\\r\\a\\b\\c"));
	/* empty components are skipped, not echoed away */
	assert_int_equal(prefix(mem, "\\x\\r\\\\link\\f", "link/f", 1),
			 strlen("\\x\\r\\\\link"));
	assert_int_equal(prefix(mem, "\\x\\r\\link\\", "link", 1),
			 strlen("\\x\\r\\link"));
	/* ".." taken back: Samba consumes "dir\..\link" whole */
	assert_int_equal(prefix(mem, "\\x\\r\\dir\\..\\link\\f", "link/f", 1),
			 strlen("\\x\\r\\dir\\..\\link"));
	/* the first time the walk stands there */
	assert_int_equal(prefix(mem, "\\x\\r\\a\\..\\a\\b", "a/b", 1),
			 strlen("\\x\\r\\a"));
	assert_int_equal(prefix(mem, "\\x\\r\\b\\..\\a\\b", "a/b", 1),
			 strlen("\\x\\r\\b\\..\\a"));
	/* a name that is a prefix of norm's is not it */
	assert_int_equal(prefix(mem, "\\x\\r\\lin\\k", "link", 1), 0);
	/* never there, nothing asked, more than norm has */
	assert_int_equal(prefix(mem, "\\x\\r\\a\\b", "c", 1), 0);
	assert_int_equal(prefix(mem, "\\x\\r\\a", "a", 0), 0);
	assert_int_equal(prefix(mem, "\\x\\r\\a", "a", 2), 0);
	talloc_free(mem);
}

/* A CREATE name as UTF-16LE. */
static size_t u16(uint8_t *buf, const char *s)
{
	return put_name(buf, s, false);
}

static void expect_strip(const char *name, const char *share,
			 NTSTATUS want, size_t skip_units)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	uint8_t buf[256];
	size_t n = u16(buf, name), skip = 99;

	assert_int_equal(dfs_create_name_strip(mem, buf, n, share, &skip),
			 want);
	if (NT_STATUS_IS_OK(want)) {
		assert_int_equal(skip, 2 * skip_units);
	}
	talloc_free(mem);
}

/* Samba 4.17's answers, tried with raw CREATEs carrying the flag. */
static void test_create_strip(void **state)
{
	(void)state;
	expect_strip("srv\\dfsroot\\plain", "dfsroot", NT_STATUS_OK, 12);
	expect_strip("\\srv\\dfsroot\\plain", "dfsroot", NT_STATUS_OK, 13);
	expect_strip("srv\\DfsRoot\\a\\b", "dfsroot", NT_STATUS_OK, 12);
	expect_strip("otherhost\\dfsroot\\plain", "dfsroot", NT_STATUS_OK, 18);
	/* the share itself: its root */
	expect_strip("srv\\dfsroot", "dfsroot", NT_STATUS_OK, 11);
	expect_strip("srv\\dfsroot\\", "dfsroot", NT_STATUS_OK, 12);
	/* no '\': a path as it is */
	expect_strip("plain", "dfsroot", NT_STATUS_OK, 0);
	expect_strip("\\plain", "dfsroot", NT_STATUS_OK, 0);
	expect_strip("", "dfsroot", NT_STATUS_OK, 0);
	/* another share, or none */
	expect_strip("srv\\other\\plain", "dfsroot",
		     NT_STATUS_OBJECT_PATH_NOT_FOUND, 0);
	expect_strip("a\\b\\plain", "dfsroot",
		     NT_STATUS_OBJECT_PATH_NOT_FOUND, 0);
	expect_strip("srv\\\\plain", "dfsroot",
		     NT_STATUS_OBJECT_PATH_NOT_FOUND, 0);
	expect_strip("srv\\dfsroo", "dfsroot",
		     NT_STATUS_OBJECT_PATH_NOT_FOUND, 0);
}

static void test_create_strip_non_ascii(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	/* "s\Ü\f" against "ü": compared without case */
	const uint8_t name[] = {'s', 0, '\\', 0, 0xDC, 0, '\\', 0, 'f', 0};
	size_t skip;

	(void)state;
	assert_int_equal(dfs_create_name_strip(mem, name, sizeof(name),
					       "\xc3\xbc", &skip),
			 NT_STATUS_OK);
	assert_int_equal(skip, 8);
	/* odd length: the last byte is no unit */
	assert_int_equal(dfs_create_name_strip(mem, name, sizeof(name) - 1,
					       "\xc3\xbc", &skip),
			 NT_STATUS_OK);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resp_samba_bytes),
		cmocka_unit_test(test_resp_overflow),
		cmocka_unit_test(test_resp_partial),
		cmocka_unit_test(test_resp_no_targets),
		cmocka_unit_test(test_resp_offsets),
		cmocka_unit_test(test_resp_bad_utf8),
		cmocka_unit_test(test_req_parse),
		cmocka_unit_test(test_req_parse_too_long),
		cmocka_unit_test(test_req_ex_parse),
		cmocka_unit_test(test_utf16_len),
		cmocka_unit_test(test_path_split),
		cmocka_unit_test(test_path_prefix),
		cmocka_unit_test(test_create_strip),
		cmocka_unit_test(test_create_strip_non_ascii),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
