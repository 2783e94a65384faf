/*
 * Unit tests for smbd/auth/pac.c (MS-PAC) and the SID helpers of
 * smbd/auth/auth_sid.c: a KERB_VALIDATION_INFO made by impacket's NDR
 * encoder (an implementation independent of ours: testsuite/unit/
 * gen_pac.py), PACTYPE
 * wrappers built here, and malformed input: every truncation, counts
 * larger than the buffer, misaligned and overlapping buffers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/wire.h"
#include "smbd/auth/pac.h"

#include "unhex.h"

#include "pac_sample.h"

static uint8_t kvi[4096];
static size_t kvi_len;

static int setup(void **state)
{
	kvi_len = unhex(impacket_kvi_hex, kvi, sizeof(kvi));
	return 0;
}

static void sid_is(const struct auth_sid *s, const char *want)
{
	char buf[AUTH_SID_STRING_MAX];

	assert_string_equal(auth_sid_string(s, buf), want);
}

static void test_sid_strings(void **state)
{
	struct auth_sid s, t;
	char buf[AUTH_SID_STRING_MAX];

	assert_true(auth_sid_parse("S-1-5-21-1111-2222-3333-1103", &s));
	assert_int_equal(s.num_auths, 5);
	assert_int_equal(s.sub_auths[4], 1103);
	sid_is(&s, "S-1-5-21-1111-2222-3333-1103");
	assert_true(auth_sid_parse("S-1-22-1-4294967295", &t));
	sid_is(&t, "S-1-22-1-4294967295");
	assert_false(auth_sid_equal(&s, &t));
	assert_true(auth_sid_parse("S-1-1-0", &t));
	sid_is(&t, "S-1-1-0");
	assert_true(auth_sid_parse("S-1-18-1", &t));
	assert_true(auth_sid_parse("S-1-5", &t));
	assert_int_equal(t.num_auths, 0);
	/* not SIDs */
	assert_false(auth_sid_parse("S-1-22-1-4294967296", &t));
	assert_false(auth_sid_parse("S-2-5-21", &t));
	assert_false(auth_sid_parse("S-1-5-", &t));
	assert_false(auth_sid_parse("S-1--5", &t));
	assert_false(auth_sid_parse("S-1-5-x", &t));
	assert_false(auth_sid_parse("X-1-5", &t));
	assert_false(auth_sid_parse("", &t));
	assert_false(auth_sid_parse(NULL, &t));
	assert_false(auth_sid_parse(
		"S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16", &t));
	assert_true(auth_sid_parse(
		"S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15", &t));
	assert_false(auth_sid_compose(&t, 1, &s));
	/* 2.4.2.1: an authority of 2^32 or more in hex */
	memset(&t, 0, sizeof(t));
	t.revision = 1;
	t.id_auth[0] = 1;
	assert_string_equal(auth_sid_string(&t, buf), "S-1-0x010000000000");
}

static void test_impacket_logon_info(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct pac_logon_info *li;
	struct auth_sid *sids;
	size_t n;

	assert_int_equal(pac_parse_logon_info(mem, kvi, kvi_len, &li),
			 NT_STATUS_OK);
	assert_string_equal(li->account_name, "alice");
	assert_string_equal(li->full_name, "Alice \xc3\x84rger");
	assert_string_equal(li->logon_domain, "SMBNG");
	assert_string_equal(li->logon_server, "DC1");
	assert_int_equal(li->user_rid, 1103);
	assert_int_equal(li->primary_group_rid, 513);
	assert_int_equal(li->user_flags,
			 PAC_LOGON_EXTRA_SIDS | PAC_LOGON_RESOURCE_GROUPS);
	assert_true(li->has_domain_sid);
	sid_is(&li->domain_sid, "S-1-5-21-1111-2222-3333");
	assert_int_equal(li->num_groups, 3);
	assert_int_equal(li->groups[1].rid, 1105);
	assert_int_equal(li->groups[1].attributes, 7);
	assert_int_equal(li->num_extra, 2);
	sid_is(&li->extra[0].sid, "S-1-18-1");
	sid_is(&li->extra[1].sid, "S-1-5-21-4444-5555-6666-1000");
	assert_true(li->has_resource_domain);
	assert_int_equal(li->num_resource, 1);
	assert_int_equal(li->resource[0].rid, 4242);

	assert_int_equal(pac_token_sids(mem, li, &sids, &n), NT_STATUS_OK);
	/* user, primary group (513 not repeated), 1105, 512, 2 extra,
	 * 1 resource */
	assert_int_equal(n, 7);
	sid_is(&sids[0], "S-1-5-21-1111-2222-3333-1103");
	sid_is(&sids[1], "S-1-5-21-1111-2222-3333-513");
	sid_is(&sids[2], "S-1-5-21-1111-2222-3333-1105");
	sid_is(&sids[3], "S-1-5-21-1111-2222-3333-512");
	sid_is(&sids[4], "S-1-18-1");
	sid_is(&sids[5], "S-1-5-21-4444-5555-6666-1000");
	sid_is(&sids[6], "S-1-5-21-7777-8888-9999-4242");
	talloc_free(mem);
}

/* Every prefix of a valid buffer is refused, never read past. */
static void test_truncated(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct pac_logon_info *li;
	size_t i;

	for (i = 0; i < kvi_len; i++) {
		uint8_t *copy = talloc_memdup(mem, kvi, i);
		/* the object length says how much there is: shorten it too,
		 * so the cut is inside the NDR and not only the header */
		if (i >= 16) {
			put_le32(copy + 8, (uint32_t)(i - 16));
		}
		assert_int_equal(pac_parse_logon_info(mem, copy, i, &li),
				 NT_STATUS_INVALID_PARAMETER);
		assert_null(li);
		talloc_free(copy);
	}
	talloc_free(mem);
}

static void test_bad_headers(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct pac_logon_info *li;
	uint8_t b[4096];

	memcpy(b, kvi, kvi_len);
	b[0] = 2; /* version */
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(b, kvi, kvi_len);
	b[1] = 0x00; /* big-endian */
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(b, kvi, kvi_len);
	put_le32(b + 8, (uint32_t)kvi_len); /* object longer than buffer */
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(b, kvi, kvi_len);
	put_le32(b + 16, 0); /* NULL top-level pointer */
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

/* Offsets of fields in the impacket blob: 16 headers + 4 referent. */
#define KVI_BASE 20
#define KVI_GROUP_COUNT (KVI_BASE + 48 + 48 + 4 + 8)
#define KVI_SID_COUNT (KVI_BASE + 196)

static void test_bad_counts(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct pac_logon_info *li;
	uint8_t b[4096];

	memcpy(b, kvi, kvi_len);
	assert_int_equal(le32(b + KVI_GROUP_COUNT), 3);
	assert_int_equal(le32(b + KVI_SID_COUNT), 2);
	/* a count the conformance does not match */
	put_le32(b + KVI_GROUP_COUNT, 4);
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	/* a huge count: refused before anything is allocated for it */
	put_le32(b + KVI_GROUP_COUNT, 0x20000000);
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	/* a count without its array */
	memcpy(b, kvi, kvi_len);
	put_le32(b + KVI_GROUP_COUNT + 4, 0);
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(b, kvi, kvi_len);
	put_le32(b + KVI_SID_COUNT, 0xffffffff);
	assert_int_equal(pac_parse_logon_info(mem, b, kvi_len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

/* A PACTYPE around buffers (type, data, len), 8-aligned as MS-PAC 2.4
 * asks; returns its length. */
struct tbuf {
	uint32_t type;
	const uint8_t *data;
	size_t len;
};

static size_t wrap(uint8_t *out, size_t max, const struct tbuf *bufs,
		   size_t n)
{
	size_t off = 8 + 16 * n, i;

	memset(out, 0, max);
	put_le32(out, (uint32_t)n);
	put_le32(out + 4, 0);
	for (i = 0; i < n; i++) {
		assert_true(off + bufs[i].len <= max);
		put_le32(out + 8 + 16 * i, bufs[i].type);
		put_le32(out + 12 + 16 * i, (uint32_t)bufs[i].len);
		put_le64(out + 16 + 16 * i, off);
		memcpy(out + off, bufs[i].data, bufs[i].len);
		off += (bufs[i].len + 7) & ~(size_t)7;
	}
	return off;
}

static void test_pactype(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	static const uint8_t sig[20] = {0x10, 0, 0, 0}; /* HMAC-SHA1-96 */
	struct tbuf bufs[4] = {
		{PAC_TYPE_LOGON_INFO, kvi, kvi_len},
		{PAC_TYPE_SERVER_CHECKSUM, sig, sizeof(sig)},
		{PAC_TYPE_PRIVSVR_CHECKSUM, sig, sizeof(sig)},
		{PAC_TYPE_LOGON_INFO, kvi, kvi_len},
	};
	uint8_t pac[8192];
	struct pac_data *d;
	size_t len;

	len = wrap(pac, sizeof(pac), bufs, 3);
	assert_int_equal(pac_parse(mem, pac, len, &d), NT_STATUS_OK);
	assert_int_equal(d->num_buffers, 3);
	assert_int_equal(d->buffers[1].type, PAC_TYPE_SERVER_CHECKSUM);
	assert_int_equal(d->buffers[1].len, 20);
	assert_string_equal(d->logon_info->account_name, "alice");
	/* two LOGON_INFOs */
	len = wrap(pac, sizeof(pac), bufs, 4);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	/* none */
	len = wrap(pac, sizeof(pac), bufs + 1, 2);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	/* a misaligned offset, one inside the header, one past the end */
	len = wrap(pac, sizeof(pac), bufs, 3);
	put_le64(pac + 16 + 16, le64(pac + 16 + 16) + 4);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	len = wrap(pac, sizeof(pac), bufs, 3);
	put_le64(pac + 16 + 16, 8);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	len = wrap(pac, sizeof(pac), bufs, 3);
	put_le64(pac + 16 + 32, 0xfffffffffffffff8ULL);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	/* version 1, no buffers, more buffers than the PAC holds */
	len = wrap(pac, sizeof(pac), bufs, 3);
	put_le32(pac + 4, 1);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(pac + 4, 0);
	put_le32(pac, 0);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(pac, 60);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(pac, 0xffffffff);
	assert_int_equal(pac_parse(mem, pac, len, &d),
			 NT_STATUS_INVALID_PARAMETER);
	/* every truncation of a whole PAC (the last buffer ends 4 bytes
	 * before its 8-byte padding does) */
	len = wrap(pac, sizeof(pac), bufs, 3);
	{
		size_t i;

		assert_int_equal(pac_parse(mem, pac, len - 4, &d), NT_STATUS_OK);
		for (i = 0; i < len - 4; i++) {
			assert_int_equal(pac_parse(mem, pac, i, &d) ==
						 NT_STATUS_OK,
					 false);
		}
	}
	talloc_free(mem);
}

/* Hand-built: no strings, no groups, no extra SIDs, no resource
 * groups, every pointer NULL but LogonDomainId. */
static void test_minimal(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;
	struct pac_logon_info *li;
	struct auth_sid *sids;
	size_t n, i;

	wire_buf_init(&b, mem, 512);
	wire_push_u8(&b, 1);
	wire_push_u8(&b, 0x10);
	wire_push_le16(&b, 8);
	wire_push_le32(&b, 0xcccccccc);
	wire_push_le32(&b, 0); /* patched below */
	wire_push_le32(&b, 0);
	wire_push_le32(&b, 0x00020000); /* referent */
	wire_push_zero(&b, 48); /* FILETIMEs */
	wire_push_zero(&b, 6 * 8); /* six empty strings, NULL buffers */
	wire_push_le16(&b, 0);
	wire_push_le16(&b, 0);
	wire_push_le32(&b, 500);  /* UserId */
	wire_push_le32(&b, 513);  /* PrimaryGroupId */
	wire_push_le32(&b, 0);    /* GroupCount */
	wire_push_le32(&b, 0);    /* GroupIds */
	wire_push_le32(&b, 0);    /* UserFlags */
	wire_push_zero(&b, 16);   /* UserSessionKey */
	wire_push_zero(&b, 16);   /* LogonServer, LogonDomainName */
	wire_push_le32(&b, 0x00020004); /* LogonDomainId */
	wire_push_zero(&b, 8);
	wire_push_le32(&b, 0x10); /* UserAccountControl */
	wire_push_zero(&b, 4 + 16 + 4 + 4);
	wire_push_zero(&b, 4 * 5); /* SidCount .. ResourceGroupIds */
	/* deferred: the domain SID S-1-5-21-1-2-3 */
	wire_push_le32(&b, 4);
	wire_push_u8(&b, 1);
	wire_push_u8(&b, 4);
	wire_push_bytes(&b, "\0\0\0\0\0\5", 6);
	wire_push_le32(&b, 21);
	wire_push_le32(&b, 1);
	wire_push_le32(&b, 2);
	wire_push_le32(&b, 3);
	assert_false(b.failed);
	put_le32(b.data + 8, (uint32_t)(b.len - 16));
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len, &li),
			 NT_STATUS_OK);
	assert_string_equal(li->account_name, "");
	assert_int_equal(li->num_groups, 0);
	assert_int_equal(li->num_extra, 0);
	assert_false(li->has_resource_domain);
	assert_int_equal(pac_token_sids(mem, li, &sids, &n), NT_STATUS_OK);
	assert_int_equal(n, 2);
	sid_is(&sids[0], "S-1-5-21-1-2-3-500");
	sid_is(&sids[1], "S-1-5-21-1-2-3-513");
	/* a SID whose conformance differs from its count */
	put_le32(b.data + b.len - 28, 5);
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(b.data + b.len - 28, 4);
	/* 16 sub-authorities */
	b.data[b.len - 23] = 16;
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	b.data[b.len - 23] = 4;
	/* a string with a length but no buffer */
	put_le16(b.data + KVI_BASE + 48, 2);
	put_le16(b.data + KVI_BASE + 50, 2);
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	put_le16(b.data + KVI_BASE + 48, 0);
	/* an odd length */
	put_le16(b.data + KVI_BASE + 48, 1);
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len, &li),
			 NT_STATUS_INVALID_PARAMETER);
	put_le16(b.data + KVI_BASE + 48, 0);
	put_le16(b.data + KVI_BASE + 50, 0);
	/* without a domain SID there is no token */
	put_le32(b.data + KVI_BASE + 152, 0); /* LogonDomainId */
	for (i = 0; i < 28; i++) {
		b.data[b.len - 28 + i] = 0;
	}
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len - 28, &li),
			 NT_STATUS_INVALID_PARAMETER); /* length mismatch */
	put_le32(b.data + 8, (uint32_t)(b.len - 28 - 16));
	assert_int_equal(pac_parse_logon_info(mem, b.data, b.len - 28, &li),
			 NT_STATUS_OK);
	assert_false(li->has_domain_sid);
	assert_int_equal(pac_token_sids(mem, li, &sids, &n),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sid_strings),
		cmocka_unit_test_setup(test_impacket_logon_info, setup),
		cmocka_unit_test_setup(test_truncated, setup),
		cmocka_unit_test_setup(test_bad_headers, setup),
		cmocka_unit_test_setup(test_bad_counts, setup),
		cmocka_unit_test_setup(test_pactype, setup),
		cmocka_unit_test(test_minimal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
