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
#include "smbd/conn/smb2_work.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "lib/ev.h"

#include <errno.h>

struct ring_write {
	struct smb2_work work;
	struct ev_loop *loop;
	int personality;
	int fd;
	const uint8_t *buf;
	size_t len;
	uint64_t off;
	size_t *written;
	int *err;
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
	smb2_work_end(&rw->work, true);
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
	rw->loop = loop;
	rw->personality = personality;
	rw->fd = fd;
	rw->buf = buf;
	rw->len = len;
	rw->off = off;
	rw->written = written;
	rw->err = err;
	*written = 0;
	*err = 0;
	/* Queued for the loop's next wait: nothing completes before the
	 * state is ours. */
	if (ring_write_submit(rw) != 0) {
		talloc_free(rw);
		return NT_STATUS_NOT_SUPPORTED;
	}
	smb2_work_begin(&rw->work, rw, req, state, done, orphan);
	return SMBD_STATUS_ASYNC;
}
