/*
 * libFuzzer target: the CHANGE_NOTIFY response encoder
 * (smbd/wire/notify_wire.c).
 *
 * Input: byte 0-3 the client's OutputBufferLength, then entries of one
 * action byte and a NUL-terminated name (any bytes: the encoder must
 * not read past a name however its UTF-8 is cut).  The output is parsed
 * back as MS-FSCC 2.7.1 entries: every NextEntryOffset stays inside the
 * body and is 4-aligned, names have an even length that fits, the body
 * length field matches, and nothing is written when it does not fit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "lib/wire.h"
#include "smbd/wire/notify_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ENTRIES 64

static void check_entries(const uint8_t *b, size_t len, unsigned n)
{
	size_t at = 0;
	unsigned seen = 0;

	while (n > 0) {
		uint32_t next, nlen;

		if (at + 12 > len) {
			abort();
		}
		next = le32(b + at);
		nlen = le32(b + at + 8);
		if ((nlen & 1) || at + 12 + nlen > len) {
			abort();
		}
		seen++;
		if (next == 0) {
			break;
		}
		if ((next & 3) || next < 12 + nlen || at + next >= len) {
			abort();
		}
		at += next;
	}
	if (seen != n) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx;
	const char *names[MAX_ENTRIES];
	uint32_t actions[MAX_ENTRIES];
	struct wire_buf out;
	uint32_t out_len, blen;
	unsigned n = 0;
	size_t i = 4;
	char *copy;

	if (size < 4) {
		return 0;
	}
	out_len = le32(data) & 0xfffff;
	ctx = talloc_new(NULL);
	copy = talloc_size(ctx, size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	while (i < size && n < MAX_ENTRIES) {
		actions[n] = (uint8_t)copy[i++];
		names[n++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	wire_buf_init(&out, ctx, 64);
	wire_push_zero(&out, 64);	/* the SMB2 header */
	if (!smb2_notify_encode(&out, 0, names, actions, n, out_len)) {
		if (out.len != 64 || out.failed) {
			abort();
		}
	} else {
		if (out.len < 64 + 8) {
			abort();
		}
		blen = le32(out.data + 64 + 4);
		if (blen != out.len - 72 || blen > out_len ||
		    le16(out.data + 64) != 9 || le16(out.data + 66) != 72) {
			abort();
		}
		check_entries(out.data + 72, blen, n);
	}
	talloc_free(ctx);
	return 0;
}
