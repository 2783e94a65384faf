/*
 * SESSION_SETUP and LOGOFF (MS-SMB2 2.2.5-2.2.8, 3.3.5.5, 3.3.5.6).
 *
 * A session is created by the first SESSION_SETUP with SessionId 0 and
 * stays IN_PROGRESS while the SPNEGO/NTLMSSP legs run (smbd/auth/gensec).
 * A SESSION_SETUP on a VALID session is a re-authentication: the session
 * keeps working with its old identity and keys until the new exchange
 * succeeds (3.3.5.5.3 keeps the signing key of the first authentication).
 * 3.1.1 hashes every SESSION_SETUP request and every non-final response
 * into the session's preauth hash, from which the keys are derived.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/objects/durable.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/conn/conn_limits.h"
#include "smbd/conn/auth_limit.h"
#include "smbd/conn/conn_log.h"
#include "smbd/objects/status.h"
#include "smbd/conn/session.h"
#include "smbd/objects/oplock.h"
#include "smbd/smbd.h"
#include "smbd/conn/smb2_transform.h"
#include "smbd/auth/auth_audit.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/passdb.h"
#include "smbd/smb2/user_map.h"
#include "conf/loadparm.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/clock.h"
#include "smbd/msg/mailbox.h"
#include "smbd/smb2/smb2_sesssetup_private.h"

#include <stdio.h>
#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

static int session_destructor(struct smbd_session *s)
{
	smbd_session_unlink(s);
	sesssetup_pam_close(s);
	if (s->state == SMBD_SESSION_VALID) {
		smbd_status_session(s, false);
		smbd_session_channel_status(s, s->conn, 0, false);
	}
	/* Every channel ends with it (3.3.5.6, 3.3.7.1). */
	while (s->channels != NULL) {
		talloc_free(s->channels);
	}
	explicit_bzero(s->session_key, sizeof(s->session_key));
	explicit_bzero(s->conn_key, sizeof(s->conn_key));
	explicit_bzero(&s->keys, sizeof(s->keys));
	return 0;
}

/* Whether conn may start another session: bounded in all, and in
 * logons still in progress (each holds an NTLMSSP state; a client that
 * sends NEGOTIATEs and never finishes them would pile them up). */
static NTSTATUS session_may_start(const struct smbd_conn *conn)
{
	const struct smbd_session *s;
	unsigned pending = 0;

	if (conn->nsessions >= SMBD_MAX_SESSIONS) {
		return NT_STATUS_REQUEST_NOT_ACCEPTED;
	}
	for (s = conn->sessions; s != NULL; s = s->next) {
		if (s->state == SMBD_SESSION_IN_PROGRESS &&
		    ++pending >= SMBD_MAX_PENDING_SESSIONS) {
			return NT_STATUS_REQUEST_NOT_ACCEPTED;
		}
	}
	return NT_STATUS_OK;
}

struct smbd_session *smbd_session_new(struct smbd_conn *conn)
{
	struct smbd_worker *w = conn->worker;
	struct smb2_worker *sw = smb2_worker_of(w);
	struct smbd_session *s = talloc_zero(conn, struct smbd_session);
	unsigned tries;

	if (s == NULL) {
		return NULL;
	}
	s->conn = conn;
	/* Unique across workers and across worker restarts (a random
	 * epoch), never 0, and within 32 bits: smbtorture and some clients
	 * keep session ids in 32-bit variables, as Samba's ids allow.  The
	 * connection holds at most SMBD_MAX_SESSIONS of the 2^18 - 1
	 * sequence numbers, so a free one is found; the bound is there all
	 * the same. */
	if (sw->session_epoch == 0) {
		crypto_random(&sw->session_epoch, sizeof(sw->session_epoch));
		sw->session_epoch = (uint16_t)((sw->session_epoch & 0xff) | 1);
	}
	for (tries = 0; tries < 0x40000; tries++) {
		sw->session_seq = (sw->session_seq + 1) & 0x3ffff;
		s->id = ((uint64_t)sw->session_epoch << 24) |
			((uint64_t)(w->index & 0x3f) << 18) | sw->session_seq;
		if (sw->session_seq != 0 &&
		    smbd_session_find(conn, s->id) == NULL) {
			break;
		}
	}
	if (tries == 0x40000) {
		talloc_free(s);
		return NULL;
	}
	s->state = SMBD_SESSION_IN_PROGRESS;
	s->next_tid = 1;
	memcpy(s->preauth_hash, conn->preauth_hash, sizeof(s->preauth_hash));
	smbd_session_link(conn, s);
	talloc_set_destructor(s, session_destructor);
	return s;
}

/* Copy who logged on out of the gensec result (3.3.5.5.3). */
static NTSTATUS session_take_identity(struct smbd_session *s,
				      const struct auth_result *r)
{
	const struct auth_user_info *u = r->user;

	s->anonymous = r->anonymous;
	s->guest = r->guest;
	TALLOC_FREE(s->account_name);
	TALLOC_FREE(s->domain);
	TALLOC_FREE(s->unix_name);
	TALLOC_FREE(s->home);
	TALLOC_FREE(s->groups);
	TALLOC_FREE(s->sids);
	s->nsids = 0;
	if (u != NULL && u->nsids > 0 && !r->guest) {
		s->sids = talloc_memdup(s, u->sids,
					sizeof(*u->sids) * u->nsids);
		if (s->sids == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		s->nsids = u->nsids;
	}
	if (u != NULL) {
		s->account_name = talloc_strdup(s, u->account_name);
		s->domain = talloc_strdup(s, u->domain ? u->domain : "");
		s->unix_name = talloc_strdup(s, u->unix_name);
		/* [homes]: the home the logon's passwd entry gave, so no
		 * NSS call on the loop at TREE_CONNECT (a member's comes
		 * from winbindd, `template homedir` applied) */
		if (u->home_dir != NULL) {
			s->home = talloc_strdup(s, u->home_dir);
		}
		s->uid = u->uid;
		s->gid = u->gid;
		s->ngroups = u->ngroups;
		/* The user's array holds ngroups (auth_unix_user_info:
		 * exactly getgrouplist's count, or NULL); ours one more,
		 * zeroed, as the copies made from it (open.c, the notify
		 * walk) take ngroups + 1. */
		s->groups = talloc_zero_array(s, gid_t, u->ngroups + 1);
		if (s->groups != NULL && u->groups != NULL) {
			memcpy(s->groups, u->groups,
			       sizeof(gid_t) * u->ngroups);
		}
		if (s->account_name == NULL || s->unix_name == NULL ||
		    s->groups == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	} else {
		/* Anonymous work runs as the `guest account` (as Samba's
		 * anonymous token), never as the daemon's root. */
		const char *guest = lp_str(s->conn->worker->srv->lp,
					   LP_GLOBAL, LP_GUEST_ACCOUNT);
		struct auth_user_info *g;
		NTSTATUS st = auth_unix_user_info(s, guest, &g);

		if (!NT_STATUS_IS_OK(st)) {
			DBG_ERR("guest account '%s' for an anonymous logon: "
				"%s\n", guest, nt_errstr(st));
			return NT_STATUS_NO_SUCH_USER;
		}
		s->uid = g->uid;
		s->gid = g->gid;
		s->ngroups = g->ngroups;
		/* ngroups + 1, zeroed, as for a user above */
		s->groups = talloc_zero_array(s, gid_t, g->ngroups + 1);
		if (s->groups != NULL && g->groups != NULL) {
			memcpy(s->groups, g->groups,
			       sizeof(gid_t) * g->ngroups);
		}
		talloc_free(g);
		if (s->groups == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	return NT_STATUS_OK;
}

static void session_set_keys(struct smbd_session *s,
			     const struct auth_result *r, uint8_t sec_mode)
{
	struct smbd_conn *conn = s->conn;
	const struct lp_ctx *lp = conn->worker->srv->lp;

	/* Anonymous and guest sessions have no key worth signing with. */
	if (!r->has_session_key || r->anonymous || r->guest) {
		s->has_keys = false;
		s->signing_required = false;
		return;
	}
	memcpy(s->session_key, r->session_key, 16);
	/* 3.3.5.5.3: the AES-256 ciphers' keys come from the whole GSS key
	 * (a Kerberos AES256 subkey's 32 bytes), the rest from its first
	 * 16 */
	smb2_derive_keys_full(conn->dialect, s->session_key,
			      r->full_session_key, r->full_session_key_len,
			      s->preauth_hash, smb2_cipher_of(conn->cipher),
			      &s->keys);
	s->has_keys = true;
	s->sign_algo = (enum smb2_sign_algo)conn->signing_algo;
	memcpy(s->conn_key, s->keys.signing, 16);
	s->conn_algo = s->sign_algo;
	s->signing_required =
		(sec_mode & SMB2_NEGOTIATE_SIGNING_REQUIRED) != 0 ||
		lp_int(lp, LP_GLOBAL, LP_SERVER_SIGNING) == LP_SIGNING_MANDATORY;
	/* `server smb encrypt = required` (or desired, which we treat the
	 * same when the client can) makes the whole session encrypted. */
	if (conn->cipher != 0 || (conn->server_caps &
				  SMB2_GLOBAL_CAP_ENCRYPTION)) {
		int e = lp_int(lp, LP_GLOBAL, LP_SERVER_SMB_ENCRYPT);

		s->encrypt = e == LP_ENCRYPT_REQUIRED || e == LP_ENCRYPT_DESIRED;
	}
}

NTSTATUS smbd_session_establish(struct smbd_session *s,
				const struct auth_result *r, uint8_t sec_mode,
				bool reauth)
{
	NTSTATUS st = session_take_identity(s, r);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (!reauth) {
		session_set_keys(s, r, sec_mode);
	}
	if (!(s->encrypt && s->has_keys) && !s->anonymous && !s->guest &&
	    lp_int(s->conn->worker->srv->lp, LP_GLOBAL,
		   LP_SERVER_SMB_ENCRYPT) == LP_ENCRYPT_REQUIRED) {
		/* The client cannot encrypt but we must (3.3.5.5.3). */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (s->state != SMBD_SESSION_VALID) {
		s->since = clock_nttime();
	}
	s->state = SMBD_SESSION_VALID;
	smbd_conn_logged_on(s->conn);
	/* `log file = log.%m`: as Samba, the machine is the workstation
	 * the logon named from now on. */
	smbd_conn_log_machine(s->conn, r->client_workstation);
	smbd_status_session(s, true);
	smbd_session_channel_status(s, s->conn, s->since, true);
	return NT_STATUS_OK;
}


/* Samba's "Authorization" event for a session now set up. */
static void sesssetup_authz(const struct smbd_session *s,
			    const struct auth_result *r)
{
	struct auth_audit_where w;
	struct auth_authz z = {
		.anonymous = s->anonymous,
		.account = s->account_name,
		.uid = s->uid,
		.acct_ctrl = r->user != NULL ? r->user->acct_ctrl : 0,
	};
	uint8_t g[16];
	char guid[40];
	char sid[AUTH_SID_STRING_MAX];

	if (log_class_level[LOG_CLASS_AUTH_AUDIT] < AUTH_AUDIT_AUTHZ_LEVEL &&
	    log_class_level[LOG_CLASS_AUTH_AUDIT_JSON] <
		    AUTH_AUDIT_AUTHZ_LEVEL) {
		return;
	}
	/* A random (version 4) GUID per logon, as Samba's session id. */
	crypto_random(g, sizeof(g));
	g[6] = (uint8_t)((g[6] & 0x0f) | 0x40);
	g[8] = (uint8_t)((g[8] & 0x3f) | 0x80);
	snprintf(guid, sizeof(guid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
	z.session_guid = guid;
	if (s->nsids > 0) {
		/* a domain user: as Samba's member logs it */
		z.domain = s->domain;
		z.sid = auth_sid_string(&s->sids[0], sid);
	}
	z.auth_type = gensec_is_krb5(s->gensec) ? "krb5" : NULL;
	sesssetup_where(s->conn, &w);
	auth_audit_authz_log(&z, &w);
}

/* After a successful exchange: identity, keys, signing of the reply. */
static NTSTATUS sesssetup_done(struct smb2_request *req,
			       struct smbd_session *s, uint8_t sec_mode,
			       uint16_t *flags)
{
	const struct auth_result *r = gensec_result(s->gensec);
	bool reauth = s->state == SMBD_SESSION_VALID;
	NTSTATUS st;

	if (r == NULL) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	if (reauth && s->account_name != NULL && r->user != NULL &&
	    strcasecmp(s->account_name, r->user->account_name) != 0) {
		/* 3.3.5.5.3: a re-authentication must be the same user. */
		return NT_STATUS_LOGON_FAILURE;
	}
	st = smbd_session_establish(s, r, sec_mode, reauth);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	sesssetup_authz(s, r);
	*flags = 0;
	if (s->anonymous) {
		*flags |= SMB2_SESSION_FLAG_IS_NULL;
	} else if (s->guest) {
		*flags |= SMB2_SESSION_FLAG_IS_GUEST;
	}
	if (s->encrypt && s->has_keys) {
		*flags |= SMB2_SESSION_FLAG_ENCRYPT_DATA;
	}
	/* 3.3.4.1.1: the final response is signed when the session signs,
	 * and always for 3.1.1 (it authenticates the preauth hash). */
	if (s->has_keys && (s->signing_required ||
			    req->conn->dialect == SMB2_DIALECT_0311 ||
			    (req->flags & SMB2_FLAGS_SIGNED))) {
		req->sign_reply = true;
	}
	DBG_INFO("%s: session %llx: %s%s%s logged on\n", req->conn->remote,
		 (unsigned long long)s->id,
		 s->anonymous ? "anonymous" : s->account_name,
		 s->guest ? " (guest)" : "", reauth ? " again" : "");
	return NT_STATUS_OK;
}

static void session_logoff_previous(struct smbd_worker *w, uint64_t id,
				    const char *account)
{
	/* The worker's index of sessions: a walk over the connections
	 * could meet the session first on one of its channels, whose
	 * connection holds none of its opens. */
	struct smbd_session *old = smbd_session_find_worker(w, id);

	if (old != NULL && old->account_name != NULL &&
	    strcasecmp(old->account_name, account) == 0) {
		DBG_INFO("%s: session %llx replaced by a reconnect\n",
			 old->conn->remote, (unsigned long long)id);
		smbd_durable_session_lost(old->conn, old);
		talloc_free(old);
	}
}

/* SMBD_MSG_SESSION_PREVIOUS: a session of this worker was replaced. */
struct session_previous_msg {
	uint64_t id;
	char account[64];	/* NUL-terminated (checked on receipt) */
};

static void session_msg_previous(void *priv, int from, const void *body,
				 int fd)
{
	struct session_previous_msg m;

	memcpy(&m, body, sizeof(m));
	if (memchr(m.account, '\0', sizeof(m.account)) != NULL) {
		session_logoff_previous(priv, m.id, m.account);
	}
}

void smbd_sesssetup_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_SESSION_PREVIOUS,
			    session_msg_previous,
			    sizeof(struct session_previous_msg), false);
}

/* 3.3.5.5.3 PreviousSessionId: the worker that holds session id logs it
 * off if account owns it (session_new: bits 18-23 of the id are the
 * index of the worker). */
static void session_previous(struct smbd_worker *w, uint64_t id,
			     const char *account)
{
	int to = (int)((id >> 18) & 0x3f);
	struct session_previous_msg m = {.id = id};

	if (to == w->index || w->srv->mbox == NULL) {
		session_logoff_previous(w, id, account);
		return;
	}
	if (strlen(account) >= sizeof(m.account)) {
		return;
	}
	memcpy(m.account, account, strlen(account) + 1);
	(void)smbd_mailbox_send(w->mbox, to, SMBD_MSG_SESSION_PREVIOUS, &m,
				sizeof(m), -1);
}


/*
 * The exchange is over: st is its verdict (after PAM's, when `obey pam
 * restrictions` asked it; audit is then PAM's finer reason for a refusal,
 * else NT_STATUS_OK), out the final leg's token (SPNEGO's accept-completed,
 * on the request's frame).
 */
static NTSTATUS sesssetup_finish(struct smb2_request *req,
				 struct smbd_session *s, NTSTATUS st,
				 NTSTATUS audit, const uint8_t *out,
				 size_t out_len)
{
	struct smbd_conn *conn = req->conn;
	struct sesssetup_args a;
	uint16_t out_flags = 0;

	sesssetup_args(req, &a);
	sesssetup_audit_refused(s, s->gensec, conn, audit);
	if (NT_STATUS_IS_OK(st)) {
		st = sesssetup_done(req, s, a.sec_mode, &out_flags);
	}
	TALLOC_FREE(s->gensec);
	if (!NT_STATUS_IS_OK(st)) {
		DBG_NOTICE("%s: session setup failed: %s\n", conn->remote,
			   nt_errstr(st));
		/* A failed (re)authentication ends the session (3.3.5.5). */
		req->session = NULL;
		talloc_free(s);
		/* answered after `smbd auth rate limiter delay` */
		return smbd_auth_limit_hold(req, st);
	}
	if (a.prev_id != 0 && a.prev_id != s->id && s->account_name != NULL) {
		/* 3.3.5.5.3: PreviousSessionId logs off the old session of
		 * the same user, on any connection: the session id names
		 * the worker that holds it (session_new). */
		session_previous(conn->worker, a.prev_id, s->account_name);
	}
	return sesssetup_reply(req, out_flags, out, out_len);
}

static NTSTATUS sesssetup_auth(struct smb2_request *req,
			       struct smbd_session *s);

/* security = ads: the leg's Kerberos or winbindd work, in the pool's
 * logon lane (smbd/auth/gensec.h: gensec_job_new). */
struct sesssetup_gensec_job {
	uint64_t session_id;
	struct gensec_job *job;
};

static void gensec_job_work(void *priv)
{
	struct sesssetup_gensec_job *sj = priv;

	gensec_job_run(sj->job);
}

static NTSTATUS gensec_job_finished(struct smb2_request *req, void *priv)
{
	struct sesssetup_gensec_job *sj = priv;
	struct smbd_session *s = smbd_session_find(req->conn, sj->session_id);

	if (s == NULL || s->gensec == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	req->session = s;
	gensec_job_take(s->gensec, sj->job);
	return sesssetup_auth(req, s);
}

/* One leg of the exchange, once what it needs is at hand. */
static NTSTATUS sesssetup_auth(struct smb2_request *req,
			       struct smbd_session *s)
{
	struct sesssetup_gensec_job *sj;
	struct gensec_job *j;
	struct sesssetup_args a;
	uint8_t *out = NULL;
	size_t out_len = 0;
	NTSTATUS st;

	sesssetup_args(req, &a);
	j = gensec_job_new(s->gensec, NULL, a.blob, a.len);
	if (j != NULL) {
		/* it blocks (keytab, replay cache, winbindd): not here */
		sj = talloc_zero(NULL, struct sesssetup_gensec_job);
		if (sj == NULL) {
			talloc_free(j);
			return NT_STATUS_NO_MEMORY;
		}
		sj->session_id = s->id;
		sj->job = talloc_steal(sj, j);
		return smb2_job_run_daemon(req, sj, gensec_job_work,
					   gensec_job_finished, NULL);
	}
	st = gensec_update(s->gensec, req->mem_ctx, a.blob, a.len, &out,
			   &out_len);
	if (st == NT_STATUS_MORE_PROCESSING_REQUIRED) {
		req->keep_body = true;
		(void)sesssetup_reply(req, 0, out, out_len);
		return st;
	}
	if (NT_STATUS_IS_OK(st)) {
		/* `obey pam restrictions`: PAM's account management (and
		 * session) in the pool first; it goes on in
		 * sesssetup_finish() */
		NTSTATUS p = sesssetup_pam_start(req, s, out, out_len,
						 sesssetup_finish);

		if (p == SMBD_STATUS_ASYNC) {
			return p;
		}
		st = p;
	}
	return sesssetup_finish(req, s, st, NT_STATUS_OK, out, out_len);
}

/* After `username map script` ran in the pool (smbd/smb2/user_map.c). */
static NTSTATUS sesssetup_resume(struct smb2_request *req)
{
	struct smbd_session *s = smbd_session_find(req->conn,
						   req->session_id);

	if (s == NULL || s->gensec == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	req->session = s;
	return sesssetup_auth(req, s);
}

NTSTATUS smb2_sesssetup(struct smb2_request *req)
{
	struct smbd_conn *conn = req->conn;
	struct smbd_session *s;
	struct auth_config *cfg;
	struct sesssetup_args a;
	NTSTATUS st;

	if (req->session_id != 0) {
		/* The leg with credentials: it may have to wait its turn
		 * (smbd/conn/auth_limit.h), then runs from here again. */
		st = smbd_auth_limit_wait(req, smb2_sesssetup);
		if (!NT_STATUS_IS_OK(st)) {
			return st;
		}
	}
	sesssetup_args(req, &a);
	if (a.flags & SMB2_SESSION_FLAG_BINDING) {
		return smbd_auth_limit_hold(req, sesssetup_bind(req, &a));
	}
	if (req->session_id == 0) {
		NTSTATUS may = session_may_start(conn);

		if (!NT_STATUS_IS_OK(may)) {
			DBG_NOTICE("%s: %u sessions, too many or too many "
				   "logons in progress: refused\n", conn->remote,
				   conn->nsessions);
			return may;
		}
		s = smbd_session_new(conn);
		if (s == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		req->session_id = s->id;
	} else {
		s = smbd_session_find(conn, req->session_id);
		if (s == NULL) {
			/* A session of another connection: the refusal is
			 * signed with its key, as the client that knows the
			 * session checks (smbtorture bind_negative_*). */
			s = smbd_session_find_worker(conn->worker,
						     req->session_id);
			if (s != NULL && s->has_keys) {
				req->session = s;
				req->sign_reply = true;
			}
			return NT_STATUS_USER_SESSION_DELETED;
		}
	}
	req->session = s;
	if (conn->dialect == SMB2_DIALECT_0311) {
		sesssetup_preauth(s, conn, req->in, req->in_len);
		req->after_reply = sesssetup_after_reply;
	}
	if (s->gensec == NULL) {
		cfg = sesssetup_auth_config(s, conn->worker->srv->lp);
		s->gensec = cfg ? gensec_new(s, cfg, sesssetup_lookup, s,
					     conn->remote_addr)
				: NULL;
		if (s->gensec == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		if (cfg->ads) {
			/* a member's NSS asks winbindd: passdb users'
			 * Unix side is looked up in the pool too */
			gensec_set_record_lookup(s->gensec,
						 sesssetup_lookup_record, s);
		}
	}
	st = smbd_user_map_prepare(req, s, a.blob, a.len, sesssetup_resume);
	if (!NT_STATUS_IS_OK(st)) {
		return st;	/* SMBD_STATUS_ASYNC: sesssetup_resume goes on */
	}
	return sesssetup_auth(req, s);
}

NTSTATUS smb2_logoff(struct smb2_request *req)
{
	struct smbd_session *s = req->session;

	DBG_INFO("%s: session %llx logs off\n", req->conn->remote,
		 (unsigned long long)s->id);
	/* The reply is still signed with the session's key: keep a copy
	 * of what signing needs before the session goes. */
	req->session = NULL;
	req->sign_after_free = s->has_keys &&
			       (s->signing_required ||
				(req->flags & SMB2_FLAGS_SIGNED));
	if (req->sign_after_free) {
		enum smb2_sign_algo algo;

		smbd_session_sign_key(s, req->conn, req->sign_key, &algo);
		req->sign_algo = algo;
	}
	/* Durable opens outlive a LOGOFF as a lost connection (Windows
	 * and Samba keep them for a reclaim: smb2.durable-open.reopen4). */
	smbd_durable_session_lost(req->conn, s);
	talloc_free(s);
	wire_push_le16(req->out, 4);
	wire_push_le16(req->out, 0);
	return NT_STATUS_OK;
}
