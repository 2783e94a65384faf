/*
 * Unit tests for smbd/objects/write_time.c (delayed write time): an open on a
 * temporary file, writes done with pwrite as the WRITE job does them,
 * and the file's mtime (the write time every query reports) checked
 * after each step.  The two-second timer itself is left to smbtorture's
 * smb2.timestamps.delayed-1write/-2write; here it is only seen armed and
 * cancelled, and its update is the one FLUSH does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "smbd/conn/conn.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/write_time.h"
#include "lib/clock.h"
#include "lib/ev.h"

/* Long ago, so that "now" is always later; nanoseconds a multiple of
 * 100, as an NTTIME can carry them. */
#define T_OLD 1000000000
#define T_SET 1100000000

struct wt_test {
	char path[64];
	struct smbd_worker worker;
	struct smbd_open *op;
};

static void set_mtime(int fd, time_t sec)
{
	struct timespec ts[2] = {{0, UTIME_OMIT}, {sec, 100}};

	assert_int_equal(futimens(fd, ts), 0);
}

static struct timespec get_mtime(int fd)
{
	struct stat sb;

	assert_int_equal(fstat(fd, &sb), 0);
	return sb.st_mtim;
}

static void assert_mtime(int fd, time_t sec)
{
	struct timespec ts = get_mtime(fd);

	assert_int_equal(ts.tv_sec, sec);
	assert_int_equal(ts.tv_nsec, 100);
}

/* The mtime moved to about now. */
static void assert_mtime_now(int fd)
{
	assert_true(get_mtime(fd).tv_sec > time(NULL) - 10);
}

/* A write as the WRITE handler and its job do it. */
static void do_write(struct smbd_open *op)
{
	assert_true(smbd_wt_write_begin(op));
	assert_int_equal(pwrite(op->h.fd, "x", 1, 0), 1);
	smbd_wt_write_end(op);
}

static int setup(void **state)
{
	struct wt_test *t = talloc_zero(NULL, struct wt_test);

	assert_non_null(t);
	snprintf(t->path, sizeof(t->path), "/tmp/test_write_time.XXXXXX");
	t->op = talloc_zero(t, struct smbd_open);
	assert_non_null(t->op);
	t->op->h.fd = mkstemp(t->path);
	assert_true(t->op->h.fd != -1);
	t->op->path = t->path;
	t->op->worker = &t->worker;
	set_mtime(t->op->h.fd, T_OLD);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct wt_test *t = *state;

	close(t->op->h.fd);
	unlink(t->path);
	talloc_free(t);
	return 0;
}

/* smb2.timestamps.delayed-*: right after a write the time is unchanged;
 * CLOSE then sets it. */
static void test_write_keeps_close_sets(void **state)
{
	struct wt_test *t = *state;

	do_write(t->op);
	assert_mtime(t->op->h.fd, T_OLD);
	assert_true(t->op->wt.dirty);
	smbd_wt_close(t->op);
	assert_mtime_now(t->op->h.fd);
	assert_false(t->op->wt.dirty);
}

/* FLUSH does a pending update, and nothing without one. */
static void test_flush(void **state)
{
	struct wt_test *t = *state;

	smbd_wt_flush(t->op);
	assert_mtime(t->op->h.fd, T_OLD);
	do_write(t->op);
	smbd_wt_flush(t->op);
	assert_mtime_now(t->op->h.fd);
	set_mtime(t->op->h.fd, T_OLD);
	smbd_wt_close(t->op); /* nothing written since the flush */
	assert_mtime(t->op->h.fd, T_OLD);
}

/* FileBasicInformation with LastWriteTime 0 flushes too. */
static void test_basic_zero_flushes(void **state)
{
	struct wt_test *t = *state;

	do_write(t->op);
	smbd_wt_set_basic(t->op, 0);
	assert_mtime_now(t->op->h.fd);
}

/* An explicit time sticks: writes, CLOSE and truncates keep it. */
static void test_sticky(void **state)
{
	struct wt_test *t = *state;
	struct timespec before;

	do_write(t->op);
	smbd_wt_set_basic(t->op, nttime_from_timespec(
					 &(struct timespec){T_SET, 100}));
	set_mtime(t->op->h.fd, T_SET); /* what the SET_INFO job does */
	do_write(t->op);
	assert_mtime(t->op->h.fd, T_SET);
	before = get_mtime(t->op->h.fd);
	assert_int_equal(ftruncate(t->op->h.fd, 0), 0);
	smbd_wt_resized(t->op, &before);
	assert_mtime(t->op->h.fd, T_SET);
	smbd_wt_close(t->op);
	assert_mtime(t->op->h.fd, T_SET);
}

/* A truncate through an open without a set time is an update now. */
static void test_resized(void **state)
{
	struct wt_test *t = *state;
	struct timespec before = get_mtime(t->op->h.fd);

	do_write(t->op);
	smbd_wt_resized(t->op, &before);
	assert_mtime_now(t->op->h.fd);
	assert_false(t->op->wt.dirty);
}

/* -1 freezes the time for this open's writes, -2 thaws it. */
static void test_freeze_thaw(void **state)
{
	struct wt_test *t = *state;

	smbd_wt_set_basic(t->op, FSCC_TIME_FREEZE);
	do_write(t->op);
	smbd_wt_close(t->op);
	assert_mtime(t->op->h.fd, T_OLD);
	smbd_wt_set_basic(t->op, FSCC_TIME_UNFREEZE);
	do_write(t->op);
	assert_mtime(t->op->h.fd, T_OLD);
	smbd_wt_close(t->op);
	assert_mtime_now(t->op->h.fd);
}

/* Writes overlapping in the pool put back the time seen before the
 * first; a time set meanwhile is the one they put back. */
static void test_inflight(void **state)
{
	struct wt_test *t = *state;

	assert_true(smbd_wt_write_begin(t->op));
	assert_int_equal(pwrite(t->op->h.fd, "x", 1, 0), 1);
	assert_true(smbd_wt_write_begin(t->op));
	smbd_wt_write_end(t->op);
	assert_int_equal(pwrite(t->op->h.fd, "y", 1, 1), 1);
	smbd_wt_write_end(t->op);
	assert_mtime(t->op->h.fd, T_OLD);

	assert_true(smbd_wt_write_begin(t->op));
	assert_int_equal(pwrite(t->op->h.fd, "x", 1, 0), 1);
	smbd_wt_set_basic(t->op, nttime_from_timespec(
					 &(struct timespec){T_SET, 100}));
	set_mtime(t->op->h.fd, T_SET);
	assert_int_equal(pwrite(t->op->h.fd, "x", 1, 0), 1);
	smbd_wt_write_end(t->op);
	assert_mtime(t->op->h.fd, T_SET);
}

/* Only the first write arms the update; CLOSE cancels it. */
static void test_timer_armed_once(void **state)
{
	struct wt_test *t = *state;
	struct ev_loop *loop = ev_loop_new(t, EV_BACKEND_EPOLL);
	struct ev_timer *first;

	assert_non_null(loop);
	t->worker.loop = loop;
	do_write(t->op);
	first = t->op->wt.timer;
	assert_non_null(first);
	do_write(t->op);
	assert_ptr_equal(t->op->wt.timer, first);
	smbd_wt_close(t->op);
	assert_null(t->op->wt.timer);
	assert_mtime_now(t->op->h.fd);
	/* Armed once per open: later writes wait for CLOSE. */
	set_mtime(t->op->h.fd, T_OLD);
	do_write(t->op);
	assert_null(t->op->wt.timer);
	assert_mtime(t->op->h.fd, T_OLD);
	t->worker.loop = NULL;
}

/* Directories and streams are not written through here. */
static void test_not_applicable(void **state)
{
	struct wt_test *t = *state;

	t->op->stream = "s";
	assert_false(smbd_wt_write_begin(t->op));
	t->op->stream = NULL;
	t->op->is_dir = true;
	assert_false(smbd_wt_write_begin(t->op));
	t->op->is_dir = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_keeps_close_sets,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_basic_zero_flushes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sticky, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freeze_thaw, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_inflight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_armed_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_applicable, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
