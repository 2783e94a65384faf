/*
 * The kernel's change watches (watch.c): inotify for CHANGE_NOTIFY
 * (smbd/smb2/smb2_notify.c: one descriptor per worker, a watch per
 * watched directory) and fanotify for directory leases
 * (smbd/objects/dirwatch.c: one group per worker, a mark per leased
 * directory, known by its file handle).  The handlers keep what the
 * events mean; the system calls and errno are here (issue 37), each one
 * call behind a plain function call, so an event costs no more than it
 * did: the drains read a buffer of events per read(2), as before.
 *
 * A watch is added through the directory descriptor's /proc/self/fd
 * link: inotify_add_watch() and fanotify_mark() take a path, and the
 * link names the directory the open holds (an O_PATH one too), checked
 * by the kernel against the calling thread's user.
 *
 * The inotify events are the kernel's struct inotify_event (its IN_*
 * bits); the fanotify ones are handed on as bytes, which
 * smbd_dirwatch_parse() reads with copies, not casts.
 */
#ifndef VFS_WATCH_H
#define VFS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>

#include "lib/ntstatus.h"

/* Close a watch descriptor (inotify, fanotify) or a mark's O_PATH dup. */
void vfs_watch_close(int fd);

/* ---- inotify (CHANGE_NOTIFY) ---- */

/* A non-blocking, close-on-exec inotify descriptor. */
NTSTATUS vfs_notify_open(int *fd);
/* Watch the directory open as dirfd for mask.  Out of watches (the
 * kernel's ENOSPC: max_user_watches) is NT_STATUS_INSUFFICIENT_RESOURCES,
 * which no other error gives; else vfs_map_errno's answer. */
NTSTATUS vfs_notify_add(int ifd, int dirfd, uint32_t mask, int *wd);
void vfs_notify_rm(int ifd, int wd);
/* Every event queued on ifd, to fn, until the read would block. */
void vfs_notify_drain(int ifd,
		      void (*fn)(void *priv, const struct inotify_event *ev),
		      void *priv);

/* ---- fanotify (directory leases) ---- */

/* A group reporting the directory's file handle (FAN_REPORT_DIR_FID),
 * notifications only, non-blocking.  Needs CAP_SYS_ADMIN (and kernel
 * 5.9+ for the flag): the caller goes on without. */
NTSTATUS vfs_dirwatch_open(int *fd);
/* Add (or remove) the mark for the entry events of the directory open
 * as dirfd (creates, deletes, moves, modifies and attribute changes of
 * its entries, and of itself). */
bool vfs_dirwatch_mark(int fanfd, bool add, int dirfd);
/* The file handle of the directory open as fd (name_to_handle_at), as
 * the group reports it: its type and at most max bytes. */
NTSTATUS vfs_dirwatch_handle(int fd, int *type, uint8_t *handle,
			     unsigned *len, unsigned max);
/* A descriptor of its own of fd for the mark (O_PATH stays O_PATH). */
NTSTATUS vfs_dirwatch_dup(int fd, int *out);
/* Every buffer of events queued on fanfd, to fn, until the read would
 * block. */
void vfs_dirwatch_drain(int fanfd,
			void (*fn)(void *priv, const uint8_t *buf, size_t n),
			void *priv);

#endif
