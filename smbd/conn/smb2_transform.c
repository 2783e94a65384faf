/*
 * SMB3 encryption: the SMB2 TRANSFORM_HEADER (MS-SMB2 2.2.41).
 *
 *   0  ProtocolId 0xFD 'S' 'M' 'B'
 *   4  Signature (16): the AEAD tag
 *  20  Nonce (16): AES-CCM uses 11 bytes, AES-GCM 12, the rest reserved
 *  36  OriginalMessageSize (4)
 *  40  Reserved (2)
 *  42  Flags / EncryptionAlgorithm (2): 0x0001
 *  44  SessionId (8)
 *
 * 3.1.4.3: the associated data is the header without ProtocolId and
 * Signature (bytes 20..51), the plaintext the whole SMB2 message (or
 * compound chain, or compressed message).  The cipher is the connection's
 * CipherId (3.1.1) or AES-128-CCM (3.0, 3.0.2); the caller picks it.
 *
 * Everything read from the wire goes through the checked cursor; the
 * decrypt path re-parses so it is safe on its own.
 */
#include "smbd/conn/smb2_transform.h"

#include <string.h>

#include "lib/log.h"
#include "lib/wire.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

bool smb2_transform_encrypt(enum crypto_cipher c, const uint8_t *key,
			    uint64_t session_id, const uint8_t nonce[16],
			    uint8_t hdr[SMB2_TRANSFORM_HDR_LEN], uint8_t *msg,
			    size_t len)
{
	return smb2_transform_encrypt_to(c, key, session_id, nonce, hdr, msg,
					 msg, len);
}

bool smb2_transform_encrypt_to(enum crypto_cipher c, const uint8_t *key,
			       uint64_t session_id, const uint8_t nonce[16],
			       uint8_t hdr[SMB2_TRANSFORM_HDR_LEN],
			       const uint8_t *msg, uint8_t *out, size_t len)
{
	size_t nonce_len = crypto_cipher_nonce_len(c);

	if (nonce_len == 0 || len > UINT32_MAX) {
		return false;
	}
	put_le32(hdr + SMB2_TF_PROTOCOL_ID, SMB2_TF_PROTOCOL_MAGIC);
	memset(hdr + SMB2_TF_SIGNATURE, 0, 16);
	/* 2.2.41: the reserved tail of Nonce SHOULD be zero. */
	memset(hdr + SMB2_TF_NONCE, 0, 16);
	memcpy(hdr + SMB2_TF_NONCE, nonce, nonce_len);
	put_le32(hdr + SMB2_TF_MSG_SIZE, (uint32_t)len);
	put_le16(hdr + SMB2_TF_RESERVED, 0);
	put_le16(hdr + SMB2_TF_FLAGS, SMB2_TF_FLAG_ENCRYPTED);
	put_le64(hdr + SMB2_TF_SESSION_ID, session_id);

	return crypto_aead_encrypt_to(c, key, hdr + SMB2_TF_NONCE,
				      hdr + SMB2_TF_AAD_OFS, SMB2_TF_AAD_LEN,
				      msg, out, len, hdr + SMB2_TF_SIGNATURE);
}

NTSTATUS smb2_transform_parse(const uint8_t *buf, size_t len,
			      uint64_t *session_id, uint32_t *orig_len)
{
	struct wire_cur cur;
	uint32_t magic, msg_size;
	uint16_t reserved, flags;
	uint64_t sid;
	NTSTATUS st;

	wire_cur_init(&cur, buf, len);
	st = wire_pull_le32(&cur, &magic);
	if (NT_STATUS_IS_OK(st)) {
		st = wire_seek(&cur, SMB2_TF_MSG_SIZE);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le32(&cur, &msg_size);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le16(&cur, &reserved);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le16(&cur, &flags);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le64(&cur, &sid);
	}
	if (!NT_STATUS_IS_OK(st)) {
		DBG_INFO("short transform header (%zu bytes)\n", len);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (magic != SMB2_TF_PROTOCOL_MAGIC) {
		DBG_INFO("bad transform ProtocolId 0x%08x\n", magic);
		return NT_STATUS_INVALID_PARAMETER;
	}
	/*
	 * 3.3.5.2.1: disconnect when the message is no bigger than the
	 * header, or OriginalMessageSize does not describe what follows, or
	 * the algorithm/flags field is not 0x0001.
	 */
	if (wire_remaining(&cur) == 0 || msg_size != wire_remaining(&cur)) {
		DBG_INFO("transform OriginalMessageSize %u, %zu bytes follow\n",
			 msg_size, wire_remaining(&cur));
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (flags != SMB2_TF_FLAG_ENCRYPTED) {
		DBG_INFO("transform flags 0x%04x\n", flags);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (session_id != NULL) {
		*session_id = sid;
	}
	if (orig_len != NULL) {
		*orig_len = msg_size;
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_transform_decrypt(enum crypto_cipher c, const uint8_t *key,
				uint8_t *buf, size_t len)
{
	uint32_t msg_len;
	NTSTATUS st;

	st = smb2_transform_parse(buf, len, NULL, &msg_len);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (crypto_cipher_nonce_len(c) == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!crypto_aead_decrypt(c, key, buf + SMB2_TF_NONCE,
				 buf + SMB2_TF_AAD_OFS, SMB2_TF_AAD_LEN,
				 buf + SMB2_TRANSFORM_HDR_LEN, msg_len,
				 buf + SMB2_TF_SIGNATURE)) {
		DBG_INFO("transform decryption failed (bad key or tampered "
			 "message)\n");
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}
