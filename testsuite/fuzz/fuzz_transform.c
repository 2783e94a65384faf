/*
 * libFuzzer target for the SMB2 TRANSFORM_HEADER: arbitrary bytes go
 * through smb2_transform_parse and then smb2_transform_decrypt with a fixed
 * key under every cipher.  Nothing may crash, read out of bounds or leak;
 * a successful decryption of random input would mean a forged tag, so it
 * aborts.  The first input byte picks the cipher to also round-trip the
 * rest through encrypt + decrypt.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/crypto.h"
#include "smbd/conn/smb2_transform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fixed_key[32] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
	0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
	0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	uint64_t sid;
	uint32_t olen;
	int c;

	if (size > 1 << 20) {
		return 0;
	}
	(void)smb2_transform_parse(data, size, &sid, &olen);
	/* A private copy exactly size bytes long so ASan sees overruns. */
	buf = malloc(size + SMB2_TRANSFORM_HDR_LEN + 1);
	if (buf == NULL) {
		return 0;
	}
	for (c = 0; c <= 5; c++) {
		memcpy(buf, data, size);
		if (NT_STATUS_IS_OK(smb2_transform_decrypt(
			    (enum crypto_cipher)c, fixed_key, buf, size))) {
			abort(); /* forged tag accepted */
		}
	}
	/* Round trip: the input as a message under the cipher it picks. */
	if (size > 0) {
		enum crypto_cipher ci = (enum crypto_cipher)(data[0] % 4 + 1);
		uint8_t nonce[16];

		memset(nonce, 0, sizeof(nonce));
		memcpy(nonce, data, size < 16 ? size : 16);
		memcpy(buf + SMB2_TRANSFORM_HDR_LEN, data, size);
		if (!smb2_transform_encrypt(ci, fixed_key, 42, nonce, buf,
					    buf + SMB2_TRANSFORM_HDR_LEN,
					    size) ||
		    !NT_STATUS_IS_OK(smb2_transform_decrypt(
			    ci, fixed_key, buf,
			    size + SMB2_TRANSFORM_HDR_LEN)) ||
		    memcmp(buf + SMB2_TRANSFORM_HDR_LEN, data, size) != 0) {
			abort();
		}
	}
	free(buf);
	return 0;
}
