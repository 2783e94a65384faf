/*
 * FSCTL_DFS_GET_REFERRALS and FSCTL_DFS_GET_REFERRALS_EX (MS-SMB2
 * 3.3.5.15.2; MS-DFSC 3.2.5.1, 3.3.5.5 for a standalone namespace):
 * the DFS server of a Samba-style standalone root.
 *
 * The request names "\server\share[\path]".  A share with `msdfs
 * proxy` is answered with the proxy's targets; one with `msdfs root`
 * and nothing after it with a root referral to itself (the path as
 * asked, Samba's answer); a path into an `msdfs root` (or proxy) share
 * is walked in the pool as the session's user (vfs_msdfs_find) to its
 * first msdfs link, whose targets the referral names, PathConsumed
 * covering the path up to the link.  The encoding is dfs_wire.c's.
 *
 * Answers where nothing refers (Samba 4.17's): no such share, not a
 * DFS share, IPC$, no share component: STATUS_NOT_FOUND; a path with
 * no link on it: STATUS_OBJECT_PATH_NOT_FOUND; a directory the user
 * may not search: its status; `host msdfs = no`:
 * STATUS_FS_DRIVER_REQUIRED (3.3.5.15.2).  The server name is not
 * looked at, as in Samba (a client may name the server as it likes).
 * The _EX form is answered as the plain one: a standalone server knows
 * no sites, so a SiteName orders nothing (Samba 4.17 answers _EX with
 * FS_DRIVER_REQUIRED; Windows answers it, and so do we).
 */
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/wire/dfs_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "vfs/fsctl_io.h"
#include "vfs/msdfs.h"
#include "vfs/name.h"
#include "vfs/vfs_posix.h"
#include "lib/charset.h"
#include "lib/crypto.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_MSDFS

/* What a referral's answer is built from, kept across the pool job. */
struct dfs_job {
	struct smb2_ioctl_call call;
	uint16_t max_level;
	bool shuffle;			/* `msdfs shuffle referrals` */
	struct dfs_path p;		/* strings on the job */
	char *path;			/* the request path (p points in) */
	char *norm;			/* p.rest, share-relative, '/' */
	struct vfs_share share;		/* root_fd the job's own */
	/* set by the job */
	NTSTATUS status;
	size_t depth;
	char *text;
};

static int dfs_job_destructor(struct dfs_job *j)
{
	vfs_fd_close(j->share.root_fd);
	return 0;
}

/* The referral for dfs_path's targets, into the IOCTL's reply. */
static NTSTATUS dfs_answer(struct smb2_request *req,
			   const struct smb2_ioctl_call *call,
			   uint16_t max_level, const char *dfs_path,
			   char **targets, size_t n, bool root, bool shuffle)
{
	struct dfs_referral_resp r = {
		.root = root,
		.dfs_path = dfs_path,
		.targets = (const char *const *)targets,
		.ntargets = n,
	};
	struct wire_buf out;
	size_t consumed = dfs_utf16_len(dfs_path, strlen(dfs_path));
	NTSTATUS st;

	if (consumed > UINT16_MAX) {
		return smb2_ioctl_reply(req, call,
					NT_STATUS_OBJECT_NAME_INVALID, NULL);
	}
	r.path_consumed = (uint16_t)consumed;
	if (shuffle && n > 1) {
		uint32_t *rnd = talloc_array(req->mem_ctx, uint32_t, n);

		if (rnd == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		crypto_random(rnd, n * sizeof(*rnd));
		vfs_msdfs_shuffle(targets, n, rnd);
	}
	wire_buf_init(&out, req->mem_ctx, 256);
	st = dfs_referral_resp_push(&out, max_level, &r, call->max_out);
	DBG_INFO("%s: referral for %s: %zu target(s)%s: %s\n",
		 req->conn->remote, dfs_path, n, root ? " (root)" : "",
		 nt_errstr(st));
	return smb2_ioctl_reply(req, call, st, NT_STATUS_IS_ERR(st) ? NULL
								   : &out);
}

/* Pool thread, as the session's user. */
static void dfs_job_run(void *p)
{
	struct dfs_job *j = p;
	bool local;

	j->status = vfs_share_root_open(j->share.path, &j->share.root_fd,
					&local);
	if (NT_STATUS_IS_OK(j->status)) {
		j->status = vfs_msdfs_find(j, &j->share, j->norm, &j->depth,
					   &j->text);
	}
}

static void dfs_job_orphan(void *p)
{
}

static NTSTATUS dfs_job_done(struct smb2_request *req, void *p)
{
	struct dfs_job *j = p;
	char **targets;
	char *dfs_path;
	size_t n, len;

	if (!NT_STATUS_IS_OK(j->status)) {
		return smb2_ioctl_reply(req, &j->call, j->status, NULL);
	}
	if (j->depth == 0) {
		/* no link on the path: nothing to refer (Samba's answer) */
		return smb2_ioctl_reply(req, &j->call,
					NT_STATUS_OBJECT_PATH_NOT_FOUND, NULL);
	}
	len = dfs_path_prefix_len(&j->p, j->norm, j->depth);
	if (len == 0) {
		/* cannot be: norm is the request's own path */
		return smb2_ioctl_reply(req, &j->call,
					NT_STATUS_OBJECT_PATH_NOT_FOUND, NULL);
	}
	dfs_path = talloc_strndup(req->mem_ctx, j->p.full, len);
	if (dfs_path == NULL ||
	    !vfs_msdfs_targets(req->mem_ctx, j->text, &targets, &n)) {
		return NT_STATUS_NO_MEMORY;
	}
	return dfs_answer(req, &j->call, j->max_level, dfs_path, targets, n,
			  false, j->shuffle);
}

/* p->rest as a share-relative path ('/', '..' resolved), with the
 * CREATE name rules (vfs/name.h) as Samba applies them here: a stream
 * is OBJECT_NAME_INVALID, a "." on the way OBJECT_PATH_NOT_FOUND. */
static NTSTATUS dfs_rest_path(TALLOC_CTX *mem_ctx, const char *rest,
			      char **norm)
{
	uint8_t *u;
	size_t n;
	char *stream = NULL;
	NTSTATUS st;

	while (*rest == '\\') {
		rest++;
	}
	if (strchr(rest, ':') != NULL) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	st = charset_utf8_to_utf16(mem_ctx, rest, &u, &n);
	if (NT_STATUS_IS_OK(st)) {
		st = vfs_name_from_wire(mem_ctx, u, n, norm, &stream);
	}
	return st;
}

/* A share's options for the walk: what a CREATE on it would resolve
 * names with (smb2_tcon.c sets the same from the same parameters). */
static NTSTATUS dfs_share_opts(struct smb2_request *req, struct dfs_job *j,
			       int snum, const struct lp_subst *sub)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct vfs_share *sh = &j->share;

	sh->root_fd = -1;
	sh->path = lp_str_subst(j, lp, snum, LP_PATH, sub);
	sh->case_sensitive =
		lp_int(lp, snum, LP_CASE_SENSITIVE) == LP_CASE_YES;
	sh->wide_links = lp_bool(lp, snum, LP_WIDE_LINKS);
	sh->follow_symlinks = lp_bool(lp, snum, LP_FOLLOW_SYMLINKS);
	sh->veto_files = lp_str_subst(j, lp, snum, LP_VETO_FILES, sub);
	sh->msdfs = true;
	if (sh->path == NULL || sh->veto_files == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	return sh->path[0] != '\0' ? NT_STATUS_OK : NT_STATUS_NOT_FOUND;
}

/* What follows the share is nothing but separators: the share itself. */
static bool dfs_names_share(const char *rest)
{
	return rest[strspn(rest, "\\")] == '\0';
}

/* The DFS share the path names: its snum, or -1. */
static int dfs_find_share(const struct lp_ctx *lp, const char *name)
{
	int snum = lp_find_share(lp, name);

	if (snum < 0 || strcasecmp(lp_share_name(lp, snum), "homes") == 0 ||
	    !lp_bool(lp, snum, LP_AVAILABLE) ||
	    lp_bool(lp, snum, LP_PRINTABLE)) {
		return -1;
	}
	if (!lp_bool(lp, snum, LP_MSDFS_ROOT) &&
	    lp_str(lp, snum, LP_MSDFS_PROXY)[0] == '\0') {
		return -1;
	}
	return snum;
}

static NTSTATUS dfs_referrals(struct smb2_ioctl_state *st, bool ex)
{
	struct smb2_request *req = st->req;
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct smbd_session *s = req->session;
	struct dfs_referral_req q;
	struct lp_subst sub;
	struct dfs_job *j;
	char *proxy;
	int snum;
	NTSTATUS status;

	if (!lp_bool(lp, LP_GLOBAL, LP_HOST_MSDFS)) {
		return NT_STATUS_FS_DRIVER_REQUIRED;
	}
	j = talloc_zero(req->mem_ctx, struct dfs_job);
	if (j == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	j->share.root_fd = -1;
	talloc_set_destructor(j, dfs_job_destructor);
	j->call = st->call;
	status = ex ? dfs_referral_req_ex_parse(j, wire_ptr(&st->in),
						wire_remaining(&st->in), &q)
		    : dfs_referral_req_parse(j, wire_ptr(&st->in),
					     wire_remaining(&st->in), &q);
	if (NT_STATUS_IS_OK(status)) {
		j->max_level = q.max_level;
		j->path = q.path;
		status = dfs_path_split(j, j->path, &j->p);
	}
	DBG_DEBUG("%s: referral%s request level %u for '%s'%s%s: %s\n",
		  req->conn->remote, ex ? " (EX)" : "", q.max_level,
		  q.path ? q.path : "?", q.site ? " site " : "",
		  q.site ? q.site : "", nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	snum = dfs_find_share(lp, j->p.share);
	if (snum < 0) {
		return NT_STATUS_NOT_FOUND;
	}
	memset(&sub, 0, sizeof(sub));
	sub.user = s->account_name;
	sub.unix_user = s->unix_name;
	sub.share = j->p.share;
	sub.client_ip = req->conn->remote_addr;
	j->shuffle = lp_bool(lp, snum, LP_MSDFS_SHUFFLE_REFERRALS);
	proxy = lp_str_subst(j, lp, snum, LP_MSDFS_PROXY, &sub);
	if (proxy == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (dfs_names_share(j->p.rest)) {
		char **targets;
		size_t n;

		if (proxy[0] != '\0') {
			/* `msdfs proxy`: the share stands for those */
			if (!vfs_msdfs_targets(j, proxy, &targets, &n)) {
				return NT_STATUS_NO_MEMORY;
			}
			return dfs_answer(req, &j->call, j->max_level,
					  j->p.full, targets, n, false,
					  j->shuffle);
		}
		/* the root itself: its one root target is the path asked */
		targets = talloc_array(j, char *, 1);
		if (targets == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		targets[0] = talloc_strdup(targets, j->p.full);
		if (targets[0] == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		return dfs_answer(req, &j->call, j->max_level, j->p.full,
				  targets, 1, true, false);
	}
	status = dfs_rest_path(j, j->p.rest, &j->norm);
	if (NT_STATUS_IS_OK(status)) {
		status = dfs_share_opts(req, j, snum, &sub);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	talloc_steal(NULL, j);
	return smb2_job_run(req, j, dfs_job_run, dfs_job_done,
			    dfs_job_orphan);
}

NTSTATUS smb2_fsctl_dfs_get_referrals(struct smb2_ioctl_state *st)
{
	return dfs_referrals(st, false);
}

NTSTATUS smb2_fsctl_dfs_get_referrals_ex(struct smb2_ioctl_state *st)
{
	return dfs_referrals(st, true);
}
