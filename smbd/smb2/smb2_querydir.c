/*
 * QUERY_DIRECTORY (MS-SMB2 2.2.33, 2.2.34, 3.3.5.18).
 *
 * Each directory open keeps its enumeration in op->dir (struct qd_dir, a
 * talloc child of the open, so closing the open frees it): the pattern
 * of the query that started the scan, the names of the directory read
 * once per scan, and a cursor into them.  A scan starts on the first
 * query, on RESTART_SCANS and on REOPEN (3.3.5.18); a continuing query
 * with a non-empty pattern matches the rest of the scan against that
 * pattern, as Samba 4.17 does.
 *
 * All file-system work runs in the worker's pool as the session user
 * (smb2_job_run): reading the names (getdents64 on a fresh description
 * of the directory, "." and ".." first), matching them against the
 * pattern, and stat-ing only the entries that go into this reply.  The
 * job encodes the entries with fscc_dir_entry_push into its own buffer,
 * bounded by OutputBufferLength; the loop thread copies that buffer into
 * the reply.  So a directory of N entries costs one readdir pass and N
 * stats however many queries list it: no quadratic cost.
 *
 * Entries are stat-ed without following symlinks; on a share that
 * follows symlinks a symlink the server follows inside the share is
 * listed as a reparse point, one it follows out of it (`wide links`) as
 * its target, and one that dangles or that it does not follow is not
 * listed (qd_stat_link).  FIFOs, sockets and devices are NFS reparse
 * points (vfs.h).  FileIndex is 0 (as NTFS; Samba too), INDEX_SPECIFIED
 * is ignored.  EaSize is FileEaInformation's, or a reparse point's tag
 * (MS-FSCC 2.4.x).  Short
 * names go into the *Both* classes unless `mangled names = no`.
 *
 * In a DFS root an msdfs link is listed as a DFS reparse point
 * (qd_msdfs_entry), as Samba lists it.
 *
 * A session granted AAPL's READ_DIR_ATTR (smb2_create_reply.c) listing
 * FileIdBothDirectoryInformation on a share whose module stack gives
 * them (vfs/stack_props.h) gets Apple's fields in place of the NTFS
 * ones, as Samba's module gives them (fscc.h struct fscc_aapl_dir_attr):
 * per entry the resource fork's size and the compressed FinderInfo
 * (vfs_dir_attrs_get: an xattr read each, or
 * for a fork in a "._" file its open), the UNIX mode (from the stat
 * there is), and the maximal access of the session's user as CREATE
 * computes it (max_access.h: an access check, or the NT ACL's xattr on
 * acl_xattr shares; the directory's part once per query).  Every other
 * listing takes none of these calls.  Samba gives the fields to every
 * session of a connection once any asked AAPL, READ_DIR_ATTR or not;
 * here only to the sessions that were told they get them.
 *
 * While a job works, it owns the name list (moved out of op->dir and
 * back in the done callback), so a CLOSE meanwhile frees nothing the pool
 * thread reads, and the reply still goes out (a find racing a CLOSE
 * succeeds, as on Windows and Samba).  A second query on the same open
 * while one is in flight is refused with STATUS_INVALID_DEVICE_STATE
 * (compound requests run one after the other; clients do not pipeline
 * enumerations of one handle).
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "lib/charset.h"
#include "smbd/conn/conn.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "vfs/msdfs.h"
#include "smbd/smb2/max_access.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_file.h"
#include "lib/clock.h"
#include "vfs/module.h"
#include "vfs/name.h"
#include "vfs/vfs_posix.h"
#include "vfs/dirread.h"
#include "vfs/stack_props.h"
#include "conf/loadparm.h"
#include "lib/log.h"

#include <fcntl.h>	/* O_PATH, for vfs_openat_beneath */
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* 2.2.33 Flags */
#define SMB2_RESTART_SCANS 0x01
#define SMB2_RETURN_SINGLE_ENTRY 0x02
#define SMB2_INDEX_SPECIFIED 0x04
#define SMB2_REOPEN 0x10

/* Explicit limit on what one open may make the server hold. */
#define QD_MAX_NAMES (8u * 1024 * 1024)

/* The names of one scan: NUL-terminated names packed in one buffer. */
struct qd_names {
	char *pool;
	size_t pool_len;
	uint32_t *offs;
	size_t count;
};

/* op->dir */
struct qd_dir {
	char *pattern;
	struct qd_names *names;	/* NULL while a job holds them */
	size_t cursor;
	bool busy;
	bool exhausted;		/* the scan ran out: its names are freed */
};

struct qd_state {
	int fd;			/* the open's directory fd, borrowed */
	bool rescan;		/* this query starts a new scan */
	bool is_root;		/* the share root: ".." is the root itself */
	bool single;
	bool want_short;	/* the class has a ShortName field */
	bool zero_file_id;	/* FileId 0 for a Mac's session */
	bool mangled_pattern;	/* the pattern may be an 8.3 alias */
	uint8_t cls;
	uint32_t max_out;
	char *pattern;
	char *dirpath;		/* the directory, share-relative */
	struct vfs_share share;	/* root_fd: the tree's, borrowed */
	bool root_owned;	/* root_fd is a dup of a snapshot's root */
	struct vfs_stack *vfs;	/* our reference: share.name_map is its */
	struct qd_names *names;
	size_t cursor;
	struct wire_buf buf;	/* the entries for the reply */
	size_t returned;
	NTSTATUS status;
	/* The entries in buf with times: the loop thread puts in a
	 * ChangeTime a client set (write_time.h), as the locking DB is
	 * not read from the pool.  One record lookup per entry (a chain
	 * mutex, no copy), next to the statx and xattr reads per entry
	 * the job did. */
	struct qd_times *times;
	size_t num_times;
	/* READ_DIR_ATTR: the stack's configuration of it (the stack held in
	 * st->vfs keeps it) or NULL for an ordinary listing */
	const struct vfs_dir_attrs *aapl;
	bool read_only;			/* the share */
	struct ntacl_token *tok;	/* acl_xattr shares' max access */
	/* the listed directory's part of the max access, once per query */
	bool dir_ready;
	bool dir_delete_mode;	/* may remove entries: W|X on it */
	bool dir_delete_ntacl;	/* the same by its NT ACL, if any */
	uid_t euid;
	/* Entries stat-ed ahead of the encoding, a batch at a time, two
	 * threads on a large one (qd_prestat); bpos: the next to use. */
	size_t *bidx;
	struct qd_stat_res *bres;
	size_t bcount, bpos;
};

/* One entry stat-ed ahead (qd_prestat). */
enum qd_res_state { QD_RES_OK, QD_RES_GONE, QD_RES_LINK };

struct qd_stat_res {
	struct vfs_file_info fi;
	uint32_t ea_size;
	enum qd_res_state state;
};

struct qd_times {
	size_t off;		/* the entry in buf */
	uint64_t dev, ino, ctime;
};

static const char *qd_name(const struct qd_names *n, size_t i)
{
	return n->pool + n->offs[i];
}

static bool qd_names_add(struct qd_names *n, const char *name, size_t len)
{
	if (n->count == QD_MAX_NAMES) {
		return false;
	}
	if (n->count == talloc_array_length(n->offs)) {
		size_t cap = n->count == 0 ? 64 : n->count * 2;
		uint32_t *o = talloc_realloc(n, n->offs, uint32_t, cap);

		if (o == NULL) {
			return false;
		}
		n->offs = o;
	}
	if (n->pool_len + len + 1 > talloc_get_size(n->pool)) {
		size_t cap = (n->pool_len + len + 1) * 2;
		char *p;

		if (cap > UINT32_MAX) {
			return false;
		}
		p = talloc_realloc(n, n->pool, char, cap);
		if (p == NULL) {
			return false;
		}
		n->pool = p;
	}
	n->offs[n->count++] = (uint32_t)n->pool_len;
	memcpy(n->pool + n->pool_len, name, len);
	n->pool[n->pool_len + len] = '\0';
	n->pool_len += len + 1;
	return true;
}

/*
 * Read every name of the directory once.  "." and ".." come first, as
 * Windows (and Samba) list them.  A pattern without wildcards that names
 * an existing entry exactly needs no readdir at all.
 */
/* A name read by qd_scan: kept unless `veto files` hides it; false
 * when the list is full. */
static bool qd_scan_one(void *priv, const char *name)
{
	struct qd_state *st = priv;

	if (vfs_name_in_list(st->share.veto_files, name,
			     st->share.case_sensitive)) {
		return true;	/* `veto files`: not listed */
	}
	return qd_names_add(st->names, name, strlen(name));
}

static NTSTATUS qd_scan(struct qd_state *st)
{
	struct qd_names *n = talloc_zero(st, struct qd_names);
	NTSTATUS status;
	bool cut;

	if (n == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n->pool = talloc_array(n, char, 4096);
	if (n->pool == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->names = n;
	if (!vfs_name_has_wildcard(st->pattern) &&
	    strcmp(st->pattern, ".") != 0 && strcmp(st->pattern, "..") != 0 &&
	    !vfs_name_in_list(st->share.veto_files, st->pattern,
			      st->share.case_sensitive) &&
	    vfs_dir_entry_exists(st->fd, st->pattern)) {
		return qd_names_add(n, st->pattern, strlen(st->pattern))
			       ? NT_STATUS_OK
			       : NT_STATUS_NO_MEMORY;
	}
	if (!qd_names_add(n, ".", 1) || !qd_names_add(n, "..", 2)) {
		return NT_STATUS_NO_MEMORY;
	}
	/* On a description of its own (vfs/dirread.h): one getdents64
	 * pass. */
	status = vfs_dir_read_names(st->fd, qd_scan_one, st, &cut);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (cut) {
		DBG_WARNING("directory listing cut at %zu names\n", n->count);
	}
	return NT_STATUS_OK;
}

static bool qd_match(const struct qd_state *st, const char *name)
{
	bool cs = st->share.case_sensitive;

	if (vfs_name_matches(st->pattern, name, cs)) {
		return true;
	}
	/* A pattern that is an 8.3 alias finds its long name. */
	if (st->mangled_pattern && !vfs_name_is_8_3(name)) {
		char *alias = vfs_name_mangle(NULL, name);
		bool hit = alias != NULL &&
			   vfs_strcasecmp(alias, st->pattern) == 0;

		talloc_free(alias);
		return hit;
	}
	return false;
}

/*
 * The entry's EaSize for the classes that carry one, as FileEaInformation
 * answers on an open of it (MS-FSCC 2.4 FileFullDirectoryInformation:
 * EaSize is the combined length of the file's extended attributes;
 * Samba 4.17 fills it too, and smbtorture smb2.dir.one compares it with
 * FileAllInformation's).  Without `ea support` there are none.
 */
static bool qd_wants_ea_size(const struct qd_state *st)
{
	return st->share.ea_support && fscc_dir_class_has_ea_size(st->cls);
}

static uint32_t qd_ea_size(const struct qd_state *st, int fd)
{
	return qd_wants_ea_size(st) ? vfs_ea_size(fd) : 0;
}

static void qd_aapl_fill(struct qd_state *st, int fd, const char *name,
			 const struct vfs_file_info *fi,
			 struct fscc_aapl_dir_attr *a);

/* Whether path (a link) leads somewhere inside the share, under the
 * share's rules without `wide links`. */
static bool qd_link_inside(const struct qd_state *st, const char *path)
{
	struct vfs_share beneath = st->share;

	beneath.wide_links = false;
	return vfs_dir_path_reachable(&beneath, st->share.root_fd, path);
}

/*
 * A symbolic link, on a share that follows them (issue 35).  One the
 * server follows to somewhere inside the share is listed as the link:
 * a reparse point (FILE_ATTRIBUTE_REPARSE_POINT, IO_REPARSE_TAG_SYMLINK
 * in EaSize's place, MS-FSCC 2.4), with DIRECTORY where it leads to a
 * directory, as Windows lists a directory link; a client that follows
 * it itself (FSCTL_GET_REPARSE_POINT) reaches what the server's own
 * following reaches.  One that leads out of the share with `wide links`
 * is listed as what it points to, as before (and as Samba): no client
 * could follow it through the share.  One that dangles or that the
 * share's rules do not follow (out of the share without `wide links`)
 * is not listed, as Samba does not list it.
 */
static bool qd_stat_link(struct qd_state *st, const char *name,
			 struct vfs_file_info *fi, uint32_t *ea_size,
			 struct fscc_aapl_dir_attr *aapl)
{
	char *path = st->dirpath[0] == '\0'
			     ? talloc_strdup(st, name)
			     : talloc_asprintf(st, "%s/%s", st->dirpath, name);
	struct statx stx;
	bool ok = false;
	int fd;

	if (path == NULL) {
		return false;
	}
	fd = vfs_openat_beneath(&st->share, st->share.root_fd, path, O_PATH,
				0);
	if (fd != -1 && NT_STATUS_IS_OK(vfs_fstat_info(fd, fi))) {
		ok = true;
	}
	if (ok && (!st->share.wide_links || qd_link_inside(st, path))) {
		bool dir = fi->is_dir;

		/* the link itself */
		ok = vfs_dir_entry_statx(st->fd, name, &stx) &&
		     S_ISLNK(stx.stx_mode);
		if (ok) {
			vfs_statx_to_info(&stx, fi);
			vfs_fill_dos_attributes(&st->share, -1, true, name, fi);
			if (dir) {
				fi->attributes |= FILE_ATTRIBUTE_DIRECTORY;
			}
		}
		*ea_size = 0;
	} else if (ok) {
		bool special = !S_ISREG(fi->mode) && !S_ISDIR(fi->mode);

		vfs_fill_dos_attributes(&st->share, fd, special, name, fi);
		if (!special) {
			*ea_size = qd_ea_size(st, fd);
		}
		if (aapl != NULL) {
			qd_aapl_fill(st, special ? -1 : fd, name, fi, aapl);
		}
	}
	vfs_dir_close(fd);
	talloc_free(path);
	return ok;
}

/* An entry's attributes and EaSize without READ_DIR_ATTR's fields: its
 * xattrs read by directory fd and name (what), no open and close of
 * each (issue 18).  Thread-safe: no talloc, st only read. */
static void qd_attrs_plain(const struct qd_state *st, const char *name,
			   const char *what, uint32_t mode,
			   struct vfs_file_info *fi, uint32_t *ea_size)
{
	if (!S_ISREG(mode) && !S_ISDIR(mode)) {
		vfs_fill_dos_attributes(&st->share, -1, true, name, fi);
		return;
	}
	vfs_fill_dos_attributes_at(&st->share, st->fd, what, fi,
				   qd_wants_ea_size(st) ? ea_size : NULL);
}

/*
 * An msdfs link in a DFS root (vfs/msdfs.h): listed as Samba 4.17 and
 * Windows list a DFS link, a directory that is a reparse point with the
 * tag IO_REPARSE_TAG_DFS (MS-FSCC 2.1.2.1), which the encoder puts
 * where the class has EaSize or a ReparsePointTag (2.4.17); no size;
 * the times are the link's.  The tag travels in *ea_size (qd_job moves
 * it).  Thread-safe (the stat-ahead threads call it).
 */
static bool qd_msdfs_entry(const struct qd_state *st, const char *what,
			   const struct statx *stx, struct vfs_file_info *fi,
			   uint32_t *ea_size)
{
	if (!st->share.msdfs || !S_ISLNK(stx->stx_mode) ||
	    !vfs_msdfs_is_link_at(st->fd, what)) {
		return false;
	}
	vfs_statx_to_info(stx, fi);
	fi->attributes = FILE_ATTRIBUTE_DIRECTORY |
			 FILE_ATTRIBUTE_REPARSE_POINT;
	fi->is_dir = true;
	fi->end_of_file = 0;
	fi->allocation_size = 0;
	fi->reparse_tag = IO_REPARSE_TAG_DFS;
	*ea_size = IO_REPARSE_TAG_DFS;
	return true;
}

/*
 * Stat one entry (not following a symlink) and read its DOS attributes
 * and, where the class has the field, its EaSize (0 otherwise).  false
 * when it vanished since the readdir (or cannot be looked at).
 */
static bool qd_stat_entry(struct qd_state *st, const char *name,
			  struct vfs_file_info *fi, uint32_t *ea_size,
			  struct fscc_aapl_dir_attr *aapl)
{
	const char *what = name;
	struct statx stx;
	bool special;
	int efd;

	if (st->is_root && strcmp(name, "..") == 0) {
		what = ".";	/* never look above the share */
	}
	if (!vfs_dir_entry_statx(st->fd, what, &stx)) {
		return false;
	}
	if (qd_msdfs_entry(st, what, &stx, fi, ea_size)) {
		if (aapl != NULL) {
			qd_aapl_fill(st, -1, what, fi, aapl);
		}
		return true;
	}
	if (S_ISLNK(stx.stx_mode)) {
		/* not followed at all: not listed (Samba) */
		return st->share.follow_symlinks &&
		       qd_stat_link(st, name, fi, ea_size, aapl);
	}
	vfs_statx_to_info(&stx, fi);
	special = !S_ISREG(stx.stx_mode) && !S_ISDIR(stx.stx_mode);
	if (aapl == NULL) {
		/* The common listing: no open of the entry (issue 18). */
		qd_attrs_plain(st, name, what, stx.stx_mode, fi, ea_size);
		return true;
	}
	/* O_PATH: no open side effects (fifos, leases, atime);
	 * dosattrib_fget reads the xattr through /proc/self/fd. */
	efd = special ? -1 : vfs_dir_entry_opath(st->fd, what);
	vfs_fill_dos_attributes(&st->share, efd, efd == -1, name, fi);
	if (efd != -1) {
		*ea_size = qd_ea_size(st, efd);
	}
	if (aapl != NULL) {
		qd_aapl_fill(st, efd, what, fi, aapl);
	}
	vfs_dir_close(efd);
	return true;
}

/*
 * A large listing's stat work on two threads.  Per entry the work is a
 * statx and one xattr call, and the client waits for all of it: a
 * 100,000-entry directory read by smbclient (8 MiB per query) is ~60,000
 * entries per QUERY_DIRECTORY.  So the entries a query will return are
 * stat-ed ahead in batches, and a batch of QD_PAR_MIN or more is split
 * in two halves, the second on a helper thread made for it.  The helper
 * inherits this pool thread's credentials (tpool switches them per
 * thread with the raw system calls, and a new thread starts with its
 * creator's), and touches only st->fd, the share options (read) and its
 * own slots of bres: no talloc, no shared state.  A symlink to follow
 * (its target resolved from the share root, with talloc) is left to the
 * encoding loop (QD_RES_LINK).  A batch is what the buffer left can hold
 * at most (an upper bound per entry), so nothing is stat-ed for nothing.
 */
#define QD_BATCH_MAX 16384
#define QD_PAR_MIN 512
/* The largest entry any class has for a name: FileIdBothDirectory-
 * Information's 104 fixed bytes, 2 per UTF-8 byte at most, alignment. */
#define QD_ENTRY_MAX(len) (104 + 2 * (len) + 8)

static void qd_stat_plain(const struct qd_state *st, const char *name,
			  struct qd_stat_res *r)
{
	const char *what = name;
	struct statx stx;

	r->ea_size = 0;
	if (st->is_root && strcmp(name, "..") == 0) {
		what = ".";	/* never look above the share */
	}
	if (!vfs_dir_entry_statx(st->fd, what, &stx)) {
		r->state = QD_RES_GONE;
		return;
	}
	if (qd_msdfs_entry(st, what, &stx, &r->fi, &r->ea_size)) {
		r->state = QD_RES_OK;
		return;
	}
	if (S_ISLNK(stx.stx_mode)) {
		r->state = st->share.follow_symlinks ? QD_RES_LINK
						     : QD_RES_GONE;
		return;
	}
	vfs_statx_to_info(&stx, &r->fi);
	qd_attrs_plain(st, name, what, stx.stx_mode, &r->fi, &r->ea_size);
	r->state = QD_RES_OK;
}

struct qd_half {
	const struct qd_state *st;
	size_t from, to;
};

static void qd_stat_range(const struct qd_state *st, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		qd_stat_plain(st, qd_name(st->names, st->bidx[i]),
			      &st->bres[i]);
	}
}

static void *qd_half_thread(void *p)
{
	struct qd_half *h = p;

	qd_stat_range(h->st, h->from, h->to);
	return NULL;
}

/* Stat ahead the entries from st->cursor on that the reply can hold. */
static bool qd_prestat(struct qd_state *st)
{
	const struct qd_names *n = st->names;
	size_t room = st->max_out > st->buf.len ? st->max_out - st->buf.len
						 : 0;
	size_t i, cap = n->count - st->cursor;
	struct qd_half h;
	pthread_t t;

	if (cap > QD_BATCH_MAX) {
		cap = QD_BATCH_MAX;
	}
	if (st->bidx == NULL) {
		st->bidx = talloc_array(st, size_t, cap);
		st->bres = talloc_array(st, struct qd_stat_res, cap);
		if (st->bidx == NULL || st->bres == NULL) {
			return false;
		}
	}
	cap = talloc_array_length(st->bidx) < cap
		      ? talloc_array_length(st->bidx) : cap;
	st->bcount = st->bpos = 0;
	for (i = st->cursor; i < n->count && st->bcount < cap; i++) {
		const char *name = qd_name(n, i);
		size_t est = QD_ENTRY_MAX(strlen(name));

		if (!qd_match(st, name)) {
			continue;
		}
		if (st->bcount > 0 && est > room) {
			break;
		}
		room -= est < room ? est : room;
		st->bidx[st->bcount++] = i;
	}
	h = (struct qd_half){.st = st, .from = st->bcount / 2,
			     .to = st->bcount};
	if (st->bcount < QD_PAR_MIN ||
	    pthread_create(&t, NULL, qd_half_thread, &h) != 0) {
		qd_stat_range(st, 0, st->bcount);
		return true;
	}
	qd_stat_range(st, 0, h.from);
	pthread_join(t, NULL);
	return true;
}

/*
 * qd_stat_entry for the entry at st->cursor of a plain listing (no
 * READ_DIR_ATTR fields, more than one entry wanted): from the batch
 * stat-ed ahead, which is made when the cursor is past it.
 */
static bool qd_stat_next(struct qd_state *st, const char *name,
			 struct vfs_file_info *fi, uint32_t *ea_size)
{
	struct qd_stat_res *r;

	if (st->bpos == st->bcount && !qd_prestat(st)) {
		return qd_stat_entry(st, name, fi, ea_size, NULL);
	}
	if (st->bpos == st->bcount || st->bidx[st->bpos] != st->cursor) {
		/* Not planned (cannot happen: the plan and the loop match
		 * the same names in the same order): do it here. */
		return qd_stat_entry(st, name, fi, ea_size, NULL);
	}
	r = &st->bres[st->bpos++];
	switch (r->state) {
	case QD_RES_OK:
		*fi = r->fi;
		*ea_size = r->ea_size;
		return true;
	case QD_RES_LINK:
		return qd_stat_link(st, name, fi, ea_size, NULL);
	case QD_RES_GONE:
	default:
		return false;
	}
}

/* The listed directory's part of its entries' max access. */
static void qd_aapl_dir(struct qd_state *st)
{
	struct sd *sd;

	st->dir_ready = true;
	st->euid = vfs_dir_euid();
	st->dir_delete_mode =
		!st->read_only && vfs_dir_may_delete_child(st->fd);
	st->dir_delete_ntacl = st->dir_delete_mode;
	if (st->tok != NULL &&
	    NT_STATUS_IS_OK(ntacl_file_get(st, st->fd, &sd))) {
		st->dir_delete_ntacl = (ntacl_max_access(sd, st->tok) &
					SEC_DIR_DELETE_CHILD) != 0;
		talloc_free(sd);
	}
}

/*
 * READ_DIR_ATTR's max access of an entry: what CREATE's MxAc would say
 * (smb2_create_access.c): a stored NT ACL on acl_xattr shares, else the
 * mode; FILE_GENERIC_ALL with readdir_attr:aapl_max_access = no.
 */
static uint32_t qd_max_access(struct qd_state *st, int fd, const char *name,
			      const struct vfs_file_info *fi)
{
	struct sd *sd;

	if (!vfs_dir_attrs_max_access(st->aapl)) {
		return SEC_FILE_ALL;
	}
	if (!st->dir_ready) {
		qd_aapl_dir(st);
	}
	if (st->tok != NULL && fd != -1 &&
	    NT_STATUS_IS_OK(ntacl_file_get(st, fd, &sd))) {
		uint32_t a = ntacl_max_access(sd, st->tok);

		talloc_free(sd);
		return smb2_ntacl_max_access_finish(
			a, !(a & SEC_STD_DELETE) && st->dir_delete_ntacl,
			st->read_only);
	}
	return smb2_mode_max_access(st->fd, name, st->read_only,
				    st->euid == 0 || fi->uid == st->euid,
				    st->dir_delete_mode, SMB2_MAX_ACCESS_ALL);
}

/* Apple's fields of an entry (fd: of it, O_PATH; -1 for one that is
 * not a file or directory; name: in st->fd). */
static void qd_aapl_fill(struct qd_state *st, int fd, const char *name,
			 const struct vfs_file_info *fi,
			 struct fscc_aapl_dir_attr *a)
{
	struct vfs_dir_attrs_meta m;
	int64_t btime = (int64_t)(fi->create_time / 10000000) -
			(int64_t)NTTIME_EPOCH_DELTA;

	vfs_dir_attrs_get(st->aapl, fd, st->fd, name, S_ISREG(fi->mode),
			       btime, &m);
	a->rfork_size = m.rfork_size;
	memcpy(a->finder_info, m.finder, sizeof(a->finder_info));
	a->max_access = qd_max_access(st, fd, name, fi);
	/* The mode only where the stack says so (Samba's nfs_aces): a Mac
	 * takes one that is there for the file's Unix permissions. */
	a->unix_mode = vfs_dir_attrs_unix_mode(st->aapl) ? (uint16_t)fi->mode
							  : 0;
}

static void qd_note_times(struct qd_state *st, size_t off,
			  const struct vfs_file_info *fi)
{
	struct qd_times *t;

	if (!fscc_dir_class_has_times(st->cls)) {
		return;
	}
	if (st->num_times == talloc_array_length(st->times)) {
		t = talloc_realloc(st, st->times, struct qd_times,
				   st->num_times == 0 ? 64
						      : st->num_times * 2);
		if (t == NULL) {
			st->buf.failed = true;
			return;
		}
		st->times = t;
	}
	st->times[st->num_times++] = (struct qd_times){
		.off = off, .dev = fi->dev, .ino = fi->ino,
		.ctime = fi->inode_ctime};
}

/* On the loop thread: ChangeTimes clients set on files still open. */
static void qd_change_times(struct smbd_worker *w, struct qd_state *st)
{
	struct vfs_file_info fi;
	size_t i;

	for (i = 0; i < st->num_times; i++) {
		memset(&fi, 0, sizeof(fi));
		fi.dev = st->times[i].dev;
		fi.ino = st->times[i].ino;
		fi.inode_ctime = st->times[i].ctime;
		smbd_ct_report(w, &fi);
		if (fi.change_time != 0) {
			fscc_dir_entry_set_change_time(
				st->buf.data + st->times[i].off,
				fi.change_time);
		}
	}
}

static void qd_job(void *p)
{
	struct qd_state *st = p;
	struct qd_names *n;
	size_t prev = (size_t)-1;

	if (st->rescan) {
		st->status = qd_scan(st);
		st->cursor = 0;
		if (!NT_STATUS_IS_OK(st->status)) {
			/* No half list: the next query scans again. */
			TALLOC_FREE(st->names);
			goto out;
		}
	}
	n = st->names;
	wire_buf_init(&st->buf, st, 4096);
	for (; st->cursor < n->count; st->cursor++) {
		const char *name = qd_name(n, st->cursor);
		struct vfs_file_info fi;
		struct fscc_dir_entry e;
		struct fscc_aapl_dir_attr aapl;
		char *shortn = NULL;
		uint32_t ea_size = 0;
		char *wire = NULL;	/* the name map's client form */
		NTSTATUS s;

		if (!qd_match(st, name)) {
			continue;
		}
		if (st->aapl == NULL && !st->single
			    ? !qd_stat_next(st, name, &fi, &ea_size)
			    : !qd_stat_entry(st, name, &fi, &ea_size,
					     st->aapl != NULL ? &aapl
							      : NULL)) {
			continue;
		}
		if (st->zero_file_id) {
			fi.file_id = 0;
		}
		memset(&e, 0, sizeof(e));
		e.ea_size = ea_size;
		e.reparse_tag = fi.reparse_tag;
		e.aapl = st->aapl != NULL ? &aapl : NULL;
		e.fi = &fi;
		e.name = name;
		if (st->share.name_map != NULL) {
			wire = vfs_name_map_apply(st, st->share.name_map,
						  VFS_NAME_TO_WIRE, name);
			if (wire == NULL) {
				st->buf.failed = true;
				break;
			}
			e.name = wire;
		}
		if (st->want_short && st->aapl == NULL &&
		    !vfs_name_is_8_3(name)) {
			shortn = vfs_name_mangle(st, name);
		}
		e.short_name = shortn;
		s = fscc_dir_entry_push(&st->buf, 0, st->cls, &e, st->max_out,
					&prev);
		talloc_free(shortn);
		talloc_free(wire);
		if (s == STATUS_BUFFER_OVERFLOW) {
			break;	/* stays for the next query */
		}
		if (!NT_STATUS_IS_OK(s)) {
			/* Not valid UTF-8 on disk: not listable. */
			DBG_INFO("skipping entry: %s\n", nt_errstr(s));
			continue;
		}
		qd_note_times(st, prev, &fi);
		st->returned++;
		if (st->single) {
			st->cursor++;
			break;
		}
	}
	if (st->buf.failed) {
		st->status = NT_STATUS_NO_MEMORY;
	} else if (st->returned > 0) {
		st->status = NT_STATUS_OK;
	} else if (st->cursor < n->count) {
		/* Not even the next entry fits (MS-FSA 2.1.5.6.3). */
		st->status = NT_STATUS_INFO_LENGTH_MISMATCH;
	} else {
		/* 3.3.5.18: nothing matched at all on the query that
		 * started the scan; else the scan has run out. */
		st->status = st->rescan ? NT_STATUS_NO_SUCH_FILE
					: STATUS_NO_MORE_FILES;
	}
out:
	/* The borrowed fds go back with st; a snapshot's root is ours. */
	st->fd = -1;
	if (st->root_owned) {
		vfs_dir_close(st->share.root_fd);
	}
	st->share.root_fd = -1;
}

/* Whatever path the state takes (job not run when the credentials could
 * not be taken, an early error), its fds close with it. */
static int qd_state_destructor(struct qd_state *st)
{
	if (st->root_owned) {
		vfs_dir_close(st->share.root_fd);
	}
	vfs_stack_unref(st->vfs);
	return 0;
}

/* 2.2.2 ERROR Response, for STATUS_NO_MORE_FILES, which is a warning
 * (the dispatcher adds the body only for errors). */
static void qd_error_body(struct wire_buf *out)
{
	wire_push_le16(out, 9);
	wire_push_u8(out, 0);
	wire_push_u8(out, 0);
	wire_push_le32(out, 0);
	wire_push_u8(out, 0);
}

static NTSTATUS qd_done(struct smb2_request *req, void *p)
{
	struct qd_state *st = p;
	struct wire_buf *out = req->out;
	struct smbd_open *op;
	struct qd_dir *d;
	uint8_t fid[16];
	NTSTATUS status;

	memcpy(fid, req->fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	/* Closed while we listed: the listing is done, so it still goes
	 * back (smbtorture smb2.compound_find.compound_find_close; Windows
	 * and Samba answer it too); only the enumeration state goes. */
	d = NT_STATUS_IS_OK(status) ? talloc_get_type(op->dir, struct qd_dir)
				    : NULL;
	if (d != NULL) {
		d->busy = false;
		if (st->names != NULL) {
			talloc_free(d->names);
			d->names = talloc_steal(d, st->names);
			d->cursor = st->cursor;
		}
		if (d->names != NULL && d->cursor >= d->names->count) {
			/* Done: an open kept for CHANGE_NOTIFY (as Explorer
			 * does) should not hold a big directory's names. */
			TALLOC_FREE(d->names);
			d->exhausted = true;
		}
	}
	if (st->status == STATUS_NO_MORE_FILES) {
		qd_error_body(out);
		return st->status;
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		return st->status;
	}
	qd_change_times(req->conn->worker, st);
	/* 2.2.34 QUERY_DIRECTORY Response */
	wire_push_le16(out, 9);
	wire_push_le16(out, SMB2_HDR_LEN + 8);
	wire_push_le32(out, (uint32_t)st->buf.len);
	wire_push_bytes(out, st->buf.data, st->buf.len);
	return out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

struct qd_req {
	uint8_t cls, flags;
	uint32_t max_out;
	char *pattern;
	bool pattern_given;	/* FileNameLength > 0 */
	NTSTATUS pattern_status;
};

static NTSTATUS qd_parse(struct smb2_request *req, struct qd_req *q,
			 uint8_t fid[16])
{
	struct wire_cur *b = &req->body;
	uint16_t name_off, name_len;
	uint32_t index;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_u8(b, &q->cls);
	(void)wire_pull_u8(b, &q->flags);
	(void)wire_pull_le32(b, &index);	/* FileIndex: ignored */
	(void)wire_pull_bytes(b, fid, 16);
	(void)wire_pull_le16(b, &name_off);
	(void)wire_pull_le16(b, &name_len);
	status = wire_pull_le32(b, &q->max_out);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (name_len == 0) {
		q->pattern = talloc_strdup(req->mem_ctx, "*");
		return q->pattern ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	q->pattern_given = true;
	/* smb2_pdu_check put [name_off, +name_len) inside the request. */
	if (!wire_range_ok(name_off, name_len, req->in_len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* The pattern's own errors come after the open's (see the
	 * caller), with Samba 4.17's codes: a NUL, '\\' or '/' makes the
	 * name invalid; an odd length or an unpaired surrogate is an
	 * illegal character (as vfs_name_from_wire answers for CREATE). */
	{
		const uint8_t *p = req->in + name_off;
		size_t i;

		for (i = 0; i + 1 < name_len; i += 2) {
			if (p[i] == 0 && p[i + 1] == 0) {
				q->pattern_status = NT_STATUS_OBJECT_NAME_INVALID;
				return NT_STATUS_OK;
			}
		}
	}
	status = charset_utf16_to_utf8(req->mem_ctx, req->in + name_off,
				       name_len, &q->pattern);
	if (!NT_STATUS_IS_OK(status)) {
		q->pattern_status = NT_STATUS_ILLEGAL_CHARACTER;
	} else if (strchr(q->pattern, '\\') != NULL ||
		   strchr(q->pattern, '/') != NULL) {
		q->pattern_status = NT_STATUS_OBJECT_NAME_INVALID;
	}
	return NT_STATUS_OK;
}

static bool qd_class_has_short(uint8_t cls)
{
	return cls == FSCC_FILE_BOTH_DIRECTORY_INFORMATION ||
	       cls == FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION ||
	       cls == FSCC_FILE_ID_EXTD_BOTH_DIRECTORY_INFORMATION ||
	       cls == FSCC_FILE_ID_64_EXTD_BOTH_DIRECTORY_INFORMATION ||
	       cls == FSCC_FILE_ID_ALL_EXTD_BOTH_DIRECTORY_INFORMATION;
}

/* The share's READ_DIR_ATTR configuration when req's session is a
 * Mac's (it asked AAPL), else NULL (vfs/stack_props.h). */
static const struct vfs_dir_attrs *qd_mac_attrs(const struct smb2_request *req)
{
	if (req->session == NULL || !req->session->aapl ||
	    req->tcon == NULL) {
		return NULL;
	}
	return vfs_stack_dir_attrs(req->tcon->vfs);
}

/* Start or continue the open's enumeration: fills the job state. */
static NTSTATUS qd_prepare(struct smb2_request *req, struct smbd_open *op,
			   const struct qd_req *q, struct qd_state *st)
{
	const struct vfs_dir_attrs *mac;
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct qd_dir *d = talloc_get_type(op->dir, struct qd_dir);

	if (d == NULL) {
		d = talloc_zero(op, struct qd_dir);
		if (d == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		op->dir = d;
	}
	if (d->busy) {
		return NT_STATUS_INVALID_DEVICE_STATE;
	}
	st->rescan = (d->names == NULL && !d->exhausted) ||
		     (q->flags & (SMB2_RESTART_SCANS | SMB2_REOPEN)) != 0;
	if (!st->rescan && d->exhausted) {
		return STATUS_NO_MORE_FILES;
	}
	if (st->rescan || q->pattern_given) {
		/* A continuing query's new pattern applies from the
		 * cursor on (Samba 4.17 does so; MS-FSA would ignore it);
		 * an empty one keeps the open's. */
		talloc_free(d->pattern);
		d->pattern = talloc_strdup(d, q->pattern);
		if (d->pattern == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (st->rescan) {
		talloc_free(d->names);
		d->names = NULL;
		d->cursor = 0;
		d->exhausted = false;
	} else {
		st->names = talloc_steal(st, d->names);
		st->cursor = d->cursor;
		d->names = NULL;
	}
	/* The name map: matched against on-disk names (a mapped character
	 * that becomes a wildcard, U+F021 -> '*', then acts as one) */
	st->pattern = vfs_name_map_apply(st, req->tcon->share.name_map,
					 VFS_NAME_TO_DISK, d->pattern);
	if (st->pattern == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->mangled_pattern = !vfs_name_has_wildcard(st->pattern) &&
			      vfs_name_is_mangled(st->pattern);
	mac = qd_mac_attrs(req);
	st->zero_file_id = mac != NULL && vfs_dir_attrs_zero_file_id(mac);
	if (mac != NULL && req->session->aapl_readdir &&
	    q->cls == FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION) {
		st->aapl = mac;
		st->read_only = req->tcon->read_only;
		if (req->tcon->share.acl_xattr &&
		    vfs_dir_attrs_max_access(st->aapl)) {
			NTSTATUS s = ntacl_session_token(st, req->session,
							 req->tcon, &st->tok);

			if (!NT_STATUS_IS_OK(s)) {
				return s;
			}
		}
	}
	st->want_short = qd_class_has_short(q->cls) &&
			 lp_int(lp, req->tcon->snum, LP_MANGLED_NAMES) !=
				 LP_MANGLED_NO;
	st->is_root = op->path == NULL || op->path[0] == '\0';
	st->single = (q->flags & SMB2_RETURN_SINGLE_ENTRY) != 0;
	st->cls = q->cls;
	st->max_out = q->max_out;
	if (!vfs_share_copy(st, &st->share, &req->tcon->share)) {
		st->share.root_fd = -1;	/* the tree's: not ours to close */
		return NT_STATUS_NO_MEMORY;
	}
	st->share.root_fd = -1;	/* borrowed by the caller */
	/* The listing maps names through the stack's name map in the pool: the
	 * map is the module stack's, which the job holds. */
	st->vfs = vfs_stack_ref(req->tcon->vfs);
	st->dirpath = talloc_strdup(st, op->path != NULL ? op->path : "");
	if (st->dirpath == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	d->busy = true;
	return NT_STATUS_OK;
}

/*
 * The fds the job lists with (see the caller).  A borrow fails only on
 * an open without its fd (EBADF) or out of memory (lib/fd_share.h), so
 * the status is the one vfs_map_errno gave those: INVALID_HANDLE,
 * NO_MEMORY.
 */
static NTSTATUS qd_borrow_one(int fd, int orig)
{
	if (fd != -1) {
		return NT_STATUS_OK;
	}
	return orig == -1 ? NT_STATUS_INVALID_HANDLE : NT_STATUS_NO_MEMORY;
}

static NTSTATUS qd_borrow_fds(struct smb2_request *req,
			      struct smbd_open *op, struct qd_state *st)
{
	NTSTATUS status;

	st->fd = smbd_open_fd_borrow(op, st);
	status = qd_borrow_one(st->fd, op->h.fd);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (op->snap_root_fd != -1) {
		/* An open inside a snapshot lists it beneath the
		 * snapshot's root (symlinks are resolved from there). */
		st->root_owned = true;
		return vfs_dir_dup(op->snap_root_fd, &st->share.root_fd);
	}
	st->share.root_fd = smbd_tcon_root_borrow(req->tcon, st);
	return qd_borrow_one(st->share.root_fd, req->tcon->share.root_fd);
}

NTSTATUS smb2_querydir(struct smb2_request *req)
{
	struct qd_state *st;
	struct smbd_open *op;
	struct qd_req q;
	uint8_t fid[16];
	NTSTATUS status;

	memset(&q, 0, sizeof(q));
	status = qd_parse(req, &q, fid);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (q.max_out > req->conn->max_trans) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(q.pattern_status)) {
		return q.pattern_status;
	}
	status = smb2_check_io_charge(req, q.max_out);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!fscc_dir_class_known(q.cls)) {
		return NT_STATUS_INVALID_INFO_CLASS;
	}
	if (!op->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* FILE_LIST_DIRECTORY is FILE_READ_DATA's bit (MS-SMB2 2.2.13.1.2). */
	if (!(op->access_mask & SEC_FILE_READ_DATA)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	st = talloc_zero(NULL, struct qd_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	st->share.root_fd = -1;
	talloc_set_destructor(st, qd_state_destructor);
	status = qd_prepare(req, op, &q, st);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		if (status == STATUS_NO_MORE_FILES) {
			qd_error_body(req->out);
		}
		return status;
	}
	/* Held for the job without a dup (lib/fd_share.h): a CLOSE or
	 * TREE_DISCONNECT meanwhile does not pull them from under the pool
	 * thread. */
	status = qd_borrow_fds(req, op, st);
	if (!NT_STATUS_IS_OK(status)) {
		struct qd_dir *d = op->dir;

		d->busy = false;
		if (st->names != NULL) {
			d->names = talloc_steal(d, st->names);
		}
		talloc_free(st);
		return status;
	}
	/* No orphan callback: the destructor closes what is left. */
	status = smb2_job_run(req, st, qd_job, qd_done, NULL);
	if (status != SMBD_STATUS_ASYNC) {
		/* Not started: the state (and the names) are gone; the
		 * next query scans again. */
		struct qd_dir *d = op->dir;

		d->busy = false;
	}
	return status;
}
