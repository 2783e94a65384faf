/*
 * The plain file calls the FSCTL, copy, GET_INFO and SET_INFO handlers
 * of smbd/smb2/ make on fds they hold (issue 37 item 1): a second fd on
 * an open file for a pool job, its close, its stat, and the data calls
 * of a server-side copy and of a zeroing write.  Each is one system call
 * (or the loop of them a short transfer needs) behind a function that
 * returns NTSTATUS, errno mapped here by vfs_map_errno and nowhere
 * above; where a caller decides on a particular errno, the function
 * gives that decision a result of its own (the kernel copy's "cannot",
 * the short read's count).  Nothing here chooses a thread: each runs
 * where its caller runs, as the syscall did before.
 */
#ifndef VFS_FSCTL_IO_H
#define VFS_FSCTL_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "vfs/vfs.h"

/* A second descriptor on fd's open file (F_DUPFD_CLOEXEC), for a pool
 * job that may outlive the open: *out, or -1 and vfs_map_errno of why. */
NTSTATUS vfs_fd_dup(int fd, int *out);

/* close(2) of a descriptor of ours (-1: nothing); its error says
 * nothing the caller could act on. */
void vfs_fd_close(int fd);

/* fstat(2). */
NTSTATUS vfs_fd_stat(int fd, struct stat *sb);

/* futimens(2): ts as utimensat(2) takes them (UTIME_OMIT leaves one). */
NTSTATUS vfs_fd_utimens(int fd, const struct timespec ts[2]);

/* Whether the calling user may add and remove entries of the directory
 * dirfd (any fd, O_PATH too): faccessat W_OK|X_OK with the effective
 * ids, as the kernel will check the change itself. */
bool vfs_dir_writable(int dirfd);

/* Whether the share's openat2 rules refuse the way to path, a symbolic
 * link on it leaving the share or not to be followed (ELOOP, EXDEV of
 * vfs_stat_beneath); false when path is reached or missing. */
bool vfs_link_refused(const struct vfs_share *sh, int root_fd,
		      const char *path);

/*
 * len bytes of src_fd at src_off to dst_fd at dst_off by
 * copy_file_range(2), which lets the file system share or clone blocks.
 * false when nothing was copied because the kernel or the file system
 * cannot (EXDEV, EINVAL: overlapping ranges within one file, ENOSYS,
 * EOPNOTSUPP, EBADF): the caller copies through a buffer instead.
 * true otherwise, with *status: OK, vfs_map_errno of a later error, or
 * INVALID_VIEW_SIZE when the source ended before len bytes.
 */
bool vfs_copy_range(int src_fd, uint64_t src_off, int dst_fd,
		    uint64_t dst_off, size_t len, NTSTATUS *status);

/* pread(2) until len bytes or the end of the file: *done says how many
 * were read (fewer than len only at the end). */
NTSTATUS vfs_pread_all(int fd, void *buf, size_t len, uint64_t off,
		       size_t *done);

/* pwrite(2) of all len bytes; DISK_FULL when the file takes no more. */
NTSTATUS vfs_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

#endif
