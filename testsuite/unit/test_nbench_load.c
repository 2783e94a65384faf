/*
 * Unit tests for the NBENCH load-file parser (testsuite/bench/nbench_load.c):
 * every operation of dbench's client.txt, path conversion and interning,
 * status folding, and the rejections (bad numbers, wrong field counts,
 * unterminated quotes, oversized I/O, NUL bytes, unknown operations) with
 * the line number in the message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "testsuite/bench/nbench_load.h"

static struct nb_load *parse_ok(TALLOC_CTX *ctx, const char *text)
{
	struct nb_load *l = NULL;
	char err[256];

	if (nb_load_parse(ctx, text, strlen(text), &l, err, sizeof(err)) != 0) {
		fail_msg("parse failed: %s", err);
	}
	assert_non_null(l);
	return l;
}

static void parse_bad(const char *text, size_t len, const char *want)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = NULL;
	char err[256];

	assert_int_equal(nb_load_parse(ctx, text, len, &l, err, sizeof(err)),
	                 -1);
	assert_null(l);
	if (strstr(err, want) == NULL) {
		fail_msg("error '%s' lacks '%s'", err, want);
	}
	/* Nothing may be left on the caller's context after a failure. */
	assert_int_equal(talloc_total_blocks(ctx), 1);
	talloc_free(ctx);
}

static void test_all_ops(void **state)
{
	static const char text[] =
	        "Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
	        "Mkdir \"\\clients\" NT_STATUS_OK\n"
	        "NTCreateX \"\\clients\\client1\" 0x1 0x2 16385 NT_STATUS_OK\n"
	        "Close 16385 NT_STATUS_OK\n"
	        "NTCreateX \"\\clients\\client1\\f\" 0x40 0x1 9935 "
	        "NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
	        "QUERY_PATH_INFORMATION \"\\clients\\client1\\f\" 1004 "
	        "NT_STATUS_OBJECT_PATH_NOT_FOUND\n"
	        "FIND_FIRST \"\\clients\\client1\\FILLER.*\" 260 1366 0 "
	        "NT_STATUS_NO_SUCH_FILE\n"
	        "QUERY_FS_INFORMATION 259 NT_STATUS_OK\n"
	        "WriteX 9938 65534 1 1 NT_STATUS_OK\n"
	        "ReadX 10003 0 4096 4096 NT_STATUS_OK\n"
	        "QUERY_FILE_INFORMATION 9938 258 NT_STATUS_OK\n"
	        "SET_FILE_INFORMATION 10005 1004 NT_STATUS_OK\n"
	        "Flush 10012 NT_STATUS_OK\n"
	        "LockX 10430 2147483538 1 NT_STATUS_OK\n"
	        "UnlockX 10430 2147483538 1 NT_STATUS_OK\n"
	        "Unlink \"\\clients\\client1\\f\" 0x6 NT_STATUS_OK\n"
	        "Rename \"\\a\\b\" \"\\a\\c\" NT_STATUS_OBJECT_NAME_COLLISION\n"
	        "Rmdir \"\\a\" NT_STATUS_ACCESS_DENIED\n";
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = parse_ok(ctx, text);
	const struct nb_op *op = l->ops;

	assert_int_equal(l->num_ops, 18);
	assert_int_equal(op[0].type, NB_DELTREE);
	assert_string_equal(op[0].path, "/clients/client1");
	assert_int_equal(op[1].type, NB_MKDIR);
	assert_int_equal(op[2].type, NB_NTCREATEX);
	assert_int_equal(op[2].a, 1);
	assert_int_equal(op[2].b, 2);
	assert_int_equal(op[2].fnum, 16385);
	/* Same path text: one interned copy. */
	assert_ptr_equal(op[0].path, op[2].path);
	assert_int_equal(op[3].type, NB_CLOSE);
	assert_int_equal(op[3].line, 4);
	assert_int_equal(op[4].expect, NB_EXPECT_NOENT);
	assert_int_equal(op[5].type, NB_QPATHINFO);
	assert_int_equal(op[5].a, 1004);
	assert_int_equal(op[5].expect, NB_EXPECT_NOENT);
	assert_int_equal(op[6].type, NB_FINDFIRST);
	assert_int_equal(op[6].a, 260);
	assert_int_equal(op[6].b, 1366);
	assert_int_equal(op[6].c, 0);
	assert_int_equal(op[6].expect, NB_EXPECT_NOENT);
	assert_int_equal(op[7].type, NB_QFSINFO);
	assert_int_equal(op[7].a, 259);
	assert_int_equal(op[8].type, NB_WRITEX);
	assert_int_equal(op[8].offset, 65534);
	assert_int_equal(op[8].size, 1);
	assert_int_equal(op[8].ret, 1);
	assert_int_equal(op[9].type, NB_READX);
	assert_int_equal(op[9].size, 4096);
	assert_int_equal(op[10].type, NB_QFILEINFO);
	assert_int_equal(op[11].type, NB_SETFILEINFO);
	assert_int_equal(op[12].type, NB_FLUSH);
	assert_int_equal(op[13].type, NB_LOCKX);
	assert_int_equal(op[13].offset, 2147483538ull);
	assert_int_equal(op[14].type, NB_UNLOCKX);
	assert_int_equal(op[15].type, NB_UNLINK);
	assert_int_equal(op[15].a, 6);
	assert_int_equal(op[16].type, NB_RENAME);
	assert_string_equal(op[16].path2, "/a/c");
	assert_int_equal(op[16].expect, NB_EXPECT_EXISTS);
	assert_int_equal(op[17].type, NB_RMDIR);
	assert_int_equal(op[17].expect, NB_EXPECT_ERROR);
	assert_string_equal(nb_op_name(NB_QFSINFO), "QUERY_FS_INFORMATION");
	assert_string_equal(nb_op_name(NB_OP_COUNT), "?");
	talloc_free(ctx);
}

static void test_format_variants(void **state)
{
	/* CRLF, comments, blank lines, tabs, timestamps, no final newline. */
	static const char text[] = "# a comment\r\n"
	                           "\r\n"
	                           "   \t\n"
	                           "0.015 Close\t7 NT_STATUS_OK\r\n"
	                           "Close 0xFFFF NT_STATUS_OK";
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = parse_ok(ctx, text);

	assert_int_equal(l->num_ops, 2);
	assert_int_equal(l->ops[0].fnum, 7);
	assert_int_equal(l->ops[0].line, 4);
	assert_int_equal(l->ops[1].fnum, 0xffff);
	talloc_free(ctx);
}

static void test_rejects(void **state)
{
	char big[NB_MAX_LINE + 20];

	parse_bad("", 0, "no operations");
	parse_bad("# only\n\n", 8, "no operations");
	parse_bad("Close 1\n", 8, "line 1: Close takes 1 fields");
	parse_bad(
	        "Close 1 NT_STATUS_OK\nClose 1 2 NT_STATUS_OK\n", 42, "line 2");
	parse_bad("Frobnicate 1 NT_STATUS_OK\n", 26, "unknown operation");
	parse_bad("Close 65536 NT_STATUS_OK\n", 25, "out of range");
	parse_bad("Close 0x NT_STATUS_OK\n", 22, "bad number");
	parse_bad("Close 12a NT_STATUS_OK\n", 23, "bad number");
	parse_bad("Close 99999999999999999999999 NT_STATUS_OK\n",
	          43,
	          "too large");
	parse_bad("Close 1 OK\n", 11, "NT_STATUS_");
	parse_bad("Close \"1\" NT_STATUS_OK\n", 23, "expected a number");
	parse_bad("Unlink \"\\a 0x6 NT_STATUS_OK\n", 27, "unterminated");
	parse_bad("Unlink \\a 0x6 NT_STATUS_OK\n", 26, "double quotes");
	parse_bad("Unlink \"a\" 0x6 NT_STATUS_OK\n", 27, "separator");
	parse_bad("Unlink \"\" 0x6 NT_STATUS_OK\n", 26, "length");
	parse_bad("Unlink \"\\a\tb\" 0x6 NT_STATUS_OK\n", 30, "control");
	parse_bad("Close 1 NT_STATUS_OK x\"y\n", 24, "stray quote");
	parse_bad("ReadX 1 0 16777217 0 NT_STATUS_OK\n", 34, "out of range");
	parse_bad("WriteX 1 0 10 11 NT_STATUS_OK\n", 30, "exceed");
	parse_bad("Close 1\0 NT_STATUS_OK\n", 22, "NUL");
	parse_bad("1.0\n", 4, "no operation");
	parse_bad("Close 1 2 3 4 5 6 7 8 9 10 11 12 13\n", 36, "too many");
	memset(big, 'x', sizeof(big));
	parse_bad(big, sizeof(big), "longer than");
}

static void test_file(void **state)
{
	char path[] = "/tmp/test_nbench_load_XXXXXX";
	static const char text[] = "Close 1 NT_STATUS_OK\n";
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = NULL;
	char err[256];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
	                 (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(nb_load_file(ctx, path, &l, err, sizeof(err)), 0);
	assert_int_equal(l->num_ops, 1);
	unlink(path);
	assert_int_equal(nb_load_file(ctx, path, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_int_equal(nb_load_file(ctx, "/tmp", &l, err, sizeof(err)), -1);
	talloc_free(ctx);
}

/* The real load file, when dbench is installed: every line must parse. */
static void test_dbench_client_txt(void **state)
{
	const char *p = "/usr/share/dbench/client.txt";
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = NULL;
	char err[256];

	if (access(p, R_OK) != 0) {
		skip();
	}
	if (nb_load_file(ctx, p, &l, err, sizeof(err)) != 0) {
		fail_msg("%s", err);
	}
	assert_true(l->num_ops > 400000);
	assert_true(l->num_paths < 5000);
	talloc_free(ctx);
}

static void test_dos_match(void **state)
{
	assert_true(nb_dos_match("*", "anything"));
	assert_true(nb_dos_match("*", ""));
	assert_true(nb_dos_match("FILLER.*", "filler.000"));
	assert_false(nb_dos_match("FILLER.*", "filler"));
	assert_true(nb_dos_match("<.JNK", "x.jnk"));
	assert_false(nb_dos_match("<.JNK", "x.jnq"));
	assert_true(nb_dos_match("a?c", "abc"));
	assert_false(nb_dos_match("a?c", "abbc"));
	assert_true(nb_dos_match("ab>", "ab"));
	assert_true(nb_dos_match("ab\"", "ab"));
	assert_true(nb_dos_match("ab\"c", "ab.c"));
	assert_false(nb_dos_match("ab\"c", "abxc"));
	assert_true(nb_dos_match("*.DOC", "~$FACTS.DOC"));
	assert_false(nb_dos_match("abc", "ab"));
	assert_false(nb_dos_match("", "a"));
	assert_true(nb_dos_match("", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_all_ops),
	        cmocka_unit_test(test_format_variants),
	        cmocka_unit_test(test_rejects),
	        cmocka_unit_test(test_file),
	        cmocka_unit_test(test_dbench_client_txt),
	        cmocka_unit_test(test_dos_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
