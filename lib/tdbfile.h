/*
 * tdb_open(3) with the reason it failed: tdb leaves it in errno (the
 * open(2)'s, or EIO, EINVAL... of its own checks), and errno stays in lib/
 * and vfs/ (issue 37).  The caller decides on it (passdb retries
 * read-only on EACCES, says "not found" on ENOENT) and logs strerror(err).
 */
#ifndef LIB_TDBFILE_H
#define LIB_TDBFILE_H

#include <sys/types.h>
#include <tdb.h>

/* tdb_open(path, hash_size, tdb_flags, open_flags, mode); NULL with
 * errno's value in *err. */
struct tdb_context *tdbfile_open(const char *path, int hash_size,
				 int tdb_flags, int open_flags, mode_t mode,
				 int *err);

#endif
