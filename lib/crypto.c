/*
 * Crypto glue over OpenSSL 3 libcrypto: see lib/crypto.h for the contract.
 *
 * Two kinds of state:
 *  - process-wide, read-only after crypto_init(): the private OSSL_LIB_CTX
 *    holding the legacy provider (MD4, RC4 for NTLM only) and every fetched
 *    EVP_MD/EVP_CIPHER/EVP_MAC.  Fetched algorithm objects are immutable
 *    and refcounted, so threads and forked workers share them freely.
 *  - per-thread: the EVP_*_CTX objects.  They are created on first use in a
 *    thread and then only re-initialised with a new key/IV on each call
 *    (EVP_*Init_ex2 with a NULL algorithm keeps the provider context), so
 *    AES-CCM/GCM encryption and AES-CMAC/GMAC signing cost no allocation
 *    per PDU (measured).  OpenSSL 3.0 still allocates in HMAC init (it
 *    copies the key and re-creates the inner digests) and in digest init;
 *    those serve SMB 2.0.2/2.1 signing, NTLM and the preauth hash, not
 *    the SMB3 data path.  A pthread key destructor frees the contexts when
 *    a thread exits.
 *
 * A context that hit an unexpected error is freed and recreated on the next
 * call, so a half-initialised state never leaks into the next operation.
 */
#include "lib/crypto.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "lib/log.h"
#include "lib/wire.h"

#define N_AEAD 5 /* indexed by enum crypto_cipher, slot 0 unused */

static struct {
	bool core_ok;	/* default-context algorithms fetched */
	bool legacy_ok; /* MD4/RC4 available */
	OSSL_LIB_CTX *legacy_ctx;
	OSSL_PROVIDER *legacy_prov;
	OSSL_PROVIDER *default_prov;
	EVP_MD *md4, *md5, *sha256, *sha512;
	EVP_CIPHER *rc4;
	EVP_CIPHER *des;	/* DES-ECB, NTLMv1 only (may be NULL) */
	EVP_CIPHER *aead[N_AEAD];
	EVP_MAC *hmac;
	EVP_CIPHER *aes128_cbc, *aes128_ecb; /* AES-CMAC, by hand */
	pthread_key_t tls_key;
} g;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

struct crypto_tls {
	EVP_MD_CTX *md4, *md5, *sha256, *sha512;
	EVP_MAC_CTX *hmac_md5, *hmac_sha256;
	EVP_CIPHER_CTX *cmac_cbc, *cmac_ecb;
	EVP_CIPHER_CTX *rc4;
	EVP_CIPHER_CTX *aead[N_AEAD];
};

static __thread struct crypto_tls *tls;

static const char *const aead_names[N_AEAD] = {
	[CRYPTO_AES128_CCM] = "AES-128-CCM",
	[CRYPTO_AES128_GCM] = "AES-128-GCM",
	[CRYPTO_AES256_CCM] = "AES-256-CCM",
	[CRYPTO_AES256_GCM] = "AES-256-GCM",
};

/* A non-NULL pointer for zero-length inputs: OpenSSL treats NULL as "none". */
static const uint8_t empty_buf[1];

static void log_openssl_errors(const char *what)
{
	unsigned long e;
	char buf[256];

	while ((e = ERR_get_error()) != 0) {
		ERR_error_string_n(e, buf, sizeof(buf));
		DBG_ERR("%s: %s\n", what, buf);
	}
}

__attribute__((noreturn)) static void crypto_fatal(const char *what)
{
	log_openssl_errors(what);
	DBG_ERR("fatal libcrypto failure in %s\n", what);
	abort();
}

static void tls_free(void *p)
{
	struct crypto_tls *t = p;
	size_t i;

	if (t == NULL) {
		return;
	}
	EVP_MD_CTX_free(t->md4);
	EVP_MD_CTX_free(t->md5);
	EVP_MD_CTX_free(t->sha256);
	EVP_MD_CTX_free(t->sha512);
	EVP_MAC_CTX_free(t->hmac_md5);
	EVP_MAC_CTX_free(t->hmac_sha256);
	EVP_CIPHER_CTX_free(t->cmac_cbc);
	EVP_CIPHER_CTX_free(t->cmac_ecb);
	EVP_CIPHER_CTX_free(t->rc4);
	for (i = 0; i < N_AEAD; i++) {
		EVP_CIPHER_CTX_free(t->aead[i]);
	}
	free(t);
	if (tls == t) {
		tls = NULL;
	}
}

static bool load_legacy(void)
{
	g.legacy_ctx = OSSL_LIB_CTX_new();
	if (g.legacy_ctx == NULL) {
		return false;
	}
	/*
	 * "default" too: a library context with only "legacy" loaded lacks
	 * the helpers some legacy algorithms fetch internally.
	 */
	g.legacy_prov = OSSL_PROVIDER_load(g.legacy_ctx, "legacy");
	g.default_prov = OSSL_PROVIDER_load(g.legacy_ctx, "default");
	if (g.legacy_prov == NULL || g.default_prov == NULL) {
		log_openssl_errors("OSSL_PROVIDER_load(legacy)");
		DBG_ERR("OpenSSL legacy provider not available: NTLM (MD4, "
			"RC4) will not work\n");
		return false;
	}
	g.md4 = EVP_MD_fetch(g.legacy_ctx, "MD4", NULL);
	g.rc4 = EVP_CIPHER_fetch(g.legacy_ctx, "RC4", NULL);
	/* Optional: without it NTLMv1 logons are refused. */
	g.des = EVP_CIPHER_fetch(g.legacy_ctx, "DES-ECB", NULL);
	if (g.des == NULL) {
		ERR_clear_error();
	}
	if (g.md4 == NULL || g.rc4 == NULL) {
		log_openssl_errors("fetch MD4/RC4");
		return false;
	}
	return true;
}

static bool fetch_core(void)
{
	size_t i;

	g.md5 = EVP_MD_fetch(NULL, "MD5", NULL);
	g.sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	g.sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
	g.hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	g.aes128_cbc = EVP_CIPHER_fetch(NULL, "AES-128-CBC", NULL);
	g.aes128_ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
	if (g.md5 == NULL || g.sha256 == NULL || g.sha512 == NULL ||
	    g.hmac == NULL || g.aes128_cbc == NULL || g.aes128_ecb == NULL) {
		log_openssl_errors("fetch digests/MACs");
		return false;
	}
	for (i = 1; i < N_AEAD; i++) {
		g.aead[i] = EVP_CIPHER_fetch(NULL, aead_names[i], NULL);
		if (g.aead[i] == NULL) {
			log_openssl_errors(aead_names[i]);
			return false;
		}
	}
	return true;
}

static void crypto_init_once(void)
{
	if (pthread_key_create(&g.tls_key, tls_free) != 0) {
		DBG_ERR("pthread_key_create failed\n");
		return;
	}
	g.core_ok = fetch_core();
	g.legacy_ok = load_legacy();
	if (g.core_ok) {
		DBG_INFO("libcrypto %s ready (legacy provider %s)\n",
			 OpenSSL_version(OPENSSL_VERSION),
			 g.legacy_ok ? "loaded" : "MISSING");
	}
}

bool crypto_init(void)
{
	pthread_once(&init_once, crypto_init_once);
	return g.core_ok && g.legacy_ok;
}

/* This thread's contexts; initialises the library on first use. */
static struct crypto_tls *tls_get(void)
{
	struct crypto_tls *t = tls;

	if (__builtin_expect(t != NULL, 1)) {
		return t;
	}
	pthread_once(&init_once, crypto_init_once);
	if (!g.core_ok) {
		crypto_fatal("crypto_init");
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		crypto_fatal("tls alloc");
	}
	(void)pthread_setspecific(g.tls_key, t);
	tls = t;
	return t;
}

static void need_legacy(void)
{
	tls_get();
	if (!g.legacy_ok) {
		crypto_fatal("MD4/RC4 requested but the legacy provider is "
			     "not loaded");
	}
}

void crypto_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		int n = len > INT_MAX ? INT_MAX : (int)len;

		if (RAND_bytes(p, n) != 1) {
			crypto_fatal("RAND_bytes");
		}
		p += n;
		len -= (size_t)n;
	}
}

bool crypto_memeq(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

/* ---- digests ---------------------------------------------------------- */

static void digest_iov(EVP_MD_CTX **slot, const EVP_MD *md,
		       const struct crypto_iov *iov, size_t niov, uint8_t *out)
{
	unsigned int outl;
	size_t i;

	if (*slot == NULL) {
		*slot = EVP_MD_CTX_new();
		if (*slot == NULL) {
			crypto_fatal("EVP_MD_CTX_new");
		}
	}
	/* Same EVP_MD as last time: OpenSSL reuses the provider context. */
	if (EVP_DigestInit_ex2(*slot, md, NULL) != 1) {
		crypto_fatal("EVP_DigestInit_ex2");
	}
	for (i = 0; i < niov; i++) {
		if (iov[i].len == 0) {
			continue;
		}
		if (EVP_DigestUpdate(*slot, iov[i].data, iov[i].len) != 1) {
			crypto_fatal("EVP_DigestUpdate");
		}
	}
	if (EVP_DigestFinal_ex(*slot, out, &outl) != 1) {
		crypto_fatal("EVP_DigestFinal_ex");
	}
}

void crypto_md4(const void *data, size_t len, uint8_t out[16])
{
	struct crypto_iov iov = {data, len};

	need_legacy();
	digest_iov(&tls->md4, g.md4, &iov, 1, out);
}

void crypto_md5(const void *data, size_t len, uint8_t out[16])
{
	struct crypto_iov iov = {data, len};
	struct crypto_tls *t = tls_get();

	digest_iov(&t->md5, g.md5, &iov, 1, out);
}

void crypto_sha256_iov(const struct crypto_iov *iov, size_t niov,
		       uint8_t out[32])
{
	struct crypto_tls *t = tls_get();

	digest_iov(&t->sha256, g.sha256, iov, niov, out);
}

void crypto_sha512_iov(const struct crypto_iov *iov, size_t niov,
		       uint8_t out[64])
{
	struct crypto_tls *t = tls_get();

	digest_iov(&t->sha512, g.sha512, iov, niov, out);
}

/* ---- MACs ------------------------------------------------------------- */

/* A MAC context bound once to its digest or cipher (by name, first use). */
static EVP_MAC_CTX *mac_ctx(EVP_MAC_CTX **slot, EVP_MAC *mac,
			    const char *param, const char *alg)
{
	OSSL_PARAM params[2];

	if (*slot != NULL) {
		return *slot;
	}
	*slot = EVP_MAC_CTX_new(mac);
	if (*slot == NULL) {
		crypto_fatal("EVP_MAC_CTX_new");
	}
	params[0] = OSSL_PARAM_construct_utf8_string(param, (char *)alg, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_MAC_CTX_set_params(*slot, params) != 1) {
		crypto_fatal(alg);
	}
	return *slot;
}

static void mac_iov(EVP_MAC_CTX *ctx, const uint8_t *key, size_t keylen,
		    const struct crypto_iov *iov, size_t niov, uint8_t *out,
		    size_t outsize)
{
	size_t outl, i;

	/* A NULL key would mean "keep the previous key": never want that. */
	if (EVP_MAC_init(ctx, key != NULL ? key : empty_buf, keylen, NULL) !=
	    1) {
		crypto_fatal("EVP_MAC_init");
	}
	for (i = 0; i < niov; i++) {
		if (iov[i].len == 0) {
			continue;
		}
		if (EVP_MAC_update(ctx, iov[i].data, iov[i].len) != 1) {
			crypto_fatal("EVP_MAC_update");
		}
	}
	if (EVP_MAC_final(ctx, out, &outl, outsize) != 1 || outl != outsize) {
		crypto_fatal("EVP_MAC_final");
	}
}

void crypto_hmac_md5(const uint8_t *key, size_t keylen,
		     const struct crypto_iov *iov, size_t niov, uint8_t out[16])
{
	struct crypto_tls *t = tls_get();
	EVP_MAC_CTX *ctx =
		mac_ctx(&t->hmac_md5, g.hmac, OSSL_MAC_PARAM_DIGEST, "MD5");

	mac_iov(ctx, key, keylen, iov, niov, out, 16);
}

void crypto_hmac_sha256(const uint8_t *key, size_t keylen,
			const struct crypto_iov *iov, size_t niov,
			uint8_t out[32])
{
	struct crypto_tls *t = tls_get();
	EVP_MAC_CTX *ctx = mac_ctx(&t->hmac_sha256, g.hmac,
				   OSSL_MAC_PARAM_DIGEST, "SHA256");

	mac_iov(ctx, key, keylen, iov, niov, out, 32);
}

/*
 * AES-CMAC (RFC 4493; MS-SMB2 3.1.4.1 signs with it).  OpenSSL 3.0's CMAC
 * feeds its cipher one 16-byte block per call, which made signing a
 * 1 MiB READ reply cost twice what the AES does (perf: EVP_Cipher and
 * its lookups per block).  CMAC is CBC-MAC with the last block changed,
 * so here every block but the last goes through AES-128-CBC in bulk (IV
 * zero, output into a scratch buffer, its last block the chaining
 * value), and the last block, XORed with subkey K1 (whole) or K2
 * (padded), is encrypted once more for the tag (RFC 4493 2.4).
 */
static EVP_CIPHER_CTX *cmac_cipher(EVP_CIPHER_CTX **slot,
				   const EVP_CIPHER *c, const uint8_t key[16])
{
	static const uint8_t zero_iv[16];

	if (*slot == NULL && (*slot = EVP_CIPHER_CTX_new()) == NULL) {
		crypto_fatal("EVP_CIPHER_CTX_new");
	}
	if (EVP_EncryptInit_ex2(*slot, c, key, zero_iv, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(*slot, 0) != 1) {
		crypto_fatal("AES-CMAC init");
	}
	return *slot;
}

static void aes_block(EVP_CIPHER_CTX *ecb, const uint8_t in[16],
		      uint8_t out[16])
{
	int outl;

	if (EVP_EncryptUpdate(ecb, out, &outl, in, 16) != 1 || outl != 16) {
		crypto_fatal("AES-CMAC block");
	}
}

/* RFC 4493 2.3: a subkey is the previous one doubled in GF(2^128). */
static void cmac_double(const uint8_t in[16], uint8_t out[16])
{
	uint8_t carry = in[0] >> 7;
	int i;

	for (i = 0; i < 15; i++) {
		out[i] = (uint8_t)(in[i] << 1 | in[i + 1] >> 7);
	}
	out[15] = (uint8_t)(in[15] << 1) ^ (carry ? 0x87 : 0);
}

/* CBC over prefix bytes (a multiple of 16) of the iovs; x: the last
 * ciphertext block (left as it is when prefix is 0).  Where the prefix
 * ends, *iv_at and *off say where the last block starts. */
static void cmac_prefix(EVP_CIPHER_CTX *cbc, const struct crypto_iov *iov,
			size_t niov, size_t prefix, uint8_t x[16],
			size_t *iv_at, size_t *off)
{
	uint8_t scratch[4096 + 16];
	size_t i = 0, o = 0;

	while (prefix > 0 && i < niov) {
		size_t n = iov[i].len - o;
		int outl;

		if (n > prefix) {
			n = prefix;
		}
		if (n > 4096) {
			n = 4096;
		}
		if (EVP_EncryptUpdate(cbc, scratch, &outl, iov[i].data + o,
				      (int)n) != 1) {
			crypto_fatal("AES-CMAC update");
		}
		if (outl >= 16) {
			memcpy(x, scratch + outl - 16, 16);
		}
		prefix -= n;
		o += n;
		if (o == iov[i].len) {
			i++;
			o = 0;
		}
	}
	*iv_at = i;
	*off = o;
}

void crypto_aes_cmac(const uint8_t key[16], const struct crypto_iov *iov,
		     size_t niov, uint8_t out[16])
{
	struct crypto_tls *t = tls_get();
	EVP_CIPHER_CTX *ecb = cmac_cipher(&t->cmac_ecb, g.aes128_ecb, key);
	uint8_t l[16] = {0}, k[16], x[16] = {0}, last[16] = {0};
	size_t total = 0, last_len, i, o, n = 0;

	for (i = 0; i < niov; i++) {
		total += iov[i].len;
	}
	last_len = total == 0 ? 0 : (total % 16 == 0 ? 16 : total % 16);
	if (total > last_len) {
		cmac_prefix(cmac_cipher(&t->cmac_cbc, g.aes128_cbc, key), iov,
			    niov, total - last_len, x, &i, &o);
	} else {
		i = 0;
		o = 0;
	}
	for (; i < niov && n < last_len; i++, o = 0) {
		size_t m = iov[i].len - o;

		if (m > last_len - n) {
			m = last_len - n;
		}
		memcpy(last + n, iov[i].data + o, m);
		n += m;
	}
	/* subkeys: L = AES(K, 0); K1 = 2L; K2 = 2K1 */
	aes_block(ecb, l, l);
	cmac_double(l, k);
	if (last_len < 16) {
		last[last_len] = 0x80;
		cmac_double(k, k);
	}
	for (i = 0; i < 16; i++) {
		x[i] ^= last[i] ^ k[i];
	}
	aes_block(ecb, x, out);
	explicit_bzero(l, sizeof(l));
	explicit_bzero(k, sizeof(k));
}

/* ---- RC4 -------------------------------------------------------------- */

struct crypto_rc4 {
	EVP_CIPHER_CTX *ctx;
};

static bool rc4_setup(EVP_CIPHER_CTX *ctx, const uint8_t *key, size_t keylen)
{
	/* RC4 keys are variable length: set it before the key goes in. */
	return EVP_EncryptInit_ex2(ctx, g.rc4, NULL, NULL, NULL) == 1 &&
	       EVP_CIPHER_CTX_set_key_length(ctx, (int)keylen) == 1 &&
	       EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL) == 1;
}

static void rc4_xor(EVP_CIPHER_CTX *ctx, uint8_t *data, size_t len)
{
	while (len > 0) {
		int n = len > INT_MAX ? INT_MAX : (int)len;
		int outl;

		if (EVP_EncryptUpdate(ctx, data, &outl, data, n) != 1 ||
		    outl != n) {
			crypto_fatal("RC4 update");
		}
		data += n;
		len -= (size_t)n;
	}
}

static int rc4_destructor(struct crypto_rc4 *st)
{
	EVP_CIPHER_CTX_free(st->ctx);
	st->ctx = NULL;
	return 0;
}

struct crypto_rc4 *crypto_rc4_new(TALLOC_CTX *mem_ctx, const uint8_t *key,
				  size_t keylen)
{
	struct crypto_rc4 *st;

	need_legacy();
	if (keylen == 0 || keylen > 256) {
		DBG_WARNING("bad RC4 key length %zu\n", keylen);
		return NULL;
	}
	st = talloc_zero(mem_ctx, struct crypto_rc4);
	if (st == NULL) {
		return NULL;
	}
	st->ctx = EVP_CIPHER_CTX_new();
	if (st->ctx == NULL) {
		TALLOC_FREE(st);
		return NULL;
	}
	talloc_set_destructor(st, rc4_destructor);
	if (!rc4_setup(st->ctx, key, keylen)) {
		log_openssl_errors("RC4 init");
		TALLOC_FREE(st);
		return NULL;
	}
	return st;
}

void crypto_rc4_update(struct crypto_rc4 *st, uint8_t *data, size_t len)
{
	rc4_xor(st->ctx, data, len);
}

void crypto_rc4_oneshot(const uint8_t *key, size_t keylen, uint8_t *data,
			size_t len)
{
	struct crypto_tls *t;

	need_legacy();
	t = tls;
	if (keylen == 0 || keylen > 256) {
		crypto_fatal("RC4 key length");
	}
	if (t->rc4 == NULL) {
		t->rc4 = EVP_CIPHER_CTX_new();
		if (t->rc4 == NULL) {
			crypto_fatal("EVP_CIPHER_CTX_new");
		}
	}
	if (!rc4_setup(t->rc4, key, keylen)) {
		crypto_fatal("RC4 init");
	}
	rc4_xor(t->rc4, data, len);
}

/* ---- DES (NTLMv1) ------------------------------------------------------- */

/* MS-NLMP 6 (DES with a 7-byte key): 56 key bits spread over 8 bytes,
 * the low bit of each (parity) left to DES. */
static void des_key56(const uint8_t k7[7], uint8_t k8[8])
{
	int i;

	k8[0] = k7[0];
	for (i = 1; i < 7; i++) {
		k8[i] = (uint8_t)((k7[i - 1] << (8 - i)) | (k7[i] >> i));
	}
	k8[7] = (uint8_t)(k7[6] << 1);
}

bool crypto_des_ecb7(const uint8_t key7[7], const uint8_t in[8],
		     uint8_t out[8])
{
	EVP_CIPHER_CTX *c;
	uint8_t k8[8];
	int n = 0, ok;

	tls_get();
	if (!g.legacy_ok || g.des == NULL) {
		return false;
	}
	des_key56(key7, k8);
	c = EVP_CIPHER_CTX_new();
	if (c == NULL) {
		return false;
	}
	ok = EVP_EncryptInit_ex2(c, g.des, k8, NULL, NULL) &&
	     EVP_CIPHER_CTX_set_padding(c, 0) &&
	     EVP_EncryptUpdate(c, out, &n, in, 8) && n == 8;
	EVP_CIPHER_CTX_free(c);
	OPENSSL_cleanse(k8, sizeof(k8));
	return ok;
}

/* ---- KDF -------------------------------------------------------------- */

void crypto_kdf_sp800_108(const uint8_t *key, size_t keylen, const void *label,
			  size_t label_len, const void *context, size_t ctx_len,
			  uint8_t *out, size_t out_len)
{
	static const uint8_t separator = 0;
	uint8_t i_be[4], l_be[4], block[32];
	struct crypto_iov iov[5] = {
		{i_be, 4},
		{label, label_len},
		{&separator, 1},
		{context, ctx_len},
		{l_be, 4},
	};
	uint32_t i;
	size_t off;

	/* [L]_4: the output length in bits, big-endian (SP800-108 5.1). */
	put_be32(l_be, (uint32_t)(out_len * 8));
	for (i = 1, off = 0; off < out_len; i++) {
		size_t n = out_len - off < 32 ? out_len - off : 32;

		put_be32(i_be, i);
		crypto_hmac_sha256(key, keylen, iov, 5, block);
		memcpy(out + off, block, n);
		off += n;
	}
	OPENSSL_cleanse(block, sizeof(block));
}

/* ---- AEAD ------------------------------------------------------------- */

static bool cipher_ok(enum crypto_cipher c)
{
	return c >= CRYPTO_AES128_CCM && c <= CRYPTO_AES256_GCM;
}

static bool is_ccm(enum crypto_cipher c)
{
	return c == CRYPTO_AES128_CCM || c == CRYPTO_AES256_CCM;
}

size_t crypto_cipher_key_len(enum crypto_cipher c)
{
	if (!cipher_ok(c)) {
		return 0;
	}
	return (c == CRYPTO_AES256_CCM || c == CRYPTO_AES256_GCM) ? 32 : 16;
}

size_t crypto_cipher_nonce_len(enum crypto_cipher c)
{
	if (!cipher_ok(c)) {
		return 0;
	}
	return is_ccm(c) ? 11 : 12;
}

/*
 * This thread's context for cipher c, bound to the cipher once; CCM also
 * gets its fixed nonce and tag lengths here (MS-SMB2 2.2.41: 11-byte CCM
 * nonce, 16-byte signature).  Both survive later re-keying.
 */
static EVP_CIPHER_CTX *aead_ctx(enum crypto_cipher c)
{
	struct crypto_tls *t = tls_get();
	EVP_CIPHER_CTX *ctx = t->aead[c];

	if (ctx != NULL) {
		return ctx;
	}
	ctx = EVP_CIPHER_CTX_new();
	if (ctx == NULL) {
		crypto_fatal("EVP_CIPHER_CTX_new");
	}
	if (EVP_EncryptInit_ex2(ctx, g.aead[c], NULL, NULL, NULL) != 1) {
		crypto_fatal(aead_names[c]);
	}
	if (is_ccm(c) &&
	    (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 11, NULL) != 1 ||
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL) != 1)) {
		crypto_fatal("CCM lengths");
	}
	t->aead[c] = ctx;
	return ctx;
}

/* Drop a context after an unexpected failure; the next call rebuilds it. */
static void aead_discard(enum crypto_cipher c)
{
	log_openssl_errors(aead_names[c]);
	EVP_CIPHER_CTX_free(tls->aead[c]);
	tls->aead[c] = NULL;
}

bool crypto_aead_encrypt(enum crypto_cipher c, const uint8_t *key,
			 const uint8_t *nonce, const void *aad, size_t aad_len,
			 uint8_t *data, size_t len, uint8_t tag[16])
{
	return crypto_aead_encrypt_to(c, key, nonce, aad, aad_len, data, data,
				      len, tag);
}

bool crypto_aead_encrypt_to(enum crypto_cipher c, const uint8_t *key,
			    const uint8_t *nonce, const void *aad,
			    size_t aad_len, const uint8_t *in, uint8_t *out,
			    size_t len, uint8_t tag[16])
{
	EVP_CIPHER_CTX *ctx;
	uint8_t fin[16];
	/* never NULL: a NULL output means AAD to OpenSSL */
	const uint8_t *src = len > 0 ? in : fin;
	uint8_t *dst = len > 0 ? out : fin;
	int outl;

	if (!cipher_ok(c) || len > INT_MAX || aad_len > INT_MAX) {
		return false;
	}
	ctx = aead_ctx(c);
	if (EVP_EncryptInit_ex2(ctx, NULL, key, nonce, NULL) != 1) {
		goto fail;
	}
	/* CCM must know the plaintext length before the AAD (RFC 3610). */
	if (is_ccm(c) &&
	    EVP_EncryptUpdate(ctx, NULL, &outl, NULL, (int)len) != 1) {
		goto fail;
	}
	if (aad_len > 0 &&
	    EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)aad_len) != 1) {
		goto fail;
	}
	if (EVP_EncryptUpdate(ctx, dst, &outl, src, (int)len) != 1 ||
	    (size_t)outl != len) {
		goto fail;
	}
	if (EVP_EncryptFinal_ex(ctx, fin, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) {
		goto fail;
	}
	return true;
fail:
	aead_discard(c);
	return false;
}

bool crypto_aead_decrypt(enum crypto_cipher c, const uint8_t *key,
			 const uint8_t *nonce, const void *aad, size_t aad_len,
			 uint8_t *data, size_t len, const uint8_t tag[16])
{
	EVP_CIPHER_CTX *ctx;
	uint8_t fin[16];
	uint8_t *p = len > 0 ? data : fin; /* never NULL: NULL means AAD */
	int outl;

	if (!cipher_ok(c) || len > INT_MAX || aad_len > INT_MAX) {
		return false;
	}
	ctx = aead_ctx(c);
	if (EVP_DecryptInit_ex2(ctx, NULL, key, nonce, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16,
				(void *)tag) != 1) {
		aead_discard(c);
		return false;
	}
	if (is_ccm(c) &&
	    EVP_DecryptUpdate(ctx, NULL, &outl, NULL, (int)len) != 1) {
		aead_discard(c);
		return false;
	}
	if (aad_len > 0 &&
	    EVP_DecryptUpdate(ctx, NULL, &outl, aad, (int)aad_len) != 1) {
		aead_discard(c);
		return false;
	}
	/*
	 * From here a failure is an authentication failure (CCM checks the
	 * tag in the update, GCM in the final): expected from bad peers, so
	 * no log and no context rebuild; the next init resets the state.
	 */
	if (EVP_DecryptUpdate(ctx, p, &outl, p, (int)len) != 1 ||
	    (!is_ccm(c) && EVP_DecryptFinal_ex(ctx, fin, &outl) != 1)) {
		ERR_clear_error();
		/* GCM has already written unauthenticated plaintext: wipe. */
		OPENSSL_cleanse(p, len);
		return false;
	}
	return true;
}

void crypto_aes_gmac(const uint8_t key[16], const uint8_t nonce[12],
		     const struct crypto_iov *iov, size_t niov,
		     uint8_t out[16])
{
	EVP_CIPHER_CTX *ctx = aead_ctx(CRYPTO_AES128_GCM);
	uint8_t fin[16];
	int outl;
	size_t i;

	/* GMAC is GCM with an empty plaintext: everything goes in as AAD. */
	if (EVP_EncryptInit_ex2(ctx, NULL, key, nonce, NULL) != 1) {
		crypto_fatal("GMAC init");
	}
	for (i = 0; i < niov; i++) {
		const uint8_t *d = iov[i].data;
		size_t left = iov[i].len;

		while (left > 0) {
			int n = left > INT_MAX ? INT_MAX : (int)left;

			if (EVP_EncryptUpdate(ctx, NULL, &outl, d, n) != 1) {
				crypto_fatal("GMAC update");
			}
			d += n;
			left -= (size_t)n;
		}
	}
	if (EVP_EncryptFinal_ex(ctx, fin, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out) != 1) {
		crypto_fatal("GMAC final");
	}
}
