/*
 * libFuzzer target: smbd/wire/fsctl_wire.c, the FSCTL input parsers the
 * IOCTL handlers run on client bytes.
 *
 * The whole input goes to every parser.  Checked invariants: a parsed
 * SRV_COPYCHUNK_COPY has its array exactly when 0 < count <= the chunk
 * limit and the input held it; what passes the limits stays within them;
 * QUERY_ALLOCATED_RANGES and SET_ZERO_DATA results are non-negative
 * LONGLONGs with off + len (resp. off <= BeyondFinalZero) in range; the
 * resume key decodes to what encodes back to the same bytes; an accepted
 * NETWORK_RESILIENCY_REQUEST had its 8 bytes and a Timeout within the
 * maximum (in seconds), 0 giving the default.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/fsctl_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_copychunk(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct fsctl_copychunk cc;
	uint64_t total = 0;
	uint32_t i;

	if (!NT_STATUS_IS_OK(fsctl_copychunk_parse(mem, data, size, &cc))) {
		talloc_free(mem);
		return;
	}
	if (size < 32 || memcmp(cc.key, data, 24) != 0 ||
	    (cc.chunks != NULL) !=
		    (cc.count > 0 && cc.count <= FSCTL_COPYCHUNK_MAX_CHUNKS) ||
	    (cc.chunks != NULL && size < 32 + 24 * (size_t)cc.count)) {
		abort();
	}
	if (fsctl_copychunk_limits_ok(&cc)) {
		for (i = 0; i < cc.count; i++) {
			if (cc.chunks[i].len == 0 ||
			    cc.chunks[i].len > FSCTL_COPYCHUNK_MAX_CHUNK_LEN) {
				abort();
			}
			total += cc.chunks[i].len;
		}
		if (total > FSCTL_COPYCHUNK_MAX_TOTAL) {
			abort();
		}
	}
	talloc_free(mem);
}

static void check_ranges(const uint8_t *data, size_t size)
{
	uint64_t a, b;

	if (NT_STATUS_IS_OK(fsctl_qar_parse(data, size, &a, &b)) &&
	    (size < 16 || a > INT64_MAX || b > INT64_MAX - a)) {
		abort();
	}
	if (NT_STATUS_IS_OK(fsctl_zero_data_parse(data, size, &a, &b)) &&
	    (size < 16 || b > INT64_MAX || a > b)) {
		abort();
	}
}

static void check_resume_key(const uint8_t *data, size_t size)
{
	struct fsctl_resume_key k;
	uint8_t again[FSCTL_RESUME_KEY_LEN];

	if (size < FSCTL_RESUME_KEY_LEN) {
		return;
	}
	fsctl_resume_key_decode(data, &k);
	fsctl_resume_key_encode(&k, again);
	if (memcmp(again, data, FSCTL_RESUME_KEY_LEN) != 0) {
		abort();
	}
}

static void check_resiliency(const uint8_t *data, size_t size)
{
	uint32_t t = 0, asked;

	if (!NT_STATUS_IS_OK(fsctl_resiliency_parse(data, size, 300000, 120000,
						    &t))) {
		return;
	}
	if (size < FSCTL_RESILIENCY_REQ_LEN) {
		abort();
	}
	asked = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
		(uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	if (asked / 1000 > 300 || t != (asked != 0 ? asked : 120000)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t fmt;

	check_copychunk(data, size);
	check_ranges(data, size);
	check_resume_key(data, size);
	check_resiliency(data, size);
	(void)fsctl_set_sparse_parse(data, size);
	if (NT_STATUS_IS_OK(fsctl_compression_parse(data, size, &fmt)) &&
	    size < 2) {
		abort();
	}
	return 0;
}
