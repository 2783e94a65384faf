/*
 * A share's name map: the characters a share's modules translate between
 * the names clients send and the names on disk (issue 37: smb2/ applies
 * the map without naming the module that made it).  vfs/catia.h builds
 * one from catia:mappings; the share's stack hands it out
 * (vfs/stack_props.h); a NULL map translates nothing.  Pure functions,
 * immutable maps: pool threads apply them freely.
 */
#ifndef VFS_NAME_MAP_H
#define VFS_NAME_MAP_H

#include <talloc.h>

#include "lib/ntstatus.h"

struct vfs_name_map;

enum vfs_name_map_dir {
	VFS_NAME_TO_DISK,	/* wire (client) -> on-disk (server) */
	VFS_NAME_TO_WIRE,	/* on-disk (server) -> wire (client) */
};

/*
 * name mapped in direction dir, a new string on mem_ctx (a copy when
 * nothing changes, and when m is NULL); NULL when out of memory.  Works
 * on whole paths: '/' is never produced towards the disk and never
 * mapped away, so components stay components.
 */
char *vfs_name_map_apply(TALLOC_CTX *mem_ctx, const struct vfs_name_map *m,
			 enum vfs_name_map_dir dir, const char *name);

/*
 * A path and stream name as vfs_name_from_wire gave them, mapped to their
 * on-disk form in place (new strings on mem_ctx; *stream may be NULL).
 * Nothing happens when m is NULL.  Only NT_STATUS_NO_MEMORY fails.
 */
NTSTATUS vfs_name_map_to_disk(TALLOC_CTX *mem_ctx,
			      const struct vfs_name_map *m, char **path,
			      char **stream);

#endif
