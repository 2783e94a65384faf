/*
 * A directory's names by getdents64 into one buffer (dirents.h).
 */
#include "vfs/dirents.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int vfs_dir_each(int dirfd, bool (*fn)(void *priv, const char *name),
		 void *priv)
{
	uint8_t *buf = malloc(VFS_DENTS_BUF);

	if (buf == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		ssize_t got = getdents64(dirfd, buf, VFS_DENTS_BUF);
		ssize_t off = 0;

		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			int err = errno;

			free(buf);
			errno = err;
			return got < 0 ? -1 : 0;
		}
		while (off < got) {
			/* Kernel memory in the ABI's layout, not wire
			 * bytes. */
			const struct dirent64 *de =
				(const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0) {
				continue;
			}
			if (!fn(priv, de->d_name)) {
				free(buf);
				return 1;
			}
		}
	}
}
