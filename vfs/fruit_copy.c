/*
 * fruit:copyfile: the streams of a file that a whole-file copy takes
 * (design in fruit_copy.h), and their copy behind vfs/copyfile.h.
 * Runs in the pool thread but vfs_copy_side_new (the loop thread's).
 */
#include "vfs/fruit_copy.h"
#include "vfs/copyfile.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/fsctl_io.h"
#include "vfs/name.h"
#include "vfs/streams.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ":NAME:$DATA" -> "NAME" on mem_ctx; NULL when out of memory. */
static char *listed_name(TALLOC_CTX *mem_ctx, const char *listed)
{
	size_t len = strlen(listed), sfx = strlen(VFS_STREAM_SUFFIX);

	if (len < 1 + sfx) {
		return talloc_strdup(mem_ctx, "");
	}
	return talloc_strndup(mem_ctx, listed + 1, len - 1 - sfx);
}

static NTSTATUS add_name(TALLOC_CTX *mem_ctx, char ***names, size_t *count,
			 char *name)
{
	char **n = talloc_realloc(mem_ctx, *names, char *, *count + 1);

	if (n == NULL || name == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	n[(*count)++] = talloc_steal(n, name);
	*names = n;
	return NT_STATUS_OK;
}

/* Whether a listed xattr stream is left out, as getinfo leaves it out
 * of FileStreamInformation. */
static bool xattr_stream_hidden(const struct vfs_fruit_file *f,
				const char *listed)
{
	static const char rsrc[] = ":" VFS_FRUIT_RESOURCE VFS_STREAM_SUFFIX;

	if (f->meta != VFS_FRUIT_META_NONE &&
	    vfs_fruit_stream_hidden(f->fd, f->meta, listed)) {
		return true;
	}
	return (f->rsrc_file || f->rsrc_xattr) && strcasecmp(listed, rsrc) == 0;
}

NTSTATUS vfs_fruit_stream_names(TALLOC_CTX *mem_ctx,
				const struct vfs_fruit_file *f, char ***names,
				size_t *count)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char **listed = NULL;
	uint64_t *sizes = NULL, fork = 0;
	size_t n = 0, i;
	NTSTATUS st = tmp != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;

	*names = NULL;
	*count = 0;
	if (NT_STATUS_IS_OK(st) && f->sh.streams) {
		st = vfs_stream_list(tmp, f->fd, &listed, &sizes, &n);
	}
	for (i = 0; NT_STATUS_IS_OK(st) && i < n; i++) {
		if (!xattr_stream_hidden(f, listed[i])) {
			st = add_name(mem_ctx, names, count,
				      listed_name(mem_ctx, listed[i]));
		}
	}
	if (NT_STATUS_IS_OK(st) && vfs_fruit_netatalk_listed(f->fd, f->meta)) {
		st = add_name(mem_ctx, names, count,
			      talloc_strdup(mem_ctx, "AFP_AfpInfo"));
	}
	/* a "._" file that is not one fruit can use is not listed, so it
	 * is not copied either */
	if (NT_STATUS_IS_OK(st) &&
	    ((f->rsrc_file &&
	      NT_STATUS_IS_OK(vfs_rsrc_path_size(&f->sh, f->path, &fork))) ||
	     (f->rsrc_xattr &&
	      NT_STATUS_IS_OK(vfs_stream_size(f->fd, VFS_RSRC_XATTR, &fork)))) &&
	    fork > 0) {
		st = add_name(mem_ctx, names, count,
			      talloc_strdup(mem_ctx, VFS_FRUIT_RESOURCE));
	}
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(st)) {
		TALLOC_FREE(*names);
		*count = 0;
	}
	return st;
}

/* ---- the streams' copy (vfs/copyfile.h) ---- */

struct vfs_copy_side {
	struct vfs_fruit_file f;
};

NTSTATUS vfs_copy_side_new(TALLOC_CTX *mem_ctx, const struct vfs_stack *s,
			   const struct vfs_share *share, int root,
			   const char *path, int fd,
			   struct vfs_copy_side **out)
{
	const struct vfs_fruit_config *fc = vfs_fruit_config(s);
	struct vfs_copy_side *side = talloc_zero(mem_ctx,
						 struct vfs_copy_side);
	struct vfs_fruit_file *f;
	bool ok;

	*out = side;
	if (side == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	f = &side->f;
	ok = vfs_share_copy(side, &f->sh, share);
	/* not ours to close until dup'ed */
	f->sh.root_fd = -1;
	f->fd = fd;
	f->path = talloc_strdup(side, path);
	if (!ok || f->path == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	f->meta = fc != NULL ? fc->metadata : VFS_FRUIT_META_NONE;
	f->rsrc_file = fc != NULL && fc->resource == VFS_FRUIT_RSRC_FILE;
	f->rsrc_xattr = fc != NULL && fc->resource == VFS_FRUIT_RSRC_XATTR;
	(void)vfs_fd_dup(root, &f->sh.root_fd);
	return f->sh.root_fd != -1 ? NT_STATUS_OK
				   : NT_STATUS_TOO_MANY_OPENED_FILES;
}

void vfs_copy_side_close(struct vfs_copy_side *side)
{
	if (side != NULL && side->f.sh.root_fd != -1) {
		vfs_fd_close(side->f.sh.root_fd);
		side->f.sh.root_fd = -1;
	}
}

/* One end of a stream's copy: the stream's xattr on the file's fd, or
 * the fork in the "._" file (rsrc: fd ours to close). */
struct copy_end {
	int fd;
	char *stream;
	/* AFP_AfpInfo (not NONE): its record's rules (vfs/fruit.h) */
	enum vfs_fruit_meta afpinfo;
	bool rsrc;
};

static NTSTATUS end_size(const struct copy_end *e, uint64_t *size)
{
	return e->afpinfo ? vfs_afpinfo_size(e->fd, e->afpinfo, e->stream, size)
	       : e->rsrc  ? vfs_rsrc_size(e->fd, size)
			  : vfs_data_size(e->fd, e->stream, size);
}

/* len bytes at off of src into buf: all of them, else (the stream
 * shrank) NT_STATUS_INVALID_VIEW_SIZE, as a copychunk past the
 * source's end (MS-SMB2 3.3.5.15.3). */
static NTSTATUS end_read(const struct copy_end *src, uint8_t *buf,
			 size_t len, uint64_t off)
{
	size_t done = 0;
	uint64_t size;
	NTSTATUS status = end_size(src, &size);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (off > size || len > size - off) {
		return NT_STATUS_INVALID_VIEW_SIZE;
	}
	status = src->afpinfo ? vfs_afpinfo_pread(src->fd, src->afpinfo,
						  src->stream, buf, len, off,
						  &done)
		 : src->rsrc ? vfs_rsrc_pread(src->fd, buf, len, off, &done)
			     : vfs_stream_pread(src->fd, src->stream, buf, len,
						off, &done);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return done == len ? NT_STATUS_OK : NT_STATUS_INVALID_VIEW_SIZE;
}

static NTSTATUS end_write(const struct copy_end *dst, const uint8_t *buf,
			  size_t len, uint64_t off)
{
	if (dst->afpinfo) {
		return vfs_afpinfo_pwrite(dst->fd, dst->afpinfo, dst->stream,
					  buf, len, off);
	}
	if (dst->rsrc) {
		return vfs_rsrc_pwrite(dst->fd, buf, len, off);
	}
	return vfs_stream_pwrite(dst->fd, dst->stream, buf, len, off);
}

/*
 * Stream `name` of f as one end of a stream's copy: the fork in the
 * "._" file (fd ours to close) or the stream's xattr on f's fd.  The
 * target's is made empty first, as CREATE makes a new stream.
 */
static NTSTATUS end_open(TALLOC_CTX *mem_ctx, const struct vfs_fruit_file *f,
			 const char *name, bool target, struct copy_end *e)
{
	bool exists = false;
	NTSTATUS status;

	if (f->rsrc_file && vfs_strcasecmp(name, VFS_FRUIT_RESOURCE) == 0) {
		e->rsrc = true;
		e->stream = talloc_strdup(mem_ctx, name);
		status = vfs_rsrc_open(&f->sh, f->path, target, target,
				       &e->fd, &exists);
		if (NT_STATUS_IS_OK(status) && e->fd == -1) {
			status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		if (NT_STATUS_IS_OK(status) && e->stream == NULL) {
			status = NT_STATUS_NO_MEMORY;
		}
		return status;
	}
	if (f->rsrc_xattr && vfs_strcasecmp(name, VFS_FRUIT_RESOURCE) == 0) {
		/* Netatalk's fork xattr, read and written raw */
		uint64_t size;

		e->stream = talloc_strdup(mem_ctx, VFS_RSRC_XATTR);
		status = e->stream != NULL ? NT_STATUS_OK
					   : NT_STATUS_NO_MEMORY;
		exists = NT_STATUS_IS_OK(status) &&
			 NT_STATUS_IS_OK(vfs_stream_size(f->fd, e->stream,
							 &size));
	} else {
		status = vfs_stream_xattr(mem_ctx, f->fd, name, &e->stream,
					  &exists);
	}
	e->fd = f->fd;
	e->afpinfo = f->meta != VFS_FRUIT_META_NONE &&
				     vfs_fruit_afpinfo_xattr(e->stream)
			     ? f->meta
			     : VFS_FRUIT_META_NONE;
	if (!NT_STATUS_IS_OK(status) || e->afpinfo != VFS_FRUIT_META_NONE) {
		/* AFP_AfpInfo: the record is read from where the share
		 * keeps it and comes into being as it is written */
		return status;
	}
	if (!target && !exists) {
		status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	if (NT_STATUS_IS_OK(status) && target) {
		status = vfs_stream_reset(f->fd, e->stream);
	}
	return status;
}

/* One named stream of from onto to, in pieces buf holds. */
static NTSTATUS copy_stream(TALLOC_CTX *mem_ctx,
			    const struct vfs_fruit_file *from,
			    const struct vfs_fruit_file *to, const char *name,
			    uint8_t *buf, size_t buf_len)
{
	struct copy_end src = {.fd = -1}, dst = {.fd = -1};
	uint64_t size = 0, off = 0;
	NTSTATUS status;

	status = end_open(mem_ctx, from, name, false, &src);
	if (NT_STATUS_IS_OK(status)) {
		status = end_open(mem_ctx, to, name, true, &dst);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = end_size(&src, &size);
	}
	while (NT_STATUS_IS_OK(status) && off < size) {
		size_t len = size - off < buf_len ? (size_t)(size - off)
						  : buf_len;

		status = end_read(&src, buf, len, off);
		if (NT_STATUS_IS_OK(status)) {
			status = end_write(&dst, buf, len, off);
		}
		off += len;
	}
	if (src.rsrc) {
		vfs_fd_close(src.fd);
	}
	if (dst.rsrc) {
		vfs_fd_close(dst.fd);
	}
	return status;
}

static bool listed(char **names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (vfs_strcasecmp(names[i], name) == 0) {
			return true;
		}
	}
	return false;
}

NTSTATUS vfs_copy_streams(TALLOC_CTX *mem_ctx,
			  const struct vfs_copy_side *from,
			  const struct vfs_copy_side *to, uint8_t *buf,
			  size_t buf_len)
{
	TALLOC_CTX *tmp = talloc_new(mem_ctx);
	char **names = NULL, **have = NULL;
	size_t n = 0, nhave = 0, i, copied = 0;
	NTSTATUS status = tmp != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
	struct stat sb;

	if (NT_STATUS_IS_OK(vfs_fd_stat(from->f.fd, &sb))) {
		ts[1] = sb.st_mtim;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_fruit_stream_names(tmp, &from->f, &names, &n);
	}
	if (NT_STATUS_IS_OK(status) && n > 0) {
		status = vfs_fruit_stream_names(tmp, &to->f, &have, &nhave);
	}
	for (i = 0; NT_STATUS_IS_OK(status) && i < n; i++) {
		status = listed(have, nhave, names[i])
				 ? NT_STATUS_OBJECT_NAME_COLLISION
				 : copy_stream(tmp, &from->f, &to->f, names[i],
					       buf, buf_len);
		copied += NT_STATUS_IS_OK(status) ? 1 : 0;
	}
	if (copied > 0) {
		(void)vfs_fd_utimens(to->f.fd, ts);
	}
	talloc_free(tmp);
	return status;
}
