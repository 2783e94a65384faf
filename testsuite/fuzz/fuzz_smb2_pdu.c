/*
 * libFuzzer target for the table-driven request check and what a waiting
 * request keeps of itself (smbd/conn/smb2_pdu.c, issue 34): the first
 * input byte picks the opcode, the rest is the request (header and
 * body).  smb2_pdu_extent never exceeds the request nor reaches into a
 * refused one, and the request cut to its extent is judged as the whole
 * (the trimmed copy frame_keep makes must read the same to the handler),
 * with the same extent again.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbd/conn/smb2_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t opcode;
	const uint8_t *pdu;
	uint8_t *cut;
	size_t len, ext;
	NTSTATUS st;

	if (size < 1 + SMB2_HDR_LEN + 2) {
		return 0;
	}
	opcode = data[0] % (SMB2_OP_MAX + 1);
	pdu = data + 1;
	len = size - 1;
	st = smb2_pdu_check(opcode, pdu, len);
	ext = smb2_pdu_extent(opcode, pdu, len);
	if (ext > len || ext < SMB2_HDR_LEN + 2 ||
	    (!NT_STATUS_IS_OK(st) && ext != len)) {
		abort();
	}
	/* a copy of exactly ext bytes, so ASan sees any read past it */
	cut = malloc(ext);
	if (cut == NULL) {
		return 0;
	}
	memcpy(cut, pdu, ext);
	if (smb2_pdu_check(opcode, cut, ext) != st ||
	    smb2_pdu_extent(opcode, cut, ext) != ext) {
		abort();
	}
	free(cut);
	return 0;
}
