/*
 * This process's id without a syscall.  glibc stopped caching getpid()
 * (2.25), and the locking DB names every open by its worker's pid: the
 * lookups of one SMB operation asked the kernel two or three times
 * (issue 18's syscall count).  The cache is cleared in every fork's
 * child (pthread_atfork), so a worker never reports its master's pid.
 */
#ifndef LIB_PROC_H
#define LIB_PROC_H

#include <sys/types.h>

pid_t proc_pid(void);

#endif
