/*
 * smbd/auth/access.c: the hosts allow / hosts deny parser and decision, the
 * one used at accept ([global]) and at tree connect (shares).  The
 * decisions for 127.0.0.x follow what Samba 4.17 was measured to do
 * (testsuite/integration/test_hosts.py runs against both).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "smbd/auth/access.h"

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static bool in(const char *const *allow, const char *const *deny,
	       const char *addr)
{
	return smbd_host_allowed(allow, deny, addr);
}

static void test_forms(void **state)
{
	(void)state;
	assert_true(in(L("10.1.2.3"), NULL, "10.1.2.3"));
	assert_false(in(L("10.1.2.3"), NULL, "10.1.2.30"));
	assert_true(in(L("10.1."), NULL, "10.1.200.3"));
	assert_false(in(L("10.1."), NULL, "10.10.2.3"));
	assert_true(in(L("10.0.0.0/8"), NULL, "10.200.0.1"));
	assert_false(in(L("10.0.0.0/8"), NULL, "11.0.0.1"));
	assert_true(in(L("10.0.0.0/255.255.0.0"), NULL, "10.0.9.9"));
	assert_false(in(L("10.0.0.0/255.255.0.0"), NULL, "10.1.9.9"));
	assert_true(in(L("0.0.0.0/0"), NULL, "192.0.2.1"));
	assert_true(in(L("10.?.0.*"), NULL, "10.5.0.77"));
	assert_false(in(L("10.?.0.*"), NULL, "10.55.0.77"));
	assert_true(in(L("ALL"), NULL, "192.0.2.1"));
	assert_true(in(L("all"), NULL, "2001:db8::1"));
	/* IPv6: networks with or without brackets, equal spellings */
	assert_true(in(L("2001:db8::/32"), NULL, "2001:db8:1::5"));
	assert_false(in(L("2001:db8::/32"), NULL, "2001:db9::5"));
	assert_true(in(L("[fe80::]/10"), NULL, "fe80::1"));
	assert_true(in(L("fe80::/10"), NULL, "febf::1"));
	assert_false(in(L("fe80::/10"), NULL, "fec0::1"));
	assert_true(in(L("2001:db8:0:0::7"), NULL, "2001:db8::7"));
	assert_true(in(L("[2001:db8::7]"), NULL, "2001:db8::7"));
	/* an IPv4 peer on a dual-stack socket */
	assert_true(in(L("10.0.0.0/8"), NULL, "::ffff:10.0.0.5"));
	assert_true(in(L("10.0.0.5"), NULL, "::FFFF:10.0.0.5"));
	/* names match client names, and a client's name is its address */
	assert_false(in(L("LOCAL"), NULL, "10.0.0.1"));
	assert_false(in(L("server.example.com"), NULL, "10.0.0.1"));
	assert_true(in(NULL, L("LOCAL", "localhost"), "127.0.0.1"));
	/* malformed entries match nothing (and do not crash) */
	assert_false(in(L("10.0.0.0/33"), NULL, "10.0.0.1"));
	assert_false(in(L("10.0.0.0/"), NULL, "10.0.0.1"));
	assert_false(in(L("10.0.0.0/-1"), NULL, "10.0.0.1"));
	assert_false(in(L("fe80::/129"), NULL, "fe80::1"));
	assert_false(in(L("/8"), NULL, "10.0.0.1"));
	assert_false(in(L("[]/8"), NULL, "10.0.0.1"));
	assert_false(in(L("10.0.0.0/255.0.0"), NULL, "10.0.0.1"));
}

static void test_except(void **state)
{
	(void)state;
	assert_false(in(L("10.0.0.0/8", "EXCEPT", "10.0.0.5"), NULL,
			"10.0.0.5"));
	assert_true(in(L("10.0.0.0/8", "EXCEPT", "10.0.0.5"), NULL,
		       "10.0.0.6"));
	/* what follows EXCEPT is a list with its own EXCEPT */
	assert_true(in(L("10.", "EXCEPT", "10.1.", "EXCEPT", "10.1.1.1"),
		       NULL, "10.1.1.1"));
	assert_false(in(L("10.", "EXCEPT", "10.1.", "EXCEPT", "10.1.1.1"),
			NULL, "10.1.1.2"));
	/* EXCEPT first: nothing before it matched */
	assert_false(in(L("EXCEPT", "10.0.0.1"), NULL, "10.0.0.2"));
	/* EXCEPT last: nothing is excluded */
	assert_true(in(L("10.0.0.2", "EXCEPT"), NULL, "10.0.0.2"));
}

static void test_decision(void **state)
{
	struct smbd_host_verdict v;

	(void)state;
	/* no lists */
	assert_true(in(NULL, NULL, "10.0.0.1"));
	assert_true(in(L(NULL), L(NULL), "10.0.0.1"));
	/* only deny */
	assert_false(in(NULL, L("10.0.0.1"), "10.0.0.1"));
	assert_true(in(NULL, L("10.0.0.1"), "10.0.0.2"));
	/* only allow; the loopback address itself stays in */
	assert_false(in(L("10.0.0.1"), NULL, "10.0.0.2"));
	assert_true(in(L("10.0.0.1"), NULL, "127.0.0.1"));
	assert_true(in(L("10.0.0.1"), NULL, "::1"));
	assert_false(in(L("10.0.0.1"), NULL, "127.0.0.2"));
	/* both: allow wins, then deny, and a host in neither gets in */
	assert_true(in(L("10.0.0.0/8"), L("10.0.0.1"), "10.0.0.1"));
	assert_false(in(L("10.0.0.2"), L("10.0.0.1"), "10.0.0.1"));
	assert_true(in(L("10.0.0.2"), L("10.0.0.1"), "10.0.0.3"));
	assert_false(in(L("10.0.0.2"), L("ALL"), "10.0.0.3"));
	assert_false(in(L("10.0.0.2"), L("ALL"), "127.0.0.1"));
	/* the verdict names what decided */
	assert_false(smbd_host_check(L("10.0.0.2"), L("10.0.0.0/8"),
				     "10.0.0.1", &v));
	assert_string_equal(v.list, "hosts deny");
	assert_string_equal(v.entry, "10.0.0.0/8");
	assert_false(smbd_host_check(L("10.0.0.2"), NULL, "10.0.0.1", &v));
	assert_string_equal(v.list, "hosts allow");
	assert_null(v.entry);
	assert_true(smbd_host_check(L("10.0.0.2"), NULL, "10.0.0.2", &v));
	assert_string_equal(v.entry, "10.0.0.2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_except),
		cmocka_unit_test(test_decision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
