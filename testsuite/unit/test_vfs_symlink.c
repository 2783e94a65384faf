/*
 * vfs/symlink.c on a real directory tree (a temporary one): how a link's
 * target is shown (an absolute target inside the share rewritten
 * relative to the link's directory, one outside left as it is), the
 * check of a target a client asks for, and the replacement of an empty
 * file or directory by a link and back (FSCTL_SET/DELETE_REPARSE_POINT),
 * with the refusals for what must not be replaced.  Also the reparse
 * attributes vfs_statx_to_info and the DOS attributes give each type.
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
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <talloc.h>

#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/anchor.h"
#include "vfs/symlink.h"

struct tree {
	char dir[64];
	struct vfs_share sh;
	TALLOC_CTX *mem;
};

static void put_file(int dirfd, const char *name, const char *data)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd != -1);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

/* root/a/b/, root/a/f.txt ("x"), root/empty, root/edir/ */
static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	strcpy(t->dir, "/tmp/test_vfs_symlink.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->sh.root_fd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(t->sh.root_fd != -1);
	t->sh.path = t->dir;
	t->sh.follow_symlinks = true;
	assert_int_equal(mkdirat(t->sh.root_fd, "a", 0755), 0);
	assert_int_equal(mkdirat(t->sh.root_fd, "a/b", 0755), 0);
	assert_int_equal(mkdirat(t->sh.root_fd, "edir", 0755), 0);
	put_file(t->sh.root_fd, "a/f.txt", "x");
	put_file(t->sh.root_fd, "empty", "");
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

static void check_target(struct tree *t, const char *link_path,
			 const char *on_disk, const char *shown, bool rel)
{
	char *got;
	bool relative;

	assert_int_equal(symlinkat(on_disk, t->sh.root_fd, link_path), 0);
	assert_int_equal(vfs_link_target(t->mem, &t->sh, t->sh.root_fd,
					 link_path, link_path, &got,
					 &relative),
			 NT_STATUS_OK);
	assert_string_equal(got, shown);
	assert_int_equal(relative, rel);
	assert_int_equal(unlinkat(t->sh.root_fd, link_path, 0), 0);
}

static void test_target_shown(void **state)
{
	struct tree *t = *state;
	char abs[256];
	int fd;
	char *got;
	bool rel;

	check_target(t, "a/l1", "f.txt", "f.txt", true);
	check_target(t, "a/l2", "../empty", "../empty", true);
	check_target(t, "a/l3", "/etc/passwd", "/etc/passwd", false);
	snprintf(abs, sizeof(abs), "%s/a/f.txt", t->dir);
	check_target(t, "a/b/l4", abs, "../f.txt", true);
	check_target(t, "l5", abs, "a/f.txt", true);
	snprintf(abs, sizeof(abs), "%s/./a/../edir/", t->dir);
	check_target(t, "a/b/l6", abs, "../../edir", true);
	snprintf(abs, sizeof(abs), "%s", t->dir);
	check_target(t, "a/l7", abs, "..", true);
	check_target(t, "l8", abs, ".", true);
	/* a sibling of the share is outside it */
	snprintf(abs, sizeof(abs), "%sX/f", t->dir);
	check_target(t, "l9", abs, abs, false);
	/* through an O_PATH descriptor of the link itself */
	assert_int_equal(symlinkat("f.txt", t->sh.root_fd, "a/lp"), 0);
	fd = openat(t->sh.root_fd, "a/lp", O_PATH | O_NOFOLLOW);
	assert_true(fd != -1);
	assert_int_equal(vfs_link_target(t->mem, &t->sh, fd, "", "a/lp",
					 &got, &rel),
			 NT_STATUS_OK);
	assert_string_equal(got, "f.txt");
	close(fd);
	/* not a link */
	assert_int_not_equal(vfs_link_target(t->mem, &t->sh, t->sh.root_fd,
					     "empty", "empty", &got, &rel),
			     NT_STATUS_OK);
}

static void test_target_inside(void **state)
{
	(void)state;
	assert_true(vfs_link_target_inside("l", "x"));
	assert_true(vfs_link_target_inside("l", "./x/../y"));
	assert_true(vfs_link_target_inside("a/l", ".."));
	assert_true(vfs_link_target_inside("a/b/l", "../../x"));
	assert_true(vfs_link_target_inside("a/l", "x//y/"));
	assert_false(vfs_link_target_inside("l", ".."));
	assert_false(vfs_link_target_inside("a/l", "../.."));
	assert_false(vfs_link_target_inside("a/l", "x/../../../y"));
	assert_false(vfs_link_target_inside("a/l", "/etc"));
	assert_false(vfs_link_target_inside("a/l", ""));
	/* a ".." below the root first, back inside later: still out */
	assert_false(vfs_link_target_inside("l", "../share/x"));
}

static struct vfs_file_id id_of(struct tree *t, const char *path)
{
	struct vfs_file_id id = {0, 0};
	int fd = openat(t->sh.root_fd, path, O_PATH | O_NOFOLLOW);

	if (fd != -1) {
		id = vfs_file_id_of_fd(fd);
		close(fd);
	}
	return id;
}

static void assert_link(struct tree *t, const char *path, const char *target)
{
	char buf[256];
	ssize_t n = readlinkat(t->sh.root_fd, path, buf, sizeof(buf));

	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, target);
}

static void test_replace(void **state)
{
	struct tree *t = *state;
	struct vfs_file_id id, other = {1, 1};
	struct stat sb;

	/* an empty file becomes a link; its target may change */
	id = id_of(t, "empty");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "empty",
					  &other, "a/f.txt"),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "empty", &id,
					  "a/f.txt"),
			 NT_STATUS_OK);
	assert_link(t, "empty", "a/f.txt");
	id = id_of(t, "empty");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "empty", &id,
					  "edir"),
			 NT_STATUS_OK);
	assert_link(t, "empty", "edir");
	/* an empty directory too; not one with entries */
	id = id_of(t, "a");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "a", &id,
					  "edir"),
			 NT_STATUS_DIRECTORY_NOT_EMPTY);
	assert_int_equal(fstatat(t->sh.root_fd, "a/f.txt", &sb, 0), 0);
	id = id_of(t, "a/b");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "a/b", &id,
					  "../edir"),
			 NT_STATUS_OK);
	assert_link(t, "a/b", "../edir");
	/* a file with data is not thrown away */
	id = id_of(t, "a/f.txt");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "a/f.txt",
					  &id, "x"),
			 NT_STATUS_NOT_SUPPORTED);
	assert_int_equal(fstatat(t->sh.root_fd, "a/f.txt", &sb,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(sb.st_mode));
	/* a FIFO is another kind of reparse point */
	assert_int_equal(mkfifoat(t->sh.root_fd, "p", 0644), 0);
	id = id_of(t, "p");
	assert_int_equal(vfs_link_replace(&t->sh, t->sh.root_fd, "p", &id,
					  "x"),
			 NT_STATUS_IO_REPARSE_TAG_MISMATCH);
	/* a link that cannot be made (a name too long for the file
	 * system) puts the empty file back */
	put_file(t->sh.root_fd, "e2", "");
	id = id_of(t, "e2");
	{
		char longt[5000];

		memset(longt, 'x', sizeof(longt) - 1);
		longt[sizeof(longt) - 1] = '\0';
		assert_int_not_equal(vfs_link_replace(&t->sh, t->sh.root_fd,
						      "e2", &id, longt),
				     NT_STATUS_OK);
	}
	assert_int_equal(fstatat(t->sh.root_fd, "e2", &sb,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(sb.st_mode));
}

static void test_unreplace(void **state)
{
	struct tree *t = *state;
	struct vfs_file_id id;
	struct stat sb;

	assert_int_equal(symlinkat("a/f.txt", t->sh.root_fd, "lf"), 0);
	assert_int_equal(symlinkat("edir", t->sh.root_fd, "ld"), 0);
	assert_int_equal(symlinkat("nowhere", t->sh.root_fd, "ln"), 0);
	/* not a link, or not the one meant */
	id = id_of(t, "empty");
	assert_int_equal(vfs_link_unreplace(&t->sh, t->sh.root_fd, "empty",
					    &id, 0644, 0755),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(vfs_link_unreplace(&t->sh, t->sh.root_fd, "lf", &id,
					    0644, 0755),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	id = id_of(t, "lf");
	assert_int_equal(vfs_link_unreplace(&t->sh, t->sh.root_fd, "lf", &id,
					    0640, 0755),
			 NT_STATUS_OK);
	assert_int_equal(fstatat(t->sh.root_fd, "lf", &sb,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_size, 0);
	assert_int_equal(sb.st_mode & 0777, 0640);
	id = id_of(t, "ld");
	assert_int_equal(vfs_link_unreplace(&t->sh, t->sh.root_fd, "ld", &id,
					    0644, 0750),
			 NT_STATUS_OK);
	assert_int_equal(fstatat(t->sh.root_fd, "ld", &sb,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(sb.st_mode));
	id = id_of(t, "ln");
	assert_int_equal(vfs_link_unreplace(&t->sh, t->sh.root_fd, "ln", &id,
					    0644, 0755),
			 NT_STATUS_OK);
	assert_int_equal(fstatat(t->sh.root_fd, "ln", &sb,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(sb.st_mode));
}

/* statx of name under the root, not following, into fi with its DOS
 * attributes from the mode. */
static void info_of(struct tree *t, const char *name,
		    struct vfs_file_info *fi)
{
	struct statx stx;

	assert_int_equal(statx(t->sh.root_fd, name, AT_SYMLINK_NOFOLLOW,
			       STATX_BASIC_STATS, &stx),
			 0);
	vfs_statx_to_info(&stx, fi);
	vfs_fill_dos_attributes(&t->sh, -1, true, name, fi);
}

static void test_reparse_attributes(void **state)
{
	struct tree *t = *state;
	struct vfs_file_info fi;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s;

	assert_int_equal(symlinkat("a/f.txt", t->sh.root_fd, "lnk"), 0);
	info_of(t, "lnk", &fi);
	assert_int_equal(fi.reparse_tag, IO_REPARSE_TAG_SYMLINK);
	assert_true(fi.attributes & FILE_ATTRIBUTE_REPARSE_POINT);
	assert_false(fi.attributes & FILE_ATTRIBUTE_NORMAL);
	assert_int_equal(fi.end_of_file, 0);	/* no data, as NTFS */
	assert_int_equal(fi.allocation_size, 0);
	assert_int_equal(mkfifoat(t->sh.root_fd, "fifo", 0644), 0);
	info_of(t, "fifo", &fi);
	assert_int_equal(fi.reparse_tag, IO_REPARSE_TAG_NFS);
	assert_true(fi.attributes & FILE_ATTRIBUTE_REPARSE_POINT);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", t->dir);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s != -1);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(s);
	info_of(t, "sock", &fi);
	assert_int_equal(fi.reparse_tag, IO_REPARSE_TAG_NFS);
	info_of(t, "a/f.txt", &fi);
	assert_int_equal(fi.reparse_tag, 0);
	assert_false(fi.attributes & FILE_ATTRIBUTE_REPARSE_POINT);
	assert_int_equal(fi.end_of_file, 1);
	info_of(t, "a", &fi);
	assert_int_equal(fi.reparse_tag, 0);
	assert_false(fi.attributes & FILE_ATTRIBUTE_REPARSE_POINT);
	assert_int_equal(vfs_reparse_tag_of_mode(S_IFCHR | 0600),
			 IO_REPARSE_TAG_NFS);
	assert_int_equal(vfs_reparse_tag_of_mode(S_IFBLK | 0600),
			 IO_REPARSE_TAG_NFS);
}

/*
 * The walk (a name in another case takes it: the share is case
 * insensitive) stops on a link the share's rules do not follow and says
 * which; a relative link to a sibling directory is inside the share and
 * followed, though it leaves the directory it is in.
 */
static void test_resolve_stops(void **state)
{
	struct tree *t = *state;
	struct vfs_resolved r;

	assert_int_equal(symlinkat("../edir", t->sh.root_fd, "a/sib"), 0);
	assert_int_equal(symlinkat("/etc", t->sh.root_fd, "a/out"), 0);
	put_file(t->sh.root_fd, "edir/in.txt", "");
	t->sh.case_sensitive = false;
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "A/SIB/IN.TXT", &r),
			 NT_STATUS_OK);
	assert_string_equal(r.path, "a/sib/in.txt");
	assert_true(r.exists);
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "A/OUT/passwd", &r),
			 NT_STATUS_STOPPED_ON_SYMLINK);
	assert_int_equal(r.link_comp, 1);
	assert_string_equal(r.link_path, "a/out");
	/* the last component is not followed: no stop there */
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "A/OUT", &r),
			 NT_STATUS_OK);
	assert_true(r.exists);
	/* `follow symlinks = no`: any link on the way */
	t->sh.follow_symlinks = false;
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "A/SIB/IN.TXT", &r),
			 NT_STATUS_STOPPED_ON_SYMLINK);
	assert_int_equal(r.link_comp, 1);
	assert_string_equal(r.link_path, "a/sib");
	/* the exact spelling goes the fast way and ends in the walk */
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "a/sib/in.txt", &r),
			 NT_STATUS_STOPPED_ON_SYMLINK);
	assert_string_equal(r.link_path, "a/sib");
	t->sh.follow_symlinks = true;
	/* `wide links = yes`: followed out */
	t->sh.wide_links = true;
	assert_int_equal(vfs_resolve(t->mem, &t->sh, "a/out/passwd", &r),
			 NT_STATUS_OK);
	assert_string_equal(r.path, "a/out/passwd");
}

/* An open made through a link names the link: its delete and rename
 * reach the link, never the target; another file's id reaches nothing. */
static void test_anchored_through_link(void **state)
{
	struct tree *t = *state;
	struct vfs_file_id file, dir, other;
	struct stat sb;

	assert_int_equal(symlinkat("a/f.txt", t->sh.root_fd, "lf"), 0);
	assert_int_equal(symlinkat("edir", t->sh.root_fd, "ld"), 0);
	assert_int_equal(symlinkat("../edir", t->sh.root_fd, "a/ld2"), 0);
	file = id_of(t, "a/f.txt");
	dir = id_of(t, "edir");
	other = id_of(t, "empty");
	assert_int_equal(vfs_unlink_anchored(&t->sh, t->sh.root_fd, "lf",
					     false, &other),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(vfs_rename_anchored(&t->sh, t->sh.root_fd, "lf",
					     "lf2", false, 0, &file),
			 NT_STATUS_OK);
	assert_link(t, "lf2", "a/f.txt");
	assert_int_equal(vfs_unlink_anchored(&t->sh, t->sh.root_fd, "lf2",
					     false, &file),
			 NT_STATUS_OK);
	assert_int_not_equal(fstatat(t->sh.root_fd, "lf2", &sb,
				     AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(t->sh.root_fd, "a/f.txt", &sb, 0), 0);
	/* a directory's open through a link: the link goes, not rmdir */
	assert_int_equal(vfs_unlink_anchored(&t->sh, t->sh.root_fd, "ld",
					     true, &dir),
			 NT_STATUS_OK);
	assert_int_equal(vfs_unlink_anchored(&t->sh, t->sh.root_fd, "a/ld2",
					     true, &dir),
			 NT_STATUS_OK);
	assert_int_equal(fstatat(t->sh.root_fd, "edir", &sb, 0), 0);
	assert_true(S_ISDIR(sb.st_mode));
	/* a link the rules do not follow leads nowhere */
	assert_int_equal(symlinkat("edir", t->sh.root_fd, "ld3"), 0);
	t->sh.follow_symlinks = false;
	assert_int_equal(vfs_unlink_anchored(&t->sh, t->sh.root_fd, "ld3",
					     true, &dir),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_target_shown, setup,
						teardown),
		cmocka_unit_test(test_target_inside),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreplace, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reparse_attributes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resolve_stops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_anchored_through_link,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
