/* lib/file.h and lib/tdbfile.h: whole files and small calls that return
 * why they failed (the errno value the callers above lib/ decide on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/tdbfile.h"

static char dir[] = "/tmp/test_lib_file.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	static const char *const names[] = {"a", "big", "l1", "l2",
					     "none.tdb"};
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		(void)unlink(path);
	}
	snprintf(path, sizeof(path), "%s/sub", dir);
	(void)rmdir(path);
	return rmdir(dir);
}

static void put(const char *name, const char *text, char *path, size_t sz)
{
	FILE *f;

	snprintf(path, sz, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_read_all(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char path[256];
	size_t len = 0;
	int err = 0;
	char *t;

	(void)state;
	put("a", "hello\n", path, sizeof(path));
	t = file_read_all(mem, path, 1024, &len, &err);
	assert_non_null(t);
	assert_int_equal(len, 6);
	assert_string_equal(t, "hello\n");
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_null(file_read_all(mem, path, 1024, &len, &err));
	assert_int_equal(err, ENOENT);
	assert_null(file_read_all(mem, dir, 1024, &len, &err));
	assert_int_equal(err, EISDIR);
	assert_null(file_read_all(mem, "/dev/null", 1024, &len, &err));
	assert_int_equal(err, EINVAL);
	talloc_free(mem);
}

/* The buffer doubles from 8 KiB; past max the read stops with EFBIG. */
static void test_read_too_big(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	char *big = malloc(40000), path[256];
	size_t len = 0;
	int err = 0;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', 39999);
	big[39999] = '\0';
	put("big", big, path, sizeof(path));
	assert_null(file_read_all(mem, path, 16384, &len, &err));
	assert_int_equal(err, EFBIG);
	assert_non_null(file_read_all(mem, path, 65536, &len, &err));
	assert_int_equal(len, 39999);
	free(big);
	talloc_free(mem);
}

static void test_mkdir_link(void **state)
{
	char sub[256], a[256], b[256];

	(void)state;
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(file_mkdir(sub, 0755), 0);
	assert_int_equal(file_mkdir(sub, 0755), -EEXIST);
	put("l1", "x", a, sizeof(a));
	snprintf(b, sizeof(b), "%s/l2", dir);
	assert_int_equal(file_link(a, b), 0);
	assert_int_equal(file_link(a, b), -EEXIST);
	snprintf(a, sizeof(a), "%s/none", dir);
	snprintf(b, sizeof(b), "%s/l3", dir);
	assert_int_equal(file_link(a, b), -ENOENT);
}

static void test_tdbfile(void **state)
{
	struct tdb_context *tdb;
	char path[256];
	int err = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/none.tdb", dir);
	assert_null(tdbfile_open(path, 0, TDB_DEFAULT, O_RDWR, 0600, &err));
	assert_int_equal(err, ENOENT);
	err = 0;
	tdb = tdbfile_open(path, 0, TDB_DEFAULT, O_RDWR | O_CREAT, 0600,
			   &err);
	assert_non_null(tdb);
	assert_int_equal(err, 0);
	tdb_close(tdb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_all),
		cmocka_unit_test(test_read_too_big),
		cmocka_unit_test(test_mkdir_link),
		cmocka_unit_test(test_tdbfile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
