/*
 * What a share's module stack makes of the share, asked by property
 * rather than by module name (stack_props.c, issue 37): the handlers of
 * smbd/smb2/ ask "does the stack map names?", "what does it veto?",
 * "does it give Apple's directory attributes?", and vfs/ answers from
 * whichever module does so (today catia for the name map, fruit for the
 * AppleDouble veto and the READ_DIR_ATTR fields).  A module that adds
 * one of these properties answers here; no handler changes.
 *
 * The stack is immutable (vfs/module.h), so every answer is too: it may
 * be read from a pool thread while the job holds the stack.
 */
#ifndef VFS_STACK_PROPS_H
#define VFS_STACK_PROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "vfs/catia.h"	/* struct vfs_name_map, vfs_name_map_apply */
#include "vfs/module.h"

/* The map between the names clients use and the names on disk, or NULL
 * (names are the same). */
const struct vfs_name_map *vfs_stack_name_map(const struct vfs_stack *s);

/* `veto files` patterns the stack adds to the share's, '/'-separated
 * (the AppleDouble "._" files' pattern), or NULL. */
const char *vfs_stack_veto_extra(const struct vfs_stack *s);

/*
 * Apple's READ_DIR_ATTR directory fields (AAPL create context, given to
 * the sessions that negotiated it): the stack's configuration of them,
 * or NULL when no module gives them.
 */
struct vfs_dir_attrs;
const struct vfs_dir_attrs *vfs_stack_dir_attrs(const struct vfs_stack *s);
/* FileId listed as 0 to an AAPL session. */
bool vfs_dir_attrs_zero_file_id(const struct vfs_dir_attrs *a);
/* The entry's maximal access computed (else all access). */
bool vfs_dir_attrs_max_access(const struct vfs_dir_attrs *a);
/* The entry's UNIX mode given (else 0). */
bool vfs_dir_attrs_unix_mode(const struct vfs_dir_attrs *a);

/* An entry's resource-fork size and compressed FinderInfo. */
#define VFS_DIR_ATTRS_FINDER_SIZE 16
struct vfs_dir_attrs_meta {
	uint64_t rfork_size;
	uint8_t finder[VFS_DIR_ATTRS_FINDER_SIZE];
};
/* fd: the entry, O_PATH (-1 for one that is no file or directory);
 * name: in dirfd; btime: its birth time, seconds since 1970. */
void vfs_dir_attrs_get(const struct vfs_dir_attrs *a, int fd, int dirfd,
		       const char *name, bool is_file, int64_t btime,
		       struct vfs_dir_attrs_meta *out);

#endif
