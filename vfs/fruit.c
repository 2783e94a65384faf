/*
 * vfs_fruit: the module descriptor, its options and the AFP_AfpInfo
 * stream (design in fruit.h).
 */
#include "vfs/fruit.h"
#include "vfs/adouble.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/stream_policy.h"
#include "vfs/anchor.h"
#include "vfs/module.h"
#include "vfs/streams.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define AFP_SIGNATURE 0x41465000	/* 'AFP\0' */
/* AFP 3's record version, bytes 00 00 01 00 (what macOS and smbtorture
 * write; Samba's fruit refuses a record without it) */
#define AFP_VERSION 0x00000100
/* The backup time of a record never backed up: the earliest date the
 * signed 32-bit AFP time can hold (Apple's AFP "no backup" value). */
#define AFP_BACKUP_NEVER 0x80000000

#define AFPINFO_XATTR VFS_STREAM_PREFIX "AFP_AfpInfo" VFS_STREAM_SUFFIX
#define RESOURCE_XATTR VFS_STREAM_PREFIX "AFP_Resource" VFS_STREAM_SUFFIX

/*
 * Options Samba's fruit has that this one does not implement yet.  Set,
 * each is logged with its value at tree connect: a configuration written
 * for Samba then says what it does not get here, instead of silently
 * behaving otherwise.
 */
static const char *const unimplemented[] = {
	"encoding",
	"locking",
	"convert_adouble",
};

static void log_unimplemented(TALLOC_CTX *mem_ctx,
			      const struct vfs_module_params *p)
{
	size_t i;

	for (i = 0; i < sizeof(unimplemented) / sizeof(unimplemented[0]);
	     i++) {
		const char *v = p->str(p->ctx, mem_ctx, "fruit",
				       unimplemented[i]);

		if (v != NULL) {
			DBG_WARNING("fruit:%s = %s: not supported, ignored\n",
				    unimplemented[i], v);
		}
	}
}

/*
 * fruit:resource: "file" (Samba's default) keeps the resource fork in the
 * "._" AppleDouble file (fruit_rsrc.h), "stream" in the AFP_Resource
 * stream's xattr, "xattr" in Netatalk's xattr (VFS_RSRC_XATTR).  Another
 * value is logged and taken as "file", as Samba's enum options are.
 */
static enum vfs_fruit_rsrc fruit_resource(TALLOC_CTX *mem_ctx,
					  const struct vfs_module_params *p)
{
	const char *v = p->str(p->ctx, mem_ctx, "fruit", "resource");

	if (v != NULL && strcasecmp(v, "stream") == 0) {
		return VFS_FRUIT_RSRC_STREAM;
	}
	if (v != NULL && strcasecmp(v, "xattr") == 0) {
		return VFS_FRUIT_RSRC_XATTR;
	}
	if (v != NULL && strcasecmp(v, "file") != 0) {
		DBG_WARNING("fruit:resource = %s: not a value (\"file\", "
			    "\"xattr\" or \"stream\"); file is used\n", v);
	}
	return VFS_FRUIT_RSRC_FILE;
}

/*
 * fruit:metadata: "netatalk" (Samba's default: the FinderInfo in
 * Netatalk's AppleDouble xattr) or "stream".  Another value is logged
 * and taken as the default, as Samba's enum options are.
 */
static enum vfs_fruit_meta fruit_metadata(TALLOC_CTX *mem_ctx,
					  const struct vfs_module_params *p)
{
	const char *v = p->str(p->ctx, mem_ctx, "fruit", "metadata");

	if (v != NULL && strcasecmp(v, "stream") == 0) {
		return VFS_FRUIT_META_STREAM;
	}
	if (v != NULL && strcasecmp(v, "netatalk") != 0) {
		DBG_WARNING("fruit:metadata = %s: not a value (\"stream\" or "
			    "\"netatalk\"); netatalk is used\n", v);
	}
	return VFS_FRUIT_META_NETATALK;
}

static NTSTATUS fruit_connect(TALLOC_CTX *mem_ctx,
			      const struct vfs_module_params *p,
			      const struct vfs_share *sh, void **priv)
{
	struct vfs_fruit_config *c = talloc_zero(mem_ctx,
						 struct vfs_fruit_config);

	(void)sh;
	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	log_unimplemented(mem_ctx, p);
	c->resource = fruit_resource(mem_ctx, p);
	c->metadata = fruit_metadata(mem_ctx, p);
	c->aapl = p->boolean(p->ctx, "fruit", "aapl", true);
	c->time_machine = p->boolean(p->ctx, "fruit", "time machine", false);
	c->posix_rename = p->boolean(p->ctx, "fruit", "posix_rename", true);
	c->zero_file_id = p->boolean(p->ctx, "fruit", "zero_file_id", true);
	c->veto_appledouble =
		p->boolean(p->ctx, "fruit", "veto_appledouble", true);
	c->time_machine_max_size =
		p->bytes(p->ctx, "fruit", "time machine max size", 0);
	c->wipe_blank_rfork = p->boolean(
		p->ctx, "fruit", "wipe_intentionally_left_blank_rfork", false);
	c->delete_empty_adfiles =
		p->boolean(p->ctx, "fruit", "delete_empty_adfiles", false);
	c->readdir_rsize =
		p->boolean(p->ctx, "readdir_attr", "aapl_rsize", true);
	c->readdir_finder_info =
		p->boolean(p->ctx, "readdir_attr", "aapl_finder_info", true);
	c->readdir_max_access =
		p->boolean(p->ctx, "readdir_attr", "aapl_max_access", true);
	c->model = p->str(p->ctx, c, "fruit", "model");
	if (c->model == NULL) {
		c->model = talloc_strdup(c, "MacSamba");
		if (c->model == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	c->nfs_aces = p->boolean(p->ctx, "fruit", "nfs_aces", true);
	c->copyfile = p->boolean(p->ctx, "fruit", "copyfile", false);
	*priv = c;
	return NT_STATUS_OK;
}

/* fruit:resource = file: deleting a file deletes its "._" file, where
 * its resource fork is (a directory's is its own entry, as Samba's). */
static NTSTATUS fruit_unlink(const struct vfs_call *c,
			     const struct vfs_share *sh, int root_fd,
			     const char *path, bool is_dir,
			     const struct vfs_file_id *want)
{
	const struct vfs_fruit_config *fc = c->priv;
	NTSTATUS st = vfs_next_unlink(c, sh, root_fd, path, is_dir, want);

	if (NT_STATUS_IS_OK(st) && !is_dir && fc != NULL &&
	    fc->resource == VFS_FRUIT_RSRC_FILE) {
		NTSTATUS rs = vfs_rsrc_unlink(sh, root_fd, path);

		if (!NT_STATUS_IS_OK(rs)) {
			DBG_WARNING("%s: its \"._\" file stays: %s\n", path,
				    nt_errstr(rs));
		}
	}
	return st;
}

const struct vfs_module vfs_module_fruit = {
	.name = "fruit",
	.connect = fruit_connect,
	.unlink = fruit_unlink,
};

bool vfs_fruit_afpinfo_xattr(const char *xattr)
{
	return xattr != NULL && strcasecmp(xattr, AFPINFO_XATTR) == 0;
}

bool vfs_fruit_stream_hidden(int fd, enum vfs_fruit_meta meta,
			     const char *listed)
{
	static const char afpinfo[] = ":AFP_AfpInfo" VFS_STREAM_SUFFIX;
	uint8_t rec[VFS_AFPINFO_SIZE];
	char xattr[sizeof(AFPINFO_XATTR)];

	if (strcasecmp(listed, afpinfo) != 0) {
		return false;
	}
	if (meta == VFS_FRUIT_META_NETATALK) {
		return true;
	}
	/* the xattr as it is spelt on disk: the prefix, then the listed
	 * name without its leading ':' */
	memcpy(xattr, VFS_STREAM_PREFIX, sizeof(VFS_STREAM_PREFIX) - 1);
	memcpy(xattr + sizeof(VFS_STREAM_PREFIX) - 1, listed + 1,
	       sizeof(afpinfo) - 1);
	return vfs_afpinfo_get(fd, meta, xattr, rec) ==
	       NT_STATUS_OBJECT_NAME_NOT_FOUND;
}

bool vfs_fruit_netatalk_listed(int fd, enum vfs_fruit_meta meta)
{
	uint8_t rec[VFS_AFPINFO_SIZE];

	return meta == VFS_FRUIT_META_NETATALK &&
	       NT_STATUS_IS_OK(vfs_afpinfo_get(fd, meta, NULL, rec));
}

bool vfs_fruit_resource_xattr(const char *xattr)
{
	return xattr != NULL && strcasecmp(xattr, RESOURCE_XATTR) == 0;
}

bool vfs_afpinfo_valid(const uint8_t *buf, size_t len)
{
	return len >= 8 && be32(buf) == AFP_SIGNATURE &&
	       be32(buf + 4) == AFP_VERSION;
}

static bool finder_info_empty(const uint8_t *rec)
{
	size_t i;

	for (i = 0; i < VFS_AFPINFO_FINDER_SIZE; i++) {
		if (rec[VFS_AFPINFO_FINDER_OFF + i] != 0) {
			return false;
		}
	}
	return true;
}

/* The room to read a record's xattr into: the record and the NUL
 * streams_xattr stores after it, and one more byte to tell a longer
 * value. */
#define AFPINFO_VAL_MAX (VFS_AFPINFO_SIZE + 2)

/* Whether the xattr value val (n bytes, or n < 0 and errno) holds a
 * record: Samba stores it with its NUL; a value without it (set by hand)
 * is taken too. */
static NTSTATUS afpinfo_from_val(const uint8_t *val, ssize_t n,
				 uint8_t rec[VFS_AFPINFO_SIZE])
{
	if (n < 0) {
		if (errno == ENODATA || errno == ERANGE) {
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		return vfs_map_errno(errno);
	}
	if ((n != VFS_AFPINFO_SIZE + 1 && n != VFS_AFPINFO_SIZE) ||
	    !vfs_afpinfo_valid(val, VFS_AFPINFO_SIZE)) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	memcpy(rec, val, VFS_AFPINFO_SIZE);
	return NT_STATUS_OK;
}

static void afpinfo_empty(uint8_t rec[VFS_AFPINFO_SIZE])
{
	memset(rec, 0, VFS_AFPINFO_SIZE);
	put_be32(rec, AFP_SIGNATURE);
	put_be32(rec + 4, AFP_VERSION);
	put_be32(rec + 12, AFP_BACKUP_NEVER);
}

/* Netatalk's xattr of fd into val: NT_STATUS_OBJECT_NAME_NOT_FOUND
 * without one or with one that is not its layout (Samba's fruit takes
 * that as none too), else *finder is where its FinderInfo is. */
static NTSTATUS netatalk_from_val(const uint8_t *val, ssize_t n,
				  size_t *finder)
{
	if (n < 0) {
		if (errno == ENODATA || errno == ERANGE) {
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		return vfs_map_errno(errno);
	}
	if (!NT_STATUS_IS_OK(vfs_adouble_meta_finder(val, (size_t)n,
						     finder))) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return NT_STATUS_OK;
}

static NTSTATUS netatalk_get(int fd, uint8_t val[VFS_ADOUBLE_META_SIZE],
			     size_t *finder)
{
	ssize_t n = fgetxattr(fd, VFS_ADOUBLE_META_XATTR, val,
			      VFS_ADOUBLE_META_SIZE);

	return netatalk_from_val(val, n, finder);
}

/* The record made around Netatalk's FinderInfo, as Samba's fruit reads
 * it: an empty record with that FinderInfo.  One whose FinderInfo is
 * all zero is none (fruit.h: the stream exists only with metadata). */
static NTSTATUS netatalk_record(int fd, uint8_t rec[VFS_AFPINFO_SIZE])
{
	uint8_t val[VFS_ADOUBLE_META_SIZE];
	size_t finder;
	NTSTATUS st = netatalk_get(fd, val, &finder);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	afpinfo_empty(rec);
	memcpy(rec + VFS_AFPINFO_FINDER_OFF, val + finder,
	       VFS_AFPINFO_FINDER_SIZE);
	return finder_info_empty(rec) ? NT_STATUS_OBJECT_NAME_NOT_FOUND
				      : NT_STATUS_OK;
}

/* Netatalk's xattr of fd := its value (or a new one) with the record's
 * FinderInfo; a FinderInfo of zeros removes it. */
static NTSTATUS netatalk_put(int fd, const uint8_t rec[VFS_AFPINFO_SIZE])
{
	uint8_t val[VFS_ADOUBLE_META_SIZE];
	size_t finder;
	NTSTATUS st;

	if (finder_info_empty(rec)) {
		if (fremovexattr(fd, VFS_ADOUBLE_META_XATTR) != 0 &&
		    errno != ENODATA) {
			return vfs_map_errno(errno);
		}
		return NT_STATUS_OK;
	}
	st = netatalk_get(fd, val, &finder);
	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND) {
		vfs_adouble_meta_init(val, (int64_t)time(NULL));
		st = vfs_adouble_meta_finder(val, sizeof(val), &finder);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	memcpy(val + finder, rec + VFS_AFPINFO_FINDER_OFF,
	       VFS_AFPINFO_FINDER_SIZE);
	if (fsetxattr(fd, VFS_ADOUBLE_META_XATTR, val, sizeof(val), 0) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_afpinfo_get(int fd, enum vfs_fruit_meta meta, const char *xattr,
			 uint8_t rec[VFS_AFPINFO_SIZE])
{
	uint8_t val[AFPINFO_VAL_MAX];
	ssize_t n;

	if (meta == VFS_FRUIT_META_NETATALK) {
		return netatalk_record(fd, rec);
	}
	n = fgetxattr(fd, xattr, val, sizeof(val));
	return afpinfo_from_val(val, n, rec);
}

/* AFP time: seconds since 2000-01-01 (Unix 946684800); the "no date"
 * value is the earliest the signed 32 bits hold. */
#define AFP_TIME_DELTA 946684800

void vfs_fruit_finder_compress(const uint8_t *finder, bool is_file,
			       int64_t btime,
			       uint8_t out[VFS_FRUIT_DIR_FINDER_SIZE])
{
	int64_t added = btime - AFP_TIME_DELTA;

	memset(out, 0, VFS_FRUIT_DIR_FINDER_SIZE);
	if (finder == NULL) {
		put_be32(out + 12, AFP_BACKUP_NEVER);
		return;
	}
	if (is_file) {
		memcpy(out, finder, 8);		/* type, creator */
	}
	memcpy(out + 8, finder + 8, 2);		/* Finder flags */
	memcpy(out + 10, finder + 24, 2);	/* extended flags */
	/* past 2136 the field saturates; before 2000 it wraps, as Samba
	 * writes it */
	put_be32(out + 12, added > (int64_t)UINT32_MAX ? UINT32_MAX
						       : (uint32_t)added);
}

/*
 * One xattr of an fd that may be O_PATH (a listing's entries are opened
 * so: no open side effects), in one call: the fd's /proc link names the
 * same inode whatever kind of fd it is.
 */
static ssize_t dir_meta_getxattr(int fd, const char *name, void *val,
				 size_t size)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return getxattr(proc, name, val, size);
}

static uint64_t dir_meta_rsize(const struct vfs_fruit_config *c, int fd,
			       int dirfd, const char *name)
{
	uint64_t size = 0;
	ssize_t n;

	if (c->resource == VFS_FRUIT_RSRC_FILE) {
		/* a file's fork; a directory's "._" file too, as Samba's */
		(void)vfs_rsrc_size_at(dirfd, name, &size);
		return size;
	}
	if (c->resource == VFS_FRUIT_RSRC_XATTR) {
		/* Netatalk's xattr: the fork alone */
		n = dir_meta_getxattr(fd, VFS_RSRC_XATTR, NULL, 0);
		return n > 0 ? (uint64_t)n : 0;
	}
	/* the stream's size: its xattr's less streams_xattr's NUL */
	n = dir_meta_getxattr(fd, RESOURCE_XATTR, NULL, 0);
	return n > 0 ? (uint64_t)n - 1 : 0;
}

void vfs_fruit_dir_meta_get(const struct vfs_fruit_config *c, int fd,
			    int dirfd, const char *name, bool is_file,
			    int64_t btime, struct vfs_fruit_dir_meta *out)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	bool have_rec = false;

	memset(out, 0, sizeof(*out));
	if (fd != -1 && c->readdir_rsize) {
		out->rfork_size = dir_meta_rsize(c, fd, dirfd, name);
	}
	if (!c->readdir_finder_info) {
		/* Samba's default date stays in that case too */
		vfs_fruit_finder_compress(NULL, is_file, btime, out->finder);
		return;
	}
	if (fd != -1 && c->metadata == VFS_FRUIT_META_NETATALK) {
		/* the FinderInfo of Netatalk's xattr (fruit.h) */
		uint8_t val[VFS_ADOUBLE_META_SIZE];
		ssize_t n = dir_meta_getxattr(fd, VFS_ADOUBLE_META_XATTR, val,
					      sizeof(val));
		size_t fo;

		have_rec = NT_STATUS_IS_OK(netatalk_from_val(val, n, &fo));
		if (have_rec) {
			afpinfo_empty(rec);
			memcpy(rec + VFS_AFPINFO_FINDER_OFF, val + fo,
			       VFS_AFPINFO_FINDER_SIZE);
		}
	} else if (fd != -1) {
		uint8_t val[AFPINFO_VAL_MAX];
		ssize_t n = dir_meta_getxattr(fd, AFPINFO_XATTR, val,
					      sizeof(val));

		have_rec = NT_STATUS_IS_OK(afpinfo_from_val(val, n, rec));
	}
	vfs_fruit_finder_compress(have_rec ? rec + VFS_AFPINFO_FINDER_OFF
					   : NULL,
				  is_file, btime, out->finder);
}

NTSTATUS vfs_afpinfo_size(int fd, enum vfs_fruit_meta meta,
			  const char *xattr, uint64_t *size)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	NTSTATUS st = vfs_afpinfo_get(fd, meta, xattr, rec);

	*size = NT_STATUS_IS_OK(st) ? VFS_AFPINFO_SIZE : 0;
	return st == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_OK : st;
}

NTSTATUS vfs_afpinfo_delete(int fd, enum vfs_fruit_meta meta,
			    const char *xattr)
{
	const char *x = meta == VFS_FRUIT_META_NETATALK
				? VFS_ADOUBLE_META_XATTR
				: xattr;

	if (fremovexattr(fd, x) != 0 && errno != ENODATA) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_afpinfo_pread(int fd, enum vfs_fruit_meta meta,
			   const char *xattr, uint8_t *buf, size_t len,
			   uint64_t off, size_t *got)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	NTSTATUS st = vfs_afpinfo_get(fd, meta, xattr, rec);

	*got = 0;
	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND) {
		afpinfo_empty(rec);
	} else if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (off > VFS_AFPINFO_SIZE) {
		return NT_STATUS_OK;
	}
	*got = len < VFS_AFPINFO_SIZE ? len : VFS_AFPINFO_SIZE;
	memcpy(buf, rec, *got);
	return NT_STATUS_OK;
}

NTSTATUS vfs_afpinfo_pwrite(int fd, enum vfs_fruit_meta meta,
			    const char *xattr, const uint8_t *data, size_t len,
			    uint64_t off)
{
	/* the record and streams_xattr's trailing NUL */
	uint8_t val[VFS_AFPINFO_SIZE + 1] = {0};
	size_t n = len < VFS_AFPINFO_SIZE ? len : VFS_AFPINFO_SIZE;
	NTSTATUS st;

	if (len < VFS_AFPINFO_SIZE && off != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* What is written must start with the signature, taken as it is
	 * ("A" alone is not "AFP\0"; "AFP" is, its NUL implied) ... */
	memcpy(val, data, n);
	if (be32(val) != AFP_SIGNATURE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* ... and a short write changes the start of the record there is
	 * (or of an empty one): "AFP" alone keeps the version. */
	st = vfs_afpinfo_get(fd, meta, xattr, val);
	if (st == NT_STATUS_OBJECT_NAME_NOT_FOUND) {
		afpinfo_empty(val);
	} else if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	memcpy(val, data, n);
	if (!vfs_afpinfo_valid(val, VFS_AFPINFO_SIZE)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (meta == VFS_FRUIT_META_NETATALK) {
		return netatalk_put(fd, val);
	}
	if (finder_info_empty(val)) {
		if (fremovexattr(fd, xattr) != 0 && errno != ENODATA) {
			return vfs_map_errno(errno);
		}
		return NT_STATUS_OK;
	}
	if (fsetxattr(fd, xattr, val, sizeof(val), 0) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

NTSTATUS vfs_afpinfo_set_eof(uint64_t size)
{
	return size > VFS_AFPINFO_SIZE ? NT_STATUS_ALLOTTED_SPACE_EXCEEDED
				       : NT_STATUS_OK;
}

/*
 * AppleDouble conversion.  What a "._NAME" file holds becomes NAME's
 * streams, the way macOS itself would have stored them on a share with
 * streams: the FinderInfo as the AFP_AfpInfo record (kept as
 * fruit:metadata says), each extended attribute as a stream of its name
 * (':', which NTFS names cannot hold, as U+F022, the character a Mac
 * sends for it), the resource fork as AFP_Resource.  Once all of it is
 * stored the "._" file keeps only the fork (fruit:resource = file), or is
 * deleted when it has none left and fruit:delete_empty_adfiles says so,
 * or else stays as a bare header: Samba's rule (its ad_convert deletes
 * the "._" file only with that option and an empty fork).  A file that
 * does not parse, or holds more than streams can (VFS_STREAM_MAX each),
 * is left as it is.
 */

/* A ._ file larger than this is not read: its resource fork could not be
 * a stream anyway. */
#define ADOUBLE_READ_MAX (VFS_STREAM_MAX + 65536)

static NTSTATUS adouble_read(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			     const char *adpath, uint8_t **buf, size_t *len,
			     struct vfs_file_id *id)
{
	int fd = vfs_openat_beneath(sh, sh->root_fd, adpath,
				    O_RDONLY | O_NOFOLLOW, 0);
	struct stat sb;
	ssize_t n;

	if (fd == -1) {
		return vfs_map_errno(errno);
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > ADOUBLE_READ_MAX) {
		close(fd);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	*id = vfs_file_id_of_fd(fd);
	*buf = talloc_size(mem_ctx, (size_t)sb.st_size + 1);
	n = *buf != NULL ? pread(fd, *buf, (size_t)sb.st_size, 0) : -1;
	close(fd);
	if (n < 0) {
		return NT_STATUS_NO_MEMORY;
	}
	*len = (size_t)n;
	return NT_STATUS_OK;
}

/* Stream `name` (on disk: ':' as U+F022) of fd := data. */
static NTSTATUS adouble_put(TALLOC_CTX *mem_ctx, int fd, const char *name,
			    const uint8_t *data, size_t len)
{
	char *x = talloc_strdup(mem_ctx, VFS_STREAM_PREFIX);
	uint8_t *val;
	const char *p;

	for (p = name; x != NULL && *p != '\0'; p++) {
		x = *p == ':' ? talloc_strdup_append(x, "\xef\x80\xa2")
			      : talloc_asprintf_append(x, "%c", *p);
	}
	x = x != NULL ? talloc_strdup_append(x, VFS_STREAM_SUFFIX) : NULL;
	val = talloc_size(mem_ctx, len + 1);
	if (x == NULL || val == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(val, data, len);
	val[len] = 0;	/* streams_xattr's trailing NUL */
	if (fsetxattr(fd, x, val, len + 1, 0) != 0) {
		return vfs_map_errno(errno);
	}
	return NT_STATUS_OK;
}

static bool adouble_fits(const struct vfs_adouble *ad, bool keep_fork)
{
	size_t i;

	if (!keep_fork && ad->rsrc_len > VFS_STREAM_MAX) {
		return false;
	}
	for (i = 0; i < ad->nxattrs; i++) {
		const char *n = ad->xattrs[i].name;

		if (ad->xattrs[i].len > VFS_STREAM_MAX ||
		    strlen(n) > 200 || strchr(n, '/') != NULL ||
		    strchr(n, '\\') != NULL) {
			return false;
		}
	}
	return true;
}

static NTSTATUS adouble_store(TALLOC_CTX *mem_ctx, int fd,
			      const struct vfs_adouble *ad,
			      enum vfs_fruit_meta meta, bool keep_fork,
			      unsigned flags)
{
	NTSTATUS st = NT_STATUS_OK;
	size_t i;

	if (ad->finder != NULL && meta != VFS_FRUIT_META_NONE) {
		uint8_t rec[VFS_AFPINFO_SIZE];

		afpinfo_empty(rec);
		memcpy(rec + VFS_AFPINFO_FINDER_OFF, ad->finder,
		       VFS_AFPINFO_FINDER_SIZE);
		/* all-zero FinderInfo: no record, as for a client's write */
		st = vfs_afpinfo_pwrite(fd, meta, AFPINFO_XATTR, rec,
					sizeof(rec), 0);
	}
	for (i = 0; NT_STATUS_IS_OK(st) && i < ad->nxattrs; i++) {
		st = adouble_put(mem_ctx, fd, ad->xattrs[i].name,
				 ad->xattrs[i].data, ad->xattrs[i].len);
	}
	if (NT_STATUS_IS_OK(st) && ad->rsrc_len > 0 && !keep_fork &&
	    (flags & VFS_FRUIT_CONV_RSRC_XATTR) != 0) {
		/* the fork alone, as fruit_rsrc.h keeps it */
		st = vfs_stream_reset(fd, VFS_RSRC_XATTR);
		if (NT_STATUS_IS_OK(st)) {
			st = vfs_stream_pwrite(fd, VFS_RSRC_XATTR, ad->rsrc,
					       ad->rsrc_len, 0);
		}
	} else if (NT_STATUS_IS_OK(st) && ad->rsrc_len > 0 && !keep_fork) {
		st = adouble_put(mem_ctx, fd, "AFP_Resource", ad->rsrc,
				 ad->rsrc_len);
	}
	return st;
}

/*
 * Whether the user may both write path's streams and remove adpath (and
 * with `rewrite` write it).
 * Asked first: streams written for a "._" file that then stays would be
 * written again over later changes at each CREATE.  A probe only (the
 * writes and the unlink are anchored as always); a change between it
 * and them leaves a "._" file to convert again, which is what a failed
 * unlink would.
 */
static bool adouble_may_convert(const struct vfs_share *sh, const char *path,
				const char *adpath, bool rewrite)
{
	const char *slash = strrchr(adpath, '/');
	char dir[4096];
	int n = slash != NULL ? (int)(slash - adpath) : 0;

	if (snprintf(dir, sizeof(dir), "%.*s", n, adpath) >= (int)sizeof(dir)) {
		return false;
	}
	if (rewrite &&
	    faccessat(sh->root_fd, adpath, W_OK, AT_EACCESS) != 0) {
		return false;
	}
	return faccessat(sh->root_fd, path[0] ? path : ".", W_OK,
			 AT_EACCESS) == 0 &&
	       faccessat(sh->root_fd, dir[0] ? dir : ".", W_OK | X_OK,
			 AT_EACCESS) == 0;
}

/* Whether the "._" file holds more than a fork: a FinderInfo that is
 * not all zero or attributes (fruit:resource = file converts only
 * those). */
static bool adouble_has_meta(const struct vfs_adouble *ad)
{
	size_t i;

	for (i = 0; ad->finder != NULL && i < VFS_ADOUBLE_FINDER_SIZE; i++) {
		if (ad->finder[i] != 0) {
			return true;
		}
	}
	return ad->nxattrs > 0;
}

/* After the conversion the "._" file keeps the fork it still holds
 * (fruit:resource = file), in the layout fruit_rsrc.h writes; without
 * one it goes with delete_empty, else stays a bare header, its
 * FinderInfo zero. */
static NTSTATUS adouble_finish(const struct vfs_share *sh,
			       const char *adpath, const uint8_t *fork,
			       size_t len, bool delete_empty,
			       const struct vfs_file_id *id)
{
	if (len == 0 && delete_empty) {
		return vfs_unlink_anchored(sh, sh->root_fd, adpath, false, id);
	}
	return vfs_rsrc_rewrite(sh, adpath, fork, len);
}

/* What the conversion of a parsed "._" file does. */
struct adouble_plan {
	bool blank;	/* its fork is Apple's empty one, wiped */
	bool store;	/* metadata or a fork to store as streams */
	bool finish;	/* the "._" file is rewritten or deleted */
};

static void adouble_plan(struct vfs_adouble *ad, bool rsrc_file,
			 unsigned flags, struct adouble_plan *p)
{
	p->blank = (flags & VFS_FRUIT_CONV_WIPE_BLANK) != 0 &&
		   vfs_adouble_rsrc_blank(ad->rsrc, ad->rsrc_len);
	if (p->blank) {
		ad->rsrc_len = 0;
	}
	p->store = adouble_has_meta(ad) || (!rsrc_file && ad->rsrc_len > 0);
	/* Without anything to store, the "._" file changes only for a
	 * wiped fork (Samba truncates it) or to be deleted, empty. */
	p->finish = p->store || p->blank ||
		    (ad->rsrc_len == 0 &&
		     (flags & VFS_FRUIT_CONV_DELETE_EMPTY) != 0);
}

NTSTATUS vfs_fruit_convert_adouble(const struct vfs_share *sh,
				   const char *path, enum vfs_fruit_meta meta,
				   bool rsrc_file, unsigned flags)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *adpath = tmp != NULL ? vfs_rsrc_path(tmp, path) : NULL;
	struct vfs_file_id id = {0, 0};
	struct adouble_plan plan;
	struct vfs_adouble ad;
	uint8_t *buf = NULL;
	size_t len = 0, keep;
	bool delete_empty;
	NTSTATUS st;
	int fd;

	if (adpath == NULL) {
		talloc_free(tmp);
		return NT_STATUS_OK;
	}
	st = adouble_read(tmp, sh, adpath, &buf, &len, &id);
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(tmp);
		/* no ._ file: the common case */
		return st == NT_STATUS_OBJECT_NAME_NOT_FOUND ? NT_STATUS_OK
							      : st;
	}
	if (!NT_STATUS_IS_OK(vfs_adouble_parse(tmp, buf, len, &ad)) ||
	    !adouble_fits(&ad, rsrc_file)) {
		DBG_NOTICE("%s: not an AppleDouble file this server can "
			   "convert; left as it is\n", adpath);
		talloc_free(tmp);
		return NT_STATUS_OK;
	}
	adouble_plan(&ad, rsrc_file, flags, &plan);
	if (!plan.finish) {
		/* the "._" file is the fork's home, or holds nothing */
		talloc_free(tmp);
		return NT_STATUS_OK;
	}
	/* a fork stored as a stream is no longer the "._" file's */
	keep = rsrc_file ? ad.rsrc_len : 0;
	delete_empty = (flags & VFS_FRUIT_CONV_DELETE_EMPTY) != 0;
	if (!adouble_may_convert(sh, path, adpath,
				 keep > 0 || !delete_empty)) {
		DBG_NOTICE("%s: this user may not remove it or write %s's "
			   "streams; not converted\n", adpath, path);
		talloc_free(tmp);
		return NT_STATUS_OK;
	}
	if (plan.store) {
		fd = vfs_openat_beneath(sh, sh->root_fd, path[0] ? path : ".",
					O_RDONLY, 0);
		if (fd == -1) {
			st = vfs_map_errno(errno);
			talloc_free(tmp);
			return st;
		}
		st = adouble_store(tmp, fd, &ad, meta, rsrc_file, flags);
		close(fd);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = adouble_finish(sh, adpath, ad.rsrc, keep, delete_empty,
				    &id);
	}
	if (!NT_STATUS_IS_OK(st)) {
		DBG_WARNING("%s: AppleDouble conversion: %s\n", adpath,
			    nt_errstr(st));
	}
	talloc_free(tmp);
	return st;
}

/* ---- fruit's handle ops (vfs/handle.h) ---- */

static NTSTATUS afpinfo_handle_pread(const struct vfs_handle *h,
				     uint8_t *buf, size_t len, uint64_t off,
				     size_t *got)
{
	NTSTATUS status = vfs_afpinfo_pread(h->fd, h->mode, h->xattr, buf,
					    len, off, got);

	return NT_STATUS_IS_OK(status) ? status : NT_STATUS_IO_DEVICE_ERROR;
}

/* The record's refusals (INVALID_PARAMETER) go to the client as they
 * are. */
static NTSTATUS afpinfo_handle_pwrite(const struct vfs_handle *h,
				      const uint8_t *data, size_t len,
				      uint64_t off, size_t *written)
{
	NTSTATUS status = vfs_afpinfo_pwrite(h->fd, h->mode, h->xattr, data,
					     len, off);

	*written = NT_STATUS_IS_OK(status) ? len : 0;
	return status;
}

static NTSTATUS afpinfo_handle_size(const struct vfs_handle *h,
				    uint64_t *size)
{
	return vfs_afpinfo_size(h->fd, h->mode, h->xattr, size);
}

/* QUERY_INFO and CREATE: the record's size, written yet or not, as
 * Samba says. */
static NTSTATUS afpinfo_handle_info_size(const struct vfs_handle *h,
					 uint64_t *size)
{
	(void)h;
	*size = VFS_AFPINFO_SIZE;
	return NT_STATUS_OK;
}

static NTSTATUS afpinfo_handle_set_size(const struct vfs_handle *h,
					uint64_t size)
{
	(void)h;
	return vfs_afpinfo_set_eof(size);
}

static NTSTATUS afpinfo_handle_remove(const struct vfs_handle *h)
{
	return vfs_afpinfo_delete(h->fd, h->mode, h->xattr);
}

/*
 * CREATE: fruit's AFP_AfpInfo exists only as a valid record (fruit.h):
 * one that is not (written through a share without fruit) is no
 * stream here; with netatalk the record is not the stream's xattr.
 */
static NTSTATUS afpinfo_stream_open(TALLOC_CTX *mem_ctx,
				    const struct vfs_handle *h,
				    const struct vfs_share *share,
				    const char *path, bool writes, int *aux,
				    char **xattr, bool *exists)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	NTSTATUS status;

	(void)mem_ctx, (void)share, (void)path, (void)writes, (void)aux;
	if (!*exists && h->mode != VFS_FRUIT_META_NETATALK) {
		return NT_STATUS_OK;
	}
	status = vfs_afpinfo_get(h->fd, h->mode, *xattr, rec);
	if (status == NT_STATUS_OBJECT_NAME_NOT_FOUND) {
		*exists = false;
		return NT_STATUS_OK;
	}
	*exists = NT_STATUS_IS_OK(status);
	return status;
}

/* Found, it is never empty: it exists only with a valid record. */
static bool afpinfo_stream_empty(const struct vfs_handle *h, int aux)
{
	(void)h, (void)aux;
	return false;
}

/* It comes into being with the first valid record written, not
 * empty. */
static NTSTATUS afpinfo_stream_reset(const struct vfs_handle *h,
				     const struct vfs_share *share,
				     const char *path, int *aux)
{
	(void)h, (void)share, (void)path, (void)aux;
	return NT_STATUS_OK;
}

/* The record's size, written yet or not, as Samba says. */
static NTSTATUS afpinfo_stream_opened(struct vfs_handle *h, int *aux,
				      uint64_t *size)
{
	(void)aux;
	return afpinfo_handle_info_size(h, size);
}

static const struct vfs_handle_ops afpinfo_handle_ops = {
	.name = "fruit_afpinfo",
	.flags = 0,
	.pread = afpinfo_handle_pread,
	.pwrite = afpinfo_handle_pwrite,
	.size = afpinfo_handle_size,
	.info_size = afpinfo_handle_info_size,
	.set_size = afpinfo_handle_set_size,
	.allocate = vfs_stream_handle_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = afpinfo_handle_remove,
	.stream_open = afpinfo_stream_open,
	.stream_empty = afpinfo_stream_empty,
	.stream_reset = afpinfo_stream_reset,
	.stream_opened = afpinfo_stream_opened,
};

/* AFP_Resource as a stream (fruit:resource = stream): a stream whose
 * delete-on-close is ignored. */
static const struct vfs_handle_ops rsrc_stream_handle_ops = {
	.name = "fruit_rsrc_stream",
	.flags = VFS_HANDLE_IGNORE_DELETE_ON_CLOSE,
	.pread = vfs_stream_handle_pread,
	.pwrite = vfs_stream_handle_pwrite,
	.size = vfs_stream_handle_size,
	.info_size = vfs_stream_handle_size,
	.set_size = vfs_stream_handle_set_size,
	.allocate = vfs_stream_handle_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = vfs_stream_handle_remove,
	.stream_open = vfs_stream_handle_open,
	.stream_empty = vfs_stream_handle_empty,
	.stream_reset = vfs_stream_handle_reset,
	.stream_opened = vfs_stream_handle_opened,
};

/*
 * fruit:resource = xattr: the handle's stream is Netatalk's fork xattr
 * (fruit_rsrc.h), which the stream calls read and write without the
 * NUL of streams_xattr's; the stream exists while it does.
 */
static NTSTATUS rsrc_xattr_stream_open(TALLOC_CTX *mem_ctx,
				       const struct vfs_handle *h,
				       const struct vfs_share *share,
				       const char *path, bool writes,
				       int *aux, char **xattr, bool *exists)
{
	char *x = talloc_strdup(mem_ctx, VFS_RSRC_XATTR);
	uint64_t size;

	(void)share, (void)path, (void)writes, (void)aux;
	if (x == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	talloc_free(*xattr);
	*xattr = x;
	*exists = NT_STATUS_IS_OK(vfs_stream_size(h->fd, x, &size));
	return NT_STATUS_OK;
}

static const struct vfs_handle_ops rsrc_xattr_handle_ops = {
	.name = "fruit_rsrc_xattr",
	.flags = VFS_HANDLE_IGNORE_DELETE_ON_CLOSE,
	.pread = vfs_stream_handle_pread,
	.pwrite = vfs_stream_handle_pwrite,
	.size = vfs_stream_handle_size,
	.info_size = vfs_stream_handle_size,
	.set_size = vfs_stream_handle_set_size,
	.allocate = vfs_stream_handle_allocate,
	.sync = vfs_posix_handle_sync,
	.remove = vfs_stream_handle_remove,
	.stream_open = rsrc_xattr_stream_open,
	.stream_empty = vfs_stream_handle_empty,
	.stream_reset = vfs_stream_handle_reset,
	.stream_opened = vfs_stream_handle_opened,
};

void vfs_stream_policy_of(const struct vfs_stack *s,
			  struct vfs_stream_policy *p)
{
	const struct vfs_fruit_config *c = vfs_fruit_config(s);

	p->active = c != NULL;
	p->meta = (int)vfs_fruit_meta(s);
	p->rsrc = c != NULL ? (int)c->resource : (int)VFS_FRUIT_RSRC_FILE;
	p->conv = vfs_fruit_conv_flags(s);
}

const struct vfs_handle_ops *
vfs_stream_handle_pick(const struct vfs_stream_policy *p, const char *xattr,
		       int *mode)
{
	*mode = VFS_FRUIT_META_NONE;
	if (p->active && p->meta != VFS_FRUIT_META_NONE &&
	    vfs_fruit_afpinfo_xattr(xattr)) {
		*mode = p->meta;
		return &afpinfo_handle_ops;
	}
	if (p->active && vfs_fruit_resource_xattr(xattr)) {
		return p->rsrc == VFS_FRUIT_RSRC_FILE ? &vfs_rsrc_handle_ops
		       : p->rsrc == VFS_FRUIT_RSRC_XATTR
			       ? &rsrc_xattr_handle_ops
			       : &rsrc_stream_handle_ops;
	}
	return &vfs_stream_handle_ops;
}

void vfs_stream_policy_found(const struct vfs_stream_policy *p,
			     const struct vfs_share *sh, const char *path)
{
	if (p->active) {
		(void)vfs_fruit_convert_adouble(sh, path,
						(enum vfs_fruit_meta)p->meta,
						p->rsrc == VFS_FRUIT_RSRC_FILE,
						p->conv);
	}
}
