/*
 * srvsvc (MS-SRVS): the share list and server information behind
 * `net view`, Explorer's share browser, `smbclient -L` and rpcclient's
 * srvinfo / netshareenumall / netsharegetinfo.
 *
 * Served: NetrShareEnum (opnum 15, MS-SRVS 3.1.4.8) levels 0, 1, 2, 501,
 * 502; NetrShareGetInfo (16, 3.1.4.10) the same plus 1005;
 * NetrServerGetInfo (21, 3.1.4.17) levels 100, 101, 102; NetrRemoteTOD
 * (28, 3.1.4.21).  Other opnums get nca_s_op_rng_error from the PDU
 * layer.
 *
 * Shares come from smb.conf; IPC$ is added last, as Samba does.  A share
 * with `browseable = no` is left out of the enumeration but NetrShareGetInfo
 * still finds it by name (3.1.4.10 has no such filter).
 *
 * `access based share enum = yes` leaves out, at every level, a share
 * whose `invalid users` names the caller or whose `valid users` does not
 * (issue 34 item 5), as Samba 4.17 does: the caller is its Unix name and
 * groups, the `guest account` for an anonymous or guest session; `hosts
 * allow`, `guest ok` and NetrShareGetInfo are not part of it there
 * either.  Samba also asks the share's security descriptor
 * (share_info.tdb); this server keeps none (none is checked at tree
 * connect either), which Samba reads as everyone allowed.
 */
#include "smbd/rpc/rpc_service.h"

#include <string.h>
#include <strings.h>
#include <time.h>

#include "conf/loadparm.h"
#include "lib/log.h"
#include "smbd/auth/access.h"

#define STYPE_DISKTREE 0x00000000
#define STYPE_PRINTQ 0x00000001
#define STYPE_IPC 0x00000003
#define STYPE_SPECIAL 0x80000000
#define SHI_USES_UNLIMITED 0xffffffff
#define PLATFORM_ID_NT 500
/* MS-SRVS 2.2.2.7 server types; the set Samba's standalone server
 * announces (0x809a03), so srvinfo reads the same after a switch. */
#define SV_TYPE_WORKSTATION 0x00000001
#define SV_TYPE_SERVER 0x00000002
#define SV_TYPE_PRINTQ_SERVER 0x00000200
#define SV_TYPE_SERVER_UNIX 0x00000800
#define SV_TYPE_NT 0x00001000
#define SV_TYPE_SERVER_NT 0x00008000
#define SV_TYPE_DFS 0x00800000

struct srvsvc_share {
	const char *name, *comment, *path;
	uint32_t type, max_uses, flags;
};

const char *rpc_server_name(const struct rpc_server_ctx *srv)
{
	const char *n = lp_str(srv->lp, LP_GLOBAL, LP_NETBIOS_NAME);

	return n != NULL ? n : "";
}

static char *srvsvc_subst(TALLOC_CTX *mem_ctx,
			  const struct rpc_server_ctx *srv, int snum,
			  enum lp_param p)
{
	struct lp_subst s = { 0 };
	char *r;

	if (lp_str(srv->lp, snum, p) == NULL) {
		return talloc_strdup(mem_ctx, "");
	}
	s.user = srv->account_name;
	s.client_ip = srv->client_addr;
	r = lp_str_subst(mem_ctx, srv->lp, snum, p, &s);
	return r != NULL ? r : talloc_strdup(mem_ctx, "");
}

char *rpc_server_comment(TALLOC_CTX *mem_ctx,
			 const struct rpc_server_ctx *srv)
{
	return srvsvc_subst(mem_ctx, srv, LP_GLOBAL, LP_SERVER_STRING);
}

/* "C:\dir\sub" the way Windows clients expect a local path. */
static const char *srvsvc_dos_path(TALLOC_CTX *mem_ctx, const char *path)
{
	char *r = talloc_asprintf(mem_ctx, "C:%s", path);
	char *q;

	for (q = r; q != NULL && *q != '\0'; q++) {
		if (*q == '/') {
			*q = '\\';
		}
	}
	return r != NULL ? r : "";
}

static void srvsvc_fill(TALLOC_CTX *mem_ctx, const struct rpc_server_ctx *srv,
			int snum, struct srvsvc_share *sh)
{
	const struct lp_ctx *lp = srv->lp;
	size_t nl;
	int max;

	memset(sh, 0, sizeof(*sh));
	if (snum < 0) {
		sh->name = "IPC$";
		sh->type = STYPE_IPC | STYPE_SPECIAL;
		sh->comment = talloc_asprintf(mem_ctx, "IPC Service (%s)",
					      rpc_server_comment(mem_ctx,
								 srv));
		sh->path = "C:\\tmp";
		sh->max_uses = SHI_USES_UNLIMITED;
		return;
	}
	sh->name = lp_share_name(lp, snum);
	nl = strlen(sh->name);
	sh->type = lp_bool(lp, snum, LP_PRINTABLE) ? STYPE_PRINTQ
						    : STYPE_DISKTREE;
	if (nl > 0 && sh->name[nl - 1] == '$') {
		sh->type |= STYPE_SPECIAL;
	}
	sh->comment = srvsvc_subst(mem_ctx, srv, snum, LP_COMMENT);
	sh->path = srvsvc_dos_path(mem_ctx,
				   srvsvc_subst(mem_ctx, srv, snum, LP_PATH));
	max = lp_int(lp, snum, LP_MAX_CONNECTIONS);
	sh->max_uses = max > 0 ? (uint32_t)max : SHI_USES_UNLIMITED;
	/* MS-SRVS 2.2.4.29: CSC_MASK bits 4-5 hold the caching policy */
	sh->flags = ((uint32_t)lp_int(lp, snum, LP_CSC_POLICY) & 3) << 4;
	if (sh->comment == NULL) {
		sh->comment = "";
	}
}

static bool srvsvc_level_ok(uint32_t level, bool getinfo)
{
	switch (level) {
	case 0:
	case 1:
	case 2:
	case 501:
	case 502:
		return true;
	case 1005:
		return getinfo;
	default:
		return false;
	}
}

/* SHARE_INFO_x fixed part (MS-SRVS 2.2.4.22 - 2.2.4.29). */
static void srvsvc_push_fixed(struct ndr_push *out, uint32_t level,
			      const struct srvsvc_share *sh)
{
	if (level == 1005) {
		ndr_push_u32(out, sh->flags);
		return;
	}
	ndr_push_ptr(out, true);
	if (level == 0) {
		return;
	}
	ndr_push_u32(out, sh->type);
	ndr_push_ptr(out, true);
	if (level == 501) {
		ndr_push_u32(out, sh->flags);
	}
	if (level == 2 || level == 502) {
		ndr_push_u32(out, 0);	/* permissions: share level only */
		ndr_push_u32(out, sh->max_uses);
		ndr_push_u32(out, 0);	/* current_uses */
		ndr_push_ptr(out, true);	/* path */
		ndr_push_ptr(out, false);	/* passwd */
	}
	if (level == 502) {
		ndr_push_u32(out, 0);	/* reserved: SD length */
		ndr_push_ptr(out, false);	/* security_descriptor */
	}
}

static void srvsvc_push_deferred(struct ndr_push *out, uint32_t level,
				 const struct srvsvc_share *sh)
{
	if (level == 1005) {
		return;
	}
	ndr_push_wstring(out, sh->name);
	if (level == 0) {
		return;
	}
	ndr_push_wstring(out, sh->comment);
	if (level == 2 || level == 502) {
		ndr_push_wstring(out, sh->path);
	}
}

/* Skip an [in] SHARE_ENUM_STRUCT's container: clients send it empty. */
static NTSTATUS srvsvc_pull_enum_in(struct ndr_pull *in, uint32_t *level)
{
	uint32_t sw, ptr, count, buf;
	NTSTATUS status;

	status = ndr_pull_u32(in, level);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &sw);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (sw != *level) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!srvsvc_level_ok(sw, false) && sw != 503) {
		return NT_STATUS_OK; /* no arm: nothing more to read */
	}
	status = ndr_pull_ptr(in, &ptr);
	if (!NT_STATUS_IS_OK(status) || ptr == 0) {
		return status;
	}
	status = ndr_pull_u32(in, &count);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &buf);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (buf != 0) {
		uint32_t max_count;

		status = ndr_pull_u32(in, &max_count);
		if (NT_STATUS_IS_OK(status) && (max_count != 0 || count != 0)) {
			/* an [in] buffer with entries: nobody sends that */
			status = NT_STATUS_INVALID_PARAMETER;
		}
	}
	return status;
}

/* `restrict anonymous = 1`: an anonymous session gets no share list and
 * no server information (NetrShareGetInfo by name stays), as Samba 4.17
 * answers; = 2 already refused its IPC$ tree connect. */
static bool srvsvc_anonymous_refused(const struct rpc_call *call)
{
	return call->srv->anonymous &&
	       lp_int(call->srv->lp, LP_GLOBAL, LP_RESTRICT_ANONYMOUS) >= 1;
}

/* `access based share enum`: whether the caller passes the share's user
 * lists (`valid users = %S` substituted as at tree connect). */
static bool srvsvc_share_visible(const struct rpc_call *call, int snum)
{
	const struct rpc_server_ctx *srv = call->srv;
	const struct lp_ctx *lp = srv->lp;
	struct smbd_user_id u = {
		.name = srv->account_name,
		.unix_name = srv->unix_name,
		.gid = srv->gid,
		.groups = srv->groups,
		.ngroups = srv->ngroups,
	};
	struct lp_subst sub = {
		.user = srv->account_name,
		.share = lp_share_name(lp, snum),
		.client_ip = srv->client_addr,
		.unix_user = srv->unix_name,
	};
	TALLOC_CTX *tmp;
	const char **valid, **invalid;
	bool ok = false;
	size_t i, n;

	if (!lp_bool(lp, snum, LP_ACCESS_BASED_SHARE_ENUM)) {
		return true;
	}
	tmp = talloc_new(call->mem_ctx);
	valid = lp_list(tmp, lp, snum, LP_VALID_USERS);
	invalid = lp_list(tmp, lp, snum, LP_INVALID_USERS);
	if (tmp == NULL || valid == NULL || invalid == NULL) {
		goto out;	/* out of memory: shown to nobody */
	}
	/* Samba expands the list before it splits it: an entry that
	 * expands to nothing (%U of an anonymous session) is no entry. */
	for (i = 0, n = 0; valid[i] != NULL; i++) {
		char *v = lp_substitute(tmp, lp, valid[i], &sub);

		if (v == NULL) {
			goto out;
		}
		if (v[0] != '\0') {
			valid[n++] = v;
		}
	}
	valid[n] = NULL;
	ok = !smbd_user_in_list(invalid, &u) &&
	     (valid[0] == NULL || smbd_user_in_list(valid, &u));
out:
	talloc_free(tmp);
	return ok;
}

static NTSTATUS srvsvc_share_enum(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	const struct lp_ctx *lp = call->srv->lp;
	struct srvsvc_share *sh;
	uint32_t level, pref_max, resume_ptr, resume = 0;
	char *server;
	NTSTATUS status;
	int i, n = 0, total;
	uint32_t k, start;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (NT_STATUS_IS_OK(status)) {
		status = srvsvc_pull_enum_in(in, &level);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &pref_max);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &resume_ptr);
	}
	if (NT_STATUS_IS_OK(status) && resume_ptr != 0) {
		status = ndr_pull_u32(in, &resume);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (srvsvc_anonymous_refused(call)) {
		ndr_push_u32(out, level);
		ndr_push_u32(out, level);
		ndr_push_ptr(out, false);
		ndr_push_u32(out, 0); /* TotalEntries */
		ndr_push_ptr(out, resume_ptr != 0);
		if (resume_ptr != 0) {
			ndr_push_u32(out, 0);
		}
		ndr_push_u32(out, WERR_ACCESS_DENIED);
		return NT_STATUS_OK;
	}
	total = lp_num_shares(lp) + 1;
	sh = talloc_zero_array(call->mem_ctx, struct srvsvc_share, total);
	if (sh == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < total; i++) {
		int snum = i < total - 1 ? i : -1;

		if (snum >= 0 && (!lp_bool(lp, snum, LP_BROWSEABLE) ||
				  !lp_bool(lp, snum, LP_AVAILABLE) ||
				  !srvsvc_share_visible(call, snum))) {
			continue;
		}
		srvsvc_fill(call->mem_ctx, call->srv, snum, &sh[n++]);
	}
	start = resume < (uint32_t)n ? resume : (uint32_t)n;

	ndr_push_u32(out, level);
	ndr_push_u32(out, level);
	if (srvsvc_level_ok(level, false)) {
		ndr_push_ptr(out, true);
		ndr_push_u32(out, (uint32_t)n - start);
		ndr_push_ptr(out, true);
		ndr_push_u32(out, (uint32_t)n - start);
		for (k = start; k < (uint32_t)n; k++) {
			srvsvc_push_fixed(out, level, &sh[k]);
		}
		for (k = start; k < (uint32_t)n; k++) {
			srvsvc_push_deferred(out, level, &sh[k]);
		}
	} else if (level == 503) {
		ndr_push_ptr(out, false);
	}
	ndr_push_u32(out, (uint32_t)n); /* TotalEntries */
	ndr_push_ptr(out, resume_ptr != 0);
	if (resume_ptr != 0) {
		ndr_push_u32(out, 0);
	}
	ndr_push_u32(out, srvsvc_level_ok(level, false) ? WERR_OK
							 : WERR_INVALID_LEVEL);
	return NT_STATUS_OK;
}

static NTSTATUS srvsvc_share_getinfo(struct rpc_call *call,
				     struct ndr_pull *in,
				     struct ndr_push *out)
{
	const struct lp_ctx *lp = call->srv->lp;
	struct srvsvc_share sh;
	char *server, *name;
	uint32_t level, werr = WERR_OK;
	NTSTATUS status;
	int snum = -2;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_wstring(in, call->mem_ctx, &name);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &level);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (strcasecmp(name, "IPC$") == 0) {
		snum = -1;
	} else {
		int s = lp_find_share(lp, name);

		if (s >= 0 && lp_bool(lp, s, LP_AVAILABLE)) {
			snum = s;
		}
	}
	if (!srvsvc_level_ok(level, true)) {
		werr = WERR_INVALID_LEVEL;
	} else if (snum == -2) {
		werr = WERR_NERR_NETNAMENOTFOUND;
	}
	ndr_push_u32(out, level);
	if (werr != WERR_OK) {
		if (srvsvc_level_ok(level, true)) {
			ndr_push_ptr(out, false);
		}
		ndr_push_u32(out, werr);
		return NT_STATUS_OK;
	}
	srvsvc_fill(call->mem_ctx, call->srv, snum, &sh);
	ndr_push_ptr(out, true);
	srvsvc_push_fixed(out, level, &sh);
	srvsvc_push_deferred(out, level, &sh);
	ndr_push_u32(out, WERR_OK);
	return NT_STATUS_OK;
}

static NTSTATUS srvsvc_server_getinfo(struct rpc_call *call,
				      struct ndr_pull *in,
				      struct ndr_push *out)
{
	const struct rpc_server_ctx *srv = call->srv;
	uint32_t level;
	char *server;
	NTSTATUS status;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &level);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	ndr_push_u32(out, level);
	if (srvsvc_anonymous_refused(call)) {
		ndr_push_ptr(out, false);
		ndr_push_u32(out, WERR_ACCESS_DENIED);
		return NT_STATUS_OK;
	}
	if (level != 100 && level != 101 && level != 102) {
		ndr_push_ptr(out, false);
		ndr_push_u32(out, WERR_INVALID_LEVEL);
		return NT_STATUS_OK;
	}
	/* SERVER_INFO_100/101/102 (MS-SRVS 2.2.4.40 - 2.2.4.42) */
	ndr_push_ptr(out, true);
	ndr_push_u32(out, PLATFORM_ID_NT);
	ndr_push_ptr(out, true);
	if (level >= 101) {
		ndr_push_u32(out, 6);	/* version 6.1, as Samba reports */
		ndr_push_u32(out, 1);
		ndr_push_u32(out, SV_TYPE_WORKSTATION | SV_TYPE_SERVER |
					  SV_TYPE_PRINTQ_SERVER |
					  SV_TYPE_SERVER_UNIX | SV_TYPE_NT |
					  SV_TYPE_SERVER_NT | SV_TYPE_DFS);
		ndr_push_ptr(out, true);
	}
	if (level == 102) {
		ndr_push_u32(out, 0xffffffff);	/* users */
		ndr_push_u32(out, 15);		/* disc (minutes) */
		ndr_push_u32(out, 0);		/* hidden */
		ndr_push_u32(out, 240);		/* announce */
		ndr_push_u32(out, 3000);	/* anndelta */
		ndr_push_u32(out, 100000);	/* licenses */
		ndr_push_ptr(out, true);
	}
	ndr_push_wstring(out, rpc_server_name(srv));
	if (level >= 101) {
		ndr_push_wstring(out, rpc_server_comment(call->mem_ctx, srv));
	}
	if (level == 102) {
		ndr_push_wstring(out, "C:\\");
	}
	ndr_push_u32(out, WERR_OK);
	return NT_STATUS_OK;
}

/* TIME_OF_DAY_INFO (MS-SRVS 2.2.4.105). */
static NTSTATUS srvsvc_remote_tod(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	struct timespec now, mono;
	struct tm utc, local;
	char *server;
	time_t t;
	NTSTATUS status;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	t = now.tv_sec;
	gmtime_r(&t, &utc);
	localtime_r(&t, &local);
	ndr_push_ptr(out, true);
	ndr_push_u32(out, (uint32_t)t);
	ndr_push_u32(out, (uint32_t)(mono.tv_sec * 1000 +
				     mono.tv_nsec / 1000000));
	ndr_push_u32(out, (uint32_t)utc.tm_hour);
	ndr_push_u32(out, (uint32_t)utc.tm_min);
	ndr_push_u32(out, (uint32_t)utc.tm_sec);
	ndr_push_u32(out, (uint32_t)(now.tv_nsec / 10000000));
	/* minutes west of UTC */
	ndr_push_u32(out, (uint32_t)(int32_t)(-local.tm_gmtoff / 60));
	ndr_push_u32(out, 310);	/* tinterval: 0.0001 s units per tick */
	ndr_push_u32(out, (uint32_t)utc.tm_mday);
	ndr_push_u32(out, (uint32_t)utc.tm_mon + 1);
	ndr_push_u32(out, (uint32_t)utc.tm_year + 1900);
	ndr_push_u32(out, (uint32_t)utc.tm_wday);
	ndr_push_u32(out, WERR_OK);
	return NT_STATUS_OK;
}

static const rpc_op_fn srvsvc_ops[29] = {
	[15] = srvsvc_share_enum,
	[16] = srvsvc_share_getinfo,
	[21] = srvsvc_server_getinfo,
	[28] = srvsvc_remote_tod,
};

const struct rpc_iface rpc_srvsvc_iface = {
	.pipe_name = "srvsvc",
	.sec_addr = "\\PIPE\\srvsvc",
	.syntax = { { 0x4b324fc8, 0x1670, 0x01d3,
		      { 0x12, 0x78, 0x5a, 0x47, 0xbf, 0x6e, 0xe1, 0x88 } },
		    3, 0 },
	.ops = srvsvc_ops,
	.num_ops = 29,
	.init = NULL,
};
