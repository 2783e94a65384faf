/*
 * Unit tests: CREATE's walk over the request's create contexts (MS-SMB2
 * 3.3.5.9; smb2_create_ctx_apply.c, smb2_create_durable.c): which
 * context is taken, which is ignored, and which status a bad or
 * conflicting set gets, with the order of the steps that decides it.
 * create_contexts() and create_is_reconnect() run on a socket-less
 * connection (testconn) with a tree that has no VFS modules; and
 * create_reply()'s contexts, their order included (2.2.14.2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <talloc.h>

#include "testsuite/common/smb2_testconn.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/smb2.h"
#include "smbd/objects/oplock.h"
#include "smbd/objects/open.h"
#include "lib/wire.h"

struct walk {
	struct testconn *t;
	struct smbd_tcon tcon;
	struct smb2_request req;
	struct wire_buf b;
	size_t prev;
	struct create_state *st;
};

static struct walk *walk_new(uint16_t dialect, uint8_t oplock_level)
{
	struct walk *w = talloc_zero(NULL, struct walk);

	assert_non_null(w);
	w->t = testconn_new(w, NULL);
	assert_non_null(w->t);
	w->t->conn->dialect = dialect;
	w->tcon.snum = -1;	/* the [global] defaults (durable handles) */
	w->tcon.share.ea_support = true;
	w->req.conn = w->t->conn;
	w->req.tcon = &w->tcon;
	wire_buf_init(&w->b, w, 256);
	w->prev = (size_t)-1;
	w->st = talloc_zero(w, struct create_state);
	assert_non_null(w->st);
	w->st->oplock_level = oplock_level;
	return w;
}

/* One context with dlen bytes of data: byte i is fill + i. */
static void walk_ctx(struct walk *w, const char *tag, size_t dlen,
		     uint8_t fill)
{
	uint8_t d[64];
	size_t i;

	for (i = 0; i < sizeof(d); i++) {
		d[i] = (uint8_t)(fill + i);
	}
	create_ctx_push(&w->b, 0, &w->prev, tag, d, dlen);
}

static NTSTATUS walk_run(struct walk *w)
{
	w->req.in = w->b.data;
	return create_contexts(&w->req, w->st, 0, (uint32_t)w->b.len);
}

static bool walk_reclaim(struct walk *w)
{
	w->req.in = w->b.data;
	return create_is_reconnect(&w->req, 0, (uint32_t)w->b.len);
}

/* DHnC makes DHnQ moot (3.3.5.9.7): the reclaim is taken, whatever
 * DHnQ holds. */
static void test_dhnc_over_dhnq(void **state)
{
	struct walk *w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);

	walk_ctx(w, "DHnQ", 4, 0);	/* short: would be refused alone */
	walk_ctx(w, "DHnC", 16, 0x10);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_true(w->st->reconnect);
	assert_false(w->st->want_durable);
	assert_false(w->st->durable.v2);
	assert_int_equal(w->st->durable.fid_persistent, 0x1716151413121110ULL);
	assert_true(walk_reclaim(w));
	talloc_free(w);
}

/* A v2 context with any other durable one is INVALID_PARAMETER on 3.x
 * (3.3.5.9.10, 3.3.5.9.12); before 3.0 the v2 ones are ignored. */
static void test_durable_v2_conflicts(void **state)
{
	static const char *pairs[][2] = {
		{"DH2Q", "DHnQ"}, {"DH2Q", "DHnC"}, {"DH2C", "DHnQ"},
		{"DH2C", "DHnC"}, {"DH2Q", "DH2C"},
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct walk *w = walk_new(0x0300, SMB2_OPLOCK_LEVEL_NONE);

		walk_ctx(w, pairs[i][0], 32, 0);
		walk_ctx(w, pairs[i][1], 36, 0);
		assert_int_equal(walk_run(w), NT_STATUS_INVALID_PARAMETER);
		talloc_free(w);
	}
	/* 2.1: DH2Q is not looked at, DHnQ is the request */
	{
		struct walk *w = walk_new(0x0210, SMB2_OPLOCK_LEVEL_NONE);

		walk_ctx(w, "DH2Q", 32, 0);
		walk_ctx(w, "DHnQ", 16, 0);
		assert_int_equal(walk_run(w), NT_STATUS_OK);
		assert_true(w->st->want_durable);
		assert_false(w->st->durable.v2);
		talloc_free(w);
	}
	/* 2.1: a DH2C alone reclaims nothing */
	{
		struct walk *w = walk_new(0x0210, SMB2_OPLOCK_LEVEL_NONE);

		walk_ctx(w, "DH2C", 36, 0);
		assert_false(walk_reclaim(w));
		assert_int_equal(walk_run(w), NT_STATUS_OK);
		assert_false(w->st->reconnect);
		talloc_free(w);
	}
}

/* DH2Q alone on 3.x: a v2 request with its CreateGuid; too short is
 * INVALID_PARAMETER. */
static void test_dh2q(void **state)
{
	struct walk *w = walk_new(0x0302, SMB2_OPLOCK_LEVEL_NONE);

	walk_ctx(w, "DH2Q", 32, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_true(w->st->want_durable);
	assert_true(w->st->durable.v2);
	assert_int_equal(w->st->durable.create_guid[0], 16);
	assert_false(walk_reclaim(w));
	talloc_free(w);

	w = walk_new(0x0302, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "DH2Q", 24, 0);
	assert_int_equal(walk_run(w), NT_STATUS_INVALID_PARAMETER);
	talloc_free(w);
}

/* 3.3.5.9.7: a reclaim takes its RqLs whatever OplockLevel says. */
static void test_reclaim_takes_lease(void **state)
{
	struct walk *w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);

	walk_ctx(w, "RqLs", 52, 0x20);
	walk_ctx(w, "DH2C", 36, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_true(w->st->reconnect);
	assert_true(w->st->lease);
	assert_int_equal(w->st->lease_version, 2);
	assert_int_equal(w->st->lease_key[0], 0x20);
	talloc_free(w);

	/* without a reclaim, OplockLevel NONE ignores the RqLs */
	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "RqLs", 52, 0x20);
	walk_ctx(w, "DH2Q", 32, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_false(w->st->lease);
	talloc_free(w);

	/* a reclaim with a short RqLs */
	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "DHnC", 16, 0);
	walk_ctx(w, "RqLs", 24, 0);
	assert_int_equal(walk_run(w), NT_STATUS_INVALID_PARAMETER);
	talloc_free(w);
}

/* OplockLevel LEASE without an RqLs is no lease at all, but only when
 * the CREATE carries contexts: with none, nothing is walked. */
static void test_lease_level_without_rqls(void **state)
{
	struct walk *w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_LEASE);

	walk_ctx(w, "MxAc", 0, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_int_equal(w->st->oplock_level, SMB2_OPLOCK_LEVEL_NONE);
	assert_true(w->st->want_max_access);
	talloc_free(w);

	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_LEASE);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_int_equal(w->st->oplock_level, SMB2_OPLOCK_LEVEL_LEASE);
	talloc_free(w);

	/* 2.0.2 has no leases: LEASE with an RqLs is no lease either */
	w = walk_new(0x0202, SMB2_OPLOCK_LEVEL_LEASE);
	walk_ctx(w, "RqLs", 32, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_false(w->st->lease);
	assert_int_equal(w->st->oplock_level, SMB2_OPLOCK_LEVEL_NONE);
	talloc_free(w);
}

/* The first failing step is the CREATE's status, in the walk's order:
 * AlSi and ExtA before the durable contexts, TWrp last. */
static void test_first_failure_wins(void **state)
{
	struct walk *w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);

	w->tcon.share.ea_support = false;
	walk_ctx(w, "DH2Q", 32, 0);
	walk_ctx(w, "DHnQ", 16, 0);
	walk_ctx(w, "ExtA", 16, 0);
	assert_int_equal(walk_run(w), NT_STATUS_EAS_NOT_SUPPORTED);
	talloc_free(w);

	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "TWrp", 8, 0);
	walk_ctx(w, "AlSi", 4, 0);
	assert_int_equal(walk_run(w), NT_STATUS_INVALID_PARAMETER);
	talloc_free(w);

	/* no snapshots on the tree: no such previous version */
	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "TWrp", 8, 0);
	walk_ctx(w, "AlSi", 8, 1);
	walk_ctx(w, "QFid", 0, 0);
	assert_int_equal(walk_run(w), NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(w->st->alloc_size, 0x0807060504030201ULL);
	assert_true(w->st->want_qfid);
	talloc_free(w);
}

/* Unknown contexts are ignored (3.3.5.9); a name given twice is not. */
static void test_unknown_and_twice(void **state)
{
	struct walk *w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);

	walk_ctx(w, "ZZZZ", 8, 0);
	walk_ctx(w, "SecD", 20, 0);
	walk_ctx(w, "AAPL", 2, 0);	/* no fruit here: not looked at */
	assert_int_equal(walk_run(w), NT_STATUS_OK);
	assert_int_equal(w->st->sd_len, 20);
	assert_false(w->st->want_aapl);
	talloc_free(w);

	w = walk_new(0x0311, SMB2_OPLOCK_LEVEL_NONE);
	walk_ctx(w, "QFid", 0, 0);
	walk_ctx(w, "QFid", 0, 0);
	assert_int_equal(walk_run(w), NT_STATUS_INVALID_PARAMETER);
	talloc_free(w);
}

/* The response contexts come out in one order: MxAc, QFid, RqLs, then
 * DHnQ or DH2Q (AAPL, between QFid and RqLs, needs a fruit share). */
static void reply_tags(uint16_t dialect, bool v2, char tags[4][17],
		       size_t *n)
{
	struct walk *w = walk_new(dialect, SMB2_OPLOCK_LEVEL_NONE);
	struct smbd_open *op = talloc_zero(w, struct smbd_open);
	struct wire_buf out;
	struct create_ctx_list l;
	uint32_t off, len;
	size_t i;

	assert_non_null(op);
	wire_buf_init(&out, w, 512);
	w->req.out = &out;
	w->req.out_hdr = 0;
	w->req.mem_ctx = w;
	wire_push_zero(&out, 64);	/* the header's room */
	/* a CREATE without contexts first, as smb2_create() runs it */
	assert_int_equal(create_contexts(&w->req, w->st, 0, 0), NT_STATUS_OK);
	w->st->want_max_access = true;
	w->st->max_access = 0x1f01ff;
	w->st->want_qfid = true;
	w->st->lease = true;
	w->st->lease_version = 1;
	w->st->durable_granted = true;
	w->st->durable.v2 = v2;
	op->durable_timeout_ms = 60000;
	assert_int_equal(create_reply(&w->req, w->st, op), NT_STATUS_OK);
	off = le32(out.data + 64 + 80);
	len = le32(out.data + 64 + 84);
	assert_true(off + len == out.len);
	assert_int_equal(create_ctx_parse(w, out.data + off, len, &l),
			 NT_STATUS_OK);
	assert_true(l.n <= 4);
	for (i = 0; i < l.n; i++) {
		memcpy(tags[i], l.ctx[i].tag, sizeof(tags[i]));
	}
	*n = l.n;
	talloc_free(w);
}

static void test_reply_order(void **state)
{
	char tags[4][17];
	size_t n;

	reply_tags(0x0311, true, tags, &n);
	assert_int_equal(n, 4);
	assert_string_equal(tags[0], "MxAc");
	assert_string_equal(tags[1], "QFid");
	assert_string_equal(tags[2], "RqLs");
	assert_string_equal(tags[3], "DH2Q");
	reply_tags(0x0210, false, tags, &n);
	assert_int_equal(n, 4);
	assert_string_equal(tags[3], "DHnQ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dhnc_over_dhnq),
		cmocka_unit_test(test_durable_v2_conflicts),
		cmocka_unit_test(test_dh2q),
		cmocka_unit_test(test_reclaim_takes_lease),
		cmocka_unit_test(test_lease_level_without_rqls),
		cmocka_unit_test(test_first_failure_wins),
		cmocka_unit_test(test_unknown_and_twice),
		cmocka_unit_test(test_reply_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
