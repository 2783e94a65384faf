/*
 * tdb_open with its error returned (design in tdbfile.h).
 */
#include "lib/tdbfile.h"

#include <errno.h>

struct tdb_context *tdbfile_open(const char *path, int hash_size,
				 int tdb_flags, int open_flags, mode_t mode,
				 int *err)
{
	struct tdb_context *tdb = tdb_open(path, hash_size, tdb_flags,
					   open_flags, mode);

	if (tdb == NULL) {
		*err = errno;
	}
	return tdb;
}
