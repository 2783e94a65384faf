/* lib/proc.h: the cached pid is this process's, before and after fork;
 * what /proc says of a process: its start time, whether it lives (a
 * zombie does not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc.h"

/* init exists whoever asks: kill() says EPERM to one who may not signal
 * it, and that counts as existing. */
static void test_exists_other_user(void **state)
{
	(void)state;
	assert_true(proc_exists(1));
	assert_true(proc_exists(getpid()));
}

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

/* A child: alive while it runs, stopped too; dead once it exited, as a
 * zombie before it is reaped and after.  Its start time is its own and
 * stays the same while it lives. */
static void test_alive_and_start(void **state)
{
	struct proc_info pi;
	uint64_t mine, its;
	pid_t child;
	int status;

	(void)state;
	assert_true(proc_stat(getpid(), &pi));
	assert_int_equal(pi.state, 'R');
	assert_int_equal(pi.threads, 1);
	mine = pi.start;
	assert_true(mine > 0);
	assert_true(proc_alive(getpid()));
	assert_true(proc_alive(1));
	assert_false(proc_alive(0));
	assert_false(proc_alive(-1));
	/* A few clock ticks (10 ms each) later than us. */
	usleep(50000);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_true(proc_stat(child, &pi));
	its = pi.start;
	assert_true(its > mine);
	assert_true(proc_alive(child));
	assert_int_equal(kill(child, SIGSTOP), 0);
	assert_int_equal(waitpid(child, &status, WUNTRACED), child);
	assert_true(proc_alive(child));
	assert_true(proc_stat(child, &pi));
	assert_int_equal(pi.state, 'T');
	assert_true(pi.start == its);
	assert_int_equal(kill(child, SIGKILL), 0);
	/* A zombie until reaped: kill(pid, 0) succeeds, yet it is dead. */
	assert_int_equal(waitid(P_PID, (id_t)child, NULL, WEXITED | WNOWAIT),
			 0);
	assert_int_equal(kill(child, 0), 0);
	assert_true(proc_exists(child));
	assert_true(proc_stat(child, &pi));
	assert_int_equal(pi.state, 'Z');
	assert_false(proc_alive(child));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_false(proc_exists(child));
	assert_false(proc_alive(child));
	assert_false(proc_stat(child, &pi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_is_getpid),
		cmocka_unit_test(test_pid_after_fork),
		cmocka_unit_test(test_alive_and_start),
		cmocka_unit_test(test_exists_other_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
