/*
 * smbd/conn/auth_limit.c: the per-address arithmetic of the
 * authentication rate limiter, on a clock of the test's own (the
 * requests' side, timers and the per-connection delay, is
 * testsuite/integration/test_auth_limit.py's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "smbd/conn/auth_limit.h"

#define DELAY 2000
#define BUDGET 3

/* Below the budget nobody waits; the failures pour in. */
static void test_within_budget(void **state)
{
	struct auth_limit_cell c = {0};
	uint64_t now = 1000000;
	int i;

	(void)state;
	for (i = 0; i < BUDGET; i++) {
		assert_int_equal(auth_limit_cell_admit(&c, now, DELAY, BUDGET),
				 0);
		auth_limit_cell_fail(&c, now, DELAY, BUDGET);
	}
	/* exactly the budget: still free */
	assert_int_equal(auth_limit_cell_admit(&c, now, DELAY, BUDGET), 0);
	assert_int_equal(c.next_slot, 0);
}

/* Over it: one slot per delay, whoever asks, the first one at once. */
static void test_over_budget_takes_turns(void **state)
{
	struct auth_limit_cell c = {0};
	uint64_t now = 1000000;
	int i;

	(void)state;
	for (i = 0; i <= BUDGET; i++) {
		auth_limit_cell_fail(&c, now, DELAY, BUDGET);
	}
	assert_int_equal(auth_limit_cell_admit(&c, now, DELAY, BUDGET), 0);
	assert_int_equal(auth_limit_cell_admit(&c, now, DELAY, BUDGET), DELAY);
	assert_int_equal(auth_limit_cell_admit(&c, now, DELAY, BUDGET),
			 2 * DELAY);
	/* later askers queue behind, the time passed counted */
	assert_int_equal(auth_limit_cell_admit(&c, now + 500, DELAY, BUDGET),
			 3 * DELAY - 500);
	/* once the queue is past, a slot is free at once again */
	assert_int_equal(auth_limit_cell_admit(&c, now + 4 * DELAY, DELAY,
					       BUDGET),
			 0);
}

/* The bucket drains in real time: the address is free again after its
 * failures age past the budget. */
static void test_drains(void **state)
{
	struct auth_limit_cell c = {0};
	uint64_t now = 1000000;
	int i;

	(void)state;
	for (i = 0; i < BUDGET + 2; i++) {
		auth_limit_cell_fail(&c, now, DELAY, BUDGET);
	}
	assert_int_equal(c.empty_at, now + (BUDGET + 2) * DELAY);
	/* 2 delays later it holds exactly the budget: free */
	assert_int_equal(auth_limit_cell_admit(&c, now + 2 * DELAY, DELAY,
					       BUDGET),
			 0);
	assert_int_equal(c.next_slot, 0);
}

/* However many failures, the bucket holds at most twice the budget, so
 * an address is queued for at most budget x delay after an attack. */
static void test_capped(void **state)
{
	struct auth_limit_cell c = {0};
	uint64_t now = 1000000;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		auth_limit_cell_fail(&c, now, DELAY, BUDGET);
	}
	assert_int_equal(c.empty_at, now + 2 * BUDGET * DELAY);
	/* just before budget x delay: still queued (its first slot free) */
	assert_int_equal(auth_limit_cell_admit(&c, now + BUDGET * DELAY - 1,
					       DELAY, BUDGET),
			 0);
	assert_int_equal(c.next_slot, now + BUDGET * DELAY - 1 + DELAY);
	/* just after: out of the queue */
	c.next_slot = 0;
	assert_int_equal(auth_limit_cell_admit(&c, now + BUDGET * DELAY + 1,
					       DELAY, BUDGET),
			 0);
	assert_int_equal(c.next_slot, 0);
}

/* Budget 0 or delay 0: the per-address part is off. */
static void test_off(void **state)
{
	struct auth_limit_cell c = {0};
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		auth_limit_cell_fail(&c, 5000, DELAY, 0);
	}
	assert_int_equal(auth_limit_cell_admit(&c, 5000, DELAY, 0), 0);
	assert_int_equal(auth_limit_cell_admit(&c, 5000, 0, BUDGET), 0);
}

/* IPv4 whole, IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
static void test_cells(void **state)
{
	(void)state;
	assert_true(auth_limit_cell_of("192.0.2.1") <
		    SMBD_AUTH_LIMIT_CELLS);
	assert_int_equal(auth_limit_cell_of("2001:db8:1:2::1"),
			 auth_limit_cell_of("2001:db8:1:2:ffff:1:2:3"));
	assert_int_equal(auth_limit_cell_of("::ffff:192.0.2.7"),
			 auth_limit_cell_of("192.0.2.7"));
	/* neighbours are (almost always) apart: these are */
	assert_int_not_equal(auth_limit_cell_of("192.0.2.1"),
			     auth_limit_cell_of("192.0.2.2"));
	assert_int_not_equal(auth_limit_cell_of("2001:db8:1:2::1"),
			     auth_limit_cell_of("2001:db8:1:3::1"));
	/* not an address: still a cell */
	assert_true(auth_limit_cell_of("testconn") < SMBD_AUTH_LIMIT_CELLS);
	assert_true(auth_limit_cell_of("") < SMBD_AUTH_LIMIT_CELLS);
}

static void test_counts(void **state)
{
	(void)state;
	assert_true(smbd_auth_limit_counts(NT_STATUS_LOGON_FAILURE));
	assert_true(smbd_auth_limit_counts(NT_STATUS_WRONG_PASSWORD));
	assert_true(smbd_auth_limit_counts(NT_STATUS_NO_SUCH_USER));
	assert_false(smbd_auth_limit_counts(NT_STATUS_OK));
	assert_false(smbd_auth_limit_counts(NT_STATUS_INVALID_PARAMETER));
	assert_false(smbd_auth_limit_counts(NT_STATUS_PASSWORD_MUST_CHANGE));
	assert_false(smbd_auth_limit_counts(NT_STATUS_ACCESS_DENIED));
	assert_false(smbd_auth_limit_counts(STATUS_PENDING));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within_budget),
		cmocka_unit_test(test_over_budget_takes_turns),
		cmocka_unit_test(test_drains),
		cmocka_unit_test(test_capped),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
