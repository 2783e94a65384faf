/*
 * Unit tests: framing, the compound splitter, the body-size table, credits
 * and NEGOTIATE (MS-SMB2 2.2.3/2.2.4, 3.3.5.3.1, 3.3.5.4), driven through
 * a socket-less connection.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <talloc.h>

#include "testsuite/common/smb2_testconn.h"
#include "smbd/conn/conn.h"
#include "smbd/smbd.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_server.h"
#include "lib/wire.h"

static void hdr(struct wire_buf *b, uint16_t op, uint64_t mid, uint16_t credits)
{
	wire_push_le32(b, SMB2_MAGIC);
	wire_push_le16(b, 64);
	wire_push_le16(b, 1);  /* CreditCharge */
	wire_push_le32(b, 0);  /* Status */
	wire_push_le16(b, op);
	wire_push_le16(b, credits);
	wire_push_le32(b, 0);  /* Flags */
	wire_push_le32(b, 0);  /* NextCommand */
	wire_push_le64(b, mid);
	wire_push_le32(b, 0xFEFF);
	wire_push_le32(b, 0);
	wire_push_le64(b, 0);
	wire_push_zero(b, 16);
}

/* A NEGOTIATE request; with_ctx adds preauth (sha512 or not) + enc + sign. */
static void negotiate_req(struct wire_buf *b, uint64_t mid,
			  const uint16_t *dialects, uint16_t n, int ctx)
{
	size_t body, ctxoff_pos;
	uint16_t i;

	hdr(b, SMB2_OP_NEGPROT, mid, 10);
	body = b->len;
	wire_push_le16(b, 36);
	wire_push_le16(b, n);
	wire_push_le16(b, SMB2_NEGOTIATE_SIGNING_ENABLED);
	wire_push_le16(b, 0);
	wire_push_le32(b, 0x7f);
	wire_push_bytes(b, "0123456789abcdef", 16);
	ctxoff_pos = b->len;
	wire_push_le32(b, 0);
	wire_push_le16(b, ctx ? 3 : 0);
	wire_push_le16(b, 0);
	for (i = 0; i < n; i++) {
		wire_push_le16(b, dialects[i]);
	}
	if (!ctx) {
		return;
	}
	wire_push_align(b, 8);
	put_le32(b->data + ctxoff_pos, (uint32_t)(b->len - (body - 64)));
	/* preauth: 1 algorithm, 32-byte salt */
	wire_push_le16(b, SMB2_PREAUTH_INTEGRITY_CAPABILITIES);
	wire_push_le16(b, 38);
	wire_push_le32(b, 0);
	wire_push_le16(b, 1);
	wire_push_le16(b, 32);
	wire_push_le16(b, ctx == 2 ? 0x7777 : SMB2_PREAUTH_INTEGRITY_SHA512);
	wire_push_zero(b, 32);
	wire_push_align(b, 8);
	wire_push_le16(b, SMB2_ENCRYPTION_CAPABILITIES);
	wire_push_le16(b, 6);
	wire_push_le32(b, 0);
	wire_push_le16(b, 2);
	wire_push_le16(b, SMB2_ENCRYPTION_AES128_GCM);
	wire_push_le16(b, SMB2_ENCRYPTION_AES128_CCM);
	wire_push_align(b, 8);
	wire_push_le16(b, SMB2_SIGNING_CAPABILITIES);
	wire_push_le16(b, 6);
	wire_push_le32(b, 0);
	wire_push_le16(b, 2);
	wire_push_le16(b, SMB2_SIGNING_AES_GMAC);
	wire_push_le16(b, SMB2_SIGNING_AES_CMAC);
}

static const uint8_t *reply(struct testconn *t, size_t *len)
{
	assert_non_null(t->last);
	*len = t->last_len - 4;
	return t->last + 4;
}

static NTSTATUS reply_status(struct testconn *t)
{
	size_t len;
	const uint8_t *r = reply(t, &len);
	assert_true(len >= 64);
	return le32(r + SMB2_HDR_STATUS);
}

static void send_buf(struct testconn *t, struct wire_buf *b)
{
	testconn_frame(t, b->data, b->len);
}

static void test_negotiate_each_dialect(void **state)
{
	static const uint16_t all[] = {0x0202, 0x0210, 0x0300, 0x0302, 0x0311};
	size_t i;

	for (i = 0; i < 5; i++) {
		struct testconn *t = testconn_new(NULL, NULL);
		struct wire_buf b;
		const uint8_t *r;
		size_t len;

		wire_buf_init(&b, t, 256);
		negotiate_req(&b, 0, &all[i], 1, all[i] == 0x0311);
		send_buf(t, &b);
		assert_int_equal(reply_status(t), NT_STATUS_OK);
		r = reply(t, &len);
		assert_int_equal(le16(r + 64), 65);
		assert_int_equal(le16(r + 64 + 4), all[i]);
		/* MaxTransact/Read/Write: 64 KiB for 2.0.2, else 8 MiB */
		assert_int_equal(le32(r + 64 + 28),
				 all[i] == 0x0202 ? 65536 : 8u << 20);
		assert_int_equal(le32(r + 64 + 36),
				 all[i] == 0x0202 ? 65536 : 8u << 20);
		assert_memory_equal(r + 64 + 8, t->srv->server_guid, 16);
		assert_true(le16(r + SMB2_HDR_CREDIT) >= 1);
		talloc_free(t);
	}
}

static void test_negotiate_311_contexts(void **state)
{
	static const uint16_t d[] = {0x0202, 0x0300, 0x0311};
	struct testconn *t = testconn_new(NULL, NULL);
	struct wire_buf b;
	const uint8_t *r;
	size_t len, off;
	uint16_t n, i;
	int seen_preauth = 0, seen_sign = 0;

	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 3, 1);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	r = reply(t, &len);
	assert_int_equal(le16(r + 64 + 4), 0x0311);
	n = le16(r + 64 + 6);
	off = le32(r + 64 + 60);
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		uint16_t type, dlen;

		off = (off + 7) & ~(size_t)7;
		assert_true(off + 8 <= len);
		type = le16(r + off);
		dlen = le16(r + off + 2);
		assert_true(off + 8 + dlen <= len);
		if (type == SMB2_PREAUTH_INTEGRITY_CAPABILITIES) {
			seen_preauth++;
			assert_int_equal(le16(r + off + 8), 1);
			assert_int_equal(le16(r + off + 12),
					 SMB2_PREAUTH_INTEGRITY_SHA512);
		}
		if (type == SMB2_SIGNING_CAPABILITIES) {
			seen_sign++;
			/* the client's first choice we implement: GMAC */
			assert_int_equal(le16(r + off + 10),
					 SMB2_SIGNING_AES_GMAC);
		}
		off += 8 + dlen;
	}
	assert_int_equal(seen_preauth, 1);
	assert_int_equal(seen_sign, 1);
	assert_int_equal(t->conn->signing_algo, SMB2_SIGNING_AES_GMAC);
	talloc_free(t);
}

/* One 3.1.1 NEGOTIATE (client offers AES-128-GCM, AES-128-CCM and GMAC,
 * CMAC) under the given options: the cipher and signing algorithm. */
static void negotiate_algos(const char *const *options, uint16_t *cipher,
			    uint16_t *sign)
{
	static const uint16_t d[] = {0x0311};
	struct testconn *t = testconn_new(NULL, options);
	struct wire_buf b;

	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 1, 1);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	*cipher = t->conn->cipher;
	*sign = t->conn->signing_algo;
	talloc_free(t);
}

/* The server's preference lists decide, not the client's order. */
static void test_algorithm_lists(void **state)
{
	static const char *const ccm[] = {
		"server smb3 encryption algorithms", "AES-256-GCM, AES-128-CCM",
		"server smb3 signing algorithms", "HMAC-SHA256 AES-128-CMAC",
		NULL};
	static const char *const none[] = {
		"server smb3 encryption algorithms", "AES-256-GCM",
		"server smb3 signing algorithms", "HMAC-SHA256 AES-128-CMAC",
		NULL};
	uint16_t cipher, sign;

	negotiate_algos(NULL, &cipher, &sign);
	assert_int_equal(cipher, SMB2_ENCRYPTION_AES128_GCM);
	assert_int_equal(sign, SMB2_SIGNING_AES_GMAC);
	negotiate_algos(ccm, &cipher, &sign);
	assert_int_equal(cipher, SMB2_ENCRYPTION_AES128_CCM);
	assert_int_equal(sign, SMB2_SIGNING_AES_CMAC);
	/* No cipher in common: none; signing as the server prefers. */
	negotiate_algos(none, &cipher, &sign);
	assert_int_equal(cipher, 0);
	assert_int_equal(sign, SMB2_SIGNING_AES_CMAC);
}

/*
 * A NEGOTIATE offering dialects with Capabilities caps and, when 3.1.1
 * is among them, a preauth context, the ciphers (nciph of them, none:
 * no context) and signing algorithms (nsign, none: no context) in the
 * client's order.  Sent on a new connection with options; returns it.
 */
static struct testconn *negotiate_offer(const char *const *options,
					const uint16_t *dialects, uint16_t n,
					uint32_t caps, const uint16_t *ciphers,
					uint16_t nciph, const uint16_t *signs,
					uint16_t nsign)
{
	struct testconn *t = testconn_new(NULL, options);
	struct wire_buf b;
	size_t body, ctxoff_pos, ctxcnt_pos;
	uint16_t i, nctx = 0;
	bool v311 = false;

	wire_buf_init(&b, t, 256);
	hdr(&b, SMB2_OP_NEGPROT, 0, 10);
	body = b.len;
	wire_push_le16(&b, 36);
	wire_push_le16(&b, n);
	wire_push_le16(&b, SMB2_NEGOTIATE_SIGNING_ENABLED);
	wire_push_le16(&b, 0);
	wire_push_le32(&b, caps);
	wire_push_bytes(&b, "0123456789abcdef", 16);
	ctxoff_pos = b.len;
	wire_push_le32(&b, 0);
	ctxcnt_pos = b.len;
	wire_push_le16(&b, 0);
	wire_push_le16(&b, 0);
	for (i = 0; i < n; i++) {
		wire_push_le16(&b, dialects[i]);
		v311 |= dialects[i] == 0x0311;
	}
	if (v311) {
		wire_push_align(&b, 8);
		put_le32(b.data + ctxoff_pos, (uint32_t)(b.len - (body - 64)));
		wire_push_le16(&b, SMB2_PREAUTH_INTEGRITY_CAPABILITIES);
		wire_push_le16(&b, 38);
		wire_push_le32(&b, 0);
		wire_push_le16(&b, 1);
		wire_push_le16(&b, 32);
		wire_push_le16(&b, SMB2_PREAUTH_INTEGRITY_SHA512);
		wire_push_zero(&b, 32);
		nctx++;
		if (nciph > 0) {
			wire_push_align(&b, 8);
			wire_push_le16(&b, SMB2_ENCRYPTION_CAPABILITIES);
			wire_push_le16(&b, (uint16_t)(2 + 2 * nciph));
			wire_push_le32(&b, 0);
			wire_push_le16(&b, nciph);
			for (i = 0; i < nciph; i++) {
				wire_push_le16(&b, ciphers[i]);
			}
			nctx++;
		}
		if (nsign > 0) {
			wire_push_align(&b, 8);
			wire_push_le16(&b, SMB2_SIGNING_CAPABILITIES);
			wire_push_le16(&b, (uint16_t)(2 + 2 * nsign));
			wire_push_le32(&b, 0);
			wire_push_le16(&b, nsign);
			for (i = 0; i < nsign; i++) {
				wire_push_le16(&b, signs[i]);
			}
			nctx++;
		}
		put_le16(b.data + ctxcnt_pos, nctx);
	}
	send_buf(t, &b);
	return t;
}

#define N(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))

/*
 * 3.3.5.4 leaves the choice to the server: a client that lists
 * AES-128-CCM before AES-128-GCM (and AES-CMAC before AES-GMAC) gets the
 * first of `server smb3 encryption algorithms` (`... signing ...`) that
 * it offers, as Samba answers; Samba's "-NAME" edits work on the lists.
 */
static void test_server_order_wins(void **state)
{
	static const uint16_t d311[] = {0x0311};
	static const uint16_t ccm_gcm[] = {SMB2_ENCRYPTION_AES128_CCM,
					   SMB2_ENCRYPTION_AES128_GCM};
	static const uint16_t cmac_gmac[] = {SMB2_SIGNING_AES_CMAC,
					     SMB2_SIGNING_AES_GMAC};
	static const char *const ccm_first[] = {
		"server smb3 encryption algorithms",
		"AES-128-CCM, AES-128-GCM", "server smb3 signing algorithms",
		"HMAC-SHA256, AES-128-CMAC, AES-128-GMAC", NULL};
	static const char *const no_gcm[] = {
		"server smb3 encryption algorithms", "-AES-128-GCM",
		"server smb3 signing algorithms", "-AES-128-GMAC", NULL};
	static const char *const *const cases[] = {NULL, ccm_first, no_gcm};
	static const uint16_t want_cipher[] = {SMB2_ENCRYPTION_AES128_GCM,
					       SMB2_ENCRYPTION_AES128_CCM,
					       SMB2_ENCRYPTION_AES128_CCM};
	static const uint16_t want_sign[] = {SMB2_SIGNING_AES_GMAC,
					     SMB2_SIGNING_AES_CMAC,
					     SMB2_SIGNING_AES_CMAC};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct testconn *t = negotiate_offer(cases[i], d311, 1, 0x7f,
						     ccm_gcm, N(ccm_gcm),
						     cmac_gmac, N(cmac_gmac));

		assert_int_equal(reply_status(t), NT_STATUS_OK);
		assert_int_equal(t->conn->cipher, want_cipher[i]);
		assert_int_equal(t->conn->signing_algo, want_sign[i]);
		talloc_free(t);
	}
}

static void smb1_negotiate_req(struct wire_buf *b, const char *const *names);

/* The status of a NEGOTIATE for dialect d (3.1.1: offering AES-128-GCM
 * and AES-128-CCM, signs of nsign algorithms) under options. */
static NTSTATUS negotiate_status(const char *const *options, uint16_t d,
				 uint32_t caps, const uint16_t *signs,
				 uint16_t nsign)
{
	static const uint16_t gcm_ccm[] = {SMB2_ENCRYPTION_AES128_GCM,
					   SMB2_ENCRYPTION_AES128_CCM};
	struct testconn *t = negotiate_offer(options, &d, 1, caps, gcm_ccm,
					     N(gcm_ccm), signs, nsign);
	NTSTATUS status = reply_status(t);

	if (NT_STATUS_IS_OK(status)) {
		assert_true(t->conn->negotiated);
	} else {
		assert_false(t->conn->negotiated);
	}
	talloc_free(t);
	return status;
}

/*
 * The algorithm a dialect must use has to be in the server's list, or
 * the NEGOTIATE fails with INVALID_PARAMETER, as Samba's does: 2.x signs
 * with HMAC-SHA256, 3.0.x with AES-128-CMAC and encrypts with
 * AES-128-CCM (when the client asks and the server allows), 3.1.1 signs
 * with AES-128-CMAC when the signing context finds nothing in common.
 */
static void test_algorithms_limit_dialects(void **state)
{
	static const char *const no_ccm[] = {
		"server smb3 encryption algorithms", "-AES-128-CCM", NULL};
	static const char *const no_ccm_off[] = {
		"server smb3 encryption algorithms", "-AES-128-CCM",
		"server smb encrypt", "off", NULL};
	static const char *const no_cipher[] = {
		"server smb3 encryption algorithms", "", NULL};
	static const char *const no_cmac[] = {
		"server smb3 signing algorithms", "-AES-128-CMAC", NULL};
	static const char *const no_hmac[] = {
		"server smb3 signing algorithms", "-HMAC-SHA256", NULL};
	static const uint16_t cmac[] = {SMB2_SIGNING_AES_CMAC};
	static const uint16_t gmac_cmac[] = {SMB2_SIGNING_AES_GMAC,
					     SMB2_SIGNING_AES_CMAC};
	static const char *const only202[] = {"SMB 2.002", NULL};
	const uint32_t enc = SMB2_GLOBAL_CAP_ENCRYPTION;
	struct testconn *t;
	struct wire_buf b;

	/* without AES-128-CCM: no 3.0.x for a client that would encrypt */
	assert_int_equal(negotiate_status(no_ccm, 0x0300, enc, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_ccm, 0x0302, enc, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_ccm, 0x0300, 0, NULL, 0),
			 NT_STATUS_OK);
	assert_int_equal(negotiate_status(no_ccm_off, 0x0300, enc, NULL, 0),
			 NT_STATUS_OK);
	assert_int_equal(negotiate_status(no_ccm, 0x0311, enc, cmac, 1),
			 NT_STATUS_OK);
	/* no cipher at all: 3.1.1 goes on without one */
	t = negotiate_offer(no_cipher, (const uint16_t[]){0x0311}, 1, enc,
			    (const uint16_t[]){SMB2_ENCRYPTION_AES128_GCM}, 1,
			    NULL, 0);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	assert_int_equal(t->conn->cipher, 0);
	talloc_free(t);

	/* without AES-128-CMAC: no 3.0.x, and 3.1.1 needs another */
	assert_int_equal(negotiate_status(no_cmac, 0x0300, 0, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_cmac, 0x0302, 0, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_cmac, 0x0311, 0, cmac, 1),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_cmac, 0x0311, 0, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_cmac, 0x0311, 0, gmac_cmac, 2),
			 NT_STATUS_OK);
	assert_int_equal(negotiate_status(no_cmac, 0x0210, 0, NULL, 0),
			 NT_STATUS_OK);

	/* without HMAC-SHA256: no 2.x, not through SMB1 either */
	assert_int_equal(negotiate_status(no_hmac, 0x0210, 0, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_hmac, 0x0202, 0, NULL, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(negotiate_status(no_hmac, 0x0300, enc, NULL, 0),
			 NT_STATUS_OK);
	t = testconn_new(NULL, no_hmac);
	wire_buf_init(&b, t, 256);
	smb1_negotiate_req(&b, only202);
	send_buf(t, &b);
	assert_true(testconn_dropped(t));
	talloc_free(t);
}

static void test_negotiate_errors(void **state)
{
	static const uint16_t d311[] = {0x0311};
	static const uint16_t bogus[] = {0x0222, 0x0199};
	struct testconn *t;
	struct wire_buf b;

	/* zero dialects */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, NULL, 0, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);

	/* nothing in common */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, bogus, 2, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_NOT_SUPPORTED);
	talloc_free(t);

	/* 3.1.1 without contexts */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d311, 1, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);

	/* 3.1.1 with a preauth context lacking SHA-512 */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d311, 1, 2);
	send_buf(t, &b);
	assert_int_equal(reply_status(t),
			 STATUS_SMB_NO_PREAUTH_INTEGRITY_HASH_OVERLAP);
	talloc_free(t);

	/* a bogus StructureSize */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d311, 1, 1);
	put_le16(b.data + 64, 35);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);

	/* a truncated NEGOTIATE: the dialect array runs past the end */
	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d311, 1, 0);
	put_le16(b.data + 64 + 2, 40);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);
}

static void test_protocol_limits(void **state)
{
	static const uint16_t d[] = {0x0202, 0x0210, 0x0300, 0x0311};
	static const char *const max21[] = {"server max protocol", "SMB2_10",
					    NULL};
	static const char *const min3[] = {"server min protocol", "SMB3",
					   NULL};
	struct testconn *t;
	struct wire_buf b;
	size_t len;

	t = testconn_new(NULL, max21);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 4, 1);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	assert_int_equal(le16(reply(t, &len) + 64 + 4), 0x0210);
	talloc_free(t);

	t = testconn_new(NULL, min3);
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 2, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_NOT_SUPPORTED);
	talloc_free(t);
}

static void test_second_negotiate_drops(void **state)
{
	static const uint16_t d[] = {0x0300};
	struct testconn *t = testconn_new(NULL, NULL);
	struct wire_buf b;

	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 1, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	b.len = 0;
	negotiate_req(&b, 1, d, 1, 0);
	send_buf(t, &b);
	assert_true(testconn_dropped(t));
	talloc_free(t);
}

static void smb1_negotiate_req(struct wire_buf *b, const char *const *names)
{
	size_t bc;
	int i;

	wire_push_le32(b, SMB1_MAGIC);
	wire_push_u8(b, 0x72);
	wire_push_zero(b, 27);
	wire_push_u8(b, 0); /* WordCount */
	bc = b->len;
	wire_push_le16(b, 0);
	for (i = 0; names[i] != NULL; i++) {
		wire_push_u8(b, 2);
		wire_push_bytes(b, names[i], strlen(names[i]) + 1);
	}
	put_le16(b->data + bc, (uint16_t)(b->len - bc - 2));
}

static void test_smb1_upgrade(void **state)
{
	static const char *const wild[] = {"NT LM 0.12", "SMB 2.002",
					   "SMB 2.???", NULL};
	static const char *const only202[] = {"NT LM 0.12", "SMB 2.002",
					      NULL};
	static const char *const none[] = {"NT LM 0.12", NULL};
	static const uint16_t d[] = {0x0202, 0x0210, 0x0300};
	struct testconn *t;
	struct wire_buf b;
	size_t len;

	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	smb1_negotiate_req(&b, wild);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	assert_int_equal(le16(reply(t, &len) + 64 + 4), 0x02FF);
	assert_int_equal(le64(reply(t, &len) + SMB2_HDR_MESSAGE_ID), 0);
	/* then the SMB2 NEGOTIATE with message id 1 */
	b.len = 0;
	negotiate_req(&b, 1, d, 3, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_OK);
	assert_int_equal(le16(reply(t, &len) + 64 + 4), 0x0300);
	talloc_free(t);

	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	smb1_negotiate_req(&b, only202);
	send_buf(t, &b);
	assert_int_equal(le16(reply(t, &len) + 64 + 4), 0x0202);
	assert_true(t->conn->negotiated);
	talloc_free(t);

	t = testconn_new(NULL, NULL);
	wire_buf_init(&b, t, 256);
	smb1_negotiate_req(&b, none);
	send_buf(t, &b);
	assert_true(testconn_dropped(t));
	talloc_free(t);
}

static void test_framing(void **state)
{
	static const uint16_t d[] = {0x0300};
	struct testconn *t = testconn_new(NULL, NULL);
	struct wire_buf b;
	uint8_t big[4] = {0, 0xff, 0xff, 0xff};
	uint8_t *stream;
	size_t i;

	/* byte by byte: reassembled into one request */
	wire_buf_init(&b, t, 256);
	negotiate_req(&b, 0, d, 1, 0);
	stream = talloc_size(t, b.len + 4);
	put_be32(stream, (uint32_t)b.len);
	memcpy(stream + 4, b.data, b.len);
	for (i = 0; i < b.len + 4; i++) {
		testconn_input(t, stream + i, 1);
	}
	assert_int_equal(t->nframes, 1);
	assert_int_equal(reply_status(t), NT_STATUS_OK);

	/* an ECHO after negotiate */
	b.len = 0;
	hdr(&b, SMB2_OP_KEEPALIVE, 1, 1);
	wire_push_le16(&b, 4);
	wire_push_le16(&b, 0);
	send_buf(t, &b);
	assert_int_equal(t->nframes, 2);
	assert_int_equal(reply_status(t), NT_STATUS_OK);

	/* the same message id again: dropped */
	send_buf(t, &b);
	assert_true(testconn_dropped(t));
	talloc_free(t);

	/* a frame length over the maximum: dropped */
	t = testconn_new(NULL, NULL);
	testconn_input(t, big, 4);
	assert_true(testconn_dropped(t));
	talloc_free(t);

	/* garbage that is not SMB */
	t = testconn_new(NULL, NULL);
	testconn_frame(t, "hello world, not smb at all........", 36);
	assert_true(testconn_dropped(t));
	talloc_free(t);
}

static void test_nbt_session_request(void **state)
{
	struct testconn *t = testconn_new(NULL, NULL);
	uint8_t req[72] = {0x81, 0, 0, 68};

	t->conn->nbt = true;
	testconn_input(t, req, sizeof(req));
	assert_false(testconn_dropped(t));
	assert_int_equal(t->last_len, 4);
	assert_int_equal(t->last[0], 0x82);
	talloc_free(t);
}

static void test_echo_before_negotiate(void **state)
{
	struct testconn *t = testconn_new(NULL, NULL);
	struct wire_buf b;

	wire_buf_init(&b, t, 128);
	hdr(&b, SMB2_OP_KEEPALIVE, 0, 1);
	wire_push_le16(&b, 4);
	wire_push_le16(&b, 0);
	send_buf(t, &b);
	assert_int_equal(reply_status(t), NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);
}

static void test_split_and_check(void **state)
{
	uint8_t f[200];
	size_t offs[SMB2_MAX_COMPOUND], lens[SMB2_MAX_COMPOUND], n;

	memset(f, 0, sizeof(f));
	put_le32(f, SMB2_MAGIC);
	put_le16(f + 4, 64);
	put_le32(f + 20, 72); /* NextCommand */
	put_le32(f + 72, SMB2_MAGIC);
	put_le16(f + 76, 64);
	assert_int_equal(smb2_pdu_split(f, 72 + 70, offs, lens, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(lens[0], 72);
	assert_int_equal(lens[1], 70);
	put_le32(f + 20, 68); /* not 8-aligned */
	assert_int_equal(smb2_pdu_split(f, 142, offs, lens, &n),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(f + 20, 0x1000); /* past the frame */
	assert_int_equal(smb2_pdu_split(f, 142, offs, lens, &n),
			 NT_STATUS_INVALID_PARAMETER);

	/* SESSION_SETUP with its security buffer past the end */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 25);
	put_le16(f + 64 + 12, 88);
	put_le16(f + 64 + 14, 100);
	assert_int_equal(smb2_pdu_check(SMB2_OP_SESSSETUP, f, 120),
			 NT_STATUS_INVALID_PARAMETER);
	put_le16(f + 64 + 14, 30);
	assert_int_equal(smb2_pdu_check(SMB2_OP_SESSSETUP, f, 120),
			 NT_STATUS_OK);
	/* the buffer may not overlap the fixed part */
	put_le16(f + 64 + 12, 70);
	assert_int_equal(smb2_pdu_check(SMB2_OP_SESSSETUP, f, 120),
			 NT_STATUS_INVALID_PARAMETER);
	/* a 32-bit offset that would wrap in 32-bit arithmetic */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 57);
	put_le32(f + 64 + 48, 0xFFFFFFF0);
	put_le32(f + 64 + 52, 0x20);
	assert_int_equal(smb2_pdu_check(SMB2_OP_CREATE, f, 200),
			 NT_STATUS_INVALID_PARAMETER);
}

/* What a waiting request keeps of itself (issue 34): header, fixed
 * part and the buffers the table names, never its padding. */
static void test_pdu_extent(void **state)
{
	uint8_t f[400];

	/* CHANGE_NOTIFY: 64 + 32, whatever follows */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 32);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_NOTIFY, f, 400), 96);
	/* CREATE: an odd StructureSize keeps its one byte */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 57);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_CREATE, f, 400), 121);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_CREATE, f, 120), 120);
	/* ... to the end of the name or of the contexts, the later one */
	put_le16(f + 64 + 44, 120);
	put_le16(f + 64 + 46, 20);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_CREATE, f, 400), 140);
	put_le32(f + 64 + 48, 144);
	put_le32(f + 64 + 52, 100);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_CREATE, f, 400), 244);
	assert_int_equal(smb2_pdu_check(SMB2_OP_CREATE, f, 244), NT_STATUS_OK);
	/* a zero length names no buffer, wherever its offset */
	put_le32(f + 64 + 48, 390);
	put_le32(f + 64 + 52, 0);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_CREATE, f, 400), 140);
	/* LOCK: its elements */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 48);
	put_le16(f + 64 + 2, 3);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_LOCK, f, 400),
			 64 + 24 + 3 * 24);
	/* WRITE: the data */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 49);
	put_le16(f + 64 + 2, 112);
	put_le32(f + 64 + 4, 200);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_WRITE, f, 400), 312);
	/* whole: NEGOTIATE, SESSION_SETUP, a request the table refuses */
	memset(f, 0, sizeof(f));
	put_le16(f + 64, 36);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_NEGPROT, f, 400), 400);
	put_le16(f + 64, 25);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_SESSSETUP, f, 400), 400);
	put_le16(f + 64, 31);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_NOTIFY, f, 400), 400);
	assert_int_equal(smb2_pdu_extent(SMB2_OP_MAX, f, 400), 400);
}

static void test_credits(void **state)
{
	struct testconn *t = testconn_new(NULL, NULL);
	struct smbd_conn *c = t->conn;

	assert_true(smb2_credits_charge(c, 0, 1));
	assert_false(smb2_credits_charge(c, 1, 1)); /* not granted yet */
	assert_int_equal(smb2_credits_grant(c, 1, 100), 100);
	assert_true(smb2_credits_charge(c, 5, 1)); /* gaps are fine */
	assert_false(smb2_credits_charge(c, 5, 1)); /* but no replays */
	assert_true(smb2_credits_charge(c, 1, 4)); /* multi-credit */
	assert_int_equal(c->seq_low, 6);
	assert_false(smb2_credits_charge(c, 99, 4)); /* runs past window */
	/* never more than the maximum outstanding */
	assert_int_equal(smb2_credits_grant(c, 1, 65535),
			 SMBD_MAX_CREDITS - c->cur_credits);
	talloc_free(t);
}

/* A request that moves to another worker gives its credits back: the
 * window is exactly as before it, and the same id may come again. */
static void test_credits_uncharge(void **state)
{
	struct testconn *t = testconn_new(NULL, NULL);
	struct smbd_conn *c = t->conn;
	uint64_t low, high;
	uint32_t cur;

	assert_true(smb2_credits_charge(c, 0, 1));
	assert_int_equal(smb2_credits_grant(c, 1, 20), 20);
	assert_true(smb2_credits_charge(c, 1, 1));
	assert_true(smb2_credits_charge(c, 3, 1));	/* a gap at 2 */
	low = c->seq_low;
	high = c->seq_high;
	cur = c->cur_credits;
	/* the window's start moved past it: back, 3 stays taken */
	assert_true(smb2_credits_charge(c, 2, 1));
	assert_int_equal(c->seq_low, 4);
	smb2_credits_uncharge(c, 2, 1);
	assert_int_equal(c->seq_low, low);
	assert_int_equal(c->seq_high, high);
	assert_int_equal(c->cur_credits, cur);
	assert_false(smb2_credits_charge(c, 3, 1));	/* still used */
	assert_true(smb2_credits_charge(c, 2, 1));	/* free again */
	assert_int_equal(c->seq_low, 4);
	/* inside the window, multi-credit */
	assert_true(smb2_credits_charge(c, 6, 3));
	smb2_credits_uncharge(c, 6, 3);
	assert_true(smb2_credits_charge(c, 6, 3));
	talloc_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credits_uncharge),
		cmocka_unit_test(test_negotiate_each_dialect),
		cmocka_unit_test(test_negotiate_311_contexts),
		cmocka_unit_test(test_algorithm_lists),
		cmocka_unit_test(test_server_order_wins),
		cmocka_unit_test(test_algorithms_limit_dialects),
		cmocka_unit_test(test_negotiate_errors),
		cmocka_unit_test(test_protocol_limits),
		cmocka_unit_test(test_second_negotiate_drops),
		cmocka_unit_test(test_smb1_upgrade),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_nbt_session_request),
		cmocka_unit_test(test_echo_before_negotiate),
		cmocka_unit_test(test_split_and_check),
		cmocka_unit_test(test_pdu_extent),
		cmocka_unit_test(test_credits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
