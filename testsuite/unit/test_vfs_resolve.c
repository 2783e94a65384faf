/*
 * vfs_resolve's fast paths on a real directory tree (a temporary one):
 * the lstat they hand back with the answer (have_stat), the exact
 * lookup the caller may say it has already made (vfs_resolve_known),
 * vfs_parent_id, and the access checks smb2_mode_max_access makes only
 * for the rights asked about.  These are issue 18's syscall savings; the
 * tests pin down that the answers stay what the general walk gives.
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
#include <talloc.h>

#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/anchor.h"
#include "smbd/smb2/max_access.h"
#include "smbd/objects/open.h"

struct tree {
	char dir[64];
	struct vfs_share sh;
	TALLOC_CTX *mem;
};

static void put_file(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd != -1);
	close(fd);
}

/* root/Sub/Report.TXT, root/Top.txt, root/link -> Top.txt */
static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	int sub;

	assert_non_null(t);
	strcpy(t->dir, "/tmp/test_vfs_resolve.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->sh.root_fd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(t->sh.root_fd != -1);
	t->sh.path = t->dir;
	t->sh.follow_symlinks = true;
	assert_int_equal(mkdirat(t->sh.root_fd, "Sub", 0755), 0);
	sub = openat(t->sh.root_fd, "Sub", O_PATH | O_DIRECTORY);
	assert_true(sub != -1);
	put_file(sub, "Report.TXT");
	close(sub);
	put_file(t->sh.root_fd, "Top.txt");
	assert_int_equal(symlinkat("Top.txt", t->sh.root_fd, "link"), 0);
	t->mem = talloc_new(NULL);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	close(t->sh.root_fd);
	talloc_free(t->mem);
	free(t);
	return 0;
}

static ino_t ino_of(struct tree *t, const char *path)
{
	struct stat sb;

	assert_int_equal(fstatat(t->sh.root_fd, path, &sb,
				 AT_SYMLINK_NOFOLLOW),
			 0);
	return sb.st_ino;
}

static void test_exact_has_lstat(void **state)
{
	struct tree *t = *state;
	struct vfs_resolved r;

	assert_true(NT_STATUS_IS_OK(
		vfs_resolve(t->mem, &t->sh, "Sub/Report.TXT", &r)));
	assert_true(r.exists);
	assert_string_equal(r.path, "Sub/Report.TXT");
	assert_true(r.have_stat);
	assert_true(S_ISREG(r.stat.st_mode));
	assert_int_equal(r.stat.st_ino, ino_of(t, "Sub/Report.TXT"));
	/* A symlink is stat'ed as itself: following it is the caller's
	 * business under the share's rules. */
	assert_true(NT_STATUS_IS_OK(vfs_resolve(t->mem, &t->sh, "link", &r)));
	assert_true(r.exists && r.have_stat);
	assert_true(S_ISLNK(r.stat.st_mode));
}

static void test_other_case_has_lstat(void **state)
{
	struct tree *t = *state;
	struct vfs_resolved r;

	assert_true(NT_STATUS_IS_OK(
		vfs_resolve(t->mem, &t->sh, "Sub/REPORT.txt", &r)));
	assert_true(r.exists);
	assert_string_equal(r.path, "Sub/Report.TXT");
	assert_true(r.have_stat);
	assert_int_equal(r.stat.st_ino, ino_of(t, "Sub/Report.TXT"));
	/* Through the walk (the parent in another case): the right name,
	 * the stat left to the caller. */
	assert_true(NT_STATUS_IS_OK(
		vfs_resolve(t->mem, &t->sh, "SUB/report.txt", &r)));
	assert_true(r.exists);
	assert_string_equal(r.path, "Sub/Report.TXT");
}

static void test_known_absent(void **state)
{
	struct tree *t = *state;
	struct vfs_resolved r;

	/* A new name: not there, its parent is. */
	assert_true(NT_STATUS_IS_OK(
		vfs_resolve_known(t->mem, &t->sh, "Sub/new.txt", true, &r)));
	assert_false(r.exists);
	assert_false(r.have_stat);
	assert_true(r.parent_exists);
	assert_string_equal(r.path, "Sub/new.txt");
	/* Absent as spelled, there in another case: found, on-disk name. */
	assert_true(NT_STATUS_IS_OK(vfs_resolve_known(
		t->mem, &t->sh, "Sub/report.txt", true, &r)));
	assert_true(r.exists);
	assert_string_equal(r.path, "Sub/Report.TXT");
	/* A missing directory on the way is still PATH_NOT_FOUND. */
	assert_int_equal(vfs_resolve_known(t->mem, &t->sh, "Nope/x", true, &r),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
}

static void test_veto_not_exact(void **state)
{
	struct tree *t = *state;
	struct vfs_resolved r;
	NTSTATUS st;

	assert_false(vfs_path_vetoed(&t->sh, "Sub/Report.TXT"));
	t->sh.veto_files = "*.TXT";
	t->sh.case_sensitive = true;
	assert_true(vfs_path_vetoed(&t->sh, "Sub/Report.TXT"));
	assert_false(vfs_path_vetoed(&t->sh, "Sub/x.doc"));
	st = vfs_resolve(t->mem, &t->sh, "Sub/Report.TXT", &r);
	assert_int_equal(st, NT_STATUS_OBJECT_NAME_NOT_FOUND);
	t->sh.veto_files = NULL;
	t->sh.case_sensitive = false;
}

static void test_parent_id(void **state)
{
	struct tree *t = *state;
	struct vfs_file_id id, root = vfs_file_id_of_fd(t->sh.root_fd);

	id = vfs_parent_id(t->sh.root_fd, "Sub/Report.TXT");
	assert_int_equal(id.ino, ino_of(t, "Sub"));
	assert_true(id.dev != 0);
	id = vfs_parent_id(t->sh.root_fd, "Top.txt");
	assert_int_equal(id.ino, root.ino);
	id = vfs_parent_id(t->sh.root_fd, "");
	assert_int_equal(id.ino, 0);
	id = vfs_parent_id(t->sh.root_fd, "Gone/x");
	assert_int_equal(id.ino, 0);
}

static void test_max_access_need(void **state)
{
	struct tree *t = *state;
	uint32_t a;

	/* Everything asked: a file we may read and write. */
	a = smb2_mode_max_access(t->sh.root_fd, "Top.txt", false, false,
				 false, SMB2_MAX_ACCESS_ALL);
	assert_true(a & SEC_FILE_READ_DATA);
	assert_true(a & SEC_FILE_WRITE_DATA);
	assert_false(a & SEC_STD_DELETE);
	/* Only reading asked: no write check made, no write right. */
	a = smb2_mode_max_access(t->sh.root_fd, "Top.txt", false, false,
				 false, SEC_FILE_READ_DATA);
	assert_true(a & SEC_FILE_READ_DATA);
	assert_false(a & SEC_FILE_WRITE_DATA);
	/* Only attributes: neither check. */
	a = smb2_mode_max_access(t->sh.root_fd, "Top.txt", false, false,
				 false, 0);
	assert_false(a & (SEC_FILE_READ_DATA | SEC_FILE_WRITE_DATA));
	assert_true(a & SEC_FILE_READ_ATTRIBUTE);
	/* Only writing asked, on a read-only share: nothing to check. */
	a = smb2_mode_max_access(t->sh.root_fd, "Top.txt", true, false,
				 true, SEC_FILE_WRITE_DATA);
	assert_false(a & SEC_FILE_WRITE_DATA);
	assert_false(a & SEC_STD_DELETE);
	/* A missing name is neither readable nor writable. */
	a = smb2_mode_max_access(t->sh.root_fd, "gone", false, false, false,
				 SMB2_MAX_ACCESS_ALL);
	assert_false(a & (SEC_FILE_READ_DATA | SEC_FILE_WRITE_DATA));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_has_lstat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_other_case_has_lstat,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_absent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_veto_not_exact, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_parent_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_max_access_need, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
