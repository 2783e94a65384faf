/*
 * Samba's user.DOSATTRIB xattr (`store dos attributes = yes`): the DOS
 * attributes and the create time of a file, byte-compatible with what
 * Samba writes, so Samba's smbd and ours can take turns on one share.
 *
 * The value is Samba's NDR encoding of xattr_DOSATTRIB (librpc/idl/
 * xattr.idl), learnt from Samba 4.17 by experiment (see
 * testsuite/unit/test_dosattrib.c):
 *
 *   attrib_hex  NUL-terminated ASCII: "" since v4, "0x%x" of the
 *               attributes in v1-v3, and on its own (nothing after it) the
 *               oldest form, Samba 3.0's plain hex string
 *   pad         to 2
 *   version     uint16: 1..5
 *   level       uint16: the union switch, equal to version
 *   pad         to 4
 *   info        v1: attrib, ea_size, size(8), alloc_size(8),
 *                   create_time(8), change_time(8)
 *               v2: flags, attrib, ea_size, size(8), alloc_size(8),
 *                   create_time(8), change_time(8), write_time(8),
 *                   name (NUL-terminated UTF-8)
 *               v3: valid_flags, attrib, ea_size, size(8), alloc_size(8),
 *                   create_time(8), change_time(8)
 *               v4: valid_flags, attrib, itime(8), create_time(8)
 *               v5: valid_flags, attrib, create_time(8)
 *
 * all little-endian, 8-byte fields aligned to 4 only.  Bytes after the
 * structure are ignored, as Samba does.
 */
#ifndef VFS_DOSATTRIB_H
#define VFS_DOSATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

#define DOSATTRIB_XATTR_NAME "user.DOSATTRIB"

/* xattr.idl's valid_flags bits (v3-v5). */
#define DOSATTRIB_VALID_ATTRIB 0x01
#define DOSATTRIB_VALID_EA_SIZE 0x02
#define DOSATTRIB_VALID_SIZE 0x04
#define DOSATTRIB_VALID_ALLOC_SIZE 0x08
#define DOSATTRIB_VALID_CREATE_TIME 0x10
#define DOSATTRIB_VALID_CHANGE_TIME 0x20
#define DOSATTRIB_VALID_ITIME 0x40

/* The version a hex-string-only value decodes as (Samba's name too). */
#define DOSATTRIB_VERSION_HEX 0xFFFF

struct dos_info {
	uint32_t attrs;		/* FILE_ATTRIBUTE_*, as stored */
	bool has_create_time;
	uint64_t create_time;	/* NTTIME */
	bool has_itime;		/* v4 only: Samba's "invented" time */
	uint64_t itime;
	uint16_t version;	/* decode: the version read; encode ignores */
};

/*
 * blob -> *out, with Samba 4.17's reading rules (source3/smbd/dosmode.c):
 * the attributes of every version are taken as stored (the caller masks
 * them and adds FILE_ATTRIBUTE_DIRECTORY for a directory, as Samba does);
 * the create time counts in v1 when not 0 or -1, never in v2, and in v3-v5
 * when DOSATTRIB_VALID_CREATE_TIME is set and it is not 0 or -1.
 * NT_STATUS_INVALID_PARAMETER for anything Samba would not read: empty,
 * truncated, a version other than 1-5, a level that differs from the
 * version, a hex string without a hex digit or with non-ASCII bytes.
 */
NTSTATUS dosattrib_decode(const uint8_t *blob, size_t len,
			  struct dos_info *out);

/*
 * What Samba 4.17 writes for in (set_ea_dos_attribute): version 5, an empty
 * attrib_hex, valid_flags ATTRIB|CREATE_TIME (CREATE_TIME only when
 * in->has_create_time; Samba always has one), the attributes without
 * FILE_ATTRIBUTE_OFFLINE (Samba never stores it).  24 bytes on mem_ctx.
 */
NTSTATUS dosattrib_encode(TALLOC_CTX *mem_ctx, const struct dos_info *in,
			  uint8_t **blob, size_t *len);

/*
 * Read or write user.DOSATTRIB on fd.  fd may be an O_PATH descriptor:
 * the kernel refuses f*xattr on those (EBADF), so the call is retried on
 * /proc/self/fd/N, which names the same inode.
 * NT_STATUS_NOT_FOUND when the file has no such xattr;
 * NT_STATUS_NOT_SUPPORTED when the file system has no user xattrs;
 * NT_STATUS_ACCESS_DENIED for EACCES/EPERM; NT_STATUS_INVALID_PARAMETER
 * for a value that does not decode or is larger than Samba reads (256
 * bytes, its fstring buffer).
 */
NTSTATUS dosattrib_fget(int fd, struct dos_info *out);
NTSTATUS dosattrib_fset(int fd, const struct dos_info *in);
/* The same read from the entry name of the directory dirfd, not
 * following a symlink there (vfs_xattr_get_at): a listing reads its
 * entries' attributes this way, without opening each. */
NTSTATUS dosattrib_get_at(int dirfd, const char *name, struct dos_info *out);

#endif
