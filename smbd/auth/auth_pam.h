/*
 * `obey pam restrictions` (issue 34 item 8): PAM account and session
 * management for the logons of passdb users, as Samba 4.17 does.
 *
 * With encrypted passwords (NTLM: all our logons) PAM cannot check the
 * password: it never sees one, only a challenge response.  So, as in
 * Samba (smb.conf(5), `obey pam restrictions`), PAM is asked only once
 * NTLM has said yes:
 *
 * - account management (pam_acct_mgmt) for every logon and
 *   re-authentication: an expired account, a password that must be
 *   changed, pam_access or pam_time rules refuse the logon.  PAM_RHOST is
 *   the client's numeric address and PAM_TTY "samba", as Samba sets them
 *   (measured with pam_exec);
 * - session management (pam_open_session when a session is set up,
 *   pam_close_session when it ends), PAM_TTY "smb/<session id>": a
 *   refused open refuses the logon.
 *
 * Service name "samba" (Debian's samba-common ships /etc/pam.d/samba,
 * which includes common-account and common-session-noninteractive).
 * Each call is one PAM transaction of its own (pam_start ... pam_end), so
 * no PAM handle lives between the open and the close of a session, as in
 * Samba.  There is no one to answer a prompt: the conversation function
 * refuses every prompt and keeps the modules' messages for the log.
 *
 * These calls block (a module may read /etc/shadow, ask LDAP, run a
 * program): they run in a worker's pool thread as root, never on the
 * event loop.  Linux-PAM handles are per thread and the modules of the
 * Debian stack (pam_unix, pam_deny, pam_permit, pam_access, pam_time)
 * are reentrant through pam_modutil.  Unlike Samba's smbd, which forks a
 * process per client, a worker serves many users in one process: session
 * modules that change the calling process itself (pam_systemd moving it
 * into a user's scope, pam_limits, pam_umask, pam_loginuid) must not be
 * in the samba service's session stack (man/smb.conf.5 says so).
 */
#ifndef SMBD_AUTH_AUTH_PAM_H
#define SMBD_AUTH_AUTH_PAM_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/ntstatus.h"

/* The PAM service, as Samba's. */
#define AUTH_PAM_SERVICE "samba"
/* PAM_TTY of the account check, as Samba's. */
#define AUTH_PAM_ACCOUNT_TTY "samba"

struct auth_pam_req {
	const char *service;	/* AUTH_PAM_SERVICE */
	const char *confdir;	/* NULL: the system's (/etc/pam.d); else a
				 * directory of one's own (unit tests) */
	const char *user;	/* the Unix user */
	const char *rhost;	/* the client's numeric address */
	const char *tty;	/* PAM_TTY */
};

/*
 * pam_acct_mgmt for r->user.  NT_STATUS_OK when PAM lets the account in;
 * else the status of auth_pam_status() (Samba's finer reason, for the
 * log and the auth audit line).  why (why_len bytes, may be NULL) gets
 * PAM's words: its error text and what the modules said.
 */
NTSTATUS auth_pam_account(const struct auth_pam_req *r, char *why,
			  size_t why_len);
/* pam_open_session (open) or pam_close_session for r->user with
 * r->tty; the same statuses. */
NTSTATUS auth_pam_session(const struct auth_pam_req *r, bool open, char *why,
			  size_t why_len);

/*
 * A PAM result as an NTSTATUS (MS-ERREF 2.3): what the failure means for
 * a Windows logon (PAM_ACCT_EXPIRED: ACCOUNT_EXPIRED, PAM_NEW_AUTHTOK_REQD:
 * PASSWORD_MUST_CHANGE, PAM_PERM_DENIED: ACCESS_DENIED, PAM_AUTH_ERR:
 * WRONG_PASSWORD, ...), the mapping Samba's log shows.
 */
NTSTATUS auth_pam_status(int pam_result);
/*
 * What the client is told: NO_SUCH_USER and WRONG_PASSWORD become
 * LOGON_FAILURE (MS-NLMP 3.2.5.1.2: the client never learns whether the
 * account exists), the others as they are.  Measured on Samba 4.17 with
 * Debian's stack: an expired account (pam_unix's ACCT_EXPIRED, which
 * common-account turns into pam_deny's AUTH_ERR) is LOGON_FAILURE, a
 * password to change (`chage -d 0`) PASSWORD_MUST_CHANGE, a pam_access
 * refusal ACCESS_DENIED.
 */
NTSTATUS auth_pam_client_status(NTSTATUS finer);

#endif
