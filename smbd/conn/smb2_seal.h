/*
 * Large replies signed or encrypted in the worker's pool
 * (smb2_seal.c says why).
 */
#ifndef SMBD_SMB2_SEAL_H
#define SMBD_SMB2_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/crypto.h"
#include "smbd/conn/smb2_compress.h"
#include "smbd/conn/smb2_signing.h"

struct smbd_conn;

/* Below this the loop seals itself: a pool round trip costs more. */
#define SMB2_SEAL_OFFLOAD_MIN (256 * 1024)
/* Compressing costs several times what AES does per byte: the pool
 * takes it from here. */
#define SMB2_COMPRESS_OFFLOAD_MIN (32 * 1024)

/* How one reply is sealed, in this order (3.1.4.4): signed with algo
 * and key (its header's flags get SMB2_FLAGS_SIGNED), compressed with
 * caps when that makes it smaller (its first plain bytes as they are),
 * encrypted into a transform with cipher, key, session id and a nonce
 * the loop drew. */
struct smb2_seal {
	/* Called on the loop with the sealed frame to send on conn (its
	 * ownership), or NULL when it could not be encrypted; not called
	 * when conn went meanwhile. */
	void (*sealed)(struct smbd_conn *conn, uint8_t *frame, size_t len);
	bool sign;
	bool compress;
	bool encrypt;
	struct smb2_compress_caps caps;
	size_t plain;
	enum smb2_sign_algo algo;
	enum crypto_cipher cipher;
	uint8_t key[32];
	uint64_t session_id;
	uint8_t nonce[16];
};

/*
 * Seal *buf (len bytes, the first 4 the transport header's room, then
 * one whole SMB2 message: a lone reply) in the pool, then hand it to
 * spec->sealed.  True when it went there (*buf is the job's, set to NULL);
 * false, nothing done, when it is too small (SMB2_SEAL_OFFLOAD_MIN, or
 * SMB2_COMPRESS_OFFLOAD_MIN to compress) or conn has no pool or no
 * socket: the caller seals it on the loop.
 */
bool smb2_seal_offload(struct smbd_conn *conn, uint8_t **buf, size_t len,
		       const struct smb2_seal *spec);

#endif
