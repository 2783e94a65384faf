/*
 * vfs_fruit: the module descriptor, its options and the AFP_AfpInfo
 * stream (design in fruit.h).
 */
#include "vfs/fruit.h"
#include "vfs/module.h"
#include "vfs/streams.h"
#include "vfs/vfs.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/xattr.h>

#define AFP_SIGNATURE 0x41465000	/* 'AFP\0' */
#define AFP_VERSION 0x00010000
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
	"resource",
	"model",
	"posix_rename",
	"veto_appledouble",
	"zero_file_id",
	"nfs_aces",
	"wipe_intentionally_left_blank_rfork",
	"delete_empty_adfiles",
	"time machine",
	"time machine max size",
	"aapl",
	"copyfile",
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
 * fruit:metadata: only "stream" is built.  Samba's default, "netatalk"
 * (the record inside an AppleDouble xattr), is not: with it the share
 * keeps AFP_AfpInfo as an ordinary stream, and says so.
 */
static NTSTATUS fruit_connect(TALLOC_CTX *mem_ctx,
			      const struct vfs_module_params *p,
			      const struct vfs_share *sh, void **priv)
{
	const char *meta = p->str(p->ctx, mem_ctx, "fruit", "metadata");
	struct vfs_fruit_config *c = talloc_zero(mem_ctx,
						 struct vfs_fruit_config);

	(void)sh;
	if (c == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	log_unimplemented(mem_ctx, p);
	if (meta != NULL && strcasecmp(meta, "stream") == 0) {
		c->metadata = VFS_FRUIT_META_STREAM;
	} else {
		DBG_WARNING("fruit:metadata = %s: not supported (only "
			    "\"stream\"); AFP_AfpInfo is an ordinary "
			    "stream on this share\n",
			    meta != NULL ? meta : "netatalk (default)");
		c->metadata = VFS_FRUIT_META_NONE;
	}
	*priv = c;
	return NT_STATUS_OK;
}

const struct vfs_module vfs_module_fruit = {
	.name = "fruit",
	.connect = fruit_connect,
};

bool vfs_fruit_afpinfo_xattr(const char *xattr)
{
	return xattr != NULL && strcasecmp(xattr, AFPINFO_XATTR) == 0;
}

bool vfs_fruit_stream_hidden(int fd, const char *listed)
{
	static const char afpinfo[] = ":AFP_AfpInfo" VFS_STREAM_SUFFIX;
	uint8_t rec[VFS_AFPINFO_SIZE];
	char xattr[sizeof(AFPINFO_XATTR)];

	if (strcasecmp(listed, afpinfo) != 0) {
		return false;
	}
	/* the xattr as it is spelt on disk: the prefix, then the listed
	 * name without its leading ':' */
	memcpy(xattr, VFS_STREAM_PREFIX, sizeof(VFS_STREAM_PREFIX) - 1);
	memcpy(xattr + sizeof(VFS_STREAM_PREFIX) - 1, listed + 1,
	       sizeof(afpinfo) - 1);
	return vfs_afpinfo_get(fd, xattr, rec) ==
	       NT_STATUS_OBJECT_NAME_NOT_FOUND;
}

bool vfs_fruit_resource_xattr(const char *xattr)
{
	return xattr != NULL && strcasecmp(xattr, RESOURCE_XATTR) == 0;
}

bool vfs_afpinfo_valid(const uint8_t *buf, size_t len)
{
	uint8_t rec[VFS_AFPINFO_SIZE] = {0};

	memcpy(rec, buf, len < sizeof(rec) ? len : sizeof(rec));
	return be32(rec) == AFP_SIGNATURE;
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

NTSTATUS vfs_afpinfo_get(int fd, const char *xattr,
			 uint8_t rec[VFS_AFPINFO_SIZE])
{
	/* the record and the NUL streams_xattr stores after it, and one
	 * more byte to tell a longer value */
	uint8_t val[VFS_AFPINFO_SIZE + 2];
	ssize_t n = fgetxattr(fd, xattr, val, sizeof(val));

	if (n < 0) {
		if (errno == ENODATA || errno == ERANGE) {
			return NT_STATUS_OBJECT_NAME_NOT_FOUND;
		}
		return vfs_map_errno(errno);
	}
	/* Samba stores the record with its NUL; a value without it (set
	 * by hand) is taken too. */
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

NTSTATUS vfs_afpinfo_pread(int fd, const char *xattr, uint8_t *buf,
			   size_t len, uint64_t off, size_t *got)
{
	uint8_t rec[VFS_AFPINFO_SIZE];
	NTSTATUS st = vfs_afpinfo_get(fd, xattr, rec);

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

NTSTATUS vfs_afpinfo_pwrite(int fd, const char *xattr, const uint8_t *data,
			    size_t len, uint64_t off)
{
	/* the record and streams_xattr's trailing NUL */
	uint8_t val[VFS_AFPINFO_SIZE + 1] = {0};

	if (len < VFS_AFPINFO_SIZE && off != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	memcpy(val, data, len < VFS_AFPINFO_SIZE ? len : VFS_AFPINFO_SIZE);
	if (!vfs_afpinfo_valid(val, VFS_AFPINFO_SIZE)) {
		return NT_STATUS_INVALID_PARAMETER;
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
