/*
 * SMB2 TRANSFORM_HEADER (MS-SMB2 2.2.41): SMB3 encryption of whole
 * messages (3.1.4.3 encrypting, 3.3.5.2.1 decrypting on the server).
 */
#ifndef SMBD_SMB2_TRANSFORM_H
#define SMBD_SMB2_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"
#include "lib/ntstatus.h"

#define SMB2_TRANSFORM_HDR_LEN 52

/* 0xFD 'S' 'M' 'B' read as a little-endian 32-bit value. */
#define SMB2_TF_PROTOCOL_MAGIC 0x424D53FDu

/* Field offsets in the transform header. */
#define SMB2_TF_PROTOCOL_ID 0
#define SMB2_TF_SIGNATURE 4
#define SMB2_TF_NONCE 20
#define SMB2_TF_MSG_SIZE 36
#define SMB2_TF_RESERVED 40
#define SMB2_TF_FLAGS 42
#define SMB2_TF_SESSION_ID 44
/* The AEAD's associated data: the header from Nonce to the end (3.1.4.3). */
#define SMB2_TF_AAD_OFS SMB2_TF_NONCE
#define SMB2_TF_AAD_LEN (SMB2_TRANSFORM_HDR_LEN - SMB2_TF_NONCE)
/* Flags (3.1.1) / EncryptionAlgorithm (3.0.x): both must be 0x0001. */
#define SMB2_TF_FLAG_ENCRYPTED 0x0001

/*
 * Encrypt msg (len bytes, in place) and fill the 52-byte transform header
 * that the caller places right before it.  nonce is a caller-supplied value
 * unique within the session (counter-based); its first 11 (CCM) or 12
 * (GCM) bytes are used and the rest of the Nonce field is zeroed.  key is
 * crypto_cipher_key_len(c) bytes (struct smb2_keys.encryption).  False on
 * a bad cipher or a message over 4 GiB.
 */
bool smb2_transform_encrypt(enum crypto_cipher c, const uint8_t *key,
			    uint64_t session_id, const uint8_t nonce[16],
			    uint8_t hdr[SMB2_TRANSFORM_HDR_LEN], uint8_t *msg,
			    size_t len);
/* The same, reading the message from msg and writing the ciphertext to
 * out (hdr + SMB2_TRANSFORM_HDR_LEN in the frame that is sent): a large
 * reply is encrypted where it goes instead of copied there first. */
bool smb2_transform_encrypt_to(enum crypto_cipher c, const uint8_t *key,
			       uint64_t session_id, const uint8_t nonce[16],
			       uint8_t hdr[SMB2_TRANSFORM_HDR_LEN],
			       const uint8_t *msg, uint8_t *out, size_t len);

/*
 * Check a received transform header: at least the header plus one byte,
 * ProtocolId 0xFD 'S' 'M' 'B', OriginalMessageSize equal to the bytes that
 * follow the header, Flags/EncryptionAlgorithm 0x0001.  On success returns
 * NT_STATUS_OK with the SessionId (to find the key) and the message size;
 * otherwise NT_STATUS_INVALID_PARAMETER (the caller disconnects,
 * 3.3.5.2.1).  Either out pointer may be NULL.
 */
NTSTATUS smb2_transform_parse(const uint8_t *buf, size_t len,
			      uint64_t *session_id, uint32_t *orig_len);

/*
 * Parse, then decrypt buf+52 in place with key (struct
 * smb2_keys.decryption).  On NT_STATUS_OK the plaintext SMB2 message is
 * buf+52, len-52 bytes.  NT_STATUS_ACCESS_DENIED when authentication fails
 * (the message bytes are then wiped); NT_STATUS_INVALID_PARAMETER for a
 * malformed header or an unknown cipher.
 */
NTSTATUS smb2_transform_decrypt(enum crypto_cipher c, const uint8_t *key,
				uint8_t *buf, size_t len);

/* The SMB2 cipher id (2.2.3.1.2) as a crypto_cipher: the values agree;
 * 0 (3.0.x, no context) means AES-128-CCM. */
static inline enum crypto_cipher smb2_cipher_of(uint16_t id)
{
	return id >= CRYPTO_AES128_CCM && id <= CRYPTO_AES256_GCM
		       ? (enum crypto_cipher)id
		       : CRYPTO_AES128_CCM;
}

#endif
