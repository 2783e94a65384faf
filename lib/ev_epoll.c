/*
 * epoll backend: the fallback where io_uring cannot be set up (old kernels,
 * seccomp profiles that block it) or when `smbd io backend = epoll` forces
 * it.  Same semantics as ev_uring.c: edge-triggered readiness, reads into
 * one loop-wide buffer handed to on_data, writev of the send queue and
 * sendfile of its file parts; sockets are accepted non-blocking, so both
 * stop at EAGAIN and EPOLLOUT resumes them.
 */
#include "lib/ev_internal.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define EVE_RBUF (256 * 1024)
#define EVE_MAXEVENTS 64

enum eve_kind { EVE_LISTENER, EVE_STREAM, EVE_FDWATCH };

struct eve_state {
	int epfd;
	uint8_t *rbuf;
};

/* epoll_event.data.ptr points at the object; its first member tells kind. */
struct eve_tag {
	enum eve_kind kind;
	void *obj;
};

/* The tag eve_add() made last (eve_listen keeps it for EPOLL_CTL_MOD). */
static struct eve_tag *eve_last_tag;

static struct eve_state *eve(struct ev_loop *loop)
{
	return loop->bstate;
}

static int eve_init(struct ev_loop *loop)
{
	struct eve_state *s = talloc_zero(loop, struct eve_state);

	if (s == NULL) {
		return -ENOMEM;
	}
	loop->bstate = s;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd == -1) {
		return -errno;
	}
	s->rbuf = talloc_size(s, EVE_RBUF);
	if (s->rbuf == NULL) {
		return -ENOMEM;
	}
	return 0;
}

static void eve_fini(struct ev_loop *loop)
{
	struct eve_state *s = eve(loop);

	if (s != NULL && s->epfd != -1) {
		close(s->epfd);
	}
}

static int eve_add(struct ev_loop *loop, int fd, uint32_t events,
		   enum eve_kind kind, void *obj, TALLOC_CTX *owner)
{
	struct eve_tag *tag = talloc(owner, struct eve_tag);
	struct epoll_event ev;

	if (tag == NULL) {
		return -ENOMEM;
	}
	tag->kind = kind;
	tag->obj = obj;
	eve_last_tag = tag;
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = tag;
	if (epoll_ctl(eve(loop)->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		return -errno;
	}
	return 0;
}

static int eve_listen(struct ev_listener *l)
{
	int ret = eve_add(l->loop, l->fd, EPOLLIN, EVE_LISTENER, l, l);

	l->btag = eve_last_tag;
	return ret;
}

/* The listener is level-triggered: while paused for want of fds it
 * watches nothing, else a full backlog would wake the loop at once. */
static void eve_listen_set(struct ev_listener *l, uint32_t events)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = l->btag;
	if (epoll_ctl(eve(l->loop)->epfd, EPOLL_CTL_MOD, l->fd, &ev) != 0) {
		DBG_WARNING("cannot %s the listener: %s\n",
			    events ? "resume" : "pause", strerror(errno));
	}
}

static void eve_listen_pause(struct ev_listener *l)
{
	eve_listen_set(l, 0);
}

static void eve_listen_resume(struct ev_listener *l)
{
	eve_listen_set(l, EPOLLIN);
}

static int eve_watch_fd(struct ev_fdwatch *w)
{
	return eve_add(w->loop, w->fd, EPOLLIN, EVE_FDWATCH, w, w);
}

static int eve_stream_start(struct ev_stream *st)
{
	/* Edge-triggered: every wakeup reads or writes until EAGAIN. */
	return eve_add(st->loop, st->fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP |
						 EPOLLET,
		       EVE_STREAM, st, st);
}

/* One step of a flush: the file parts at the head of the queue, else one
 * sendmsg of the buffers before the next file part.  0: go on, 1: the
 * queue is empty, -EAGAIN: wait for EPOLLOUT, else -errno. */
static int eve_send_some(struct ev_stream *st)
{
	int ret = ev_stream_send_files(st);
	ssize_t n;

	if (ret != 0) {
		return ret;
	}
	if (ev_stream_fill_iov(st) == 0) {
		return 1;
	}
	n = sendmsg(st->fd, &st->msg, MSG_NOSIGNAL);
	if (n < 0) {
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
	ev_stream_sent(st, (size_t)n);
	return 0;
}

static void eve_flush(struct ev_stream *st)
{
	while (!st->closing) {
		int ret = eve_send_some(st);

		if (ret == 0 || ret == -EINTR) {
			continue;
		}
		if (ret == -EAGAIN) {
			/* EPOLLOUT (edge) tells us when to go on. */
			st->sending = true;
			return;
		}
		if (ret < 0) {
			ev_stream_failed(st, -ret);
			return;
		}
		break;
	}
	st->sending = false;
	if (!st->closing) {
		ev_stream_drained(st);
	}
}

static void eve_stream_kick_send(struct ev_stream *st)
{
	eve_flush(st);
}

static void eve_stream_shutdown(struct ev_stream *st)
{
	epoll_ctl(eve(st->loop)->epfd, EPOLL_CTL_DEL, st->fd, NULL);
	/* The fd is closed (or, detached, handed on) when the dead list is
	 * reaped. */
}

static void eve_stream_readable(struct ev_stream *st)
{
	uint8_t *buf = eve(st->loop)->rbuf;

	/* Edge-triggered: read until EAGAIN.  A client cannot monopolise the
	 * worker this way for long: it must wait for answers to get credits. */
	while (!st->closing) {
		ssize_t n = recv(st->fd, buf, EVE_RBUF, 0);

		if (n > 0) {
			ev_stream_deliver(st, buf, (size_t)n);
			continue;
		}
		if (n == 0) {
			ev_stream_failed(st, 0);
			return;
		}
		if (errno == EINTR) {
			continue;
		}
		if (errno != EAGAIN) {
			ev_stream_failed(st, errno);
		}
		return;
	}
}

static void eve_accept_all(struct ev_listener *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED) {
				continue;
			}
			/* EMFILE: the listener is paused (level-triggered,
			 * it would wake us again at once). */
			(void)ev_listener_accept_failed(l, errno);
			return;
		}
		ev_listener_accepted(l);
		l->on_accept(l->priv, fd);
	}
}

static int eve_wait(struct ev_loop *loop, int timeout_ms)
{
	struct epoll_event evs[EVE_MAXEVENTS];
	int n, i;

	n = epoll_wait(eve(loop)->epfd, evs, EVE_MAXEVENTS, timeout_ms);
	if (n < 0) {
		return -errno;
	}
	for (i = 0; i < n; i++) {
		struct eve_tag *tag = evs[i].data.ptr;

		switch (tag->kind) {
		case EVE_LISTENER:
			eve_accept_all(tag->obj);
			break;
		case EVE_FDWATCH: {
			struct ev_fdwatch *w = tag->obj;

			/* epoll only says an eventfd is readable: read the
			 * counter before its user runs (ev_watch_eventfd) */
			if (w->counter &&
			    read(w->fd, &w->count, sizeof(w->count)) !=
				    (ssize_t)sizeof(w->count)) {
				break;
			}
			ev_fdwatch_ready(w);
			break;
		}
		case EVE_STREAM: {
			struct ev_stream *st = tag->obj;

			if (st->closing) {
				break;
			}
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP |
					     EPOLLERR)) {
				eve_stream_readable(st);
			}
			if (!st->closing && st->sending &&
			    (evs[i].events & EPOLLOUT)) {
				eve_flush(st);
			}
			break;
		}
		}
	}
	return 0;
}

const struct ev_backend_ops ev_epoll_ops = {
	.name = "epoll",
	.init = eve_init,
	.fini = eve_fini,
	.listen = eve_listen,
	.listen_pause = eve_listen_pause,
	.listen_resume = eve_listen_resume,
	.watch_fd = eve_watch_fd,
	.stream_start = eve_stream_start,
	.stream_kick_send = eve_stream_kick_send,
	.stream_shutdown = eve_stream_shutdown,
	.stream_release = eve_stream_shutdown,
	.wait = eve_wait,
};
