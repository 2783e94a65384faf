/*
 * smbd/auth/auth_pam.c: PAM account and session calls against real PAM
 * stacks of the test's own (pam_start_confdir: a directory instead of
 * /etc/pam.d, so nothing of the system is touched), and the mapping of
 * PAM results to what Samba 4.17 was measured to answer
 * (testsuite/integration/test_pam.py runs against both servers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <security/pam_appl.h>

#include "smbd/auth/auth_pam.h"

static char confdir[] = "/tmp/test_auth_pam.XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", confdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char line[512];

	(void)state;
	if (mkdtemp(confdir) == NULL) {
		return -1;
	}
	write_file("t-permit", "account required pam_permit.so\n"
			       "session required pam_permit.so\n");
	write_file("t-deny", "account required pam_deny.so\n"
			     "session required pam_deny.so\n");
	write_file("t-echo", "account optional pam_echo.so hello %u\n"
			     "account required pam_permit.so\n");
	snprintf(line, sizeof(line),
		 "account required pam_access.so accessfile=%s/access.conf\n"
		 "session required pam_permit.so\n", confdir);
	write_file("t-access", line);
	write_file("access.conf", "-:ALL:10.9.8.7\n-:ALL:badtty\n+:ALL:ALL\n");
	return 0;
}

static int teardown(void **state)
{
	const char *names[] = {"t-permit", "t-deny", "t-echo", "t-access",
			       "access.conf"};
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", confdir, names[i]);
		unlink(path);
	}
	rmdir(confdir);
	return 0;
}

static struct auth_pam_req req(const char *service, const char *rhost,
			       const char *tty)
{
	return (struct auth_pam_req){
		.service = service,
		.confdir = confdir,
		.user = "root",
		.rhost = rhost,
		.tty = tty,
	};
}

static void skip_without_confdir(void)
{
#ifndef HAVE_PAM_START_CONFDIR
	skip();
#endif
}

static void test_permit_and_deny(void **state)
{
	struct auth_pam_req r = req("t-permit", "127.0.0.1", "samba");
	char why[256];

	(void)state;
	skip_without_confdir();
	assert_int_equal(auth_pam_account(&r, why, sizeof(why)),
			 NT_STATUS_OK);
	assert_int_equal(auth_pam_session(&r, true, why, sizeof(why)),
			 NT_STATUS_OK);
	assert_int_equal(auth_pam_session(&r, false, NULL, 0), NT_STATUS_OK);

	/* pam_deny: PAM_AUTH_ERR, which Samba logs as WRONG_PASSWORD and
	 * the client sees as LOGON_FAILURE */
	r = req("t-deny", "127.0.0.1", "samba");
	assert_int_equal(auth_pam_account(&r, why, sizeof(why)),
			 NT_STATUS_WRONG_PASSWORD);
	assert_non_null(strstr(why, "uthentication failure"));
	/* pam_deny's session answer is PAM_SESSION_ERR: the stack failed
	 * (the logon code refuses the logon for any failed open) */
	assert_int_equal(auth_pam_session(&r, true, why, sizeof(why)),
			 NT_STATUS_UNSUCCESSFUL);
}

/* PAM_RHOST and PAM_TTY reach the modules: pam_access matches on them. */
static void test_rhost_and_tty(void **state)
{
	struct auth_pam_req r = req("t-access", "127.0.0.1", "samba");

	(void)state;
	skip_without_confdir();
	assert_int_equal(auth_pam_account(&r, NULL, 0), NT_STATUS_OK);
	r = req("t-access", "10.9.8.7", "samba");
	assert_int_equal(auth_pam_account(&r, NULL, 0),
			 NT_STATUS_ACCESS_DENIED);
	assert_int_equal(auth_pam_client_status(NT_STATUS_ACCESS_DENIED),
			 NT_STATUS_ACCESS_DENIED);
	r = req("t-access", NULL, "badtty");
	assert_int_equal(auth_pam_account(&r, NULL, 0),
			 NT_STATUS_ACCESS_DENIED);
}

/* What a module tells the user lands in the log text, bounded. */
static void test_messages(void **state)
{
	struct auth_pam_req r = req("t-echo", "127.0.0.1", "samba");
	char why[256], tiny[8];

	(void)state;
	skip_without_confdir();
	assert_int_equal(auth_pam_account(&r, why, sizeof(why)),
			 NT_STATUS_OK);
	assert_string_equal(why, "hello root");
	assert_int_equal(auth_pam_account(&r, tiny, sizeof(tiny)),
			 NT_STATUS_OK);
	assert_string_equal(tiny, "hello r");
}

/* A service that does not exist in the directory (and no "other"):
 * the stack cannot run, the logon must not go through. */
static void test_no_service(void **state)
{
	struct auth_pam_req r = req("t-none", "127.0.0.1", "samba");

	(void)state;
	skip_without_confdir();
	assert_false(auth_pam_account(&r, NULL, 0) == NT_STATUS_OK);
}

static void test_status_map(void **state)
{
	(void)state;
	assert_int_equal(auth_pam_status(PAM_SUCCESS), NT_STATUS_OK);
	assert_int_equal(auth_pam_status(PAM_ACCT_EXPIRED),
			 NT_STATUS_ACCOUNT_EXPIRED);
	assert_int_equal(auth_pam_status(PAM_NEW_AUTHTOK_REQD),
			 NT_STATUS_PASSWORD_MUST_CHANGE);
	assert_int_equal(auth_pam_status(PAM_PERM_DENIED),
			 NT_STATUS_ACCESS_DENIED);
	assert_int_equal(auth_pam_status(PAM_AUTH_ERR),
			 NT_STATUS_WRONG_PASSWORD);
	assert_int_equal(auth_pam_status(PAM_USER_UNKNOWN),
			 NT_STATUS_NO_SUCH_USER);
	assert_int_equal(auth_pam_status(PAM_MAXTRIES),
			 NT_STATUS_ACCOUNT_LOCKED_OUT);
	assert_int_equal(auth_pam_status(PAM_SYSTEM_ERR),
			 NT_STATUS_UNSUCCESSFUL);
	assert_int_equal(auth_pam_status(PAM_CONV_ERR),
			 NT_STATUS_UNSUCCESSFUL);
	/* the client is never told whether the account exists */
	assert_int_equal(auth_pam_client_status(NT_STATUS_WRONG_PASSWORD),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(auth_pam_client_status(NT_STATUS_NO_SUCH_USER),
			 NT_STATUS_LOGON_FAILURE);
	assert_int_equal(auth_pam_client_status(NT_STATUS_ACCOUNT_EXPIRED),
			 NT_STATUS_ACCOUNT_EXPIRED);
	assert_int_equal(
		auth_pam_client_status(NT_STATUS_PASSWORD_MUST_CHANGE),
		NT_STATUS_PASSWORD_MUST_CHANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_permit_and_deny),
		cmocka_unit_test(test_rhost_and_tty),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_no_service),
		cmocka_unit_test(test_status_map),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
