/*
 * Small files the server keeps or reads whole outside any share (smb.conf
 * and its includes, the lock directory, state files), with the reason a
 * call failed returned, not left in errno: errno stays in lib/ and vfs/
 * (issue 37), and the callers decide on it (a missing include is skipped,
 * a directory or link that exists already is fine) and log strerror(err).
 * The files of shares go through vfs/.
 */
#ifndef LIB_FILE_H
#define LIB_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include <talloc.h>

/*
 * A whole regular file, NUL-terminated, at most max bytes (or a little
 * more: the buffer doubles from 8 KiB and stops once past max), opened
 * O_NONBLOCK so that a FIFO cannot hang the reader.  NULL with *err set
 * to errno's value: the open's or read's, EISDIR for a directory, EINVAL
 * for any other file that is not regular (/dev/zero, a FIFO), EFBIG past
 * max, ENOMEM.
 */
char *file_read_all(TALLOC_CTX *mem_ctx, const char *path, size_t max,
		    size_t *len, int *err);
/* mkdir(2) and link(2): 0, or -errno (-EEXIST for an existing one). */
int file_mkdir(const char *path, mode_t mode);
int file_link(const char *oldpath, const char *newpath);

#endif
