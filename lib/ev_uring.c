/*
 * io_uring backend: multishot accept, multishot recv into a ring of
 * provided buffers, sendmsg gathering the send queue (sendfile and a
 * POLLOUT poll for its file parts), multishot poll on signalfd.  One ring per worker; user_data points at a struct ev_uop.
 *
 * Provided buffers: the kernel picks a free buffer for each receive, so a
 * worker with thousands of idle connections holds no per-connection receive
 * memory (the 64 KiB-per-idle-connection budget of issue 5).
 */
#include "lib/ev_internal.h"
#include "lib/log.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define EVU_RING_ENTRIES 512
#define EVU_BGID 1
#define EVU_NBUFS 256
#define EVU_BUFSZ (64 * 1024)

struct evu_state {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	uint8_t *bufs;
	bool ring_ok;
};

static struct evu_state *evu(struct ev_loop *loop)
{
	return loop->bstate;
}

static struct io_uring_sqe *evu_sqe(struct ev_loop *loop)
{
	struct io_uring *ring = &evu(loop)->ring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (sqe == NULL) {
		/* Submission queue full: push what we have, then retry. */
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	return sqe;
}

static int evu_init(struct ev_loop *loop)
{
	struct evu_state *s = talloc_zero(loop, struct evu_state);
	struct io_uring_params p;
	struct io_uring_buf_reg reg;
	size_t i;
	int ret;

	if (s == NULL) {
		return -ENOMEM;
	}
	loop->bstate = s;
	memset(&p, 0, sizeof(p));
	/* One thread submits; let completions run at our next wait. */
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
	ret = io_uring_queue_init_params(EVU_RING_ENTRIES, &s->ring, &p);
	if (ret == -EINVAL) {
		memset(&p, 0, sizeof(p));
		ret = io_uring_queue_init_params(EVU_RING_ENTRIES, &s->ring,
						 &p);
	}
	if (ret < 0) {
		return ret;
	}
	s->ring_ok = true;
	if (!(p.features & IORING_FEAT_FAST_POLL)) {
		return -ENOTSUP;
	}

	s->br = mmap(NULL, EVU_NBUFS * sizeof(struct io_uring_buf),
		     PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (s->br == MAP_FAILED) {
		s->br = NULL;
		return -errno;
	}
	s->bufs = mmap(NULL, (size_t)EVU_NBUFS * EVU_BUFSZ,
		       PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1,
		       0);
	if (s->bufs == MAP_FAILED) {
		s->bufs = NULL;
		return -errno;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uint64_t)(uintptr_t)s->br;
	reg.ring_entries = EVU_NBUFS;
	reg.bgid = EVU_BGID;
	ret = io_uring_register_buf_ring(&s->ring, &reg, 0);
	if (ret < 0) {
		return ret;
	}
	io_uring_buf_ring_init(s->br);
	for (i = 0; i < EVU_NBUFS; i++) {
		io_uring_buf_ring_add(s->br, s->bufs + i * EVU_BUFSZ,
				      EVU_BUFSZ, (unsigned short)i,
				      io_uring_buf_ring_mask(EVU_NBUFS),
				      (int)i);
	}
	io_uring_buf_ring_advance(s->br, EVU_NBUFS);
	return 0;
}

static void evu_fini(struct ev_loop *loop)
{
	struct evu_state *s = evu(loop);

	if (s == NULL) {
		return;
	}
	if (s->ring_ok) {
		io_uring_queue_exit(&s->ring);
	}
	if (s->br != NULL) {
		munmap(s->br, EVU_NBUFS * sizeof(struct io_uring_buf));
	}
	if (s->bufs != NULL) {
		munmap(s->bufs, (size_t)EVU_NBUFS * EVU_BUFSZ);
	}
}

/* ---- accept ---- */

static void evu_arm_accept(struct ev_listener *l);
static void evu_listen_pause(struct ev_listener *l);

static void evu_accept_done(struct ev_uop *op, int res, unsigned flags)
{
	struct ev_listener *l =
		(struct ev_listener *)((char *)op -
				       offsetof(struct ev_listener, op));

	bool more = (flags & IORING_CQE_F_MORE) != 0;

	if (!more) {
		l->armed = false;
	}
	if (res >= 0) {
		ev_listener_accepted(l);
		l->on_accept(l->priv, res);
	} else if (res != -ECANCELED &&
		   ev_listener_accept_failed(l, -res) && more) {
		/* Paused while the multishot goes on (kernels end it on
		 * EMFILE, but do not count on it): cancel it. */
		evu_listen_pause(l);
	}
	if (!l->armed && !l->paused) {
		evu_arm_accept(l);
	}
}

static void evu_arm_accept(struct ev_listener *l)
{
	struct io_uring_sqe *sqe = evu_sqe(l->loop);

	if (sqe == NULL) {
		DBG_ERR("no submission entry for accept\n");
		return;
	}
	io_uring_prep_multishot_accept(sqe, l->fd, NULL, NULL,
				       SOCK_NONBLOCK | SOCK_CLOEXEC);
	l->op.cb = evu_accept_done;
	io_uring_sqe_set_data(sqe, &l->op);
	l->armed = true;
}

/* Paused for want of fds: end the multishot accept if it still runs;
 * its last completion (-ECANCELED) does not re-arm while paused. */
static void evu_listen_pause(struct ev_listener *l)
{
	struct io_uring_sqe *sqe;

	if (!l->armed) {
		return;
	}
	sqe = evu_sqe(l->loop);
	if (sqe != NULL) {
		io_uring_prep_cancel(sqe, &l->op, 0);
		io_uring_sqe_set_data(sqe, NULL);
	}
}

static void evu_listen_resume(struct ev_listener *l)
{
	if (!l->armed) {
		evu_arm_accept(l);
	}
}

static int evu_listen(struct ev_listener *l)
{
	evu_arm_accept(l);
	return 0;
}

/* ---- signals ---- */

static void evu_arm_fdw(struct ev_fdwatch *w);

static void evu_fdw_done(struct ev_uop *op, int res, unsigned flags)
{
	struct ev_fdwatch *w =
		(struct ev_fdwatch *)((char *)op -
				       offsetof(struct ev_fdwatch, op));

	if (w->counter) {
		if (res < 0 && res != -EINTR && res != -ECANCELED) {
			/* -EAGAIN (a non-blocking eventfd), -EBADF: reading
			 * again would spin; the watch ends, loudly */
			DBG_ERR("eventfd %d: read by the ring failed: %s; no "
				"longer watched\n", w->fd, strerror(-res));
			return;
		}
		/* The read is one-shot: armed again before the user runs,
		 * it goes out with the loop's next wait, no call of its own */
		evu_arm_fdw(w);
		if (res == (int)sizeof(w->count)) {
			ev_fdwatch_ready(w);
		}
		return;
	}
	if (res > 0) {
		ev_fdwatch_ready(w);
	}
	if (!(flags & IORING_CQE_F_MORE)) {
		evu_arm_fdw(w);
	}
}

/*
 * A watched fd is polled (multishot); an eventfd watched as a counter
 * (ev_watch_eventfd) is read by the ring instead, so a wakeup from the
 * thread pool costs the loop no read(2).  The eventfd must be blocking
 * (the ring waits for a write; on an O_NONBLOCK one it would answer
 * -EAGAIN at once).
 */
static void evu_arm_fdw(struct ev_fdwatch *w)
{
	struct io_uring_sqe *sqe = evu_sqe(w->loop);

	if (sqe == NULL) {
		return;
	}
	if (w->counter) {
		io_uring_prep_read(sqe, w->fd, &w->count, sizeof(w->count), 0);
	} else {
		io_uring_prep_poll_multishot(sqe, w->fd, POLLIN);
	}
	w->op.cb = evu_fdw_done;
	io_uring_sqe_set_data(sqe, &w->op);
}

static int evu_watch_fd(struct ev_fdwatch *w)
{
	evu_arm_fdw(w);
	return 0;
}

/* ---- streams ---- */

#define ST_FROM(op, member)                                                   \
	((struct ev_stream *)((char *)(op) -                                  \
			      offsetof(struct ev_stream, member)))

static void evu_arm_recv(struct ev_stream *st);

static void evu_recv_done(struct ev_uop *op, int res, unsigned flags)
{
	struct ev_stream *st = ST_FROM(op, recv_op);
	struct evu_state *s = evu(st->loop);
	bool more = (flags & IORING_CQE_F_MORE) != 0;

	if (!more) {
		st->inflight--;
		st->recv_armed = false;
	}
	if (flags & IORING_CQE_F_BUFFER) {
		unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
		uint8_t *buf = s->bufs + (size_t)bid * EVU_BUFSZ;

		if (res > 0) {
			ev_stream_deliver(st, buf, (size_t)res);
		}
		/* Give the buffer back whatever the callback did. */
		io_uring_buf_ring_add(s->br, buf, EVU_BUFSZ,
				      (unsigned short)bid,
				      io_uring_buf_ring_mask(EVU_NBUFS), 0);
		io_uring_buf_ring_advance(s->br, 1);
	}
	if (st->closing) {
		return;
	}
	if (res == 0) {
		ev_stream_failed(st, 0);
		return;
	}
	if (res < 0 && res != -ENOBUFS && res != -EINTR && res != -EAGAIN) {
		ev_stream_failed(st, -res);
		return;
	}
	if (!more && !st->recv_armed) {
		evu_arm_recv(st);
	}
}

static void evu_arm_recv(struct ev_stream *st)
{
	struct io_uring_sqe *sqe = evu_sqe(st->loop);

	if (sqe == NULL) {
		ev_stream_failed(st, ENOMEM);
		return;
	}
	io_uring_prep_recv_multishot(sqe, st->fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = EVU_BGID;
	st->recv_op.cb = evu_recv_done;
	io_uring_sqe_set_data(sqe, &st->recv_op);
	st->inflight++;
	st->recv_armed = true;
}

static int evu_stream_start(struct ev_stream *st)
{
	evu_arm_recv(st);
	return 0;
}

static void evu_send_done(struct ev_uop *op, int res, unsigned flags);
static void evu_writable(struct ev_uop *op, int res, unsigned flags);

/* The socket is full under a file part: poll for POLLOUT (one shot) with
 * the send record, as a sendmsg would hold it. */
static void evu_wait_writable(struct ev_stream *st)
{
	struct io_uring_sqe *sqe = evu_sqe(st->loop);

	if (sqe == NULL) {
		st->sending = false;
		ev_stream_failed(st, ENOMEM);
		return;
	}
	io_uring_prep_poll_add(sqe, st->fd, POLLOUT);
	st->send_op.cb = evu_writable;
	io_uring_sqe_set_data(sqe, &st->send_op);
	st->inflight++;
	st->sending = true;
}

/*
 * File parts go with sendfile() from this thread on the non-blocking
 * socket (accepted with SOCK_NONBLOCK): the ring has no sendfile, and its
 * splice needs a pipe per stream; the data is in the page cache (the
 * caller's job), so the call only moves page references.  Buffers go
 * through the ring as one sendmsg, up to the next file part.
 */
static void evu_submit_send(struct ev_stream *st)
{
	struct io_uring_sqe *sqe;
	int ret = ev_stream_send_files(st);

	if (ret == -EAGAIN) {
		evu_wait_writable(st);
		return;
	}
	if (ret < 0) {
		st->sending = false;
		ev_stream_failed(st, -ret);
		return;
	}
	if (ev_stream_fill_iov(st) == 0) {
		st->sending = false;
		ev_stream_drained(st);
		return;
	}
	sqe = evu_sqe(st->loop);
	if (sqe == NULL) {
		ev_stream_failed(st, ENOMEM);
		return;
	}
	io_uring_prep_sendmsg(sqe, st->fd, &st->msg, MSG_NOSIGNAL);
	st->send_op.cb = evu_send_done;
	io_uring_sqe_set_data(sqe, &st->send_op);
	st->inflight++;
	st->sending = true;
}

/* The send record completed: a sendmsg (res: bytes sent) or the POLLOUT
 * poll (res: the poll mask; on POLLERR/POLLHUP the next send says which
 * error).  Go on with the queue unless it failed. */
static void evu_send_finish(struct ev_stream *st, int res, bool sendmsg_op)
{
	st->inflight--;
	st->sending = false;
	if (st->closing) {
		return;
	}
	if (res < 0 && res != -EINTR && res != -EAGAIN) {
		ev_stream_failed(st, -res);
		return;
	}
	if (res > 0 && sendmsg_op) {
		ev_stream_sent(st, (size_t)res);
	}
	evu_submit_send(st);
}

static void evu_send_done(struct ev_uop *op, int res, unsigned flags)
{
	evu_send_finish(ST_FROM(op, send_op), res, true);
}

static void evu_writable(struct ev_uop *op, int res, unsigned flags)
{
	evu_send_finish(ST_FROM(op, send_op), res, false);
}

static void evu_stream_kick_send(struct ev_stream *st)
{
	if (!st->sending) {
		evu_submit_send(st);
	}
}

static void evu_stream_shutdown(struct ev_stream *st)
{
	struct io_uring_sqe *sqe;

	/* Completes the multishot recv and any send with an error, so the
	 * in-flight count drains and the loop can free the stream. */
	shutdown(st->fd, SHUT_RDWR);
	if (st->recv_armed) {
		sqe = evu_sqe(st->loop);
		if (sqe != NULL) {
			io_uring_prep_cancel(sqe, &st->recv_op, 0);
			io_uring_sqe_set_data(sqe, NULL);
		}
	}
}

static void evu_stream_release(struct ev_stream *st)
{
	struct io_uring_sqe *sqe;

	/* Only the recv ends (with -ECANCELED); the connection stays up
	 * for whoever takes the fd. */
	if (st->recv_armed) {
		sqe = evu_sqe(st->loop);
		if (sqe != NULL) {
			io_uring_prep_cancel(sqe, &st->recv_op, 0);
			io_uring_sqe_set_data(sqe, NULL);
		}
	}
}

/* ---- file writes ---- */

struct evu_fileop {
	struct ev_uop op;
	void (*done)(void *priv, int res);
	void *priv;
};

static void evu_fileop_done(struct ev_uop *op, int res, unsigned flags)
{
	struct evu_fileop *f =
		(struct evu_fileop *)((char *)op -
				      offsetof(struct evu_fileop, op));
	void (*done)(void *priv, int res) = f->done;
	void *priv = f->priv;

	(void)flags;
	talloc_free(f);
	done(priv, res);
}

/* The write is tried at once in the submitting enter (a page-cache write
 * usually completes there) and goes to the ring's own workers only if it
 * would block.  The personality's credentials are the writer's, so the
 * kernel's checks on a write (clearing set-user-ID bits, quotas) are the
 * user's, as in the pool. */
static int evu_file_write(struct ev_loop *loop, int fd, const void *buf,
			  size_t len, uint64_t off, int personality,
			  void (*done)(void *priv, int res), void *priv)
{
	struct evu_fileop *f;
	struct io_uring_sqe *sqe;

	if (len > INT32_MAX) {
		return -EINVAL;
	}
	f = talloc_zero(loop, struct evu_fileop);
	if (f == NULL) {
		return -ENOMEM;
	}
	sqe = evu_sqe(loop);
	if (sqe == NULL) {
		talloc_free(f);
		return -EBUSY;
	}
	f->op.cb = evu_fileop_done;
	f->done = done;
	f->priv = priv;
	io_uring_prep_write(sqe, fd, buf, (unsigned)len, off);
	sqe->personality = (__u16)personality;
	io_uring_sqe_set_data(sqe, &f->op);
	return 0;
}

static int evu_personality_register(struct ev_loop *loop)
{
	return io_uring_register_personality(&evu(loop)->ring);
}

static void evu_personality_unregister(struct ev_loop *loop, int id)
{
	(void)io_uring_unregister_personality(&evu(loop)->ring, id);
}

/* ---- wait + dispatch ---- */

static int evu_wait(struct ev_loop *loop, int timeout_ms)
{
	struct io_uring *ring = &evu(loop)->ring;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tsp = NULL;
	unsigned head, seen;
	int ret;

	if (timeout_ms == 0) {
		/* A look that must not sleep must still see everything the
		 * kernel finished: under COOP_TASKRUN completions wait as task
		 * work until we enter the kernel, and liburing does not enter
		 * when CQEs are already there.  ev_after_poll() relies on it. */
		(void)io_uring_get_events(ring);
	}
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long long)(timeout_ms % 1000) * 1000000;
		tsp = &ts;
	}
	ret = io_uring_submit_and_wait_timeout(ring, &cqe, 1, tsp, NULL);
	if (ret < 0 && ret != -ETIME && ret != -EINTR) {
		return ret;
	}
	/* Callbacks may queue new SQEs; they go out with the next wait. */
	do {
		seen = 0;
		io_uring_for_each_cqe(ring, head, cqe)
		{
			struct ev_uop *op = io_uring_cqe_get_data(cqe);
			int res = cqe->res;
			unsigned flags = cqe->flags;

			seen++;
			/* Advance first: the callback may wait again. */
			io_uring_cq_advance(ring, 1);
			if (op != NULL) {
				op->cb(op, res, flags);
			}
			break;
		}
	} while (seen > 0);
	return 0;
}

const struct ev_backend_ops ev_uring_ops = {
	.name = "io_uring",
	.init = evu_init,
	.fini = evu_fini,
	.listen = evu_listen,
	.listen_pause = evu_listen_pause,
	.listen_resume = evu_listen_resume,
	.watch_fd = evu_watch_fd,
	.stream_start = evu_stream_start,
	.stream_kick_send = evu_stream_kick_send,
	.stream_shutdown = evu_stream_shutdown,
	.stream_release = evu_stream_release,
	.file_write = evu_file_write,
	.personality_register = evu_personality_register,
	.personality_unregister = evu_personality_unregister,
	.wait = evu_wait,
};
