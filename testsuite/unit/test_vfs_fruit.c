/*
 * vfs/adouble.c: AppleDouble files as macOS writes them (built here byte
 * by byte from the layout in adouble.h), and what the parser refuses.
 * vfs/fruit.c: their conversion into streams, and the AFP_AfpInfo
 * record's rules (fruit:metadata = stream):
 * which writes are a record, zeros in the FinderInfo removing it, reads
 * from the record's start, the size limit, records written by others
 * (wrong size, no signature) that are no stream, and Samba's on-disk
 * layout (the record and a NUL in user.DosStream.AFP_AfpInfo:$DATA);
 * with fruit:metadata = netatalk, the FinderInfo in Netatalk's xattr.
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

#include "vfs/adouble.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/vfs.h"
#include "lib/wire.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <talloc.h>

#define X "user.DosStream.AFP_AfpInfo:$DATA"
#define ST VFS_FRUIT_META_STREAM
#define NA VFS_FRUIT_META_NETATALK

static int tmp_fd(char *path)
{
	return xattr_tmpfile(path, "test_vfs_fruit");
}

/* What smbtorture's vfs.fruit writes: 'AFP\0', version 0x100, backup
 * time 0, "SMB,OLE!" at the start of the FinderInfo. */
static void record(uint8_t rec[VFS_AFPINFO_SIZE], const char *finder)
{
	memset(rec, 0, VFS_AFPINFO_SIZE);
	memcpy(rec, "AFP\0\0\0\001\0", 8);
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
	assert_false(vfs_afpinfo_valid(rec, 7));
	rec[6] = 2;		/* another version */
	assert_false(vfs_afpinfo_valid(rec, sizeof(rec)));
	rec[6] = 1;
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
	assert_int_equal(vfs_afpinfo_pread(fd, ST, X, buf, 60, 0, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 60);
	assert_memory_equal(buf, "AFP\0\0\0\001\0", 8);
	assert_int_equal(vfs_afpinfo_get(fd, ST, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);

	record(rec, "SMB,OLE!");
	/* short writes only at 0; a record needs its signature */
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, rec, 59, 1),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, big, 60, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, rec, 60, 0),
			 NT_STATUS_OK);
	/* Samba's layout */
	assert_int_equal(fgetxattr(fd, X, raw, sizeof(raw)), 61);
	assert_memory_equal(raw, rec, 60);
	assert_int_equal(raw[60], 0);

	/* from the start at any offset up to 60, nothing past it */
	assert_int_equal(vfs_afpinfo_pread(fd, ST, X, buf, 8, 16, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 8);
	assert_memory_equal(buf, rec, 8);
	assert_int_equal(vfs_afpinfo_pread(fd, ST, X, buf, 80, 0, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 60);
	assert_int_equal(vfs_afpinfo_pread(fd, ST, X, buf, 1, 61, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 0);

	/* a short write changes the start of the record: "AFP" alone keeps
	 * version and FinderInfo; "A" alone is no signature */
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, rec, 3, 0),
			 NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_get(fd, ST, X, big), NT_STATUS_OK);
	assert_memory_equal(big, rec, 60);
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, rec, 1, 0),
			 NT_STATUS_INVALID_PARAMETER);
	memset(big, 0, sizeof(big));

	/* 60 bytes or more at any offset: the whole record */
	memcpy(big, rec, 60);
	big[VFS_AFPINFO_FINDER_OFF] = 'T';
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, big, 100, 10000),
			 NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_get(fd, ST, X, rec), NT_STATUS_OK);
	assert_int_equal(rec[VFS_AFPINFO_FINDER_OFF], 'T');

	/* zeros in the FinderInfo remove it */
	record(rec, "");
	assert_int_equal(vfs_afpinfo_pwrite(fd, ST, X, rec, 60, 0),
			 NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, X, raw, sizeof(raw)), -1);
	assert_false(vfs_fruit_stream_hidden(fd, ST, ":Other:$DATA"));
	assert_true(vfs_fruit_stream_hidden(fd, ST, ":AFP_AfpInfo:$DATA"));
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
	assert_int_equal(vfs_afpinfo_get(fd, ST, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_true(vfs_fruit_stream_hidden(fd, ST, ":afp_afpinfo:$DATA"));
	record(rec, "SMB,OLE!");
	rec[0] = 'B';
	assert_int_equal(fsetxattr(fd, X, rec, sizeof(rec), 0), 0);
	assert_true(vfs_fruit_stream_hidden(fd, ST, ":AFP_AfpInfo:$DATA"));
	/* a valid one set by hand, without the NUL, counts */
	rec[0] = 'A';
	assert_int_equal(fsetxattr(fd, X, rec, sizeof(rec), 0), 0);
	assert_false(vfs_fruit_stream_hidden(fd, ST, ":AFP_AfpInfo:$DATA"));
	close(fd);
	unlink(path);
}

/*
 * fruit:metadata = netatalk: the FinderInfo in Netatalk's xattr, 402
 * bytes of AppleDouble as Samba writes it (adouble.h), the record made
 * around it; zeros remove the xattr; a value of another size is none.
 */
static void test_netatalk(void **state)
{
	uint8_t rec[VFS_AFPINFO_SIZE], buf[VFS_AFPINFO_SIZE];
	uint8_t val[VFS_ADOUBLE_META_SIZE + 8], fresh[VFS_ADOUBLE_META_SIZE];
	char path[64];
	size_t got, fo;
	uint64_t size;
	int fd = tmp_fd(path);

	(void)state;
	if (fd == -1) {
		skip();
	}
	assert_int_equal(vfs_afpinfo_get(fd, NA, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_false(vfs_fruit_netatalk_listed(fd, NA));
	record(rec, "SMB,OLE!");
	assert_int_equal(vfs_afpinfo_pwrite(fd, NA, X, rec, 60, 0),
			 NT_STATUS_OK);
	/* no stream xattr: the netatalk one, Samba's layout */
	assert_int_equal(fgetxattr(fd, X, val, sizeof(val)), -1);
	assert_int_equal(fgetxattr(fd, VFS_ADOUBLE_META_XATTR, val,
				   sizeof(val)),
			 VFS_ADOUBLE_META_SIZE);
	assert_memory_equal(val, "\x00\x05\x16\x07\x00\x02\x00\x00", 8);
	assert_int_equal(val[25], 8);
	/* entry 2: Finder Info at 122, 32 bytes */
	assert_memory_equal(val + 26 + 24, "\0\0\0\x09\0\0\0\x7a\0\0\0\x20",
			    12);
	assert_memory_equal(val + 122, "SMB,OLE!", 8);
	/* backup date: never */
	assert_memory_equal(val + 354 + 8, "\x80\0\0\0", 4);
	vfs_adouble_meta_init(fresh, 0);
	assert_memory_equal(val + 26, fresh + 26, 8 * 12);
	assert_int_equal(vfs_adouble_meta_finder(val, VFS_ADOUBLE_META_SIZE,
						 &fo),
			 NT_STATUS_OK);
	assert_int_equal(fo, 122);
	assert_int_equal(vfs_adouble_meta_finder(val, 401, &fo),
			 NT_STATUS_INVALID_PARAMETER);

	assert_int_equal(vfs_afpinfo_pread(fd, NA, X, buf, 60, 0, &got),
			 NT_STATUS_OK);
	assert_int_equal(got, 60);
	assert_memory_equal(buf, "AFP\0\0\0\001\0", 8);
	assert_memory_equal(buf + 16, "SMB,OLE!", 8);
	assert_true(vfs_fruit_netatalk_listed(fd, NA));
	assert_false(vfs_fruit_netatalk_listed(fd, ST));
	assert_int_equal(vfs_afpinfo_size(fd, NA, X, &size), NT_STATUS_OK);
	assert_int_equal(size, 60);
	/* a stream xattr of that name is not listed with netatalk */
	assert_true(vfs_fruit_stream_hidden(fd, NA, ":AFP_AfpInfo:$DATA"));
	assert_false(vfs_fruit_stream_hidden(fd, NA, ":Other:$DATA"));

	/* a short write changes the start of the record; the rest stays */
	assert_int_equal(vfs_afpinfo_pwrite(fd, NA, X, rec, 3, 0),
			 NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_get(fd, NA, X, buf), NT_STATUS_OK);
	assert_memory_equal(buf + 16, "SMB,OLE!", 8);

	/* zeros: no record, no xattr */
	record(rec, "");
	assert_int_equal(vfs_afpinfo_pwrite(fd, NA, X, rec, 60, 0),
			 NT_STATUS_OK);
	assert_int_equal(fgetxattr(fd, VFS_ADOUBLE_META_XATTR, val,
				   sizeof(val)), -1);
	assert_int_equal(vfs_afpinfo_size(fd, NA, X, &size), NT_STATUS_OK);
	assert_int_equal(size, 0);

	/* what another server left: the wrong size is no record */
	assert_int_equal(fsetxattr(fd, VFS_ADOUBLE_META_XATTR, fresh, 100, 0),
			 0);
	assert_int_equal(vfs_afpinfo_get(fd, NA, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	/* delete: the xattr goes */
	fresh[122] = 1;
	assert_int_equal(fsetxattr(fd, VFS_ADOUBLE_META_XATTR, fresh,
				   sizeof(fresh), 0),
			 0);
	assert_int_equal(vfs_afpinfo_get(fd, NA, X, rec), NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_delete(fd, NA, X), NT_STATUS_OK);
	assert_int_equal(vfs_afpinfo_get(fd, NA, X, rec),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	close(fd);
	unlink(path);
}

static void be32_at(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * A ._ file as macOS writes it: Finder Info entry (FinderInfo "TESTSLOW",
 * then the ATTR block with "foo:bar" = "baz" and "x" = "yz"), resource
 * fork "rsrc!" at 300.  Returns its length.
 */
static size_t build_adouble(uint8_t *b)
{
	const size_t fi = 50, attr = fi + 34, rsrc = 300;
	size_t e1 = attr + 36, e2;

	memset(b, 0, 400);
	be32_at(b, 0x00051607);
	be32_at(b + 4, 0x00020000);
	memcpy(b + 8, "Mac OS X        ", 16);
	b[25] = 2;
	be32_at(b + 26, 9);
	be32_at(b + 30, fi);
	be32_at(b + 34, rsrc - fi);
	be32_at(b + 38, 2);
	be32_at(b + 42, rsrc);
	be32_at(b + 46, 5);
	memcpy(b + fi, "TESTSLOW", 8);
	memcpy(b + attr, "ATTR", 4);
	b[attr + 35] = 2;		/* count */
	/* entry 1: "foo:bar" (8 with NUL) at 250, 3 bytes */
	be32_at(b + e1, 250);
	be32_at(b + e1 + 4, 3);
	b[e1 + 10] = 8;
	memcpy(b + e1 + 11, "foo:bar", 8);
	e2 = (e1 + 19 + 3) & ~(size_t)3;
	be32_at(b + e2, 260);
	be32_at(b + e2 + 4, 2);
	b[e2 + 10] = 2;
	memcpy(b + e2 + 11, "x", 2);
	memcpy(b + 250, "baz", 3);
	memcpy(b + 260, "yz", 2);
	memcpy(b + rsrc, "rsrc!", 5);
	return rsrc + 5;
}

static void test_adouble_parse(void **state)
{
	TALLOC_CTX *t = talloc_new(NULL);
	struct vfs_adouble ad;
	uint8_t b[400];
	size_t len = build_adouble(b), i;

	(void)state;
	assert_int_equal(vfs_adouble_parse(t, b, len, &ad), NT_STATUS_OK);
	assert_memory_equal(ad.finder, "TESTSLOW", 8);
	assert_int_equal(ad.rsrc_len, 5);
	assert_memory_equal(ad.rsrc, "rsrc!", 5);
	assert_int_equal(ad.nxattrs, 2);
	assert_string_equal(ad.xattrs[0].name, "foo:bar");
	assert_int_equal(ad.xattrs[0].len, 3);
	assert_memory_equal(ad.xattrs[0].data, "baz", 3);
	assert_string_equal(ad.xattrs[1].name, "x");
	/* every cut of the file is refused or parses inside it */
	for (i = 0; i < len; i++) {
		NTSTATUS st = vfs_adouble_parse(t, b, i, &ad);

		assert_true(st == NT_STATUS_OK ||
			    st == NT_STATUS_INVALID_PARAMETER);
	}
	/* an entry past the end, a name without its NUL, a bad magic */
	be32_at(b + 42, 399);
	assert_int_equal(vfs_adouble_parse(t, b, len, &ad),
			 NT_STATUS_INVALID_PARAMETER);
	build_adouble(b);
	b[50 + 34 + 36 + 11 + 7] = 'X';
	assert_int_equal(vfs_adouble_parse(t, b, len, &ad),
			 NT_STATUS_INVALID_PARAMETER);
	build_adouble(b);
	b[3] = 0;
	assert_int_equal(vfs_adouble_parse(t, b, len, &ad),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(t);
}

/* The conversion: streams of the file, the ._ file gone. */
static void test_adouble_convert(void **state)
{
	char dir[64], p[128], v[80];
	struct vfs_share sh;
	uint8_t b[400];
	size_t len = build_adouble(b);
	int fd, xfd;

	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/test_vfs_fruit_dXXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/f", dir);
	xfd = open(p, O_CREAT | O_RDWR, 0644);
	assert_true(xfd != -1);
	if (fsetxattr(xfd, "user.probe", "x", 1, 0) != 0) {
		close(xfd);
		unlink(p);
		rmdir(dir);
		skip();
	}
	snprintf(p, sizeof(p), "%s/._f", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
	memset(&sh, 0, sizeof(sh));
	sh.root_fd = open(dir, O_PATH | O_DIRECTORY);
	sh.path = dir;
	sh.follow_symlinks = true;
	assert_int_equal(vfs_fruit_convert_adouble(&sh, "f", ST, false, 0),
			 NT_STATUS_OK);
	/* without delete_empty_adfiles the "._" file stays, a bare
	 * header: its FinderInfo zero, no fork (Samba's rule) */
	fd = open(p, O_RDONLY);
	assert_true(fd != -1);
	assert_int_equal(read(fd, b, sizeof(b)), 0x52);
	close(fd);
	assert_memory_equal(b + 0x32, "\0\0\0\0\0\0\0\0", 8);
	assert_int_equal(be32(b + 46), 0);
	assert_int_equal(fgetxattr(xfd, X, v, sizeof(v)), 61);
	assert_memory_equal(v + 16, "TESTSLOW", 8);
	assert_int_equal(fgetxattr(xfd, "user.DosStream.foo\xef\x80\xa2"
				   "bar:$DATA", v, sizeof(v)), 4);
	assert_memory_equal(v, "baz", 4);
	assert_int_equal(fgetxattr(xfd, "user.DosStream.AFP_Resource:$DATA",
				   v, sizeof(v)), 6);
	assert_memory_equal(v, "rsrc!", 6);
	/* nothing to convert now; a ._ name is never converted itself */
	assert_int_equal(vfs_fruit_convert_adouble(&sh, "f", ST, false, 0),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(vfs_fruit_convert_adouble(&sh, "._f", ST, false,
						   VFS_FRUIT_CONV_DELETE_EMPTY),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), 0);
	/* with delete_empty_adfiles a "._" file without a fork goes */
	assert_int_equal(vfs_fruit_convert_adouble(&sh, "f", ST, false,
						   VFS_FRUIT_CONV_DELETE_EMPTY),
			 NT_STATUS_OK);
	assert_int_equal(access(p, F_OK), -1);
	close(sh.root_fd);
	close(xfd);
	snprintf(p, sizeof(p), "%s/f", dir);
	unlink(p);
	rmdir(dir);
}

/* AAPL READ_DIR_ATTR's compressed FinderInfo (fruit.h). */
static void test_finder_compress(void **state)
{
	uint8_t fi[32], out[VFS_FRUIT_DIR_FINDER_SIZE];
	const int64_t y2k = 946684800;

	(void)state;
	memset(fi, 0xee, sizeof(fi));
	memcpy(fi, "TEXTttxt\x41\x02", 10);
	fi[24] = 0x12;
	fi[25] = 0x34;
	vfs_fruit_finder_compress(fi, true, y2k + 0x01020304, out);
	assert_memory_equal(out, "TEXTttxt\x41\x02\x12\x34\x01\x02\x03\x04",
			    16);
	/* a directory: no type and creator */
	vfs_fruit_finder_compress(fi, false, y2k, out);
	assert_memory_equal(out, "\0\0\0\0\0\0\0\0\x41\x02\x12\x34\0\0\0\0",
			    16);
	/* no record: AFP's "no date" */
	vfs_fruit_finder_compress(NULL, true, y2k + 5, out);
	assert_memory_equal(out, "\0\0\0\0\0\0\0\0\0\0\0\0\x80\0\0\0", 16);
	/* past the 32 bits: saturated; before 2000: wrapped (Samba's) */
	vfs_fruit_finder_compress(fi, true, y2k + (INT64_C(1) << 33), out);
	assert_memory_equal(out + 12, "\xff\xff\xff\xff", 4);
	vfs_fruit_finder_compress(fi, true, y2k - 1, out);
	assert_memory_equal(out + 12, "\xff\xff\xff\xff", 4);
	vfs_fruit_finder_compress(fi, true, 0, out);
	assert_memory_equal(out + 12, "\xc7\x92\xbc\x80", 4);
}

/* What a listing reads of an entry: fork size (stream, "._" file) and
 * FinderInfo, each piece only with its option. */
static void test_dir_meta(void **state)
{
	struct vfs_fruit_config c = {.resource = VFS_FRUIT_RSRC_STREAM,
				     .readdir_rsize = true,
				     .readdir_finder_info = true};
	uint8_t rec[VFS_AFPINFO_SIZE + 1] = {0}, hdr[VFS_RSRC_DATA_OFF + 7];
	struct vfs_fruit_dir_meta m;
	char dir[64], p[128];
	int dfd, fd, ad;

	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/test_vfs_fruit_mXXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/f", dir);
	fd = open(p, O_CREAT | O_RDWR, 0644);
	assert_true(fd != -1);
	record(rec, "TEXTttxt");
	if (fsetxattr(fd, X, rec, sizeof(rec), 0) != 0) {
		close(fd);
		unlink(p);
		rmdir(dir);
		skip();
	}
	assert_int_equal(fsetxattr(fd, "user.DosStream.AFP_Resource:$DATA",
				   "foo", 4, 0), 0);
	close(fd);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "f", O_PATH);
	assert_true(dfd != -1 && fd != -1);

	vfs_fruit_dir_meta_get(&c, fd, dfd, "f", true, 946684800 + 7, &m);
	assert_int_equal(m.rfork_size, 3);
	assert_memory_equal(m.finder, "TEXTttxt\0\0\0\0\0\0\0\x07", 16);

	/* fruit:resource = file: the fork of "._f", none without it */
	c.resource = VFS_FRUIT_RSRC_FILE;
	vfs_fruit_dir_meta_get(&c, fd, dfd, "f", true, 0, &m);
	assert_int_equal(m.rfork_size, 0);
	vfs_rsrc_header_init(hdr);
	hdr[VFS_RSRC_DATA_OFF - 33] = 7;	/* the fork entry's length */
	memcpy(hdr + VFS_RSRC_DATA_OFF, "rsrc!!!", 7);
	ad = openat(dfd, "._f", O_CREAT | O_WRONLY, 0644);
	assert_int_equal(write(ad, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	close(ad);
	vfs_fruit_dir_meta_get(&c, fd, dfd, "f", true, 0, &m);
	assert_int_equal(m.rfork_size, 7);

	/* the options off: nothing read, AFP's "no date" */
	c.readdir_rsize = false;
	c.readdir_finder_info = false;
	vfs_fruit_dir_meta_get(&c, fd, dfd, "f", true, 946684800 + 7, &m);
	assert_int_equal(m.rfork_size, 0);
	assert_memory_equal(m.finder, "\0\0\0\0\0\0\0\0\0\0\0\0\x80\0\0\0", 16);
	/* not a file or directory: no fd, nothing */
	c.readdir_rsize = true;
	c.readdir_finder_info = true;
	vfs_fruit_dir_meta_get(&c, -1, dfd, "f", false, 0, &m);
	assert_int_equal(m.rfork_size, 0);
	assert_memory_equal(m.finder + 12, "\x80\0\0\0", 4);

	close(fd);
	unlinkat(dfd, "._f", 0);
	unlinkat(dfd, "f", 0);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_netatalk),
		cmocka_unit_test(test_adouble_parse),
		cmocka_unit_test(test_adouble_convert),
		cmocka_unit_test(test_finder_compress),
		cmocka_unit_test(test_dir_meta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
