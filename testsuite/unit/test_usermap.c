/*
 * smbd/auth/usermap.c: the username map parser and lookup.  The
 * last-match-wins and '!' rules are what Samba 4.17 was measured to do
 * (testsuite/integration/test_usermap.py runs against both).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "smbd/auth/usermap.h"

static struct usermap *parse(void *ctx, const char *text)
{
	struct usermap *m = usermap_parse(ctx, text, strlen(text), "test.map");

	assert_non_null(m);
	return m;
}

/* "staff" holds alice and bob */
static bool in_group(void *priv, const char *user, const char *group)
{
	(void)priv;
	return strcmp(group, "staff") == 0 &&
	       (strcmp(user, "alice") == 0 || strcmp(user, "bob") == 0);
}

static const char *map(const struct usermap *m, const char *name)
{
	return usermap_map(m, name, in_group, NULL);
}

static void test_parse(void **state)
{
	void *ctx = talloc_new(NULL);
	struct usermap *m = parse(ctx,
		"# comment\n"
		"  ; another\n"
		"\n"
		"root = admin, administrator\n"
		"!jdoe = \"John Doe\" john\r\n"
		"\tsys\t=\t@staff\n"
		"nobody = *");

	(void)state;
	assert_int_equal(m->nrules, 3 + 1);
	assert_int_equal(m->bad_lines, 0);
	assert_string_equal(m->rules[0].unix_name, "root");
	assert_int_equal(m->rules[0].nnames, 2);
	assert_string_equal(m->rules[0].names[0], "admin");
	assert_string_equal(m->rules[0].names[1], "administrator");
	assert_int_equal(m->rules[0].line, 4);
	assert_true(m->rules[1].stop);
	assert_string_equal(m->rules[1].unix_name, "jdoe");
	assert_string_equal(m->rules[1].names[0], "John Doe");
	assert_string_equal(m->rules[1].names[1], "john");
	assert_int_equal(m->rules[1].nnames, 2);
	assert_string_equal(m->rules[2].unix_name, "sys");
	assert_string_equal(m->rules[2].names[0], "@staff");
	assert_string_equal(m->rules[3].names[0], "*");
	assert_false(m->rules[3].stop);
	talloc_free(ctx);
}

static void test_bad_lines(void **state)
{
	void *ctx = talloc_new(NULL);
	struct usermap *m = parse(ctx,
		"no equals sign\n"
		"= nobody\n"
		"two words = x\n"
		"a = \"unterminated\n"
		"b =\n"
		"c = \"\"\n"
		"d = x\"y\n"
		"good = name\n"
		"\"q\" = name\n");

	(void)state;
	/* each bad line is counted (and logged) and the good one kept */
	assert_int_equal(m->bad_lines, 8);
	assert_int_equal(m->nrules, 1);
	assert_string_equal(m->rules[0].unix_name, "good");
	assert_int_equal(m->rules[0].line, 8);
	assert_string_equal(map(m, "NAME"), "good");
	talloc_free(ctx);
}

static void test_map(void **state)
{
	void *ctx = talloc_new(NULL);
	struct usermap *m = parse(ctx,
		"u1 = client1 \"Client Two\"\n"
		"!u2 = client3\n"
		"u1 = client3\n"
		"u3 = @staff\n");

	(void)state;
	assert_string_equal(map(m, "client1"), "u1");
	assert_string_equal(map(m, "CLIENT1"), "u1");
	assert_string_equal(map(m, "client two"), "u1");
	/* a '!' line that matches ends the search */
	assert_string_equal(map(m, "client3"), "u2");
	assert_string_equal(map(m, "alice"), "u3");
	assert_null(map(m, "carol"));
	assert_null(usermap_map(m, "alice", NULL, NULL));
	assert_null(usermap_map(NULL, "alice", NULL, NULL));
	talloc_free(ctx);
}

static void test_last_match_wins(void **state)
{
	void *ctx = talloc_new(NULL);
	struct usermap *m = parse(ctx,
		"u1 = client1\n"
		"!u2 = client3\n"
		"u9 = *\n");

	(void)state;
	/* as in Samba: the final "*" line maps client1 too */
	assert_string_equal(map(m, "client1"), "u9");
	assert_string_equal(map(m, "client3"), "u2");
	assert_string_equal(map(m, "anybody"), "u9");
	talloc_free(ctx);
}

static void test_nul_and_empty(void **state)
{
	void *ctx = talloc_new(NULL);
	static const char text[] = "u1 = a\0junk\nu2 = b\n";
	struct usermap *m = usermap_parse(ctx, text, sizeof(text) - 1, "t");

	(void)state;
	assert_non_null(m);
	assert_int_equal(m->nrules, 2);
	assert_int_equal(m->rules[0].nnames, 1);
	m = usermap_parse(ctx, "", 0, "t");
	assert_non_null(m);
	assert_int_equal(m->nrules, 0);
	assert_null(map(m, "x"));
	talloc_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_last_match_wins),
		cmocka_unit_test(test_nul_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
