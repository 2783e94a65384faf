/*
 * Thread pool: see tpool.h.  One queue, a mutex and a condition variable
 * for the pool threads; finished jobs go on a lock-free stack and an
 * eventfd wakes the loop, which runs their done callbacks.
 *
 * The hand-off is on every pooled request's path, so it is kept to the
 * system calls it cannot do without (measured under nbench: about 3.7
 * futex calls per job before).  The condition variable is signalled
 * after the mutex is dropped, so the woken thread does not at once block
 * on the mutex its waker still holds (a futex wait and wake more); the
 * finished stack takes no lock, so a pool thread never contends with the
 * loop's submit for it; and the eventfd is written only by the first
 * completion after the loop last looked, not by each one.
 */
#include "lib/tpool.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tpool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct tpool_job *queue, *queue_tail;
	/* Done jobs, newest first: pushed by pool threads, taken whole by
	 * the loop (one consumer that takes everything: no ABA). */
	_Atomic(struct tpool_job *) finished;
	/* An eventfd write is on its way and the loop has not yet looked. */
	atomic_bool notified;
	int efd;
	unsigned pending;
	unsigned nthreads;
	pthread_t *threads;
	bool stop;
};

/* Per-thread credentials currently in force, to skip needless switches. */
static __thread bool cred_valid;
static __thread uid_t cred_uid;
static __thread gid_t cred_gid;
static __thread size_t cred_ngroups;
static __thread gid_t cred_groups[64];

static bool cred_same(const struct tpool_cred *c)
{
	return cred_valid && cred_uid == c->uid && cred_gid == c->gid &&
	       cred_ngroups == c->ngroups &&
	       (c->ngroups == 0 ||
		memcmp(cred_groups, c->groups, c->ngroups * sizeof(gid_t)) == 0);
}

/*
 * Become the user for this thread only.  Back to root first (the saved
 * uid is 0), then groups, gid, uid.  On failure the thread is left as
 * root with no job run as the wrong user: the job sees errno.
 */
static int cred_switch(const struct tpool_cred *c)
{
	size_t n = c->ngroups > 64 ? 64 : c->ngroups;

	if (cred_same(c)) {
		return 0;
	}
	cred_valid = false;
	if (syscall(SYS_setresuid, -1, 0, -1) != 0 ||
	    syscall(SYS_setresgid, -1, 0, -1) != 0 ||
	    syscall(SYS_setgroups, n, c->groups) != 0 ||
	    syscall(SYS_setresgid, -1, c->gid, -1) != 0 ||
	    syscall(SYS_setresuid, -1, c->uid, -1) != 0) {
		return -errno;
	}
	cred_uid = c->uid;
	cred_gid = c->gid;
	cred_ngroups = n;
	if (n > 0) {
		memcpy(cred_groups, c->groups, n * sizeof(gid_t));
	}
	cred_valid = true;
	return 0;
}

uid_t tpool_thread_euid(void)
{
	return cred_valid ? cred_uid : geteuid();
}

int tpool_as_root(int (*fn)(void *arg), void *arg)
{
	uid_t r, e, su;
	int ret, err;

	if (getresuid(&r, &e, &su) != 0) {
		return -errno;
	}
	if (e == 0) {
		return fn(arg);
	}
	if (su != 0) {
		return -EPERM;	/* not started as root: nothing to regain */
	}
	if (syscall(SYS_setresuid, -1, 0, -1) != 0) {
		return -errno;
	}
	ret = fn(arg);
	err = errno;
	if (syscall(SYS_setresuid, -1, e, -1) != 0) {
		/* Never let a user's job go on as root. */
		DBG_ERR("cannot return to uid %u: %s\n", (unsigned)e,
			strerror(errno));
		abort();
	}
	errno = err;
	return ret;
}

int tpool_run_as(const struct tpool_cred *c, int (*fn)(void *arg), void *arg)
{
	gid_t saved[64];
	int n = (int)syscall(SYS_getgroups, 64, saved);
	int ret;

	if (n < 0 || geteuid() != 0) {
		return n < 0 ? -errno : -EPERM;
	}
	ret = cred_switch(c);
	if (ret == 0) {
		ret = fn(arg);
	}
	/* Back to root as the thread was (a pool thread's cache says
	 * nothing true about this one any more). */
	cred_valid = false;
	if (syscall(SYS_setresuid, -1, 0, -1) != 0 ||
	    syscall(SYS_setresgid, -1, 0, -1) != 0 ||
	    syscall(SYS_setgroups, (size_t)n, saved) != 0) {
		/* Never let the loop go on as a user. */
		DBG_ERR("cannot return to root: %s\n", strerror(errno));
		abort();
	}
	return ret;
}

static void tpool_finish(struct tpool *p, struct tpool_job *job)
{
	struct tpool_job *head = atomic_load(&p->finished);

	do {
		job->next = head;
	} while (!atomic_compare_exchange_weak(&p->finished, &head, job));
}

static void *tpool_thread(void *arg)
{
	struct tpool *p = arg;
	bool am_root = geteuid() == 0;

	for (;;) {
		struct tpool_job *job;
		uint64_t one = 1;

		pthread_mutex_lock(&p->lock);
		while (p->queue == NULL && !p->stop) {
			pthread_cond_wait(&p->cond, &p->lock);
		}
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		job = p->queue;
		p->queue = job->next;
		if (p->queue == NULL) {
			p->queue_tail = NULL;
		}
		pthread_mutex_unlock(&p->lock);

		job->cred_error = 0;
		if (job->use_cred && am_root) {
			job->cred_error = cred_switch(&job->cred);
		}
		if (job->cred_error == 0) {
			job->fn(job);
		} else {
			DBG_ERR("cannot switch to uid %u: %s\n",
				(unsigned)job->cred.uid,
				strerror(-job->cred_error));
		}

		tpool_finish(p, job);
		if (!atomic_exchange(&p->notified, true)) {
			(void)!write(p->efd, &one, sizeof(one));
		}
	}
}

static void tpool_completions(void *priv)
{
	struct tpool *p = priv;
	struct tpool_job *list, *rev = NULL;

	/* The loop read the eventfd already (ev_watch_eventfd).  The flag
	 * is cleared before the stack is taken: a job pushed after the take
	 * finds it clear and writes the eventfd again. */
	atomic_store(&p->notified, false);
	list = atomic_exchange(&p->finished, NULL);
	/* Oldest first, so replies keep the order jobs finished in. */
	while (list != NULL) {
		struct tpool_job *next = list->next;
		list->next = rev;
		rev = list;
		list = next;
	}
	while (rev != NULL) {
		struct tpool_job *job = rev;

		rev = rev->next;
		p->pending--;
		job->done(job);
	}
}

static int tpool_destructor(struct tpool *p)
{
	unsigned i;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++) {
		pthread_join(p->threads[i], NULL);
	}
	if (p->efd != -1) {
		close(p->efd);
	}
	return 0;
}

/*
 * Whether talloc_enable_null_tracking() is on: chunks without a parent
 * then hang off one global context, a list talloc changes without a
 * lock, so threads that allocate with a NULL parent (every job may)
 * would corrupt it.
 */
static bool tpool_null_tracked(void)
{
	char *probe = talloc_size(NULL, 1);
	bool tracked = probe != NULL && talloc_parent(probe) != NULL;

	talloc_free(probe);
	return tracked;
}

struct tpool *tpool_new(TALLOC_CTX *mem_ctx, struct ev_loop *loop,
			unsigned nthreads)
{
	struct tpool *p;
	unsigned i;

	if (tpool_null_tracked()) {
		DBG_ERR("thread pool refused: talloc null tracking is on, "
			"which is not thread-safe\n");
		return NULL;
	}
	p = talloc_zero(mem_ctx, struct tpool);
	if (p == NULL) {
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	/* blocking: the ring waits on it with a read (ev_watch_eventfd) */
	p->efd = eventfd(0, EFD_CLOEXEC);
	p->threads = talloc_array(p, pthread_t, nthreads);
	if (p->efd == -1 || p->threads == NULL ||
	    ev_watch_eventfd(loop, p, p->efd, tpool_completions, p) != 0) {
		talloc_free(p);
		return NULL;
	}
	talloc_set_destructor(p, tpool_destructor);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&p->threads[i], NULL, tpool_thread, p) !=
		    0) {
			break;
		}
		p->nthreads++;
	}
	if (p->nthreads == 0) {
		talloc_free(p);
		return NULL;
	}
	return p;
}

bool tpool_set_affinity(struct tpool *p, const cpu_set_t *set)
{
	unsigned i;
	bool ok = true;

	for (i = 0; i < p->nthreads; i++) {
		if (pthread_setaffinity_np(p->threads[i], sizeof(*set), set) !=
		    0) {
			ok = false;
		}
	}
	return ok;
}

void tpool_submit(struct tpool *p, struct tpool_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->queue_tail != NULL) {
		p->queue_tail->next = job;
	} else {
		p->queue = job;
	}
	p->queue_tail = job;
	p->pending++;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_signal(&p->cond);
}

unsigned tpool_pending(const struct tpool *p)
{
	return p->pending;
}
