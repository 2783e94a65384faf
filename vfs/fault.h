/*
 * Fault injection for the file-system calls (issue 14), in the spirit of
 * SQLite's test VFS: a test makes chosen calls fail with a chosen errno
 * and checks that the client gets the mapped NTSTATUS, that no fd or
 * lock leaks and that the worker lives.
 *
 * Armed only by the environment of the process that starts smbd:
 *
 *   SMBD_FAULT_INJECT="OP:ERRNO:MATCH[:COUNT],..."
 *
 * OP is one of open, read, write, fsync, unlink, mkdir, rename; ERRNO a
 * name (ENOSPC, EIO, EMFILE, EINTR, EACCES, ...), or SLEEP=MS (issue 34:
 * the call waits MS milliseconds, 1 to 600000, then goes on, so a test
 * can hang calls on purpose as a dead NFS or FUSE mount would); MATCH a
 * substring of the file's path (for fd-based calls the path the fd has
 * now, from /proc/self/fd; for open, unlink, mkdir and rename the
 * absolute path, the directory's from /proc/self/fd, so a share's
 * directory name matches every such call on that share), so only the test's own files fail; COUNT how many
 * matching calls fail (or wait) before the rule stops (default: every
 * one).  Rules are tried in order: a SLEEP rule that matches waits and
 * the next rules are still tried, an error rule that matches ends the
 * call.  With the variable unset nothing is armed and each hook costs
 * one load of a flag.  The hooks sit where the pool threads make the
 * calls: vfs/ (open, anchored unlink/mkdir/rename) and the READ, WRITE
 * and FLUSH jobs (a SLEEP on the loop thread would stop the worker: a
 * test finding one has found a blocking call on the loop).
 */
#ifndef VFS_FAULT_H
#define VFS_FAULT_H

#include <stdbool.h>
#include <stddef.h>

enum vfs_fault_op {
	VFS_FAULT_OPEN,
	VFS_FAULT_READ,
	VFS_FAULT_WRITE,
	VFS_FAULT_FSYNC,
	VFS_FAULT_UNLINK,
	VFS_FAULT_MKDIR,
	VFS_FAULT_RENAME,
	VFS_FAULT_NOPS
};

#define VFS_FAULT_MAX_RULES 8
#define VFS_FAULT_MATCH_MAX 64
/* The longest SLEEP: ten minutes, past any client's patience. */
#define VFS_FAULT_SLEEP_MAX_MS 600000

struct vfs_fault_rule {
	enum vfs_fault_op op;
	int err;		/* 0 for a SLEEP rule */
	unsigned sleep_ms;	/* SLEEP=MS; 0 for an error rule */
	char match[VFS_FAULT_MATCH_MAX];
	long left;		/* -1: forever */
};

struct vfs_fault_table {
	struct vfs_fault_rule rules[VFS_FAULT_MAX_RULES];
	unsigned nrules;
};

/* Parse a SMBD_FAULT_INJECT value.  False with a message in err. */
bool vfs_fault_parse(const char *spec, struct vfs_fault_table *out,
		     char *err, size_t errlen);
/* Arm the process-wide table (before the workers fork); NULL disarms. */
void vfs_fault_arm(const struct vfs_fault_table *t);
/* Read SMBD_FAULT_INJECT and arm it.  False (message in err) when the
 * value does not parse: the daemon refuses to start. */
bool vfs_fault_arm_from_env(char *err, size_t errlen);

/* The errno a call of op on path (or fd's file, if path is NULL and fd
 * is not -1) is to fail with, 0 for none, after the SLEEP rules that
 * match have waited.  Thread-safe. */
int vfs_fault_hit(enum vfs_fault_op op, const char *path, int fd);
/* The same for path relative to the directory dirfd (an openat): the
 * rules see the absolute path. */
int vfs_fault_hit_at(enum vfs_fault_op op, int dirfd, const char *path);
/* What vfs_fault_hit decides for path, without waiting: the errno, and
 * in *sleep_ms the milliseconds the SLEEP rules that match add up to
 * (tests and the fuzz target).  Counts are taken as by vfs_fault_hit. */
int vfs_fault_decide(enum vfs_fault_op op, const char *path,
		     unsigned *sleep_ms);

/* Whether any rule for op is armed (a fast path may then step aside so
 * the hooked path runs). */
bool vfs_fault_armed(enum vfs_fault_op op);

#endif
