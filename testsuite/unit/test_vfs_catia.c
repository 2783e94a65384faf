/*
 * vfs/catia.c: catia:mappings parsing (forms Samba accepts, entries it
 * would skip, the separators we refuse, first mapping wins, the bound)
 * and the mapping of names both ways (every character of Samba's macOS
 * map, characters outside the map, invalid UTF-8, paths and streams).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "vfs/catia.h"

/* Samba's macOS map (fruit:encoding = native), server:client. */
static const char *const macos[] = {
	"0x01:0xf001", "0x02:0xf002", "0x03:0xf003", "0x04:0xf004",
	"0x05:0xf005", "0x06:0xf006", "0x07:0xf007", "0x08:0xf008",
	"0x09:0xf009", "0x0a:0xf00a", "0x0b:0xf00b", "0x0c:0xf00c",
	"0x0d:0xf00d", "0x0e:0xf00e", "0x0f:0xf00f", "0x10:0xf010",
	"0x11:0xf011", "0x12:0xf012", "0x13:0xf013", "0x14:0xf014",
	"0x15:0xf015", "0x16:0xf016", "0x17:0xf017", "0x18:0xf018",
	"0x19:0xf019", "0x1a:0xf01a", "0x1b:0xf01b", "0x1c:0xf01c",
	"0x1d:0xf01d", "0x1e:0xf01e", "0x1f:0xf01f",
	"0x22:0xf020", "0x2a:0xf021", "0x3a:0xf022", "0x3c:0xf023",
	"0x3e:0xf024", "0x3f:0xf025", "0x5c:0xf026", "0x7c:0xf027",
	NULL,
};

static struct vfs_name_map *parse(TALLOC_CTX *mem, const char *const *l,
				  unsigned *skipped)
{
	struct vfs_name_map *m = NULL;

	assert_true(NT_STATUS_IS_OK(vfs_name_map_parse(mem, l, &m, skipped)));
	return m;
}

static void check(const struct vfs_name_map *m, enum vfs_name_map_dir d,
		  const char *in, const char *want)
{
	char *out = vfs_name_map_apply(NULL, m, d, in);

	assert_non_null(out);
	assert_string_equal(out, want);
	talloc_free(out);
}

static void test_parse_forms(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	static const char *const ok[] = {"0x3a:0xf022", "22:F020",
					 " 0X2A:0xf021\t", NULL};
	static const char *const bad[] = {
		"0x3a", "0x3a:", ":0xf022", "0x3a:0xzz", "0x3a;0xf022",
		"0x10000:0x41",		/* beyond the BMP */
		"0x41:0xd800",		/* a surrogate */
		"0x00:0x41",		/* NUL */
		"0x2f:0xf8",		/* '/' on disk: a separator */
		"0x3a:0x2f",		/* '/' towards the disk */
		"0x3a:0x5c",		/* '\' on the wire */
		"-1:0x41", "0x3a:0xf022junk", "",
		NULL,
	};
	unsigned skipped = 99;
	struct vfs_name_map *m;

	(void)state;
	m = parse(mem, ok, &skipped);
	assert_int_equal(vfs_name_map_count(m), 3);
	assert_int_equal(skipped, 0);
	check(m, VFS_NAME_TO_DISK, "\xef\x80\xa2\xef\x80\xa0\xef\x80\xa1",
	      ":\"*");
	m = parse(mem, bad, &skipped);
	assert_null(m);
	assert_int_equal(skipped, 14);
	/* no list, an empty list: no map, nothing skipped */
	assert_null(parse(mem, NULL, &skipped));
	assert_int_equal(skipped, 0);
	{
		static const char *const none[] = {NULL};

		assert_null(parse(mem, none, NULL));
	}
	/* bad entries do not spoil the good ones */
	{
		static const char *const mixed[] = {"nonsense", "0x3a:0xf022",
						    "0x2f:0xf8", NULL};

		m = parse(mem, mixed, &skipped);
		assert_int_equal(vfs_name_map_count(m), 1);
		assert_int_equal(skipped, 2);
	}
	talloc_free(mem);
}

static void test_first_mapping_wins(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	/* ':' is shown as U+F022 and as U+00F7 (the first wins towards the
	 * wire); U+F022 stands for ':' and for '|' (the first wins towards
	 * the disk) */
	static const char *const l[] = {"0x3a:0xf022", "0x3a:0xf7",
					"0x7c:0xf022", NULL};
	struct vfs_name_map *m = parse(mem, l, NULL);

	(void)state;
	assert_int_equal(vfs_name_map_count(m), 3);
	/* each direction keyed by its own side: '|' has one wire form */
	check(m, VFS_NAME_TO_WIRE, "a:b|c",
	      "a\xef\x80\xa2" "b\xef\x80\xa2" "c");
	check(m, VFS_NAME_TO_DISK, "a\xef\x80\xa2" "b\xc3\xb7" "c|", "a:b:c|");
	talloc_free(mem);
}

static void test_macos_map(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_name_map *m = parse(mem, macos, NULL);
	unsigned i;

	(void)state;
	assert_int_equal(vfs_name_map_count(m), 39);
	/* every pair, both ways, inside a name */
	for (i = 0; macos[i] != NULL; i++) {
		unsigned s, c;
		char disk[16], wire[16];

		assert_int_equal(sscanf(macos[i], "0x%x:0x%x", &s, &c), 2);
		snprintf(disk, sizeof(disk), "x%cy", (char)s);
		snprintf(wire, sizeof(wire), "x%c%c%cy",
			 (char)(0xe0 | (c >> 12)),
			 (char)(0x80 | ((c >> 6) & 0x3f)),
			 (char)(0x80 | (c & 0x3f)));
		check(m, VFS_NAME_TO_DISK, wire, disk);
		check(m, VFS_NAME_TO_WIRE, disk, wire);
	}
	/* a path: separators stay, every component is mapped */
	check(m, VFS_NAME_TO_DISK,
	      "dir\xef\x80\xa2one/file\xef\x80\xa5.txt", "dir:one/file?.txt");
	check(m, VFS_NAME_TO_WIRE, "dir:one/file?.txt",
	      "dir\xef\x80\xa2one/file\xef\x80\xa5.txt");
	/* outside the map: as it is (U+F03F, U+00E9, U+1F600, ASCII) */
	check(m, VFS_NAME_TO_DISK, "\xef\x80\xbf\xc3\xa9\xf0\x9f\x98\x80 a.b",
	      "\xef\x80\xbf\xc3\xa9\xf0\x9f\x98\x80 a.b");
	/* the server character on the wire side is not mapped back: one
	 * direction per call, no chaining */
	check(m, VFS_NAME_TO_DISK, "a:b", "a:b");
	check(m, VFS_NAME_TO_WIRE, "a\xef\x80\xa2" "b", "a\xef\x80\xa2" "b");
	check(m, VFS_NAME_TO_DISK, "", "");
	talloc_free(mem);
}

static void test_invalid_utf8(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_name_map *m = parse(mem, macos, NULL);

	(void)state;
	/* stray bytes, a truncated sequence, an overlong ':' (C0 BA), an
	 * encoded surrogate: copied through, the rest still mapped */
	check(m, VFS_NAME_TO_WIRE, "\xff:\xc0\xba\xed\xa0\x80:\xef\x80",
	      "\xff\xef\x80\xa2\xc0\xba\xed\xa0\x80\xef\x80\xa2\xef\x80");
	talloc_free(mem);
}

static void test_no_map(void **state)
{
	(void)state;
	check(NULL, VFS_NAME_TO_DISK, "a\xef\x80\xa2" "b", "a\xef\x80\xa2" "b");
	check(NULL, VFS_NAME_TO_WIRE, "a:b", "a:b");
}

static void test_to_disk_path_stream(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_name_map *m = parse(mem, macos, NULL);
	char *path = talloc_strdup(mem, "d\xef\x80\xa2/f");
	char *stream = talloc_strdup(mem, "col\xef\x80\xa2on");
	char *p0 = path;

	(void)state;
	assert_true(NT_STATUS_IS_OK(vfs_name_map_to_disk(mem, m, &path,
							 &stream)));
	assert_string_equal(path, "d:/f");
	assert_string_equal(stream, "col:on");
	/* no stream */
	stream = NULL;
	assert_true(NT_STATUS_IS_OK(vfs_name_map_to_disk(mem, m, &path,
							 &stream)));
	assert_null(stream);
	/* no map: untouched */
	path = p0;
	assert_true(NT_STATUS_IS_OK(vfs_name_map_to_disk(mem, NULL, &path,
							 NULL)));
	assert_ptr_equal(path, p0);
	talloc_free(mem);
}

static void test_bound(void **state)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char **l = talloc_array(mem, const char *,
				      VFS_NAME_MAP_MAX + 11);
	unsigned i, skipped;
	struct vfs_name_map *m;

	(void)state;
	for (i = 0; i < VFS_NAME_MAP_MAX + 10; i++) {
		l[i] = talloc_asprintf(l, "0x%x:0x%x", 0x4e00 + i,
				       0x8000 + i);
	}
	l[i] = NULL;
	m = parse(mem, l, &skipped);
	assert_int_equal(vfs_name_map_count(m), VFS_NAME_MAP_MAX);
	assert_int_equal(skipped, 10);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_first_mapping_wins),
		cmocka_unit_test(test_macos_map),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_no_map),
		cmocka_unit_test(test_to_disk_path_stream),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
