/*
 * vfs/fault.c: the SMBD_FAULT_INJECT parser and the matching of calls.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "vfs/fault.h"

static void test_parse_good(void **state)
{
	struct vfs_fault_table t;
	char err[128];

	(void)state;
	assert_true(vfs_fault_parse("write:ENOSPC:full,open:EMFILE:x:2", &t,
				    err, sizeof(err)));
	assert_int_equal(t.nrules, 2);
	assert_int_equal(t.rules[0].op, VFS_FAULT_WRITE);
	assert_int_equal(t.rules[0].err, ENOSPC);
	assert_string_equal(t.rules[0].match, "full");
	assert_int_equal(t.rules[0].left, -1);
	assert_int_equal(t.rules[1].op, VFS_FAULT_OPEN);
	assert_int_equal(t.rules[1].err, EMFILE);
	assert_int_equal(t.rules[1].left, 2);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"", "write", "write:ENOSPC", "write:ENOSPC:", "nosuch:EIO:x",
		"write:ENOTANERRNO:x", "write:EIO:x:0", "write:EIO:x:-1",
		"write:EIO:x:1:2", "write:EIO:x:9999999999999999999",
		"write:EIO:x,", ",", "a:b:c,d:e:f",
		"write:EIO:0123456789012345678901234567890123456789012345678901"
		"23456789012345",
		"write:EIO:a,write:EIO:b,write:EIO:c,write:EIO:d,write:EIO:e,"
		"write:EIO:f,write:EIO:g,write:EIO:h,write:EIO:i",
		/* SLEEP=MS: 1 to 600000 ms, digits only */
		"open:SLEEP:x", "open:SLEEP=:x", "open:SLEEP=0:x",
		"open:SLEEP=-5:x", "open:SLEEP=600001:x", "open:SLEEP=1e3:x",
		"open:SLEEP= 5:x", "open:SLEEP=+5:x", "open:SLEEP=5ms:x",
		"open:SLEEP=99999999999999999999:x", "open:sleep=5:x",
		"open:SLEEP=5",
	};
	struct vfs_fault_table t;
	char err[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(vfs_fault_parse(bad[i], &t, err, sizeof(err)));
		assert_true(err[0] != '\0');
	}
}

static void test_hit_counts(void **state)
{
	struct vfs_fault_table t;
	char err[128];

	(void)state;
	assert_int_equal(vfs_fault_hit(VFS_FAULT_WRITE, "a/full.dat", -1), 0);
	assert_true(vfs_fault_parse("write:EINTR:intr:2,fsync:EIO:sync", &t,
				    err, sizeof(err)));
	vfs_fault_arm(&t);
	assert_true(vfs_fault_armed(VFS_FAULT_WRITE));
	assert_false(vfs_fault_armed(VFS_FAULT_READ));
	assert_int_equal(vfs_fault_hit(VFS_FAULT_WRITE, "other", -1), 0);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_WRITE, "d/intr.x", -1), EINTR);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_WRITE, "intr", -1), EINTR);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_WRITE, "intr", -1), 0);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_FSYNC, "x/sync", -1), EIO);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_FSYNC, "x/sync", -1), EIO);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_READ, "x/sync", -1), 0);
	vfs_fault_arm(NULL);
	assert_int_equal(vfs_fault_hit(VFS_FAULT_FSYNC, "x/sync", -1), 0);
}

/* SLEEP=MS (issue 34): parsed with its bounds, counted like an error
 * rule, and a later error rule still applies after the wait. */
static void test_parse_sleep(void **state)
{
	struct vfs_fault_table t;
	char err[128];
	unsigned ms;

	(void)state;
	assert_true(vfs_fault_parse("open:SLEEP=30000:/slow/,"
				    "read:SLEEP=1:a:3,open:SLEEP=600000:b,"
				    "open:EIO:/slow/x",
				    &t, err, sizeof(err)));
	assert_int_equal(t.nrules, 4);
	assert_int_equal(t.rules[0].op, VFS_FAULT_OPEN);
	assert_int_equal(t.rules[0].err, 0);
	assert_int_equal(t.rules[0].sleep_ms, 30000);
	assert_string_equal(t.rules[0].match, "/slow/");
	assert_int_equal(t.rules[0].left, -1);
	assert_int_equal(t.rules[1].sleep_ms, 1);
	assert_int_equal(t.rules[1].left, 3);
	assert_int_equal(t.rules[2].sleep_ms, 600000);
	assert_int_equal(t.rules[3].err, EIO);
	assert_int_equal(t.rules[3].sleep_ms, 0);

	vfs_fault_arm(&t);
	assert_int_equal(vfs_fault_decide(VFS_FAULT_OPEN, "/srv/slow/f", &ms),
			 0);
	assert_int_equal(ms, 30000);
	/* the wait, then the error rule after it */
	assert_int_equal(vfs_fault_decide(VFS_FAULT_OPEN, "/srv/slow/x", &ms),
			 EIO);
	assert_int_equal(ms, 30000);
	assert_int_equal(vfs_fault_decide(VFS_FAULT_OPEN, "/srv/fast/f", &ms),
			 0);
	assert_int_equal(ms, 0);
	assert_int_equal(vfs_fault_decide(VFS_FAULT_OPEN, "/slow/b", &ms), 0);
	assert_int_equal(ms, 630000);
	/* a counted sleep stops after COUNT calls */
	assert_int_equal(vfs_fault_decide(VFS_FAULT_READ, "a", &ms), 0);
	assert_int_equal(ms, 1);
	(void)vfs_fault_decide(VFS_FAULT_READ, "a", &ms);
	(void)vfs_fault_decide(VFS_FAULT_READ, "a", &ms);
	assert_int_equal(vfs_fault_decide(VFS_FAULT_READ, "a", &ms), 0);
	assert_int_equal(ms, 0);
	vfs_fault_arm(NULL);
	assert_int_equal(vfs_fault_decide(VFS_FAULT_OPEN, "/slow/b", &ms), 0);
	assert_int_equal(ms, 0);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The hook itself waits, and an openat's rules see the absolute path
 * (the directory's, from /proc/self/fd). */
static void test_hit_sleeps_at(void **state)
{
	struct vfs_fault_table t;
	char dir[] = "/tmp/faultXXXXXX", spec[128], err[128];
	uint64_t t0;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	snprintf(spec, sizeof(spec), "open:SLEEP=150:%s/,unlink:EPERM:%s/",
		 dir + 5, dir + 5);
	assert_true(vfs_fault_parse(spec, &t, err, sizeof(err)));
	vfs_fault_arm(&t);
	t0 = now_ms();
	assert_int_equal(vfs_fault_hit_at(VFS_FAULT_OPEN, dfd, "f"), 0);
	assert_true(now_ms() - t0 >= 150);
	t0 = now_ms();
	/* the relative name alone does not hold the directory's name */
	assert_int_equal(vfs_fault_hit(VFS_FAULT_OPEN, "f", -1), 0);
	assert_true(now_ms() - t0 < 150);
	assert_int_equal(vfs_fault_hit_at(VFS_FAULT_UNLINK, dfd, "d/f"),
			 EPERM);
	assert_int_equal(vfs_fault_hit_at(VFS_FAULT_UNLINK, -1, "d/f"), 0);
	vfs_fault_arm(NULL);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_hit_counts),
		cmocka_unit_test(test_parse_sleep),
		cmocka_unit_test(test_hit_sleeps_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
