/*
 * libFuzzer target: what comes after a successful decryption (MS-SMB2
 * 3.3.5.2.1.1).  The input is a plaintext (compound) message; the
 * harness encrypts it in a TRANSFORM_HEADER under a session's key, on a
 * connection with two logged-on sessions and their trees
 * (session_env.h), and feeds it.  So the checks after the AEAD run on
 * fuzzed requests: the transform's SessionId against each request's
 * (smb2_check_session), signing skipped for encrypted requests, the
 * handlers, and the encrypted reply, which must decrypt with the key of
 * the session its transform names.  Then, if asked, the raw input goes
 * in as a frame of its own, unmodified: a transform with a forged tag
 * must drop the connection, nothing else.
 *
 * Input: byte 0 selects
 *   bits 0-1  the transform names A with A's key, B with B's, A with
 *             B's key, B with A's key (the last two must not decrypt);
 *   bits 2-3  the cipher (AES-128-CCM, -128-GCM, -256-CCM, -256-GCM);
 *   bit 4     dialect 3.0.2 (AES-128-CCM, no negotiate contexts)
 *             instead of 3.1.1;
 *   bit 5     give the requests the connection's next message ids;
 *   bit 6     SessionId % 4 picks A (0), B (1) or leaves it;
 *   bit 7     feed the raw input afterwards;
 * byte 1 the signing algorithm (% 3) for 3.1.1; the rest the message.
 */
#include "testsuite/common/smb2_testconn.c"
#include "testsuite/fuzz/session_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct env e;
	uint8_t sel, *msg;
	size_t len;
	uint16_t dialect, cipher;
	struct smbd_session *key_of;
	uint64_t tf_sid;

	if (size < 2 || size > 1 << 17) {
		return 0;
	}
	sel = data[0];
	dialect = (sel & 0x10) ? SMB2_DIALECT_0302 : SMB2_DIALECT_0311;
	cipher = (uint16_t)(((sel >> 2) & 3) + 1);
	if (!env_start(&e, dialect, dialect == SMB2_DIALECT_0311 ? cipher : 0,
		       data[1] % 3)) {
		env_end(&e);
		return 0;
	}
	len = size - 2;
	msg = env_dup(&e, data + 2, len);
	if (sel & 0x20) {
		env_patch_mids(&e, msg, len);
	}
	if (sel & 0x40) {
		env_patch_sids(&e, msg, len);
	}
	switch (sel & 3) {
	case 0:
		key_of = e.a, tf_sid = e.ka.id;
		break;
	case 1:
		key_of = e.b, tf_sid = e.kb.id;
		break;
	case 2:
		key_of = e.b, tf_sid = e.ka.id;
		break;
	default:
		key_of = e.a, tf_sid = e.kb.id;
		break;
	}
	testconn_send_encrypted(e.t, key_of, tf_sid, msg, len);
	testsrv_run(env_srv);
	if ((sel & 3) >= 2 && !testconn_dropped(e.t)) {
		/* Encrypted with the other session's key: the AEAD must
		 * fail and the connection go (3.3.5.2.1.1). */
		fprintf(stderr, "a transform under the wrong key was taken\n");
		abort();
	}
	env_check_reply(&e);
	if ((sel & 0x80) && !testconn_dropped(e.t)) {
		unsigned before = e.t->nframes;

		testconn_frame(e.t, data + 2, len);
		testsrv_run(env_srv);
		if (len >= 4 && le32(data + 2) == SMB2_TF_MAGIC &&
		    !testconn_dropped(e.t)) {
			fprintf(stderr, "a forged transform was taken\n");
			abort();
		}
		if (e.t->nframes != before) {
			env_check_reply(&e);
		}
	}
	env_end(&e);
	return 0;
}
