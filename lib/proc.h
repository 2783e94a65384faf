/*
 * Processes: this one's id, and whether another one still lives.
 *
 * proc_pid(): this process's id without a syscall.  glibc stopped caching
 * getpid() (2.25), and the locking DB names every open by its worker's
 * pid: the lookups of one SMB operation asked the kernel two or three
 * times (issue 18's syscall count).  The cache is cleared in every fork's
 * child (pthread_atfork), so a worker never reports its master's pid.
 *
 * proc_stat()/proc_alive(): what /proc says of another process.  A pid
 * alone names a process only while it lives: the pid of one that died may
 * be given to a new one, so a record that must name one process across
 * time keeps its start time too (boot-relative, so unique with the pid).
 * A zombie (dead, not reaped yet: its parent is stopped, say) counts as
 * dead, though kill(pid, 0) still succeeds on it.
 */
#ifndef LIB_PROC_H
#define LIB_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

pid_t proc_pid(void);

/* What /proc/PID/stat says of pid: false when it has no such file. */
struct proc_info {
	char state;		/* 'R', 'S', 'T', 'Z'... */
	unsigned long threads;	/* its thread count */
	uint64_t start;		/* clock ticks after boot */
};
bool proc_stat(pid_t pid, struct proc_info *out);
/* Whether kill(pid, 0) finds a process, one of another user (EPERM)
 * included, a zombie included.  pid as kill(2) takes it: not <= 0 for
 * one process. */
bool proc_exists(pid_t pid);
/* Whether pid runs: it exists (kill(pid, 0), EPERM included) and is no
 * zombie, or a zombie leader whose other threads are still exiting (they
 * hold its files).  Without /proc, what kill() says. */
bool proc_alive(pid_t pid);

/* This process's parent (getppid(): a worker's is its master). */
pid_t proc_parent(void);
/* The text of /proc/PID/stat, NUL-terminated in buf (size > 0): its
 * length, or -1 when the process has no such file (gone). */
ssize_t proc_stat_text(pid_t pid, char *buf, size_t size);
/* size zeroed bytes that this process and the ones it forks afterwards
 * share (an anonymous shared mapping, never unmapped): NULL, logged with
 * what, when the kernel refuses it. */
void *proc_shared_alloc(size_t size, const char *what);

#endif
