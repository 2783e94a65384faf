/*
 * The bounds on decompressed bytes that waiting requests keep
 * (smbd_conn_decomp_admit, conn_limits.h, issue 34): per connection the
 * connection that would pass its bound goes; at the worker's bound the
 * one holding the most goes, after the next poll when it is another;
 * either bound counts as at least one message.  The dispatcher's side
 * (what a waiting request keeps) is test_compress_pending.py's.
 */
#include "testsuite/common/smb2_testconn.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/conn_limits.h"
#include "lib/log.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <talloc.h>

#define MIB (1024 * 1024)
/* One message's most (MaxWrite + 272 bytes, 8 MiB by default). */
#define MSG (8 * MIB + 272)

static const char *const bounds[] = {
	"smbd max decompressed per connection", "16",
	"smbd max decompressed per worker", "24",
	NULL,
};

/* Pretend conn's waiting requests keep n bytes. */
static void hold(struct testconn *t, size_t n)
{
	t->conn->decomp_held += n;
	t->w->decomp_held += n;
}

static void release(struct testconn *t)
{
	if (t->conn != NULL) {
		t->w->decomp_held -= t->conn->decomp_held;
		t->conn->decomp_held = 0;
	}
}

static void test_connection_bound(void **state)
{
	struct testsrv *ts = testsrv_new(NULL, bounds);
	struct testconn *a;

	(void)state;
	assert_non_null(ts);
	a = testconn_new_on(ts, ts);
	assert_true(smbd_conn_decomp_admit(a->conn, 16 * MIB, MSG));
	hold(a, 12 * MIB);
	assert_true(smbd_conn_decomp_admit(a->conn, 4 * MIB, MSG));
	assert_false(smbd_conn_decomp_admit(a->conn, 4 * MIB + 1, MSG));
	assert_false(a->conn->decomp_doomed);
	release(a);
	talloc_free(ts);
}

static void test_worker_bound_drops_the_biggest(void **state)
{
	struct testsrv *ts = testsrv_new(NULL, bounds);
	struct testconn *a, *b, *c;

	(void)state;
	assert_non_null(ts);
	a = testconn_new_on(ts, ts);
	b = testconn_new_on(ts, ts);
	c = testconn_new_on(ts, ts);
	hold(a, 14 * MIB);
	hold(b, 6 * MIB);
	/* c's 6 MiB would make 26: a, holding the most, goes; c may */
	assert_true(smbd_conn_decomp_admit(c->conn, 6 * MIB, MSG));
	assert_true(a->conn->decomp_doomed);
	assert_false(b->conn->decomp_doomed);
	assert_false(testconn_dropped(a));
	/* a doomed connection's bytes count as gone: c's next fits */
	hold(c, 6 * MIB);
	assert_true(smbd_conn_decomp_admit(c->conn, 2 * MIB, MSG));
	/* after the next poll a is dropped, and with it its count */
	release(a);
	testsrv_run(ts);
	assert_true(testconn_dropped(a));
	assert_false(testconn_dropped(b));
	assert_false(testconn_dropped(c));
	release(b);
	release(c);
	talloc_free(ts);
}

static void test_worker_bound_drops_itself(void **state)
{
	struct testsrv *ts = testsrv_new(NULL, bounds);
	struct testconn *a, *b;

	(void)state;
	assert_non_null(ts);
	a = testconn_new_on(ts, ts);
	b = testconn_new_on(ts, ts);
	hold(a, 10 * MIB);
	hold(b, 10 * MIB);
	/* b would hold 15 of 25: the most, so b is refused, a stays */
	assert_false(smbd_conn_decomp_admit(b->conn, 5 * MIB, MSG));
	assert_false(a->conn->decomp_doomed);
	assert_false(b->conn->decomp_doomed);
	release(a);
	release(b);
	talloc_free(ts);
}

/* Bounds below one message count as one: a legitimate compressed WRITE
 * of MaxWrite bytes always fits an otherwise idle connection. */
static void test_at_least_one_message(void **state)
{
	static const char *const tiny[] = {
		"smbd max decompressed per connection", "1",
		"smbd max decompressed per worker", "0",
		NULL,
	};
	struct testsrv *ts = testsrv_new(NULL, tiny);
	struct testconn *a;

	(void)state;
	assert_non_null(ts);
	a = testconn_new_on(ts, ts);
	assert_true(smbd_conn_decomp_admit(a->conn, MSG, MSG));
	assert_false(smbd_conn_decomp_admit(a->conn, MSG + 1, MSG));
	hold(a, 1);
	assert_false(smbd_conn_decomp_admit(a->conn, MSG, MSG));
	release(a);
	talloc_free(ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connection_bound),
		cmocka_unit_test(test_worker_bound_drops_the_biggest),
		cmocka_unit_test(test_worker_bound_drops_itself),
		cmocka_unit_test(test_at_least_one_message),
	};

	log_set_level(-1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
