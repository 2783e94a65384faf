/*
 * A small per-worker thread pool for file-system calls (DESIGN.md
 * "Worker", "Identity"): the loop thread never blocks on a disk.
 *
 * A job runs job->fn in a pool thread under the job's credentials
 * (uid, gid, supplementary groups), switched with the raw setresuid/
 * setresgid/setgroups system calls, which affect only the calling thread
 * (glibc's wrappers would change every thread of the process).  Then
 * job->done runs on the loop thread.  The pool owns a job from
 * tpool_submit() until done has returned; done frees it.
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
	bool use_cred;
	struct tpool_cred cred;
	/* Set when the thread could not take the job's credentials; fn was
	 * then not run (never run a user's job as root). */
	int cred_error;
};

struct tpool *tpool_new(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
			unsigned nthreads);
void tpool_submit(struct tpool *pool, struct tpool_job *job);
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
 * pool's heavy jobs use the others.  False when the kernel refused. */
bool tpool_set_affinity(struct tpool *pool, const cpu_set_t *set);
/* Jobs submitted and not yet done. */
unsigned tpool_pending(const struct tpool *pool);

#endif
