/*
 * Directories as the listings and the change watches read them
 * (dirread.c): the calls QUERY_DIRECTORY (smbd/smb2/smb2_querydir.c)
 * and CHANGE_NOTIFY's WATCH_TREE walk (smbd/smb2/smb2_notify.c) make on
 * an open directory, each one system call (or the batched getdents64
 * pass of vfs_dir_each) behind a plain function call, errno mapped here
 * (vfs_map_errno) so the handlers read none (issue 37).
 *
 * Each runs on the thread that calls it: the listing's pool job (and its
 * stat-ahead helper thread, for the functions marked thread-safe), the
 * walk's pool job, or the loop thread for the few a handler makes there
 * (vfs_dir_reopen_path, vfs_dir_open_sub_path, vfs_dir_close).  None
 * keeps state.
 */
#ifndef VFS_DIRREAD_H
#define VFS_DIRREAD_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/ntstatus.h"

struct vfs_share;

/* Close a descriptor these functions (or an open) gave. */
void vfs_dir_close(int fd);

/* A description of its own of the directory open as dirfd (O_RDONLY,
 * or O_PATH with path_only): its file offset is not the open's. */
NTSTATUS vfs_dir_reopen(int dirfd, bool path_only, int *fd);

/* dirfd's subdirectory rel ('/'-separated), O_PATH, not following a
 * symlink in its last component. */
NTSTATUS vfs_dir_open_sub_path(int dirfd, const char *rel, int *fd);

/* A second descriptor of fd (close-on-exec). */
NTSTATUS vfs_dir_dup(int fd, int *out);

/* Whether name (in dirfd) exists, not following a symlink. */
bool vfs_dir_entry_exists(int dirfd, const char *name);

/* Every name of the directory open as dirfd but "." and "..", read on a
 * description of its own, to fn until it returns false (then *cut is
 * true).  NT_STATUS_OK, or the read's error. */
NTSTATUS vfs_dir_read_names(int dirfd,
			    bool (*fn)(void *priv, const char *name),
			    void *priv, bool *cut);

/* statx of name in dirfd, not following a symlink, basic stats and the
 * birth time; false when it cannot be looked at.  Thread-safe. */
bool vfs_dir_entry_statx(int dirfd, const char *name, struct statx *stx);

/* An O_PATH descriptor of the entry name in dirfd, not followed if a
 * symlink: -1 when it cannot be opened (gone). */
int vfs_dir_entry_opath(int dirfd, const char *name);

/* Whether path (share-relative) leads somewhere under the share's rules
 * (sh: vfs_openat_beneath's), opened O_PATH and closed again. */
bool vfs_dir_path_reachable(const struct vfs_share *sh, int dirfd,
			    const char *path);

/* Whether the calling thread's user may remove entries of the
 * directory dirfd by its mode: write and search on it (AT_EACCESS). */
bool vfs_dir_may_delete_child(int dirfd);

/* The calling thread's effective uid (the pool switches it per
 * thread). */
uid_t vfs_dir_euid(void);

/*
 * The subdirectories of the directory open as dirfd, each opened as the
 * calling thread's user (O_RDONLY: the user must be able to open it; not
 * following a symlink) and given to fn with its name; one that cannot be
 * opened is left out.  fn returns false to stop the walk; the descriptor
 * is closed after it returns.  The names are read by readdir on a
 * description of its own (d_type: no stat per entry).  Nothing is walked
 * when dirfd cannot be reopened.
 */
void vfs_dir_each_subdir(int dirfd,
			 bool (*fn)(void *priv, int subfd, const char *name),
			 void *priv);

#endif
