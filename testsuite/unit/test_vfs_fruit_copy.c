/*
 * vfs/fruit_copy.c: the streams fruit:copyfile copies are those
 * FileStreamInformation lists, on a temporary directory: stream xattrs
 * as they are stored; with metadata = stream an AFP_AfpInfo only while it
 * holds a valid record; with rsrc_file the resource
 * fork only from a "._" file whose fork is not empty, never from an
 * AFP_Resource xattr; no xattrs at all on a share without streams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "vfs/fruit.h"
#include "vfs/fruit_copy.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/streams.h"

#include <fcntl.h>
#include <talloc.h>

struct dir {
	char path[64];
	struct vfs_fruit_file f;
};

static void dir_open(struct dir *d)
{
	char p[128];

	snprintf(d->path, sizeof(d->path), "/var/tmp/test_fcopy_XXXXXX");
	assert_non_null(mkdtemp(d->path));
	snprintf(p, sizeof(p), "%s/f", d->path);
	memset(&d->f, 0, sizeof(d->f));
	d->f.fd = open(p, O_CREAT | O_RDWR, 0644);
	assert_true(d->f.fd != -1);
	d->f.sh.root_fd = open(d->path, O_PATH | O_DIRECTORY);
	d->f.sh.path = d->path;
	d->f.sh.follow_symlinks = true;
	d->f.sh.streams = true;
	d->f.path = "f";
}

static void dir_close(struct dir *d)
{
	char cmd[128];

	close(d->f.fd);
	close(d->f.sh.root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->path);
	assert_int_equal(system(cmd), 0);
}

/* A stream as streams_xattr stores it: the data and a NUL. */
static void put_stream(struct dir *d, const char *name, const void *data,
		       size_t len)
{
	char x[128];
	uint8_t v[128];

	snprintf(x, sizeof(x), VFS_STREAM_PREFIX "%s" VFS_STREAM_SUFFIX, name);
	memcpy(v, data, len);
	v[len] = 0;
	assert_int_equal(fsetxattr(d->f.fd, x, v, len + 1, 0), 0);
}

/* The names as one string, "a,b,", in the order listed. */
static char *names_of(TALLOC_CTX *mem_ctx, struct dir *d)
{
	char **names = NULL;
	char *s = talloc_strdup(mem_ctx, "");
	size_t n = 99, i;

	assert_int_equal(vfs_fruit_stream_names(mem_ctx, &d->f, &names, &n),
			 NT_STATUS_OK);
	for (i = 0; i < n; i++) {
		s = talloc_asprintf_append(s, "%s,", names[i]);
	}
	return s;
}

static void test_xattr_streams(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	/* not a record: the version is missing */
	uint8_t rec[VFS_AFPINFO_SIZE] = { 'A', 'F', 'P', 0 };
	struct dir d;

	(void)state;
	dir_open(&d);
	assert_string_equal(names_of(tmp, &d), "");
	/* names as stored, whatever they hold (catia's U+F022 too) */
	put_stream(&d, "foo\xef\x80\xa2" "bar", "abc", 3);
	put_stream(&d, "empty", "", 0);
	/* with metadata = stream, what is no record is no stream */
	put_stream(&d, "AFP_AfpInfo", rec, sizeof(rec));
	assert_string_equal(names_of(tmp, &d), "foo\xef\x80\xa2" "bar,empty,"
					       "AFP_AfpInfo,");
	d.f.meta = VFS_FRUIT_META_STREAM;
	assert_string_equal(names_of(tmp, &d),
			    "foo\xef\x80\xa2" "bar,empty,");
	rec[6] = 1;
	memcpy(rec + VFS_AFPINFO_FINDER_OFF, "TEXTttxt", 8);
	put_stream(&d, "AFP_AfpInfo", rec, sizeof(rec));
	assert_string_equal(names_of(tmp, &d), "foo\xef\x80\xa2" "bar,empty,"
					       "AFP_AfpInfo,");
	/* no streams module: no xattr is a stream */
	d.f.sh.streams = false;
	assert_string_equal(names_of(tmp, &d), "");
	dir_close(&d);
	talloc_free(tmp);
}

static void test_resource_fork(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct dir d;
	bool exists;
	int fd;

	(void)state;
	dir_open(&d);
	put_stream(&d, "AFP_Resource", "xattr", 5);
	assert_string_equal(names_of(tmp, &d), "AFP_Resource,");
	/* rsrc_file: the xattr is not the fork, and an empty fork is none */
	d.f.rsrc_file = true;
	assert_string_equal(names_of(tmp, &d), "");
	assert_int_equal(vfs_rsrc_open(&d.f.sh, "f", true, true, &fd, &exists),
			 NT_STATUS_OK);
	assert_string_equal(names_of(tmp, &d), "");
	assert_int_equal(vfs_rsrc_pwrite(fd, (const uint8_t *)"fork", 4, 0),
			 NT_STATUS_OK);
	close(fd);
	assert_string_equal(names_of(tmp, &d), VFS_FRUIT_RESOURCE ",");
	/* also where the share has no streams module */
	d.f.sh.streams = false;
	assert_string_equal(names_of(tmp, &d), VFS_FRUIT_RESOURCE ",");
	dir_close(&d);
	talloc_free(tmp);
}

/* Netatalk's xattrs: AFP_AfpInfo while its record is there (netatalk),
 * AFP_Resource while its fork is not empty (rsrc_xattr), and neither
 * from a stream xattr of that name. */
static void test_netatalk(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t rec[VFS_AFPINFO_SIZE] = { 'A', 'F', 'P', 0, 0, 0, 1, 0 };
	struct dir d;

	(void)state;
	dir_open(&d);
	d.f.meta = VFS_FRUIT_META_NETATALK;
	d.f.rsrc_xattr = true;
	put_stream(&d, "AFP_Resource", "xattr", 5);
	assert_string_equal(names_of(tmp, &d), "");
	memcpy(rec + VFS_AFPINFO_FINDER_OFF, "TEXTttxt", 8);
	assert_int_equal(vfs_afpinfo_pwrite(d.f.fd, VFS_FRUIT_META_NETATALK,
					    NULL, rec, sizeof(rec), 0),
			 NT_STATUS_OK);
	assert_int_equal(fsetxattr(d.f.fd, VFS_RSRC_XATTR, "", 0, 0), 0);
	assert_string_equal(names_of(tmp, &d), "AFP_AfpInfo,");
	assert_int_equal(fsetxattr(d.f.fd, VFS_RSRC_XATTR, "fork", 4, 0), 0);
	assert_string_equal(names_of(tmp, &d),
			    "AFP_AfpInfo," VFS_FRUIT_RESOURCE ",");
	dir_close(&d);
	talloc_free(tmp);
}

/* A "._" file fruit cannot use holds no fork it lists. */
static void test_bad_appledouble(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char p[128];
	struct dir d;
	FILE *f;

	(void)state;
	dir_open(&d);
	d.f.rsrc_file = true;
	snprintf(p, sizeof(p), "%s/._f", d.path);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("not AppleDouble", f);
	fclose(f);
	assert_string_equal(names_of(tmp, &d), "");
	dir_close(&d);
	talloc_free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xattr_streams),
		cmocka_unit_test(test_resource_fork),
		cmocka_unit_test(test_bad_appledouble),
		cmocka_unit_test(test_netatalk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
