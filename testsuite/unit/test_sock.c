/* lib/sock.h: socket calls return -errno, so the rooms above lib/ tell a
 * retry (-EINTR), a full or empty socket (-EAGAIN) and a port in use
 * (-EADDRINUSE) from a failure without reading errno. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/heartbeat.h"
#include "lib/sock.h"

static void test_io(void **state)
{
	int sv[2];
	char buf[8];
	struct pollfd pfd;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	assert_int_equal(sock_read(sv[0], buf, sizeof(buf)), -EAGAIN);
	assert_int_equal(sock_recv(sv[0], buf, sizeof(buf), 0), -EAGAIN);
	assert_int_equal(sock_write(sv[1], "ab", 2), 2);
	assert_int_equal(sock_send(sv[1], "cd", 2, MSG_NOSIGNAL), 2);
	pfd = (struct pollfd){.fd = sv[0], .events = POLLIN};
	assert_int_equal(sock_poll(&pfd, 1, 1000), 1);
	assert_int_equal(sock_recv(sv[0], buf, sizeof(buf), 0), 4);
	assert_memory_equal(buf, "abcd", 4);
	close(sv[0]);
	assert_int_equal(sock_send(sv[1], "x", 1, MSG_NOSIGNAL), -EPIPE);
	close(sv[1]);
	assert_int_equal(sock_read(sv[1], buf, 1), -EBADF);
	assert_int_equal(sock_write(sv[1], buf, 1), -EBADF);
	assert_int_equal(sock_setopt(sv[1], SOL_SOCKET, SO_REUSEADDR, buf,
				     sizeof(int)), -EBADF);
}

/* More descriptors than RLIMIT_NOFILE allows: poll(2) fails EINVAL
 * before it reads them. */
/* poll(2) refuses more descriptors than RLIMIT_NOFILE allows (EINVAL):
 * an error the wrappers return as -EINVAL, with every entry of the
 * array valid memory (ASan's poll reads them all). */
static void test_poll_error(void **state)
{
	struct pollfd pfd[64];
	struct rlimit old, low;
	size_t i;

	(void)state;
	for (i = 0; i < 64; i++) {
		pfd[i].fd = -1;
		pfd[i].events = 0;
	}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 32;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(sock_poll(pfd, 64, 0), -EINVAL);
	assert_int_equal(heartbeat_poll(pfd, 64, 0), -EINVAL);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

static void test_listen(void **state)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sin);
	int a, b;

	(void)state;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a = sock_listen_reuseport((struct sockaddr *)&sin, sizeof(sin), 16);
	assert_true(a >= 0);
	assert_int_equal(getsockname(a, (struct sockaddr *)&sin, &sl), 0);
	/* In use by the group: a plain bind says so. */
	assert_int_equal(sock_port_free((struct sockaddr *)&sin, sizeof(sin)),
			 -EADDRINUSE);
	/* The same user joins the group. */
	b = sock_listen_reuseport((struct sockaddr *)&sin, sizeof(sin), 16);
	assert_true(b >= 0);
	close(a);
	close(b);
	assert_int_equal(sock_port_free((struct sockaddr *)&sin, sizeof(sin)),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_poll_error),
		cmocka_unit_test(test_listen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
