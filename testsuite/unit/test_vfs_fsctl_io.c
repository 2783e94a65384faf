/*
 * vfs/fsctl_io.c, vfs/fsinfo.c and vfs/setinfo.c on real files (issue
 * 37 item 1): the answers the FSCTL, copy and SET_INFO handlers used to
 * read off errno, now results of these functions, checked where they
 * decide something: the kernel copy that cannot (overlapping ranges in
 * one file) and the one whose source ends early, the short read's
 * count, the dup of a bad fd, the data extents of a sparse file and an
 * early stop, a zeroed range, a directory's emptiness, an EA removed
 * that was not there, a link the share's rules refuse.
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

#include "vfs/vfs.h"
#include "vfs/fsctl_io.h"
#include "vfs/fsinfo.h"
#include "vfs/setinfo.h"
#include "testsuite/common/xattr_tmpfile.h"

struct tree {
	char dir[64];
	int dirfd;
};

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/var/tmp/test_vfs_fsctl_io.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(t->dirfd != -1);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	close(t->dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static int new_file(struct tree *t, const char *name)
{
	int fd = openat(t->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			0644);

	assert_true(fd != -1);
	return fd;
}

static void test_pread_all_counts_short(void **state)
{
	int fd = new_file(*state, "short");
	char buf[32];
	size_t done = 99;

	assert_true(NT_STATUS_IS_OK(vfs_pwrite_all(fd, "0123456789", 10, 0)));
	assert_true(NT_STATUS_IS_OK(vfs_pread_all(fd, buf, sizeof(buf), 0,
						  &done)));
	assert_int_equal(done, 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_true(NT_STATUS_IS_OK(vfs_pread_all(fd, buf, 4, 100, &done)));
	assert_int_equal(done, 0);
	close(fd);
}

static void test_dup_bad_fd(void **state)
{
	int out = 5;

	(void)state;
	assert_true(vfs_fd_dup(-1, &out) == NT_STATUS_INVALID_HANDLE);
	assert_int_equal(out, -1);
	vfs_fd_close(-1);	/* nothing to do, no harm */
}

static void test_copy_range(void **state)
{
	int src = new_file(*state, "src"), dst = new_file(*state, "dst");
	NTSTATUS status = NT_STATUS_UNSUCCESSFUL;
	char buf[8];
	size_t done;

	assert_true(NT_STATUS_IS_OK(vfs_pwrite_all(src, "abcdefgh", 8, 0)));
	/* overlapping ranges in one file: the kernel cannot (EINVAL) */
	assert_false(vfs_copy_range(src, 0, src, 2, 4, &status));
	/* file to file */
	assert_true(vfs_copy_range(src, 2, dst, 0, 4, &status));
	assert_true(NT_STATUS_IS_OK(status));
	assert_true(NT_STATUS_IS_OK(vfs_pread_all(dst, buf, 8, 0, &done)));
	assert_int_equal(done, 4);
	assert_memory_equal(buf, "cdef", 4);
	/* the source ends before the length asked for */
	assert_true(vfs_copy_range(src, 6, dst, 0, 4, &status));
	assert_true(status == NT_STATUS_INVALID_VIEW_SIZE);
	close(src);
	close(dst);
}

struct extents {
	uint64_t off[8], len[8];
	int n, max;
};

static bool extents_add(void *p, uint64_t off, uint64_t len)
{
	struct extents *e = p;

	if (e->n == e->max) {
		return false;
	}
	e->off[e->n] = off;
	e->len[e->n] = len;
	e->n++;
	return true;
}

static void test_data_extents_and_zero(void **state)
{
	int fd = new_file(*state, "sparse");
	struct extents e = {.max = 8};
	const uint64_t mib = 1024 * 1024;
	char buf[4096], zeros[4096];
	size_t done;

	memset(buf, 'x', sizeof(buf));
	memset(zeros, 0, sizeof(zeros));
	assert_true(NT_STATUS_IS_OK(vfs_pwrite_all(fd, buf, 4096, 0)));
	assert_true(NT_STATUS_IS_OK(vfs_pwrite_all(fd, buf, 4096, 4 * mib)));
	assert_true(vfs_data_extents(fd, 0, 4 * mib + 4096, extents_add, &e));
	if (e.n == 1) {
		close(fd);
		skip();	/* no holes on this file system */
	}
	assert_int_equal(e.n, 2);
	assert_int_equal(e.off[0], 0);
	assert_true(e.len[0] >= 4096 && e.len[0] < 4 * mib);
	assert_true(e.off[1] <= 4 * mib);
	assert_int_equal(e.off[1] + e.len[1], 4 * mib + 4096);
	/* a full answer stops the walk */
	memset(&e, 0, sizeof(e));
	e.max = 1;
	assert_true(vfs_data_extents(fd, 0, 4 * mib + 4096, extents_add, &e));
	assert_int_equal(e.n, 1);
	/* a punched range reads as zeros, the size kept */
	if (vfs_zero_range(fd, 0, 4096, true)) {
		struct stat sb;

		assert_true(NT_STATUS_IS_OK(vfs_pread_all(fd, buf, 4096, 0,
							  &done)));
		assert_memory_equal(buf, zeros, 4096);
		assert_true(NT_STATUS_IS_OK(vfs_fd_stat(fd, &sb)));
		assert_int_equal(sb.st_size, 4 * mib + 4096);
	}
	close(fd);
}

static void test_dir_is_empty(void **state)
{
	struct tree *t = *state;
	int d, fd;

	assert_int_equal(mkdirat(t->dirfd, "d", 0755), 0);
	d = openat(t->dirfd, "d", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(d != -1);
	assert_true(vfs_dir_is_empty(d));
	fd = openat(d, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd != -1);
	close(fd);
	assert_false(vfs_dir_is_empty(d));
	close(d);
}

static void test_ea_remove_absent(void **state)
{
	char path[64];
	int fd = xattr_tmpfile(path, "test_vfs_fsctl_io");
	char val[8];

	(void)state;
	if (fd == -1) {
		skip();
	}
	/* removing an EA that is not there succeeds (ENODATA) */
	assert_true(NT_STATUS_IS_OK(vfs_ea_fset(fd, "user.none", NULL, 0)));
	assert_true(NT_STATUS_IS_OK(vfs_ea_fset(fd, "user.ea", "v", 1)));
	assert_int_equal(fgetxattr(fd, "user.ea", val, sizeof(val)), 1);
	assert_true(NT_STATUS_IS_OK(vfs_ea_fset(fd, "user.ea", NULL, 0)));
	assert_int_equal(fgetxattr(fd, "user.ea", val, sizeof(val)), -1);
	close(fd);
	unlink(path);
}

static void test_link_refused(void **state)
{
	struct tree *t = *state;
	struct vfs_share sh;
	int f;

	memset(&sh, 0, sizeof(sh));
	sh.root_fd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(sh.root_fd != -1);
	sh.path = t->dir;
	sh.follow_symlinks = true;
	f = new_file(t, "target");
	close(f);
	assert_int_equal(symlinkat("target", t->dirfd, "in"), 0);
	assert_int_equal(symlinkat("/etc", t->dirfd, "out"), 0);
	assert_int_equal(symlinkat("missing", t->dirfd, "dangling"), 0);
	assert_false(vfs_link_refused(&sh, sh.root_fd, "in"));
	assert_true(vfs_link_refused(&sh, sh.root_fd, "out"));
	assert_false(vfs_link_refused(&sh, sh.root_fd, "dangling"));
	sh.follow_symlinks = false;
	assert_true(vfs_link_refused(&sh, sh.root_fd, "in"));
	close(sh.root_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pread_all_counts_short,
						setup, teardown),
		cmocka_unit_test(test_dup_bad_fd),
		cmocka_unit_test_setup_teardown(test_copy_range, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_data_extents_and_zero,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_is_empty, setup,
						teardown),
		cmocka_unit_test(test_ea_remove_absent),
		cmocka_unit_test_setup_teardown(test_link_refused, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
