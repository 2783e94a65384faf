/*
 * vfs_openat_beneath on what is not a regular file (issue 34 item 2): a
 * FIFO without a writer, a socket, a device.  Before, an open of a FIFO
 * for reading waited in the kernel for a writer, holding its pool
 * thread for good; now every data open is made with O_NONBLOCK and the
 * type is checked on the fd.  Each open below runs in a thread the test
 * gives up on after two seconds, so a regression fails instead of
 * hanging the suite.  Regular files must come back in blocking mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"

struct tree {
	char dir[64];
	struct vfs_share sh;
	int sock;
};

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	assert_non_null(t);
	strcpy(t->dir, "/tmp/test_vfs_open.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->sh.root_fd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(t->sh.root_fd != -1);
	t->sh.path = t->dir;
	assert_int_equal(mkfifoat(t->sh.root_fd, "fifo", 0666), 0);
	fd = openat(t->sh.root_fd, "file", O_WRONLY | O_CREAT, 0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, "data", 4), 4);
	close(fd);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", t->dir);
	t->sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(t->sock != -1);
	assert_int_equal(bind(t->sock, (struct sockaddr *)&sa, sizeof(sa)),
			 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	close(t->sock);
	close(t->sh.root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

struct open_call {
	const struct tree *t;
	const char *name;
	int flags;
	bool info;
	struct vfs_file_info fi;
	int fd, err;
	bool done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *open_thread(void *arg)
{
	struct open_call *c = arg;
	int fd = c->info ? vfs_openat_beneath_info(&c->t->sh,
						   c->t->sh.root_fd, c->name,
						   c->flags, 0, &c->fi)
			 : vfs_openat_beneath(&c->t->sh, c->t->sh.root_fd,
					      c->name, c->flags, 0);
	int err = errno;

	pthread_mutex_lock(&c->lock);
	c->fd = fd;
	c->err = err;
	c->done = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The open in a thread; fails the test (leaving the thread) when it has
 * not returned within 2 s. */
static int open_within(const struct tree *t, const char *name, int flags,
		       bool info, int *err)
{
	static struct open_call c;	/* a stuck thread keeps using it */
	struct timespec end;
	pthread_t th;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.name = name;
	c.flags = flags;
	c.info = info;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	assert_int_equal(pthread_create(&th, NULL, open_thread, &c), 0);
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 2;
	pthread_mutex_lock(&c.lock);
	while (!c.done && rc == 0) {
		rc = pthread_cond_timedwait(&c.cond, &c.lock, &end);
	}
	pthread_mutex_unlock(&c.lock);
	if (!c.done) {
		pthread_detach(th);
		fail_msg("open of %s (flags %#x) still waits after 2 s", name,
			 flags);
	}
	pthread_join(th, NULL);
	*err = c.err;
	return c.fd;
}

static void test_fifo_read_does_not_wait(void **state)
{
	struct tree *t = *state;
	int err, fd;
	char b;

	fd = open_within(t, "fifo", O_RDONLY, false, &err);
	assert_true(fd != -1);
	/* it stays non-blocking: a read finds no writer, never waits */
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_int_equal(read(fd, &b, 1), 0);
	/* and at an offset it is ESPIPE (ACCESS_DENIED, as Samba) */
	assert_int_equal(pread(fd, &b, 1, 0), -1);
	assert_int_equal(errno, ESPIPE);
	assert_int_equal(vfs_map_errno(ESPIPE), NT_STATUS_ACCESS_DENIED);
	close(fd);
	fd = open_within(t, "fifo", O_RDONLY, true, &err);
	assert_true(fd != -1);
	close(fd);
}

static void test_fifo_write_refused(void **state)
{
	struct tree *t = *state;
	int err;

	assert_int_equal(open_within(t, "fifo", O_RDWR, false, &err), -1);
	assert_int_equal(err, ENXIO);
	assert_int_equal(open_within(t, "fifo", O_WRONLY, true, &err), -1);
	assert_int_equal(err, ENXIO);
	assert_int_equal(vfs_map_errno(ENXIO), NT_STATUS_ACCESS_DENIED);
}

static void test_socket_refused(void **state)
{
	struct tree *t = *state;
	int err;

	assert_int_equal(open_within(t, "sock", O_RDONLY, false, &err), -1);
	assert_int_equal(err, ENXIO);
	/* O_PATH names it (an attribute-only open) */
	err = vfs_openat_beneath(&t->sh, t->sh.root_fd, "sock", O_PATH, 0);
	assert_true(err != -1);
	close(err);
}

/* A regular file's fd is back in blocking mode, with its statx. */
static void test_regular_blocking(void **state)
{
	struct tree *t = *state;
	struct vfs_file_info fi;
	int err, fd;

	fd = open_within(t, "file", O_RDWR, false, &err);
	assert_true(fd != -1);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	fd = vfs_openat_beneath_info(&t->sh, t->sh.root_fd, "file", O_RDONLY,
				     0, &fi);
	assert_true(fd != -1);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_int_equal(fi.end_of_file, 4);
	assert_true(S_ISREG(fi.mode));
	close(fd);
	/* O_APPEND survives the F_SETFL */
	fd = vfs_openat_beneath(&t->sh, t->sh.root_fd, "file",
				O_WRONLY | O_APPEND, 0);
	assert_true(fd != -1);
	assert_true(fcntl(fd, F_GETFL) & O_APPEND);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	/* a directory opened as a file, and O_PATH, are left alone */
	fd = vfs_openat_beneath(&t->sh, t->sh.root_fd, "", O_RDONLY, 0);
	assert_true(fd != -1);
	close(fd);
}

/* A device opens, and stays non-blocking (a tty or a serial line would
 * otherwise hold the thread on read); /dev/null through a share whose
 * root is /dev, as a share with path = / would give it. */
static void test_device_nonblocking(void **state)
{
	struct vfs_share dev = {0};
	int fd;

	(void)state;
	dev.root_fd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	dev.path = "/dev";
	assert_true(dev.root_fd != -1);
	fd = vfs_openat_beneath(&dev, dev.root_fd, "null", O_RDWR, 0);
	assert_true(fd != -1);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	close(dev.root_fd);
}

/* A reopen through /proc/self/fd settles the same way. */
static void test_settle_reopen(void **state)
{
	struct tree *t = *state;
	char proc[64];
	int pfd, fd;

	pfd = openat(t->sh.root_fd, "fifo", O_PATH | O_CLOEXEC);
	assert_true(pfd != -1);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = vfs_open_settle(open(proc, O_WRONLY | O_NONBLOCK | O_CLOEXEC),
			     O_WRONLY);
	/* without a reader the kernel says ENXIO itself */
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ENXIO);
	close(pfd);
	assert_int_equal(vfs_open_settle(-1, O_RDONLY), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo_read_does_not_wait,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_write_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_socket_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_regular_blocking, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_device_nonblocking, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_settle_reopen, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
