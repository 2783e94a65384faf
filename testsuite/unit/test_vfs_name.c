/*
 * Unit tests for vfs/name.c: SMB2 path rules, wildcard matching, case
 * folding, 8.3 names.
 *
 * The expected NTSTATUS of each path case is what Samba 4.17.12 answered
 * to a raw SMB2 CREATE (FILE_OPEN, impacket with the name bytes passed
 * through untouched) on a share holding plain.txt and dir1/, on
 * 2026-12-02; where the name was valid Samba went on to the file system
 * and said OBJECT_NAME_NOT_FOUND / OBJECT_PATH_NOT_FOUND / SUCCESS, which
 * here is NT_STATUS_OK with the path it resolves to.  The deliberate
 * difference ('/' is invalid, Samba splits on it) is marked.
 *
 * The wildcard cases are MS-FSA 2.1.4.4's rules; most were also checked
 * against Samba's QUERY_DIRECTORY, and the few corners where Samba
 * differs are marked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/charset.h"
#include "vfs/name.h"

/* Parse UTF-8 name s as it would arrive in UTF-16LE. */
static NTSTATUS parse(TALLOC_CTX *ctx, const char *s, char **path,
		      char **stream)
{
	uint8_t *u16;
	size_t len;

	assert_int_equal(charset_utf8_to_utf16(ctx, s, &u16, &len), NT_STATUS_OK);
	*path = (char *)"unset";
	*stream = (char *)"unset";
	return vfs_name_from_wire(ctx, u16, len, path, stream);
}

static void expect_ok(const char *in, const char *path, const char *stream)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *p, *s;
	NTSTATUS st = parse(ctx, in, &p, &s);

	if (st != NT_STATUS_OK) {
		fail_msg("'%s': 0x%08x, expected OK", in, st);
	}
	assert_string_equal(p, path);
	if (stream == NULL) {
		assert_null(s);
	} else {
		assert_non_null(s);
		assert_string_equal(s, stream);
	}
	talloc_free(ctx);
}

static void expect_err(const char *in, NTSTATUS want)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *p, *s;
	NTSTATUS st = parse(ctx, in, &p, &s);

	if (st != want) {
		fail_msg("'%s': 0x%08x, expected 0x%08x", in, st, want);
	}
	/* Outputs untouched on error. */
	assert_string_equal(p, "unset");
	assert_string_equal(s, "unset");
	talloc_free(ctx);
}

static NTSTATUS parse_raw(const uint8_t *b, size_t len)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *p, *s;
	NTSTATUS st = vfs_name_from_wire(ctx, b, len, &p, &s);

	talloc_free(ctx);
	return st;
}

static void test_plain_paths(void **state)
{
	(void)state;
	expect_ok("", "", NULL);		/* the share root */
	expect_ok("plain.txt", "plain.txt", NULL);
	expect_ok("dir1\\x", "dir1/x", NULL);
	expect_ok("dir1\\", "dir1", NULL);	/* trailing '\' stripped */
	expect_ok("dir1\\\\", "dir1", NULL);
	expect_ok("dir1\\\\plain", "dir1/plain", NULL);	/* empty comps */
	expect_ok("plain.txt\\", "plain.txt", NULL);
	/* Dots and spaces are ordinary characters in a long name. */
	expect_ok("a..b", "a..b", NULL);
	expect_ok("...", "...", NULL);
	expect_ok(".x", ".x", NULL);
	expect_ok("x.", "x.", NULL);
	expect_ok("x ", "x ", NULL);
	expect_ok(" x", " x", NULL);
	expect_ok(" ", " ", NULL);
	expect_ok("a\x7f" "b", "a\x7f" "b", NULL);	/* DEL is allowed */
	expect_ok("d\\caf\xc3\xa9\\\xe6\x97\xa5\xe6\x9c\xac",
		  "d/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac", NULL);
}

static void test_leading_backslash(void **state)
{
	(void)state;
	/* MS-SMB2 3.3.5.9 */
	expect_err("\\plain.txt", NT_STATUS_INVALID_PARAMETER);
	expect_err("\\", NT_STATUS_INVALID_PARAMETER);
	expect_err("\\\\x", NT_STATUS_INVALID_PARAMETER);
}

static void test_bad_chars(void **state)
{
	static const char bad[] = "\"*<>?|";
	char name[8];
	size_t i;

	(void)state;
	for (i = 0; bad[i] != '\0'; i++) {
		snprintf(name, sizeof(name), "a%cb", bad[i]);
		expect_err(name, NT_STATUS_OBJECT_NAME_INVALID);
		snprintf(name, sizeof(name), "a%c\\b", bad[i]);
		expect_err(name, NT_STATUS_OBJECT_NAME_INVALID);
	}
	for (i = 1; i < 0x20; i++) {
		snprintf(name, sizeof(name), "a%cb", (char)i);
		expect_err(name, NT_STATUS_OBJECT_NAME_INVALID);
	}
	/* MS-FSCC 2.1.5.2 forbids '/', but Samba splits on it and clients
	 * (smbtorture among them) rely on that: a separator here too. */
	expect_ok("a/b", "a/b", NULL);
}

static void test_dots(void **state)
{
	(void)state;
	expect_err("..", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_err("..\\plain.txt", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_err("..\\..\\..", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_err("dir1\\..\\..\\x", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_err("a\\b\\..\\..\\..", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_err(".", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("dir1\\.", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("dir1\\..\\.", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err(".\\plain.txt", NT_STATUS_OBJECT_PATH_NOT_FOUND);
	expect_err("dir1\\.\\x", NT_STATUS_OBJECT_PATH_NOT_FOUND);
	expect_ok("a\\..\\b", "b", NULL);
	expect_ok("dir1\\..\\plain.txt", "plain.txt", NULL);
	expect_ok("dir1\\..", "", NULL);
	expect_ok("dir1\\.\\..", "", NULL);	/* Samba: SUCCESS */
	expect_err(".\\..", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
	expect_ok("nonexist\\..\\plain.txt", "plain.txt", NULL);
	expect_ok("dir1\\x\\..\\..\\plain.txt", "plain.txt", NULL);
	expect_ok("dir1\\...", "dir1/...", NULL);
}

static void test_streams(void **state)
{
	(void)state;
	expect_ok("a:b", "a", "b");
	expect_ok("plain.txt:s", "plain.txt", "s");
	expect_ok("plain.txt:s:$DATA", "plain.txt", "s");
	expect_ok("plain.txt:s:$data", "plain.txt", "s");
	expect_ok("plain.txt::$DATA", "plain.txt", NULL);
	expect_ok("plain.txt:$DATA", "plain.txt", "$DATA");
	expect_ok("plain.txt:s :$DATA", "plain.txt", "s ");
	expect_ok(":s", "", "s");
	expect_ok("dir1\\x:s", "dir1/x", "s");
	/* MS-FSCC 2.1.5.3: anything but \ / : NUL in a stream name. */
	expect_ok("plain.txt:s*", "plain.txt", "s*");
	expect_ok("plain.txt:s?", "plain.txt", "s?");
	expect_ok("plain.txt:s<", "plain.txt", "s<");
	expect_ok("plain.txt:s>", "plain.txt", "s>");
	expect_ok("plain.txt:s\"", "plain.txt", "s\"");
	expect_ok("plain.txt:s|", "plain.txt", "s|");
	expect_ok("plain.txt:s\x01", "plain.txt", "s\x01");
	expect_err("plain.txt:s/x", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt:s\\x", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("dir1:s\\x", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("dir1:s:$DATA\\x", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt:", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt::", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt:s:", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt:s:$DATA:x", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("dir1\\:s", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("plain.txt:s:$FOO", NT_STATUS_INVALID_PARAMETER);
	expect_err("plain.txt:: $DATA", NT_STATUS_INVALID_PARAMETER);
	expect_err("plain.txt::$INDEX_ALLOCATION",
		   NT_STATUS_INVALID_PARAMETER);
	expect_err("dir1:$I30:$INDEX_ALLOCATION", NT_STATUS_INVALID_PARAMETER);
	/* smbtorture smb2.streams.names / names2 (which Samba passes). */
	expect_ok("d\\stream_names.txt:\x05Stream\n One",
		  "d/stream_names.txt", "\x05Stream\n One");
	expect_ok("d\\f:?Stream*:$DATA", "d/f", "?Stream*");
	expect_ok("d\\f:MStream Two:$DaTa", "d/f", "MStream Two");
	expect_ok(":AfterRename:$DATA", "", "AfterRename");
	expect_err("d\\f:\x05Stream\n One:", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("d\\f:s:?D*a", NT_STATUS_INVALID_PARAMETER);
	expect_err("d\\stream*:?Stream*:$DATA",
		   NT_STATUS_OBJECT_NAME_INVALID);
	{
		char name[32];
		int c;

		for (c = 1; c < 0x7f; c++) {
			snprintf(name, sizeof(name), "f:Stream%c0x%02X:$DATA",
				 c, c);
			if (c == '/' || c == ':' || c == '\\') {
				expect_err(name, NT_STATUS_OBJECT_NAME_INVALID);
			} else {
				TALLOC_CTX *ctx = talloc_new(NULL);
				char *p, *st;

				assert_int_equal(parse(ctx, name, &p, &st),
						 NT_STATUS_OK);
				talloc_free(ctx);
			}
		}
	}
	/* The path part keeps its own rules. */
	expect_err("a*b:s", NT_STATUS_OBJECT_NAME_INVALID);
	expect_err("..:s", NT_STATUS_OBJECT_PATH_SYNTAX_BAD);
}

static char *repeat(TALLOC_CTX *ctx, const char *s, size_t n)
{
	char *out = talloc_strdup(ctx, "");
	size_t i;

	for (i = 0; i < n; i++) {
		out = talloc_strdup_append_buffer(out, s);
	}
	assert_non_null(out);
	return out;
}

static void test_lengths(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *a255 = repeat(ctx, "a", 255), *a256 = repeat(ctx, "a", 256);
	/* U+1F600 is a surrogate pair: two units each. */
	char *emoji127 = repeat(ctx, "\xf0\x9f\x98\x80", 127);
	char *emoji128 = repeat(ctx, "\xf0\x9f\x98\x80", 128);
	char *s;

	(void)state;
	expect_ok(a255, a255, NULL);
	expect_err(a256, NT_STATUS_OBJECT_NAME_INVALID);
	expect_ok(talloc_asprintf(ctx, "d\\%s", a255),
		  talloc_asprintf(ctx, "d/%s", a255), NULL);
	expect_err(talloc_asprintf(ctx, "d\\%s\\x", a256),
		   NT_STATUS_OBJECT_NAME_INVALID);
	s = talloc_asprintf(ctx, "%sa", emoji127);	/* 255 units */
	expect_ok(s, s, NULL);
	s = talloc_asprintf(ctx, "%sab", emoji127);	/* 256 units */
	expect_err(s, NT_STATUS_OBJECT_NAME_INVALID);
	expect_err(emoji128, NT_STATUS_OBJECT_NAME_INVALID);
	/* Stream names: 255 units too. */
	expect_ok(talloc_asprintf(ctx, "f:%s", a255), "f", a255);
	expect_err(talloc_asprintf(ctx, "f:%s", a256),
		   NT_STATUS_OBJECT_NAME_INVALID);
	expect_err(talloc_asprintf(ctx, "f:%s:$DATA", a256),
		   NT_STATUS_OBJECT_NAME_INVALID);
	/* The whole path: 32767 units (NameLength is 16 bits anyway). */
	s = repeat(ctx, "abcdefg\\", 4095);	/* 32760 units */
	s = talloc_strdup_append(s, "abcdefg");	/* 32767 */
	{
		char *p, *st;

		assert_int_equal(parse(ctx, s, &p, &st), NT_STATUS_OK);
		assert_int_equal(strlen(p), 32767);
	}
	s = talloc_strdup_append(s, "h");	/* 32768 */
	expect_err(s, NT_STATUS_OBJECT_NAME_INVALID);
	talloc_free(ctx);
}

static void test_raw_utf16(void **state)
{
	static const uint8_t odd[] = {'a', 0, 'b'};
	static const uint8_t lone_hi[] = {0x00, 0xd8, 'a', 0};
	static const uint8_t lone_lo[] = {0x00, 0xdc, 'a', 0};
	static const uint8_t hi_at_end[] = {'a', 0, 0x00, 0xd8};
	static const uint8_t pair[] = {0x3d, 0xd8, 0x00, 0xde};
	static const uint8_t nul_mid[] = {'a', 0, 0, 0, 'b', 0};
	static const uint8_t nul_end[] = {'a', 0, 0, 0};
	static const uint8_t nul_only[] = {0, 0};
	static const uint8_t bs_nul[] = {'\\', 0, 0, 0};
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *p, *s;

	(void)state;
	/* Samba answers ILLEGAL_CHARACTER when conversion fails. */
	assert_int_equal(parse_raw(odd, sizeof(odd)),
			 NT_STATUS_ILLEGAL_CHARACTER);
	assert_int_equal(parse_raw(lone_hi, sizeof(lone_hi)),
			 NT_STATUS_ILLEGAL_CHARACTER);
	assert_int_equal(parse_raw(lone_lo, sizeof(lone_lo)),
			 NT_STATUS_ILLEGAL_CHARACTER);
	assert_int_equal(parse_raw(hi_at_end, sizeof(hi_at_end)),
			 NT_STATUS_ILLEGAL_CHARACTER);
	/* Any NUL, even the terminator some clients count. */
	assert_int_equal(parse_raw(nul_mid, sizeof(nul_mid)),
			 NT_STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse_raw(nul_end, sizeof(nul_end)),
			 NT_STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse_raw(nul_only, sizeof(nul_only)),
			 NT_STATUS_OBJECT_NAME_INVALID);
	assert_int_equal(parse_raw(bs_nul, sizeof(bs_nul)),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(vfs_name_from_wire(ctx, pair, sizeof(pair), &p, &s),
			 NT_STATUS_OK);
	assert_string_equal(p, "\xf0\x9f\x98\x80");
	assert_null(s);
	assert_int_equal(vfs_name_from_wire(ctx, NULL, 0, &p, &s),
			 NT_STATUS_OK);
	assert_string_equal(p, "");
	talloc_free(ctx);
}

/* Several names against one pattern, as a QUERY_DIRECTORY would. */
static void expect_matches(const char *pattern, const char *const *yes,
			   const char *const *no)
{
	for (; yes != NULL && *yes != NULL; yes++) {
		if (!vfs_name_matches(pattern, *yes, false)) {
			fail_msg("'%s' should match '%s'", pattern, *yes);
		}
	}
	for (; no != NULL && *no != NULL; no++) {
		if (vfs_name_matches(pattern, *no, false)) {
			fail_msg("'%s' should not match '%s'", pattern, *no);
		}
	}
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_wildcards(void **state)
{
	(void)state;
	/* MS-FSA 2.1.4.4 part 1: "*" and "*.*" match everything (Samba's
	 * "*.*" skips names without a '.'). */
	expect_matches("*", L("noext", "a.txt", ".hidden", "a b"), NULL);
	expect_matches("*.*", L("noext", "a.txt", ".hidden"), NULL);
	assert_false(vfs_name_matches("*", "", false));
	assert_false(vfs_name_matches("", "a", false));
	assert_true(vfs_name_matches("", "", false));
	expect_matches("*.", L("x.", "a.b."), L("noext", "a.txt"));
	expect_matches("*.txt", L("a.txt", "b.c.txt", "ABC.TXT", ".txt"),
		       L("a.txt.bak", "txt"));
	expect_matches("a*", L("a", "abc", "a.b", "A B"), L("ba"));
	expect_matches("*b", L("ab", "a.b", "b"), L("ba"));
	expect_matches("*\"*", L("noext", "a.b"), NULL);
	/* ? is exactly one character, a '.' included. */
	expect_matches("a?b", L("a b", "a.b", "aXb"), L("ab", "a..b"));
	expect_matches("??", L("ab"), L("a", "abc"));
	expect_matches("???", L("a b", "a.b", "abc"), L("ab", "abcd"));
	/* DOS_STAR '<': anything up to the last '.', which it leaves. */
	expect_matches("<.txt", L("a.txt", "b.c.txt", "tx.txt", "ABC.TXT"),
		       L("x.tx", "noext", "a.txt.x"));
	expect_matches("b<.txt", L("b.c.txt", "b.txt"), L("a.txt"));
	expect_matches("<", L("noext", "ab"), L("a.txt", "b.c"));
	expect_matches("noext<", L("noext"), NULL);
	expect_matches("*.<", L("a.txt", "b.c.txt", "x."), L("noext"));
	expect_matches("a<\"txt", L("ABC.TXT", "a.txt"), L("b.txt"));
	/* Samba also lists ".hidden" for "<": its '<' eats a leading '.'. */
	expect_matches("<", NULL, L(".hidden"));
	/* DOS_QM '>': one character, or nothing at a '.' or the end. */
	expect_matches(">>>", L("a b", "ab", "abc", "a"), L("abcd", "a.b"));
	expect_matches("a>>", L("a b", "ab", "abc", "a"), L("abcd"));
	expect_matches(">.txt", L("a.txt", ".txt"), L("tx.txt"));
	expect_matches(">>.txt", L("a.txt", "tx.txt"), L("abc.txt"));
	expect_matches("x>.tx>", L("x.tx", "xy.txt"), L("x.t"));
	expect_matches("a.>", L("a.b", "a."), L("a.txt"));
	expect_matches("a.>>>>", L("a.b", "a.txt"), L("a.b.c"));
	/* DOS_DOT '"': a '.' or nothing at the end. */
	expect_matches("\"", NULL, L("a", ".x"));
	expect_matches("noext\"", L("noext", "noext."), L("noextx"));
	expect_matches("ab\"", L("ab"), L("abc", "ab.c"));
	expect_matches("abc\"*", L("abc", "ABC.TXT"), L("abd"));
	expect_matches("a\"b", L("a.b"), L("ab", "axb"));
	expect_matches("<\"", L("noext"), L("a.txt"));
	/* Plain names: case-insensitive, Unicode folding. */
	expect_matches("a.b", L("a.b", "A.B"), L("a.bc"));
	expect_matches("a\xc3\xa4\xc3\xb6.txt", L("A\xc3\x84\xc3\x96.TXT"),
		       NULL);
	expect_matches("\xc3\x84\xc3\x96\xc3\x9c*",
		       L("\xc3\xa4\xc3\xb6\xc3\xbc.txt"), NULL);
	assert_false(vfs_name_matches("a.B", "A.b", true));
	assert_true(vfs_name_matches("a.B", "a.B", true));
	assert_false(vfs_name_matches("*.TXT", "a.txt", true));
	assert_true(vfs_name_matches("*.TXT", "a.txt", false));
}

static void test_wildcard_cost(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *pat = repeat(ctx, "*a", 4000);
	char *name = repeat(ctx, "a", 255);

	(void)state;
	/* Backtracking would take forever here. */
	pat = talloc_strdup_append(pat, "b");
	assert_false(vfs_name_matches(pat, name, false));
	pat = repeat(ctx, "<>\"?*", 3000);
	(void)vfs_name_matches(pat, name, false);
	/* Past the on-stack sizes: a 300-byte name, a long pattern. */
	name = repeat(ctx, "\xc3\xa4", 150);
	assert_true(vfs_name_matches("*\xc3\x84", name, false));
	assert_false(vfs_name_matches("*\xc3\x84", name, true));
	assert_true(vfs_name_matches(name, name, true));
	pat = talloc_asprintf(ctx, "%s*", repeat(ctx, "?", 149));
	assert_true(vfs_name_matches(pat, name, false));
	pat = talloc_asprintf(ctx, "%s", repeat(ctx, "?", 151));
	assert_false(vfs_name_matches(pat, name, false));
	talloc_free(ctx);
}

static void test_has_wildcard(void **state)
{
	(void)state;
	assert_true(vfs_name_has_wildcard("*"));
	assert_true(vfs_name_has_wildcard("a?"));
	assert_true(vfs_name_has_wildcard("<.txt"));
	assert_true(vfs_name_has_wildcard("a>"));
	assert_true(vfs_name_has_wildcard("a\""));
	assert_false(vfs_name_has_wildcard("a.txt"));
	assert_false(vfs_name_has_wildcard(""));
}

static void test_strcasecmp(void **state)
{
	(void)state;
	assert_int_equal(vfs_strcasecmp("abc", "ABC"), 0);
	assert_int_equal(vfs_strcasecmp("", ""), 0);
	assert_true(vfs_strcasecmp("a", "b") < 0);
	assert_true(vfs_strcasecmp("B", "a") > 0);
	assert_true(vfs_strcasecmp("ab", "abc") < 0);
	assert_true(vfs_strcasecmp("abc", "ab") > 0);
	/* German */
	assert_int_equal(vfs_strcasecmp("\xc3\x84\xc3\x96\xc3\x9c",
					"\xc3\xa4\xc3\xb6\xc3\xbc"), 0);
	/* Greek: alpha-omega, and both sigmas fold to capital sigma */
	assert_int_equal(vfs_strcasecmp("\xce\xb1\xcf\x89",
					"\xce\x91\xce\xa9"), 0);
	assert_int_equal(vfs_strcasecmp("\xcf\x83", "\xcf\x82"), 0);
	/* Cyrillic: "привет" / "ПРИВЕТ" */
	assert_int_equal(vfs_strcasecmp("\xd0\xbf\xd1\x80\xd0\xb8"
					"\xd0\xb2\xd0\xb5\xd1\x82",
					"\xd0\x9f\xd0\xa0\xd0\x98"
					"\xd0\x92\xd0\x95\xd0\xa2"),
			 0);
	/* y-diaeresis upper-cases to U+0178, a 2-byte -> 2-byte mapping */
	assert_int_equal(vfs_strcasecmp("\xc3\xbf", "\xc5\xb8"), 0);
	/* Different letters stay different. */
	assert_true(vfs_strcasecmp("\xc3\xa4", "a") != 0);
	/* Outside the BMP nothing is folded (NTFS's table is 16-bit):
	 * U+10428 DESERET SMALL LONG I vs U+10400. */
	assert_true(vfs_strcasecmp("\xf0\x90\x90\xa8", "\xf0\x90\x90\x80") !=
		    0);
	/* Invalid UTF-8 sorts after every valid code point, equals itself. */
	assert_int_equal(vfs_strcasecmp("a\xff", "A\xff"), 0);
	assert_true(vfs_strcasecmp("a\xff", "a\xe4\xb8\x80") > 0);
	assert_int_equal(charset_toupper('q'), 'Q');
	assert_int_equal(charset_toupper(0x3c9), 0x3a9);
	assert_int_equal(charset_toupper(0x10428), 0x10428);
}

static void test_is_8_3(void **state)
{
	(void)state;
	assert_true(vfs_name_is_8_3("."));
	assert_true(vfs_name_is_8_3(".."));
	assert_true(vfs_name_is_8_3("PLAIN.TXT"));
	assert_true(vfs_name_is_8_3("plain.txt"));	/* mangle case = no */
	assert_true(vfs_name_is_8_3("A"));
	assert_true(vfs_name_is_8_3("ABCDEFGH.IJK"));
	assert_true(vfs_name_is_8_3("A$%'-_@~.`!("));
	assert_true(vfs_name_is_8_3("){}^#&"));
	assert_true(vfs_name_is_8_3("TZHRWN~N"));
	assert_false(vfs_name_is_8_3(""));
	assert_false(vfs_name_is_8_3("ABCDEFGHI"));
	assert_false(vfs_name_is_8_3("ABCDEFGHI.TXT"));
	assert_false(vfs_name_is_8_3("A.TEXT"));
	assert_false(vfs_name_is_8_3("A.B.C"));
	assert_false(vfs_name_is_8_3(".hidden"));
	assert_false(vfs_name_is_8_3("trail."));
	assert_false(vfs_name_is_8_3("a b"));
	assert_false(vfs_name_is_8_3("a+b"));
	assert_false(vfs_name_is_8_3("a[1]"));
	assert_false(vfs_name_is_8_3("a,b;c=d"));
	assert_false(vfs_name_is_8_3("\xc3\xa4.txt"));
}

static void test_mangle(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	static const char *const names[] = {
		"Long File Name.txt", "trail.", ".hidden", "a b",
		"archive.tar.gz", "\xc3\x84rger.jpeg", "x",
		"Program Files", "a.b.c.d.e", "noext",
	};
	size_t i, j;
	char *m;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		m = vfs_name_mangle(ctx, names[i]);
		assert_non_null(m);
		/* Shape: 8.3, recognised as an alias, stable. */
		if (!vfs_name_is_8_3(m) || !vfs_name_is_mangled(m)) {
			fail_msg("'%s' -> '%s'", names[i], m);
		}
		assert_string_equal(m, vfs_name_mangle(ctx, names[i]));
		assert_int_equal(m[6], '~');
		for (j = 1; j <= 6; j++) {
			char *mp = vfs_name_mangle_prefix(ctx, names[i],
							  (unsigned)j);

			assert_true(vfs_name_is_8_3(mp));
			assert_true(vfs_name_is_mangled(mp));
		}
	}
	/* Fixed values: the alias must not change between releases, or
	 * clients holding a short name lose the file. */
	assert_string_equal(vfs_name_mangle(ctx, "Long File Name.txt"),
			    vfs_name_mangle_prefix(ctx, "Long File Name.txt",
						   1));
	m = vfs_name_mangle(ctx, "Long File Name.txt");
	assert_int_equal(m[0], 'L');
	assert_string_equal(m + 8, ".TXT");
	assert_string_equal(m, "LCZ401~O.TXT");
	assert_string_equal(vfs_name_mangle(ctx, "archive.tar.gz"),
			    "AJ7JNS~U.GZ");
	m = vfs_name_mangle_prefix(ctx, "Program Files", 5);
	assert_memory_equal(m, "PROGR", 5);
	assert_int_equal(strlen(m), 8);
	m = vfs_name_mangle(ctx, "\xc3\x84rger.jpeg");
	assert_int_equal(m[0], '_');
	assert_string_equal(m + 8, ".JPE");
	m = vfs_name_mangle(ctx, ".hidden");
	assert_int_equal(m[0], '_');
	assert_int_equal(strlen(m), 8);	/* leading '.': no extension */
	m = vfs_name_mangle(ctx, "trail.");
	assert_int_equal(strlen(m), 8);
	/* Different names, different aliases (the hash, not the prefix). */
	assert_string_not_equal(vfs_name_mangle(ctx, "Long File Name1.txt"),
				vfs_name_mangle(ctx, "Long File Name2.txt"));
	talloc_free(ctx);
}

static void test_is_mangled(void **state)
{
	(void)state;
	assert_true(vfs_name_is_mangled("TZHRWN~N"));
	assert_true(vfs_name_is_mangled("tzhrwn~n"));
	assert_true(vfs_name_is_mangled("ABCDEF~1.TXT"));
	assert_true(vfs_name_is_mangled("ABCDEF~1.T"));
	assert_false(vfs_name_is_mangled("ABCDEF~1."));
	assert_false(vfs_name_is_mangled("ABCDEF~1.TEXT"));
	assert_false(vfs_name_is_mangled("ABCDE~1"));
	assert_false(vfs_name_is_mangled("ABCDEFG~1"));
	assert_false(vfs_name_is_mangled("ABCDEFG1"));
	assert_false(vfs_name_is_mangled("ABCDEF~_"));
	assert_false(vfs_name_is_mangled("AB DEF~1"));
	assert_false(vfs_name_is_mangled("plain.txt"));
	assert_false(vfs_name_is_mangled(""));
}

static void test_demangle_cache(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	char *alias, *lower, *back;

	(void)state;
	alias = vfs_name_mangle(ctx, "mangle test long name.txt");
	back = vfs_name_demangle_cached(ctx, alias);
	assert_non_null(back);
	assert_string_equal(back, "mangle test long name.txt");
	/* Clients may send the alias in any case. */
	lower = talloc_strdup(ctx, alias);
	for (char *c = lower; *c != '\0'; c++) {
		if (*c >= 'A' && *c <= 'Z') {
			*c = (char)(*c + 32);
		}
	}
	back = vfs_name_demangle_cached(ctx, lower);
	assert_non_null(back);
	assert_string_equal(back, "mangle test long name.txt");
	/* Unknown aliases and non-aliases. */
	assert_null(vfs_name_demangle_cached(ctx, "QQQQQQ~Q.ZZZ"));
	assert_null(vfs_name_demangle_cached(ctx, "plain.txt"));
	alias = vfs_name_mangle_prefix(ctx, "other long name", 6);
	back = vfs_name_demangle_cached(ctx, alias);
	assert_non_null(back);
	assert_string_equal(back, "other long name");
	talloc_free(ctx);
}

static void test_name_in_list(void **state)
{
	(void)state;
	assert_false(vfs_name_in_list(NULL, "a.tmp", false));
	assert_false(vfs_name_in_list("", "a.tmp", false));
	assert_false(vfs_name_in_list("//", "a.tmp", false));
	assert_true(vfs_name_in_list("/*.tmp/secret/", "a.tmp", false));
	assert_true(vfs_name_in_list("/*.tmp/secret/", "A.TMP", false));
	assert_false(vfs_name_in_list("/*.tmp/secret/", "A.TMP", true));
	assert_true(vfs_name_in_list("/*.tmp/secret/", "SECRET", false));
	assert_false(vfs_name_in_list("/*.tmp/secret/", "secrets", false));
	assert_true(vfs_name_in_list("*.tmp", "x.tmp", false));
	assert_true(vfs_name_in_list("/a?c", "abc", false));
	assert_true(vfs_name_in_list("/.DS_Store/", ".DS_Store", true));
	assert_false(vfs_name_in_list("/.DS_Store/", "DS_Store", false));
	assert_true(vfs_name_in_list("/ab c/", "ab c", false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_paths),
		cmocka_unit_test(test_leading_backslash),
		cmocka_unit_test(test_bad_chars),
		cmocka_unit_test(test_dots),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_raw_utf16),
		cmocka_unit_test(test_wildcards),
		cmocka_unit_test(test_wildcard_cost),
		cmocka_unit_test(test_has_wildcard),
		cmocka_unit_test(test_strcasecmp),
		cmocka_unit_test(test_is_8_3),
		cmocka_unit_test(test_mangle),
		cmocka_unit_test(test_is_mangled),
		cmocka_unit_test(test_demangle_cache),
		cmocka_unit_test(test_name_in_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
