/*
 * hangfs: a FUSE file system whose opens hang, for test_pool.py (issue
 * 34 item 2): a dead network mount under a share, made on purpose, that
 * Samba's smbd meets as well as ours, so the two are measured on the
 * same hang.  test_pool.py builds it with cc and pkg-config's fuse3 and
 * skips when it cannot (no libfuse3-dev, no /dev/fuse, not root).
 *
 * Usage: hangfs MOUNTPOINT SECONDS [FUSE OPTIONS...]
 *
 * The root directory holds data.txt ("data") and, for any name hang*
 * looked up, an empty regular file whose open waits SECONDS before it
 * succeeds.  Everything is mode 0666/0777 and every user may use it
 * (allow_other), so the server's threads reach it as the test user.
 * Up to 64 calls are served at once, so the hangs overlap as they would
 * on a real mount.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static unsigned hang_secs;

static const char data[] = "data";

static int is_hang(const char *path)
{
	return strncmp(path, "/hang", 5) == 0 && strchr(path + 1, '/') == NULL;
}

static int hfs_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_nlink = 1;
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0777;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/data.txt") == 0) {
		st->st_mode = S_IFREG | 0666;
		st->st_size = sizeof(data) - 1;
		return 0;
	}
	if (is_hang(path)) {
		st->st_mode = S_IFREG | 0666;
		return 0;
	}
	return -ENOENT;
}

static int hfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0) {
		return -ENOTDIR;
	}
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "data.txt", NULL, 0, 0);
	fill(buf, "hang0", NULL, 0, 0);
	return 0;
}

static int hfs_open(const char *path, struct fuse_file_info *fi)
{
	(void)fi;
	if (is_hang(path)) {
		struct timespec ts = {.tv_sec = hang_secs};

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
		}
		return 0;
	}
	return strcmp(path, "/data.txt") == 0 ? 0 : -ENOENT;
}

static int hfs_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	size_t len = sizeof(data) - 1;

	(void)fi;
	if (strcmp(path, "/data.txt") != 0 || off >= (off_t)len) {
		return 0;
	}
	if (size > len - (size_t)off) {
		size = len - (size_t)off;
	}
	memcpy(buf, data + off, size);
	return (int)size;
}

static const struct fuse_operations ops = {
	.getattr = hfs_getattr,
	.readdir = hfs_readdir,
	.open = hfs_open,
	.read = hfs_read,
};

int main(int argc, char **argv)
{
	char *args[32];
	int n = 0, i;

	if (argc < 3 || argc > 20) {
		fprintf(stderr, "usage: hangfs MOUNTPOINT SECONDS [OPTIONS]\n");
		return 2;
	}
	hang_secs = (unsigned)strtoul(argv[2], NULL, 10);
	args[n++] = argv[0];
	args[n++] = "-f";
	args[n++] = "-o";
	args[n++] = "allow_other,max_threads=64";
	for (i = 3; i < argc; i++) {
		args[n++] = argv[i];
	}
	args[n++] = argv[1];
	args[n] = NULL;
	return fuse_main(n, args, &ops, NULL);
}
