/*
 * See smb2_testconn.h.
 */
#include "testsuite/common/smb2_testconn.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_signing.h"
#include "smbd/conn/smb2_transform.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/smbd.h"
#include "smbd/auth/auth.h"
#include "conf/loadparm.h"
#include "locking/locking.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/tpool.h"
#include "lib/wire.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

/* Every live testconn, so the sink finds the one a frame is for (a
 * testsrv's worker serves several). */
static struct testconn *testconns;

static void testconn_sink(struct smbd_conn *conn, uint8_t *buf, size_t len)
{
	struct testconn *t;

	for (t = testconns; t != NULL && t->conn != conn; t = t->next) {
	}
	if (t == NULL) {
		talloc_free(buf);
		return;
	}
	talloc_free(t->last);
	t->last = talloc_steal(t, buf);
	t->last_len = len;
	t->nframes++;
}

/* A child of the connection: tells its testconn when the server frees
 * the connection (a drop), so t->conn never dangles. */
struct testconn_watch {
	struct testconn *t;
};

static int testconn_watch_destructor(struct testconn_watch *wt)
{
	if (wt->t != NULL) {
		wt->t->conn = NULL;
	}
	return 0;
}

static int testconn_destructor(struct testconn *t)
{
	if (t->prev != NULL) {
		t->prev->next = t->next;
	} else if (testconns == t) {
		testconns = t->next;
	}
	if (t->next != NULL) {
		t->next->prev = t->prev;
	}
	/* A dropped connection of the worker's own, like a TCP reset: its
	 * durable opens are kept for a reclaim (3.3.7.1). */
	TALLOC_FREE(t->conn);
	return 0;
}

static struct testconn *testconn_attach(void *mem_ctx, struct smbd_server *srv,
					struct smbd_worker *w)
{
	struct testconn *t = talloc_zero(mem_ctx, struct testconn);
	struct testconn_watch *wt;

	if (t == NULL) {
		return NULL;
	}
	t->srv = srv;
	t->w = w;
	t->next = testconns;
	if (t->next != NULL) {
		t->next->prev = t;
	}
	testconns = t;
	talloc_set_destructor(t, testconn_destructor);
	t->conn = smbd_conn_new_detached(w, testconn_sink);
	if (t->conn == NULL) {
		return t;
	}
	wt = talloc_zero(t->conn, struct testconn_watch);
	if (wt == NULL) {
		TALLOC_FREE(t->conn);
		return t;
	}
	wt->t = t;
	talloc_set_destructor(wt, testconn_watch_destructor);
	return t;
}

struct testconn *testconn_new(void *mem_ctx, const char *const *options)
{
	struct smbd_server *srv;
	struct smbd_worker *w;
	struct testconn *t;
	size_t i;

	clock_update();
	crypto_init();
	srv = talloc_zero(NULL, struct smbd_server);
	srv->lp = lp_new(srv);
	for (i = 0; options != NULL && options[i] != NULL; i += 2) {
		lp_set_cmdline(srv->lp, options[i], options[i + 1]);
	}
	memset(srv->server_guid, 0xAB, sizeof(srv->server_guid));
	srv->nworkers = 1;
	w = talloc_zero(srv, struct smbd_worker);
	w->srv = srv;
	(void)smb2_server_install(w);
	t = testconn_attach(mem_ctx, srv, w);
	/* The server goes with the testconn, after its connection (the
	 * destructor frees that first). */
	(void)talloc_steal(t, srv);
	return t;
}

void testconn_input(struct testconn *t, const void *data, size_t len)
{
	if (!testconn_dropped(t)) {
		smbd_conn_input(t->conn, data, len);
	}
}

void testconn_frame(struct testconn *t, const void *payload, size_t len)
{
	uint8_t *buf = talloc_size(t, len + 4);

	put_be32(buf, (uint32_t)len);
	memcpy(buf + 4, payload, len);
	testconn_input(t, buf, len + 4);
	talloc_free(buf);
}

int testconn_dropped(const struct testconn *t)
{
	return t->conn == NULL;
}

/* ---- a server with shares, a loop and a thread pool ---- */

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int testsrv_destructor(struct testsrv *ts)
{
	/* The server first: its opens hold files in the directory. */
	TALLOC_FREE(ts->srv);
	if (ts->dir != NULL) {
		(void)nftw(ts->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	return 0;
}

struct testsrv *testsrv_new(void *mem_ctx, const char *const *options)
{
	struct testsrv *ts = talloc_zero(mem_ctx, struct testsrv);
	char tmpl[] = "/tmp/smbd-testsrv.XXXXXX";
	struct smbd_worker *w;
	char *lockdir, *conf;
	size_t i;

	clock_update();
	crypto_init();
	if (ts == NULL || mkdtemp(tmpl) == NULL) {
		talloc_free(ts);
		return NULL;
	}
	talloc_set_destructor(ts, testsrv_destructor);
	/* users other than root (the fuzz targets' second session) must
	 * reach the shares: mkdtemp makes it 0700 */
	if (chmod(tmpl, 0755) != 0) {
		rmdir(tmpl);
		talloc_free(ts);
		return NULL;
	}
	ts->dir = talloc_strdup(ts, tmpl);
	ts->share_path = talloc_asprintf(ts, "%s/share", tmpl);
	ts->ro_path = talloc_asprintf(ts, "%s/ro", tmpl);
	lockdir = talloc_asprintf(ts, "%s/lock", tmpl);
	if (ts->dir == NULL || ts->share_path == NULL || ts->ro_path == NULL ||
	    lockdir == NULL || mkdir(ts->share_path, 0777) != 0 ||
	    mkdir(ts->ro_path, 0755) != 0 || mkdir(lockdir, 0755) != 0 ||
	    chmod(ts->share_path, 0777) != 0) {
		talloc_free(ts);
		return NULL;
	}
	conf = talloc_asprintf(ts,
			       "[global]\n"
			       "lock directory = %s\n"
			       "[share]\n"
			       "path = %s\n"
			       "read only = no\n"
			       "[ro]\n"
			       "path = %s\n"
			       "read only = yes\n",
			       lockdir, ts->share_path, ts->ro_path);
	ts->srv = talloc_zero(ts, struct smbd_server);
	if (conf == NULL || ts->srv == NULL) {
		talloc_free(ts);
		return NULL;
	}
	ts->srv->lp = lp_new(ts->srv);
	if (ts->srv->lp == NULL || !lp_load_string(ts->srv->lp, "testsrv", conf)) {
		talloc_free(ts);
		return NULL;
	}
	for (i = 0; options != NULL && options[i] != NULL; i += 2) {
		lp_set_cmdline(ts->srv->lp, options[i], options[i + 1]);
	}
	memset(ts->srv->server_guid, 0xAB, sizeof(ts->srv->server_guid));
	ts->srv->nworkers = 1;
	w = talloc_zero(ts->srv, struct smbd_worker);
	ts->w = w;
	if (w == NULL) {
		talloc_free(ts);
		return NULL;
	}
	w->srv = ts->srv;
	if (!smb2_server_install(w)) {
		talloc_free(ts);
		return NULL;
	}
	/* epoll: no ring to set up per test, and the same loop code. */
	w->loop = ev_loop_new(w, EV_BACKEND_EPOLL);
	w->tpool = w->loop ? tpool_new(w, w->loop, 2) : NULL;
	if (w->tpool == NULL ||
	    !NT_STATUS_IS_OK(locking_db_open(w, lockdir, true, &w->locking))) {
		talloc_free(ts);
		return NULL;
	}
	return ts;
}

static void worker_check(void *priv)
{
	struct smbd_worker *w = priv;

	if (tpool_pending(w->tpool) == 0) {
		ev_loop_stop(w->loop);
		return;
	}
	/* Look again after the next poll, which takes the pool's wake-up
	 * and runs the done callbacks (they may submit more). */
	if (ev_after_poll(w, w->loop, worker_check, w) == NULL) {
		ev_loop_stop(w->loop);
	}
}

/* Run w's loop until its pool is idle (nothing to do without one). */
static void worker_run(struct smbd_worker *w)
{
	if (w->loop != NULL && w->tpool != NULL &&
	    ev_after_poll(w, w->loop, worker_check, w) != NULL) {
		(void)ev_loop_run(w->loop);
	}
}

void testsrv_run(struct testsrv *ts)
{
	worker_run(ts->w);
}

unsigned testsrv_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned n = 0;

	if (d == NULL) {
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		n += de->d_name[0] != '.';
	}
	closedir(d);
	return n - 1; /* the directory's own */
}

struct testconn *testconn_new_on(void *mem_ctx, struct testsrv *ts)
{
	return testconn_attach(mem_ctx, ts->srv, ts->w);
}

/* ---- requests the helpers send ---- */

static void req_hdr(struct wire_buf *b, uint16_t op, uint64_t mid,
		    uint32_t tid, uint64_t sid)
{
	wire_push_le32(b, SMB2_MAGIC);
	wire_push_le16(b, SMB2_HDR_LEN);
	wire_push_le16(b, 1);	/* CreditCharge */
	wire_push_le32(b, 0);	/* Status / ChannelSequence */
	wire_push_le16(b, op);
	wire_push_le16(b, 64);	/* CreditRequest */
	wire_push_le32(b, 0);	/* Flags */
	wire_push_le32(b, 0);	/* NextCommand */
	wire_push_le64(b, mid);
	wire_push_le32(b, 0xFEFF);
	wire_push_le32(b, tid);
	wire_push_le64(b, sid);
	wire_push_zero(b, 16);
}

/* The status of the last reply, or STATUS_INTERNAL_ERROR if none came
 * back after `before` frames. */
static NTSTATUS last_status(struct testconn *t, unsigned before)
{
	if (t->nframes == before || t->last_len < 4 + SMB2_HDR_LEN) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	return le32(t->last + 4 + SMB2_HDR_STATUS);
}

bool testconn_negotiate(struct testconn *t, uint16_t dialect,
			uint16_t cipher, uint16_t sign_algo,
			const uint8_t client_guid[16])
{
	struct wire_buf b;
	size_t body, ctxoff_pos;
	uint16_t nctx = dialect == SMB2_DIALECT_0311 ? (cipher ? 3 : 2) : 0;
	unsigned before = t->nframes;
	bool ok;

	wire_buf_init(&b, t, 256);
	req_hdr(&b, SMB2_OP_NEGPROT, t->next_mid++, 0, 0);
	body = b.len;
	/* 2.2.3 NEGOTIATE Request */
	wire_push_le16(&b, 36);
	wire_push_le16(&b, 1);
	wire_push_le16(&b, SMB2_NEGOTIATE_SIGNING_ENABLED);
	wire_push_le16(&b, 0);
	wire_push_le32(&b, 0x7f); /* every capability, encryption included */
	wire_push_bytes(&b, client_guid, 16);
	ctxoff_pos = b.len;
	wire_push_le32(&b, 0);
	wire_push_le16(&b, nctx);
	wire_push_le16(&b, 0);
	wire_push_le16(&b, dialect);
	if (nctx != 0) {
		wire_push_align(&b, 8);
		put_le32(b.data + ctxoff_pos, (uint32_t)b.len);
		/* 2.2.3.1.1: SHA-512, a 32-byte salt */
		wire_push_le16(&b, SMB2_PREAUTH_INTEGRITY_CAPABILITIES);
		wire_push_le16(&b, 38);
		wire_push_le32(&b, 0);
		wire_push_le16(&b, 1);
		wire_push_le16(&b, 32);
		wire_push_le16(&b, SMB2_PREAUTH_INTEGRITY_SHA512);
		wire_push_bytes(&b, client_guid, 16);
		wire_push_bytes(&b, client_guid, 16);
		wire_push_align(&b, 8);
		/* 2.2.3.1.7 */
		wire_push_le16(&b, SMB2_SIGNING_CAPABILITIES);
		wire_push_le16(&b, 4);
		wire_push_le32(&b, 0);
		wire_push_le16(&b, 1);
		wire_push_le16(&b, sign_algo);
		if (cipher != 0) {
			wire_push_align(&b, 8);
			/* 2.2.3.1.2 */
			wire_push_le16(&b, SMB2_ENCRYPTION_CAPABILITIES);
			wire_push_le16(&b, 4);
			wire_push_le32(&b, 0);
			wire_push_le16(&b, 1);
			wire_push_le16(&b, cipher);
		}
	}
	(void)body;
	testconn_frame(t, b.data, b.len);
	talloc_free(b.data);
	ok = NT_STATUS_IS_OK(last_status(t, before)) && !testconn_dropped(t) &&
	     t->conn->dialect == dialect;
	return ok && (dialect != SMB2_DIALECT_0311 || t->conn->cipher == cipher);
}

struct smbd_session *testconn_logon(struct testconn *t, const char *account,
				    uid_t uid, gid_t gid,
				    const uint8_t session_key[16])
{
	struct auth_user_info u = {
		.account_name = account,
		.domain = "TEST",
		.unix_name = account,
		.uid = uid,
		.gid = gid,
		.ngroups = 1,
		.groups = &gid,
	};
	struct auth_result r = {
		.user = &u,
		.has_session_key = true,
	};
	struct smbd_session *s;

	if (testconn_dropped(t)) {
		return NULL;
	}
	s = smbd_session_new(t->conn);
	if (s == NULL) {
		return NULL;
	}
	memcpy(r.session_key, session_key, 16);
	if (!NT_STATUS_IS_OK(smbd_session_establish(
		    s, &r, SMB2_NEGOTIATE_SIGNING_ENABLED, false))) {
		talloc_free(s);
		return NULL;
	}
	return s;
}

void testconn_sign(struct smbd_session *s, uint8_t *msg, size_t len)
{
	size_t off = 0;

	while (len - off >= SMB2_HDR_LEN) {
		uint8_t *h = msg + off;
		uint32_t next = le32(h + SMB2_HDR_NEXT_COMMAND);
		size_t end = next >= SMB2_HDR_LEN && next <= len - off
				     ? off + next
				     : len;

		put_le32(h + SMB2_HDR_FLAGS,
			 le32(h + SMB2_HDR_FLAGS) | SMB2_FLAGS_SIGNED);
		memset(h + SMB2_HDR_SIGNATURE, 0, 16);
		smb2_sign(s->sign_algo, s->keys.signing, h, end - off);
		off = end;
	}
}

uint32_t testconn_tcon(struct testconn *t, struct smbd_session *s,
		       const char *share)
{
	struct wire_buf b;
	unsigned before = t->nframes;
	size_t i, n = strlen(share);
	const char *unc = "\\\\test\\";
	size_t hdr;

	wire_buf_init(&b, t, 256);
	req_hdr(&b, SMB2_OP_TCON, t->next_mid++, 0, s->id);
	/* 2.2.9 TREE_CONNECT Request: the path right after the body. */
	wire_push_le16(&b, 9);
	wire_push_le16(&b, 0);
	wire_push_le16(&b, SMB2_HDR_LEN + 8);
	wire_push_le16(&b, (uint16_t)(2 * (strlen(unc) + n)));
	hdr = b.len;
	for (i = 0; unc[i] != '\0'; i++) {
		wire_push_le16(&b, (uint8_t)unc[i]);
	}
	for (i = 0; i < n; i++) {
		wire_push_le16(&b, (uint8_t)share[i]);
	}
	(void)hdr;
	testconn_sign(s, b.data, b.len);
	testconn_frame(t, b.data, b.len);
	talloc_free(b.data);
	/* A disk share's root is entered in the pool (smb2_tcon.c). */
	worker_run(t->w);
	if (!NT_STATUS_IS_OK(last_status(t, before))) {
		return 0;
	}
	return le32(t->last + 4 + SMB2_HDR_TID);
}

void testconn_send_encrypted(struct testconn *t, struct smbd_session *s,
			     uint64_t tf_session_id, const uint8_t *msg,
			     size_t len)
{
	uint8_t *buf = talloc_size(t, 4 + SMB2_TRANSFORM_HDR_LEN + len);
	uint8_t nonce[16];

	if (buf == NULL || testconn_dropped(t)) {
		talloc_free(buf);
		return;
	}
	memset(nonce, 0, sizeof(nonce));
	put_le64(nonce, ++t->next_mid);
	nonce[8] = 0xc1; /* not the server's: its salt is random */
	put_be32(buf, (uint32_t)(SMB2_TRANSFORM_HDR_LEN + len));
	memcpy(buf + 4 + SMB2_TRANSFORM_HDR_LEN, msg, len);
	if (smb2_transform_encrypt(smb2_cipher_of(t->conn->cipher),
				   s->keys.decryption, tf_session_id, nonce,
				   buf + 4, buf + 4 + SMB2_TRANSFORM_HDR_LEN,
				   len)) {
		testconn_input(t, buf, 4 + SMB2_TRANSFORM_HDR_LEN + len);
	}
	talloc_free(buf);
}

const uint8_t *testconn_reply(struct testconn *t, struct smbd_session *s,
			      size_t *len)
{
	uint8_t *p;

	if (t->last == NULL || t->last_len < 8) {
		return NULL;
	}
	p = t->last + 4;
	*len = t->last_len - 4;
	if (le32(p) != SMB2_TF_MAGIC) {
		return p;
	}
	if (s == NULL || t->conn == NULL ||
	    !NT_STATUS_IS_OK(smb2_transform_decrypt(
		    smb2_cipher_of(t->conn->cipher), s->keys.encryption, p,
		    *len))) {
		return NULL;
	}
	*len -= SMB2_TRANSFORM_HDR_LEN;
	return p + SMB2_TRANSFORM_HDR_LEN;
}
