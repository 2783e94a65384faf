/*
 * Unit tests for smbd/auth/ntlmssp.c and gensec.c.
 *
 * - MS-NLMP 4.2 test vectors (4.2.1 inputs: User/Domain/Password, server
 *   challenge 0123456789abcdef, client challenge aa*8, time 0, random
 *   session key 55*16): NT hash, NTOWFv2, NTProofStr, session base key,
 *   encrypted session key; the 4.2.4 NTLMv2 response fed to the server.
 * - Complete NEGOTIATE/CHALLENGE/AUTHENTICATE exchanges driven by a tiny
 *   client written here (raw and inside SPNEGO with mechListMIC), wrong
 *   password, unknown user, guest mapping, disabled account, anonymous,
 *   NTLMv1 refused, MIC tampering, truncated and oversized fields.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/wire.h"
#include "smbd/auth/asn1.h"
#include "lib/charset.h"
#include "smbd/auth/passdb.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/auth_audit.h"
#include "smbd/auth/ntlmssp.h"
#include "smbd/auth/spnego.h"

#include "unhex.h"

static void assert_hex(const uint8_t *got, size_t len, const char *want_hex)
{
	uint8_t want[512];
	size_t n = unhex(want_hex, want, sizeof(want));

	assert_int_equal(n, len);
	assert_memory_equal(got, want, n);
}

/* == the user database the tests authenticate against == */

struct tuser {
	const char *name;
	const char *password;
	uint32_t acct_ctrl;
};

static const struct tuser tusers[] = {
	{"User", "Password", ACB_NORMAL},
	{"alice", "s3cr3t-\xc3\xa9t\xc3\xa9", ACB_NORMAL},
	{"disabled", "pw", ACB_NORMAL | ACB_DISABLED},
	{"authtest1", "pw1", ACB_NORMAL},
};

static NTSTATUS tlookup(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			const char *domain, struct auth_user_info **out)
{
	size_t i;

	for (i = 0; i < sizeof(tusers) / sizeof(tusers[0]); i++) {
		struct auth_user_info *info;

		if (strcasecmp(user, tusers[i].name) != 0) {
			continue;
		}
		info = talloc_zero(mem_ctx, struct auth_user_info);
		assert_non_null(info);
		info->account_name = talloc_strdup(info, tusers[i].name);
		info->unix_name = info->account_name;
		assert_true(NT_STATUS_IS_OK(
			auth_nt_hash(tusers[i].password, info->nt_hash)));
		info->has_nt_hash = true;
		info->acct_ctrl = tusers[i].acct_ctrl;
		info->uid = 1000 + (uid_t)i;
		*out = info;
		return NT_STATUS_OK;
	}
	return NT_STATUS_NO_SUCH_USER;
}

static struct auth_config tcfg = {
	.netbios_name = "SERVER",
	.workgroup = "WORKGROUP",
	.dns_domain = "example.test",
	.dns_hostname = "server.example.test",
	.ntlm_auth = AUTH_NTLM_NTLMV2_ONLY,
	.guest_account = "nobody",
};

static const uint8_t vec_server_chal[8] = {0x01, 0x23, 0x45, 0x67,
					   0x89, 0xab, 0xcd, 0xef};

/* == a minimal NTLMSSP client == */

#define CLIENT_FLAGS 0xe2088297 /* what smbclient 4.17 sends */

struct tclient {
	uint8_t neg[40];
	uint8_t chal[1024];
	size_t chal_len;
	uint32_t flags;
	const uint8_t *ti;
	size_t ti_len;
	uint8_t exported[16];
};

struct topts {
	const char *user, *domain, *password, *ws;
	bool mic, key_exch, tamper_mic, v1;
	const uint8_t *temp; /* override the NTLMv2 blob */
	size_t temp_len;
};

static void build_negotiate(struct tclient *c, uint32_t flags)
{
	memset(c->neg, 0, sizeof(c->neg));
	memcpy(c->neg, "NTLMSSP", 8);
	put_le32(c->neg + 8, 1);
	put_le32(c->neg + 12, flags);
	c->neg[32] = 10; /* Version 10.0 */
	c->neg[39] = 15;
}

static void take_challenge(struct tclient *c, const uint8_t *chal, size_t len)
{
	uint32_t off;
	uint16_t tlen;

	assert_true(len >= 56 && len <= sizeof(c->chal));
	assert_memory_equal(chal, "NTLMSSP", 8);
	assert_int_equal(le32(chal + 8), 2);
	memcpy(c->chal, chal, len);
	c->chal_len = len;
	c->flags = le32(chal + 20);
	tlen = le16(chal + 40);
	off = le32(chal + 44);
	assert_true(wire_range_ok(off, tlen, len));
	c->ti = c->chal + off;
	c->ti_len = tlen;
}

static void push_field(uint8_t *hdr, struct wire_buf *pl, const void *d,
		       size_t len)
{
	put_le16(hdr, (uint16_t)len);
	put_le16(hdr + 2, (uint16_t)len);
	put_le32(hdr + 4, (uint32_t)(88 + pl->len));
	wire_push_bytes(pl, d, len);
}

/* NTLMv2_CLIENT_CHALLENGE with the server's AV pairs (+ MsvAvFlags). */
static size_t make_temp(const struct tclient *c, bool mic, uint8_t *t)
{
	static const uint8_t cc[8] = {0xaa, 0xaa, 0xaa, 0xaa,
				      0xaa, 0xaa, 0xaa, 0xaa};
	size_t n = 0;

	memset(t, 0, 28);
	t[0] = 1;
	t[1] = 1;
	memcpy(t + 16, cc, 8);
	n = 28;
	assert_true(c->ti_len >= 4);
	memcpy(t + n, c->ti, c->ti_len - 4); /* without EOL */
	n += c->ti_len - 4;
	if (mic) {
		put_le16(t + n, MSV_AV_FLAGS);
		put_le16(t + n + 2, 4);
		put_le32(t + n + 4, MSV_AV_FLAG_MIC_PRESENT);
		n += 8;
	}
	memset(t + n, 0, 8); /* EOL + 4 reserved bytes */
	return n + 8;
}

static size_t build_auth(struct tclient *c, const struct topts *o,
			 uint8_t *msg, size_t max)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t nt[16], owf[16], base[16], temp[600], ntresp[700], enc[16];
	uint8_t lm[24] = {0}, *u, *d, *w;
	size_t ulen, dlen, wlen, tlen, ntlen;
	struct crypto_iov iov[2];
	struct wire_buf pl;

	assert_true(NT_STATUS_IS_OK(auth_nt_hash(o->password, nt)));
	assert_true(NT_STATUS_IS_OK(
		ntlmssp_ntowfv2(nt, o->user, o->domain, owf)));
	if (o->temp != NULL) {
		memcpy(temp, o->temp, o->temp_len);
		tlen = o->temp_len;
	} else {
		tlen = make_temp(c, o->mic, temp);
	}
	iov[0] = (struct crypto_iov){c->chal + 24, 8};
	iov[1] = (struct crypto_iov){temp, tlen};
	crypto_hmac_md5(owf, 16, iov, 2, ntresp);
	memcpy(ntresp + 16, temp, tlen);
	ntlen = 16 + tlen;
	if (o->v1) {
		ntlen = 24;
	}
	iov[0] = (struct crypto_iov){ntresp, 16};
	crypto_hmac_md5(owf, 16, iov, 1, base);
	if (o->key_exch) {
		memset(c->exported, 0x55, 16);
		memcpy(enc, c->exported, 16);
		crypto_rc4_oneshot(base, 16, enc, 16);
	} else {
		memcpy(c->exported, base, 16);
	}
	assert_true(NT_STATUS_IS_OK(
		charset_utf8_to_utf16(tmp, o->user, &u, &ulen)));
	assert_true(NT_STATUS_IS_OK(
		charset_utf8_to_utf16(tmp, o->domain, &d, &dlen)));
	assert_true(NT_STATUS_IS_OK(charset_utf8_to_utf16(
		tmp, o->ws != NULL ? o->ws : "WS", &w, &wlen)));

	memset(msg, 0, 88);
	memcpy(msg, "NTLMSSP", 8);
	put_le32(msg + 8, 3);
	wire_buf_init(&pl, tmp, 512);
	push_field(msg + 12, &pl, lm, sizeof(lm));
	push_field(msg + 20, &pl, ntresp, ntlen);
	push_field(msg + 28, &pl, d, dlen);
	push_field(msg + 36, &pl, u, ulen);
	push_field(msg + 44, &pl, w, wlen);
	push_field(msg + 52, &pl, enc, o->key_exch ? 16 : 0);
	put_le32(msg + 60, o->key_exch ? c->flags
				      : c->flags & ~NTLMSSP_NEGOTIATE_KEY_EXCH);
	msg[64] = 10;
	msg[71] = 15;
	assert_false(pl.failed);
	assert_true(88 + pl.len <= max);
	memcpy(msg + 88, pl.data, pl.len);
	if (o->mic) {
		struct crypto_iov m[3] = {
			{c->neg, sizeof(c->neg)},
			{c->chal, c->chal_len},
			{msg, 88 + pl.len},
		};
		crypto_hmac_md5(c->exported, 16, m, 3, msg + 72);
		if (o->tamper_mic) {
			msg[72] ^= 1;
		}
	}
	tlen = 88 + pl.len;
	talloc_free(tmp);
	return tlen;
}

/* Run NEGOTIATE -> CHALLENGE -> AUTHENTICATE against the server. */
static NTSTATUS run_raw(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			const struct topts *o, struct ntlmssp_server **out)
{
	struct ntlmssp_server *s;
	struct tclient c;
	uint8_t *chal, msg[2048], *none;
	size_t chal_len, len, none_len;
	NTSTATUS status;

	s = ntlmssp_server_new(mem_ctx, cfg, tlookup, NULL, "192.0.2.1");
	assert_non_null(s);
	ntlmssp_server_fix_challenge(s, vec_server_chal, 0);
	build_negotiate(&c, CLIENT_FLAGS);
	status = ntlmssp_server_update(s, mem_ctx, c.neg, sizeof(c.neg),
				       &chal, &chal_len);
	assert_int_equal(status, NT_STATUS_MORE_PROCESSING_REQUIRED);
	take_challenge(&c, chal, chal_len);
	len = build_auth(&c, o, msg, sizeof(msg));
	status = ntlmssp_server_update(s, mem_ctx, msg, len, &none, &none_len);
	assert_null(none);
	*out = s;
	return status;
}

/*
 * The same with the domain's verdict (security = ads): the server hands
 * out the AUTHENTICATE's fields, "winbindd" answers with status and the
 * session base key, the exchange finishes with them.  base_key NULL:
 * the right one, HMAC_MD5(NTOWFv2, NTProofStr), as a DC returns it.
 */
static NTSTATUS run_verdict(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			    const struct topts *o, NTSTATUS verdict,
			    const uint8_t *base_key, struct ntlmssp_server **out)
{
	struct ntlmssp_server *s;
	struct ntlmssp_peek peek;
	struct auth_user_info *u;
	struct tclient c;
	uint8_t *chal, msg[2048], *none, nt[16], owf[16], base[16];
	size_t chal_len, len, none_len;
	struct crypto_iov iov;

	s = ntlmssp_server_new(mem_ctx, cfg, tlookup, NULL, "192.0.2.1");
	assert_non_null(s);
	ntlmssp_server_fix_challenge(s, vec_server_chal, 0);
	build_negotiate(&c, CLIENT_FLAGS);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, c.neg,
					       sizeof(c.neg), &chal,
					       &chal_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	take_challenge(&c, chal, chal_len);
	/* nothing to peek before the AUTHENTICATE */
	assert_false(ntlmssp_server_peek_auth(s, mem_ctx, c.neg,
					      sizeof(c.neg), &peek));
	len = build_auth(&c, o, msg, sizeof(msg));
	assert_true(ntlmssp_server_peek_auth(s, mem_ctx, msg, len, &peek));
	assert_string_equal(peek.user, o->user);
	assert_string_equal(peek.domain, o->domain);
	assert_string_equal(peek.workstation, "WS");
	assert_memory_equal(peek.challenge, vec_server_chal, 8);
	assert_int_equal(peek.lm_len, 24);
	assert_true(peek.nt_len > 48);
	/* what the DC computes */
	assert_true(NT_STATUS_IS_OK(auth_nt_hash(o->password, nt)));
	assert_true(NT_STATUS_IS_OK(
		ntlmssp_ntowfv2(nt, o->user, o->domain, owf)));
	iov = (struct crypto_iov){peek.nt, 16};
	crypto_hmac_md5(owf, 16, &iov, 1, base);
	u = talloc_zero(mem_ctx, struct auth_user_info);
	u->account_name = talloc_strdup(u, o->user);
	u->domain = talloc_strdup(u, o->domain);
	u->unix_name = talloc_asprintf(u, "%s\\%s", o->domain, o->user);
	u->uid = 100001;
	u->acct_ctrl = ACB_NORMAL;
	u->sids = talloc_array(u, struct auth_sid, 2);
	assert_true(auth_sid_parse("S-1-5-21-1-2-3-1104", &u->sids[0]));
	assert_true(auth_sid_parse("S-1-5-21-1-2-3-513", &u->sids[1]));
	u->nsids = 2;
	ntlmssp_server_set_verdict(s, verdict, u,
				   base_key != NULL ? base_key : base);
	*out = s;
	return ntlmssp_server_update(s, mem_ctx, msg, len, &none, &none_len);
}

static void test_domain_verdict(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	/* a user passdb does not know: only the verdict counts */
	struct topts o = {.user = "bob", .domain = "SMBNG",
			  .password = "Bob-Pass-1", .mic = true,
			  .key_exch = true};
	static const uint8_t bad_key[16] = {1};
	struct auth_config guest_cfg = tcfg;
	struct ntlmssp_server *s;
	const struct auth_result *r;
	const struct auth_audit *a;

	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o, NT_STATUS_OK, NULL,
				     &s),
			 NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_non_null(r);
	assert_string_equal(r->user->unix_name, "SMBNG\\bob");
	assert_int_equal(r->user->uid, 100001);
	assert_true(r->has_session_key);
	assert_hex(r->session_key, 16, "55555555555555555555555555555555");
	assert_true(ntlmssp_server_had_mic(s));
	assert_true(ntlmssp_server_can_sign(s));
	a = ntlmssp_server_audit(s);
	assert_int_equal(a->status, NT_STATUS_OK);
	assert_string_equal(a->became_user, "bob");
	/* Samba's "became [SMBNG]\[bob] [S-1-5-21-...-1104]" */
	assert_string_equal(a->became_domain, "SMBNG");
	assert_string_equal(a->became_sid, "S-1-5-21-1-2-3-1104");
	{
		struct auth_audit_where w = {.service = "SMB2",
					     .became_domain = "SERVER"};
		struct auth_authz z = {.account = "bob", .uid = 100001,
				       .domain = "SMBNG",
				       .sid = "S-1-5-21-1-2-3-1104",
				       .auth_type = "krb5"};
		char *line = auth_audit_text(mem_ctx, a, &w);

		assert_non_null(strstr(line, "became [SMBNG]\\[bob] "
					     "[S-1-5-21-1-2-3-1104]"));
		line = auth_audit_authz_text(mem_ctx, &z, &w);
		assert_non_null(strstr(line, "AuthZ: [SMB2,krb5] user "
					     "[SMBNG]\\[bob] "
					     "[S-1-5-21-1-2-3-1104]"));
	}

	/* a key that is not the one the MIC was made with */
	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o, NT_STATUS_OK,
				     bad_key, &s),
			 NT_STATUS_INVALID_PARAMETER);
	/* the domain's refusals, as Samba tells them */
	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o,
				     NT_STATUS_WRONG_PASSWORD, NULL, &s),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(ntlmssp_server_audit(s)->status,
			 NT_STATUS_WRONG_PASSWORD);
	assert_null(ntlmssp_server_result(s));
	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o,
				     NT_STATUS_NO_SUCH_USER, NULL, &s),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o,
				     NT_STATUS_ACCOUNT_DISABLED, NULL, &s),
			 NT_STATUS_ACCOUNT_DISABLED);
	assert_int_equal(run_verdict(mem_ctx, &tcfg, &o,
				     NT_STATUS_NO_LOGON_SERVERS, NULL, &s),
			 NT_STATUS_NO_LOGON_SERVERS);
	/* map to guest = bad user: an unknown domain user is the guest */
	guest_cfg.map_to_guest_bad_user = true;
	assert_int_equal(run_verdict(mem_ctx, &guest_cfg, &o,
				     NT_STATUS_NO_SUCH_USER, NULL, &s),
			 NT_STATUS_OK);
	assert_true(ntlmssp_server_result(s)->guest);
	talloc_free(mem_ctx);
}

/* ntlm auth = disabled: NTLM_BLOCKED for passdb users, as Samba 4.17
 * answers; domain users are the domain's business. */
static void test_ntlm_disabled(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "s3cr3t-\xc3\xa9t\xc3\xa9",
			  .mic = true, .key_exch = true};
	struct auth_config cfg = tcfg;
	struct ntlmssp_server *s;

	cfg.ntlm_auth = AUTH_NTLM_DISABLED;
	assert_int_equal(run_raw(mem_ctx, &cfg, &o, &s),
			 NT_STATUS_NTLM_BLOCKED);
	assert_null(ntlmssp_server_result(s));
	/* a domain user is the domain's to refuse (smb.conf(5)) */
	o.user = "bob";
	o.domain = "SMBNG";
	o.password = "Bob-Pass-1";
	assert_int_equal(run_verdict(mem_ctx, &cfg, &o, NT_STATUS_OK, NULL,
				     &s),
			 NT_STATUS_OK);
	assert_int_equal(run_verdict(mem_ctx, &cfg, &o, NT_STATUS_NTLM_BLOCKED,
				     NULL, &s),
			 NT_STATUS_NTLM_BLOCKED);
	talloc_free(mem_ctx);
}

static void test_vectors(void **state)
{
	uint8_t nt[16], owf[16];

	/* 4.2.2.1.2 NTOWFv1 and 4.2.4.1.1 NTOWFv2 */
	assert_true(NT_STATUS_IS_OK(auth_nt_hash("Password", nt)));
	assert_hex(nt, 16, "a4f49c406510bdcab6824ee7c30fd852");
	assert_true(NT_STATUS_IS_OK(ntlmssp_ntowfv2(nt, "User", "Domain",
						    owf)));
	assert_hex(owf, 16, "0c868a403bfd7a93a3001ef22ef02e3f");
	/* Upper(UserName): the case the user typed does not matter. */
	assert_true(NT_STATUS_IS_OK(ntlmssp_ntowfv2(nt, "uSeR", "Domain",
						    owf)));
	assert_hex(owf, 16, "0c868a403bfd7a93a3001ef22ef02e3f");
	/* 4.2.2.1.3 NTLMv1 session base key = MD4(NTOWFv1) */
	crypto_md4(nt, 16, owf);
	assert_hex(owf, 16, "d87262b0cde4b1cb7499becccdf10784");
}

/* 4.2.4: the spec's NTLMv2 response, verified by the server. */
static void test_v2_vector_exchange(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	/* 4.2.4.2.2 temp: time 0, client challenge aa*8, AV pairs
	 * NbDomainName "Domain", NbComputerName "Server", EOL */
	static const char temp_hex[] =
		"0101000000000000 0000000000000000 aaaaaaaaaaaaaaaa 00000000"
		"02000c0044006f006d00610069006e00"
		"01000c005300650072007600650072000000000000000000";
	uint8_t temp[128];
	struct topts o = {.user = "User", .domain = "Domain",
			  .password = "Password", .key_exch = true};
	struct ntlmssp_server *s;
	const struct auth_result *r;
	uint8_t proof[16], base[16], enc[16], owf[16], nt[16];
	struct crypto_iov iov[2];
	NTSTATUS status;

	o.temp_len = unhex(temp_hex, temp, sizeof(temp));
	o.temp = temp;
	/* 4.2.4.2.2 NTProofStr, 4.2.4.1.2 session base key, 4.2.4.2.3 */
	auth_nt_hash("Password", nt);
	ntlmssp_ntowfv2(nt, "User", "Domain", owf);
	iov[0] = (struct crypto_iov){vec_server_chal, 8};
	iov[1] = (struct crypto_iov){temp, o.temp_len};
	crypto_hmac_md5(owf, 16, iov, 2, proof);
	assert_hex(proof, 16, "68cd0ab851e51c96aabc927bebef6a1c");
	iov[0] = (struct crypto_iov){proof, 16};
	crypto_hmac_md5(owf, 16, iov, 1, base);
	assert_hex(base, 16, "8de40ccadbc14a82f15cb0ad0de95ca3");
	memset(enc, 0x55, 16);
	crypto_rc4_oneshot(base, 16, enc, 16);
	assert_hex(enc, 16, "c5dad2544fc9799094ce1ce90bc9d03e");

	status = run_raw(mem_ctx, &tcfg, &o, &s);
	assert_int_equal(status, NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_non_null(r);
	assert_false(r->anonymous);
	assert_false(r->guest);
	assert_string_equal(r->client_user, "User");
	assert_string_equal(r->client_domain, "Domain");
	assert_string_equal(r->user->account_name, "User");
	/* KEY_EXCH: the exported key is the client's random 55*16 */
	assert_true(r->has_session_key);
	assert_hex(r->session_key, 16, "55555555555555555555555555555555");
	talloc_free(mem_ctx);
}

static void test_full_exchange_mic(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "s3cr3t-\xc3\xa9t\xc3\xa9", .mic = true,
			  .key_exch = true};
	struct ntlmssp_server *s;
	const struct auth_result *r;

	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s), NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_non_null(r);
	assert_string_equal(r->user->account_name, "alice");
	assert_true(ntlmssp_server_had_mic(s));
	assert_true(ntlmssp_server_can_sign(s));

	/* Without key exchange the exported key is the base key. */
	o.key_exch = false;
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s), NT_STATUS_OK);
	/* Domains tried: as sent, upper case, empty, workgroup. */
	o.domain = "otherdom";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s), NT_STATUS_OK);
	talloc_free(mem_ctx);
}

static void test_failures(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "wrong", .mic = true, .key_exch = true};
	struct auth_config guest_cfg = tcfg;
	struct ntlmssp_server *s;
	const struct auth_result *r;

	/* wrong password and unknown user: the same status */
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);
	assert_null(ntlmssp_server_result(s));
	o.user = "nosuchuser";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);

	/* map to guest = bad user: unknown user -> guest */
	guest_cfg.map_to_guest_bad_user = true;
	assert_int_equal(run_raw(mem_ctx, &guest_cfg, &o, &s), NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_true(r->guest);
	assert_non_null(r->user);
	assert_string_equal(r->user->unix_name, "nobody");
	assert_false(r->has_session_key);
	/* ...but a known user with a wrong password still fails */
	o.user = "alice";
	assert_int_equal(run_raw(mem_ctx, &guest_cfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);

	/* disabled account, right password */
	o.user = "disabled";
	o.password = "pw";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_ACCOUNT_DISABLED);
	/* ...wrong password: no hint that the account exists */
	o.password = "nope";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);

	/* MIC tampering */
	o.user = "alice";
	o.password = "s3cr3t-\xc3\xa9t\xc3\xa9";
	o.tamper_mic = true;
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_INVALID_PARAMETER);
	o.tamper_mic = false;

	/* NTLMv1 (24-byte NT response) is refused */
	o.v1 = true;
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);
	talloc_free(mem_ctx);
}

/* An NTLMv2 blob whose AV pair list runs out before MsvAvEOL is a
 * malformed message, refused as such before any password check, even
 * when its NTProofStr is right (smbtorture smb2.session.ntlmssp_bug14932). */
static void test_v2_blob_malformed(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	uint8_t temp[28 + 8] = {1, 1};
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "s3cr3t-\xc3\xa9t\xc3\xa9",
			  .temp = temp, .temp_len = sizeof(temp)};
	struct ntlmssp_server *s;

	(void)state;
	/* one MsvAvNbDomainName pair, no EOL after it */
	put_le16(temp + 28, 2);
	put_le16(temp + 30, 4);
	memcpy(temp + 32, "D\0O\0", 4);
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_INVALID_PARAMETER);
	o.password = "wrong";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_INVALID_PARAMETER);
	/* a pair whose length runs past the blob */
	put_le16(temp + 30, 40);
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_INVALID_PARAMETER);
	/* the same blob with EOL where the pair was: a plain wrong password */
	memset(temp + 28, 0, 8);
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);
	/* ...and with the right one, a logon */
	o.password = "s3cr3t-\xc3\xa9t\xc3\xa9";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s), NT_STATUS_OK);
	talloc_free(mem_ctx);
}

/* Wrong password and unknown user log the same line (user, address). */
static void test_failure_log(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "wrong", .mic = true, .key_exch = true};
	char path[] = "/tmp/test_ntlmssp_log.XXXXXX";
	struct ntlmssp_server *s;
	char buf[4096], *l1, *l2, *p;
	int fd = mkstemp(path);
	ssize_t n;

	assert_true(fd >= 0);
	log_set_level(LOG_NOTICE);
	assert_int_equal(log_set_file(path), 0);
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);
	o.user = "nobodyhere";
	assert_int_equal(run_raw(mem_ctx, &tcfg, &o, &s),
			 NT_STATUS_LOGON_FAILURE);
	log_set_file("-");
	log_set_level(LOG_WARNING);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	l1 = strstr(buf, "authentication for user [WORKGROUP]\\[alice] from "
			 "192.0.2.1 failed: NT_STATUS_LOGON_FAILURE");
	l2 = strstr(buf, "authentication for user [WORKGROUP]\\[nobodyhere] "
			 "from 192.0.2.1 failed: NT_STATUS_LOGON_FAILURE");
	assert_non_null(l1);
	assert_non_null(l2);
	p = strchr(buf, '\n');
	assert_non_null(p);
	assert_null(strstr(p + 1, "alice")); /* one line per failure */
	talloc_free(mem_ctx);
}

static void test_anonymous(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct ntlmssp_server *s;
	struct tclient c;
	uint8_t *chal, msg[88], *none;
	size_t chal_len, none_len;
	const struct auth_result *r;
	struct auth_config cfg = tcfg;

	s = ntlmssp_server_new(mem_ctx, &cfg, tlookup, NULL, "192.0.2.1");
	build_negotiate(&c, CLIENT_FLAGS);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, c.neg, 40, &chal,
					       &chal_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	take_challenge(&c, chal, chal_len);
	/* every field empty except a one-byte zero LM response */
	memset(msg, 0, sizeof(msg));
	memcpy(msg, "NTLMSSP", 8);
	put_le32(msg + 8, 3);
	put_le16(msg + 12, 1);
	put_le16(msg + 14, 1);
	put_le32(msg + 16, 80);
	put_le32(msg + 60, c.flags | NTLMSSP_ANONYMOUS);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, msg, 81, &none,
					       &none_len),
			 NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_true(r->anonymous);
	assert_null(r->user);
	talloc_free(mem_ctx);
}

/* Every truncation and absurd field of a valid AUTHENTICATE fails cleanly. */
static void test_malformed(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "s3cr3t-\xc3\xa9t\xc3\xa9", .mic = true,
			  .key_exch = true};
	struct tclient c;
	uint8_t *chal, msg[2048], bad[2048], *none;
	size_t chal_len, len, cut, none_len, f;
	struct ntlmssp_server *s;
	struct ntlmssp_auth_msg am;

	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, "192.0.2.1");
	ntlmssp_server_fix_challenge(s, vec_server_chal, 0);
	build_negotiate(&c, CLIENT_FLAGS);
	ntlmssp_server_update(s, mem_ctx, c.neg, 40, &chal, &chal_len);
	take_challenge(&c, chal, chal_len);
	len = build_auth(&c, &o, msg, sizeof(msg));
	assert_true(NT_STATUS_IS_OK(ntlmssp_parse_authenticate(msg, len, &am)));
	for (cut = 0; cut < len; cut++) {
		struct ntlmssp_server *t = ntlmssp_server_new(
			mem_ctx, &tcfg, tlookup, NULL, "192.0.2.1");
		uint8_t *ch;
		size_t chl;

		ntlmssp_server_fix_challenge(t, vec_server_chal, 0);
		ntlmssp_server_update(t, mem_ctx, c.neg, 40, &ch, &chl);
		assert_int_not_equal(ntlmssp_server_update(t, mem_ctx, msg, cut,
							   &none, &none_len),
				     NT_STATUS_OK);
		talloc_free(t);
	}
	/* each length/offset pair pointing past the end */
	for (f = 12; f <= 52; f += 8) {
		memcpy(bad, msg, len);
		put_le16(bad + f, 0xffff);
		assert_int_equal(ntlmssp_parse_authenticate(bad, len, &am),
				 NT_STATUS_INVALID_PARAMETER);
		memcpy(bad, msg, len);
		put_le32(bad + f + 4, 0xfffffff0);
		assert_int_equal(ntlmssp_parse_authenticate(bad, len, &am),
				 NT_STATUS_INVALID_PARAMETER);
	}
	/* wrong signature / message type */
	memcpy(bad, msg, len);
	bad[0] = 'X';
	assert_int_equal(ntlmssp_parse_authenticate(bad, len, &am),
			 NT_STATUS_INVALID_PARAMETER);
	/* a NEGOTIATE that is too short */
	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, NULL);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, c.neg, 15, &chal,
					       &chal_len),
			 NT_STATUS_INVALID_PARAMETER);
	/* AV pairs running past the end */
	{
		uint8_t av[8] = {1, 0, 0xff, 0x00, 'a', 0, 0, 0};
		uint32_t fl;

		assert_int_equal(ntlmssp_av_flags(av, sizeof(av), &fl),
				 NT_STATUS_INVALID_PARAMETER);
		assert_int_equal(ntlmssp_av_flags(av, 0, &fl),
				 NT_STATUS_INVALID_PARAMETER);
	}
	talloc_free(mem_ctx);
}

/* == SPNEGO-wrapped exchange with mechListMIC, through gensec == */

static void derive(const uint8_t key[16], const char *magic, uint8_t out[16])
{
	uint8_t buf[16 + 64];
	size_t ml = strlen(magic) + 1;

	memcpy(buf, key, 16);
	memcpy(buf + 16, magic, ml);
	crypto_md5(buf, 16 + ml, out);
}

static void mech_sig(const uint8_t key[16], const char *sign_magic,
		     const char *seal_magic, const uint8_t *data, size_t len,
		     uint8_t sig[16])
{
	uint8_t sk[16], ek[16], seq[4] = {0}, mac[16];
	struct crypto_iov iov[2] = {{seq, 4}, {data, len}};

	derive(key, sign_magic, sk);
	derive(key, seal_magic, ek);
	crypto_hmac_md5(sk, 16, iov, 2, mac);
	crypto_rc4_oneshot(ek, 16, mac, 8);
	put_le32(sig, 1);
	memcpy(sig + 4, mac, 8);
	put_le32(sig + 12, 0);
}

static const char c2s_sign[] =
	"session key to client-to-server signing key magic constant";
static const char c2s_seal[] =
	"session key to client-to-server sealing key magic constant";
static const char s2c_sign[] =
	"session key to server-to-client signing key magic constant";
static const char s2c_seal[] =
	"session key to server-to-client sealing key magic constant";

static NTSTATUS run_spnego(TALLOC_CTX *mem_ctx, bool ntlm_first,
			   bool tamper_mic, struct gensec **gout)
{
	struct spnego_blob mechs[2] = {
		{(const uint8_t *)"\x2a\x86\x48\x82\xf7\x12\x01\x02\x02", 9},
		{spnego_oid_ntlmssp, sizeof(spnego_oid_ntlmssp)},
	};
	struct topts o = {.user = "alice", .domain = "WORKGROUP",
			  .password = "s3cr3t-\xc3\xa9t\xc3\xa9", .mic = true,
			  .key_exch = true};
	struct gensec *g;
	struct tclient c;
	struct spnego_token tok;
	struct asn1_writer w;
	uint8_t *in, *out, *mechlist, msg[2048], mic[16];
	size_t in_len, out_len, mechlist_len, len;
	NTSTATUS status;

	g = gensec_new(mem_ctx, &tcfg, tlookup, NULL, "192.0.2.7");
	assert_non_null(g);
	gensec_fix_challenge(g, vec_server_chal, 0);
	*gout = g;
	build_negotiate(&c, CLIENT_FLAGS);
	/* gensec_peek_user: only the AUTHENTICATE leg carries a name */
	assert_null(gensec_peek_user(g, mem_ctx, c.neg, 40));
	if (ntlm_first) {
		assert_true(NT_STATUS_IS_OK(spnego_build_init(
			mem_ctx, mechs + 1, 1, c.neg, 40, NULL, 0, &in,
			&in_len)));
	} else {
		/* Kerberos first with an (unusable) optimistic token */
		assert_true(NT_STATUS_IS_OK(spnego_build_init(
			mem_ctx, mechs, 2, (const uint8_t *)"krb", 3, NULL, 0,
			&in, &in_len)));
	}
	status = gensec_update(g, mem_ctx, in, in_len, &out, &out_len);
	assert_int_equal(status, NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_true(NT_STATUS_IS_OK(spnego_parse(out, out_len, &tok)));
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_RESP);
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
	assert_true(spnego_is_ntlmssp(&tok.supported_mech));
	if (!ntlm_first) {
		assert_null(tok.mech_token.data);
		assert_true(NT_STATUS_IS_OK(spnego_build_resp(
			mem_ctx, SPNEGO_NO_STATE, false, c.neg, 40, NULL, 0,
			&in, &in_len)));
		assert_null(gensec_peek_user(g, mem_ctx, in, in_len));
		status = gensec_update(g, mem_ctx, in, in_len, &out, &out_len);
		assert_int_equal(status, NT_STATUS_MORE_PROCESSING_REQUIRED);
		assert_true(NT_STATUS_IS_OK(spnego_parse(out, out_len, &tok)));
		assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_INCOMPLETE);
	}
	assert_non_null(tok.mech_token.data);
	take_challenge(&c, tok.mech_token.data, tok.mech_token.len);
	len = build_auth(&c, &o, msg, sizeof(msg));

	/* the MIC covers the DER of the client's MechTypeList */
	asn1_writer_init(&w, mem_ctx);
	asn1_push_start(&w, ASN1_SEQUENCE);
	if (!ntlm_first) {
		asn1_push_prim(&w, ASN1_OID, mechs[0].data, mechs[0].len);
	}
	asn1_push_prim(&w, ASN1_OID, mechs[1].data, mechs[1].len);
	asn1_push_end(&w);
	assert_true(NT_STATUS_IS_OK(
		asn1_writer_finish(&w, &mechlist, &mechlist_len)));
	mech_sig(c.exported, c2s_sign, c2s_seal, mechlist, mechlist_len, mic);
	if (tamper_mic) {
		mic[5] ^= 0x40;
	}
	assert_true(NT_STATUS_IS_OK(spnego_build_resp(
		mem_ctx, SPNEGO_NO_STATE, false, msg, len, mic, 16, &in,
		&in_len)));
	/* the name the AUTHENTICATE will log on with; peeking (twice)
	 * changes nothing in the exchange that follows */
	assert_string_equal(gensec_peek_user(g, mem_ctx, in, in_len), "alice");
	assert_string_equal(gensec_peek_user(g, mem_ctx, in, in_len), "alice");
	assert_null(gensec_peek_user(g, mem_ctx, msg, len)); /* unwrapped */
	assert_null(gensec_peek_user(g, mem_ctx, in, in_len / 2));
	status = gensec_update(g, mem_ctx, in, in_len, &out, &out_len);
	if (!NT_STATUS_IS_OK(status)) {
		assert_null(out);
		return status;
	}
	assert_true(NT_STATUS_IS_OK(spnego_parse(out, out_len, &tok)));
	assert_int_equal(tok.neg_state, SPNEGO_ACCEPT_COMPLETED);
	assert_int_equal(tok.mech_list_mic.len, 16);
	mech_sig(c.exported, s2c_sign, s2c_seal, mechlist, mechlist_len, mic);
	assert_memory_equal(tok.mech_list_mic.data, mic, 16);
	return status;
}

static void test_spnego_exchange(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct gensec *g;
	const struct auth_result *r;
	uint8_t *out;
	size_t out_len;

	assert_int_equal(run_spnego(mem_ctx, true, false, &g), NT_STATUS_OK);
	r = gensec_result(g);
	assert_non_null(r);
	assert_string_equal(r->user->account_name, "alice");
	assert_hex(r->session_key, 16, "55555555555555555555555555555555");
	/* a finished context takes no more input */
	assert_int_equal(gensec_update(g, mem_ctx, (const uint8_t *)"x", 1,
				       &out, &out_len),
			 NT_STATUS_INVALID_PARAMETER);

	/* NTLMSSP second: an extra leg, and the MIC is mandatory */
	assert_int_equal(run_spnego(mem_ctx, false, false, &g), NT_STATUS_OK);
	assert_non_null(gensec_result(g));

	assert_int_equal(run_spnego(mem_ctx, true, true, &g),
			 NT_STATUS_INVALID_PARAMETER);
	assert_null(gensec_result(g));
	talloc_free(mem_ctx);
}

static void test_gensec_raw_and_hint(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct gensec *g = gensec_new(mem_ctx, &tcfg, tlookup, NULL, NULL);
	struct spnego_token tok;
	struct tclient c;
	uint8_t *out;
	size_t out_len;

	/* empty first buffer: the negTokenInit2 hint */
	assert_int_equal(gensec_update(g, mem_ctx, NULL, 0, &out, &out_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_true(NT_STATUS_IS_OK(spnego_parse(out, out_len, &tok)));
	assert_int_equal(tok.type, SPNEGO_NEG_TOKEN_INIT);
	assert_true(spnego_is_ntlmssp(&tok.mechs[0]));

	/* raw NTLMSSP */
	build_negotiate(&c, CLIENT_FLAGS);
	assert_int_equal(gensec_update(g, mem_ctx, c.neg, 40, &out, &out_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_memory_equal(out, "NTLMSSP", 8);
	{
		struct topts o = {.user = "bob", .domain = "WORKGROUP",
				  .password = "pw"};
		uint8_t msg[2048];
		size_t len;

		/* raw: the AUTHENTICATE itself is peeked */
		assert_null(gensec_peek_user(g, mem_ctx, c.neg, 40));
		take_challenge(&c, out, out_len);
		len = build_auth(&c, &o, msg, sizeof(msg));
		assert_string_equal(gensec_peek_user(g, mem_ctx, msg, len),
				    "bob");
	}

	/* garbage */
	g = gensec_new(mem_ctx, &tcfg, tlookup, NULL, NULL);
	assert_int_equal(gensec_update(g, mem_ctx, (const uint8_t *)"\x60\x03",
				       2, &out, &out_len),
			 NT_STATUS_INVALID_PARAMETER);
	assert_null(out);
	talloc_free(mem_ctx);
}

/* The CHALLENGE carries the flags, names and AV pairs MS-NLMP asks for. */
static void test_challenge_contents(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct ntlmssp_server *s;
	struct tclient c;
	uint8_t *chal;
	size_t chal_len;
	struct wire_cur cur;
	bool seen[8] = {false};

	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, NULL);
	build_negotiate(&c, CLIENT_FLAGS);
	ntlmssp_server_update(s, mem_ctx, c.neg, 40, &chal, &chal_len);
	take_challenge(&c, chal, chal_len);
	assert_true(c.flags & NTLMSSP_NEGOTIATE_UNICODE);
	assert_true(c.flags & NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY);
	assert_true(c.flags & NTLMSSP_NEGOTIATE_TARGET_INFO);
	assert_true(c.flags & NTLMSSP_NEGOTIATE_KEY_EXCH);
	assert_false(c.flags & NTLMSSP_NEGOTIATE_LM_KEY);
	/* target name "SERVER" in UTF-16 */
	assert_int_equal(le16(chal + 12), 12);
	assert_memory_equal(chal + le32(chal + 16), "S\0E\0R\0V\0E\0R\0", 12);
	wire_cur_init(&cur, c.ti, c.ti_len);
	for (;;) {
		uint16_t id, l;

		assert_true(NT_STATUS_IS_OK(wire_pull_le16(&cur, &id)));
		assert_true(NT_STATUS_IS_OK(wire_pull_le16(&cur, &l)));
		assert_true(NT_STATUS_IS_OK(wire_skip(&cur, l)));
		if (id == MSV_AV_EOL) {
			break;
		}
		assert_true(id < 8);
		seen[id] = true;
	}
	assert_true(seen[MSV_AV_NB_DOMAIN_NAME]);
	assert_true(seen[MSV_AV_NB_COMPUTER_NAME]);
	assert_true(seen[MSV_AV_DNS_DOMAIN_NAME]);
	assert_true(seen[MSV_AV_DNS_COMPUTER_NAME]);
	assert_true(seen[MSV_AV_TIMESTAMP]);
	talloc_free(mem_ctx);
}

/*
 * Interoperability: an AUTHENTICATE made by impacket 0.10
 * (ntlm.getNTLMSSPType3, NTLMv2, key exchange) for this server's CHALLENGE
 * with the fixed challenge and timestamp 0, user alice.
 */
static void test_impacket_interop(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	static const char t3_hex[] =
		"4e544c4d5353500003000000180018005c000000c600c60074000000"
		"12001200400000000a000a0052000000000000005c00000010001000"
		"3a010000978208e057004f0052004b00470052004f00550050006100"
		"6c00690063006500347c9a422a6f008f8ef038a6a8b57eda67643978"
		"424270750551a087e4a07b1678b937fb916d30fe0101000000000000"
		"00000000000000006764397842427075000000000200120057004f00"
		"52004b00470052004f005500500001000c0053004500520056004500"
		"5200040018006500780061006d0070006c0065002e00740065007300"
		"7400030026007300650072007600650072002e006500780061006d00"
		"70006c0065002e007400650073007400070008000000000000000000"
		"0900160063006900660073002f005300450052005600450052000000"
		"0000000000008e314c2616c553f30ae5990a822d2e2f";
	static uint8_t t3[1024];
	struct ntlmssp_server *s;
	struct tclient c;
	uint8_t *chal, *none;
	size_t chal_len, len, none_len;
	const struct auth_result *r;

	len = unhex(t3_hex, t3, sizeof(t3));
	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, "192.0.2.9");
	ntlmssp_server_fix_challenge(s, vec_server_chal, 0);
	build_negotiate(&c, 0xe0088297); /* impacket: no VERSION */
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, c.neg, 40, &chal,
					       &chal_len),
			 NT_STATUS_MORE_PROCESSING_REQUIRED);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, t3, len, &none,
					       &none_len),
			 NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_string_equal(r->user->account_name, "alice");
	/* impacket's random session key */
	assert_hex(r->session_key, 16, "4749696c5a397a3633726648644b4f55");
	talloc_free(mem_ctx);
}
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

/* Our server accepts smbclient's real AUTHENTICATE (MIC included) and
 * produces Samba's mechListMIC byte for byte. */
static void test_samba_capture(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	static uint8_t init[512], chal[512], auth[1024], done[64];
	size_t init_len, chal_len, auth_len, done_len, none_len;
	struct spnego_token ti, tc, ta, td;
	struct ntlmssp_server *s;
	const struct auth_result *r;
	uint8_t *none, sig[16];

	init_len = unhex(cap_init_hex, init, sizeof(init));
	chal_len = unhex(cap_chal_hex, chal, sizeof(chal));
	auth_len = unhex(cap_auth_hex, auth, sizeof(auth));
	done_len = unhex(cap_done_hex, done, sizeof(done));
	assert_true(NT_STATUS_IS_OK(spnego_parse(init, init_len, &ti)));
	assert_true(NT_STATUS_IS_OK(spnego_parse(chal, chal_len, &tc)));
	assert_true(NT_STATUS_IS_OK(spnego_parse(auth, auth_len, &ta)));
	assert_true(NT_STATUS_IS_OK(spnego_parse(done, done_len, &td)));

	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, "127.0.0.1");
	assert_int_equal(ntlmssp_server_replay(s, ti.mech_token.data,
					       ti.mech_token.len,
					       tc.mech_token.data,
					       tc.mech_token.len),
			 NT_STATUS_OK);
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, ta.mech_token.data,
					       ta.mech_token.len, &none,
					       &none_len),
			 NT_STATUS_OK);
	r = ntlmssp_server_result(s);
	assert_string_equal(r->client_user, "authtest1");
	assert_string_equal(r->user->account_name, "authtest1");
	assert_true(ntlmssp_server_had_mic(s));
	assert_true(ntlmssp_server_can_sign(s));
	assert_int_equal(ntlmssp_server_check_sig(s, 0, ti.mech_list_der.data,
						  ti.mech_list_der.len,
						  ta.mech_list_mic.data,
						  ta.mech_list_mic.len),
			 NT_STATUS_OK);
	assert_int_equal(ntlmssp_server_sign(s, 0, ti.mech_list_der.data,
					     ti.mech_list_der.len, sig),
			 NT_STATUS_OK);
	assert_int_equal(td.mech_list_mic.len, 16);
	assert_memory_equal(sig, td.mech_list_mic.data, 16);

	/* the same AUTHENTICATE with one MIC bit flipped is refused */
	s = ntlmssp_server_new(mem_ctx, &tcfg, tlookup, NULL, "127.0.0.1");
	ntlmssp_server_replay(s, ti.mech_token.data, ti.mech_token.len,
			      tc.mech_token.data, tc.mech_token.len);
	/* ta.mech_token points into auth itself (the SPNEGO wrapper's
	 * payload, 16 bytes in): the ranges overlap, so memmove (ASan). */
	memmove(auth, ta.mech_token.data, ta.mech_token.len);
	auth[NTLMSSP_AUTH_MIC_OFFSET + 3] ^= 0x10;
	assert_int_equal(ntlmssp_server_update(s, mem_ctx, auth,
					       ta.mech_token.len, &none,
					       &none_len),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem_ctx);
}

/* UTF-16 conversion and Unicode case mapping used by NTOWFv2 and passdb. */
static void test_strings(void **state)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	uint8_t nt[16], a[16], b[16], *u;
	size_t len;
	char *s;

	auth_nt_hash("pw", nt);
	ntlmssp_ntowfv2(nt, "\xc3\xa9lodie", "D", a); /* élodie */
	ntlmssp_ntowfv2(nt, "\xc3\x89LODIE", "D", b); /* ÉLODIE */
	assert_memory_equal(a, b, 16);
	assert_string_equal(charset_strlower(mem_ctx, "\xc3\x89RIC"),
			    "\xc3\xa9ric");
	assert_null(charset_strupper(mem_ctx, "\xff")); /* invalid UTF-8 */

	/* U+1F600 as a surrogate pair, both ways */
	assert_int_equal(charset_utf8_to_utf16(mem_ctx, "\xf0\x9f\x98\x80", &u,
					       &len),
			 NT_STATUS_OK);
	assert_int_equal(len, 4);
	assert_memory_equal(u, "\x3d\xd8\x00\xde", 4);
	assert_int_equal(charset_utf16_to_utf8(mem_ctx, u, len, &s), NT_STATUS_OK);
	assert_string_equal(s, "\xf0\x9f\x98\x80");
	/* odd length, lone surrogates, embedded NUL */
	assert_int_equal(charset_utf16_to_utf8(mem_ctx, u, 3, &s),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(charset_utf16_to_utf8(mem_ctx, u, 2, &s),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(charset_utf16_to_utf8(mem_ctx,
					       (const uint8_t *)"\x00\xde", 2, &s),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(charset_utf16_to_utf8(mem_ctx,
					       (const uint8_t *)"a\0\0\0", 4, &s),
			 NT_STATUS_INVALID_PARAMETER);
	/* overlong UTF-8 */
	assert_int_equal(charset_utf8_to_utf16(mem_ctx, "\xc0\xaf", &u, &len),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem_ctx);
}

/* MS-NLMP 4.2.2 (NTLMv1) and 4.2.3 (NTLMv1 with client challenge). */
static void test_v1_vectors(void **state)
{
	static const uint8_t server_chal[8] = {0x01, 0x23, 0x45, 0x67,
					       0x89, 0xab, 0xcd, 0xef};
	static const uint8_t client_chal[8] = {0xaa, 0xaa, 0xaa, 0xaa,
					       0xaa, 0xaa, 0xaa, 0xaa};
	uint8_t nt_hash[16], resp[24], base[16], kx[16];

	assert_int_equal(unhex("a4f49c406510bdcab6824ee7c30fd852", nt_hash,
			       16),
			 16);
	assert_true(ntlmssp_v1_response(nt_hash, server_chal, NULL, resp));
	assert_hex(resp, 24,
		   "67c43011f30298a2ad35ece64f16331c44bdbed927841f94");
	ntlmssp_v1_keys(nt_hash, server_chal, NULL, base, kx);
	assert_hex(base, 16, "d87262b0cde4b1cb7499becccdf10784");
	assert_hex(kx, 16, "d87262b0cde4b1cb7499becccdf10784");

	assert_true(ntlmssp_v1_response(nt_hash, server_chal, client_chal,
					resp));
	assert_hex(resp, 24,
		   "7537f803ae367128ca458204bde7caf81e97ed2683267232");
	ntlmssp_v1_keys(nt_hash, server_chal, client_chal, base, kx);
	assert_hex(kx, 16, "eb93429a8bd952f8b89c55b87f475edc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_v1_vectors),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_v2_vector_exchange),
		cmocka_unit_test(test_full_exchange_mic),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_domain_verdict),
		cmocka_unit_test(test_ntlm_disabled),
		cmocka_unit_test(test_failure_log),
		cmocka_unit_test(test_v2_blob_malformed),
		cmocka_unit_test(test_anonymous),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_spnego_exchange),
		cmocka_unit_test(test_gensec_raw_and_hint),
		cmocka_unit_test(test_challenge_contents),
		cmocka_unit_test(test_impacket_interop),
		cmocka_unit_test(test_samba_capture),
	};

	crypto_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
