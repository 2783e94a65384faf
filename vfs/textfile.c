/*
 * A small configuration text file read whole: the design is in
 * textfile.h.  The calls are the ones user_map.c made before issue 37:
 * a stat to see whether it changed, then open, fstat, one read, close.
 */
#include "vfs/textfile.h"
#include "vfs/vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void text_stamp(const struct stat *st, struct vfs_text_stamp *out)
{
	out->dev = st->st_dev;
	out->ino = st->st_ino;
	out->size = st->st_size;
	out->mtime = st->st_mtim;
}

bool vfs_text_unchanged(const char *path, const struct vfs_text_stamp *stamp)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == stamp->dev &&
	       st.st_ino == stamp->ino && st.st_size == stamp->size &&
	       st.st_mtim.tv_sec == stamp->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == stamp->mtime.tv_nsec;
}

enum vfs_text_result vfs_text_read(TALLOC_CTX *mem_ctx, const char *path,
				   size_t max, char **text, size_t *len,
				   struct vfs_text_stamp *stamp,
				   NTSTATUS *status)
{
	struct stat st;
	ssize_t n;
	char *t;
	int fd;

	*text = NULL;
	*len = 0;
	*status = NT_STATUS_OK;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*status = vfs_map_errno(errno);
		return VFS_TEXT_NO_OPEN;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)max) {
		close(fd);
		return VFS_TEXT_NOT_SMALL;
	}
	t = talloc_size(mem_ctx, (size_t)st.st_size + 1);
	n = t != NULL ? read(fd, t, (size_t)st.st_size) : -1;
	close(fd);
	if (n < 0) {
		talloc_free(t);
		return VFS_TEXT_NO_READ;
	}
	t[n] = '\0';
	*text = t;
	*len = (size_t)n;
	text_stamp(&st, stamp);
	return VFS_TEXT_OK;
}
