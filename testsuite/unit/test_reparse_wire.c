/*
 * Unit tests for smbd/wire/reparse_wire.c: the reparse buffers of
 * FSCTL_SET/GET/DELETE_REPARSE_POINT (MS-FSCC 2.1.2.2-2.1.2.6, MS-FSA
 * 2.1.5.10.37 and 2.1.5.10.6) and the Symbolic Link Error Response
 * (MS-SMB2 2.2.2.2.1).
 *
 * Buffers are built and checked here at the byte offsets of the spec's
 * tables, not through structures, so a wrong offset or width shows up.
 * The statuses for malformed input are those Windows gives (Samba's
 * python/samba/tests/reparsepoints.py records them: INVALID_BUFFER_SIZE
 * for no input, IO_REPARSE_DATA_INVALID for 1 to 14 bytes and for one
 * byte too many or too few, TAG_MISMATCH/DATA_INVALID on delete).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "smbd/wire/reparse_wire.h"
#include "vfs/vfs.h"

/* A REPARSE_DATA_BUFFER of tag with data_len bytes of 'x'. */
static size_t buf_build(uint8_t *buf, uint32_t tag, uint16_t data_len)
{
	put_le32(buf, tag);
	put_le16(buf + 4, data_len);
	put_le16(buf + 6, 0);
	memset(buf + 8, 'x', data_len);
	return 8 + (size_t)data_len;
}

static void test_set_parse(void **state)
{
	static uint8_t buf[REPARSE_MAX_LEN + 64];
	struct reparse_in in;
	size_t len, i;

	(void)state;
	assert_int_equal(reparse_set_parse(buf, 0, &in),
			 NT_STATUS_INVALID_BUFFER_SIZE);
	memset(buf, '0', 16);
	for (i = 1; i < 15; i++) {
		assert_int_equal(reparse_set_parse(buf, i, &in),
				 NT_STATUS_IO_REPARSE_DATA_INVALID);
	}
	len = buf_build(buf, 0x80000025, 24);
	assert_int_equal(reparse_set_parse(buf, len, &in), NT_STATUS_OK);
	assert_int_equal(in.tag, 0x80000025);
	assert_false(in.guid_form);
	assert_int_equal(in.data_len, 24);
	assert_ptr_equal(in.data, buf + 8);
	/* exact lengths only */
	assert_int_equal(reparse_set_parse(buf, len + 1, &in),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	assert_int_equal(reparse_set_parse(buf, len - 1, &in),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	/* the GUID form: 16 more bytes before the data */
	assert_int_equal(reparse_set_parse(buf, len + 16, &in), NT_STATUS_OK);
	assert_true(in.guid_form);
	assert_ptr_equal(in.data, buf + 24);
	/* a tag not Microsoft's needs its GUID */
	len = buf_build(buf, 0x00000025, 4);
	assert_int_equal(reparse_set_parse(buf, len, &in),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	assert_int_equal(reparse_set_parse(buf, len + 16, &in), NT_STATUS_OK);
	/* the reserved tags */
	len = buf_build(buf, 0, 4);
	assert_int_equal(reparse_set_parse(buf, len, &in),
			 NT_STATUS_IO_REPARSE_TAG_INVALID);
	len = buf_build(buf, 1, 4);
	assert_int_equal(reparse_set_parse(buf, len + 16, &in),
			 NT_STATUS_IO_REPARSE_TAG_INVALID);
	/* 16384 bytes at most */
	len = buf_build(buf, IO_REPARSE_TAG_SYMLINK, REPARSE_MAX_LEN - 8);
	assert_int_equal(reparse_set_parse(buf, len, &in), NT_STATUS_OK);
	len = buf_build(buf, IO_REPARSE_TAG_SYMLINK, REPARSE_MAX_LEN - 7);
	assert_int_equal(reparse_set_parse(buf, len, &in),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
}

static void test_delete_parse(void **state)
{
	uint8_t buf[64] = {0};
	uint32_t tag;
	size_t len;

	(void)state;
	len = buf_build(buf, 0x80000025, 0);
	assert_int_equal(reparse_delete_parse(buf, len, &tag), NT_STATUS_OK);
	assert_int_equal(tag, 0x80000025);
	assert_int_equal(reparse_delete_parse(buf, 24, &tag), NT_STATUS_OK);
	/* data, or a length that is not the header's */
	len = buf_build(buf, 0x80000025, 1);
	assert_int_equal(reparse_delete_parse(buf, len, &tag),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	assert_int_equal(reparse_delete_parse(buf, 8, &tag),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);	/* rdl 1 */
	assert_int_equal(reparse_delete_parse(buf, 7, &tag),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	assert_int_equal(reparse_delete_parse(buf, 0, &tag),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	len = buf_build(buf, 1, 0);
	assert_int_equal(reparse_delete_parse(buf, len, &tag),
			 NT_STATUS_IO_REPARSE_TAG_INVALID);
}

/* MS-FSCC 2.1.2.4 data (after the 8-byte header) naming sub and print
 * (ASCII), Flags flags; returns its length. */
static size_t symlink_data(uint8_t *d, const char *sub, const char *print,
			   uint32_t flags)
{
	size_t ns = strlen(sub), np = strlen(print), i;

	put_le16(d + 0, (uint16_t)(2 * np));	/* substitute after print */
	put_le16(d + 2, (uint16_t)(2 * ns));
	put_le16(d + 4, 0);
	put_le16(d + 6, (uint16_t)(2 * np));
	put_le32(d + 8, flags);
	for (i = 0; i < np; i++) {
		put_le16(d + 12 + 2 * i, (uint8_t)print[i]);
	}
	for (i = 0; i < ns; i++) {
		put_le16(d + 12 + 2 * (np + i), (uint8_t)sub[i]);
	}
	return 12 + 2 * (np + ns);
}

static void test_symlink_parse(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	uint8_t d[256];
	char *t;
	bool rel;
	size_t n;

	(void)state;
	n = symlink_data(d, "dir\\target.txt", "shown", SYMLINK_FLAG_RELATIVE);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_OK);
	assert_string_equal(t, "dir/target.txt");
	assert_true(rel);
	n = symlink_data(d, "\\srv\\x", "", 0);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_OK);
	assert_string_equal(t, "/srv/x");
	assert_false(rel);
	/* short of the fixed part, an empty name, a name past the end, an
	 * odd length, a NUL, a lone surrogate */
	assert_int_equal(reparse_symlink_parse(mem, d, 11, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	n = symlink_data(d, "", "p", 0);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	n = symlink_data(d, "abc", "", 0);
	assert_int_equal(reparse_symlink_parse(mem, d, n - 1, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	put_le16(d + 2, 5);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	n = symlink_data(d, "abc", "", 0);
	put_le16(d + 4, 0xfffe);	/* PrintNameOffset out of range */
	put_le16(d + 6, 2);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	n = symlink_data(d, "abc", "", 0);
	put_le16(d + 12 + 2, 0);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	n = symlink_data(d, "abc", "", 0);
	put_le16(d + 12 + 2, 0xd800);
	assert_int_equal(reparse_symlink_parse(mem, d, n, &t, &rel),
			 NT_STATUS_IO_REPARSE_DATA_INVALID);
	talloc_free(mem);
}

/* "a/b" is written as the UTF-16 of "a\b" at p. */
static void assert_u16(const uint8_t *p, const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		assert_int_equal(le16(p + 2 * i), (uint8_t)s[i]);
	}
}

static void test_symlink_push(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;
	static char long_target[8200];
	char *t;
	bool rel;

	(void)state;
	wire_buf_init(&b, mem, 16);
	assert_int_equal(reparse_symlink_push(&b, "d/f.txt", true, 0),
			 NT_STATUS_OK);
	/* 8 header + 12 fixed + 2 * 14 name bytes */
	assert_int_equal(b.len, 48);
	assert_int_equal(le32(b.data + 0), IO_REPARSE_TAG_SYMLINK);
	assert_int_equal(le16(b.data + 4), 40);	/* ReparseDataLength */
	assert_int_equal(le16(b.data + 6), 0);
	assert_int_equal(le16(b.data + 8), 0);	/* SubstituteNameOffset */
	assert_int_equal(le16(b.data + 10), 14);
	assert_int_equal(le16(b.data + 12), 14);	/* PrintNameOffset */
	assert_int_equal(le16(b.data + 14), 14);
	assert_int_equal(le32(b.data + 16), SYMLINK_FLAG_RELATIVE);
	assert_u16(b.data + 20, "d\\f.txt");
	assert_u16(b.data + 34, "d\\f.txt");
	/* what it wrote parses back */
	assert_int_equal(reparse_symlink_parse(mem, b.data + 8, b.len - 8, &t,
					       &rel),
			 NT_STATUS_OK);
	assert_string_equal(t, "d/f.txt");
	assert_true(rel);
	/* absolute: no flag */
	b.len = 0;
	assert_int_equal(reparse_symlink_push(&b, "/etc", false, 0),
			 NT_STATUS_OK);
	assert_int_equal(le32(b.data + 16), 0);
	assert_u16(b.data + 20, "\\etc");
	/* too long for both names: the substitute name alone */
	memset(long_target, 'a', 5000);
	long_target[5000] = '\0';
	b.len = 0;
	assert_int_equal(reparse_symlink_push(&b, long_target, true, 0),
			 NT_STATUS_OK);
	assert_int_equal(le16(b.data + 10), 10000);
	assert_int_equal(le16(b.data + 14), 0);
	assert_int_equal(b.len, 8 + 12 + 10000);
	/* too long even alone */
	memset(long_target, 'a', 8190);
	long_target[8190] = '\0';
	b.len = 0;
	assert_int_equal(reparse_symlink_push(&b, long_target, true, 0),
			 NT_STATUS_NAME_TOO_LONG);
	assert_int_equal(reparse_symlink_push(&b, "", true, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(reparse_symlink_push(&b, "\xff", true, 0),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(mem);
}

static void test_nfs_push(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;

	(void)state;
	wire_buf_init(&b, mem, 16);
	reparse_nfs_push(&b, NFS_SPECFILE_FIFO, 0, 0);
	assert_int_equal(b.len, 16);
	assert_int_equal(le32(b.data), IO_REPARSE_TAG_NFS);
	assert_int_equal(le16(b.data + 4), 8);
	assert_true(le64(b.data + 8) == NFS_SPECFILE_FIFO);
	assert_memory_equal(b.data + 8, "FIFO\0\0\0\0", 8);
	b.len = 0;
	reparse_nfs_push(&b, NFS_SPECFILE_SOCK, 0, 0);
	assert_memory_equal(b.data + 8, "SOCK\0\0\0\0", 8);
	b.len = 0;
	reparse_nfs_push(&b, NFS_SPECFILE_CHR, 1, 3);
	assert_int_equal(b.len, 24);
	assert_int_equal(le16(b.data + 4), 16);
	assert_memory_equal(b.data + 8, "CHR\0\0\0\0\0", 8);
	assert_int_equal(le32(b.data + 16), 1);	/* major */
	assert_int_equal(le32(b.data + 20), 3);	/* minor */
	b.len = 0;
	reparse_nfs_push(&b, NFS_SPECFILE_BLK, 8, 1);
	assert_memory_equal(b.data + 8, "BLK\0\0\0\0\0", 8);
	assert_int_equal(le32(b.data + 16), 8);
	talloc_free(mem);
}

static void test_symlink_error(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;

	(void)state;
	wire_buf_init(&b, mem, 16);
	/* "lnk\rest.txt" stopped at lnk -> "../t": 18 bytes unparsed */
	assert_int_equal(reparse_symlink_error_push(&b, "../t", true, 18),
			 NT_STATUS_OK);
	assert_int_equal(b.len, 4 + 4 + 8 + 12 + 16);
	assert_int_equal(le32(b.data + 0), b.len - 4);	/* SymLinkLength */
	assert_int_equal(le32(b.data + 4), 0x4C4D5953);
	assert_int_equal(le32(b.data + 8), IO_REPARSE_TAG_SYMLINK);
	assert_int_equal(le16(b.data + 12), 12 + 16);
	assert_int_equal(le16(b.data + 14), 18);	/* UnparsedPathLength */
	assert_int_equal(le16(b.data + 16), 0);
	assert_int_equal(le16(b.data + 18), 8);
	assert_int_equal(le16(b.data + 20), 8);
	assert_int_equal(le16(b.data + 22), 8);
	assert_int_equal(le32(b.data + 24), SYMLINK_FLAG_RELATIVE);
	assert_u16(b.data + 28, "..\\t");
	/* a failure leaves the buffer as it was */
	b.len = 3;
	assert_int_equal(reparse_symlink_error_push(&b, "", true, 0),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(b.len, 3);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_parse),
		cmocka_unit_test(test_delete_parse),
		cmocka_unit_test(test_symlink_parse),
		cmocka_unit_test(test_symlink_push),
		cmocka_unit_test(test_nfs_push),
		cmocka_unit_test(test_symlink_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
