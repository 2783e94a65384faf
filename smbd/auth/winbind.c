/*
 * libwbclient for security = ads (see winbind.h).  Each call makes its
 * own wbcContext: the calls run on pool threads, and a context holds
 * one socket to winbindd, so none is shared between threads.
 */
#include "smbd/auth/winbind.h"
#include "lib/log.h"

#include <string.h>
#include <wbclient.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

/* The most group SIDs a token may carry (a user in more groups than
 * this is refused: MS-KILE keeps PACs far smaller). */
#define WINBIND_MAX_SIDS 4096

NTSTATUS winbind_status(int wbc_err, uint32_t auth_nt_status)
{
	switch (wbc_err) {
	case WBC_ERR_SUCCESS:
		return NT_STATUS_OK;
	case WBC_ERR_AUTH_ERROR:
		/* the domain's verdict, passed on by winbindd */
		return auth_nt_status != 0 ? (NTSTATUS)auth_nt_status
					   : NT_STATUS_LOGON_FAILURE;
	case WBC_ERR_WINBIND_NOT_AVAILABLE:
		return NT_STATUS_NO_LOGON_SERVERS;
	case WBC_ERR_UNKNOWN_USER:
		return NT_STATUS_NO_SUCH_USER;
	case WBC_ERR_DOMAIN_NOT_FOUND:
		return NT_STATUS_NO_SUCH_DOMAIN;
	case WBC_ERR_NO_MEMORY:
		return NT_STATUS_NO_MEMORY;
	default:
		return NT_STATUS_LOGON_FAILURE;
	}
}

static void to_wbc(const struct auth_sid *a, struct wbcDomainSid *w)
{
	memset(w, 0, sizeof(*w));
	w->sid_rev_num = a->revision;
	w->num_auths = a->num_auths;
	memcpy(w->id_auth, a->id_auth, 6);
	memcpy(w->sub_auths, a->sub_auths, sizeof(uint32_t) * a->num_auths);
}

static bool from_wbc(const struct wbcDomainSid *w, struct auth_sid *a)
{
	if (w->num_auths > AUTH_SID_MAX_SUB_AUTHS) {
		return false;
	}
	memset(a, 0, sizeof(*a));
	a->revision = w->sid_rev_num;
	a->num_auths = w->num_auths;
	memcpy(a->id_auth, w->id_auth, 6);
	memcpy(a->sub_auths, w->sub_auths, sizeof(uint32_t) * w->num_auths);
	return true;
}

/*
 * SIDs that can be groups with gids: a domain's (S-1-5-21-...) and
 * BUILTIN's (S-1-5-32-...).  The others a PAC carries (S-1-18-1, the
 * authentication authority; S-1-5-x well-known SIDs) belong to no domain
 * winbindd knows, and asking for one of them fails the whole batch
 * (WBC_ERR_DOMAIN_NOT_FOUND); they stay in the token without a gid, as
 * in Samba's.
 */
static bool sid_may_have_gid(const struct auth_sid *s)
{
	static const uint8_t nt_authority[6] = {0, 0, 0, 0, 0, 5};

	return s->num_auths >= 2 &&
	       memcmp(s->id_auth, nt_authority, 6) == 0 &&
	       (s->sub_auths[0] == 21 || s->sub_auths[0] == 32);
}

/* winbindd's ids for w[0..n): one call, or one per SID when the batch
 * names a domain winbindd does not know (a SID of an untrusted domain
 * in the PAC's extra SIDs), whose SID then stays unmapped. */
static wbcErr sids_to_ids(struct wbcContext *wb, const struct wbcDomainSid *w,
			  size_t n, struct wbcUnixId *ids)
{
	wbcErr err;
	size_t i;

	err = wbcCtxSidsToUnixIds(wb, w, (uint32_t)n, ids);
	if (err != WBC_ERR_DOMAIN_NOT_FOUND) {
		return err;
	}
	for (i = 0; i < n; i++) {
		err = wbcCtxSidsToUnixIds(wb, &w[i], 1, &ids[i]);
		if (err == WBC_ERR_DOMAIN_NOT_FOUND) {
			ids[i].type = WBC_ID_TYPE_NOT_SPECIFIED;
		} else if (!WBC_ERROR_IS_OK(err)) {
			return err;
		}
	}
	return WBC_ERR_SUCCESS;
}

/* The gids of sids[1..n): the primary group first, then each other
 * group winbindd maps to a gid (or to an id that is both), once. */
static NTSTATUS map_groups(struct wbcContext *wb, struct auth_user_info *u,
			   const struct auth_sid *sids, size_t n)
{
	struct wbcDomainSid *w;
	struct wbcUnixId *ids;
	size_t i, j, ng = 0, nw = 0;
	wbcErr err;

	u->groups = talloc_array(u, gid_t, n);
	if (u->groups == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	u->groups[ng++] = u->gid;
	w = talloc_array(u, struct wbcDomainSid, n);
	ids = talloc_zero_array(u, struct wbcUnixId, n);
	if (w == NULL || ids == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 1; i < n; i++) {
		if (sid_may_have_gid(&sids[i])) {
			to_wbc(&sids[i], &w[nw++]);
		}
	}
	err = nw > 0 ? sids_to_ids(wb, w, nw, ids) : WBC_ERR_SUCCESS;
	if (!WBC_ERROR_IS_OK(err)) {
		DBG_WARNING("winbindd cannot map the groups of [%s]: %s\n",
			    u->account_name, wbcErrorString(err));
		talloc_free(w);
		talloc_free(ids);
		return winbind_status(err, 0);
	}
	for (i = 0; i < nw; i++) {
		gid_t g;

		if (ids[i].type != WBC_ID_TYPE_GID &&
		    ids[i].type != WBC_ID_TYPE_BOTH) {
			continue;
		}
		g = ids[i].id.gid;
		for (j = 0; j < ng && u->groups[j] != g; j++) {
		}
		if (j == ng) {
			u->groups[ng++] = g;
		}
	}
	u->ngroups = ng;
	talloc_free(w);
	talloc_free(ids);
	return NT_STATUS_OK;
}

static NTSTATUS user_from_sids(struct wbcContext *wb, TALLOC_CTX *mem_ctx,
			       const char *account, const char *domain,
			       const struct auth_sid *sids, size_t n,
			       struct auth_user_info **out)
{
	struct auth_user_info *u;
	struct wbcDomainSid w;
	struct passwd *pw = NULL;
	char sidstr[AUTH_SID_STRING_MAX];
	wbcErr err;
	NTSTATUS st;

	if (n == 0 || n > WINBIND_MAX_SIDS) {
		return NT_STATUS_LOGON_FAILURE;
	}
	to_wbc(&sids[0], &w);
	err = wbcCtxGetpwsid(wb, &w, &pw);
	if (!WBC_ERROR_IS_OK(err)) {
		DBG_NOTICE("winbindd has no Unix user for [%s]\\[%s] (%s): "
			   "%s\n", domain, account,
			   auth_sid_string(&sids[0], sidstr),
			   wbcErrorString(err));
		return err == WBC_ERR_DOMAIN_NOT_FOUND ||
				       err == WBC_ERR_UNKNOWN_USER ||
				       err == WBC_ERR_INVALID_RESPONSE
			       ? NT_STATUS_NO_SUCH_USER
			       : winbind_status(err, 0);
	}
	u = talloc_zero(mem_ctx, struct auth_user_info);
	if (u == NULL) {
		wbcFreeMemory(pw);
		return NT_STATUS_NO_MEMORY;
	}
	u->account_name = talloc_strdup(u, account);
	u->domain = talloc_strdup(u, domain);
	u->unix_name = talloc_strdup(u, pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->acct_ctrl = ACB_NORMAL;
	if (pw->pw_dir != NULL && pw->pw_dir[0] == '/') {
		u->home_dir = talloc_strdup(u, pw->pw_dir);
	}
	wbcFreeMemory(pw);
	u->sids = talloc_memdup(u, sids, sizeof(*sids) * n);
	u->nsids = n;
	if (u->account_name == NULL || u->domain == NULL ||
	    u->unix_name == NULL || u->sids == NULL) {
		talloc_free(u);
		return NT_STATUS_NO_MEMORY;
	}
	st = map_groups(wb, u, sids, n);
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(u);
		return st;
	}
	*out = u;
	return NT_STATUS_OK;
}

NTSTATUS winbind_user_from_sids(TALLOC_CTX *mem_ctx, const char *account,
				const char *domain,
				const struct auth_sid *sids, size_t n,
				struct auth_user_info **user)
{
	struct wbcContext *wb = wbcCtxCreate();
	NTSTATUS st;

	if (wb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = user_from_sids(wb, mem_ctx, account, domain, sids, n, user);
	wbcCtxFree(wb);
	return st;
}

/* The token of winbindd's answer: its SIDs, user and primary group
 * first, as auth_user_info keeps them. */
static NTSTATUS info_sids(TALLOC_CTX *mem_ctx,
			  const struct wbcAuthUserInfo *info,
			  struct auth_sid **out, size_t *n)
{
	struct auth_sid *s;
	uint32_t i;

	if (info->num_sids < 2 || info->num_sids > WINBIND_MAX_SIDS) {
		return NT_STATUS_LOGON_FAILURE;
	}
	s = talloc_array(mem_ctx, struct auth_sid, info->num_sids);
	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < info->num_sids; i++) {
		if (!from_wbc(&info->sids[i].sid, &s[i])) {
			talloc_free(s);
			return NT_STATUS_LOGON_FAILURE;
		}
	}
	*out = s;
	*n = info->num_sids;
	return NT_STATUS_OK;
}

NTSTATUS winbind_ntlm_auth(TALLOC_CTX *mem_ctx,
			   const struct winbind_ntlm_req *req,
			   struct auth_user_info **user,
			   uint8_t session_key[16])
{
	struct wbcAuthUserParams p;
	struct wbcAuthUserInfo *info = NULL;
	struct wbcAuthErrorInfo *error = NULL;
	struct wbcContext *wb;
	struct auth_sid *sids = NULL;
	size_t n = 0;
	wbcErr err;
	NTSTATUS st;

	memset(&p, 0, sizeof(p));
	p.account_name = req->user;
	p.domain_name = req->domain;
	p.workstation_name = req->workstation;
	/* what Samba's member asks for a network logon: trust accounts
	 * may log on too (and are refused later, as local ones are) */
	p.parameter_control = WBC_MSV1_0_ALLOW_WORKSTATION_TRUST_ACCOUNT |
			      WBC_MSV1_0_ALLOW_SERVER_TRUST_ACCOUNT;
	p.level = WBC_AUTH_USER_LEVEL_RESPONSE;
	memcpy(p.password.response.challenge, req->challenge, 8);
	p.password.response.nt_length = (uint32_t)req->nt_len;
	p.password.response.nt_data = (uint8_t *)req->nt;
	p.password.response.lm_length = (uint32_t)req->lm_len;
	p.password.response.lm_data = (uint8_t *)req->lm;
	wb = wbcCtxCreate();
	if (wb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	err = wbcCtxAuthenticateUserEx(wb, &p, &info, &error);
	if (!WBC_ERROR_IS_OK(err)) {
		st = winbind_status(err, error != NULL ? error->nt_status : 0);
		if (err == WBC_ERR_AUTH_ERROR) {
			DBG_INFO("winbindd: [%s]\\[%s]: %s\n", req->domain,
				 req->user, nt_errstr(st));
		} else {
			DBG_WARNING("winbindd cannot check [%s]\\[%s]: %s\n",
				    req->domain, req->user,
				    wbcErrorString(err));
		}
		wbcFreeMemory(error);
		wbcCtxFree(wb);
		return st;
	}
	wbcFreeMemory(error);
	st = info_sids(mem_ctx, info, &sids, &n);
	if (NT_STATUS_IS_OK(st)) {
		st = user_from_sids(wb, mem_ctx, info->account_name,
				    info->domain_name, sids, n, user);
	}
	if (NT_STATUS_IS_OK(st)) {
		(*user)->acct_ctrl = info->acct_flags;
		memcpy(session_key, info->user_session_key, 16);
	}
	talloc_free(sids);
	wbcFreeMemory(info);
	wbcCtxFree(wb);
	return st;
}

bool winbind_domain_known(const char *domain)
{
	struct wbcContext *wb = wbcCtxCreate();
	struct wbcDomainInfo *info = NULL;
	wbcErr err;

	if (wb == NULL) {
		return false;
	}
	err = wbcCtxDomainInfo(wb, domain, &info);
	wbcFreeMemory(info);
	wbcCtxFree(wb);
	return WBC_ERROR_IS_OK(err);
}

/* wbcCtxLookupSid's answer, copied onto mem_ctx. */
static NTSTATUS lookup_sid(struct wbcContext *wb, TALLOC_CTX *mem_ctx,
			   const struct wbcDomainSid *w, char **dom_out,
			   char **name_out, int *type)
{
	char *dom = NULL, *name = NULL;
	enum wbcSidType t = WBC_SID_NAME_UNKNOWN;
	wbcErr err = wbcCtxLookupSid(wb, w, &dom, &name, &t);

	if (!WBC_ERROR_IS_OK(err)) {
		return err == WBC_ERR_WINBIND_NOT_AVAILABLE
			       ? NT_STATUS_NO_LOGON_SERVERS
			       : NT_STATUS_NONE_MAPPED;
	}
	*dom_out = talloc_strdup(mem_ctx, dom != NULL ? dom : "");
	*name_out = talloc_strdup(mem_ctx, name != NULL ? name : "");
	*type = (int)t;
	wbcFreeMemory(dom);
	wbcFreeMemory(name);
	return *dom_out != NULL && *name_out != NULL ? NT_STATUS_OK
						     : NT_STATUS_NO_MEMORY;
}

NTSTATUS winbind_lookup_name(TALLOC_CTX *mem_ctx, const char *domain,
			     const char *name, struct auth_sid *sid,
			     char **dom_out, char **name_out, int *type)
{
	struct wbcContext *wb = wbcCtxCreate();
	struct wbcDomainSid w;
	enum wbcSidType t;
	wbcErr err;
	NTSTATUS status;

	if (wb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	err = wbcCtxLookupName(wb, domain, name, &w, &t);
	if (!WBC_ERROR_IS_OK(err)) {
		wbcCtxFree(wb);
		return err == WBC_ERR_WINBIND_NOT_AVAILABLE
			       ? NT_STATUS_NO_LOGON_SERVERS
			       : NT_STATUS_NONE_MAPPED;
	}
	/* the canonical spelling, as LookupNames answers it */
	status = lookup_sid(wb, mem_ctx, &w, dom_out, name_out, type);
	wbcCtxFree(wb);
	if (NT_STATUS_IS_OK(status) && !from_wbc(&w, sid)) {
		status = NT_STATUS_NONE_MAPPED;
	}
	return status;
}

NTSTATUS winbind_lookup_sid(TALLOC_CTX *mem_ctx, const struct auth_sid *sid,
			    char **dom_out, char **name_out, int *type)
{
	struct wbcContext *wb = wbcCtxCreate();
	struct wbcDomainSid w;
	NTSTATUS status;

	if (wb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	to_wbc(sid, &w);
	status = lookup_sid(wb, mem_ctx, &w, dom_out, name_out, type);
	wbcCtxFree(wb);
	return status;
}

bool winbind_id_to_sid(bool group, uint32_t id, struct auth_sid *out)
{
	struct wbcContext *wb = wbcCtxCreate();
	struct wbcDomainSid w;
	wbcErr err;

	if (wb == NULL) {
		return false;
	}
	err = group ? wbcCtxGidToSid(wb, (gid_t)id, &w)
		    : wbcCtxUidToSid(wb, (uid_t)id, &w);
	wbcCtxFree(wb);
	return WBC_ERROR_IS_OK(err) && from_wbc(&w, out);
}
