/*
 * A connection's state (split off conn.h, issue 37 item 2): struct
 * smbd_conn, what the rooms above the pipeline read of a connection (its
 * worker, dialect, ClientGuid, cipher, address for logs and smbstatus, its
 * opens by volatile FileId).  A file that needs a connection's fields but
 * none of the pipeline's calls (the objects room) includes this header and
 * worker.h, not conn.h, which adds the calls.
 */
#ifndef SMBD_CONN_CONN_STATE_H
#define SMBD_CONN_CONN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smbd/conn/smb2_compress.h"

struct smbd_session;
struct smb2_frame;
struct ev_stream;
struct ev_timer;
struct ctdb_conn;
struct conn_handover;
struct smbd_channel;
struct smbd_open;
struct smbd_worker;

/* Bits of the message-id window bitmap (MS-SMB2 3.3.1.1): two full credit
 * windows, so a client may leave gaps without being starved at once. */
#define SMBD_SEQ_BITS (2 * 8192)

struct smbd_conn {
	struct smbd_worker *worker;
	struct smbd_conn *wprev, *wnext;	/* worker->conns */
	struct ev_stream *stream;
	struct ctdb_conn *ctdb_tcp;	/* clustered: on ctdbd's tickle list */
	uint64_t id;
	char remote[64];	/* "addr:port" for logs */
	char remote_addr[48];	/* numeric address, for hosts allow / %I */
	char local_addr[48];	/* numeric, for the auth audit lines */
	uint16_t remote_port;
	uint16_t local_port;
	int log_slot;		/* conn_log.c: client log handle + 1, or 0 */
	bool nbt;		/* port 139: NetBIOS session request first */
	bool nbt_session_ok;
	/* Tests and fuzzers: frames go here instead of a socket.  The sink
	 * owns the buffer. */
	void (*sink)(struct smbd_conn *conn, uint8_t *buf, size_t len);
	bool busy;		/* a frame is being handled */
	bool dead;		/* dropped while busy: freed after it */

	/* Frame reassembly: only an incomplete tail is ever copied. */
	uint8_t hdr[4];
	size_t hdr_have;
	uint8_t *frame;
	size_t frame_len, frame_have;

	/* Negotiate (MS-SMB2 3.3.1.7 Connection). */
	bool negotiated;	/* SMB2 dialect chosen */
	bool smb1_wildcard;	/* SMB1 NEGOTIATE answered 0x02FF */
	uint16_t dialect;
	uint16_t client_security_mode;
	uint32_t client_caps;
	uint32_t server_caps;
	uint8_t client_guid[16];
	uint16_t client_dialects[16];
	uint16_t client_ndialects;
	uint16_t server_security_mode;
	uint16_t cipher;	/* 0: none negotiated */
	uint16_t signing_algo;	/* SMB2_SIGNING_* */
	bool signing_algo_negotiated;
	uint8_t preauth_hash[64];
	uint32_t max_trans, max_read, max_write;
	struct smb2_compress_caps compress;	/* 3.1.1 only */

	/* Credits and the message-id window (MS-SMB2 3.3.1.1, 3.3.1.2). */
	uint64_t seq_low;	/* lowest id not yet used */
	uint64_t seq_high;	/* first id past the window */
	uint32_t cur_credits;	/* unused ids in [seq_low, seq_high) */
	uint8_t *seq_bitmap;	/* SMBD_SEQ_BITS bits, id % SMBD_SEQ_BITS */

	struct smbd_session *sessions;
	/* conn_limits.c */
	bool logged_on;		/* a session has logged on */
	bool limits_counted;
	unsigned limits_bucket;
	struct ev_timer *logon_timer;
	/* auth_limit.c: no credentials are checked on this connection
	 * before this CLOCK_MONOTONIC ms (its last failure's answer). */
	uint64_t auth_gate_ms;
	/* Sessions by id (smbd_session_find), and how many: a client may
	 * hold at most SMBD_MAX_SESSIONS, of which SMBD_MAX_PENDING_SESSIONS
	 * still authenticating (issue 14 item 6). */
#define SMBD_SESSION_BUCKETS 64
	struct smbd_session *session_hash[SMBD_SESSION_BUCKETS];
	unsigned nsessions;
	/* Sessions of other connections this one is bound to (session.h). */
	struct smbd_channel *channels;
	struct smb2_frame *waiting_frames;	/* cancellable (dispatch) */
	/* Bytes of decompressed messages its waiting requests keep, and
	 * whether it is to be dropped for holding the most of a worker at
	 * its bound (conn_limits.h, issue 34). */
	size_t decomp_held;
	bool decomp_doomed;

	/* While a frame is handled: the bytes of the input after it (valid
	 * only then), which go along if the connection moves. */
	const uint8_t *rest;
	size_t rest_len;
	/* Moving to another worker (conn_handover.c), or moved here from
	 * one: it does not move again. */
	struct conn_handover *handover;
	bool moved;
	/* counted in the status DB as a connection of its ClientGuid on
	 * this worker (smb2_negotiate.c) */
	bool client_claimed;

	/* Opens by volatile FileId (open.c). */
#define SMBD_OPEN_BUCKETS 256
	struct smbd_open *open_hash[SMBD_OPEN_BUCKETS];
	unsigned nopens;
};

#endif
