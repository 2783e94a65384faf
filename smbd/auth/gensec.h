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
 *
 * With cfg->ads (security = ads) a negTokenInit whose first mechanism
 * is Kerberos (either OID) and carries its AP-REQ is accepted in one leg
 * (kerberos.h): accept-completed, supportedMech the client's OID, the
 * AP-REP as responseToken, as Samba answers; the user's SIDs come from
 * the PAC and the ids from winbindd.  NTLM logons of users of the
 * member's domain (or of one winbindd knows as trusted, with `allow
 * trusted domains`) are checked by winbindd; others (this server's
 * NetBIOS name, unknown domains) against passdb, as Samba 4.17 does.
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

/* The logon was Kerberos (not NTLMSSP). */
bool gensec_is_krb5(const struct gensec *g);

/* NULL until gensec_update() returned NT_STATUS_OK. */
const struct auth_result *gensec_result(const struct gensec *g);

/* The audit record of the logon's AUTHENTICATE (success or failure);
 * NULL when none was processed (a malformed token, a NEGOTIATE only). */
const struct auth_audit *gensec_audit(const struct gensec *g);

/*
 * security = ads: the part of a leg that blocks, taken off the loop.
 * Before gensec_update(g, in), gensec_job_new(g, in) says whether that
 * leg needs one: a Kerberos AP-REQ (the keytab, the replay cache, then
 * winbindd for the user's ids) or the AUTHENTICATE of a domain user
 * (winbindd, which asks the DC).  The job holds copies of all it needs
 * and nothing of g, so it may run in another thread and outlive g:
 *
 *	j = gensec_job_new(g, NULL, in, in_len);
 *	if (j != NULL) {
 *		(in the pool)  gensec_job_run(j);
 *		(on g's thread) gensec_job_take(g, j);
 *	}
 *	status = gensec_update(g, mem_ctx, in, in_len, &out, &out_len);
 *
 * gensec_update() uses the job taken for that input; for a leg that
 * needs one and has none it runs one itself (tests, fuzzers).  NULL: the
 * leg needs nothing of the kind (or out of memory, which the update then
 * meets again).
 */
struct gensec_job;

/*
 * Let jobs finish the lookup of this server's own users (passdb) too, so
 * that no NSS call (on a domain member nss_winbind asks winbindd) is
 * made on the loop: record(priv, ...) is an auth_lookup_fn that reads
 * only the passdb record (passdb_auth_record, on the caller's thread);
 * the job adds the Unix side (passdb_auth_unix).  Without it, as without
 * security = ads, passdb users are looked up whole through the
 * auth_lookup_fn of gensec_new().
 */
void gensec_set_record_lookup(struct gensec *g, auth_lookup_fn record,
			      void *priv);

struct gensec_job *gensec_job_new(struct gensec *g, TALLOC_CTX *mem_ctx,
				  const uint8_t *in, size_t in_len);
void gensec_job_run(struct gensec_job *j);
/* j becomes g's (talloc_steal). */
void gensec_job_take(struct gensec *g, struct gensec_job *j);

/* Tests and fuzzers: fix the NTLMSSP challenge and timestamp. */
void gensec_fix_challenge(struct gensec *g, const uint8_t challenge[8],
			  uint64_t timestamp);

#endif
