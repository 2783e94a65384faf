/*
 * Unit tests: ev_after_poll() (lib/ev.h) under both loop backends.  What
 * the kernel finished before the call (here a peer's EOF on a stream the
 * loop reads) has been handled when the callback runs, even though the
 * loop had no reason to look again; an entry queued by a callback waits
 * for the next poll; a freed entry never runs.  The accept barrier
 * (smbd/conn/conn_barrier.c) rests on the first property.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <talloc.h>
#include <unistd.h>

#include "lib/ev.h"
#include "testsuite/common/tcp_pair.h"

struct fixture {
	struct ev_loop *loop;
	struct ev_stream *st;
	int peer;
	bool closed;		/* the stream saw the peer's EOF */
	bool closed_at_fn;	/* ... when the deferred callback ran */
	int runs;
	int polls_seen;
};

static void on_data(void *priv, const uint8_t *data, size_t len)
{
}

static void on_close(void *priv, int err)
{
	struct fixture *fx = priv;

	fx->closed = true;
	fx->st = NULL;
}

static const struct ev_stream_ops ops = {.on_data = on_data,
					 .on_close = on_close};

static int setup(void **state, enum ev_backend backend)
{
	struct fixture *fx = talloc_zero(NULL, struct fixture);
	int server;

	fx->loop = ev_loop_new(fx, backend);
	if (fx->loop == NULL) {
		talloc_free(fx);
		*state = NULL;
		return 0; /* no io_uring here: the tests skip */
	}
	test_tcp_pair(&server, &fx->peer);
	fx->st = ev_stream_new(fx->loop, server, &ops, fx);
	assert_non_null(fx->st);
	*state = fx;
	return 0;
}

static int setup_uring(void **state)
{
	return setup(state, EV_BACKEND_URING);
}

static int setup_epoll(void **state)
{
	return setup(state, EV_BACKEND_EPOLL);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx == NULL) {
		return 0;
	}
	if (fx->st != NULL) {
		ev_stream_close(fx->st);
	}
	if (fx->peer != -1) {
		close(fx->peer);
	}
	talloc_free(fx);
	return 0;
}

static void stop(void *priv)
{
	ev_loop_stop(priv);
}

static void run_until_stopped(struct fixture *fx)
{
	/* a guard: a broken ev_after_poll must fail, not hang */
	struct ev_timer *guard = ev_timer_add(fx, fx->loop, 2000, stop,
					      fx->loop);

	assert_non_null(guard);
	assert_int_equal(ev_loop_run(fx->loop), 0);
	talloc_free(guard);
}

static void spin(struct fixture *fx)
{
	assert_non_null(ev_timer_add(fx, fx->loop, 10, stop, fx->loop));
	assert_int_equal(ev_loop_run(fx->loop), 0);
}

static void note_and_stop(void *priv)
{
	struct fixture *fx = priv;

	fx->closed_at_fn = fx->closed;
	fx->runs++;
	ev_loop_stop(fx->loop);
}

/* The EOF happened before ev_after_poll(): handled before the callback. */
static void test_sees_earlier_eof(void **state)
{
	struct fixture *fx = *state;

	if (fx == NULL) {
		skip();
	}
	spin(fx);	/* the stream's receive is armed, nothing arrived */
	assert_false(fx->closed);
	close(fx->peer);
	fx->peer = -1;
	/* the FIN is in the socket now; the loop has not looked yet */
	assert_non_null(ev_after_poll(fx, fx->loop, note_and_stop, fx));
	run_until_stopped(fx);
	assert_int_equal(fx->runs, 1);
	assert_true(fx->closed_at_fn);
}

static void second(void *priv)
{
	struct fixture *fx = priv;

	fx->runs++;
	ev_loop_stop(fx->loop);
}

static void first(void *priv)
{
	struct fixture *fx = priv;

	fx->runs++;
	/* queued from a callback: not in this round */
	assert_non_null(ev_after_poll(fx, fx->loop, second, fx));
	assert_int_equal(fx->runs, 1);
}

static void test_queued_from_callback(void **state)
{
	struct fixture *fx = *state;

	if (fx == NULL) {
		skip();
	}
	assert_non_null(ev_after_poll(fx, fx->loop, first, fx));
	run_until_stopped(fx);
	assert_int_equal(fx->runs, 2);
}

static void must_not_run(void *priv)
{
	fail_msg("a cancelled ev_after_poll entry ran");
}

static void test_cancel(void **state)
{
	struct fixture *fx = *state;
	struct ev_deferred *d;

	if (fx == NULL) {
		skip();
	}
	d = ev_after_poll(fx, fx->loop, must_not_run, fx);
	assert_non_null(d);
	assert_non_null(ev_after_poll(fx, fx->loop, note_and_stop, fx));
	talloc_free(d);
	run_until_stopped(fx);
	assert_int_equal(fx->runs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sees_earlier_eof,
						setup_uring, teardown),
		cmocka_unit_test_setup_teardown(test_sees_earlier_eof,
						setup_epoll, teardown),
		cmocka_unit_test_setup_teardown(test_queued_from_callback,
						setup_uring, teardown),
		cmocka_unit_test_setup_teardown(test_queued_from_callback,
						setup_epoll, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup_uring,
						teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup_epoll,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
