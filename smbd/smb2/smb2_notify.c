/*
 * CHANGE_NOTIFY (MS-SMB2 2.2.35, 2.2.36, 3.3.5.19; MS-FSCC 2.4.42
 * FILE_NOTIFY_INFORMATION; MS-FSA 2.1.5.10).
 *
 * Changes come from the kernel: each watched directory (and, for
 * WATCH_TREE, each directory below it) gets an inotify watch on the
 * worker's one inotify descriptor, so a change made through any worker,
 * or by a local process, reaches every watcher.  A directory open
 * collects changes from its first CHANGE_NOTIFY on (MS-FSA: the
 * notification list lives as long as the open), so nothing is lost
 * between two requests; a request completes at once when changes are
 * queued, or waits (interim STATUS_PENDING) until some arrive, its handle
 * is closed (STATUS_NOTIFY_CLEANUP) or it is cancelled.  More changes than
 * the client's buffer holds, or than we queue, answer
 * STATUS_NOTIFY_ENUM_DIR: the client then lists the directory again.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "vfs/dirread.h"
#include "vfs/stack_props.h"	/* the name map */
#include "vfs/watch.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "lib/ev.h"
#include "lib/tpool.h"
#include "lib/log.h"
#include "smbd/msg/mailbox.h"
#include "locking/locking.h"
#include "lib/wire.h"
#include "smbd/wire/notify_wire.h"
#include "conf/loadparm.h"

#include <string.h>
#include <sys/inotify.h>	/* the IN_* event bits (vfs/watch.h) */

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_WATCH_TREE 0x0001

/* CompletionFilter bits (2.2.35). */
#define FILE_NOTIFY_CHANGE_FILE_NAME 0x0001
#define FILE_NOTIFY_CHANGE_DIR_NAME 0x0002
#define FILE_NOTIFY_CHANGE_ATTRIBUTES 0x0004
#define FILE_NOTIFY_CHANGE_SIZE 0x0008
#define FILE_NOTIFY_CHANGE_LAST_WRITE 0x0010
#define FILE_NOTIFY_CHANGE_LAST_ACCESS 0x0020
#define FILE_NOTIFY_CHANGE_CREATION 0x0040
#define FILE_NOTIFY_CHANGE_EA 0x0080
#define FILE_NOTIFY_CHANGE_SECURITY 0x0100
#define FILE_NOTIFY_CHANGE_VALID 0x0fff

/* Actions (MS-FSCC 2.4.42). */
#define FILE_ACTION_ADDED 1
#define FILE_ACTION_REMOVED 2
#define FILE_ACTION_MODIFIED 3
#define FILE_ACTION_RENAMED_OLD_NAME 4
#define FILE_ACTION_RENAMED_NEW_NAME 5

/* Bounds: queued changes per open, directories watched per tree. */
#define NOTIFY_MAX_QUEUED 1024
#define NOTIFY_MAX_TREE_DIRS 4096

#define IN_MASK                                                               \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |    \
	 IN_MODIFY | IN_DELETE_SELF | IN_ONLYDIR)

struct notify_change {
	uint32_t action;
	bool absorbed;		/* ADDED: the create's own attribute write */
	char *name;		/* relative to the watched directory, '\\' */
};

struct notify_wd {
	int wd;
	char *prefix;		/* "" or "sub\\dir\\" */
};

struct notify_state {
	struct smbd_open *op;
	struct smbd_worker *w;
	struct notify_state *prev, *next;	/* the worker's watchers */
	uint32_t filter;
	bool tree;
	struct notify_wd *wds;
	unsigned nwds;
	struct notify_change *q;
	unsigned nq;
	bool overflow;
	bool gone;		/* the directory was removed */
	uint32_t buf_size;	/* the first request's OutputBufferLength */
	struct notify_pending *pending;	/* waiting requests, oldest first */
	struct ev_timer *cleanup;	/* completes them after the close */
	struct notify_walk *walks;	/* WATCH_TREE walks in the pool */
};

/* A waiting CHANGE_NOTIFY: a child of its request's frame, so a frame
 * freed with its connection unlinks itself. */
struct notify_pending {
	struct notify_pending *next;
	struct notify_state *ns;
	struct smb2_request *req;
	uint32_t out_len;
};

static void notify_unlink(struct notify_pending *p)
{
	struct notify_pending **pp;

	if (p->ns == NULL) {
		return;
	}
	for (pp = &p->ns->pending; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	p->ns = NULL;
}

static int notify_pending_destructor(struct notify_pending *p)
{
	notify_unlink(p);
	return 0;
}

/* The worker's inotify descriptor (opened on first use) and watchers. */
struct notify_ctx {
	int fd;
	struct notify_state *list;
	/* WATCH_TREE walks in the pool add watches that the loop registers
	 * only when they finish: while any runs, a wd no watcher uses may be
	 * one a walk is about to register, so it waits here instead of being
	 * removed, until no walk runs. */
	unsigned walks;
	int *orphans;
	unsigned norphans;
};

static void notify_readable(void *priv);

static struct notify_ctx *notify_ctx(struct smbd_worker *w)
{
	struct notify_ctx *nc = smb2_worker_of(w)->notify;
	NTSTATUS status;

	if (nc != NULL) {
		return nc->fd == -1 ? NULL : nc;
	}
	nc = talloc_zero(w, struct notify_ctx);
	if (nc == NULL) {
		return NULL;
	}
	smb2_worker_of(w)->notify = nc;
	status = vfs_notify_open(&nc->fd);
	if (NT_STATUS_IS_OK(status) &&
	    ev_watch_fd(w->loop, nc, nc->fd, notify_readable, w) != 0) {
		status = NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("worker %d: no inotify: %s\n", w->index,
			nt_errstr(status));
		vfs_watch_close(nc->fd);
		nc->fd = -1;
		return NULL;
	}
	return nc;
}

/* ---- the reply ---- */

static const struct vfs_name_map *notify_name_map(
	const struct notify_state *ns)
{
	return ns->op != NULL && ns->op->tcon != NULL
		       ? ns->op->tcon->share.name_map
		       : NULL;
}

/* 2.2.36 with FILE_NOTIFY_INFORMATION entries (smbd/wire/notify_wire.c);
 * false when they do not fit in the client's buffer. */
static bool notify_encode(struct notify_state *ns, struct wire_buf *out,
			  size_t hdr, uint32_t out_len)
{
	const char **names = talloc_array(NULL, const char *, ns->nq + 1);
	uint32_t *actions = talloc_array(names, uint32_t, ns->nq + 1);
	unsigned i;
	bool ok;

	if (names == NULL || actions == NULL) {
		talloc_free(names);
		return false;
	}
	for (i = 0; i < ns->nq; i++) {
		/* the share's name map: the names the client uses */
		names[i] = vfs_name_map_apply(names, notify_name_map(ns),
					      VFS_NAME_TO_WIRE, ns->q[i].name);
		actions[i] = ns->q[i].action;
		if (names[i] == NULL) {
			talloc_free(names);
			return false;
		}
	}
	ok = smb2_notify_encode(out, hdr, names, actions, ns->nq, out_len);
	talloc_free(names);
	return ok;
}

static void notify_clear(struct notify_state *ns)
{
	unsigned i;

	for (i = 0; i < ns->nq; i++) {
		talloc_free(ns->q[i].name);
	}
	TALLOC_FREE(ns->q);
	ns->nq = 0;
	ns->overflow = false;
}

/* 2.2.36 without entries: byte for byte the 9-byte error body. */
static void notify_push_empty(struct smb2_request *req)
{
	wire_push_le16(req->out, 9);
	wire_push_le16(req->out, 0);
	wire_push_le32(req->out, 0);
	wire_push_u8(req->out, 0);
}

/* Build a reply from the queue (the caller resumes the request). */
static NTSTATUS notify_reply(struct notify_state *ns, struct smb2_request *req,
			     uint32_t out_len)
{
	NTSTATUS status = NT_STATUS_OK;

	/* Windows sizes the change buffer by the open's first request:
	 * a later, larger request does not make room (smbtorture
	 * smb2.notify.valid-req: "if the first notify returns
	 * NOTIFY_ENUM_DIR, all do"). */
	if (ns->buf_size < out_len) {
		out_len = ns->buf_size;
	}
	if (ns->overflow ||
	    !notify_encode(ns, req->out, req->out_hdr, out_len)) {
		/* 3.3.5.19: the changes do not fit: the client lists the
		 * directory again. */
		status = STATUS_NOTIFY_ENUM_DIR;
		notify_push_empty(req);
	}
	notify_clear(ns);
	return status;
}

/* Complete one waiting request: with the queued changes (OK) or a
 * status. */
static void notify_finish(struct notify_pending *p, NTSTATUS status)
{
	struct notify_state *ns = p->ns;
	struct smb2_request *req = p->req;
	uint32_t out_len = p->out_len;

	notify_unlink(p);
	talloc_set_destructor(p, NULL);
	talloc_free(p);
	if (NT_STATUS_IS_OK(status) && ns != NULL) {
		status = notify_reply(ns, req, out_len);
	} else if (!NT_STATUS_IS_ERR(status)) {
		/* NOTIFY_CLEANUP: a success code with the empty body. */
		notify_push_empty(req);
	}
	smb2_frame_resume(req, status);
}

static void notify_cancel(void *priv)
{
	notify_finish(priv, NT_STATUS_CANCELLED);
}

/* ---- watches ---- */

/* Whether a watcher of the worker still uses wd. */
static bool notify_wd_used(const struct notify_ctx *nc, int wd)
{
	const struct notify_state *o;
	unsigned j;

	for (o = nc->list; o != NULL; o = o->next) {
		for (j = 0; j < o->nwds; j++) {
			if (o->wds[j].wd == wd) {
				return true;
			}
		}
	}
	return false;
}

/* wd is no longer ns's: remove the kernel's watch unless another watcher
 * has it, or a walk in the pool may be about to claim it. */
static void notify_drop_wd(struct notify_ctx *nc, int wd)
{
	int *n;

	if (nc->walks == 0) {
		if (!notify_wd_used(nc, wd)) {
			vfs_notify_rm(nc->fd, wd);
		}
		return;
	}
	n = talloc_realloc(nc, nc->orphans, int, nc->norphans + 1);
	if (n == NULL) {
		return;	/* a watch left until the worker ends: no harm */
	}
	nc->orphans = n;
	n[nc->norphans++] = wd;
}

/* The last walk finished: the waiting wds nobody claimed go. */
static void notify_sweep_orphans(struct notify_ctx *nc)
{
	unsigned i;

	for (i = 0; i < nc->norphans; i++) {
		if (!notify_wd_used(nc, nc->orphans[i])) {
			vfs_notify_rm(nc->fd, nc->orphans[i]);
		}
	}
	TALLOC_FREE(nc->orphans);
	nc->norphans = 0;
}

/* Make wd (already added to the kernel) one of ns's, with its prefix. */
static bool notify_register_wd(struct notify_state *ns, int wd,
			       const char *prefix)
{
	struct notify_wd *n;
	unsigned i;

	if (ns->nwds >= NOTIFY_MAX_TREE_DIRS) {
		return false;
	}
	/* A directory made while the walk ran can reach us twice (the walk
	 * and its IN_CREATE): the kernel answers the same wd; keep one. */
	for (i = 0; i < ns->nwds; i++) {
		if (ns->wds[i].wd == wd) {
			return true;
		}
	}
	n = talloc_realloc(ns, ns->wds, struct notify_wd, ns->nwds + 1);
	if (n == NULL) {
		return false;
	}
	ns->wds = n;
	n[ns->nwds].wd = wd;
	n[ns->nwds].prefix = talloc_strdup(ns->wds, prefix);
	ns->nwds++;
	return true;
}

static bool notify_add_wd(struct notify_state *ns, int dirfd,
			  const char *prefix)
{
	struct notify_ctx *nc = notify_ctx(ns->w);
	NTSTATUS status;
	int wd;

	if (nc == NULL || ns->nwds >= NOTIFY_MAX_TREE_DIRS) {
		return false;
	}
	status = vfs_notify_add(nc->fd, dirfd, IN_MASK, &wd);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("inotify_add_watch: %s\n", nt_errstr(status));
		return false;
	}
	if (!notify_register_wd(ns, wd, prefix)) {
		notify_drop_wd(nc, wd);
		return false;
	}
	return true;
}

/*
 * WATCH_TREE walk (MS-SMB2 3.3.5.19: changes "in the directory or its
 * subtree" the client may see).  It runs in the worker's pool under the
 * watcher's credentials, so the loop thread never blocks on a big tree
 * and a directory the user cannot open (a root-owned 0700 one) is simply
 * not watched: no local change below it is reported, as Samba 4.17 does
 * not.  The pool thread opens each directory as the user and adds its
 * inotify watch there (through /proc/self/fd: the kernel checks the
 * user's read permission), keeping only the directories on the path
 * from the start open (at most the depth bound), never one descriptor
 * per directory; the loop thread registers the wds when the walk is
 * done (notify_drop_wd keeps a wd a walk may claim meanwhile).  A
 * directory created while the walk runs is seen by its parent's watch,
 * or was already listed by the walk.
 */
struct notify_walk_dir {
	int wd;
	char *prefix;		/* "sub\\dir\\" */
};

struct notify_walk {
	struct tpool_job tj;
	struct notify_walk *next;	/* ns->walks */
	struct notify_state *ns;	/* NULL once the watcher is gone */
	int start;		/* O_PATH fd of the directory walked */
	struct notify_ctx *nc;	/* the worker's inotify context */
	int ifd;		/* its descriptor */
	char *prefix;		/* its prefix */
	bool include_start;	/* watch it too (a grown directory) */
	unsigned max;		/* directories it may add */
	struct notify_walk_dir *dirs;
	unsigned ndirs;
};

/* Watch the directory open on fd (the pool thread, as the user) and
 * note it with its prefix; false when no more can be added. */
static bool notify_walk_watch(struct notify_walk *wk, int fd,
			      const char *prefix)
{
	struct notify_walk_dir *n;
	NTSTATUS status;
	int wd;

	status = vfs_notify_add(wk->ifd, fd, IN_MASK, &wd);
	if (!NT_STATUS_IS_OK(status)) {
		/* out of watches: stop */
		return status != NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	n = talloc_realloc(wk, wk->dirs, struct notify_walk_dir,
			   wk->ndirs + 1);
	if (n == NULL) {
		/* Out of memory: the kernel's watch stays unregistered (no
		 * events reach anyone through it) until the worker ends; it
		 * cannot be removed here, another watcher may share it. */
		return false;
	}
	wk->dirs = n;
	n[wk->ndirs].wd = wd;
	n[wk->ndirs].prefix = talloc_strdup(wk, prefix);
	wk->ndirs++;
	return n[wk->ndirs - 1].prefix != NULL;
}

static void notify_walk_dir(struct notify_walk *wk, int dfd,
			    const char *prefix, int depth);

/* One level of the walk: where it is, for notify_walk_sub. */
struct notify_walk_level {
	struct notify_walk *wk;
	const char *prefix;
	int depth;
};

/* A subdirectory the user could open (vfs_dir_each_subdir): watched,
 * then walked; false stops this level's walk. */
static bool notify_walk_sub(void *priv, int sfd, const char *name)
{
	struct notify_walk_level *l = priv;
	struct notify_walk *wk = l->wk;
	char *sub = talloc_asprintf(wk, "%s%s\\", l->prefix, name);
	bool more = sub != NULL && notify_walk_watch(wk, sfd, sub);

	if (more) {
		notify_walk_dir(wk, sfd, sub, l->depth + 1);
	}
	talloc_free(sub);
	/* The bounds end the walk before the next entry is opened. */
	return more && wk->ndirs < wk->max;
}

static void notify_walk_dir(struct notify_walk *wk, int dfd,
			    const char *prefix, int depth)
{
	struct notify_walk_level l = {
		.wk = wk, .prefix = prefix, .depth = depth};

	if (wk->ndirs >= wk->max || depth > 32) {
		return;
	}
	vfs_dir_each_subdir(dfd, notify_walk_sub, &l);
}

static void notify_walk_fn(struct tpool_job *tj)
{
	struct notify_walk *wk = tj->priv;

	if (wk->include_start) {
		bool more;
		int fd;

		if (!NT_STATUS_IS_OK(vfs_dir_reopen(wk->start, false, &fd))) {
			return;	/* not the user's to see: no watch */
		}
		more = notify_walk_watch(wk, fd, wk->prefix);
		vfs_dir_close(fd);
		if (!more) {
			return;
		}
	}
	notify_walk_dir(wk, wk->start, wk->prefix, 0);
}

static void notify_walk_done(struct tpool_job *tj)
{
	struct notify_walk *wk = tj->priv;
	struct notify_state *ns = wk->ns;
	struct notify_ctx *nc = wk->nc;
	unsigned i;

	if (ns != NULL) {
		struct notify_walk **pp = &ns->walks;

		while (*pp != NULL && *pp != wk) {
			pp = &(*pp)->next;
		}
		if (*pp != NULL) {
			*pp = wk->next;
		}
	}
	for (i = 0; i < wk->ndirs; i++) {
		if (ns == NULL || tj->cred_error != 0 ||
		    wk->dirs[i].prefix == NULL ||
		    !notify_register_wd(ns, wk->dirs[i].wd,
					wk->dirs[i].prefix)) {
			notify_drop_wd(nc, wk->dirs[i].wd);
		}
	}
	vfs_dir_close(wk->start);
	talloc_free(wk);
	if (--nc->walks == 0) {
		notify_sweep_orphans(nc);
	}
}

/* Walk from dirfd (not consumed) in the pool as the watcher. */
static void notify_walk_start(struct notify_state *ns, int dirfd,
			      const char *prefix, bool include_start)
{
	struct smbd_session *s = ns->op->session;
	struct notify_ctx *nc = notify_ctx(ns->w);
	struct notify_walk *wk;

	if (ns->w->tpool == NULL || s == NULL || nc == NULL ||
	    ns->nwds >= NOTIFY_MAX_TREE_DIRS) {
		return;
	}
	wk = talloc_zero(NULL, struct notify_walk);
	if (wk == NULL) {
		return;
	}
	if (!NT_STATUS_IS_OK(vfs_dir_reopen(dirfd, true, &wk->start))) {
		wk->start = -1;
	}
	wk->prefix = talloc_strdup(wk, prefix);
	if (wk->start == -1 || wk->prefix == NULL) {
		vfs_dir_close(wk->start);
		talloc_free(wk);
		return;
	}
	wk->ns = ns;
	wk->include_start = include_start;
	wk->max = NOTIFY_MAX_TREE_DIRS - ns->nwds;
	wk->tj.fn = notify_walk_fn;
	wk->tj.done = notify_walk_done;
	wk->tj.priv = wk;
	wk->tj.lane = smbd_tcon_lane(ns->w, ns->op->tcon); /* the share's */
	wk->tj.use_cred = true;
	if (!smbd_tree_cred(wk, s, ns->op->tcon, &wk->tj.cred)) {
		vfs_dir_close(wk->start);
		talloc_free(wk);
		return;
	}
	wk->nc = nc;
	wk->ifd = nc->fd;
	nc->walks++;
	wk->next = ns->walks;
	ns->walks = wk;
	tpool_submit(ns->w->tpool, &wk->tj);
}

static int notify_state_destructor(struct notify_state *ns)
{
	struct notify_ctx *nc = smb2_worker_of(ns->w)->notify;
	struct notify_walk *wk;
	unsigned i;

	/* Walks still in the pool finish without us. */
	for (wk = ns->walks; wk != NULL; wk = wk->next) {
		wk->ns = NULL;
	}
	while (ns->pending != NULL) {
		notify_unlink(ns->pending);
	}
	if (ns->prev != NULL) {
		ns->prev->next = ns->next;
	} else if (nc != NULL) {
		nc->list = ns->next;
	}
	if (ns->next != NULL) {
		ns->next->prev = ns->prev;
	}
	/* The kernel shares one wd per directory among watchers: drop it
	 * only when no other watcher uses it (ns is off the list now). */
	for (i = 0; nc != NULL && nc->fd != -1 && i < ns->nwds; i++) {
		notify_drop_wd(nc, ns->wds[i].wd);
	}
	return 0;
}

/* ---- events ---- */

static uint32_t event_filter(const struct inotify_event *ev)
{
	bool dir = (ev->mask & IN_ISDIR) != 0;
	uint32_t name = dir ? FILE_NOTIFY_CHANGE_DIR_NAME
			    : FILE_NOTIFY_CHANGE_FILE_NAME;

	if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)) {
		return name;
	}
	if (ev->mask & IN_MODIFY) {
		return FILE_NOTIFY_CHANGE_SIZE | FILE_NOTIFY_CHANGE_LAST_WRITE;
	}
	/* IN_ATTRIB: mode, times, ownership, xattrs (DOS attributes, EAs,
	 * the ACL). */
	return FILE_NOTIFY_CHANGE_ATTRIBUTES | FILE_NOTIFY_CHANGE_LAST_WRITE |
	       FILE_NOTIFY_CHANGE_LAST_ACCESS | FILE_NOTIFY_CHANGE_CREATION |
	       FILE_NOTIFY_CHANGE_EA | FILE_NOTIFY_CHANGE_SECURITY;
}

static uint32_t event_action(uint32_t mask)
{
	if (mask & IN_CREATE) {
		return FILE_ACTION_ADDED;
	}
	if (mask & IN_DELETE) {
		return FILE_ACTION_REMOVED;
	}
	if (mask & IN_MOVED_FROM) {
		return FILE_ACTION_RENAMED_OLD_NAME;
	}
	if (mask & IN_MOVED_TO) {
		return FILE_ACTION_RENAMED_NEW_NAME;
	}
	return FILE_ACTION_MODIFIED;
}

static void notify_queue(struct notify_state *ns, uint32_t action,
			 const char *prefix, const char *name)
{
	struct notify_change *q;
	char *full;
	unsigned i;

	if (ns->overflow) {
		return;
	}
	full = talloc_asprintf(ns, "%s%s", prefix, name);
	if (full == NULL) {
		ns->overflow = true;
		return;
	}
	for (i = ns->nq; i-- > 0 && action == FILE_ACTION_MODIFIED;) {
		struct notify_change *c = &ns->q[i];

		if (strcmp(c->name, full) != 0) {
			continue;
		}
		/* The first attribute change right after a create is the
		 * create's own (DOS attributes, create time): part of ADDED.
		 * Later ones are one MODIFIED (smbtorture
		 * smb2.notify.valid-req). */
		if ((c->action == FILE_ACTION_ADDED ||
		     c->action == FILE_ACTION_RENAMED_NEW_NAME) &&
		    !c->absorbed) {
			c->absorbed = true;
			talloc_free(full);
			return;
		}
		if (c->action == FILE_ACTION_MODIFIED) {
			talloc_free(full);
			return;
		}
		break;
	}
	if (ns->nq >= NOTIFY_MAX_QUEUED) {
		talloc_free(full);
		notify_clear(ns);
		ns->overflow = true;
		return;
	}
	q = talloc_realloc(ns, ns->q, struct notify_change, ns->nq + 1);
	if (q == NULL) {
		talloc_free(full);
		ns->overflow = true;
		return;
	}
	ns->q = q;
	q[ns->nq].action = action;
	q[ns->nq].absorbed = false;
	q[ns->nq].name = full;
	ns->nq++;
}

/* A new directory under a WATCH_TREE watch is watched too, if the
 * watcher can open it: checked in the pool as the user (notify_walk). */
static void notify_tree_grow(struct notify_state *ns, const char *prefix,
			     const char *name)
{
	char *rel, *sub, *p;
	int fd;

	if (ns->op == NULL || ns->op->h.fd == -1) {
		return;
	}
	rel = talloc_asprintf(ns, "%s%s", prefix, name);
	sub = talloc_asprintf(ns, "%s%s\\", prefix, name);
	if (rel == NULL || sub == NULL) {
		talloc_free(rel);
		talloc_free(sub);
		return;
	}
	for (p = rel; *p != '\0'; p++) {
		if (*p == '\\') {
			*p = '/';
		}
	}
	/* O_PATH only names it; the user's open happens in the pool. */
	if (NT_STATUS_IS_OK(vfs_dir_open_sub_path(ns->op->h.fd, rel, &fd))) {
		notify_walk_start(ns, fd, sub, true);
		vfs_dir_close(fd);
	}
	talloc_free(rel);
	talloc_free(sub);
}

static void notify_event(struct smbd_worker *w, const struct inotify_event *ev)
{
	struct notify_ctx *nc = smb2_worker_of(w)->notify;
	struct notify_state *ns, *next;
	uint32_t filter = event_filter(ev), action = event_action(ev->mask);

	if (ev->len == 0 || ev->name[0] == '\0') {
		return; /* the directory itself */
	}
	for (ns = nc->list; ns != NULL; ns = next) {
		unsigned i;

		next = ns->next;
		for (i = 0; i < ns->nwds; i++) {
			if (ns->wds[i].wd != ev->wd) {
				continue;
			}
			if (ns->tree && (ev->mask & IN_ISDIR) &&
			    (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
				notify_tree_grow(ns, ns->wds[i].prefix,
						 ev->name);
			}
			if ((ns->filter & filter) == 0) {
				break;
			}
			notify_queue(ns, action, ns->wds[i].prefix, ev->name);
			if (ns->pending != NULL) {
				notify_finish(ns->pending, NT_STATUS_OK);
			}
			break;
		}
	}
}

/* End the waiting requests of every watcher match() picks with
 * STATUS_DELETE_PENDING, and the later ones too: its directory is gone or
 * going (smbtorture smb2.notify.rmdir1-4). */
static void notify_end_deleted(struct smbd_worker *w,
			       bool (*match)(const struct notify_state *ns,
					     const void *arg),
			       const void *arg)
{
	struct notify_ctx *nc = smb2_worker_of(w)->notify;
	struct notify_state *ns;
	bool again = true;

	while (nc != NULL && again) {
		again = false;
		for (ns = nc->list; ns != NULL; ns = ns->next) {
			if (!match(ns, arg)) {
				continue;
			}
			ns->gone = true;
			if (ns->pending != NULL) {
				notify_finish(ns->pending,
					      NT_STATUS_DELETE_PENDING);
				again = true;
				break;
			}
		}
	}
}

/* The watched directory itself was removed (IN_DELETE_SELF). */
static bool match_wd(const struct notify_state *ns, const void *arg)
{
	return ns->nwds > 0 && ns->wds[0].wd == *(const int *)arg;
}

static void notify_gone(struct smbd_worker *w, int wd)
{
	notify_end_deleted(w, match_wd, &wd);
}

/* Its delete is pending (another handle set delete-on-close). */
static bool match_file(const struct notify_state *ns, const void *arg)
{
	const uint64_t *di = arg;

	return ns->op != NULL && ns->op->dev == di[0] && ns->op->ino == di[1];
}

/* SMBD_MSG_DIR_DELETE_PENDING (every worker, this one included): the
 * directory is to be deleted, its waiting CHANGE_NOTIFYs end with
 * STATUS_DELETE_PENDING. */
static void notify_msg_delete_pending(void *priv, int from, const void *body,
				      int fd)
{
	struct file_key k;
	uint64_t di[2];

	memcpy(&k, body, sizeof(k));
	di[0] = k.dev;
	di[1] = k.ino;
	notify_end_deleted(priv, match_file, di);
}

void smbd_notify_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_DIR_DELETE_PENDING,
			    notify_msg_delete_pending, sizeof(struct file_key),
			    false);
}

/* One event the kernel queued (vfs_notify_drain). */
static void notify_one(void *priv, const struct inotify_event *ev)
{
	struct smbd_worker *w = priv;
	struct notify_ctx *nc = smb2_worker_of(w)->notify;

	if (ev->mask & (IN_DELETE_SELF | IN_IGNORED)) {
		notify_gone(w, ev->wd);
	} else if (ev->mask & IN_Q_OVERFLOW) {
		struct notify_state *ns;

		/* The kernel lost events: every watcher is told to look
		 * again. */
		for (ns = nc->list; ns != NULL; ns = ns->next) {
			notify_clear(ns);
			ns->overflow = true;
		}
	} else {
		notify_event(w, ev);
	}
}

static void notify_readable(void *priv)
{
	struct smbd_worker *w = priv;
	struct notify_ctx *nc = smb2_worker_of(w)->notify;

	vfs_notify_drain(nc->fd, notify_one, w);
}

/* ---- the request ---- */

static void notify_cleanup_fire(void *priv)
{
	struct notify_state *ns = priv;

	ns->cleanup = NULL;
	while (ns->pending != NULL) {
		notify_finish(ns->pending, NT_STATUS_NOTIFY_CLEANUP);
	}
	talloc_free(ns);
}

/*
 * The open goes (CLOSE, TREE_DISCONNECT, LOGOFF): waiting requests
 * complete with STATUS_NOTIFY_CLEANUP (smbtorture smb2.notify.close,
 * tdis, logoff), from a timer: the open is being freed right now.  The
 * state outlives the open (its own talloc parent); a request whose frame
 * goes first unlinks itself.
 */
void smbd_notify_close(struct smbd_open *op)
{
	struct notify_state *ns = op->notify;

	if (ns == NULL) {
		return;
	}
	op->notify = NULL;
	ns->op = NULL;
	if (ns->pending == NULL) {
		talloc_free(ns);
		return;
	}
	(void)talloc_steal(ns->w, ns);
	ns->cleanup = ev_timer_add(ns, ns->w->loop, 0, notify_cleanup_fire, ns);
	if (ns->cleanup == NULL) {
		notify_cleanup_fire(ns);
	}
}

NTSTATUS smb2_notify(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct smbd_worker *w = req->conn->worker;
	struct notify_state *ns;
	struct notify_pending *p;
	struct smbd_open *op;
	uint16_t flags;
	uint32_t out_len, filter;
	uint8_t fid[16];
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_le16(b, &flags);
	(void)wire_pull_le32(b, &out_len);
	(void)wire_pull_bytes(b, fid, 16);
	(void)wire_pull_le32(b, &filter);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* `change notify = no`: the server does not watch, and says so as
	 * Samba does (smbtorture smb2.change_notify_disabled). */
	if (!lp_bool(w->srv->lp, LP_GLOBAL, LP_CHANGE_NOTIFY)) {
		return NT_STATUS_NOT_IMPLEMENTED;
	}
	/* 3.3.5.19: a directory, opened with FILE_LIST_DIRECTORY. */
	if (!op->is_dir || op->pipe != NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(op->access_mask & SEC_FILE_READ_DATA)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (out_len > req->conn->max_trans) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* Windows answers a CHANGE_NOTIFY in the middle of a compound
	 * with INTERNAL_ERROR (MS-SMB2 <159>; smbtorture
	 * smb2.compound.interim2); the last one of a compound waits. */
	if (!smb2_request_is_last(req)) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	ns = op->notify;
	if (ns == NULL) {
		struct notify_ctx *nc = notify_ctx(w);

		if (nc == NULL) {
			return NT_STATUS_NOT_SUPPORTED;
		}
		ns = talloc_zero(op, struct notify_state);
		if (ns == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		ns->op = op;
		ns->w = w;
		ns->filter = filter;
		ns->buf_size = out_len;
		ns->tree = (flags & SMB2_WATCH_TREE) != 0;
		ns->next = nc->list;
		if (ns->next != NULL) {
			ns->next->prev = ns;
		}
		nc->list = ns;
		talloc_set_destructor(ns, notify_state_destructor);
		op->notify = ns;
		if (!notify_add_wd(ns, op->h.fd, "")) {
			TALLOC_FREE(op->notify);
			return NT_STATUS_INSUFFICIENT_RESOURCES;
		}
		if (ns->tree) {
			notify_walk_start(ns, op->h.fd, "", false);
		}
	}
	ns->filter = filter;
	if (ns->gone) {
		return NT_STATUS_DELETE_PENDING;
	}
	if (ns->pending == NULL && (ns->nq > 0 || ns->overflow)) {
		/* Changes since the last request: at once. */
		return notify_reply(ns, req, out_len);
	}
	p = talloc_zero(req->mem_ctx, struct notify_pending);
	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	p->ns = ns;
	p->req = req;
	p->out_len = out_len;
	talloc_set_destructor(p, notify_pending_destructor);
	/* Oldest first: changes go to the request that waited longest. */
	{
		struct notify_pending **pp = &ns->pending;

		while (*pp != NULL) {
			pp = &(*pp)->next;
		}
		*pp = p;
	}
	smb2_request_set_cancel(req, notify_cancel, p);
	return SMBD_STATUS_ASYNC;
}
