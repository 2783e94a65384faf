/*
 * AppleDouble files (the "._NAME" next to NAME that macOS writes on a
 * share that has no streams, or copies there from other volumes): read
 * only, for vfs_fruit's conversion into streams (vfs/fruit.h).
 *
 * The layout (Apple's AppleSingle/AppleDouble format, version 2, as the
 * files macOS writes and smbtorture's vfs.fruit carries verbatim), all
 * numbers big-endian:
 *   0  magic 0x00051607, 4 version 0x00020000, 8 16 bytes of filler,
 *   24 number of entries (u16), 26 entries of 12 bytes: id, offset,
 *   length (u32 each), offsets counted from the start of the file.
 *   Entry 9 (Finder Info) holds the 32 bytes of FinderInfo; macOS puts
 *   the file's extended attributes after them, 2 bytes on: an "ATTR"
 *   header (magic, debug tag, total size, data start, data length, 12
 *   reserved bytes, flags u16, count u16) and count entries (offset,
 *   length u32, flags u16, name length u8 with the name's NUL, the
 *   name), each entry starting on a 4-byte boundary.  Entry 2 is the
 *   resource fork.
 *
 * The parser reads through the checked cursor (lib/wire.h) and refuses
 * (NT_STATUS_INVALID_PARAMETER) anything whose offsets or lengths leave
 * the buffer; results point into the buffer.
 */
#ifndef VFS_ADOUBLE_H
#define VFS_ADOUBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

#define VFS_ADOUBLE_FINDER_SIZE 32
/* More entries or attributes than any file macOS writes: the bound on
 * what a file can make us hold. */
#define VFS_ADOUBLE_MAX_ENTRIES 64
#define VFS_ADOUBLE_MAX_XATTRS 1024

struct vfs_adouble_xattr {
	const char *name;	/* NUL-terminated, in the buffer */
	const uint8_t *data;
	size_t len;
};

struct vfs_adouble {
	/* NULL when the file has no Finder Info entry */
	const uint8_t *finder;
	/* NULL and 0 without a resource fork entry */
	const uint8_t *rsrc;
	size_t rsrc_len;
	/* on the parse's mem_ctx; NULL and 0 without an ATTR block */
	struct vfs_adouble_xattr *xattrs;
	size_t nxattrs;
};

NTSTATUS vfs_adouble_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			   size_t len, struct vfs_adouble *ad);

#endif
