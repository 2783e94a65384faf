/*
 * Unit tests for smbd/auth/asn1.c and spnego.c: real tokens captured from
 * smbclient and Samba, tokens from impacket's independent encoder, our
 * writer parsed back, and malformed DER (lengths past the end, indefinite
 * lengths, high tag numbers, deep nesting, trailing junk).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "smbd/auth/asn1.h"
#include "smbd/auth/spnego.h"

#include "unhex.h"

/*
 * A real exchange captured (through a logging TCP proxy) between
 * smbclient 4.17 and Samba 4.17 smbd, user authtest1, password "pw1":
 * the SESSION_SETUP security buffers, in order.
 */
static const char cap_init_hex[] =
	"604806062b0601050502a03e303ca00e300c060a2b06010401823702020aa22a"
	"04284e544c4d5353500001000000158208620000000028000000000000002800"
	"0000060100000000000f";
static const char cap_chal_hex[] =
	"a18181307fa0030a0101a10c060a2b06010401823702020aa26a04684e544c4d"
	"5353500002000000040004003800000015828a62ca25e79491b40b5800000000"
	"000000002c002c003c000000060100000000000f56004d000200040056004d00"
	"0100040056004d00040000000300040076006d0007000800424fa3575382dd01"
	"00000000";
static const char cap_auth_hex[] =
	"a18201903082018ca2820174048201704e544c4d535350000300000018001800"
	"58000000c800c800700000001200120038010000120012004a01000004000400"
	"5c010000100010006001000015820862060100000000000f4787f3102ce3be3b"
	"5b66e218b3255f68000000000000000000000000000000000000000000000000"
	"c204e01cd48482e5d0bbafd143bf43fb0101000000000000424fa3575382dd01"
	"cc15d899193fb92a000000000200040056004d000100040056004d0004000000"
	"0300040076006d0007000800424fa3575382dd01060004000200000008003000"
	"30000000000000000000000000000000f5bea4a36da8fed95371b585fffb319f"
	"8bda88e0c6899f26f51c4a7805c14bb60a001000000000000000000000000000"
	"0000000009001c0063006900660073002f003100320037002e0030002e003000"
	"2e0031000000000057004f0052004b00470052004f0055005000610075007400"
	"68007400650073007400310056004d005aeb11c785aa65c6a7750123f4a85288"
	"a3120410010000003a1e5fb8734606ac00000000";
static const char cap_done_hex[] =
	"a11b3019a0030a0100a312041001000000ef646303f379bc9f00000000";


/* Samba 4.17's NEGOTIATE response security buffer (same capture). */
static const char samba_hint_hex[] =
	"604806062b0601050502a03e303ca00e300c060a2b06010401823702020aa32a"
	"3028a0261b246e6f745f646566696e65645f696e5f5246433431373840706c65"
	"6173655f69676e6f7265";

/* Samba 4.17's as a security = ads member (the issue 36 bed): MS KRB5,
 * KRB5, NTLMSSP. */
static const char samba_member_hint_hex[] =
	"605e06062b0601050502a0543052a024302206092a864882f71201020206092a"
	"864886f712010202060a2b06010401823702020aa32a3028a0261b246e6f745f"
	"646566696e65645f696e5f5246433431373840706c656173655f69676e6f7265";

/* impacket 0.10 (spnego.SPNEGO_NegTokenInit/Resp), another encoder. */
static const char impacket_init_hex[] =
	"604006062b0601050502a0363034a00e300c060a2b06010401823702020aa222"
	"04204e544c4d5353500001000000050288a00000000000000000000000000000"
	"0000";
static const char impacket_resp_hex[] =
	"a1253023a0030a0101a10c060a2b06010401823702020aa20e040c4e544c4d53"
	"5350000200000000";

static void test_hint(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	uint8_t want[128], *out;
	size_t n = unhex(samba_hint_hex, want, sizeof(want)), out_len;
	struct spnego_token tok;

	assert_int_equal(spnego_negotiate_hint(mem_ctx, false, &out, &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, want, n);
	/* a negTokenInit2 with negHints at [3] parses too */
	assert_int_equal(spnego_parse(out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_INIT);
	assert_int_equal(tok.num_mechs, 1);
	assert_true(spnego_is_ntlmssp(&tok.mechs[0]));
	assert_null(tok.mech_token.data);
	assert_null(tok.mech_list_mic.data);
	/* security = ads: Samba 4.17's member (issue 36), byte for byte */
	n = unhex(samba_member_hint_hex, want, sizeof(want));
	assert_int_equal(spnego_negotiate_hint(mem_ctx, true, &out, &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, want, n);
	assert_int_equal(spnego_parse(out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.num_mechs, 3);
	assert_true(spnego_is_krb5(&tok.mechs[0]));
	assert_true(spnego_is_krb5(&tok.mechs[1]));
	assert_false(spnego_is_krb5(&tok.mechs[2]));
	assert_true(spnego_is_ntlmssp(&tok.mechs[2]));
	assert_false(spnego_is_ntlmssp(&tok.mechs[0]));
	talloc_free(mem_ctx);
}

static void test_captured(void **state)
{
	uint8_t buf[1024];
	size_t n;
	struct spnego_token tok;

	n = unhex(cap_init_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_INIT);
	assert_int_equal(tok.num_mechs, 1);
	assert_true(spnego_is_ntlmssp(&tok.mechs[0]));
	assert_int_equal(tok.mech_list_der.len, 14);
	assert_int_equal(tok.mech_list_der.data[0], 0x30);
	assert_int_equal(tok.mech_token.len, 40);
	assert_memory_equal(tok.mech_token.data, "NTLMSSP\0\1", 9);

	n = unhex(cap_chal_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_RESP);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
	assert_true(spnego_is_ntlmssp(&tok.supported_mech));
	assert_memory_equal(tok.mech_token.data, "NTLMSSP\0\2", 9);

	/* long-form lengths (0x82) and no negState */
	n = unhex(cap_auth_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_RESP);
	assert_int_equal(tok.neg_state, SPNEGO_NO_STATE);
	assert_int_equal(tok.mech_token.len, 0x170);
	assert_memory_equal(tok.mech_token.data, "NTLMSSP\0\3", 9);
	assert_int_equal(tok.mech_list_mic.len, 16);

	n = unhex(cap_done_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_null(tok.mech_token.data);
	assert_int_equal(tok.mech_list_mic.len, 16);

	n = unhex(impacket_init_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.mech_token.len, 32);
	n = unhex(impacket_resp_hex, buf, sizeof(buf));
	assert_int_equal(spnego_parse(buf, n, &tok), NT_STATUS_OK);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
}

/* Our writer reproduces Samba's final token byte for byte. */
static void test_build_resp(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	uint8_t want[1024], *out;
	size_t n, out_len;
	struct spnego_token tok;

	n = unhex(cap_done_hex, want, sizeof(want));
	assert_int_equal(spnego_parse(want, n, &tok), NT_STATUS_OK);
	assert_int_equal(spnego_build_resp(mem_ctx, SPNEGO_ACCEPT_COMPLETED,
					   false, NULL, 0,
					   tok.mech_list_mic.data, 16, &out,
					   &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, want, n);

	n = unhex(cap_chal_hex, want, sizeof(want));
	assert_int_equal(spnego_parse(want, n, &tok), NT_STATUS_OK);
	assert_int_equal(spnego_build_resp(mem_ctx, SPNEGO_ACCEPT_INCOMPLETE,
					   true, tok.mech_token.data,
					   tok.mech_token.len, NULL, 0, &out,
					   &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, want, n);

	/* and the client's AUTHENTICATE leg with its 0x82 lengths */
	n = unhex(cap_auth_hex, want, sizeof(want));
	assert_int_equal(spnego_parse(want, n, &tok), NT_STATUS_OK);
	assert_int_equal(spnego_build_resp(mem_ctx, SPNEGO_NO_STATE, false,
					   tok.mech_token.data,
					   tok.mech_token.len,
					   tok.mech_list_mic.data, 16, &out,
					   &out_len),
			 NT_STATUS_OK);
	assert_int_equal(out_len, n);
	assert_memory_equal(out, want, n);
	talloc_free(mem_ctx);
}

static void expect_bad(const char *hex)
{
	uint8_t buf[256];
	size_t n = unhex(hex, buf, sizeof(buf));
	struct spnego_token tok;

	assert_int_equal(spnego_parse(buf, n, &tok),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_malformed_tokens(void **state)
{
	uint8_t buf[1024];
	size_t n, cut;
	struct spnego_token tok;

	expect_bad("");
	expect_bad("60");
	/* outer length past the end */
	expect_bad("60ff06062b0601050502");
	/* indefinite length (BER, not DER) */
	expect_bad("608006062b0601050502a0800000");
	/* five length octets */
	expect_bad("6085000000000a");
	/* wrong mechanism OID */
	expect_bad("600ca00a3008a0063004060200ff");
	expect_bad("6010060600000000000fa006300430020000");
	/* empty mechTypes */
	expect_bad("600ea00c300aa00430020600a2020400");
	expect_bad("600c06062b0601050502a0023000");
	/* negState out of range, context tags out of order */
	expect_bad("a1073005a0030a0109");
	expect_bad("a10c300aa2020400a0030a0101");
	/* duplicate tag, unknown tag [5] */
	expect_bad("a10a3008a0030a0101a0030a0101");
	expect_bad("a1063004a5020400");
	/* junk after the last element inside the SEQUENCE */
	expect_bad("a1083006a0030a01010500");
	/* high tag number form */
	expect_bad("bf1f00");
	/* a primitive where a constructed [n] is required */
	expect_bad("a1053003800101");

	/* every truncation of a real token fails */
	n = unhex(cap_auth_hex, buf, sizeof(buf));
	for (cut = 0; cut < n; cut++) {
		assert_int_equal(spnego_parse(buf, cut, &tok),
				 NT_STATUS_INVALID_PARAMETER);
	}
	/* a lie in the inner OCTET STRING length */
	buf[12] = 0xff;
	assert_int_equal(spnego_parse(buf, n, &tok),
			 NT_STATUS_INVALID_PARAMETER);
}

static void test_asn1_nesting(void **state)
{
	uint8_t buf[2 * 40];
	struct asn1_cur c, in;
	struct asn1_tlv t;
	unsigned depth = 0;
	size_t i;

	/* 40 nested empty-ended SEQUENCEs: 30 4e 30 4c ... 30 00 */
	for (i = 0; i < 40; i++) {
		buf[2 * i] = 0x30;
		buf[2 * i + 1] = (uint8_t)(2 * (39 - i));
	}
	asn1_cur_init(&c, buf, sizeof(buf));
	for (;;) {
		if (!NT_STATUS_IS_OK(asn1_read(&c, &t)) ||
		    !NT_STATUS_IS_OK(asn1_enter(&t, &in))) {
			break;
		}
		c = in;
		depth++;
	}
	assert_true(depth < ASN1_MAX_DEPTH);
	assert_int_equal(depth, ASN1_MAX_DEPTH - 1);
}

static void test_asn1_lengths(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	static uint8_t big[70000];
	struct asn1_writer w;
	struct asn1_cur c, in;
	struct asn1_tlv t;
	uint8_t *out;
	size_t out_len;
	size_t sizes[] = {0, 1, 127, 128, 255, 256, 65535, 65536, 70000};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(big, (int)i, sizes[i]);
		asn1_writer_init(&w, mem_ctx);
		asn1_push_start(&w, ASN1_SEQUENCE);
		asn1_push_prim(&w, ASN1_OCTET_STRING, big, sizes[i]);
		asn1_push_end(&w);
		assert_int_equal(asn1_writer_finish(&w, &out, &out_len),
				 NT_STATUS_OK);
		asn1_cur_init(&c, out, out_len);
		assert_int_equal(asn1_read_tag(&c, ASN1_SEQUENCE, &t),
				 NT_STATUS_OK);
		assert_true(asn1_at_end(&c));
		assert_int_equal(t.raw_len, out_len);
		assert_int_equal(asn1_enter(&t, &in), NT_STATUS_OK);
		assert_int_equal(asn1_read_tag(&in, ASN1_OCTET_STRING, &t),
				 NT_STATUS_OK);
		assert_int_equal(t.len, sizes[i]);
		assert_memory_equal(t.val, big, sizes[i]);
		/* DER: the shortest length form */
		if (sizes[i] < 128) {
			assert_int_equal(out[1], sizes[i] + 2);
		}
	}
	/* unbalanced writer */
	asn1_writer_init(&w, mem_ctx);
	asn1_push_start(&w, ASN1_SEQUENCE);
	assert_int_equal(asn1_writer_finish(&w, &out, &out_len),
			 NT_STATUS_INTERNAL_ERROR);
	asn1_writer_init(&w, mem_ctx);
	asn1_push_end(&w);
	assert_int_equal(asn1_writer_finish(&w, &out, &out_len),
			 NT_STATUS_NO_MEMORY);
	talloc_free(mem_ctx);
}

static void test_asn1_values(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	static const int32_t vals[] = {0, 1, 2, 127, 128, 255, 256, -1, -128,
				       -129, 0x7fffffff, INT32_MIN};
	struct asn1_writer w;
	struct asn1_cur c;
	struct asn1_tlv t;
	uint8_t *out, unused;
	const uint8_t *bits;
	size_t out_len, i, nbytes;
	int32_t v;
	char *s;
	uint8_t *enc;
	size_t enc_len;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		asn1_writer_init(&w, mem_ctx);
		asn1_push_enumerated(&w, vals[i]);
		assert_int_equal(asn1_writer_finish(&w, &out, &out_len),
				 NT_STATUS_OK);
		asn1_cur_init(&c, out, out_len);
		assert_int_equal(asn1_read_tag(&c, ASN1_ENUMERATED, &t),
				 NT_STATUS_OK);
		assert_int_equal(asn1_tlv_int(&t, &v), NT_STATUS_OK);
		assert_int_equal(v, vals[i]);
	}
	/* 0x80 is 02 00 80 in DER */
	asn1_writer_init(&w, mem_ctx);
	asn1_push_enumerated(&w, 128);
	asn1_writer_finish(&w, &out, &out_len);
	assert_int_equal(out_len, 4);
	assert_int_equal(out[2], 0);

	/* OIDs both ways */
	assert_int_equal(asn1_oid_from_str(mem_ctx, "1.3.6.1.4.1.311.2.2.10",
					   &enc, &enc_len),
			 NT_STATUS_OK);
	assert_int_equal(enc_len, sizeof(spnego_oid_ntlmssp));
	assert_memory_equal(enc, spnego_oid_ntlmssp, enc_len);
	t.tag = ASN1_OID;
	t.val = (const uint8_t *)"\x2a\x86\x48\x82\xf7\x12\x01\x02\x02";
	t.len = 9;
	assert_int_equal(asn1_oid_to_str(mem_ctx, &t, &s), NT_STATUS_OK);
	assert_string_equal(s, "1.2.840.48018.1.2.2");
	t.val = (const uint8_t *)"\x2a\x86";
	t.len = 2; /* unterminated subidentifier */
	assert_int_equal(asn1_oid_to_str(mem_ctx, &t, &s),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(asn1_oid_from_str(mem_ctx, "1", &enc, &enc_len),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(asn1_oid_from_str(mem_ctx, "1.3.", &enc, &enc_len),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(asn1_oid_from_str(mem_ctx, "3.1", &enc, &enc_len),
			 NT_STATUS_INVALID_PARAMETER);

	/* BIT STRING (reqFlags) */
	t.tag = ASN1_BIT_STRING;
	t.val = (const uint8_t *)"\x07\x80";
	t.len = 2;
	assert_int_equal(asn1_tlv_bits(&t, &unused, &bits, &nbytes),
			 NT_STATUS_OK);
	assert_int_equal(unused, 7);
	assert_int_equal(nbytes, 1);
	t.val = (const uint8_t *)"\x08\x80";
	assert_int_equal(asn1_tlv_bits(&t, &unused, &bits, &nbytes),
			 NT_STATUS_INVALID_PARAMETER);
	/* integers wider than 32 bits */
	t.tag = ASN1_INTEGER;
	t.val = (const uint8_t *)"\x01\x00\x00\x00\x00";
	t.len = 5;
	assert_int_equal(asn1_tlv_int(&t, &v), NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem_ctx);
}

/* A Windows-style init: Kerberos first, NTLMSSP later, with a MIC. */
static void test_build_init_roundtrip(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct spnego_blob mechs[3] = {
		{(const uint8_t *)"\x2a\x86\x48\x82\xf7\x12\x01\x02\x02", 9},
		{(const uint8_t *)"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02", 9},
		{spnego_oid_ntlmssp, sizeof(spnego_oid_ntlmssp)},
	};
	struct spnego_token tok;
	uint8_t *out;
	size_t out_len;
	static uint8_t token[300];

	memset(token, 0xab, sizeof(token));
	assert_int_equal(spnego_build_init(mem_ctx, mechs, 3, token,
					   sizeof(token),
					   (const uint8_t *)"0123456789abcdef",
					   16, &out, &out_len),
			 NT_STATUS_OK);
	assert_int_equal(spnego_parse(out, out_len, &tok), NT_STATUS_OK);
	assert_int_equal(tok.num_mechs, 3);
	assert_false(spnego_is_ntlmssp(&tok.mechs[0]));
	assert_true(spnego_is_ntlmssp(&tok.mechs[2]));
	assert_int_equal(tok.mech_token.len, sizeof(token));
	assert_int_equal(tok.mech_list_mic.len, 16);
	talloc_free(mem_ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_build_resp),
		cmocka_unit_test(test_malformed_tokens),
		cmocka_unit_test(test_asn1_nesting),
		cmocka_unit_test(test_asn1_lengths),
		cmocka_unit_test(test_asn1_values),
		cmocka_unit_test(test_build_init_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
