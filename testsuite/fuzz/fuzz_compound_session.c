/*
 * libFuzzer target: compound requests on a connection with a session
 * table (MS-SMB2 3.3.5.2.7 related and unrelated chains, FileId
 * inheritance, 3.3.5.2.9/3.3.5.2.11 session and tree lookups, 3.3.1.2
 * credits, 3.3.5.2.4 signatures), and the handlers behind them on a
 * real share.  The connection (session_env.h) holds sessions A and B
 * with trees A:[share], B:[share], B:[ro].
 *
 * Input: byte 0 selects
 *   bits 0-2  the dialect: 3.1.1, 3.1.1, 3.0.2, 3.0, 2.1, 2.0.2, 3.1.1,
 *             3.1.1;
 *   bit 3     sign each request (with A's key, or B's with bit 4);
 *   bit 5     give the requests the connection's next message ids (a
 *             CANCEL the id of the request before it);
 *   bit 6     SessionId % 4 picks A (0), B (1) or leaves it;
 *   bit 7     sign with the other session's key on every second frame
 *             (those must be refused, not crash);
 * byte 1 the 3.1.1 signing algorithm (% 3); then frames, each a 16-bit
 * little-endian length and that many bytes (the last takes what is
 * left), at most 4.  Each frame goes in whole, then the loop runs until
 * the thread pool is idle, so a CREATE's FileId (0x10000000001 for the
 * first open) is there for the next frame.
 */
#include "testsuite/common/smb2_testconn.c"
#include "testsuite/fuzz/session_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t dialects[8] = {
	SMB2_DIALECT_0311, SMB2_DIALECT_0311, SMB2_DIALECT_0302,
	SMB2_DIALECT_0300, SMB2_DIALECT_0210, SMB2_DIALECT_0202,
	SMB2_DIALECT_0311, SMB2_DIALECT_0311,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct env e;
	uint8_t sel;
	size_t off = 2;
	unsigned nframe;

	if (size < 2 || size > 1 << 17) {
		return 0;
	}
	sel = data[0];
	if (!env_start(&e, dialects[sel & 7], SMB2_ENCRYPTION_AES128_GCM,
		       data[1] % 3)) {
		env_end(&e);
		return 0;
	}
	for (nframe = 0; nframe < 4 && off < size && !testconn_dropped(e.t);
	     nframe++) {
		size_t len = size - off;
		uint8_t *msg;

		if (nframe < 3 && len >= 2 && le16(data + off) <= len - 2) {
			len = le16(data + off);
			off += 2;
		}
		msg = env_dup(&e, data + off, len);
		off += len;
		if (sel & 0x20) {
			env_patch_mids(&e, msg, len);
		}
		if (sel & 0x40) {
			env_patch_sids(&e, msg, len);
		}
		if (sel & 0x08) {
			bool other = (sel & 0x80) && (nframe & 1);
			bool use_b = ((sel & 0x10) != 0) != other;

			/* The session pointers are good only while no
			 * input ran: a LOGOFF frees them; sign with what
			 * is still there. */
			struct smbd_session *s = smbd_session_find(
				e.t->conn, use_b ? e.kb.id : e.ka.id);

			if (s != NULL) {
				testconn_sign(s, msg, len);
			}
		}
		testconn_frame(e.t, msg, len);
		talloc_free(msg);
		testsrv_run(env_srv);
		env_check_reply(&e);
	}
	env_end(&e);
	return 0;
}
