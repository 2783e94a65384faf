/*
 * Unit tests for lib/log (the `log level` class parser, class checks,
 * client log files with their bound and rotation) and lib/json (the
 * escaper and the writer the auth_json_audit lines are made with).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/json.h"
#include "lib/log.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

static void test_levels_samba_example(void **state)
{
	int lv[LOG_CLASS__COUNT];
	int i;

	(void)state;
	assert_true(log_parse_levels("1 auth:3 passdb:2", lv, NULL, 0));
	assert_int_equal(lv[LOG_CLASS_ALL], 1);
	assert_int_equal(lv[LOG_CLASS_AUTH], 3);
	assert_int_equal(lv[LOG_CLASS_PASSDB], 2);
	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		if (i != LOG_CLASS_AUTH && i != LOG_CLASS_PASSDB) {
			assert_int_equal(lv[i], 1);
		}
	}
}

static void test_levels_forms(void **state)
{
	int lv[LOG_CLASS__COUNT];

	(void)state;
	/* No leading number: every other class at 0. */
	assert_true(log_parse_levels("auth_json_audit:3", lv, NULL, 0));
	assert_int_equal(lv[LOG_CLASS_ALL], 0);
	assert_int_equal(lv[LOG_CLASS_AUTH_AUDIT_JSON], 3);
	assert_int_equal(lv[LOG_CLASS_VFS], 0);
	/* Commas and tabs separate; names are case-insensitive. */
	assert_true(log_parse_levels("2,SMB2:5\tsmb2_credits:10", lv, NULL,
				     0));
	assert_int_equal(lv[LOG_CLASS_ALL], 2);
	assert_int_equal(lv[LOG_CLASS_SMB2], 5);
	assert_int_equal(lv[LOG_CLASS_SMB2_CREDITS], 10);
	assert_int_equal(lv[LOG_CLASS_LOCKING], 2);
	/* all:N sets the classes not named before it. */
	assert_true(log_parse_levels("auth:7 all:4 vfs:1", lv, NULL, 0));
	assert_int_equal(lv[LOG_CLASS_ALL], 4);
	assert_int_equal(lv[LOG_CLASS_AUTH], 7);
	assert_int_equal(lv[LOG_CLASS_VFS], 1);
	assert_int_equal(lv[LOG_CLASS_TDB], 4);
	assert_true(log_parse_levels("", lv, NULL, 0));
	assert_int_equal(lv[LOG_CLASS_ALL], 0);
	assert_true(log_parse_levels("  10  ", lv, NULL, 0));
	assert_int_equal(lv[LOG_CLASS_DSDB_GROUP_AUDIT_JSON], 10);
}

static void test_levels_errors(void **state)
{
	static const char *const bad[] = {
		"1 nosuchclass:3", "1 auth:", "1 :3", "1 auth:x", "abc",
		"1 2", "auth:3 1", "-1", "1 auth:-3", "1 auth:3:4",
		"1 auth:1001", "99999999999", "1 auth=3",
		"1 a_class_name_that_is_much_too_long_for_any:1",
		"1 auth:3@", "1 all:3@/tmp/x", "1@/tmp/x", "auth:@/tmp/x",
	};
	int lv[LOG_CLASS__COUNT];
	char err[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(log_parse_levels(bad[i], lv, err, sizeof(err)));
		assert_true(err[0] != '\0');
	}
	assert_false(log_parse_levels("1 foo:3 auth:2", lv, err, sizeof(err)));
	assert_string_equal(err, "foo:3");
}

static void test_class_names(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		assert_non_null(log_class_name(i));
		assert_int_equal(log_class_by_name(log_class_name(i)), i);
	}
	assert_int_equal(log_class_by_name("auth_json_audit"),
			 LOG_CLASS_AUTH_AUDIT_JSON);
	assert_int_equal(log_class_by_name("dsdb_group_json_audit"),
			 LOG_CLASS_DSDB_GROUP_AUDIT_JSON);
	assert_int_equal(log_class_by_name("nope"), -1);
	assert_null(log_class_name(LOG_CLASS__COUNT));
}

/* "class:N@FILE" (Samba 4.13+): where the file name is. */
static void test_levels_class_file(void **state)
{
	const char *spec = "1 auth_json_audit:3@/var/log/samba/auth.json,"
			   "passdb:2@p.log auth:4";
	struct log_spec sp;

	(void)state;
	assert_true(log_parse_spec(spec, &sp, NULL, 0));
	assert_int_equal(sp.level[LOG_CLASS_AUTH_AUDIT_JSON], 3);
	assert_int_equal(sp.level[LOG_CLASS_PASSDB], 2);
	assert_int_equal(sp.level[LOG_CLASS_AUTH], 4);
	assert_int_equal(sp.level[LOG_CLASS_VFS], 1);
	assert_int_equal(sp.file_len[LOG_CLASS_AUTH_AUDIT_JSON],
			 strlen("/var/log/samba/auth.json"));
	assert_memory_equal(spec + sp.file_off[LOG_CLASS_AUTH_AUDIT_JSON],
			    "/var/log/samba/auth.json", 24);
	assert_int_equal(sp.file_len[LOG_CLASS_PASSDB], 5);
	assert_memory_equal(spec + sp.file_off[LOG_CLASS_PASSDB], "p.log", 5);
	assert_int_equal(sp.file_len[LOG_CLASS_AUTH], 0);
	/* a later item without @ drops the file */
	assert_true(log_parse_spec("passdb:2@p.log passdb:3", &sp, NULL, 0));
	assert_int_equal(sp.file_len[LOG_CLASS_PASSDB], 0);
}

static char tmpdir[64];

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL) {
		return NULL;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A class's lines follow its own level, not the "all" level. */
static void test_class_filter(void **state)
{
	char path[128];
	char *text;

	(void)state;
	snprintf(path, sizeof(path), "%s/main.log", tmpdir);
	assert_int_equal(log_set_file(path), 0);
	assert_true(log_set_levels("0 auth:3"));
	assert_int_equal(log_level, 0);
	DBG_NOTICE("auth notice\n");                       /* auth 3: in */
	DBG_INFO("auth info\n");                           /* auth 5: out */
	DBGC_NOTICE(LOG_CLASS_VFS, "vfs notice\n");        /* vfs 0: out */
	DBGC_ERR(LOG_CLASS_VFS, "vfs error\n");            /* in */
	assert_false(log_set_levels("0 bogus:3"));
	assert_int_equal(log_class_level[LOG_CLASS_AUTH], 3); /* unchanged */
	log_set_level(1);
	assert_int_equal(log_class_level[LOG_CLASS_AUTH], 1);
	text = slurp(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "auth notice"));
	assert_null(strstr(text, "auth info"));
	assert_null(strstr(text, "vfs notice"));
	assert_non_null(strstr(text, "vfs error"));
	log_set_file(NULL);
}

/* Client files: lines while a handle is current go to its file; the
 * same path shares a handle; no more than LOG_MAX_OPEN_FILES stay open,
 * and an evicted file is reopened (appended to) when needed again. */
static void test_client_files(void **state)
{
	char main_path[128], path[64][128];
	int h[64], i, prev;
	char *text;

	(void)state;
	snprintf(main_path, sizeof(main_path), "%s/log.smbd", tmpdir);
	assert_int_equal(log_set_file(main_path), 0);
	log_set_level(1);
	for (i = 0; i < 40; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/log.client%d", tmpdir,
			 i);
		h[i] = log_client_open(path[i]);
		assert_true(h[i] >= 0);
	}
	assert_int_equal(log_client_open(path[3]), h[3]);
	assert_int_equal(log_client_open(""), -1);
	assert_int_equal(log_client_open(NULL), -1);
	for (i = 0; i < 40; i++) {
		prev = log_set_current(h[i]);
		assert_int_equal(prev, -1);
		DBG_WARNING("first line of client %d\n", i);
		log_set_current(prev);
	}
	DBG_WARNING("a line of the daemon\n");
	/* Only LOG_MAX_OPEN_FILES descriptors beyond the main one. */
	{
		int open_fds = 0, fd;

		for (fd = 0; fd < 1024; fd++) {
			char l[64], t[256];
			ssize_t n;

			snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
			n = readlink(l, t, sizeof(t) - 1);
			if (n > 0) {
				t[n] = '\0';
				open_fds += strstr(t, "log.client") != NULL;
			}
		}
		assert_int_equal(open_fds, LOG_MAX_OPEN_FILES);
	}
	/* Client 0 was evicted: its next line is appended. */
	log_set_current(h[0]);
	DBG_WARNING("second line of client 0\n");
	log_set_current(-1);
	text = slurp(path[0]);
	assert_non_null(strstr(text, "first line of client 0"));
	assert_non_null(strstr(text, "second line of client 0"));
	assert_null(strstr(text, "client 1\n"));
	text = slurp(path[39]);
	assert_non_null(strstr(text, "first line of client 39"));
	text = slurp(main_path);
	assert_non_null(strstr(text, "a line of the daemon"));
	assert_null(strstr(text, "first line of client"));
	/* Closing the current handle falls back to the main file. */
	log_client_close(h[3]);
	log_set_current(h[3]);
	log_client_close(h[3]);
	DBG_WARNING("after close\n");
	text = slurp(main_path);
	assert_non_null(strstr(text, "after close"));
	for (i = 0; i < 40; i++) {
		if (i != 3) {
			log_client_close(h[i]);
		}
	}
	log_set_current(-1);
	log_set_file(NULL);
}

static void *thread_lines(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 600; i++) {
		DBG_WARNING("line %d from a pool thread, long enough\n", i);
	}
	return NULL;
}

/* Only the main thread rotates (and so closes and reopens) a file: a
 * pool thread closing the descriptor the loop writes to could send lines
 * into a reused descriptor.  Its lines still arrive. */
static void test_rotation_main_thread_only(void **state)
{
	char path[128], old[140];
	pthread_t t;

	(void)state;
	snprintf(path, sizeof(path), "%s/main3.log", tmpdir);
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(log_set_file(path), 0);
	log_set_level(1);
	log_set_max_size_kb(1);
	assert_int_equal(pthread_create(&t, NULL, thread_lines, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(file_size(old), -1);
	assert_true(file_size(path) > 600 * 40);
	thread_lines(NULL); /* the main thread rotates */
	log_set_max_size_kb(5000);
	assert_true(file_size(old) > 600 * 40);
	log_set_file(NULL);
}

/* A class with its own file writes only there; the next `log level`
 * without it closes it. */
static void test_class_file(void **state)
{
	char main_path[128], json_path[128], spec[300];
	char *text;

	(void)state;
	snprintf(main_path, sizeof(main_path), "%s/main2.log", tmpdir);
	snprintf(json_path, sizeof(json_path), "%s/auth.json", tmpdir);
	assert_int_equal(log_set_file(main_path), 0);
	snprintf(spec, sizeof(spec), "1 auth_json_audit:3@%s", json_path);
	assert_true(log_set_levels(spec));
	DBGC_NOTICE(LOG_CLASS_AUTH_AUDIT_JSON, "{\"json\": 1}\n");
	DBG_WARNING("an auth warning\n");
	assert_true(log_set_levels("1"));
	DBGC_WARNING(LOG_CLASS_AUTH_AUDIT_JSON, "after\n");
	text = slurp(json_path);
	assert_non_null(text);
	assert_non_null(strstr(text, "{\"json\": 1}"));
	assert_null(strstr(text, "an auth warning"));
	assert_null(strstr(text, "after"));
	text = slurp(main_path);
	assert_null(strstr(text, "json"));
	assert_non_null(strstr(text, "an auth warning"));
	assert_non_null(strstr(text, "after"));
	log_set_file(NULL);
}

/* `max log size` rotates each client file by itself. */
static void test_client_rotation(void **state)
{
	char path[128], old[140];
	int h, i;

	(void)state;
	snprintf(path, sizeof(path), "%s/log.rot", tmpdir);
	snprintf(old, sizeof(old), "%s.old", path);
	log_set_max_size_kb(1);
	h = log_client_open(path);
	assert_true(h >= 0);
	log_set_current(h);
	for (i = 0; i < 600; i++) {
		DBG_WARNING("line %d of a client that logs a lot\n", i);
	}
	log_set_current(-1);
	log_client_close(h);
	log_set_max_size_kb(5000);
	assert_true(file_size(old) >= 1024);
	assert_true(file_size(path) > 0);
	assert_true(file_size(path) < file_size(old) + 256 * 120);
}

static char *esc(const char *in, size_t len)
{
	char *out = NULL;
	size_t n = 0;

	assert_true(json_escape_append(NULL, &out, &n, (const uint8_t *)in,
				       len));
	assert_int_equal(n, strlen(out));
	return out;
}

static void check_esc(const char *in, size_t len, const char *want)
{
	char *out = esc(in, len);

	assert_string_equal(out, want);
	talloc_free(out);
}

static void test_json_escape(void **state)
{
	(void)state;
	check_esc("", 0, "\"\"");
	check_esc("smbdtest", 8, "\"smbdtest\"");
	check_esc("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"");
	check_esc("\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\"");
	check_esc("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	check_esc("a\0b", 3, "\"a\\u0000b\"");
	/* Well-formed UTF-8 passes through. */
	check_esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	check_esc("\xef\xbb\xbf", 3, "\"\xef\xbb\xbf\"");
	check_esc("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"");
	/* Ill-formed: one U+FFFD per byte. */
	check_esc("\xff", 1, "\"\xef\xbf\xbd\"");
	check_esc("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");   /* overlong */
	check_esc("\xe0\x80\xaf", 3,
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");      /* overlong */
	check_esc("\xed\xa0\x80", 3,
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");      /* surrogate */
	check_esc("\xf4\x90\x80\x80", 4,
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); /* >10FFFF */
	check_esc("\xc3", 1, "\"\xef\xbf\xbd\"");                  /* truncated */
	check_esc("\xe2\x82", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	check_esc("\xe2\x82x", 3, "\"\xef\xbf\xbd\xef\xbf\xbdx\"");
	check_esc("\x80", 1, "\"\xef\xbf\xbd\"");
}

static void test_json_writer(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct json_writer w;

	(void)state;
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_add_str(&w, "timestamp", "2026-12-04T02:52:03.349869+0000");
	json_add_str(&w, "type", "Authentication");
	json_open(&w, "Authentication");
	json_open(&w, "version");
	json_add_int(&w, "major", 1);
	json_add_int(&w, "minor", 2);
	json_close(&w);
	json_add_int(&w, "eventId", 4625);
	json_add_str(&w, "authDescription", NULL);
	json_add_str(&w, "clientAccount", "a\"\n");
	json_add_int(&w, "duration", -5);
	json_close(&w);
	json_close(&w);
	assert_string_equal(
		json_finish(&w),
		"{\"timestamp\": \"2026-12-04T02:52:03.349869+0000\", "
		"\"type\": \"Authentication\", \"Authentication\": "
		"{\"version\": {\"major\": 1, \"minor\": 2}, \"eventId\": "
		"4625, \"authDescription\": null, \"clientAccount\": "
		"\"a\\\"\\n\", \"duration\": -5}}");

	/* Arrays and booleans (smbstatus --json's "locks"). */
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_open_array(&w, "locks");
	json_open(&w, NULL);
	json_add_bool(&w, "READ", true);
	json_add_int(&w, "start", 10);
	json_close(&w);
	json_add_bool(&w, NULL, false);
	json_close_array(&w);
	json_open_array(&w, "none");
	json_close_array(&w);
	json_close(&w);
	assert_string_equal(json_finish(&w),
			    "{\"locks\": [{\"READ\": true, \"start\": 10}, "
			    "false], \"none\": []}");
	/* a keyed member inside an array, a mismatched close */
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_open_array(&w, "a");
	json_add_int(&w, "k", 1);
	assert_null(json_finish(&w));
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_open_array(&w, "a");
	json_close(&w);
	assert_null(json_finish(&w));

	/* Misuse sticks as an error. */
	json_init(&w, tmp);
	json_add_str(&w, "k", "v"); /* no object open */
	assert_null(json_finish(&w));
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_add_str(&w, NULL, "v"); /* member without a key */
	json_close(&w);
	assert_null(json_finish(&w));
	json_init(&w, tmp);
	json_open(&w, NULL);
	assert_null(json_finish(&w)); /* not closed */
	json_close(&w);
	json_close(&w); /* one close too many */
	assert_null(json_finish(&w));
	json_init(&w, tmp);
	{
		int i;

		json_open(&w, NULL);
		for (i = 0; i < JSON_MAX_DEPTH + 1; i++) {
			json_open(&w, "d");
		}
	}
	assert_null(json_finish(&w));
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_close(&w);
	json_open(&w, NULL); /* a second top value */
	json_close(&w);
	assert_null(json_finish(&w));
	talloc_free(tmp);
}

static int setup_all(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_log.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int teardown_all(void **state)
{
	char cmd[128];

	(void)state;
	log_set_file(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_samba_example),
		cmocka_unit_test(test_levels_forms),
		cmocka_unit_test(test_levels_errors),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_levels_class_file),
		cmocka_unit_test(test_class_filter),
		cmocka_unit_test(test_client_files),
		cmocka_unit_test(test_client_rotation),
		cmocka_unit_test(test_class_file),
		cmocka_unit_test(test_rotation_main_thread_only),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_json_writer),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
