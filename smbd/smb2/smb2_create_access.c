/*
 * What a CREATE may do and what its open is granted (MS-SMB2 3.3.5.9;
 * MS-FSA 2.1.5.1.1 creating under a directory, 2.1.5.1.2.1 access
 * checks): MAXIMUM_ALLOWED / MxAc from the Unix permissions as the job's
 * credentials see them, or from a stored NT ACL on acl_xattr shares
 * (whose new objects inherit one, MS-DTYP 2.5.3.4), and the desired
 * access checked against it.  Split from smb2_create.c, which does the
 * open itself; the *_access/parent/ntacl helpers run in the job thread,
 * create_grant on the loop thread.
 */
#include "smbd/smb2/smb2_create_private.h"
#include "smbd/smb2/max_access.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_file.h"
#include "lib/tpool.h"
#include "vfs/anchor.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"

#include <string.h>
#include <sys/stat.h>

/* Changing the permissions (WRITE_DAC) or owner (WRITE_OWNER) of a file
 * maps to chmod/chown, which Unix leaves to the owner (and root): the
 * job runs with the session user's effective ids (lib/tpool.c).  The
 * owner is the one the job's fstat of the open file just read (st->fi),
 * not a second stat of the path. */
static bool create_may_chmod(const struct create_state *st)
{
	uid_t me = tpool_thread_euid();

	return me == 0 || st->fi.uid == (uint32_t)me;
}

int create_parent_fd(struct create_state *st)
{
	const char *slash = strrchr(st->real_path, '/');
	size_t n = slash != NULL ? (size_t)(slash - st->real_path) : 0;
	const char *base;

	if (st->parent_fd != -1 && strlen(st->parent_of) == n &&
	    strncmp(st->parent_of, st->real_path, n) == 0) {
		return st->parent_fd;	/* real_path may have moved */
	}
	create_parent_fd_close(st);
	st->parent_of = talloc_strndup(st, st->real_path, n);
	if (st->parent_of == NULL) {
		return -1;
	}
	st->parent_fd = vfs_open_parent(&st->share, st->share.root_fd,
					st->real_path, &base);
	return st->parent_fd;
}

void create_parent_fd_close(struct create_state *st)
{
	vfs_fd_close(st->parent_fd);
	st->parent_fd = -1;
	TALLOC_FREE(st->parent_of);
}

/* Whether the user may remove entries of the directory holding
 * st->real_path: write access to it (the mode's DELETE). */
static bool create_parent_writable(struct create_state *st)
{
	int pfd = create_parent_fd(st);

	return pfd != -1 && vfs_dir_writable(pfd);
}

/* The rights create_grant asks the Unix permissions about for want:
 * DELETE too for delete-on-close; never those every open has. */
static uint32_t mode_need(const struct create_state *st, uint32_t want)
{
	uint32_t need = want & (SEC_RIGHTS_FILE_READ | SEC_RIGHTS_FILE_WRITE |
				SEC_RIGHTS_FILE_EXECUTE | SEC_STD_DELETE |
				SEC_STD_WRITE_DAC | SEC_STD_WRITE_OWNER);

	if ((st->options & FILE_DELETE_ON_CLOSE)) {
		need |= SEC_STD_DELETE;
	}
	return need & ~(SEC_STD_SYNCHRONIZE | SEC_FILE_READ_ATTRIBUTE |
			SEC_STD_READ_CONTROL);
}

/* What of the maximal access will be looked at: all of it for
 * MAXIMUM_ALLOWED or an MxAc context; nothing for the creator of a new
 * object (create_grant gives it what it asked for); else what
 * create_grant checks. */
static uint32_t create_access_need(const struct create_state *st)
{
	if (st->want_max_access || (st->access & SEC_FLAG_MAXIMUM_ALLOWED)) {
		return SMB2_MAX_ACCESS_ALL;
	}
	if (st->action == FILE_CREATED) {
		return 0;
	}
	return mode_need(st, st->access);
}

/* What the user may do with the file (MAXIMUM_ALLOWED, MxAc), from the
 * Unix permissions as the job's credentials see them (max_access.h), as
 * far as it will be looked at.  Called once st->fi holds the file's (the
 * base file's, for a stream). */
static uint32_t create_max_access(struct create_state *st, int dirfd,
				  const char *name)
{
	bool ro = st->read_only_share;
	uint32_t need = create_access_need(st);

	/* The directory is opened and checked only for a DELETE that
	 * matters: most opens do not ask for it. */
	return smb2_mode_max_access(dirfd, name, ro,
				    !ro && create_may_chmod(st),
				    !ro && (need & SEC_STD_DELETE) &&
					    create_parent_writable(st),
				    need);
}

/*
 * acl_xattr shares: a directory with an NT ACL lets one add a file with
 * FILE_ADD_FILE, a subdirectory with FILE_ADD_SUBDIRECTORY (MS-FSA
 * 2.1.5.1.1); its descriptor is kept for create_set_ntacl.  Without one
 * the kernel's check of the Unix permissions decides.
 */
bool create_parent_allows(struct create_state *st, bool dir)
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
void create_set_ntacl(struct create_state *st, bool dir)
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
 * write permission on it, the mode's DELETE).  False when there is none
 * to decide.
 */
static bool create_ntacl_access(struct create_state *st)
{
	struct sd *sd, *parent;
	bool parent_delete = false;
	uint32_t a;

	if (!st->share.acl_xattr || st->fd == -1 ||
	    !NT_STATUS_IS_OK(ntacl_file_get(st, st->fd, &sd))) {
		return false;
	}
	a = ntacl_max_access(sd, st->tok);
	if (!(a & SEC_STD_DELETE)) {
		if (NT_STATUS_IS_OK(ntacl_file_get_parent(
			    st, &st->share, st->real_path, &parent))) {
			parent_delete = (ntacl_max_access(parent, st->tok) &
					 SEC_DIR_DELETE_CHILD) != 0;
		} else {
			parent_delete = !st->read_only_share &&
					create_parent_writable(st);
		}
	}
	st->max_access = smb2_ntacl_max_access_finish(a, parent_delete,
						      st->read_only_share);
	st->have_ntacl = true;
	return true;
}

/*
 * A symbolic link opened itself (FILE_OPEN_REPARSE_POINT): a link is
 * readable by all (its mode is 0777 and holds nothing), and changing or
 * deleting it (FSCTL_SET/DELETE_REPARSE_POINT, a delete) replaces its
 * entry, which its directory's write permission allows.
 */
static uint32_t create_link_max_access(struct create_state *st)
{
	uint32_t a = SEC_FILE_READ_DATA | SEC_FILE_READ_EA |
		     SEC_FILE_EXECUTE | SEC_FILE_READ_ATTRIBUTE |
		     SEC_STD_READ_CONTROL | SEC_STD_SYNCHRONIZE;

	if (!st->read_only_share && create_parent_writable(st)) {
		a |= SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
		     SEC_FILE_WRITE_EA | SEC_FILE_WRITE_ATTRIBUTE |
		     SEC_STD_DELETE;
	}
	return a;
}

void create_access(struct create_state *st, const char *name)
{
	if (st->link_open) {
		st->max_access = create_link_max_access(st);
		return;
	}
	if (!create_ntacl_access(st)) {
		st->max_access = create_max_access(st, st->share.root_fd,
						   name);
	}
}

/* The access the open gets (3.3.5.9, MS-FSA 2.1.5.1.2.1). */
NTSTATUS create_grant(struct create_state *st, uint32_t *granted)
{
	uint32_t want = st->access;

	if (want & SEC_FLAG_MAXIMUM_ALLOWED) {
		want = (want & ~SEC_FLAG_MAXIMUM_ALLOWED) | st->max_access;
	}
	if (st->snapshot) {
		/* A snapshot is read-only whatever its modes say (the
		 * explicit write rights were refused at the request). */
		want &= ~SEC_RIGHTS_WRITE_ANY;
	}
	/* The creator of a new file gets what it asked for; otherwise a
	 * right the permissions do not give is refused.  DELETE (or
	 * delete-on-close) needs write access to the directory. */
	if (st->action != FILE_CREATED) {
		/* An NT ACL is asked about every right (READ_CONTROL
		 * included); the mode only about these. */
		uint32_t need = mode_need(st, want);

		if (st->have_ntacl) {
			need = want & SEC_FILE_ALL;
			if ((st->options & FILE_DELETE_ON_CLOSE)) {
				need |= SEC_STD_DELETE;
			}
			if (st->action == FILE_OVERWRITTEN ||
			    st->action == FILE_SUPERSEDED) {
				/* Destroying the data needs the right to
				 * write it, asked for or not (MS-FSA
				 * 2.1.5.1.2; the mode case is left to the
				 * kernel's O_RDWR open). */
				need |= SEC_FILE_WRITE_DATA;
			}
			need &= ~(SEC_STD_SYNCHRONIZE |
				  SEC_FILE_READ_ATTRIBUTE);
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

