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
 *
 * Netatalk's metadata xattr (fruit:metadata = netatalk, Samba's default):
 * "user.org.netatalk.Metadata" on the file holds an AppleDouble header of
 * exactly 402 bytes, the layout Samba's fruit and Netatalk write: zero
 * filler, 8 entries, in this order: Comment (4) at 154, empty; File
 * Dates (8) at 354, 16 bytes (create, modify, backup, access: big-endian
 * seconds from 2000-01-01, backup 0x80000000 for never); Finder Info (9)
 * at 122, 32 bytes; AFP File Info (14) at 370, 4 bytes; Netatalk's
 * private dev, ino, syn and id entries (0x80444556, 0x80494E4F,
 * 0x8053594E, 0x8053567E) at 374, 382, 390 and 398, empty.  Samba takes a value of
 * another size as no metadata; so does this parser.
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

/*
 * Whether the resource fork rsrc (len bytes) is Apple's empty one, the
 * 286 bytes macOS writes into a "._" file for a file without a fork: a
 * resource map with no types and the text "This resource fork
 * intentionally left blank" in its header area (fruit:
 * wipe_intentionally_left_blank_rfork takes it for no fork).
 */
#define VFS_ADOUBLE_BLANK_RSRC_SIZE 286
bool vfs_adouble_rsrc_blank(const uint8_t *rsrc, size_t len);

#define VFS_ADOUBLE_META_XATTR "user.org.netatalk.Metadata"
#define VFS_ADOUBLE_META_SIZE 402

/* Where the FinderInfo of the metadata xattr value buf (len bytes) is:
 * NT_STATUS_INVALID_PARAMETER unless it is 402 bytes of AppleDouble
 * with a Finder Info entry. */
NTSTATUS vfs_adouble_meta_finder(const uint8_t *buf, size_t len,
				 size_t *finder_off);
/* A new metadata value as Samba's fruit makes one: zero FinderInfo,
 * dates `now` (Unix seconds), never backed up. */
void vfs_adouble_meta_init(uint8_t buf[VFS_ADOUBLE_META_SIZE], int64_t now);

#endif
