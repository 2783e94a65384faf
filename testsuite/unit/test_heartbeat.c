/*
 * lib/heartbeat.h: slots shared with children forked later, each
 * process stamping its own; heartbeat_poll() beats while it waits and
 * returns as poll(2) does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "lib/heartbeat.h"

static void test_shared_slots(void **state)
{
	struct heartbeat_slot *t = heartbeat_table_new(3);
	uint64_t before = heartbeat_now_ms();
	pid_t child;
	int st = -1;

	(void)state;
	assert_non_null(t);
	assert_int_equal(sizeof(*t), 64);
	assert_int_equal(heartbeat_last(&t[1]), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		heartbeat_attach(&t[1]);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_true(heartbeat_last(&t[1]) >= before);
	assert_int_equal(heartbeat_last(&t[0]), 0);
	assert_int_equal(heartbeat_last(&t[2]), 0);
	heartbeat_set(&t[2], 42);
	assert_int_equal(heartbeat_last(&t[2]), 42);
	/* Without a slot, a beat stamps nothing. */
	heartbeat_attach(NULL);
	heartbeat_beat();
	assert_int_equal(heartbeat_last(&t[0]), 0);
}

static void test_poll_beats(void **state)
{
	struct heartbeat_slot *t = heartbeat_table_new(1);
	struct pollfd pfd;
	uint64_t t0;
	int p[2];
	char c = 'x';

	(void)state;
	assert_non_null(t);
	assert_int_equal(pipe(p), 0);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	heartbeat_attach(t);
	t0 = heartbeat_now_ms();
	/* Nothing to read: a timeout after the whole wait, with beats
	 * all along it (the last one at most a tick before its end). */
	assert_int_equal(heartbeat_poll(&pfd, 1, 3 * HEARTBEAT_TICK_MS / 2 +
						 100), 0);
	assert_true(heartbeat_now_ms() - t0 >= 3 * HEARTBEAT_TICK_MS / 2 + 100);
	assert_true(heartbeat_last(t) >= t0 + HEARTBEAT_TICK_MS);
	/* A readable fd ends the wait at once. */
	assert_int_equal(write(p[1], &c, 1), 1);
	t0 = heartbeat_now_ms();
	assert_int_equal(heartbeat_poll(&pfd, 1, -1), 1);
	assert_true(pfd.revents & POLLIN);
	assert_true(heartbeat_now_ms() - t0 < HEARTBEAT_TICK_MS);
	assert_int_equal(heartbeat_poll(&pfd, 1, 0), 1);
	heartbeat_attach(NULL);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_slots),
		cmocka_unit_test(test_poll_beats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
