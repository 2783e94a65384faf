/*
 * libFuzzer target: locking/locking_rec.c's record decoders (share modes
 * and byte-range locks, the format other processes write into the shared
 * tdb files).  The format is canonical, so whatever decodes must encode
 * back to the very same bytes; the in-place iterators must agree with
 * the whole-record decoders.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "locking/locking_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_share(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	struct locking_rec_iter it;
	struct share_mode_rec r;
	struct share_mode_entry e;
	uint8_t *buf;
	size_t len;
	uint32_t n = 0;
	NTSTATUS st = share_mode_rec_decode(ctx, data, size, &r);
	NTSTATUS ist = share_mode_rec_iter_init(&it, data, size);

	if (NT_STATUS_IS_OK(ist)) {
		while (NT_STATUS_IS_OK(ist = share_mode_rec_iter_next(&it,
								      &e))) {
			if (NT_STATUS_IS_OK(st) &&
			    (n >= r.num ||
			     memcmp(&e, &r.e[n], sizeof(e)) != 0)) {
				abort();
			}
			n++;
		}
		if ((ist == NT_STATUS_NO_MORE_ENTRIES) != NT_STATUS_IS_OK(st)) {
			abort();
		}
	} else if (NT_STATUS_IS_OK(st)) {
		abort();
	}
	if (!NT_STATUS_IS_OK(st)) {
		return;
	}
	if (n != r.num ||
	    !NT_STATUS_IS_OK(share_mode_rec_encode(ctx, &r, &buf, &len)) ||
	    len != size || memcmp(buf, data, size) != 0) {
		abort();
	}
}

static void check_brl(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	struct locking_rec_iter it;
	struct brl_rec r;
	struct brl_entry e;
	uint8_t *buf;
	size_t len;
	uint32_t n = 0;
	NTSTATUS st = brl_rec_decode(ctx, data, size, &r);
	NTSTATUS ist = brl_rec_iter_init(&it, data, size);

	if (NT_STATUS_IS_OK(ist)) {
		while (NT_STATUS_IS_OK(ist = brl_rec_iter_next(&it, &e))) {
			if (!brl_range_valid(e.off, e.len) ||
			    (NT_STATUS_IS_OK(st) &&
			     (n >= r.num ||
			      memcmp(&e, &r.e[n], sizeof(e)) != 0))) {
				abort();
			}
			n++;
		}
		if ((ist == NT_STATUS_NO_MORE_ENTRIES) != NT_STATUS_IS_OK(st)) {
			abort();
		}
	} else if (NT_STATUS_IS_OK(st)) {
		abort();
	}
	if (!NT_STATUS_IS_OK(st)) {
		return;
	}
	if (n != r.num ||
	    !NT_STATUS_IS_OK(brl_rec_encode(ctx, &r, &buf, &len)) ||
	    len != size || memcmp(buf, data, size) != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);

	check_share(ctx, data, size);
	check_brl(ctx, data, size);
	talloc_free(ctx);
	return 0;
}
