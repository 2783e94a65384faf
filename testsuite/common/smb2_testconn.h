/*
 * A server, worker and socket-less connection for unit tests and fuzz
 * targets of the SMB2 layer: frames the server sends are captured instead
 * of written to a socket.
 */
#ifndef TESTSUITE_SMB2_TESTCONN_H
#define TESTSUITE_SMB2_TESTCONN_H

#include <stddef.h>
#include <stdint.h>

struct smbd_server;
struct smbd_worker;
struct smbd_conn;

struct testconn {
	struct smbd_server *srv;
	struct smbd_worker *w;
	struct smbd_conn *conn;
	uint8_t *last;		/* last frame sent (with its 4-byte header) */
	size_t last_len;
	unsigned nframes;
};

/* options: NULL-terminated "name", "value" pairs for lp_set_cmdline. */
struct testconn *testconn_new(void *mem_ctx, const char *const *options);
/* Feed raw stream bytes. */
void testconn_input(struct testconn *t, const void *data, size_t len);
/* Feed one SMB payload with a direct-TCP header in front. */
void testconn_frame(struct testconn *t, const void *payload, size_t len);
/* The connection is gone (dropped by the server). */
int testconn_dropped(const struct testconn *t);

#endif
