/*
 * TREE_CONNECT and TREE_DISCONNECT (MS-SMB2 2.2.9-2.2.12, 3.3.5.7,
 * 3.3.5.8): find the share in smb.conf (IPC$ is built in, [homes] maps a
 * user's own name to the home directory), apply the share's access rules,
 * answer share type, flags and the maximal access.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/smb2/smb2_tcon_names.h"
#include "smbd/auth/access.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/conn_log.h"
#include "smbd/objects/status.h"
#include "smbd/objects/smbd_locking.h"
#include "locking/locking.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "smbd/auth/auth.h"
#include "lib/charset.h"
#include "conf/loadparm.h"
#include "vfs/module.h"
#include "vfs/dirread.h"
#include "vfs/stack_props.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_SHARE_TYPE_DISK 0x01
#define SMB2_SHARE_TYPE_PIPE 0x02

#define SMB2_SHAREFLAG_DFS 0x00000001
#define SMB2_SHAREFLAG_DFS_ROOT 0x00000002
#define SMB2_SHAREFLAG_MANUAL_CACHING 0x00000000
#define SMB2_SHAREFLAG_AUTO_CACHING 0x00000010
#define SMB2_SHAREFLAG_VDO_CACHING 0x00000020
#define SMB2_SHAREFLAG_NO_CACHING 0x00000030
#define SMB2_SHAREFLAG_ACCESS_BASED_DIRECTORY_ENUM 0x00000800
#define SMB2_SHAREFLAG_ENCRYPT_DATA 0x00008000
#define SMB2_SHAREFLAG_COMPRESS_DATA 0x00100000
#define SMB2_SHARE_CAP_DFS 0x00000008

/* MS-SMB2 2.2.13.1.1 access masks for MaximalAccess. */
#define SMBD_ACCESS_READ_ONLY 0x001200a9  /* FILE_GENERIC_READ|EXECUTE */
#define SMBD_ACCESS_ALL 0x001f01ff	  /* FILE_ALL_ACCESS */

static int tcon_destructor(struct smbd_tcon *t)
{
	if (t->id != 0) {
		smbd_status_tcon(t, false);
	}
	if (t->prev != NULL) {
		t->prev->next = t->next;
		t->session->ntcons--;
	} else if (t->session->tcons == t) {
		t->session->tcons = t->next;
		t->session->ntcons--;
	}
	if (t->next != NULL) {
		t->next->prev = t->prev;
	}
	/* talloc runs a parent's destructor before it frees the children:
	 * the tree's opens go first, while the share's root fd is still
	 * open for the deletes they may leave (TREE_DISCONNECT, LOGOFF, a
	 * dropped connection). */
	talloc_free_children(t);
	/* Jobs still running hold their own references (vfs/module.h). */
	vfs_stack_unref(t->vfs);
	t->vfs = NULL;
	/* Closed now, or by the last job that holds it. */
	smbd_tcon_root_release(t);
	smbd_tcon_personality_release(t);
	return 0;
}

/* "\\server\share" -> "share" (a bare name is accepted too). */
static const char *tcon_share_part(const char *unc)
{
	const char *p;

	if (unc[0] == '\\' && unc[1] == '\\') {
		p = strchr(unc + 2, '\\');
		return p != NULL ? p + 1 : NULL;
	}
	return unc;
}

/* valid users (substituted: `valid users = %S` is the usual [homes]
 * rule), invalid users, read list, write list */
struct tcon_lists {
	const char **valid, **invalid, **rlist, **wlist;
};

static void tcon_lists(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp,
		       int snum, const struct lp_subst *sub,
		       struct tcon_lists *l)
{
	size_t i;

	l->valid = lp_list(mem_ctx, lp, snum, LP_VALID_USERS);
	l->invalid = lp_list(mem_ctx, lp, snum, LP_INVALID_USERS);
	for (i = 0; l->valid != NULL && l->valid[i] != NULL; i++) {
		l->valid[i] = lp_substitute(mem_ctx, lp, l->valid[i], sub);
	}
	l->rlist = lp_list(mem_ctx, lp, snum, LP_READ_LIST);
	l->wlist = lp_list(mem_ctx, lp, snum, LP_WRITE_LIST);
}

/* Who may connect, and read-only or not.  The lists' groups are names
 * the pool resolved (smb2_tcon_names.h): no NSS call here. */
static NTSTATUS tcon_check_access(struct smb2_request *req,
				  struct smbd_session *s, int snum,
				  const struct lp_subst *sub,
				  struct tcon_names *names, bool *read_only)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	TALLOC_CTX *tmp = talloc_new(req->mem_ctx);
	struct smbd_user_id uid = {
		.name = s->account_name,
		.unix_name = s->unix_name,
		.gid = s->gid,
		.groups = s->groups,
		.ngroups = s->ngroups,
		.group_gid = tcon_names_gid,
		.group_priv = names,
	};
	const char **allow = lp_list(tmp, lp, snum, LP_HOSTS_ALLOW);
	const char **deny = lp_list(tmp, lp, snum, LP_HOSTS_DENY);
	struct tcon_lists l;
	NTSTATUS st = NT_STATUS_ACCESS_DENIED;

	if (!smbd_host_allowed(allow, deny, req->conn->remote_addr)) {
		DBG_NOTICE("%s: host not allowed on [%s]\n", req->conn->remote,
			   lp_share_name(lp, snum));
		goto out;
	}
	if ((s->guest || s->anonymous) && !lp_bool(lp, snum, LP_GUEST_OK)) {
		goto out;
	}
	tcon_lists(tmp, lp, snum, sub, &l);
	if (!s->guest && !s->anonymous) {
		if (smbd_user_in_list(l.invalid, &uid)) {
			goto out;
		}
		if (l.valid != NULL && l.valid[0] != NULL &&
		    !smbd_user_in_list(l.valid, &uid)) {
			goto out;
		}
	} else if (l.valid != NULL && l.valid[0] != NULL) {
		goto out;
	}
	*read_only = lp_bool(lp, snum, LP_READ_ONLY);
	if (smbd_user_in_list(l.rlist, &uid)) {
		*read_only = true;
	}
	if (smbd_user_in_list(l.wlist, &uid)) {
		*read_only = false;
	}
	st = NT_STATUS_OK;
out:
	talloc_free(tmp);
	return st;
}

/* Resolve the share name to a configured share (snum) or IPC$ (-1). */
static NTSTATUS tcon_find_share(struct smb2_request *req,
				struct smbd_session *s, const char *name,
				int *snum, bool *homes)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;

	*homes = false;
	if (strcasecmp(name, "IPC$") == 0) {
		*snum = -1;
		return NT_STATUS_OK;
	}
	*snum = lp_find_share(lp, name);
	if (*snum >= 0 && strcasecmp(lp_share_name(lp, *snum), "homes") == 0) {
		*snum = -1; /* [homes] itself is not a share name */
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	if (*snum < 0 && s->account_name != NULL &&
	    (strcasecmp(name, s->account_name) == 0 ||
	     (s->unix_name && strcasecmp(name, s->unix_name) == 0))) {
		*snum = lp_find_share(lp, "homes");
		*homes = *snum >= 0;
	}
	if (*snum < 0 || !lp_bool(lp, *snum, LP_AVAILABLE) ||
	    lp_bool(lp, *snum, LP_PRINTABLE)) {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	return NT_STATUS_OK;
}

/* `msdfs root`, which `host msdfs = no` switches off as in Samba. */
static bool tcon_is_dfs_root(const struct lp_ctx *lp, int snum)
{
	return lp_bool(lp, LP_GLOBAL, LP_HOST_MSDFS) &&
	       lp_bool(lp, snum, LP_MSDFS_ROOT);
}

static uint32_t tcon_share_flags(const struct lp_ctx *lp, int snum)
{
	uint32_t f = 0;

	switch (lp_int(lp, snum, LP_CSC_POLICY)) {
	case LP_CSC_DOCUMENTS:
		f |= SMB2_SHAREFLAG_AUTO_CACHING;
		break;
	case LP_CSC_PROGRAMS:
		f |= SMB2_SHAREFLAG_VDO_CACHING;
		break;
	case LP_CSC_DISABLE:
		f |= SMB2_SHAREFLAG_NO_CACHING;
		break;
	default:
		break;
	}
	if (lp_bool(lp, snum, LP_ACCESS_BASED_SHARE_ENUM)) {
		f |= SMB2_SHAREFLAG_ACCESS_BASED_DIRECTORY_ENUM;
	}
	/* 2.2.10: the client should compress what it sends here */
	if (lp_int(lp, snum, LP_SMB3_COMPRESSION) == LP_COMPRESS_YES) {
		f |= SMB2_SHAREFLAG_COMPRESS_DATA;
	}
	/* 2.2.10, 3.3.5.7: a DFS root says so; its paths may then be
	 * referred elsewhere (PATH_NOT_COVERED, smb2_fsctl_dfs.c). */
	if (tcon_is_dfs_root(lp, snum)) {
		f |= SMB2_SHAREFLAG_DFS | SMB2_SHAREFLAG_DFS_ROOT;
	}
	return f;
}

/*
 * The share's `server smb encrypt` (a share section may set it, as in
 * Samba): `required` encrypts the tree and refuses plain requests on it
 * (MS-SMB2 3.3.5.7 Share.EncryptData with RejectUnencryptedAccess), and a
 * session that cannot encrypt (SMB 2.x, a guest or anonymous session
 * without keys) cannot connect it; `desired` encrypts the tree where the
 * session can.  The other values leave it to [global]'s session rule.
 */
static NTSTATUS tcon_encryption(struct smb2_request *req,
				const struct smbd_session *s,
				struct smbd_tcon *t, const struct lp_ctx *lp)
{
	int e = lp_int(lp, t->snum, LP_SERVER_SMB_ENCRYPT);
	bool can = s->has_keys &&
		   (req->conn->cipher != 0 ||
		    (req->conn->server_caps & SMB2_GLOBAL_CAP_ENCRYPTION));

	if (e == LP_ENCRYPT_REQUIRED && !can) {
		DBG_NOTICE("%s: [%s] requires encryption, which this session "
			   "cannot do: refused\n", req->conn->remote,
			   t->share_name);
		return NT_STATUS_ACCESS_DENIED;
	}
	t->encrypt_data = can && (e == LP_ENCRYPT_REQUIRED ||
				  e == LP_ENCRYPT_DESIRED);
	t->encrypt_required = e == LP_ENCRYPT_REQUIRED;
	return NT_STATUS_OK;
}

/*
 * The vfs modules' options, read through conf/loadparm's parametric
 * lookups (vfs/module.h struct vfs_module_params): "mod:opt" in the
 * share, then [global]; a module asks for the share's `%` substitutions
 * where Samba's module makes them.
 */
struct tcon_params {
	const struct lp_ctx *lp;
	int snum;
	const struct lp_subst *sub;
};

static char *tcon_parm_key(char *buf, size_t len, const char *mod,
			   const char *opt)
{
	int n = snprintf(buf, len, "%s:%s", mod, opt);

	return n > 0 && (size_t)n < len ? buf : NULL;
}

static const char *tcon_parm_str(void *ctx, TALLOC_CTX *mem_ctx,
				 const char *mod, const char *opt)
{
	const struct tcon_params *tp = ctx;
	char key[128];
	const char *v;

	if (tcon_parm_key(key, sizeof(key), mod, opt) == NULL) {
		return NULL;
	}
	v = lp_parm_str(tp->lp, tp->snum, key, NULL);
	return v != NULL ? talloc_strdup(mem_ctx, v) : NULL;
}

static char *tcon_parm_subst(void *ctx, TALLOC_CTX *mem_ctx,
			     const char *value)
{
	const struct tcon_params *tp = ctx;

	return lp_substitute(mem_ctx, tp->lp, value, tp->sub);
}

static bool tcon_parm_bool(void *ctx, const char *mod, const char *opt,
			   bool def)
{
	const struct tcon_params *tp = ctx;
	char key[128];

	return tcon_parm_key(key, sizeof(key), mod, opt)
		       ? lp_parm_bool(tp->lp, tp->snum, key, def)
		       : def;
}

static int tcon_parm_int(void *ctx, const char *mod, const char *opt, int def)
{
	const struct tcon_params *tp = ctx;
	char key[128];

	return tcon_parm_key(key, sizeof(key), mod, opt)
		       ? lp_parm_int(tp->lp, tp->snum, key, def)
		       : def;
}

static uint64_t tcon_parm_bytes(void *ctx, const char *mod, const char *opt,
				uint64_t def)
{
	const struct tcon_params *tp = ctx;
	char key[128];

	return tcon_parm_key(key, sizeof(key), mod, opt)
		       ? lp_parm_bytes(tp->lp, tp->snum, key, def)
		       : def;
}

static const char **tcon_parm_list(void *ctx, TALLOC_CTX *mem_ctx,
				   const char *mod, const char *opt)
{
	const struct tcon_params *tp = ctx;
	char key[128];

	if (tcon_parm_key(key, sizeof(key), mod, opt) == NULL) {
		return NULL;
	}
	return lp_parm_list(mem_ctx, tp->lp, tp->snum, key);
}

/* Named streams with `vfs objects` as Samba reads it, except that an
 * empty list (the default) keeps them: see struct vfs_share.streams. */
static bool vfs_objects_have_streams(const char *const *names)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(names[i], "streams_xattr") == 0) {
			return true;
		}
	}
	return i == 0;
}

/* Names the module stack vetoes besides `veto files` (the AppleDouble
 * "._" files, vfs/stack_props.h) are added to them. */
static NTSTATUS tcon_veto_extra(struct smbd_tcon *t)
{
	const char *extra = vfs_stack_veto_extra(t->vfs);

	if (extra == NULL) {
		return NT_STATUS_OK;
	}
	t->share.veto_files = talloc_asprintf(
		t, "%s%s",
		t->share.veto_files != NULL ? t->share.veto_files : "", extra);
	return t->share.veto_files != NULL ? NT_STATUS_OK
					   : NT_STATUS_NO_MEMORY;
}

/*
 * `vfs objects` names only modules this server has (issue 34 item 7):
 * a share served without one would be another share (without ceph's or
 * glusterfs's, the local directory under the same path; without
 * full_audit, worm or readonly, the files without their rules).  Samba
 * refuses the tree connect of a module it cannot load with
 * BAD_NETWORK_NAME and logs it at level 0; so do we, naming each.  A
 * builtin module (vfs/module.h: io_uring, aio_pthread) gets a note.
 */
static NTSTATUS tcon_check_modules(const struct smbd_tcon *t,
				   const char *const *names)
{
	const struct vfs_module *m;
	bool refused = false;
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		m = vfs_module_find(names[i]);
		if (m == NULL) {
			DBG_ERR("share [%s]: vfs objects: no module '%s' in "
				"this server: tree connect refused\n",
				t->share_name, names[i]);
			refused = true;
		} else if (m->builtin != NULL) {
			LOG_AT(2, "share [%s]: vfs objects: '%s' loads "
				  "nothing: %s\n",
			       t->share_name, names[i], m->builtin);
		}
	}
	return refused ? NT_STATUS_BAD_NETWORK_NAME : NT_STATUS_OK;
}

static NTSTATUS tcon_modules_known(const struct lp_ctx *lp,
				   const struct smbd_tcon *t)
{
	const char **names = lp_list(NULL, lp, t->snum, LP_VFS_OBJECTS);
	NTSTATUS st;

	if (names == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st = tcon_check_modules(t, names);
	talloc_free(names);
	return st;
}

/* The share's module stack from `vfs objects`, in order (vfs/module.h). */
static NTSTATUS tcon_setup_vfs(const struct lp_ctx *lp, struct smbd_tcon *t,
			       const struct lp_subst *sub)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	const char **names = lp_list(tmp, lp, t->snum, LP_VFS_OBJECTS);
	struct tcon_params tp = {lp, t->snum, sub};
	const struct vfs_module_params p = {
		.str = tcon_parm_str,
		.subst = tcon_parm_subst,
		.boolean = tcon_parm_bool,
		.integer = tcon_parm_int,
		.bytes = tcon_parm_bytes,
		.list = tcon_parm_list,
		.ctx = &tp,
	};
	const char **unknown = NULL;
	NTSTATUS st;

	if (tmp == NULL || names == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	st = vfs_stack_build(tmp, names, &p, &t->share, &t->vfs, &unknown);
	/* names is tmp's: read it before tmp goes */
	t->share.streams = vfs_objects_have_streams(names);
	if (NT_STATUS_IS_OK(st) && unknown != NULL) {
		/* checked before the root was entered; a reload since
		 * named another module */
		st = tcon_check_modules(t, names);
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(st)) {
		DBG_ERR("share [%s]: vfs objects: %s\n", t->share_name,
			nt_errstr(st));
		return st;
	}
	t->share.acl_xattr = vfs_stack_has(t->vfs, "acl_xattr");
	t->share.name_map = vfs_stack_name_map(t->vfs);
	return tcon_veto_extra(t);
}

/* `force group = [+]group`: the primary group file work runs with; with
 * the `+`, only for users already in that group (smb.conf(5)). */
static NTSTATUS tcon_force_group(struct smbd_tcon *t, const char *name,
				 const struct tcon_names *names)
{
	bool only_members = name[0] == '+';
	NTSTATUS st = names->force_group_status;
	gid_t gid = names->force_gid;
	size_t i;

	if (names->force_group == NULL ||
	    strcmp(names->force_group, name) != 0) {
		st = NT_STATUS_NO_SUCH_GROUP; /* not resolved: a reload */
	}
	if (!NT_STATUS_IS_OK(st)) {
		DBG_ERR("share [%s]: force group '%s': no such group\n",
			t->share_name, name);
		return st;
	}
	if (only_members && t->force_gid != gid) {
		for (i = 0; i < t->force_ngroups; i++) {
			if (t->force_groups[i] == gid) {
				break;
			}
		}
		if (i == t->force_ngroups) {
			return NT_STATUS_OK;
		}
	}
	t->force_gid = gid;
	return NT_STATUS_OK;
}

/*
 * `force user` and `force group`: all file work on the tree runs as the
 * forced user (its uid, primary group and groups) and/or with the forced
 * primary group, so new files belong to them (issue 15 item 2).  Who may
 * connect (valid users, read list, ...) was decided on the real user.
 */
static NTSTATUS tcon_force_ids(const struct lp_ctx *lp, struct smbd_session *s,
			       struct smbd_tcon *t, const struct lp_subst *sub,
			       const struct tcon_names *names)
{
	char *user = lp_str_subst(t, lp, t->snum, LP_FORCE_USER, sub);
	char *group = lp_str_subst(t, lp, t->snum, LP_FORCE_GROUP, sub);
	struct auth_user_info *u;
	NTSTATUS st;

	if (user == NULL || group == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (user[0] == '\0' && group[0] == '\0') {
		return NT_STATUS_OK;
	}
	t->forced = true;
	t->force_uid = s->uid;
	t->force_gid = s->gid;
	t->force_ngroups = s->ngroups;
	t->force_groups = s->ngroups > 0
				  ? talloc_memdup(t, s->groups,
						  sizeof(gid_t) * s->ngroups)
				  : NULL;
	if (user[0] != '\0') {
		/* resolved in the pool (smb2_tcon_names.h) */
		st = names->force_user != NULL &&
				     strcmp(names->force_user, user) == 0
			     ? names->force_user_status
			     : NT_STATUS_NO_SUCH_USER;
		u = names->force_user_info;
		if (NT_STATUS_IS_OK(st)) {
			u = talloc_steal(t, u);
		}
		if (!NT_STATUS_IS_OK(st)) {
			DBG_ERR("share [%s]: force user '%s': %s\n",
				t->share_name, user, nt_errstr(st));
			return st;
		}
		t->force_uid = u->uid;
		t->force_gid = u->gid;
		t->force_ngroups = u->ngroups;
		t->force_groups = u->groups;
	}
	if (t->force_ngroups > 0 && t->force_groups == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (group[0] != '\0') {
		return tcon_force_group(t, group, names);
	}
	return NT_STATUS_OK;
}

/* The share's options for vfs/, read once at tree connect, around the
 * root the pool job entered as the user (tcon_enter_job). */
static NTSTATUS tcon_setup_share(const struct lp_ctx *lp, struct smbd_tcon *t,
				 const struct lp_subst *sub)
{
	struct vfs_share *sh = &t->share;
	int snum = t->snum;

	sh->path = t->path;
	/* `case sensitive = auto` means case-insensitive for SMB2 clients,
	 * which do not tell us otherwise (Samba does the same). */
	sh->case_sensitive = lp_int(lp, snum, LP_CASE_SENSITIVE) == LP_CASE_YES;
	sh->wide_links = lp_bool(lp, snum, LP_WIDE_LINKS);
	sh->follow_symlinks = lp_bool(lp, snum, LP_FOLLOW_SYMLINKS);
	sh->store_dos_attributes = lp_bool(lp, snum, LP_STORE_DOS_ATTRIBUTES);
	sh->map_archive = lp_bool(lp, snum, LP_MAP_ARCHIVE);
	sh->map_hidden = lp_bool(lp, snum, LP_MAP_HIDDEN);
	sh->map_system = lp_bool(lp, snum, LP_MAP_SYSTEM);
	sh->map_readonly = lp_int(lp, snum, LP_MAP_READONLY) != LP_MAP_READONLY_NO;
	sh->hide_dot_files = lp_bool(lp, snum, LP_HIDE_DOT_FILES);
	sh->veto_files = lp_str_subst(t, lp, snum, LP_VETO_FILES, sub);
	sh->hide_files = lp_str_subst(t, lp, snum, LP_HIDE_FILES, sub);
	sh->ea_support = lp_bool(lp, snum, LP_EA_SUPPORT);
	sh->msdfs = tcon_is_dfs_root(lp, snum);
	t->use_sendfile = lp_bool(lp, snum, LP_USE_SENDFILE);
	t->compress_reads = lp_int(lp, snum, LP_SMB3_COMPRESSION);
	sh->create_mask = (mode_t)lp_int(lp, snum, LP_CREATE_MASK);
	sh->directory_mask = (mode_t)lp_int(lp, snum, LP_DIRECTORY_MASK);
	sh->force_create_mode = (mode_t)lp_int(lp, snum, LP_FORCE_CREATE_MODE);
	sh->force_directory_mode =
		(mode_t)lp_int(lp, snum, LP_FORCE_DIRECTORY_MODE);
	sh->inherit_permissions = lp_bool(lp, snum, LP_INHERIT_PERMISSIONS);
	return tcon_setup_vfs(lp, t, sub);
}

/* The `%` substitutions of the tree's parameters; home is %H (the
 * logon's, or what the pool asked NSS: smb2_tcon_names.h). */
static void tcon_subst(const struct smb2_request *req,
		       const struct smbd_session *s, const struct smbd_tcon *t,
		       const char *home, struct lp_subst *sub)
{
	memset(sub, 0, sizeof(*sub));
	sub->user = s->account_name;
	sub->share = t->share_name;
	sub->client_ip = req->conn->remote_addr;
	sub->unix_user = s->unix_name;
	sub->home = home;
}

/* Who may connect, as whom, and to which directory: all that is decided
 * before the share's root is entered (no file-system call here). */
static NTSTATUS tcon_setup_disk(struct smb2_request *req,
				struct smbd_session *s, struct smbd_tcon *t,
				bool homes, const struct lp_subst *sub,
				struct tcon_names *names)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	bool ro = true;
	NTSTATUS status;

	status = tcon_check_access(req, s, t->snum, sub, names, &ro);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (lp_bool(lp, LP_GLOBAL, LP_HOST_MSDFS) &&
	    lp_str(lp, t->snum, LP_MSDFS_PROXY)[0] != '\0') {
		/* `msdfs proxy`: the share only stands for another one, to
		 * which a referral for it sends the client
		 * (smb2_fsctl_dfs.c); a client that connects without
		 * asking gets what Samba 4.17 answers it. */
		DBG_NOTICE("%s: [%s] is an msdfs proxy: the client should "
			   "have followed its referral\n", req->conn->remote,
			   t->share_name);
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	status = tcon_force_ids(lp, s, t, sub, names);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = tcon_modules_known(lp, t);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (homes) {
		t->path = sub->home ? talloc_strdup(t, sub->home) : NULL;
	} else {
		t->path = lp_str_subst(t, lp, t->snum, LP_PATH, sub);
	}
	if (t->path == NULL || t->path[0] == '\0') {
		DBG_ERR("share [%s]: no path\n", t->share_name);
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	t->read_only = ro;
	t->maximal_access = ro ? SMBD_ACCESS_READ_ONLY : SMBD_ACCESS_ALL;
	return NT_STATUS_OK;
}

/* The tree is made: it joins the session and the status records, and
 * the reply (2.2.10) goes. */
static NTSTATUS tcon_finish(struct smb2_request *req, struct smbd_session *s,
			    struct smbd_tcon *t)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;

	t->id = s->next_tid++;
	t->next = s->tcons;
	if (t->next != NULL) {
		t->next->prev = t;
	}
	s->tcons = t;
	s->ntcons++;
	smbd_status_tcon(t, true);
	req->tree_id = t->id;
	/* Samba's level for this line: 2, IPC$ 3 (what an admin reading
	 * log.%m at `log level = 2` expects to see per client). */
	LOG_AT(t->ipc ? LOG_NOTICE : 2, "%s: %s connected to [%s] (tid %u)\n",
	       req->conn->remote, s->anonymous ? "anonymous" : s->account_name,
	       t->share_name, t->id);

	/* 2.2.10 TREE_CONNECT Response */
	wire_push_le16(req->out, 16);
	wire_push_u8(req->out,
		     t->ipc ? SMB2_SHARE_TYPE_PIPE : SMB2_SHARE_TYPE_DISK);
	wire_push_u8(req->out, 0);
	wire_push_le32(req->out,
		       t->ipc ? 0
			      : tcon_share_flags(lp, t->snum) |
					(t->encrypt_data
						 ? SMB2_SHAREFLAG_ENCRYPT_DATA
						 : 0));
	/* Capabilities: DFS on a DFS root (Samba's answer), no CA */
	wire_push_le32(req->out, !t->ipc && tcon_is_dfs_root(lp, t->snum)
					 ? SMB2_SHARE_CAP_DFS
					 : 0);
	wire_push_le32(req->out, t->maximal_access);
	return NT_STATUS_OK;
}

/*
 * Entering the share (issue 34 item 4).  The root is opened in the pool
 * as the tree's user (its `force user`/`force group` ids), so the kernel
 * checks search permission on every directory above it and on the root
 * itself, as when Samba's smbd chdirs there as the user: a user who may
 * not reach the directory gets no tree, whatever root could open.  Root
 * (uid 0) passes, as it does locally.  Samba 4.17 connects the tree and
 * then fails every request on it with ACCESS_DENIED; we answer
 * ACCESS_DENIED at once.  Once entered, the tree works through its root
 * descriptor, as a process whose working directory is inside: taking
 * the rights away above it later does not stop a connected tree (Samba,
 * which enters by path again, stops it; smbcontrol close-share does
 * that here).
 *
 * Meanwhile the tree waits unlinked as the session's child.  If the
 * session goes first (LOGOFF, a dropped connection), the tree goes with
 * it and tcon_guard tells the job's state; a tree still attached when
 * the state goes (the job could not run, its connection went) is freed
 * with it.
 */
struct tcon_enter;

struct tcon_guard {
	struct tcon_enter *e;
};

struct tcon_enter {
	struct smbd_tcon *t;		/* NULL once it is gone or taken */
	struct tcon_guard *guard;	/* t's child while attached */
	bool homes;			/* t is a [homes] share */
	const char *home;		/* %H (t's or the session's) */
	/* what NSS must say first, asked in the pool (first job) */
	struct tcon_names *names;
	char *path;			/* the job's own copy */
	/* set by the job */
	int fd;
	bool local_fs;
	NTSTATUS status;
};

static int tcon_guard_destructor(struct tcon_guard *g)
{
	if (g->e != NULL) {
		g->e->t = NULL;
		g->e->guard = NULL;
	}
	return 0;
}

/* The state lets go of its tree: the caller has it now. */
static struct smbd_tcon *tcon_enter_take(struct tcon_enter *e)
{
	struct smbd_tcon *t = e->t;

	if (t != NULL) {
		t->session->ntcons_entering--;
	}
	if (e->guard != NULL) {
		e->guard->e = NULL;
		TALLOC_FREE(e->guard);
	}
	e->t = NULL;
	return t;
}

static int tcon_enter_destructor(struct tcon_enter *e)
{
	TALLOC_FREE(e->names);
	talloc_free(tcon_enter_take(e));
	if (e->fd != -1) {
		vfs_dir_close(e->fd);
	}
	return 0;
}

/* Pool thread, as the tree's user. */
static void tcon_enter_job(void *p)
{
	struct tcon_enter *e = p;

	e->status = vfs_share_root_open(e->path, &e->fd, &e->local_fs);
}

/* What the client hears when the root could not be entered. */
static NTSTATUS tcon_enter_refused(const struct smb2_request *req,
				   const struct smbd_tcon *t, NTSTATUS st)
{
	if (st == NT_STATUS_ACCESS_DENIED) {
		DBG_NOTICE("%s: share [%s]: %s may not enter %s\n",
			   req->conn->remote, t->share_name,
			   t->session->anonymous ? "anonymous"
						 : t->session->account_name,
			   t->path);
		return st;
	}
	DBG_ERR("share [%s]: cannot open %s: %s\n", t->share_name, t->path,
		nt_errstr(st));
	/* Out of descriptors or memory is the server's state, not the
	 * share's: answer as an open would, not BAD_NETWORK_NAME, which
	 * MS-SMB2 3.3.5.7 keeps for a share that does not exist and which
	 * a client does not retry. */
	if (st == NT_STATUS_TOO_MANY_OPENED_FILES ||
	    st == NT_STATUS_NO_MEMORY) {
		return st;
	}
	return NT_STATUS_BAD_NETWORK_NAME;
}

/* Loop thread: the root is entered (or not); the tree is finished. */
static NTSTATUS tcon_enter_finish(struct smb2_request *req,
				  struct tcon_enter *e)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct smbd_tcon *t = tcon_enter_take(e);
	struct smbd_session *s;
	struct lp_subst sub;
	NTSTATUS st;

	if (t == NULL) {
		/* The session went while the job ran (3.3.5.2.9). */
		return NT_STATUS_USER_SESSION_DELETED;
	}
	s = t->session;
	st = e->status;
	if (!NT_STATUS_IS_OK(st)) {
		st = tcon_enter_refused(req, t, st);
		talloc_free(t);
		return st;
	}
	t->share.root_fd = e->fd;
	e->fd = -1;
	t->share.local_fs = e->local_fs;
	/* A reload while the job ran renumbers the shares, or removes this
	 * one (smbd_tcons_reloaded does the same for connected trees). */
	t->snum = lp_find_share(lp, t->section);
	if (t->snum < 0 || !lp_bool(lp, t->snum, LP_AVAILABLE)) {
		talloc_free(t);
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	tcon_subst(req, s, t, e->home, &sub);
	st = tcon_setup_share(lp, t, &sub);
	if (NT_STATUS_IS_OK(st)) {
		st = tcon_encryption(req, s, t, lp);
	}
	if (NT_STATUS_IS_OK(st) && s->ntcons >= SMBD_MAX_TCONS_PER_SESSION) {
		/* others finished while this one was in the pool */
		st = NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(t);
		return st;
	}
	return tcon_finish(req, s, t);
}

static NTSTATUS tcon_enter_done(struct smb2_request *req, void *p)
{
	/* What it logs goes to the client's file (`log file = log.%m`),
	 * as it would were the tree connect answered at once. */
	int prev = smbd_conn_log_enter(req->conn);
	NTSTATUS st = tcon_enter_finish(req, p);

	smbd_conn_log_leave(prev);
	return st;
}

/* Decide who may connect, then enter the root in the pool
 * (SMBD_STATUS_ASYNC); e (and its tree) is freed on every other
 * outcome. */
static NTSTATUS tcon_enter_setup(struct smb2_request *req,
				 struct tcon_enter *e)
{
	struct smbd_tcon *t = e->t;
	struct smbd_session *s = t->session;
	struct lp_subst sub;
	NTSTATUS st;

	tcon_subst(req, s, t, e->home, &sub);
	st = tcon_setup_disk(req, s, t, e->homes, &sub, e->names);
	if (NT_STATUS_IS_OK(st)) {
		e->path = talloc_strdup(e, t->path);
		st = e->path != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(e);
		return st;
	}
	/* smbd_tree_cred takes the forced ids from the request's tree:
	 * this one, for the job's credentials only (the dispatcher finds
	 * the tree again by id when the reply goes). */
	req->tcon = t;
	st = smb2_job_run(req, e, tcon_enter_job, tcon_enter_done, NULL);
	req->tcon = NULL;
	return st;
}

/* Pool thread: the names the loop collected, asked of NSS. */
static void tcon_names_job(void *p)
{
	struct tcon_enter *e = p;

	tcon_names_resolve(e->names);
}

/* Loop thread: NSS has answered; the tree is decided and entered. */
static NTSTATUS tcon_names_done(struct smb2_request *req, void *p)
{
	struct tcon_enter *e = p;
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	int prev;
	NTSTATUS st;

	if (e->t == NULL) {
		/* The session went while the job ran (3.3.5.2.9). */
		return NT_STATUS_USER_SESSION_DELETED;
	}
	/* a reload meanwhile renumbers the shares or removes this one */
	e->t->snum = lp_find_share(lp, e->t->section);
	if (e->t->snum < 0 || !lp_bool(lp, e->t->snum, LP_AVAILABLE)) {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	if (e->names->home != NULL) {
		e->home = e->names->home;
	}
	prev = smbd_conn_log_enter(req->conn);
	/* the state is the next job's (freed if it cannot start) */
	st = tcon_enter_setup(req, e);
	smbd_conn_log_leave(prev);
	return st;
}

/* The NSS questions of this tree connect (smb2_tcon_names.h); false:
 * no memory. */
static bool tcon_names_collect(struct smb2_request *req,
			       struct smbd_session *s, struct tcon_enter *e)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct smbd_tcon *t = e->t;
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct tcon_names *n = tcon_names_new();
	struct tcon_lists l;
	struct lp_subst sub;
	char *user, *group;
	bool ok;

	e->names = n;
	if (tmp == NULL || n == NULL) {
		talloc_free(tmp);
		return false;
	}
	/* [homes] without a home from the logon: NSS's, in the pool (a
	 * domain user's came from winbindd at logon, or there is none) */
	if (e->home == NULL && s->nsids == 0 && s->unix_name != NULL) {
		n->home_user = talloc_strdup(n, s->unix_name);
		ok = n->home_user != NULL;
	} else {
		ok = true;
	}
	tcon_subst(req, s, t, e->home, &sub);
	tcon_lists(tmp, lp, t->snum, &sub, &l);
	ok = ok && tcon_names_add_list(n, l.valid) &&
	     tcon_names_add_list(n, l.invalid) &&
	     tcon_names_add_list(n, l.rlist) &&
	     tcon_names_add_list(n, l.wlist);
	user = lp_str_subst(tmp, lp, t->snum, LP_FORCE_USER, &sub);
	group = lp_str_subst(tmp, lp, t->snum, LP_FORCE_GROUP, &sub);
	ok = ok && user != NULL && group != NULL;
	if (ok && user[0] != '\0') {
		n->force_user = talloc_strdup(n, user);
		ok = n->force_user != NULL;
	}
	if (ok && group[0] != '\0') {
		n->force_group = talloc_strdup(n, group);
		ok = n->force_group != NULL;
	}
	talloc_free(tmp);
	return ok;
}

/* A disk share's tree: what NSS must say is asked in the pool, then
 * who may connect is decided and the root entered in the pool
 * (SMBD_STATUS_ASYNC).  t is freed on every other outcome. */
static NTSTATUS tcon_enter_send(struct smb2_request *req,
				struct smbd_session *s, struct smbd_tcon *t,
				bool homes)
{
	struct tcon_enter *e = talloc_zero(NULL, struct tcon_enter);
	NTSTATUS st;

	if (e == NULL) {
		talloc_free(t);
		return NT_STATUS_NO_MEMORY;
	}
	e->fd = -1;
	talloc_set_destructor(e, tcon_enter_destructor);
	e->t = t;
	e->guard = talloc_zero(t, struct tcon_guard);
	if (e->guard == NULL) {
		e->t = NULL;
		talloc_free(e);
		talloc_free(t);
		return NT_STATUS_NO_MEMORY;
	}
	e->guard->e = e;
	talloc_set_destructor(e->guard, tcon_guard_destructor);
	s->ntcons_entering++;
	/* From here freeing e frees t. */
	e->homes = homes;
	e->home = s->home;
	if (!tcon_names_collect(req, s, e)) {
		talloc_free(e);
		return NT_STATUS_NO_MEMORY;
	}
	if (tcon_names_empty(e->names)) {
		return tcon_enter_setup(req, e);
	}
	req->tcon = t;
	st = smb2_job_run(req, e, tcon_names_job, tcon_names_done, NULL);
	req->tcon = NULL;
	return st;
}

NTSTATUS smb2_tcon(struct smb2_request *req)
{
	struct smbd_session *s = req->session;
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct wire_cur *b = &req->body;
	struct smbd_tcon *t;
	uint16_t off, len;
	char *unc = NULL;
	const char *name;
	bool homes;
	int snum;
	NTSTATUS st;

	if (req->conn->dialect == SMB2_DIALECT_0311 && !s->guest &&
	    !s->anonymous && !req->signed_in) {
		/* 3.3.5.7: on 3.1.1 a user's TREE_CONNECT comes signed or
		 * encrypted (3.2.4.1.1: clients sign it even where signing
		 * is not required), so nobody in the middle can connect a
		 * tree in the session.  The spec has the server drop the
		 * connection; Samba 4.17 answers ACCESS_DENIED (unsigned)
		 * and keeps it, and so do we: the tree is refused either
		 * way, and the client learns why. */
		DBG_NOTICE("%s: unsigned TREE_CONNECT in a 3.1.1 session: "
			   "refused\n", req->conn->remote);
		return NT_STATUS_ACCESS_DENIED;
	}
	(void)wire_skip(b, 4);
	(void)wire_pull_le16(b, &off);
	(void)wire_pull_le16(b, &len);
	/* 3.1.1 TREE_CONNECT extension (Flags bit 0x0004) is not used by
	 * the clients we serve without CAP_... ; the path is at PathOffset
	 * in both forms. */
	if (len == 0 ||
	    !NT_STATUS_IS_OK(charset_utf16_to_utf8(req->mem_ctx, req->in + off,
						   len, &unc))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	name = tcon_share_part(unc);
	if (name == NULL || name[0] == '\0' || strchr(name, '\\') != NULL) {
		return NT_STATUS_BAD_NETWORK_NAME;
	}
	st = tcon_find_share(req, s, name, &snum, &homes);
	if (!NT_STATUS_IS_OK(st)) {
		DBG_INFO("%s: no share [%s]\n", req->conn->remote, name);
		return st;
	}
	if (snum < 0 && s->anonymous &&
	    lp_int(lp, LP_GLOBAL, LP_RESTRICT_ANONYMOUS) >= 2) {
		/* `restrict anonymous = 2`: no anonymous IPC$ (so no
		 * anonymous RPC); guest-ok shares stay open to it, as in
		 * Samba 4.17. */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (snum >= 0 && lp_int(lp, snum, LP_MAX_CONNECTIONS) > 0 &&
	    status_db_count_tcons(smbd_locking(req->conn->worker), name) >=
		    (unsigned)lp_int(lp, snum, LP_MAX_CONNECTIONS)) {
		/* Counted across workers in smbd_status.tdb; as Samba. */
		DBG_WARNING("%s: max connections (%d) reached for [%s]\n",
			    req->conn->remote,
			    lp_int(lp, snum, LP_MAX_CONNECTIONS), name);
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	if (s->ntcons + s->ntcons_entering >= SMBD_MAX_TCONS_PER_SESSION) {
		/* Each tree holds the share's directory open: an
		 * unbounded number would spend the worker's descriptors
		 * (issue 14 item 7); so does each being entered. */
		DBG_WARNING("%s: session has %u tree connects (%u more "
			    "under way): refused\n", req->conn->remote,
			    s->ntcons, s->ntcons_entering);
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	t = talloc_zero(s, struct smbd_tcon);
	if (t == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(t, tcon_destructor);
	t->session = s;
	t->snum = snum;
	t->share.root_fd = -1;
	t->ipc = snum < 0;
	t->share_name = talloc_strdup(t, name);
	t->section = t->ipc ? NULL : talloc_strdup(t, lp_share_name(lp, snum));
	if (t->share_name == NULL || (!t->ipc && t->section == NULL)) {
		talloc_free(t);
		return NT_STATUS_NO_MEMORY;
	}
	if (t->ipc) {
		t->maximal_access = SMBD_ACCESS_ALL;
		return tcon_finish(req, s, t);
	}
	return tcon_enter_send(req, s, t, homes);
}

/*
 * A reload renumbers the shares, so a tree's snum is looked up again by
 * the section it was connected through.  A share removed from smb.conf or
 * made `available = no` loses its trees, as Samba's smbcontrol close-share
 * does: the next request on one gets NETWORK_NAME_DELETED.  The settings
 * the tree took at connect time (path, read only, masks) stay, as in
 * Samba, until the client connects again.
 */
/* Disconnect every disk tree of the worker for which keep() says no. */
static void tcons_sweep(struct smbd_worker *w,
			bool (*keep)(struct smbd_tcon *t, const void *arg),
			const void *arg, const char *why)
{
	struct smbd_conn *c;
	struct smbd_session *s;
	struct smbd_tcon *t, *next;

	for (c = w->conns; c != NULL; c = c->wnext) {
		for (s = c->sessions; s != NULL; s = s->next) {
			for (t = s->tcons; t != NULL; t = next) {
				next = t->next;
				if (t->ipc || keep(t, arg)) {
					continue;
				}
				DBG_NOTICE("%s: share [%s] %s: tree %u "
					   "disconnected\n", c->remote,
					   t->share_name, why, t->id);
				talloc_free(t);
			}
		}
	}
}

static bool tcon_still_configured(struct smbd_tcon *t, const void *arg)
{
	const struct lp_ctx *lp = arg;

	t->snum = lp_find_share(lp, t->section);
	return t->snum >= 0 && lp_bool(lp, t->snum, LP_AVAILABLE);
}

void smbd_tcons_reloaded(struct smbd_worker *w)
{
	tcons_sweep(w, tcon_still_configured, w->srv->lp,
		    "is gone after the reload");
}

static bool tcon_not_named(struct smbd_tcon *t, const void *arg)
{
	return strcasecmp(t->share_name, arg) != 0 &&
	       strcasecmp(t->section, arg) != 0;
}

void smbd_tcons_close_share(struct smbd_worker *w, const char *name)
{
	tcons_sweep(w, tcon_not_named, name, "closed by smbcontrol");
}

NTSTATUS smb2_tdis(struct smb2_request *req)
{
	talloc_free(req->tcon);
	req->tcon = NULL;
	wire_push_le16(req->out, 4);
	wire_push_le16(req->out, 0);
	return NT_STATUS_OK;
}
