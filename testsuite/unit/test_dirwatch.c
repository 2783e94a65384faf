/*
 * Unit tests: which process made a change (smbd/objects/dirwatch.h).  A
 * directory lease is broken for a local change, not for one an smbd
 * process made (that one was broken, or spared, already): the worker
 * itself, the master, or a sibling worker, whose /proc/PID/stat names
 * the master as its parent.  The command name in that file is free text
 * (spaces, parentheses), so the parent is read after the last ')'.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>

#include "smbd/objects/dirwatch.h"

#define SELF 200
#define MASTER 100

static void self_and_master_are_ours(void **state)
{
	(void)state;
	assert_true(smbd_dirwatch_pid_is_smbd(SELF, SELF, MASTER, NULL));
	assert_true(smbd_dirwatch_pid_is_smbd(MASTER, SELF, MASTER, NULL));
}

static void sibling_worker_is_ours(void **state)
{
	(void)state;
	assert_true(smbd_dirwatch_pid_is_smbd(
		201, SELF, MASTER, "201 (smbd) S 100 100 100 0 -1 4194560"));
	/* the last field before the end of the text */
	assert_true(smbd_dirwatch_pid_is_smbd(202, SELF, MASTER,
					      "202 (smbd) S 100"));
}

static void other_processes_are_not(void **state)
{
	(void)state;
	/* gone before we looked: a short-lived local command */
	assert_false(smbd_dirwatch_pid_is_smbd(300, SELF, MASTER, NULL));
	assert_false(smbd_dirwatch_pid_is_smbd(
		301, SELF, MASTER, "301 (bash) S 1 301 301 0 -1 4194560"));
	/* a parent id that only starts with the master's */
	assert_false(smbd_dirwatch_pid_is_smbd(
		302, SELF, MASTER, "302 (cp) R 1000 302 0 0"));
}

static void command_names_cannot_fool_it(void **state)
{
	(void)state;
	/* a name made to look like "smbd) S 100" */
	assert_false(smbd_dirwatch_pid_is_smbd(
		400, SELF, MASTER, "400 (x) S 100 (y) S 7 400 0"));
	assert_true(smbd_dirwatch_pid_is_smbd(
		401, SELF, MASTER, "401 (a) S 1 (b) S 100 401 0"));
}

static void malformed_text_is_not_ours(void **state)
{
	(void)state;
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER, ""));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S x100"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S 100x"));
	assert_false(smbd_dirwatch_pid_is_smbd(
		500, SELF, MASTER, "500 (smbd) S 99999999999999999999999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_and_master_are_ours),
		cmocka_unit_test(sibling_worker_is_ours),
		cmocka_unit_test(other_processes_are_not),
		cmocka_unit_test(command_names_cannot_fool_it),
		cmocka_unit_test(malformed_text_is_not_ours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
