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
 *
 * security = ads adds (gensec.h): a negTokenInit led by Kerberos with its
 * AP-REQ, one leg (RFC 4178 3.2: the optimistic token is the first
 * mechanism's, and it completes the context), and the winbindd check of
 * a domain user's AUTHENTICATE, fed to ntlmssp.c as its verdict.  Both
 * are the jobs of gensec_job_new(), whose work runs off the loop.
 */
#include "smbd/auth/gensec.h"
#include "smbd/auth/kerberos.h"
#include "smbd/auth/ntlmssp.h"
#include "smbd/auth/passdb.h"
#include "smbd/auth/spnego.h"
#include "smbd/auth/winbind.h"
#include "lib/log.h"
#include <string.h>
#include <strings.h>

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
	const struct auth_config *cfg;
	struct ntlmssp_server *ntlmssp;
	char *remote_addr;
	uint8_t *mech_list; /* DER of the client's MechTypeList */
	size_t mech_list_len;
	bool mic_required;
	struct gensec_job *job; /* taken for the next leg */
	/* gensec_set_record_lookup() */
	auth_lookup_fn record;
	void *record_priv;
	/* A Kerberos logon's outcome (NTLMSSP keeps its own). */
	bool krb5;
	struct auth_result krb5_result;
};

enum gensec_job_kind {
	GENSEC_JOB_KRB5,
	GENSEC_JOB_NTLM,
};

struct gensec_job {
	enum gensec_job_kind kind;
	struct auth_config *cfg;
	char *remote_addr;
	uint8_t *in; /* the leg's input, to match it with the update */
	size_t in_len;
	/* Kerberos: the AP-REQ and what the MICs need */
	struct spnego_blob token, mech_list, client_mic;
	bool want_mic;
	struct auth_krb5_result *krb5;
	/* NTLM: the AUTHENTICATE's fields */
	struct ntlmssp_peek peek;
	bool local; /* not the domain's: passdb checks it after all */
	uint8_t base_key[16];
	/* a passdb user: its record read on the loop, its Unix side here
	 * (gensec_set_record_lookup) */
	bool looked_up;
	NTSTATUS lookup_status;
	struct auth_user_info *record;
	struct auth_user_info *lookup_info;
	/* both */
	NTSTATUS status;
	struct auth_user_info *user;
};

struct gensec *gensec_new(TALLOC_CTX *mem_ctx, const struct auth_config *cfg,
			  auth_lookup_fn lookup, void *priv,
			  const char *remote_addr)
{
	struct gensec *g = talloc_zero(mem_ctx, struct gensec);

	if (g == NULL) {
		return NULL;
	}
	g->cfg = cfg;
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

/* ---- the blocking part of a leg (security = ads) ----------------------- */

static int job_destructor(struct gensec_job *j)
{
	explicit_bzero(j->base_key, sizeof(j->base_key));
	return 0;
}

static struct gensec_job *job_alloc(struct gensec *g, TALLOC_CTX *mem_ctx,
				    enum gensec_job_kind kind,
				    const uint8_t *in, size_t in_len)
{
	struct gensec_job *j = talloc_zero(mem_ctx, struct gensec_job);

	if (j == NULL) {
		return NULL;
	}
	talloc_set_destructor(j, job_destructor);
	j->kind = kind;
	j->cfg = auth_config_copy(j, g->cfg);
	j->remote_addr = talloc_strdup(j, g->remote_addr);
	j->in = talloc_memdup(j, in, in_len);
	j->in_len = in_len;
	j->status = NT_STATUS_INTERNAL_ERROR;
	if (j->cfg == NULL || j->remote_addr == NULL || j->in == NULL) {
		talloc_free(j);
		return NULL;
	}
	return j;
}

/* A blob of j's copy of the input, at the same place as b is in in. */
static struct spnego_blob job_blob(const struct gensec_job *j,
				   const uint8_t *in,
				   const struct spnego_blob *b)
{
	struct spnego_blob r = {NULL, 0};

	if (b->data != NULL) {
		r.data = j->in + (b->data - in);
		r.len = b->len;
	}
	return r;
}

/* The negTokenInit of a Kerberos logon (the first mechanism is krb5 and
 * its AP-REQ is there), or false. */
static bool is_krb5_init(const struct gensec *g, const uint8_t *in,
			 size_t in_len, struct spnego_token *tok)
{
	return g->cfg->ads && g->state == GENSEC_START && in_len >= 8 &&
	       memcmp(in, "NTLMSSP", 8) != 0 &&
	       NT_STATUS_IS_OK(spnego_parse(in, in_len, tok)) &&
	       tok->type == SPNEGO_NEG_TOKEN_INIT && tok->num_mechs > 0 &&
	       spnego_is_krb5(&tok->mechs[0]) && tok->mech_token.data != NULL;
}

/* The AUTHENTICATE a leg carries (raw or in a negTokenResp), if any. */
static bool leg_authenticate(const struct gensec *g, const uint8_t *in,
			     size_t in_len, const uint8_t **msg,
			     size_t *msg_len)
{
	struct spnego_token tok;

	if (g->state == GENSEC_RAW) {
		*msg = in;
		*msg_len = in_len;
		return true;
	}
	if (g->state != GENSEC_WANT_AUTH ||
	    !NT_STATUS_IS_OK(spnego_parse(in, in_len, &tok)) ||
	    tok.type != SPNEGO_NEG_TOKEN_RESP || tok.mech_token.data == NULL) {
		return false;
	}
	*msg = tok.mech_token.data;
	*msg_len = tok.mech_token.len;
	return true;
}

/* Would NTLMSSP refuse this response as malformed before checking it
 * (neither NTLMv1's 24 bytes nor an NTLMv2 response)?  Then nobody is
 * asked.  `ntlm auth` is not looked at here: it is about passdb users
 * only, and a domain's users are checked under the domain's policy
 * (smb.conf(5), as Samba's member forwards them). */
static bool ntlm_refused_early(const struct auth_config *cfg,
			       const struct ntlmssp_peek *p)
{
	if (p->nt_len == 24) {
		return false;
	}
	return p->nt_len < 48 || p->nt[16] != 1 || p->nt[17] != 1;
}

struct gensec_job *gensec_job_new(struct gensec *g, TALLOC_CTX *mem_ctx,
				  const uint8_t *in, size_t in_len)
{
	struct spnego_token tok;
	struct ntlmssp_peek peek;
	struct gensec_job *j;
	const uint8_t *msg;
	size_t msg_len;
	TALLOC_CTX *tmp;

	if (!g->cfg->ads || in == NULL || in_len == 0 || g->job != NULL) {
		return NULL;
	}
	if (is_krb5_init(g, in, in_len, &tok)) {
		j = job_alloc(g, mem_ctx, GENSEC_JOB_KRB5, in, in_len);
		if (j == NULL) {
			return NULL;
		}
		j->token = job_blob(j, in, &tok.mech_token);
		j->mech_list = job_blob(j, in, &tok.mech_list_der);
		j->client_mic = job_blob(j, in, &tok.mech_list_mic);
		/* RFC 4178 5: a client that sent its MIC gets ours */
		j->want_mic = tok.mech_list_mic.data != NULL;
		return j;
	}
	if (!leg_authenticate(g, in, in_len, &msg, &msg_len)) {
		return NULL;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL ||
	    !ntlmssp_server_peek_auth(g->ntlmssp, tmp, msg, msg_len, &peek) ||
	    ntlm_refused_early(g->cfg, &peek) ||
	    /* this server's own users are passdb's: a job only when it
	     * may look them up */
	    (strcasecmp(peek.domain, g->cfg->netbios_name) == 0 &&
	     g->record == NULL)) {
		talloc_free(tmp);
		return NULL;
	}
	j = job_alloc(g, mem_ctx, GENSEC_JOB_NTLM, in, in_len);
	if (j != NULL) {
		j->peek = peek;
		(void)talloc_steal(j, peek.user);
		(void)talloc_steal(j, peek.domain);
		(void)talloc_steal(j, peek.workstation);
		(void)talloc_steal(j, peek.nt);
		(void)talloc_steal(j, peek.lm);
		j->local = strcasecmp(peek.domain, g->cfg->netbios_name) == 0;
		if (g->record != NULL) {
			/* the record now (a local tdb read), in case the
			 * domain turns out not to be one (job_run_ntlm) */
			j->lookup_status = g->record(g->record_priv, j,
						     peek.user, peek.domain,
						     &j->record);
		}
	}
	talloc_free(tmp);
	return j;
}

void gensec_set_record_lookup(struct gensec *g, auth_lookup_fn record,
			      void *priv)
{
	g->record = record;
	g->record_priv = priv;
}

/* Pool thread: a passdb user's Unix side, as the auth_lookup_fn would
 * have found it (passdb_auth_lookup). */
static void job_lookup_local(struct gensec_job *j)
{
	j->looked_up = true;
	if (!NT_STATUS_IS_OK(j->lookup_status)) {
		return; /* the record's own status (NO_SUCH_USER) */
	}
	j->lookup_status = passdb_auth_unix(j, j->record, &j->lookup_info);
}

/* Pool thread: a Kerberos ticket, then the user's ids. */
static void job_run_krb5(struct gensec_job *j)
{
	const struct pac_logon_info *li;

	j->status = auth_krb5_accept(j, j->cfg, j->token.data, j->token.len,
				     j->mech_list.data, j->mech_list.len,
				     j->client_mic.data, j->client_mic.len,
				     j->want_mic, &j->krb5);
	if (!NT_STATUS_IS_OK(j->status)) {
		return;
	}
	li = j->krb5->logon_info;
	if (li == NULL) {
		/* An AD DC always puts one in.  Samba 4.17's member refuses
		 * such a ticket of its own realm the same way ("Unable to
		 * find PAC in ticket"); it maps one of a foreign realm by
		 * name, which is not done here. */
		DBG_NOTICE("Kerberos logon of %s from %s refused: the ticket "
			   "has no PAC\n", j->krb5->principal,
			   j->remote_addr);
		j->status = NT_STATUS_NO_IMPERSONATION_TOKEN;
		return;
	}
	if (!j->cfg->allow_trusted_domains &&
	    strcasecmp(li->logon_domain, j->cfg->workgroup) != 0) {
		DBG_NOTICE("Kerberos logon of %s (domain %s) from %s refused: "
			   "allow trusted domains = no\n", j->krb5->principal,
			   li->logon_domain, j->remote_addr);
		j->status = NT_STATUS_LOGON_FAILURE;
		return;
	}
	j->status = winbind_user_from_sids(j, li->account_name,
					   li->logon_domain, j->krb5->sids,
					   j->krb5->nsids, &j->user);
	if (!NT_STATUS_IS_OK(j->status)) {
		DBG_NOTICE("Kerberos logon of %s from %s: no Unix user: %s\n",
			   j->krb5->principal, j->remote_addr,
			   nt_errstr(j->status));
	}
}

/* Pool thread: winbindd checks a domain user's NTLM response. */
static void job_run_ntlm(struct gensec_job *j)
{
	struct winbind_ntlm_req r = {
		.user = j->peek.user,
		.domain = j->peek.domain,
		.workstation = j->peek.workstation,
		.nt = j->peek.nt,
		.nt_len = j->peek.nt_len,
		.lm = j->peek.lm,
		.lm_len = j->peek.lm_len,
	};

	/* As Samba 4.17: the member's domain and those winbindd knows
	 * (when trusted ones are allowed) are the domain's to check;
	 * any other name is this server's own users' (passdb). */
	if (!j->local &&
	    strcasecmp(j->peek.domain, j->cfg->workgroup) != 0 &&
	    (!j->cfg->allow_trusted_domains || j->peek.domain[0] == '\0' ||
	     !winbind_domain_known(j->peek.domain))) {
		j->local = true;
	}
	if (j->local) {
		j->status = NT_STATUS_OK;
		if (j->record != NULL ||
		    j->lookup_status == NT_STATUS_NO_SUCH_USER) {
			job_lookup_local(j);
		}
		return;
	}
	memcpy(r.challenge, j->peek.challenge, 8);
	j->status = winbind_ntlm_auth(j, &r, &j->user, j->base_key);
}

void gensec_job_run(struct gensec_job *j)
{
	if (j->kind == GENSEC_JOB_KRB5) {
		job_run_krb5(j);
	} else {
		job_run_ntlm(j);
	}
}

void gensec_job_take(struct gensec *g, struct gensec_job *j)
{
	TALLOC_FREE(g->job);
	g->job = talloc_steal(g, j);
}

/* The job for this leg: the one taken if it was made for this input,
 * else one run here and now; NULL when the leg needs none. */
static struct gensec_job *leg_job(struct gensec *g, const uint8_t *in,
				  size_t in_len)
{
	struct gensec_job *j = g->job;

	if (j != NULL) {
		g->job = NULL;
		if (j->in_len == in_len && memcmp(j->in, in, in_len) == 0) {
			return j;
		}
		talloc_free(j);
	}
	j = gensec_job_new(g, g, in, in_len);
	if (j != NULL) {
		gensec_job_run(j);
	}
	return j;
}

/* The Kerberos leg: one negTokenResp that completes the logon. */
static NTSTATUS krb5_spnego(struct gensec *g, TALLOC_CTX *mem_ctx,
			    const uint8_t *in, size_t in_len,
			    struct gensec_job *j, uint8_t **out,
			    size_t *out_len)
{
	struct spnego_token tok;
	struct auth_result *r = &g->krb5_result;
	NTSTATUS st;

	if (!NT_STATUS_IS_OK(j->status)) {
		return j->status;
	}
	if (!NT_STATUS_IS_OK(spnego_parse(in, in_len, &tok))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* supportedMech: the client's own OID for it, as Samba answers */
	st = spnego_build_resp_mech(mem_ctx, SPNEGO_ACCEPT_COMPLETED,
				    &tok.mechs[0], j->krb5->reply,
				    j->krb5->reply_len, j->krb5->mic,
				    j->krb5->mic_len, out, out_len);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	memset(r, 0, sizeof(*r));
	r->user = talloc_steal(g, j->user);
	memcpy(r->session_key, j->krb5->session_key, 16);
	r->has_session_key = true;
	memcpy(r->full_session_key, j->krb5->full_session_key,
	       j->krb5->full_session_key_len);
	r->full_session_key_len = j->krb5->full_session_key_len;
	r->client_user = talloc_strdup(g, r->user->account_name);
	r->client_domain = talloc_strdup(g, r->user->domain);
	if (r->client_user == NULL || r->client_domain == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	g->krb5 = true;
	DBG_INFO("Kerberos logon of %s from %s as %s (uid %u)\n",
		 j->krb5->principal, g->remote_addr, r->user->unix_name,
		 (unsigned)r->user->uid);
	return NT_STATUS_OK;
}

/* Before an AUTHENTICATE goes to NTLMSSP: the domain's verdict, if it
 * was the domain's to give. */
static void ntlm_verdict(struct gensec *g, const uint8_t *in, size_t in_len)
{
	struct gensec_job *j = leg_job(g, in, in_len);

	if (j == NULL) {
		return;
	}
	if (j->kind == GENSEC_JOB_NTLM && !j->local) {
		ntlmssp_server_set_verdict(g->ntlmssp, j->status, j->user,
					   j->base_key);
	} else if (j->kind == GENSEC_JOB_NTLM && j->looked_up) {
		ntlmssp_server_set_lookup(g->ntlmssp, j->lookup_status,
					  j->lookup_info);
	}
	talloc_free(j);
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
	struct spnego_token tok;
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
			status = spnego_negotiate_hint(mem_ctx, g->cfg->ads, out,
						       out_len);
			return NT_STATUS_IS_OK(status)
				       ? NT_STATUS_MORE_PROCESSING_REQUIRED
				       : status;
		}
		if (in_len >= 8 && memcmp(in, "NTLMSSP", 8) == 0) {
			g->state = GENSEC_RAW;
			status = ntlmssp_server_update(g->ntlmssp, mem_ctx, in,
						       in_len, out, out_len);
		} else if (is_krb5_init(g, in, in_len, &tok)) {
			struct gensec_job *j = leg_job(g, in, in_len);

			status = j == NULL ? NT_STATUS_NO_MEMORY
					   : krb5_spnego(g, mem_ctx, in, in_len,
							 j, out, out_len);
			talloc_free(j);
		} else {
			status = start_spnego(g, mem_ctx, in, in_len, out,
					      out_len);
		}
		break;
	case GENSEC_RAW:
		ntlm_verdict(g, in, in_len);
		status = ntlmssp_server_update(g->ntlmssp, mem_ctx, in, in_len,
					       out, out_len);
		break;
	case GENSEC_WANT_NEGOTIATE:
	case GENSEC_WANT_AUTH:
		if (g->state == GENSEC_WANT_AUTH) {
			ntlm_verdict(g, in, in_len);
		}
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
	/* A Kerberos logon's authentication is the KDC's event, as
	 * Samba's member logs none either (only the authorization). */
	return g->krb5 ? NULL : ntlmssp_server_audit(g->ntlmssp);
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
	if (g->state != GENSEC_DONE) {
		return NULL;
	}
	return g->krb5 ? &g->krb5_result : ntlmssp_server_result(g->ntlmssp);
}

bool gensec_is_krb5(const struct gensec *g)
{
	return g != NULL && g->krb5;
}
