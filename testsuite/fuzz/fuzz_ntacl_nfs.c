/*
 * libFuzzer target: smbd/objects/ntacl_nfs.c, what a Mac's SET_INFO
 * descriptor goes through with fruit:nfs_aces.  The first byte is the
 * SecurityInformation sent, the rest the descriptor.  Whatever is
 * accepted must parse again; with the DACL sent it holds no NFS ACE any
 * more and a second pass changes nothing.  The descriptor with the NFS
 * ACEs QUERY_INFO adds must marshal, parse back and end with exactly
 * them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/objects/secdesc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_set(TALLOC_CTX *ctx, const uint8_t *buf, size_t len,
		      uint32_t secinfo)
{
	uint32_t si = secinfo, si2;
	uint8_t *out, *out2;
	size_t out_len, out2_len;
	struct sd *sd;
	bool chmod;
	mode_t mode;

	if (!NT_STATUS_IS_OK(ntacl_nfs_set_prepare(ctx, buf, len, &si, &out,
						   &out_len, &chmod,
						   &mode))) {
		return;
	}
	if ((mode & ~0777u) != 0 || (si & ~secinfo) != 0 ||
	    !NT_STATUS_IS_OK(sd_parse(ctx, out, out_len, &sd)) ||
	    ((secinfo & SECINFO_DACL) && ntacl_nfs_acl_has(sd->dacl))) {
		abort();
	}
	si2 = si;
	if (!NT_STATUS_IS_OK(ntacl_nfs_set_prepare(ctx, out, out_len, &si2,
						   &out2, &out2_len, &chmod,
						   &mode)) ||
	    si2 != si || chmod || out2_len != out_len ||
	    memcmp(out, out2, out_len) != 0) {
		abort();
	}
}

static void check_add(TALLOC_CTX *ctx, const uint8_t *buf, size_t len)
{
	struct sd *sd, *back;
	uint8_t *blob;
	size_t blob_len;
	uint16_t n, i, count = 0;

	if (!NT_STATUS_IS_OK(sd_parse(ctx, buf, len, &sd)) ||
	    !NT_STATUS_IS_OK(ntacl_nfs_add(ctx, sd, 1001, 1002, 0100644))) {
		return;
	}
	if (!NT_STATUS_IS_OK(sd_marshal(ctx, sd, &blob, &blob_len)) ||
	    !NT_STATUS_IS_OK(sd_parse(ctx, blob, blob_len, &back)) ||
	    back->dacl == NULL || back->dacl->num_aces < 3) {
		abort();
	}
	n = back->dacl->num_aces;
	for (i = 0; i < n; i++) {
		const struct sd_ace *a = &back->dacl->aces[i];

		if (a->opaque == NULL && ntacl_nfs_sid_is(&a->sid)) {
			count++;
			if (i < n - 3 || a->sid.sub_auths[2] ==
					 0 /* none of ours is 0 */) {
				abort();
			}
		}
	}
	if (count != 3) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx;

	if (size < 1) {
		return 0;
	}
	ctx = talloc_new(NULL);
	check_set(ctx, data + 1, size - 1, data[0] & 0x0f);
	check_add(ctx, data + 1, size - 1);
	talloc_free(ctx);
	return 0;
}
