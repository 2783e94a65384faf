/*
 * What SESSION_SETUP's logon (smb2_sesssetup.c) and its binding of a
 * further channel (smb2_sesssetup_bind.c) share (smb2_sesssetup_auth.c):
 * the request's fields, the reply, the configuration NTLMSSP reads, the
 * user database lookup and the 3.1.1 preauth hash.  Nothing outside
 * smbd/smb2/smb2_sesssetup*.c includes this.
 */
#ifndef SMBD_SMB2_SESSSETUP_PRIVATE_H
#define SMBD_SMB2_SESSSETUP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

struct smb2_request;
struct smbd_session;
struct smbd_conn;
struct lp_ctx;
struct auth_config;
struct auth_user_info;

#define SMB2_SESSION_FLAG_BINDING 0x01
#define SMB2_SESSION_FLAG_IS_GUEST 0x0001
#define SMB2_SESSION_FLAG_IS_NULL 0x0002
#define SMB2_SESSION_FLAG_ENCRYPT_DATA 0x0004

/* The request's fields (2.2.5), read again by a continuation: the
 * dispatch table checked the body and the buffer's range. */
struct sesssetup_args {
	uint8_t flags, sec_mode;
	uint16_t len;
	uint64_t prev_id;
	const uint8_t *blob;
};

void sesssetup_args(const struct smb2_request *req, struct sesssetup_args *a);
/* The reply's body (2.2.6): SessionFlags and the security blob. */
NTSTATUS sesssetup_reply(struct smb2_request *req, uint16_t flags,
			 const uint8_t *blob, size_t blob_len);
/* smb.conf's values for one authentication, copied (a reload frees the
 * parsed strings); NULL when out of memory. */
struct auth_config *sesssetup_auth_config(TALLOC_CTX *mem_ctx,
					  const struct lp_ctx *lp);
/* gensec's user lookup for session priv (the passdb, after `username
 * map`). */
NTSTATUS sesssetup_lookup(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			  const char *domain, struct auth_user_info **out);
/* The same without the Unix side (passdb_auth_record): security = ads
 * looks that up in the pool (gensec_set_record_lookup). */
NTSTATUS sesssetup_lookup_record(void *priv, TALLOC_CTX *mem_ctx,
				 const char *user, const char *domain,
				 struct auth_user_info **out);
/* 3.1.1: msg into the preauth hash a SESSION_SETUP of s on conn goes
 * into (a binding channel's own, else the session's); and the request's
 * after_reply that hashes a MORE_PROCESSING_REQUIRED reply. */
void sesssetup_preauth(struct smbd_session *s, const struct smbd_conn *conn,
		       const uint8_t *msg, size_t len);
void sesssetup_after_reply(struct smb2_request *req, const uint8_t *reply,
			   size_t len);
/* Where a logon came in, for the audit lines; and the auth_audit /
 * auth_json_audit lines of a finished exchange g for session s on conn
 * (the name mapped after `username map`). */
struct auth_audit_where;
struct gensec;
void sesssetup_where(const struct smbd_conn *conn, struct auth_audit_where *w);
void sesssetup_audit(struct smbd_session *s, struct gensec *g,
		     const struct smbd_conn *conn);
/* The same when NTLM accepted but `obey pam restrictions` refused the
 * account: the line says failed, with refused as its status. */
void sesssetup_audit_refused(struct smbd_session *s, struct gensec *g,
			     const struct smbd_conn *conn, NTSTATUS refused);
/*
 * smb2_sesssetup_pam.c, `obey pam restrictions`: after NTLM accepted a
 * passdb user on session s, PAM's account check (and for a new session
 * the opening of a PAM session) in the pool; then resume(req, s, status,
 * audit, out, out_len) on the loop: status for the client, audit the
 * finer reason for the auth audit line (NT_STATUS_OK: the authentication
 * stands), out the final leg's token handed in (on req's frame, which
 * outlives the job).  SMBD_STATUS_ASYNC when it runs; NT_STATUS_OK when
 * PAM is not asked (the parameter is off, a guest or anonymous logon).
 */
typedef NTSTATUS (*sesssetup_pam_resume_fn)(struct smb2_request *req,
					    struct smbd_session *s,
					    NTSTATUS status, NTSTATUS audit,
					    const uint8_t *out,
					    size_t out_len);
NTSTATUS sesssetup_pam_start(struct smb2_request *req,
			     struct smbd_session *s, const uint8_t *out,
			     size_t out_len, sesssetup_pam_resume_fn resume);
/* s ends: close its PAM session, if it has one, in the pool. */
void sesssetup_pam_close(struct smbd_session *s);
/* smb2_sesssetup_bind.c: a SESSION_SETUP with SMB2_SESSION_FLAG_BINDING. */
NTSTATUS sesssetup_bind(struct smb2_request *req,
			const struct sesssetup_args *a);

#endif
