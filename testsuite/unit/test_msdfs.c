/*
 * Unit tests for vfs/msdfs.c: the text of an msdfs link read as Samba
 * 4.17 reads it (each case below is a link Samba was given, and the
 * NetworkAddress its referral named), the shuffle of `msdfs shuffle
 * referrals`, and the walk that finds the first link of a path in a
 * share made in a temporary directory (case, 8.3 aliases, veto files,
 * symlinks followed or not, the share's confinement).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

#include "vfs/msdfs.h"

static void expect_targets(const char *text, size_t n, ...)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	const char *list = vfs_msdfs_link_text(text);
	char **t;
	size_t got, i;
	va_list ap;

	assert_non_null(list);
	assert_true(vfs_msdfs_targets(mem, list, &t, &got));
	assert_int_equal(got, n);
	va_start(ap, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(t[i], va_arg(ap, const char *));
	}
	va_end(ap);
	talloc_free(mem);
}

static void test_link_text(void **state)
{
	(void)state;
	expect_targets("msdfs:127.91.0.1\\target", 1, "\\127.91.0.1\\target");
	expect_targets("msdfs:\\\\srvA\\shareA", 1, "\\srvA\\shareA");
	expect_targets("msdfs:\\srvA\\shareA", 1, "\\srvA\\shareA");
	expect_targets("msdfs:srvA/shareA", 1, "\\srvA\\shareA");
	expect_targets("msdfs:srvA\\shareA,,srvB\\shareB", 2, "\\srvA\\shareA",
		       "\\srvB\\shareB");
	expect_targets("msdfs:srvA\\shareA\\", 1, "\\srvA\\shareA\\");
	expect_targets("msdfs:srvA\\shareA\\sub\\dir", 1,
		       "\\srvA\\shareA\\sub\\dir");
	expect_targets("MSDFS:srvA\\shareA", 1, "\\srvA\\shareA");
	expect_targets("msdfs:srvA\\shareA, srvB\\shareB", 2, "\\srvA\\shareA",
		       "\\ srvB\\shareB");
	expect_targets("msdfs:srvA", 1, "\\srvA");
	expect_targets("msdfs:srvA\\shareA,", 1, "\\srvA\\shareA");
	expect_targets("msdfs:,srvA\\shareA", 1, "\\srvA\\shareA");
	expect_targets("msdfs:garbage", 1, "\\garbage");
	expect_targets("msdfs:", 0);
	expect_targets("msdfs:,,", 0);
	assert_null(vfs_msdfs_link_text("msdfs"));
	assert_null(vfs_msdfs_link_text("../target"));
	assert_null(vfs_msdfs_link_text(""));
	assert_null(vfs_msdfs_link_text(" msdfs:a\\b"));
}

static void test_shuffle(void **state)
{
	char a[] = "a", b[] = "b", c[] = "c";
	char *t[3];
	uint32_t rnd[2];
	unsigned seen = 0, r0, r1;

	(void)state;
	/* every one of the 6 orders comes out of some random words */
	for (r0 = 0; r0 < 3; r0++) {
		for (r1 = 0; r1 < 2; r1++) {
			unsigned code;

			t[0] = a;
			t[1] = b;
			t[2] = c;
			rnd[0] = r0;
			rnd[1] = r1;
			vfs_msdfs_shuffle(t, 3, rnd);
			assert_true(t[0] != t[1] && t[1] != t[2] &&
				    t[0] != t[2]);
			code = (unsigned)(t[0][0] - 'a') * 9 +
			       (unsigned)(t[1][0] - 'a') * 3 +
			       (unsigned)(t[2][0] - 'a');
			seen |= 1u << code;
		}
	}
	assert_int_equal(__builtin_popcount(seen), 6);
	/* nothing to do for 0 or 1 */
	t[0] = a;
	vfs_msdfs_shuffle(t, 1, rnd);
	assert_ptr_equal(t[0], a);
	vfs_msdfs_shuffle(t, 0, rnd);
}

/* A share in a temporary directory:
 *   link -> msdfs:srv\target      dir/deep -> msdfs:a\b,c\d
 *   plain (a file)                tolink -> dir (a plain symlink)
 *   empty -> msdfs:               vetoed -> msdfs:v\w
 *   out -> .. (leaves the share)  dangling -> nowhere */
struct share_env {
	char dir[64];
	struct vfs_share sh;
};

static int share_setup(void **state)
{
	struct share_env *e = calloc(1, sizeof(*e));
	int fd;

	assert_non_null(e);
	strcpy(e->dir, "/tmp/test_msdfs.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	assert_int_equal(chdir(e->dir), 0);
	assert_int_equal(symlink("msdfs:srv\\target", "link"), 0);
	assert_int_equal(mkdir("dir", 0755), 0);
	assert_int_equal(symlink("msdfs:a\\b,c\\d", "dir/deep"), 0);
	fd = open("plain", O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink("dir", "tolink"), 0);
	assert_int_equal(symlink("msdfs:", "empty"), 0);
	assert_int_equal(symlink("msdfs:v\\w", "vetoed"), 0);
	assert_int_equal(symlink("..", "out"), 0);
	assert_int_equal(symlink("nowhere", "dangling"), 0);
	assert_int_equal(chdir("/"), 0);
	e->sh.root_fd = open(e->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(e->sh.root_fd >= 0);
	e->sh.path = e->dir;
	e->sh.follow_symlinks = true;
	e->sh.msdfs = true;
	*state = e;
	return 0;
}

static int share_teardown(void **state)
{
	struct share_env *e = *state;
	char cmd[128];

	close(e->sh.root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
	assert_int_equal(system(cmd), 0);
	free(e);
	return 0;
}

static void expect_find(const struct vfs_share *sh, const char *path,
			NTSTATUS want, size_t depth, const char *text)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	size_t d = 99;
	char *t = (char *)"x";

	assert_int_equal(vfs_msdfs_find(mem, sh, path, &d, &t), want);
	assert_int_equal(d, depth);
	if (text != NULL) {
		assert_non_null(t);
		assert_string_equal(t, text);
	} else {
		assert_null(t);
	}
	talloc_free(mem);
}

static void test_find(void **state)
{
	struct share_env *e = *state;

	expect_find(&e->sh, "link", NT_STATUS_OK, 1, "srv\\target");
	expect_find(&e->sh, "link/a/b", NT_STATUS_OK, 1, "srv\\target");
	expect_find(&e->sh, "dir/deep/x", NT_STATUS_OK, 2, "a\\b,c\\d");
	expect_find(&e->sh, "empty/x", NT_STATUS_OK, 1, "");
	/* names as a CREATE finds them: without case */
	expect_find(&e->sh, "LINK/x", NT_STATUS_OK, 1, "srv\\target");
	expect_find(&e->sh, "Dir/DEEP", NT_STATUS_OK, 2, "a\\b,c\\d");
	/* through a symlink the share follows */
	expect_find(&e->sh, "tolink/deep/x", NT_STATUS_OK, 2, "a\\b,c\\d");
	/* no link on the way */
	expect_find(&e->sh, "plain", NT_STATUS_OK, 0, NULL);
	expect_find(&e->sh, "plain/x", NT_STATUS_OK, 0, NULL);
	expect_find(&e->sh, "dir", NT_STATUS_OK, 0, NULL);
	expect_find(&e->sh, "nosuch/link", NT_STATUS_OK, 0, NULL);
	expect_find(&e->sh, "dangling/x", NT_STATUS_OK, 0, NULL);
	expect_find(&e->sh, "", NT_STATUS_OK, 0, NULL);
	/* never out of the share: "out" is refused by RESOLVE_BENEATH */
	expect_find(&e->sh, "out/link", NT_STATUS_OK, 0, NULL);
}

static void test_find_rules(void **state)
{
	struct share_env *e = *state;
	struct vfs_share sh = e->sh;

	/* a case-sensitive share takes the name as spelled */
	sh.case_sensitive = true;
	expect_find(&sh, "LINK/x", NT_STATUS_OK, 0, NULL);
	expect_find(&sh, "link/x", NT_STATUS_OK, 1, "srv\\target");
	/* `follow symlinks = no`: the link is still a link, a symlink to
	 * a directory is not entered */
	sh = e->sh;
	sh.follow_symlinks = false;
	expect_find(&sh, "link", NT_STATUS_OK, 1, "srv\\target");
	expect_find(&sh, "tolink/deep", NT_STATUS_OK, 0, NULL);
	/* `veto files`: as if it were not there */
	sh = e->sh;
	sh.veto_files = "/vetoed/";
	expect_find(&sh, "vetoed/x", NT_STATUS_OK, 0, NULL);
	expect_find(&sh, "link", NT_STATUS_OK, 1, "srv\\target");
}

static void test_is_link_at(void **state)
{
	struct share_env *e = *state;

	assert_true(vfs_msdfs_is_link_at(e->sh.root_fd, "link"));
	assert_true(vfs_msdfs_is_link_at(e->sh.root_fd, "empty"));
	assert_false(vfs_msdfs_is_link_at(e->sh.root_fd, "tolink"));
	assert_false(vfs_msdfs_is_link_at(e->sh.root_fd, "plain"));
	assert_false(vfs_msdfs_is_link_at(e->sh.root_fd, "nosuch"));
	assert_false(vfs_msdfs_is_link_at(e->sh.root_fd, "dir"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_text),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test_setup_teardown(test_find, share_setup,
						share_teardown),
		cmocka_unit_test_setup_teardown(test_find_rules, share_setup,
						share_teardown),
		cmocka_unit_test_setup_teardown(test_is_link_at, share_setup,
						share_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
