/*
 * Unit test for lib/bug.h: a BUG_ON whose condition holds logs one line
 * and aborts (so the crash handler and the master take over); one whose
 * condition is false costs nothing and goes on.  Skipped (77) in a build
 * configured with --disable-invariants, where BUG_ON is compiled out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/bug.h"

static void test_false_goes_on(void **state)
{
	int n = 0;

	(void)state;
	BUG_ON(n != 0);
	n++;
	assert_int_equal(n, 1);
}

static void test_true_aborts(void **state)
{
	int status = 0;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int refs = 0;

		/* The default action, so an ASan build (handle_abort=1 in CI)
		 * writes no report of its own for this deliberate abort. */
		signal(SIGABRT, SIG_DFL);
		BUG_ON(refs == 0);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_goes_on),
		cmocka_unit_test(test_true_aborts),
	};

#ifdef SMBD_NO_INVARIANTS
	return 77;
#endif
	return cmocka_run_group_tests(tests, NULL, NULL);
}
