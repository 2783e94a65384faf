/*
 * Unit tests: ev_stream_detach (a connection moving to another worker),
 * under both loop backends, over a real loopback TCP connection.  Queued
 * sends still go out first; once detached, the stream reads nothing more
 * and the callback gets a descriptor of a connection that is still up:
 * the peer's later bytes are read from it, and what it sends reaches the
 * peer.  No shutdown(2) touched it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <talloc.h>
#include <unistd.h>

#include "lib/ev.h"
#include "testsuite/common/tcp_pair.h"

struct fixture {
	struct ev_loop *loop;
	struct ev_stream *st;
	int peer;
	int got_fd;		/* from the detach callback, -1 until then */
	size_t delivered;	/* bytes on_data saw */
	size_t extra;		/* bytes the callback got along */
	bool closed;
};

static void on_data(void *priv, const uint8_t *data, size_t len)
{
	struct fixture *fx = priv;

	fx->delivered += len;
}

static void on_close(void *priv, int err)
{
	struct fixture *fx = priv;

	fx->closed = true;
}

static const struct ev_stream_ops ops = {.on_data = on_data,
					 .on_close = on_close};

static void detached(void *priv, int fd, const uint8_t *extra, size_t len)
{
	struct fixture *fx = priv;

	fx->got_fd = fd;
	fx->extra = len;
}

static void stop(void *priv)
{
	ev_loop_stop(priv);
}

static void spin(struct fixture *fx)
{
	assert_non_null(ev_timer_add(fx, fx->loop, 10, stop, fx->loop));
	assert_int_equal(ev_loop_run(fx->loop), 0);
}

static struct fixture *fixture_new(enum ev_backend backend)
{
	struct fixture *fx = talloc_zero(NULL, struct fixture);
	int server;

	fx->got_fd = -1;
	fx->loop = ev_loop_new(fx, backend);
	if (fx->loop == NULL) {
		talloc_free(fx);
		return NULL;	/* no io_uring here: the test skips */
	}
	test_tcp_pair(&server, &fx->peer);
	fx->st = ev_stream_new(fx->loop, server, &ops, fx);
	assert_non_null(fx->st);
	return fx;
}

static void check_detach(enum ev_backend backend)
{
	struct fixture *fx = fixture_new(backend);
	char buf[64];
	void *reply;
	int i;

	if (fx == NULL) {
		skip();
	}
	/* the stream reads while attached */
	assert_int_equal(write(fx->peer, "hello", 5), 5);
	for (i = 0; i < 50 && fx->delivered < 5; i++) {
		spin(fx);
	}
	assert_int_equal(fx->delivered, 5);
	/* a queued answer goes out before the fd is handed on */
	reply = talloc_memdup(NULL, "answer", 6);
	ev_stream_send(fx->st, reply, 6);
	ev_stream_detach(fx->st, detached, fx);
	for (i = 0; i < 50 && fx->got_fd == -1; i++) {
		spin(fx);
	}
	assert_true(fx->got_fd != -1);
	assert_false(fx->closed);
	assert_int_equal(fx->delivered, 5);
	assert_int_equal(fx->extra, 0);
	assert_int_equal(read(fx->peer, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "answer", 6);
	/* the connection is up both ways on the handed-on fd */
	assert_int_equal(write(fx->peer, "later", 5), 5);
	{
		struct pollfd p = {.fd = fx->got_fd, .events = POLLIN};

		assert_int_equal(poll(&p, 1, 2000), 1);
	}
	assert_int_equal(recv(fx->got_fd, buf, sizeof(buf), 0), 5);
	assert_memory_equal(buf, "later", 5);
	assert_int_equal(send(fx->got_fd, "back", 4, 0), 4);
	assert_int_equal(read(fx->peer, buf, sizeof(buf)), 4);
	assert_int_equal(fx->delivered, 5);	/* the stream saw none of it */
	close(fx->got_fd);
	/* the peer sees the end only now */
	assert_int_equal(read(fx->peer, buf, sizeof(buf)), 0);
	close(fx->peer);
	talloc_free(fx);
}

static void test_detach_uring(void **state)
{
	check_detach(EV_BACKEND_URING);
}

static void test_detach_epoll(void **state)
{
	check_detach(EV_BACKEND_EPOLL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detach_uring),
		cmocka_unit_test(test_detach_epoll),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
