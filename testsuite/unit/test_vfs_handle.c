/*
 * Unit tests: the per-handle data ops (vfs/handle.h).  The module a
 * stream handle gets (vfs_stream_handle_pick), and the same calls
 * (vfs_pread, vfs_pwrite, sizes, truncate, allocate, remove) through
 * the posix, streams_xattr and fruit AfpInfo tables over a scratch
 * file and its xattrs, with the results READ, WRITE, SET_INFO and CLOSE
 * answered before the tables (a stream's failed read is an I/O error).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <talloc.h>
#include <unistd.h>

#include "testsuite/common/xattr_tmpfile.h"
#include "vfs/handle.h"
#include "vfs/fault.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/stream_policy.h"
#include "vfs/streams.h"

#define XA "user.DosStream.Bar:$DATA"
#define AFPINFO "user.DosStream.AFP_AfpInfo:$DATA"
#define RSRC "user.DosStream.AFP_Resource:$DATA"

static const struct vfs_handle_ops *pick(bool fruit, enum vfs_fruit_meta meta,
					 enum vfs_fruit_rsrc rsrc,
					 const char *xattr, int *mode)
{
	struct vfs_stream_policy p = {.active = fruit, .meta = (int)meta,
				      .rsrc = (int)rsrc};

	return vfs_stream_handle_pick(&p, xattr, mode);
}

static void test_pick(void **state)
{
	const struct vfs_handle_ops *o;
	int mode = -1;

	(void)state;
	/* without fruit every stream is streams_xattr's */
	o = pick(false, VFS_FRUIT_META_NONE,
				   VFS_FRUIT_RSRC_FILE, AFPINFO, &mode);
	assert_ptr_equal(o, &vfs_stream_handle_ops);
	assert_int_equal(mode, VFS_FRUIT_META_NONE);
	o = pick(false, VFS_FRUIT_META_NONE,
				   VFS_FRUIT_RSRC_FILE, RSRC, &mode);
	assert_ptr_equal(o, &vfs_stream_handle_ops);
	assert_int_equal(o->flags, 0);
	/* fruit's AfpInfo, matched without case, keeps the share's mode */
	o = pick(true, VFS_FRUIT_META_NETATALK,
				   VFS_FRUIT_RSRC_FILE,
				   "user.DosStream.afp_afpinfo:$DATA", &mode);
	assert_ptr_not_equal(o, &vfs_stream_handle_ops);
	assert_int_equal(mode, VFS_FRUIT_META_NETATALK);
	assert_int_equal(o->flags & VFS_HANDLE_IGNORE_DELETE_ON_CLOSE, 0);
	/* AFP_Resource: the "._" file, or a stream; delete-on-close never */
	o = pick(true, VFS_FRUIT_META_STREAM,
				   VFS_FRUIT_RSRC_FILE, RSRC, &mode);
	assert_ptr_equal(o, &vfs_rsrc_handle_ops);
	assert_int_equal(mode, VFS_FRUIT_META_NONE);
	assert_true(o->flags & VFS_HANDLE_IGNORE_DELETE_ON_CLOSE);
	o = pick(true, VFS_FRUIT_META_STREAM,
				   VFS_FRUIT_RSRC_XATTR, RSRC, &mode);
	assert_ptr_not_equal(o, &vfs_rsrc_handle_ops);
	assert_ptr_not_equal(o, &vfs_stream_handle_ops);
	assert_true(o->flags & VFS_HANDLE_IGNORE_DELETE_ON_CLOSE);
	/* any other stream on a fruit share */
	o = pick(true, VFS_FRUIT_META_STREAM,
				   VFS_FRUIT_RSRC_FILE, XA, &mode);
	assert_ptr_equal(o, &vfs_stream_handle_ops);
	/* only the file's own data may take the loop thread's paths */
	assert_true(vfs_posix_handle_ops.flags & VFS_HANDLE_FD_DATA);
	assert_int_equal(vfs_stream_handle_ops.flags & VFS_HANDLE_FD_DATA, 0);
	assert_int_equal(vfs_rsrc_handle_ops.flags & VFS_HANDLE_FD_DATA, 0);
}

static void test_posix(void **state)
{
	struct vfs_handle h;
	char path[64];
	uint8_t buf[16];
	uint64_t size;
	size_t n;
	int fd = xattr_tmpfile(path, "test_vfs_handle");

	(void)state;
	if (fd == -1) {
		skip();
	}
	vfs_handle_init(&h, fd);
	assert_int_equal(vfs_pwrite(&h, (const uint8_t *)"hello", 5, 2, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 5);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 7);
	/* a read past the end stops there, not an error */
	assert_int_equal(vfs_pread(&h, buf, sizeof(buf), 1, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 6);
	assert_memory_equal(buf, "\0hello", 6);
	/* allocation above the end reserves nothing, below truncates */
	assert_int_equal(vfs_handle_allocate(&h, 100), NT_STATUS_OK);
	assert_int_equal(vfs_handle_info_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 7);
	assert_int_equal(vfs_handle_allocate(&h, 4), NT_STATUS_OK);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 4);
	assert_int_equal(vfs_handle_set_size(&h, 10), NT_STATUS_OK);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 10);
	assert_int_equal(vfs_handle_sync(&h, true), NT_STATUS_OK);
	/* an injected read fault is the mapped errno, from the op */
	{
		struct vfs_fault_table t;
		char err[128];

		assert_true(vfs_fault_parse("read:EIO:test_vfs_handle:1", &t,
					    err, sizeof(err)));
		vfs_fault_arm(&t);
		assert_int_equal(vfs_pread(&h, buf, 4, 0, &n),
				 NT_STATUS_IO_DEVICE_ERROR);
		assert_int_equal(n, 0);
		vfs_fault_arm(NULL);
	}
	vfs_handle_close(&h);
	assert_int_equal(h.fd, -1);
	unlink(path);
}

static void test_stream(void **state)
{
	struct vfs_handle h;
	char path[64];
	uint8_t buf[16];
	uint64_t size;
	size_t n;
	int fd = xattr_tmpfile(path, "test_vfs_handle");
	int mode;

	(void)state;
	if (fd == -1) {
		skip();
	}
	h.fd = fd;
	h.xattr = XA;
	h.ops = pick(false, VFS_FRUIT_META_NONE,
				       VFS_FRUIT_RSRC_FILE, XA, &mode);
	h.mode = mode;
	/* no such stream yet: READ's answer is an I/O error */
	assert_int_equal(vfs_pread(&h, buf, 4, 0, &n),
			 NT_STATUS_IO_DEVICE_ERROR);
	assert_int_equal(vfs_stream_reset(fd, XA), NT_STATUS_OK);
	assert_int_equal(vfs_pwrite(&h, (const uint8_t *)"abc", 3, 1, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 3);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 4);
	assert_int_equal(vfs_pread(&h, buf, sizeof(buf), 0, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "\0abc", 4);
	/* the file's own data is left alone */
	{
		struct stat sb;

		assert_int_equal(fstat(fd, &sb), 0);
		assert_int_equal(sb.st_size, 0);
	}
	assert_int_equal(vfs_handle_set_size(&h, 2), NT_STATUS_OK);
	assert_int_equal(vfs_handle_info_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 2);
	assert_int_equal(vfs_handle_remove(&h), NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, XA, buf, sizeof(buf)), -1);
	close(fd);
	unlink(path);
}

static void test_afpinfo(void **state)
{
	struct vfs_handle h;
	char path[64];
	uint8_t rec[VFS_AFPINFO_SIZE] = {'A', 'F', 'P', 0, 0, 0, 1, 0};
	uint8_t buf[VFS_AFPINFO_SIZE];
	uint64_t size;
	size_t n;
	int fd = xattr_tmpfile(path, "test_vfs_handle");
	int mode;

	(void)state;
	if (fd == -1) {
		skip();
	}
	h.fd = fd;
	h.xattr = AFPINFO;
	h.ops = pick(true, VFS_FRUIT_META_STREAM,
				       VFS_FRUIT_RSRC_FILE, AFPINFO, &mode);
	h.mode = mode;
	/* the record's size for QUERY_INFO, written or not; CLOSE's is
	 * what is kept */
	assert_int_equal(vfs_handle_info_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, VFS_AFPINFO_SIZE);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 0);
	/* the record's rules come from fruit, its refusals as they are */
	assert_int_equal(vfs_pwrite(&h, (const uint8_t *)"xyz", 3, 0, &n),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(n, 0);
	rec[VFS_AFPINFO_FINDER_OFF] = 'T';
	assert_int_equal(vfs_pwrite(&h, rec, sizeof(rec), 0, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, sizeof(rec));
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, VFS_AFPINFO_SIZE);
	assert_int_equal(vfs_pread(&h, buf, sizeof(buf), 0, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, VFS_AFPINFO_SIZE);
	assert_memory_equal(buf, rec, sizeof(rec));
	assert_int_equal(vfs_handle_set_size(&h, 61),
			 NT_STATUS_ALLOTTED_SPACE_EXCEEDED);
	assert_int_equal(vfs_handle_set_size(&h, 0), NT_STATUS_OK);
	assert_int_equal(vfs_handle_remove(&h), NT_STATUS_OK);
	assert_int_equal(vfs_handle_size(&h, &size), NT_STATUS_OK);
	assert_int_equal(size, 0);
	close(fd);
	unlink(path);
}

/* CREATE's side of the stream modules: whether the stream is there and
 * where it is kept. */
static void test_stream_open(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct vfs_handle h;
	char path[64], *x;
	uint64_t size;
	bool exists;
	int fd = xattr_tmpfile(path, "test_vfs_handle");
	int aux = -1, mode;

	(void)state;
	if (fd == -1) {
		talloc_free(t);
		skip();
	}
	/* fruit:resource = xattr: Netatalk's fork xattr, there once set */
	x = talloc_strdup(t, RSRC);
	h.fd = fd;
	h.xattr = x;
	h.ops = pick(true, VFS_FRUIT_META_STREAM,
				       VFS_FRUIT_RSRC_XATTR, x, &mode);
	h.mode = mode;
	exists = true;
	assert_int_equal(h.ops->stream_open(t, &h, NULL, "f", false, &aux, &x,
					    &exists),
			 NT_STATUS_OK);
	assert_string_equal(x, VFS_RSRC_XATTR);
	assert_false(exists);
	assert_int_equal(fsetxattr(fd, VFS_RSRC_XATTR, "ab", 2, 0), 0);
	assert_int_equal(h.ops->stream_open(t, &h, NULL, "f", false, &aux, &x,
					    &exists),
			 NT_STATUS_OK);
	assert_true(exists);
	h.xattr = x;
	assert_int_equal(h.ops->stream_opened(&h, &aux, &size), NT_STATUS_OK);
	assert_int_equal(size, 2);	/* no NUL of streams_xattr's */
	assert_int_equal(h.fd, fd);
	/* AFP_AfpInfo whose xattr holds no valid record is not there */
	assert_int_equal(fsetxattr(fd, AFPINFO, "junk", 5, 0), 0);
	x = talloc_strdup(t, AFPINFO);
	h.xattr = x;
	h.ops = pick(true, VFS_FRUIT_META_STREAM,
				       VFS_FRUIT_RSRC_FILE, x, &mode);
	h.mode = mode;
	exists = true;
	assert_int_equal(h.ops->stream_open(t, &h, NULL, "f", false, &aux, &x,
					    &exists),
			 NT_STATUS_OK);
	assert_false(exists);
	assert_int_equal(aux, -1);
	close(fd);
	unlink(path);
	talloc_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_posix),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_afpinfo),
		cmocka_unit_test(test_stream_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
