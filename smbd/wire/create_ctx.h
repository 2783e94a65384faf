/*
 * SMB2 CREATE contexts (MS-SMB2 2.2.13.2, 2.2.14.2): parse the request's
 * chain into (name, data) slices, and append reply contexts.
 */
#ifndef SMBD_CREATE_CTX_H
#define SMBD_CREATE_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

struct create_ctx {
	char tag[17];		/* the name as a C string (4-16 bytes) */
	const uint8_t *name;
	size_t name_len;
	const uint8_t *data;
	size_t data_len;
};

struct create_ctx_list {
	struct create_ctx *ctx;
	size_t n;
};

/* Parse len bytes at buf.  INVALID_PARAMETER for any bound or alignment
 * violation, or a context given twice. */
NTSTATUS create_ctx_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			  struct create_ctx_list *out);
const struct create_ctx *create_ctx_find(const struct create_ctx_list *l,
					 const char *tag);

/*
 * RqLs (2.2.13.2.8 lease v1, 32 bytes; 2.2.13.2.10 lease v2, 52 bytes).
 * v2 only when v2_ok (a 3.x dialect); a v2-sized context on 2.1 reads as
 * v1 (its first 32 bytes are the v1 layout).  INVALID_PARAMETER when
 * shorter than 32 bytes.  state keeps only the R/H/W bits.
 */
struct create_lease {
	uint8_t version;	/* 1 or 2 */
	uint8_t key[16];
	uint32_t state;
	uint32_t flags;
	bool has_parent;	/* v2 with PARENT_LEASE_KEY_SET */
	uint8_t parent_key[16];
	uint16_t epoch;
};
NTSTATUS create_ctx_lease_parse(const struct create_ctx *c, bool v2_ok,
				struct create_lease *out);

/*
 * Durable handle contexts.  DHnQ (2.2.13.2.3): 16 reserved bytes.  DHnC
 * (2.2.13.2.4): the FileId to reclaim.  DH2Q (2.2.13.2.11): Timeout,
 * Flags, 8 reserved bytes, CreateGuid.  DH2C (2.2.13.2.12): FileId,
 * CreateGuid, Flags.  INVALID_PARAMETER when the data is shorter than
 * the structure (longer is tolerated, as Windows does).
 */
#define SMB2_DHANDLE_FLAG_PERSISTENT 0x00000002
struct create_durable {
	bool v2;
	bool reconnect;
	uint64_t fid_persistent;	/* DHnC, DH2C */
	uint64_t fid_volatile;
	uint32_t timeout_ms;		/* DH2Q */
	uint32_t flags;			/* DH2Q, DH2C */
	uint8_t create_guid[16];	/* DH2Q, DH2C */
};
NTSTATUS create_ctx_durable_parse(const struct create_ctx *c,
				  struct create_durable *out);

/* TWrp (2.2.13.2.7 SMB2_CREATE_TIMEWARP_TOKEN): the FILETIME Timestamp.
 * INVALID_PARAMETER unless the data is those 8 bytes. */
NTSTATUS create_ctx_twrp_parse(const struct create_ctx *c, uint64_t *ft);

/*
 * AAPL (Apple's SMB2 extension, as Samba's vfs_fruit answers it; not in
 * MS-SMB2): the request is CommandCode (u32), Reserved (u32), then for
 * kAAPL_SERVER_QUERY (1) RequestBitmap (u64: 1 server caps, 2 volume
 * caps, 4 model info) and ClientCaps (u64), little-endian.  Other
 * commands parse with only the command set (no reply is owed to them).
 * INVALID_PARAMETER when a server query is shorter than its 24 bytes.
 */
#define SMB2_AAPL_SERVER_QUERY 1
#define SMB2_AAPL_SERVER_CAPS 0x1
#define SMB2_AAPL_VOLUME_CAPS 0x2
#define SMB2_AAPL_MODEL_INFO 0x4
/* server capabilities */
#define SMB2_AAPL_SUPPORTS_READ_DIR_ATTR 0x1
#define SMB2_AAPL_SUPPORTS_OSX_COPYFILE 0x2
#define SMB2_AAPL_UNIX_BASED 0x4
#define SMB2_AAPL_SUPPORTS_NFS_ACE 0x8
/* volume capabilities */
#define SMB2_AAPL_SUPPORT_RESOLVE_ID 0x1
#define SMB2_AAPL_CASE_SENSITIVE 0x2
#define SMB2_AAPL_FULL_SYNC 0x4
struct create_aapl {
	uint32_t command;
	uint64_t request_bitmap;
	uint64_t client_caps;
};
NTSTATUS create_ctx_aapl_parse(const struct create_ctx *c,
			       struct create_aapl *out);
/*
 * The server query's reply: CommandCode, Reserved, ReplyBitmap (what
 * was asked for), then in that order ServerCaps (u64) if asked, VolumeCaps
 * (u64) if asked, and with model info a u32 pad, the model's byte length
 * (u32) and the model in UTF-16LE without a NUL.  On mem_ctx; NULL when
 * out of memory or the model is not UTF-8.
 */
uint8_t *create_ctx_aapl_reply(TALLOC_CTX *mem_ctx,
			       const struct create_aapl *q,
			       uint64_t server_caps, uint64_t volume_caps,
			       const char *model, size_t *len);

/* Append one reply context (8-aligned from base, chaining *prev's Next). */
void create_ctx_push(struct wire_buf *out, size_t base, size_t *prev,
		     const char *tag, const void *data, size_t data_len);

#endif
