/* lib/num.h: strtoll/strtoull that say whether the number fit, and leave
 * everything else (base, *end, sign) as the C library does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include "lib/num.h"

static void test_strtoll(void **state)
{
	long long v;
	char *end;

	(void)state;
	assert_true(num_strtoll("42", &end, 10, &v));
	assert_int_equal(v, 42);
	assert_int_equal(*end, '\0');
	assert_true(num_strtoll("0x1f rest", &end, 0, &v));
	assert_int_equal(v, 31);
	assert_string_equal(end, " rest");
	assert_true(num_strtoll("-9223372036854775808", &end, 10, &v));
	assert_true(v == LLONG_MIN);
	/* Overflow: false, the value clamped as strtoll clamps it. */
	assert_false(num_strtoll("9223372036854775808", &end, 10, &v));
	assert_true(v == LLONG_MAX);
	assert_false(num_strtoll("-99999999999999999999", &end, 10, &v));
	assert_true(v == LLONG_MIN);
	/* Nothing read is no overflow: 0, *end at the start. */
	assert_true(num_strtoll("x", &end, 10, &v));
	assert_int_equal(v, 0);
	assert_string_equal(end, "x");
}

static void test_strtoull(void **state)
{
	unsigned long long v;
	char *end;

	(void)state;
	assert_true(num_strtoull("18446744073709551615", &end, 10, &v));
	assert_true(v == ULLONG_MAX);
	assert_false(num_strtoull("18446744073709551616", &end, 10, &v));
	assert_true(v == ULLONG_MAX);
	assert_true(num_strtoull("21-5", &end, 10, &v));
	assert_int_equal(v, 21);
	assert_string_equal(end, "-5");
	/* An earlier failure's errno does not leak into the answer. */
	errno = ERANGE;
	assert_true(num_strtoull("7", &end, 10, &v));
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strtoll),
		cmocka_unit_test(test_strtoull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
