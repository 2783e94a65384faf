/*
 * libFuzzer target: vfs/dosattrib.c's decoder.  Whatever decodes must
 * encode (Samba 4.17's v5 form) and decode again to the same attributes
 * (less OFFLINE, which Samba never stores) and create time.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <talloc.h>
#include "vfs/dosattrib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx;
	struct dos_info a, b;
	uint8_t *blob;
	size_t len;

	if (!NT_STATUS_IS_OK(dosattrib_decode(data, size, &a))) {
		return 0;
	}
	ctx = talloc_new(NULL);
	if (!NT_STATUS_IS_OK(dosattrib_encode(ctx, &a, &blob, &len)) ||
	    !NT_STATUS_IS_OK(dosattrib_decode(blob, len, &b)) ||
	    b.version != 5 || b.attrs != (a.attrs & ~(uint32_t)0x1000) ||
	    b.has_create_time != a.has_create_time ||
	    (a.has_create_time && b.create_time != a.create_time)) {
		abort();
	}
	talloc_free(ctx);
	return 0;
}
