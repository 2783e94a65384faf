/*
 * Sparse-file and volume-size calls (design in fsinfo.h).
 */
#include "vfs/fsinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

void vfs_fill_holes(int fd, uint64_t size)
{
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
}

bool vfs_zero_range(int fd, uint64_t off, uint64_t len, bool punch)
{
	int mode = punch ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
			 : FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE;

	return fallocate(fd, mode, (off_t)off, (off_t)len) == 0;
}

bool vfs_data_extents(int fd, uint64_t off, uint64_t end,
		      bool (*add)(void *priv, uint64_t off, uint64_t len),
		      void *priv)
{
	while (off < end) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA);
		off_t h;

		if (d < 0) {
			/* ENXIO: no data from off to the end. */
			return errno == ENXIO;
		}
		if ((uint64_t)d >= end) {
			break;
		}
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > end) {
			h = (off_t)end;
		}
		if (!add(priv, (uint64_t)d, (uint64_t)(h - d))) {
			break;
		}
		off = (uint64_t)h;
	}
	return true;
}

NTSTATUS vfs_fstatvfs(int fd, struct statvfs *out)
{
	return fstatvfs(fd, out) == 0 ? NT_STATUS_OK : vfs_map_errno(errno);
}
