/*
 * `obey pam restrictions` at SESSION_SETUP (smbd/auth/auth_pam.h has the
 * design): once NTLM has accepted a passdb user, PAM's account
 * management runs in the worker's pool (as root, off the loop), and for
 * a new session (not a re-authentication, MS-SMB2 3.3.5.5.3) PAM's
 * session is opened there too; the exchange then finishes on the loop
 * with PAM's verdict.  The session's end closes the PAM session, in the
 * pool, with no request waiting.  Guest and anonymous logons never reach
 * PAM, as in Samba (its session claim skips them, and its PAM account
 * check is part of the passdb password check).
 */
#include "smbd/smb2/smb2_sesssetup_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "smbd/auth/auth.h"
#include "smbd/auth/auth_pam.h"
#include "smbd/auth/gensec.h"
#include "conf/loadparm.h"
#include "lib/log.h"

#include <stdio.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

/* What a session needs to close its PAM session (auth_pam_session). */
struct sesssetup_pam {
	char *user;
	char *rhost;
	char *tty;
};

struct pam_job {
	struct smbd_worker *w;
	uint64_t session_id;
	bool open_session;
	struct sesssetup_pam who;
	sesssetup_pam_resume_fn resume;
	const uint8_t *token;	/* the final leg's, on the request's frame */
	size_t token_len;
	/* out */
	NTSTATUS account;
	NTSTATUS session;
	bool opened;
	char why[256];
};

static struct auth_pam_req pam_req(const struct sesssetup_pam *who,
				   const char *tty)
{
	return (struct auth_pam_req){
		.service = AUTH_PAM_SERVICE,
		.user = who->user,
		.rhost = who->rhost,
		.tty = tty,
	};
}

/* Pool thread, as root. */
static void pam_job_run(void *priv)
{
	struct pam_job *j = priv;
	struct auth_pam_req r = pam_req(&j->who, AUTH_PAM_ACCOUNT_TTY);

	j->account = auth_pam_account(&r, j->why, sizeof(j->why));
	if (!NT_STATUS_IS_OK(j->account) || !j->open_session) {
		return;
	}
	r = pam_req(&j->who, j->who.tty);
	j->session = auth_pam_session(&r, true, j->why, sizeof(j->why));
	j->opened = NT_STATUS_IS_OK(j->session);
}

static void pam_close_run(void *priv)
{
	struct sesssetup_pam *who = priv;
	struct auth_pam_req r = pam_req(who, who->tty);
	char why[256];
	NTSTATUS st = auth_pam_session(&r, false, why, sizeof(why));

	if (!NT_STATUS_IS_OK(st)) {
		/* lib/log may be used from a pool thread */
		DBG_NOTICE("PAM session %s of [%s] did not close: %s (%s)\n",
			   who->tty, who->user, nt_errstr(st), why);
	}
}

/* A PAM session opened for nobody any more (its connection or session
 * went while the job ran) is closed. */
static void pam_close_later(struct smbd_worker *w, struct sesssetup_pam *who)
{
	struct sesssetup_pam *c = talloc_zero(NULL, struct sesssetup_pam);

	if (c == NULL) {
		return;
	}
	c->user = talloc_strdup(c, who->user);
	c->rhost = talloc_strdup(c, who->rhost);
	c->tty = talloc_strdup(c, who->tty);
	if (c->user == NULL || c->rhost == NULL || c->tty == NULL) {
		talloc_free(c);
		return;
	}
	(void)smbd_job_detached(w, c, pam_close_run);
}

static void pam_job_orphan(void *priv)
{
	struct pam_job *j = priv;

	if (j->opened) {
		pam_close_later(j->w, &j->who);
	}
}

static NTSTATUS pam_job_done(struct smb2_request *req, void *priv)
{
	struct pam_job *j = priv;
	struct smbd_session *s = smbd_session_find(req->conn, j->session_id);
	NTSTATUS client;

	if (s == NULL || s->gensec == NULL) {
		pam_job_orphan(j);
		return NT_STATUS_USER_SESSION_DELETED;
	}
	req->session = s;
	if (!NT_STATUS_IS_OK(j->account)) {
		client = auth_pam_client_status(j->account);
		DBG_WARNING("%s: PAM account check of [%s] refused the logon: "
			   "%s (%s), answered %s\n", req->conn->remote,
			   j->who.user, nt_errstr(j->account), j->why,
			   nt_errstr(client));
		return j->resume(req, s, client, j->account, j->token,
				 j->token_len);
	}
	if (j->open_session && !j->opened) {
		/* As Samba: a session PAM will not open is no logon. */
		DBG_WARNING("%s: PAM session for [%s] refused: %s (%s)\n",
			   req->conn->remote, j->who.user,
			   nt_errstr(j->session), j->why);
		return j->resume(req, s, NT_STATUS_LOGON_FAILURE,
				 NT_STATUS_OK, j->token, j->token_len);
	}
	if (j->opened) {
		TALLOC_FREE(s->pam);
		s->pam = talloc_zero(s, struct sesssetup_pam);
		if (s->pam == NULL) {
			pam_close_later(j->w, &j->who);
			return j->resume(req, s, NT_STATUS_NO_MEMORY,
					 NT_STATUS_OK, j->token,
					 j->token_len);
		}
		s->pam->user = talloc_steal(s->pam, j->who.user);
		s->pam->rhost = talloc_steal(s->pam, j->who.rhost);
		s->pam->tty = talloc_steal(s->pam, j->who.tty);
	}
	return j->resume(req, s, NT_STATUS_OK, NT_STATUS_OK, j->token,
			 j->token_len);
}

NTSTATUS sesssetup_pam_start(struct smb2_request *req,
			     struct smbd_session *s, const uint8_t *out,
			     size_t out_len, sesssetup_pam_resume_fn resume)
{
	const struct auth_result *r = gensec_result(s->gensec);
	struct smbd_conn *conn = req->conn;
	struct pam_job *j;

	if (!lp_bool(conn->worker->srv->lp, LP_GLOBAL,
		     LP_OBEY_PAM_RESTRICTIONS) ||
	    r == NULL || r->user == NULL || r->anonymous || r->guest ||
	    r->user->unix_name == NULL) {
		return NT_STATUS_OK;
	}
	j = talloc_zero(NULL, struct pam_job);
	if (j == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	j->w = conn->worker;
	j->session_id = s->id;
	j->resume = resume;
	j->token = out;
	j->token_len = out_len;
	/* 3.3.5.5.3: a re-authentication keeps its session (and the PAM
	 * session opened with it) */
	j->open_session = s->state != SMBD_SESSION_VALID;
	j->who.user = talloc_strdup(j, r->user->unix_name);
	j->who.rhost = talloc_strdup(j, conn->remote_addr);
	j->who.tty = talloc_asprintf(j, "smb/%llu",
				     (unsigned long long)s->id);
	if (j->who.user == NULL || j->who.rhost == NULL ||
	    j->who.tty == NULL) {
		talloc_free(j);
		return NT_STATUS_NO_MEMORY;
	}
	return smb2_job_run_daemon(req, j, pam_job_run, pam_job_done,
				   pam_job_orphan);
}

void sesssetup_pam_close(struct smbd_session *s)
{
	if (s->pam == NULL) {
		return;
	}
	pam_close_later(s->conn->worker, s->pam);
	TALLOC_FREE(s->pam);
}
