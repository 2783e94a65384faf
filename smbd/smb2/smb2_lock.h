/*
 * The SMB2 LOCK request (MS-SMB2 2.2.26) cut into its fields, apart from
 * the handler so unit tests and the fuzz target reach it without a
 * session.
 */
#ifndef SMBD_SMB2_LOCK_H
#define SMBD_SMB2_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "locking/locking.h"

/* 2.2.26.1 SMB2_LOCK_ELEMENT Flags */
#define SMB2_LOCKFLAG_SHARED 0x00000001
#define SMB2_LOCKFLAG_EXCLUSIVE 0x00000002
#define SMB2_LOCKFLAG_UNLOCK 0x00000004
#define SMB2_LOCKFLAG_FAIL_IMMEDIATELY 0x00000010

#define SMB2_LOCK_ELEMENT_LEN 24

struct smb2_lock_elem {
	uint64_t off, len;
	uint32_t flags;
};

struct smb2_lock_req {
	uint16_t count;		/* at least 1 */
	uint32_t sequence;	/* LockSequenceNumber/Index, unused */
	uint8_t fid[16];
	bool unlock;		/* the first element says UNLOCK */
	struct smb2_lock_elem *el;
	/* Filled by smb2_lock_check_locks() for a lock request: */
	struct brl_range *ranges;
	bool blocking;		/* the single element may wait */
};

/*
 * Cut the body (after the SMB2 header, StructureSize first) into *out;
 * arrays are talloc children of mem_ctx.  INVALID_PARAMETER for a
 * LockCount of 0 or elements past the end.  Flags are not judged here:
 * an unlock request checks each element when it gets to it.
 */
NTSTATUS smb2_lock_parse(TALLOC_CTX *mem_ctx, const uint8_t *body,
			 size_t len, struct smb2_lock_req *out);
/* A lock request (not unlock): every element one of the four flag
 * combinations of 2.2.26.1, FAIL_IMMEDIATELY on all of several
 * (3.3.5.14.2); fills ranges and blocking.  INVALID_PARAMETER else. */
NTSTATUS smb2_lock_check_locks(TALLOC_CTX *mem_ctx, struct smb2_lock_req *r);

#endif
