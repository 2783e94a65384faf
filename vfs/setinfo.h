/*
 * The file-system calls of SET_INFO (MS-SMB2 3.3.5.21, MS-FSA 2.1.5.14)
 * other than the data ops (end of file, allocation): a mode or times set
 * through /proc/self/fd/N, so an attribute-only (O_PATH) open can change
 * them as the kernel lets its user; attributes kept in the mode bits;
 * EAs as user.* xattrs; the emptiness of a directory for a delete; what
 * a rename's target is.  Each returns NTSTATUS (or the yes/no the
 * handler asks), errno mapped here (issue 37 item 1), with the special
 * cases the handler made on an errno turned into results of their own:
 * an EA removal of one that is not there succeeds, an EA too large for
 * the file system is EA_TOO_LARGE.  They run in the caller's thread,
 * the SET_INFO pool job's, as the session's user.
 */
#ifndef VFS_SETINFO_H
#define VFS_SETINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "vfs/vfs.h"

/* chmod of fd's file (any fd, O_PATH too), as the calling user. */
NTSTATUS vfs_fd_chmod(int fd, mode_t mode);

/* utimensat of fd's file (any fd, O_PATH too); ts as utimensat takes
 * them (UTIME_OMIT leaves one as it is). */
NTSTATUS vfs_fd_set_times(int fd, const struct timespec ts[2]);

/* `store dos attributes = no`: attrs into fd's mode bits as
 * vfs_mode_with_dos maps them (vfs_posix.h), the chmod only when the
 * mode changes. */
NTSTATUS vfs_fd_dos_mode(const struct vfs_share *sh, int fd, uint32_t attrs);

/* Whether the directory fd (any fd, O_PATH too) has no entry but "."
 * and "..": true too when it cannot be read (the delete then says). */
bool vfs_dir_is_empty(int fd);

/* Whether path (share-relative) is a directory itself, not followed if
 * a symlink, its parent opened under the share's rules; false when it
 * cannot be looked at. */
bool vfs_entry_is_dir(const struct vfs_share *sh, int root_fd,
		      const char *path);

/* The EA xattr (a full name, "user.NAME") of fd := val; len 0 removes
 * it, which succeeds when it is not there.  EA_TOO_LARGE when the file
 * system refuses the value's size (E2BIG, ERANGE). */
NTSTATUS vfs_ea_fset(int fd, const char *xattr, const void *val, size_t len);

#endif
