/*
 * PAM account and session management for `obey pam restrictions`
 * (design in auth_pam.h).  Blocking: pool threads only.
 */
#include "smbd/auth/auth_pam.h"

#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the modules said, kept for the log line (a bounded buffer: a
 * module that talks a lot is cut, never grows the worker). */
struct pam_talk {
	char *buf;
	size_t len;
	size_t used;
};

static void talk_add(struct pam_talk *t, const char *msg)
{
	int n;

	if (t->buf == NULL || t->len == 0 || msg == NULL || msg[0] == '\0' ||
	    t->used + 1 >= t->len) {
		return;
	}
	n = snprintf(t->buf + t->used, t->len - t->used, "%s%s",
		     t->used > 0 ? "; " : "", msg);
	if (n > 0) {
		t->used += (size_t)n;
		if (t->used >= t->len) {
			t->used = t->len - 1;
		}
	}
}

/*
 * The conversation: nobody is there to answer, so any prompt fails the
 * call (PAM_CONV_ERR, the module then fails); error and information
 * messages are kept for the log.  The reply array is the module's to
 * free (pam_conv(3)), so it is malloc'ed.
 */
static int pam_conv_refuse(int n, const struct pam_message **msg,
			   struct pam_response **resp, void *priv)
{
	struct pam_talk *t = priv;
	int i;

	*resp = NULL;
	if (n <= 0 || n > PAM_MAX_NUM_MSG) {
		return PAM_CONV_ERR;
	}
	for (i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			talk_add(t, msg[i]->msg);
			break;
		default:
			/* PAM_PROMPT_ECHO_ON/OFF, binary prompts */
			return PAM_CONV_ERR;
		}
	}
	*resp = calloc((size_t)n, sizeof(struct pam_response));
	return *resp != NULL ? PAM_SUCCESS : PAM_BUF_ERR;
}

NTSTATUS auth_pam_status(int pam_result)
{
	switch (pam_result) {
	case PAM_SUCCESS:
		return NT_STATUS_OK;
	case PAM_ACCT_EXPIRED:
		return NT_STATUS_ACCOUNT_EXPIRED;
	case PAM_NEW_AUTHTOK_REQD:
		return NT_STATUS_PASSWORD_MUST_CHANGE;
	case PAM_AUTHTOK_EXPIRED:
	case PAM_CRED_EXPIRED:
		return NT_STATUS_PASSWORD_EXPIRED;
	case PAM_PERM_DENIED:
		return NT_STATUS_ACCESS_DENIED;
	case PAM_AUTH_ERR:
		return NT_STATUS_WRONG_PASSWORD;
	case PAM_USER_UNKNOWN:
		return NT_STATUS_NO_SUCH_USER;
	case PAM_MAXTRIES:
		/* pam_faillock / pam_tally: too many failures */
		return NT_STATUS_ACCOUNT_LOCKED_OUT;
	case PAM_AUTHINFO_UNAVAIL:
	case PAM_CRED_UNAVAIL:
	case PAM_CRED_INSUFFICIENT:
		return NT_STATUS_LOGON_FAILURE;
	default:
		/* the stack itself failed: a module missing, a system error,
		 * a prompt nobody could answer */
		return NT_STATUS_UNSUCCESSFUL;
	}
}

NTSTATUS auth_pam_client_status(NTSTATUS finer)
{
	if (finer == NT_STATUS_NO_SUCH_USER ||
	    finer == NT_STATUS_WRONG_PASSWORD) {
		return NT_STATUS_LOGON_FAILURE;
	}
	return finer;
}

static int pam_begin(const struct auth_pam_req *r, struct pam_talk *t,
		     const struct pam_conv *conv, pam_handle_t **h)
{
	int rc;

	*h = NULL;
	if (r->confdir != NULL) {
#ifdef HAVE_PAM_START_CONFDIR
		rc = pam_start_confdir(r->service, r->user, conv, r->confdir,
				       h);
#else
		talk_add(t, "no pam_start_confdir in this libpam");
		return PAM_SYSTEM_ERR;
#endif
	} else {
		rc = pam_start(r->service, r->user, conv, h);
	}
	if (rc != PAM_SUCCESS) {
		talk_add(t, "pam_start failed");
		return rc;
	}
	if (r->rhost != NULL) {
		rc = pam_set_item(*h, PAM_RHOST, r->rhost);
	}
	if (rc == PAM_SUCCESS && r->tty != NULL) {
		rc = pam_set_item(*h, PAM_TTY, r->tty);
	}
	return rc;
}

static void pam_finish(pam_handle_t *h, int rc, struct pam_talk *t)
{
	if (h == NULL) {
		return;
	}
	if (rc != PAM_SUCCESS) {
		/* pam_strerror needs the handle: before pam_end */
		talk_add(t, pam_strerror(h, rc));
	}
	(void)pam_end(h, rc);
}

static void talk_init(struct pam_talk *t, char *why, size_t why_len)
{
	*t = (struct pam_talk){.buf = why, .len = why_len};
	if (why != NULL && why_len > 0) {
		why[0] = '\0';
	}
}

NTSTATUS auth_pam_account(const struct auth_pam_req *r, char *why,
			  size_t why_len)
{
	struct pam_talk t;
	struct pam_conv conv = {.conv = pam_conv_refuse, .appdata_ptr = &t};
	pam_handle_t *h;
	int rc;

	talk_init(&t, why, why_len);
	rc = pam_begin(r, &t, &conv, &h);
	if (rc == PAM_SUCCESS) {
		rc = pam_acct_mgmt(h, 0);
	}
	pam_finish(h, rc, &t);
	return auth_pam_status(rc);
}

NTSTATUS auth_pam_session(const struct auth_pam_req *r, bool open, char *why,
			  size_t why_len)
{
	struct pam_talk t;
	struct pam_conv conv = {.conv = pam_conv_refuse, .appdata_ptr = &t};
	pam_handle_t *h;
	int rc;

	talk_init(&t, why, why_len);
	rc = pam_begin(r, &t, &conv, &h);
	if (rc == PAM_SUCCESS) {
		rc = open ? pam_open_session(h, 0) : pam_close_session(h, 0);
	}
	pam_finish(h, rc, &t);
	return auth_pam_status(rc);
}
