/*
 * libFuzzer target: smbd/smb2/smb2_lock.c's LOCK request parser and flag
 * check.  Whatever parses must hold LockCount elements read from inside
 * the input; a lock request that passes the check has ranges matching
 * its elements and waits only when it is a single element.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <talloc.h>
#include "smbd/smb2/smb2_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct smb2_lock_req r;
	uint16_t i;

	if (!NT_STATUS_IS_OK(smb2_lock_parse(ctx, data, size, &r))) {
		talloc_free(ctx);
		return 0;
	}
	if (r.count == 0 || 24 + (size_t)r.count * 24 > size ||
	    r.unlock != ((r.el[0].flags & SMB2_LOCKFLAG_UNLOCK) != 0)) {
		abort();
	}
	if (!r.unlock && NT_STATUS_IS_OK(smb2_lock_check_locks(ctx, &r))) {
		for (i = 0; i < r.count; i++) {
			if (r.ranges[i].off != r.el[i].off ||
			    r.ranges[i].len != r.el[i].len ||
			    (r.el[i].flags & SMB2_LOCKFLAG_UNLOCK)) {
				abort();
			}
		}
		if (r.blocking && r.count != 1) {
			abort();
		}
	}
	talloc_free(ctx);
	return 0;
}
