/*
 * Unit tests: a logged-on session takes the authenticated user's
 * identity (smbd_session_establish, MS-SMB2 3.3.5.5.3), on a test
 * server's connection (testsuite/common/smb2_testconn.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <sys/mman.h>
#include <talloc.h>
#include <unistd.h>

#include "testsuite/common/smb2_testconn.h"
#include "smbd/auth/auth.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/smb2.h"
#include "smbd/conn/smb2_transform.h"
#include "lib/wire.h"

static const uint8_t guid[16] = "unit-test-client";
static const uint8_t key[16] = "0123456789abcdef";

/* A user's groups exactly as auth_unix_user_info hands them over: an
 * array of ngroups, nothing after it.  Put it against an inaccessible
 * page, so reading one gid past it faults instead of going unnoticed
 * (found by fuzz_transform_session under ASan: the copy took
 * ngroups + 1). */
static void test_groups_copied_within_bounds(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct testsrv *ts = testsrv_new(NULL, NULL);
	struct auth_user_info u = {
		.account_name = "u1",
		.domain = "D",
		.unix_name = "u1",
		.uid = 1000,
		.gid = 1000,
		.ngroups = 3,
	};
	struct auth_result r = {.user = &u, .has_session_key = true};
	struct testconn *t;
	struct smbd_session *s;
	gid_t *groups;

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_non_null(ts);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	groups = (gid_t *)(map + pg) - 3;
	groups[0] = 1000;
	groups[1] = 27;
	groups[2] = 100;
	u.groups = groups;
	memcpy(r.session_key, key, 16);
	t = testconn_new_on(ts, ts);
	assert_true(testconn_negotiate(t, SMB2_DIALECT_0311,
				       SMB2_ENCRYPTION_AES128_GCM,
				       SMB2_SIGNING_AES_CMAC, guid));
	s = smbd_session_new(t->conn);
	assert_non_null(s);
	assert_int_equal(smbd_session_establish(s, &r,
						SMB2_NEGOTIATE_SIGNING_ENABLED,
						false),
			 NT_STATUS_OK);
	assert_int_equal(s->state, SMBD_SESSION_VALID);
	assert_int_equal(s->ngroups, 3);
	assert_int_equal(s->groups[2], 100);
	talloc_free(ts);
	munmap(map, 2 * (size_t)pg);
}

/* The harness's own logon and tree connect, then a signed and an
 * encrypted ECHO, as the fuzz targets use them. */
static void test_harness_roundtrip(void **state)
{
	struct testsrv *ts = testsrv_new(NULL, NULL);
	struct testconn *t;
	struct smbd_session *s;
	uint8_t echo[SMB2_HDR_LEN + 4];
	const uint8_t *rep;
	size_t len;

	(void)state;
	assert_non_null(ts);
	t = testconn_new_on(ts, ts);
	assert_true(testconn_negotiate(t, SMB2_DIALECT_0311,
				       SMB2_ENCRYPTION_AES256_GCM,
				       SMB2_SIGNING_AES_GMAC, guid));
	s = testconn_logon(t, "u3", getuid(), getgid(), key);
	assert_non_null(s);
	assert_int_equal(testconn_tcon(t, s, "share"), 1);
	assert_int_equal(testconn_tcon(t, s, "ro"), 2);
	assert_int_equal(testconn_tcon(t, s, "nosuch"), 0);
	memset(echo, 0, sizeof(echo));
	put_le32(echo, SMB2_MAGIC);
	put_le16(echo + SMB2_HDR_LENGTH, SMB2_HDR_LEN);
	put_le16(echo + SMB2_HDR_CREDIT_CHARGE, 1);
	put_le16(echo + SMB2_HDR_OPCODE, SMB2_OP_KEEPALIVE);
	put_le64(echo + SMB2_HDR_MESSAGE_ID, t->next_mid++);
	put_le64(echo + SMB2_HDR_SESSION_ID, s->id);
	put_le16(echo + SMB2_HDR_LEN, 4);
	testconn_sign(s, echo, sizeof(echo));
	testconn_frame(t, echo, sizeof(echo));
	rep = testconn_reply(t, s, &len);
	assert_non_null(rep);
	assert_int_equal(le32(rep + SMB2_HDR_STATUS), 0);
	/* A wrong signature is refused. */
	put_le64(echo + SMB2_HDR_MESSAGE_ID, t->next_mid++);
	echo[SMB2_HDR_SIGNATURE] ^= 1;
	testconn_frame(t, echo, sizeof(echo));
	rep = testconn_reply(t, s, &len);
	assert_int_equal(le32(rep + SMB2_HDR_STATUS), NT_STATUS_ACCESS_DENIED);
	/* Encrypted: the reply comes encrypted under the session's key. */
	put_le64(echo + SMB2_HDR_MESSAGE_ID, t->next_mid++);
	put_le32(echo + SMB2_HDR_FLAGS, 0);
	memset(echo + SMB2_HDR_SIGNATURE, 0, 16);
	testconn_send_encrypted(t, s, s->id, echo, sizeof(echo));
	assert_false(testconn_dropped(t));
	assert_int_equal(le32(t->last + 4), SMB2_TF_MAGIC);
	rep = testconn_reply(t, s, &len);
	assert_non_null(rep);
	assert_int_equal(le32(rep + SMB2_HDR_STATUS), 0);
	talloc_free(ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_copied_within_bounds),
		cmocka_unit_test(test_harness_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
