/*
 * Samba's authentication audit lines (Samba 4.17 auth/auth_log.c
 * behaviour, smb.conf(5) "log level" classes auth_audit and
 * auth_json_audit), one per NTLMSSP AUTHENTICATE whatever its outcome:
 *
 *   auth_audit       Auth: [SMB2,(null)] user [DOM]\[user] at [time] with
 *                    [NTLMv2] status [NT_STATUS_...] workstation [WS]
 *                    remote host [ipv4:a.b.c.d:port] became/mapped to
 *                    [...]. local host [ipv4:...]
 *   auth_json_audit  {"timestamp": ..., "type": "Authentication",
 *                    "Authentication": {...}} with Samba's keys
 *
 * at Samba's levels: failures 2, successes 3, anonymous logons 5; and,
 * once the session is set up, Samba's authorization event:
 *
 *   auth_audit       Successful AuthZ: [SMB2,NTLMSSP] user [DOM]\[user]
 *                    [SID] at [time] Remote host [...] local host [...]
 *   auth_json_audit  {"timestamp": ..., "type": "Authorization", ...}
 *
 * at level 4 (anonymous 5).
 * Client-supplied names are escaped (JSON: lib/json; the human line:
 * control characters as \xNN), so a user name cannot forge log lines.
 */
#ifndef SMBD_AUTH_AUTH_AUDIT_H
#define SMBD_AUTH_AUTH_AUDIT_H

#include "smbd/auth/auth.h"

/* Where the logon came in, as Samba writes addresses. */
struct auth_audit_where {
	const char *service;      /* "SMB2" */
	const char *local_addr;   /* numeric, "127.0.0.1" or "::1" */
	unsigned local_port;
	const char *remote_addr;
	unsigned remote_port;
	const char *became_domain; /* our NetBIOS name (the local SAM) */
};

/* Samba's levels of the audit lines. */
#define AUTH_AUDIT_FAILURE_LEVEL 2
#define AUTH_AUDIT_SUCCESS_LEVEL 3
#define AUTH_AUDIT_AUTHZ_LEVEL 4
#define AUTH_AUDIT_ANONYMOUS_LEVEL 5

/* A session that was set up: Samba's "Authorization" event. */
struct auth_authz {
	bool anonymous;
	const char *account;  /* the session's account */
	uid_t uid;            /* for the SID, as in struct auth_audit */
	uint32_t acct_ctrl;   /* passdb account flags (ACB_*) */
	const char *session_guid; /* "xxxxxxxx-xxxx-..." unique per logon */
	/* security = ads, a domain user: its domain, SID ("S-1-5-21-...")
	 * and how it logged on ("krb5"); NULL: the server's NetBIOS name,
	 * S-1-22-1-uid, "NTLMSSP" */
	const char *domain, *sid, *auth_type;
};

void auth_audit_authz_log(const struct auth_authz *z,
			  const struct auth_audit_where *w);
/* The JSON event and the human line (tests); NULL when out of memory. */
char *auth_audit_authz_json(TALLOC_CTX *mem_ctx, const struct auth_authz *z,
			    const struct auth_audit_where *w);
char *auth_audit_authz_text(TALLOC_CTX *mem_ctx, const struct auth_authz *z,
			    const struct auth_audit_where *w);

/* Log a's lines in the classes whose level asks for them. */
void auth_audit_log(const struct auth_audit *a,
		    const struct auth_audit_where *w);

/* The JSON event line (tests); NULL when out of memory. */
char *auth_audit_json(TALLOC_CTX *mem_ctx, const struct auth_audit *a,
		      const struct auth_audit_where *w);
/* The human line (tests). */
char *auth_audit_text(TALLOC_CTX *mem_ctx, const struct auth_audit *a,
		      const struct auth_audit_where *w);

#endif
