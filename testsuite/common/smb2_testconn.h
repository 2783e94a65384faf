/*
 * A server, worker and socket-less connection for unit tests and fuzz
 * targets of the SMB2 layer: frames the server sends are captured instead
 * of written to a socket.
 *
 * Two ways to use it.  testconn_new() makes a bare server and worker
 * with one connection and nothing after it (no loop, no thread pool, no
 * share): enough for framing and NEGOTIATE.  testsrv_new() makes a server
 * that can serve files: a temporary directory with two shares ([share]
 * writable, [ro] read-only), a locking DB, an epoll loop and a thread
 * pool; testconn_new_on() opens connections on it, which the helpers
 * below take through NEGOTIATE, logons with known keys (the server's own
 * smbd_session_establish, so keys are derived as a SESSION_SETUP would)
 * and TREE_CONNECT, so test input can be signed or encrypted and reach
 * the handlers.
 */
#ifndef TESTSUITE_SMB2_TESTCONN_H
#define TESTSUITE_SMB2_TESTCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct smbd_server;
struct smbd_worker;
struct smbd_conn;
struct smbd_session;

struct testconn {
	struct testconn *prev, *next;	/* every live one (the sink) */
	struct smbd_server *srv;
	struct smbd_worker *w;
	struct smbd_conn *conn;	/* NULL once the server dropped it */
	uint8_t *last;		/* last frame sent (with its 4-byte header) */
	size_t last_len;
	unsigned nframes;
	uint64_t next_mid;	/* for the helpers' own requests */
};

/* options: NULL-terminated "name", "value" pairs for lp_set_cmdline. */
struct testconn *testconn_new(void *mem_ctx, const char *const *options);
/* Feed raw stream bytes. */
void testconn_input(struct testconn *t, const void *data, size_t len);
/* Feed one SMB payload with a direct-TCP header in front. */
void testconn_frame(struct testconn *t, const void *payload, size_t len);
/* The connection is gone (dropped by the server). */
int testconn_dropped(const struct testconn *t);

struct testsrv {
	struct smbd_server *srv;
	struct smbd_worker *w;
	char *dir;		/* removed with the testsrv */
	char *share_path;	/* [share], writable */
	char *ro_path;		/* [ro], read only */
};

/* options as for testconn_new, applied after the generated smb.conf. */
struct testsrv *testsrv_new(void *mem_ctx, const char *const *options);
/* Run the loop until the thread pool has finished every job (and their
 * done callbacks ran).  Requests waiting on something else (a lock, a
 * break, a notify) stay waiting. */
void testsrv_run(struct testsrv *ts);
/* Descriptors this process has open (/proc/self/fd), to catch leaks. */
unsigned testsrv_count_fds(void);

struct testconn *testconn_new_on(void *mem_ctx, struct testsrv *ts);
/* NEGOTIATE offering only dialect (0x0202..0x0311) and, for 3.1.1, only
 * the cipher (SMB2_ENCRYPTION_*; 0 for none) and signing algorithm
 * (SMB2_SIGNING_*), with client_guid.  True when the server chose it. */
bool testconn_negotiate(struct testconn *t, uint16_t dialect,
			uint16_t cipher, uint16_t sign_algo,
			const uint8_t client_guid[16]);
/* A VALID session for account (uid, gid) with session_key. */
struct smbd_session *testconn_logon(struct testconn *t, const char *account,
				    uid_t uid, gid_t gid,
				    const uint8_t session_key[16]);
/* TREE_CONNECT to \\test\share by s, signed; the TreeId, 0 if refused. */
uint32_t testconn_tcon(struct testconn *t, struct smbd_session *s,
		       const char *share);
/* Sign each request of the compound msg (in place) with s's key, as a
 * client would: SMB2_FLAGS_SIGNED set, each over its own NextCommand
 * span, the last to the end. */
void testconn_sign(struct smbd_session *s, uint8_t *msg, size_t len);
/* Feed msg in a TRANSFORM_HEADER naming tf_session_id, encrypted with
 * s's client-to-server key and the connection's cipher. */
void testconn_send_encrypted(struct testconn *t, struct smbd_session *s,
			     uint64_t tf_session_id, const uint8_t *msg,
			     size_t len);
/* The plain last reply: decrypted with s's key if it came in a
 * transform.  NULL when there is none or it does not decrypt. */
const uint8_t *testconn_reply(struct testconn *t, struct smbd_session *s,
			      size_t *len);

#endif
