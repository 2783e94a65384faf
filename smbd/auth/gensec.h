/*
 * The authentication state machine SMB2 SESSION_SETUP drives: SPNEGO
 * (RFC 4178, MS-SPNG) wrapping NTLMSSP (MS-NLMP), or raw NTLMSSP when a
 * client sends that without the SPNEGO wrapper.
 *
 * One struct gensec per authentication (a fresh one for each
 * SESSION_SETUP sequence, including re-authentication); every allocation
 * is a talloc child of it, so freeing it ends everything.  cfg must
 * outlive it.  Usage:
 *
 *	g = gensec_new(session, cfg, passdb_auth_lookup, pdb, "10.0.0.5");
 *	status = gensec_update(g, req, in, in_len, &out, &out_len);
 *	MORE_PROCESSING_REQUIRED: send out, feed the next request's buffer
 *	OK: send out (may be non-empty: the final SPNEGO token), then
 *	    gensec_result(g) says who logged on and holds the session key
 *	anything else: logon failed (LOGON_FAILURE, ACCOUNT_DISABLED,
 *	    INVALID_PARAMETER for malformed tokens); out is empty
 *
 * The NEGOTIATE response's security buffer comes from
 * spnego_negotiate_hint() (spnego.h).  The result's session_key is the
 * NTLMSSP ExportedSessionKey, what SMB2 derives its signing keys from;
 * has_session_key is false for anonymous and guest logons.
 */
#ifndef SMBD_AUTH_GENSEC_H
#define SMBD_AUTH_GENSEC_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"

struct gensec;

/* remote_addr is only used in log lines ("10.0.0.5" or "[fe80::1]"). */
struct gensec *gensec_new(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			  auth_lookup_fn lookup, void *priv,
			  const char *remote_addr);

/* *out is allocated on mem_ctx (NULL/0 when there is nothing to send). */
NTSTATUS gensec_update(struct gensec *g, TALLOC_CTX *mem_ctx,
		       const uint8_t *in, size_t in_len, uint8_t **out,
		       size_t *out_len);

/*
 * The user name the next gensec_update(g, in) will authenticate, when in
 * carries the NTLMSSP AUTHENTICATE (raw or in a negTokenResp); NULL
 * otherwise.  Nothing in g changes.
 */
char *gensec_peek_user(const struct gensec *g, TALLOC_CTX *mem_ctx,
		       const uint8_t *in, size_t in_len);

/* NULL until gensec_update() returned NT_STATUS_OK. */
const struct auth_result *gensec_result(const struct gensec *g);

/* The audit record of the logon's AUTHENTICATE (success or failure);
 * NULL when none was processed (a malformed token, a NEGOTIATE only). */
const struct auth_audit *gensec_audit(const struct gensec *g);

/* Tests and fuzzers: fix the NTLMSSP challenge and timestamp. */
void gensec_fix_challenge(struct gensec *g, const uint8_t challenge[8],
			  uint64_t timestamp);

#endif
