/* lib/proc.h: the cached pid is this process's, before and after fork. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc.h"

static void test_pid_is_getpid(void **state)
{
	(void)state;
	assert_int_equal(proc_pid(), getpid());
	assert_int_equal(proc_pid(), getpid());
}

/* The child asks after the parent has cached its own pid: it must get
 * its own (exit status 0), not the parent's (1). */
static void test_pid_after_fork(void **state)
{
	pid_t parent = proc_pid(), child;
	int st = -1;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		_exit(proc_pid() == getpid() && proc_pid() != parent ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(proc_pid(), parent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_is_getpid),
		cmocka_unit_test(test_pid_after_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
