/*
 * One descriptor shared by its owner (an open, a tree connect) and the
 * pool jobs that use it, instead of a dup per job: the descriptor is
 * closed when the owner has let go and the last job is done (issue 18:
 * a dup and a close per request were 2 of its system calls).  Borrowing
 * and letting go happen on the loop thread only (a job's state is freed
 * there), so the count needs no atomics.
 */
#ifndef LIB_FD_SHARE_H
#define LIB_FD_SHARE_H

#include <stdbool.h>
#include <talloc.h>

struct fd_share;

/*
 * fd, held for as long as holder lives; *shp is the owner's sharing
 * state, made on the first borrow (NULL until then).  Returns fd, or -1
 * with errno (EBADF for fd -1, ENOMEM).
 */
int fd_share_borrow(struct fd_share **shp, int fd, TALLOC_CTX *holder);
/* The owner lets go of fd: closed now, or by the last holder. */
void fd_share_release(struct fd_share **shp, int fd);
/* Whether a holder still uses the descriptor. */
bool fd_share_borrowed(const struct fd_share *sh);
/* The owner keeps fd for itself again: only when nothing borrows it. */
void fd_share_forget(struct fd_share **shp);

#endif
