/*
 * Reading a directory's names (dirents.c): below both the POSIX module's
 * scans (vfs_posix.c) and the name cache (dircache.c), which call it, and
 * the listings (smbd/smb2/smb2_querydir.c).
 */
#ifndef VFS_DIRENTS_H
#define VFS_DIRENTS_H

#include <stdbool.h>

/* Every name of the directory open as dirfd (O_RDONLY, read from its
 * offset on with getdents64), but "." and "..", to fn until fn returns
 * false: 1 then, 0 at the end, -1 and errno on a read error. */
#define VFS_DENTS_BUF 65536
int vfs_dir_each(int dirfd, bool (*fn)(void *priv, const char *name),
		 void *priv);

#endif
