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
struct smb2_frame;
struct smb2_job;
struct smbd_session;
struct smbd_tcon;
struct smbd_worker;

/* A handler that handed its work to the thread pool returns this; the
 * job's done callback produces the real status later. */
#define SMBD_STATUS_ASYNC STATUS_PENDING

struct smb2_request {
	struct smbd_conn *conn;
	struct smb2_frame *frame;
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
	uint8_t prev_fid[16];		/* for related compounds (3.3.5.2.7.2) */
	NTSTATUS prev_status;
	uint8_t fid[16];		/* the FileId this request used/created */
	void *job_priv;			/* handler data kept across a job */
	bool signed_in;		/* the request was signed and verified */
	uint16_t channel_seq;	/* ChannelSequence (3.x requests) */
	bool channel_counted;	/* counted in an open (3.3.5.2.10) */
	uint64_t channel_fid;	/* ... the open's FileId.Volatile */

	/* Resolved by the dispatcher from the table's policy. */
	struct smbd_session *session;
	struct smbd_tcon *tcon;

	/* The reply, appended to the frame's output buffer. */
	struct wire_buf *out;
	size_t out_hdr;		/* offset of this reply's header in *out */
	size_t out_before;	/* out->len before this reply (and padding) */
	bool keep_body;		/* error status with a real body
				 * (e.g. MORE_PROCESSING_REQUIRED) */
	bool disconnect;	/* drop the connection, no reply */
	const char *disconnect_why;	/* logged with it (NULL: "protocol
					 * violation") */
	bool no_reply;		/* CANCEL: nothing goes back */
	/* ErrorData of an error reply (2.2.2), set by the handler through
	 * smb2_request_error_data(); none by default. */
	const uint8_t *err_data;
	uint32_t err_data_len;
	bool err_in_ctx;	/* 3.1.1: as one SMB2 ERROR Context */
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

/*
 * The protocol the dispatcher serves: the command table (SMB2_OP_MAX
 * slots by opcode) and two hooks.  smbd/smb2/smb2_cmds.c defines it and
 * the worker puts it in smbd_worker.smb2 at start, so this layer, below
 * the commands, calls them through the table and never by name.
 */
struct smb2_protocol {
	const struct smb2_cmd *cmds;
	/* An SMB1 NEGOTIATE as the first frame (MS-SMB2 3.3.5.3.1). */
	void (*negotiate_smb1)(struct smbd_conn *conn, const uint8_t *buf,
			       size_t len);
	/* Each request, as its reply is finished (3.3.4.1). */
	void (*reply_done)(struct smb2_request *req);
};

/* smb2_pdu.c: the table-driven bounds check of one request's body. */
NTSTATUS smb2_pdu_check(uint16_t opcode, const uint8_t *pdu, size_t len);
/*
 * The bytes of a request a handler may read (issue 34): the header, the
 * StructureSize, and the buffers and arrays the size table names, so at
 * most len.  A request that waits keeps only these (smb2_dispatch.c's
 * frame_keep): any field a handler reads after a wait must lie in the
 * table.  len itself for NEGOTIATE (its contexts), SESSION_SETUP (the
 * preauth hash covers it whole) and a request smb2_pdu_check refuses.
 * smb2_pdu_check accepts the first smb2_pdu_extent() bytes as it accepts
 * the whole.
 */
size_t smb2_pdu_extent(uint16_t opcode, const uint8_t *pdu, size_t len);
/* Split a frame into requests: offsets of each header, count. */
#define SMB2_MAX_COMPOUND 64
NTSTATUS smb2_pdu_split(const uint8_t *frame, size_t len, size_t *offs,
			size_t *lens, size_t *n);

/* smb2_dispatch.c */
void smb2_frame_resume(struct smb2_request *req, NTSTATUS status);
/* The request's work in progress elsewhere (NULL: none now): if the
 * frame goes first (a dropped connection), abandon(work) tells it, so it
 * never finishes into a freed request (smb2_job.c's pool jobs). */
void smb2_frame_set_work(struct smb2_request *req, void *work,
			 void (*abandon)(void *work));
/* A request that waits (returned SMBD_STATUS_ASYNC) and can be cancelled:
 * a CANCEL for its MessageId calls fn(priv), which must finish it with
 * smb2_frame_resume(req, NT_STATUS_CANCELLED). */
void smb2_request_set_cancel(struct smb2_request *req,
			     void (*fn)(void *priv), void *priv);
/* A message the server sends on its own (oplock and lease breaks,
 * 3.3.4.6, 3.3.4.7): MessageId all ones, encrypted when s (may be NULL)
 * encrypts. */
void smb2_send_notification(struct smbd_conn *conn, struct smbd_session *s,
			    uint16_t opcode, const uint8_t *body, size_t len);
/*
 * Zero-copy READ (smb2_read.c).  Whether req's reply goes out as plain
 * bytes to a socket: alone in its frame (3.3.4.1.3: a compound's replies
 * are one message, padded and signed together), neither signed nor
 * encrypted (3.3.4.1.1, 3.3.4.1.4: the signature or the AEAD covers the
 * data, which must then pass through our hands), not to a test sink.
 */
bool smb2_reply_can_send_file(struct smb2_request *req);
/* 3.1.4.4: req's reply (alone in its frame, on a connection that
 * negotiated compression) goes compressed where that makes it smaller,
 * its first plain bytes as they are; never zero-copy then. */
void smb2_reply_compress(struct smb2_request *req, size_t plain);
/* req's reply (its body ends where the data starts) continues with flen
 * bytes of the file fd from off; the frame owns fd from now on. */
void smb2_request_send_file(struct smb2_request *req, int fd, uint64_t off,
			    size_t flen);
/*
 * The ErrorData the error reply to req carries (MS-SMB2 2.2.2.2: the
 * required length for STATUS_BUFFER_TOO_SMALL, ...): len bytes of data,
 * copied.  in_ctx: on a 3.1.1 connection they go as one SMB2 ERROR
 * Context with ErrorId 0 (2.2.2.1), as 3.3.5.20.x spell it for 3.1.1;
 * then len may be 0 (a context with no data).  False without memory (the
 * reply goes without the data).
 */
bool smb2_request_error_data(struct smb2_request *req, const void *data,
			     size_t len, bool in_ctx);
/* Whether req is the last request of its frame (alone or compound). */
bool smb2_request_is_last(const struct smb2_request *req);
/* owned: buf as a talloc buffer the frame may keep (NULL: borrowed). */
void smb2_process_frame(struct smbd_conn *conn, const uint8_t *buf,
			size_t len, uint8_t *owned);
/* Make req->in/req->body survive an async wait: once per frame, the
 * request keeps its smb2_pdu_extent() bytes and the requests after it
 * (copied out of the receive buffer, or out of a larger message of ours,
 * so req->in moves); call before keeping pointers into the request in
 * job state.
 * holder, when not NULL, keeps the input alive as long as it lives, even
 * past the request's frame (a job still reading it after a disconnect). */
bool smb2_request_keep_input(struct smb2_request *req, TALLOC_CTX *holder);
/* Credits: grant for one reply, after charging the request. */
bool smb2_credits_charge(struct smbd_conn *conn, uint64_t mid,
			 uint16_t charge);
uint16_t smb2_credits_grant(struct smbd_conn *conn, uint16_t charge,
			    uint16_t requested);
bool smb2_credits_init(struct smbd_conn *conn);
/* Undo smb2_credits_charge(conn, mid, charge): the window is as before
 * the request came (it moves to another worker and comes again). */
void smb2_credits_uncharge(struct smbd_conn *conn, uint64_t mid,
			   uint16_t charge);
/* The connection goes (its destructor, after smbd_sessions_conn_lost):
 * waiting CREATEs of sessions that live on over another channel finish
 * there, unanswered. */
void smb2_frames_conn_lost(struct smbd_conn *conn);
/* The request is the whole frame, not encrypted. */
bool smb2_request_alone(const struct smb2_request *req);
/*
 * conn_handover.c: req's connection moves to worker to, which runs req
 * again as if it came there: the negotiated state, the credit window
 * (without req's charge) and req's bytes go along with the socket.  True
 * when under way (req gets no reply here); false when it cannot move (a
 * compound or encrypted request, a test connection, a connection that
 * moved once already, a request too big for a message).
 */
bool smbd_conn_hand_over(struct smb2_request *req, int to);

/*
 * smb2_job.c: run fn(state) in the worker's thread pool with the session
 * user's credentials, then done(req, state) on the loop thread, whose
 * status finishes the request.  state is a talloc object; the job owns
 * it.  If the connection goes away meanwhile, orphan(state) runs instead
 * of done (to close what fn opened), then state is freed.
 * Returns SMBD_STATUS_ASYNC: the handler returns that.
 */
typedef void (*smb2_job_fn)(void *state);
typedef NTSTATUS (*smb2_job_done_fn)(struct smb2_request *req, void *state);
typedef void (*smb2_job_orphan_fn)(void *state);
NTSTATUS smb2_job_run(struct smb2_request *req, void *state, smb2_job_fn fn,
		      smb2_job_done_fn done, smb2_job_orphan_fn orphan);
/*
 * smb2_ring.c: write len bytes of buf to fd at off through the worker's
 * io_uring, as the tree's user (its registered personality), then
 * done(req, state) on the loop thread as for a pool job (orphan(state)
 * if the connection went); *written and *err (an errno, 0) say how it
 * went, a short write having been continued.  buf must live as long as
 * state.  SMBD_STATUS_ASYNC when started; NT_STATUS_NOT_SUPPORTED when
 * not (no ring: the epoll backend; no personality to be had), with
 * state still the caller's, to run as a pool job.
 */
NTSTATUS smb2_ring_write(struct smb2_request *req, void *state, int fd,
			 const uint8_t *buf, size_t len, uint64_t off,
			 size_t *written, int *err, smb2_job_done_fn done,
			 smb2_job_orphan_fn orphan);
/* The same with the daemon's own credentials (root), for work the
 * server does for itself during a logon (`username map script`), not on
 * a user's behalf. */
NTSTATUS smb2_job_run_daemon(struct smb2_request *req, void *state,
			     smb2_job_fn fn, smb2_job_done_fn done,
			     smb2_job_orphan_fn orphan);
/* Run fn(state) with the daemon's credentials in w's pool when no
 * request waits for it (closing a PAM session as its session ends);
 * state, a talloc object, is freed on the loop thread afterwards.  False
 * (state freed, fn not run) when there is no pool or no memory. */
bool smbd_job_detached(struct smbd_worker *w, void *state, smb2_job_fn fn);


#endif
