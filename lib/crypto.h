/*
 * Crypto glue over OpenSSL 3 libcrypto (EVP).
 *
 * Nothing here implements a primitive: every hash, MAC and cipher comes from
 * libcrypto (DESIGN.md "Crypto and hashing come from a maintained library").
 * This layer only
 *  - loads the "legacy" provider (MD4, RC4: NTLM needs them) into a PRIVATE
 *    OSSL_LIB_CTX so the rest of the process never sees legacy algorithms;
 *  - fetches every EVP_MD/EVP_CIPHER/EVP_MAC once in crypto_init(), so the
 *    hot path never looks an algorithm up by name;
 *  - keeps per-thread EVP contexts that are re-keyed, not reallocated, on
 *    every call (a file server signs/encrypts every PDU);
 *  - gives the SMB code small, allocation-free, hard-to-misuse calls.
 *
 * The functions that return void cannot fail for valid arguments; if
 * libcrypto fails anyway (out of memory) they log and abort(): a signature
 * or key silently left unwritten would be a security hole.  The AEAD calls
 * return false on authentication failure or on bad arguments.
 *
 * crypto_init() may be called once in the master before fork(); any call
 * here also initialises lazily (and aborts if that fails).
 */
#ifndef LIB_CRYPTO_H
#define LIB_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

/*
 * Idempotent and thread-safe.  False (logged) when an algorithm could not
 * be fetched or the legacy provider is missing; without the legacy
 * provider everything but MD4/RC4 still works (those then abort).
 */
bool crypto_init(void);

/* Cryptographically strong random bytes (RAND_bytes); aborts on failure. */
void crypto_random(void *buf, size_t len);

/* Constant-time compare: true when equal. */
bool crypto_memeq(const void *a, const void *b, size_t len);

/* A scatter list for MAC and hash inputs. */
struct crypto_iov {
	const void *data;
	size_t len;
};

void crypto_md4(const void *data, size_t len, uint8_t out[16]);
void crypto_md5(const void *data, size_t len, uint8_t out[16]);
void crypto_sha256_iov(const struct crypto_iov *iov, size_t niov,
		       uint8_t out[32]);
/*
 * SMB 3.1.1 preauth hash H(prev || message) is a two-element iov.  For all
 * the hash and MAC calls here out may alias an input (it is written last).
 */
void crypto_sha512_iov(const struct crypto_iov *iov, size_t niov,
		       uint8_t out[64]);

void crypto_hmac_md5(const uint8_t *key, size_t keylen,
		     const struct crypto_iov *iov, size_t niov,
		     uint8_t out[16]);
void crypto_hmac_sha256(const uint8_t *key, size_t keylen,
			const struct crypto_iov *iov, size_t niov,
			uint8_t out[32]);
/* AES-128-CMAC (RFC 4493). */
void crypto_aes_cmac(const uint8_t key[16], const struct crypto_iov *iov,
		     size_t niov, uint8_t out[16]);
/* AES-128-GMAC: GCM with everything as AAD and no plaintext. */
void crypto_aes_gmac(const uint8_t key[16], const uint8_t nonce[12],
		     const struct crypto_iov *iov, size_t niov,
		     uint8_t out[16]);

/*
 * RC4 keystream state for NTLMSSP sealing (MS-NLMP 3.4.3): the state runs on
 * across messages.  A talloc object; its destructor frees the EVP context.
 * keylen may be 5, 7, 8 or 16 (weakened NTLM keys) or any length 1..256.
 * Returns NULL on allocation failure or a bad key length.
 */
struct crypto_rc4;
struct crypto_rc4 *crypto_rc4_new(TALLOC_CTX *mem_ctx, const uint8_t *key,
				  size_t keylen);
/* XOR the next len keystream bytes into data (in place). */
void crypto_rc4_update(struct crypto_rc4 *st, uint8_t *data, size_t len);
/* A fresh keystream for one message (NTLM key exchange, RC4 of the key).
 * keylen 1..256 (anything else is a caller bug: abort). */
void crypto_rc4_oneshot(const uint8_t *key, size_t keylen, uint8_t *data,
			size_t len);

/* One DES-ECB block with a 7-byte (56-bit) key, as NTLMv1 uses it
 * (MS-NLMP 6).  false when the legacy provider has no DES-ECB. */
bool crypto_des_ecb7(const uint8_t key7[7], const uint8_t in[8],
		     uint8_t out[8]);

/*
 * SP800-108 KDF in counter mode, PRF HMAC-SHA256, r = 32 (MS-SMB2 3.1.4.2):
 *   K(i) = HMAC(key, [i]_4 || label || 0x00 || context || [L]_4)
 * L = out_len * 8.  label/context are used with the lengths given: the
 * SMB labels' trailing NUL is part of label_len (see smb2_signing.c).
 */
void crypto_kdf_sp800_108(const uint8_t *key, size_t keylen, const void *label,
			  size_t label_len, const void *context, size_t ctx_len,
			  uint8_t *out, size_t out_len);

/* == SMB2 cipher ids (MS-SMB2 2.2.3.1.2). */
enum crypto_cipher {
	CRYPTO_AES128_CCM = 1,
	CRYPTO_AES128_GCM = 2,
	CRYPTO_AES256_CCM = 3,
	CRYPTO_AES256_GCM = 4,
};

/* 16 or 32; 0 for an unknown cipher. */
size_t crypto_cipher_key_len(enum crypto_cipher c);
/* 11 for CCM, 12 for GCM (MS-SMB2 2.2.41); 0 for an unknown cipher. */
size_t crypto_cipher_nonce_len(enum crypto_cipher c);

/*
 * AEAD in place.  key is crypto_cipher_key_len(c) bytes, nonce
 * crypto_cipher_nonce_len(c) bytes, the tag is always 16 bytes.  len and
 * aad_len must fit an int (OpenSSL's update length).  decrypt returns false
 * when the tag does not match; data is then garbage (never use it).
 */
bool crypto_aead_encrypt(enum crypto_cipher c, const uint8_t *key,
			 const uint8_t *nonce, const void *aad, size_t aad_len,
			 uint8_t *data, size_t len, uint8_t tag[16]);
/* The same from in to out (len bytes each, the same or not overlapping):
 * a sender that needs the ciphertext elsewhere saves a copy of it. */
bool crypto_aead_encrypt_to(enum crypto_cipher c, const uint8_t *key,
			    const uint8_t *nonce, const void *aad,
			    size_t aad_len, const uint8_t *in, uint8_t *out,
			    size_t len, uint8_t tag[16]);
bool crypto_aead_decrypt(enum crypto_cipher c, const uint8_t *key,
			 const uint8_t *nonce, const void *aad, size_t aad_len,
			 uint8_t *data, size_t len, const uint8_t tag[16]);

#endif
