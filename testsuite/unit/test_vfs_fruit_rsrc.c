/*
 * vfs/fruit_rsrc.c: fruit:resource = file, the resource fork in the "._"
 * AppleDouble file.  The header parser on buffers built here from the
 * layout (fruit_rsrc.h) and what it refuses; then on a temporary
 * directory: a "._" file made by the first write, sparse writes at a
 * large offset, the header's fork length following the file's size,
 * truncation, a fork that is not the file's last bytes refused, the
 * "._" file following renames and deletes, and the AppleDouble
 * conversion leaving the fork in the "._" file.
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

#include "vfs/fruit.h"
#include "vfs/adouble.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/vfs.h"
#include "lib/wire.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <talloc.h>

static void test_parse(void **state)
{
	uint8_t b[VFS_RSRC_DATA_OFF];
	struct vfs_rsrc_entry e;

	(void)state;
	vfs_rsrc_header_init(b);
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e), NT_STATUS_OK);
	assert_int_equal(e.off, VFS_RSRC_DATA_OFF);
	assert_int_equal(e.len, 0);
	assert_int_equal(e.len_pos, 46);
	/* cut inside the entries */
	assert_int_equal(vfs_rsrc_parse(b, 45, &e),
			 NT_STATUS_INVALID_PARAMETER);
	/* not AppleDouble 2 */
	b[3] = 0;
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e),
			 NT_STATUS_INVALID_PARAMETER);
	vfs_rsrc_header_init(b);
	put_be32(b + 4, 0x00010000);
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e),
			 NT_STATUS_INVALID_PARAMETER);
	/* a fork over the entries */
	vfs_rsrc_header_init(b);
	put_be32(b + 42, 30);
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e),
			 NT_STATUS_INVALID_PARAMETER);
	/* no fork entry: one entry, the Finder Info */
	vfs_rsrc_header_init(b);
	b[25] = 1;
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e),
			 NT_STATUS_INVALID_PARAMETER);
	/* more entries than any file has */
	vfs_rsrc_header_init(b);
	b[24] = 1;
	assert_int_equal(vfs_rsrc_parse(b, sizeof(b), &e),
			 NT_STATUS_INVALID_PARAMETER);
}

struct dir {
	char path[64];
	struct vfs_share sh;
};

static void dir_open(struct dir *d)
{
	char p[128];
	int fd;

	snprintf(d->path, sizeof(d->path), "/var/tmp/test_rsrc_XXXXXX");
	assert_non_null(mkdtemp(d->path));
	snprintf(p, sizeof(p), "%s/f", d->path);
	fd = open(p, O_CREAT | O_RDWR, 0644);
	assert_true(fd != -1);
	close(fd);
	memset(&d->sh, 0, sizeof(d->sh));
	d->sh.root_fd = open(d->path, O_PATH | O_DIRECTORY);
	d->sh.path = d->path;
	d->sh.follow_symlinks = true;
}

static void dir_close(struct dir *d)
{
	char cmd[128];

	close(d->sh.root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->path);
	assert_int_equal(system(cmd), 0);
}

/* The "._f" file of d := b. */
static void write_ad(struct dir *d, const uint8_t *b, size_t len)
{
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/._f", d->path);
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0666);
	assert_true(fd != -1);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

static uint32_t header_len(struct dir *d, const char *name)
{
	char p[128];
	uint8_t b[VFS_RSRC_DATA_OFF];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", d->path, name);
	fd = open(p, O_RDONLY);
	assert_true(fd != -1);
	assert_int_equal(pread(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
	close(fd);
	assert_int_equal(be32(b + 26), 9);
	assert_int_equal(be32(b + 30), 0x32);
	assert_int_equal(be32(b + 34), 32);
	assert_int_equal(be32(b + 38), 2);
	assert_int_equal(be32(b + 42), VFS_RSRC_DATA_OFF);
	return be32(b + 46);
}

static void test_io(void **state)
{
	struct dir d;
	uint8_t buf[16];
	uint64_t size;
	size_t got;
	bool exists;
	int fd;

	(void)state;
	dir_open(&d);
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", false, false, &fd, &exists),
			 NT_STATUS_OK);
	assert_int_equal(fd, -1);
	assert_false(exists);
	assert_int_equal(vfs_rsrc_path_size(&d.sh, "f", &size), NT_STATUS_OK);
	assert_int_equal(size, 0);
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", true, true, &fd, &exists),
			 NT_STATUS_OK);
	assert_true(fd != -1);
	assert_int_equal(header_len(&d, "._f"), 0);
	assert_int_equal(vfs_rsrc_pwrite(fd, (const uint8_t *)"1234567890",
					 10, 10), NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_size(fd, &size), NT_STATUS_OK);
	assert_int_equal(size, 20);
	assert_int_equal(header_len(&d, "._f"), 20);
	assert_int_equal(vfs_rsrc_pread(fd, buf, sizeof(buf), 8, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 12);
	assert_memory_equal(buf, "\0\0" "1234567890", 12);
	/* 64 MiB on: a hole, not 64 MiB of zeros written */
	assert_int_equal(vfs_rsrc_pwrite(fd, (const uint8_t *)"abc", 3,
					 64ULL << 20), NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_path_size(&d.sh, "f", &size), NT_STATUS_OK);
	assert_int_equal(size, (64ULL << 20) + 3);
	assert_int_equal(header_len(&d, "._f"), (64U << 20) + 3);
	assert_int_equal(vfs_rsrc_pread(fd, buf, 3, 64ULL << 20, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 3);
	assert_memory_equal(buf, "abc", 3);
	assert_int_equal(vfs_rsrc_pread(fd, buf, 3, 1ULL << 40, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 0);
	assert_int_equal(vfs_rsrc_truncate(fd, 1), NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_size(fd, &size), NT_STATUS_OK);
	assert_int_equal(size, 1);
	assert_int_equal(header_len(&d, "._f"), 1);
	/* beyond what the header's 32 bits can say */
	assert_int_equal(vfs_rsrc_pwrite(fd, buf, 2, 0xffffffffULL),
			 NT_STATUS_DISK_FULL);
	close(fd);
	/* it exists now: opened, not made again */
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", false, false, &fd, &exists),
			 NT_STATUS_OK);
	assert_true(exists);
	close(fd);
	/* a "._" name has no "._" file */
	assert_int_equal(vfs_rsrc_open(&d.sh, "._f", false, true, &fd,
				       &exists),
			 NT_STATUS_OBJECT_NAME_INVALID);
	dir_close(&d);
}

/* A fork followed by other data is not grown over it. */
static void test_fork_not_last(void **state)
{
	struct dir d;
	uint8_t b[VFS_RSRC_DATA_OFF + 8] = {0};
	char p[128];
	bool exists;
	int fd;

	(void)state;
	dir_open(&d);
	vfs_rsrc_header_init(b);
	put_be32(b + 46, 4);	/* 4 bytes of fork, then 4 of something */
	snprintf(p, sizeof(p), "%s/._f", d.path);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	close(fd);
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", true, false, &fd, &exists),
			 NT_STATUS_OK);	/* at 0x52: ours, the header lagging */
	close(fd);
	put_be32(b + 42, VFS_RSRC_DATA_OFF - 2);
	write_ad(&d, b, sizeof(b));
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", true, false, &fd, &exists),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(fd, -1);
	dir_close(&d);
}

static void test_rename_unlink(void **state)
{
	struct dir d;
	char p[128];
	bool exists;
	int fd;

	(void)state;
	dir_open(&d);
	/* no "._" file: nothing to carry */
	assert_int_equal(vfs_rsrc_rename(&d.sh, "f", "g"), NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_unlink(&d.sh, d.sh.root_fd, "f"),
			 NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_open(&d.sh, "f", true, true, &fd, &exists),
			 NT_STATUS_OK);
	close(fd);
	assert_int_equal(vfs_rsrc_rename(&d.sh, "f", "g"), NT_STATUS_OK);
	snprintf(p, sizeof(p), "%s/._f", d.path);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/._g", d.path);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(vfs_rsrc_unlink(&d.sh, d.sh.root_fd, "g"),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), -1);
	dir_close(&d);
}

/* fruit:resource = file: the conversion moves the FinderInfo into
 * AFP_AfpInfo and leaves the fork, alone, in the "._" file. */
static void test_convert_keeps_fork(void **state)
{
	struct dir d;
	uint8_t b[VFS_RSRC_DATA_OFF + 5];
	char p[128], v[80];
	uint64_t size;
	int fd;

	(void)state;
	dir_open(&d);
	snprintf(p, sizeof(p), "%s/f", d.path);
	fd = open(p, O_RDWR);
	if (fsetxattr(fd, "user.probe", "x", 1, 0) != 0) {
		close(fd);
		dir_close(&d);
		skip();
	}
	vfs_rsrc_header_init(b);
	memcpy(b + 0x32, "TESTSLOW", 8);
	put_be32(b + 46, 5);
	memcpy(b + VFS_RSRC_DATA_OFF, "rsrc!", 5);
	write_ad(&d, b, sizeof(b));
	snprintf(p, sizeof(p), "%s/._f", d.path);
	assert_int_equal(vfs_fruit_convert_adouble(&d.sh, "f",
						   VFS_FRUIT_META_STREAM, true,
						   0),
			 NT_STATUS_OK);
	snprintf(p, sizeof(p), "%s/f", d.path);
	assert_int_equal(getxattr(p, "user.DosStream.AFP_AfpInfo:$DATA", v,
				  sizeof(v)), 61);
	assert_memory_equal(v + 16, "TESTSLOW", 8);
	assert_int_equal(getxattr(p, "user.DosStream.AFP_Resource:$DATA", v,
				  sizeof(v)), -1);
	assert_int_equal(header_len(&d, "._f"), 5);
	assert_int_equal(vfs_rsrc_path_size(&d.sh, "f", &size), NT_STATUS_OK);
	assert_int_equal(size, 5);
	snprintf(p, sizeof(p), "%s/._f", d.path);
	fd = open(p, O_RDONLY);
	assert_int_equal(pread(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
	close(fd);
	assert_memory_equal(b + 0x32, "\0\0\0\0\0\0\0\0", 8);
	assert_memory_equal(b + VFS_RSRC_DATA_OFF, "rsrc!", 5);
	/* a fork alone: nothing more to do, delete_empty_adfiles or not */
	assert_int_equal(vfs_fruit_convert_adouble(&d.sh, "f",
						   VFS_FRUIT_META_STREAM, true,
						   VFS_FRUIT_CONV_DELETE_EMPTY),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), 0);
	dir_close(&d);
}

/* Apple's empty fork as the bytes a Mac writes (smbtorture's vfs.fruit
 * carries them in its "._" file). */
static void blank_fork(uint8_t b[286])
{
	static const char text[] =
		"This resource fork intentionally left blank   ";

	memset(b, 0, 286);
	memcpy(b, "\0\0\x01\0\0\0\x01\0\0\0\0\0\0\0\0\x1e", 16);
	memcpy(b + 16, text, sizeof(text) - 1);
	memcpy(b + 0x100, b, 16);
	memcpy(b + 0x118, "\0\x1c\0\x1e\xff\xff", 6);
}

/*
 * fruit:wipe_intentionally_left_blank_rfork: the blank fork is no fork,
 * so the "._" file is left a bare header, or with delete_empty_adfiles
 * deleted; without the option it is a fork like any other.
 */
static void test_convert_blank_fork(void **state)
{
	struct dir d;
	uint8_t b[VFS_RSRC_DATA_OFF + 286];
	char p[128];
	struct stat sb;
	uint64_t size;

	(void)state;
	blank_fork(b + VFS_RSRC_DATA_OFF);
	assert_true(vfs_adouble_rsrc_blank(b + VFS_RSRC_DATA_OFF, 286));
	assert_false(vfs_adouble_rsrc_blank(b + VFS_RSRC_DATA_OFF, 285));
	assert_false(vfs_adouble_rsrc_blank(NULL, 0));
	b[VFS_RSRC_DATA_OFF + 20]++;
	assert_false(vfs_adouble_rsrc_blank(b + VFS_RSRC_DATA_OFF, 286));
	b[VFS_RSRC_DATA_OFF + 20]--;
	dir_open(&d);
	vfs_rsrc_header_init(b);
	put_be32(b + 46, 286);
	write_ad(&d, b, sizeof(b));
	snprintf(p, sizeof(p), "%s/._f", d.path);
	assert_int_equal(vfs_fruit_convert_adouble(&d.sh, "f",
						   VFS_FRUIT_META_STREAM, true,
						   VFS_FRUIT_CONV_DELETE_EMPTY),
			 NT_STATUS_OK);
	assert_int_equal(vfs_rsrc_path_size(&d.sh, "f", &size), NT_STATUS_OK);
	assert_int_equal(size, 286);
	assert_int_equal(vfs_fruit_convert_adouble(&d.sh, "f",
						   VFS_FRUIT_META_STREAM, true,
						   VFS_FRUIT_CONV_WIPE_BLANK),
			 NT_STATUS_OK);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, VFS_RSRC_DATA_OFF);
	assert_int_equal(header_len(&d, "._f"), 0);
	write_ad(&d, b, sizeof(b));
	assert_int_equal(vfs_fruit_convert_adouble(
				 &d.sh, "f", VFS_FRUIT_META_STREAM, true,
				 VFS_FRUIT_CONV_WIPE_BLANK |
					 VFS_FRUIT_CONV_DELETE_EMPTY),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), -1);
	dir_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_io),
		cmocka_unit_test(test_fork_not_last),
		cmocka_unit_test(test_rename_unlink),
		cmocka_unit_test(test_convert_keeps_fork),
		cmocka_unit_test(test_convert_blank_fork),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
