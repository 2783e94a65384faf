/*
 * SESSION_SETUP with SMB2_SESSION_FLAG_BINDING (MS-SMB2 3.3.5.5.2): a
 * further connection (channel) joins a session set up on another one,
 * with an NTLMSSP exchange of its own that must name the same user;
 * Channel.SigningKey comes from that exchange's key and the channel's
 * preauth hash (3.3.5.5.3).  A session's channels all live on the worker
 * that set it up: a connection naming a session of another worker moves
 * there first (smbd/conn/conn_handover.c) and the request runs again.
 */
#include "smbd/smb2/smb2_sesssetup_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/conn_limits.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_signing.h"
#include "smbd/conn/smb2_transform.h"
#include "smbd/smbd.h"
#include "smbd/auth/gensec.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <string.h>
#include <strings.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/*
 * 3.3.5.5: what a binding must match, in the order Samba checks it
 * (smbtorture's bind_negative tests pin the status of each case).  The
 * signature is checked after these (sesssetup_bind), as Samba does.
 */
static NTSTATUS sessbind_check(const struct smb2_request *req,
			       const struct smbd_session *s)
{
	const struct smbd_conn *conn = req->conn, *first = s->conn;
	enum smb2_sign_algo algo = (enum smb2_sign_algo)conn->signing_algo;

	/* A session signing with AES-GMAC binds only channels that do the
	 * same (3.3.5.5.2), and a GMAC channel only such sessions. */
	if (s->sign_algo >= SMB2_SIGN_AES_GMAC && algo != s->sign_algo) {
		return NT_STATUS_REQUEST_OUT_OF_SEQUENCE;
	}
	if (algo >= SMB2_SIGN_AES_GMAC && s->sign_algo != algo) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (conn->dialect < SMB2_DIALECT_0300 ||
	    !lp_bool(conn->worker->srv->lp, LP_GLOBAL,
		     LP_SERVER_MULTI_CHANNEL_SUPPORT)) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (!(req->flags & SMB2_FLAGS_SIGNED) ||
	    first->dialect != conn->dialect || first->cipher != conn->cipher) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (s->state != SMBD_SESSION_VALID) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (s->anonymous || s->guest || !s->has_keys) {
		/* nothing to sign the channel with */
		return NT_STATUS_NOT_SUPPORTED;
	}
	return NT_STATUS_OK;
}

/*
 * 3.3.5.2.4: a binding request is signed with Session.SigningKey, under
 * the algorithm that key signs with: the session's, whatever this
 * connection negotiated (Samba's and Windows' clients sign so, and Samba
 * accepts nothing else).  Without it nothing of the binding goes on: the
 * NTLMSSP exchange alone proves only the password, not that the client
 * holds the session (issue 34 item 3: a forged signature was let through
 * whenever the connection's algorithm differed from the session's).
 */
static bool sessbind_signed(const struct smb2_request *req,
			    const struct smbd_session *s)
{
	if (!(req->flags & SMB2_FLAGS_SIGNED) || !s->has_keys) {
		return false;
	}
	return smb2_check_signature(s->sign_algo, s->keys.signing, req->in,
				    req->in_len);
}

/* The binding authenticated: the same user, and the channel's key from
 * this authentication's session key (3.3.5.5.3). */
static NTSTATUS sessbind_done(struct smb2_request *req,
			      struct smbd_session *s, struct smbd_channel *ch)
{
	const struct auth_result *r = gensec_result(ch->gensec);
	struct smbd_conn *conn = req->conn;
	struct smb2_keys k;

	if (r == NULL) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	if (r->anonymous || r->guest || r->user == NULL ||
	    s->account_name == NULL ||
	    strcasecmp(r->user->account_name, s->account_name) != 0 ||
	    (r->user->domain != NULL && s->domain != NULL &&
	     strcasecmp(r->user->domain, s->domain) != 0)) {
		/* 3.3.5.5.3: a channel is the session's user's only */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (!r->has_session_key) {
		return NT_STATUS_NOT_SUPPORTED;	/* 3.3.5.2.4 */
	}
	smb2_derive_keys(conn->dialect, r->session_key, ch->preauth_hash,
			 smb2_cipher_of(conn->cipher), &k);
	memcpy(ch->signing_key, k.signing, 16);
	explicit_bzero(&k, sizeof(k));
	ch->sign_algo = (enum smb2_sign_algo)conn->signing_algo;
	ch->bound = true;
	ch->since = clock_nttime();
	smbd_conn_logged_on(conn);
	smbd_session_channel_status(s, conn, ch->since, true);
	/* the reply is signed with the channel's new key (3.3.5.5.3) */
	req->sign_reply = true;
	DBG_NOTICE("%s: bound to session %llx of %s (%u channels)\n",
		   conn->remote, (unsigned long long)s->id, s->conn->remote,
		   s->nchannels + 1);
	return NT_STATUS_OK;
}

static NTSTATUS sessbind_auth(struct smb2_request *req,
			      struct smbd_session *s, struct smbd_channel *ch,
			      const struct sesssetup_args *a);

/* security = ads: a leg's Kerberos or winbindd work in the pool's logon
 * lane, as for a logon (smb2_sesssetup.c). */
struct sessbind_job {
	uint64_t session_id;
	struct gensec_job *job;
};

static void sessbind_job_work(void *priv)
{
	struct sessbind_job *sj = priv;

	gensec_job_run(sj->job);
}

static NTSTATUS sessbind_job_finished(struct smb2_request *req, void *priv)
{
	struct sessbind_job *sj = priv;
	struct smbd_session *s = smbd_session_find_worker(req->conn->worker,
							  sj->session_id);
	struct smbd_channel *ch = s != NULL ? smbd_channel_find(s, req->conn)
					    : NULL;
	struct sesssetup_args a;

	if (ch == NULL || ch->bound || ch->gensec == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	req->session = s;
	gensec_job_take(ch->gensec, sj->job);
	sesssetup_args(req, &a);
	return sessbind_auth(req, s, ch, &a);
}

/* One leg of a binding's authentication on channel ch. */
static NTSTATUS sessbind_auth(struct smb2_request *req,
			      struct smbd_session *s, struct smbd_channel *ch,
			      const struct sesssetup_args *a)
{
	uint8_t *out = NULL;
	size_t out_len = 0;
	uint16_t flags = 0;
	struct gensec_job *j;
	NTSTATUS st;

	if (ch->gensec == NULL) {
		struct auth_config *cfg = sesssetup_auth_config(
			ch, req->conn->worker->srv->lp);

		ch->gensec = cfg ? gensec_new(ch, cfg, sesssetup_lookup, s,
					      req->conn->remote_addr)
				 : NULL;
		if (ch->gensec == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		if (cfg->ads) {
			gensec_set_record_lookup(ch->gensec,
						 sesssetup_lookup_record, s);
		}
	}
	j = gensec_job_new(ch->gensec, NULL, a->blob, a->len);
	if (j != NULL) {
		struct sessbind_job *sj = talloc_zero(NULL,
						      struct sessbind_job);

		if (sj == NULL) {
			talloc_free(j);
			return NT_STATUS_NO_MEMORY;
		}
		sj->session_id = s->id;
		sj->job = talloc_steal(sj, j);
		return smb2_job_run_daemon(req, sj, sessbind_job_work,
					   sessbind_job_finished, NULL);
	}
	st = gensec_update(ch->gensec, req->mem_ctx, a->blob, a->len, &out,
			   &out_len);
	if (st == NT_STATUS_MORE_PROCESSING_REQUIRED) {
		req->keep_body = true;
		(void)sesssetup_reply(req, 0, out, out_len);
		return st;
	}
	/* the binding's logon is logged as any other (Samba does too) */
	sesssetup_audit(s, ch->gensec, req->conn);
	if (NT_STATUS_IS_OK(st)) {
		st = sessbind_done(req, s, ch);
	}
	TALLOC_FREE(ch->gensec);
	if (!NT_STATUS_IS_OK(st)) {
		DBG_NOTICE("%s: binding to session %llx failed: %s\n",
			   req->conn->remote, (unsigned long long)s->id,
			   nt_errstr(st));
		talloc_free(ch);	/* the session goes on without it */
		return st;
	}
	if (s->encrypt) {
		flags |= SMB2_SESSION_FLAG_ENCRYPT_DATA;
	}
	return sesssetup_reply(req, flags, out, out_len);
}

/*
 * SESSION_SETUP with SMB2_SESSION_FLAG_BINDING (3.3.5.5.2): this
 * connection joins a session set up on another one.  All channels of a
 * session live on the worker that set it up; a connection that names a
 * session of another worker, and holds nothing yet, moves there first
 * (smbd_conn_hand_over) and the request runs again on arrival.
 */
NTSTATUS sesssetup_bind(struct smb2_request *req,
			const struct sesssetup_args *a)
{
	struct smbd_conn *conn = req->conn;
	struct smbd_worker *w = conn->worker;
	struct smbd_session *s;
	struct smbd_channel *ch;
	bool signed_ok;
	NTSTATUS st;

	if (req->session_id == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s = smbd_session_find_worker(w, req->session_id);
	if (s == NULL) {
		int owner = (int)((req->session_id >> 18) & 0x3f);

		if (owner != w->index && owner < w->srv->nworkers &&
		    conn->nsessions == 0 && conn->channels == NULL &&
		    smbd_conn_hand_over(req, owner)) {
			return NT_STATUS_OK;	/* answered over there */
		}
		return owner != w->index && owner < w->srv->nworkers
			       ? NT_STATUS_REQUEST_NOT_ACCEPTED
			       : NT_STATUS_USER_SESSION_DELETED;
	}
	/* Errors too are signed with the session's key, so the client can
	 * tell them from a forgery (3.3.4.1.1); but only the answers to a
	 * request that was signed with that key: nobody else gets a
	 * message signed with it.  (On a channel bound already the
	 * dispatcher checked the channel's signature.) */
	signed_ok = req->signed_in || sessbind_signed(req, s);
	if (signed_ok) {
		req->session = s;
		req->sign_reply = true;
	}
	if (s->conn == conn) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;	/* bound already */
	}
	st = sessbind_check(req, s);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	ch = smbd_channel_find(s, conn);
	if (!signed_ok) {
		/* As if there were no such session, as Samba answers: the
		 * client has not shown that it holds it.  A binding begun
		 * on this connection ends here. */
		DBG_NOTICE("%s: binding to session %llx: bad signature\n",
			   conn->remote, (unsigned long long)s->id);
		if (ch != NULL && !ch->bound) {
			talloc_free(ch);
		}
		return NT_STATUS_USER_SESSION_DELETED;
	}
	if (ch != NULL && ch->bound) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	if (ch == NULL) {
		if (s->nchannels + 1 >= SMBD_MAX_CHANNELS) {
			return NT_STATUS_INSUFFICIENT_RESOURCES;
		}
		ch = smbd_channel_new(s, conn);
		if (ch == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (conn->dialect == SMB2_DIALECT_0311) {
		sesssetup_preauth(s, conn, req->in, req->in_len);
		req->after_reply = sesssetup_after_reply;
	}
	return sessbind_auth(req, s, ch, a);
}
