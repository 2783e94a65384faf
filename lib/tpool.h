/*
 * A per-worker thread pool for file-system calls (DESIGN.md "Worker",
 * "Identity"): the loop thread never blocks on a disk.
 *
 * A job runs job->fn in a pool thread under the job's credentials
 * (uid, gid, supplementary groups), switched with the raw setresuid/
 * setresgid/setgroups system calls, which affect only the calling thread
 * (glibc's wrappers would change every thread of the process).  Then
 * job->done runs on the loop thread.  The pool owns a job from
 * tpool_submit() until done has returned; done frees it.
 *
 * A stuck call costs one thread, not the worker (issue 34 item 2).  A
 * call may not return for a long time, or ever: a FIFO (vfs/ opens them
 * without waiting now), a dead NFS or FUSE mount under a share, a slow
 * `username map script`.  Two rules keep such calls from taking the
 * threads every other client needs:
 *
 *  - Lanes.  Each job runs in a lane (job->lane; NULL is the pool's
 *    default lane, whose cap is the pool's maximum), and a lane runs at
 *    most its cap of jobs at once; the others wait in the lane, in order.
 *    The worker gives each share its own lane (`smbd pool threads per
 *    share`, default 16) and logons theirs (8), so one hung mount holds at
 *    most its share's cap of threads and no file-system hang can hold a
 *    logon.  Lanes with work take turns (round robin), so a busy lane
 *    does not starve a quiet one.
 *
 *  - Growth.  The pool starts with nthreads threads (the worker's 4:
 *    enough to overlap slow disk calls per CPU), and that is all it has
 *    while its calls return: the hot path is the same hand-off as before
 *    (one mutex, a condition variable, a lock-free stack of finished jobs
 *    and an eventfd; measured with perf, 3.0 futex calls per job handed
 *    to a sleeping thread and under 1 with 64 jobs in flight, as before
 *    the lanes).  A thread whose call has run longer than stuck_ms (100)
 *    no longer counts as one of the nthreads: when jobs wait that a lane
 *    would run and no thread is idle, threads are started until nthreads
 *    are not stuck again, up to max_threads (`smbd pool max threads`,
 *    default 64): at once when a job comes in to find them stuck
 *    already, else by a timer on the loop (armed only then) that looks
 *    again after stuck_ms.  A thread beyond nthreads that finds nothing
 *    to do for idle_ms (2000) exits, so a burst of hung calls leaves no
 *    threads behind once they return.
 *
 * Freeing the pool stops it: jobs not started never run, idle threads
 * exit, and it waits up to a second for running calls; a thread still in
 * its call after that is left to finish it, alone (it holds its own
 * reference to the pool's shared core; no done callback runs any more).
 */
#ifndef LIB_TPOOL_H
#define LIB_TPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <sys/types.h>
#include <talloc.h>

struct ev_loop;
struct tpool;
struct tpool_lane;

struct tpool_cred {
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	const gid_t *groups;	/* must stay valid until the job is done */
};

struct tpool_job {
	struct tpool_job *next;
	void (*fn)(struct tpool_job *job);	/* pool thread */
	void (*done)(struct tpool_job *job);	/* loop thread */
	void *priv;
	/* The lane it runs in (tpool_lane_get), NULL for the pool's default
	 * lane; the pool keeps the lane alive while the job is queued or
	 * running. */
	struct tpool_lane *lane;
	bool use_cred;
	struct tpool_cred cred;
	/* Set when the thread could not take the job's credentials; fn was
	 * then not run (never run a user's job as root). */
	int cred_error;
};

/* The pool's numbers (see above); 0 in a field keeps what it was. */
struct tpool_limits {
	unsigned max_threads;	/* tpool_new: nthreads (no growth) */
	unsigned stuck_ms;	/* a call past this no longer counts: 100 */
	unsigned idle_ms;	/* a thread beyond nthreads exits: 2000 */
};

struct tpool_stats {
	unsigned threads;	/* alive now */
	unsigned idle;		/* waiting for work */
	unsigned stuck;		/* in a call for longer than stuck_ms */
	unsigned queued;	/* jobs waiting in their lanes */
	unsigned peak;		/* most threads alive at once */
	unsigned long grown;	/* threads started past nthreads */
};

struct tpool *tpool_new(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
			unsigned nthreads);
void tpool_set_limits(struct tpool *pool, const struct tpool_limits *l);
void tpool_submit(struct tpool *pool, struct tpool_job *job);
/*
 * The lane called name (found, or made), with a reference for the
 * caller, which it gives back with tpool_lane_put; cap (at least 1)
 * becomes its cap, so a reload's value applies from the next caller on.
 * NULL when out of memory (the caller may use the default lane).  Loop
 * thread only; a lane may outlive its pool's talloc object (a tree that
 * goes after the worker's pool in a teardown).
 */
struct tpool_lane *tpool_lane_get(struct tpool *pool, const char *name,
				  unsigned cap);
void tpool_lane_put(struct tpool_lane *lane);
/*
 * Run fn(arg) with this thread's effective uid 0, then go back to the
 * job's user.  Only for the writes Linux keeps to CAP_SYS_ADMIN that
 * smbd makes on the user's behalf after its own check (the
 * security.NTACL xattr); fn must do nothing else.  Returns fn's result,
 * or -errno when root could not be had.  Never returns still root.
 */
int tpool_as_root(int (*fn)(void *arg), void *arg);
/*
 * Run fn(arg) on the calling thread (which runs as root: the loop
 * thread) with c's credentials for this thread only, then back to root
 * with the groups it had.  For what must be done as the user outside the
 * pool: registering the user's credentials with the ring
 * (ev_personality_register).  fn's result, or -errno when c could not be
 * taken (fn not run); aborts rather than go on as the user.
 */
int tpool_run_as(const struct tpool_cred *c, int (*fn)(void *arg), void *arg);
/* The effective uid the calling thread runs as: a pool thread's is the
 * one it switched to for its job, known without a geteuid() call (which
 * CREATE's max access asked for on every open). */
uid_t tpool_thread_euid(void);
/* Let the pool's threads run on the CPUs of set (the caller's own thread
 * keeps its affinity): a worker pinned to one CPU for its loop lets its
 * pool's heavy jobs use the others.  Threads started later get it too.
 * False when the kernel refused. */
bool tpool_set_affinity(struct tpool *pool, const cpu_set_t *set);
/* Jobs submitted and not yet done. */
unsigned tpool_pending(const struct tpool *pool);
void tpool_get_stats(struct tpool *pool, struct tpool_stats *out);

#endif
