/*
 * Hex text to bytes for the auth unit tests' vectors (test_ntlmssp,
 * test_spnego, test_pac, test_ads, test_passdb): blanks and newlines
 * skipped, either case; a vector longer than max fails the test.
 * Include after <cmocka.h>.
 */
#ifndef TESTSUITE_UNIT_UNHEX_H
#define TESTSUITE_UNIT_UNHEX_H

#include <stddef.h>
#include <stdint.h>

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		char ch = *hex;
		int v;

		if (ch == ' ' || ch == '\n') {
			continue;
		}
		if (ch >= '0' && ch <= '9') {
			v = ch - '0';
		} else if (ch >= 'a' && ch <= 'f') {
			v = ch - 'a' + 10;
		} else {
			v = ch - 'A' + 10;
		}
		if (hi < 0) {
			hi = v;
		} else {
			assert_true(n < max);
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

#endif
