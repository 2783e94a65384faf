/*
 * Authentication audit lines: see auth_audit.h.  The JSON keys and their
 * order are those of Samba 4.17's "Authentication" event (checked against
 * its output by testsuite/integration/test_auth_audit.py); the netlogon
 * fields are fixed (we have no NETLOGON), as Samba writes them for an SMB
 * logon.
 */
#include "smbd/auth/auth_audit.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "lib/json.h"
#include "lib/log.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH_AUDIT

/* Windows' event ids (Samba's EVT_ID_SUCCESSFUL_LOGON / _UNSUCCESSFUL_) */
#define EVT_ID_SUCCESSFUL_LOGON 4624
#define EVT_ID_UNSUCCESSFUL_LOGON 4625
#define EVT_LOGON_NETWORK 3

/* Client names are logged up to this many bytes each: an NTLMSSP
 * message may carry names of kilobytes, a log line should not. */
#define AUDIT_NAME_MAX 256

static const char *clip(TALLOC_CTX *mem_ctx, const char *s)
{
	if (s == NULL || strlen(s) <= AUDIT_NAME_MAX) {
		return s;
	}
	return talloc_strndup(mem_ctx, s, AUDIT_NAME_MAX);
}

static int audit_level(const struct auth_audit *a)
{
	if (!NT_STATUS_IS_OK(a->status)) {
		return AUTH_AUDIT_FAILURE_LEVEL;
	}
	return a->anonymous ? AUTH_AUDIT_ANONYMOUS_LEVEL
			    : AUTH_AUDIT_SUCCESS_LEVEL;
}

/* "ipv4:127.0.0.1:445", "ipv6:::1:445" (Samba's tsocket strings). */
static char *addr_str(TALLOC_CTX *mem_ctx, const char *addr, unsigned port)
{
	if (addr == NULL || addr[0] == '\0') {
		return NULL;
	}
	return talloc_asprintf(mem_ctx, "%s:%s:%u",
			       strchr(addr, ':') != NULL ? "ipv6" : "ipv4",
			       addr, port);
}

/* "2026-12-04T02:52:03.349869+0000", Samba's JSON timestamp. */
static char *json_time(TALLOC_CTX *mem_ctx)
{
	struct timeval tv;
	struct tm tm;
	char ts[64], zone[8];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	return talloc_asprintf(mem_ctx, "%s.%06ld%s", ts, (long)tv.tv_usec,
			       zone);
}

/* "Fri, 04 Dec 2026 02:52:03.346304 UTC", Samba's human-line time. */
static char *text_time(TALLOC_CTX *mem_ctx)
{
	struct timeval tv;
	struct tm tm;
	char ts[64], zone[16];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%a, %d %b %Y %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%Z", &tm);
	return talloc_asprintf(mem_ctx, "%s.%06ld %s", ts, (long)tv.tv_usec,
			       zone);
}

/* Our session SID: the Unix-user SID S-1-22-1-uid our NT ACL checks use
 * (smbd/objects/ntacl.c), where Samba shows the account's domain SID and RID. */
static char *uid_sid(TALLOC_CTX *mem_ctx, uid_t uid)
{
	return talloc_asprintf(mem_ctx, "S-1-22-1-%u", (unsigned)uid);
}

static char *became_sid(TALLOC_CTX *mem_ctx, const struct auth_audit *a)
{
	if (!NT_STATUS_IS_OK(a->status) || a->became_user == NULL) {
		return NULL;
	}
	if (a->became_sid != NULL) {
		return talloc_strdup(mem_ctx, a->became_sid);
	}
	return uid_sid(mem_ctx, a->became_uid);
}

static const char *became_domain(const struct auth_audit *a,
				 const struct auth_audit_where *w)
{
	return a->became_domain != NULL ? a->became_domain : w->became_domain;
}

/* The start of a Samba event: {"timestamp": ..., "type": TYPE, TYPE:
 * {"version": {"major": 1, "minor": MINOR}, ... (left open). */
static void event_start(struct json_writer *j, TALLOC_CTX *tmp,
			const char *type, int minor)
{
	json_init(j, tmp);
	json_open(j, NULL);
	json_add_str(j, "timestamp", json_time(tmp));
	json_add_str(j, "type", type);
	json_open(j, type);
	json_open(j, "version");
	json_add_int(j, "major", 1);
	json_add_int(j, "minor", minor);
	json_close(j);
}

/* Close the event; its text on mem_ctx, NULL after any error.  Frees
 * tmp. */
static char *event_finish(struct json_writer *j, TALLOC_CTX *mem_ctx,
			  TALLOC_CTX *tmp)
{
	const char *out;
	char *ret = NULL;

	json_close(j);
	json_close(j);
	out = json_finish(j);
	if (out != NULL) {
		ret = talloc_strdup(mem_ctx, out);
	}
	talloc_free(tmp);
	return ret;
}

char *auth_audit_json(TALLOC_CTX *mem_ctx, const struct auth_audit *a,
		      const struct auth_audit_where *w)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct json_writer j;
	bool ok = NT_STATUS_IS_OK(a->status);

	if (tmp == NULL) {
		return NULL;
	}
	event_start(&j, tmp, "Authentication", 2);
	json_add_int(&j, "eventId", ok ? EVT_ID_SUCCESSFUL_LOGON
				       : EVT_ID_UNSUCCESSFUL_LOGON);
	json_add_str(&j, "logonId", "0");
	json_add_int(&j, "logonType", EVT_LOGON_NETWORK);
	json_add_str(&j, "status", nt_errstr(a->status));
	json_add_str(&j, "localAddress",
		     addr_str(tmp, w->local_addr, w->local_port));
	json_add_str(&j, "remoteAddress",
		     addr_str(tmp, w->remote_addr, w->remote_port));
	json_add_str(&j, "serviceDescription", w->service);
	json_add_str(&j, "authDescription", NULL);
	json_add_str(&j, "clientDomain", clip(tmp, a->client_domain));
	json_add_str(&j, "clientAccount", clip(tmp, a->client_user));
	json_add_str(&j, "workstation", clip(tmp, a->workstation));
	json_add_str(&j, "becameAccount",
		     ok ? clip(tmp, a->became_user) : NULL);
	json_add_str(&j, "becameDomain",
		     ok && a->became_user != NULL ? became_domain(a, w) : NULL);
	json_add_str(&j, "becameSid", became_sid(tmp, a));
	json_add_str(&j, "mappedAccount", clip(tmp, a->mapped_user));
	json_add_str(&j, "mappedDomain", clip(tmp, a->mapped_domain));
	json_add_str(&j, "netlogonComputer", NULL);
	json_add_str(&j, "netlogonTrustAccount", NULL);
	json_add_str(&j, "netlogonNegotiateFlags", "0x00000000");
	json_add_int(&j, "netlogonSecureChannelType", 0);
	json_add_str(&j, "netlogonTrustAccountSid", NULL);
	json_add_str(&j, "passwordType", a->password_type);
	json_add_int(&j, "duration", (int64_t)a->duration_us);
	return event_finish(&j, mem_ctx, tmp);
}

/* A client string for the human line: control characters and '\' are
 * written as \xNN, so the line stays one line. */
static char *clean(TALLOC_CTX *mem_ctx, const char *s)
{
	char *out;
	size_t o = 0;

	if (s == NULL) {
		return talloc_strdup(mem_ctx, "(null)");
	}
	s = clip(mem_ctx, s);
	out = talloc_size(mem_ctx, 4 * strlen(s) + 1);
	if (out == NULL) {
		return NULL;
	}
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}

char *auth_audit_text(TALLOC_CTX *mem_ctx, const struct auth_audit *a,
		      const struct auth_audit_where *w)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char *tail, *ret;

	if (tmp == NULL) {
		return NULL;
	}
	if (NT_STATUS_IS_OK(a->status) && a->became_user != NULL) {
		tail = talloc_asprintf(tmp, "became [%s]\\[%s] [%s].",
				       became_domain(a, w),
				       clean(tmp, a->became_user),
				       became_sid(tmp, a));
	} else {
		tail = talloc_asprintf(tmp, "mapped to [%s]\\[%s].",
				       clean(tmp, a->mapped_domain),
				       clean(tmp, a->mapped_user));
	}
	ret = talloc_asprintf(
		mem_ctx,
		"Auth: [%s,(null)] user [%s]\\[%s] at [%s] with [%s] "
		"status [%s] workstation [%s] remote host [%s] %s local host "
		"[%s] \n",
		w->service, clean(tmp, a->client_domain),
		clean(tmp, a->client_user), text_time(tmp),
		a->password_type, nt_errstr(a->status),
		clean(tmp, a->workstation),
		addr_str(tmp, w->remote_addr, w->remote_port), tail,
		addr_str(tmp, w->local_addr, w->local_port));
	talloc_free(tmp);
	return ret;
}

void auth_audit_log(const struct auth_audit *a,
		    const struct auth_audit_where *w)
{
	int lvl = audit_level(a);
	char *line;

	if (lvl <= log_class_level[LOG_CLASS_AUTH_AUDIT]) {
		line = auth_audit_text(NULL, a, w);
		if (line != NULL) {
			LOG_CLASS_AT(LOG_CLASS_AUTH_AUDIT, lvl, "%s", line);
		} else {
			DBG_ERR("out of memory for an auth_audit line\n");
		}
		talloc_free(line);
	}
	if (lvl <= log_class_level[LOG_CLASS_AUTH_AUDIT_JSON]) {
		line = auth_audit_json(NULL, a, w);
		if (line != NULL) {
			LOG_CLASS_AT(LOG_CLASS_AUTH_AUDIT_JSON, lvl, "%s\n",
				     line);
		} else {
			DBG_ERR("out of memory for an auth_json_audit line\n");
		}
		talloc_free(line);
	}
}

/* Samba's anonymous session: "ANONYMOUS LOGON" in "NT AUTHORITY",
 * S-1-5-7. */
static const char *authz_account(const struct auth_authz *z)
{
	return z->anonymous ? "ANONYMOUS LOGON" : z->account;
}

static const char *authz_domain(const struct auth_authz *z,
				const struct auth_audit_where *w)
{
	return z->anonymous ? "NT AUTHORITY"
	       : z->domain != NULL ? z->domain
				   : w->became_domain;
}

static const char *authz_type(const struct auth_authz *z)
{
	return z->auth_type != NULL ? z->auth_type : "NTLMSSP";
}

static char *authz_sid(TALLOC_CTX *mem_ctx, const struct auth_authz *z)
{
	return z->anonymous	 ? talloc_strdup(mem_ctx, "S-1-5-7")
	       : z->sid != NULL ? talloc_strdup(mem_ctx, z->sid)
				: uid_sid(mem_ctx, z->uid);
}

char *auth_audit_authz_json(TALLOC_CTX *mem_ctx, const struct auth_authz *z,
			    const struct auth_audit_where *w)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	struct json_writer j;

	if (tmp == NULL) {
		return NULL;
	}
	event_start(&j, tmp, "Authorization", 1);
	json_add_str(&j, "localAddress",
		     addr_str(tmp, w->local_addr, w->local_port));
	json_add_str(&j, "remoteAddress",
		     addr_str(tmp, w->remote_addr, w->remote_port));
	json_add_str(&j, "serviceDescription", w->service);
	json_add_str(&j, "authType", authz_type(z));
	json_add_str(&j, "domain", authz_domain(z, w));
	json_add_str(&j, "account", clip(tmp, authz_account(z)));
	json_add_str(&j, "sid", authz_sid(tmp, z));
	json_add_str(&j, "sessionId", z->session_guid);
	json_add_str(&j, "logonServer", w->became_domain);
	json_add_str(&j, "transportProtection", "SMB");
	json_add_str(&j, "accountFlags",
		     talloc_asprintf(tmp, "0x%08x", (unsigned)z->acct_ctrl));
	return event_finish(&j, mem_ctx, tmp);
}

char *auth_audit_authz_text(TALLOC_CTX *mem_ctx, const struct auth_authz *z,
			    const struct auth_audit_where *w)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char *ret;

	if (tmp == NULL) {
		return NULL;
	}
	ret = talloc_asprintf(
		mem_ctx,
		"Successful AuthZ: [%s,%s] user [%s]\\[%s] [%s] at [%s] "
		"Remote host [%s] local host [%s]\n",
		w->service, authz_type(z), authz_domain(z, w),
		clean(tmp, authz_account(z)),
		authz_sid(tmp, z), text_time(tmp),
		addr_str(tmp, w->remote_addr, w->remote_port),
		addr_str(tmp, w->local_addr, w->local_port));
	talloc_free(tmp);
	return ret;
}

void auth_audit_authz_log(const struct auth_authz *z,
			  const struct auth_audit_where *w)
{
	int lvl = z->anonymous ? AUTH_AUDIT_ANONYMOUS_LEVEL
			       : AUTH_AUDIT_AUTHZ_LEVEL;
	char *line;

	if (lvl <= log_class_level[LOG_CLASS_AUTH_AUDIT]) {
		line = auth_audit_authz_text(NULL, z, w);
		if (line != NULL) {
			LOG_CLASS_AT(LOG_CLASS_AUTH_AUDIT, lvl, "%s", line);
		}
		talloc_free(line);
	}
	if (lvl <= log_class_level[LOG_CLASS_AUTH_AUDIT_JSON]) {
		line = auth_audit_authz_json(NULL, z, w);
		if (line != NULL) {
			LOG_CLASS_AT(LOG_CLASS_AUTH_AUDIT_JSON, lvl, "%s\n",
				     line);
		}
		talloc_free(line);
	}
}
