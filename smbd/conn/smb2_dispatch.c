/*
 * The SMB2 dispatcher (DESIGN.md "Data flow of one request"): split a
 * frame into requests, check each against the size table, charge its
 * credits against the message-id window, run the handler from the
 * dispatch table, then write the reply header, credits and compound
 * chaining.  Replies to one frame go back as one frame.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/smb2_compress.h"
#include "smbd/conn/smb2_seal.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/conn_limits.h"
#include "lib/bug.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_signing.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/conn/smb2_transform.h"
#include "lib/log.h"

#include <string.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define FRAME_OVER_BOUND "over smbd max decompressed per connection or " \
			 "per worker"

static const struct smb2_cmd *smb2_cmd_lookup(const struct smbd_conn *conn,
					     uint16_t opcode)
{
	return opcode < SMB2_OP_MAX ? &conn->worker->smb2->cmds[opcode] : NULL;
}

static const char *smb2_cmd_name(const struct smbd_conn *conn,
				 uint16_t opcode)
{
	const struct smb2_cmd *cmd = smb2_cmd_lookup(conn, opcode);

	return cmd != NULL && cmd->name != NULL ? cmd->name : "?";
}

/* ---- credits (MS-SMB2 3.3.1.1 sequence window, 3.3.1.2 credits) ---- */

bool smb2_credits_init(struct smbd_conn *conn)
{
	conn->seq_bitmap = talloc_zero_array(conn, uint8_t, SMBD_SEQ_BITS / 8);
	conn->seq_low = 0;
	conn->seq_high = 1; /* a new connection holds one credit */
	conn->cur_credits = 1;
	return conn->seq_bitmap != NULL;
}

static bool seq_bit(const struct smbd_conn *conn, uint64_t id)
{
	uint64_t b = id % SMBD_SEQ_BITS;
	return (conn->seq_bitmap[b / 8] >> (b % 8)) & 1;
}

static void seq_set(struct smbd_conn *conn, uint64_t id, bool on)
{
	uint64_t b = id % SMBD_SEQ_BITS;
	uint8_t mask = (uint8_t)(1u << (b % 8));

	if (on) {
		conn->seq_bitmap[b / 8] |= mask;
	} else {
		conn->seq_bitmap[b / 8] &= (uint8_t)~mask;
	}
}

bool smb2_credits_charge(struct smbd_conn *conn, uint64_t mid,
			 uint16_t charge)
{
	uint64_t i;

	if (mid < conn->seq_low || mid >= conn->seq_high ||
	    charge > conn->seq_high - mid) {
		return false;
	}
	for (i = 0; i < charge; i++) {
		if (seq_bit(conn, mid + i)) {
			return false; /* id used twice */
		}
	}
	for (i = 0; i < charge; i++) {
		seq_set(conn, mid + i, true);
	}
	BUG_ON(charge > conn->cur_credits);
	conn->cur_credits -= charge;
	while (conn->seq_low < conn->seq_high &&
	       seq_bit(conn, conn->seq_low)) {
		seq_set(conn, conn->seq_low, false);
		conn->seq_low++;
	}
	return true;
}

void smb2_credits_uncharge(struct smbd_conn *conn, uint64_t mid,
			   uint16_t charge)
{
	uint64_t i;

	/* Ids below the window's start were all used: marked again, the
	 * window opens back at mid with those ids still taken. */
	for (i = mid + charge; i < conn->seq_low; i++) {
		seq_set(conn, i, true);
	}
	if (mid < conn->seq_low) {
		conn->seq_low = mid;
	}
	for (i = 0; i < charge; i++) {
		seq_set(conn, mid + i, false);
	}
	conn->cur_credits += charge;
	/* cur_credits counts the unused ids of [seq_low, seq_high) */
	BUG_ON(conn->cur_credits > conn->seq_high - conn->seq_low);
}

uint16_t smb2_credits_grant(struct smbd_conn *conn, uint16_t charge,
			    uint16_t requested)
{
	uint64_t span = conn->seq_high - conn->seq_low;
	uint32_t grant = requested;

	/* Grant at least what the request cost when asked for nothing, so
	 * a client never runs dry (MS-SMB2 3.3.1.2). */
	if (grant == 0) {
		grant = conn->cur_credits == 0 ? 1 : 0;
	}
	if (conn->cur_credits + grant > SMBD_MAX_CREDITS) {
		grant = SMBD_MAX_CREDITS - conn->cur_credits;
	}
	/* The window may not outgrow the bitmap (gaps left by a client). */
	if (span + grant > SMBD_SEQ_BITS) {
		grant = (uint32_t)(SMBD_SEQ_BITS - span);
	}
	conn->seq_high += grant;
	conn->cur_credits += grant;
	BUG_ON(conn->cur_credits > conn->seq_high - conn->seq_low ||
	       conn->cur_credits > SMBD_MAX_CREDITS);
	DBGC_DEBUG(LOG_CLASS_SMB2_CREDITS,
		   "%s: charge %u, asked %u, granted %u: %u credits, window "
		   "[%llu, %llu)\n", conn->remote, charge, requested, grant,
		   conn->cur_credits, (unsigned long long)conn->seq_low,
		   (unsigned long long)conn->seq_high);
	return (uint16_t)grant;
}

/* ---- one request ---- */

bool smb2_request_error_data(struct smb2_request *req, const void *data,
			     size_t len, bool in_ctx)
{
	uint8_t *copy = NULL;

	if (len > 0) {
		copy = talloc_memdup(req->mem_ctx, data, len);
		if (copy == NULL) {
			return false;
		}
	}
	req->err_data = copy;
	req->err_data_len = (uint32_t)len;
	req->err_in_ctx = in_ctx;
	return true;
}

static void smb2_error_body(struct smb2_request *req)
{
	bool ctx = req->err_in_ctx && req->conn->dialect == SMB2_DIALECT_0311;
	uint32_t n = req->err_data_len;

	/* MS-SMB2 2.2.2 ERROR Response: StructureSize 9, ErrorData as the
	 * handler gave it (2.2.2.2), or just the one byte the size counts. */
	req->out->len = req->out_hdr + SMB2_HDR_LEN;
	wire_push_le16(req->out, 9);
	wire_push_u8(req->out, ctx ? 1 : 0); /* ErrorContextCount */
	wire_push_u8(req->out, 0);
	if (ctx) {
		/* 2.2.2.1: ErrorDataLength, ErrorId (0: the default
		 * context), the data; the only context, so no padding after
		 * it (3.3.5.20.3: ByteCount 12 for a 4-byte datum). */
		wire_push_le32(req->out, 8 + n); /* ByteCount */
		wire_push_le32(req->out, n);
		wire_push_le32(req->out, 0);
		wire_push_bytes(req->out, req->err_data, n);
		return;
	}
	wire_push_le32(req->out, n); /* ByteCount */
	if (n == 0) {
		wire_push_u8(req->out, 0);
		return;
	}
	wire_push_bytes(req->out, req->err_data, n);
}

static void smb2_reply_header(struct smb2_request *req, NTSTATUS status,
			      uint16_t grant)
{
	uint8_t *h = req->out->data + req->out_hdr;

	put_le32(h + SMB2_HDR_PROTOCOL, SMB2_MAGIC);
	put_le16(h + SMB2_HDR_LENGTH, SMB2_HDR_LEN);
	put_le16(h + SMB2_HDR_CREDIT_CHARGE, le16(req->in + SMB2_HDR_CREDIT_CHARGE));
	put_le32(h + SMB2_HDR_STATUS, status);
	put_le16(h + SMB2_HDR_OPCODE, req->opcode);
	put_le16(h + SMB2_HDR_CREDIT, grant);
	put_le32(h + SMB2_HDR_FLAGS,
		 SMB2_FLAGS_SERVER_TO_REDIR |
			 (req->flags & (SMB2_FLAGS_RELATED_OPERATIONS |
					SMB2_FLAGS_PRIORITY_MASK)));
	put_le32(h + SMB2_HDR_NEXT_COMMAND, 0);
	put_le64(h + SMB2_HDR_MESSAGE_ID, req->mid);
	put_le32(h + SMB2_HDR_PID, le32(req->in + SMB2_HDR_PID));
	put_le32(h + SMB2_HDR_TID, req->tree_id);
	put_le64(h + SMB2_HDR_SESSION_ID, req->session_id);
	memset(h + SMB2_HDR_SIGNATURE, 0, 16);
}

/* How each reply of a frame is signed, decided when it is built and done
 * once NextCommand and padding are final (3.3.4.1.1). */
struct smb2_reply_sign {
	size_t hdr;
	bool sign;
	enum smb2_sign_algo algo;
	uint8_t key[16];
};

/*
 * One received frame being answered.  Requests run in order; a handler
 * that hands work to the thread pool returns SMBD_STATUS_ASYNC and the
 * frame waits (its input copied, since the receive buffer is reused)
 * until its work (a pool job of smb2_job.c) finishes it and calls
 * smb2_frame_resume().  Replies to
 * the whole frame go back together, as Samba and Windows do for
 * compounds.
 */
struct smb2_frame {
	struct smbd_conn *conn;
	const uint8_t *buf;
	size_t len;
	bool owned;		/* buf is our own copy */
	uint8_t *owner;		/* the talloc buffer holding buf, once owned */
	/* It came in a COMPRESSION_TRANSFORM message (3.1.4.4). */
	bool decompressed;
	/* Kept for a waiting request (frame_keep, once), and how many of
	 * the bytes it keeps count as decompressed (conn_limits.h). */
	bool kept;
	size_t held;
	size_t offs[SMB2_MAX_COMPOUND], lens[SMB2_MAX_COMPOUND], n, next;
	struct wire_buf out;
	struct smb2_reply_sign rs[SMB2_MAX_COMPOUND];
	size_t nrep;
	size_t prev_hdr;
	uint64_t prev_sid;
	uint32_t prev_tid;
	uint8_t prev_fid[16];
	NTSTATUS prev_status;
	bool chain_broken;	/* its first request was marked related */
	uint64_t t_start;	/* arrival, for smb2_metrics.h (0: off) */
	struct smb2_request req;	/* the request being handled */
	/* Its work in progress elsewhere, if any (a pool job, smb2_job.c),
	 * told through work_abandon when the frame goes first. */
	void *work;
	void (*work_abandon)(void *work);
	/* Encryption of the reply (3.3.4.1.4): the request came encrypted,
	 * or its session must encrypt.  The key is copied so a LOGOFF in
	 * the same compound cannot pull it away. */
	bool encrypted_in;
	uint64_t in_session_id;	/* the transform's SessionId */
	bool encrypt_out;
	uint64_t enc_session_id;
	enum crypto_cipher enc_cipher;
	uint8_t enc_key[32];
	uint64_t async_id;	/* 3.3.4.2: sent in the interim reply */
	/* How the waiting request's reply is signed, decided when it went
	 * async: a LOGOFF meanwhile takes the session and its key, yet the
	 * final reply (STATUS_NOTIFY_CLEANUP, ...) must still be signed. */
	struct smb2_reply_sign wait_sign;
	/* Frames waiting on something (a lock) are listed in their
	 * connection, so a CANCEL can find them (3.3.5.16). */
	struct smb2_frame *wait_prev, *wait_next;
	bool waiting;
	/* Its connection went while its session lives on over another
	 * channel: it finishes there and its reply goes to nobody. */
	bool orphan;
	void (*cancel_fn)(void *priv);
	void *cancel_priv;
	/* A zero-copy READ's data: file_len bytes of file_fd (ours, -1
	 * when none) from file_off, sent after out by the loop. */
	int file_fd;
	uint64_t file_off;
	size_t file_len;
	/* 3.1.4.4: the lone reply goes compressed (smb2_reply_compress),
	 * its first compress_plain bytes as they are. */
	bool compress_out;
	size_t compress_plain;
};

bool smb2_request_alone(const struct smb2_request *req)
{
	return req->frame->n == 1 && !req->frame->encrypted_in;
}


static void smb2_decide_signing(struct smb2_request *req,
				struct smb2_reply_sign *rs);
static bool frame_encrypt(struct smb2_frame *f, uint8_t **data, size_t *len);
static void frame_flush_before_wait(struct smb2_frame *f);

static void frame_wait_link(struct smb2_frame *f)
{
	if (f->waiting) {
		return;
	}
	f->waiting = true;
	f->wait_prev = NULL;
	f->wait_next = f->conn->waiting_frames;
	if (f->wait_next != NULL) {
		f->wait_next->wait_prev = f;
	}
	f->conn->waiting_frames = f;
}

static void frame_unwait(struct smb2_frame *f)
{
	if (!f->waiting) {
		return;
	}
	if (f->wait_prev != NULL) {
		f->wait_prev->wait_next = f->wait_next;
	} else {
		f->conn->waiting_frames = f->wait_next;
	}
	if (f->wait_next != NULL) {
		f->wait_next->wait_prev = f->wait_prev;
	}
	f->waiting = false;
	f->cancel_fn = NULL;
}

/*
 * 3.3.4.2: a request that will wait gets an interim reply now
 * (STATUS_PENDING, ASYNC flag, an AsyncId, the credits), so the client
 * knows it is alive and can cancel it.  Only for a request alone in its
 * frame: a compound's replies go back together.
 */
static void frame_send_interim(struct smb2_frame *f)
{
	struct smb2_request *req = &f->req;
	struct smbd_conn *conn = f->conn;
	struct smb2_reply_sign rs;
	size_t len = 4 + SMB2_HDR_LEN + 9;
	uint8_t *buf = talloc_zero_size(f, len), *h;

	if (buf == NULL) {
		return;
	}
	h = buf + 4;
	f->async_id = ++conn->worker->async_seq;
	put_le32(h + SMB2_HDR_PROTOCOL, SMB2_MAGIC);
	put_le16(h + SMB2_HDR_LENGTH, SMB2_HDR_LEN);
	put_le16(h + SMB2_HDR_CREDIT_CHARGE, req->credit_charge);
	put_le32(h + SMB2_HDR_STATUS, STATUS_PENDING);
	put_le16(h + SMB2_HDR_OPCODE, req->opcode);
	put_le16(h + SMB2_HDR_CREDIT,
		 smb2_credits_grant(conn, req->credit_charge,
				    req->credit_request));
	put_le32(h + SMB2_HDR_FLAGS,
		 SMB2_FLAGS_SERVER_TO_REDIR | SMB2_FLAGS_ASYNC_COMMAND);
	put_le64(h + SMB2_HDR_MESSAGE_ID, req->mid);
	put_le64(h + SMB2_HDR_ASYNC_ID, f->async_id);
	put_le64(h + SMB2_HDR_SESSION_ID, req->session_id);
	put_le16(h + SMB2_HDR_LEN, 9); /* error body, ByteCount 0 */
	smb2_decide_signing(req, &rs);
	if (f->encrypt_out) {
		if (!frame_encrypt(f, &buf, &len)) {
			return;
		}
	} else if (rs.sign) {
		put_le32(h + SMB2_HDR_FLAGS,
			 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
		smb2_sign(rs.algo, rs.key, h, SMB2_HDR_LEN + 9);
	}
	smbd_conn_send_frame(conn, talloc_steal(NULL, buf), len);
}

void smb2_request_set_cancel(struct smb2_request *req,
			     void (*fn)(void *priv), void *priv)
{
	struct smb2_frame *f = req->frame;

	smb2_decide_signing(req, &f->wait_sign);
	if (f->async_id == 0 && f->n > 1 && f->next == f->n) {
		/* The last of a compound: the others' replies go first. */
		frame_flush_before_wait(f);
		if (f->nrep == 0) {
			frame_send_interim(f);
		}
	} else if (f->async_id == 0 && f->n == 1) {
		frame_send_interim(f);
	}
	f->cancel_fn = fn;
	f->cancel_priv = priv;
	frame_wait_link(f);
}

/*
 * conn goes while a session it served carries on over another channel
 * (smbd_sessions_conn_lost moved it first): a CREATE of that session
 * waiting for a break goes on there, its reply going to nobody, so the
 * client's replay on a live channel finds it pending and later finds
 * the open it made (3.3.5.9.10; smbtorture replay.dhv2-pending2*).
 */
void smb2_frames_conn_lost(struct smbd_conn *conn)
{
	struct smb2_frame *f, *next;

	for (f = conn->waiting_frames; f != NULL; f = next) {
		struct smbd_session *s;
		void (*fn)(void *);
		void *priv;

		next = f->wait_next;
		if (f->n != 1 || f->req.opcode != SMB2_OP_CREATE) {
			continue;
		}
		s = smbd_session_find_worker(conn->worker,
					     f->req.session_id);
		if (s == NULL || s->conn == conn || s->conn->dead) {
			continue;
		}
		fn = f->cancel_fn;
		priv = f->cancel_priv;
		frame_unwait(f);
		(void)talloc_steal(s->conn, f);
		conn->decomp_held -= f->held;
		s->conn->decomp_held += f->held;
		f->conn = s->conn;
		f->req.conn = s->conn;
		f->orphan = true;
		f->cancel_fn = fn;
		f->cancel_priv = priv;
		frame_wait_link(f);
	}
}

/* 3.3.5.16: CANCEL names the request by its AsyncId once the request
 * went async (interim reply sent, SMB2_FLAGS_ASYNC_COMMAND in the CANCEL)
 * and by its MessageId before that. */
static void smb2_cancel(struct smbd_conn *conn, const struct smb2_request *c)
{
	bool by_async = (c->flags & SMB2_FLAGS_ASYNC_COMMAND) != 0;
	uint64_t async_id = le64(c->in + SMB2_HDR_ASYNC_ID);
	struct smb2_frame *f;

	for (f = conn->waiting_frames; f != NULL; f = f->wait_next) {
		if (f->cancel_fn == NULL ||
		    (by_async ? f->async_id == 0 || f->async_id != async_id
			      : f->req.mid != c->mid)) {
			continue;
		}
		{
			void (*fn)(void *) = f->cancel_fn;
			void *priv = f->cancel_priv;

			frame_unwait(f);
			fn(priv);
			return;
		}
	}
}

/* Remember the session's server-to-client key and a fresh nonce. */
static void smb2_frame_encrypt_with(struct smb2_frame *f,
				    struct smbd_session *s)
{
	f->encrypt_out = true;
	f->enc_session_id = s->id;
	f->enc_cipher = smb2_cipher_of(s->conn->cipher);
	memcpy(f->enc_key, s->keys.encryption, sizeof(f->enc_key));
	/* Unique per session: a counter, then the session's random salt
	 * (the nonce is 11 bytes for CCM, 12 for GCM). */
}

/* A nonce never used before with any key of this worker: a counter and
 * a random salt (11 bytes used by CCM, 12 by GCM; 3.1.4.3). */
static void smb2_next_nonce(struct smbd_worker *w, uint8_t nonce[16])
{
	if (w->nonce_salt == 0) {
		crypto_random(&w->nonce_salt, sizeof(w->nonce_salt));
		w->nonce_salt |= 1;
	}
	memset(nonce, 0, 16);
	put_le64(nonce, ++w->nonce_ctr);
	put_le16(nonce + 8, (uint16_t)w->nonce_salt);
	nonce[10] = (uint8_t)(w->nonce_salt >> 16);
	nonce[11] = (uint8_t)(w->nonce_salt >> 24);
}

static void smb2_decide_signing(struct smb2_request *req,
				struct smb2_reply_sign *rs)
{
	struct smbd_session *s = req->session;

	rs->hdr = req->out_hdr;
	rs->sign = false;
	if (req->sign_after_free) {
		rs->sign = true;
		rs->algo = (enum smb2_sign_algo)req->sign_algo;
		memcpy(rs->key, req->sign_key, 16);
		return;
	}
	if (s == NULL && req->session_id != 0) {
		s = smbd_session_find(req->conn, req->session_id);
	}
	if (s == NULL || !s->has_keys) {
		return;
	}
	/* 3.3.4.1.4: the session's EncryptData, or the tree's share's.  A
	 * TREE_CONNECT has no tree yet: the one it made (the dispatcher
	 * finds it by the reply's TreeId after a pool job) tells the
	 * client to encrypt from the next request on. */
	if (!req->frame->encrypt_out &&
	    (s->encrypt || (req->tcon != NULL && req->tcon->encrypt_data &&
			    req->opcode != SMB2_OP_TCON)) &&
	    req->opcode != SMB2_OP_NEGPROT && req->opcode != SMB2_OP_SESSSETUP) {
		smb2_frame_encrypt_with(req->frame, s);
	}
	if (req->frame->encrypt_out) {
		return; /* encrypted replies are not signed (3.3.4.1.1) */
	}
	if (req->sign_reply || req->signed_in || s->signing_required) {
		rs->sign = true;
		smbd_session_sign_key(s, req->conn, rs->key, &rs->algo);
	}
}

static void smb2_parse_header(struct smb2_request *req)
{
	const uint8_t *h = req->in;

	req->credit_charge = le16(h + SMB2_HDR_CREDIT_CHARGE);
	req->opcode = le16(h + SMB2_HDR_OPCODE);
	req->credit_request = le16(h + SMB2_HDR_CREDIT);
	req->flags = le32(h + SMB2_HDR_FLAGS);
	req->next_command = le32(h + SMB2_HDR_NEXT_COMMAND);
	req->mid = le64(h + SMB2_HDR_MESSAGE_ID);
	req->tree_id = le32(h + SMB2_HDR_TID);
	req->session_id = le64(h + SMB2_HDR_SESSION_ID);
	/* 2.2.1.2: a 3.x request's Status field is ChannelSequence and a
	 * reserved 16 bits; 2.x ones carry zero there. */
	req->channel_seq = le16(h + SMB2_HDR_STATUS);
	req->related = (req->flags & SMB2_FLAGS_RELATED_OPERATIONS) != 0;
	/* 3.3.5.2.7.2: a related request takes the session and tree of the
	 * one before it. */
	if (req->related && !req->first_in_chain) {
		req->session_id = req->prev_session_id;
		req->tree_id = req->prev_tree_id;
	}
}

/*
 * A signed request names a session this connection is not a channel of,
 * but one of the worker's connections holds it (a channel the client has
 * not bound yet).  The USER_SESSION_DELETED is signed with that session's
 * key, the one the request was signed with, as the client requires of a
 * session that signs (smbtorture session.bind2, bind_invalid_auth).
 */
static void smb2_sign_refusal(struct smb2_request *req)
{
	struct smbd_session *o;
	uint8_t key[16];
	enum smb2_sign_algo algo;

	if (!(req->flags & SMB2_FLAGS_SIGNED)) {
		return;
	}
	o = smbd_session_find_worker(req->conn->worker, req->session_id);
	if (o == NULL || !o->has_keys || o->encrypt) {
		return;
	}
	smbd_session_sign_key(o, req->conn, key, &algo);
	if (smb2_check_signature(algo, key, req->in, req->in_len)) {
		req->sign_after_free = true;
		memcpy(req->sign_key, key, 16);
		req->sign_algo = algo;
	}
	explicit_bzero(key, sizeof(key));
}

/*
 * 3.3.5.2.4 signatures, 3.3.5.2.9 sessions, 3.3.5.2.11 trees.  A signed
 * request on a session with keys is verified (ACCESS_DENIED when wrong);
 * a session that must sign refuses unsigned requests.
 */
static NTSTATUS smb2_check_session(struct smb2_request *req,
				   const struct smb2_cmd *cmd)
{
	struct smbd_session *s = NULL;

	if (req->frame->encrypted_in &&
	    req->session_id != req->frame->in_session_id &&
	    (req->session_id != 0 || cmd->need_session)) {
		/* 3.3.5.2.1.1: the message decrypted with one session's key
		 * belongs to that session.  Another SessionId inside (in
		 * any request of the compound) would let one user's key
		 * drive another user's session. */
		DBG_NOTICE("%s: %s for session %llx inside a transform of "
			   "session %llx: refused\n", req->conn->remote,
			   cmd->name, (unsigned long long)req->session_id,
			   (unsigned long long)req->frame->in_session_id);
		return NT_STATUS_ACCESS_DENIED;
	}
	if (req->session_id != 0 && req->opcode != SMB2_OP_NEGPROT) {
		s = smbd_session_find(req->conn, req->session_id);
	}
	if (s != NULL && s->has_keys && req->frame->encrypted_in) {
		/* 3.3.5.2.4: an encrypted request is not signed; the AEAD
		 * already proved where it came from. */
		req->signed_in = true;
	} else if (s != NULL && s->encrypt && s->state == SMBD_SESSION_VALID &&
		   req->opcode != SMB2_OP_NEGPROT &&
		   req->opcode != SMB2_OP_SESSSETUP) {
		/* 3.3.5.2.9: Session.EncryptData refuses plain requests. */
		return NT_STATUS_ACCESS_DENIED;
	} else if (s != NULL && s->has_keys) {
		if (req->flags & SMB2_FLAGS_SIGNED) {
			uint8_t key[16];
			enum smb2_sign_algo algo;
			bool good;

			/* the channel's key on a channel (3.3.5.2.4) */
			smbd_session_sign_key(s, req->conn, key, &algo);
			good = smb2_check_signature(algo, key, req->in,
						    req->in_len);
			explicit_bzero(key, sizeof(key));
			if (!good) {
				DBG_NOTICE("%s: bad signature on %s\n",
					   req->conn->remote, cmd->name);
				return NT_STATUS_ACCESS_DENIED;
			}
			req->signed_in = true;
		} else if (s->signing_required &&
			   req->opcode != SMB2_OP_KEEPALIVE) {
			return NT_STATUS_ACCESS_DENIED;
		}
	}
	if (cmd->need_session) {
		if (s == NULL && req->related && !req->first_in_chain) {
			/* Inherited ids that name no session: the chain is
			 * broken, not the session (what Samba answers). */
			DBG_DEBUG("related %s: no session %llx\n", cmd->name,
				  (unsigned long long)req->session_id);
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (s == NULL && req->session_id != 0) {
			smb2_sign_refusal(req);
		}
		if (s == NULL || s->state != SMBD_SESSION_VALID) {
			return NT_STATUS_USER_SESSION_DELETED;
		}
		req->session = s;
	}
	if (cmd->need_tree) {
		req->tcon = smbd_tcon_find(s, req->tree_id);
		if (req->tcon == NULL) {
			return NT_STATUS_NETWORK_NAME_DELETED;
		}
		if (req->tcon->encrypt_required && !req->frame->encrypted_in) {
			/* 3.3.5.2.11: a share that must be encrypted refuses
			 * plain requests on its trees. */
			DBG_NOTICE("%s: plain %s on tree %u of a share that "
				   "requires encryption: refused\n",
				   req->conn->remote, cmd->name,
				   (unsigned)req->tree_id);
			return NT_STATUS_ACCESS_DENIED;
		}
	}
	return NT_STATUS_OK;
}

/* Returns the status for the reply; req->disconnect/no_reply may be set. */
static NTSTATUS smb2_dispatch_one(struct smb2_request *req)
{
	struct smbd_conn *conn = req->conn;
	const struct smb2_cmd *cmd;
	uint16_t charge;
	NTSTATUS status;

	smb2_parse_header(req);
	if (req->opcode == SMB2_OP_CANCEL) {
		/* Cancels use no message id and get no reply (3.3.5.16). */
		req->no_reply = true;
		smb2_cancel(conn, req);
		return NT_STATUS_OK;
	}
	/* 2.0.2 has no CreditCharge (3.3.5.2.5): every request costs 1. */
	charge = req->credit_charge;
	if (charge == 0 || (conn->negotiated && conn->dialect == SMB2_DIALECT_0202)) {
		charge = 1;
	}
	if (!smb2_credits_charge(conn, req->mid, charge)) {
		DBGC_NOTICE(LOG_CLASS_SMB2_CREDITS,
			    "%s: message id %llu (charge %u) outside the "
			    "window [%llu, %llu)\n",
			    conn->remote, (unsigned long long)req->mid, charge,
			    (unsigned long long)conn->seq_low,
			    (unsigned long long)conn->seq_high);
		req->disconnect = true;
		return NT_STATUS_INVALID_PARAMETER;
	}
	req->credit_charge = charge;
	if (req->related && req->first_in_chain) {
		/* 3.3.5.2.7.2: the first request has nothing to relate to,
		 * and the related ones after it inherit nothing usable:
		 * Windows fails them all alike, whatever FileId they name
		 * (smbtorture compound.related9). */
		req->frame->chain_broken = true;
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (req->related && req->frame->chain_broken) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	cmd = smb2_cmd_lookup(req->conn, req->opcode);
	if (cmd == NULL || cmd->fn == NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_pdu_check(req->opcode, req->in, req->in_len);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_INFO("%s: malformed %s request\n", conn->remote, cmd->name);
		return status;
	}
	if (cmd->need_negotiate && !conn->negotiated) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = smb2_check_session(req, cmd);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	wire_cur_init(&req->body, req->in + SMB2_HDR_LEN,
		      req->in_len - SMB2_HDR_LEN);
	DBG_DEBUG("%s: %s mid %llu\n", conn->remote, cmd->name,
		  (unsigned long long)req->mid);
	return cmd->fn(req);
}


static int frame_destructor(struct smb2_frame *f)
{
	frame_unwait(f);
	f->conn->decomp_held -= f->held;
	if (f->file_fd != -1) {
		close(f->file_fd);
	}
	if (f->work != NULL) {
		f->work_abandon(f->work);
	}
	return 0;
}

/* 3.1.4.3: a whole (compound) reply in one transform: *data (with its
 * 4-byte transport header) is replaced by the encrypted frame. */
static bool frame_encrypt(struct smb2_frame *f, uint8_t **data, size_t *len)
{
	size_t msg_len = *len - 4;
	uint8_t *buf = talloc_size(f, 4 + SMB2_TRANSFORM_HDR_LEN + msg_len);
	uint8_t nonce[16];

	if (buf == NULL) {
		return false;
	}
	/* The ciphertext goes straight into the new frame: a READ of 8 MiB
	 * is not copied there first. */
	smb2_next_nonce(f->conn->worker, nonce);
	if (!smb2_transform_encrypt_to(f->enc_cipher, f->enc_key,
				       f->enc_session_id, nonce, buf + 4,
				       *data + 4,
				       buf + 4 + SMB2_TRANSFORM_HDR_LEN,
				       msg_len)) {
		return false;
	}
	*data = buf;
	*len = 4 + SMB2_TRANSFORM_HDR_LEN + msg_len;
	return true;
}

void smb2_send_notification(struct smbd_conn *conn, struct smbd_session *s,
			    uint16_t opcode, const uint8_t *body, size_t len)
{
	size_t msg_len = SMB2_HDR_LEN + len;
	bool enc = s != NULL && s->encrypt && s->has_keys && conn->cipher != 0;
	size_t hdr = enc ? SMB2_TRANSFORM_HDR_LEN : 0;
	uint8_t *buf = talloc_zero_size(NULL, 4 + hdr + msg_len), *h;
	uint8_t nonce[16];

	if (buf == NULL || conn->dead) {
		talloc_free(buf);
		return;
	}
	h = buf + 4 + hdr;
	put_le32(h + SMB2_HDR_PROTOCOL, SMB2_MAGIC);
	put_le16(h + SMB2_HDR_LENGTH, SMB2_HDR_LEN);
	put_le16(h + SMB2_HDR_OPCODE, opcode);
	put_le32(h + SMB2_HDR_FLAGS, SMB2_FLAGS_SERVER_TO_REDIR);
	put_le64(h + SMB2_HDR_MESSAGE_ID, UINT64_MAX);
	memcpy(h + SMB2_HDR_LEN, body, len);
	if (enc) {
		/* 3.3.4.1.4: the session's key encrypts what goes to it. */
		smb2_next_nonce(conn->worker, nonce);
		if (!smb2_transform_encrypt(smb2_cipher_of(conn->cipher),
					    s->keys.encryption, s->id, nonce,
					    buf + 4, h, msg_len)) {
			talloc_free(buf);
			return;
		}
	}
	smbd_conn_send_frame(conn, buf, 4 + hdr + msg_len);
}

/* 3.1.4.4: the signed lone reply replaced by its compressed form, when
 * that is smaller (on the loop: small replies, or no pool). */
static void frame_compress(struct smb2_frame *f)
{
	size_t msg_len = f->out.len - 4, c;
	uint8_t *buf = talloc_size(f, 4 + msg_len);

	if (buf == NULL) {
		return; /* it goes uncompressed */
	}
	c = smb2_compress_msg(&f->conn->compress, f->out.data + 4, msg_len,
			      f->compress_plain, buf + 4, msg_len);
	if (c == 0) {
		talloc_free(buf);
		return;
	}
	memset(buf, 0, 4);
	f->out.data = buf;
	f->out.len = 4 + c;
}

void smb2_reply_compress(struct smb2_request *req, size_t plain)
{
	struct smb2_frame *f = req->frame;

	/* A compound's replies are one message (3.3.4.1.3): only a lone
	 * reply is compressed. */
	if (f->n == 1 && req->conn->compress.n > 0) {
		f->compress_out = true;
		f->compress_plain = plain;
	}
}

/* Pad, sign and encrypt the replies f->rs[0..nrep) in f->out. */
static bool frame_seal(struct smb2_frame *f)
{
	size_t i;

	/* The last reply of a compound is padded to 8 bytes as well, as
	 * Windows does (smbtorture smb2.compound.compound-padding); a lone
	 * reply is not. */
	if (f->nrep > 1) {
		wire_push_align_from(&f->out, 4, 8);
	}
	for (i = 0; i < f->nrep && !f->encrypt_out; i++) {
		size_t end = i + 1 < f->nrep ? f->rs[i + 1].hdr : f->out.len;
		uint8_t *h = f->out.data + f->rs[i].hdr;

		if (!f->rs[i].sign) {
			continue;
		}
		put_le32(h + SMB2_HDR_FLAGS,
			 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
		smb2_sign(f->rs[i].algo, f->rs[i].key, h, end - f->rs[i].hdr);
	}
	if (f->compress_out && f->nrep == 1) {
		frame_compress(f);
	}
	return !(f->out.len > 4 && f->encrypt_out &&
		 !frame_encrypt(f, &f->out.data, &f->out.len));
}

/*
 * The last request of a compound will wait (CHANGE_NOTIFY, a lock, an
 * open waiting for a break): the replies before it go now, as their own
 * compound, and the waiting one gets its interim reply and later its
 * final reply alone (smbtorture smb2.compound.interim1, interim3).
 */
static void frame_flush_before_wait(struct smb2_frame *f)
{
	struct smb2_request *req = &f->req;
	struct wire_buf rest;
	size_t hdr_len = req->out_hdr + SMB2_HDR_LEN;

	if (f->nrep == 0) {
		return;
	}
	/* This request's header space moves to a buffer of its own. */
	wire_buf_init(&rest, f, 4 + SMB2_HDR_LEN + 256);
	wire_push_zero(&rest, 4);
	wire_push_bytes(&rest, f->out.data + req->out_hdr, SMB2_HDR_LEN);
	if (rest.failed || f->out.len != hdr_len) {
		return; /* a body was pushed already: keep them together */
	}
	f->out.len = req->out_before;
	if (!frame_seal(f)) {
		smbd_conn_disconnect(f->conn, "cannot encrypt a reply");
		return;
	}
	smbd_conn_send_frame(f->conn, talloc_steal(NULL, f->out.data),
			     f->out.len);
	f->out = rest;
	f->nrep = 0;
	f->prev_hdr = (size_t)-1;
	req->out_before = 4;
	req->out_hdr = 4;
}

bool smb2_reply_can_send_file(struct smb2_request *req)
{
	struct smb2_frame *f = req->frame;
	struct smb2_reply_sign rs;

	if (req->conn->sink != NULL || req->conn->stream == NULL || f->n != 1) {
		return false;
	}
	/* What frame_reply will decide for this reply (it may mark the
	 * frame for encryption, as frame_reply would). */
	smb2_decide_signing(req, &rs);
	/* compressed data must pass through our hands as well */
	return !rs.sign && !f->encrypt_out && !f->compress_out;
}

void smb2_request_send_file(struct smb2_request *req, int fd, uint64_t off,
			    size_t flen)
{
	struct smb2_frame *f = req->frame;

	if (f->file_fd != -1) {
		close(f->file_fd);
	}
	f->file_fd = fd;
	f->file_off = off;
	f->file_len = flen;
}

static void frame_sealed(struct smbd_conn *conn, uint8_t *frame, size_t len)
{
	if (frame == NULL) {
		smbd_conn_disconnect(conn, "cannot encrypt a reply");
		return;
	}
	smbd_conn_send_frame(conn, frame, len);
}

/* A large lone reply to sign or encrypt: sealed in the pool, sent from
 * there (smbd/conn/smb2_seal.c); false when the loop seals it. */
static bool frame_seal_offload(struct smb2_frame *f)
{
	struct smb2_seal spec;
	uint8_t *buf = f->out.data;
	bool sent;

	if (f->nrep != 1 || f->file_fd != -1 ||
	    f->out.len < (f->compress_out ? SMB2_COMPRESS_OFFLOAD_MIN
					  : SMB2_SEAL_OFFLOAD_MIN) ||
	    (!f->encrypt_out && !f->rs[0].sign && !f->compress_out)) {
		return false;
	}
	memset(&spec, 0, sizeof(spec));
	spec.sealed = frame_sealed;
	if (f->compress_out) {
		spec.compress = true;
		spec.caps = f->conn->compress;
		spec.plain = f->compress_plain;
	}
	if (f->encrypt_out) {
		spec.encrypt = true;
		spec.cipher = f->enc_cipher;
		spec.session_id = f->enc_session_id;
		memcpy(spec.key, f->enc_key, sizeof(f->enc_key));
		smb2_next_nonce(f->conn->worker, spec.nonce);
	} else if (f->rs[0].sign) {
		spec.sign = true;
		spec.algo = f->rs[0].algo;
		memcpy(spec.key, f->rs[0].key, 16);
	}
	sent = smb2_seal_offload(f->conn, &buf, f->out.len, &spec);
	explicit_bzero(spec.key, sizeof(spec.key));
	if (!sent) {
		return false;
	}
	f->out.data = NULL;
	f->out.len = 0;
	talloc_free(f);
	return true;
}

static void frame_send(struct smb2_frame *f)
{
	struct smbd_conn *conn = f->conn;

	if (f->orphan) {
		/* its client left with its channel: done, unanswered */
		talloc_free(f);
		return;
	}
	if (frame_seal_offload(f)) {
		return;
	}
	if (f->file_fd != -1 &&
	    (f->nrep != 1 || f->encrypt_out || f->rs[0].sign)) {
		/* smb2_reply_can_send_file refused all of these; sending the
		 * data unsealed would be worse than dropping the client. */
		smbd_conn_disconnect(conn, "zero-copy reply must be sealed");
		return;
	}
	if (!frame_seal(f)) {
		smbd_conn_disconnect(conn, "cannot encrypt a reply");
		return;
	}
	if (f->out.len > 4) {
		uint8_t *frame = talloc_steal(NULL, f->out.data);
		size_t flen = f->out.len, file_len = f->file_len;
		uint64_t file_off = f->file_off;
		int fd = f->file_fd;

		f->file_fd = -1;
		talloc_free(f);
		smbd_conn_send_frame_file(conn, frame, flen, fd, file_off,
					  file_len);
		return;
	}
	talloc_free(f);
}

/*
 * The credits a reply may grant.  A logon leg that needs another one
 * (MORE_PROCESSING_REQUIRED) grants back only what it cost, as Windows
 * and Samba do: the window opens with the session, and a client that
 * counts its credits through the logon sees the same numbers from us as
 * from them (3.3.1.2 leaves the policy to the server).
 */
static uint16_t credits_asked(const struct smb2_request *req,
			      NTSTATUS status)
{
	uint16_t charge = req->credit_charge ? req->credit_charge : 1;

	if (req->opcode == SMB2_OP_SESSSETUP &&
	    status == NT_STATUS_MORE_PROCESSING_REQUIRED &&
	    req->credit_request > charge) {
		return charge;
	}
	return req->credit_request;
}

/* Finish the reply of f->req; false when the connection must go. */
static bool frame_reply_build(struct smb2_frame *f, NTSTATUS status)
{
	struct smb2_request *req = &f->req;
	uint16_t grant;

	req->conn->worker->smb2->reply_done(req);
	f->prev_sid = req->session_id;
	f->prev_tid = req->tree_id;
	memcpy(f->prev_fid, req->fid, 16);
	if (req->opcode == SMB2_OP_CREATE) {
		/* 3.3.5.2.7.2: the FileId a related request inherits comes
		 * from the last CREATE; when that failed, the requests using
		 * it fail the same way.  Windows lets other failures (a
		 * WRITE without access) leave the handle usable for the
		 * rest (smbtorture compound.related6). */
		f->prev_status = status;
	}
	if (req->disconnect || f->out.failed) {
		return false;
	}
	if (req->no_reply) {
		f->out.len = req->out_before;
		return true;
	}
	/* An error, or a warning its handler gave ErrorData for (MS-SMB2
	 * 2.2.2.2: STATUS_STOPPED_ON_SYMLINK's Symbolic Link Error
	 * Response), goes as an ERROR Response. */
	if ((NT_STATUS_IS_ERR(status) || req->err_data != NULL) &&
	    !req->keep_body) {
		smb2_error_body(req);
	}
	DBG_DEBUG("%s: reply to mid %llu (%s): %s\n", f->conn->remote,
		  (unsigned long long)req->mid,
		  smb2_cmd_name(req->conn, req->opcode),
		  nt_errstr(status));
	/* After an interim reply the credits were granted already; the
	 * final one carries the AsyncId instead of the TreeId (3.3.4.2). */
	grant = f->async_id != 0 ? 0
				 : smb2_credits_grant(f->conn,
						      req->credit_charge,
						      credits_asked(req, status));
	smb2_reply_header(req, status, grant);
	if (f->async_id != 0) {
		uint8_t *h = f->out.data + req->out_hdr;

		put_le32(h + SMB2_HDR_FLAGS,
			 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_ASYNC_COMMAND);
		put_le64(h + SMB2_HDR_ASYNC_ID, f->async_id);
	}
	smb2_decide_signing(req, &f->rs[f->nrep]);
	if (req->after_reply != NULL && !f->out.failed) {
		struct smb2_reply_sign *rs = &f->rs[f->nrep];
		uint8_t *h = f->out.data + req->out_hdr;

		if (rs->sign && f->n == 1 && !f->encrypt_out) {
			/* 3.3.5.5.3: the preauth hash takes the reply as
			 * sent, signature and all (a binding's replies are
			 * signed); frame_seal signs it again, the same. */
			put_le32(h + SMB2_HDR_FLAGS,
				 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
			smb2_sign(rs->algo, rs->key, h,
				  f->out.len - req->out_hdr);
		}
		req->after_reply(req, h, f->out.len - req->out_hdr);
	}
	f->nrep++;
	if (f->prev_hdr != (size_t)-1) {
		put_le32(f->out.data + f->prev_hdr + SMB2_HDR_NEXT_COMMAND,
			 (uint32_t)(req->out_hdr - f->prev_hdr));
	}
	f->prev_hdr = req->out_hdr;
	return !f->out.failed;
}

static bool frame_reply(struct smb2_frame *f, NTSTATUS status)
{
	bool ok = frame_reply_build(f, status);

	smbd_metrics_reply(&f->req, status,
			   f->out.len - f->req.out_before + f->file_len,
			   f->t_start);
	return ok;
}

/*
 * The worker's count of a kept buffer's decompressed bytes goes with the
 * buffer: a job that still reads it past its frame (a WRITE after a
 * disconnect, smb2_request_keep_input's holder) keeps it counted.
 */
struct frame_held {
	struct smbd_worker *w;
	size_t n;
};

static int frame_held_destructor(struct frame_held *h)
{
	h->w->decomp_held -= h->n;
	return 0;
}

/* A kept frame is copied when that frees at least this much. */
#define FRAME_KEEP_SLACK 4096

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Copy what the waiting request f->req and the requests after it need
 * into a buffer of need bytes of its own (frame_keep). */
static bool frame_relocate(struct smb2_frame *f, size_t ext, size_t need)
{
	struct smb2_request *req = &f->req;
	size_t cur = f->next - 1, pos = ext, j;
	uint8_t *nb = talloc_size(f, need);

	if (nb == NULL) {
		return false;
	}
	memcpy(nb, req->in, ext);
	for (j = cur + 1; j < f->n; j++) {
		size_t at = align8(pos);

		memset(nb + pos, 0, at - pos);
		memcpy(nb + at, f->buf + f->offs[j], f->lens[j]);
		f->offs[j] = at;
		pos = at + f->lens[j];
	}
	if (req->body.data >= req->in && req->body.data <= req->in + ext) {
		size_t body_off = (size_t)(req->body.data - req->in);
		size_t room = ext - body_off;

		req->body.data = nb + body_off;
		if (req->body.len > room) {
			req->body.len = room;
		}
		if (req->body.off > req->body.len) {
			req->body.off = req->body.len;
		}
	}
	f->offs[cur] = 0;
	f->lens[cur] = ext;
	req->in = nb;
	req->in_len = ext;
	if (f->owned) {
		talloc_free(f->owner);
	}
	f->buf = nb;
	f->len = need;
	f->owned = true;
	f->owner = nb;
	return true;
}

/*
 * Keep a frame across an async wait (once: a later wait of the frame
 * finds it kept).  The waiting request keeps only what a handler may
 * read of it (smb2_pdu_extent); the requests after it in the compound
 * stay whole, their signatures checked when their turn comes; the ones
 * before it are answered and go.  A frame that is not ours (the receive
 * buffer) is copied so; one of ours when that frees FRAME_KEEP_SLACK
 * bytes or more, so the padding of a decompressed message is never
 * kept.  What is kept of a decompressed message counts against the
 * connection's and the worker's bounds (conn_limits.h).
 * NT_STATUS_INSUFFICIENT_RESOURCES: over a bound, the connection must go.
 */
static NTSTATUS frame_keep(struct smb2_frame *f)
{
	struct smb2_request *req = &f->req;
	struct smbd_conn *conn = f->conn;
	struct frame_held *h;
	size_t ext, need, size, j;
	bool copy;

	if (f->kept) {
		return NT_STATUS_OK;
	}
	ext = smb2_pdu_extent(req->opcode, req->in, req->in_len);
	need = ext;
	for (j = f->next; j < f->n; j++) {
		need = align8(need) + f->lens[j];
	}
	copy = !f->owned ||
	       (f->len > need && f->len - need >= FRAME_KEEP_SLACK);
	size = copy ? need : talloc_get_size(f->owner);
	if (f->decompressed &&
	    !smbd_conn_decomp_admit(conn, size,
				    smb2_decompress_limit(conn->max_read,
							  conn->max_write,
							  conn->max_trans))) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	if (copy && !frame_relocate(f, ext, need)) {
		return NT_STATUS_NO_MEMORY;
	}
	f->kept = true;
	if (!f->decompressed) {
		return NT_STATUS_OK;
	}
	h = talloc(f->owner, struct frame_held);
	if (h == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	h->w = conn->worker;
	h->n = size;
	talloc_set_destructor(h, frame_held_destructor);
	conn->worker->decomp_held += size;
	conn->decomp_held += size;
	f->held = size;
	return NT_STATUS_OK;
}

static const char *frame_drop_why(const struct smb2_request *req)
{
	if (!req->disconnect) {
		return "out of memory";
	}
	return req->disconnect_why != NULL ? req->disconnect_why
					    : "protocol violation";
}

static void frame_run(struct smb2_frame *f)
{
	while (f->next < f->n) {
		struct smb2_request *req = &f->req;
		size_t i = f->next++;
		NTSTATUS status;

		memset(req, 0, sizeof(*req));
		req->conn = f->conn;
		req->frame = f;
		req->mem_ctx = f;
		req->in = f->buf + f->offs[i];
		req->in_len = f->lens[i];
		req->out = &f->out;
		req->out_before = f->out.len;
		if (f->prev_hdr != (size_t)-1) {
			/* 3.3.4.1.3: each reply in a compound starts 8-byte
			 * aligned; NextCommand points at it. */
			wire_push_align_from(&f->out, 4, 8);
		}
		req->out_hdr = f->out.len;
		wire_push_zero(&f->out, SMB2_HDR_LEN);
		req->prev_session_id = f->prev_sid;
		req->prev_tree_id = f->prev_tid;
		memcpy(req->prev_fid, f->prev_fid, 16);
		req->prev_status = f->prev_status;
		req->first_in_chain = i == 0;

		status = smb2_dispatch_one(req);
		if (status == SMBD_STATUS_ASYNC) {
			status = frame_keep(f);
			if (!NT_STATUS_IS_OK(status)) {
				smbd_conn_disconnect(f->conn, status ==
					NT_STATUS_NO_MEMORY ? "out of memory" :
					FRAME_OVER_BOUND);
			}
			return;
		}
		if (!frame_reply(f, status)) {
			smbd_conn_disconnect(f->conn, frame_drop_why(req));
			return;
		}
	}
	frame_send(f);
}

void smb2_frame_resume(struct smb2_request *req, NTSTATUS status)
{
	struct smb2_frame *f = req->frame;
	bool waited = f->waiting;

	if (status == SMBD_STATUS_ASYNC) {
		/* The handler goes on: with another job (not cancellable:
		 * whatever wait came before is over), or waiting again with
		 * the cancel it just registered (a CREATE that must wait for
		 * an oplock break after its job: that cancel must stay). */
		if (f->work != NULL) {
			frame_unwait(f);
		}
		return;
	}
	f->work = NULL;
	f->work_abandon = NULL;
	frame_unwait(f);
	/* A LOGOFF or TREE_DISCONNECT while it waited may have freed what
	 * the request was dispatched with: look them up again. */
	req->session = smbd_session_find(req->conn, req->session_id);
	req->tcon = req->session != NULL
			    ? smbd_tcon_find(req->session, req->tree_id)
			    : NULL;
	if (req->session == NULL && waited && f->wait_sign.sign &&
	    !req->sign_after_free) {
		req->sign_after_free = true;
		req->sign_algo = f->wait_sign.algo;
		memcpy(req->sign_key, f->wait_sign.key, 16);
	}
	if (!frame_reply(f, status)) {
		smbd_conn_disconnect(f->conn, frame_drop_why(req));
		return;
	}
	frame_run(f);
}

void smb2_frame_set_work(struct smb2_request *req, void *work,
			 void (*abandon)(void *work))
{
	req->frame->work = work;
	req->frame->work_abandon = abandon;
}

bool smb2_request_is_last(const struct smb2_request *req)
{
	return req->frame->next == req->frame->n;
}

bool smb2_request_keep_input(struct smb2_request *req, TALLOC_CTX *holder)
{
	NTSTATUS status = frame_keep(req->frame);

	if (status == NT_STATUS_INSUFFICIENT_RESOURCES) {
		/* The connection goes when the handler returns: it may not
		 * be freed under the handler's feet here. */
		req->disconnect = true;
		req->disconnect_why = FRAME_OVER_BOUND;
		return false;
	}
	if (!NT_STATUS_IS_OK(status)) {
		return false;
	}
	/* A pool thread (or the ring) may still read the input when the
	 * connection, and its frames with it, has gone: the holder keeps
	 * the buffer for as long as it lives. */
	return holder == NULL ||
	       talloc_reference(holder, req->frame->owner) != NULL;
}

/* Cut a plain SMB2 message into a frame and run it.  owner, when not
 * NULL, is a talloc buffer holding buf that the frame may keep. */
static void frame_start(struct smbd_conn *conn, const uint8_t *buf, size_t len,
			uint8_t *owner, struct smbd_session *enc_session,
			bool decompressed)
{
	struct smb2_frame *f = talloc_zero(conn, struct smb2_frame);

	if (f == NULL) {
		talloc_free(owner);
		smbd_conn_disconnect(conn, "out of memory");
		return;
	}
	if (!NT_STATUS_IS_OK(smb2_pdu_split(buf, len, f->offs, f->lens,
					    &f->n))) {
		talloc_free(owner);
		talloc_free(f);
		smbd_conn_disconnect(conn, "malformed SMB2 header or compound");
		return;
	}
	f->file_fd = -1;
	talloc_set_destructor(f, frame_destructor);
	f->conn = conn;
	f->t_start = smbd_metrics_clock(conn->worker->metrics);
	f->buf = buf;
	f->len = len;
	f->decompressed = decompressed;
	if (owner != NULL) {
		/* A reassembled or decrypted frame: ours already. */
		talloc_steal(f, owner);
		f->owned = true;
		f->owner = owner;
	}
	if (enc_session != NULL) {
		f->encrypted_in = true;
		f->in_session_id = enc_session->id;
		smb2_frame_encrypt_with(f, enc_session);
	}
	f->prev_hdr = (size_t)-1;
	wire_buf_init(&f->out, f, 4 + 128 * f->n);
	wire_push_zero(&f->out, 4); /* NetBIOS header, filled when sent */
	frame_run(f);
}

/*
 * 3.3.5.2 (3.1.5.1, 3.1.5.3): a COMPRESSION_TRANSFORM message, alone or
 * inside an encrypted one (enc_session): decompressed into a buffer of
 * its own, within the connection's limit, then handled as what it holds,
 * which must be a plain SMB2 message.  Anything wrong drops the
 * connection, as Windows does.
 */
static void frame_decompress(struct smbd_conn *conn, const uint8_t *buf,
			     size_t len, uint8_t *owned,
			     struct smbd_session *enc_session)
{
	uint8_t *msg = NULL;
	size_t msg_len = 0;
	size_t limit = smb2_decompress_limit(conn->max_read, conn->max_write,
					     conn->max_trans);
	NTSTATUS status = NT_STATUS_INVALID_PARAMETER;

	if (!conn->logged_on && limit > SMBD_MAX_PRELOGON_PDU) {
		/* what a frame may hold before a logon, it may not grow to
		 * either (conn_limits.h) */
		limit = SMBD_MAX_PRELOGON_PDU;
	}
	if (conn->negotiated && conn->dialect == SMB2_DIALECT_0311 &&
	    conn->compress.n > 0) {
		status = smb2_decompress(conn, &conn->compress, buf, len, limit,
					 &msg, &msg_len);
	}
	talloc_free(owned);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: compressed message of %zu bytes refused: %s\n",
			   conn->remote, len, nt_errstr(status));
		smbd_conn_disconnect(conn, "bad compressed message");
		return;
	}
	if (msg_len < 4 || le32(msg) != SMB2_MAGIC) {
		talloc_free(msg);
		smbd_conn_disconnect(conn, "no SMB2 message inside a "
					   "compressed one");
		return;
	}
	frame_start(conn, msg, msg_len, msg, enc_session, true);
}

/*
 * 3.3.5.2.1: a transform header: find the session by its id, decrypt in
 * place (our own copy), then handle what is inside as a normal frame
 * whose replies go back encrypted.  Anything wrong drops the connection.
 */
static void frame_decrypt(struct smbd_conn *conn, const uint8_t *buf,
			  size_t len, uint8_t *owned)
{
	struct smbd_session *s;
	uint64_t sid = 0;
	uint8_t *copy;

	if (!conn->negotiated || conn->dialect < SMB2_DIALECT_0300 ||
	    !NT_STATUS_IS_OK(smb2_transform_parse(buf, len, &sid, NULL)) ||
	    (s = smbd_session_find(conn, sid)) == NULL || !s->has_keys) {
		talloc_free(owned);
		smbd_conn_disconnect(conn, "bad encrypted message");
		return;
	}
	copy = owned != NULL ? owned : talloc_memdup(conn, buf, len);
	if (copy == NULL ||
	    !NT_STATUS_IS_OK(smb2_transform_decrypt(smb2_cipher_of(conn->cipher),
						    s->keys.decryption, copy,
						    len))) {
		talloc_free(copy);
		smbd_conn_disconnect(conn, "message failed to decrypt");
		return;
	}
	if (len >= SMB2_TRANSFORM_HDR_LEN + 4 &&
	    le32(copy + SMB2_TRANSFORM_HDR_LEN) == SMB2_COMP_TF_MAGIC) {
		/* 3.1.4.4: compressed, then encrypted */
		frame_decompress(conn, copy + SMB2_TRANSFORM_HDR_LEN,
				 len - SMB2_TRANSFORM_HDR_LEN, copy, s);
		return;
	}
	if (len < SMB2_TRANSFORM_HDR_LEN + 4 ||
	    le32(copy + SMB2_TRANSFORM_HDR_LEN) != SMB2_MAGIC) {
		talloc_free(copy);
		smbd_conn_disconnect(conn, "no SMB2 message inside a transform");
		return;
	}
	frame_start(conn, copy + SMB2_TRANSFORM_HDR_LEN,
		    len - SMB2_TRANSFORM_HDR_LEN, copy, s, false);
}

void smb2_process_frame(struct smbd_conn *conn, const uint8_t *buf,
			size_t len, uint8_t *owned)
{
	uint32_t magic = len >= 4 ? le32(buf) : 0;

	if (magic == SMB1_MAGIC && !conn->negotiated && !conn->smb1_wildcard) {
		conn->worker->smb2->negotiate_smb1(conn, buf, len);
		talloc_free(owned);
		return;
	}
	if (magic == SMB2_TF_MAGIC) {
		frame_decrypt(conn, buf, len, owned);
		return;
	}
	if (magic == SMB2_COMP_TF_MAGIC) {
		frame_decompress(conn, buf, len, owned, NULL);
		return;
	}
	if (magic != SMB2_MAGIC) {
		talloc_free(owned);
		smbd_conn_disconnect(conn, "not an SMB2 message");
		return;
	}
	frame_start(conn, buf, len, owned, NULL, false);
}
