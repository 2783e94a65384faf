/*
 * libFuzzer target: the body of SMBD_MSG_CONN_MOVE (a connection another
 * worker hands over for multichannel, smbd/conn/conn_handover.c) applied
 * to a test connection: the negotiated state and credit window it
 * carries are checked before use, then its bytes are input as if they
 * had just come from the socket.  Input shorter than the body is padded
 * with zeros; the body is a buffer of its own, so ASan sees reads past
 * it.
 */
#include "testsuite/common/smb2_testconn.c"

#include <stdint.h>
#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	struct testconn *t;
	uint8_t *body;

	if (!quiet) {
		log_set_level(-1);
		quiet = 1;
	}
	body = calloc(1, smbd_conn_move_msg_len);
	if (body == NULL) {
		return 0;
	}
	memcpy(body, data, size < smbd_conn_move_msg_len
				   ? size
				   : smbd_conn_move_msg_len);
	t = testconn_new(NULL, NULL);
	if (t->conn != NULL) {
		(void)smbd_conn_move_apply(t->conn, body);
	}
	talloc_free(t);
	free(body);
	return 0;
}
