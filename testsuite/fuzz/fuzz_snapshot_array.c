/*
 * libFuzzer target: the SRV_SNAPSHOT_ARRAY encoder (smbd/wire/fsctl_wire.c,
 * MS-SMB2 2.2.32.2) over the tokens of fuzzer-chosen times.
 *
 * Input: MaxOutputResponse (4 bytes), then 8-byte times.  Every time a
 * token can hold becomes one; the output must be the size-only form
 * (16 bytes, none returned, the size needed) or the whole array that
 * fits max_out and parses back to the same tokens.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "lib/wire.h"
#include "smbd/wire/fsctl_wire.h"
#include "vfs/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *t;
	const char **tokens;
	struct wire_buf b;
	uint32_t max_out, n = 0, i, size_needed;
	size_t k;
	NTSTATUS st;

	if (size < 4) {
		return 0;
	}
	t = talloc_new(NULL);
	max_out = rd32(data) % 4096;
	tokens = talloc_array(t, const char *, (size - 4) / 8 + 1);
	for (k = 4; tokens != NULL && k + 8 <= size; k += 8) {
		int64_t when;
		char *tok = talloc_size(tokens, VFS_GMT_TOKEN_LEN + 1);

		memcpy(&when, data + k, 8);
		if (tok != NULL && vfs_gmt_token_format(when, tok)) {
			tokens[n++] = tok;
		}
	}
	if (tokens == NULL) {
		talloc_free(t);
		return 0;
	}
	wire_buf_init(&b, t, 0);
	st = fsctl_snapshot_array_push(&b, tokens, n, max_out);
	if (max_out < FSCTL_SNAPSHOT_MIN_OUT) {
		if (st != NT_STATUS_INVALID_PARAMETER) {
			abort();
		}
		talloc_free(t);
		return 0;
	}
	if (!NT_STATUS_IS_OK(st) || b.failed || b.len < 12) {
		abort();
	}
	size_needed = n * 50 + 2;
	if (rd32(b.data) != n || rd32(b.data + 8) != size_needed) {
		abort();
	}
	if (12 + size_needed > max_out) {
		if (b.len != 16 || rd32(b.data + 4) != 0) {
			abort();
		}
	} else {
		if (b.len != 12 + size_needed || b.len > max_out ||
		    rd32(b.data + 4) != n) {
			abort();
		}
		for (i = 0; i < n; i++) {
			const uint8_t *p = b.data + 12 + (size_t)i * 50;

			for (k = 0; k < 24; k++) {
				if (p[2 * k] != (uint8_t)tokens[i][k] ||
				    p[2 * k + 1] != 0) {
					abort();
				}
			}
			if (p[48] != 0 || p[49] != 0) {
				abort();
			}
		}
		if (b.data[b.len - 1] != 0 || b.data[b.len - 2] != 0) {
			abort();
		}
	}
	talloc_free(t);
	return 0;
}
