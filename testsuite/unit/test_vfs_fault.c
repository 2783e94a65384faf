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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_hit_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
