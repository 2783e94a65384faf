/*
 * Unit tests: streams in xattrs (vfs/streams.c), Samba's layout: the data
 * plus one trailing NUL in user.DosStream.NAME:$DATA.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <talloc.h>
#include <unistd.h>

#include "testsuite/common/xattr_tmpfile.h"
#include "vfs/streams.h"

static int tmp_fd(char *path)
{
	return xattr_tmpfile(path, "test_streams");
}

static void test_roundtrip(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	char path[64], *x, raw[32], **names;
	uint8_t buf[16];
	uint64_t size, *sizes;
	size_t got, n;
	bool exists;
	int fd = tmp_fd(path);

	if (fd == -1) {
		skip();
	}
	assert_int_equal(vfs_stream_xattr(t, fd, "Bar", &x, &exists),
			 NT_STATUS_OK);
	assert_false(exists);
	assert_string_equal(x, "user.DosStream.Bar:$DATA");
	assert_int_equal(vfs_stream_reset(fd, x), NT_STATUS_OK);
	/* Samba's layout: an empty stream is one NUL byte */
	assert_int_equal(fgetxattr(fd, x, raw, sizeof(raw)), 1);
	assert_int_equal(vfs_stream_pwrite(fd, x, (const uint8_t *)"hello", 5,
					   3),
			 NT_STATUS_OK);
	assert_int_equal(vfs_stream_size(fd, x, &size), NT_STATUS_OK);
	assert_int_equal(size, 8);
	assert_int_equal(fgetxattr(fd, x, raw, sizeof(raw)), 9);
	assert_int_equal(raw[8], 0);
	assert_int_equal(vfs_stream_pread(fd, x, buf, sizeof(buf), 2, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 6);
	assert_memory_equal(buf, "\0hello", 6);
	/* found again without case */
	assert_int_equal(vfs_stream_xattr(t, fd, "bAR", &x, &exists),
			 NT_STATUS_OK);
	assert_true(exists);
	assert_int_equal(vfs_stream_list(t, fd, &names, &sizes, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], ":Bar:$DATA");
	assert_int_equal(sizes[0], 8);
	assert_int_equal(vfs_stream_truncate(fd, x, 2), NT_STATUS_OK);
	assert_int_equal(vfs_stream_size(fd, x, &size), NT_STATUS_OK);
	assert_int_equal(size, 2);
	/* too big for an xattr */
	assert_int_equal(vfs_stream_pwrite(fd, x, buf, 1, 70000),
			 NT_STATUS_DISK_FULL);
	assert_int_equal(vfs_stream_delete(fd, x), NT_STATUS_OK);
	assert_int_equal(vfs_stream_size(fd, x, &size),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	close(fd);
	unlink(path);
	talloc_free(t);
}

/* The stream name back from its xattr; other xattrs are not streams. */
/* An xattr outside user.DosStream. holds its data without the NUL
 * (fruit:resource = xattr's fork). */
static void test_raw_xattr(void **state)
{
	static const char x[] = "user.org.netatalk.ResourceFork";
	char path[64];
	uint8_t buf[16];
	uint64_t size = 99;
	size_t got;
	int fd = tmp_fd(path);

	(void)state;
	if (fd == -1) {
		skip();
	}
	assert_int_equal(vfs_stream_size(fd, x, &size),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(vfs_stream_reset(fd, x), NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, x, buf, sizeof(buf)), 0);
	assert_int_equal(vfs_stream_size(fd, x, &size), NT_STATUS_OK);
	assert_int_equal(size, 0);
	assert_int_equal(vfs_stream_pwrite(fd, x, (const uint8_t *)"ab", 2, 3),
			 NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, x, buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "\0\0\0ab", 5);
	assert_int_equal(vfs_stream_pread(fd, x, buf, sizeof(buf), 3, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 2);
	assert_int_equal(vfs_stream_truncate(fd, x, 4), NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, x, buf, sizeof(buf)), 4);
	assert_int_equal(vfs_stream_size(fd, x, &size), NT_STATUS_OK);
	assert_int_equal(size, 4);
	close(fd);
	unlink(path);
}

static void test_stream_name(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	char *n;

	(void)state;
	n = vfs_stream_name(t, "user.DosStream.sTrEaM3:$DATA");
	assert_non_null(n);
	assert_string_equal(n, "sTrEaM3");
	assert_null(vfs_stream_name(t, "user.DOSATTRIB"));
	assert_null(vfs_stream_name(t, "user.DosStream.:$DATA"));
	assert_null(vfs_stream_name(t, "user.DosStream.x"));
	talloc_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_stream_name),
		cmocka_unit_test(test_raw_xattr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
