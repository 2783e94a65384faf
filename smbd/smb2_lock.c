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
 * LockSequence (resilient, durable and persistent handles, multichannel)
 * is ignored: none of those exist here yet.
 */
#include "smbd/smb2_server.h"
#include "smbd/conn.h"
#include "smbd/open.h"
#include "smbd/session.h"
#include "locking/locking.h"
#include "locking/smbd_locking.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>

/* 2.2.26.1 SMB2_LOCK_ELEMENT Flags */
#define SMB2_LOCKFLAG_SHARED 0x00000001
#define SMB2_LOCKFLAG_EXCLUSIVE 0x00000002
#define SMB2_LOCKFLAG_UNLOCK 0x00000004
#define SMB2_LOCKFLAG_FAIL_IMMEDIATELY 0x00000010

#define SMB2_LOCK_ELEMENT_LEN 24
#define LOCK_RETRY_MS 50

struct lock_wait {
	struct smb2_request *req;
	uint8_t fid[16];	/* the resolved FileId */
	struct brl_range range;
	struct ev_timer *timer;
	unsigned tries;
};

static void lock_wait_retry(void *priv);

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

/*
 * 3.3.5.14.1: each element must be a plain UNLOCK (with FAIL_IMMEDIATELY
 * too it is INVALID_PARAMETER, as Windows answers and smbtorture
 * smb2.lock.valid-request expects); the first failure ends the request,
 * what was unlocked before stays unlocked (smb2.lock.multiple-unlock).
 */
static NTSTATUS do_unlocks(struct locking_db *db, const struct file_key *k,
			   const struct open_owner *o, struct wire_cur *b,
			   uint16_t count)
{
	uint16_t i;

	for (i = 0; i < count; i++) {
		uint64_t off, len;
		uint32_t flags;
		NTSTATUS status;

		if (!NT_STATUS_IS_OK(wire_pull_le64(b, &off)) ||
		    !NT_STATUS_IS_OK(wire_pull_le64(b, &len)) ||
		    !NT_STATUS_IS_OK(wire_pull_le32(b, &flags)) ||
		    !NT_STATUS_IS_OK(wire_skip(b, 4))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (flags != SMB2_LOCKFLAG_UNLOCK) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		status = brl_unlock(db, k, o, off, len);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	return NT_STATUS_OK;
}

/* Read and check the lock elements; *blocking: the one element may
 * wait. */
static NTSTATUS read_locks(TALLOC_CTX *mem_ctx, struct wire_cur *b,
			   uint16_t count, struct brl_range **out,
			   bool *blocking)
{
	struct brl_range *r = talloc_array(mem_ctx, struct brl_range, count);
	uint16_t i;

	if (r == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*blocking = false;
	for (i = 0; i < count; i++) {
		uint32_t flags;

		if (!NT_STATUS_IS_OK(wire_pull_le64(b, &r[i].off)) ||
		    !NT_STATUS_IS_OK(wire_pull_le64(b, &r[i].len)) ||
		    !NT_STATUS_IS_OK(wire_pull_le32(b, &flags)) ||
		    !NT_STATUS_IS_OK(wire_skip(b, 4)) ||
		    !lock_flags_valid(flags)) {
			talloc_free(r);
			return NT_STATUS_INVALID_PARAMETER;
		}
		r[i].exclusive = (flags & SMB2_LOCKFLAG_EXCLUSIVE) != 0;
		if (!(flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY)) {
			/* 3.3.5.14.2: only a single lock may wait. */
			if (count > 1) {
				talloc_free(r);
				return NT_STATUS_INVALID_PARAMETER;
			}
			*blocking = true;
		}
	}
	*out = r;
	return NT_STATUS_OK;
}

/* Keep trying the one blocking lock from the worker's loop. */
static NTSTATUS lock_wait_start(struct smb2_request *req,
				const struct brl_range *range)
{
	struct lock_wait *w = talloc_zero(req->mem_ctx, struct lock_wait);

	if (w == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	w->req = req;
	memcpy(w->fid, req->fid, 16);
	w->range = *range;
	w->timer = ev_timer_add(w, req->conn->worker->loop, LOCK_RETRY_MS,
				lock_wait_retry, w);
	if (w->timer == NULL) {
		talloc_free(w);
		return NT_STATUS_NO_MEMORY;
	}
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
	smbd_open_locking_ids(op, &k, &o);
	status = brl_lock_many(db, &k, &o, &w->range, 1, NULL);
	if (status != NT_STATUS_LOCK_NOT_GRANTED) {
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
	struct wire_cur *b = &req->body;
	struct brl_range *ranges = NULL;
	struct locking_db *db;
	struct smbd_open *op;
	struct file_key k;
	struct open_owner o;
	uint16_t count;
	uint32_t seq, first_flags;
	uint8_t fid[16];
	bool blocking;
	NTSTATUS status;

	(void)wire_skip(b, 2); /* StructureSize, checked by the table */
	/* LockSequenceNumber/Index: only for handles we do not have. */
	if (!NT_STATUS_IS_OK(wire_pull_le16(b, &count)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(b, &seq)) ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(b, fid, 16))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* 2.2.26: LockCount MUST be at least 1. */
	if (count == 0 ||
	    wire_remaining(b) < (size_t)count * SMB2_LOCK_ELEMENT_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-FSA 2.1.5.8: no byte-range locks on directories. */
	if (op->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* Locking needs read or write access to the data, as NtLockFile. */
	if (op->opath || !(op->access_mask & (SEC_FILE_READ_DATA |
					      SEC_FILE_WRITE_DATA))) {
		return NT_STATUS_ACCESS_DENIED;
	}
	db = smbd_locking(req->conn->worker);
	if (db == NULL) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	smbd_open_locking_ids(op, &k, &o);
	(void)seq;
	first_flags = le32(wire_ptr(b) + 16);
	if (first_flags & SMB2_LOCKFLAG_UNLOCK) {
		status = do_unlocks(db, &k, &o, b, count);
		return NT_STATUS_IS_OK(status) ? lock_reply(req) : status;
	}
	status = read_locks(req->mem_ctx, b, count, &ranges, &blocking);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = brl_lock_many(db, &k, &o, ranges, count, NULL);
	if (status == NT_STATUS_LOCK_NOT_GRANTED && blocking) {
		status = lock_wait_start(req, &ranges[0]);
	}
	talloc_free(ranges);
	return NT_STATUS_IS_OK(status) ? lock_reply(req) : status;
}
