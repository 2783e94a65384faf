/*
 * vfs/module.c: the registry, stack building from `vfs objects` (order,
 * unknown names, duplicates), reference counting, the unlink call
 * through the stack (recycle's move and its pass-through to POSIX), and
 * the snapshot calls (shadow_copy2's list and root), on a scratch
 * directory with options from a fake parameter reader.
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

#include "vfs/module.h"
#include "vfs/catia.h"
#include "vfs/fruit.h"

/* Options of the fake reader: "mod:opt=value" strings. */
static const char *const *fake_opts;

static const char *fake_get(const char *mod, const char *opt)
{
	char key[128];
	size_t n;
	const char *const *o;

	snprintf(key, sizeof(key), "%s:%s=", mod, opt);
	n = strlen(key);
	for (o = fake_opts; o != NULL && *o != NULL; o++) {
		if (strncmp(*o, key, n) == 0) {
			return *o + n;
		}
	}
	return NULL;
}

static const char *fake_str(void *ctx, TALLOC_CTX *mem_ctx, const char *mod,
			    const char *opt)
{
	const char *v = fake_get(mod, opt);

	(void)ctx;
	return v ? talloc_strdup(mem_ctx, v) : NULL;
}

static char *fake_subst(void *ctx, TALLOC_CTX *mem_ctx, const char *v)
{
	(void)ctx;
	return talloc_strdup(mem_ctx, v);
}

static bool fake_bool(void *ctx, const char *mod, const char *opt, bool def)
{
	const char *v = fake_get(mod, opt);

	(void)ctx;
	return v ? strcmp(v, "yes") == 0 : def;
}

static int fake_int(void *ctx, const char *mod, const char *opt, int def)
{
	const char *v = fake_get(mod, opt);

	(void)ctx;
	return v ? (int)strtol(v, NULL, 0) : def;
}

static uint64_t fake_bytes(void *ctx, const char *mod, const char *opt,
			   uint64_t def)
{
	const char *v = fake_get(mod, opt);

	(void)ctx;
	return v ? strtoull(v, NULL, 10) : def;
}

static const char **fake_list(void *ctx, TALLOC_CTX *mem_ctx,
			      const char *mod, const char *opt)
{
	const char *v = fake_get(mod, opt);
	const char **l = talloc_zero_array(mem_ctx, const char *, 2);

	(void)ctx;
	if (l != NULL && v != NULL) {
		l[0] = talloc_strdup(l, v);
	}
	return l;
}

static const struct vfs_module_params fake = {
	fake_str, fake_subst, fake_bool, fake_int, fake_bytes, fake_list,
	NULL,
};

struct scratch {
	char dir[64];
	struct vfs_share sh;
};

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));

	snprintf(s->dir, sizeof(s->dir), "/tmp/test_vfs_module.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	s->sh.root_fd = open(s->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(s->sh.root_fd != -1);
	s->sh.path = s->dir;
	s->sh.follow_symlinks = true;
	*state = s;
	return 0;
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[128];

	close(s->sh.root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	return 0;
}

static void put(struct scratch *s, const char *rel, const char *data)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", s->dir, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(data, f);
	fclose(f);
}

static bool there(struct scratch *s, const char *rel)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", s->dir, rel);
	return lstat(p, &st) == 0;
}

static void test_registry(void **state)
{
	(void)state;
	assert_ptr_equal(vfs_module_find("recycle"), &vfs_module_recycle);
	assert_ptr_equal(vfs_module_find("RECYCLE"), &vfs_module_recycle);
	assert_non_null(vfs_module_find("acl_xattr"));
	assert_non_null(vfs_module_find("streams_xattr"));
	assert_ptr_equal(vfs_module_find("shadow_copy2"),
			 &vfs_module_shadow_copy2);
	assert_ptr_equal(vfs_module_find("snapper"), &vfs_module_snapper);
	assert_ptr_equal(vfs_module_find("catia"), &vfs_module_catia);
	assert_ptr_equal(vfs_module_find("fruit"), &vfs_module_fruit);
	assert_null(vfs_module_find(""));
	/* Samba's I/O back-ends: known, with why they load nothing */
	assert_non_null(vfs_module_find("io_uring"));
	assert_non_null(vfs_module_find("io_uring")->builtin);
	assert_non_null(vfs_module_find("AIO_PTHREAD"));
	assert_non_null(vfs_module_find("aio_pthread")->builtin);
	assert_null(vfs_module_find("recycle")->builtin);
	/* Samba 4.17 has no module called "default" either */
	assert_null(vfs_module_find("default"));
	assert_null(vfs_module_find("full_audit"));
}

static void test_build(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"acl_xattr", "nosuch", "recycle",
					    "io_uring", "ACL_XATTR", "other",
					    NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;

	fake_opts = NULL;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_true(vfs_stack_has(st, "acl_xattr"));
	assert_true(vfs_stack_has(st, "recycle"));
	assert_false(vfs_stack_has(st, "nosuch"));
	assert_false(vfs_stack_has(st, "io_uring"));	/* builtin */
	assert_non_null(vfs_stack_priv(st, "recycle"));
	assert_null(vfs_stack_priv(st, "acl_xattr"));
	assert_non_null(unknown);
	assert_string_equal(unknown[0], "nosuch");
	assert_string_equal(unknown[1], "other");
	assert_null(unknown[2]);
	/* the stack outlives mem: references decide */
	assert_ptr_equal(vfs_stack_ref(st), st);
	talloc_free(mem);
	vfs_stack_unref(st);
	assert_true(vfs_stack_has(st, "recycle"));
	vfs_stack_unref(st);
	/* no modules: an empty stack, nothing unknown */
	mem = talloc_new(NULL);
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, NULL, &fake, &s->sh,
						    &st, &unknown)));
	assert_null(unknown);
	assert_false(vfs_stack_has(st, "recycle"));
	vfs_stack_unref(st);
	talloc_free(mem);
}

/* catia's configuration is its name map: none without catia:mappings,
 * as Samba's catia maps nothing then (issue 17). */
static void test_catia(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"catia", "nosuch", NULL};
	static const char *const opts[] = {"catia:mappings=0x3a:0xf022",
					   NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;

	fake_opts = NULL;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_true(vfs_stack_has(st, "catia"));
	assert_null(vfs_stack_priv(st, "catia"));
	assert_string_equal(unknown[0], "nosuch");
	vfs_stack_unref(st);
	fake_opts = opts;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_int_equal(vfs_name_map_count(vfs_stack_priv(st, "catia")), 1);
	vfs_stack_unref(st);
	fake_opts = NULL;
	talloc_free(mem);
}

/* fruit's configuration: the AFP_AfpInfo rules only with fruit:metadata
 * = stream, the one value built (vfs/fruit.h); any other is logged. */
static void test_fruit(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"catia", "fruit", NULL};
	static const char *const stream[] = {"fruit:metadata=stream",
					     "fruit:aapl=no",
					     "fruit:model=Xserve", NULL};
	static const char *const netatalk[] = {
		"fruit:metadata=netatalk", "fruit:resource=xattr",
		"fruit:wipe_intentionally_left_blank_rfork=yes",
		"fruit:delete_empty_adfiles=yes", NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	const struct vfs_fruit_config *c;
	struct vfs_stack *st;
	const char **unknown;

	fake_opts = NULL;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_null(unknown);
	assert_true(vfs_stack_has(st, "fruit"));
	/* netatalk is the default, as Samba's; so are file and no */
	assert_int_equal(vfs_fruit_meta(st), VFS_FRUIT_META_NETATALK);
	assert_true(vfs_fruit_rsrc_file(st));
	assert_int_equal(vfs_fruit_conv_flags(st), 0);
	c = vfs_fruit_config(st);
	assert_true(c->aapl);
	assert_string_equal(c->model, "MacSamba");
	vfs_stack_unref(st);
	fake_opts = netatalk;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_non_null(vfs_fruit_config(st));
	assert_int_equal(vfs_fruit_meta(st), VFS_FRUIT_META_NETATALK);
	assert_true(vfs_fruit_rsrc_xattr(st));
	assert_int_equal(vfs_fruit_conv_flags(st),
			 VFS_FRUIT_CONV_WIPE_BLANK |
				 VFS_FRUIT_CONV_DELETE_EMPTY |
				 VFS_FRUIT_CONV_RSRC_XATTR);
	vfs_stack_unref(st);
	fake_opts = stream;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	c = vfs_fruit_config(st);
	assert_non_null(c);
	assert_int_equal(c->metadata, VFS_FRUIT_META_STREAM);
	assert_int_equal(vfs_fruit_meta(st), VFS_FRUIT_META_STREAM);
	assert_false(c->aapl);
	assert_string_equal(c->model, "Xserve");
	vfs_stack_unref(st);
	fake_opts = NULL;
	talloc_free(mem);
}

static void test_recycle_unlink(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"recycle", NULL};
	static const char *const opts[] = {"recycle:repository=bin/./x",
					   "recycle:exclude=*.o", NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;

	fake_opts = opts;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	put(s, "a.txt", "a");
	put(s, "b.o", "b");
	assert_true(NT_STATUS_IS_OK(
		vfs_stack_unlink(st, &s->sh, s->sh.root_fd, "a.txt", false,
				 NULL)));
	assert_false(there(s, "a.txt"));
	assert_true(there(s, "bin/x/a.txt"));
	assert_true(NT_STATUS_IS_OK(
		vfs_stack_unlink(st, &s->sh, s->sh.root_fd, "b.o", false,
				 NULL)));
	assert_false(there(s, "b.o"));
	assert_false(there(s, "bin/x/b.o"));
	/* a file that is not the one the caller means is left alone */
	{
		struct vfs_file_id other = {1, 1};

		put(s, "c.txt", "c");
		assert_int_equal(vfs_stack_unlink(st, &s->sh, s->sh.root_fd,
						  "c.txt", false, &other),
				 NT_STATUS_OBJECT_NAME_NOT_FOUND);
		assert_true(there(s, "c.txt"));
		assert_false(there(s, "bin/x/c.txt"));
	}
	/* inside the repository: for real */
	assert_true(NT_STATUS_IS_OK(
		vfs_stack_unlink(st, &s->sh, s->sh.root_fd, "bin/x/a.txt",
				 false, NULL)));
	assert_false(there(s, "bin/x/a.txt"));
	/* directories: for real */
	assert_int_equal(mkdirat(s->sh.root_fd, "d", 0755), 0);
	assert_true(NT_STATUS_IS_OK(vfs_stack_unlink(
		st, &s->sh, s->sh.root_fd, "d", true, NULL)));
	assert_false(there(s, "d"));
	assert_false(there(s, "bin/x/d"));
	/* a NULL stack is the POSIX call */
	put(s, "e.txt", "e");
	assert_true(NT_STATUS_IS_OK(vfs_stack_unlink(
		NULL, &s->sh, s->sh.root_fd, "e.txt", false, NULL)));
	assert_false(there(s, "e.txt"));
	assert_false(there(s, "bin/x/e.txt"));
	vfs_stack_unref(st);
	talloc_free(mem);
}

static void test_recycle_repository_outside(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"recycle", NULL};
	static const char *const bad[][2] = {
		{"recycle:repository=../up", NULL},
		{"recycle:repository=/elsewhere/bin", NULL},
		{"recycle:repository=a/../../b", NULL},
	};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_opts = bad[i];
		assert_false(NT_STATUS_IS_OK(vfs_stack_build(
			mem, names, &fake, &s->sh, &st, &unknown)));
	}
	talloc_free(mem);
}

static void mkdirs(struct scratch *s, const char *rel)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", s->dir, rel);
	assert_int_equal(system(cmd), 0);
}

/*
 * The two snapshots the tests make, 2023-05-06 07:08:09 and 2024-01-02
 * 03:04:05, listed oldest first; the newer one's copy of the share has
 * the directory in_new; there is none at the time absent.
 */
static void check_two_snapshots(struct vfs_stack *st, TALLOC_CTX *mem,
				const struct vfs_share *sh,
				const char *in_new, int64_t absent)
{
	struct stat sb;
	int64_t *times;
	size_t n;
	int fd;

	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_list(st, mem, sh, &times,
							&n)));
	assert_int_equal(n, 2);
	assert_int_equal(times[0], 1683356889);
	assert_int_equal(times[1], 1704164645);
	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_root(st, sh, 1704164645,
							&fd)));
	assert_int_equal(fstatat(fd, in_new, &sb, 0), 0);
	assert_true(S_ISDIR(sb.st_mode));
	close(fd);
	assert_int_equal(vfs_stack_snap_root(st, sh, absent, &fd),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(fd, -1);
}

/* shadow_copy2: snapshots found by format, sorted, opened by time. */
static void test_shadow_copy2(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"shadow_copy2", NULL};
	char mp[128];
	const char *opts[] = {mp, "shadow:sort=asc",
			      "shadow:format=s_%Y%m%d_%H%M%S", NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;
	int64_t *times;
	size_t n;
	int fd;

	snprintf(mp, sizeof(mp), "shadow:mountpoint=%s", s->dir);
	fake_opts = opts;
	mkdirs(s, ".snapshots/s_20240102_030405/dir");
	mkdirs(s, ".snapshots/s_20230506_070809");
	mkdirs(s, ".snapshots/s_2023050_070809x");
	mkdirs(s, ".snapshots/@GMT-2022.01.01-00.00.00");
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_true(vfs_stack_has_snapshots(st));
	check_two_snapshots(st, mem, &s->sh, "dir", 1704164646);
	vfs_stack_unref(st);
	/* without the module: no snapshots, none to open */
	assert_false(vfs_stack_has_snapshots(NULL));
	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_list(NULL, mem, &s->sh,
							&times, &n)));
	assert_int_equal(n, 0);
	assert_int_equal(vfs_stack_snap_root(NULL, &s->sh, 0, &fd),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	talloc_free(mem);
}

/*
 * A .snapshots inside the share is opened with the share's rules even
 * when smb.conf names the mount point through a symlink: a user who
 * makes .snapshots a symlink out of the share gets no snapshots from
 * there.
 */
static void test_shadow_copy2_confined(void **state)
{
	struct scratch *s = *state;
	static const char *const names[] = {"shadow_copy2", NULL};
	char mp[160], link[96], out[96], cmd[1024];
	const char *opts[] = {mp, NULL};
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;
	const char **unknown;
	int64_t *times;
	size_t n;

	snprintf(link, sizeof(link), "%s.link", s->dir);
	snprintf(out, sizeof(out), "%s.out", s->dir);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s %s && ln -s %s %s && "
		 "mkdir -p %s/@GMT-2024.01.02-03.04.05 && "
		 "ln -s %s %s/.snapshots",
		 link, out, s->dir, link, out, out, s->dir);
	assert_int_equal(system(cmd), 0);
	snprintf(mp, sizeof(mp), "shadow:mountpoint=%s", link);
	fake_opts = opts;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, &s->sh,
						    &st, &unknown)));
	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_list(st, mem, &s->sh,
							&times, &n)));
	assert_int_equal(n, 0);
	vfs_stack_unref(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", link, out);
	assert_int_equal(system(cmd), 0);
	talloc_free(mem);
}

static void put_info(struct scratch *s, const char *num, const char *date)
{
	char rel[128], doc[256];

	snprintf(rel, sizeof(rel), ".snapshots/%s/snapshot/dir", num);
	mkdirs(s, rel);
	snprintf(rel, sizeof(rel), ".snapshots/%s/info.xml", num);
	snprintf(doc, sizeof(doc),
		 "<?xml version=\"1.0\"?>\n<snapshot>\n  <type>single</type>\n"
		 "  <num>%s</num>\n  <date>%s</date>\n</snapshot>\n", num,
		 date);
	put(s, rel, doc);
}

static struct vfs_stack *snapper_stack(TALLOC_CTX *mem, struct scratch *s,
				       const struct vfs_share *sh)
{
	static const char *const names[] = {"snapper", NULL};
	struct vfs_stack *st;
	const char **unknown;

	fake_opts = NULL;
	assert_true(NT_STATUS_IS_OK(vfs_stack_build(mem, names, &fake, sh,
						    &st, &unknown)));
	assert_true(vfs_stack_has_snapshots(st));
	(void)s;
	return st;
}

/* snapper: numbered snapshots with a valid info.xml, oldest first,
 * opened by the time of their <date>; the rest skipped. */
static void test_snapper(void **state)
{
	struct scratch *s = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_stack *st;

	put_info(s, "1", "2024-01-02 03:04:05");
	put_info(s, "3", "2023-05-06 07:08:09");
	put_info(s, "2", "2024-01-02 03:04");		/* malformed */
	put_info(s, "0", "2022-01-01 00:00:00");	/* the live system */
	put_info(s, "04", "2022-01-01 00:00:00");	/* not snapper's name */
	mkdirs(s, ".snapshots/5/snapshot");		/* no info.xml */
	mkdirs(s, ".snapshots/6/snapshot");		/* a FIFO */
	assert_int_equal(mkfifoat(s->sh.root_fd, ".snapshots/6/info.xml",
				  0600), 0);
	st = snapper_stack(mem, s, &s->sh);
	check_two_snapshots(st, mem, &s->sh, "dir", 1640995200);
	vfs_stack_unref(st);
	talloc_free(mem);
}

/* The share below the subvolume: .snapshots found above it, the
 * share's path below the subvolume taken into each snapshot. */
static void test_snapper_above(void **state)
{
	struct scratch *s = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct vfs_share sub = s->sh;
	char path[128];
	struct vfs_stack *st;
	int fd;

	put_info(s, "1", "2024-01-02 03:04:05");
	put_info(s, "2", "2023-05-06 07:08:09");
	mkdirs(s, ".snapshots/1/snapshot/a/share/only_old");
	mkdirs(s, "a/share");
	snprintf(path, sizeof(path), "%s/a/share", s->dir);
	sub.path = path;
	sub.root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(sub.root_fd != -1);
	st = snapper_stack(mem, s, &sub);
	check_two_snapshots(st, mem, &sub, "only_old", 1640995200);
	/* snapshot 2 has no copy of a/share */
	assert_int_equal(vfs_stack_snap_root(st, &sub, 1683356889, &fd),
			 NT_STATUS_OBJECT_PATH_NOT_FOUND);
	vfs_stack_unref(st);
	close(sub.root_fd);
	talloc_free(mem);
}

/*
 * Confinement: a .snapshots of the share swapped for a symlink out of
 * the share after tree connect gives nothing; an info.xml or a
 * snapshot directory that is a symlink out of .snapshots is not
 * followed.
 */
static void test_snapper_confined(void **state)
{
	struct scratch *s = *state;
	TALLOC_CTX *mem = talloc_new(NULL);
	char out[96], cmd[1024];
	struct vfs_stack *st;
	int64_t *times;
	size_t n;
	int fd;

	snprintf(out, sizeof(out), "%s.out", s->dir);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && mkdir -p %s/snaps/1/snapshot %s/real && "
		 "cp -r %s/snaps/1 %s/snaps/2",
		 out, out, out, out, out);
	assert_int_equal(system(cmd), 0);
	put_info(s, "1", "2024-01-02 03:04:05");
	put_info(s, "2", "2023-05-06 07:08:09");
	put_info(s, "3", "2022-01-01 00:00:00");
	/* 2's info.xml and 3's snapshot lead out of .snapshots */
	snprintf(cmd, sizeof(cmd),
		 "printf '<snapshot><date>2021-01-01 00:00:00</date>"
		 "</snapshot>' > %s/info.xml && "
		 "rm %s/.snapshots/2/info.xml && "
		 "ln -s %s/info.xml %s/.snapshots/2/info.xml && "
		 "rm -r %s/.snapshots/3/snapshot && "
		 "ln -s %s/real %s/.snapshots/3/snapshot",
		 out, s->dir, out, s->dir, s->dir, out, s->dir);
	assert_int_equal(system(cmd), 0);
	st = snapper_stack(mem, s, &s->sh);
	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_list(st, mem, &s->sh,
							&times, &n)));
	assert_int_equal(n, 2);	/* 1 and 3, not 2 */
	assert_int_equal(times[0], 1640995200);
	assert_int_equal(times[1], 1704164645);
	assert_false(NT_STATUS_IS_OK(vfs_stack_snap_root(st, &s->sh,
							 1640995200, &fd)));
	assert_int_equal(fd, -1);
	/* the share's .snapshots becomes a symlink out of the share */
	snprintf(cmd, sizeof(cmd),
		 "cp %s/.snapshots/1/info.xml %s/snaps/1/ && "
		 "rm -rf %s/.snapshots && ln -s %s/snaps %s/.snapshots",
		 s->dir, out, s->dir, out, s->dir);
	assert_int_equal(system(cmd), 0);
	assert_true(NT_STATUS_IS_OK(vfs_stack_snap_list(st, mem, &s->sh,
							&times, &n)));
	assert_int_equal(n, 0);
	/* openat2 refuses the way out (EXDEV) */
	assert_int_equal(vfs_stack_snap_root(st, &s->sh, 1704164645, &fd),
			 NT_STATUS_ACCESS_DENIED);
	assert_int_equal(fd, -1);
	vfs_stack_unref(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", out);
	assert_int_equal(system(cmd), 0);
	talloc_free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test_setup_teardown(test_build, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_catia, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_fruit, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_recycle_unlink,
						scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_recycle_repository_outside,
						scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_shadow_copy2,
						scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_shadow_copy2_confined,
						scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_snapper, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_snapper_above,
						scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_snapper_confined,
						scratch_setup,
						scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
