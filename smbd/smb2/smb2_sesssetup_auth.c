/*
 * What a SESSION_SETUP's logon and a binding share (smb2_sesssetup_private.h):
 * the request's fields and reply (MS-SMB2 2.2.5, 2.2.6), the smb.conf
 * values and user lookup of an NTLMSSP exchange, and the 3.1.1 preauth
 * hash (3.3.5.5), a session's or a binding channel's.
 */
#include "smbd/smb2/smb2_sesssetup_private.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "smbd/auth/auth_audit.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/passdb.h"
#include "smbd/objects/smbd_locking.h"
#include "locking/locking.h"
#include "smbd/smb2/user_map.h"
#include "conf/loadparm.h"
#include "lib/crypto.h"
#include "lib/wire.h"

#include <string.h>

void sesssetup_args(const struct smb2_request *req, struct sesssetup_args *a)
{
	struct wire_cur b = req->body;
	uint16_t off;

	b.off = 0;
	(void)wire_skip(&b, 2);
	(void)wire_pull_u8(&b, &a->flags);
	(void)wire_pull_u8(&b, &a->sec_mode);
	(void)wire_skip(&b, 8); /* Capabilities, Channel */
	(void)wire_pull_le16(&b, &off);
	(void)wire_pull_le16(&b, &a->len);
	(void)wire_pull_le64(&b, &a->prev_id);
	a->blob = a->len ? req->in + off : NULL;
}

NTSTATUS sesssetup_reply(struct smb2_request *req, uint16_t flags,
			 const uint8_t *blob, size_t blob_len)
{
	/* 2.2.6: StructureSize 9, SessionFlags, SecurityBufferOffset/Len.
	 * The offset points where the buffer starts even when it is empty,
	 * as Windows and Samba send it (0x48): a client may seek there
	 * before it reads the length. */
	wire_push_le16(req->out, 9);
	wire_push_le16(req->out, flags);
	wire_push_le16(req->out, SMB2_HDR_LEN + 8);
	wire_push_le16(req->out, (uint16_t)blob_len);
	wire_push_bytes(req->out, blob, blob_len);
	if (blob_len == 0) {
		wire_push_u8(req->out, 0);
	}
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/* security = ads: what Kerberos and winbindd need (smbd/auth/auth.h). */
static bool sesssetup_ads_config(struct auth_config *c,
				 const struct lp_ctx *lp)
{
	static const int methods[] = {
		[LP_KRB5_DEFAULT] = AUTH_KRB5_SECRETS_ONLY,
		[LP_KRB5_SECRETS_ONLY] = AUTH_KRB5_SECRETS_ONLY,
		[LP_KRB5_SYSTEM_KEYTAB] = AUTH_KRB5_SYSTEM_KEYTAB,
		[LP_KRB5_DEDICATED_KEYTAB] = AUTH_KRB5_DEDICATED_KEYTAB,
		[LP_KRB5_SECRETS_AND_KEYTAB] = AUTH_KRB5_SECRETS_AND_KEYTAB,
	};
	int m = lp_int(lp, LP_GLOBAL, LP_KERBEROS_METHOD);

	c->realm = talloc_strdup(c, lp_str(lp, LP_GLOBAL, LP_REALM));
	c->dedicated_keytab = talloc_strdup(
		c, lp_str(lp, LP_GLOBAL, LP_DEDICATED_KEYTAB_FILE));
	c->private_dir = talloc_strdup(c, lp_str(lp, LP_GLOBAL,
						 LP_PRIVATE_DIR));
	c->kerberos_method = m >= 0 && m < (int)(sizeof(methods) /
						  sizeof(methods[0]))
				     ? methods[m]
				     : AUTH_KRB5_SECRETS_ONLY;
	c->allow_trusted_domains = lp_bool(lp, LP_GLOBAL,
					   LP_ALLOW_TRUSTED_DOMAINS);
	return c->realm != NULL && c->dedicated_keytab != NULL &&
	       c->private_dir != NULL;
}

/*
 * The smb.conf values NTLMSSP needs, copied for one session's
 * authentication: a SIGHUP between its legs (or at any time after) frees
 * the parsed strings, so nothing may point into the configuration
 * (issue 15 item 1: a worker-wide cache of such pointers outlived the
 * reload and sent freed memory in the target info).
 */
struct auth_config *sesssetup_auth_config(TALLOC_CTX *mem_ctx,
					  const struct lp_ctx *lp)
{
	struct auth_config *c = talloc_zero(mem_ctx, struct auth_config);

	if (c == NULL) {
		return NULL;
	}
	c->netbios_name = talloc_strdup(c, lp_str(lp, LP_GLOBAL,
						  LP_NETBIOS_NAME));
	c->workgroup = talloc_strdup(c, lp_str(lp, LP_GLOBAL, LP_WORKGROUP));
	c->dns_domain = talloc_strdup(c, lp_str(lp, LP_GLOBAL, LP_REALM));
	c->dns_hostname = "";
	c->guest_account = talloc_strdup(c, lp_str(lp, LP_GLOBAL,
						   LP_GUEST_ACCOUNT));
	if (c->netbios_name == NULL || c->workgroup == NULL ||
	    c->dns_domain == NULL || c->guest_account == NULL) {
		talloc_free(c);
		return NULL;
	}
	c->ntlm_auth = auth_ntlm_policy_from_string(
		lp_str(lp, LP_GLOBAL, LP_NTLM_AUTH));
	if (c->ntlm_auth < 0) {
		c->ntlm_auth = AUTH_NTLM_NTLMV2_ONLY;
	}
	c->map_to_guest_bad_user = lp_int(lp, LP_GLOBAL, LP_MAP_TO_GUEST) ==
				   LP_MAP_TO_GUEST_BAD_USER;
	c->ads = lp_security_ads(lp);
	if (c->ads && !sesssetup_ads_config(c, lp)) {
		talloc_free(c);
		return NULL;
	}
	return c;
}

/* The user database, opened on first use so a passdb.tdb created after
 * start-up (smbpasswd -a) is found.  The name looked up is the client's
 * after `username map` (smbd/smb2/user_map.h). */
static NTSTATUS lookup_common(void *priv, TALLOC_CTX *mem_ctx,
			      const char *user, const char *domain,
			      bool record_only, struct auth_user_info **out)
{
	struct smbd_session *s = priv;
	struct smbd_worker *w = s->conn->worker;
	struct smb2_worker *sw = smb2_worker_of(w);
	char *name;
	NTSTATUS st;

	if (sw->passdb == NULL) {
		const struct lp_ctx *lp = w->srv->lp;
		char *path = passdb_path(w, lp_str(lp, LP_GLOBAL,
						   LP_PRIVATE_DIR));

		struct locking_db *ldb = smbd_locking(w);

		/* Clustered: the users every node shares, in CTDB. */
		st = ldb != NULL && locking_db_clustered(ldb)
			     ? passdb_open_ctdb(w, locking_db_ctdb(ldb), false,
						&sw->passdb)
			     : passdb_open(w, path, false, &sw->passdb);
		talloc_free(path);
		if (!NT_STATUS_IS_OK(st)) {
			sw->passdb = NULL;
			return NT_STATUS_NO_SUCH_USER;
		}
	}
	name = smbd_user_map_name(s, mem_ctx, user);
	if (name == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = record_only ? passdb_auth_record(sw->passdb, mem_ctx, name, out)
			 : passdb_auth_lookup(sw->passdb, mem_ctx, name, domain,
					      out);
	talloc_free(name);
	return st;
}

NTSTATUS sesssetup_lookup(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			  const char *domain, struct auth_user_info **out)
{
	return lookup_common(priv, mem_ctx, user, domain, false, out);
}

NTSTATUS sesssetup_lookup_record(void *priv, TALLOC_CTX *mem_ctx,
				 const char *user, const char *domain,
				 struct auth_user_info **out)
{
	return lookup_common(priv, mem_ctx, user, domain, true, out);
}

/* The hash a SESSION_SETUP on conn goes into: a binding channel's own
 * (3.3.5.5: Connection.PreauthSessionTable), else the session's. */
static uint8_t *preauth_hash_of(struct smbd_session *s,
				     const struct smbd_conn *conn)
{
	struct smbd_channel *ch = smbd_channel_find(s, conn);

	return ch != NULL && !ch->bound ? ch->preauth_hash : s->preauth_hash;
}

void sesssetup_preauth(struct smbd_session *s, const struct smbd_conn *conn,
		       const uint8_t *msg, size_t len)
{
	uint8_t *h = preauth_hash_of(s, conn);
	struct crypto_iov iov[2] = {
		{h, 64},
		{msg, len},
	};

	crypto_sha512_iov(iov, 2, h);
}

void sesssetup_after_reply(struct smb2_request *req, const uint8_t *reply,
			   size_t len)
{
	struct smbd_session *s = req->session;

	/* Only replies with MORE_PROCESSING_REQUIRED go into the hash. */
	if (s != NULL && req->conn->dialect == SMB2_DIALECT_0311 &&
	    le32(reply + SMB2_HDR_STATUS) == NT_STATUS_MORE_PROCESSING_REQUIRED) {
		sesssetup_preauth(s, req->conn, reply, len);
	}
}

/* Where a logon came in, for the audit lines (smbd/auth/auth_audit.h). */
void sesssetup_where(const struct smbd_conn *conn, struct auth_audit_where *w)
{
	*w = (struct auth_audit_where){
		.service = "SMB2",
		.local_addr = conn->local_addr,
		.local_port = conn->local_port,
		.remote_addr = conn->remote_addr,
		.remote_port = conn->remote_port,
		.became_domain = lp_str(conn->worker->srv->lp, LP_GLOBAL,
					LP_NETBIOS_NAME),
	};
}

/* The auth_audit / auth_json_audit lines of a finished exchange.  The
 * mapped account is the name after `username map`, as Samba's
 * mappedAccount (the lookup maps it, NTLMSSP does not know). */
void sesssetup_audit(struct smbd_session *s, struct gensec *g,
		     const struct smbd_conn *conn)
{
	sesssetup_audit_refused(s, g, conn, NT_STATUS_OK);
}

void sesssetup_audit_refused(struct smbd_session *s, struct gensec *g,
			     const struct smbd_conn *conn, NTSTATUS refused)
{
	const struct auth_audit *a = gensec_audit(g);
	struct auth_audit copy;
	struct auth_audit_where w;
	char *mapped = NULL;

	if (a == NULL) {
		return;
	}
	copy = *a;
	if (NT_STATUS_IS_OK(copy.status) && !NT_STATUS_IS_OK(refused)) {
		/* NTLM said yes, PAM's account check no: as Samba, where
		 * that check is part of the password check, the event is a
		 * failure with PAM's reason */
		copy.status = refused;
		copy.became_user = NULL;
	}
	if (a->mapped_user != NULL) {
		mapped = smbd_user_map_name(s, s, a->mapped_user);
		if (mapped != NULL) {
			copy.mapped_user = mapped;
		}
	}
	sesssetup_where(conn, &w);
	auth_audit_log(&copy, &w);
	talloc_free(mapped);
}
