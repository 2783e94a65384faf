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

#include "lib/ntstatus.h"
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

/*
 * Apple's AAPL create context (an SMB2 extension Apple defines; its
 * wire name is Apple's, smbd/smb2/create_ctx.h): what the share answers
 * to it, and what a session that negotiated it gets there (the module
 * that gives macOS semantics sets these; fruit today, man/vfs_fruit.8).
 * NULL when no module on the stack speaks AAPL.
 */
struct vfs_aapl;
const struct vfs_aapl *vfs_stack_aapl(const struct vfs_stack *s);
/* The context is answered at all (else ignored, as without it). */
bool vfs_aapl_answers(const struct vfs_aapl *a);
/* The model string of the server query's answer. */
const char *vfs_aapl_model(const struct vfs_aapl *a);
/* Server caps NFS_ACE: an AAPL session's DACLs carry the Unix owner,
 * group and mode as NFS ACEs (smbd/objects/ntacl_nfs.h). */
bool vfs_aapl_nfs_aces(const struct vfs_aapl *a);
/* Server caps OSX_COPYFILE: a copychunk of 0 chunks copies the whole
 * file with its streams (smbd/smb2/smb2_copychunk.c). */
bool vfs_aapl_copyfile(const struct vfs_aapl *a);
/* Volume caps FULL_SYNC: a FLUSH reaches the disk (Time Machine). */
bool vfs_aapl_full_sync(const struct vfs_aapl *a);
/* File ids read 0 to an AAPL session. */
bool vfs_aapl_zero_file_id(const struct vfs_aapl *a);
/* An AAPL session renames a directory whatever is open below it. */
bool vfs_aapl_posix_rename(const struct vfs_aapl *a);

/*
 * The size the share reports to FileFsSizeInformation and
 * FileFsFullSizeInformation, 0 for the file system's own (fruit:time
 * machine max size); when not 0, vfs_size_limit_used (in a job: it walks
 * the share, root_fd) and vfs_size_limit_apply shape the answer.
 */
uint64_t vfs_stack_size_limit(const struct vfs_stack *s);
NTSTATUS vfs_size_limit_used(int root_fd, uint64_t *used);
void vfs_size_limit_apply(uint64_t limit, uint64_t used, uint64_t *total,
			  uint64_t *free_b, uint64_t *caller);

/*
 * A file's companion kept beside it by a module (fruit:resource = file:
 * the resource fork in the "._" file), which follows the file's renames
 * and deletes.  vfs_stack_companions: whether the stack keeps one (taken
 * on the loop thread); vfs_companion_rename: the rename's part, in the
 * rename's job (share-relative paths, sh->root_fd the share's).
 */
struct vfs_share;
bool vfs_stack_companions(const struct vfs_stack *s);
NTSTATUS vfs_companion_rename(const struct vfs_share *sh, const char *from,
			      const char *to);

#endif
