/*
 * vfs/snapshot.c: @GMT tokens (parse, format, taken out of paths) and the
 * TWrp FILETIME conversion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vfs/snapshot.h"

/* 2024-01-02 03:04:05 UTC */
#define T_2024 1704164645LL

static bool parse(const char *s, int64_t *t)
{
	return vfs_gmt_token_parse(s, strlen(s), t);
}

static void test_token_parse(void **state)
{
	static const char *const bad[] = {
		"", "@GMT-", "@GMT-2024.01.02-03.04.0", "@GMT-2024.01.02-03.04.055",
		"@gmt-2024.01.02-03.04.05", "@GMT_2024.01.02-03.04.05",
		"@GMT-2024-01-02-03.04.05", "@GMT-2024.13.02-03.04.05",
		"@GMT-2024.00.02-03.04.05", "@GMT-2023.02.29-03.04.05",
		"@GMT-2024.02.30-00.00.00", "@GMT-2024.01.02-24.00.00",
		"@GMT-2024.01.02-03.60.05", "@GMT-2024.01.02-03.04.61",
		"@GMT-2024.01.02-03.04.+5", "@GMT-2024.01.02 03.04.05",
		"@GMT-2024.01.0x-03.04.05",
	};
	int64_t t;
	size_t i;

	(void)state;
	assert_true(parse("@GMT-2024.01.02-03.04.05", &t));
	assert_int_equal(t, T_2024);
	assert_true(parse("@GMT-1970.01.01-00.00.00", &t));
	assert_int_equal(t, 0);
	assert_true(parse("@GMT-2024.02.29-23.59.59", &t));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(parse(bad[i], &t));
	}
	/* the length is the caller's: a token inside a longer string */
	assert_true(vfs_gmt_token_parse("@GMT-2024.01.02-03.04.05/x", 24, &t));
	assert_false(vfs_gmt_token_parse("@GMT-2024.01.02-03.04.05/x", 26, &t));
}

static void test_token_format(void **state)
{
	char tok[VFS_GMT_TOKEN_LEN + 1];
	int64_t t;

	(void)state;
	assert_true(vfs_gmt_token_format(T_2024, tok));
	assert_string_equal(tok, "@GMT-2024.01.02-03.04.05");
	assert_true(vfs_gmt_token_format(0, tok));
	assert_string_equal(tok, "@GMT-1970.01.01-00.00.00");
	/* the year 10000 has no token */
	assert_false(vfs_gmt_token_format(253402300800LL, tok));
	assert_true(vfs_gmt_token_format(253402300799LL, tok));
	assert_string_equal(tok, "@GMT-9999.12.31-23.59.59");
	assert_true(parse(tok, &t));
	assert_int_equal(t, 253402300799LL);
}

static void strip_ok(const char *in, const char *want, bool want_found)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char *out;
	bool found;
	int64_t t;

	assert_true(NT_STATUS_IS_OK(vfs_gmt_strip(mem, in, &out, &found, &t)));
	assert_string_equal(out, want);
	assert_int_equal(found, want_found);
	if (found) {
		assert_int_equal(t, T_2024);
	}
	talloc_free(mem);
}

static void test_strip(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char *out;
	bool found;
	int64_t t;

	(void)state;
	strip_ok("@GMT-2024.01.02-03.04.05/dir/f.txt", "dir/f.txt", true);
	strip_ok("dir/@GMT-2024.01.02-03.04.05/f.txt", "dir/f.txt", true);
	strip_ok("dir/f.txt/@GMT-2024.01.02-03.04.05", "dir/f.txt", true);
	strip_ok("@GMT-2024.01.02-03.04.05", "", true);
	/* the same token twice names one snapshot */
	strip_ok("@GMT-2024.01.02-03.04.05/a/@GMT-2024.01.02-03.04.05", "a",
		 true);
	strip_ok("dir/f.txt", "dir/f.txt", false);
	strip_ok("", "", false);
	/* only a whole component is a token */
	strip_ok("@GMT-2024.01.02-03.04.05x/f", "@GMT-2024.01.02-03.04.05x/f",
		 false);
	strip_ok("x@GMT-2024.01.02-03.04.05/f", "x@GMT-2024.01.02-03.04.05/f",
		 false);
	assert_int_equal(vfs_gmt_strip(mem, "@GMT-2024.01.02-03.04.05/"
					    "@GMT-2024.01.02-03.04.06/f",
				       &out, &found, &t),
			 NT_STATUS_OBJECT_NAME_INVALID);
	talloc_free(mem);
}

static void test_filetime(void **state)
{
	(void)state;
	assert_int_equal(vfs_filetime_to_unix(116444736000000000ULL), 0);
	assert_int_equal(vfs_filetime_to_unix((uint64_t)(T_2024 +
							 11644473600LL) *
						      10000000ULL +
					      9999999ULL),
			 T_2024);
	assert_int_equal(vfs_filetime_to_unix(0), -11644473600LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_parse),
		cmocka_unit_test(test_token_format),
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_filetime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
