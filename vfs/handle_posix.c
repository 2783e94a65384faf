/*
 * The posix module's handle ops (vfs/handle.h): a file's own data on
 * its fd.  These are the calls READ, WRITE, FLUSH and SET_INFO made
 * themselves before issue 37, moved as they were: the fault hooks
 * (vfs/fault.h) where the READ, WRITE and FLUSH jobs had them, pread
 * and pwrite looped over EINTR and short counts, errno mapped once by
 * vfs_map_errno.  Also the loop thread's zero-copy READ checks
 * (preadv2 RWF_NOWAIT, cachestat(2), or mincore(2) where the kernel
 * has no cachestat), which only a file's own data has.  Each op is
 * one plain call: no syscall was added to any path.
 */
#include "vfs/handle.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/fault.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_VFS

/* cachestat(2) (Linux 6.5), not in glibc 2.36's headers; the number is
 * the same on every architecture with the generic syscall table. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct posix_cachestat_range {
	uint64_t off;
	uint64_t len;
};
struct posix_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* Loop: pread may return short on some file systems before EOF. */
static NTSTATUS posix_pread(const struct vfs_handle *h, uint8_t *buf,
			    size_t len, uint64_t off, size_t *got)
{
	size_t done = 0;
	int err = 0;

	while (done < len) {
		int fault = vfs_fault_hit(VFS_FAULT_READ, NULL, h->fd);
		ssize_t n = fault != 0 ? -1
				       : pread(h->fd, buf + done, len - done,
					       (off_t)(off + done));

		if (fault != 0) {
			errno = fault;
		}
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			err = errno;
			break;
		}
		if (n == 0) {
			break;
		}
		done += (size_t)n;
	}
	*got = done;
	return vfs_map_errno(err);
}

static NTSTATUS posix_pwrite(const struct vfs_handle *h, const uint8_t *data,
			     size_t len, uint64_t off, size_t *written)
{
	size_t done = 0;
	int err = 0;

	while (done < len) {
		ssize_t n;
		int fault = vfs_fault_hit(VFS_FAULT_WRITE, NULL, h->fd);

		if (fault != 0) {
			errno = fault;
			n = -1;
		} else if (off == VFS_HANDLE_APPEND) {
			/* FILE_APPEND_DATA with offset all ones: at the end
			 * (MS-SMB2 2.2.21), atomically via O_APPEND. */
			n = write(h->fd, data + done, len - done);
		} else {
			n = pwrite(h->fd, data + done, len - done,
				   (off_t)(off + done));
		}
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			err = errno;
			break;
		}
		done += (size_t)n;
	}
	*written = done;
	return vfs_map_errno(err);
}

static NTSTATUS posix_size(const struct vfs_handle *h, uint64_t *size)
{
	struct stat sb;

	if (fstat(h->fd, &sb) != 0) {
		return vfs_map_errno(errno);
	}
	*size = (uint64_t)sb.st_size;
	return NT_STATUS_OK;
}

static NTSTATUS posix_set_size(const struct vfs_handle *h, uint64_t size)
{
	if (ftruncate(h->fd, (off_t)size) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

/* MS-FSA 2.1.5.15.1: an allocation below the end of file truncates;
 * above it nothing is reserved (as before; fstat failing: nothing).
 * A file's own data only: a stream's table has its own
 * (vfs_stream_handle_allocate), which leaves the base file alone. */
static NTSTATUS posix_allocate(const struct vfs_handle *h, uint64_t size)
{
	struct stat sb;

	if (fstat(h->fd, &sb) == 0 && size < (uint64_t)sb.st_size &&
	    ftruncate(h->fd, (off_t)size) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

/* EINVAL: the fd cannot be synced (a special file): nothing to flush,
 * which FLUSH answers with success. */
NTSTATUS vfs_posix_handle_sync(const struct vfs_handle *h, bool data_only)
{
	int fault = vfs_fault_hit(VFS_FAULT_FSYNC, NULL, h->fd);
	int err = fault;

	if (fault == 0 &&
	    (data_only ? fdatasync(h->fd) : fsync(h->fd)) != 0) {
		err = errno;
	}
	return err == EINVAL ? NT_STATUS_OK : vfs_map_errno(err);
}

/* A file's own data is deleted with its file, not by the handle. */
static NTSTATUS posix_remove(const struct vfs_handle *h)
{
	(void)h;
	return NT_STATUS_OK;
}

const struct vfs_handle_ops vfs_posix_handle_ops = {
	.name = "posix",
	.flags = VFS_HANDLE_FD_DATA,
	.pread = posix_pread,
	.pwrite = posix_pwrite,
	.size = posix_size,
	.info_size = posix_size,
	.set_size = posix_set_size,
	.allocate = posix_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = posix_remove,
};

void vfs_handle_close(struct vfs_handle *h)
{
	if (h->fd != -1) {
		close(h->fd);
		h->fd = -1;
	}
}

NTSTATUS vfs_handle_reopen_append(int fd, int *out)
{
	*out = vfs_reopen_append(fd);
	return *out == -1 ? vfs_map_errno(errno) : NT_STATUS_OK;
}

NTSTATUS vfs_posix_mtime(int fd, struct timespec *mtime)
{
	struct stat sb;

	if (fstat(fd, &sb) != 0) {
		return vfs_map_errno(errno);
	}
	*mtime = sb.st_mtim;
	return NT_STATUS_OK;
}

/*
 * A read the page cache can serve whole is done on the loop thread:
 * preadv2(RWF_NOWAIT) never blocks on the disk (EAGAIN, or a short
 * count, when a page is not cached; the pool then does it).
 */
bool vfs_posix_pread_cached(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	ssize_t n;

	if (vfs_fault_armed(VFS_FAULT_READ)) {
		return false;	/* injected faults live on the pool's path */
	}
	n = preadv2(fd, &iov, 1, (off_t)off, RWF_NOWAIT);
	return n >= 0 && (size_t)n == len;
}

/*
 * Without cachestat(2) (ENOSYS: Linux before 6.5, Debian 12's 6.1) the
 * same question goes to mincore(2) on a mapping of the range that is
 * never touched.  The choice is made once per process, at the first
 * ENOSYS; only the loop thread asks.  mmap, mincore and munmap cost a
 * few microseconds whatever the length (5.6 us for 16 KiB, 7.8 us for
 * 128 KiB, 24 us for 1 MiB here), the two copies that zero-copy saves
 * 2 * 1.4 us, 2 * 5.5 us and 2 * 55 us (testsuite/bench/README.md, issue
 * 37): below POSIX_MINCORE_MIN the buffered path is cheaper, and is
 * taken.  A kernel that tells a file's cache residency only to its owner
 * or a writer (as newer ones do for cachestat) tells anyone else of the
 * pages mapped in its own page tables, none here: no, and the buffered
 * path runs.
 */
#define POSIX_MINCORE_MIN (128 * 1024)
static bool posix_no_cachestat;

static bool posix_range_mincore(int fd, uint64_t off, uint64_t len,
				uint64_t page)
{
	uint64_t start = off - off % page;
	size_t span = (size_t)(off + len - start);
	unsigned char vec[256];
	bool all = true;
	size_t done;
	void *m;

	if (len < POSIX_MINCORE_MIN) {
		return false;
	}
	m = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (m == MAP_FAILED) {
		return false;
	}
	for (done = 0; done < span && all; done += sizeof(vec) * page) {
		size_t l = span - done, i, pages;

		if (l > sizeof(vec) * page) {
			l = sizeof(vec) * page;
		}
		pages = (l + page - 1) / page;
		if (mincore((uint8_t *)m + done, l, vec) != 0) {
			all = false;
			break;
		}
		for (i = 0; i < pages && all; i++) {
			all = (vec[i] & 1) != 0;
		}
	}
	(void)munmap(m, span);
	return all;
}

/*
 * Whether the page cache holds every page of [off, off + len), asked
 * without reading anything.  sendfile from the loop thread is only safe
 * then: it would wait for the disk on an uncached page.  Pages evicted
 * between this call and the send make the loop wait for that one read;
 * an error (a kernel that allows cachestat or mincore only to the
 * file's owner or writers, a file system that cannot map the file)
 * answers no, and the buffered path runs.
 */
static bool posix_range_cached(int fd, uint64_t off, uint64_t len)
{
	static uint64_t page;
	struct posix_cachestat_range r = {.off = off, .len = len};
	struct posix_cachestat cs;
	uint64_t pages;

	if (page == 0) {
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	}
	if (posix_no_cachestat) {
		return posix_range_mincore(fd, off, len, page);
	}
	pages = (off + len - 1) / page - off / page + 1;
	if (syscall(__NR_cachestat, fd, &r, &cs, 0) != 0) {
		if (errno != ENOSYS) {
			return false;
		}
		posix_no_cachestat = true;
		DBG_WARNING("no cachestat(2) on this kernel: zero-copy READ "
			    "asks mincore(2) whether a range is cached\n");
		return posix_range_mincore(fd, off, len, page);
	}
	return cs.nr_cache >= pages;
}

NTSTATUS vfs_posix_send_range(int fd, uint64_t off, uint64_t len,
			      uint64_t min_count, uint64_t min_send,
			      uint64_t *count, int *send_fd)
{
	struct stat sb;
	uint64_t n;
	int dup;

	if (vfs_fault_armed(VFS_FAULT_READ) || fstat(fd, &sb) != 0 ||
	    !S_ISREG(sb.st_mode)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if ((uint64_t)sb.st_size <= off ||
	    (uint64_t)sb.st_size - off < min_count) {
		return NT_STATUS_END_OF_FILE;
	}
	n = (uint64_t)sb.st_size - off;
	if (n > len) {
		n = len;
	}
	if (n < min_send || !posix_range_cached(fd, off, n)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup == -1) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	*count = n;
	*send_fd = dup;
	return NT_STATUS_OK;
}
