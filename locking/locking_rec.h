/*
 * Record formats of the locking database (locking.h).  Our own, versioned,
 * little-endian, read only through the checked cursor (lib/wire.h): a
 * record is shared by every worker, so one written by a buggy or older
 * process must never make another read out of bounds.
 *
 *   header (8 bytes)
 *     u8  version   LOCKING_REC_VERSION
 *     u8  kind      'S' share modes, 'B' byte-range locks
 *     u16 flags     'S': SHARE_REC_DELETE_PENDING; 'B': 0
 *     u32 count     number of entries that follow, nothing after them
 *   share-mode entry (92 bytes)
 *     u32 pid, u32 flags (SHARE_ENTRY_DELETE_ON_CLOSE, _BREAKING),
 *     u64 open_id, u32 access_mask, u32 share_access,
 *     u16 worker (the owner's worker index: where breaks are sent),
 *     u8 caching kind (0 none, 1 oplock, 2 lease), u8 lease version,
 *     u32 state, u32 breaking_to, u32 notified_to (R|H|W caching bits:
 *         an oplock is kept as the state it stands for, batch = RWH,
 *         exclusive = RW, level II = R),
 *     u16 lease epoch, u16 reserved (0),
 *     u8 lease_key[16], u8 client_guid[16],
 *     u64 change_time, u64 change_ctime (a ChangeTime the open's client
 *         set and the file's real ctime right after: both 0 for none;
 *         see share_mode_change_time in locking.h)
 *   byte-range lock entry (32 bytes)
 *     u32 pid, u32 flags (BRL_ENTRY_EXCLUSIVE), u64 open_id,
 *     u64 offset, u64 length   (offset + length - 1 never wraps unless
 *                               length is 0)
 *
 * Entries are fixed-size so a lookup walks the record in place, without
 * allocating (brl_check_io runs on every READ and WRITE).  Unknown flag
 * bits, a wrong size or a count above the limits fail the decode.
 */
#ifndef LOCKING_LOCKING_REC_H
#define LOCKING_LOCKING_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

#define LOCKING_REC_VERSION 3
#define LOCKING_REC_HDR_LEN 8
#define LOCKING_KIND_SHARE 'S'
#define LOCKING_KIND_BRL 'B'
#define SHARE_ENTRY_LEN 92
#define BRL_ENTRY_LEN 32

#define SHARE_REC_DELETE_PENDING 0x0001
/* An open waits for a break of this file: whoever ends a break (ack,
 * close, timeout) wakes the workers. */
#define SHARE_REC_WAITERS 0x0002
#define SHARE_REC_FLAGS (SHARE_REC_DELETE_PENDING | SHARE_REC_WAITERS)
#define SHARE_ENTRY_DELETE_ON_CLOSE 0x00000001
/* A break was sent and needs an acknowledgement (oplock or lease). */
#define SHARE_ENTRY_BREAKING 0x00000002
/* In a file's record, stands for an open of one of its named streams:
 * no access of its own; it refuses DELETE to others unless the stream
 * open shares delete, and keeps the file (a pending delete happens when
 * the last stream open closes too): MS-FSA 2.1.5.1.2, smbtorture
 * smb2.streams.delete. */
#define SHARE_ENTRY_STREAM 0x00000004
#define SHARE_ENTRY_FLAGS (SHARE_ENTRY_DELETE_ON_CLOSE | SHARE_ENTRY_BREAKING | \
			   SHARE_ENTRY_STREAM)

/* Caching kinds and states (MS-SMB2 2.2.13.2.8 LeaseState bits). */
#define CACHING_NONE 0
#define CACHING_OPLOCK 1
#define CACHING_LEASE 2
#define CACHE_R 0x1
#define CACHE_H 0x2
#define CACHE_W 0x4
#define CACHE_RWH (CACHE_R | CACHE_H | CACHE_W)
#define BRL_ENTRY_EXCLUSIVE 0x00000001

struct share_mode_entry {
	uint32_t pid;
	uint32_t flags;
	uint64_t open_id;
	uint32_t access_mask;
	uint32_t share_access;
	uint16_t worker;
	uint8_t caching;	/* CACHING_* */
	uint8_t lease_version;	/* 1 or 2 for a lease, else 0 */
	uint32_t state;		/* CACHE_* bits held now */
	uint32_t breaking_to;	/* while SHARE_ENTRY_BREAKING */
	uint32_t notified_to;	/* what the last break notification said */
	uint16_t epoch;
	uint8_t lease_key[16];
	uint8_t client_guid[16];
	uint64_t change_time;	/* NTTIME the client set, 0 for none */
	uint64_t change_ctime;	/* the file's ctime (NTTIME) just after */
};

struct share_mode_rec {
	uint16_t flags;
	uint32_t num;
	struct share_mode_entry *e;
};

struct brl_entry {
	uint32_t pid;
	uint32_t flags;
	uint64_t open_id;
	uint64_t off;
	uint64_t len;
};

struct brl_rec {
	uint32_t num;
	struct brl_entry *e;
};

/* Walks the entries of a record in place. */
struct locking_rec_iter {
	struct wire_cur cur;
	uint32_t left;
	uint16_t flags;	/* the header's flags */
};

/* Check the header and the total length; then _next() yields entries. */
NTSTATUS share_mode_rec_iter_init(struct locking_rec_iter *it,
				  const uint8_t *buf, size_t len);
/* NT_STATUS_OK with *e filled, NT_STATUS_NO_MORE_ENTRIES at the end, or
 * an error for a bad entry. */
NTSTATUS share_mode_rec_iter_next(struct locking_rec_iter *it,
				  struct share_mode_entry *e);
NTSTATUS brl_rec_iter_init(struct locking_rec_iter *it, const uint8_t *buf,
			   size_t len);
NTSTATUS brl_rec_iter_next(struct locking_rec_iter *it, struct brl_entry *e);

#ifndef NT_STATUS_NO_MORE_ENTRIES
#define NT_STATUS_NO_MORE_ENTRIES ((NTSTATUS)0x8000001A)
#endif

/* Whole records: decode into a talloc array (a child of mem_ctx), encode
 * into a talloc buffer.  Encoding refuses what decoding would refuse. */
NTSTATUS share_mode_rec_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, struct share_mode_rec *out);
NTSTATUS share_mode_rec_encode(TALLOC_CTX *mem_ctx,
			       const struct share_mode_rec *r, uint8_t **buf,
			       size_t *len);
NTSTATUS brl_rec_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			struct brl_rec *out);
NTSTATUS brl_rec_encode(TALLOC_CTX *mem_ctx, const struct brl_rec *r,
			uint8_t **buf, size_t *len);

/* Writers for callers that patch records in place (p has room). */
void locking_rec_put_header(uint8_t *p, uint8_t kind, uint16_t flags,
			    uint32_t count);
void share_mode_entry_put(uint8_t *p, const struct share_mode_entry *e);
void brl_entry_put(uint8_t *p, const struct brl_entry *e);

/* A lock range is valid when its last byte does not pass 2^64-1
 * (MS-FSA 2.1.5.8: zero-length ranges are always valid). */
static inline bool brl_range_valid(uint64_t off, uint64_t len)
{
	return len == 0 || off + (len - 1) >= off;
}

#endif
