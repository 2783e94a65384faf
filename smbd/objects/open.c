/*
 * The connection's table of opens: a hash of the volatile FileId.
 */
#include "smbd/objects/open.h"
#include "lib/fd_share.h"
#include "smbd/objects/write_time.h"
#include "lib/charset.h"
#include "lib/clock.h"
#include "smbd/conn/conn_state.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/objects_worker.h"
#include "smbd/objects/status.h"
#include "smbd/objects/oplock.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "lib/log.h"
#include "smbd/msg/mailbox.h"
#include "vfs/module.h"
#include "lib/wire.h"
#include "locking/locking.h"
#include "locking/locking_rec.h"
#include "smbd/objects/smbd_locking.h"
#include "vfs/anchor.h"
#include "vfs/streams.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

static struct smbd_open **open_bucket(struct smbd_conn *conn, uint64_t vid)
{
	return &conn->open_hash[vid % SMBD_OPEN_BUCKETS];
}

static struct smbd_open **worker_bucket(struct smbd_worker *w, uint64_t vid)
{
	return &smbd_objects_of(w)->open_hash[vid % SMBD_WORKER_OPEN_BUCKETS];
}

struct smbd_open *smbd_open_by_id(struct smbd_worker *w, uint64_t id)
{
	struct smbd_open *op;

	for (op = *worker_bucket(w, id); op != NULL; op = op->whnext) {
		if (op->fid_volatile == id) {
			return op;
		}
	}
	return NULL;
}

static struct smbd_open **lease_bucket(struct smbd_worker *w,
				       const uint8_t key[16])
{
	return &smbd_objects_of(w)->lease_hash[(le64(key) ^ le64(key + 8)) %
			      SMBD_WORKER_LEASE_BUCKETS];
}

static void open_unhash(struct smbd_open *op)
{
	struct smbd_open **pp;

	if (op->conn == NULL) {
		return;
	}
	for (pp = worker_bucket(op->worker, op->fid_volatile); *pp != NULL;
	     pp = &(*pp)->whnext) {
		if (*pp == op) {
			*pp = op->whnext;
			break;
		}
	}
	for (pp = lease_bucket(op->worker, op->lease_key);
	     op->lease_linked && *pp != NULL; pp = &(*pp)->lhnext) {
		if (*pp == op) {
			*pp = op->lhnext;
			break;
		}
	}
	op->lease_linked = false;
	for (pp = open_bucket(op->conn, op->fid_volatile); *pp != NULL;
	     pp = &(*pp)->hnext) {
		if (*pp == op) {
			*pp = op->hnext;
			break;
		}
	}
	op->conn->nopens--;
	op->conn = NULL;
}

/*
 * A delete that an open leaves behind when it ends without CLOSE (tree
 * disconnect, logoff, dropped connection, durable expiry).  It runs in
 * the pool as the open's owner and anchored to the file's directory
 * (vfs/anchor.h), never on the loop thread as root through a path that
 * a local user may have re-pointed since the open was made.
 */
struct open_delete {
	struct tpool_job tj;
	struct vfs_share share;	/* the share's resolve rules */
	struct vfs_stack *vfs;	/* its modules (recycle): our reference */
	int root_fd;		/* a duplicate of the share's */
	int fd;			/* the stream's file, or -1 */
	char *path;
	char *stream;
	bool is_dir;
	bool delete_now;	/* the open's own object goes */
	bool delete_base;	/* a stream open's file goes too */
	struct vfs_file_id id;
	struct smbd_worker *worker;
	struct smbd_dir_change dir;	/* its directory's leases break */
};

static void open_delete_work(struct tpool_job *tj)
{
	struct open_delete *d = tj->priv;
	NTSTATUS st = NT_STATUS_OK;

	if (d->delete_now && d->stream != NULL) {
		if (d->fd != -1) {
			(void)vfs_stream_delete(d->fd, d->stream);
		}
	} else if (d->delete_now) {
		st = vfs_stack_unlink(d->vfs, &d->share, d->root_fd, d->path,
				      d->is_dir, &d->id);
	}
	if (d->delete_base) {
		st = vfs_stack_unlink(d->vfs, &d->share, d->root_fd, d->path,
				      false, &d->id);
	}
	if (!NT_STATUS_IS_OK(st)) {
		DBG_NOTICE("delete on close of %s: %s\n", d->path,
			   nt_errstr(st));
	}
}

static void open_delete_done(struct tpool_job *tj)
{
	struct open_delete *d = tj->priv;

	if (tj->cred_error != 0) {
		DBG_WARNING("delete on close of %s: cannot switch to uid %u\n",
			    d->path, (unsigned)d->tj.cred.uid);
	}
	if (d->delete_base || (d->delete_now && d->stream == NULL)) {
		smbd_dirlease_break(d->worker, &d->dir);
	}
	talloc_free(d);
}

static int open_delete_destructor(struct open_delete *d)
{
	vfs_stack_unref(d->vfs);
	vfs_fd_close(d->fd);
	vfs_fd_close(d->root_fd);
	return 0;
}

static void open_delete_submit(struct smbd_open *op, bool delete_now,
			       bool delete_base)
{
	struct open_delete *d;

	if (op->path[0] == '\0' && op->stream == NULL) {
		return;	/* the share's root is never deleted */
	}
	if (op->worker->tpool == NULL || !op->has_owner_cred) {
		DBG_WARNING("delete on close of %s dropped: no owner to run "
			    "it as\n", op->path);
		return;
	}
	d = talloc_zero(NULL, struct open_delete);
	if (d == NULL) {
		return;
	}
	d->root_fd = -1;
	d->fd = -1;
	talloc_set_destructor(d, open_delete_destructor);
	if (!vfs_share_copy(d, &d->share, &op->tcon->share)) {
		DBG_WARNING("delete on close of %s: out of memory\n",
			    op->path);
		talloc_free(d);
		return;
	}
	d->share.path = "";
	d->vfs = vfs_stack_ref(op->tcon->vfs);
	(void)vfs_fd_dup(op->tcon->share.root_fd, &d->root_fd);
	d->path = talloc_strdup(d, op->path);
	d->stream = op->stream ? talloc_strdup(d, op->stream) : NULL;
	if (op->stream != NULL && op->h.fd != -1) {
		(void)vfs_fd_dup(op->h.fd, &d->fd);
	}
	d->is_dir = op->is_dir;
	d->delete_now = delete_now;
	d->delete_base = delete_base;
	d->id.dev = op->dev;
	d->id.ino = op->ino;
	d->worker = op->worker;
	smbd_dir_change_of(op, &d->dir);
	d->tj.fn = open_delete_work;
	d->tj.done = open_delete_done;
	d->tj.priv = d;
	d->tj.lane = smbd_tcon_lane(op->worker, op->tcon); /* the share's */
	d->tj.use_cred = true;
	d->tj.cred = op->owner_cred;
	if (op->owner_cred.ngroups > 0) {
		d->tj.cred.groups = talloc_memdup(
			d, op->owner_cred.groups,
			sizeof(gid_t) * op->owner_cred.ngroups);
	}
	if (d->root_fd == -1 || d->path == NULL ||
	    (op->stream != NULL && d->stream == NULL) ||
	    (op->owner_cred.ngroups > 0 && d->tj.cred.groups == NULL)) {
		DBG_WARNING("delete on close of %s: out of resources\n",
			    op->path);
		talloc_free(d);
		return;
	}
	tpool_submit(op->worker->tpool, &d->tj);
}

/* MS-FSA 2.1.5.4: the directory's delete is pending; every worker's
 * CHANGE_NOTIFYs on it end (smbd/smb2/smb2_notify.c takes the message). */
static void dir_delete_pending(const struct smbd_open *op)
{
	struct file_key k = {.dev = op->dev, .ino = op->ino};

	smbd_mailbox_broadcast(op->worker->mbox, SMBD_MSG_DIR_DELETE_PENDING,
			       &k, sizeof(k));
}

/* The open lets go of its fd: closed now, or by the last job that
 * borrowed it. */
static void open_fd_release(struct smbd_open *op)
{
	fd_share_release(&op->fd_share, op->h.fd);
	op->h.fd = -1;
}

int smbd_open_fd_borrow(struct smbd_open *op, TALLOC_CTX *holder)
{
	return fd_share_borrow(&op->fd_share, op->h.fd, holder);
}

NTSTATUS smbd_open_handle_borrow(struct smbd_open *op, TALLOC_CTX *holder,
				 struct vfs_handle *h)
{
	*h = op->h;
	h->xattr = NULL;
	if (op->h.xattr != NULL) {
		h->xattr = talloc_strdup(holder, op->h.xattr);
		if (h->xattr == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (op->h.fd == -1) {
		h->fd = -1;
		return NT_STATUS_INVALID_HANDLE;	/* EBADF's */
	}
	h->fd = fd_share_borrow(&op->fd_share, op->h.fd, holder);
	return h->fd == -1 ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/*
 * After a stream rename (MS-FSA 2.1.5.14.11.1) op is op->stream: a
 * stream that became the file's data reads and writes as the file's own
 * data, the data that became a stream as a stream; a stream renamed to
 * another stream keeps its module.
 */
static void smbd_open_handle_renamed(struct smbd_open *op)
{
	if (op->stream == NULL) {
		op->h.ops = &vfs_posix_handle_ops;
		op->h.mode = 0;
	} else if (op->h.xattr == NULL) {
		op->h.ops = &vfs_stream_handle_ops;
	}
	op->h.xattr = op->stream;
}

static int open_destructor(struct smbd_open *op)
{
	/* A dropped connection closes its opens too (a CLOSE did this
	 * already and gave the fd away). */
	smbd_wt_close(op);
	if (op->worker->hooks.open_closing != NULL) {
		op->worker->hooks.open_closing(op);
	}
	if (op->share_registered) {
		bool delete_now = false, delete_base = false;

		/* An open ended by TREE_DISCONNECT, LOGOFF or a dropped
		 * connection still completes a pending delete. */
		smbd_open_share_release(op, &delete_now, &delete_base);
		if (delete_now || delete_base) {
			open_delete_submit(op, delete_now, delete_base);
		}
	}
	open_unhash(op);
	if (op->h.fd != -1) {
		/* Closing a local fd does not block; opens whose close
		 * could block go through CLOSE's job instead. */
		open_fd_release(op);
	}
	vfs_fd_close(op->snap_root_fd);
	op->snap_root_fd = -1;
	return 0;
}

void smbd_open_fid_bytes(const struct smbd_open *op, uint8_t out[16])
{
	put_le64(out, op->fid_persistent);
	put_le64(out + 8, op->fid_volatile);
}

struct smbd_open *smbd_open_new(struct smbd_conn *conn,
				struct smbd_session *s,
				struct smbd_tcon *t, int fd)
{
	struct smbd_open *op = talloc_zero(t, struct smbd_open);
	struct smbd_open **b;

	if (op == NULL) {
		return NULL;
	}
	/* A session's opens live on its connection whichever channel made
	 * them: a dropped channel takes none along (multichannel). */
	if (s != NULL) {
		conn = s->conn;
	}
	op->conn = conn;
	op->tcon = t;
	op->session = s;
	vfs_handle_init(&op->h, fd);
	op->opened_nttime = clock_nttime();
	op->snap_root_fd = -1;
	if (s != NULL) {
		if (!smbd_tree_cred(op, s, t, &op->owner_cred)) {
			talloc_free(op);
			return NULL;
		}
		op->has_owner_cred = true;
	}
	/* Never 0 or all ones (those mean "none"/"the previous one").  The
	 * worker's index + 1 above bit 40 makes ids unique among workers:
	 * a durable reclaim on another worker knows whom to ask. */
	op->fid_volatile = ((uint64_t)(conn->worker->index + 1)
			    << SMBD_OPEN_ID_WORKER_SHIFT) |
			   ++smbd_objects_of(conn->worker)->open_seq;
	op->fid_persistent = op->fid_volatile;
	b = open_bucket(conn, op->fid_volatile);
	op->hnext = *b;
	*b = op;
	op->worker = conn->worker;
	b = worker_bucket(conn->worker, op->fid_volatile);
	op->whnext = *b;
	*b = op;
	conn->nopens++;
	talloc_set_destructor(op, open_destructor);
	return op;
}

NTSTATUS smbd_open_lookup(struct smb2_request *req, const uint8_t fid[16],
			  struct smbd_open **out)
{
	static const uint8_t chained[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t none[16];
	bool have_prev = memcmp(req->prev_fid, none, 16) != 0;
	const uint8_t *id = fid;
	struct smbd_open *op;
	uint64_t vid;

	*out = NULL;
	/* A CREATE that made no open: an error, or STOPPED_ON_SYMLINK
	 * (a warning by its severity). */
	bool prev_failed = NT_STATUS_IS_ERR(req->prev_status) ||
			   req->prev_status == NT_STATUS_STOPPED_ON_SYMLINK;

	if (req->related && !req->first_in_chain &&
	    (memcmp(fid, chained, 16) == 0 || have_prev || prev_failed)) {
		/* 3.3.5.2.7.2: the FileId of the previous request; if that
		 * one failed, this one fails the same way.  As Windows (and
		 * Samba) do, a related request takes the chained open even
		 * when it carries another FileId than all 0xFF: clients send
		 * CREATE + NOTIFY with a stale FileId left in the buffer. */
		if (prev_failed) {
			return req->prev_status;
		}
		if (have_prev) {
			id = req->prev_fid;
		}
	}
	vid = le64(id + 8);
	/* on the session's connection, whichever channel asks */
	for (op = (req->session != NULL ? req->session->conn : req->conn)
			  ->open_hash[vid % SMBD_OPEN_BUCKETS];
	     op != NULL;
	     op = op->hnext) {
		if (op->fid_volatile == vid) {
			break;
		}
	}
	if (op == NULL || op->fid_persistent != le64(id) ||
	    op->session != req->session || op->tcon != req->tcon) {
		return NT_STATUS_FILE_CLOSED;
	}
	if (!req->channel_counted) {
		NTSTATUS status = smbd_open_channel_check(req, op);

		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	memcpy(req->fid, id, 16);
	op->replay_ok = false;	/* used: a replay of its CREATE opens anew */
	*out = op;
	return NT_STATUS_OK;
}

/* Only these fail on a stale ChannelSequence (3.3.5.2.10). */
static bool channel_checked_cmd(uint16_t opcode)
{
	return opcode == SMB2_OP_WRITE || opcode == SMB2_OP_SETINFO ||
	       opcode == SMB2_OP_IOCTL;
}

bool smbd_channel_seq_verify(struct smbd_channel_seq *cs, uint16_t csn,
			     bool replay)
{
	if (csn == cs->seq) {
		if (replay && cs->outstanding_pre != 0) {
			/* a replay must not overtake the requests of an
			 * older channel still in flight */
			return false;
		}
		cs->outstanding++;
		return true;
	}
	if ((uint16_t)(csn - cs->seq) > 0x7fff) {
		return false;	/* from a channel the client moved away from */
	}
	/* A newer channel: what is in flight so far came before it. */
	cs->outstanding_pre += cs->outstanding;
	cs->seq = csn;
	if (replay && cs->outstanding_pre != 0) {
		cs->outstanding = 0;	/* <272>, as Windows does */
		return false;
	}
	cs->outstanding = 1;
	return true;
}

void smbd_channel_seq_done(struct smbd_channel_seq *cs, uint16_t csn)
{
	if (csn == cs->seq) {
		if (cs->outstanding > 0) {
			cs->outstanding--;
		}
	} else if (cs->outstanding_pre > 0) {
		cs->outstanding_pre--;
	}
}

NTSTATUS smbd_open_channel_check(struct smb2_request *req,
				 struct smbd_open *op)
{
	if (req->conn->dialect < SMB2_DIALECT_0300) {
		return NT_STATUS_OK;
	}
	if (smbd_channel_seq_verify(&op->channel, req->channel_seq,
				    (req->flags &
				     SMB2_FLAGS_REPLAY_OPERATION) != 0)) {
		req->channel_counted = true;
		req->channel_fid = op->fid_volatile;
		return NT_STATUS_OK;
	}
	/* Only these fail; a stale READ or QUERY_INFO goes on. */
	return channel_checked_cmd(req->opcode) ? NT_STATUS_FILE_NOT_AVAILABLE
						: NT_STATUS_OK;
}

/* 3.3.4.1 Sending Any Outgoing Message: the request leaves its open's
 * count (the open may be gone by now: look it up again). */
void smbd_open_channel_done(struct smb2_request *req)
{
	struct smbd_open *op;

	if (!req->channel_counted) {
		return;
	}
	req->channel_counted = false;
	op = smbd_open_by_id(req->conn->worker, req->channel_fid);
	if (op != NULL) {
		smbd_channel_seq_done(&op->channel, req->channel_seq);
	}
}

void smbd_open_lease_link(struct smbd_open *op)
{
	struct smbd_open **b = lease_bucket(op->worker, op->lease_key);

	op->lhnext = *b;
	*b = op;
	op->lease_linked = true;
}

struct smbd_open *smbd_open_find_lease(struct smbd_conn *conn,
				       const uint8_t key[16])
{
	struct smbd_open *op;

	/* Any connection of the client: a lease break may be acknowledged
	 * on another one (smbtorture v2_complex2). */
	for (op = *lease_bucket(conn->worker, key); op != NULL;
	     op = op->lhnext) {
		if (op->caching == CACHING_LEASE &&
		    memcmp(op->lease_key, key, 16) == 0 &&
		    memcmp(op->client_guid, conn->client_guid, 16) == 0) {
			return op;
		}
	}
	return NULL;
}

void smbd_open_move(struct smbd_open *op, struct smbd_conn *to)
{
	struct smbd_open **pp;

	for (pp = open_bucket(op->conn, op->fid_volatile); *pp != NULL;
	     pp = &(*pp)->hnext) {
		if (*pp == op) {
			*pp = op->hnext;
			break;
		}
	}
	op->conn->nopens--;
	pp = open_bucket(to, op->fid_volatile);
	op->hnext = *pp;
	*pp = op;
	to->nopens++;
	op->conn = to;
}

void smbd_open_session_moved(struct smbd_session *s, struct smbd_conn *from)
{
	struct smbd_open *op, *next;
	size_t b;

	for (b = 0; b < SMBD_OPEN_BUCKETS; b++) {
		for (op = from->open_hash[b]; op != NULL; op = next) {
			next = op->hnext;
			if (op->session == s) {
				smbd_open_move(op, s->conn);
			}
		}
	}
}

int smbd_open_detach(struct smbd_open *op)
{
	int fd = op->h.fd;

	open_unhash(op);
	if (fd_share_borrowed(op->fd_share)) {
		/* Jobs still read or write the open's descriptor: the
		 * caller's close must not pull it from under them. */
		(void)vfs_fd_dup(op->h.fd, &fd);
		open_fd_release(op);
	} else {
		fd_share_forget(&op->fd_share);	/* nobody borrows it */
	}
	op->h.fd = -1;
	return fd;
}

/* The key of stream `xattr` (NULL: the file's data) of op's file. */
static void open_stream_keys(const struct smbd_open *op, const char *xattr,
			     struct file_key *k, struct open_owner *o)
{
	smbd_open_locking_ids(op, k, o);
	if (xattr != NULL) {
		/* Each stream has share modes of its own (MS-FSA): a key
		 * of its own, the inode mixed with a hash of the name.
		 * Stream names match without case, so the name is folded
		 * first: the key of a name a client typed is the key of
		 * the stream it names (a rename's target). */
		char *up = charset_strupper(NULL, xattr);
		const char *p;
		uint64_t h = 1469598103934665603ULL;

		for (p = up ? up : xattr; *p != '\0'; p++) {
			h = (h ^ (uint8_t)*p) * 1099511628211ULL;
		}
		talloc_free(up);
		k->ino ^= h | (1ULL << 63);
	}
}

void smbd_open_keys(const struct smbd_open *op, struct file_key *k,
		    struct open_owner *o)
{
	open_stream_keys(op, op->stream, k, o);
}

bool smbd_open_stream_busy(const struct smbd_open *op, const char *xattr)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct file_key k;
	struct open_owner o;

	if (db == NULL) {
		return false;
	}
	open_stream_keys(op, xattr, &k, &o);
	return share_mode_count(db, &k, xattr == NULL) > 0;
}

NTSTATUS smbd_open_rename_stream(struct smbd_open *op, const char *xattr)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct file_key from, to, base;
	struct open_owner o;
	char *name = NULL;
	bool wake = false, last, dn;
	NTSTATUS status = NT_STATUS_OK;

	if (xattr != NULL && (name = talloc_strdup(op, xattr)) == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	smbd_open_keys(op, &from, &o);
	open_stream_keys(op, xattr, &to, &o);
	smbd_open_locking_ids(op, &base, &o);
	if (db != NULL && op->share_registered &&
	    memcmp(&from, &to, sizeof(from)) != 0) {
		if (op->stream_ref && xattr == NULL) {
			/* The stream becomes the file's data: its open is
			 * one of the file's own now. */
			(void)share_mode_remove(db, &base, &o, &last, &dn);
			op->stream_ref = false;
		}
		status = share_mode_move_key(db, &from, &to, &o, &wake);
		if (NT_STATUS_IS_OK(status)) {
			(void)brl_move_key(db, &from, &to, &o);
		}
		if (NT_STATUS_IS_OK(status) && !op->stream_ref &&
		    xattr != NULL) {
			/* The file's data became a stream. */
			if (NT_STATUS_IS_OK(share_mode_add_stream_ref(
				    db, &base, &o, op->share_access))) {
				op->stream_ref = true;
			}
		}
		if (wake) {
			smbd_breaks_wake(op->conn->worker, &from);
		}
	}
	talloc_free(op->stream);
	op->stream = name;
	smbd_open_handle_renamed(op);
	return status;
}

void smbd_open_share_release(struct smbd_open *op, bool *delete_now,
			     bool *delete_base)
{
	struct locking_db *db = op->conn ? smbd_locking(op->conn->worker)
					 : NULL;
	struct file_key k;
	struct open_owner o;
	bool last = false, wake = false;

	*delete_now = false;
	*delete_base = false;
	if (!op->share_registered || db == NULL) {
		return;
	}
	smbd_status_open(op, false);
	smbd_open_keys(op, &k, &o);
	brl_remove_owner(db, &k, &o);
	(void)share_mode_remove_wake(db, &k, &o, &last, delete_now, &wake);
	op->share_registered = false;
	if (vfs_handle_has(&op->h, VFS_HANDLE_IGNORE_DELETE_ON_CLOSE)) {
		/* fruit: a Mac's delete of the resource fork is pending
		 * for other opens, but the fork stays (as Samba's) */
		*delete_now = false;
	}
	if (op->stream_ref) {
		bool base_last = false;

		smbd_open_locking_ids(op, &k, &o);
		(void)share_mode_remove(db, &k, &o, &base_last, delete_base);
		op->stream_ref = false;
	}
	if (op->is_dir && op->delete_on_close && !last) {
		/* MS-FSA 2.1.5.4: the directory's delete is pending now. */
		dir_delete_pending(op);
	}
	if (wake) {
		/* An open waits for a break this close may have ended. */
		smbd_breaks_wake(op->conn->worker, &k);
	}
	/* Written and closed: its directory's entry changed (a delete
	 * breaks once it is done, by whoever runs it). */
	if (op->stream == NULL && op->modified && !*delete_now) {
		struct smbd_dir_change c;

		smbd_dir_change_of(op, &c);
		smbd_dirlease_break(op->conn->worker, &c);
	}
}

NTSTATUS smbd_open_set_delete_pending(struct smbd_open *op, bool on)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct file_key k;
	struct open_owner o;
	NTSTATUS status;

	if (db == NULL || !op->share_registered) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	smbd_open_keys(op, &k, &o);
	status = share_mode_set_delete_on_close(db, &k, &o, on);
	if (NT_STATUS_IS_OK(status) && on && op->is_dir) {
		dir_delete_pending(op);
	}
	return status;
}

void smbd_open_query_state(struct smbd_open *op, struct vfs_file_info *fi)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct share_mode_file_state fs;
	struct file_key k;
	struct open_owner o;

	if (db == NULL || !op->share_registered) {
		return;
	}
	smbd_open_keys(op, &k, &o);
	/* One read for both; a stream's record is its own, its file's
	 * ChangeTime is in the file's. */
	if (!NT_STATUS_IS_OK(share_mode_file_state(
		    db, &k, op->stream == NULL ? fi->inode_ctime : 0, &fs))) {
		return;
	}
	fi->delete_pending = fs.delete_pending;
	if (fs.change_time != 0) {
		fi->change_time = fs.change_time;
	}
	if (op->stream != NULL) {
		smbd_ct_report(op->conn->worker, fi);
	}
}

NTSTATUS smbd_open_check_delete(struct smbd_open *op)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct file_key k;
	struct open_owner o;

	if (db == NULL || !op->share_registered) {
		return NT_STATUS_OK;
	}
	smbd_open_keys(op, &k, &o);
	return share_mode_check_delete(db, &k, &o);
}

/*
 * Whether an open of the parent holding DELETE stops the rename of op.
 * A file's rename: always, as Windows (its rename opens the directory
 * sharing read and write only; smbtorture smb2.oplock.batch20 renames
 * through a second connection).  A directory's rename: only when the
 * renaming client holds it, an open of this worker on the same
 * connection, as Samba 4.17 has it (smb2.notify-inotify.inotify-rename:
 * another client watching the parent with DELETE access does not stop a
 * subdirectory's rename; Windows would refuse it too, but the issue and
 * Samba decide for this test).
 */
static bool parent_delete_stops(const struct open_owner *o, void *priv)
{
	const struct smbd_open *op = priv;
	struct smbd_open *other;

	if (!op->is_dir) {
		return true;
	}
	if (o->pid != smbd_locking_pid(op->worker)) {
		return false;
	}
	other = smbd_open_by_id(op->worker, o->open_id);
	return other != NULL && other->conn == op->conn;
}

/*
 * Rename of op: Windows refuses it with SHARING_VIOLATION while the
 * parent directory is open in a way that conflicts with the open a
 * rename makes of it to change its entries (write access, sharing read
 * and write): without FILE_SHARE_WRITE, or with DELETE access (for a
 * directory's rename only the renaming client's, parent_delete_stops;
 * smbtorture smb2.rename share_delete_and_delete_access,
 * no_share_delete_*, smb2.oplock.batch19/20,
 * smb2.notify-inotify.inotify-rename).  A parent we cannot stat has no
 * opens we know of.
 */
NTSTATUS smbd_open_check_rename_parent(struct smbd_open *op)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct vfs_file_info fi;
	struct file_key k;
	const char *slash;
	char *parent;
	NTSTATUS status;

	if (db == NULL || op->stream != NULL || op->path == NULL) {
		return NT_STATUS_OK;
	}
	slash = strrchr(op->path, '/');
	parent = slash ? talloc_strndup(op, op->path, slash - op->path)
		       : talloc_strdup(op, ".");
	if (parent == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* The parent under the share's openat2 rules, never a symlinked
	 * way out of it. */
	status = vfs_handle_dir_info(&op->tcon->share, op->tcon->share.root_fd,
				     parent, &fi);
	talloc_free(parent);
	if (!NT_STATUS_IS_OK(status)) {
		return NT_STATUS_OK;
	}
	k.dev = fi.dev;
	k.ino = fi.ino;
	return share_mode_check_rename_parent(db, &k, parent_delete_stops,
					      op);
}

NTSTATUS smbd_open_check_open_below(struct smbd_open *op)
{
	struct locking_db *db = smbd_locking(op->conn->worker);

	if (db == NULL || !op->is_dir || op->path == NULL ||
	    op->tcon->path == NULL) {
		return NT_STATUS_OK;
	}
	return status_db_open_below(db, op->tcon->path, op->path)
		       ? NT_STATUS_ACCESS_DENIED
		       : NT_STATUS_OK;
}

NTSTATUS smbd_open_check_io(struct smbd_open *op, uint64_t off, uint64_t len,
			    bool write)
{
	struct locking_db *db = smbd_locking(op->conn->worker);
	struct file_key k;
	struct open_owner o;

	if (db == NULL || len == 0) {
		return NT_STATUS_OK;
	}
	smbd_open_keys(op, &k, &o);
	return brl_check_io(db, &k, &o, off, len, write);
}
