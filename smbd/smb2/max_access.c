/*
 * The maximal access of a file (design in max_access.h).
 */
#include "smbd/smb2/max_access.h"
#include "smbd/objects/open.h"

#include "vfs/handle.h"

#include <unistd.h>

/* The rights the write check gives. */
#define WRITE_GIVES                                                       \
	(SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA | SEC_FILE_WRITE_EA | \
	 SEC_FILE_WRITE_ATTRIBUTE | SEC_DIR_DELETE_CHILD)

uint32_t smb2_mode_max_access(int dirfd, const char *name, bool read_only,
			      bool may_chmod, bool parent_delete,
			      uint32_t need)
{
	uint32_t a = SEC_FILE_READ_ATTRIBUTE | SEC_STD_READ_CONTROL |
		     SEC_STD_SYNCHRONIZE | SEC_FILE_READ_EA;
	bool want_r = (need & (SEC_FILE_READ_DATA | SEC_FILE_EXECUTE)) != 0;
	bool want_w = !read_only && (need & WRITE_GIVES) != 0;
	bool r, w = false;

	if (want_r && want_w && vfs_handle_may(dirfd, name, R_OK | W_OK)) {
		r = w = true;
	} else {
		r = want_r && vfs_handle_may(dirfd, name, R_OK);
		w = want_w && vfs_handle_may(dirfd, name, W_OK);
	}
	if (r) {
		a |= SEC_FILE_READ_DATA | SEC_FILE_EXECUTE;
	}
	if (w) {
		/* DELETE_CHILD comes with write access on files too, as
		 * Windows and Samba report it (0x1f01ff = FILE_ALL_ACCESS). */
		a |= SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
		     SEC_FILE_WRITE_EA | SEC_FILE_WRITE_ATTRIBUTE |
		     SEC_DIR_DELETE_CHILD;
	}
	if (!read_only && may_chmod) {
		/* The owner may also set the times and the mode, so the
		 * attributes, of a file it cannot write: a read-only file
		 * (write bits off) gets its READONLY attribute cleared that
		 * way, as on Samba. */
		a |= SEC_STD_WRITE_DAC | SEC_STD_WRITE_OWNER |
		     SEC_FILE_WRITE_ATTRIBUTE;
	}
	if (!read_only && parent_delete) {
		a |= SEC_STD_DELETE;
	}
	return a;
}

uint32_t smb2_ntacl_max_access_finish(uint32_t a, bool parent_delete,
				      bool read_only)
{
	if (parent_delete) {
		a |= SEC_STD_DELETE;
	}
	if (read_only) {
		a &= ~SEC_RIGHTS_WRITE_ANY;
	}
	return a;
}
