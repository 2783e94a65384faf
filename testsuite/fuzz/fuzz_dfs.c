/*
 * libFuzzer target: smbd/wire/dfs_wire.c (the DFS referral requests an
 * IOCTL carries, MS-DFSC 2.2.2/2.2.3; a CREATE's DFS name; the referral
 * path helpers) and the response encoder fed with what they parsed,
 * plus vfs/msdfs.c's reading of a link's target list.
 *
 * The whole input goes to every parser.  Checked invariants: a parsed
 * request was long enough for its fixed part and has its level; a
 * response within MaxOutputResponse (the first two input bytes) on
 * success, with its entries and their string offsets inside it, cut at
 * exactly MaxOutputResponse on STATUS_BUFFER_OVERFLOW; a split path's
 * share is not empty and its prefixes lie inside it; a CREATE name's
 * skip is whole units inside the name; every link target starts with
 * one '\'.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/dfs_wire.h"
#include "vfs/msdfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_resp(TALLOC_CTX *mem, const struct dfs_referral_req *q,
		       uint32_t max_out)
{
	struct dfs_referral_resp r;
	struct dfs_path p;
	struct wire_buf b;
	char **t;
	size_t n, i, count, esz;
	NTSTATUS st;

	if (!vfs_msdfs_targets(mem, q->path, &t, &n)) {
		return;
	}
	for (i = 0; i < n; i++) {
		if (t[i][0] != '\\' || t[i][1] == '\\') {
			abort();
		}
	}
	memset(&r, 0, sizeof(r));
	r.path_consumed = (uint16_t)dfs_utf16_len(q->path, strlen(q->path));
	r.root = (q->max_level & 1) != 0;
	r.dfs_path = q->path;
	r.targets = (const char *const *)t;
	r.ntargets = n;
	wire_buf_init(&b, mem, 16);
	st = dfs_referral_resp_push(&b, q->max_level, &r, max_out);
	if (st == STATUS_BUFFER_OVERFLOW) {
		if (b.len != max_out) {
			abort();
		}
		return;
	}
	if (!NT_STATUS_IS_OK(st)) {
		return;
	}
	if (b.len > max_out || b.len < 8) {
		abort();
	}
	count = le16(b.data + 2);
	esz = q->max_level >= 3 ? DFS_ENTRY_V3_LEN : DFS_ENTRY_V2_LEN;
	if (count > n || 8 + count * esz > b.len) {
		abort();
	}
	for (i = 0; i < count; i++) {
		const uint8_t *e = b.data + 8 + i * esz;
		size_t at = (size_t)(e - b.data), o = q->max_level >= 3 ? 12
									: 16;

		if (le16(e) != (q->max_level >= 3 ? 3 : 2) ||
		    at + le16(e + o + 4) + 2 > b.len) {
			abort();
		}
	}
	if (NT_STATUS_IS_OK(dfs_path_split(mem, q->path, &p))) {
		size_t len = strlen(p.full);

		if (p.share[0] == '\0' || p.rest < p.full ||
		    p.rest > p.full + len ||
		    dfs_path_prefix_len(&p, p.rest, 1 + (max_out & 3)) > len) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct dfs_referral_req q;
	size_t skip;

	if (NT_STATUS_IS_OK(dfs_referral_req_parse(mem, data, size, &q))) {
		if (size < 2 || q.max_level != le16(data) || q.path == NULL) {
			abort();
		}
		check_resp(mem, &q, size >= 4 ? le16(data + 2) : 0);
	}
	if (NT_STATUS_IS_OK(dfs_referral_req_ex_parse(mem, data, size, &q))) {
		if (size < 10 || q.max_level != le16(data) || q.path == NULL ||
		    ((le16(data + 2) & DFS_REQ_EX_SITE_NAME) != 0) !=
			    (q.site != NULL)) {
			abort();
		}
		check_resp(mem, &q, 4096);
	}
	if (NT_STATUS_IS_OK(dfs_create_name_strip(mem, data, size, "share",
						  &skip)) &&
	    (skip > size || (skip & 1) != 0)) {
		abort();
	}
	talloc_free(mem);
	return 0;
}
