/*
 * Unit tests for smbd/wire/notify_wire.c: the CHANGE_NOTIFY response
 * body (MS-SMB2 2.2.36) and its FILE_NOTIFY_INFORMATION entries (MS-FSCC
 * 2.7.1).
 *
 * The expected bytes are read at the offsets of the spec's tables
 * (StructureSize at 0, OutputBufferOffset at 2 counted from the SMB2
 * header, OutputBufferLength at 4, the entries at 8; an entry's
 * NextEntryOffset at 0, Action at 4, FileNameLength at 8, FileName at
 * 12, each entry 4-byte aligned), so a wrong offset, width or alignment
 * in the encoder shows up.  The fuzz target (fuzz_notify_encode) checks
 * the same shape on any input; these pin down the values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "lib/wire.h"
#include "smbd/wire/notify_wire.h"

/* The reply's SMB2 header (64 bytes) and whatever the caller put before
 * it in the buffer: hdr is where the header starts. */
#define HDR_AT 4
#define BODY_AT (HDR_AT + 64)
#define ENTRIES_AT (BODY_AT + 8)

static void out_init(TALLOC_CTX *mem, struct wire_buf *out)
{
	wire_buf_init(out, mem, 16);
	wire_push_zero(out, BODY_AT);
}

/* Entry at off: its NextEntryOffset, Action, and name as UTF-16 units. */
static void check_entry(const uint8_t *e, uint32_t next, uint32_t action,
			const uint16_t *u16, size_t n)
{
	size_t i;

	assert_int_equal(le32(e), next);
	assert_int_equal(le32(e + 4), action);
	assert_int_equal(le32(e + 8), 2 * n);
	for (i = 0; i < n; i++) {
		assert_int_equal(le16(e + 12 + 2 * i), u16[i]);
	}
}

static void test_empty(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf out;

	(void)state;
	out_init(mem, &out);
	assert_true(smb2_notify_encode(&out, HDR_AT, NULL, NULL, 0, 0));
	assert_int_equal(out.len, ENTRIES_AT);
	assert_int_equal(le16(out.data + BODY_AT), 9);
	/* 2.2.36: the offset counts from the start of the SMB2 header. */
	assert_int_equal(le16(out.data + BODY_AT + 2), 64 + 8);
	assert_int_equal(le32(out.data + BODY_AT + 4), 0);
	talloc_free(mem);
}

static void test_entries(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *names[] = {"a", "dir\\file.txt", "xy"};
	const uint32_t actions[] = {1, 3, 5};
	static const uint16_t a[] = {'a'};
	static const uint16_t f[] = {'d', 'i', 'r', '\\', 'f', 'i',
				     'l', 'e', '.', 't', 'x', 't'};
	static const uint16_t xy[] = {'x', 'y'};
	struct wire_buf out;
	const uint8_t *e;

	(void)state;
	out_init(mem, &out);
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 3,
				       65536));
	e = out.data + ENTRIES_AT;
	/* "a": 12 + 2 bytes, the next entry at the 4-byte boundary 16. */
	check_entry(e, 16, 1, a, 1);
	/* 12 + 24 = 36, already aligned. */
	check_entry(e + 16, 36, 3, f, 12);
	/* The last entry's NextEntryOffset is 0, and nothing pads it. */
	check_entry(e + 52, 0, 5, xy, 2);
	assert_int_equal(out.len, ENTRIES_AT + 52 + 12 + 4);
	assert_int_equal(le32(out.data + BODY_AT + 4), 52 + 12 + 4);
	talloc_free(mem);
}

static void test_utf16(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	/* U+00E9 (2 bytes), U+20AC (3), U+1F600 (4: a surrogate pair). */
	const char *names[] = {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"};
	const uint32_t actions[] = {2};
	static const uint16_t want[] = {0x00e9, 0x20ac, 0xd83d, 0xde00};
	struct wire_buf out;

	(void)state;
	out_init(mem, &out);
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 1,
				       65536));
	check_entry(out.data + ENTRIES_AT, 0, 2, want, 4);
	talloc_free(mem);
}

/* A UTF-8 sequence cut by the name's end: the encoder stops at the NUL
 * and does not run into the next name. */
static void test_cut_utf8(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *names[] = {"\xf0\x9f", "b"};
	const uint32_t actions[] = {1, 2};
	static const uint16_t b[] = {'b'};
	struct wire_buf out;
	const uint8_t *e;

	(void)state;
	out_init(mem, &out);
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 2,
				       65536));
	e = out.data + ENTRIES_AT;
	assert_int_equal(le32(e + 8), 2); /* one unit from two bytes */
	assert_int_equal(le32(e), 16);
	check_entry(e + 16, 0, 2, b, 1);
	talloc_free(mem);
}

/* A name longer than 1022 UTF-16 units is cut there (notify_wire.h). */
static void test_long_name(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char *name = talloc_zero_size(mem, 2001);
	const char *names[1];
	const uint32_t actions[] = {1};
	struct wire_buf out;

	(void)state;
	memset(name, 'x', 2000);
	names[0] = name;
	out_init(mem, &out);
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 1,
				       65536));
	assert_int_equal(le32(out.data + ENTRIES_AT + 8), 2 * 1022);
	assert_int_equal(out.len, ENTRIES_AT + 12 + 2 * 1022);
	talloc_free(mem);
}

/* 3.3.5.19: entries that do not fit OutputBufferLength are not sent (the
 * handler answers STATUS_NOTIFY_ENUM_DIR); the buffer is left as it was.
 * The bound is the entries' bytes, the last entry's padding excluded. */
static void test_does_not_fit(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *names[] = {"a", "xy"};
	const uint32_t actions[] = {1, 1};
	struct wire_buf out;

	(void)state;
	out_init(mem, &out);
	/* 16 + 12 + 4 = 32 bytes. */
	assert_false(smb2_notify_encode(&out, HDR_AT, names, actions, 2, 31));
	assert_int_equal(out.len, BODY_AT);
	assert_false(out.failed);
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 2, 32));
	assert_int_equal(le32(out.data + BODY_AT + 4), 32);
	/* An empty list always fits, even in 0 bytes. */
	out.len = BODY_AT;
	assert_true(smb2_notify_encode(&out, HDR_AT, names, actions, 0, 0));
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_cut_utf8),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_does_not_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
