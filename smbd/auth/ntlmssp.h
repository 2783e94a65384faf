/*
 * NTLMSSP server side (MS-NLMP): NEGOTIATE -> CHALLENGE -> AUTHENTICATE,
 * NTLMv2 verification against the user database, key exchange, the MIC,
 * and the signing/sealing keys SPNEGO's mechListMIC needs.
 *
 * One struct ntlmssp_server per authentication; everything it allocates is
 * a talloc child of it.  The auth_config it is given must outlive it.
 */
#ifndef SMBD_AUTH_NTLMSSP_H
#define SMBD_AUTH_NTLMSSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"

/* MS-NLMP 2.2.2.5 NEGOTIATE flags. */
#define NTLMSSP_NEGOTIATE_UNICODE 0x00000001
#define NTLMSSP_NEGOTIATE_OEM 0x00000002
#define NTLMSSP_REQUEST_TARGET 0x00000004
#define NTLMSSP_NEGOTIATE_SIGN 0x00000010
#define NTLMSSP_NEGOTIATE_SEAL 0x00000020
#define NTLMSSP_NEGOTIATE_DATAGRAM 0x00000040
#define NTLMSSP_NEGOTIATE_LM_KEY 0x00000080
#define NTLMSSP_NEGOTIATE_NTLM 0x00000200
#define NTLMSSP_ANONYMOUS 0x00000800
#define NTLMSSP_NEGOTIATE_OEM_DOMAIN_SUPPLIED 0x00001000
#define NTLMSSP_NEGOTIATE_OEM_WORKSTATION_SUPPLIED 0x00002000
#define NTLMSSP_NEGOTIATE_ALWAYS_SIGN 0x00008000
#define NTLMSSP_TARGET_TYPE_DOMAIN 0x00010000
#define NTLMSSP_TARGET_TYPE_SERVER 0x00020000
#define NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY 0x00080000
#define NTLMSSP_NEGOTIATE_IDENTIFY 0x00100000
#define NTLMSSP_REQUEST_NON_NT_SESSION_KEY 0x00400000
#define NTLMSSP_NEGOTIATE_TARGET_INFO 0x00800000
#define NTLMSSP_NEGOTIATE_VERSION 0x02000000
#define NTLMSSP_NEGOTIATE_128 0x20000000
#define NTLMSSP_NEGOTIATE_KEY_EXCH 0x40000000
#define NTLMSSP_NEGOTIATE_56 0x80000000

/* MS-NLMP 2.2.2.1 AV_PAIR ids. */
#define MSV_AV_EOL 0
#define MSV_AV_NB_COMPUTER_NAME 1
#define MSV_AV_NB_DOMAIN_NAME 2
#define MSV_AV_DNS_COMPUTER_NAME 3
#define MSV_AV_DNS_DOMAIN_NAME 4
#define MSV_AV_DNS_TREE_NAME 5
#define MSV_AV_FLAGS 6
#define MSV_AV_TIMESTAMP 7
#define MSV_AV_FLAG_MIC_PRESENT 0x00000002

#define NTLMSSP_SIGNATURE "NTLMSSP" /* 8 bytes with the NUL */
#define NTLMSSP_NEGOTIATE_MSG 1
#define NTLMSSP_CHALLENGE_MSG 2
#define NTLMSSP_AUTH_MSG 3
/* AUTHENTICATE: the MIC follows Version, 2.2.1.3. */
#define NTLMSSP_AUTH_MIC_OFFSET 72
#define NTLMSSP_AUTH_MIC_END 88

/* A payload field of an AUTHENTICATE message, checked against its length. */
struct ntlmssp_field {
	const uint8_t *data;
	size_t len;
	uint32_t offset;
};

struct ntlmssp_auth_msg {
	struct ntlmssp_field lm, nt, domain, user, workstation, enc_key;
	uint32_t flags;
	uint32_t min_offset; /* lowest offset of a non-empty field */
};

/* Cut an AUTHENTICATE message into bounded fields (2.2.1.3). */
NTSTATUS ntlmssp_parse_authenticate(const uint8_t *msg, size_t len,
				    struct ntlmssp_auth_msg *out);

/* Walk AV pairs (2.2.2.1): MsvAvFlags, or 0; INVALID_PARAMETER if bad. */
NTSTATUS ntlmssp_av_flags(const uint8_t *av, size_t len, uint32_t *flags);

/* NTOWFv2 (3.3.2): HMAC_MD5(NT hash, UNICODE(Upper(user) + domain)). */
NTSTATUS ntlmssp_ntowfv2(const uint8_t nt_hash[16], const char *user,
			 const char *domain, uint8_t out[16]);

struct ntlmssp_server;

struct ntlmssp_server *ntlmssp_server_new(TALLOC_CTX *mem_ctx,
					  const struct auth_config *cfg,
					  auth_lookup_fn lookup, void *priv,
					  const char *remote_addr);

/*
 * The user name in `in` when s waits for the AUTHENTICATE and `in` is
 * one (its state unchanged); NULL otherwise and for an empty name.  For
 * work that must be done before the logon is checked (`username map
 * script`, which may not run on the event loop).
 */
char *ntlmssp_server_peek_user(const struct ntlmssp_server *s,
			       TALLOC_CTX *mem_ctx, const uint8_t *in,
			       size_t in_len);

/*
 * security = ads: an AUTHENTICATE whose user is not ours is checked by
 * the domain (through winbindd), not against passdb.  The fields that
 * check needs, copied onto mem_ctx; false when `in` is not the
 * AUTHENTICATE s waits for, or not one a domain could check (anonymous,
 * malformed names).
 */
struct ntlmssp_peek {
	char *user, *domain, *workstation;
	uint8_t *nt, *lm;
	size_t nt_len, lm_len;
	uint8_t challenge[8];
};
bool ntlmssp_server_peek_auth(const struct ntlmssp_server *s,
			      TALLOC_CTX *mem_ctx, const uint8_t *in,
			      size_t in_len, struct ntlmssp_peek *out);

/*
 * The domain's verdict on the AUTHENTICATE ntlmssp_server_update() gets
 * next, in place of the passdb lookup and the response check: status
 * (OK, or the domain's reason: WRONG_PASSWORD, NO_SUCH_USER,
 * ACCOUNT_DISABLED, ...), and on OK the user (taken over) and the NTLM
 * user session key (MS-NLMP's SessionBaseKey, from which the exchange's
 * keys and MIC are derived here as for a local user).
 */
void ntlmssp_server_set_verdict(struct ntlmssp_server *s, NTSTATUS status,
				struct auth_user_info *user,
				const uint8_t session_base_key[16]);

/*
 * The user lookup for the AUTHENTICATE ntlmssp_server_update() gets
 * next, made elsewhere (in the pool: it goes through NSS, which may ask
 * winbindd): what the auth_lookup_fn would have answered, info taken
 * over.  The response is then checked against it here as usual.
 */
void ntlmssp_server_set_lookup(struct ntlmssp_server *s, NTSTATUS status,
			       struct auth_user_info *info);

/* NTLMv1 (MS-NLMP 3.3.1): the 24-byte NtChallengeResponse, with extended
 * session security when client_chal (8 bytes) is given; false when DES is
 * not available.  And the SessionBaseKey and KXKEY (3.4.5.1). */
bool ntlmssp_v1_response(const uint8_t nt_hash[16],
			 const uint8_t server_chal[8],
			 const uint8_t *client_chal, uint8_t out[24]);
void ntlmssp_v1_keys(const uint8_t nt_hash[16], const uint8_t server_chal[8],
		     const uint8_t *client_chal, uint8_t base[16],
		     uint8_t kxkey[16]);
/* KXKEY alone, from the SessionBaseKey. */
void ntlmssp_v1_kxkey(const uint8_t base[16], const uint8_t server_chal[8],
		      const uint8_t *client_chal, uint8_t kxkey[16]);

/* Tests and fuzzers only: a fixed challenge and timestamp. */
void ntlmssp_server_fix_challenge(struct ntlmssp_server *s,
				  const uint8_t challenge[8],
				  uint64_t timestamp);

/*
 * Tests only: continue as if `neg` had been received and `chal` sent, so a
 * captured exchange from another server (Samba) can be replayed.
 */
NTSTATUS ntlmssp_server_replay(struct ntlmssp_server *s, const uint8_t *neg,
			       size_t neg_len, const uint8_t *chal,
			       size_t chal_len);

/*
 * Feed one client message.  NEGOTIATE: *out is the CHALLENGE (on mem_ctx),
 * NT_STATUS_MORE_PROCESSING_REQUIRED.  AUTHENTICATE: NT_STATUS_OK and no
 * output on success; NT_STATUS_LOGON_FAILURE, NT_STATUS_ACCOUNT_DISABLED,
 * NT_STATUS_INVALID_PARAMETER (malformed, MIC mismatch) otherwise.
 */
NTSTATUS ntlmssp_server_update(struct ntlmssp_server *s, TALLOC_CTX *mem_ctx,
			       const uint8_t *in, size_t in_len, uint8_t **out,
			       size_t *out_len);

/* After NT_STATUS_OK; the result is owned by s. */
const struct auth_result *ntlmssp_server_result(const struct ntlmssp_server *s);

/* After an AUTHENTICATE, whatever its outcome; NULL before one was
 * parsed.  Owned by s. */
const struct auth_audit *ntlmssp_server_audit(const struct ntlmssp_server *s);

/* The AUTHENTICATE carried a MIC (MsvAvFlags 0x2): MS-SPNG "new" SPNEGO. */
bool ntlmssp_server_had_mic(const struct ntlmssp_server *s);

/* Keys were derived: the signing calls below are usable. */
bool ntlmssp_server_can_sign(const struct ntlmssp_server *s);

/*
 * NTLMSSP message signature (3.4.4.2, extended session security) with the
 * server-to-client keys, 16 bytes.  Advances the server's RC4 state.
 */
NTSTATUS ntlmssp_server_sign(struct ntlmssp_server *s, uint32_t seq,
			     const uint8_t *data, size_t len, uint8_t sig[16]);

/* Check a client-to-server signature; NT_STATUS_ACCESS_DENIED if wrong. */
NTSTATUS ntlmssp_server_check_sig(struct ntlmssp_server *s, uint32_t seq,
				  const uint8_t *data, size_t len,
				  const uint8_t *sig, size_t sig_len);

#endif
