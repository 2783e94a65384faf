/*
 * SMB2/SMB3 message signing (MS-SMB2 3.1.4.1, 3.1.5.1) and session key
 * derivation (MS-SMB2 3.1.4.2, 3.3.5.5.3).
 */
#ifndef SMBD_SMB2_SIGNING_H
#define SMBD_SMB2_SIGNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"

/* == SMB 3.1.1 SigningAlgorithmId (MS-SMB2 2.2.3.1.7). */
enum smb2_sign_algo {
	SMB2_SIGN_HMAC_SHA256 = 0,
	SMB2_SIGN_AES_CMAC = 1,
	SMB2_SIGN_AES_GMAC = 2,
};

/*
 * Server-side view of a session's keys.  encryption is what the server
 * encrypts with (server to client: "ServerOut"/"SMBS2CCipherKey"),
 * decryption what it decrypts with (client to server: "ServerIn "/
 * "SMBC2SCipherKey").  enc_key_len is 16 or 32, 0 before SMB 3.0.
 */
struct smb2_keys {
	uint8_t signing[16];
	uint8_t application[16];
	uint8_t encryption[32];
	uint8_t decryption[32];
	size_t enc_key_len;
};

/*
 * Derive all keys for a session.  dialect is the negotiated dialect
 * (0x0202 ... 0x0311).  preauth_hash is the session's final
 * PreauthIntegrityHashValue (only read for 0x0311, may be NULL otherwise).
 * cipher selects the encryption key length for 3.1.1 (AES-256: 32 bytes);
 * 3.0/3.0.2 always use AES-128-CCM.  2.x: signing = application = the
 * session key, no encryption keys.
 */
void smb2_derive_keys(uint16_t dialect, const uint8_t session_key[16],
		      const uint8_t preauth_hash[64], enum crypto_cipher cipher,
		      struct smb2_keys *out);
/*
 * As smb2_derive_keys, but for AES-256 ciphers the encryption and
 * decryption keys are derived from the full cryptographic key of the
 * authentication (Session.FullSessionKey, e.g. 32 bytes for Kerberos
 * AES-256 tickets) rather than its first 16 bytes.  full_key may be NULL
 * (then session_key is used).
 */
void smb2_derive_keys_full(uint16_t dialect, const uint8_t session_key[16],
			   const uint8_t *full_key, size_t full_key_len,
			   const uint8_t preauth_hash[64],
			   enum crypto_cipher cipher, struct smb2_keys *out);

/*
 * Compute the signature of a message given as the 64-byte SMB2 header plus
 * the rest (body, and the padding up to NextCommand inside a compound:
 * 3.1.4.1 "any padding at the end of the message MUST be used").  The
 * signature field of hdr is treated as zero whatever it holds; hdr is not
 * modified.  For GMAC the nonce is built from hdr (MessageId, the
 * SERVER_TO_REDIR flag as the sender role, CANCEL).
 */
void smb2_signature_iov(enum smb2_sign_algo algo, const uint8_t key[16],
			const uint8_t hdr[64], const struct crypto_iov *rest,
			size_t nrest, uint8_t sig[16]);

/*
 * Sign a whole message (header + body, contiguous, len >= 64) in place:
 * writes the 16-byte signature at offset 48.  The caller sets
 * SMB2_FLAGS_SIGNED itself.  A message shorter than a header is left
 * alone (and logged): that is a caller bug.
 */
void smb2_sign(enum smb2_sign_algo algo, const uint8_t key[16], uint8_t *msg,
	       size_t len);

/*
 * Verify a received message's signature (constant-time compare).  Does not
 * modify msg.  False for a bad signature or a message shorter than 64.
 */
bool smb2_check_signature(enum smb2_sign_algo algo, const uint8_t key[16],
			  const uint8_t *msg, size_t len);

#endif
