/*
 * Whole files and small file-system calls with their error returned
 * (design in file.h).
 */
#include "lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

char *file_read_all(TALLOC_CTX *mem_ctx, const char *path, size_t max,
		    size_t *len, int *err)
{
	struct stat sb;
	char *buf = NULL;
	size_t used = 0, alloc = 0;
	int fd;

	/* O_NONBLOCK: a FIFO named by an include must not hang the load. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd == -1) {
		*err = errno;
		return NULL;
	}
	if (fstat(fd, &sb) != 0) {
		goto fail;
	}
	if (S_ISDIR(sb.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	/* Only regular files: not /dev/zero, a FIFO or a terminal. */
	if (!S_ISREG(sb.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (used + 1 >= alloc) {
			char *nb;

			if (alloc > max) {
				errno = EFBIG;
				goto fail;
			}
			alloc = alloc == 0 ? 8192 : alloc * 2;
			nb = talloc_realloc(mem_ctx, buf, char, alloc);
			if (nb == NULL) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + used, alloc - used - 1);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			goto fail;
		}
		if (n == 0) {
			break;
		}
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	*len = used;
	return buf;
fail:
	*err = errno;
	close(fd);
	talloc_free(buf);
	return NULL;
}

int file_mkdir(const char *path, mode_t mode)
{
	return mkdir(path, mode) == 0 ? 0 : -errno;
}

int file_link(const char *oldpath, const char *newpath)
{
	return link(oldpath, newpath) == 0 ? 0 : -errno;
}
