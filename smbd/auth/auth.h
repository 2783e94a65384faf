/*
 * Types shared by the authentication code: what the user database returns,
 * the server's authentication settings, and the result of a logon.
 *
 * The protocol code (ntlmssp.c, gensec.c) never opens the user database
 * itself: it calls an auth_lookup_fn, so tests and fuzzers plug in a fixed
 * user and the daemon plugs in passdb_auth_lookup() (passdb.h).
 */
#ifndef SMBD_AUTH_AUTH_H
#define SMBD_AUTH_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>
#include "lib/ntstatus.h"

/* Samba's acct_ctrl bits (MS-SAMR 2.2.1.12 USER_ACCOUNT codes). */
#define ACB_DISABLED 0x00000001
#define ACB_HOMDIRREQ 0x00000002
#define ACB_PWNOTREQ 0x00000004
#define ACB_TEMPDUP 0x00000008
#define ACB_NORMAL 0x00000010
#define ACB_MNS 0x00000020
#define ACB_DOMTRUST 0x00000040
#define ACB_WSTRUST 0x00000080
#define ACB_SVRTRUST 0x00000100
#define ACB_PWNOEXP 0x00000200
#define ACB_AUTOLOCK 0x00000400

/* MS-DTYP 2.4.2.2 SID, as the authentication code carries it (the
 * objects room has its own, struct sd_sid, of the same shape). */
#define AUTH_SID_MAX_SUB_AUTHS 15
struct auth_sid {
	uint8_t revision;
	uint8_t num_auths;
	uint8_t id_auth[6];
	uint32_t sub_auths[AUTH_SID_MAX_SUB_AUTHS];
};

/* "S-1-5-21-1-2-3-1104" into buf (AUTH_SID_STRING_MAX bytes). */
#define AUTH_SID_STRING_MAX 192
char *auth_sid_string(const struct auth_sid *sid,
		      char buf[AUTH_SID_STRING_MAX]);
/* The other way; false for anything that is not a SID. */
bool auth_sid_parse(const char *s, struct auth_sid *out);
bool auth_sid_equal(const struct auth_sid *a, const struct auth_sid *b);
/* domain's SID with rid appended; false when domain has 15 already. */
bool auth_sid_compose(const struct auth_sid *domain, uint32_t rid,
		      struct auth_sid *out);

struct auth_user_info {
	const char *account_name; /* as stored (case preserved) */
	const char *domain;
	const char *unix_name;
	uint8_t nt_hash[16];
	bool has_nt_hash;
	uint32_t acct_ctrl;
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t *groups;
	/*
	 * security = ads, a domain user: the Windows token's SIDs, from the
	 * ticket's PAC or from winbindd: sids[0] the user, sids[1] the
	 * primary group, then every other group (domain groups, extra SIDs,
	 * resource groups), no duplicates.  nsids is 0 for passdb users,
	 * whose token is made of their Unix ids (S-1-22-*).
	 */
	struct auth_sid *sids;
	size_t nsids;
	/*
	 * The passwd entry's home directory (NSS's, or for a domain user
	 * winbindd's, which applies `template homedir`): [homes] serves
	 * it.  NULL when the entry has none.
	 */
	const char *home_dir;
};

/*
 * Look a user up by name (case-insensitive).  NT_STATUS_NO_SUCH_USER when
 * unknown; *out is allocated on mem_ctx.
 */
typedef NTSTATUS (*auth_lookup_fn)(void *priv, TALLOC_CTX *mem_ctx,
				   const char *user, const char *domain,
				   struct auth_user_info **out);

/* smb.conf "ntlm auth" (Samba's values). */
enum auth_ntlm_policy {
	AUTH_NTLM_NTLMV2_ONLY = 0, /* default: "ntlmv2-only", "no" */
	AUTH_NTLM_NTLMV1_PERMITTED, /* "ntlmv1-permitted", "yes" */
	AUTH_NTLM_MSCHAPV2_NTLMV2_ONLY, /* "mschapv2-and-ntlmv2-only" */
	AUTH_NTLM_DISABLED, /* "disabled": no NTLM at all */
};

/* Map the smb.conf string; -1 when unknown. */
int auth_ntlm_policy_from_string(const char *s);

/* smb.conf "kerberos method" (Samba's values; default is secrets only). */
enum auth_krb5_method {
	AUTH_KRB5_SECRETS_ONLY = 0,
	AUTH_KRB5_SYSTEM_KEYTAB,
	AUTH_KRB5_DEDICATED_KEYTAB,
	AUTH_KRB5_SECRETS_AND_KEYTAB,
};

struct auth_config {
	const char *netbios_name; /* our NetBIOS name, upper case */
	const char *workgroup;
	const char *dns_domain; /* may be NULL or "" */
	const char *dns_hostname; /* may be NULL or "" */
	int ntlm_auth; /* enum auth_ntlm_policy */
	bool map_to_guest_bad_user; /* "map to guest = bad user" */
	const char *guest_account; /* "guest account", e.g. "nobody" */
	/* security = ads (issue 36): Kerberos in SPNEGO, domain users'
	 * NTLM and ids through winbindd.  The strings below are NULL or ""
	 * when ads is false. */
	bool ads;
	const char *realm; /* upper case */
	int kerberos_method; /* enum auth_krb5_method */
	const char *dedicated_keytab;
	const char *private_dir; /* where secrets.tdb is */
	bool allow_trusted_domains;
};

/* A deep copy of cfg on mem_ctx (work in the pool must not point into a
 * session's, which may go while it runs); NULL when out of memory. */
struct auth_config *auth_config_copy(TALLOC_CTX *mem_ctx,
				     const struct auth_config *cfg);

struct auth_result {
	bool anonymous;
	bool guest;
	struct auth_user_info *user; /* NULL for anonymous */
	/* ExportedSessionKey (MS-NLMP 3.1.5.1.2): SMB2 signing keys. */
	uint8_t session_key[16];
	bool has_session_key;
	/* Kerberos: the whole GSS session key (32 bytes for AES256), MS-SMB2
	 * 3.3.5.5.3 Session.FullSessionKey, from which 3.1.1 derives the
	 * AES-256 ciphers' keys; 0 when it is session_key itself. */
	uint8_t full_session_key[32];
	size_t full_session_key_len;
	char *client_user;
	char *client_domain;
	char *client_workstation;
};

/*
 * What one NTLMSSP AUTHENTICATE asked for and how it ended, success or
 * failure: the auth_audit and auth_json_audit log lines
 * (smbd/auth/auth_audit.h) are made from it.  Strings are owned by the
 * NTLMSSP state; NULL when the message did not carry them.
 */
struct auth_audit {
	bool done;                /* an AUTHENTICATE was processed */
	bool anonymous, guest;
	/* Samba's reason, finer than what the client is told (LOGON_FAILURE
	 * for NO_SUCH_USER and WRONG_PASSWORD, MS-NLMP 3.2.5.1.2). */
	NTSTATUS status;
	const char *client_user, *client_domain, *workstation;
	const char *password_type; /* "NTLMv2", "NTLMv1", "None" */
	/* The account as looked up: Samba's mappedAccount/mappedDomain. */
	const char *mapped_user, *mapped_domain;
	/* Who the session became (OK only): account and its Unix uid;
	 * for a domain user (security = ads) also its domain and SID, as
	 * Samba's line shows them (NULL: this server's name, S-1-22-1-uid) */
	const char *became_user;
	uid_t became_uid;
	const char *became_domain;
	const char *became_sid;
	uint64_t duration_us; /* AUTHENTICATE received to verdict */
};

/*
 * The Unix side of an account (getpwnam_r, getgrouplist): uid, gid,
 * groups, unix_name.  NT_STATUS_NO_SUCH_USER when there is no such Unix
 * user.  Used for passdb users and for the guest account.
 */
NTSTATUS auth_unix_user_info(TALLOC_CTX *mem_ctx, const char *unix_name,
			     struct auth_user_info **out);
/* The gid of a Unix group (getgrnam_r): NT_STATUS_NO_SUCH_GROUP when there
 * is none.  For `force group`. */
NTSTATUS auth_unix_group_gid(const char *name, gid_t *gid);

#endif
