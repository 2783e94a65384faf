/*
 * Event loop, backend-independent part: stream send queues and their
 * lifetime, timers, signals and the run loop.  See ev.h.
 */
#include "lib/ev_internal.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <unistd.h>

static int ev_loop_destructor(struct ev_loop *loop)
{
	if (loop->ops != NULL && loop->ops->fini != NULL) {
		loop->ops->fini(loop);
	}
	return 0;
}

const char *ev_backend_name(enum ev_backend backend)
{
	return backend == EV_BACKEND_URING ? "io_uring" : "epoll";
}

struct ev_loop *ev_loop_new(TALLOC_CTX *mem_ctx, enum ev_backend backend)
{
	struct ev_loop *loop = talloc_zero(mem_ctx, struct ev_loop);
	int ret;

	if (loop == NULL) {
		return NULL;
	}
	loop->backend = backend;
	loop->ops = backend == EV_BACKEND_URING ? &ev_uring_ops
						: &ev_epoll_ops;
	ret = loop->ops->init(loop);
	if (ret != 0) {
		DBG_WARNING("cannot set up the %s loop: %s\n",
			    loop->ops->name, strerror(-ret));
		loop->ops = NULL;
		talloc_free(loop);
		return NULL;
	}
	talloc_set_destructor(loop, ev_loop_destructor);
	clock_update();
	return loop;
}

enum ev_backend ev_loop_backend(const struct ev_loop *loop)
{
	return loop->backend;
}

void ev_loop_stop(struct ev_loop *loop)
{
	loop->stop = true;
}

/* ---- streams ---- */

struct ev_stream *ev_stream_new(struct ev_loop *loop, int fd,
				const struct ev_stream_ops *ops, void *priv)
{
	struct ev_stream *st = talloc_zero(loop, struct ev_stream);

	if (st == NULL) {
		close(fd);
		return NULL;
	}
	st->loop = loop;
	st->fd = fd;
	st->ops = ops;
	st->priv = priv;
	if (loop->ops->stream_start(st) != 0) {
		close(fd);
		talloc_free(st);
		return NULL;
	}
	return st;
}

int ev_stream_fd(const struct ev_stream *st)
{
	return st->fd;
}

size_t ev_stream_queued_bytes(const struct ev_stream *st)
{
	return st->queued;
}

/* Move a closed stream to the dead list; freed when nothing is in flight. */
static void ev_stream_bury(struct ev_stream *st)
{
	if (st->closing) {
		return;
	}
	st->closing = true;
	st->ops = NULL;
	st->priv = NULL;
	st->loop->ops->stream_shutdown(st);
	st->dead_next = st->loop->dead;
	st->loop->dead = st;
}

/* The detach goes on once the sends went out: nothing more is read. */
static void ev_stream_detach_now(struct ev_stream *st)
{
	st->closing = true;
	st->loop->ops->stream_release(st);
	st->dead_next = st->loop->dead;
	st->loop->dead = st;
}

void ev_stream_detach(struct ev_stream *st,
		      void (*fn)(void *priv, int fd, const uint8_t *extra,
				 size_t len),
		      void *priv)
{
	if (st->closing || st->detach_fn != NULL) {
		return;
	}
	st->ops = NULL;
	st->priv = NULL;
	st->detach_fn = fn;
	st->detach_priv = priv;
	if (st->sendq_head == NULL) {
		ev_stream_detach_now(st);
	}
}

void ev_stream_close(struct ev_stream *st)
{
	if (st != NULL) {
		ev_stream_bury(st);
	}
}

void ev_stream_close_after_send(struct ev_stream *st)
{
	if (st->closing) {
		return;
	}
	st->close_after_send = true;
	if (st->sendq_head == NULL) {
		ev_stream_drained(st);
	}
}

void ev_stream_deliver(struct ev_stream *st, const uint8_t *data, size_t len)
{
	if (st->detach_fn != NULL) {
		/* Read before the cancel took: it goes along with the fd
		 * (a client waits for an answer first, so it is rare and
		 * small; a flood is cut at 64 KiB and the rest is lost
		 * with the connection's manners). */
		size_t n = st->detach_len + len;
		uint8_t *p;

		if (n > 65536) {
			return;
		}
		p = talloc_realloc(st, st->detach_extra, uint8_t, n);
		if (p != NULL) {
			memcpy(p + st->detach_len, data, len);
			st->detach_extra = p;
			st->detach_len = n;
		}
		return;
	}
	if (st->closing || st->close_after_send || st->ops == NULL) {
		return;
	}
	st->ops->on_data(st->priv, data, len);
}

void ev_stream_failed(struct ev_stream *st, int err)
{
	const struct ev_stream_ops *ops = st->ops;
	void *priv = st->priv;

	if (st->closing) {
		return;
	}
	ev_stream_bury(st);
	if (ops != NULL && ops->on_close != NULL) {
		ops->on_close(priv, err);
	}
}

void ev_stream_drained(struct ev_stream *st)
{
	if (st->detach_fn != NULL && !st->closing) {
		ev_stream_detach_now(st);
		return;
	}
	if (st->close_after_send && !st->closing) {
		ev_stream_failed(st, 0);
	}
}

static int ev_sendq_destructor(struct ev_sendq *q)
{
	if (q->file_fd != -1) {
		close(q->file_fd);
	}
	return 0;
}

/* Append an entry: buf (len bytes) then, when fd != -1, flen bytes of
 * that file; takes buf and fd on every path. */
static void ev_stream_enqueue(struct ev_stream *st, void *buf, size_t len,
			      int fd, uint64_t off, size_t flen)
{
	struct ev_sendq *q;

	if (st->closing || len + flen == 0) {
		goto drop;
	}
	q = talloc(st, struct ev_sendq);
	if (q == NULL) {
		ev_stream_failed(st, ENOMEM);
		goto drop;
	}
	q->next = NULL;
	q->buf = talloc_steal(q, buf);
	q->len = len;
	q->off = 0;
	q->file_fd = fd;
	q->file_off = off;
	q->file_left = flen;
	q->file_short = false;
	talloc_set_destructor(q, ev_sendq_destructor);
	if (st->sendq_tail != NULL) {
		st->sendq_tail->next = q;
	} else {
		st->sendq_head = q;
	}
	st->sendq_tail = q;
	st->queued += len + flen;
	if (!st->sending) {
		st->loop->ops->stream_kick_send(st);
	}
	return;
drop:
	talloc_free(buf);
	if (fd != -1) {
		close(fd);
	}
}

void ev_stream_send(struct ev_stream *st, void *buf, size_t len)
{
	ev_stream_enqueue(st, buf, len, -1, 0, 0);
}

void ev_stream_send_file(struct ev_stream *st, void *buf, size_t len, int fd,
			 uint64_t off, size_t flen)
{
	if (flen == 0 && fd != -1) {
		close(fd);
		fd = -1;
	}
	ev_stream_enqueue(st, buf, len, fd, off, flen);
}

int ev_stream_fill_iov(struct ev_stream *st)
{
	struct ev_sendq *q;
	int n = 0;

	for (q = st->sendq_head; q != NULL && n < EV_SEND_IOV_MAX; q = q->next) {
		if (q->file_fd != -1) {
			break; /* ev_stream_send_files() once at the head */
		}
		st->iov[n].iov_base = q->buf + q->off;
		st->iov[n].iov_len = q->len - q->off;
		n++;
	}
	memset(&st->msg, 0, sizeof(st->msg));
	st->msg.msg_iov = st->iov;
	st->msg.msg_iovlen = (size_t)n;
	return n;
}

/* What the padding of a file that ended early is sent from. */
static const uint8_t ev_zeros[16384];

/*
 * One syscall's worth of the file entry q: its header bytes, then the
 * file data, then zeros for what a file truncated since the caller took
 * its size no longer has.  The receiver already holds a length that
 * counts those bytes (for SMB2, the NetBIOS header and DataLength), and a
 * byte stream cannot be resynchronised, so short data would corrupt
 * every later reply on the connection; zeros only spoil this one read,
 * which raced a truncate anyway.  MSG_MORE on the header keeps it in
 * the segment of the data that follows (sockets have TCP_NODELAY).
 */
static ssize_t ev_sendq_push_file(int sock, struct ev_sendq *q)
{
	size_t n;

	if (q->off < q->len) {
		return send(sock, q->buf + q->off, q->len - q->off,
			    MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE);
	}
	if (!q->file_short) {
		off_t off = (off_t)q->file_off;
		ssize_t sent = sendfile(sock, q->file_fd, &off, q->file_left);

		if (sent != 0) {
			return sent;
		}
		q->file_short = true;
		DBG_DEBUG("file shorter than announced (truncated?): "
			  "%zu bytes sent as zeros\n", q->file_left);
	}
	n = q->file_left < sizeof(ev_zeros) ? q->file_left : sizeof(ev_zeros);
	return send(sock, ev_zeros, n,
		    MSG_NOSIGNAL | MSG_DONTWAIT |
			    (n < q->file_left ? MSG_MORE : 0));
}

int ev_stream_send_files(struct ev_stream *st)
{
	struct ev_sendq *q;

	while (!st->closing && (q = st->sendq_head) != NULL &&
	       q->file_fd != -1) {
		ssize_t n = ev_sendq_push_file(st->fd, q);

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		ev_stream_sent(st, (size_t)n);
	}
	return 0;
}

void ev_stream_sent(struct ev_stream *st, size_t n)
{
	st->queued -= n;
	while (n > 0 && st->sendq_head != NULL) {
		struct ev_sendq *q = st->sendq_head;
		size_t take = q->len - q->off;

		if (n < take) {
			q->off += n;
			return;
		}
		q->off = q->len;
		n -= take;
		/* A file part follows its header bytes. */
		take = n < q->file_left ? n : q->file_left;
		q->file_left -= take;
		q->file_off += take;
		n -= take;
		if (q->file_left > 0) {
			return;
		}
		st->sendq_head = q->next;
		if (st->sendq_head == NULL) {
			st->sendq_tail = NULL;
		}
		talloc_free(q);
	}
}

/* ---- timers ---- */

static int ev_timer_destructor(struct ev_timer *t)
{
	if (t->prev != NULL) {
		t->prev->next = t->next;
	} else if (t->loop->timers == t) {
		t->loop->timers = t->next;
	}
	if (t->next != NULL) {
		t->next->prev = t->prev;
	} else if (t->loop->timers_tail == t) {
		t->loop->timers_tail = t->prev;
	}
	return 0;
}

struct ev_timer *ev_timer_add(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
			      uint64_t ms, void (*fn)(void *priv), void *priv)
{
	struct ev_timer *t = talloc_zero(mem_ctx, struct ev_timer);
	struct ev_timer *prev;

	if (t == NULL) {
		return NULL;
	}
	t->loop = loop;
	t->due_ms = clock_mono_ms() + ms;
	t->fn = fn;
	t->priv = priv;
	/*
	 * A sorted list, searched from its tail: most timers are
	 * per-connection timeouts of one length (`smbd logon timeout`,
	 * `smbd request timeout`), so a new one is nearly always the
	 * latest and goes in at once, even with thousands of connections.
	 */
	for (prev = loop->timers_tail; prev != NULL && prev->due_ms > t->due_ms;
	     prev = prev->prev) {
	}
	t->prev = prev;
	t->next = prev != NULL ? prev->next : loop->timers;
	if (t->next != NULL) {
		t->next->prev = t;
	} else {
		loop->timers_tail = t;
	}
	if (prev != NULL) {
		prev->next = t;
	} else {
		loop->timers = t;
	}
	talloc_set_destructor(t, ev_timer_destructor);
	return t;
}

/* ---- after the next poll ---- */

static int ev_deferred_destructor(struct ev_deferred *d)
{
	if (d->prev != NULL) {
		d->prev->next = d->next;
	} else if (d->loop->deferred == d) {
		d->loop->deferred = d->next;
	}
	if (d->next != NULL) {
		d->next->prev = d->prev;
	}
	return 0;
}

struct ev_deferred *ev_after_poll(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
				  void (*fn)(void *priv), void *priv)
{
	struct ev_deferred *d = talloc_zero(mem_ctx, struct ev_deferred);

	if (d == NULL) {
		return NULL;
	}
	d->loop = loop;
	d->fn = fn;
	d->priv = priv;
	d->next = loop->deferred;
	if (d->next != NULL) {
		d->next->prev = d;
	}
	loop->deferred = d;
	talloc_set_destructor(d, ev_deferred_destructor);
	return d;
}

/* Before a poll: everything queued so far runs after it.  True if any. */
static bool ev_arm_deferred(struct ev_loop *loop)
{
	struct ev_deferred *d;

	for (d = loop->deferred; d != NULL; d = d->next) {
		d->armed = true;
	}
	return loop->deferred != NULL;
}

static void ev_run_deferred(struct ev_loop *loop)
{
	struct ev_deferred *d = loop->deferred;

	/* Armed entries are the oldest: the list's tail.  Entries queued by
	 * a callback are unarmed and wait for the next poll. */
	while (d != NULL) {
		struct ev_deferred *next = d->next;

		if (d->armed) {
			void (*fn)(void *) = d->fn;
			void *priv = d->priv;

			/* Free first: fn may free the entry's parent. */
			talloc_free(d);
			fn(priv);
			/* fn may have freed entries after d: start again. */
			next = loop->deferred;
		}
		d = next;
	}
}

static int ev_next_timeout(struct ev_loop *loop)
{
	uint64_t now = clock_mono_ms();

	if (loop->timers == NULL) {
		return -1;
	}
	if (loop->timers->due_ms <= now) {
		return 0;
	}
	/* +1: the coarse clock may lag by a tick; never spin early. */
	return (int)(loop->timers->due_ms - now + 1);
}

static void ev_run_timers(struct ev_loop *loop)
{
	uint64_t now = clock_mono_ms();

	while (loop->timers != NULL && loop->timers->due_ms <= now) {
		struct ev_timer *t = loop->timers;
		void (*fn)(void *) = t->fn;
		void *priv = t->priv;

		/* Free first: fn may free the timer's parent. */
		talloc_free(t);
		fn(priv);
	}
}

/* ---- watched fds and signals ---- */

/* counter: an eventfd the loop reads itself (ev_watch_eventfd). */
static int fdwatch_start(struct ev_loop *loop, TALLOC_CTX *mem_ctx, int fd,
			 bool counter, void (*fn)(void *priv), void *priv)
{
	struct ev_fdwatch *w = talloc_zero(mem_ctx, struct ev_fdwatch);

	if (w == NULL) {
		return -ENOMEM;
	}
	w->loop = loop;
	w->fd = fd;
	w->on_readable = fn;
	w->priv = priv;
	w->counter = counter;
	return loop->ops->watch_fd(w);
}

int ev_watch_fd(struct ev_loop *loop, TALLOC_CTX *mem_ctx, int fd,
		void (*on_readable)(void *priv), void *priv)
{
	return fdwatch_start(loop, mem_ctx, fd, false, on_readable, priv);
}

int ev_watch_eventfd(struct ev_loop *loop, TALLOC_CTX *mem_ctx, int efd,
		     void (*on_signal)(void *priv), void *priv)
{
	return fdwatch_start(loop, mem_ctx, efd, true, on_signal, priv);
}

int ev_file_write(struct ev_loop *loop, int fd, const void *buf, size_t len,
		  uint64_t off, int personality,
		  void (*done)(void *priv, int res), void *priv)
{
	if (loop->ops->file_write == NULL) {
		return -ENOSYS;
	}
	return loop->ops->file_write(loop, fd, buf, len, off, personality,
				     done, priv);
}

int ev_personality_register(struct ev_loop *loop)
{
	if (loop->ops->personality_register == NULL) {
		return -ENOSYS;
	}
	return loop->ops->personality_register(loop);
}

void ev_personality_unregister(struct ev_loop *loop, int id)
{
	if (id > 0 && loop->ops->personality_unregister != NULL) {
		loop->ops->personality_unregister(loop, id);
	}
}

void ev_fdwatch_ready(struct ev_fdwatch *w)
{
	w->on_readable(w->priv);
}

struct ev_sigstate {
	int fd;
	void (*fn)(void *priv, int signo);
	void *priv;
};

static void ev_signal_readable(void *priv)
{
	struct ev_sigstate *ss = priv;
	struct signalfd_siginfo si;

	while (read(ss->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		ss->fn(ss->priv, (int)si.ssi_signo);
	}
}

int ev_signals(struct ev_loop *loop, const int *signals, size_t n,
	       void (*fn)(void *priv, int signo), void *priv)
{
	struct ev_sigstate *ss;
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < n; i++) {
		sigaddset(&set, signals[i]);
	}
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
		return -errno;
	}
	ss = talloc_zero(loop, struct ev_sigstate);
	if (ss == NULL) {
		return -ENOMEM;
	}
	ss->fn = fn;
	ss->priv = priv;
	ss->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ss->fd == -1) {
		return -errno;
	}
	return ev_watch_fd(loop, ss, ss->fd, ev_signal_readable, ss);
}

int ev_listen(struct ev_loop *loop, int fd,
	      void (*on_accept)(void *priv, int fd), void *priv)
{
	struct ev_listener *l = talloc_zero(loop, struct ev_listener);

	if (l == NULL) {
		return -ENOMEM;
	}
	l->loop = loop;
	l->fd = fd;
	l->on_accept = on_accept;
	l->priv = priv;
	l->next = loop->listeners;
	loop->listeners = l;
	return loop->ops->listen(l);
}

#define EV_ACCEPT_BACKOFF_MIN_MS 10
#define EV_ACCEPT_BACKOFF_MAX_MS 1000

static void ev_listener_resume(struct ev_listener *l)
{
	if (!l->paused) {
		return;
	}
	l->paused = false;
	l->loop->npaused--;
	TALLOC_FREE(l->resume);
	l->loop->ops->listen_resume(l);
}

static void ev_listener_resume_timer(void *priv)
{
	struct ev_listener *l = priv;

	l->resume = NULL; /* freed by the loop after firing */
	ev_listener_resume(l);
}

bool ev_listener_accept_failed(struct ev_listener *l, int err)
{
	if (err != EMFILE && err != ENFILE && err != ENOBUFS &&
	    err != ENOMEM) {
		if (err != EAGAIN && err != EINTR && err != ECONNABORTED) {
			DBG_WARNING("accept failed: %s\n", strerror(err));
		}
		return false;
	}
	if (l->paused) {
		return true;
	}
	if (l->backoff_ms == 0) {
		/* Once per episode, not once per try: the log is no place
		 * for a flood either. */
		DBG_WARNING("accept failed: %s; not accepting for a while\n",
			    strerror(err));
		l->backoff_ms = EV_ACCEPT_BACKOFF_MIN_MS;
	} else if (l->backoff_ms < EV_ACCEPT_BACKOFF_MAX_MS) {
		l->backoff_ms *= 2;
		if (l->backoff_ms > EV_ACCEPT_BACKOFF_MAX_MS) {
			l->backoff_ms = EV_ACCEPT_BACKOFF_MAX_MS;
		}
	}
	l->paused = true;
	l->loop->npaused++;
	l->loop->ops->listen_pause(l);
	l->resume = ev_timer_add(l, l->loop, l->backoff_ms,
				 ev_listener_resume_timer, l);
	if (l->resume == NULL) {
		/* No timer: do not stay deaf, try again next time round. */
		l->paused = false;
		l->loop->npaused--;
		l->loop->ops->listen_resume(l);
	}
	return true;
}

void ev_listener_accepted(struct ev_listener *l)
{
	if (l->backoff_ms != 0) {
		DBG_NOTICE("accepting connections again\n");
		l->backoff_ms = 0;
	}
}

/* A descriptor was closed: a paused listener may get it. */
static void ev_listeners_fd_freed(struct ev_loop *loop)
{
	struct ev_listener *l;

	for (l = loop->listeners; l != NULL && loop->npaused > 0;
	     l = l->next) {
		ev_listener_resume(l);
	}
}

/* ---- the loop ---- */

static void ev_reap_dead(struct ev_loop *loop)
{
	struct ev_stream **pp = &loop->dead;
	bool freed = false;

	while (*pp != NULL) {
		struct ev_stream *st = *pp;

		if (st->inflight > 0) {
			pp = &st->dead_next;
			continue;
		}
		*pp = st->dead_next;
		if (st->detach_fn != NULL) {
			st->detach_fn(st->detach_priv, st->fd,
				      st->detach_extra, st->detach_len);
			st->fd = -1;
		}
		if (st->fd != -1) {
			close(st->fd);
			freed = true;
		}
		talloc_free(st);
	}
	if (freed && loop->npaused > 0) {
		ev_listeners_fd_freed(loop);
	}
}

int ev_loop_run(struct ev_loop *loop)
{
	loop->stop = false;
	while (!loop->stop) {
		/* Pending ev_after_poll() work: look, do not sleep. */
		int ret = loop->ops->wait(loop, ev_arm_deferred(loop)
							? 0
							: ev_next_timeout(loop));

		clock_update();
		if (ret < 0 && ret != -EINTR && ret != -ETIME) {
			DBG_ERR("event loop failed: %s\n", strerror(-ret));
			return ret;
		}
		ev_run_timers(loop);
		ev_run_deferred(loop);
		ev_reap_dead(loop);
	}
	return 0;
}
