/*
 * vfs/fruit.c: the AFP_AfpInfo record's rules (fruit:metadata = stream):
 * which writes are a record, zeros in the FinderInfo removing it, reads
 * from the record's start, the size limit, records written by others
 * (wrong size, no signature) that are no stream, and Samba's on-disk
 * layout (the record and a NUL in user.DosStream.AFP_AfpInfo:$DATA).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "testsuite/common/xattr_tmpfile.h"

#include "vfs/fruit.h"

#define X "user.DosStream.AFP_AfpInfo:$DATA"

static int tmp_fd(char *path)
{
	return xattr_tmpfile(path, "test_vfs_fruit");
}

/* What smbtorture's vfs.fruit writes: 'AFP\0', 1.0, backup time 0,
 * "SMB,OLE!" at the start of the FinderInfo. */
static void record(uint8_t rec[VFS_AFPINFO_SIZE], const char *finder)
{
	memset(rec, 0, VFS_AFPINFO_SIZE);
	memcpy(rec, "AFP\0\0\001\0\0", 8);
	memcpy(rec + VFS_AFPINFO_FINDER_OFF, finder, strlen(finder));
}

static void test_names(void **state)
{
	(void)state;
	assert_true(vfs_fruit_afpinfo_xattr(X));
	assert_true(vfs_fruit_afpinfo_xattr("user.DosStream.afp_afpinfo:$DATA"));
	assert_false(vfs_fruit_afpinfo_xattr("user.DosStream.AFP_Resource:$DATA"));
	assert_false(vfs_fruit_afpinfo_xattr(NULL));
}

static void test_valid(void **state)
{
	uint8_t rec[VFS_AFPINFO_SIZE];

	(void)state;
	record(rec, "x");
	assert_true(vfs_afpinfo_valid(rec, sizeof(rec)));
	/* "AFP" alone: the zero padding ends the signature */
	assert_true(vfs_afpinfo_valid(rec, 3));
	assert_false(vfs_afpinfo_valid(rec, 2));
	rec[0] = 'a';
	assert_false(vfs_afpinfo_valid(rec, sizeof(rec)));
	assert_int_equal(vfs_afpinfo_set_eof(61),
			 NT_STATUS_ALLOTTED_SPACE_EXCEEDED);
	assert_int_equal(vfs_afpinfo_set_eof(60), NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_set_eof(0), NT_STATUS_OK);
}

static void test_write_read(void **state)
{
	uint8_t rec[VFS_AFPINFO_SIZE], big[100] = {0}, buf[80], raw[80];
	char path[64];
	size_t got;
	int fd = tmp_fd(path);

	(void)state;
	if (fd == -1) {
		skip();
	}
	/* no record: an empty one reads, and none is on disk */
	assert_int_equal(vfs_afpinfo_pread(fd, X, buf, 60, 0, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 60);
	assert_memory_equal(buf, "AFP\0\0\001\0\0", 8);
	assert_int_equal(vfs_afpinfo_get(fd, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);

	record(rec, "SMB,OLE!");
	/* short writes only at 0; a record needs its signature */
	assert_int_equal(vfs_afpinfo_pwrite(fd, X, rec, 59, 1),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(vfs_afpinfo_pwrite(fd, X, big, 60, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(vfs_afpinfo_pwrite(fd, X, rec, 60, 0), NT_STATUS_OK);
	/* Samba's layout */
	assert_int_equal(fgetxattr(fd, X, raw, sizeof(raw)), 61);
	assert_memory_equal(raw, rec, 60);
	assert_int_equal(raw[60], 0);

	/* from the start at any offset up to 60, nothing past it */
	assert_int_equal(vfs_afpinfo_pread(fd, X, buf, 8, 16, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 8);
	assert_memory_equal(buf, rec, 8);
	assert_int_equal(vfs_afpinfo_pread(fd, X, buf, 80, 0, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 60);
	assert_int_equal(vfs_afpinfo_pread(fd, X, buf, 1, 61, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 0);

	/* 60 bytes or more at any offset: the whole record */
	memcpy(big, rec, 60);
	big[VFS_AFPINFO_FINDER_OFF] = 'T';
	assert_int_equal(vfs_afpinfo_pwrite(fd, X, big, 100, 10000),
			 NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_get(fd, X, rec), NT_STATUS_OK);
	assert_int_equal(rec[VFS_AFPINFO_FINDER_OFF], 'T');

	/* zeros in the FinderInfo remove it */
	record(rec, "");
	assert_int_equal(vfs_afpinfo_pwrite(fd, X, rec, 60, 0), NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, X, raw, sizeof(raw)), -1);
	assert_false(vfs_fruit_stream_hidden(fd, ":Other:$DATA"));
	assert_true(vfs_fruit_stream_hidden(fd, ":AFP_AfpInfo:$DATA"));
	close(fd);
	unlink(path);
}

/* What a share without fruit left: not a record, so no stream. */
static void test_foreign(void **state)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	char path[64];
	int fd = tmp_fd(path);

	(void)state;
	if (fd == -1) {
		skip();
	}
	assert_int_equal(fsetxattr(fd, X, "foo", 4, 0), 0);
	assert_int_equal(vfs_afpinfo_get(fd, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_true(vfs_fruit_stream_hidden(fd, ":afp_afpinfo:$DATA"));
	record(rec, "SMB,OLE!");
	rec[0] = 'B';
	assert_int_equal(fsetxattr(fd, X, rec, sizeof(rec), 0), 0);
	assert_true(vfs_fruit_stream_hidden(fd, ":AFP_AfpInfo:$DATA"));
	/* a valid one set by hand, without the NUL, counts */
	rec[0] = 'A';
	assert_int_equal(fsetxattr(fd, X, rec, sizeof(rec), 0), 0);
	assert_false(vfs_fruit_stream_hidden(fd, ":AFP_AfpInfo:$DATA"));
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_foreign),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
