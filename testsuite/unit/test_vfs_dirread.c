/*
 * vfs/dirread.c, vfs/watch.c, vfs/textfile.c and lib/spawn.c (issue 37:
 * the directory, watch, map-file and script calls the handlers made
 * themselves): on a temporary directory, each function's answer and the
 * NTSTATUS it gives where the handlers used to read errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/spawn.h"
#include "vfs/dirread.h"
#include "vfs/textfile.h"
#include "vfs/watch.h"

struct tmp {
	char dir[64];
	int fd;
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_vfs_dirread.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(t->fd >= 0);
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];

	close(t->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static void make_file(struct tmp *t, const char *name, const char *text)
{
	int fd = openat(t->fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	if (text != NULL) {
		assert_int_equal(write(fd, text, strlen(text)),
				 (ssize_t)strlen(text));
	}
	close(fd);
}

struct names {
	unsigned n, stop_at;
	char seen[8][32];
};

static bool collect(void *priv, const char *name)
{
	struct names *c = priv;

	if (c->n < 8) {
		snprintf(c->seen[c->n], sizeof(c->seen[0]), "%s", name);
	}
	c->n++;
	return c->stop_at == 0 || c->n < c->stop_at;
}

static void test_read_names(void **state)
{
	struct tmp *t = *state;
	struct names c = {0};
	bool cut = true;
	int fd;

	make_file(t, "a", NULL);
	make_file(t, "b", NULL);
	assert_int_equal(mkdirat(t->fd, "d", 0755), 0);
	assert_true(NT_STATUS_IS_OK(vfs_dir_read_names(t->fd, collect, &c,
						       &cut)));
	assert_false(cut);
	assert_int_equal(c.n, 3);	/* no "." nor ".." */
	memset(&c, 0, sizeof(c));
	c.stop_at = 2;
	assert_true(NT_STATUS_IS_OK(vfs_dir_read_names(t->fd, collect, &c,
						       &cut)));
	assert_true(cut);
	assert_int_equal(c.n, 2);
	/* a file is no directory: what vfs_map_errno makes of ENOTDIR */
	fd = openat(t->fd, "a", O_RDONLY);
	assert_int_equal(vfs_dir_read_names(fd, collect, &c, &cut),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	close(fd);
}

static void test_entries(void **state)
{
	struct tmp *t = *state;
	struct statx stx;
	int fd;

	make_file(t, "f", "xyz");
	assert_int_equal(symlinkat("nowhere", t->fd, "l"), 0);
	assert_true(vfs_dir_entry_exists(t->fd, "f"));
	assert_true(vfs_dir_entry_exists(t->fd, "l"));	/* not followed */
	assert_false(vfs_dir_entry_exists(t->fd, "gone"));
	assert_true(vfs_dir_entry_statx(t->fd, "f", &stx));
	assert_int_equal(stx.stx_size, 3);
	assert_true(vfs_dir_entry_statx(t->fd, "l", &stx));
	assert_true(S_ISLNK(stx.stx_mode));
	assert_false(vfs_dir_entry_statx(t->fd, "gone", &stx));
	fd = vfs_dir_entry_opath(t->fd, "l");
	assert_true(fd >= 0);
	vfs_dir_close(fd);
	assert_int_equal(vfs_dir_entry_opath(t->fd, "gone"), -1);
	assert_true(vfs_dir_may_delete_child(t->fd));
	assert_int_equal(vfs_dir_euid(), geteuid());
	assert_int_equal(vfs_dir_open_sub_path(t->fd, "gone", &fd),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(vfs_dir_dup(-1, &fd), NT_STATUS_INVALID_HANDLE);
	assert_int_equal(fd, -1);
}

static bool subdir_seen(void *priv, int subfd, const char *name)
{
	struct names *c = priv;
	struct stat sb;

	assert_int_equal(fstat(subfd, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	return collect(priv, name) || c->stop_at == 0;
}

static void test_each_subdir(void **state)
{
	struct tmp *t = *state;
	struct names c = {0};

	make_file(t, "file", NULL);
	assert_int_equal(mkdirat(t->fd, "s1", 0755), 0);
	assert_int_equal(mkdirat(t->fd, "s2", 0755), 0);
	assert_int_equal(symlinkat("s1", t->fd, "link"), 0);
	vfs_dir_each_subdir(t->fd, subdir_seen, &c);
	assert_int_equal(c.n, 2);	/* no file, no symlink, no . or .. */
	memset(&c, 0, sizeof(c));
	c.stop_at = 1;
	vfs_dir_each_subdir(t->fd, subdir_seen, &c);
	assert_int_equal(c.n, 1);
}

struct ev_seen {
	unsigned n;
	uint32_t mask;
	char name[32];
};

static void ev_one(void *priv, const struct inotify_event *ev)
{
	struct ev_seen *s = priv;

	if (ev->len > 0 && s->n == 0) {
		snprintf(s->name, sizeof(s->name), "%s", ev->name);
		s->mask = ev->mask;
	}
	s->n++;
}

static void test_notify(void **state)
{
	struct tmp *t = *state;
	struct ev_seen s = {0};
	int ifd, wd, ffd;

	assert_true(NT_STATUS_IS_OK(vfs_notify_open(&ifd)));
	assert_true(NT_STATUS_IS_OK(vfs_notify_add(ifd, t->fd, IN_CREATE,
						   &wd)));
	vfs_notify_drain(ifd, ev_one, &s);	/* nothing: does not block */
	assert_int_equal(s.n, 0);
	make_file(t, "new", NULL);
	vfs_notify_drain(ifd, ev_one, &s);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.name, "new");
	assert_true(s.mask & IN_CREATE);
	vfs_notify_rm(ifd, wd);
	/* a descriptor that is no directory, with IN_ONLYDIR */
	ffd = openat(t->fd, "new", O_RDONLY);
	assert_int_equal(vfs_notify_add(ifd, ffd, IN_CREATE | IN_ONLYDIR,
					&wd),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	close(ffd);
	vfs_watch_close(ifd);
}

static void test_textfile(void **state)
{
	struct tmp *t = *state;
	struct vfs_text_stamp stamp;
	char path[128], *text;
	NTSTATUS status;
	size_t len;

	snprintf(path, sizeof(path), "%s/map", t->dir);
	make_file(t, "map", "root = admin\n");
	assert_int_equal(vfs_text_read(NULL, path, 100, &text, &len, &stamp,
				       &status),
			 VFS_TEXT_OK);
	assert_int_equal(len, 13);
	assert_string_equal(text, "root = admin\n");
	talloc_free(text);
	assert_true(vfs_text_unchanged(path, &stamp));
	make_file(t, "map", "root = other\nx = y\n");
	assert_false(vfs_text_unchanged(path, &stamp));
	assert_int_equal(vfs_text_read(NULL, path, 10, &text, &len, &stamp,
				       &status),
			 VFS_TEXT_NOT_SMALL);
	assert_int_equal(vfs_text_read(NULL, t->dir, 100, &text, &len,
				       &stamp, &status),
			 VFS_TEXT_NOT_SMALL);
	snprintf(path, sizeof(path), "%s/none", t->dir);
	assert_int_equal(vfs_text_read(NULL, path, 100, &text, &len, &stamp,
				       &status),
			 VFS_TEXT_NO_OPEN);
	assert_int_equal(status, NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_false(vfs_text_unchanged(path, &stamp));
}

static void test_spawn(void **state)
{
	char *ok[] = {"/bin/sh", "-c", "echo mapped; echo more", NULL};
	char *bad[] = {"/bin/sh", "-c", "exit 3", NULL};
	char *slow[] = {"/bin/sh", "-c", "sleep 5", NULL};
	char *none[] = {"/nonexistent/prog", NULL};
	char *flood[] = {"/bin/sh", "-c", "exec yes", NULL};
	char out[64], err[128];
	size_t n;

	(void)state;
	assert_true(spawn_capture(ok, out, sizeof(out), 5, &n, err,
				  sizeof(err)));
	assert_int_equal(n, 12);
	assert_memory_equal(out, "mapped\nmore\n", 12);
	/* the bound: only max bytes are read; a child writing more gets
	 * SIGPIPE and is no success */
	assert_false(spawn_capture(flood, out, 3, 5, &n, err, sizeof(err)));
	assert_int_equal(n, 3);
	assert_string_equal(err, "failed (status -1)");
	assert_false(spawn_capture(bad, out, sizeof(out), 5, &n, err,
				   sizeof(err)));
	assert_string_equal(err, "failed (status 3)");
	assert_false(spawn_capture(slow, out, sizeof(out), 1, &n, err,
				   sizeof(err)));
	assert_string_equal(err, "killed after 1 s or 64 bytes");
	assert_false(spawn_capture(none, out, sizeof(out), 1, &n, err,
				   sizeof(err)));
	assert_true(strncmp(err, "cannot start: ", 14) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_names, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_entries, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_each_subdir, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_notify, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_textfile, tmp_setup,
						tmp_teardown),
		cmocka_unit_test(test_spawn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
