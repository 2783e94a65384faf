/*
 * libFuzzer target for smbcontrol's request parser (smbd/process/control.c):
 * any datagram parses to an op or a refusal, the argument is always
 * NUL-terminated inside its buffer and, for an op, a copy of the
 * request's bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbd/process/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char arg[SMBD_CONTROL_MAX];
	char *req;
	enum smbd_control_op op;

	if (size > SMBD_CONTROL_MAX) {
		return 0;
	}
	req = malloc(size ? size : 1);	/* exactly size: ASan sees overruns */
	if (req == NULL) {
		return 0;
	}
	memcpy(req, data, size);
	op = smbd_control_parse(req, size, arg, sizeof(arg));
	if (memchr(arg, '\0', sizeof(arg)) == NULL) {
		abort();
	}
	if (op != SMBD_CONTROL_NONE && strlen(arg) > 0 &&
	    memmem(req, size, arg, strlen(arg)) == NULL) {
		abort();
	}
	free(req);
	return 0;
}
