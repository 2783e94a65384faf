/*
 * SPNEGO over NTLMSSP, server side: see gensec.h for the calling protocol.
 *
 * Legs (RFC 4178 3.2, MS-SPNG 3.3.5):
 *   1. negTokenInit with NTLMSSP first and its NEGOTIATE as mechToken:
 *      answer accept-incomplete, supportedMech NTLMSSP, the CHALLENGE.
 *      NTLMSSP offered but not first (or no mechToken): answer
 *      accept-incomplete + supportedMech only; the client then sends the
 *      NEGOTIATE in a negTokenResp, and because we did not take its
 *      preferred mechanism both sides MUST send a mechListMIC (RFC 4178 5).
 *   2. negTokenResp with the AUTHENTICATE (and normally a mechListMIC):
 *      verify the client's MIC over the DER of its mechTypes with the
 *      NTLMSSP client-to-server keys (sequence 0), answer accept-completed
 *      with our MIC made with the server-to-client keys.
 * An empty first buffer gets the negTokenInit2 hint, as from NEGOTIATE.
 * Raw NTLMSSP (no SPNEGO) is passed straight to ntlmssp.c.
 */
#include "smbd/auth/gensec.h"
#include "smbd/auth/ntlmssp.h"
#include "smbd/auth/spnego.h"
#include "lib/log.h"
#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

enum gensec_state {
	GENSEC_START,
	GENSEC_RAW,
	GENSEC_WANT_NEGOTIATE,
	GENSEC_WANT_AUTH,
	GENSEC_DONE,
	GENSEC_FAILED,
};

struct gensec {
	enum gensec_state state;
	struct ntlmssp_server *ntlmssp;
	char *remote_addr;
	uint8_t *mech_list; /* DER of the client's MechTypeList */
	size_t mech_list_len;
	bool mic_required;
};

struct gensec *gensec_new(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			  auth_lookup_fn lookup, void *priv,
			  const char *remote_addr)
{
	struct gensec *g = talloc_zero(mem_ctx, struct gensec);

	if (g == NULL) {
		return NULL;
	}
	g->remote_addr =
		talloc_strdup(g, remote_addr != NULL ? remote_addr : "?");
	g->ntlmssp = ntlmssp_server_new(g, cfg, lookup, priv, remote_addr);
	if (g->remote_addr == NULL || g->ntlmssp == NULL) {
		talloc_free(g);
		return NULL;
	}
	g->state = GENSEC_START;
	return g;
}

void gensec_fix_challenge(struct gensec *g, const uint8_t challenge[8],
			  uint64_t timestamp)
{
	ntlmssp_server_fix_challenge(g->ntlmssp, challenge, timestamp);
}

static NTSTATUS start_spnego(struct gensec *g, TALLOC_CTX *mem_ctx,
			     const uint8_t *in, size_t in_len, uint8_t **out,
			     size_t *out_len)
{
	struct spnego_token tok;
	uint8_t *chal = NULL;
	size_t chal_len = 0, i;
	NTSTATUS status;

	status = spnego_parse(in, in_len, &tok);
	if (!NT_STATUS_IS_OK(status) || tok.type != SPNEGO_NEG_TOKEN_INIT) {
		DBG_NOTICE("malformed SPNEGO negTokenInit from %s\n",
			   g->remote_addr);
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < tok.num_mechs; i++) {
		if (spnego_is_ntlmssp(&tok.mechs[i])) {
			break;
		}
	}
	if (i == tok.num_mechs) {
		DBG_NOTICE("client %s offers no NTLMSSP in SPNEGO\n",
			   g->remote_addr);
		return NT_STATUS_LOGON_FAILURE;
	}
	g->mech_list = talloc_memdup(g, tok.mech_list_der.data,
				     tok.mech_list_der.len);
	if (g->mech_list == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	g->mech_list_len = tok.mech_list_der.len;
	if (i == 0 && tok.mech_token.data != NULL) {
		/* The optimistic token is ours: it is the NEGOTIATE. */
		status = ntlmssp_server_update(g->ntlmssp, g,
					       tok.mech_token.data,
					       tok.mech_token.len, &chal,
					       &chal_len);
		if (status != NT_STATUS_MORE_PROCESSING_REQUIRED) {
			return status;
		}
		g->state = GENSEC_WANT_AUTH;
	} else {
		/* RFC 4178 5: not the preferred mech, so MICs are due. */
		g->mic_required = (i != 0);
		g->state = GENSEC_WANT_NEGOTIATE;
	}
	status = spnego_build_resp(mem_ctx, SPNEGO_ACCEPT_INCOMPLETE, true,
				   chal, chal_len, NULL, 0, out, out_len);
	TALLOC_FREE(chal);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return NT_STATUS_MORE_PROCESSING_REQUIRED;
}

/* RFC 4178 5 / MS-SPNG 3.3.5.1: the mechListMIC exchange. */
static NTSTATUS finish_spnego(struct gensec *g, TALLOC_CTX *mem_ctx,
			      const struct spnego_token *tok, uint8_t **out,
			      size_t *out_len)
{
	const struct auth_result *res = ntlmssp_server_result(g->ntlmssp);
	uint8_t mic[16];
	bool send_mic = false;
	NTSTATUS status;

	if (res->anonymous || res->guest ||
	    !ntlmssp_server_can_sign(g->ntlmssp)) {
		/* No shared key: nothing to verify or sign with. */
		if (g->mic_required && !res->anonymous && !res->guest) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	} else if (tok->mech_list_mic.data != NULL) {
		status = ntlmssp_server_check_sig(
			g->ntlmssp, 0, g->mech_list, g->mech_list_len,
			tok->mech_list_mic.data, tok->mech_list_mic.len);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_NOTICE("SPNEGO mechListMIC from %s is wrong\n",
				   g->remote_addr);
			return NT_STATUS_INVALID_PARAMETER;
		}
		send_mic = true;
	} else if (g->mic_required) {
		DBG_NOTICE("SPNEGO mechListMIC missing from %s\n",
			   g->remote_addr);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (send_mic) {
		status = ntlmssp_server_sign(g->ntlmssp, 0, g->mech_list,
					     g->mech_list_len, mic);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return spnego_build_resp(mem_ctx, SPNEGO_ACCEPT_COMPLETED, false, NULL,
				 0, send_mic ? mic : NULL, sizeof(mic), out,
				 out_len);
}

static NTSTATUS continue_spnego(struct gensec *g, TALLOC_CTX *mem_ctx,
				const uint8_t *in, size_t in_len,
				uint8_t **out, size_t *out_len)
{
	struct spnego_token tok;
	uint8_t *chal = NULL;
	size_t chal_len = 0;
	NTSTATUS status;

	status = spnego_parse(in, in_len, &tok);
	if (!NT_STATUS_IS_OK(status) || tok.type != SPNEGO_NEG_TOKEN_RESP ||
	    tok.mech_token.data == NULL ||
	    (tok.supported_mech.data != NULL &&
	     !spnego_is_ntlmssp(&tok.supported_mech))) {
		DBG_NOTICE("malformed SPNEGO negTokenResp from %s\n",
			   g->remote_addr);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (tok.neg_state == SPNEGO_REJECT) {
		return NT_STATUS_LOGON_FAILURE;
	}
	status = ntlmssp_server_update(g->ntlmssp, g, tok.mech_token.data,
				       tok.mech_token.len, &chal, &chal_len);
	if (g->state == GENSEC_WANT_NEGOTIATE) {
		if (status != NT_STATUS_MORE_PROCESSING_REQUIRED) {
			return status;
		}
		status = spnego_build_resp(mem_ctx, SPNEGO_ACCEPT_INCOMPLETE,
					   false, chal, chal_len, NULL, 0, out,
					   out_len);
		TALLOC_FREE(chal);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		g->state = GENSEC_WANT_AUTH;
		return NT_STATUS_MORE_PROCESSING_REQUIRED;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status == NT_STATUS_MORE_PROCESSING_REQUIRED
			       ? NT_STATUS_INVALID_PARAMETER
			       : status;
	}
	status = finish_spnego(g, mem_ctx, &tok, out, out_len);
	if (NT_STATUS_IS_OK(status)) {
		g->state = GENSEC_DONE;
	}
	return status;
}

NTSTATUS gensec_update(struct gensec *g, TALLOC_CTX *mem_ctx,
		       const uint8_t *in, size_t in_len, uint8_t **out,
		       size_t *out_len)
{
	NTSTATUS status;

	*out = NULL;
	*out_len = 0;
	if (in == NULL) {
		in_len = 0;
	}
	switch (g->state) {
	case GENSEC_START:
		if (in_len == 0) {
			/* The client wants our mechanism list first. */
			status = spnego_negotiate_hint(mem_ctx, out, out_len);
			return NT_STATUS_IS_OK(status)
				       ? NT_STATUS_MORE_PROCESSING_REQUIRED
				       : status;
		}
		if (in_len >= 8 && memcmp(in, "NTLMSSP", 8) == 0) {
			g->state = GENSEC_RAW;
			status = ntlmssp_server_update(g->ntlmssp, mem_ctx, in,
						       in_len, out, out_len);
		} else {
			status = start_spnego(g, mem_ctx, in, in_len, out,
					      out_len);
		}
		break;
	case GENSEC_RAW:
		status = ntlmssp_server_update(g->ntlmssp, mem_ctx, in, in_len,
					       out, out_len);
		break;
	case GENSEC_WANT_NEGOTIATE:
	case GENSEC_WANT_AUTH:
		status = continue_spnego(g, mem_ctx, in, in_len, out, out_len);
		break;
	default:
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status)) {
		g->state = GENSEC_DONE;
	} else if (status != NT_STATUS_MORE_PROCESSING_REQUIRED) {
		g->state = GENSEC_FAILED;
		TALLOC_FREE(*out);
		*out_len = 0;
	}
	return status;
}

const struct auth_audit *gensec_audit(const struct gensec *g)
{
	return ntlmssp_server_audit(g->ntlmssp);
}

char *gensec_peek_user(const struct gensec *g, TALLOC_CTX *mem_ctx,
		       const uint8_t *in, size_t in_len)
{
	struct spnego_token tok;

	if (in == NULL || in_len == 0) {
		return NULL;
	}
	if (g->state == GENSEC_RAW) {
		return ntlmssp_server_peek_user(g->ntlmssp, mem_ctx, in, in_len);
	}
	if (g->state != GENSEC_WANT_AUTH ||
	    !NT_STATUS_IS_OK(spnego_parse(in, in_len, &tok)) ||
	    tok.type != SPNEGO_NEG_TOKEN_RESP || tok.mech_token.data == NULL) {
		return NULL;
	}
	return ntlmssp_server_peek_user(g->ntlmssp, mem_ctx, tok.mech_token.data,
					tok.mech_token.len);
}

const struct auth_result *gensec_result(const struct gensec *g)
{
	return g->state == GENSEC_DONE ? ntlmssp_server_result(g->ntlmssp)
				       : NULL;
}
