/*
 * Unit tests: MS-SMB2 3.3.5.2.10 Verifying the Channel Sequence Number
 * (smbd_channel_seq_verify/_done in smbd/objects/open.c).  A request under the
 * open's sequence or a newer one (16-bit distance up to 0x7FFF) counts;
 * an older one is stale; a replay is stale while requests of an older
 * channel are still in flight; replies give the counts back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdint.h>

#include "smbd/conn/smb2_server.h"
#include "smbd/objects/open.h"

/* One request at a time, as smbtorture's replay.channel-sequence sends
 * them: every verified request's reply comes before the next. */
static void test_sequential_table(void **state)
{
	static const struct {
		uint16_t csn;
		bool ok;
	} t[] = {
		{0x0000, true},  {0x8000, false}, {0x8001, false},
		{0xffff, false}, {0x7fff, true},  {0x7ffe, false},
		{0x0000, false}, {0x8000, true},  {0xffff, true},
		{0x0000, true},  {0x0001, true},  {0x0000, false},
		{0x0001, true},  {0xffff, false},
	};
	size_t i;
	int replay;

	(void)state;
	for (replay = 0; replay < 2; replay++) {
		struct smbd_channel_seq cs = {.seq = 0};

		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			bool ok = smbd_channel_seq_verify(&cs, t[i].csn,
							  replay);

			assert_int_equal(ok, t[i].ok);
			if (ok) {
				smbd_channel_seq_done(&cs, t[i].csn);
			}
			assert_int_equal(cs.outstanding, 0);
			assert_int_equal(cs.outstanding_pre, 0);
		}
		assert_int_equal(cs.seq, 0x0001);
	}
}

/* Requests in flight when the client moves to a new channel. */
static void test_in_flight(void **state)
{
	struct smbd_channel_seq cs = {.seq = 5};

	(void)state;
	assert_true(smbd_channel_seq_verify(&cs, 5, false));
	assert_true(smbd_channel_seq_verify(&cs, 5, false));
	assert_int_equal(cs.outstanding, 2);
	/* a replay on the next channel while two old ones are out */
	assert_false(smbd_channel_seq_verify(&cs, 6, true));
	assert_int_equal(cs.seq, 6);
	assert_int_equal(cs.outstanding_pre, 2);
	assert_int_equal(cs.outstanding, 0);
	/* ... and again on the same channel: still refused */
	assert_false(smbd_channel_seq_verify(&cs, 6, true));
	/* a plain request on the new channel goes */
	assert_true(smbd_channel_seq_verify(&cs, 6, false));
	assert_int_equal(cs.outstanding, 1);
	/* the old ones complete */
	smbd_channel_seq_done(&cs, 5);
	smbd_channel_seq_done(&cs, 5);
	assert_int_equal(cs.outstanding_pre, 0);
	/* now a replay is fine */
	assert_true(smbd_channel_seq_verify(&cs, 6, true));
	assert_int_equal(cs.outstanding, 2);
	smbd_channel_seq_done(&cs, 6);
	smbd_channel_seq_done(&cs, 6);
	assert_int_equal(cs.outstanding, 0);
	/* a stale request never counts */
	assert_false(smbd_channel_seq_verify(&cs, 5, false));
	assert_int_equal(cs.outstanding, 0);
	/* counts never go below zero on a stray reply */
	smbd_channel_seq_done(&cs, 6);
	smbd_channel_seq_done(&cs, 4);
	assert_int_equal(cs.outstanding, 0);
	assert_int_equal(cs.outstanding_pre, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_table),
		cmocka_unit_test(test_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
