/*
 * NTLMSSP server (MS-NLMP 3.2.5): see ntlmssp.h.
 *
 * Messages are parsed through lib/wire.h cursors; every payload field's
 * offset+length is checked in 64 bits against the message.  The server
 * keeps copies of NEGOTIATE and CHALLENGE because the MIC (3.1.5.1.2) is an
 * HMAC over all three messages.
 *
 * NTLMv2 responses are verified; NTLMv1 (with or without extended
 * session security) only where "ntlm auth = ntlmv1-permitted" (or "yes")
 * allows it, as Samba 4.17, and refused with a log line otherwise.  LM
 * responses are never checked (no LM hashes are stored), and LMv2 is
 * ignored, as Windows servers do when an NTLMv2 response is present.
 *
 * Unknown users and wrong passwords give the same status and the same log
 * line, and cost the same HMAC work, so the reply says nothing about which
 * account names exist.
 */
#include "smbd/auth/ntlmssp.h"
#include "lib/charset.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/wire.h"
#include <stdio.h>
#include <time.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

#ifndef NT_STATUS_ACCOUNT_LOCKED_OUT
#define NT_STATUS_ACCOUNT_LOCKED_OUT ((NTSTATUS)0xC0000234)
#endif

enum ntlmssp_state {
	NTLMSSP_WANT_NEGOTIATE,
	NTLMSSP_WANT_AUTH,
	NTLMSSP_DONE,
	NTLMSSP_FAILED,
};

struct ntlmssp_server {
	const struct auth_config *cfg;
	auth_lookup_fn lookup;
	void *priv;
	char *remote_addr;
	enum ntlmssp_state state;
	uint32_t flags;
	uint8_t challenge[8];
	bool fixed;
	uint64_t timestamp;
	uint8_t *neg_msg, *chal_msg;
	size_t neg_len, chal_len;
	struct auth_result result;
	struct auth_audit audit;
	bool had_mic;
	bool have_keys;
	uint8_t client_sign_key[16], server_sign_key[16];
	struct crypto_rc4 *client_seal, *server_seal;
	/* ntlmssp_server_set_lookup(): the lookup was made already */
	bool has_lookup;
	NTSTATUS lookup_status;
	struct auth_user_info *lookup_info;
	/* ntlmssp_server_set_verdict(): the domain checked the logon */
	bool has_verdict;
	NTSTATUS verdict;
	struct auth_user_info *verdict_user;
	uint8_t verdict_key[16];
};

/* 3.4.5.2/3.4.5.3: the constants include their terminating NUL. */
static const char magic_c2s_sign[] =
	"session key to client-to-server signing key magic constant";
static const char magic_s2c_sign[] =
	"session key to server-to-client signing key magic constant";
static const char magic_c2s_seal[] =
	"session key to client-to-server sealing key magic constant";
static const char magic_s2c_seal[] =
	"session key to server-to-client sealing key magic constant";

struct ntlmssp_server *ntlmssp_server_new(TALLOC_CTX *mem_ctx,
					  const struct auth_config *cfg,
					  auth_lookup_fn lookup, void *priv,
					  const char *remote_addr)
{
	struct ntlmssp_server *s = talloc_zero(mem_ctx, struct ntlmssp_server);

	if (s == NULL) {
		return NULL;
	}
	s->cfg = cfg;
	s->lookup = lookup;
	s->priv = priv;
	s->remote_addr =
		talloc_strdup(s, remote_addr != NULL ? remote_addr : "?");
	if (s->remote_addr == NULL) {
		talloc_free(s);
		return NULL;
	}
	s->state = NTLMSSP_WANT_NEGOTIATE;
	return s;
}

void ntlmssp_server_fix_challenge(struct ntlmssp_server *s,
				  const uint8_t challenge[8],
				  uint64_t timestamp)
{
	memcpy(s->challenge, challenge, 8);
	s->timestamp = timestamp;
	s->fixed = true;
}

static NTSTATUS check_header(const uint8_t *in, size_t len, uint32_t type)
{
	if (len < 12 || memcmp(in, NTLMSSP_SIGNATURE, 8) != 0 ||
	    le32(in + 8) != type) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS ntlmssp_server_replay(struct ntlmssp_server *s, const uint8_t *neg,
			       size_t neg_len, const uint8_t *chal,
			       size_t chal_len)
{
	if (s->state != NTLMSSP_WANT_NEGOTIATE ||
	    !NT_STATUS_IS_OK(check_header(chal, chal_len,
					  NTLMSSP_CHALLENGE_MSG)) ||
	    chal_len < 32) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s->flags = le32(chal + 20);
	memcpy(s->challenge, chal + 24, 8);
	s->neg_msg = talloc_memdup(s, neg, neg_len);
	s->chal_msg = talloc_memdup(s, chal, chal_len);
	if (s->neg_msg == NULL || s->chal_msg == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s->neg_len = neg_len;
	s->chal_len = chal_len;
	s->state = NTLMSSP_WANT_AUTH;
	return NT_STATUS_OK;
}

/* 2.2.1.2 CHALLENGE flags: echo what we support of the client's. */
static uint32_t choose_flags(uint32_t c)
{
	uint32_t f = NTLMSSP_NEGOTIATE_NTLM | NTLMSSP_NEGOTIATE_TARGET_INFO |
		     NTLMSSP_REQUEST_TARGET | NTLMSSP_TARGET_TYPE_SERVER;
	static const uint32_t echo =
		NTLMSSP_NEGOTIATE_SIGN | NTLMSSP_NEGOTIATE_SEAL |
		NTLMSSP_NEGOTIATE_ALWAYS_SIGN | NTLMSSP_NEGOTIATE_KEY_EXCH |
		NTLMSSP_NEGOTIATE_128 | NTLMSSP_NEGOTIATE_56 |
		NTLMSSP_NEGOTIATE_VERSION | NTLMSSP_NEGOTIATE_IDENTIFY |
		NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY;

	if (c & NTLMSSP_NEGOTIATE_UNICODE) {
		f |= NTLMSSP_NEGOTIATE_UNICODE;
	} else if (c & NTLMSSP_NEGOTIATE_OEM) {
		f |= NTLMSSP_NEGOTIATE_OEM;
	} else {
		f |= NTLMSSP_NEGOTIATE_UNICODE;
	}
	/* 3.2.5.1.1: LM_KEY only without extended session security; we do
	 * no LM at all, so it is never echoed. */
	return f | (c & echo);
}

/* A string in the negotiated encoding: UTF-16LE, or OEM as Latin-1. */
static NTSTATUS push_str(TALLOC_CTX *mem_ctx, bool unicode, const char *s,
			 uint8_t **out, size_t *out_len)
{
	if (unicode) {
		return charset_utf8_to_utf16(mem_ctx, s, out, out_len);
	}
	*out = (uint8_t *)talloc_strdup(mem_ctx, s);
	*out_len = strlen(s);
	return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static NTSTATUS pull_str(TALLOC_CTX *mem_ctx, bool unicode,
			 const struct ntlmssp_field *f, char **out)
{
	size_t i, o = 0;
	uint8_t *buf;

	if (f->len > 1024) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (unicode) {
		return charset_utf16_to_utf8(mem_ctx, f->data, f->len, out);
	}
	buf = talloc_array(mem_ctx, uint8_t, f->len * 2 + 1);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < f->len; i++) {
		uint8_t c = f->data[i];

		if (c == 0) {
			talloc_free(buf);
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (c < 0x80) {
			buf[o++] = c;
		} else {
			buf[o++] = (uint8_t)(0xc0 | (c >> 6));
			buf[o++] = (uint8_t)(0x80 | (c & 0x3f));
		}
	}
	buf[o] = '\0';
	*out = (char *)buf;
	return NT_STATUS_OK;
}

static void push_av(struct wire_buf *b, uint16_t id, const uint8_t *v,
		    size_t len)
{
	wire_push_le16(b, id);
	wire_push_le16(b, (uint16_t)len);
	wire_push_bytes(b, v, len);
}

static NTSTATUS push_av_str(TALLOC_CTX *tmp, struct wire_buf *b, uint16_t id,
			    const char *s)
{
	uint8_t *u;
	size_t len;
	NTSTATUS status = charset_utf8_to_utf16(tmp, s != NULL ? s : "", &u, &len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (len > 0xffff) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	push_av(b, id, u, len);
	return NT_STATUS_OK;
}

/* 2.2.1.2 TargetInfo: the AV pairs MS-NLMP 3.2.5.1.1 lists. */
static NTSTATUS build_target_info(struct ntlmssp_server *s, TALLOC_CTX *tmp,
				  struct wire_buf *b)
{
	const struct auth_config *cfg = s->cfg;
	const char *dns_host = cfg->dns_hostname;
	uint8_t ts[8];
	NTSTATUS status;

	if (dns_host == NULL || dns_host[0] == '\0') {
		dns_host = charset_strlower(tmp, cfg->netbios_name);
		if (dns_host == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	status = push_av_str(tmp, b, MSV_AV_NB_DOMAIN_NAME, cfg->workgroup);
	if (NT_STATUS_IS_OK(status)) {
		status = push_av_str(tmp, b, MSV_AV_NB_COMPUTER_NAME,
				     cfg->netbios_name);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = push_av_str(tmp, b, MSV_AV_DNS_DOMAIN_NAME,
				     cfg->dns_domain);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = push_av_str(tmp, b, MSV_AV_DNS_COMPUTER_NAME,
				     dns_host);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	put_le64(ts, s->timestamp);
	push_av(b, MSV_AV_TIMESTAMP, ts, sizeof(ts));
	push_av(b, MSV_AV_EOL, NULL, 0);
	return b->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

static NTSTATUS server_negotiate(struct ntlmssp_server *s, TALLOC_CTX *mem_ctx,
				 const uint8_t *in, size_t in_len,
				 uint8_t **out, size_t *out_len)
{
	TALLOC_CTX *tmp;
	struct wire_buf ti, m;
	uint8_t *tname;
	size_t tname_len;
	NTSTATUS status;

	/* 2.2.1.1: Signature, MessageType, NegotiateFlags at least. */
	status = check_header(in, in_len, NTLMSSP_NEGOTIATE_MSG);
	if (!NT_STATUS_IS_OK(status) || in_len < 16 || in_len > 4096) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s->flags = choose_flags(le32(in + 12));
	s->neg_msg = talloc_memdup(s, in, in_len);
	if (s->neg_msg == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s->neg_len = in_len;
	if (!s->fixed) {
		crypto_random(s->challenge, sizeof(s->challenge));
		if (clock_cached_rt.tv_sec == 0) {
			clock_update();
		}
		s->timestamp = clock_nttime();
	}

	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	wire_buf_init(&ti, tmp, 256);
	status = build_target_info(s, tmp, &ti);
	if (NT_STATUS_IS_OK(status)) {
		status = push_str(tmp, s->flags & NTLMSSP_NEGOTIATE_UNICODE,
				  s->cfg->netbios_name, &tname, &tname_len);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(tmp);
		return status;
	}
	/* 2.2.1.2: 56-byte header (with Version), then the payload. */
	wire_buf_init(&m, tmp, 56 + tname_len + ti.len);
	wire_push_bytes(&m, NTLMSSP_SIGNATURE, 8);
	wire_push_le32(&m, NTLMSSP_CHALLENGE_MSG);
	wire_push_le16(&m, (uint16_t)tname_len);
	wire_push_le16(&m, (uint16_t)tname_len);
	wire_push_le32(&m, 56);
	wire_push_le32(&m, s->flags);
	wire_push_bytes(&m, s->challenge, 8);
	wire_push_zero(&m, 8);
	wire_push_le16(&m, (uint16_t)ti.len);
	wire_push_le16(&m, (uint16_t)ti.len);
	wire_push_le32(&m, (uint32_t)(56 + tname_len));
	/* 2.2.2.10 VERSION: 6.1 build 7600, NTLMSSP_REVISION_W2K3 (15). */
	wire_push_u8(&m, 6);
	wire_push_u8(&m, 1);
	wire_push_le16(&m, 7600);
	wire_push_zero(&m, 3);
	wire_push_u8(&m, 15);
	wire_push_bytes(&m, tname, tname_len);
	wire_push_bytes(&m, ti.data, ti.len);
	if (m.failed || tname_len > 0xffff || ti.len > 0xffff) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	s->chal_msg = talloc_memdup(s, m.data, m.len);
	*out = talloc_memdup(mem_ctx, m.data, m.len);
	talloc_free(tmp);
	if (s->chal_msg == NULL || *out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s->chal_len = m.len;
	*out_len = s->chal_len;
	s->state = NTLMSSP_WANT_AUTH;
	return NT_STATUS_MORE_PROCESSING_REQUIRED;
}

static NTSTATUS pull_field(struct wire_cur *c, const uint8_t *msg, size_t len,
			   struct ntlmssp_field *f, uint32_t *min_offset)
{
	uint16_t flen, fmax;
	uint32_t off;
	NTSTATUS status;

	/* 2.2.1.3 *Fields: Len, MaxLen, BufferOffset. */
	status = wire_pull_le16(c, &flen);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &fmax);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le32(c, &off);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	f->len = flen;
	f->offset = off;
	f->data = NULL;
	if (flen == 0) {
		return NT_STATUS_OK;
	}
	if (!wire_range_ok(off, flen, len) || off < 64) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	f->data = msg + off;
	if (off < *min_offset) {
		*min_offset = off;
	}
	return NT_STATUS_OK;
}

NTSTATUS ntlmssp_parse_authenticate(const uint8_t *msg, size_t len,
				    struct ntlmssp_auth_msg *out)
{
	struct wire_cur c;
	NTSTATUS status;

	memset(out, 0, sizeof(*out));
	status = check_header(msg, len, NTLMSSP_AUTH_MSG);
	if (!NT_STATUS_IS_OK(status) || len < 64) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->min_offset = UINT32_MAX;
	wire_cur_init(&c, msg, len);
	status = wire_skip(&c, 12);
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->lm, &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->nt, &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->domain,
				    &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->user, &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->workstation,
				    &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_field(&c, msg, len, &out->enc_key,
				    &out->min_offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le32(&c, &out->flags);
	}
	return status;
}

NTSTATUS ntlmssp_av_flags(const uint8_t *av, size_t len, uint32_t *flags)
{
	struct wire_cur c;

	*flags = 0;
	wire_cur_init(&c, av, len);
	for (;;) {
		uint16_t id, alen;
		const uint8_t *v;

		if (!NT_STATUS_IS_OK(wire_pull_le16(&c, &id)) ||
		    !NT_STATUS_IS_OK(wire_pull_le16(&c, &alen)) ||
		    !NT_STATUS_IS_OK(wire_pull_ref(&c, &v, alen))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (id == MSV_AV_EOL) {
			return NT_STATUS_OK;
		}
		if (id == MSV_AV_FLAGS) {
			if (alen != 4) {
				return NT_STATUS_INVALID_PARAMETER;
			}
			*flags = le32(v);
		}
	}
}

NTSTATUS ntlmssp_ntowfv2(const uint8_t nt_hash[16], const char *user,
			 const char *domain, uint8_t out[16])
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct crypto_iov iov[2];
	uint8_t *u, *d;
	size_t ulen, dlen;
	char *upper;
	NTSTATUS status = NT_STATUS_NO_MEMORY;

	if (tmp == NULL) {
		return status;
	}
	upper = charset_strupper(tmp, user);
	if (upper == NULL) {
		status = NT_STATUS_INVALID_PARAMETER;
		goto done;
	}
	status = charset_utf8_to_utf16(tmp, upper, &u, &ulen);
	if (NT_STATUS_IS_OK(status)) {
		status = charset_utf8_to_utf16(tmp, domain, &d, &dlen);
	}
	if (!NT_STATUS_IS_OK(status)) {
		goto done;
	}
	iov[0] = (struct crypto_iov){u, ulen};
	iov[1] = (struct crypto_iov){d, dlen};
	crypto_hmac_md5(nt_hash, 16, iov, 2, out);
done:
	talloc_free(tmp);
	return status;
}

/*
 * 3.3.2: NTProofStr = HMAC_MD5(NTOWFv2, ServerChallenge || temp).  Tries
 * each candidate domain; on success leaves the session base key.
 */
static bool verify_v2(struct ntlmssp_server *s, const uint8_t nt_hash[16],
		      const char *user, const char *const *domains,
		      size_t ndomains, const struct ntlmssp_field *nt,
		      uint8_t base_key[16])
{
	bool ok = false;
	size_t i;

	for (i = 0; i < ndomains; i++) {
		uint8_t owf[16], proof[16];
		struct crypto_iov iov[2] = {
			{s->challenge, 8},
			{nt->data + 16, nt->len - 16},
		};

		if (domains[i] == NULL ||
		    !NT_STATUS_IS_OK(
			    ntlmssp_ntowfv2(nt_hash, user, domains[i], owf))) {
			continue;
		}
		crypto_hmac_md5(owf, 16, iov, 2, proof);
		if (!ok && crypto_memeq(proof, nt->data, 16)) {
			struct crypto_iov k = {proof, 16};

			crypto_hmac_md5(owf, 16, &k, 1, base_key);
			ok = true;
		}
		memset(owf, 0, sizeof(owf));
	}
	return ok;
}

static void derive_key(const uint8_t *key, size_t keylen, const char *magic,
		       size_t magic_len, uint8_t out[16])
{
	uint8_t buf[16 + 64];

	memcpy(buf, key, keylen);
	memcpy(buf + keylen, magic, magic_len);
	crypto_md5(buf, keylen + magic_len, out);
	memset(buf, 0, sizeof(buf));
}

/* 3.4.5.2 SIGNKEY and 3.4.5.3 SEALKEY with extended session security. */
static NTSTATUS derive_keys(struct ntlmssp_server *s, const uint8_t key[16])
{
	size_t seal_len = 16;
	uint8_t cseal[16], sseal[16];

	if (!(s->flags & NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY)) {
		return NT_STATUS_OK; /* no ESS: we do not sign */
	}
	if (!(s->flags & NTLMSSP_NEGOTIATE_128)) {
		seal_len = (s->flags & NTLMSSP_NEGOTIATE_56) ? 7 : 5;
	}
	derive_key(key, 16, magic_c2s_sign, sizeof(magic_c2s_sign),
		   s->client_sign_key);
	derive_key(key, 16, magic_s2c_sign, sizeof(magic_s2c_sign),
		   s->server_sign_key);
	derive_key(key, seal_len, magic_c2s_seal, sizeof(magic_c2s_seal),
		   cseal);
	derive_key(key, seal_len, magic_s2c_seal, sizeof(magic_s2c_seal),
		   sseal);
	s->client_seal = crypto_rc4_new(s, cseal, 16);
	s->server_seal = crypto_rc4_new(s, sseal, 16);
	memset(cseal, 0, sizeof(cseal));
	memset(sseal, 0, sizeof(sseal));
	if (s->client_seal == NULL || s->server_seal == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	s->have_keys = true;
	return NT_STATUS_OK;
}

/* 3.1.5.1.2: MIC = HMAC_MD5(ExportedSessionKey, NEG || CHAL || AUTH'). */
static NTSTATUS check_mic(struct ntlmssp_server *s, const uint8_t *in,
			  size_t in_len, const struct ntlmssp_auth_msg *am,
			  const uint8_t key[16])
{
	uint8_t *copy, mic[16];
	bool ok;

	if (in_len < NTLMSSP_AUTH_MIC_END ||
	    am->min_offset < NTLMSSP_AUTH_MIC_END) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	copy = talloc_memdup(NULL, in, in_len);
	if (copy == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memset(copy + NTLMSSP_AUTH_MIC_OFFSET, 0, 16);
	{
		struct crypto_iov iov[3] = {
			{s->neg_msg, s->neg_len},
			{s->chal_msg, s->chal_len},
			{copy, in_len},
		};
		crypto_hmac_md5(key, 16, iov, 3, mic);
	}
	ok = crypto_memeq(mic, in + NTLMSSP_AUTH_MIC_OFFSET, 16);
	talloc_free(copy);
	if (!ok) {
		DBG_NOTICE("NTLMSSP MIC mismatch from %s\n", s->remote_addr);
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static void log_failure(struct ntlmssp_server *s, NTSTATUS status)
{
	DBG_NOTICE("authentication for user [%s]\\[%s] from %s failed: %s\n",
		   s->result.client_domain, s->result.client_user,
		   s->remote_addr, nt_errstr(status));
}

static NTSTATUS finish_guest(struct ntlmssp_server *s)
{
	struct auth_user_info *g;
	NTSTATUS status;

	status = auth_unix_user_info(s, s->cfg->guest_account, &g);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_WARNING("guest account [%s] unusable: %s\n",
			    s->cfg->guest_account, nt_errstr(status));
		return NT_STATUS_LOGON_FAILURE;
	}
	DBG_INFO("unknown user [%s]\\[%s] from %s mapped to guest\n",
		 s->result.client_domain, s->result.client_user,
		 s->remote_addr);
	s->result.guest = true;
	s->result.user = g;
	s->audit.guest = true;
	return NT_STATUS_OK;
}

/*
 * NTLMv2 once the response is proven (here or by the domain): the
 * exported session key from the base key (3.4.5.1 KXKEY is the session
 * base key for NTLMv2, then KEY_EXCH), the MIC, the signing keys.
 */
static NTSTATUS finish_v2(struct ntlmssp_server *s, const uint8_t *in,
			  size_t in_len, const struct ntlmssp_auth_msg *am,
			  const uint8_t base[16], uint32_t av_flags)
{
	uint8_t key[16];
	NTSTATUS status;

	memcpy(key, base, 16);
	if (s->flags & NTLMSSP_NEGOTIATE_KEY_EXCH) {
		if (am->enc_key.len != 16) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		memcpy(key, am->enc_key.data, 16);
		crypto_rc4_oneshot(base, 16, key, 16);
	}
	if (av_flags & MSV_AV_FLAG_MIC_PRESENT) {
		status = check_mic(s, in, in_len, am, key);
		if (!NT_STATUS_IS_OK(status)) {
			memset(key, 0, sizeof(key));
			return status;
		}
		s->had_mic = true;
	}
	memcpy(s->result.session_key, key, 16);
	s->result.has_session_key = true;
	status = derive_keys(s, key);
	memset(key, 0, sizeof(key));
	return status;
}

/*
 * A real user's NTLMv2 response: verify, then derive the keys and check
 * the MIC.
 */
static NTSTATUS auth_user_v2(struct ntlmssp_server *s, const uint8_t *in,
			     size_t in_len, const struct ntlmssp_auth_msg *am,
			     struct auth_user_info *info)
{
	static const uint8_t dummy_hash[16];
	const char *client_dom = s->result.client_domain;
	const char *domains[4];
	uint8_t base[16];
	uint32_t av_flags = 0;
	bool ok;
	NTSTATUS status;

	/* 2.2.2.7 NTLMv2_CLIENT_CHALLENGE: AvPairs start at 28 + 16.  A
	 * list that runs past the response or lacks MsvAvEOL is a malformed
	 * message (INVALID_PARAMETER, as Windows answers), found before any
	 * password check: smbtorture smb2.session.ntlmssp_bug14932. */
	status = ntlmssp_av_flags(am->nt.data + 44, am->nt.len - 44,
				  &av_flags);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	domains[0] = client_dom;
	domains[1] = charset_strupper(s, client_dom);
	domains[2] = "";
	domains[3] = s->cfg->workgroup;
	/* Unknown users cost the same HMACs (no timing oracle). */
	ok = verify_v2(s, info != NULL && info->has_nt_hash ? info->nt_hash
							    : dummy_hash,
		       s->result.client_user, domains, 4, &am->nt, base);
	if (info == NULL || !info->has_nt_hash || !ok) {
		return NT_STATUS_LOGON_FAILURE;
	}
	status = finish_v2(s, in, in_len, am, base, av_flags);
	memset(base, 0, sizeof(base));
	return status;
}

/* MS-NLMP 6 DESL(): the 16-byte key as three DES keys over one block. */
static bool desl(const uint8_t k[16], const uint8_t d[8], uint8_t out[24])
{
	uint8_t k3[7] = {k[14], k[15], 0, 0, 0, 0, 0};

	return crypto_des_ecb7(k, d, out) && crypto_des_ecb7(k + 7, d, out + 8) &&
	       crypto_des_ecb7(k3, d, out + 16);
}

bool ntlmssp_v1_response(const uint8_t nt_hash[16],
			 const uint8_t server_chal[8],
			 const uint8_t *client_chal, uint8_t out[24])
{
	uint8_t both[16], digest[16];

	if (client_chal == NULL) {
		return desl(nt_hash, server_chal, out);
	}
	/* 3.3.1 with NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY. */
	memcpy(both, server_chal, 8);
	memcpy(both + 8, client_chal, 8);
	crypto_md5(both, 16, digest);
	return desl(nt_hash, digest, out);
}

void ntlmssp_v1_kxkey(const uint8_t base[16], const uint8_t server_chal[8],
		      const uint8_t *client_chal, uint8_t kxkey[16])
{
	if (client_chal == NULL) {
		memcpy(kxkey, base, 16);
		return;
	}
	/* 3.4.5.1 KXKEY with extended session security. */
	{
		uint8_t both[16];
		struct crypto_iov iov = {both, 16};

		memcpy(both, server_chal, 8);
		memcpy(both + 8, client_chal, 8);
		crypto_hmac_md5(base, 16, &iov, 1, kxkey);
	}
}

void ntlmssp_v1_keys(const uint8_t nt_hash[16], const uint8_t server_chal[8],
		     const uint8_t *client_chal, uint8_t base[16],
		     uint8_t kxkey[16])
{
	crypto_md4(nt_hash, 16, base);
	ntlmssp_v1_kxkey(base, server_chal, client_chal, kxkey);
}

static NTSTATUS finish_v1(struct ntlmssp_server *s,
			  const struct ntlmssp_auth_msg *am,
			  const uint8_t base[16]);

/*
 * NTLMv1 (3.3.1), only when "ntlm auth" permits it.  Unknown users are
 * checked against a dummy hash, as for v2.
 */
static NTSTATUS auth_user_v1(struct ntlmssp_server *s,
			     const struct ntlmssp_auth_msg *am,
			     struct auth_user_info *info)
{
	static const uint8_t dummy_hash[16];
	const uint8_t *cchal = NULL;
	uint8_t want[24], base[16];
	bool ok;
	NTSTATUS status;

	if (s->flags & NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY) {
		/* The client challenge is the LM response's first half. */
		if (am->lm.len != 24) {
			return NT_STATUS_LOGON_FAILURE;
		}
		cchal = am->lm.data;
	}
	if (!ntlmssp_v1_response(info != NULL && info->has_nt_hash
					 ? info->nt_hash
					 : dummy_hash,
				 s->challenge, cchal, want)) {
		DBG_WARNING("NTLMv1 logon refused: no DES in the OpenSSL "
			    "legacy provider\n");
		return NT_STATUS_LOGON_FAILURE;
	}
	ok = crypto_memeq(want, am->nt.data, 24);
	if (info == NULL || !info->has_nt_hash || !ok) {
		return NT_STATUS_LOGON_FAILURE;
	}
	crypto_md4(info->nt_hash, 16, base);
	status = finish_v1(s, am, base);
	memset(base, 0, sizeof(base));
	return status;
}

/* NTLMv1 once proven: KXKEY from the session base key (3.4.5.1), then
 * KEY_EXCH and the signing keys. */
static NTSTATUS finish_v1(struct ntlmssp_server *s,
			  const struct ntlmssp_auth_msg *am,
			  const uint8_t base[16])
{
	const uint8_t *cchal = NULL;
	uint8_t key[16];
	NTSTATUS status;

	if (s->flags & NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY) {
		if (am->lm.len != 24) {
			return NT_STATUS_LOGON_FAILURE;
		}
		cchal = am->lm.data;
	}
	ntlmssp_v1_kxkey(base, s->challenge, cchal, key);
	if (s->flags & NTLMSSP_NEGOTIATE_KEY_EXCH) {
		uint8_t kx[16];

		if (am->enc_key.len != 16) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		memcpy(kx, key, 16);
		memcpy(key, am->enc_key.data, 16);
		crypto_rc4_oneshot(kx, 16, key, 16);
		memset(kx, 0, sizeof(kx));
	}
	memcpy(s->result.session_key, key, 16);
	s->result.has_session_key = true;
	status = derive_keys(s, key);
	memset(key, 0, sizeof(key));
	return status;
}

/* Account state is only revealed once the password was proven. */
static NTSTATUS check_account(const struct auth_user_info *info)
{
	if (info->acct_ctrl & ACB_DISABLED) {
		return NT_STATUS_ACCOUNT_DISABLED;
	}
	if (info->acct_ctrl & ACB_AUTOLOCK) {
		return NT_STATUS_ACCOUNT_LOCKED_OUT;
	}
	if (info->acct_ctrl & (ACB_WSTRUST | ACB_SVRTRUST | ACB_DOMTRUST)) {
		return NT_STATUS_LOGON_FAILURE;
	}
	return NT_STATUS_OK;
}

/*
 * A user the domain checked (ntlmssp_server_set_verdict): the keys from
 * its session base key, or its refusal.  As Samba tells the client, an
 * unknown user and a wrong password are both LOGON_FAILURE (the audit
 * keeps the domain's reason), an unknown user is the guest where `map
 * to guest = bad user` says so, and the domain's other reasons
 * (ACCOUNT_DISABLED, PASSWORD_EXPIRED, NO_LOGON_SERVERS, ...) are passed
 * on.
 */
static NTSTATUS authenticate_domain_user(struct ntlmssp_server *s,
					 const uint8_t *in, size_t in_len,
					 const struct ntlmssp_auth_msg *am,
					 bool v1)
{
	NTSTATUS status = s->verdict;
	uint32_t av_flags = 0;

	if (!v1 && NT_STATUS_IS_OK(status)) {
		/* as for a local user: a malformed list is refused */
		status = ntlmssp_av_flags(am->nt.data + 44, am->nt.len - 44,
					  &av_flags);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = v1 ? finish_v1(s, am, s->verdict_key)
			    : finish_v2(s, in, in_len, am, s->verdict_key,
					av_flags);
	}
	explicit_bzero(s->verdict_key, sizeof(s->verdict_key));
	if (status == NT_STATUS_NO_SUCH_USER && s->cfg->map_to_guest_bad_user) {
		return finish_guest(s);
	}
	if (!NT_STATUS_IS_OK(status)) {
		s->audit.status = status;
		log_failure(s, status);
		if (status == NT_STATUS_NO_SUCH_USER ||
		    status == NT_STATUS_WRONG_PASSWORD) {
			status = NT_STATUS_LOGON_FAILURE;
		}
		return status;
	}
	status = check_account(s->verdict_user);
	if (!NT_STATUS_IS_OK(status)) {
		log_failure(s, status);
		return status;
	}
	s->result.user = talloc_steal(s, s->verdict_user);
	s->verdict_user = NULL;
	s->audit.mapped_user = s->result.user->account_name;
	s->audit.mapped_domain = s->result.user->domain;
	DBG_INFO("domain user [%s]\\[%s] authenticated by winbindd from %s\n",
		 s->result.user->domain, s->result.user->account_name,
		 s->remote_addr);
	return NT_STATUS_OK;
}

/* Look the user up, check the response (v1 or v2), map a bad user to
 * guest where configured, check the account, log the outcome. */
static NTSTATUS authenticate_user(struct ntlmssp_server *s, const uint8_t *in,
				  size_t in_len,
				  const struct ntlmssp_auth_msg *am, bool v1)
{
	struct auth_user_info *info = NULL;
	NTSTATUS status;

	s->audit.mapped_user = s->result.client_user;
	s->audit.mapped_domain = s->result.client_domain;
	if (s->has_verdict) {
		return authenticate_domain_user(s, in, in_len, am, v1);
	}
	if (s->has_lookup) {
		status = s->lookup_status;
		info = s->lookup_info;
		s->has_lookup = false;
		s->lookup_info = NULL;
	} else {
		status = s->lookup(s->priv, s, s->result.client_user,
				   s->result.client_domain, &info);
	}
	if (status == NT_STATUS_NO_SUCH_USER) {
		info = NULL;
	} else if (!NT_STATUS_IS_OK(status)) {
		DBG_WARNING("user lookup for [%s] failed: %s\n",
			    s->result.client_user, nt_errstr(status));
		return NT_STATUS_LOGON_FAILURE;
	}
	status = v1 ? auth_user_v1(s, am, info)
		    : auth_user_v2(s, in, in_len, am, info);
	if (info == NULL && s->cfg->map_to_guest_bad_user &&
	    status == NT_STATUS_LOGON_FAILURE) {
		return finish_guest(s);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = check_account(info);
	}
	if (!NT_STATUS_IS_OK(status)) {
		log_failure(s, status);
		/* The client hears LOGON_FAILURE either way; the audit
		 * says which, as Samba's does. */
		if (status == NT_STATUS_LOGON_FAILURE) {
			s->audit.status = info == NULL
						  ? NT_STATUS_NO_SUCH_USER
						  : NT_STATUS_WRONG_PASSWORD;
		}
		return status;
	}
	s->result.user = info;
	DBG_INFO("user [%s]\\[%s] authenticated%s from %s\n",
		 s->result.client_domain, s->result.client_user,
		 v1 ? " with NTLMv1" : "", s->remote_addr);
	return NT_STATUS_OK;
}

static NTSTATUS server_authenticate_msg(struct ntlmssp_server *s,
					const uint8_t *in, size_t in_len,
					struct ntlmssp_auth_msg *am);

/* The AUTHENTICATE leg, with its audit record (struct auth_audit). */
static NTSTATUS server_authenticate(struct ntlmssp_server *s,
				    const uint8_t *in, size_t in_len)
{
	struct ntlmssp_auth_msg am;
	struct timespec t0, t1;
	NTSTATUS status;

	memset(&am, 0, sizeof(am));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->audit.status = NT_STATUS_OK;
	status = server_authenticate_msg(s, in, in_len, &am);
	if (s->result.client_user == NULL) {
		/* Malformed before the names: nothing to audit (Samba logs
		 * no event for a message it could not parse either). */
		return status;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->audit.done = true;
	if (NT_STATUS_IS_OK(s->audit.status)) {
		s->audit.status = status;
	}
	s->audit.client_user = s->result.client_user;
	s->audit.client_domain = s->result.client_domain;
	s->audit.workstation = s->result.client_workstation;
	s->audit.anonymous = s->result.anonymous;
	s->audit.password_type = s->result.anonymous ? "None"
				 : am.nt.len == 24   ? "NTLMv1"
						     : "NTLMv2";
	if (NT_STATUS_IS_OK(status) && s->result.user != NULL) {
		const struct auth_user_info *u = s->result.user;

		s->audit.became_user = u->account_name;
		s->audit.became_uid = u->uid;
		if (u->nsids > 0) {
			/* a domain user: its domain and SID (Samba's
			 * "became [SMBNG]\[bob] [S-1-5-21-...]") */
			char buf[AUTH_SID_STRING_MAX];

			s->audit.became_domain = u->domain;
			s->audit.became_sid = talloc_strdup(
				s, auth_sid_string(&u->sids[0], buf));
		}
	}
	s->audit.duration_us =
		(uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000LL +
			   (t1.tv_nsec - t0.tv_nsec) / 1000);
	return status;
}

static NTSTATUS server_authenticate_msg(struct ntlmssp_server *s,
					const uint8_t *in, size_t in_len,
					struct ntlmssp_auth_msg *amp)
{
	bool unicode = s->flags & NTLMSSP_NEGOTIATE_UNICODE;
	struct ntlmssp_auth_msg am;
	NTSTATUS status;

	status = ntlmssp_parse_authenticate(in, in_len, &am);
	*amp = am;
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* The AUTHENTICATE flags may only drop key-related options. */
	if (am.flags != 0) {
		s->flags &= am.flags | ~(uint32_t)(NTLMSSP_NEGOTIATE_KEY_EXCH |
						   NTLMSSP_NEGOTIATE_128 |
						   NTLMSSP_NEGOTIATE_56);
	}
	status = pull_str(s, unicode, &am.user, &s->result.client_user);
	if (NT_STATUS_IS_OK(status)) {
		status = pull_str(s, unicode, &am.domain,
				  &s->result.client_domain);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = pull_str(s, unicode, &am.workstation,
				  &s->result.client_workstation);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}

	/* 3.2.5.1.2: anonymous is an empty user with empty responses. */
	if (s->result.client_user[0] == '\0' && am.nt.len == 0 &&
	    (am.lm.len == 0 || (am.lm.len == 1 && am.lm.data[0] == 0))) {
		s->result.anonymous = true;
		return NT_STATUS_OK;
	}
	/* `ntlm auth` is about this server's own (passdb) users: a domain
	 * user's response was checked by the domain, under its own policy
	 * (smb.conf(5); Samba 4.17's member forwards SMBNG\bob's NTLM with
	 * ntlm auth = disabled) */
	if (s->cfg->ntlm_auth == AUTH_NTLM_DISABLED && !s->has_verdict) {
		/* NTLM_BLOCKED, as Samba 4.17 answers */
		log_failure(s, NT_STATUS_NTLM_BLOCKED);
		return NT_STATUS_NTLM_BLOCKED;
	}
	if (am.nt.len == 24) {
		if (s->cfg->ntlm_auth != AUTH_NTLM_NTLMV1_PERMITTED &&
		    !s->has_verdict) {
			DBG_NOTICE("NTLMv1 logon for [%s] from %s refused "
				   "(ntlm auth = ntlmv2-only)\n",
				   s->result.client_user, s->remote_addr);
			return NT_STATUS_LOGON_FAILURE;
		}
		return authenticate_user(s, in, in_len, &am, true);
	}
	/* NTProofStr (16) + the 28-byte fixed part + AV pairs (>= 4). */
	if (am.nt.len < 48 || am.nt.data[16] != 1 || am.nt.data[17] != 1) {
		log_failure(s, NT_STATUS_LOGON_FAILURE);
		return NT_STATUS_LOGON_FAILURE;
	}

	return authenticate_user(s, in, in_len, &am, false);
}

NTSTATUS ntlmssp_server_update(struct ntlmssp_server *s, TALLOC_CTX *mem_ctx,
			       const uint8_t *in, size_t in_len, uint8_t **out,
			       size_t *out_len)
{
	NTSTATUS status;

	*out = NULL;
	*out_len = 0;
	switch (s->state) {
	case NTLMSSP_WANT_NEGOTIATE:
		status = server_negotiate(s, mem_ctx, in, in_len, out,
					  out_len);
		break;
	case NTLMSSP_WANT_AUTH:
		status = server_authenticate(s, in, in_len);
		break;
	default:
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status)) {
		s->state = NTLMSSP_DONE;
	} else if (status != NT_STATUS_MORE_PROCESSING_REQUIRED) {
		s->state = NTLMSSP_FAILED;
	}
	return status;
}

char *ntlmssp_server_peek_user(const struct ntlmssp_server *s,
			       TALLOC_CTX *mem_ctx, const uint8_t *in,
			       size_t in_len)
{
	struct ntlmssp_auth_msg am;
	char *user = NULL;

	/* The same cut and decoding server_authenticate() makes, so the
	 * name seen here is the name it will look up. */
	if (s->state != NTLMSSP_WANT_AUTH ||
	    !NT_STATUS_IS_OK(ntlmssp_parse_authenticate(in, in_len, &am)) ||
	    !NT_STATUS_IS_OK(pull_str(mem_ctx,
				      s->flags & NTLMSSP_NEGOTIATE_UNICODE,
				      &am.user, &user))) {
		return NULL;
	}
	if (user[0] == '\0') {
		talloc_free(user);
		return NULL;
	}
	return user;
}

bool ntlmssp_server_peek_auth(const struct ntlmssp_server *s,
			      TALLOC_CTX *mem_ctx, const uint8_t *in,
			      size_t in_len, struct ntlmssp_peek *out)
{
	bool unicode = s->flags & NTLMSSP_NEGOTIATE_UNICODE;
	struct ntlmssp_auth_msg am;

	memset(out, 0, sizeof(*out));
	if (s->state != NTLMSSP_WANT_AUTH ||
	    !NT_STATUS_IS_OK(ntlmssp_parse_authenticate(in, in_len, &am)) ||
	    !NT_STATUS_IS_OK(pull_str(mem_ctx, unicode, &am.user,
				      &out->user)) ||
	    !NT_STATUS_IS_OK(pull_str(mem_ctx, unicode, &am.domain,
				      &out->domain)) ||
	    !NT_STATUS_IS_OK(pull_str(mem_ctx, unicode, &am.workstation,
				      &out->workstation))) {
		return false;
	}
	/* 3.2.5.1.2: anonymous stays with us */
	if (out->user[0] == '\0' || am.nt.len == 0) {
		return false;
	}
	out->nt = talloc_memdup(mem_ctx, am.nt.data, am.nt.len);
	out->nt_len = am.nt.len;
	if (am.lm.len > 0) {
		out->lm = talloc_memdup(mem_ctx, am.lm.data, am.lm.len);
		out->lm_len = am.lm.len;
	}
	memcpy(out->challenge, s->challenge, 8);
	return out->nt != NULL && (am.lm.len == 0 || out->lm != NULL);
}

void ntlmssp_server_set_lookup(struct ntlmssp_server *s, NTSTATUS status,
			       struct auth_user_info *info)
{
	s->has_lookup = true;
	s->lookup_status = status;
	talloc_free(s->lookup_info);
	s->lookup_info = NT_STATUS_IS_OK(status) ? talloc_steal(s, info)
						 : NULL;
}

void ntlmssp_server_set_verdict(struct ntlmssp_server *s, NTSTATUS status,
				struct auth_user_info *user,
				const uint8_t session_base_key[16])
{
	s->has_verdict = true;
	s->verdict = status;
	talloc_free(s->verdict_user);
	s->verdict_user = NT_STATUS_IS_OK(status) ? talloc_steal(s, user)
						  : NULL;
	if (NT_STATUS_IS_OK(status)) {
		memcpy(s->verdict_key, session_base_key, 16);
	}
}

const struct auth_result *ntlmssp_server_result(const struct ntlmssp_server *s)
{
	return s->state == NTLMSSP_DONE ? &s->result : NULL;
}

const struct auth_audit *ntlmssp_server_audit(const struct ntlmssp_server *s)
{
	return s->audit.done ? &s->audit : NULL;
}

bool ntlmssp_server_had_mic(const struct ntlmssp_server *s)
{
	return s->had_mic;
}

bool ntlmssp_server_can_sign(const struct ntlmssp_server *s)
{
	return s->have_keys;
}

/* 3.4.4.2 MAC with extended session security. */
static void make_sig(const uint8_t sign_key[16], struct crypto_rc4 *seal,
		     bool key_exch, uint32_t seq, const uint8_t *data,
		     size_t len, uint8_t sig[16])
{
	uint8_t seqb[4], mac[16];
	struct crypto_iov iov[2] = {{seqb, 4}, {data, len}};

	put_le32(seqb, seq);
	crypto_hmac_md5(sign_key, 16, iov, 2, mac);
	if (key_exch) {
		crypto_rc4_update(seal, mac, 8);
	}
	put_le32(sig, 1);
	memcpy(sig + 4, mac, 8);
	put_le32(sig + 12, seq);
}

NTSTATUS ntlmssp_server_sign(struct ntlmssp_server *s, uint32_t seq,
			     const uint8_t *data, size_t len, uint8_t sig[16])
{
	if (!s->have_keys) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	make_sig(s->server_sign_key, s->server_seal,
		 s->flags & NTLMSSP_NEGOTIATE_KEY_EXCH, seq, data, len, sig);
	return NT_STATUS_OK;
}

NTSTATUS ntlmssp_server_check_sig(struct ntlmssp_server *s, uint32_t seq,
				  const uint8_t *data, size_t len,
				  const uint8_t *sig, size_t sig_len)
{
	uint8_t want[16];

	if (!s->have_keys) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (sig_len != 16) {
		return NT_STATUS_ACCESS_DENIED;
	}
	make_sig(s->client_sign_key, s->client_seal,
		 s->flags & NTLMSSP_NEGOTIATE_KEY_EXCH, seq, data, len, want);
	return crypto_memeq(want, sig, 16) ? NT_STATUS_OK
					   : NT_STATUS_ACCESS_DENIED;
}
