/*
 * vfs_catia: per-share character mapping between the names clients send
 * and the names on disk (issue 17), Samba's `vfs objects = catia` with
 * `catia:mappings = SERVER:CLIENT,...` (vfs_catia.8).
 *
 * Why: a Mac writes the characters NTFS forbids in a name (" * : < > ? \ |
 * and 0x01-0x1F) as private-use code points U+F001-U+F027 (Services for
 * Macintosh's mapping), and CATIA users write names with characters
 * Windows refuses.  With a map those names are stored on disk with the
 * real characters (so NFS and local users see "a:b", as Samba stores
 * them) and go back to the wire mapped.
 *
 * - A map is a list of code point pairs; each entry is "S:C" with both in
 *   hexadecimal ("0x3a:0xf022"; the 0x is optional, as strtol base 16
 *   reads it).  S is the on-disk (server) character, C the wire (client)
 *   one.  Towards the disk every C becomes S; towards the wire every S
 *   becomes C; one pass, no chaining, other characters untouched.
 * - Only Basic Multilingual Plane code points 0x0001-0xFFFF that are not
 *   surrogates, as Samba's UTF-16 unit tables.  An entry with '/' on
 *   either side, or '\' as C, is refused: '/' separates the components
 *   of the paths mapped here and '\' those of the wire, so such an entry
 *   would turn a character of a name into a separator (or one back).
 *   Samba would follow it into another directory; we keep a name in its
 *   component.  (A name on disk cannot hold '/', so Samba's example
 *   0x2f:0xf8 changes nothing there either.)  Refused or malformed
 *   entries are skipped, the rest of the list still applies (Samba's
 *   behaviour for a malformed entry).  A character named twice keeps
 *   its first mapping.
 * - The map is immutable once parsed, so pool threads read it freely;
 *   it belongs to the share's module stack (vfs/module.h), which holds it
 *   as long as the tree or any job referencing the stack lives.
 *
 * Invalid UTF-8 bytes (an on-disk name written by something else) are
 * copied through as they are.  Pure functions: nothing here touches the
 * file system.
 */
#ifndef VFS_CATIA_H
#define VFS_CATIA_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

#include "vfs/name_map.h"

/* More entries than any map written by hand (Samba's macOS map has 40);
 * bounds what a configuration makes every tree hold. */
#define VFS_NAME_MAP_MAX 1024

/*
 * Parse catia:mappings entries (a NULL-terminated list, as smb.conf's
 * list parameters split it: "0x22:0xf020", ...) into *out on mem_ctx.
 * *out is NULL when no entry is usable (a NULL or empty list).  Bad
 * entries are skipped and counted in *skipped (may be NULL).  Only
 * NT_STATUS_NO_MEMORY fails.
 */
NTSTATUS vfs_name_map_parse(TALLOC_CTX *mem_ctx, const char *const *entries,
			    struct vfs_name_map **out, unsigned *skipped);

/* How many pairs the map has (0 for NULL). */
size_t vfs_name_map_count(const struct vfs_name_map *m);

#endif
