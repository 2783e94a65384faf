/*
 * CREATE and CLOSE (MS-SMB2 2.2.13-2.2.16, 3.3.5.9, 3.3.5.10; the open
 * semantics of MS-FSA 2.1.5.1).
 *
 * The loop thread checks the request and what the share allows; the
 * file-system work (resolve, open/create, stat) runs as the session's
 * user in the thread pool, so the kernel checks the Unix permissions
 * (until NT ACLs land).  Share modes, oplocks and leases join with the
 * locking issue.  Durable handles (DHnQ/DH2Q granted with a batch oplock
 * or a handle lease, DHnC/DH2C reclaims, DH2Q replays) live in durable.c;
 * this file parses the contexts and answers.
 */
#include "smbd/smb2_server.h"
#include "smbd/conn.h"
#include "smbd/status.h"
#include "smbd/oplock.h"
#include "conf/loadparm.h"
#include "locking/locking_rec.h"
#include "locking/smbd_locking.h"
#include "smbd/smbd.h"
#include "smbd/create_ctx.h"
#include "smbd/durable.h"
#include "smbd/fscc.h"
#include "smbd/open.h"
#include "smbd/smb2_pipe.h"
#include "smbd/secdesc.h"
#include "smbd/ntacl.h"
#include "smbd/ntacl_file.h"
#include "smbd/session.h"
#include "vfs/dosattrib.h"
#include "vfs/name.h"
#include "vfs/streams.h"
#include "vfs/vfs_posix.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CreateDisposition (2.2.13) */
#define FILE_SUPERSEDE 0
#define FILE_OPEN 1
#define FILE_CREATE 2
#define FILE_OPEN_IF 3
#define FILE_OVERWRITE 4
#define FILE_OVERWRITE_IF 5

/* CreateAction (2.2.14) */
#define FILE_SUPERSEDED 0
#define FILE_OPENED 1
#define FILE_CREATED 2
#define FILE_OVERWRITTEN 3

/* CreateOptions (2.2.13) */
#define FILE_DIRECTORY_FILE 0x00000001
#define FILE_WRITE_THROUGH 0x00000002
#define FILE_NON_DIRECTORY_FILE 0x00000040
#define FILE_DELETE_ON_CLOSE 0x00001000
#define FILE_OPEN_BY_FILE_ID 0x00002000
#define FILE_RESERVE_OPFILTER 0x00100000
#define FILE_OPEN_REPARSE_POINT 0x00200000
#define FILE_OPTIONS_VALID 0x00ffffff

#define SMB2_CLOSE_FLAGS_FULL_INFORMATION 0x0001

struct create_state {
	/* in */
	struct vfs_share share;		/* root_fd is our own dup */
	char *path;
	uint32_t disposition, options, access, attrs;
	bool read_only_share;
	bool want_max_access;
	bool want_qfid;
	uint64_t alloc_size;	/* AlSi (2.2.13.2.4) */
	uint32_t share_access;
	bool need_truncate;	/* overwrite: truncated once share modes
				 * allow it (create_truncate_job) */
	char *stream;		/* the stream name asked for, or NULL */
	bool data_stream;	/* "name::$DATA": the unnamed stream */
	char *stream_xattr;	/* out: the xattr that holds it */
	uint8_t *sd;		/* SecD (2.2.13.2.2): stored on acl_xattr
				 * shares, otherwise applied as a mode */
	size_t sd_len;
	struct ntacl_token *tok;	/* who opens (acl_xattr shares) */
	struct sd *parent_sd;	/* a new object's directory's NT ACL */
	bool have_ntacl;	/* out: a stored NT ACL gave max_access */
	struct fscc_ea *eas;	/* ExtA (2.2.13.2.1): set on a new or */
	size_t num_eas;		/* overwritten file */
	/* Oplock or lease asked for (2.2.13, 2.2.13.2.8/10). */
	uint8_t oplock_level;
	bool lease;
	uint8_t lease_version;
	uint8_t lease_key[16];
	uint32_t lease_state;
	uint16_t lease_epoch;
	uint8_t parent_key[16];
	bool has_parent_key;
	/* Durable handle contexts (2.2.13.2.3/.4/.11/.12, durable.h). */
	bool want_durable;	/* DHnQ or DH2Q */
	bool reconnect;		/* DHnC or DH2C */
	bool durable_granted;
	struct create_durable durable;
	/* Granted (locking/oplock.c). */
	uint32_t granted_state;
	uint16_t granted_epoch;
	bool lease_breaking;
	/* Waiting for a break (smbd/oplock.h). */
	struct smb2_request *req;
	uint64_t wait_open_id;
	struct smbd_waiter *waiter;
	/* out */
	NTSTATUS status;
	int fd;
	bool opath;
	uint32_t action;
	uint32_t granted;
	uint32_t max_access;
	char *real_path;
	struct vfs_file_info fi;
};

static void create_orphan(void *p)
{
	struct create_state *st = p;

	if (st->fd != -1) {
		close(st->fd);
		st->fd = -1;
	}
}

static int create_state_destructor(struct create_state *st)
{
	if (st->share.root_fd != -1) {
		close(st->share.root_fd);
	}
	return 0;
}

/* Changing the permissions (WRITE_DAC) or owner (WRITE_OWNER) of a file
 * maps to chmod/chown, which Unix leaves to the owner (and root): the
 * job runs with the session user's effective ids (lib/tpool.c). */
static bool create_may_chmod(int dirfd, const char *name)
{
	struct stat sb;
	uid_t me = geteuid();

	return me == 0 || (fstatat(dirfd, name, &sb, 0) == 0 &&
			   sb.st_uid == me);
}

/* What the user may do with the file (MAXIMUM_ALLOWED, MxAc), from the
 * Unix permissions as the job's credentials see them. */
static uint32_t create_max_access(struct create_state *st, int dirfd,
				  const char *name)
{
	uint32_t a = SEC_FILE_READ_ATTRIBUTE | SEC_STD_READ_CONTROL |
		     SEC_STD_SYNCHRONIZE | SEC_FILE_READ_EA;

	if (faccessat(dirfd, name, R_OK, AT_EACCESS) == 0) {
		a |= SEC_FILE_READ_DATA | SEC_FILE_EXECUTE;
	}
	if (!st->read_only_share &&
	    faccessat(dirfd, name, W_OK, AT_EACCESS) == 0) {
		/* DELETE_CHILD comes with write access on files too, as
		 * Windows and Samba report it (0x1f01ff = FILE_ALL_ACCESS). */
		a |= SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
		     SEC_FILE_WRITE_EA | SEC_FILE_WRITE_ATTRIBUTE |
		     SEC_DIR_DELETE_CHILD;
	}
	if (!st->read_only_share && create_may_chmod(dirfd, name)) {
		a |= SEC_STD_WRITE_DAC | SEC_STD_WRITE_OWNER;
	}
	if (!st->read_only_share) {
		/* Deleting needs write access to the parent directory. */
		char *parent = talloc_strdup(st, st->real_path);
		char *slash = parent ? strrchr(parent, '/') : NULL;
		int pfd;

		if (slash != NULL) {
			*slash = '\0';
		}
		pfd = vfs_openat_beneath(&st->share, st->share.root_fd,
					 slash ? parent : "",
					 O_PATH | O_DIRECTORY, 0);
		if (pfd != -1) {
			if (faccessat(pfd, ".", W_OK | X_OK, AT_EACCESS) == 0) {
				a |= SEC_STD_DELETE;
			}
			close(pfd);
		}
		talloc_free(parent);
	}
	return a;
}

static int create_open_flags(const struct create_state *st, bool is_dir)
{
	if (is_dir) {
		return O_RDONLY | O_DIRECTORY;
	}
	if (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA)) {
		return O_RDWR;
	}
	return O_RDONLY;
}

/* MS-SMB2 3.3.5.9.2: the EAs of an ExtA context go on the file the
 * CREATE made or overwrote; a failure fails the CREATE (the new file is
 * then removed by the caller's cleanup like any failed create). */
static void create_set_eas(struct create_state *st)
{
	if (st->num_eas > 0 && NT_STATUS_IS_OK(st->status)) {
		st->status = smbd_eas_set(st, st->fd, st->eas, st->num_eas);
	}
}

/* The SecD context's owner, group and DACL over what the new object
 * inherits (MS-SMB2 3.3.5.9.3); INVALID_OWNER for an owner not in the
 * creator's token (MS-FSA 2.1.5.1.1). */
static NTSTATUS create_apply_secd(struct create_state *st, struct sd **sd)
{
	struct sd *secd, *merged;
	uint32_t parts = 0;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(sd_parse(st, st->sd, st->sd_len, &secd))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (secd->owner != NULL) {
		parts |= SECINFO_OWNER;
		if (!st->tok->root && !ntacl_token_has(st->tok, secd->owner)) {
			return NT_STATUS_INVALID_OWNER;
		}
	}
	if (secd->group != NULL) {
		parts |= SECINFO_GROUP;
	}
	if (secd->control & SD_SE_DACL_PRESENT) {
		parts |= SECINFO_DACL;
	}
	status = ntacl_merge(st, *sd, secd, parts, &merged);
	if (NT_STATUS_IS_OK(status)) {
		*sd = merged;
	}
	return status;
}

/*
 * acl_xattr shares: a directory with an NT ACL lets one add a file with
 * FILE_ADD_FILE, a subdirectory with FILE_ADD_SUBDIRECTORY (MS-FSA
 * 2.1.5.1.1); its descriptor is kept for create_set_ntacl.  Without one
 * the kernel's check of the Unix permissions decides.
 */
static bool create_parent_allows(struct create_state *st, bool dir)
{
	uint32_t need = dir ? SEC_FILE_APPEND_DATA	/* ADD_SUBDIRECTORY */
			    : SEC_FILE_WRITE_DATA;	/* ADD_FILE */

	if (!NT_STATUS_IS_OK(ntacl_file_get_parent(st, &st->share,
						   st->real_path,
						   &st->parent_sd))) {
		st->parent_sd = NULL;
		return true;
	}
	return (ntacl_max_access(st->parent_sd, st->tok) & need) != 0;
}

/*
 * acl_xattr shares: a new object under a directory with an NT ACL
 * inherits from it (MS-DTYP 2.5.3.4), a SecD context sets its parts;
 * with neither, nothing is stored and the Unix mode decides.
 */
static void create_set_ntacl(struct create_state *st, bool dir)
{
	struct sd *parent = st->parent_sd, *sd;

	if (parent == NULL && st->sd == NULL) {
		return;
	}
	st->status = ntacl_inherit(st, parent, dir, &st->tok->sids[0],
				   &st->tok->sids[1], &sd);
	if (NT_STATUS_IS_OK(st->status) && st->sd != NULL) {
		st->status = create_apply_secd(st, &sd);
	}
	if (NT_STATUS_IS_OK(st->status)) {
		st->status = ntacl_file_set(st->fd, sd);
	}
}

/*
 * acl_xattr shares: a stored NT ACL decides instead of the mode
 * (MS-FSA 2.1.5.1.2.1); DELETE comes too with the parent's
 * FILE_DELETE_CHILD (or, under a directory without an NT ACL, with
 * write permission on it as create_max_access found).
 */
static void create_ntacl_access(struct create_state *st)
{
	struct sd *sd, *parent;
	uint32_t a;

	if (!st->share.acl_xattr || st->fd == -1 ||
	    !NT_STATUS_IS_OK(ntacl_file_get(st, st->fd, &sd))) {
		return;
	}
	a = ntacl_max_access(sd, st->tok);
	if (!(a & SEC_STD_DELETE)) {
		if (NT_STATUS_IS_OK(ntacl_file_get_parent(
			    st, &st->share, st->real_path, &parent))) {
			if (ntacl_max_access(parent, st->tok) &
			    SEC_DIR_DELETE_CHILD) {
				a |= SEC_STD_DELETE;
			}
		} else {
			a |= st->max_access & SEC_STD_DELETE;
		}
	}
	if (st->read_only_share) {
		a &= ~SEC_RIGHTS_WRITE_ANY;
	}
	st->max_access = a;
	st->have_ntacl = true;
}

/* What create_new made goes again when it cannot be finished (a bad
 * SecD or ExtA context): nobody has seen it. */
static void create_new_undo(struct create_state *st, bool dir)
{
	close(st->fd);
	st->fd = -1;
	(void)unlinkat(st->share.root_fd, st->real_path, dir ? AT_REMOVEDIR : 0);
}

/* Create a new file or directory (the name does not exist). */
static void create_new(struct create_state *st)
{
	bool dir = (st->options & FILE_DIRECTORY_FILE) != 0;
	mode_t mode;

	/* MS-FSA 2.1.5.1.1: a new read-only file cannot be delete-on-close;
	 * refused before anything is created (smb2.delete-on-close-perms
	 * READONLY creates the same name again next). */
	if ((st->options & FILE_DELETE_ON_CLOSE) &&
	    (st->attrs & FILE_ATTRIBUTE_READONLY)) {
		st->status = NT_STATUS_CANNOT_DELETE;
		return;
	}
	if (st->share.acl_xattr && !create_parent_allows(st, dir)) {
		st->status = NT_STATUS_ACCESS_DENIED;
		return;
	}
	if (dir) {
		mode = (0777 & st->share.directory_mask) |
		       st->share.force_directory_mode;
		if (mkdirat(st->share.root_fd, st->real_path, mode) != 0) {
			st->status = vfs_map_errno(errno);
			return;
		}
		st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
					    st->real_path,
					    O_RDONLY | O_DIRECTORY, 0);
	} else {
		mode = (0666 & st->share.create_mask) |
		       st->share.force_create_mode;
		/* ARCHIVE maps to the owner execute bit (`map archive`). */
		if (st->share.map_archive) {
			mode |= S_IXUSR;
		}
		st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
					    st->real_path,
					    O_RDWR | O_CREAT | O_EXCL, mode);
	}
	if (st->fd == -1) {
		st->status = vfs_map_errno(errno);
		return;
	}
	st->action = FILE_CREATED;
	if (st->share.acl_xattr) {
		create_set_ntacl(st, dir);
		if (!NT_STATUS_IS_OK(st->status)) {
			create_new_undo(st, dir);
			return;
		}
	} else if (st->sd != NULL) {
		struct stat sb;
		mode_t m;

		if (fstat(st->fd, &sb) == 0 &&
		    NT_STATUS_IS_OK(secdesc_to_mode(st->sd, st->sd_len,
						    SECINFO_DACL, sb.st_uid,
						    sb.st_gid, sb.st_mode, &m)) &&
		    m != sb.st_mode) {
			(void)fchmod(st->fd, m & 07777);
		}
	}
	if (st->share.store_dos_attributes) {
		struct dos_info di;

		memset(&di, 0, sizeof(di));
		di.attrs = (st->attrs & FILE_ATTRIBUTE_SETTABLE) |
			   (dir ? FILE_ATTRIBUTE_DIRECTORY
				: FILE_ATTRIBUTE_ARCHIVE);
		(void)dosattrib_fset(st->fd, &di);
	}
	create_set_eas(st);
	if (!NT_STATUS_IS_OK(st->status)) {
		create_new_undo(st, dir);
	}
}

/* Open an existing name, with the disposition's truncation. */
static void create_existing(struct create_state *st, bool is_dir)
{
	int flags = create_open_flags(st, is_dir);
	bool overwrite = st->disposition == FILE_OVERWRITE ||
			 st->disposition == FILE_OVERWRITE_IF ||
			 st->disposition == FILE_SUPERSEDE;

	if (is_dir && overwrite) {
		st->status = NT_STATUS_INVALID_PARAMETER;
		return;
	}
	if (overwrite) {
		/* MS-FSA 2.1.5.1.2.2: a read-only file cannot be
		 * overwritten, and HIDDEN/SYSTEM must be asked for again;
		 * check before O_TRUNC destroys anything. */
		struct vfs_file_info old;
		int fd0 = vfs_openat_beneath(&st->share, st->share.root_fd,
					     st->real_path, O_RDONLY, 0);

		if (fd0 != -1 && NT_STATUS_IS_OK(vfs_fstat_info(fd0, &old))) {
			vfs_fill_dos_attributes(&st->share, fd0, false,
						st->real_path, &old);
			if ((old.attributes & FILE_ATTRIBUTE_READONLY) ||
			    ((old.attributes &
			      (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM)) &
			     ~st->attrs) != 0) {
				st->status = NT_STATUS_ACCESS_DENIED;
				close(fd0);
				return;
			}
		}
		if (fd0 != -1) {
			close(fd0);
		}
		/* Truncated later, after the share-mode check (create_done):
		 * another open may forbid writing. */
		flags = O_RDWR;
		st->need_truncate = true;
	}
	if (!is_dir && flags == O_RDONLY && !st->read_only_share &&
	    (st->access & SEC_FLAG_MAXIMUM_ALLOWED)) {
		/* MAXIMUM_ALLOWED may grant write access: open for writing
		 * when the permissions allow it, or a later SET_INFO EOF or
		 * WRITE through it would fail (smb2.oplock.batch11's
		 * setpathinfo). */
		st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
					    st->real_path, O_RDWR, 0);
		if (st->fd != -1) {
			goto opened;
		}
	}
	st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
				    st->real_path, flags, 0);
	if (st->fd == -1 && errno == EACCES && !overwrite &&
	    !(st->access & (SEC_FILE_READ_DATA | SEC_FILE_WRITE_DATA |
			    SEC_FILE_APPEND_DATA | SEC_FILE_EXECUTE))) {
		/* Attribute-only access needs no permission on the data. */
		st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
					    st->real_path, O_PATH, 0);
		st->opath = st->fd != -1;
	}
	if (st->fd == -1) {
		st->status = vfs_map_errno(errno);
		return;
	}
opened:
	st->action = st->disposition == FILE_SUPERSEDE ? FILE_SUPERSEDED
		     : overwrite			 ? FILE_OVERWRITTEN
							 : FILE_OPENED;
}

/* Overwrite/supersede, once share modes allowed it: empty the file, give
 * it the attributes asked for, reserve AlSi, stat again. */
static void create_truncate_job(void *p)
{
	struct create_state *st = p;

	if (ftruncate(st->fd, 0) != 0) {
		st->status = vfs_map_errno(errno);
	}
	if (NT_STATUS_IS_OK(st->status) && st->share.store_dos_attributes) {
		struct dos_info di;

		memset(&di, 0, sizeof(di));
		(void)dosattrib_fget(st->fd, &di);
		di.attrs = (st->attrs & FILE_ATTRIBUTE_SETTABLE) |
			   FILE_ATTRIBUTE_ARCHIVE;
		(void)dosattrib_fset(st->fd, &di);
	}
	if (NT_STATUS_IS_OK(st->status) && st->alloc_size > 0) {
		(void)fallocate(st->fd, FALLOC_FL_KEEP_SIZE, 0,
				(off_t)st->alloc_size);
	}
	create_set_eas(st);
	if (NT_STATUS_IS_OK(st->status)) {
		st->status = vfs_fstat_info(st->fd, &st->fi);
	}
	if (NT_STATUS_IS_OK(st->status)) {
		vfs_fill_dos_attributes(&st->share, st->fd, false,
					st->real_path, &st->fi);
	}
	close(st->fd);
	st->fd = -1;
}


/*
 * A named stream (vfs/streams.h): the base file is found or created, then
 * the disposition applies to the stream itself.
 */
static void create_stream(struct create_state *st, bool base_exists)
{
	bool writes = st->disposition != FILE_OPEN ||
		      (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
				     SEC_STD_DELETE | SEC_FLAG_MAXIMUM_ALLOWED));
	bool exists = false;
	uint64_t size = 0;

	if (st->options & FILE_DIRECTORY_FILE) {
		st->status = NT_STATUS_NOT_A_DIRECTORY;
		return;
	}
	if (!base_exists) {
		if (st->disposition == FILE_OPEN ||
		    st->disposition == FILE_OVERWRITE) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return;
		}
		st->options |= FILE_NON_DIRECTORY_FILE;
		create_new(st);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
	} else {
		st->fd = vfs_openat_beneath(&st->share, st->share.root_fd,
					    st->real_path[0] ? st->real_path
							     : ".",
					    writes ? O_RDWR : O_RDONLY, 0);
		if (st->fd == -1 && errno == EISDIR) {
			st->fd = vfs_openat_beneath(&st->share,
						    st->share.root_fd,
						    st->real_path[0]
							    ? st->real_path
							    : ".",
						    O_RDONLY | O_DIRECTORY, 0);
		}
		if (st->fd == -1) {
			st->status = vfs_map_errno(errno);
			return;
		}
	}
	st->status = vfs_stream_xattr(st, st->fd, st->stream,
				      &st->stream_xattr, &exists);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	switch (st->disposition) {
	case FILE_OPEN:
	case FILE_OVERWRITE:
		if (!exists) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return;
		}
		break;
	case FILE_CREATE:
		if (exists) {
			st->status = NT_STATUS_OBJECT_NAME_COLLISION;
			return;
		}
		break;
	default:
		break;
	}
	if (!exists || st->disposition == FILE_OVERWRITE ||
	    st->disposition == FILE_OVERWRITE_IF ||
	    st->disposition == FILE_SUPERSEDE) {
		if (st->read_only_share) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return;
		}
		st->status = vfs_stream_reset(st->fd, st->stream_xattr);
		if (!NT_STATUS_IS_OK(st->status)) {
			return;
		}
		st->action = !exists ? FILE_CREATED
			     : st->disposition == FILE_SUPERSEDE
				     ? FILE_SUPERSEDED
				     : FILE_OVERWRITTEN;
	} else {
		st->action = FILE_OPENED;
	}
	st->status = vfs_fstat_info(st->fd, &st->fi);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	vfs_fill_dos_attributes(&st->share, st->fd, false, st->real_path,
				&st->fi);
	(void)vfs_stream_size(st->fd, st->stream_xattr, &size);
	/* The handle is the stream's: its size, a file's attributes. */
	st->fi.is_dir = false;
	st->fi.end_of_file = size;
	st->fi.allocation_size = (size + 4095) & ~(uint64_t)4095;
	st->fi.attributes &= ~FILE_ATTRIBUTE_DIRECTORY;
	if (st->fi.attributes == 0) {
		st->fi.attributes = FILE_ATTRIBUTE_NORMAL;
	}
	st->max_access = create_max_access(st, st->share.root_fd,
					   st->real_path[0] ? st->real_path
							    : ".");
	create_ntacl_access(st);
}

static void create_job(void *p)
{
	struct create_state *st = p;
	struct vfs_resolved r;
	struct stat sb;
	bool is_dir = false;

	st->status = vfs_resolve(st, &st->share, st->path, &r);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	st->real_path = r.path;
	if (st->stream != NULL) {
		create_stream(st, r.exists);
		return;
	}
	if (r.exists) {
		if (fstatat(st->share.root_fd, r.path[0] ? r.path : ".", &sb,
			    0) != 0) {
			st->status = vfs_map_errno(errno);
			return;
		}
		is_dir = S_ISDIR(sb.st_mode);
		if (is_dir && st->data_stream) {
			/* A directory has no unnamed data stream. */
			st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
			return;
		}
		if (st->disposition == FILE_CREATE) {
			st->status = NT_STATUS_OBJECT_NAME_COLLISION;
			return;
		}
		if (is_dir && (st->options & FILE_NON_DIRECTORY_FILE)) {
			st->status = NT_STATUS_FILE_IS_A_DIRECTORY;
			return;
		}
		if (!is_dir && (st->options & FILE_DIRECTORY_FILE)) {
			st->status = NT_STATUS_NOT_A_DIRECTORY;
			return;
		}
		if (st->read_only_share &&
		    st->disposition != FILE_OPEN &&
		    st->disposition != FILE_OPEN_IF) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return;
		}
		create_existing(st, is_dir);
	} else {
		if (st->disposition == FILE_OPEN ||
		    st->disposition == FILE_OVERWRITE) {
			st->status = NT_STATUS_OBJECT_NAME_NOT_FOUND;
			return;
		}
		if (st->read_only_share) {
			st->status = NT_STATUS_ACCESS_DENIED;
			return;
		}
		create_new(st);
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	if (st->alloc_size > 0 && !st->opath && st->action != FILE_OPENED &&
	    !(st->options & FILE_DIRECTORY_FILE)) {
		/* Reserve the space asked for; a file system that cannot
		 * (tmpfs without it, say) still gets the open. */
		(void)fallocate(st->fd, FALLOC_FL_KEEP_SIZE, 0,
				(off_t)st->alloc_size);
	}
	st->status = vfs_fstat_info(st->fd, &st->fi);
	if (NT_STATUS_IS_OK(st->status)) {
		vfs_fill_dos_attributes(&st->share, st->fd, st->opath,
					st->real_path, &st->fi);
	}
	/* Always: the desired access is checked against it (until NT ACLs
	 * are stored, the Unix permissions decide, MS-FSA 2.1.5.1.2.1). */
	if (NT_STATUS_IS_OK(st->status)) {
		st->max_access = create_max_access(st, st->share.root_fd,
						   st->real_path[0]
							   ? st->real_path
							   : ".");
		create_ntacl_access(st);
	}
}

static void create_push_times(struct wire_buf *out,
			      const struct vfs_file_info *fi)
{
	wire_push_le64(out, fi->create_time);
	wire_push_le64(out, fi->access_time);
	wire_push_le64(out, fi->write_time);
	wire_push_le64(out, fi->change_time);
	wire_push_le64(out, fi->allocation_size);
	wire_push_le64(out, fi->end_of_file);
	wire_push_le32(out, fi->attributes);
}

/* The access the open gets (3.3.5.9, MS-FSA 2.1.5.1.2.1). */
static NTSTATUS create_grant(struct create_state *st, uint32_t *granted)
{
	uint32_t want = st->access;

	if (want & SEC_FLAG_MAXIMUM_ALLOWED) {
		want = (want & ~SEC_FLAG_MAXIMUM_ALLOWED) | st->max_access;
	}
	/* The creator of a new file gets what it asked for; otherwise a
	 * right the permissions do not give is refused.  DELETE (or
	 * delete-on-close) needs write access to the directory. */
	if (st->action != FILE_CREATED) {
		/* An NT ACL is asked about every right (READ_CONTROL
		 * included); the mode only about these. */
		uint32_t need = want & (st->have_ntacl
						? SEC_FILE_ALL
						: (SEC_RIGHTS_FILE_READ |
						   SEC_RIGHTS_FILE_WRITE |
						   SEC_RIGHTS_FILE_EXECUTE |
						   SEC_STD_DELETE |
						   SEC_STD_WRITE_DAC |
						   SEC_STD_WRITE_OWNER));

		if ((st->options & FILE_DELETE_ON_CLOSE)) {
			need |= SEC_STD_DELETE;
		}
		if (st->have_ntacl && (st->action == FILE_OVERWRITTEN ||
				       st->action == FILE_SUPERSEDED)) {
			/* Destroying the data needs the right to write it,
			 * asked for or not (MS-FSA 2.1.5.1.2; the mode
			 * case is left to the kernel's O_RDWR open). */
			need |= SEC_FILE_WRITE_DATA;
		}
		need &= ~(SEC_STD_SYNCHRONIZE | SEC_FILE_READ_ATTRIBUTE);
		if (!st->have_ntacl) {
			need &= ~SEC_STD_READ_CONTROL;
		}
		if ((need & ~st->max_access) != 0) {
			return NT_STATUS_ACCESS_DENIED;
		}
	}
	if ((st->fi.attributes & FILE_ATTRIBUTE_READONLY) &&
	    (st->access & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA)) &&
	    st->action != FILE_CREATED) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if ((st->options & FILE_DELETE_ON_CLOSE) &&
	    (st->fi.attributes & FILE_ATTRIBUTE_READONLY)) {
		return NT_STATUS_CANNOT_DELETE;
	}
	*granted = want;
	return NT_STATUS_OK;
}

/* 2.2.14.2.10 / 2.2.14.2.11: the lease the open got. */
#define SMB2_LEASE_FLAG_BREAK_IN_PROGRESS 0x02
#define SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET 0x04
static void create_push_lease(struct wire_buf *out, size_t base,
			      size_t *prev, const struct create_state *st)
{
	uint8_t l[52];
	uint32_t flags = st->lease_breaking ? SMB2_LEASE_FLAG_BREAK_IN_PROGRESS
					    : 0;

	memset(l, 0, sizeof(l));
	memcpy(l, st->lease_key, 16);
	put_le32(l + 16, st->granted_state);
	if (st->lease_version == 2) {
		if (st->has_parent_key) {
			flags |= SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET;
			memcpy(l + 32, st->parent_key, 16);
		}
		put_le16(l + 48, st->granted_epoch);
	}
	put_le32(l + 20, flags);
	create_ctx_push(out, base, prev, "RqLs", l,
			st->lease_version == 2 ? 52 : 32);
}

/* 2.2.14.2.3 DHnQ response (8 reserved bytes), 2.2.14.2.12 DH2Q
 * response (Timeout, Flags: never persistent here). */
static void create_push_ctx_durable_tag(struct wire_buf *out, size_t base,
					size_t *prev, bool v2,
					const uint8_t d[8])
{
	create_ctx_push(out, base, prev, v2 ? "DH2Q" : "DHnQ", d, 8);
}

static void create_push_durable(struct wire_buf *out, size_t base,
				size_t *prev, const struct create_state *st,
				const struct smbd_open *op)
{
	uint8_t d[8];

	memset(d, 0, sizeof(d));
	if (st->durable.v2) {
		put_le32(d, op->durable_timeout_ms);
	}
	create_push_ctx_durable_tag(out, base, prev, st->durable.v2, d);
}

static NTSTATUS create_reply(struct smb2_request *req,
			     struct create_state *st, struct smbd_open *op)
{
	struct wire_buf *out = req->out;
	size_t body = out->len, prev = (size_t)-1, ctx_start;
	uint8_t fid[16];

	smbd_open_fid_bytes(op, fid);

	/* 2.2.14 CREATE Response */
	wire_push_le16(out, 89);
	wire_push_u8(out, st->lease ? SMB2_OPLOCK_LEVEL_LEASE
				    : smbd_oplock_state_to_level(
					      st->granted_state));
	wire_push_u8(out, 0);
	wire_push_le32(out, st->action);
	create_push_times(out, &st->fi);
	wire_push_le32(out, 0);
	wire_push_bytes(out, fid, 16);
	wire_push_le32(out, 0); /* CreateContextsOffset, patched */
	wire_push_le32(out, 0); /* CreateContextsLength, patched */
	ctx_start = out->len;
	if (st->want_max_access) {
		uint8_t mx[8];

		put_le32(mx, NT_STATUS_OK);
		put_le32(mx + 4, st->max_access);
		create_ctx_push(out, req->out_hdr, &prev, "MxAc", mx, 8);
	}
	if (st->want_qfid) {
		uint8_t q[32];

		/* 2.2.14.2.9: DiskFileId (inode, device), VolumeId. */
		memset(q, 0, sizeof(q));
		put_le64(q, st->fi.ino);
		put_le64(q + 8, st->fi.dev);
		create_ctx_push(out, req->out_hdr, &prev, "QFid", q, 32);
	}
	if (st->lease) {
		create_push_lease(out, req->out_hdr, &prev, st);
	}
	if (st->durable_granted) {
		create_push_durable(out, req->out_hdr, &prev, st, op);
	}
	if (prev != (size_t)-1 && !out->failed) {
		size_t first = ctx_start + ((8 - ((ctx_start - req->out_hdr) & 7)) & 7);

		put_le32(out->data + body + 80, (uint32_t)(first - req->out_hdr));
		put_le32(out->data + body + 84, (uint32_t)(out->len - first));
	} else {
		wire_push_u8(out, 0);
	}
	DBG_DEBUG("%s: opened '%s' fid %llu\n", req->conn->remote, op->path,
		  (unsigned long long)op->fid_volatile);
	return out->failed ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}


static NTSTATUS create_truncate_done(struct smb2_request *req, void *p)
{
	struct create_state *st = p;
	struct smbd_open *op;
	NTSTATUS status;

	status = smbd_open_lookup(req, req->fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!NT_STATUS_IS_OK(st->status)) {
		talloc_free(op);
		return st->status;
	}
	return create_reply(req, st, op);
}

static NTSTATUS create_after_share(struct smb2_request *req,
				   struct create_state *st,
				   struct smbd_open *op, NTSTATUS status);

/*
 * The locking DB decides (locking/oplock.c): breaks of other holders,
 * share modes, and the oplock or lease this open gets.  The breaks go out
 * whatever the outcome; NT_STATUS_OPLOCK_BREAK_IN_PROGRESS means wait.
 */
static NTSTATUS create_share(struct smb2_request *req,
			     struct create_state *st, struct smbd_open *op)
{
	struct smbd_worker *w = req->conn->worker;
	struct locking_db *db = smbd_locking(w);
	const struct lp_ctx *lp = w->srv->lp;
	struct share_open_req q;
	struct share_open_res res;
	struct file_key k;
	TALLOC_CTX *tmp;
	NTSTATUS status;

	if (db == NULL) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	memset(&q, 0, sizeof(q));
	smbd_open_keys(op, &k, &q.o);
	q.worker = (uint16_t)w->index;
	q.access_mask = op->access_mask;
	q.share_access = op->share_access;
	q.overwrite = st->need_truncate || st->action == FILE_OVERWRITTEN ||
		      st->action == FILE_SUPERSEDED;
	q.is_dir = op->is_dir;
	q.level2_ok = lp_bool(lp, req->tcon->snum, LP_LEVEL2_OPLOCKS);
	q.retry = st->waiter != NULL;
	if (st->lease) {
		q.caching = CACHING_LEASE;
		q.want = st->lease_state & CACHE_RWH;
		q.lease_version = st->lease_version;
		q.epoch = st->lease_epoch;
		memcpy(q.lease_key, st->lease_key, 16);
		memcpy(q.client_guid, req->conn->client_guid, 16);
	} else if (st->oplock_level != SMB2_OPLOCK_LEVEL_NONE &&
		   lp_bool(lp, req->tcon->snum, LP_OPLOCKS)) {
		q.caching = CACHING_OPLOCK;
		q.want = smbd_oplock_level_to_state(st->oplock_level);
	}
	if (st->lease) {
		/* 3.3.5.9.8: a lease key names one file of the client. */
		struct smbd_open *other = smbd_open_find_lease(req->conn,
							       st->lease_key);
		struct file_key ok;
		struct open_owner oo;

		if (other != NULL) {
			smbd_open_keys(other, &ok, &oo);
			if (ok.dev != k.dev || ok.ino != k.ino) {
				return NT_STATUS_INVALID_PARAMETER;
			}
		}
	}
	if (st->lease && op->is_dir) {
		/* No directory leases (no SMB2_GLOBAL_CAP_DIRECTORY_LEASING):
		 * the reply carries no lease (smb2.lease.request). */
		st->lease = false;
		q.caching = CACHING_NONE;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = share_mode_open(db, tmp, &k, &q, &res);
	smbd_breaks_deliver(w, &k, res.breaks, res.nbreaks);
	talloc_free(tmp);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	op->share_registered = true;
	if (op->stream != NULL) {
		struct file_key bk;
		struct open_owner bo;

		/* The file's own record hears of the stream open too. */
		smbd_open_locking_ids(op, &bk, &bo);
		status = share_mode_add_stream_ref(db, &bk, &bo,
						   st->share_access);
		if (!NT_STATUS_IS_OK(status)) {
			bool dn, db2;

			smbd_open_share_release(op, &dn, &db2);
			return status;
		}
		op->stream_ref = true;
	}
	smbd_status_open(op, true);
	if (st->lease) {
		/* The lease's version is its first open's. */
		st->lease_version = res.lease_version;
		op->caching = CACHING_LEASE;
		op->lease_version = st->lease_version;
		memcpy(op->lease_key, st->lease_key, 16);
		memcpy(op->client_guid, req->conn->client_guid, 16);
		memcpy(op->parent_lease_key, st->parent_key, 16);
		op->has_parent_key = st->has_parent_key;
		smbd_open_lease_link(op);
	} else if (res.granted != 0) {
		op->caching = CACHING_OPLOCK;
	}
	st->granted_state = res.granted;
	st->granted_epoch = res.epoch;
	st->lease_breaking = res.breaking;
	op->create_action = st->action;
	if (st->want_durable &&
	    lp_bool(lp, req->tcon->snum, LP_DURABLE_HANDLES) &&
	    smbd_durable_grantable(op, st->lease, res.granted)) {
		smbd_durable_grant(op, &st->durable, req->session->uid);
		st->durable_granted = true;
	}
	if (op->delete_on_close) {
		struct open_owner o;

		smbd_open_keys(op, &k, &o);
		(void)share_mode_set_open_delete_on_close(db, &k, &o, true);
	}
	return NT_STATUS_OK;
}

static void create_wait_cancel(void *priv)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;
	struct smbd_open *op = smbd_open_by_id(req->conn->worker,
					       st->wait_open_id);

	TALLOC_FREE(st->waiter);
	talloc_free(op);
	smb2_frame_resume(req, NT_STATUS_CANCELLED);
}

static void create_wait_retry(void *priv, bool expired)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;
	struct smbd_worker *w = req->conn->worker;
	struct smbd_open *op = smbd_open_by_id(w, st->wait_open_id);
	NTSTATUS status;

	if (op == NULL) {
		/* Its tree or session went away while it waited. */
		TALLOC_FREE(st->waiter);
		smb2_frame_resume(req, NT_STATUS_NETWORK_NAME_DELETED);
		return;
	}
	if (expired) {
		/* 3.3.6.1: the holders did not answer in time; they get
		 * what the break said and the open goes on. */
		struct locking_db *db = smbd_locking(w);
		struct share_ack_res res;
		struct file_key k;
		struct open_owner o;
		TALLOC_CTX *tmp = talloc_new(NULL);

		smbd_open_keys(op, &k, &o);
		if (db != NULL && tmp != NULL) {
			(void)share_mode_break_timeout(db, tmp, &k, NULL, NULL,
						       NULL, &res);
			smbd_breaks_deliver(w, &k, res.breaks, res.nbreaks);
		}
		talloc_free(tmp);
	}
	status = create_share(req, st, op);
	if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		return;
	}
	TALLOC_FREE(st->waiter);
	status = create_after_share(req, st, op, status);
	smb2_frame_resume(req, status);
}

/* MS-SMB2 3.3.5.9: the open waits for the holders to acknowledge (an
 * interim STATUS_PENDING reply goes out; CANCEL ends the wait). */
static NTSTATUS create_wait(struct smb2_request *req, struct create_state *st,
			    struct smbd_open *op)
{
	struct file_key k;
	struct open_owner o;

	smbd_open_keys(op, &k, &o);
	st->req = req;
	st->wait_open_id = op->fid_volatile;
	st->waiter = smbd_waiter_add(st, req->conn->worker, &k,
				     create_wait_retry, st);
	if (st->waiter == NULL) {
		talloc_free(op);
		return NT_STATUS_NO_MEMORY;
	}
	smb2_request_set_cancel(req, create_wait_cancel, st);
	return SMBD_STATUS_ASYNC;
}

/*
 * The open exists; now the shared locking DB decides whether it may
 * (MS-FSA 2.1.5.1.2 share access, delete pending).  A file this CREATE
 * made is removed again when it may not be opened after all.
 */
static NTSTATUS create_done(struct smb2_request *req, void *p)
{
	struct create_state *st = p;
	struct smbd_open *op;
	uint32_t granted = 0;
	NTSTATUS status = st->status;

	if (NT_STATUS_IS_OK(status)) {
		status = create_grant(st, &granted);
	}
	if (!NT_STATUS_IS_OK(status)) {
		create_orphan(st);
		return status;
	}
	op = smbd_open_new(req->conn, req->session, req->tcon, st->fd);
	if (op == NULL) {
		create_orphan(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	op->channel.seq = req->channel_seq;	/* 3.3.5.9 */
	op->is_dir = st->fi.is_dir;
	op->opath = st->opath;
	op->path = talloc_steal(op, st->real_path);
	op->stream = talloc_steal(op, st->stream_xattr);
	op->access_mask = granted;
	op->share_access = st->share_access;
	op->create_options = st->options;
	op->create_disposition = st->disposition;
	op->delete_on_close = (st->options & FILE_DELETE_ON_CLOSE) != 0;
	if (st->want_durable && st->durable.v2) {
		/* 3.3.5.9.10: a replay of this DH2Q finds the open by its
		 * CreateGuid, durable or not, and is refused while the
		 * CREATE still waits (create_pending). */
		op->has_create_guid = true;
		op->create_pending = true;
		memcpy(op->create_guid, st->durable.create_guid, 16);
		memcpy(op->client_guid, req->conn->client_guid, 16);
	}
	op->dev = st->fi.dev;
	op->ino = st->fi.ino;
	smbd_open_fid_bytes(op, req->fid);
	status = create_share(req, st, op);
	if (status == NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		return create_wait(req, st, op);
	}
	return create_after_share(req, st, op, status);
}

/* The share-mode entry exists (or was refused): finish the CREATE. */
static NTSTATUS create_after_share(struct smb2_request *req,
				   struct create_state *st,
				   struct smbd_open *op, NTSTATUS status)
{
	op->create_pending = false;
	if (!NT_STATUS_IS_OK(status)) {
		if (st->action == FILE_CREATED && op->stream == NULL) {
			/* Nobody saw it: undo what this CREATE made. */
			(void)unlinkat(req->tcon->share.root_fd, op->path,
				       op->is_dir ? AT_REMOVEDIR : 0);
		}
		talloc_free(op);
		return status;
	}
	if (st->need_truncate && op->stream == NULL) {
		st->fd = fcntl(op->fd, F_DUPFD_CLOEXEC, 0);
		if (st->fd == -1) {
			talloc_free(op);
			return vfs_map_errno(errno);
		}
		return smb2_job_run(req, st, create_truncate_job,
				    create_truncate_done, create_orphan);
	}
	return create_reply(req, st, op);
}

/* Desired-access bits no open can be granted (reserved, MS-DTYP 2.4.3). */
#define SEC_ACCESS_RESERVED 0x0ce0fe00u
/* FileAttributes a create may carry (MS-FSCC 2.6; the rest is invalid). */
#define FILE_ATTRIBUTES_VALID 0x00007fb7u
#define FILE_CREATE_TREE_CONNECTION 0x00000080

/*
 * 3.3.5.9 checks on the fixed fields that need no file system, in the
 * order Windows applies them (smbtorture's gentest pins it down).
 */
static NTSTATUS create_check_fields(uint32_t imp, uint32_t disposition,
				    uint32_t options, uint32_t attrs,
				    uint32_t access)
{
	if (imp > 3) {
		return NT_STATUS_BAD_IMPERSONATION_LEVEL;
	}
	if ((options & ~FILE_OPTIONS_VALID) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (access == 0 || (access & SEC_ACCESS_RESERVED) != 0) {
		/* Nothing, or what can never be granted. */
		return NT_STATUS_ACCESS_DENIED;
	}
	if (access & SEC_FLAG_SYSTEM_SECURITY) {
		return NT_STATUS_PRIVILEGE_NOT_HELD;
	}
	if (disposition > FILE_OVERWRITE_IF ||
	    (attrs & ~FILE_ATTRIBUTES_VALID) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((options & (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE)) ==
	    (FILE_DIRECTORY_FILE | FILE_NON_DIRECTORY_FILE)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (options & (FILE_OPEN_BY_FILE_ID | FILE_RESERVE_OPFILTER |
		       FILE_CREATE_TREE_CONNECTION)) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if ((options & FILE_DIRECTORY_FILE) &&
	    ((disposition != FILE_CREATE && disposition != FILE_OPEN &&
	      disposition != FILE_OPEN_IF) ||
	     (attrs & FILE_ATTRIBUTE_TEMPORARY))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((options & FILE_DELETE_ON_CLOSE) &&
	    !(access & (SEC_STD_DELETE | SEC_FLAG_MAXIMUM_ALLOWED |
			SEC_GENERIC_ALL))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/*
 * RqLs (2.2.13.2.8 v1, 32 bytes; 2.2.13.2.10 v2, 52 bytes), taken only
 * with OplockLevel LEASE, on 2.1 and later, when `smb2 leases` is on
 * (3.3.5.9.8, 3.3.5.9.11); v2 needs 3.x.  Anything else: no lease.
 */
/* ExtA (MS-SMB2 2.2.13.2.1): a FILE_FULL_EA_INFORMATION list, checked
 * here so a malformed one fails the CREATE before anything is made. */
static NTSTATUS create_eas_ctx(struct smb2_request *req,
			       struct create_state *st,
			       const struct create_ctx *c)
{
	NTSTATUS status;

	if (c == NULL) {
		return NT_STATUS_OK;
	}
	if (!req->tcon->share.ea_support) {
		return NT_STATUS_EAS_NOT_SUPPORTED;
	}
	status = fscc_ea_list_pull(st, c->data, c->data_len, &st->eas,
				   &st->num_eas);
	if (status == NT_STATUS_INFO_LENGTH_MISMATCH) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return status;
}

static NTSTATUS create_lease_ctx(struct smb2_request *req,
				 struct create_state *st,
				 const struct create_ctx *c)
{
	struct smbd_conn *conn = req->conn;
	struct create_lease l;
	NTSTATUS status;

	if (c == NULL || st->oplock_level != SMB2_OPLOCK_LEVEL_LEASE ||
	    conn->dialect < 0x0210 ||
	    !lp_bool(conn->worker->srv->lp, LP_GLOBAL, LP_SMB2_LEASES)) {
		if (st->oplock_level == SMB2_OPLOCK_LEVEL_LEASE) {
			st->oplock_level = SMB2_OPLOCK_LEVEL_NONE;
		}
		return NT_STATUS_OK;
	}
	status = create_ctx_lease_parse(c, conn->dialect >= 0x0300, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->lease = true;
	st->lease_version = l.version;
	memcpy(st->lease_key, l.key, 16);
	st->lease_state = l.state;
	st->lease_epoch = l.epoch;
	st->has_parent_key = l.has_parent;
	memcpy(st->parent_key, l.parent_key, 16);
	return NT_STATUS_OK;
}

/*
 * DHnQ/DHnC (3.3.5.9.6, 3.3.5.9.7) and DH2Q/DH2C (3.3.5.9.10,
 * 3.3.5.9.12; 3.x dialects only, ignored before).  A v2 context with any
 * other durable context is INVALID_PARAMETER; DHnC makes DHnQ moot.
 */
static NTSTATUS create_durable_ctx(struct smb2_request *req,
				   struct create_state *st,
				   const struct create_ctx_list *l)
{
	const struct create_ctx *q1 = create_ctx_find(l, "DHnQ");
	const struct create_ctx *c1 = create_ctx_find(l, "DHnC");
	const struct create_ctx *q2 = create_ctx_find(l, "DH2Q");
	const struct create_ctx *c2 = create_ctx_find(l, "DH2C");
	const struct create_ctx *use;

	if (req->conn->dialect < 0x0300) {
		q2 = NULL;
		c2 = NULL;
	}
	if ((q2 != NULL || c2 != NULL) &&
	    (q1 != NULL || c1 != NULL || (q2 != NULL && c2 != NULL))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	use = c2 ? c2 : q2 ? q2 : c1 ? c1 : q1;
	if (use == NULL) {
		return NT_STATUS_OK;
	}
	if ((use == q1 || use == q2) &&
	    !lp_bool(req->conn->worker->srv->lp, req->tcon->snum,
		     LP_DURABLE_HANDLES)) {
		/* `durable handles = no`: a request is not granted. */
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(create_ctx_durable_parse(use, &st->durable))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	st->reconnect = st->durable.reconnect;
	st->want_durable = !st->durable.reconnect;
	return NT_STATUS_OK;
}

/* The contexts we act on; the rest are ignored as 3.3.5.9 allows. */
static NTSTATUS create_contexts(struct smb2_request *req,
				struct create_state *st, uint32_t off,
				uint32_t len)
{
	struct create_ctx_list l;
	NTSTATUS status;

	if (len == 0) {
		return NT_STATUS_OK;
	}
	status = create_ctx_parse(st, req->in + off, len, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (create_ctx_find(&l, "MxAc") != NULL) {
		st->want_max_access = true;
	}
	if (create_ctx_find(&l, "QFid") != NULL) {
		st->want_qfid = true;
	}
	{
		const struct create_ctx *al = create_ctx_find(&l, "AlSi");

		if (al != NULL) {
			if (al->data_len != 8) {
				return NT_STATUS_INVALID_PARAMETER;
			}
			st->alloc_size = le64(al->data);
		}
	}
	{
		const struct create_ctx *sd = create_ctx_find(&l, "SecD");

		if (sd != NULL) {
			st->sd = talloc_memdup(st, sd->data, sd->data_len);
			st->sd_len = sd->data_len;
			if (st->sd == NULL && sd->data_len > 0) {
				return NT_STATUS_NO_MEMORY;
			}
		}
	}
	status = create_eas_ctx(req, st, create_ctx_find(&l, "ExtA"));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = create_durable_ctx(req, st, &l);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (st->reconnect) {
		/* 3.3.5.9.7: the lease of the open reclaimed is named by
		 * its RqLs whatever the OplockLevel field says. */
		st->oplock_level = SMB2_OPLOCK_LEVEL_LEASE;
	}
	status = create_lease_ctx(req, st, create_ctx_find(&l, "RqLs"));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (create_ctx_find(&l, "TWrp") != NULL) {
		/* No snapshots are exposed (no `vfs objects = shadow_copy2`). */
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	return NT_STATUS_OK;
}

/* The CREATE response for an open that exists already: a reclaimed
 * durable open or a replayed DH2Q (replay: st holds what the replay asked
 * for).  Consumes st. */
static NTSTATUS create_reply_existing(struct smb2_request *req,
				      struct create_state *st,
				      struct smbd_open *op, bool replay)
{
	struct locking_db *db = smbd_locking(req->conn->worker);
	struct share_mode_entry e;
	struct file_key k;
	struct open_owner o;
	NTSTATUS status;

	status = vfs_fstat_info(op->fd, &st->fi);
	if (NT_STATUS_IS_OK(status)) {
		vfs_fill_dos_attributes(&op->tcon->share, op->fd, false,
					op->path, &st->fi);
		smbd_open_keys(op, &k, &o);
		memset(&e, 0, sizeof(e));
		if (db != NULL) {
			(void)share_mode_get_entry(db, &k, &o, &e);
		}
		st->lease = op->caching == CACHING_LEASE;
		st->lease_version = op->lease_version;
		memcpy(st->lease_key, op->lease_key, 16);
		memcpy(st->parent_key, op->parent_lease_key, 16);
		st->has_parent_key = op->has_parent_key;
		st->granted_state = e.state;
		st->granted_epoch = e.epoch;
		if (replay && !st->lease) {
			/* 3.3.5.9.10: a replay answers with the oplock it
			 * asks for, as far as the open holds it, and is
			 * durable only if that level would make it so. */
			st->granted_state &=
				smbd_oplock_level_to_state(st->oplock_level);
		}
		if (replay) {
			st->durable_granted = smbd_durable_grantable(
				op, st->lease, st->granted_state);
		}
		st->lease_breaking = (e.flags & SHARE_ENTRY_BREAKING) != 0;
		smbd_open_fid_bytes(op, req->fid);
		status = create_reply(req, st, op);
	}
	talloc_free(st);
	return status;
}

/* The open came from another worker (or did not). */
static void create_reclaimed(void *priv, struct smbd_open *op,
			     NTSTATUS status)
{
	struct create_state *st = priv;
	struct smb2_request *req = st->req;

	if (NT_STATUS_IS_OK(status)) {
		status = create_reply_existing(req, st, op, false);
	} else {
		talloc_free(st);
	}
	smb2_frame_resume(req, status);
}

/* DHnC / DH2C: reclaim a disconnected durable open (durable.c). */
static NTSTATUS create_reconnect(struct smb2_request *req,
				 struct create_state *st)
{
	struct smbd_open *op;
	NTSTATUS status;

	/* 3.3.5.9.7: the open as it is; no durable context in the reply. */
	st->action = FILE_OPENED;
	st->durable_granted = false;
	status = smbd_durable_reconnect(req, &st->durable, st->path,
					st->lease ? st->lease_key : NULL, &op);
	if (status == NT_STATUS_NOT_FOUND) {
		/* Kept by another worker, maybe. */
		st->req = req;
		(void)talloc_steal(req->mem_ctx, st);
		status = smbd_durable_reclaim_remote(
			req, &st->durable, st->path,
			st->lease ? st->lease_key : NULL, create_reclaimed, st);
		if (status == SMBD_STATUS_ASYNC) {
			return status;
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	return create_reply_existing(req, st, op, false);
}

/*
 * 3.3.5.9.10: a replayed DH2Q (SMB2_FLAGS_REPLAY_OPERATION) whose
 * CreateGuid names an open of this client gets that open back, as the
 * first CREATE answered it.  NT_STATUS_NOT_FOUND: none, open anew.
 */
static NTSTATUS create_replay(struct smb2_request *req,
			      struct create_state *st)
{
	struct smbd_open *op = smbd_durable_find_guid(
		req->conn->worker, req->conn->client_guid,
		st->durable.create_guid);

	if (op == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	if (op->create_pending) {
		/* Its CREATE still waits for a break (Samba answers so;
		 * smbtorture smb2.replay.dhv2-pending*-sane). */
		talloc_free(st);
		return NT_STATUS_FILE_NOT_AVAILABLE;
	}
	if (op->disconnected || op->session != req->session ||
	    op->tcon != req->tcon) {
		talloc_free(st);
		return NT_STATUS_DUPLICATE_OBJECTID;
	}
	if ((op->caching == CACHING_LEASE) != st->lease ||
	    (st->lease && memcmp(op->lease_key, st->lease_key, 16) != 0)) {
		/* Replayed with a lease for an oplock open, or the other
		 * way round, or another lease (Windows: ACCESS_DENIED). */
		talloc_free(st);
		return NT_STATUS_ACCESS_DENIED;
	}
	st->action = op->create_action;
	return create_reply_existing(req, st, op, true);
}

/* Whether the UTF-16LE name names a stream (a ':' anywhere, "::$DATA"
 * included: MS-FSCC 2.1.5 stream names). */
static bool name_has_stream_syntax(const uint8_t *name, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		if (name[i] == ':' && name[i + 1] == 0) {
			return true;
		}
	}
	return false;
}

/* Whether the CREATE carries DHnC or DH2C (a malformed list is not:
 * the full parse reports it). */
static bool create_is_reconnect(struct smb2_request *req, uint32_t off,
				uint32_t len)
{
	TALLOC_CTX *tmp;
	struct create_ctx_list l;
	bool ret = false;

	if (len == 0 || req->tcon->ipc) {
		return false;
	}
	tmp = talloc_new(NULL);
	if (tmp != NULL &&
	    NT_STATUS_IS_OK(create_ctx_parse(tmp, req->in + off, len, &l))) {
		ret = create_ctx_find(&l, "DHnC") != NULL ||
		      (req->conn->dialect >= 0x0300 &&
		       create_ctx_find(&l, "DH2C") != NULL);
	}
	talloc_free(tmp);
	return ret;
}

NTSTATUS smb2_create(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct smbd_tcon *t = req->tcon;
	struct create_state *st;
	uint32_t imp, access, attrs, share_access, disposition, options;
	uint32_t ctx_off, ctx_len;
	uint16_t name_off, name_len;
	char *path = NULL, *stream = NULL;
	NTSTATUS status;

	uint8_t oplock_level = 0;
	bool reclaim;

	(void)wire_skip(b, 3);
	(void)wire_pull_u8(b, &oplock_level);
	(void)wire_pull_le32(b, &imp);
	(void)wire_skip(b, 16); /* SmbCreateFlags, Reserved */
	(void)wire_pull_le32(b, &access);
	(void)wire_pull_le32(b, &attrs);
	(void)wire_pull_le32(b, &share_access);
	(void)wire_pull_le32(b, &disposition);
	(void)wire_pull_le32(b, &options);
	(void)wire_pull_le16(b, &name_off);
	(void)wire_pull_le16(b, &name_len);
	(void)wire_pull_le32(b, &ctx_off);
	(void)wire_pull_le32(b, &ctx_len);

	/* 3.3.5.9.7/3.3.5.9.12: a reclaim ignores the fixed fields (the
	 * open has its access and options already). */
	reclaim = create_is_reconnect(req, ctx_off, ctx_len);
	status = reclaim ? NT_STATUS_OK
			 : create_check_fields(imp, disposition, options,
					       attrs, access);
	DBG_DEBUG("%s: CREATE access 0x%x attrs 0x%x share 0x%x disp %u "
		  "options 0x%x: %s\n",
		  req->conn->remote, access, attrs, share_access, disposition,
		  options, nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (t->ipc) {
		return smb2_pipe_create(req,
					name_len ? req->in + name_off : NULL,
					name_len, ntacl_map_generic(access));
	}
	status = vfs_name_from_wire(req->mem_ctx, name_len ? req->in + name_off
							   : NULL,
				    name_len, &path, &stream);
	DBG_DEBUG("%s: CREATE '%s'%s%s: %s\n", req->conn->remote,
		  path ? path : "?", stream ? " stream " : "",
		  stream ? stream : "", nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		if (log_level >= LOG_DEBUG) {
			char hex[129];
			size_t i;

			for (i = 0; i < name_len && i < 64; i++) {
				snprintf(hex + 2 * i, 3, "%02x",
					 req->in[name_off + i]);
			}
			hex[2 * i] = '\0';
			DBG_DEBUG("refused name bytes: %s\n", hex);
		}
		return status;
	}

	if (name_has_stream_syntax(req->in + name_off, name_len) &&
	    (options & FILE_DIRECTORY_FILE)) {
		/* A data stream is never a directory (MS-FSA 2.1.5.1:
		 * smbtorture smb2.streams.dir). */
		return NT_STATUS_NOT_A_DIRECTORY;
	}
	access = ntacl_map_generic(access);
	if (!reclaim && t->read_only && (access & SEC_RIGHTS_WRITE_ANY) &&
	    !(access & SEC_FLAG_MAXIMUM_ALLOWED)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	st = talloc_zero(NULL, struct create_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->fd = -1;
	st->share = t->share;
	st->share.root_fd = fcntl(t->share.root_fd, F_DUPFD_CLOEXEC, 0);
	talloc_set_destructor(st, create_state_destructor);
	st->path = talloc_steal(st, path);
	st->stream = talloc_steal(st, stream);
	st->data_stream = stream == NULL &&
			  name_has_stream_syntax(req->in + name_off, name_len);
	st->disposition = disposition;
	st->options = options;
	st->share_access = share_access;
	st->access = access;
	st->attrs = attrs;
	st->read_only_share = t->read_only;
	st->oplock_level = oplock_level;
	status = create_contexts(req, st, ctx_off, ctx_len);
	if (NT_STATUS_IS_OK(status) && st->share.acl_xattr) {
		status = ntacl_session_token(st, req->session, &st->tok);
	}
	if (st->share.root_fd == -1 || !NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return NT_STATUS_IS_OK(status) ? NT_STATUS_TOO_MANY_OPENED_FILES
					       : status;
	}
	if (st->reconnect) {
		return create_reconnect(req, st);
	}
	if (st->want_durable && st->durable.v2 &&
	    (req->flags & SMB2_FLAGS_REPLAY_OPERATION)) {
		status = create_replay(req, st);
		if (status != NT_STATUS_NOT_FOUND) {
			return status;
		}
	}
	return smb2_job_run(req, st, create_job, create_done, create_orphan);
}

/* ---- CLOSE ---- */

struct close_state {
	int fd;
	char *stream;
	int root_fd;
	char *path;
	bool is_dir;
	bool delete_on_close;
	bool delete_base;	/* the stream's file goes too */
	bool want_info;
	struct vfs_share share;
	NTSTATUS status;
	struct vfs_file_info fi;
};

static void close_job(void *p)
{
	struct close_state *st = p;

	if (st->want_info && st->fd != -1) {
		st->status = vfs_fstat_info(st->fd, &st->fi);
		if (NT_STATUS_IS_OK(st->status)) {
			vfs_fill_dos_attributes(&st->share, st->fd, false,
						st->path, &st->fi);
		}
		if (NT_STATUS_IS_OK(st->status) && st->stream != NULL) {
			uint64_t size = 0;

			(void)vfs_stream_size(st->fd, st->stream, &size);
			st->fi.end_of_file = size;
			st->fi.allocation_size = (size + 4095) & ~4095ULL;
		}
	}
	if (st->stream != NULL) {
		if (st->delete_on_close && st->fd != -1) {
			(void)vfs_stream_delete(st->fd, st->stream);
		}
		/* The file itself goes when this stream open was the last
		 * thing keeping its pending delete. */
		st->delete_on_close = st->delete_base;
	}
	if (st->fd != -1) {
		close(st->fd);
		st->fd = -1;
	}
	if (st->delete_on_close && st->path[0] != '\0') {
		if (unlinkat(st->root_fd, st->path,
			     st->is_dir ? AT_REMOVEDIR : 0) != 0) {
			DBG_NOTICE("delete on close of %s: %s\n", st->path,
				   strerror(errno));
		}
		/* After a delete the reply carries no attributes. */
		st->want_info = false;
	}
	close(st->root_fd);
	st->root_fd = -1;
}

static void close_orphan(void *p)
{
}

static NTSTATUS close_done(struct smb2_request *req, void *p)
{
	struct close_state *st = p;
	struct wire_buf *out = req->out;

	/* 2.2.16 CLOSE Response */
	wire_push_le16(out, 60);
	wire_push_le16(out, st->want_info && NT_STATUS_IS_OK(st->status)
				    ? SMB2_CLOSE_FLAGS_FULL_INFORMATION
				    : 0);
	wire_push_le32(out, 0);
	if (st->want_info && NT_STATUS_IS_OK(st->status)) {
		create_push_times(out, &st->fi);
	} else {
		wire_push_zero(out, 52);
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_close(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct close_state *st;
	struct smbd_open *op;
	uint8_t fid[16];
	uint16_t flags;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_le16(b, &flags);
	(void)wire_skip(b, 4);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (op->pipe != NULL) {
		return smb2_pipe_close(req, op);
	}
	st = talloc_zero(NULL, struct close_state);
	if (st == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	st->want_info = (flags & SMB2_CLOSE_FLAGS_FULL_INFORMATION) != 0;
	/* Before the attributes are read: a write since the last write
	 * time update sets it now (write_time.h). */
	smbd_wt_close(op);
	/* The locking DB knows whether this close deletes the file: the
	 * last open of one whose delete is pending. */
	smbd_open_share_release(op, &st->delete_on_close, &st->delete_base);
	st->is_dir = op->is_dir;
	st->share = op->tcon->share;
	st->path = talloc_strdup(st, op->path);
	st->stream = op->stream ? talloc_strdup(st, op->stream) : NULL;
	st->root_fd = fcntl(op->tcon->share.root_fd, F_DUPFD_CLOEXEC, 0);
	st->fd = smbd_open_detach(op);
	talloc_free(op);
	if (st->path == NULL || st->root_fd == -1) {
		if (st->fd != -1) {
			close(st->fd);
		}
		if (st->root_fd != -1) {
			close(st->root_fd);
		}
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	return smb2_job_run(req, st, close_job, close_done, close_orphan);
}
