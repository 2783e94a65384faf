/*
 * Unit tests for smbcontrol's request parser (smbd/process/control.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "smbd/process/control.h"

static enum smbd_control_op parse(const char *req, char *arg, size_t size)
{
	return smbd_control_parse(req, strlen(req), arg, size);
}

static void test_verbs(void **state)
{
	char arg[64];

	(void)state;
	assert_int_equal(parse("reload-config", arg, sizeof(arg)),
			 SMBD_CONTROL_RELOAD);
	assert_string_equal(arg, "");
	assert_int_equal(parse("shutdown\n", arg, sizeof(arg)),
			 SMBD_CONTROL_SHUTDOWN);
	assert_int_equal(parse("debug 5", arg, sizeof(arg)),
			 SMBD_CONTROL_DEBUG);
	assert_string_equal(arg, "5");
	assert_int_equal(parse("close-share  Projects ", arg, sizeof(arg)),
			 SMBD_CONTROL_CLOSE_SHARE);
	assert_string_equal(arg, "Projects");
	/* a share name may hold spaces */
	assert_int_equal(parse("close-share My Docs", arg, sizeof(arg)),
			 SMBD_CONTROL_CLOSE_SHARE);
	assert_string_equal(arg, "My Docs");
	assert_int_equal(parse("ping", arg, sizeof(arg)), SMBD_CONTROL_NONE);
	assert_string_equal(arg, "pong");
}

static void test_refused(void **state)
{
	char arg[64];
	char big[200];

	(void)state;
	assert_int_equal(parse("", arg, sizeof(arg)), SMBD_CONTROL_NONE);
	assert_non_null(strstr(arg, "unknown message"));
	assert_int_equal(parse("reload", arg, sizeof(arg)), SMBD_CONTROL_NONE);
	assert_non_null(strstr(arg, "unknown message"));
	assert_int_equal(parse("close-share", arg, sizeof(arg)),
			 SMBD_CONTROL_NONE);
	assert_non_null(strstr(arg, "needs one argument"));
	assert_int_equal(parse("shutdown now", arg, sizeof(arg)),
			 SMBD_CONTROL_NONE);
	assert_non_null(strstr(arg, "takes no argument"));
	/* an argument longer than the buffer is refused, not cut */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "debug ", 6);
	assert_int_equal(parse(big, arg, sizeof(arg)), SMBD_CONTROL_NONE);
	/* a NUL inside the datagram is refused */
	assert_int_equal(smbd_control_parse("debug 1\0x", 9, arg, sizeof(arg)),
			 SMBD_CONTROL_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
