/*
 * libFuzzer target: smbd/wire/sd.c.  The input is tried both as a
 * security.NTACL blob and as a plain self-relative descriptor.  Whatever
 * parses must marshal, parse again and marshal to the same bytes; an
 * NTACL blob is rewritten as version 1 and must read back to the same
 * descriptor.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "smbd/wire/sd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_sd(TALLOC_CTX *ctx, const struct sd *a, const struct sd *b)
{
	uint8_t *x, *y;
	size_t xl, yl;

	if (!NT_STATUS_IS_OK(sd_marshal(ctx, a, &x, &xl)) ||
	    !NT_STATUS_IS_OK(sd_marshal(ctx, b, &y, &yl)) || xl != yl ||
	    memcmp(x, y, xl) != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct sd *sd, *back;
	uint8_t *blob;
	size_t len;
	uint16_t ver;

	if (NT_STATUS_IS_OK(ntacl_blob_parse(ctx, data, size, &sd, &ver))) {
		if (!NT_STATUS_IS_OK(ntacl_blob_push(ctx, sd, &blob, &len)) ||
		    !NT_STATUS_IS_OK(ntacl_blob_parse(ctx, blob, len, &back,
						      &ver)) ||
		    ver != 1) {
			abort();
		}
		same_sd(ctx, sd, back);
	}
	if (NT_STATUS_IS_OK(sd_parse(ctx, data, size, &sd))) {
		if (!NT_STATUS_IS_OK(sd_marshal(ctx, sd, &blob, &len)) ||
		    !NT_STATUS_IS_OK(sd_parse(ctx, blob, len, &back))) {
			abort();
		}
		same_sd(ctx, sd, back);
	}
	talloc_free(ctx);
	return 0;
}
