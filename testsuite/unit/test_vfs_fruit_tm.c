/*
 * Unit tests: vfs_fruit's Time Machine size limit (vfs/fruit_tm.h).  The
 * band size comes out of a sparse bundle's Info.plist, which the client
 * wrote (so every malformed form is refused, nothing past the buffer is
 * read); a share's bundles count band size times band files; the sizes
 * a share reports are cut to the maximum, free never above what is left.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfs/fruit_tm.h"

/* An Info.plist as macOS writes it, band size 8 MiB. */
static const char apple_plist[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
	"\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
	"<plist version=\"1.0\">\n<dict>\n"
	"\t<key>CFBundleInfoDictionaryVersion</key>\n\t<string>6.0</string>\n"
	"\t<key>band-size</key>\n\t<integer>8388608</integer>\n"
	"\t<key>bundle-backingstore-version</key>\n\t<integer>1</integer>\n"
	"\t<key>diskimage-bundle-type</key>\n"
	"\t<string>com.apple.diskimage.sparsebundle</string>\n"
	"\t<key>size</key>\n\t<integer>107374182400</integer>\n"
	"</dict>\n</plist>\n";

static bool band(const char *text, uint64_t *v)
{
	return vfs_fruit_plist_band_size(text, strlen(text), v);
}

static void test_plist(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(band(apple_plist, &v));
	assert_int_equal(v, 8388608);
	assert_true(band("<key>band-size</key><integer> 42 </integer>", &v));
	assert_int_equal(v, 42);
	assert_true(band("<key>band-size</key><integer>18446744073709551615"
			 "</integer>", &v));
	assert_int_equal(v, UINT64_MAX);
}

static void test_plist_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"<key>size</key><integer>5</integer>",
		"<key>band-size</key>",
		"<key>band-size</key><string>5</string>",
		"<key>band-size</key><integer></integer>",
		"<key>band-size</key><integer>0</integer>",
		"<key>band-size</key><integer>-5</integer>",
		"<key>band-size</key><integer>5x</integer>",
		"<key>band-size</key><integer>5",
		"<key>band-size</key><integer>18446744073709551616</integer>",
		"<key>band-size</key><integer>99999999999999999999999"
		"</integer>",
	};
	size_t i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(band(bad[i], &v));
	}
	/* the buffer ends where len says, not at a NUL */
	assert_false(vfs_fruit_plist_band_size(
		"<key>band-size</key><integer>7</integer>", 35, &v));
}

static void put(int dfd, const char *path, const char *text)
{
	int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd != -1);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_used(void **state)
{
	char tmpl[] = "/tmp/test_fruit_tm.XXXXXX";
	char *dir = mkdtemp(tmpl);
	char cmd[128];
	uint64_t used = 1;
	int root;

	(void)state;
	assert_non_null(dir);
	root = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(root != -1);
	assert_int_equal(vfs_fruit_tm_used(root, &used), NT_STATUS_OK);
	assert_int_equal(used, 0);
	/* a bundle with 3 bands of 8 MiB */
	assert_int_equal(mkdirat(root, "mac.sparsebundle", 0755), 0);
	assert_int_equal(mkdirat(root, "mac.sparsebundle/bands", 0755), 0);
	put(root, "mac.sparsebundle/Info.plist", apple_plist);
	put(root, "mac.sparsebundle/bands/0", "x");
	put(root, "mac.sparsebundle/bands/1", "x");
	put(root, "mac.sparsebundle/bands/a", "x");
	assert_int_equal(mkdirat(root, "mac.sparsebundle/bands/sub", 0755), 0);
	/* a bundle without a readable plist, a file named like one, and a
	 * bundle further down: none counts */
	assert_int_equal(mkdirat(root, "bad.sparsebundle", 0755), 0);
	assert_int_equal(mkdirat(root, "bad.sparsebundle/bands", 0755), 0);
	put(root, "bad.sparsebundle/bands/0", "x");
	put(root, "file.sparsebundle", apple_plist);
	assert_int_equal(mkdirat(root, "d", 0755), 0);
	assert_int_equal(mkdirat(root, "d/deep.sparsebundle", 0755), 0);
	put(root, "d/deep.sparsebundle/Info.plist", apple_plist);
	assert_int_equal(vfs_fruit_tm_used(root, &used), NT_STATUS_OK);
	assert_int_equal(used, 3 * 8388608ull);
	close(root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_limit(void **state)
{
	uint64_t total, free_b, caller;

	(void)state;
	/* a big disk, 10 units allowed, 3 used */
	total = 1000, free_b = 900, caller = 800;
	vfs_fruit_tm_limit(10, 3, &total, &free_b, &caller);
	assert_int_equal(total, 10);
	assert_int_equal(free_b, 7);
	assert_int_equal(caller, 7);
	/* the disk is fuller than the limit says: its free space stays */
	total = 1000, free_b = 2, caller = 1;
	vfs_fruit_tm_limit(10, 3, &total, &free_b, &caller);
	assert_int_equal(total, 10);
	assert_int_equal(free_b, 2);
	assert_int_equal(caller, 1);
	/* the bundles hold more than allowed */
	total = 1000, free_b = 900, caller = 900;
	vfs_fruit_tm_limit(10, 30, &total, &free_b, &caller);
	assert_int_equal(total, 10);
	assert_int_equal(free_b, 0);
	assert_int_equal(caller, 0);
	/* a disk smaller than the limit */
	total = 5, free_b = 4, caller = 4;
	vfs_fruit_tm_limit(10, 3, &total, &free_b, &caller);
	assert_int_equal(total, 5);
	assert_int_equal(free_b, 2);
	assert_int_equal(caller, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plist),
		cmocka_unit_test(test_plist_refused),
		cmocka_unit_test(test_used),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
