/*
 * fruit:resource = file: the resource fork in the "._" AppleDouble file
 * (design in fruit_rsrc.h).
 */
#include "vfs/fruit_rsrc.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/anchor.h"
#include "vfs/streams.h"
#include "vfs/fsctl_io.h"
#include "lib/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AD_MAGIC 0x00051607
#define AD_VERSION 0x00020000
#define AD_ENTRY_FINDER 9
#define AD_ENTRY_RSRC 2
#define AD_HEADER 26		/* magic, version, 16 filler, count */
#define AD_ENTRY 12
#define AD_FINDER_OFF 0x32
#define AD_FINDER_LEN 32
/* The fork's length can only say 32 bits: the largest fork. */
#define RSRC_MAX 0xffffffffULL

static NTSTATUS pull_be32(struct wire_cur *c, uint32_t *v)
{
	const uint8_t *p;
	NTSTATUS st = wire_pull_ref(c, &p, 4);

	if (NT_STATUS_IS_OK(st)) {
		*v = be32(p);
	}
	return st;
}

NTSTATUS vfs_rsrc_parse(const uint8_t *buf, size_t len,
			struct vfs_rsrc_entry *e)
{
	struct wire_cur c;
	uint32_t magic, version, id, off, elen;
	const uint8_t *p;
	uint16_t count, i;
	NTSTATUS st;

	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(st = pull_be32(&c, &magic)) ||
	    !NT_STATUS_IS_OK(st = pull_be32(&c, &version)) ||
	    !NT_STATUS_IS_OK(st = wire_skip(&c, 16)) ||
	    !NT_STATUS_IS_OK(st = wire_pull_ref(&c, &p, 2))) {
		return st;
	}
	count = be16(p);
	if (magic != AD_MAGIC || version != AD_VERSION || count > 64) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < count; i++) {
		size_t pos;

		if (!NT_STATUS_IS_OK(st = pull_be32(&c, &id)) ||
		    !NT_STATUS_IS_OK(st = pull_be32(&c, &off))) {
			return st;
		}
		pos = c.off;
		if (!NT_STATUS_IS_OK(st = pull_be32(&c, &elen))) {
			return st;
		}
		if (id != AD_ENTRY_RSRC) {
			continue;
		}
		/* the fork must not overlap the entries */
		if (off < AD_HEADER + (uint32_t)count * AD_ENTRY) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		e->off = off;
		e->len = elen;
		e->len_pos = pos;
		return NT_STATUS_OK;
	}
	return NT_STATUS_INVALID_PARAMETER;
}

void vfs_rsrc_header_init(uint8_t buf[VFS_RSRC_DATA_OFF])
{
	memset(buf, 0, VFS_RSRC_DATA_OFF);
	put_be32(buf, AD_MAGIC);
	put_be32(buf + 4, AD_VERSION);
	buf[25] = 2;		/* two entries */
	put_be32(buf + 26, AD_ENTRY_FINDER);
	put_be32(buf + 30, AD_FINDER_OFF);
	put_be32(buf + 34, AD_FINDER_LEN);
	put_be32(buf + 38, AD_ENTRY_RSRC);
	put_be32(buf + 42, VFS_RSRC_DATA_OFF);
	put_be32(buf + 46, 0);
}

char *vfs_rsrc_path(TALLOC_CTX *mem_ctx, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash != NULL ? slash + 1 : path;

	if (base[0] == '\0' || strncmp(base, "._", 2) == 0) {
		return NULL;
	}
	return talloc_asprintf(mem_ctx, "%.*s._%s", (int)(base - path), path,
			       base);
}

/* The fork entry of fd and the file's size; the fork must be last. */
static NTSTATUS rsrc_entry(int fd, struct vfs_rsrc_entry *e,
			   uint64_t *fsize)
{
	uint8_t hdr[VFS_RSRC_HEADER_MAX];
	struct stat sb;
	ssize_t n = pread(fd, hdr, sizeof(hdr), 0);
	NTSTATUS st;

	if (n < 0 || fstat(fd, &sb) != 0) {
		return vfs_map_errno(errno);
	}
	st = vfs_rsrc_parse(hdr, (size_t)n, e);
	if (!NT_STATUS_IS_OK(st)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* A fork that is not the file's last bytes (or a file cut short
	 * of it) is not ours to grow. */
	if ((uint64_t)sb.st_size < e->off ||
	    ((uint64_t)e->off + e->len != (uint64_t)sb.st_size &&
	     e->off != VFS_RSRC_DATA_OFF)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*fsize = (uint64_t)sb.st_size;
	return NT_STATUS_OK;
}

/* The header's fork length := what the file now holds after the fork's
 * start. */
static NTSTATUS rsrc_sync_len(int fd, const struct vfs_rsrc_entry *e,
			      uint64_t fsize)
{
	uint8_t v[4];

	put_be32(v, (uint32_t)(fsize - e->off));
	if (pwrite(fd, v, sizeof(v), (off_t)e->len_pos) != sizeof(v)) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

static NTSTATUS rsrc_create(const struct vfs_share *sh, const char *adpath,
			    int *fd)
{
	uint8_t hdr[VFS_RSRC_DATA_OFF];

	*fd = vfs_openat_beneath(sh, sh->root_fd, adpath,
				 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
	if (*fd == -1) {
		return vfs_map_errno(errno);
	}
	vfs_rsrc_header_init(hdr);
	if (pwrite(*fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		NTSTATUS st = vfs_map_errno(errno);

		close(*fd);
		*fd = -1;
		return st;
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_rsrc_open(const struct vfs_share *sh, const char *path,
		       bool writes, bool create, int *fd, bool *exists)
{
	char *adpath = vfs_rsrc_path(NULL, path);
	struct vfs_rsrc_entry e;
	uint64_t fsize;
	struct stat sb;
	NTSTATUS st;

	*fd = -1;
	*exists = false;
	if (adpath == NULL) {
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	*fd = vfs_openat_beneath(sh, sh->root_fd, adpath,
				 (writes || create ? O_RDWR : O_RDONLY) |
					 O_NOFOLLOW,
				 0);
	if (*fd == -1 && errno == ENOENT) {
		st = create ? rsrc_create(sh, adpath, fd) : NT_STATUS_OK;
		talloc_free(adpath);
		return st;
	}
	talloc_free(adpath);
	if (*fd == -1) {
		return vfs_map_errno(errno);
	}
	st = fstat(*fd, &sb) == 0 && !S_ISREG(sb.st_mode)
		     ? NT_STATUS_INVALID_PARAMETER
		     : rsrc_entry(*fd, &e, &fsize);
	if (!NT_STATUS_IS_OK(st)) {
		close(*fd);
		*fd = -1;
		return st;
	}
	*exists = true;
	return NT_STATUS_OK;
}

NTSTATUS vfs_rsrc_rewrite(const struct vfs_share *sh, const char *adpath,
			  const uint8_t *fork, size_t len)
{
	uint8_t hdr[VFS_RSRC_DATA_OFF];
	NTSTATUS st = NT_STATUS_OK;
	int fd;

	if (len > RSRC_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	fd = vfs_openat_beneath(sh, sh->root_fd, adpath, O_RDWR | O_NOFOLLOW,
				0);
	if (fd == -1) {
		return vfs_map_errno(errno);
	}
	vfs_rsrc_header_init(hdr);
	put_be32(hdr + 46, (uint32_t)len);
	/* the fork is a copy in memory: moving it down may overwrite
	 * where it was */
	if (pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    (len > 0 && pwrite(fd, fork, len, VFS_RSRC_DATA_OFF) !=
				(ssize_t)len) ||
	    ftruncate(fd, (off_t)(VFS_RSRC_DATA_OFF + len)) != 0) {
		st = vfs_map_errno(errno);
	}
	close(fd);
	return st;
}

NTSTATUS vfs_rsrc_rename(const struct vfs_share *sh, const char *from,
			 const char *to)
{
	char *f = vfs_rsrc_path(NULL, from);
	char *t = f != NULL ? vfs_rsrc_path(f, to) : NULL;
	NTSTATUS st = NT_STATUS_OK;
	struct stat sb;

	/* a rename to a "._" name takes no fork along */
	if (t != NULL &&
	    vfs_stat_beneath(sh, sh->root_fd, f, &sb) == 0 &&
	    S_ISREG(sb.st_mode)) {
		st = vfs_rename_anchored(sh, sh->root_fd, f, t, false, 0,
					 NULL);
	}
	talloc_free(f);
	return st;
}

NTSTATUS vfs_rsrc_unlink(const struct vfs_share *sh, int root_fd,
			 const char *path)
{
	char *ad = vfs_rsrc_path(NULL, path);
	NTSTATUS st = ad != NULL ? vfs_unlink_anchored(sh, root_fd, ad, false,
						       NULL)
				 : NT_STATUS_OK;

	talloc_free(ad);
	return st == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_OK : st;
}

NTSTATUS vfs_rsrc_path_size(const struct vfs_share *sh, const char *path,
			    uint64_t *size)
{
	bool exists;
	int fd;
	NTSTATUS st = vfs_rsrc_open(sh, path, false, false, &fd, &exists);

	*size = 0;
	if (NT_STATUS_IS_OK(st) && exists) {
		st = vfs_rsrc_size(fd, size);
		close(fd);
	}
	return st;
}

NTSTATUS vfs_rsrc_size(int fd, uint64_t *size)
{
	struct vfs_rsrc_entry e;
	uint64_t fsize;
	NTSTATUS st = rsrc_entry(fd, &e, &fsize);

	*size = NT_STATUS_IS_OK(st) ? fsize - e.off : 0;
	return st;
}

NTSTATUS vfs_rsrc_size_at(int dirfd, const char *name, uint64_t *size)
{
	char *ad = vfs_rsrc_path(NULL, name);
	NTSTATUS st;
	int fd;

	*size = 0;
	if (ad == NULL) {
		return NT_STATUS_OK;	/* a "._" name has no fork */
	}
	/* one component beside name: no path to resolve beneath; no
	 * blocking on a fifo of that name */
	fd = openat(dirfd, ad, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	talloc_free(ad);
	if (fd == -1) {
		return errno == ENOENT ? NT_STATUS_OK : vfs_map_errno(errno);
	}
	st = vfs_rsrc_size(fd, size);
	close(fd);
	return st;
}

NTSTATUS vfs_rsrc_pread(int fd, uint8_t *buf, size_t len, uint64_t off,
			size_t *got)
{
	struct vfs_rsrc_entry e;
	uint64_t fsize, end;
	NTSTATUS st = rsrc_entry(fd, &e, &fsize);

	*got = 0;
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	/* The fork's bytes run from e.off to the end of the "._" file. */
	end = fsize - e.off;
	if (off >= end) {
		return NT_STATUS_OK;
	}
	return vfs_pread_all(fd, buf, len < end - off ? len : end - off,
			     e.off + off, got);
}

NTSTATUS vfs_rsrc_pwrite(int fd, const uint8_t *data, size_t len,
			 uint64_t off)
{
	struct vfs_rsrc_entry e;
	uint64_t fsize, end;
	size_t done = 0;
	NTSTATUS st = rsrc_entry(fd, &e, &fsize);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (off > RSRC_MAX || len > RSRC_MAX - off) {
		return NT_STATUS_DISK_FULL;
	}
	while (done < len) {
		ssize_t n = pwrite(fd, data + done, len - done,
				   (off_t)(e.off + off + done));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return vfs_map_errno(n < 0 ? errno : ENOSPC);
		}
		done += (size_t)n;
	}
	end = e.off + off + len;
	return rsrc_sync_len(fd, &e, end > fsize ? end : fsize);
}

NTSTATUS vfs_rsrc_truncate(int fd, uint64_t size)
{
	struct vfs_rsrc_entry e;
	uint64_t fsize;
	NTSTATUS st = rsrc_entry(fd, &e, &fsize);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (size > RSRC_MAX) {
		return NT_STATUS_DISK_FULL;
	}
	if (ftruncate(fd, (off_t)(e.off + size)) != 0) {
		return vfs_map_errno(errno);
	}
	return rsrc_sync_len(fd, &e, e.off + size);
}

/* ---- AFP_Resource's handle ops (vfs/handle.h) ---- */

static NTSTATUS rsrc_handle_pread(const struct vfs_handle *h, uint8_t *buf,
				  size_t len, uint64_t off, size_t *got)
{
	NTSTATUS status = vfs_rsrc_pread(h->fd, buf, len, off, got);

	return NT_STATUS_IS_OK(status) ? status : NT_STATUS_IO_DEVICE_ERROR;
}

static NTSTATUS rsrc_handle_pwrite(const struct vfs_handle *h,
				   const uint8_t *data, size_t len,
				   uint64_t off, size_t *written)
{
	NTSTATUS status = vfs_rsrc_pwrite(h->fd, data, len, off);

	*written = NT_STATUS_IS_OK(status) ? len : 0;
	if (NT_STATUS_IS_OK(status) || status == NT_STATUS_DISK_FULL) {
		return status;
	}
	return NT_STATUS_IO_DEVICE_ERROR;
}

static NTSTATUS rsrc_handle_size(const struct vfs_handle *h, uint64_t *size)
{
	return vfs_rsrc_size(h->fd, size);
}

static NTSTATUS rsrc_handle_set_size(const struct vfs_handle *h,
				     uint64_t size)
{
	return vfs_rsrc_truncate(h->fd, size);
}

/* CREATE: the "._" file, opened here (*aux) and the handle's fd once
 * the open is made; the base file's (h->fd) is closed then. */
static NTSTATUS rsrc_stream_open(TALLOC_CTX *mem_ctx,
				 const struct vfs_handle *h,
				 const struct vfs_share *share,
				 const char *path, bool writes, int *aux,
				 char **xattr, bool *exists)
{
	(void)mem_ctx, (void)h, (void)xattr;
	return vfs_rsrc_open(share, path, writes, false, aux, exists);
}

static bool rsrc_stream_empty(const struct vfs_handle *h, int aux)
{
	uint64_t size = 1;

	(void)h;
	return NT_STATUS_IS_OK(vfs_rsrc_size(aux, &size)) && size == 0;
}

/* The "._" file: made with an empty fork, or emptied. */
static NTSTATUS rsrc_stream_reset(const struct vfs_handle *h,
				  const struct vfs_share *share,
				  const char *path, int *aux)
{
	bool exists;

	(void)h;
	return *aux == -1 ? vfs_rsrc_open(share, path, true, true, aux,
					  &exists)
			  : vfs_rsrc_truncate(*aux, 0);
}

/* The handle reads and writes the "._" file from here on. */
static NTSTATUS rsrc_stream_opened(struct vfs_handle *h, int *aux,
				   uint64_t *size)
{
	NTSTATUS status = vfs_rsrc_size(*aux, size);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	close(h->fd);
	h->fd = *aux;
	*aux = -1;
	return NT_STATUS_OK;
}

/* Allocation, sync and removal act as they did before the ops table:
 * on the "._" file's fd (removal never comes: delete-on-close is
 * ignored on this handle). */
const struct vfs_handle_ops vfs_rsrc_handle_ops = {
	.name = "fruit_rsrc_file",
	.flags = VFS_HANDLE_IGNORE_DELETE_ON_CLOSE,
	.pread = rsrc_handle_pread,
	.pwrite = rsrc_handle_pwrite,
	.size = rsrc_handle_size,
	.info_size = rsrc_handle_size,
	.set_size = rsrc_handle_set_size,
	.allocate = vfs_stream_handle_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = vfs_stream_handle_remove,
	.stream_open = rsrc_stream_open,
	.stream_empty = rsrc_stream_empty,
	.stream_reset = rsrc_stream_reset,
	.stream_opened = rsrc_stream_opened,
};
