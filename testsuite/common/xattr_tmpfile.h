/*
 * Unit tests of code that keeps data in user xattrs: a scratch file in
 * /var/tmp (tmpfs /tmp may lack user xattrs), or -1 when its file system
 * has none, for the test to skip().  path holds 64 bytes; the caller
 * closes and unlinks.
 */
#ifndef TESTSUITE_COMMON_XATTR_TMPFILE_H
#define TESTSUITE_COMMON_XATTR_TMPFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include <unistd.h>

static inline int xattr_tmpfile(char path[64], const char *stem)
{
	int fd;

	snprintf(path, 64, "/var/tmp/%s_XXXXXX", stem);
	fd = mkstemp(path);
	assert_true(fd != -1);
	if (fsetxattr(fd, "user.probe", "x", 1, 0) != 0) {
		close(fd);
		unlink(path);
		return -1; /* no user xattrs here */
	}
	fremovexattr(fd, "user.probe");
	return fd;
}

#endif
