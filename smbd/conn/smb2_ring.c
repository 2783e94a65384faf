/*
 * Requests whose file I/O goes through the worker's io_uring instead of
 * the thread pool (see smb2_ring_write in smb2_server.h).  Issue 18 chose
 * per kind of operation between the loop thread, the ring and the pool
 * by measurement: a WRITE is one call on an fd the open already holds,
 * with nothing to decide on the way, so the ring does it, as the tree's
 * user through a registered personality; the pool's hand-off (two
 * futex calls, an eventfd write and a wakeup of the loop, two context
 * switches) goes.  As with a pool job, the state is held here and not by
 * the request: if the connection goes while the write is in the kernel,
 * orphan(state) runs at its completion and the state is freed then.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "lib/ev.h"

#include <errno.h>

struct ring_write {
	struct smb2_request *req;	/* NULL once orphaned */
	void *state;
	struct ev_loop *loop;
	int personality;
	int fd;
	const uint8_t *buf;
	size_t len;
	uint64_t off;
	size_t *written;
	int *err;
	smb2_job_done_fn done;
	smb2_job_orphan_fn orphan;
};

static void ring_write_done(void *priv, int res);

/* The part not written yet. */
static int ring_write_submit(struct ring_write *rw)
{
	size_t done = *rw->written;

	return ev_file_write(rw->loop, rw->fd, rw->buf + done, rw->len - done,
			     rw->off + done, rw->personality, ring_write_done,
			     rw);
}

static void ring_write_finish(struct ring_write *rw)
{
	struct smb2_request *req = rw->req;
	NTSTATUS status;

	if (req == NULL) {
		if (rw->orphan != NULL) {
			rw->orphan(rw->state);
		}
		talloc_free(rw);
		return;
	}
	smb2_frame_set_work(req, NULL, NULL);
	/* The state moves to the request for the reply. */
	talloc_steal(req->mem_ctx, rw->state);
	status = rw->done(req, rw->state);
	talloc_free(rw);
	smb2_frame_resume(req, status);
}

static void ring_write_done(void *priv, int res)
{
	struct ring_write *rw = priv;

	if (res > 0) {
		*rw->written += (size_t)res;
	}
	if ((res > 0 && *rw->written < rw->len) || res == -EINTR ||
	    res == -EAGAIN) {
		/* A short write: the rest, as the pool's loop would. */
		int ret = ring_write_submit(rw);

		if (ret == 0) {
			return;
		}
		*rw->err = -ret;
	} else if (res < 0) {
		*rw->err = -res;
	} else if (res == 0) {
		*rw->err = EIO;	/* no progress, no error: do not spin */
	}
	ring_write_finish(rw);
}

/* The request went first: the write finishes as an orphan. */
static void ring_write_abandon(void *work)
{
	struct ring_write *rw = work;

	rw->req = NULL;
}

NTSTATUS smb2_ring_write(struct smb2_request *req, void *state, int fd,
			 const uint8_t *buf, size_t len, uint64_t off,
			 size_t *written, int *err, smb2_job_done_fn done,
			 smb2_job_orphan_fn orphan)
{
	struct ev_loop *loop = req->conn->worker->loop;
	struct ring_write *rw;
	int personality;

	if (loop == NULL || req->tcon == NULL || len == 0) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	personality = smbd_tcon_personality(req->tcon, loop);
	if (personality <= 0) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	/* Owned by the ring's side (NULL context) until finished. */
	rw = talloc_zero(NULL, struct ring_write);
	if (rw == NULL) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	rw->req = req;
	rw->loop = loop;
	rw->personality = personality;
	rw->fd = fd;
	rw->buf = buf;
	rw->len = len;
	rw->off = off;
	rw->written = written;
	rw->err = err;
	rw->done = done;
	rw->orphan = orphan;
	*written = 0;
	*err = 0;
	/* Queued for the loop's next wait: nothing completes before the
	 * state is ours. */
	if (ring_write_submit(rw) != 0) {
		talloc_free(rw);
		return NT_STATUS_NOT_SUPPORTED;
	}
	rw->state = talloc_steal(rw, state);
	smb2_frame_set_work(req, rw, ring_write_abandon);
	return SMBD_STATUS_ASYNC;
}
