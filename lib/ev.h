/*
 * The worker's event loop: byte streams (TCP connections), listeners,
 * timers and signals, over io_uring or, where io_uring cannot be set up,
 * over epoll (DESIGN.md "Worker", "Fallback").
 *
 * Callers see one interface; the backend is an ops table chosen at
 * ev_loop_new() (ev_uring.c, ev_epoll.c), as Redis's ae picks epoll or
 * kqueue.  Received bytes are handed to the stream's on_data callback while
 * they sit in the backend's buffer (a provided buffer of the ring, or the
 * epoll loop's read buffer): the callback consumes what it can and keeps a
 * copy of only an incomplete tail, so small requests are never copied.
 *
 * Each loop iteration first refreshes the coarse clock (lib/clock.h).
 */
#ifndef LIB_EV_H
#define LIB_EV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <talloc.h>

struct ev_loop;
struct ev_stream;
struct ev_timer;

enum ev_backend {
	EV_BACKEND_URING,
	EV_BACKEND_EPOLL,
};

struct ev_stream_ops {
	/* New bytes.  Only valid during the call. */
	void (*on_data)(void *priv, const uint8_t *data, size_t len);
	/* The peer closed or an error happened (err is an errno, 0 on EOF).
	 * The stream is freed after this returns. */
	void (*on_close)(void *priv, int err);
};

/* Returns NULL when the backend cannot be set up (caller may fall back). */
struct ev_loop *ev_loop_new(TALLOC_CTX *mem_ctx, enum ev_backend backend);
enum ev_backend ev_loop_backend(const struct ev_loop *loop);
const char *ev_backend_name(enum ev_backend backend);

/* Run until ev_loop_stop(); returns 0 or -errno on a fatal loop error. */
int ev_loop_run(struct ev_loop *loop);
void ev_loop_stop(struct ev_loop *loop);

/* Accept connections on a listening socket; on_accept owns the new fd. */
int ev_listen(struct ev_loop *loop, int fd,
	      void (*on_accept)(void *priv, int fd), void *priv);

/*
 * Wrap a connected socket (the stream owns fd from now on).  The loop owns
 * the stream's memory, because the kernel may still complete operations on
 * it after its user is gone: the user ends it with ev_stream_close(), and
 * the loop frees it once nothing is in flight.
 */
struct ev_stream *ev_stream_new(struct ev_loop *loop, int fd,
				const struct ev_stream_ops *ops, void *priv);
/*
 * Queue buf (len bytes) for sending; the stream takes the talloc
 * ownership of buf and frees it once sent.  Sends keep their order.
 */
void ev_stream_send(struct ev_stream *st, void *buf, size_t len);
/*
 * As ev_stream_send, then flen bytes of the file fd from offset off,
 * which go to the socket without a copy through user space (sendfile
 * from the loop thread, in queue order).  The stream takes fd and
 * closes it once sent or dropped.  The caller makes sure the range is
 * in the page cache (or accepts that the loop waits for the disk); if
 * the file got shorter meanwhile, the missing bytes go as zeros so the
 * framing the caller announced holds.  Needs the stream's socket to be
 * non-blocking, as accepted sockets are in both backends.
 */
void ev_stream_send_file(struct ev_stream *st, void *buf, size_t len, int fd,
			 uint64_t off, size_t flen);
/* Close now; on_close is not called. Pending sends are dropped. */
void ev_stream_close(struct ev_stream *st);
/* Stop reading after the queued sends went out, then close (on_close is
 * called with 0).  Used after an error answer the peer should still see. */
void ev_stream_close_after_send(struct ev_stream *st);
/*
 * Give the socket to someone else (another worker, through the mailbox)
 * without closing the connection: once the queued sends went out, stop
 * reading and, when nothing is in flight any more, call fn with the fd
 * (fn's to keep or close) and any bytes that arrived meanwhile (only
 * valid during the call).  No other callback of the stream runs after
 * this, and no shutdown(2) touches the connection.
 */
void ev_stream_detach(struct ev_stream *st,
		      void (*fn)(void *priv, int fd, const uint8_t *extra,
				 size_t len),
		      void *priv);
size_t ev_stream_queued_bytes(const struct ev_stream *st);
int ev_stream_fd(const struct ev_stream *st);

/* One-shot timer after ms milliseconds; free the returned object to
 * cancel it.  It is freed automatically after firing. */
struct ev_timer *ev_timer_add(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
			      uint64_t ms, void (*fn)(void *priv), void *priv);

/*
 * Run fn(priv) once, after the loop has gone to the kernel for
 * completions at least once more (without blocking if nothing is ready)
 * and dispatched them.  So whatever the kernel had finished for this
 * loop before the call (a peer's EOF, say) has been handled when fn
 * runs: a cheap barrier for messages between workers.  Free the returned
 * object to cancel; it is freed automatically after fn ran.
 */
struct ev_deferred *ev_after_poll(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
				  void (*fn)(void *priv), void *priv);

/* Call on_readable whenever fd is readable (it must drain fd: the
 * watch is level-triggered).  The watch lives until mem_ctx is freed and
 * then must not fire again, so only use it for fds that live as long. */
int ev_watch_fd(struct ev_loop *loop, TALLOC_CTX *mem_ctx, int fd,
		void (*on_readable)(void *priv), void *priv);

/* An eventfd (blocking, not EFD_NONBLOCK) used as a wakeup: on_signal
 * runs after each write, the counter already read by the loop (the
 * io_uring backend reads it through the ring: no read(2) per wakeup).
 * The same lifetime rule as ev_watch_fd. */
int ev_watch_eventfd(struct ev_loop *loop, TALLOC_CTX *mem_ctx, int efd,
		     void (*on_signal)(void *priv), void *priv);

/*
 * File writes through the loop's ring (the io_uring backend; issue 18's
 * WRITE without the thread pool's hand-off): len bytes of buf to fd at
 * off, as the credentials registered as personality (0: the loop
 * thread's own).  done(priv, res) runs on the loop thread with what
 * pwrite(2) would answer (bytes written, or -errno).  buf and priv must
 * live until then.  -ENOSYS where the loop has no ring (the epoll
 * backend): the caller writes another way.
 */
int ev_file_write(struct ev_loop *loop, int fd, const void *buf, size_t len,
		  uint64_t off, int personality,
		  void (*done)(void *priv, int res), void *priv);

/* The calling thread's credentials, as they are now, registered with the
 * loop's ring for ev_file_write: an id > 0, or -errno (-ENOSYS without
 * a ring).  The loop thread only; it may take another user's
 * credentials for the call (lib/tpool.h: tpool_run_as). */
int ev_personality_register(struct ev_loop *loop);
void ev_personality_unregister(struct ev_loop *loop, int id);

/* Deliver these signals (blocked process-wide) through the loop. */
int ev_signals(struct ev_loop *loop, const int *signals, size_t n,
	       void (*fn)(void *priv, int signo), void *priv);

#endif
