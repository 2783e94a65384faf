/*
 * libFuzzer target: a passdb.tdb USER_ record (smbd/auth/passdb.c,
 * Samba's tdb_pack layout).  Whatever decodes must encode again and decode
 * to the same bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "smbd/auth/passdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct passdb_user *u, *u2;
	uint8_t *out, *out2;
	size_t out_len, out2_len;

	if (NT_STATUS_IS_OK(passdb_user_unpack(mem_ctx, data, size, &u)) &&
	    NT_STATUS_IS_OK(passdb_user_pack(mem_ctx, u, &out, &out_len))) {
		if (!NT_STATUS_IS_OK(passdb_user_unpack(mem_ctx, out, out_len,
							&u2)) ||
		    !NT_STATUS_IS_OK(passdb_user_pack(mem_ctx, u2, &out2,
						      &out2_len)) ||
		    out_len != out2_len || memcmp(out, out2, out_len) != 0) {
			abort();
		}
	}
	talloc_free(mem_ctx);
	return 0;
}
