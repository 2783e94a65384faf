/*
 * SMB2 request processing: the request structure handlers see, the
 * dispatch table slot, and the helpers handlers use to build replies.
 *
 * A frame is cut once into bounded per-request slices (smb2_pdu.c), each
 * checked against the command's size table, then dispatched.  Handlers
 * read their body through req->body (a checked cursor) and append their
 * reply body to req->out; the dispatcher writes the header, credits,
 * compound padding and NextCommand.
 */
#ifndef SMBD_SMB2_SERVER_H
#define SMBD_SMB2_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"
#include "smbd/smb2.h"

struct smbd_conn;
struct smbd_session;
struct smbd_tcon;

struct smb2_request {
	struct smbd_conn *conn;
	TALLOC_CTX *mem_ctx;	/* freed when the reply is sent */

	/* The request: header + body, inside the received frame. */
	const uint8_t *in;
	size_t in_len;
	struct wire_cur body;	/* the body (after the 64-byte header) */
	uint16_t opcode;
	uint16_t credit_charge;
	uint16_t credit_request;
	uint32_t flags;
	uint32_t next_command;
	uint64_t mid;
	uint64_t session_id;
	uint32_t tree_id;
	bool related;
	bool first_in_chain;
	uint64_t prev_session_id;	/* for related compounds */
	uint32_t prev_tree_id;
	bool signed_in;		/* the request was signed and verified */

	/* Resolved by the dispatcher from the table's policy. */
	struct smbd_session *session;
	struct smbd_tcon *tcon;

	/* The reply, appended to the frame's output buffer. */
	struct wire_buf *out;
	size_t out_hdr;		/* offset of this reply's header in *out */
	bool keep_body;		/* error status with a real body
				 * (e.g. MORE_PROCESSING_REQUIRED) */
	bool disconnect;	/* drop the connection, no reply */
	bool no_reply;		/* CANCEL: nothing goes back */
	bool sign_reply;	/* sign even if the session does not require
				 * it (final SESSION_SETUP) */
	bool sign_after_free;	/* LOGOFF: sign with the copy below */
	uint8_t sign_key[16];
	int sign_algo;
	/* Called with the finished reply (header filled, before signing):
	 * NEGOTIATE and SESSION_SETUP hash it into the preauth hash. */
	void (*after_reply)(struct smb2_request *req, const uint8_t *reply,
			    size_t len);
};

/* The dispatch slot: policy only, as Samba's smbd and ksmbd's table. */
struct smb2_cmd {
	const char *name;
	uint16_t body_size;	/* request StructureSize (MS-SMB2 2.2.x) */
	bool need_negotiate;	/* refused before NEGOTIATE */
	bool need_session;	/* a VALID session (USER_SESSION_DELETED) */
	bool need_tree;		/* a tree connect (NETWORK_NAME_DELETED) */
	NTSTATUS (*fn)(struct smb2_request *req);
};

const struct smb2_cmd *smb2_cmd_lookup(uint16_t opcode);

/* smb2_pdu.c: the table-driven bounds check of one request's body. */
NTSTATUS smb2_pdu_check(uint16_t opcode, const uint8_t *pdu, size_t len);
/* Split a frame into requests: offsets of each header, count. */
#define SMB2_MAX_COMPOUND 64
NTSTATUS smb2_pdu_split(const uint8_t *frame, size_t len, size_t *offs,
			size_t *lens, size_t *n);

/* smb2_dispatch.c */
void smb2_process_frame(struct smbd_conn *conn, const uint8_t *buf,
			size_t len);
/* Credits: grant for one reply, after charging the request. */
bool smb2_credits_charge(struct smbd_conn *conn, uint64_t mid,
			 uint16_t charge);
uint16_t smb2_credits_grant(struct smbd_conn *conn, uint16_t charge,
			    uint16_t requested);
bool smb2_credits_init(struct smbd_conn *conn);

/* Handlers */
NTSTATUS smb2_negotiate(struct smb2_request *req);
NTSTATUS smb2_echo(struct smb2_request *req);
NTSTATUS smb2_sesssetup(struct smb2_request *req);
NTSTATUS smb2_logoff(struct smb2_request *req);
NTSTATUS smb2_tcon(struct smb2_request *req);
NTSTATUS smb2_tdis(struct smb2_request *req);
NTSTATUS smb2_ioctl(struct smb2_request *req);
NTSTATUS smb2_not_implemented(struct smb2_request *req);
/* SMB1 NEGOTIATE with "SMB 2.002"/"SMB 2.???" (smb1_negotiate.c). */
void smb1_negotiate(struct smbd_conn *conn, const uint8_t *buf, size_t len);

#endif
