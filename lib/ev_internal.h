/*
 * Shared between lib/ev.c and its backends; nothing outside lib/ev*.c
 * includes this.
 */
#ifndef LIB_EV_INTERNAL_H
#define LIB_EV_INTERNAL_H

#include "lib/ev.h"
#include <sys/uio.h>

struct io_uring_cqe;

/* io_uring completion record: user_data points at one of these. */
struct ev_uop {
	void (*cb)(struct ev_uop *op, int res, unsigned flags);
};

struct ev_sendq {
	struct ev_sendq *next;
	uint8_t *buf;
	size_t len;
	size_t off;
	/* A file part after buf (ev_stream_send_file), -1 when none; the
	 * entry owns the fd and closes it when freed. */
	int file_fd;
	uint64_t file_off;	/* the next byte of the file to send */
	size_t file_left;	/* bytes of the part not sent yet */
	bool file_short;	/* the file ended early: the rest is zeros */
};

#define EV_SEND_IOV_MAX 16

struct ev_stream {
	struct ev_loop *loop;
	struct ev_stream *dead_next;
	int fd;
	const struct ev_stream_ops *ops;
	void *priv;
	struct ev_sendq *sendq_head, *sendq_tail;
	size_t queued;
	bool closing;		/* no more callbacks to the user */
	bool close_after_send;	/* close once the queue drained */
	bool sending;		/* a send is in flight (uring) / EPOLLOUT armed */
	bool recv_armed;
	int inflight;		/* backend operations not yet completed */
	/* ev_stream_detach: whom the fd goes to, and what came meanwhile */
	void (*detach_fn)(void *priv, int fd, const uint8_t *extra,
			  size_t len);
	void *detach_priv;
	uint8_t *detach_extra;
	size_t detach_len;
	/* io_uring records */
	struct ev_uop recv_op;
	struct ev_uop send_op;
	struct iovec iov[EV_SEND_IOV_MAX];
	struct msghdr msg;
};

struct ev_listener {
	struct ev_loop *loop;
	struct ev_listener *next;	/* loop->listeners */
	int fd;
	void (*on_accept)(void *priv, int fd);
	void *priv;
	struct ev_uop op;
	bool armed;		/* io_uring: an accept is in flight */
	void *btag;		/* epoll: its event tag */
	/* Out of descriptors (ev_listener_accept_failed): not accepting
	 * until resume fires or a stream's fd is closed. */
	bool paused;
	unsigned backoff_ms;
	struct ev_timer *resume;
};

/* A file descriptor watched for readability (signalfd, eventfd). */
struct ev_fdwatch {
	struct ev_loop *loop;
	int fd;
	void (*on_readable)(void *priv);
	void *priv;
	struct ev_uop op;
	/* ev_watch_eventfd: the loop reads the counter itself (the ring
	 * reads into count) before on_readable runs */
	bool counter;
	uint64_t count;
};

struct ev_timer {
	struct ev_loop *loop;
	struct ev_timer *prev, *next;
	uint64_t due_ms;
	void (*fn)(void *priv);
	void *priv;
};

/* ev_after_poll(): runs once the loop has collected the kernel's
 * completions again after the entry was made. */
struct ev_deferred {
	struct ev_loop *loop;
	struct ev_deferred *prev, *next;
	bool armed;	/* a poll began after it was queued */
	void (*fn)(void *priv);
	void *priv;
};

struct ev_backend_ops {
	const char *name;
	int (*init)(struct ev_loop *loop);
	void (*fini)(struct ev_loop *loop);
	int (*listen)(struct ev_listener *l);
	/* Stop / start taking connections off l (EMFILE back-off). */
	void (*listen_pause)(struct ev_listener *l);
	void (*listen_resume)(struct ev_listener *l);
	int (*watch_fd)(struct ev_fdwatch *w);
	int (*stream_start)(struct ev_stream *st);
	void (*stream_kick_send)(struct ev_stream *st);
	void (*stream_shutdown)(struct ev_stream *st);
	/* Stop reading without shutting the connection down (detach). */
	void (*stream_release)(struct ev_stream *st);
	/* ev_file_write and the personalities; NULL without a ring. */
	int (*file_write)(struct ev_loop *loop, int fd, const void *buf,
			  size_t len, uint64_t off, int personality,
			  void (*done)(void *priv, int res), void *priv);
	int (*personality_register)(struct ev_loop *loop);
	void (*personality_unregister)(struct ev_loop *loop, int id);
	/* Wait up to timeout_ms (-1: forever) and dispatch what arrived. */
	int (*wait)(struct ev_loop *loop, int timeout_ms);
};

struct ev_loop {
	enum ev_backend backend;
	const struct ev_backend_ops *ops;
	void *bstate; /* backend state */
	bool stop;
	struct ev_timer *timers; /* sorted by due_ms */
	struct ev_timer *timers_tail;
	struct ev_listener *listeners;
	unsigned npaused;	/* listeners paused for want of fds */
	struct ev_deferred *deferred; /* ev_after_poll(), newest first */
	struct ev_stream *dead;	 /* closed, waiting for in-flight ops */
};

extern const struct ev_backend_ops ev_uring_ops;
extern const struct ev_backend_ops ev_epoll_ops;

/* Helpers the backends call. */
void ev_stream_deliver(struct ev_stream *st, const uint8_t *data, size_t len);
void ev_stream_failed(struct ev_stream *st, int err);
/* Build st->iov/msg from the queue head, up to the first entry with a
 * file part; returns the iov count. */
int ev_stream_fill_iov(struct ev_stream *st);
/* Send the entries with a file part at the head of the queue from this
 * thread (send + sendfile on the non-blocking socket).  0 when the head
 * is a plain buffer or the queue is empty, -EAGAIN when the socket is
 * full (wait until writable, then call again), else -errno. */
int ev_stream_send_files(struct ev_stream *st);
/* Account n sent bytes: frees finished buffers. */
void ev_stream_sent(struct ev_stream *st, size_t n);
/* After a send completed and the queue is empty. */
void ev_stream_drained(struct ev_stream *st);
void ev_fdwatch_ready(struct ev_fdwatch *w);
/*
 * accept() failed with err (an errno).  When the process or the system
 * is out of descriptors (EMFILE, ENFILE) or memory (ENOBUFS, ENOMEM) the
 * listener is paused, through the backend's listen_pause, and true is
 * returned: re-arming at once would fail the same way in a busy loop,
 * since the pending connection stays in the backlog.  It resumes after
 * a back-off (10 ms doubling to 1 s) or as soon as a stream's fd is
 * closed, whichever comes first.
 */
bool ev_listener_accept_failed(struct ev_listener *l, int err);
/* accept() succeeded: the back-off starts again from its minimum. */
void ev_listener_accepted(struct ev_listener *l);

#endif
