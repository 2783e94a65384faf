/*
 * The maximal access of a file for the job's user (MAXIMUM_ALLOWED and
 * MxAc, MS-SMB2 3.3.5.9; MS-FSA 2.1.5.1.2.1).  CREATE (smb2_create_access.c)
 * and the listings of a session with AAPL's READ_DIR_ATTR
 * (smb2_querydir.c, which report it per entry as Samba's fruit does)
 * compute it with these, so a Mac sees in a listing what an open of the
 * entry would be granted.  Runs in pool jobs with the session user's
 * credentials: the kernel's access checks answer for that user.
 */
#ifndef SMBD_SMB2_MAX_ACCESS_H
#define SMBD_SMB2_MAX_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * From the Unix permissions of `name` under dirfd (followed if a
 * symlink): read and execute where readable; write, EAs, attributes and
 * DELETE_CHILD where writable, unless read_only (the share); the owner's
 * WRITE_DAC, WRITE_OWNER and WRITE_ATTRIBUTE with may_chmod; DELETE with
 * parent_delete (the caller's check of the directory, once per
 * directory).  One access check where the file is both readable and
 * writable (the common case), at most three.
 *
 * need: the rights the caller will look at (SMB2_MAX_ACCESS_ALL for
 * MAXIMUM_ALLOWED and MxAc).  The read check is made only when need has
 * READ_DATA or EXECUTE, the write check only when it has a right that
 * writing gives; a right outside need may then be missing from the
 * answer.  Most CREATEs ask for attributes or reading only (a stat, a
 * listing's open), and skip one or both checks (issue 18's syscall
 * count).
 */
#define SMB2_MAX_ACCESS_ALL 0xffffffffu
uint32_t smb2_mode_max_access(int dirfd, const char *name, bool read_only,
			      bool may_chmod, bool parent_delete,
			      uint32_t need);

/*
 * From a stored NT ACL's answer a (acl_xattr shares): DELETE also with
 * parent_delete (the parent's FILE_DELETE_CHILD, or without an NT ACL on
 * the parent, the mode's DELETE), no write rights on a read-only share.
 */
uint32_t smb2_ntacl_max_access_finish(uint32_t a, bool parent_delete,
				      bool read_only);

#endif
