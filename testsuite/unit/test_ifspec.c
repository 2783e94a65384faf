/*
 * lib/ifspec.c: smb.conf `interfaces` entries with Samba's multichannel
 * options (smb.conf(5) "interfaces"), and which local addresses an entry
 * names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "lib/ifspec.h"

static void test_plain(void **state)
{
	struct ifspec s;
	char err[160];

	(void)state;
	assert_true(ifspec_parse("eth0", &s, err, sizeof(err)));
	assert_string_equal(s.what, "eth0");
	assert_int_equal(s.speed, 0);
	assert_false(s.caps_given);
	assert_int_equal(s.if_index, 0);
	assert_true(ifspec_parse("192.168.2.10/24;", &s, err, sizeof(err)));
	assert_string_equal(s.what, "192.168.2.10/24");
}

/* smb.conf(5)'s examples, in any order, keys in any case. */
static void test_options(void **state)
{
	struct ifspec s;
	char err[160];

	(void)state;
	assert_true(ifspec_parse("eth0;if_index=65,speed=1000000000,"
				 "capability=RSS", &s, err, sizeof(err)));
	assert_string_equal(s.what, "eth0");
	assert_int_equal(s.if_index, 65);
	assert_int_equal(s.speed, 1000000000ULL);
	assert_true(s.caps_given);
	assert_int_equal(s.caps, IFSPEC_CAP_RSS);
	assert_true(ifspec_parse("rdma2;capability=RSS,CAPABILITY=rdma", &s,
				 err, sizeof(err)));
	assert_int_equal(s.caps, IFSPEC_CAP_RSS | IFSPEC_CAP_RDMA);
	assert_true(ifspec_parse("10.0.0.1;speed=100000000000", &s, err,
				 sizeof(err)));
	assert_int_equal(s.speed, 100000000000ULL);
	assert_false(s.caps_given);
}

/* A bad option: false, a reason, the name kept and no option taken. */
static void test_bad(void **state)
{
	static const char *const bad[] = {
		"eth0;speed=abc",	"eth0;speed=0",
		"eth0;speed=-5",	"eth0;speed= 5",
		"eth0;speed=",		"eth0;speed=99999999999999999999999",
		"eth0;capability=FAST", "eth0;if_index=0",
		"eth0;if_index=4294967296", "eth0;colour=blue",
		"eth0;speed",		"eth0;capability=RSS,,speed=x",
	};
	struct ifspec s;
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(ifspec_parse(bad[i], &s, err, sizeof(err)));
		assert_true(err[0] != '\0');
		assert_string_equal(s.what, "eth0");
		assert_int_equal(s.speed, 0);
		assert_false(s.caps_given);
		assert_int_equal(s.if_index, 0);
	}
	assert_false(ifspec_parse("", &s, err, sizeof(err)));
	assert_string_equal(s.what, "");
	assert_false(ifspec_parse(";speed=1", &s, err, sizeof(err)));
	{
		char lng[300];

		memset(lng, 'e', sizeof(lng) - 1);
		lng[sizeof(lng) - 1] = '\0';
		assert_false(ifspec_parse(lng, &s, err, sizeof(err)));
		assert_string_equal(s.what, "");
	}
}

static struct sockaddr *v4(struct sockaddr_in *sin, const char *a)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, &sin->sin_addr), 1);
	return (struct sockaddr *)(void *)sin;
}

static struct sockaddr *v6(struct sockaddr_in6 *sin6, const char *a)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, a, &sin6->sin6_addr), 1);
	return (struct sockaddr *)(void *)sin6;
}

static bool match(const char *entry, const char *ifname,
		  const struct sockaddr *sa)
{
	struct ifspec s;
	char err[160];

	(void)ifspec_parse(entry, &s, err, sizeof(err));
	return ifspec_match(&s, ifname, sa);
}

static void test_match(void **state)
{
	struct sockaddr_in a;
	struct sockaddr_in6 b;

	(void)state;
	assert_true(match("eth0", "eth0", v4(&a, "10.1.2.3")));
	assert_true(match("ETH0;capability=RSS", "eth0", v4(&a, "10.1.2.3")));
	assert_true(match("eth*", "eth1", v4(&a, "10.1.2.3")));
	assert_false(match("eth0", "eth1", v4(&a, "10.1.2.3")));
	assert_true(match("10.1.2.3", "eth0", v4(&a, "10.1.2.3")));
	assert_false(match("10.1.2.3", "eth0", v4(&a, "10.1.2.4")));
	assert_true(match("10.1.2.0/24", "x", v4(&a, "10.1.2.200")));
	assert_true(match("10.1.2.0/255.255.255.0;speed=1", "x",
			  v4(&a, "10.1.2.200")));
	assert_false(match("10.1.2.0/24", "x", v4(&a, "10.1.3.1")));
	assert_true(match("127.0.0.1/8", "lo", v4(&a, "127.0.0.1")));
	assert_false(match("10.1.2.0/255.0.255.0", "x", v4(&a, "10.1.2.1")));
	assert_false(match("10.1.2.0/33", "x", v4(&a, "10.1.2.1")));
	assert_true(match("fd00::1", "eth0", v6(&b, "fd00::1")));
	assert_true(match("fd00::/16", "eth0", v6(&b, "fd00:1::5")));
	assert_false(match("fd00::/16", "eth0", v6(&b, "fd01::5")));
	assert_false(match("10.1.2.3", "eth0", v6(&b, "::ffff:10.1.2.3")));
	assert_false(match("eth0", "eth0", NULL));
}

static void test_address(void **state)
{
	struct ifspec s;
	uint8_t addr[16];
	char err[160];
	int bits;

	(void)state;
	assert_true(ifspec_parse("eth0", &s, err, sizeof(err)));
	assert_int_equal(ifspec_address(&s, addr, &bits), 0);
	assert_true(ifspec_parse("10.0.0.1", &s, err, sizeof(err)));
	assert_int_equal(ifspec_address(&s, addr, &bits), AF_INET);
	assert_int_equal(bits, -1);
	assert_true(ifspec_parse("10.0.0.0/255.255.0.0", &s, err,
				 sizeof(err)));
	assert_int_equal(ifspec_address(&s, addr, &bits), AF_INET);
	assert_int_equal(bits, 16);
	assert_true(ifspec_parse("10.0.0.0/nonsense", &s, err, sizeof(err)));
	assert_int_equal(ifspec_address(&s, addr, &bits), -1);
	assert_true(ifspec_parse("::1/129", &s, err, sizeof(err)));
	assert_int_equal(ifspec_address(&s, addr, &bits), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),   cmocka_unit_test(test_options),
		cmocka_unit_test(test_bad),     cmocka_unit_test(test_match),
		cmocka_unit_test(test_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
