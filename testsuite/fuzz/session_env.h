/*
 * What the session fuzz targets (fuzz_transform_session,
 * fuzz_compound_session, fuzz_create_durable) share: one testsrv for
 * the whole run (shares on a temporary directory, a locking DB, the loop
 * and thread pool), and per input a fresh connection taken through
 * NEGOTIATE, two logons with known keys (user A the fuzzer's own uid,
 * user B "nobody" when running as root) and three tree connects: A on
 * [share], B on [share] and B on [ro].
 *
 * Ids are made deterministic so inputs replay: the worker's session
 * epoch is fixed and its session and open counters start again at 0 for
 * each input (every connection of the input before is gone by then), so
 * session A is always 0x11000001, B 0x11000002, and the first open's
 * FileId is 0x10000000001.
 *
 * After each input: the connection goes (its durable opens are kept, as
 * for a dropped TCP connection), every kept durable open is broken as
 * the scavenger would, the pool drains, the share is emptied, and the
 * process must hold no more descriptors than before the input (abort).
 *
 * Included once by each target, after smb2_testconn.c.
 */
#include "smbd/conn/conn.h"
#include "smbd/objects/durable.h"
#include "smbd/objects/objects_worker.h"
#include "smbd/objects/open.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/smbd.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENV_SESSION_EPOCH 0x11

struct env_keys {
	uint64_t id;
	struct smb2_keys keys;
};

struct env {
	struct testconn *t;
	struct smbd_session *a, *b;	/* valid until the input runs */
	struct env_keys ka, kb;		/* copies: a LOGOFF frees a, b */
	uint32_t tid_a, tid_b, tid_b_ro;
	enum crypto_cipher cipher;	/* the connection's */
	unsigned fds_before;
	bool had_notify;	/* the worker's inotify fd existed */
};

static struct testsrv *env_srv;

static const uint8_t env_key_a[16] = "session-key-AAAA";
static const uint8_t env_key_b[16] = "session-key-BBBB";
static const uint8_t env_client_guid[16] = "client-guid-0001";

/* The temporary directory goes with the process (not after a crash:
 * then it is evidence). */
static void env_cleanup(void)
{
	TALLOC_FREE(env_srv);
}

static struct testsrv *env_server(void)
{
	static const char *const opts[] = {"log level", "0", NULL};

	if (env_srv == NULL) {
		log_set_level(-1);
		env_srv = testsrv_new(NULL, opts);
		if (env_srv == NULL) {
			fprintf(stderr, "session_env: no test server\n");
			abort();
		}
		smb2_worker_of(env_srv->w)->session_epoch = ENV_SESSION_EPOCH;
		atexit(env_cleanup);
	}
	return env_srv;
}

/* A fresh connection with sessions A and B and their trees.  False when
 * the dialect/cipher pair is one the server refuses (not a bug). */
static bool env_start_as(struct env *e, uint16_t dialect, uint16_t cipher,
			 uint16_t sign_algo, const uint8_t client_guid[16])
{
	struct testsrv *ts = env_server();
	uid_t ub = getuid() == 0 ? 65534 : getuid();
	gid_t gb = getuid() == 0 ? 65534 : getgid();

	memset(e, 0, sizeof(*e));
	e->fds_before = testsrv_count_fds();
	e->had_notify = smb2_worker_of(ts->w)->notify != NULL;
	smb2_worker_of(ts->w)->session_seq = 0;
	smbd_objects_of(ts->w)->open_seq = 0;
	e->t = testconn_new_on(NULL, ts);
	if (e->t == NULL || testconn_dropped(e->t)) {
		abort();
	}
	if (!testconn_negotiate(e->t, dialect, cipher, sign_algo,
				client_guid)) {
		return false;
	}
	e->a = testconn_logon(e->t, "usera", getuid(), getgid(), env_key_a);
	e->b = testconn_logon(e->t, "userb", ub, gb, env_key_b);
	if (e->a == NULL || e->b == NULL) {
		fprintf(stderr, "session_env: logon failed\n");
		abort();
	}
	e->cipher = smb2_cipher_of(e->t->conn->cipher);
	e->ka.id = e->a->id;
	e->ka.keys = e->a->keys;
	e->kb.id = e->b->id;
	e->kb.keys = e->b->keys;
	e->tid_a = testconn_tcon(e->t, e->a, "share");
	e->tid_b = testconn_tcon(e->t, e->b, "share");
	e->tid_b_ro = testconn_tcon(e->t, e->b, "ro");
	if (e->tid_a == 0 || e->tid_b == 0 || e->tid_b_ro == 0) {
		fprintf(stderr, "session_env: tree connect failed\n");
		abort();
	}
	return true;
}

static bool env_start(struct env *e, uint16_t dialect, uint16_t cipher,
		      uint16_t sign_algo)
{
	return env_start_as(e, dialect, cipher, sign_algo, env_client_guid);
}

static int env_rm(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0) {
		(void)remove(path);
	}
	return 0;
}

/* Break every kept durable open (the scavenger's path, durable.c), and
 * let the closes finish. */
static void env_expire_durable(struct testsrv *ts)
{
	struct smbd_conn *dc = smbd_objects_of(ts->w)->durable_conn;
	unsigned i;

	if (dc == NULL) {
		return;
	}
	for (i = 0; i < SMBD_OPEN_BUCKETS; i++) {
		struct smbd_open *op;

		for (op = dc->open_hash[i]; op != NULL; op = op->hnext) {
			(void)smbd_durable_break(op);
		}
	}
	testsrv_run(ts);
	if (dc->nopens != 0) {
		fprintf(stderr, "session_env: %u durable opens survived "
			"their expiry\n", dc->nopens);
		abort();
	}
}

static void env_end(struct env *e)
{
	struct testsrv *ts = env_srv;
	unsigned fds;

	testsrv_run(ts);
	TALLOC_FREE(e->t);
	testsrv_run(ts);
	env_expire_durable(ts);
	(void)nftw(ts->share_path, env_rm, 16, FTW_DEPTH | FTW_PHYS);
	fds = testsrv_count_fds();
	/* The worker opens its inotify descriptor on first use, for good
	 * (smb2_notify.c): not the input's. */
	if (!e->had_notify && smb2_worker_of(ts->w)->notify != NULL) {
		fds--;
	}
	if (fds > e->fds_before) {
		fprintf(stderr, "session_env: %u descriptors open after the "
			"input, %u before\n", fds, e->fds_before);
		abort();
	}
}

/* A private copy of len bytes of the input (ASan sees overruns); never
 * a NULL for len 0. */
static uint8_t *env_dup(struct env *e, const uint8_t *p, size_t len)
{
	uint8_t *c = talloc_size(e->t, len ? len : 1);

	if (c == NULL) {
		abort();
	}
	memcpy(c, p, len);
	return c;
}

/* Call fn on each request header of the compound msg, in order, as far
 * as the NextCommand chain stays inside it. */
static void env_each_req(struct env *e, uint8_t *msg, size_t len,
			 void (*fn)(struct env *e, uint8_t *h))
{
	size_t off = 0;

	while (len - off >= SMB2_HDR_LEN) {
		uint32_t next = le32(msg + off + SMB2_HDR_NEXT_COMMAND);

		fn(e, msg + off);
		if (next < SMB2_HDR_LEN || next > len - off) {
			break;
		}
		off += next;
	}
}

/* The connection's next message id (a fuzzer cannot know them); a
 * CANCEL names the request before it (3.3.5.16: by MessageId). */
static void env_next_mid(struct env *e, uint8_t *h)
{
	uint16_t charge = le16(h + SMB2_HDR_CREDIT_CHARGE);

	if (le16(h + SMB2_HDR_OPCODE) == SMB2_OP_CANCEL) {
		put_le64(h + SMB2_HDR_MESSAGE_ID, e->t->next_mid - 1);
		return;
	}
	put_le64(h + SMB2_HDR_MESSAGE_ID, e->t->next_mid);
	e->t->next_mid += charge == 0 ? 1 : charge;
}

/* SessionId % 4 picks A (0), B (1), or leaves it. */
static void env_pick_sid(struct env *e, uint8_t *h)
{
	uint64_t sid = le64(h + SMB2_HDR_SESSION_ID);

	if (sid % 4 == 0) {
		put_le64(h + SMB2_HDR_SESSION_ID, e->ka.id);
	} else if (sid % 4 == 1) {
		put_le64(h + SMB2_HDR_SESSION_ID, e->kb.id);
	}
}

static __attribute__((unused)) void env_patch_mids(struct env *e,
						   uint8_t *msg, size_t len)
{
	env_each_req(e, msg, len, env_next_mid);
}

static __attribute__((unused)) void env_patch_sids(struct env *e,
						   uint8_t *msg, size_t len)
{
	env_each_req(e, msg, len, env_pick_sid);
}

/* SESSION_ENV_TRACE=1: each reply's commands and statuses on stderr,
 * to see how far a seed gets. */
static void env_trace(const uint8_t *p, size_t len)
{
	static int on = -1;
	size_t off = 0;

	if (on == -1) {
		on = getenv("SESSION_ENV_TRACE") != NULL;
	}
	if (!on) {
		return;
	}
	while (len - off >= SMB2_HDR_LEN) {
		uint32_t next = le32(p + off + SMB2_HDR_NEXT_COMMAND);

		fprintf(stderr, "  reply op %u status %08x\n",
			le16(p + off + SMB2_HDR_OPCODE),
			le32(p + off + SMB2_HDR_STATUS));
		if (next < SMB2_HDR_LEN || next > len - off) {
			break;
		}
		off += next;
	}
}

/* The reply, when it came in a transform, must be encrypted with the
 * key of the session its transform names (3.3.4.1.4). */
static void env_check_reply(struct env *e)
{
	struct testconn *t = e->t;
	uint8_t *p, *copy;
	const struct env_keys *k;
	uint64_t sid;
	size_t len;

	if (t == NULL || t->last == NULL || t->last_len < 4 + 4) {
		return;
	}
	p = t->last + 4;
	len = t->last_len - 4;
	if (le32(p) != SMB2_TF_MAGIC) {
		env_trace(p, len);
		return;
	}
	if (!NT_STATUS_IS_OK(smb2_transform_parse(p, len, &sid, NULL))) {
		fprintf(stderr, "session_env: malformed encrypted reply\n");
		abort();
	}
	k = sid == e->ka.id ? &e->ka : sid == e->kb.id ? &e->kb : NULL;
	if (k == NULL) {
		fprintf(stderr, "session_env: reply encrypted for session "
			"%llx\n", (unsigned long long)sid);
		abort();
	}
	copy = talloc_memdup(t, p, len);
	if (!NT_STATUS_IS_OK(smb2_transform_decrypt(
		    e->cipher, k->keys.encryption, copy,
		    len)) ||
	    le32(copy + SMB2_TRANSFORM_HDR_LEN) != SMB2_MAGIC) {
		fprintf(stderr, "session_env: reply does not decrypt with "
			"its session's key\n");
		abort();
	}
	env_trace(copy + SMB2_TRANSFORM_HDR_LEN, len - SMB2_TRANSFORM_HDR_LEN);
	talloc_free(copy);
}
