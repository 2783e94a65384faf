/*
 * Large replies signed or encrypted in the worker's pool (MS-SMB2
 * 3.3.4.1.1 signing, 3.1.4.3 encryption).
 *
 * A connection, and every channel of a multichannel session, is served by
 * one worker's loop thread (smbd/conn/conn_handover.c).  Sealing a 1 MiB
 * READ reply costs that thread about a millisecond of AES, during which
 * the session's other channels wait: two channels reading at once went
 * no faster than one (testsuite/bench/README.md "Multichannel").  Above
 * SMB2_SEAL_OFFLOAD_MIN the work goes to a pool thread instead, so one
 * session's large signed or encrypted replies use the pool's CPUs, as
 * two sessions on two workers would; the loop only fills the header and
 * draws the nonce (the worker's counter is the loop's alone).
 *
 * The job owns the reply until it is done.  A connection that goes
 * meanwhile is forgotten (a guard, its talloc child, tells the job): the
 * sealed reply is dropped with nobody to read it.  Replies of one connection may leave
 * in another order than they were finished; SMB2 allows it (each names
 * its MessageId), as for any request that went async.
 */
#include "smbd/conn/smb2_seal.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/smb2_transform.h"
#include "smbd/smb2.h"
#include "lib/tpool.h"
#include "lib/wire.h"

#include <string.h>

struct seal_guard;

struct smb2_seal_job {
	struct tpool_job tj;
	struct smbd_conn *conn;		/* NULL: it went meanwhile */
	struct seal_guard *guard;	/* on conn: tells when it goes */
	struct smb2_seal spec;
	uint8_t *buf;			/* the reply, 4 bytes of room first */
	size_t len;
	uint8_t *comp;			/* compress: room for its form */
	size_t comp_len;		/* 0: it did not shrink */
	uint8_t *out;			/* encrypted: the transform frame */
	bool ok;
};

/* A child of the connection: freed with it, it forgets the connection
 * in the job, so the connection needs to know nothing of sealing. */
struct seal_guard {
	struct smb2_seal_job *j;
};

static int seal_guard_destructor(struct seal_guard *g)
{
	g->j->conn = NULL;
	g->j->guard = NULL;
	return 0;
}

static void seal_unlink(struct smb2_seal_job *j)
{
	if (j->guard != NULL) {
		talloc_set_destructor(j->guard, NULL);
		TALLOC_FREE(j->guard);
	}
}

/* Pool thread: signing, compression, AES; no talloc (the loop owns the
 * allocator). */
static void seal_work(struct tpool_job *tj)
{
	struct smb2_seal_job *j = tj->priv;
	uint8_t *h = j->buf + 4;
	size_t msg_len = j->len - 4;

	if (j->spec.sign) {
		smb2_sign(j->spec.algo, j->spec.key, h, msg_len);
	}
	if (j->spec.compress) {
		j->comp_len = smb2_compress_msg(&j->spec.caps, h, msg_len,
						j->spec.plain, j->comp + 4,
						msg_len);
		if (j->comp_len > 0) {
			h = j->comp + 4;
			msg_len = j->comp_len;
		}
	}
	j->ok = true;
	if (j->spec.encrypt) {
		j->ok = smb2_transform_encrypt_to(
			j->spec.cipher, j->spec.key, j->spec.session_id,
			j->spec.nonce, j->out + 4, h,
			j->out + 4 + SMB2_TRANSFORM_HDR_LEN, msg_len);
	}
}

/* Loop thread: send what was sealed, if its connection is still there. */
static void seal_done(struct tpool_job *tj)
{
	struct smb2_seal_job *j = tj->priv;
	struct smbd_conn *conn = j->conn;
	size_t msg_len;

	seal_unlink(j);
	explicit_bzero(j->spec.key, sizeof(j->spec.key));
	if (conn == NULL || conn->dead) {
		talloc_free(j);
		return;
	}
	if (!j->ok) {
		void (*sealed)(struct smbd_conn *, uint8_t *, size_t) =
			j->spec.sealed;

		talloc_free(j);
		sealed(conn, NULL, 0);
		return;
	}
	msg_len = j->comp_len > 0 ? j->comp_len : j->len - 4;
	if (j->spec.encrypt) {
		j->spec.sealed(conn, talloc_steal(NULL, j->out),
			       4 + SMB2_TRANSFORM_HDR_LEN + msg_len);
	} else if (j->comp_len > 0) {
		memset(j->comp, 0, 4);
		j->spec.sealed(conn, talloc_steal(NULL, j->comp), 4 + msg_len);
	} else {
		j->spec.sealed(conn, talloc_steal(NULL, j->buf), j->len);
	}
	talloc_free(j);
}

bool smb2_seal_offload(struct smbd_conn *conn, uint8_t **buf, size_t len,
		       const struct smb2_seal *spec)
{
	struct smb2_seal_job *j;

	if (len < (spec->compress ? SMB2_COMPRESS_OFFLOAD_MIN
				  : SMB2_SEAL_OFFLOAD_MIN) ||
	    conn->sink != NULL ||
	    conn->stream == NULL || conn->worker->tpool == NULL) {
		return false;
	}
	j = talloc_zero(conn->worker, struct smb2_seal_job);
	if (j == NULL) {
		return false;
	}
	j->guard = talloc(conn, struct seal_guard);
	if (j->guard == NULL) {
		talloc_free(j);
		return false;
	}
	j->guard->j = j;
	if (spec->encrypt) {
		j->out = talloc_size(j, 4 + SMB2_TRANSFORM_HDR_LEN + len - 4);
		if (j->out == NULL) {
			talloc_free(j);
			return false;
		}
	}
	if (spec->compress) {
		j->comp = talloc_size(j, len);
		if (j->comp == NULL) {
			talloc_free(j);
			return false;
		}
	}
	if (spec->sign) {
		uint8_t *h = *buf + 4;

		put_le32(h + SMB2_HDR_FLAGS,
			 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
	}
	j->spec = *spec;
	j->buf = talloc_steal(j, *buf);
	*buf = NULL;
	j->len = len;
	j->conn = conn;
	talloc_set_destructor(j->guard, seal_guard_destructor);
	j->tj.fn = seal_work;
	j->tj.done = seal_done;
	j->tj.priv = j;
	tpool_submit(conn->worker->tpool, &j->tj);
	return true;
}
