/*
 * libFuzzer target for the mailbox's receipt checks (smbd/msg/mailbox.c,
 * smbd_mailbox_dispatch): a datagram as another worker could send it.
 * Every type has a handler with a body size like its owner's (the
 * durable hand-over's is the real one); a handler runs only for a well-formed message and reads exactly
 * its registered body (the input is copied to a buffer of its own size,
 * so ASan sees any read past it), and a descriptor reaches only the types
 * that take one, else it is closed.  Input: one byte of flags (bit 0: a
 * descriptor rides along), then the datagram.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <talloc.h>

#include "smbd/msg/mailbox.h"
#include "smbd/objects/durable.h"
#include "smbd/smbd.h"
#include "lib/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(-1);	/* every malformed message logs a line */
	return 0;
}

static const struct {
	enum smbd_msg_type type;
	size_t len;
	bool takes_fd;
} types[] = {
	{SMBD_MSG_BREAK, 72, false},
	{SMBD_MSG_WAKE, 16, false},
	{SMBD_MSG_CONN, 0, true},
	{SMBD_MSG_DIR_DELETE_PENDING, 16, false},
	{SMBD_MSG_SESSION_PREVIOUS, 72, false},
	{SMBD_MSG_BARRIER, 8, false},
	{SMBD_MSG_BARRIER_ACK, 8, false},
	{SMBD_MSG_DURABLE_REQ,
	 sizeof(struct smbd_durable_xfer), false},
	{SMBD_MSG_DURABLE_GIVE, sizeof(struct smbd_durable_xfer), true},
	{SMBD_MSG_DURABLE_NACK, sizeof(struct smbd_durable_xfer), false},
	{SMBD_MSG_CONTROL, 260, false},
	/* the largest body there may be, as a connection's move nearly is
	 * (its own checks: fuzz_conn_move) */
	{SMBD_MSG_CONN_MOVE, SMBD_MSG_BODY_MAX, true},
};

static size_t expect_len;
static bool expect_fd;
static unsigned calls;

static void on_msg(void *priv, int from, const void *body, int fd)
{
	uint8_t copy[SMBD_MSG_BODY_MAX];

	memcpy(copy, body, expect_len);	/* all of it, and no more */
	if (fd != -1) {
		if (!expect_fd) {
			abort();
		}
		close(fd);
	}
	calls++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct smbd_server srv = {.nworkers = 1};
	struct smbd_mailbox *mb;
	uint8_t *msg;
	size_t i, len;
	int fd = -1;

	if (size < 1) {
		return 0;
	}
	mb = smbd_mailbox_new(NULL, &srv, 0, NULL);
	if (mb == NULL) {
		return 0;
	}
	len = size - 1;
	msg = malloc(len ? len : 1);
	if (msg == NULL) {
		talloc_free(mb);
		return 0;
	}
	memcpy(msg, data + 1, len);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		smbd_mailbox_handle(mb, types[i].type, on_msg, types[i].len,
				    types[i].takes_fd);
	}
	/* The handler is told what its type's body is: the header's type
	 * field (bytes 4..7) names it when the message is well formed. */
	expect_len = 0;
	expect_fd = false;
	if (len >= 8) {
		uint32_t t;

		memcpy(&t, msg + 4, 4);
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			if ((uint32_t)types[i].type == t) {
				expect_len = types[i].len;
				expect_fd = types[i].takes_fd;
			}
		}
	}
	if (data[0] & 1) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	calls = 0;
	if (smbd_mailbox_dispatch(mb, msg, len, fd) != (calls == 1)) {
		abort();
	}
	free(msg);
	talloc_free(mb);
	return 0;
}
