/*
 * The file-system layer (DESIGN.md "vfs/"): the OS reached only through an
 * ops table, working on handles (*at() calls, O_PATH), never re-resolving
 * path strings; errno mapped to NTSTATUS once, here.
 *
 * Everything in vfs/ runs in a pool thread with the session user's
 * credentials (smbd/conn/smb2_job.c), so each call may block and is checked by
 * the kernel against that user's permissions.  Nothing in vfs/ knows the
 * wire format.
 *
 * `vfs objects` modules (vfs/module.h): a table-driven registry of const
 * descriptors (acl_xattr, streams_xattr, catia, fruit, recycle,
 * shadow_copy2, snapper, the last two sharing vfs/snapdir.c); at tree
 * connect each share gets a stack built in `vfs objects` order, every module reading its
 * "module:option" values once and hooking only the operations it changes
 * (recycle: unlink; shadow_copy2 and snapper: snap_list and snap_root),
 * each handing on to the next and finally to the POSIX calls here.  The stack is immutable and reference counted (pool jobs
 * may outlive the tree).  A module the registry lacks refuses the
 * tree connect (BAD_NETWORK_NAME and a log line naming it; testparm
 * reports it too), as serving the share without it could not be safe.  New hooks go into struct vfs_module
 * with a vfs_stack_<op> / vfs_next_<op> pair.  vfs_fruit's AFP_AfpInfo
 * rules are not a hook: whether a handle gets them is decided once, at
 * CREATE, from the share's fruit configuration (the READ, WRITE and
 * SET_INFO jobs hold no stack), and the handle's jobs call vfs/fruit.h.
 */
#ifndef VFS_VFS_H
#define VFS_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <talloc.h>

#include "lib/ntstatus.h"

/* DOS attributes (MS-FSCC 2.6). */
#define FILE_ATTRIBUTE_READONLY 0x00000001
#define FILE_ATTRIBUTE_HIDDEN 0x00000002
#define FILE_ATTRIBUTE_SYSTEM 0x00000004
#define FILE_ATTRIBUTE_DIRECTORY 0x00000010
#define FILE_ATTRIBUTE_ARCHIVE 0x00000020
#define FILE_ATTRIBUTE_NORMAL 0x00000080
#define FILE_ATTRIBUTE_TEMPORARY 0x00000100
#define FILE_ATTRIBUTE_SPARSE_FILE 0x00000200
#define FILE_ATTRIBUTE_REPARSE_POINT 0x00000400
#define FILE_ATTRIBUTE_COMPRESSED 0x00000800
#define FILE_ATTRIBUTE_OFFLINE 0x00001000
#define FILE_ATTRIBUTE_NOT_CONTENT_INDEXED 0x00002000
#define FILE_ATTRIBUTE_ENCRYPTED 0x00004000
#define FILE_ATTRIBUTE_INTEGRITY_STREAM 0x00008000
#define FILE_ATTRIBUTE_NO_SCRUB_DATA 0x00020000
/*
 * Reparse tags (MS-FSCC 2.1.2.1) this file system shows: a symbolic link
 * as IO_REPARSE_TAG_SYMLINK, a FIFO, socket or device as an NFS reparse
 * point (2.1.2.6), the way Windows' NFS server and Samba 4.21+ do.
 */
#define IO_REPARSE_TAG_SYMLINK 0xA000000C
#define IO_REPARSE_TAG_NFS 0x80000014
/* What a client may set through CREATE/SET_INFO (MS-FSA 2.1.5.1.2). */
#define FILE_ATTRIBUTE_SETTABLE                                               \
	(FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN |                    \
	 FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_ARCHIVE |                     \
	 FILE_ATTRIBUTE_TEMPORARY | FILE_ATTRIBUTE_OFFLINE |                  \
	 FILE_ATTRIBUTE_NOT_CONTENT_INDEXED)

/*
 * What SMB needs to know about a file, in Windows terms: the currency
 * between vfs/ (which fills it from statx + user.DOSATTRIB) and the
 * QUERY_INFO / QUERY_DIRECTORY / CREATE encoders.  Times are NTTIME.
 */
struct vfs_file_info {
	uint64_t create_time;
	uint64_t access_time;
	uint64_t write_time;
	uint64_t change_time;		/* reported: the write time */
	uint64_t inode_ctime;		/* the real st_ctime (not settable) */
	uint64_t allocation_size;	/* st_blocks * 512 */
	uint64_t end_of_file;		/* 0 for directories */
	uint32_t attributes;		/* FILE_ATTRIBUTE_*; NORMAL if none */
	/* The object is a reparse point (with FILE_ATTRIBUTE_REPARSE_POINT
	 * in attributes): IO_REPARSE_TAG_SYMLINK for a symbolic link looked
	 * at itself, IO_REPARSE_TAG_NFS for a FIFO, socket or device; else
	 * 0.  From the file type alone (vfs_reparse_tag_of_mode). */
	uint32_t reparse_tag;
	uint32_t nlink;
	uint64_t file_id;		/* the inode number (FileInternal) */
	uint64_t dev;
	uint64_t ino;
	bool is_dir;
	bool delete_pending;
	uint32_t mode;			/* st_mode, for the POSIX mappings */
	uint32_t uid, gid;
};

struct vfs_name_map;

/* Share options vfs/ needs (from smb.conf). */
struct vfs_share {
	int root_fd;		/* O_PATH|O_DIRECTORY of the share's path */
	const char *path;
	/* The share's file system answers metadata calls from memory (not
	 * NFS, SMB, FUSE, a cluster file system: vfs_fs_is_local), so a
	 * close or an fstat of an open file may run on the loop thread. */
	bool local_fs;
	bool case_sensitive;	/* `case sensitive` resolved: auto -> no */
	bool wide_links;
	bool follow_symlinks;
	bool store_dos_attributes;
	bool map_archive, map_hidden, map_system, map_readonly;
	bool hide_dot_files;
	/* `veto files` and `hide files`: '/'-separated wildcard patterns
	 * (substitutions done), NULL for none.  A vetoed name is neither
	 * listed nor opened nor created; a hidden one is listed with
	 * FILE_ATTRIBUTE_HIDDEN. */
	const char *veto_files;
	const char *hide_files;
	bool ea_support;
	mode_t create_mask, directory_mask;
	mode_t force_create_mode, force_directory_mode;
	bool inherit_permissions;
	bool acl_xattr;		/* `vfs objects` has acl_xattr: NT ACLs
				 * in security.NTACL decide access */
	/* `vfs objects` has catia with catia:mappings (vfs/catia.h): names
	 * off the wire go through it to the disk, names from the disk back;
	 * NULL for none.  The module stack owns it. */
	const struct vfs_name_map *name_map;
	/* Named streams ("file:stream"): `vfs objects` empty (our default)
	 * or naming streams_xattr.  Without them, as Samba without a
	 * streams module, a name with a stream part is
	 * OBJECT_NAME_INVALID and only ::$DATA is listed. */
	bool streams;
	/* A DFS root (`msdfs root` with `host msdfs`): a symlink in it
	 * whose target reads "msdfs:..." is a DFS link (vfs/msdfs.h),
	 * which a CREATE does not enter and a listing shows as a DFS
	 * reparse point. */
	bool msdfs;
};

/* The reparse tag a file of this st_mode shows (see reparse_tag). */
uint32_t vfs_reparse_tag_of_mode(uint32_t mode);

/* errno -> NTSTATUS, the one mapping (MS-ERREF names). */
NTSTATUS vfs_map_errno(int err);

/*
 * *dst = *src for a pool job, which may outlive the tree connect that
 * owns src's strings (a TREE_DISCONNECT, LOGOFF or dropped connection
 * while it runs): path, veto_files and hide_files are copied onto
 * mem_ctx.  root_fd is src's (the caller dups it); name_map belongs to
 * the share's module stack, of which a job that uses it holds a
 * reference (vfs/module.h).  false when out of memory.
 */
bool vfs_share_copy(TALLOC_CTX *mem_ctx, struct vfs_share *dst,
		    const struct vfs_share *src);

#endif
