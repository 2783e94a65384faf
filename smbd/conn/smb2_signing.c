/*
 * SMB2/SMB3 signing and key derivation.
 *
 * Signing (MS-SMB2 3.1.4.1, verification 3.1.5.1): the MAC runs over the
 * whole message with the 16-byte Signature field taken as zero.  Instead of
 * zeroing the field in the buffer (which would need a writable copy to
 * verify) the message is fed to the MAC as an iov: header[0,48), 16 zero
 * bytes, header[64,...) and the rest.  Algorithms by dialect:
 *   2.0.2, 2.1: HMAC-SHA256 truncated to 16 bytes, key = session key;
 *   3.x: AES-128-CMAC; 3.1.1 with SIGNING_CAPABILITIES: the negotiated id,
 *   AES-128-GMAC using a nonce built from the header (below).
 *
 * Keys (3.1.4.2, 3.3.5.5.3): SP800-108 counter-mode KDF, HMAC-SHA256.  The
 * label and context strings include their terminating NUL (the blog
 * "SMB 2 and SMB 3 security in Windows 10: the anatomy of signing and
 * cryptographic keys" writes them as "SMB2AESCMAC\0" etc.); sizeof() of a
 * string literal gives exactly that length.
 */
#include "smbd/conn/smb2_signing.h"

#include <string.h>

#include "lib/log.h"
#include "lib/wire.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/*
 * The few MS-SMB2 2.2.1 header facts signing needs.  (smbd/smb2.h has the
 * full set; it is not a dependency here so this file builds on its own.)
 */
#define HDR_LEN 64
#define HDR_OPCODE 12
#define HDR_FLAGS 16
#define HDR_MESSAGE_ID 24
#define HDR_SIGNATURE 48
#define FLAG_SERVER_TO_REDIR 0x00000001
#define OP_CANCEL 0x000c
#define DIALECT_0300 0x0300
#define DIALECT_0311 0x0311

/* ---- key derivation ---------------------------------------------------- */

#define LBL(s) s, sizeof(s)

static void kdf(const uint8_t *key, size_t keylen, const char *label,
		size_t label_len, const void *ctx, size_t ctx_len, uint8_t *out,
		size_t out_len)
{
	crypto_kdf_sp800_108(key, keylen, label, label_len, ctx, ctx_len, out,
			     out_len);
}

void smb2_derive_keys_full(uint16_t dialect, const uint8_t session_key[16],
			   const uint8_t *full_key, size_t full_key_len,
			   const uint8_t preauth_hash[64],
			   enum crypto_cipher cipher, struct smb2_keys *out)
{
	const uint8_t *ekey = session_key;
	size_t ekey_len = 16;

	memset(out, 0, sizeof(*out));
	if (dialect < DIALECT_0300) {
		/* 2.x: Session.SessionKey signs; there is no KDF. */
		memcpy(out->signing, session_key, 16);
		memcpy(out->application, session_key, 16);
		return;
	}
	if (dialect < DIALECT_0311) {
		/* 3.0 and 3.0.2: constant labels and contexts, AES-128-CCM. */
		kdf(session_key, 16, LBL("SMB2AESCMAC"), LBL("SmbSign"),
		    out->signing, 16);
		kdf(session_key, 16, LBL("SMB2APP"), LBL("SmbRpc"),
		    out->application, 16);
		kdf(session_key, 16, LBL("SMB2AESCCM"), LBL("ServerOut"),
		    out->encryption, 16);
		kdf(session_key, 16, LBL("SMB2AESCCM"), LBL("ServerIn "),
		    out->decryption, 16);
		out->enc_key_len = 16;
		return;
	}
	/*
	 * 3.1.1: the context is the session's preauth integrity hash.  The
	 * cipher keys are 256 bits (L = 256) for the AES-256 ciphers; the
	 * signing and application keys stay 128 bits (they key AES-128
	 * CMAC/GMAC and are used as 16-byte values by RPC).
	 */
	out->enc_key_len = crypto_cipher_key_len(cipher);
	if (out->enc_key_len == 0) {
		DBG_WARNING("unknown cipher %d, deriving AES-128 keys\n",
			    (int)cipher);
		out->enc_key_len = 16;
	}
	if (out->enc_key_len == 32 && full_key != NULL && full_key_len > 0) {
		ekey = full_key;
		ekey_len = full_key_len;
	}
	kdf(session_key, 16, LBL("SMBSigningKey"), preauth_hash, 64,
	    out->signing, 16);
	kdf(session_key, 16, LBL("SMBAppKey"), preauth_hash, 64,
	    out->application, 16);
	kdf(ekey, ekey_len, LBL("SMBS2CCipherKey"), preauth_hash, 64,
	    out->encryption, out->enc_key_len);
	kdf(ekey, ekey_len, LBL("SMBC2SCipherKey"), preauth_hash, 64,
	    out->decryption, out->enc_key_len);
}

void smb2_derive_keys(uint16_t dialect, const uint8_t session_key[16],
		      const uint8_t preauth_hash[64], enum crypto_cipher cipher,
		      struct smb2_keys *out)
{
	smb2_derive_keys_full(dialect, session_key, NULL, 0, preauth_hash,
			      cipher, out);
}

/* ---- signing ----------------------------------------------------------- */

/*
 * 3.1.4.1: the AES-GMAC nonce is MessageId (8 bytes) then a 32-bit
 * little-endian word whose bit 0 is the sender's role (1 = server) and bit
 * 1 says "this is an SMB2 CANCEL request"; the other 30 bits are zero.
 */
static void gmac_nonce(const uint8_t hdr[64], uint8_t nonce[12])
{
	uint32_t flags = le32(hdr + HDR_FLAGS);
	uint16_t cmd = le16(hdr + HDR_OPCODE);
	uint32_t word = 0;

	memcpy(nonce, hdr + HDR_MESSAGE_ID, 8);
	if (flags & FLAG_SERVER_TO_REDIR) {
		word |= 1;
	} else if (cmd == OP_CANCEL) {
		word |= 2;
	}
	put_le32(nonce + 8, word);
}

/* Fill iov with the header (signature as zeros) followed by rest. */
static size_t build_iov(const uint8_t hdr[64], const struct crypto_iov *rest,
			size_t nrest, struct crypto_iov *iov, size_t max)
{
	static const uint8_t zero_sig[16];
	size_t n = 0, i;

	iov[n++] = (struct crypto_iov){hdr, HDR_SIGNATURE};
	iov[n++] = (struct crypto_iov){zero_sig, 16};
	for (i = 0; i < nrest && n < max; i++) {
		iov[n++] = rest[i];
	}
	return n;
}

#define SIGN_MAX_IOV 16

void smb2_signature_iov(enum smb2_sign_algo algo, const uint8_t key[16],
			const uint8_t hdr[64], const struct crypto_iov *rest,
			size_t nrest, uint8_t sig[16])
{
	struct crypto_iov iov[SIGN_MAX_IOV];
	uint8_t mac[32], nonce[12];
	size_t n;

	if (nrest > SIGN_MAX_IOV - 2) {
		/* A caller bug; never sign a truncated message. */
		DBG_ERR("too many iov entries (%zu)\n", nrest);
		crypto_random(sig, 16);
		return;
	}
	n = build_iov(hdr, rest, nrest, iov, SIGN_MAX_IOV);
	switch (algo) {
	case SMB2_SIGN_HMAC_SHA256:
		/* 3.1.4.1: the first 16 bytes of the 32-byte HMAC. */
		crypto_hmac_sha256(key, 16, iov, n, mac);
		memcpy(sig, mac, 16);
		break;
	case SMB2_SIGN_AES_GMAC:
		gmac_nonce(hdr, nonce);
		crypto_aes_gmac(key, nonce, iov, n, sig);
		break;
	case SMB2_SIGN_AES_CMAC:
	default:
		crypto_aes_cmac(key, iov, n, sig);
		break;
	}
}

void smb2_sign(enum smb2_sign_algo algo, const uint8_t key[16], uint8_t *msg,
	       size_t len)
{
	struct crypto_iov rest;
	uint8_t sig[16];

	if (len < HDR_LEN) {
		DBG_ERR("message of %zu bytes is too short to sign\n", len);
		return;
	}
	/* The header part of the iov stops at the signature field. */
	rest = (struct crypto_iov){msg + HDR_LEN, len - HDR_LEN};
	smb2_signature_iov(algo, key, msg, &rest, 1, sig);
	memcpy(msg + HDR_SIGNATURE, sig, 16);
}

bool smb2_check_signature(enum smb2_sign_algo algo, const uint8_t key[16],
			  const uint8_t *msg, size_t len)
{
	struct crypto_iov rest;
	uint8_t sig[16];

	if (len < HDR_LEN) {
		return false;
	}
	rest = (struct crypto_iov){msg + HDR_LEN, len - HDR_LEN};
	smb2_signature_iov(algo, key, msg, &rest, 1, sig);
	return crypto_memeq(sig, msg + HDR_SIGNATURE, 16);
}
