/*
 * vfs/dircache.c: the case-folded name table, the LRU cache of tables
 * with its validation and budget, the quiet-directory rule, and the
 * glue on a real directory (a temporary one).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "vfs/dircache.h"
#include "vfs/name.h"

static struct vfs_dirnames *table_of(const char *const *names, size_t n)
{
	struct vfs_dirnames *t = vfs_dirnames_new(NULL, 1000000);
	size_t i;

	assert_non_null(t);
	for (i = 0; i < n; i++) {
		assert_true(vfs_dirnames_add(t, names[i], strlen(names[i])));
	}
	assert_true(vfs_dirnames_seal(t));
	return t;
}

static void test_find_without_case(void **state)
{
	static const char *const names[] = {
		"Report.docx", "notes.TXT", "\xc3\x84rger.txt", /* Ärger */
		"\xce\xa3\xce\xbf\xcf\x86\xce\xaf\xce\xb1", /* Σοφία */
		"plain"};
	struct vfs_dirnames *t = table_of(names, 5);

	(void)state;
	assert_int_equal(vfs_dirnames_count(t), 5);
	assert_string_equal(vfs_dirnames_find(t, "REPORT.DOCX"),
			    "Report.docx");
	assert_string_equal(vfs_dirnames_find(t, "report.docx"),
			    "Report.docx");
	assert_string_equal(vfs_dirnames_find(t, "Notes.txt"), "notes.TXT");
	/* Non-ASCII folding is vfs_strcasecmp's: ä finds Ä. */
	assert_string_equal(vfs_dirnames_find(t, "\xc3\xa4RGER.TXT"),
			    "\xc3\x84rger.txt");
	assert_string_equal(
		vfs_dirnames_find(t, "\xce\xa3\xce\x9f\xce\xa6\xce\x8a\xce\x91"),
		"\xce\xa3\xce\xbf\xcf\x86\xce\xaf\xce\xb1");
	assert_null(vfs_dirnames_find(t, "report.doc"));
	assert_null(vfs_dirnames_find(t, "plai"));
	assert_null(vfs_dirnames_find(t, ""));
	talloc_free(t);
}

static void test_first_of_equal_names_wins(void **state)
{
	static const char *const names[] = {"Same.txt", "SAME.TXT",
					    "same.txt"};
	struct vfs_dirnames *t = table_of(names, 3);

	(void)state;
	/* A scan stops at the first in readdir order; so does the table. */
	assert_int_equal(vfs_dirnames_count(t), 1);
	assert_string_equal(vfs_dirnames_find(t, "same.TXT"), "Same.txt");
	talloc_free(t);
}

static void test_many_names_and_invalid_utf8(void **state)
{
	struct vfs_dirnames *t = vfs_dirnames_new(NULL, 1000000);
	char name[64], upper[64];
	size_t i;

	(void)state;
	for (i = 0; i < 50000; i++) {
		snprintf(name, sizeof(name), "file_%06zu.dat", i);
		assert_true(vfs_dirnames_add(t, name, strlen(name)));
	}
	/* Bytes that are not UTF-8 equal only themselves. */
	assert_true(vfs_dirnames_add(t, "bad\xff", 4));
	assert_true(vfs_dirnames_seal(t));
	assert_int_equal(vfs_dirnames_count(t), 50001);
	for (i = 0; i < 50000; i += 997) {
		snprintf(upper, sizeof(upper), "FILE_%06zu.DAT", i);
		snprintf(name, sizeof(name), "file_%06zu.dat", i);
		assert_string_equal(vfs_dirnames_find(t, upper), name);
	}
	assert_null(vfs_dirnames_find(t, "FILE_050000.DAT"));
	assert_string_equal(vfs_dirnames_find(t, "BAD\xff"), "bad\xff");
	assert_null(vfs_dirnames_find(t, "BAD\xfe"));
	/* The table's bytes are in proportion to what it holds. */
	assert_true(vfs_dirnames_bytes(t) < 50001 * 48);
	talloc_free(t);
}

static void test_name_cap(void **state)
{
	struct vfs_dirnames *t = vfs_dirnames_new(NULL, 2);

	(void)state;
	assert_true(vfs_dirnames_add(t, "a", 1));
	assert_true(vfs_dirnames_add(t, "b", 1));
	assert_false(vfs_dirnames_add(t, "c", 1));
	talloc_free(t);
}

static void test_hash_agrees_with_strcasecmp(void **state)
{
	(void)state;
	assert_int_equal(vfs_name_case_hash("abc\xc3\xa9"),
			 vfs_name_case_hash("ABC\xc3\x89"));
	assert_int_not_equal(vfs_name_case_hash("abc"),
			     vfs_name_case_hash("abd"));
}

static struct vfs_dircache_key key(uint64_t ino, long mtime)
{
	struct vfs_dircache_key k = {
		.dev = 8, .ino = ino,
		.mtime = {.tv_sec = mtime}, .ctime = {.tv_sec = mtime}};
	return k;
}

static struct vfs_dirnames *table1(const char *name)
{
	const char *names[1] = {name};

	return table_of(names, 1);
}

static void test_cache_hit_absent_stale(void **state)
{
	struct vfs_dircache *c = vfs_dircache_new(NULL, 1 << 20, 16);
	struct vfs_dircache_key k = key(100, 5);
	struct vfs_dircache_key later = key(100, 6);
	char *real;
	size_t dirs, bytes;

	(void)state;
	assert_int_equal(vfs_dircache_get(c, &k, "X", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	assert_true(vfs_dircache_put(c, &k, table1("Alpha")));
	assert_int_equal(vfs_dircache_get(c, &k, "ALPHA", c, &real),
			 VFS_DIRCACHE_FOUND);
	assert_string_equal(real, "Alpha");
	assert_int_equal(vfs_dircache_get(c, &k, "beta", c, &real),
			 VFS_DIRCACHE_ABSENT);
	assert_null(real);
	/* Another directory with the same inode on another device. */
	k.dev = 9;
	assert_int_equal(vfs_dircache_get(c, &k, "alpha", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	/* The directory's times moved: the entry is stale and dropped. */
	assert_int_equal(vfs_dircache_get(c, &later, "alpha", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	vfs_dircache_usage(c, &dirs, &bytes);
	assert_int_equal(dirs, 0);
	assert_int_equal(bytes, 0);
	/* Only the change time moved: stale too. */
	k = key(100, 5);
	assert_true(vfs_dircache_put(c, &k, table1("Alpha")));
	later = k;
	later.ctime.tv_nsec = 1;
	assert_int_equal(vfs_dircache_get(c, &later, "alpha", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	talloc_free(c);
}

static void test_cache_replace(void **state)
{
	struct vfs_dircache *c = vfs_dircache_new(NULL, 1 << 20, 16);
	struct vfs_dircache_key k = key(1, 5), k2 = key(1, 7);
	char *real;
	size_t dirs, bytes;

	(void)state;
	assert_true(vfs_dircache_put(c, &k, table1("Old")));
	assert_true(vfs_dircache_put(c, &k2, table1("New")));
	vfs_dircache_usage(c, &dirs, &bytes);
	assert_int_equal(dirs, 1);
	assert_int_equal(vfs_dircache_get(c, &k2, "NEW", c, &real),
			 VFS_DIRCACHE_FOUND);
	assert_int_equal(vfs_dircache_get(c, &k2, "OLD", c, &real),
			 VFS_DIRCACHE_ABSENT);
	talloc_free(c);
}

static void test_cache_lru_by_dirs(void **state)
{
	struct vfs_dircache *c = vfs_dircache_new(NULL, 1 << 20, 3);
	struct vfs_dircache_key k1 = key(1, 1), k2 = key(2, 1), k3 = key(3, 1),
				k4 = key(4, 1);
	char *real;
	size_t dirs, bytes;

	(void)state;
	assert_true(vfs_dircache_put(c, &k1, table1("one")));
	assert_true(vfs_dircache_put(c, &k2, table1("two")));
	assert_true(vfs_dircache_put(c, &k3, table1("three")));
	/* Using 1 makes 2 the least recently used. */
	assert_int_equal(vfs_dircache_get(c, &k1, "ONE", c, &real),
			 VFS_DIRCACHE_FOUND);
	assert_true(vfs_dircache_put(c, &k4, table1("four")));
	vfs_dircache_usage(c, &dirs, &bytes);
	assert_int_equal(dirs, 3);
	assert_int_equal(vfs_dircache_get(c, &k2, "TWO", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	assert_int_equal(vfs_dircache_get(c, &k1, "ONE", c, &real),
			 VFS_DIRCACHE_FOUND);
	assert_int_equal(vfs_dircache_get(c, &k3, "THREE", c, &real),
			 VFS_DIRCACHE_FOUND);
	assert_int_equal(vfs_dircache_get(c, &k4, "FOUR", c, &real),
			 VFS_DIRCACHE_FOUND);
	talloc_free(c);
}

static void test_cache_byte_budget(void **state)
{
	struct vfs_dirnames *t = table1("x");
	size_t one = vfs_dirnames_bytes(t);
	struct vfs_dircache *c = vfs_dircache_new(NULL, one * 2, 100);
	struct vfs_dircache_key k1 = key(1, 1), k2 = key(2, 1), k3 = key(3, 1);
	struct vfs_dirnames *big = vfs_dirnames_new(NULL, 100000);
	char *real, name[32];
	size_t dirs, bytes, i;

	(void)state;
	assert_true(vfs_dircache_put(c, &k1, t));
	assert_true(vfs_dircache_put(c, &k2, table1("y")));
	assert_true(vfs_dircache_put(c, &k3, table1("z")));
	vfs_dircache_usage(c, &dirs, &bytes);
	assert_int_equal(dirs, 2);
	assert_true(bytes <= one * 2);
	assert_int_equal(vfs_dircache_get(c, &k1, "X", c, &real),
			 VFS_DIRCACHE_UNKNOWN);
	/* One that can never fit is refused and freed; nothing evicted. */
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "n%zu", i);
		assert_true(vfs_dirnames_add(big, name, strlen(name)));
	}
	assert_false(vfs_dircache_put(c, &k1, big));
	vfs_dircache_usage(c, &dirs, &bytes);
	assert_int_equal(dirs, 2);
	talloc_free(c);
}

struct hammer {
	struct vfs_dircache *c;
	int id;
};

/* Threads putting and getting the same few directories at once: the
 * answers stay right (run under the sanitizers/helgrind for races). */
static void *hammer_thread(void *p)
{
	struct hammer *h = p;
	char name[32], want[32];
	int i;

	for (i = 0; i < 2000; i++) {
		struct vfs_dircache_key k = key((uint64_t)(i % 5), i % 3);
		TALLOC_CTX *tmp = talloc_new(NULL);
		char *real;
		enum vfs_dircache_answer a;

		snprintf(want, sizeof(want), "Dir%d-%d", i % 5, i % 3);
		if ((i + h->id) % 4 == 0) {
			vfs_dircache_put(h->c, &k, table1(want));
		}
		snprintf(name, sizeof(name), "DIR%d-%d", i % 5, i % 3);
		a = vfs_dircache_get(h->c, &k, name, tmp, &real);
		if (a == VFS_DIRCACHE_FOUND && strcmp(real, want) != 0) {
			talloc_free(tmp);
			return (void *)1;
		}
		if (a == VFS_DIRCACHE_ABSENT) {
			talloc_free(tmp);
			return (void *)1;
		}
		talloc_free(tmp);
	}
	return NULL;
}

static void test_cache_threads(void **state)
{
	struct vfs_dircache *c = vfs_dircache_new(NULL, 1 << 20, 3);
	pthread_t th[4];
	struct hammer h[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		h[i] = (struct hammer){.c = c, .id = i};
		assert_int_equal(
			pthread_create(&th[i], NULL, hammer_thread, &h[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		assert_null(r);
	}
	talloc_free(c);
}

static void test_quiet(void **state)
{
	struct timespec now = {.tv_sec = 1000, .tv_nsec = 500000000};
	struct timespec t = {.tv_sec = 1000, .tv_nsec = 400000000};
	struct timespec recent = {.tv_sec = 1000, .tv_nsec = 490000000};
	struct timespec whole = {.tv_sec = 999};
	struct timespec future = {.tv_sec = 2000, .tv_nsec = 1};

	(void)state;
	assert_true(vfs_dircache_quiet(&t, &t, &now));
	assert_false(vfs_dircache_quiet(&recent, &recent, &now));
	assert_false(vfs_dircache_quiet(&t, &recent, &now));
	assert_false(vfs_dircache_quiet(&future, &t, &now));
	/* Whole seconds: maybe a 1-2 s file system, 2.1 s of margin. */
	assert_false(vfs_dircache_quiet(&whole, &whole, &now));
	now.tv_sec = 1002;
	assert_true(vfs_dircache_quiet(&whole, &whole, &now));
}

/* The glue on a real directory: made, aged (its times set back with
 * utimensat would move ctime, so it waits out the 20 ms instead). */
static char tmpdir[] = "/tmp/test_dircache.XXXXXX";

static void touch(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd != -1);
	close(fd);
}

static enum vfs_dircache_answer look(const char *name, char **real,
				     TALLOC_CTX *mem_ctx)
{
	int fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	enum vfs_dircache_answer a;

	assert_true(fd != -1);
	a = vfs_dircache_lookup(mem_ctx, fd, name, real);
	if (a == VFS_DIRCACHE_UNKNOWN) {
		/* Left at offset 0 for the caller's scan. */
		assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	}
	close(fd);
	return a;
}

static void settle(void)
{
	struct timespec d = {.tv_sec = 0, .tv_nsec = 60000000};

	nanosleep(&d, NULL);
}

static void test_lookup_real_directory(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char name[64], old[256], new[256];
	char *real;
	int i;

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "Name%03d.txt", i);
		touch(name);
	}
	/* Just changed: not trusted yet, the caller scans (unless this
	 * machine stalled us past the margin already). */
	assert_true(look("NAME001.TXT", &real, tmp) != VFS_DIRCACHE_ABSENT);
	settle();
	/* Read once (answers from what it read), then from the cache. */
	assert_int_equal(look("NAME001.TXT", &real, tmp), VFS_DIRCACHE_FOUND);
	assert_string_equal(real, "Name001.txt");
	assert_int_equal(look("name099.TXT", &real, tmp), VFS_DIRCACHE_FOUND);
	assert_string_equal(real, "Name099.txt");
	assert_int_equal(look("NEW.TXT", &real, tmp), VFS_DIRCACHE_ABSENT);
	/* A change outside: the times move, the entry is not used. */
	touch("New.txt");
	snprintf(old, sizeof(old), "%s/Name005.txt", tmpdir);
	snprintf(new, sizeof(new), "%s/Moved.txt", tmpdir);
	assert_int_equal(rename(old, new), 0);
	settle();
	assert_int_equal(look("NEW.TXT", &real, tmp), VFS_DIRCACHE_FOUND);
	assert_string_equal(real, "New.txt");
	assert_int_equal(look("NAME005.TXT", &real, tmp),
			 VFS_DIRCACHE_ABSENT);
	assert_int_equal(look("MOVED.TXT", &real, tmp), VFS_DIRCACHE_FOUND);
	assert_string_equal(real, "Moved.txt");
	/* A removal. */
	assert_int_equal(unlink(new), 0);
	settle();
	assert_int_equal(look("MOVED.TXT", &real, tmp), VFS_DIRCACHE_ABSENT);
	/* Clean up. */
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "%s/Name%03d.txt", tmpdir, i);
		unlink(name);
	}
	snprintf(name, sizeof(name), "%s/New.txt", tmpdir);
	unlink(name);
	rmdir(tmpdir);
	talloc_free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_without_case),
		cmocka_unit_test(test_first_of_equal_names_wins),
		cmocka_unit_test(test_many_names_and_invalid_utf8),
		cmocka_unit_test(test_name_cap),
		cmocka_unit_test(test_hash_agrees_with_strcasecmp),
		cmocka_unit_test(test_cache_hit_absent_stale),
		cmocka_unit_test(test_cache_replace),
		cmocka_unit_test(test_cache_lru_by_dirs),
		cmocka_unit_test(test_cache_byte_budget),
		cmocka_unit_test(test_cache_threads),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_lookup_real_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
