/*
 * The ctdbd client protocol, as a codec: building the packets a client
 * sends to its local ctdbd over the unix socket and checking the ones it
 * gets back.  No I/O here (ctdb_conn.c does that), so every parser can be
 * unit-tested and fuzzed alone.
 *
 * Written from the CTDB protocol definitions (ctdb/protocol/protocol.h:
 * struct ctdb_req_header and the packet layouts of protocol_call.c,
 * protocol_message.c and protocol_control.c).  Every field is in the
 * host's byte order (ctdbd and its clients are one machine); packets are
 * padded to 8 bytes and the header's length counts the padding.
 *
 *   header (32):  length, magic "CTDB", version 1, generation, operation,
 *                 destnode, srcnode, reqid
 *   REQ_CALL:     flags, db_id, callid, hopcount, keylen, calldatalen,
 *                 key, calldata
 *   REPLY_CALL:   status, datalen, data
 *   REPLY_ERROR:  status, msglen, msg
 *   REQ_MESSAGE:  srvid (64), datalen, data
 *   REQ_CONTROL:  opcode, pad, srvid (64), client_id, flags, datalen, data
 *   REPLY_CONTROL: status, datalen, errorlen, data, error
 *
 * A record in a clustered database's local tdb copy starts with the
 * 24-byte ltdb header (rsn 64, dmaster, reserved, flags, padding): only
 * the node named dmaster holds the current copy of a volatile record.
 */
#ifndef LOCKING_CTDB_CTDB_PROTO_H
#define LOCKING_CTDB_CTDB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

#define CTDB_MAGIC 0x43544442	/* "CTDB" */
#define CTDB_PROTOCOL 1
#define CTDB_HDR_LEN 32
#define CTDB_LTDB_HDR_LEN 24
/* Nothing we ask for comes near this; a bigger length is a broken
 * stream, not a packet to allocate for. */
#define CTDB_MAX_PACKET (64u * 1024 * 1024)

enum ctdb_operation {
	CTDB_REQ_CALL = 0,
	CTDB_REPLY_CALL = 1,
	CTDB_REPLY_ERROR = 4,
	CTDB_REQ_MESSAGE = 5,
	CTDB_REQ_CONTROL = 7,
	CTDB_REPLY_CONTROL = 8,
};

/* Destinations. */
#define CTDB_CURRENT_NODE 0xF0000001
#define CTDB_BROADCAST_CONNECTED 0xF0000004
#define CTDB_UNKNOWN_PNN 0xFFFFFFFF

/* Calls (struct ctdb_call): run nothing, just move the record here. */
#define CTDB_NULL_FUNC 0xFF000001
#define CTDB_FETCH_FUNC 0xFF000002
#define CTDB_IMMEDIATE_MIGRATION 0x00000001

/* The controls we use. */
#define CTDB_CONTROL_PROCESS_EXISTS 0
#define CTDB_CONTROL_GETDBPATH 4
#define CTDB_CONTROL_DB_ATTACH 18
#define CTDB_CONTROL_REGISTER_SRVID 23
#define CTDB_CONTROL_DEREGISTER_SRVID 24
#define CTDB_CONTROL_GET_PNN 35
#define CTDB_CONTROL_TCP_CLIENT 44
#define CTDB_CONTROL_DB_ATTACH_PERSISTENT 61
#define CTDB_CONTROL_TRANS3_COMMIT 119
#define CTDB_CONTROL_GET_DB_SEQNUM 120
#define CTDB_CONTROL_DB_OPEN_FLAGS 149
#define CTDB_CTRL_FLAG_NOREPLY 1

/* ltdb header flags. */
#define CTDB_REC_FLAG_MIGRATED_WITH_DATA 0x00010000
#define CTDB_REC_FLAG_VACUUM_MIGRATED 0x00020000
#define CTDB_REC_FLAG_AUTOMATIC 0x00040000
#define CTDB_REC_RO_FLAGS 0x0F000000

/* Where srvids of the CIFS server live (the top byte is Samba's range,
 * CTDB_SRVID_SAMBA_RANGE; Samba's own smbds use it per process id in
 * its low bits, we use a sub-range nobody else takes). */
#define CTDB_SRVID_SAMBA_RANGE 0xFE00000000000000ULL
#define CTDB_SRVID_RELEASE_IP 0xF300000000000000ULL

struct ctdb_hdr {
	uint32_t length;
	uint32_t magic;
	uint32_t version;
	uint32_t generation;
	uint32_t operation;
	uint32_t destnode;
	uint32_t srcnode;
	uint32_t reqid;
};

/* One received packet, its payload pointing into the buffer. */
struct ctdb_pkt {
	struct ctdb_hdr hdr;
	int32_t status;			/* REPLY_CALL/ERROR/CONTROL */
	uint64_t srvid;			/* REQ_MESSAGE */
	const uint8_t *data;		/* call/control reply data, message */
	uint32_t datalen;
	const uint8_t *errmsg;		/* REPLY_ERROR, REPLY_CONTROL */
	uint32_t errlen;
};

struct ctdb_ltdb_hdr {
	uint64_t rsn;
	uint32_t dmaster;
	uint32_t flags;
};

/*
 * The length a stream's next packet announces, from its first 4 bytes:
 * NT_STATUS_INVALID_NETWORK_RESPONSE when it is shorter than a header or
 * longer than CTDB_MAX_PACKET.
 */
NTSTATUS ctdb_pkt_length(const uint8_t first4[4], uint32_t *len);

/*
 * Check one whole packet (len bytes as ctdb_pkt_length() announced) and
 * point out its parts.  Operations we do not read (a REQ_CALL sent to a
 * client, say) pass with only the header checked.
 * NT_STATUS_INVALID_NETWORK_RESPONSE for anything malformed.
 */
NTSTATUS ctdb_pkt_parse(const uint8_t *buf, size_t len, struct ctdb_pkt *p);

/* Packets to send: talloc children of mem_ctx, *len bytes (padded to
 * 8), NULL when out of memory. */
uint8_t *ctdb_pkt_call(TALLOC_CTX *mem_ctx, uint32_t reqid, uint32_t db_id,
		       uint32_t flags, uint32_t callid, const uint8_t *key,
		       size_t keylen, size_t *len);
uint8_t *ctdb_pkt_control(TALLOC_CTX *mem_ctx, uint32_t reqid,
			  uint32_t destnode, uint32_t opcode, uint64_t srvid,
			  uint32_t flags, const void *data, size_t datalen,
			  size_t *len);
uint8_t *ctdb_pkt_message(TALLOC_CTX *mem_ctx, uint32_t reqid,
			  uint32_t destnode, uint64_t srvid, const void *data,
			  size_t datalen, size_t *len);

/* The ltdb header in front of a record: false when shorter. */
bool ctdb_ltdb_hdr_pull(const uint8_t *buf, size_t len,
			struct ctdb_ltdb_hdr *h);
void ctdb_ltdb_hdr_push(uint8_t out[CTDB_LTDB_HDR_LEN],
			const struct ctdb_ltdb_hdr *h);

/*
 * A marshalled record buffer (struct ctdb_rec_buffer) for TRANS3_COMMIT
 * to a persistent database: db_id, count, then per record its length
 * (these 16 bytes included), reqid, keylen, datalen (the ltdb header
 * included), key, ltdb header, data.  Add with ctdb_recbuf_add(); buf
 * is a talloc child of mem_ctx.
 */
struct ctdb_recbuf {
	uint8_t *buf;
	size_t len;
	uint32_t count;
};
bool ctdb_recbuf_init(TALLOC_CTX *mem_ctx, struct ctdb_recbuf *rb,
		      uint32_t db_id);
bool ctdb_recbuf_add(struct ctdb_recbuf *rb, const uint8_t *key,
		     size_t keylen, const struct ctdb_ltdb_hdr *h,
		     const uint8_t *data, size_t datalen);

#endif
