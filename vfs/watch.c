/*
 * The kernel's change watches, inotify and fanotify: the design is in
 * watch.h.  Each function is the call its handler made before issue 37,
 * with the same flags and buffers.
 */
#include "vfs/watch.h"
#include "vfs/vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

/* What changes a directory's listing or what it caches of its entries. */
#define DIRWATCH_MASK                                                         \
	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO |            \
	 FAN_MODIFY | FAN_ATTRIB | FAN_EVENT_ON_CHILD | FAN_ONDIR)

void vfs_watch_close(int fd)
{
	if (fd != -1) {
		(void)close(fd);
	}
}

NTSTATUS vfs_notify_open(int *fd)
{
	*fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_notify_add(int ifd, int dirfd, uint32_t mask, int *wd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	*wd = inotify_add_watch(ifd, path, mask);
	if (*wd != -1) {
		return NT_STATUS_OK;
	}
	/* inotify(7): ENOSPC is the user's watch limit, not a full disk. */
	return errno == ENOSPC ? NT_STATUS_INSUFFICIENT_RESOURCES
			       : vfs_map_errno(errno);
}

void vfs_notify_rm(int ifd, int wd)
{
	(void)inotify_rm_watch(ifd, wd);
}

void vfs_notify_drain(int ifd,
		      void (*fn)(void *priv, const struct inotify_event *ev),
		      void *priv)
{
	char buf[8192]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(ifd, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			/* Kernel memory in the ABI's layout, aligned. */
			const struct inotify_event *ev =
				(const struct inotify_event *)(buf + off);

			fn(priv, ev);
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
}

NTSTATUS vfs_dirwatch_open(int *fd)
{
	*fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
				    FAN_REPORT_DIR_FID,
			    O_RDONLY);
	return *fd == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

bool vfs_dirwatch_mark(int fanfd, bool add, int dirfd)
{
	char path[64];

	/* fanotify_mark() takes no O_PATH descriptor as its object; the
	 * descriptor's /proc link names the same directory. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	return fanotify_mark(fanfd, add ? FAN_MARK_ADD : FAN_MARK_REMOVE,
			     DIRWATCH_MASK, AT_FDCWD, path) == 0;
}

NTSTATUS vfs_dirwatch_handle(int fd, int *type, uint8_t *handle,
			     unsigned *len, unsigned max)
{
	union {
		struct file_handle fh;
		uint8_t room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int mount_id;

	if (max > MAX_HANDLE_SZ) {
		max = MAX_HANDLE_SZ;
	}
	h.fh.handle_bytes = max;
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) != 0) {
		return vfs_map_errno(errno);
	}
	if (h.fh.handle_bytes > max) {
		return NT_STATUS_BUFFER_TOO_SMALL;
	}
	*type = h.fh.handle_type;
	*len = h.fh.handle_bytes;
	memcpy(handle, h.fh.f_handle, h.fh.handle_bytes);
	return NT_STATUS_OK;
}

NTSTATUS vfs_dirwatch_dup(int fd, int *out)
{
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return *out == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

void vfs_dirwatch_drain(int fanfd,
			void (*fn)(void *priv, const uint8_t *buf, size_t n),
			void *priv)
{
	uint8_t buf[8192];
	ssize_t n;

	while ((n = read(fanfd, buf, sizeof(buf))) > 0) {
		fn(priv, buf, (size_t)n);
	}
}
