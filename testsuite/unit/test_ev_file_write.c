/*
 * Unit tests: ev_file_write and the ring personalities (lib/ev.h), and
 * tpool_run_as (lib/tpool.h), which WRITE through the ring rests on
 * (smbd/conn/smb2_ring.c).  The data lands where asked; an error comes
 * back as -errno; the epoll backend says -ENOSYS; and a write made with
 * a user's personality is the user's: the kernel clears a set-user-ID
 * bit that a write by root (CAP_FSETID) leaves, so a WRITE through the
 * ring cannot be used to keep a setuid file setuid.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <talloc.h>

#include "lib/ev.h"
#include "lib/tpool.h"

struct fixture {
	struct ev_loop *loop;
	char path[64];
	int fd;
	int res;
	int calls;
};

static void on_done(void *priv, int res)
{
	struct fixture *fx = priv;

	fx->res = res;
	fx->calls++;
	ev_loop_stop(fx->loop);
}

static void on_timeout(void *priv)
{
	struct fixture *fx = priv;

	ev_loop_stop(fx->loop);
}

static int setup(void **state)
{
	struct fixture *fx = talloc_zero(NULL, struct fixture);

	fx->loop = ev_loop_new(fx, EV_BACKEND_URING);
	strcpy(fx->path, "/tmp/test_ev_file_write.XXXXXX");
	fx->fd = mkstemp(fx->path);
	assert_true(fx->fd != -1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	close(fx->fd);
	unlink(fx->path);
	talloc_free(fx);
	return 0;
}

/* One write, run to its completion (or 5 s). */
static void write_and_wait(struct fixture *fx, int fd, const char *data,
			   uint64_t off, int personality)
{
	struct ev_timer *t;

	fx->calls = 0;
	assert_int_equal(ev_file_write(fx->loop, fd, data, strlen(data), off,
				       personality, on_done, fx),
			 0);
	t = ev_timer_add(fx, fx->loop, 5000, on_timeout, fx);
	assert_non_null(t);
	assert_int_equal(ev_loop_run(fx->loop), 0);
	assert_int_equal(fx->calls, 1);
	talloc_free(t);
}

static void test_write_lands(void **state)
{
	struct fixture *fx = *state;
	char buf[32] = {0};

	if (fx->loop == NULL) {
		skip(); /* no io_uring here */
	}
	write_and_wait(fx, fx->fd, "hello, ring", 3, 0);
	assert_int_equal(fx->res, 11);
	assert_int_equal(pread(fx->fd, buf, sizeof(buf), 0), 14);
	assert_memory_equal(buf, "\0\0\0hello, ring", 14);
}

static void test_error_is_negative_errno(void **state)
{
	struct fixture *fx = *state;
	int rdonly;

	if (fx->loop == NULL) {
		skip();
	}
	rdonly = open(fx->path, O_RDONLY);
	assert_true(rdonly != -1);
	write_and_wait(fx, rdonly, "x", 0, 0);
	assert_int_equal(fx->res, -EBADF);
	close(rdonly);
}

static int do_register(void *loop)
{
	return ev_personality_register(loop);
}

static void test_personality_is_the_users(void **state)
{
	struct fixture *fx = *state;
	const struct tpool_cred nobody = {.uid = 65534, .gid = 65534};
	struct stat sb;
	int id;

	if (fx->loop == NULL || geteuid() != 0) {
		skip(); /* registering another user's needs root */
	}
	assert_int_equal(fchmod(fx->fd, 04777), 0);
	/* Root's own write keeps the bit (CAP_FSETID)... */
	write_and_wait(fx, fx->fd, "root", 0, 0);
	assert_int_equal(fx->res, 4);
	assert_int_equal(fstat(fx->fd, &sb), 0);
	assert_true(sb.st_mode & S_ISUID);
	/* ...the user's, through its personality, clears it. */
	id = tpool_run_as(&nobody, do_register, fx->loop);
	assert_true(id > 0);
	assert_int_equal(geteuid(), 0); /* back to root */
	write_and_wait(fx, fx->fd, "user", 0, id);
	assert_int_equal(fx->res, 4);
	assert_int_equal(fstat(fx->fd, &sb), 0);
	assert_false(sb.st_mode & S_ISUID);
	ev_personality_unregister(fx->loop, id);
}

static void test_epoll_has_no_ring(void **state)
{
	struct ev_loop *loop = ev_loop_new(NULL, EV_BACKEND_EPOLL);

	(void)state;
	assert_non_null(loop);
	assert_int_equal(ev_file_write(loop, 1, "x", 1, 0, 0, on_done, NULL),
			 -ENOSYS);
	assert_int_equal(ev_personality_register(loop), -ENOSYS);
	talloc_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_lands, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_error_is_negative_errno,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_personality_is_the_users,
						setup, teardown),
		cmocka_unit_test(test_epoll_has_no_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
