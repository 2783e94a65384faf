/*
 * Unit tests for lib/charset.c: the project's one UTF-8 decoder and its
 * one case mapping (issue 37), which the NTLMSSP and passdb code, the
 * name rules (vfs/name.c) and catia (vfs/catia.c) share.
 *
 * The decoder's rules are RFC 3629's (no overlong forms, no surrogates,
 * nothing past U+10FFFF); the case mapping keeps to the BMP as Windows'
 * upcase table does (a supplementary-plane letter is not mapped, as
 * RtlUpcaseUnicodeChar on its surrogate units leaves it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "lib/charset.h"

static size_t next(const char *s, size_t n, uint32_t *cp)
{
	return charset_utf8_next((const uint8_t *)s, n, cp);
}

static void test_decode_valid(void **state)
{
	uint32_t cp = 0;

	(void)state;
	assert_int_equal(next("A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(next("\xc3\xa9", 2, &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(next("\xe2\x82\xac", 3, &cp), 3);
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(next("\xf0\x9f\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(next("\xf4\x8f\xbf\xbf", 4, &cp), 4);
	assert_int_equal(cp, 0x10ffff);
}

static void test_decode_invalid(void **state)
{
	uint32_t cp = 0;

	(void)state;
	assert_int_equal(next("\x80", 1, &cp), 0);	  /* continuation */
	assert_int_equal(next("\xff", 1, &cp), 0);	  /* never valid */
	assert_int_equal(next("\xc0\xaf", 2, &cp), 0);	  /* overlong '/' */
	assert_int_equal(next("\xe0\x80\xaf", 3, &cp), 0); /* overlong */
	assert_int_equal(next("\xed\xa0\x80", 3, &cp), 0); /* surrogate */
	assert_int_equal(next("\xf4\x90\x80\x80", 4, &cp), 0); /* > 10FFFF */
	/* truncated by the bound, and by a NUL inside the bound */
	assert_int_equal(next("\xe2\x82\xac", 2, &cp), 0);
	assert_int_equal(next("\xe2\x82", 4, &cp), 0);
	assert_int_equal(next("", 0, &cp), 0);
}

static void test_encode(void **state)
{
	static const uint32_t cps[] = {0x24, 0xa2, 0x20ac, 0x10348, 0x7f,
				       0x80, 0x7ff, 0x800, 0xffff, 0x10000};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		uint8_t buf[4];
		uint32_t back = 0;
		size_t n = charset_utf8_put(cps[i], buf);

		assert_int_equal(charset_utf8_next(buf, n, &back), n);
		assert_int_equal(back, cps[i]);
	}
}

static void test_case_bmp(void **state)
{
	(void)state;
	assert_int_equal(charset_toupper('q'), 'Q');
	assert_int_equal(charset_tolower('Q'), 'q');
	assert_int_equal(charset_toupper(0x3c9), 0x3a9);	/* omega */
	assert_int_equal(charset_tolower(0xc9), 0xe9);		/* E acute */
	/* Deseret: has a case pair, outside the BMP: not mapped */
	assert_int_equal(charset_toupper(0x10428), 0x10428);
	assert_int_equal(charset_tolower(0x10400), 0x10400);
	/* surrogate values are not characters */
	assert_int_equal(charset_toupper(0xd800), 0xd800);
}

static void test_strcase(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);

	(void)state;
	assert_string_equal(charset_strupper(ctx, "user\xc3\xa9"),
			    "USER\xc3\x89");
	assert_string_equal(charset_strlower(ctx, "\xc3\x89RIC"),
			    "\xc3\xa9ric");
	/* U+023A (2 bytes) lowers to U+2C65 (3 bytes): the string grows */
	assert_string_equal(charset_strlower(ctx, "\xc8\xba\xc8\xba"),
			    "\xe2\xb1\xa5\xe2\xb1\xa5");
	/* the supplementary plane is left as it is */
	assert_string_equal(charset_strupper(ctx, "\xf0\x90\x90\xa8"),
			    "\xf0\x90\x90\xa8");
	assert_null(charset_strupper(ctx, "a\xff"));
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_valid),
		cmocka_unit_test(test_decode_invalid),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_case_bmp),
		cmocka_unit_test(test_strcase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
