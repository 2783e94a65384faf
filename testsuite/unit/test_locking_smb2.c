/*
 * Unit tests for smbd/smb2/smb2_lock.c's request parsing (MS-SMB2 2.2.26) and
 * flag rules (3.3.5.14.2), with the cases smbtorture
 * smb2.lock.valid-request sends.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "smbd/smb2/smb2_lock.h"
#include "lib/wire.h"

#define S SMB2_LOCKFLAG_SHARED
#define X SMB2_LOCKFLAG_EXCLUSIVE
#define U SMB2_LOCKFLAG_UNLOCK
#define F SMB2_LOCKFLAG_FAIL_IMMEDIATELY

/* A LOCK body: StructureSize 48, count, sequence, FileId, elements. */
static size_t body(uint8_t *b, uint16_t count, const uint64_t *off,
		   const uint64_t *len, const uint32_t *flags, size_t n)
{
	size_t i, at = 24;

	memset(b, 0, 24 + 24 * (n == 0 ? 1 : n));
	put_le16(b, 48);
	put_le16(b + 2, count);
	put_le32(b + 4, 0x123ab1);
	for (i = 0; i < 16; i++) {
		b[8 + i] = (uint8_t)(0xa0 + i);
	}
	for (i = 0; i < n; i++, at += 24) {
		put_le64(b + at, off[i]);
		put_le64(b + at + 8, len[i]);
		put_le32(b + at + 16, flags[i]);
		put_le32(b + at + 20, 0x87654321); /* Reserved: ignored */
	}
	return n == 0 ? 48 : 24 + 24 * n;
}

static void test_parse(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint64_t off[2] = {UINT64_MAX, 9999}, len[2] = {UINT64_MAX, 1};
	uint32_t fl[2] = {X | F, U};
	struct smb2_lock_req r;
	uint8_t b[128];
	size_t n;

	n = body(b, 2, off, len, fl, 2);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
	assert_int_equal(r.count, 2);
	assert_int_equal(r.sequence, 0x123ab1);
	assert_int_equal(r.fid[0], 0xa0);
	assert_int_equal(r.fid[15], 0xaf);
	assert_false(r.unlock);
	assert_true(r.el[0].off == UINT64_MAX && r.el[0].len == UINT64_MAX);
	assert_int_equal(r.el[1].flags, U);
	/* Mixed lock and unlock: the lock check refuses it. */
	assert_int_equal(smb2_lock_check_locks(tmp, &r),
			 NT_STATUS_INVALID_PARAMETER);

	/* The first element decides: an unlock request. */
	fl[0] = U;
	fl[1] = 0;
	n = body(b, 2, off, len, fl, 2);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
	assert_true(r.unlock);

	/* LockCount 0, elements missing, a short body, a wrong size. */
	n = body(b, 0, off, len, fl, 0);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r),
			 NT_STATUS_INVALID_PARAMETER);
	n = body(b, 3, off, len, fl, 2);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r),
			 NT_STATUS_INVALID_PARAMETER);
	n = body(b, 1, off, len, fl, 1);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
	for (; n > 0; n--) {
		assert_int_equal(smb2_lock_parse(tmp, b, n - 1, &r),
				 NT_STATUS_INVALID_PARAMETER);
	}
	n = body(b, 1, off, len, fl, 1);
	put_le16(b, 49);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

static void test_lock_flags(void **state)
{
	static const struct {
		uint32_t flags;
		NTSTATUS st;
		bool blocking;
	} one[] = {
		{S, NT_STATUS_OK, true},
		{X, NT_STATUS_OK, true},
		{S | F, NT_STATUS_OK, false},
		{X | F, NT_STATUS_OK, false},
		{0, NT_STATUS_INVALID_PARAMETER, false},
		{F, NT_STATUS_INVALID_PARAMETER, false},
		{S | X, NT_STATUS_INVALID_PARAMETER, false},
		{S | X | F, NT_STATUS_INVALID_PARAMETER, false},
		{X | 0x8, NT_STATUS_INVALID_PARAMETER, false},
		{~(uint32_t)0x17, NT_STATUS_INVALID_PARAMETER, false},
	};
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint64_t off[2] = {1, 10}, len[2] = {1, 1};
	uint32_t fl[2];
	struct smb2_lock_req r;
	uint8_t b[128];
	size_t i, n;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		fl[0] = one[i].flags;
		n = body(b, 1, off, len, fl, 1);
		assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
		assert_false(r.unlock);
		assert_int_equal(smb2_lock_check_locks(tmp, &r), one[i].st);
		if (one[i].st == NT_STATUS_OK) {
			assert_int_equal(r.blocking, one[i].blocking);
			assert_int_equal(r.ranges[0].exclusive,
					 (one[i].flags & X) != 0);
			assert_true(r.ranges[0].off == 1 &&
				    r.ranges[0].len == 1);
		}
	}
	/* Several locks: each must fail immediately. */
	fl[0] = X | F;
	fl[1] = S | F;
	n = body(b, 2, off, len, fl, 2);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
	assert_int_equal(smb2_lock_check_locks(tmp, &r), NT_STATUS_OK);
	assert_false(r.blocking);
	assert_false(r.ranges[0].exclusive == r.ranges[1].exclusive);
	fl[1] = S;
	n = body(b, 2, off, len, fl, 2);
	assert_int_equal(smb2_lock_parse(tmp, b, n, &r), NT_STATUS_OK);
	assert_int_equal(smb2_lock_check_locks(tmp, &r),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_lock_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
