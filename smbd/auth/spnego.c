/*
 * SPNEGO token syntax (RFC 4178 4.2, MS-SPNG 2.2) over our DER codec.
 *
 *   InitialContextToken ::= [APPLICATION 0] IMPLICIT SEQUENCE {
 *           thisMech OID (1.3.6.1.5.5.2), innerContextToken }   RFC 2743 3.1
 *   NegotiationToken ::= CHOICE { negTokenInit [0], negTokenResp [1] }
 *   NegTokenInit  ::= SEQUENCE { mechTypes [0] MechTypeList,
 *           reqFlags [1] OPTIONAL, mechToken [2] OCTET STRING OPTIONAL,
 *           mechListMIC [3] OCTET STRING OPTIONAL }
 *   NegTokenInit2 (MS-SPNG 2.2.1) puts negHints at [3], the MIC at [4].
 *   NegTokenResp  ::= SEQUENCE { negState [0] ENUMERATED OPTIONAL,
 *           supportedMech [1] OID OPTIONAL, responseToken [2] OCTET STRING
 *           OPTIONAL, mechListMIC [3] OCTET STRING OPTIONAL }
 *
 * The parser insists on increasing context tags (DER SEQUENCE order) and
 * refuses unknown ones; it keeps the DER of mechTypes because mechListMIC
 * is computed over exactly those bytes (RFC 4178 5).
 */
#include "smbd/auth/spnego.h"
#include "smbd/auth/asn1.h"

const uint8_t spnego_oid_spnego[6] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x02};
const uint8_t spnego_oid_ntlmssp[10] = {0x2b, 0x06, 0x01, 0x04, 0x01,
					0x82, 0x37, 0x02, 0x02, 0x0a};
const uint8_t spnego_oid_krb5[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
				    0x12, 0x01, 0x02, 0x02};
const uint8_t spnego_oid_ms_krb5[9] = {0x2a, 0x86, 0x48, 0x82, 0xf7,
				       0x12, 0x01, 0x02, 0x02};

/* MS-SPNG 3.2.5.2: the fixed hint name Windows and Samba send. */
static const char spnego_hint_name[] = "not_defined_in_RFC4178@please_ignore";

bool spnego_is_ntlmssp(const struct spnego_blob *oid)
{
	return oid->data != NULL && oid->len == sizeof(spnego_oid_ntlmssp) &&
	       memcmp(oid->data, spnego_oid_ntlmssp, oid->len) == 0;
}

bool spnego_is_krb5(const struct spnego_blob *oid)
{
	return oid->data != NULL && oid->len == sizeof(spnego_oid_krb5) &&
	       (memcmp(oid->data, spnego_oid_krb5, oid->len) == 0 ||
		memcmp(oid->data, spnego_oid_ms_krb5, oid->len) == 0);
}

/* [n] { OCTET STRING } */
static NTSTATUS read_octets(const struct asn1_tlv *ctx, struct spnego_blob *b)
{
	struct asn1_cur in;
	struct asn1_tlv t;
	NTSTATUS status;

	status = asn1_enter(ctx, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&in, ASN1_OCTET_STRING, &t);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	b->data = t.val;
	b->len = t.len;
	return NT_STATUS_OK;
}

static NTSTATUS read_mech_types(const struct asn1_tlv *ctx,
				struct spnego_token *tok)
{
	struct asn1_cur in, list;
	struct asn1_tlv seq, oid;
	NTSTATUS status;

	status = asn1_enter(ctx, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&in, ASN1_SEQUENCE, &seq);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	tok->mech_list_der.data = seq.raw;
	tok->mech_list_der.len = seq.raw_len;
	status = asn1_enter(&seq, &list);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	while (!asn1_at_end(&list)) {
		status = asn1_read_tag(&list, ASN1_OID, &oid);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		if (oid.len == 0 || tok->num_mechs >= SPNEGO_MAX_MECHS) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		tok->mechs[tok->num_mechs].data = oid.val;
		tok->mechs[tok->num_mechs].len = oid.len;
		tok->num_mechs++;
	}
	/* RFC 4178 4.2.1: MechTypeList is SEQUENCE OF, at least one. */
	return tok->num_mechs > 0 ? NT_STATUS_OK : NT_STATUS_INVALID_PARAMETER;
}

/* NegHints ::= SEQUENCE { hintName [0] GeneralString OPTIONAL, ... } */
static NTSTATUS check_neg_hints(const struct asn1_tlv *ctx)
{
	struct asn1_cur in;
	struct asn1_tlv seq;
	NTSTATUS status;

	status = asn1_enter(ctx, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&in, ASN1_SEQUENCE, &seq);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK; /* contents are ignored, as MS-SPNG says */
}

static NTSTATUS parse_init(const struct asn1_tlv *choice,
			   struct spnego_token *tok)
{
	struct asn1_cur in, seq;
	struct asn1_tlv t;
	int last = -1;
	NTSTATUS status;
	uint8_t tag;

	status = asn1_enter(choice, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_enter_tag(&in, ASN1_SEQUENCE, &seq);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	tok->type = SPNEGO_NEG_TOKEN_INIT;
	while (asn1_peek_tag(&seq, &tag)) {
		int n = tag - ASN1_CONTEXT(0);

		if (n < 0 || n > 4 || n <= last) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		last = n;
		status = asn1_read(&seq, &t);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		switch (n) {
		case 0:
			status = read_mech_types(&t, tok);
			break;
		case 1: /* reqFlags: ignored (RFC 4178 4.2.1 "SHOULD") */
			status = NT_STATUS_OK;
			break;
		case 2:
			status = read_octets(&t, &tok->mech_token);
			break;
		case 3:
			/*
			 * mechListMIC in NegTokenInit, negHints in
			 * NegTokenInit2: the inner tag tells which.
			 */
			if (t.len > 0 && t.val[0] == ASN1_SEQUENCE) {
				status = check_neg_hints(&t);
			} else {
				status = read_octets(&t, &tok->mech_list_mic);
			}
			break;
		default:
			status = read_octets(&t, &tok->mech_list_mic);
			break;
		}
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return tok->num_mechs > 0 ? NT_STATUS_OK : NT_STATUS_INVALID_PARAMETER;
}

static NTSTATUS read_neg_state(const struct asn1_tlv *ctx, int32_t *state)
{
	struct asn1_cur in;
	struct asn1_tlv t;
	NTSTATUS status;

	status = asn1_enter(ctx, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&in, ASN1_ENUMERATED, &t);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = asn1_tlv_int(&t, state);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (*state < SPNEGO_ACCEPT_COMPLETED || *state > SPNEGO_REQUEST_MIC) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static NTSTATUS read_mech(const struct asn1_tlv *ctx, struct spnego_blob *b)
{
	struct asn1_cur in;
	struct asn1_tlv t;
	NTSTATUS status;

	status = asn1_enter(ctx, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&in, ASN1_OID, &t);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in) || t.len == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	b->data = t.val;
	b->len = t.len;
	return NT_STATUS_OK;
}

static NTSTATUS parse_resp(const struct asn1_tlv *choice,
			   struct spnego_token *tok)
{
	struct asn1_cur in, seq;
	struct asn1_tlv t;
	int last = -1;
	NTSTATUS status;
	uint8_t tag;

	status = asn1_enter(choice, &in);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_enter_tag(&in, ASN1_SEQUENCE, &seq);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&in)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	tok->type = SPNEGO_NEG_TOKEN_RESP;
	while (asn1_peek_tag(&seq, &tag)) {
		int n = tag - ASN1_CONTEXT(0);

		if (n < 0 || n > 3 || n <= last) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		last = n;
		status = asn1_read(&seq, &t);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		switch (n) {
		case 0:
			status = read_neg_state(&t, &tok->neg_state);
			break;
		case 1:
			status = read_mech(&t, &tok->supported_mech);
			break;
		case 2:
			status = read_octets(&t, &tok->mech_token);
			break;
		default:
			status = read_octets(&t, &tok->mech_list_mic);
			break;
		}
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS spnego_parse(const uint8_t *in, size_t in_len,
		      struct spnego_token *out)
{
	struct asn1_cur top, app;
	struct asn1_tlv t;
	NTSTATUS status;
	uint8_t tag;

	memset(out, 0, sizeof(*out));
	out->neg_state = SPNEGO_NO_STATE;
	asn1_cur_init(&top, in, in_len);
	if (!asn1_peek_tag(&top, &tag)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (tag == ASN1_CONTEXT(1)) {
		status = asn1_read(&top, &t);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		return parse_resp(&t, out);
	}
	status = asn1_enter_tag(&top, ASN1_APPLICATION(0), &app);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = asn1_read_tag(&app, ASN1_OID, &t);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!asn1_oid_equal(&t, spnego_oid_spnego, sizeof(spnego_oid_spnego))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = asn1_read_tag(&app, ASN1_CONTEXT(0), &t);
	if (!NT_STATUS_IS_OK(status) || !asn1_at_end(&app)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return parse_init(&t, out);
}

static void push_octets(struct asn1_writer *w, uint8_t ctx, const void *data,
			size_t len)
{
	asn1_push_start(w, ASN1_CONTEXT(ctx));
	asn1_push_prim(w, ASN1_OCTET_STRING, data, len);
	asn1_push_end(w);
}

NTSTATUS spnego_build_resp(TALLOC_CTX *mem_ctx, int32_t neg_state,
			   bool with_mech, const uint8_t *token,
			   size_t token_len, const uint8_t *mic, size_t mic_len,
			   uint8_t **out, size_t *out_len)
{
	struct spnego_blob ntlmssp = {spnego_oid_ntlmssp,
				      sizeof(spnego_oid_ntlmssp)};

	return spnego_build_resp_mech(mem_ctx, neg_state,
				      with_mech ? &ntlmssp : NULL, token,
				      token_len, mic, mic_len, out, out_len);
}

NTSTATUS spnego_build_resp_mech(TALLOC_CTX *mem_ctx, int32_t neg_state,
				const struct spnego_blob *mech,
				const uint8_t *token, size_t token_len,
				const uint8_t *mic, size_t mic_len,
				uint8_t **out, size_t *out_len)
{
	struct asn1_writer w;

	asn1_writer_init(&w, mem_ctx);
	asn1_push_start(&w, ASN1_CONTEXT(1));
	asn1_push_start(&w, ASN1_SEQUENCE);
	if (neg_state != SPNEGO_NO_STATE) {
		asn1_push_start(&w, ASN1_CONTEXT(0));
		asn1_push_enumerated(&w, neg_state);
		asn1_push_end(&w);
	}
	if (mech != NULL) {
		asn1_push_start(&w, ASN1_CONTEXT(1));
		asn1_push_prim(&w, ASN1_OID, mech->data, mech->len);
		asn1_push_end(&w);
	}
	if (token != NULL) {
		push_octets(&w, 2, token, token_len);
	}
	if (mic != NULL) {
		push_octets(&w, 3, mic, mic_len);
	}
	asn1_push_end(&w);
	asn1_push_end(&w);
	return asn1_writer_finish(&w, out, out_len);
}

NTSTATUS spnego_negotiate_hint(TALLOC_CTX *mem_ctx, bool krb5, uint8_t **out,
			       size_t *out_len)
{
	struct asn1_writer w;

	asn1_writer_init(&w, mem_ctx);
	asn1_push_start(&w, ASN1_APPLICATION(0));
	asn1_push_prim(&w, ASN1_OID, spnego_oid_spnego,
		       sizeof(spnego_oid_spnego));
	asn1_push_start(&w, ASN1_CONTEXT(0));
	asn1_push_start(&w, ASN1_SEQUENCE);
	asn1_push_start(&w, ASN1_CONTEXT(0));
	asn1_push_start(&w, ASN1_SEQUENCE);
	if (krb5) {
		asn1_push_prim(&w, ASN1_OID, spnego_oid_ms_krb5,
			       sizeof(spnego_oid_ms_krb5));
		asn1_push_prim(&w, ASN1_OID, spnego_oid_krb5,
			       sizeof(spnego_oid_krb5));
	}
	asn1_push_prim(&w, ASN1_OID, spnego_oid_ntlmssp,
		       sizeof(spnego_oid_ntlmssp));
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_start(&w, ASN1_CONTEXT(3));
	asn1_push_start(&w, ASN1_SEQUENCE);
	asn1_push_start(&w, ASN1_CONTEXT(0));
	asn1_push_prim(&w, ASN1_GENERAL_STRING, spnego_hint_name,
		       sizeof(spnego_hint_name) - 1);
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_end(&w);
	return asn1_writer_finish(&w, out, out_len);
}

NTSTATUS spnego_build_init(TALLOC_CTX *mem_ctx, const struct spnego_blob *mechs,
			   size_t num_mechs, const uint8_t *token,
			   size_t token_len, const uint8_t *mic, size_t mic_len,
			   uint8_t **out, size_t *out_len)
{
	struct asn1_writer w;
	size_t i;

	asn1_writer_init(&w, mem_ctx);
	asn1_push_start(&w, ASN1_APPLICATION(0));
	asn1_push_prim(&w, ASN1_OID, spnego_oid_spnego,
		       sizeof(spnego_oid_spnego));
	asn1_push_start(&w, ASN1_CONTEXT(0));
	asn1_push_start(&w, ASN1_SEQUENCE);
	asn1_push_start(&w, ASN1_CONTEXT(0));
	asn1_push_start(&w, ASN1_SEQUENCE);
	for (i = 0; i < num_mechs; i++) {
		asn1_push_prim(&w, ASN1_OID, mechs[i].data, mechs[i].len);
	}
	asn1_push_end(&w);
	asn1_push_end(&w);
	if (token != NULL) {
		push_octets(&w, 2, token, token_len);
	}
	if (mic != NULL) {
		push_octets(&w, 3, mic, mic_len);
	}
	asn1_push_end(&w);
	asn1_push_end(&w);
	asn1_push_end(&w);
	return asn1_writer_finish(&w, out, out_len);
}
