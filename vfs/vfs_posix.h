/*
 * The POSIX module's calls (vfs_posix.c): resolution inside the share,
 * confined opens, stat into struct vfs_file_info.
 */
#ifndef VFS_VFS_POSIX_H
#define VFS_VFS_POSIX_H

#include <sys/stat.h>
#include "vfs/vfs.h"

/* openat2 never follows a symlink in the last component by itself when
 * O_NOFOLLOW is set; we leave following to RESOLVE_* rules. */
#define O_NOFOLLOW_SAFE(flags) 0

struct vfs_resolved {
	char *path;		/* on-disk names, '/' separated; "" = root */
	bool exists;		/* the last component exists */
	bool parent_exists;
	/* The common cases' lookups (every name exact, or the last one
	 * found in its parent named exactly) lstat the object on the way:
	 * that lstat, when have_stat. */
	bool have_stat;
	struct stat stat;
	/* STOPPED_ON_SYMLINK: the component on the way (counting from 0)
	 * that is a symbolic link the share's rules do not follow (`follow
	 * symlinks = no`, or one leaving the share without `wide links`),
	 * and its on-disk share-relative path. */
	size_t link_comp;
	char *link_path;
};

/* Resolve a share-relative path (case-insensitively where the share says
 * so, and 8.3 aliases).  OBJECT_PATH_NOT_FOUND when a directory on the
 * way is missing, STOPPED_ON_SYMLINK (link_comp, link_path) when a link
 * on the way may not be followed; the last component is not followed
 * (its lstat says whether it is a link). */
NTSTATUS vfs_resolve(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
		     const char *path, struct vfs_resolved *out);
/* The same when the caller has just found that path, spelled exactly,
 * is not there (exact_absent: its open said ENOENT): that lookup is not
 * made again. */
NTSTATUS vfs_resolve_known(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			   const char *path, bool exact_absent,
			   struct vfs_resolved *out);

/* Whether a component of path (share-relative, '/' separated) is in the
 * share's `veto files`. */
bool vfs_path_vetoed(const struct vfs_share *sh, const char *path);

/*
 * One name in the directory dirfd as the walk of vfs_resolve finds it:
 * the exact name, else (case-insensitive shares) one that matches
 * without case, else the 8.3 alias's long name.  *found says whether it
 * is there, *real its on-disk name (talloc, mem_ctx), *stp its lstat
 * when stp is given.  last: the final component (one in a directory the
 * user may not list is taken as not found rather than ACCESS_DENIED).
 */
NTSTATUS vfs_lookup_component(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			      int dirfd, const char *comp, bool last,
			      char **real, bool *found, struct stat *stp);

/*
 * openat2 under dirfd with the share's RESOLVE_* rules; -1 and errno.
 * An open of an existing name for its data (not O_PATH, O_DIRECTORY or
 * O_CREAT|O_EXCL) never waits in the kernel: it is made with O_NONBLOCK,
 * so a FIFO without a writer (or a device waiting for a line) cannot
 * hold a pool thread (issue 34 item 2), and the type is then checked on
 * the fd: a regular file gets its blocking mode back, a FIFO opened for
 * reading and a device keep O_NONBLOCK, a FIFO opened for writing fails
 * with ENXIO (as Samba's O_WRONLY|O_NONBLOCK open without a reader), a
 * socket fails with ENXIO from the kernel; both map to ACCESS_DENIED, as
 * in Samba.
 */
int vfs_openat_beneath(const struct vfs_share *sh, int dirfd,
		       const char *path, int flags, mode_t mode);
/* What vfs_openat_beneath does after such an open, for an fd opened
 * another way (a /proc/self/fd reopen, a name beside another) with
 * flags | O_NONBLOCK: the type checked, O_NONBLOCK cleared on a regular
 * file.  fd, or -1 with errno and fd closed (also when fd is -1). */
int vfs_open_settle(int fd, int flags);
/* The same, and the open file's statx in fi: the one call serves both
 * the type check and a caller that needs the file's information. */
int vfs_openat_beneath_info(const struct vfs_share *sh, int dirfd,
			    const char *path, int flags, mode_t mode,
			    struct vfs_file_info *fi);

/* A second fd on the same open file that writes at the end (O_APPEND). */
int vfs_reopen_append(int fd);

void vfs_statx_to_info(const struct statx *stx, struct vfs_file_info *fi);
NTSTATUS vfs_fstat_info(int fd, struct vfs_file_info *fi);

/* Attributes and create time from user.DOSATTRIB or the mode bits
 * (dosmode.c); path's last component decides `hide dot files`. */
/*
 * The mode bits Windows attributes give a new file or directory, as
 * Samba's smbd computes them (smb.conf(5): "create mask", "force create
 * mode", "directory mask", "force directory mode", "map archive/system/
 * hidden", "store dos attributes", "inherit permissions"): parent_mode is
 * the parent directory's mode when `inherit permissions` applies, else 0.
 * Nothing here depends on the process umask (the daemon runs with 0).
 */
mode_t vfs_mode_from_dos(const struct vfs_share *sh, uint32_t attrs,
			 bool is_dir, mode_t parent_mode);
/* The mode an existing file gets when attributes are set and `store dos
 * attributes = no` keeps them in the mode bits: the mapped bits follow
 * attrs, the bits no `map` parameter owns stay as they are; attributes
 * that already read back as attrs change nothing. */
mode_t vfs_mode_with_dos(const struct vfs_share *sh, uint32_t attrs,
			 mode_t old_mode);

/*
 * Extended attributes (`ea support`): the user.* xattrs other than
 * Samba's own metadata (user.DOSATTRIB, user.DosStream.*) are the EAs.
 * The list and get calls also work on an O_PATH descriptor (an
 * attribute-only open, a directory entry looked at for a listing),
 * through its /proc/self/fd link as dosattrib_fget does; -1 and errno.
 */
bool vfs_ea_is_ea(const char *xattr_name);
ssize_t vfs_ea_flist(int fd, char *list, size_t size);
ssize_t vfs_ea_fget(int fd, const char *name, void *val, size_t size);
/* FileEaInformation.EaSize (MS-FSCC 2.4 FileEaInformation): the size of
 * the file's EAs as a FILE_FULL_EA_INFORMATION list (MS-FSCC 2.4.15),
 * entries 4-byte aligned; 0 without EAs or when they cannot be read. */
uint32_t vfs_ea_size(int fd);
/* The same from a listxattr answer (n < 0: none read) of the entry
 * name of dirfd; the values' sizes read with vfs_xattr_get_at. */
uint32_t vfs_ea_size_list_at(const char *list, ssize_t n, int dirfd,
			     const char *name);
/* listxattr/getxattr of the entry name of the directory dirfd, not
 * following a symlink there: getxattrat/listxattrat (Linux 6.13), else
 * l*xattr on /proc/self/fd/DIRFD/NAME.  -1 and errno as those. */
ssize_t vfs_xattr_list_at(int dirfd, const char *name, char *list,
			  size_t size);
ssize_t vfs_xattr_get_at(int dirfd, const char *name, const char *attr,
			 void *val, size_t size);

/* Whether fd's file system is local, so that close(2), fstat and the
 * xattr calls of an open file do not wait for a server: false for NFS,
 * SMB/CIFS, FUSE, 9p, AFS, Coda, Ceph, GFS2, OCFS2, and when fstatfs
 * fails. */
bool vfs_fs_is_local(int fd);

/*
 * A share's root as the calling thread's user (a pool job with the
 * tree's credentials), as Samba's smbd enters it with chdir: the path
 * walk needs search permission on every directory above the root, and a
 * lookup of "." in the root needs it there too.  *fd: an O_PATH
 * directory descriptor; *local_fs: vfs_fs_is_local's answer.
 * ACCESS_DENIED when the user may not enter; TOO_MANY_OPENED_FILES or
 * NO_MEMORY for the server's own state; OBJECT_PATH_NOT_FOUND when the
 * path leads to no directory (missing, not one, a symlink loop).
 */
NTSTATUS vfs_share_root_open(const char *path, int *fd, bool *local_fs);

void vfs_fill_dos_attributes(const struct vfs_share *sh, int fd, bool opath,
			     const char *path, struct vfs_file_info *fi);
/* The same from the DOS attributes the caller has just stored
 * (dosattrib_fset succeeded): a new file's, without reading them back. */
struct dos_info;
void vfs_fill_dos_attributes_known(const struct vfs_share *sh,
				   const struct dos_info *di,
				   const char *path, struct vfs_file_info *fi);
/*
 * The same for the entry name of the directory dirfd (a regular file or
 * a directory; "." and ".." too), without opening it: a listing's cost
 * per entry.  The xattrs are read with vfs_xattr_get_at/list_at (the
 * entry itself, never what a symlink in its place would point to).  ea_size NULL: only the attributes, one
 * lgetxattr; else also FileEaInformation.EaSize, from one llistxattr
 * (which says whether user.DOSATTRIB is there) and a read per value.
 */
void vfs_fill_dos_attributes_at(const struct vfs_share *sh, int dirfd,
				const char *name, struct vfs_file_info *fi,
				uint32_t *ea_size);

#endif
