/*
 * Samba's winbindd as security = ads asks it (libwbclient): NTLM
 * responses of domain users, which winbindd checks with the domain
 * controller over netlogon, and the Unix side of a domain user's token:
 * the uid, primary gid and name of the user's SID (wbcGetpwsid, so the
 * name is DOMAIN\user as winbindd forms it with `winbind separator` and
 * `winbind use default domain`) and the gids of its group SIDs
 * (wbcSidsToUnixIds).  How SIDs map to ids is winbindd's `idmap config`,
 * never ours.
 *
 * Every call blocks (a socket to winbindd, which may itself wait for the
 * DC): callers run them in the worker's thread pool, each with a
 * libwbclient context of its own (wbcCtxCreate), never on the loop.  A
 * winbindd that is not running fails at once (its socket is missing);
 * one that hangs is bounded by libwbclient's own request timeout.
 */
#ifndef SMBD_AUTH_WINBIND_H
#define SMBD_AUTH_WINBIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/auth/auth.h"

/* An NTLM logon handed to winbindd (WBC_AUTH_USER_LEVEL_RESPONSE). */
struct winbind_ntlm_req {
	const char *user, *domain, *workstation;
	uint8_t challenge[8];
	const uint8_t *nt;
	size_t nt_len;
	const uint8_t *lm;
	size_t lm_len;
};

/*
 * Check the responses with winbindd.  OK: *user is the account with its
 * token (SIDs from the domain's answer, ids from winbindd's idmap) and
 * session_key the NTLM user session key (MS-NLMP SessionBaseKey).
 * Otherwise the status the domain gave (WRONG_PASSWORD, NO_SUCH_USER,
 * ACCOUNT_DISABLED, ...), or what winbind_status() makes of winbindd's
 * own failure.
 */
NTSTATUS winbind_ntlm_auth(TALLOC_CTX *mem_ctx,
			   const struct winbind_ntlm_req *req,
			   struct auth_user_info **user,
			   uint8_t session_key[16]);

/*
 * The Unix side of a domain user whose token is sids[0..n) (user,
 * primary group, groups: struct auth_user_info's order): uid, gid and
 * unix_name of the user's SID, the gids of every group SID winbindd maps
 * (those it does not are left out of the Unix groups and stay in the
 * token).  The result holds copies of the SIDs and the names.
 * NO_SUCH_USER when winbindd does not map the user's SID.
 */
NTSTATUS winbind_user_from_sids(TALLOC_CTX *mem_ctx, const char *account,
				const char *domain,
				const struct auth_sid *sids, size_t n,
				struct auth_user_info **user);

/*
 * Whether winbindd knows `domain` (its NetBIOS or DNS name) as the
 * member's own domain or one it trusts: false also when winbindd does
 * not answer.
 */
bool winbind_domain_known(const char *domain);

/*
 * A wbcErr (libwbclient's) as an NTSTATUS for the logon, with the
 * domain's own status when winbindd passed one on (WBC_ERR_AUTH_ERROR
 * carries it): winbindd not running or not answering is
 * NO_LOGON_SERVERS, an unknown user NO_SUCH_USER, a domain it does not
 * know NO_SUCH_DOMAIN, anything else LOGON_FAILURE.
 */
NTSTATUS winbind_status(int wbc_err, uint32_t auth_nt_status);

/*
 * One account's name and SID as winbindd (and through it the domain)
 * knows them, for lsarpc on a member (smbd/rpc/rpc_domain.c): by name
 * (domain "" for an unqualified one: winbindd then applies `winbind use
 * default domain`) or by SID.  *type is the SID_NAME_USE (MS-LSAT
 * 2.2.13) winbindd answers; domain and name are the canonical ones, on
 * mem_ctx.  NONE_MAPPED when winbindd knows no such account,
 * NO_LOGON_SERVERS when it does not answer.
 */
NTSTATUS winbind_lookup_name(TALLOC_CTX *mem_ctx, const char *domain,
			     const char *name, struct auth_sid *sid,
			     char **dom_out, char **name_out, int *type);
NTSTATUS winbind_lookup_sid(TALLOC_CTX *mem_ctx, const struct auth_sid *sid,
			    char **dom_out, char **name_out, int *type);
/*
 * The SID winbindd's idmap gives a uid (group false) or gid: false when
 * it maps none (an id outside every `idmap config` range: a local
 * account) or does not answer.
 */
bool winbind_id_to_sid(bool group, uint32_t id, struct auth_sid *out);

#endif
