/*
 * LOCK (MS-SMB2 2.2.26, 2.2.27, 3.3.5.14): byte-range locks and unlocks
 * on one open, through the shared locking database (locking/locking.h),
 * so locks taken through one worker hold against every other.
 *
 * A request either unlocks (its first element says UNLOCK: every element
 * must, each is applied in order and the first failure stops, without
 * undoing the ones before: 3.3.5.14.1) or locks (3.3.5.14.2: all elements
 * granted at once or none, which brl_lock_many does under one chain lock).
 *
 * A lock that conflicts without FAIL_IMMEDIATELY waits: SMB2 locks have
 * no timeout, they wait until granted, the handle is closed or the
 * request is cancelled.  The dispatcher has no interim (STATUS_PENDING)
 * responses yet, so the handler returns SMBD_STATUS_ASYNC and retries
 * every LOCK_RETRY_MS on a timer of the worker's loop; the frame
 * finishes with smb2_frame_resume().  The wait state is a talloc child of
 * the frame: a dropped connection frees the frame, the state and the
 * timer with it.  Missing: the interim response (clients that wait for it
 * before sending more, like smbtorture, stall) and CANCEL of a waiting
 * lock; a closed handle ends the wait with RANGE_NOT_LOCKED.
 *
 * Keys are smbd_open_keys()'s (a stream has its own, as its locks are
 * its own: MS-FSA keeps them per stream); the open's locks go when the
 * open does (smbd_open_share_release() in open.c, for CLOSE and for
 * every open a TREE_DISCONNECT, LOGOFF or dropped connection frees).
 *
 * LockSequence (3.3.5.14): for a resilient open on any dialect but
 * 2.0.2 (the LOCK a client resends after a network failure: Windows 7
 * checks only those), and on a 3.x connection for a durable open or when
 * the connection offers multichannel (a LOCK may come again over another
 * channel), the open's LockSequenceArray (smbd_open.lock_seq, kept while
 * it is disconnected and across the reclaim) makes a replayed LOCK
 * succeed without being applied twice.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/smb2/smb2_lock.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/conn/session.h"
#include "locking/locking.h"
#include "smbd/objects/smbd_locking.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define LOCK_RETRY_MS 50

struct lock_wait {
	struct smb2_request *req;
	uint32_t sequence;	/* LockSequence, recorded when granted */
	uint8_t fid[16];	/* the resolved FileId */
	struct brl_range range;
	struct ev_timer *timer;
	unsigned tries;
};

static void lock_wait_retry(void *priv);

#define LOCK_SEQ_VALID 0x80

/* 3.3.5.14: whether the open keeps a LockSequenceArray. */
static bool lock_seq_applies(const struct smb2_request *req,
			     const struct smbd_open *op)
{
	if (op->resilient && req->conn->dialect >= 0x0210) {
		return true;
	}
	return req->conn->dialect >= 0x0300 &&
	       (op->durable ||
		(req->conn->server_caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL));
}

/* LockSequenceIndex (the upper 28 bits), 1..64; 0 when out of range. */
static unsigned lock_seq_index(uint32_t sequence)
{
	uint32_t idx = sequence >> 4;

	return idx >= 1 && idx <= 64 ? idx : 0;
}

/*
 * 3.3.5.14: a LockSequence whose entry is valid and holds its number is
 * a replay of a LOCK already done: true (the caller answers success).
 * Otherwise the entry becomes invalid until this request succeeds.
 */
static bool lock_seq_replayed(struct smb2_request *req, struct smbd_open *op,
			      uint32_t sequence)
{
	unsigned idx = lock_seq_index(sequence);
	uint8_t want = LOCK_SEQ_VALID | (sequence & 0xf);

	if (!lock_seq_applies(req, op) || idx == 0) {
		return false;
	}
	if (op->lock_seq[idx - 1] == want) {
		return true;
	}
	op->lock_seq[idx - 1] = 0;
	return false;
}

/* 3.3.5.14: the request succeeded: remember its number. */
static void lock_seq_record(struct smb2_request *req, struct smbd_open *op,
			    uint32_t sequence)
{
	unsigned idx = lock_seq_index(sequence);

	if (lock_seq_applies(req, op) && idx != 0) {
		op->lock_seq[idx - 1] = LOCK_SEQ_VALID | (sequence & 0xf);
	}
}

/* 2.2.27 LOCK Response: StructureSize 4, Reserved. */
static NTSTATUS lock_reply(struct smb2_request *req)
{
	wire_push_le16(req->out, 4);
	wire_push_le16(req->out, 0);
	return req->out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/* 3.3.5.14.2: the four combinations 2.2.26.1 defines for a lock. */
static bool lock_flags_valid(uint32_t flags)
{
	switch (flags) {
	case SMB2_LOCKFLAG_SHARED:
	case SMB2_LOCKFLAG_EXCLUSIVE:
	case SMB2_LOCKFLAG_SHARED | SMB2_LOCKFLAG_FAIL_IMMEDIATELY:
	case SMB2_LOCKFLAG_EXCLUSIVE | SMB2_LOCKFLAG_FAIL_IMMEDIATELY:
		return true;
	default:
		return false;
	}
}

NTSTATUS smb2_lock_parse(TALLOC_CTX *mem_ctx, const uint8_t *body,
			 size_t len, struct smb2_lock_req *out)
{
	struct wire_cur b;
	uint16_t size, i;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&b, body, len);
	if (!NT_STATUS_IS_OK(wire_pull_le16(&b, &size)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&b, &out->count)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&b, &out->sequence)) ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(&b, out->fid, 16))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* 2.2.26: LockCount MUST be at least 1; the elements must be
	 * there (the dispatcher's table checked that too). */
	if (size != 48 || out->count == 0 ||
	    wire_remaining(&b) < (size_t)out->count * SMB2_LOCK_ELEMENT_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->el = talloc_array(mem_ctx, struct smb2_lock_elem, out->count);
	if (out->el == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->count; i++) {
		struct smb2_lock_elem *e = &out->el[i];

		if (!NT_STATUS_IS_OK(wire_pull_le64(&b, &e->off)) ||
		    !NT_STATUS_IS_OK(wire_pull_le64(&b, &e->len)) ||
		    !NT_STATUS_IS_OK(wire_pull_le32(&b, &e->flags)) ||
		    !NT_STATUS_IS_OK(wire_skip(&b, 4))) {
			TALLOC_FREE(out->el);
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	out->unlock = (out->el[0].flags & SMB2_LOCKFLAG_UNLOCK) != 0;
	return NT_STATUS_OK;
}

NTSTATUS smb2_lock_check_locks(TALLOC_CTX *mem_ctx, struct smb2_lock_req *r)
{
	uint16_t i;

	r->blocking = false;
	r->ranges = talloc_array(mem_ctx, struct brl_range, r->count);
	if (r->ranges == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < r->count; i++) {
		uint32_t flags = r->el[i].flags;

		if (!lock_flags_valid(flags)) {
			TALLOC_FREE(r->ranges);
			return NT_STATUS_INVALID_PARAMETER;
		}
		r->ranges[i].off = r->el[i].off;
		r->ranges[i].len = r->el[i].len;
		r->ranges[i].exclusive =
			(flags & SMB2_LOCKFLAG_EXCLUSIVE) != 0;
		if (!(flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY)) {
			/* 3.3.5.14.2: only a single lock may wait. */
			if (r->count > 1) {
				TALLOC_FREE(r->ranges);
				return NT_STATUS_INVALID_PARAMETER;
			}
			r->blocking = true;
		}
	}
	return NT_STATUS_OK;
}

/*
 * 3.3.5.14.1: each element must be a plain UNLOCK (with FAIL_IMMEDIATELY
 * too it is INVALID_PARAMETER, as Windows answers and smbtorture
 * smb2.lock.valid-request expects); the first failure ends the request,
 * what was unlocked before stays unlocked (smb2.lock.multiple-unlock).
 */
static NTSTATUS do_unlocks(struct locking_db *db, const struct file_key *k,
			   const struct open_owner *o,
			   const struct smb2_lock_req *r)
{
	uint16_t i;

	for (i = 0; i < r->count; i++) {
		const struct smb2_lock_elem *e = &r->el[i];
		NTSTATUS status;

		if (e->flags != SMB2_LOCKFLAG_UNLOCK) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		status = brl_unlock(db, k, o, e->off, e->len);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return NT_STATUS_OK;
}

static void lock_wait_finish(struct lock_wait *w, NTSTATUS status);

/* CANCEL of the waiting request (the timer goes with w). */
static void lock_wait_cancel(void *priv)
{
	lock_wait_finish(priv, NT_STATUS_CANCELLED);
}

/* Keep trying the one blocking lock from the worker's loop. */
static NTSTATUS lock_wait_start(struct smb2_request *req,
				const struct brl_range *range,
				uint32_t sequence)
{
	struct lock_wait *w = talloc_zero(req->mem_ctx, struct lock_wait);

	if (w == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	w->req = req;
	w->sequence = sequence;
	memcpy(w->fid, req->fid, 16);
	w->range = *range;
	w->timer = ev_timer_add(w, req->conn->worker->loop, LOCK_RETRY_MS,
				lock_wait_retry, w);
	if (w->timer == NULL) {
		talloc_free(w);
		return NT_STATUS_NO_MEMORY;
	}
	smb2_request_set_cancel(req, lock_wait_cancel, w);
	DBG_DEBUG("%s: mid %llu waits for [%llu, +%llu)\n", req->conn->remote,
		  (unsigned long long)req->mid,
		  (unsigned long long)range->off,
		  (unsigned long long)range->len);
	return SMBD_STATUS_ASYNC;
}

static void lock_wait_finish(struct lock_wait *w, NTSTATUS status)
{
	struct smb2_request *req = w->req;

	talloc_free(w);
	if (NT_STATUS_IS_OK(status)) {
		status = lock_reply(req);
	}
	smb2_frame_resume(req, status);
}


static void lock_wait_retry(void *priv)
{
	struct lock_wait *w = priv;
	struct smb2_request *req = w->req;
	struct locking_db *db = smbd_locking(req->conn->worker);
	struct file_key k;
	struct open_owner o;
	struct smbd_open *op = NULL;
	NTSTATUS status;

	w->timer = NULL; /* the loop freed it before calling us */
	/*
	 * A LOGOFF or TREE_DISCONNECT in another frame may have freed the
	 * session or tree this request was dispatched with: find them
	 * again, and the open with them.  Gone means the handle is closed.
	 */
	req->session = smbd_session_find(req->conn, req->session_id);
	req->tcon = req->session != NULL
			    ? smbd_tcon_find(req->session, req->tree_id)
			    : NULL;
	if (req->tcon == NULL ||
	    !NT_STATUS_IS_OK(smbd_open_lookup(req, w->fid, &op))) {
		DBG_DEBUG("mid %llu: handle closed while waiting\n",
			  (unsigned long long)req->mid);
		lock_wait_finish(w, NT_STATUS_RANGE_NOT_LOCKED);
		return;
	}
	if (db == NULL) {
		lock_wait_finish(w, NT_STATUS_INSUFFICIENT_RESOURCES);
		return;
	}
	smbd_open_keys(op, &k, &o);
	status = brl_lock_many(db, &k, &o, &w->range, 1, NULL);
	if (status != NT_STATUS_LOCK_NOT_GRANTED) {
		if (NT_STATUS_IS_OK(status)) {
			lock_seq_record(req, op, w->sequence);
		}
		lock_wait_finish(w, status);
		return;
	}
	w->tries++;
	w->timer = ev_timer_add(w, req->conn->worker->loop, LOCK_RETRY_MS,
				lock_wait_retry, w);
	if (w->timer == NULL) {
		lock_wait_finish(w, NT_STATUS_NO_MEMORY);
	}
}

NTSTATUS smb2_lock(struct smb2_request *req)
{
	struct smb2_lock_req r;
	struct locking_db *db;
	struct smbd_open *op;
	struct file_key k;
	struct open_owner o;
	NTSTATUS status;

	status = smb2_lock_parse(req->mem_ctx, wire_ptr(&req->body),
				 wire_remaining(&req->body), &r);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* The handle before the flags: smb2.lock.valid-request sends bad
	 * flags on a closed handle and expects FILE_CLOSED. */
	status = smbd_open_lookup(req, r.fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		goto done;
	}
	/* MS-FSA 2.1.5.8: no byte-range locks on directories. */
	if (op->is_dir) {
		status = NT_STATUS_INVALID_PARAMETER;
		goto done;
	}
	/* Locking needs read or write access to the data, as NtLockFile. */
	if (op->opath || !(op->access_mask & (SEC_FILE_READ_DATA |
					      SEC_FILE_WRITE_DATA))) {
		status = NT_STATUS_ACCESS_DENIED;
		goto done;
	}
	db = smbd_locking(req->conn->worker);
	if (db == NULL) {
		status = NT_STATUS_INSUFFICIENT_RESOURCES;
		goto done;
	}
	if (lock_seq_replayed(req, op, r.sequence)) {
		status = NT_STATUS_OK;
		goto done;
	}
	smbd_open_keys(op, &k, &o);
	if (r.unlock) {
		status = do_unlocks(db, &k, &o, &r);
		if (NT_STATUS_IS_OK(status)) {
			lock_seq_record(req, op, r.sequence);
		}
		goto done;
	}
	status = smb2_lock_check_locks(req->mem_ctx, &r);
	if (!NT_STATUS_IS_OK(status)) {
		goto done;
	}
	/* A byte-range lock ends other opens' read caching (level II
	 * oplocks and read leases: smb2.oplock.brl*, smb2.lease.lock1). */
	smbd_break_readers(op);
	status = brl_lock_many(db, &k, &o, r.ranges, r.count, NULL);
	if (NT_STATUS_IS_OK(status)) {
		lock_seq_record(req, op, r.sequence);
	} else if (status == NT_STATUS_LOCK_NOT_GRANTED && r.blocking) {
		status = lock_wait_start(req, &r.ranges[0], r.sequence);
	}
done:
	TALLOC_FREE(r.el);
	TALLOC_FREE(r.ranges);
	return NT_STATUS_IS_OK(status) ? lock_reply(req) : status;
}
