/*
 * libFuzzer target: vfs_fruit_plist_band_size (vfs/fruit_tm.h).  The
 * input is a sparse bundle's Info.plist, which a client wrote: the parse
 * reads only the len bytes given (ASan: the input is copied to a buffer
 * of exactly that size, no NUL after it) and any band size it finds is
 * one that is not 0.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vfs/fruit_tm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	uint64_t band = 0;

	if (copy == NULL) {
		abort();
	}
	memcpy(copy, data, size);
	if (vfs_fruit_plist_band_size(copy, size, &band) && band == 0) {
		abort();
	}
	free(copy);
	return 0;
}
