/*
 * SPNEGO tokens (RFC 4178, MS-SPNG 2.2): parse what a client sends, build
 * what the server answers.  Only the token syntax lives here; the state
 * machine that ties SPNEGO to NTLMSSP is gensec.c.
 *
 * Parsed tokens point into the caller's input buffer (no copies): a
 * struct spnego_token is valid as long as that buffer is.
 */
#ifndef SMBD_AUTH_SPNEGO_H
#define SMBD_AUTH_SPNEGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"

/* RFC 4178 4.2.2 NegState values. */
#define SPNEGO_ACCEPT_COMPLETED 0
#define SPNEGO_ACCEPT_INCOMPLETE 1
#define SPNEGO_REJECT 2
#define SPNEGO_REQUEST_MIC 3
#define SPNEGO_NO_STATE (-1) /* omit negState when building */

/* More mechanisms than any real client offers is a malformed token. */
#define SPNEGO_MAX_MECHS 16

/* OID contents (no tag/length) of 1.3.6.1.5.5.2 and NTLMSSP. */
extern const uint8_t spnego_oid_spnego[6];
extern const uint8_t spnego_oid_ntlmssp[10];
/* Kerberos 5 (RFC 4121: 1.2.840.113554.1.2.2) and Microsoft's
 * misencoded variant of it (1.2.840.48018.1.2.2), which Windows offers
 * first and which means the same mechanism (MS-KILE 3.1.5.8). */
extern const uint8_t spnego_oid_krb5[9];
extern const uint8_t spnego_oid_ms_krb5[9];

struct spnego_blob {
	const uint8_t *data; /* NULL: absent */
	size_t len;
};

enum spnego_type {
	SPNEGO_NEG_TOKEN_INIT,
	SPNEGO_NEG_TOKEN_RESP,
};

struct spnego_token {
	enum spnego_type type;
	/* negTokenInit */
	size_t num_mechs;
	struct spnego_blob mechs[SPNEGO_MAX_MECHS]; /* OID contents */
	/* DER of the MechTypeList SEQUENCE, what mechListMIC covers. */
	struct spnego_blob mech_list_der;
	/* negTokenResp */
	int32_t neg_state; /* SPNEGO_NO_STATE when absent */
	struct spnego_blob supported_mech; /* OID contents */
	/* both: mechToken (init) or responseToken (resp), and mechListMIC */
	struct spnego_blob mech_token;
	struct spnego_blob mech_list_mic;
};

/*
 * Parse a GSS InitialContextToken carrying negTokenInit (0x60, RFC 2743
 * 3.1) or a bare negTokenResp ([1]).  NT_STATUS_INVALID_PARAMETER when
 * malformed.
 */
NTSTATUS spnego_parse(const uint8_t *in, size_t in_len,
		      struct spnego_token *out);

/* True when `oid` (contents) is NTLMSSP's OID. */
bool spnego_is_ntlmssp(const struct spnego_blob *oid);
/* True when `oid` is one of the two Kerberos OIDs. */
bool spnego_is_krb5(const struct spnego_blob *oid);

/*
 * negTokenResp (RFC 4178 4.2.2).  neg_state SPNEGO_NO_STATE omits it;
 * with_mech adds supportedMech = NTLMSSP; token/mic may be NULL.
 */
NTSTATUS spnego_build_resp(TALLOC_CTX *mem_ctx, int32_t neg_state,
			   bool with_mech, const uint8_t *token,
			   size_t token_len, const uint8_t *mic, size_t mic_len,
			   uint8_t **out, size_t *out_len);
/* The same with supportedMech = mech (NULL: none). */
NTSTATUS spnego_build_resp_mech(TALLOC_CTX *mem_ctx, int32_t neg_state,
				const struct spnego_blob *mech,
				const uint8_t *token, size_t token_len,
				const uint8_t *mic, size_t mic_len,
				uint8_t **out, size_t *out_len);

/*
 * negTokenInit2 (MS-SPNG 2.2.1) for the SMB2 NEGOTIATE response security
 * buffer: mechTypes = [NTLMSSP], or with krb5 (security = ads) [MS KRB5,
 * KRB5, NTLMSSP] as Samba's member sends them; negHints.hintName as
 * Windows sends it.
 */
NTSTATUS spnego_negotiate_hint(TALLOC_CTX *mem_ctx, bool krb5, uint8_t **out,
			       size_t *out_len);

/* negTokenInit (client side), for tests and fuzz seeds. */
NTSTATUS spnego_build_init(TALLOC_CTX *mem_ctx, const struct spnego_blob *mechs,
			   size_t num_mechs, const uint8_t *token,
			   size_t token_len, const uint8_t *mic, size_t mic_len,
			   uint8_t **out, size_t *out_len);

#endif
