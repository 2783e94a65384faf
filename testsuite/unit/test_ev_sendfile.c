/*
 * Unit tests: send queue entries with a file part (ev_stream_send_file),
 * under both loop backends, over a real loopback TCP connection.  The
 * file parts keep their place among plain buffers; a file truncated
 * after the caller announced its length is padded with zeros, so the
 * bytes after it stay where the peer expects them; the dup'ed fd is
 * closed when the entry is sent and when the stream dies with it queued.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <talloc.h>
#include <unistd.h>

#include "lib/ev.h"
#include "testsuite/common/tcp_pair.h"

#define FILE_LEN (300 * 1024 + 7)

struct fixture {
	struct ev_loop *loop;
	struct ev_stream *st;
	int peer;		/* the client end, read by the test */
	int file;		/* FILE_LEN bytes of a pattern */
	char path[64];
	uint8_t *expect;	/* what the peer must receive */
	size_t expect_len;
};

static void on_data(void *priv, const uint8_t *data, size_t len)
{
}

static void on_close(void *priv, int err)
{
	struct fixture *fx = priv;

	fx->st = NULL;
}

static const struct ev_stream_ops ops = {.on_data = on_data,
					 .on_close = on_close};

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + i / 251);
}

static int setup(void **state, enum ev_backend backend)
{
	struct fixture *fx = talloc_zero(NULL, struct fixture);
	uint8_t *data = talloc_size(fx, FILE_LEN);
	int server;
	size_t i;

	fx->loop = ev_loop_new(fx, backend);
	if (fx->loop == NULL) {
		talloc_free(fx);
		*state = NULL;
		return 0; /* no io_uring here: the tests skip */
	}
	test_tcp_pair(&server, &fx->peer);
	fx->st = ev_stream_new(fx->loop, server, &ops, fx);
	assert_non_null(fx->st);
	snprintf(fx->path, sizeof(fx->path), "/var/tmp/test_ev_sf_XXXXXX");
	fx->file = mkstemp(fx->path);
	assert_true(fx->file != -1);
	for (i = 0; i < FILE_LEN; i++) {
		data[i] = pattern(i);
	}
	assert_int_equal(write(fx->file, data, FILE_LEN), FILE_LEN);
	talloc_free(data);
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
	close(fx->peer);
	close(fx->file);
	unlink(fx->path);
	talloc_free(fx);
	return 0;
}

static void stop(void *priv)
{
	ev_loop_stop(priv);
}

/* Turn the loop for about 10 ms. */
static void spin(struct fixture *fx)
{
	assert_non_null(ev_timer_add(fx, fx->loop, 10, stop, fx->loop));
	assert_int_equal(ev_loop_run(fx->loop), 0);
}

/* Queue a copy of len bytes (plain) and remember them as expected. */
static void queue_buf(struct fixture *fx, const void *p, size_t len)
{
	void *b = talloc_memdup(NULL, p, len);

	fx->expect = talloc_realloc(fx, fx->expect, uint8_t,
				    fx->expect_len + len);
	memcpy(fx->expect + fx->expect_len, p, len);
	fx->expect_len += len;
	ev_stream_send(fx->st, b, len);
}

/* Queue hdr, then len bytes of the file at off; expected: the pattern up
 * to valid bytes of the file, zeros after. */
static int queue_file(struct fixture *fx, const char *hdr, uint64_t off,
		      size_t len, size_t valid)
{
	int fd = fcntl(fx->file, F_DUPFD_CLOEXEC, 0);
	size_t hl = strlen(hdr), i;

	fx->expect = talloc_realloc(fx, fx->expect, uint8_t,
				    fx->expect_len + hl + len);
	memcpy(fx->expect + fx->expect_len, hdr, hl);
	for (i = 0; i < len; i++) {
		fx->expect[fx->expect_len + hl + i] =
			i < valid ? pattern(off + i) : 0;
	}
	fx->expect_len += hl + len;
	ev_stream_send_file(fx->st, talloc_strdup(NULL, hdr), hl, fd, off,
			    len);
	return fd;
}

/* Run the loop and read the peer until all expected bytes came. */
static void receive_all(struct fixture *fx)
{
	uint8_t *got = talloc_size(fx, fx->expect_len);
	size_t have = 0;
	int rounds = 0;

	while (have < fx->expect_len && rounds++ < 1000) {
		ssize_t n;

		spin(fx);
		do {
			n = recv(fx->peer, got + have, fx->expect_len - have,
				 MSG_DONTWAIT);
			if (n > 0) {
				have += (size_t)n;
			}
		} while (n > 0 && have < fx->expect_len);
	}
	assert_int_equal(have, fx->expect_len);
	assert_memory_equal(got, fx->expect, fx->expect_len);
	assert_int_equal(ev_stream_queued_bytes(fx->st), 0);
	talloc_free(got);
}

static void assert_closed(int fd)
{
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

static void test_order(void **state)
{
	struct fixture *fx = *state;
	int fd1, fd2;

	if (fx == NULL) {
		skip();
	}
	queue_buf(fx, "first", 5);
	fd1 = queue_file(fx, "HDR1", 0, FILE_LEN, FILE_LEN);
	queue_buf(fx, "middle", 6);
	queue_buf(fx, "more", 4);
	fd2 = queue_file(fx, "HDR2", 4097, 70000, 70000);
	queue_buf(fx, "last", 4);
	receive_all(fx);
	assert_closed(fd1);
	assert_closed(fd2);
}

static void test_truncated(void **state)
{
	struct fixture *fx = *state;
	uint8_t *filler;

	if (fx == NULL) {
		skip();
	}
	/* 16 MiB in front that the sockets cannot hold at once keep the
	 * file parts queued until after the truncate. */
	filler = talloc_zero_size(fx, 16 << 20);
	queue_buf(fx, filler, 16 << 20);
	talloc_free(filler);
	assert_true(ev_stream_queued_bytes(fx->st) > 0);
	/* Announced 200000 bytes from 1000, but the file now ends at
	 * 70000: 69000 bytes of data, then zeros; the next entry is whole. */
	queue_file(fx, "H", 1000, 200000, 69000);
	queue_file(fx, "G", 60000, 20000, 10000);
	queue_buf(fx, "after", 5);
	assert_int_equal(ftruncate(fx->file, 70000), 0);
	receive_all(fx);
}

static void test_dead_stream_closes_fd(void **state)
{
	struct fixture *fx = *state;
	int fds[16];
	size_t i;

	if (fx == NULL) {
		skip();
	}
	/* The peer reads nothing: 4.8 MB cannot all fit in the socket
	 * buffers, the later parts stay queued when the stream dies. */
	for (i = 0; i < 16; i++) {
		fds[i] = queue_file(fx, "X", 0, FILE_LEN, FILE_LEN);
	}
	spin(fx);
	assert_true(ev_stream_queued_bytes(fx->st) > 0);
	ev_stream_close(fx->st);
	fx->st = NULL;
	spin(fx);
	for (i = 0; i < 16; i++) {
		assert_closed(fds[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order, setup_uring,
						teardown),
		cmocka_unit_test_setup_teardown(test_order, setup_epoll,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup_uring,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup_epoll,
						teardown),
		cmocka_unit_test_setup_teardown(test_dead_stream_closes_fd,
						setup_uring, teardown),
		cmocka_unit_test_setup_teardown(test_dead_stream_closes_fd,
						setup_epoll, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
