/*
 * Unit tests for smbd/wire/fscc.c (MS-FSCC information classes).
 *
 * Expected bytes are built here by hand, field by field at the offsets of
 * the MS-FSCC tables, with this file's own little-endian helpers (not
 * lib/wire.h's), so a wrong offset or width in fscc.c shows up as a
 * mismatch.  Also: the truncation rules (fixed part too small, names cut
 * with STATUS_BUFFER_OVERFLOW, whole stream entries), 8-byte alignment
 * and NextEntryOffset chaining of directory entries, and every SET_INFO
 * decoder's length checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/wire/fscc.h"

/* ---- helpers ---- */

static void s16(uint8_t *p, size_t off, uint16_t v)
{
	p[off] = (uint8_t)(v & 0xff);
	p[off + 1] = (uint8_t)(v >> 8);
}

static void s32(uint8_t *p, size_t off, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++) {
		p[off + i] = (uint8_t)(v >> (8 * i));
	}
}

static void s64(uint8_t *p, size_t off, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		p[off + i] = (uint8_t)(v >> (8 * i));
	}
}

static uint32_t g32(const uint8_t *p, size_t off)
{
	return (uint32_t)p[off] | ((uint32_t)p[off + 1] << 8) |
	       ((uint32_t)p[off + 2] << 16) | ((uint32_t)p[off + 3] << 24);
}

/* ASCII to UTF-16LE at p; returns the byte count. */
static size_t a16(uint8_t *p, const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		p[n++] = (uint8_t)*s;
		p[n++] = 0;
	}
	return n;
}

static struct vfs_file_info test_fi(void)
{
	struct vfs_file_info fi;

	memset(&fi, 0, sizeof(fi));
	fi.create_time = UINT64_C(0x0102030405060708);
	fi.access_time = UINT64_C(0x1112131415161718);
	fi.write_time = UINT64_C(0x2122232425262728);
	fi.change_time = UINT64_C(0x3132333435363738);
	fi.allocation_size = 8192;
	fi.end_of_file = 1234;
	fi.attributes = FILE_ATTRIBUTE_ARCHIVE;
	fi.nlink = 3;
	fi.file_id = UINT64_C(0xAABBCCDD11223344);
	fi.delete_pending = true;
	return fi;
}

static void expect_basic(uint8_t *e, size_t off, uint32_t attrs)
{
	s64(e, off + 0, UINT64_C(0x0102030405060708));
	s64(e, off + 8, UINT64_C(0x1112131415161718));
	s64(e, off + 16, UINT64_C(0x2122232425262728));
	s64(e, off + 24, UINT64_C(0x3132333435363738));
	s32(e, off + 32, attrs);
}

static void expect_standard(uint8_t *e, size_t off)
{
	s64(e, off + 0, 8192);
	s64(e, off + 8, 1234);
	s32(e, off + 16, 3);
	e[off + 20] = 1; /* DeletePending */
	e[off + 21] = 0; /* Directory */
}

struct qi {
	TALLOC_CTX *mem;
	struct wire_buf out;
	NTSTATUS status;
};

static void qi_file(struct qi *q, uint8_t cls, const struct fscc_file_ctx *c,
		    uint32_t max_len)
{
	q->mem = talloc_new(NULL);
	wire_buf_init(&q->out, q->mem, 0);
	q->status = fscc_file_info_push(&q->out, cls, c, max_len);
}

static void qi_fs(struct qi *q, uint8_t cls, const struct fscc_fs_ctx *c,
		  uint32_t max_len)
{
	q->mem = talloc_new(NULL);
	wire_buf_init(&q->out, q->mem, 0);
	q->status = fscc_fs_info_push(&q->out, cls, c, max_len);
}

static void qi_check(struct qi *q, NTSTATUS status, const uint8_t *exp,
		     size_t exp_len)
{
	assert_int_equal(q->status, status);
	assert_int_equal(q->out.len, exp_len);
	if (exp_len > 0) {
		assert_memory_equal(q->out.data, exp, exp_len);
	}
	talloc_free(q->mem);
}

/* A fixed-size class: exact bytes at its size, INFO_LENGTH_MISMATCH and
 * nothing appended one byte short, the same bytes with room to spare. */
static void check_fixed_file(uint8_t cls, const struct fscc_file_ctx *c,
			     const uint8_t *exp, size_t size)
{
	struct qi q;

	qi_file(&q, cls, c, (uint32_t)size);
	qi_check(&q, NT_STATUS_OK, exp, size);
	qi_file(&q, cls, c, (uint32_t)size - 1);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
	qi_file(&q, cls, c, 65536);
	qi_check(&q, NT_STATUS_OK, exp, size);
}

static void check_fixed_fs(uint8_t cls, const struct fscc_fs_ctx *c,
			   const uint8_t *exp, size_t size)
{
	struct qi q;

	qi_fs(&q, cls, c, (uint32_t)size);
	qi_check(&q, NT_STATUS_OK, exp, size);
	qi_fs(&q, cls, c, (uint32_t)size - 1);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
	qi_fs(&q, cls, c, 0);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
}

/* ---- QUERY_INFO file classes ---- */

static void test_file_fixed(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_file_ctx c = {.fi = &fi};
	uint8_t e[64];

	(void)state;
	c.access_mask = 0x001F01FF;
	c.position = UINT64_C(0x0000000100000002);
	c.mode = 0x00000010;
	c.ea_size = 77;
	c.reparse_tag = 0xA000000C;
	c.volume_serial = UINT64_C(0x5566778899AABBCC);

	/* FileBasicInformation: 4 times, attributes, reserved */
	memset(e, 0, sizeof(e));
	expect_basic(e, 0, FILE_ATTRIBUTE_ARCHIVE);
	check_fixed_file(FSCC_FILE_BASIC_INFORMATION, &c, e, 40);

	/* FileStandardInformation */
	memset(e, 0, sizeof(e));
	expect_standard(e, 0);
	check_fixed_file(FSCC_FILE_STANDARD_INFORMATION, &c, e, 24);

	/* FileInternalInformation: IndexNumber */
	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0xAABBCCDD11223344));
	check_fixed_file(FSCC_FILE_INTERNAL_INFORMATION, &c, e, 8);

	memset(e, 0, sizeof(e));
	s32(e, 0, 77);
	check_fixed_file(FSCC_FILE_EA_INFORMATION, &c, e, 4);

	memset(e, 0, sizeof(e));
	s32(e, 0, 0x001F01FF);
	check_fixed_file(FSCC_FILE_ACCESS_INFORMATION, &c, e, 4);

	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0x0000000100000002));
	check_fixed_file(FSCC_FILE_POSITION_INFORMATION, &c, e, 8);

	memset(e, 0, sizeof(e));
	s32(e, 0, 0x10);
	check_fixed_file(FSCC_FILE_MODE_INFORMATION, &c, e, 4);

	memset(e, 0, sizeof(e));
	check_fixed_file(FSCC_FILE_ALIGNMENT_INFORMATION, &c, e, 4);

	/* FileCompressionInformation: size, format NONE, shifts 0 */
	memset(e, 0, sizeof(e));
	s64(e, 0, 1234);
	check_fixed_file(FSCC_FILE_COMPRESSION_INFORMATION, &c, e, 16);

	/* FileNetworkOpenInformation */
	memset(e, 0, sizeof(e));
	expect_basic(e, 0, 0);
	s64(e, 32, 8192);
	s64(e, 40, 1234);
	s32(e, 48, FILE_ATTRIBUTE_ARCHIVE);
	check_fixed_file(FSCC_FILE_NETWORK_OPEN_INFORMATION, &c, e, 56);

	/* FileAttributeTagInformation */
	memset(e, 0, sizeof(e));
	s32(e, 0, FILE_ATTRIBUTE_ARCHIVE);
	s32(e, 4, 0xA000000C);
	check_fixed_file(FSCC_FILE_ATTRIBUTE_TAG_INFORMATION, &c, e, 8);

	/* FileIdInformation: VolumeSerialNumber (8), FileId (16) */
	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0x5566778899AABBCC));
	s64(e, 8, UINT64_C(0xAABBCCDD11223344));
	check_fixed_file(FSCC_FILE_ID_INFORMATION, &c, e, 24);
}

static void test_file_attributes(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_file_ctx c = {.fi = &fi};
	struct qi q;

	(void)state;
	/* none -> NORMAL */
	fi.attributes = 0;
	qi_file(&q, FSCC_FILE_ATTRIBUTE_TAG_INFORMATION, &c, 8);
	assert_int_equal(g32(q.out.data, 0), FILE_ATTRIBUTE_NORMAL);
	talloc_free(q.mem);
	/* NORMAL never with others */
	fi.attributes = FILE_ATTRIBUTE_NORMAL | FILE_ATTRIBUTE_HIDDEN;
	qi_file(&q, FSCC_FILE_ATTRIBUTE_TAG_INFORMATION, &c, 8);
	assert_int_equal(g32(q.out.data, 0), FILE_ATTRIBUTE_HIDDEN);
	talloc_free(q.mem);
	/* a directory always says so */
	fi.attributes = 0;
	fi.is_dir = true;
	qi_file(&q, FSCC_FILE_ATTRIBUTE_TAG_INFORMATION, &c, 8);
	assert_int_equal(g32(q.out.data, 0), FILE_ATTRIBUTE_DIRECTORY);
	talloc_free(q.mem);
	/* and Standard's Directory byte */
	qi_file(&q, FSCC_FILE_STANDARD_INFORMATION, &c, 24);
	assert_int_equal(q.out.data[21], 1);
	talloc_free(q.mem);
}

static void test_file_names(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_file_ctx c = {.fi = &fi, .name = "dir\\f.txt"};
	uint8_t e[64];
	size_t n;
	struct qi q;

	(void)state;
	memset(e, 0, sizeof(e));
	n = a16(e + 4, "dir\\f.txt");
	s32(e, 0, (uint32_t)n);
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 4 + n);
	qi_check(&q, NT_STATUS_OK, e, 4 + n);
	qi_file(&q, FSCC_FILE_NORMALIZED_NAME_INFORMATION, &c, 1000);
	qi_check(&q, NT_STATUS_OK, e, 4 + n);
	/* cut: the fixed part, as much name as fits, the full length */
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 4 + 7);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 4 + 7);
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 4);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 4);
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 3);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);

	/* non-ASCII: U+00E9, U+20AC and U+1F600 (a surrogate pair) */
	c.name = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	memset(e, 0, sizeof(e));
	s32(e, 0, 8);
	s16(e, 4, 0x00e9);
	s16(e, 6, 0x20ac);
	s16(e, 8, 0xd83d);
	s16(e, 10, 0xde00);
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 100);
	qi_check(&q, NT_STATUS_OK, e, 12);
	/* invalid UTF-8 is refused, nothing appended */
	c.name = "\xff";
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 100);
	qi_check(&q, NT_STATUS_INVALID_PARAMETER, NULL, 0);
	/* empty name */
	c.name = NULL;
	memset(e, 0, sizeof(e));
	qi_file(&q, FSCC_FILE_NAME_INFORMATION, &c, 100);
	qi_check(&q, NT_STATUS_OK, e, 4);

	/* FileAlternateNameInformation */
	qi_file(&q, FSCC_FILE_ALTERNATE_NAME_INFORMATION, &c, 100);
	qi_check(&q, NT_STATUS_OBJECT_NAME_NOT_FOUND, NULL, 0);
	c.short_name = "FOO~1.TXT";
	n = a16(e + 4, "FOO~1.TXT");
	s32(e, 0, (uint32_t)n);
	qi_file(&q, FSCC_FILE_ALTERNATE_NAME_INFORMATION, &c, 100);
	qi_check(&q, NT_STATUS_OK, e, 4 + n);
}

static void test_file_all(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_file_ctx c = {.fi = &fi, .name = "\\a\\b"};
	uint8_t e[160];
	size_t n;
	struct qi q;

	(void)state;
	c.access_mask = 0x00120089;
	c.position = 99;
	c.mode = 0x20;
	c.ea_size = 5;
	memset(e, 0, sizeof(e));
	expect_basic(e, 0, FILE_ATTRIBUTE_ARCHIVE); /* 0..40 */
	expect_standard(e, 40);			    /* 40..64 */
	s64(e, 64, UINT64_C(0xAABBCCDD11223344));   /* Internal */
	s32(e, 72, 5);				    /* Ea */
	s32(e, 76, 0x00120089);			    /* Access */
	s64(e, 80, 99);				    /* Position */
	s32(e, 88, 0x20);			    /* Mode */
	s32(e, 92, 0);				    /* Alignment */
	n = a16(e + 100, "\\a\\b");
	s32(e, 96, (uint32_t)n); /* Name */
	qi_file(&q, FSCC_FILE_ALL_INFORMATION, &c, 100 + n);
	qi_check(&q, NT_STATUS_OK, e, 100 + n);
	qi_file(&q, FSCC_FILE_ALL_INFORMATION, &c, 102);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 102);
	qi_file(&q, FSCC_FILE_ALL_INFORMATION, &c, 100);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 100);
	qi_file(&q, FSCC_FILE_ALL_INFORMATION, &c, 99);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
}

static void test_file_streams(void **state)
{
	struct vfs_file_info fi = test_fi();
	static const char *const names[] = {"::$DATA", ":ab:$DATA",
					    ":x:$DATA"};
	static const uint64_t sizes[] = {1234, 5, 70000};
	static const uint64_t allocs[] = {8192, 4096, 73728};
	struct fscc_file_ctx c = {.fi = &fi};
	uint8_t e[256];
	size_t n, off2, off3, len1, len2, len3;
	struct qi q;

	(void)state;
	/* default stream of a file */
	memset(e, 0, sizeof(e));
	n = a16(e + 24, "::$DATA");
	s32(e, 4, (uint32_t)n);
	s64(e, 8, 1234);
	s64(e, 16, 8192);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 1000);
	qi_check(&q, NT_STATUS_OK, e, 24 + n);
	/* below sizeof(FILE_STREAM_INFORMATION) = 32 (MS-FSA 2.1.5.12.29) */
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 31);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
	/* room for the header but not the whole name: no whole entry */
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 37);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, NULL, 0);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 38);
	qi_check(&q, NT_STATUS_OK, e, 38);

	/* a directory has none */
	fi.is_dir = true;
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 1000);
	qi_check(&q, NT_STATUS_OK, NULL, 0);
	fi.is_dir = false;

	/* three streams, 8-aligned, chained */
	c.nstreams = 3;
	c.stream_names = names;
	c.stream_sizes = sizes;
	c.stream_alloc = allocs;
	memset(e, 0, sizeof(e));
	len1 = 24 + 14;				/* "::$DATA" */
	off2 = 40;				/* 38 -> 40 */
	len2 = 24 + 18;				/* ":ab:$DATA" */
	off3 = off2 + 48;			/* 82 -> 88 */
	len3 = 24 + 16;				/* ":x:$DATA" */
	s32(e, 0, (uint32_t)off2);
	s32(e, 4, (uint32_t)a16(e + 24, "::$DATA"));
	s64(e, 8, 1234);
	s64(e, 16, 8192);
	s32(e, off2, (uint32_t)(off3 - off2));
	s32(e, off2 + 4, (uint32_t)a16(e + off2 + 24, ":ab:$DATA"));
	s64(e, off2 + 8, 5);
	s64(e, off2 + 16, 4096);
	s32(e, off3 + 4, (uint32_t)a16(e + off3 + 24, ":x:$DATA"));
	s64(e, off3 + 8, 70000);
	s64(e, off3 + 16, 73728);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 1000);
	qi_check(&q, NT_STATUS_OK, e, off3 + len3);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, (uint32_t)(off3 + len3));
	qi_check(&q, NT_STATUS_OK, e, off3 + len3);
	/* one byte short: the last entry is dropped, the second one's
	 * NextEntryOffset stays 0 */
	s32(e, off2, 0);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c,
		(uint32_t)(off3 + len3 - 1));
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, off2 + len2);
	s32(e, 0, 0);
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, (uint32_t)len1 + 1);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, len1);
	/* no allocation sizes given: the sizes are used */
	c.nstreams = 1;
	c.stream_alloc = NULL;
	qi_file(&q, FSCC_FILE_STREAM_INFORMATION, &c, 1000);
	assert_int_equal(q.status, NT_STATUS_OK);
	assert_int_equal(g32(q.out.data, 16), 1234);
	talloc_free(q.mem);
}

static void test_file_classes(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_file_ctx c = {.fi = &fi};
	static const uint8_t not_supported[] = {
		FSCC_FILE_DIRECTORY_INFORMATION,
		FSCC_FILE_RENAME_INFORMATION,
		FSCC_FILE_FULL_EA_INFORMATION,
		23, /* FilePipeInformation */
		FSCC_FILE_END_OF_FILE_INFORMATION,
		46, /* FileHardLinkInformation */
		FSCC_FILE_ID_ALL_EXTD_DIRECTORY_INFORMATION,
	};
	static const uint8_t invalid[] = {0, 41, 47, 58, 82, 255};
	size_t i;
	struct qi q;

	(void)state;
	for (i = 0; i < sizeof(not_supported); i++) {
		qi_file(&q, not_supported[i], &c, 1000);
		qi_check(&q, NT_STATUS_NOT_SUPPORTED, NULL, 0);
	}
	for (i = 0; i < sizeof(invalid); i++) {
		qi_file(&q, invalid[i], &c, 1000);
		qi_check(&q, NT_STATUS_INVALID_INFO_CLASS, NULL, 0);
	}
	/* no file info at all: zeros, no crash */
	c.fi = NULL;
	qi_file(&q, FSCC_FILE_BASIC_INFORMATION, &c, 1000);
	assert_int_equal(q.status, NT_STATUS_OK);
	talloc_free(q.mem);
}

/* ---- QUERY_INFO file system classes ---- */

static struct fscc_fs_ctx test_fs(void)
{
	struct fscc_fs_ctx fs;
	int i;

	memset(&fs, 0, sizeof(fs));
	fs.total_units = UINT64_C(0x0000000200000001);
	fs.free_units = 1000;
	fs.caller_free_units = 900;
	fs.sectors_per_unit = 8;
	fs.bytes_per_sector = 512;
	fs.volume_label = "share";
	fs.volume_serial = 0xDEADBEEF;
	fs.volume_create_time = UINT64_C(0x01D9000000000000);
	fs.fs_name = "NTFS";
	fs.fs_attributes = 0x0000008F;
	fs.max_name_len = 255;
	fs.device_characteristics = FSCC_FILE_DEVICE_IS_MOUNTED;
	for (i = 0; i < 16; i++) {
		fs.object_id[i] = (uint8_t)(0xA0 + i);
	}
	return fs;
}

static void test_fs_fixed(void **state)
{
	struct fscc_fs_ctx fs = test_fs();
	uint8_t e[64];
	int i;

	(void)state;
	/* FileFsSizeInformation */
	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0x0000000200000001));
	s64(e, 8, 900);
	s32(e, 16, 8);
	s32(e, 20, 512);
	check_fixed_fs(FSCC_FS_SIZE_INFORMATION, &fs, e, 24);

	/* FileFsDeviceInformation: FILE_DEVICE_DISK */
	memset(e, 0, sizeof(e));
	s32(e, 0, 7);
	s32(e, 4, 0x20);
	check_fixed_fs(FSCC_FS_DEVICE_INFORMATION, &fs, e, 8);

	/* FileFsControlInformation */
	memset(e, 0, sizeof(e));
	s64(e, 24, UINT64_MAX);
	s64(e, 32, UINT64_MAX);
	check_fixed_fs(FSCC_FS_CONTROL_INFORMATION, &fs, e, 48);

	/* FileFsFullSizeInformation */
	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0x0000000200000001));
	s64(e, 8, 900);
	s64(e, 16, 1000);
	s32(e, 24, 8);
	s32(e, 28, 512);
	check_fixed_fs(FSCC_FS_FULL_SIZE_INFORMATION, &fs, e, 32);

	/* FileFsObjectIdInformation */
	memset(e, 0, sizeof(e));
	for (i = 0; i < 16; i++) {
		e[i] = (uint8_t)(0xA0 + i);
	}
	check_fixed_fs(FSCC_FS_OBJECT_ID_INFORMATION, &fs, e, 64);

	/* FileFsSectorSizeInformation */
	memset(e, 0, sizeof(e));
	s32(e, 0, 512);
	s32(e, 4, 512);
	s32(e, 8, 512);
	s32(e, 12, 512);
	s32(e, 16, 3);
	check_fixed_fs(FSCC_FS_SECTOR_SIZE_INFORMATION, &fs, e, 28);
}

static void test_fs_var(void **state)
{
	struct fscc_fs_ctx fs = test_fs();
	uint8_t e[64];
	size_t n;
	struct qi q;

	(void)state;
	/* FileFsVolumeInformation: the label length is the full length,
	 * at least BlockAlign(18, 8) = 24 bytes (MS-FSA 2.1.5.13.1) */
	memset(e, 0, sizeof(e));
	s64(e, 0, UINT64_C(0x01D9000000000000));
	s32(e, 8, 0xDEADBEEF);
	n = a16(e + 18, "share");
	s32(e, 12, (uint32_t)n);
	qi_fs(&q, FSCC_FS_VOLUME_INFORMATION, &fs, 200);
	qi_check(&q, NT_STATUS_OK, e, 18 + n);
	qi_fs(&q, FSCC_FS_VOLUME_INFORMATION, &fs, 24);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 24);
	qi_fs(&q, FSCC_FS_VOLUME_INFORMATION, &fs, 23);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);
	fs.supports_objects = true;
	e[16] = 1;
	qi_fs(&q, FSCC_FS_VOLUME_INFORMATION, &fs, 200);
	qi_check(&q, NT_STATUS_OK, e, 18 + n);
	/* an empty label fits the minimum */
	fs.volume_label = NULL;
	s32(e, 12, 0);
	qi_fs(&q, FSCC_FS_VOLUME_INFORMATION, &fs, 24);
	qi_check(&q, NT_STATUS_OK, e, 18);

	/* FileFsAttributeInformation: the name length is the full length
	 * also when the name is cut (MS-FSA 2.1.5.13.5) */
	memset(e, 0, sizeof(e));
	s32(e, 0, 0x8F);
	s32(e, 4, 255);
	n = a16(e + 12, "NTFS");
	s32(e, 8, (uint32_t)n);
	qi_fs(&q, FSCC_FS_ATTRIBUTE_INFORMATION, &fs, 200);
	qi_check(&q, NT_STATUS_OK, e, 12 + n);
	qi_fs(&q, FSCC_FS_ATTRIBUTE_INFORMATION, &fs, 12 + 6);
	qi_check(&q, STATUS_BUFFER_OVERFLOW, e, 12 + 6);
	qi_fs(&q, FSCC_FS_ATTRIBUTE_INFORMATION, &fs, 11);
	qi_check(&q, NT_STATUS_INFO_LENGTH_MISMATCH, NULL, 0);

	/* classes */
	qi_fs(&q, FSCC_FS_LABEL_INFORMATION, &fs, 200);
	qi_check(&q, NT_STATUS_NOT_SUPPORTED, NULL, 0);
	qi_fs(&q, FSCC_FS_DRIVER_PATH_INFORMATION, &fs, 200);
	qi_check(&q, NT_STATUS_NOT_SUPPORTED, NULL, 0);
	qi_fs(&q, 0, &fs, 200);
	qi_check(&q, NT_STATUS_INVALID_INFO_CLASS, NULL, 0);
	qi_fs(&q, 12, &fs, 200);
	qi_check(&q, NT_STATUS_INVALID_INFO_CLASS, NULL, 0);
}

/* ---- SET_INFO decoders ---- */

/* Every length below fixed fails with INFO_LENGTH_MISMATCH. */
static void check_short(uint8_t cls, const uint8_t *buf, size_t fixed)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fscc_set_info si;
	size_t l;

	for (l = 0; l < fixed; l++) {
		assert_int_equal(fscc_set_info_pull(mem, cls, buf, l, &si),
				 NT_STATUS_INFO_LENGTH_MISMATCH);
		assert_int_equal(si.info_class, cls);
	}
	assert_int_equal(fscc_set_info_pull(mem, cls, NULL, 0, &si),
			 NT_STATUS_INFO_LENGTH_MISMATCH);
	talloc_free(mem);
}

static void test_set_fixed(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fscc_set_info si;
	uint8_t b[48];

	(void)state;
	/* FileBasicInformation: raw times, -1/-2 kept */
	memset(b, 0, sizeof(b));
	s64(b, 0, 0);
	s64(b, 8, UINT64_MAX);
	s64(b, 16, UINT64_MAX - 1);
	s64(b, 24, UINT64_C(0x01D9123456789ABC));
	s32(b, 32, FILE_ATTRIBUTE_HIDDEN);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_BASIC_INFORMATION,
					    b, 40, &si),
			 NT_STATUS_OK);
	assert_int_equal(si.info_class, FSCC_FILE_BASIC_INFORMATION);
	assert_true(si.basic.create_time == FSCC_TIME_NO_CHANGE);
	assert_true(si.basic.access_time == FSCC_TIME_FREEZE);
	assert_true(si.basic.write_time == FSCC_TIME_UNFREEZE);
	assert_true(si.basic.change_time == UINT64_C(0x01D9123456789ABC));
	assert_int_equal(si.basic.attributes, FILE_ATTRIBUTE_HIDDEN);
	check_short(FSCC_FILE_BASIC_INFORMATION, b, 40);

	/* FileDispositionInformation */
	b[0] = 1;
	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_DISPOSITION_INFORMATION,
					    b, 1, &si),
			 NT_STATUS_OK);
	assert_true(si.delete_pending);
	b[0] = 0;
	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_DISPOSITION_INFORMATION,
					    b, 1, &si),
			 NT_STATUS_OK);
	assert_false(si.delete_pending);
	check_short(FSCC_FILE_DISPOSITION_INFORMATION, b, 1);

	/* FileDispositionInformationEx */
	s32(b, 0, FSCC_DISPOSITION_DELETE | FSCC_DISPOSITION_POSIX_SEMANTICS);
	assert_int_equal(
		fscc_set_info_pull(mem, FSCC_FILE_DISPOSITION_INFORMATION_EX,
				   b, 4, &si),
		NT_STATUS_OK);
	assert_true(si.delete_pending);
	assert_int_equal(si.disposition_flags, 3);
	check_short(FSCC_FILE_DISPOSITION_INFORMATION_EX, b, 4);

	s64(b, 0, UINT64_C(0x0102030405060708));
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_POSITION_INFORMATION,
					    b, 8, &si),
			 NT_STATUS_OK);
	assert_true(si.position == UINT64_C(0x0102030405060708));
	check_short(FSCC_FILE_POSITION_INFORMATION, b, 8);

	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_ALLOCATION_INFORMATION,
					    b, 8, &si),
			 NT_STATUS_OK);
	assert_true(si.allocation_size == UINT64_C(0x0102030405060708));
	check_short(FSCC_FILE_ALLOCATION_INFORMATION, b, 8);

	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_END_OF_FILE_INFORMATION,
					    b, 9, &si),
			 NT_STATUS_OK);
	assert_true(si.end_of_file == UINT64_C(0x0102030405060708));
	check_short(FSCC_FILE_END_OF_FILE_INFORMATION, b, 8);

	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_MODE_INFORMATION,
					    b, 4, &si),
			 NT_STATUS_OK);
	assert_int_equal(si.mode, 0x05060708);
	check_short(FSCC_FILE_MODE_INFORMATION, b, 4);

	/* classes */
	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_STANDARD_INFORMATION, b,
					    40, &si),
			 NT_STATUS_NOT_SUPPORTED);
	assert_int_equal(fscc_set_info_pull(mem, 40 /* FileShortName */, b,
					    40, &si),
			 NT_STATUS_NOT_SUPPORTED);
	assert_int_equal(fscc_set_info_pull(mem, 0, b, 40, &si),
			 NT_STATUS_INVALID_INFO_CLASS);
	assert_int_equal(fscc_set_info_pull(mem, 99, b, 40, &si),
			 NT_STATUS_INVALID_INFO_CLASS);
	talloc_free(mem);
}

static void test_set_rename(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fscc_set_info si;
	uint8_t b[64];
	size_t n;

	(void)state;
	/* FILE_RENAME_INFORMATION_TYPE_2 */
	memset(b, 0xEE, sizeof(b)); /* Reserved: any value */
	b[0] = 1;
	s64(b, 8, 0);
	n = a16(b + 20, "d\\new.txt");
	s32(b, 16, (uint32_t)n);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, 20 + n, &si),
			 NT_STATUS_OK);
	assert_true(si.rename.replace_if_exists);
	assert_int_equal(si.rename.flags, FSCC_RENAME_REPLACE_IF_EXISTS);
	assert_true(si.rename.root_dir == 0);
	assert_string_equal(si.rename.new_name, "d\\new.txt");
	/* padding after the name is fine */
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_LINK_INFORMATION, b,
					    sizeof(b), &si),
			 NT_STATUS_OK);
	assert_string_equal(si.rename.new_name, "d\\new.txt");
	assert_int_equal(si.info_class, FSCC_FILE_LINK_INFORMATION);
	check_short(FSCC_FILE_RENAME_INFORMATION, b, 20);
	check_short(FSCC_FILE_LINK_INFORMATION, b, 20);
	/* name past the buffer */
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, 20 + n - 2, &si),
			 NT_STATUS_INVALID_PARAMETER);
	assert_null(si.rename.new_name);
	s32(b, 16, 0xFFFFFFFE);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, sizeof(b), &si),
			 NT_STATUS_INVALID_PARAMETER);
	/* odd length */
	s32(b, 16, 3);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, sizeof(b), &si),
			 NT_STATUS_INVALID_PARAMETER);
	/* an unpaired surrogate and an embedded NUL are not names */
	s32(b, 16, 2);
	s16(b, 20, 0xd800);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, 22, &si),
			 NT_STATUS_INVALID_PARAMETER);
	s16(b, 20, 0);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, 22, &si),
			 NT_STATUS_INVALID_PARAMETER);
	/* empty name: decoded, the handler decides */
	b[0] = 0;
	s32(b, 16, 0);
	assert_int_equal(fscc_set_info_pull(mem, FSCC_FILE_RENAME_INFORMATION,
					    b, 20, &si),
			 NT_STATUS_OK);
	assert_string_equal(si.rename.new_name, "");
	assert_false(si.rename.replace_if_exists);
	assert_int_equal(si.rename.flags, 0);

	/* FILE_RENAME_INFORMATION_EX: Flags (4), Reserved (4) */
	memset(b, 0, sizeof(b));
	s32(b, 0, FSCC_RENAME_REPLACE_IF_EXISTS | FSCC_RENAME_POSIX_SEMANTICS);
	s64(b, 8, 0x1234);
	n = a16(b + 20, "x");
	s32(b, 16, (uint32_t)n);
	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_RENAME_INFORMATION_EX, b,
					    20 + n, &si),
			 NT_STATUS_OK);
	assert_true(si.rename.replace_if_exists);
	assert_int_equal(si.rename.flags, 3);
	assert_true(si.rename.root_dir == 0x1234);
	assert_string_equal(si.rename.new_name, "x");
	s32(b, 0, FSCC_RENAME_POSIX_SEMANTICS);
	assert_int_equal(fscc_set_info_pull(mem,
					    FSCC_FILE_RENAME_INFORMATION_EX, b,
					    20 + n, &si),
			 NT_STATUS_OK);
	assert_false(si.rename.replace_if_exists);
	check_short(FSCC_FILE_RENAME_INFORMATION_EX, b, 20);
	talloc_free(mem);
}

/* One FILE_FULL_EA_INFORMATION entry at off; returns its unpadded size. */
static size_t put_ea(uint8_t *b, size_t off, uint32_t next, uint8_t flags,
		     const char *name, const char *value)
{
	size_t nl = strlen(name), vl = strlen(value);

	s32(b, off, next);
	b[off + 4] = flags;
	b[off + 5] = (uint8_t)nl;
	s16(b, off + 6, (uint16_t)vl);
	memcpy(b + off + 8, name, nl);
	b[off + 8 + nl] = 0;
	memcpy(b + off + 9 + nl, value, vl);
	return 9 + nl + vl;
}

static NTSTATUS pull_ea(TALLOC_CTX *mem, const uint8_t *b, size_t len,
			struct fscc_set_info *si)
{
	return fscc_set_info_pull(mem, FSCC_FILE_FULL_EA_INFORMATION, b, len,
				  si);
}

static void test_set_ea(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fscc_set_info si;
	uint8_t b[128];
	size_t l1, l2;

	(void)state;
	memset(b, 0, sizeof(b));
	l1 = put_ea(b, 0, 20, FSCC_FILE_NEED_EA, "user.a", "xyz"); /* 18 */
	l2 = put_ea(b, 20, 0, 0, "B", "");
	assert_int_equal(l1, 18);
	assert_int_equal(pull_ea(mem, b, 20 + l2, &si), NT_STATUS_OK);
	assert_int_equal(si.num_eas, 2);
	assert_int_equal(si.eas[0].flags, FSCC_FILE_NEED_EA);
	assert_string_equal(si.eas[0].name, "user.a");
	assert_int_equal(si.eas[0].value_len, 3);
	assert_memory_equal(si.eas[0].value, "xyz", 3);
	assert_string_equal(si.eas[1].name, "B");
	assert_int_equal(si.eas[1].value_len, 0);
	assert_null(si.eas[1].value);
	check_short(FSCC_FILE_FULL_EA_INFORMATION, b, 8);

	/* last entry cut */
	assert_int_equal(pull_ea(mem, b, 20 + l2 - 1, &si),
			 STATUS_EA_LIST_INCONSISTENT);
	assert_int_equal(si.num_eas, 0);
	assert_null(si.eas);
	/* first value cut */
	assert_int_equal(pull_ea(mem, b, 17, &si),
			 STATUS_EA_LIST_INCONSISTENT);
	/* NextEntryOffset inside the entry, unaligned, past the end */
	s32(b, 0, 16);
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	s32(b, 0, 22);
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	s32(b, 0, 0xFFFFFFFC);
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	s32(b, 0, 20);
	/* missing NUL after the name, NUL inside it, empty name */
	b[8 + 6] = 'x';
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	b[8 + 6] = 0;
	b[8 + 2] = 0;
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	b[8 + 2] = 'e';
	b[20 + 5] = 0;
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si),
			 STATUS_EA_LIST_INCONSISTENT);
	b[20 + 5] = 1;
	assert_int_equal(pull_ea(mem, b, sizeof(b), &si), NT_STATUS_OK);
	assert_int_equal(si.num_eas, 2);
	/* a 255-byte name and a 64 KiB-1 value */
	{
		size_t big = 8 + 255 + 1 + 65535;
		uint8_t *bb = talloc_zero_array(mem, uint8_t, big);

		assert_non_null(bb);
		bb[5] = 255;
		s16(bb, 6, 65535);
		memset(bb + 8, 'n', 255);
		assert_int_equal(pull_ea(mem, bb, big, &si), NT_STATUS_OK);
		assert_int_equal(strlen(si.eas[0].name), 255);
		assert_int_equal(si.eas[0].value_len, 65535);
		assert_int_equal(pull_ea(mem, bb, big - 1, &si),
				 STATUS_EA_LIST_INCONSISTENT);
	}
	talloc_free(mem);
}

/* ---- QUERY_DIRECTORY entries ---- */

struct dir_case {
	uint8_t cls;
	size_t name_len_off, name_off, ea_off, tag_off, short_off, id64_off,
		id128_off;
};

/* The MS-FSCC tables, restated. */
static const struct dir_case dir_cases[] = {
	{FSCC_FILE_DIRECTORY_INFORMATION, 60, 64, 0, 0, 0, 0, 0},
	{FSCC_FILE_FULL_DIRECTORY_INFORMATION, 60, 68, 64, 0, 0, 0, 0},
	{FSCC_FILE_BOTH_DIRECTORY_INFORMATION, 60, 94, 64, 0, 68, 0, 0},
	{FSCC_FILE_NAMES_INFORMATION, 8, 12, 0, 0, 0, 0, 0},
	{FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION, 60, 104, 64, 0, 68, 96, 0},
	{FSCC_FILE_ID_FULL_DIRECTORY_INFORMATION, 60, 80, 64, 0, 0, 72, 0},
	{FSCC_FILE_ID_EXTD_DIRECTORY_INFORMATION, 60, 88, 64, 68, 0, 0, 72},
	{FSCC_FILE_ID_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 114, 64, 68, 88, 0,
	 72},
	{FSCC_FILE_ID_64_EXTD_DIRECTORY_INFORMATION, 60, 80, 64, 68, 0, 72, 0},
	{FSCC_FILE_ID_64_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 106, 64, 68, 80,
	 72, 0},
	{FSCC_FILE_ID_ALL_EXTD_DIRECTORY_INFORMATION, 60, 96, 64, 68, 0, 72,
	 80},
	{FSCC_FILE_ID_ALL_EXTD_BOTH_DIRECTORY_INFORMATION, 60, 122, 64, 68, 96,
	 72, 80},
};

static void test_dir_layouts(void **state)
{
	struct vfs_file_info fi = test_fi();
	struct fscc_dir_entry de = {.fi = &fi,
				    .name = "file.txt",
				    .short_name = "FILE~1.TXT",
				    .ea_size = 44,
				    .reparse_tag = 0x8000001B};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dir_cases) / sizeof(dir_cases[0]); i++) {
		const struct dir_case *dc = &dir_cases[i];
		TALLOC_CTX *mem = talloc_new(NULL);
		struct wire_buf out;
		uint8_t e[256];
		size_t prev = (size_t)-1, n;

		memset(e, 0, sizeof(e));
		if (dc->cls != FSCC_FILE_NAMES_INFORMATION) {
			expect_basic(e, 8, 0); /* the four times */
			s64(e, 40, 1234);
			s64(e, 48, 8192);
			s32(e, 56, FILE_ATTRIBUTE_ARCHIVE);
		}
		if (dc->ea_off != 0) {
			s32(e, dc->ea_off, 44);
		}
		if (dc->tag_off != 0) {
			s32(e, dc->tag_off, 0x8000001B);
		}
		if (dc->short_off != 0) {
			e[dc->short_off] = (uint8_t)a16(
				e + dc->short_off + 2, "FILE~1.TXT");
		}
		if (dc->id64_off != 0) {
			s64(e, dc->id64_off, UINT64_C(0xAABBCCDD11223344));
		}
		if (dc->id128_off != 0) {
			s64(e, dc->id128_off, UINT64_C(0xAABBCCDD11223344));
		}
		n = a16(e + dc->name_off, "file.txt");
		s32(e, dc->name_len_off, (uint32_t)n);

		wire_buf_init(&out, mem, 0);
		assert_true(fscc_dir_class_known(dc->cls));
		assert_int_equal(fscc_dir_entry_push(&out, 0, dc->cls, &de,
						     1000, &prev),
				 NT_STATUS_OK);
		assert_int_equal(prev, 0);
		assert_int_equal(out.len, dc->name_off + n);
		assert_memory_equal(out.data, e, out.len);
		/* A ChangeTime put in afterwards (QUERY_DIRECTORY on the
		 * loop thread) changes that field alone. */
		assert_true(fscc_dir_class_has_times(dc->cls) ==
			    (dc->cls != FSCC_FILE_NAMES_INFORMATION));
		if (fscc_dir_class_has_times(dc->cls)) {
			fscc_dir_entry_set_change_time(
				out.data, UINT64_C(0x0102030405060708));
			s64(e, 32, UINT64_C(0x0102030405060708));
			assert_memory_equal(out.data, e, out.len);
		}

		/* exactly fitting, and one byte short */
		wire_buf_init(&out, mem, 0);
		prev = (size_t)-1;
		assert_int_equal(fscc_dir_entry_push(&out, 0, dc->cls, &de,
						     (uint32_t)(dc->name_off +
								n - 1),
						     &prev),
				 STATUS_BUFFER_OVERFLOW);
		assert_int_equal(out.len, 0);
		assert_true(prev == (size_t)-1);
		assert_int_equal(fscc_dir_entry_push(&out, 0, dc->cls, &de,
						     (uint32_t)(dc->name_off +
								n),
						     &prev),
				 NT_STATUS_OK);
		talloc_free(mem);
	}
	assert_false(fscc_dir_class_known(FSCC_FILE_BASIC_INFORMATION));
	assert_false(fscc_dir_class_known(0));
	assert_false(fscc_dir_class_has_times(FSCC_FILE_BASIC_INFORMATION));
}

/*
 * AAPL READ_DIR_ATTR: in FileIdBothDirectoryInformation the max access
 * replaces EaSize, ShortNameLength is 24 and the ShortName area holds
 * the fork size and the compressed FinderInfo, Reserved2 the mode; the
 * other fields as without it.  Other classes ignore it, and a reparse
 * point keeps its tag and short name.
 */
static void test_dir_aapl(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_file_info fi = test_fi();
	struct fscc_aapl_dir_attr a = {.max_access = 0x001f01ff,
				       .rfork_size = UINT64_C(0x1122334455),
				       .unix_mode = 0100644};
	struct fscc_dir_entry de = {.fi = &fi,
				    .name = "file.txt",
				    .short_name = "FILE~1.TXT",
				    .ea_size = 44,
				    .aapl = &a};
	struct fscc_dir_entry plain = de;
	const uint8_t idb = FSCC_FILE_ID_BOTH_DIRECTORY_INFORMATION;
	struct wire_buf out, ref;
	size_t prev = (size_t)-1, rprev = (size_t)-1;

	(void)state;
	memcpy(a.finder_info, "TEXTttxt\x41\x02\x12\x34\x80\0\0\0", 16);
	plain.aapl = NULL;
	wire_buf_init(&out, mem, 0);
	wire_buf_init(&ref, mem, 0);
	assert_int_equal(fscc_dir_entry_push(
				 &out, 0, idb,
				 &de, 1000, &prev),
			 NT_STATUS_OK);
	assert_int_equal(fscc_dir_entry_push(
				 &ref, 0, idb,
				 &plain, 1000, &rprev),
			 NT_STATUS_OK);
	assert_int_equal(out.len, ref.len);
	/* as the NTFS entry up to EaSize, from FileId on */
	assert_memory_equal(out.data, ref.data, 64);
	assert_memory_equal(out.data + 96, ref.data + 96, out.len - 96);
	s32(ref.data, 64, 0x001f01ff);
	ref.data[68] = 24;
	ref.data[69] = 0;
	s64(ref.data, 70, UINT64_C(0x1122334455));
	memcpy(ref.data + 78, a.finder_info, 16);
	ref.data[94] = 0xa4;	/* 0100644, little-endian */
	ref.data[95] = 0x81;
	assert_memory_equal(out.data, ref.data, out.len);

	/* another class: as without it */
	wire_buf_init(&out, mem, 0);
	wire_buf_init(&ref, mem, 0);
	prev = rprev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(
				 &out, 0, FSCC_FILE_BOTH_DIRECTORY_INFORMATION,
				 &de, 1000, &prev),
			 NT_STATUS_OK);
	assert_int_equal(fscc_dir_entry_push(
				 &ref, 0, FSCC_FILE_BOTH_DIRECTORY_INFORMATION,
				 &plain, 1000, &rprev),
			 NT_STATUS_OK);
	assert_int_equal(out.len, ref.len);
	assert_memory_equal(out.data, ref.data, out.len);

	/* a reparse point: its own fields */
	fi.attributes |= FILE_ATTRIBUTE_REPARSE_POINT;
	wire_buf_init(&out, mem, 0);
	wire_buf_init(&ref, mem, 0);
	prev = rprev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(
				 &out, 0, idb,
				 &de, 1000, &prev),
			 NT_STATUS_OK);
	assert_int_equal(fscc_dir_entry_push(
				 &ref, 0, idb,
				 &plain, 1000, &rprev),
			 NT_STATUS_OK);
	assert_memory_equal(out.data, ref.data, out.len);
	talloc_free(mem);
}

static void test_dir_chain(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_file_info fi = test_fi();
	struct fscc_dir_entry de = {.fi = &fi};
	struct wire_buf out;
	size_t prev = (size_t)-1, base = 4;
	uint8_t cls = FSCC_FILE_NAMES_INFORMATION;

	(void)state;
	wire_buf_init(&out, mem, 0);
	/* something before the output buffer: offsets count from base */
	wire_push_zero(&out, base);

	de.name = "a"; /* 12 + 2 = 14 */
	assert_int_equal(fscc_dir_entry_push(&out, base, cls, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(prev, base);
	assert_int_equal(out.len, base + 14);

	de.name = "bcd"; /* at 16 (rel), 12 + 6 = 18 */
	assert_int_equal(fscc_dir_entry_push(&out, base, cls, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(prev, base + 16);
	assert_int_equal(g32(out.data, base), 16);
	assert_int_equal(out.data[base + 14], 0); /* padding */
	assert_int_equal(out.data[base + 15], 0);
	assert_int_equal(g32(out.data, base + 16), 0);
	assert_int_equal(g32(out.data, base + 16 + 8), 6);

	/* next at 40 (rel): 40 + 14 = 54 > 53: no room, nothing changes */
	de.name = "e";
	assert_int_equal(fscc_dir_entry_push(&out, base, cls, &de, 53,
					     &prev),
			 STATUS_BUFFER_OVERFLOW);
	assert_int_equal(out.len, base + 34);
	assert_int_equal(prev, base + 16);
	assert_int_equal(g32(out.data, base + 16), 0);
	/* the padding counts: 54 fits */
	assert_int_equal(fscc_dir_entry_push(&out, base, cls, &de, 54,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(prev, base + 40);
	assert_int_equal(g32(out.data, base + 16), 24);
	assert_int_equal(g32(out.data, base + 40), 0);
	assert_int_equal(out.len, base + 54);

	/* a class that is not a directory class */
	assert_int_equal(fscc_dir_entry_push(&out, base,
					     FSCC_FILE_BASIC_INFORMATION, &de,
					     1000, &prev),
			 NT_STATUS_INVALID_INFO_CLASS);
	/* a bogus previous offset is refused, not followed */
	prev = out.len + 100;
	assert_int_equal(fscc_dir_entry_push(&out, base, cls, &de, 1000,
					     &prev),
			 NT_STATUS_INTERNAL_ERROR);
	talloc_free(mem);
}

#define FULL_DIR FSCC_FILE_FULL_DIRECTORY_INFORMATION
#define BOTH_DIR FSCC_FILE_BOTH_DIRECTORY_INFORMATION
#define DIR_INFO FSCC_FILE_DIRECTORY_INFORMATION
#define EXTD_DIR FSCC_FILE_ID_EXTD_DIRECTORY_INFORMATION

static void test_dir_special(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_file_info fi = test_fi();
	struct fscc_dir_entry de = {.fi = &fi, .name = "l", .ea_size = 9};
	struct wire_buf out;
	size_t prev = (size_t)-1;

	(void)state;
	/* a reparse point: EaSize carries the tag where there is no
	 * ReparsePointTag field */
	fi.attributes = FILE_ATTRIBUTE_REPARSE_POINT;
	de.reparse_tag = 0xA000000C;
	wire_buf_init(&out, mem, 0);
	assert_int_equal(fscc_dir_entry_push(&out, 0, FULL_DIR, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(g32(out.data, 64), 0xA000000C);
	wire_buf_init(&out, mem, 0);
	prev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(&out, 0, EXTD_DIR, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(g32(out.data, 64), 9);
	assert_int_equal(g32(out.data, 68), 0xA000000C);

	/* a short name longer than the 24-byte field is cut, no overrun */
	de.short_name = "ABCDEFGHIJKLMNOP";
	wire_buf_init(&out, mem, 0);
	prev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(&out, 0, BOTH_DIR, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(out.data[68], 24);
	assert_int_equal(out.data[70 + 22], 'L');
	assert_int_equal(g32(out.data, 60), 2);
	assert_int_equal(out.data[94], 'l');
	/* no short name: length 0 */
	de.short_name = NULL;
	wire_buf_init(&out, mem, 0);
	prev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(&out, 0, BOTH_DIR, &de, 1000,
					     &prev),
			 NT_STATUS_OK);
	assert_int_equal(out.data[68], 0);
	/* invalid UTF-8 name: refused, nothing appended */
	de.name = "\xc3";
	wire_buf_init(&out, mem, 0);
	prev = (size_t)-1;
	assert_int_equal(fscc_dir_entry_push(&out, 0, DIR_INFO, &de, 1000,
					     &prev),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(out.len, 0);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_fixed),
		cmocka_unit_test(test_file_attributes),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test(test_file_all),
		cmocka_unit_test(test_file_streams),
		cmocka_unit_test(test_file_classes),
		cmocka_unit_test(test_fs_fixed),
		cmocka_unit_test(test_fs_var),
		cmocka_unit_test(test_set_fixed),
		cmocka_unit_test(test_set_rename),
		cmocka_unit_test(test_set_ea),
		cmocka_unit_test(test_dir_layouts),
		cmocka_unit_test(test_dir_aapl),
		cmocka_unit_test(test_dir_chain),
		cmocka_unit_test(test_dir_special),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
