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

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
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

/*
 * The NTLMv2 computation of the Microsoft Open Specifications blog "SMB 2
 * and SMB 3 security in Windows 10: the anatomy of signing and
 * cryptographic keys" (appendix "NTLMv2 SessionKey calculation example"),
 * step by step with MD4, HMAC-MD5, RC4 and MD5 (MS-NLMP 3.3.2, 3.4.5).
 */
static void test_ntlmv2_blog(void **state)
{
	static const char pw[] = "Password01!";
	static const char userdom[] = "ADMINISTRATORSUT311";
	static const char *temp_hex =
		"0101000000000000A1A1F5ADCBAED001"
		"BC4AD05F223CC90F0000000002000C00"
		"53005500540033003100310001000C00"
		"53005500540033003100310004000C00"
		"53005500540033003100310003000C00"
		"53005500540033003100310007000800"
		"A1A1F5ADCBAED0010600040002000000"
		"08003000300000000000000000000000"
		"00300000B61FEFCAA857EA57BF1EDCEB"
		"F8974B8E0EBA5A6DFD9D07A31D11B548"
		"F8C9D0CC0A0010000000000000000000"
		"00000000000000000900160063006900"
		"660073002F00530055005400330031003100000000000000000000000000";
	static const char server_sign[] =
		"session key to server-to-client signing key magic constant";
	static const char client_seal[] =
		"session key to client-to-server sealing key magic constant";
	uint8_t u16[64], chal[8], temp[256], nthash[16], ntowf[16], proof[16];
	uint8_t sbk[16], key[16], out[16], buf[128];
	struct crypto_iov iov[2];
	size_t i, tlen;

	for (i = 0; pw[i] != '\0'; i++) {
		u16[2 * i] = (uint8_t)pw[i];
		u16[2 * i + 1] = 0;
	}
	crypto_md4(u16, 2 * i, nthash);
	assert_hex(nthash, 16, "7C4FE5EADA682714A036E39378362BAB");

	for (i = 0; userdom[i] != '\0'; i++) {
		u16[2 * i] = (uint8_t)userdom[i];
		u16[2 * i + 1] = 0;
	}
	iov[0] = (struct crypto_iov){u16, 2 * i};
	crypto_hmac_md5(nthash, 16, iov, 1, ntowf);
	assert_hex(ntowf, 16, "AEE3959B44A815F1EB28C9511B4F533B");

	unhex("0D1D8BA31179D008", chal, 8);
	tlen = unhex(temp_hex, temp, sizeof(temp));
	iov[0] = (struct crypto_iov){chal, 8};
	iov[1] = (struct crypto_iov){temp, tlen};
	crypto_hmac_md5(ntowf, 16, iov, 2, proof);
	assert_hex(proof, 16, "63078EB639FE03E20A231C3AE3BF2308");

	iov[0] = (struct crypto_iov){proof, 16};
	crypto_hmac_md5(ntowf, 16, iov, 1, sbk);
	assert_hex(sbk, 16, "B4CF22566926B1C069ACD80E4D73C814");

	/* ExportedSessionKey =
	 * RC4(KeyExchangeKey, EncryptedRandomSessionKey) */
	unhex("3B9BDFF38F5EE8F9663F11A0F4C03A78", key, 16);
	crypto_rc4_oneshot(sbk, 16, key, 16);
	assert_hex(key, 16, "270E1BA896585EEB7AF3472D3B4C75A7");

	/* SIGNKEY/SEALKEY: MD5(key || magic constant including its NUL). */
	memcpy(buf, key, 16);
	memcpy(buf + 16, server_sign, sizeof(server_sign));
	crypto_md5(buf, 16 + sizeof(server_sign), out);
	assert_hex(out, 16, "E1BD8B416B0B709D295E12F2CF18E6C5");
	memcpy(buf + 16, client_seal, sizeof(client_seal));
	crypto_md5(buf, 16 + sizeof(client_seal), out);
	assert_hex(out, 16, "31E5557D99BE13F1B2665C7C7C52CE70");
}

/* RFC 4493 section 4, all four examples, also fed in pieces. */
/* OpenSSL's own CMAC, the reference for the bulk one in lib/crypto.c. */
static void ref_cmac(const uint8_t key[16], const uint8_t *m, size_t len,
		     uint8_t out[16])
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
	OSSL_PARAM params[2];
	size_t outl = 0;

	params[0] = OSSL_PARAM_construct_utf8_string("cipher", "AES-128-CBC",
						     0);
	params[1] = OSSL_PARAM_construct_end();
	assert_int_equal(EVP_MAC_init(ctx, key, 16, params), 1);
	assert_int_equal(EVP_MAC_update(ctx, m, len), 1);
	assert_int_equal(EVP_MAC_final(ctx, out, &outl, 16), 1);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

/* Sizes around the 16-byte blocks and the 4096-byte chunks, whole and
 * cut into iovs at odd places, against OpenSSL's CMAC. */
static void test_aes_cmac_bulk(void **state)
{
	static const size_t sizes[] = {1,    15,   16,   17,   31,    32,
				       33,   4095, 4096, 4097, 4111,  4112,
				       4113, 8192, 8193, 65536, 1048576 + 5};
	uint8_t key[16], want[16], got[16], *m;
	struct crypto_iov iov[5];
	size_t i, cut;

	(void)state;
	m = malloc(sizes[sizeof(sizes) / sizeof(sizes[0]) - 1]);
	assert_non_null(m);
	for (i = 0; i < 16; i++) {
		key[i] = (uint8_t)(i * 7 + 1);
	}
	for (i = 0; i < sizes[sizeof(sizes) / sizeof(sizes[0]) - 1]; i++) {
		m[i] = (uint8_t)(i * 2654435761u >> 24);
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];

		ref_cmac(key, m, n, want);
		iov[0] = (struct crypto_iov){m, n};
		crypto_aes_cmac(key, iov, 1, got);
		assert_memory_equal(got, want, 16);
		cut = n / 3;
		iov[0] = (struct crypto_iov){m, cut};
		iov[1] = (struct crypto_iov){m + cut, 0};
		iov[2] = (struct crypto_iov){m + cut, n - cut - n / 7};
		iov[3] = (struct crypto_iov){m + n - n / 7, n / 7};
		iov[4] = (struct crypto_iov){m + n, 0};
		crypto_aes_cmac(key, iov, 5, got);
		assert_memory_equal(got, want, 16);
	}
	free(m);
}

static void test_aes_cmac(void **state)
{
	static const char *msg_hex =
		"6bc1bee22e409f96e93d7e117393172a"
		"ae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52ef"
		"f69f2445df4f9b17ad2b417be66c3710";
	uint8_t key[16], msg[64], out[16];
	struct crypto_iov iov, split[4];

	unhex("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
	unhex(msg_hex, msg, 64);
	iov = (struct crypto_iov){msg, 0};
	crypto_aes_cmac(key, &iov, 1, out);
	assert_hex(out, 16, "bb1d6929e95937287fa37d129b756746");
	crypto_aes_cmac(key, NULL, 0, out);
	assert_hex(out, 16, "bb1d6929e95937287fa37d129b756746");
	iov.len = 16;
	crypto_aes_cmac(key, &iov, 1, out);
	assert_hex(out, 16, "070a16b46b4d4144f79bdd9dd04a287c");
	iov.len = 40;
	crypto_aes_cmac(key, &iov, 1, out);
	assert_hex(out, 16, "dfa66747de9ae63030ca32611497c827");
	iov.len = 64;
	crypto_aes_cmac(key, &iov, 1, out);
	assert_hex(out, 16, "51f0bebf7e3b9d92fc49741779363cfe");

	split[0] = (struct crypto_iov){msg, 1};
	split[1] = (struct crypto_iov){msg + 1, 30};
	split[2] = (struct crypto_iov){msg + 31, 0};
	split[3] = (struct crypto_iov){msg + 31, 33};
	crypto_aes_cmac(key, split, 4, out);
	assert_hex(out, 16, "51f0bebf7e3b9d92fc49741779363cfe");
}

/* The KDF against OpenSSL's own SP800-108 implementation (KBKDF). */
static void kbkdf_ref(const uint8_t *key, size_t keylen, const char *label,
		      size_t llen, const uint8_t *ctx, size_t clen,
		      uint8_t *out, size_t outlen)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "KBKDF", NULL);
	EVP_KDF_CTX *kctx;
	OSSL_PARAM p[7], *q = p;

	assert_non_null(kdf);
	kctx = EVP_KDF_CTX_new(kdf);
	assert_non_null(kctx);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
						 (char *)"counter", 0);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC,
						 (char *)"HMAC", 0);
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
						 (char *)"SHA256", 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						  (void *)key, keylen);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
						  (void *)label, llen);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
						  (void *)ctx, clen);
	*q = OSSL_PARAM_construct_end();
	assert_int_equal(EVP_KDF_derive(kctx, out, outlen, p), 1);
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
}

static void test_kdf(void **state)
{
	static const size_t lens[] = {16, 32, 33, 48, 64, 100};
	uint8_t key[16], ctx[64], a[100], b[100];
	size_t i;

	/* [anatomy blog] SMB 3.0 SigningKey from SessionKey. */
	unhex("7CD451825D0450D235424E44BA6E78CC", key, 16);
	crypto_kdf_sp800_108(key, 16, "SMB2AESCMAC", 12, "SmbSign", 8, a, 16);
	assert_hex(a, 16, "0B7E9C5CAC36C0F6EA9AB275298CEDCE");

	for (i = 0; i < sizeof(ctx); i++) {
		ctx[i] = (uint8_t)(i * 7);
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		crypto_kdf_sp800_108(key, 16, "SMBS2CCipherKey", 16, ctx, 64,
				     a, lens[i]);
		kbkdf_ref(key, 16, "SMBS2CCipherKey", 16, ctx, 64, b, lens[i]);
		assert_memory_equal(a, b, lens[i]);
	}
	/* Longer key (Kerberos full session key), empty context. */
	crypto_kdf_sp800_108(ctx, 32, "L", 1, NULL, 0, a, 32);
	kbkdf_ref(ctx, 32, "L", 1, NULL, 0, b, 32);
	assert_memory_equal(a, b, 32);
}

struct aead_vec {
	enum crypto_cipher c;
	const char *key, *nonce, *aad, *pt, *ct, *tag;
};

/*
 * GCM: "The Galois/Counter Mode of Operation" (McGrew, Viega), appendix B
 * test cases 2, 3, 4 (AES-128), 13, 14 (AES-256) with the 96-bit IVs SMB
 * uses.  CCM: no published vector has SMB's 11-byte nonce and 16-byte tag,
 * so these were computed with PyCryptodome (its own AES, not OpenSSL).
 */
static const struct aead_vec aead_vecs[] = {
	{CRYPTO_AES128_GCM, "00000000000000000000000000000000",
	 "000000000000000000000000", "", "00000000000000000000000000000000",
	 "0388dace60b6a392f328c2b971b2fe78",
	 "ab6e47d42cec13bdf53a67b21257bddf"},
	{CRYPTO_AES128_GCM, "feffe9928665731c6d6a8f9467308308",
	 "cafebabefacedbaddecaf888", "",
	 "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	 "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
	 "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	 "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	 "4d5c2af327cd64a62cf35abd2ba6fab4"},
	{CRYPTO_AES128_GCM, "feffe9928665731c6d6a8f9467308308",
	 "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	 "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	 "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	 "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	 "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	 "5bc94fbc3221a5db94fae95ae7121a47"},
	{CRYPTO_AES256_GCM,
	 "0000000000000000000000000000000000000000000000000000000000000000",
	 "000000000000000000000000", "", "", "",
	 "530f8afbc74536b9a963b4f1c4cb738b"},
	{CRYPTO_AES256_GCM,
	 "0000000000000000000000000000000000000000000000000000000000000000",
	 "000000000000000000000000", "", "00000000000000000000000000000000",
	 "cea7403d4d606b6e074ec5d3baf39d18",
	 "d0d1c8a799996bf0265b98b5d48ab919"},
	{CRYPTO_AES128_CCM, "000102030405060708090a0b0c0d0e0f",
	 "101112131415161718191a", "6164646974696f6e616c2064617461",
	 "534d42332043434d20706c61696e74657874206f66203337206279746573206c"
	 "6f6e672121",
	 "1f223fe8e0fe12e6ae7c85024b0deacb591cf83629fd49d8ca22ff77f88bf286"
	 "66a4139b62",
	 "a56a0a9b50087fbd75f4481b8ce46588"},
	{CRYPTO_AES128_CCM, "000102030405060708090a0b0c0d0e0f",
	 "101112131415161718191a", "6164646974696f6e616c2064617461", "", "",
	 "f393fe30fdfbe2b267928c9b58e3af5c"},
	{CRYPTO_AES256_CCM,
	 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	 "101112131415161718191a", "6164646974696f6e616c2064617461",
	 "534d42332043434d20706c61696e74657874206f66203337206279746573206c"
	 "6f6e672121",
	 "7413adab6f855e474f091ec48b10a1f95ba7ef1e1ab79e148130f5653eb1b3d8"
	 "c879fa09ab",
	 "ca4c3a6ff8d0515f4f876525e0302533"},
};

static void test_aead_vectors(void **state)
{
	size_t v;

	for (v = 0; v < sizeof(aead_vecs) / sizeof(aead_vecs[0]); v++) {
		const struct aead_vec *t = &aead_vecs[v];
		uint8_t key[32], nonce[12], aad[64], buf[128], ref[128];
		uint8_t out[128], tag[16], tag2[16];
		size_t kl, nl, al, pl;

		kl = unhex(t->key, key, sizeof(key));
		nl = unhex(t->nonce, nonce, sizeof(nonce));
		al = unhex(t->aad, aad, sizeof(aad));
		pl = unhex(t->pt, buf, sizeof(buf));
		assert_int_equal(kl, crypto_cipher_key_len(t->c));
		assert_int_equal(nl, crypto_cipher_nonce_len(t->c));
		assert_true(crypto_aead_encrypt(t->c, key, nonce, aad, al, buf,
						pl, tag));
		assert_hex(buf, pl, t->ct);
		assert_hex(tag, 16, t->tag);
		/* out of place: the same ciphertext and tag, the input kept */
		unhex(t->pt, ref, sizeof(ref));
		memset(out, 0xa5, sizeof(out));
		assert_true(crypto_aead_encrypt_to(t->c, key, nonce, aad, al,
						   ref, out, pl, tag2));
		assert_hex(out, pl, t->ct);
		assert_hex(tag2, 16, t->tag);
		assert_int_equal(out[pl], 0xa5);
		assert_true(crypto_aead_decrypt(t->c, key, nonce, aad, al, buf,
						pl, tag));
		unhex(t->pt, ref, sizeof(ref));
		assert_memory_equal(buf, ref, pl);
	}
}

/* Round trip every cipher; every flipped bit of tag/aad/data/nonce/key
 * fails authentication, and a failed decrypt leaves no plaintext. */
static void test_aead_tamper(void **state)
{
	enum crypto_cipher c;

	for (c = CRYPTO_AES128_CCM; c <= CRYPTO_AES256_GCM; c++) {
		uint8_t key[32], nonce[12], aad[32], pt[100], buf[100];
		uint8_t tag[16];
		size_t i;

		crypto_random(key, sizeof(key));
		crypto_random(nonce, sizeof(nonce));
		crypto_random(aad, sizeof(aad));
		crypto_random(pt, sizeof(pt));
		memcpy(buf, pt, sizeof(pt));
		assert_true(crypto_aead_encrypt(c, key, nonce, aad, 32, buf,
						100, tag));
		assert_memory_not_equal(buf, pt, 100);

#define EXPECT_FAIL(stmt)                                                     \
	do {                                                                  \
		uint8_t tmp[100];                                             \
		memcpy(tmp, buf, 100);                                        \
		stmt;                                                         \
		assert_false(crypto_aead_decrypt(c, key, nonce, aad, 32, tmp, \
						 100, tag));                  \
		stmt;                                                         \
		for (size_t z = 0; z < 100; z++) {                            \
			assert_int_equal(tmp[z], 0);                          \
		}                                                             \
	} while (0)

		for (i = 0; i < 16; i++) {
			EXPECT_FAIL(tag[i] ^= 1);
		}
		for (i = 0; i < 32; i++) {
			EXPECT_FAIL(aad[i] ^= 0x40);
		}
		for (i = 0; i < crypto_cipher_nonce_len(c); i++) {
			EXPECT_FAIL(nonce[i] ^= 2);
		}
		EXPECT_FAIL(key[0] ^= 1);
		for (i = 0; i < 100; i++) {
			uint8_t tmp[100];

			memcpy(tmp, buf, 100);
			tmp[i] ^= 0x80;
			assert_false(crypto_aead_decrypt(c, key, nonce, aad, 32,
							 tmp, 100, tag));
		}
#undef EXPECT_FAIL
		/* Shorter AAD or data is a different message. */
		{
			uint8_t tmp[100];

			memcpy(tmp, buf, 100);
			assert_false(crypto_aead_decrypt(c, key, nonce, aad, 31,
							 tmp, 100, tag));
			memcpy(tmp, buf, 100);
			assert_false(crypto_aead_decrypt(c, key, nonce, aad, 32,
							 tmp, 99, tag));
		}
		/* And the untouched message still decrypts (state is clean). */
		assert_true(crypto_aead_decrypt(c, key, nonce, aad, 32, buf,
						100, tag));
		assert_memory_equal(buf, pt, 100);
	}
	/* Unknown ciphers are refused. */
	{
		uint8_t k[32] = {0}, n[12] = {0}, d[4] = {0}, t[16];

		assert_false(crypto_aead_encrypt((enum crypto_cipher)0, k, n,
						 NULL, 0, d, 4, t));
		assert_false(crypto_aead_encrypt((enum crypto_cipher)5, k, n,
						 NULL, 0, d, 4, t));
		assert_false(crypto_aead_decrypt((enum crypto_cipher)5, k, n,
						 NULL, 0, d, 4, t));
		assert_int_equal(crypto_cipher_key_len((enum crypto_cipher)7),
				 0);
		assert_int_equal(crypto_cipher_nonce_len((enum crypto_cipher)0),
				 0);
	}
}

/* GMAC = GCM tag over AAD only; the McGrew-Viega test case 1 tag. */
static void test_aes_gmac(void **state)
{
	uint8_t key[16] = {0}, nonce[12] = {0}, out[16], tag[16], aad[77];
	struct crypto_iov iov[3];

	crypto_aes_gmac(key, nonce, NULL, 0, out);
	assert_hex(out, 16, "58e2fccefa7e3061367f1d57a4e7455a");

	crypto_random(key, 16);
	crypto_random(nonce, 12);
	crypto_random(aad, sizeof(aad));
	assert_true(crypto_aead_encrypt(CRYPTO_AES128_GCM, key, nonce, aad,
					sizeof(aad), NULL, 0, tag));
	iov[0] = (struct crypto_iov){aad, 5};
	iov[1] = (struct crypto_iov){aad + 5, 0};
	iov[2] = (struct crypto_iov){aad + 5, sizeof(aad) - 5};
	crypto_aes_gmac(key, nonce, iov, 3, out);
	assert_memory_equal(out, tag, 16);
	nonce[11] ^= 1;
	crypto_aes_gmac(key, nonce, iov, 3, out);
	assert_memory_not_equal(out, tag, 16);
}

/* Per-thread contexts: many threads hashing and encrypting at once. */
static void *thread_worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 300; i++) {
		uint8_t out[32], key[16], buf[16] = {0}, tag[16];
		struct crypto_iov iov = {"Hi There", 8};

		crypto_md4("abc", 3, out);
		if (memcmp(out, "\xa4\x48\x01\x7a", 4) != 0) {
			return (void *)1;
		}
		memset(key, 0x0b, 16);
		crypto_hmac_md5(key, 16, &iov, 1, out);
		if (memcmp(out, "\x92\x94\x72\x7a", 4) != 0) {
			return (void *)2;
		}
		memset(key, 0, 16);
		if (!crypto_aead_encrypt(CRYPTO_AES128_GCM, key, buf, NULL, 0,
					 buf, 16, tag) ||
		    memcmp(tag, "\xab\x6e\x47\xd4", 4) != 0) {
			return (void *)3;
		}
		crypto_aes_gmac(key, key, NULL, 0, out);
		if (memcmp(out, "\x58\xe2\xfc\xce", 4) != 0) {
			return (void *)4;
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[8];
	void *ret;
	int i;

	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_create(&th[i], NULL, thread_worker,
						NULL),
				 0);
	}
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
}

/*
 * Initialised (and used) before fork: the child keeps working, and its
 * random stream is not a copy of the parent's (OpenSSL reseeds its DRBG on
 * fork: the master forks the workers after crypto_init()).
 */
static void test_fork(void **state)
{
	uint8_t out[16], mine[16], childs[16];
	int status, fds[2];
	pid_t pid;

	crypto_md4("abc", 3, out);
	crypto_random(mine, 16);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint8_t r[16];

		crypto_random(r, 16);
		crypto_md4("abc", 3, out);
		if (write(fds[1], r, 16) != 16) {
			_exit(2);
		}
		_exit(memcmp(out, "\xa4\x48\x01\x7a", 4) == 0 ? 0 : 1);
	}
	close(fds[1]);
	crypto_random(mine, 16);
	assert_int_equal(read(fds[0], childs, 16), 16);
	close(fds[0]);
	assert_memory_not_equal(mine, childs, 16);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
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
		cmocka_unit_test(test_ntlmv2_blog),
		cmocka_unit_test(test_aes_cmac),
		cmocka_unit_test(test_aes_cmac_bulk),
		cmocka_unit_test(test_kdf),
		cmocka_unit_test(test_aead_vectors),
		cmocka_unit_test(test_aead_tamper),
		cmocka_unit_test(test_aes_gmac),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
