/*
 * Thread pool: see tpool.h.  One mutex and condition variable for the
 * pool threads, jobs queued in lanes and the lanes with runnable work on
 * a ring; finished jobs go on a lock-free stack and an eventfd wakes the
 * loop, which runs their done callbacks.
 *
 * The hand-off is on every pooled request's path, so it is kept to the
 * system calls it cannot do without (measured under nbench: about 3.7
 * futex calls per job before).  The condition variable is signalled
 * after the mutex is dropped, and only while a thread waits on it, so
 * the woken thread does not at once block on the mutex its waker still
 * holds (a futex wait and wake more); the finished stack takes no lock,
 * so a pool thread never contends with the loop's submit for it; the
 * eventfd is written only by the first completion after the loop last
 * looked, not by each one; and a thread gives back its lane's running
 * slot when it comes back for its next job, under the lock it takes for
 * that anyway.  The lanes add a few pointer moves under that lock; a
 * thread reads the coarse monotonic clock (vDSO, no system call) when
 * it starts a job, for the stall check.
 *
 * What the threads share lives in a core allocated apart from the
 * pool's talloc object and counted (the pool, each thread, each named
 * lane), so a thread stuck in its call past the pool's end, or a lane a
 * tree gives back after it, never touches freed memory.
 */
#include "lib/tpool.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TPOOL_STUCK_MS 100
#define TPOOL_IDLE_MS 2000
/* How long freeing the pool waits for calls still running. */
#define TPOOL_STOP_WAIT_MS 1000
/* Growth and stuck lanes are logged at most this often. */
#define TPOOL_LOG_EVERY_MS 10000

struct tpool_core;

struct tpool_lane {
	struct tpool_lane *next;	/* core->lanes: the named ones */
	struct tpool_lane *rnext;	/* the ready ring */
	struct tpool_core *core;
	struct tpool_job *head, *tail;	/* queued, oldest first */
	unsigned queued;
	unsigned running;
	unsigned cap;
	unsigned refs;			/* tpool_lane_get holders */
	uint64_t logged_ms;		/* its last "at its cap" line */
	bool ready;			/* on the ready ring */
	char *name;			/* NULL: the default lane */
};

struct tpool_thread {
	struct tpool_thread *prev, *next;
	struct tpool_core *core;
	pthread_t tid;
	uint64_t busy_since;		/* coarse ms; 0 while idle */
};

struct tpool_core {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* work for an idle thread */
	pthread_cond_t gone;		/* a thread exited (stop) */
	/* Lanes with a queued job and a free slot, taken in turn. */
	struct tpool_lane *ready_head, *ready_tail;
	struct tpool_lane *lanes;
	struct tpool_lane dflt;
	struct tpool_thread *threads;
	unsigned nthreads, idle, base, max;
	unsigned queued;
	unsigned stuck_ms, idle_ms;
	unsigned peak;
	unsigned long grown;
	bool stop;
	/* A stall check is on its way (the loop's timer, or asked of the
	 * loop through arm_req by a thread that saw work wait). */
	bool timer_armed;
	atomic_bool arm_req;
	unsigned refs;
	sigset_t sigmask;		/* every pool thread's */
	cpu_set_t cpus;
	bool have_cpus;
	/* Done jobs, newest first: pushed by pool threads, taken whole by
	 * the loop (one consumer that takes everything: no ABA). */
	_Atomic(struct tpool_job *) finished;
	/* An eventfd write is on its way and the loop has not yet looked. */
	atomic_bool notified;
	int efd;
};

struct tpool {
	struct tpool_core *c;
	struct ev_loop *loop;
	TALLOC_CTX *watch;		/* the eventfd's watch */
	struct ev_timer *stall_timer;
	unsigned pending;
	uint64_t logged_ms;
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

/* Coarse monotonic milliseconds, at least 1 (0 means idle). */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 +
	       1;
}

/* ---- the core and its lanes (all under core->lock) ------------------ */

static void core_unref_locked(struct tpool_core *c)
{
	if (--c->refs > 0) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	pthread_cond_destroy(&c->gone);
	if (c->efd != -1) {
		close(c->efd);
	}
	free(c);
}

static void ready_push(struct tpool_core *c, struct tpool_lane *l)
{
	l->ready = true;
	l->rnext = NULL;
	if (c->ready_tail != NULL) {
		c->ready_tail->rnext = l;
	} else {
		c->ready_head = l;
	}
	c->ready_tail = l;
}

/* A named lane nobody holds, with nothing queued or running, goes. */
static bool lane_idle_unused(const struct tpool_lane *l)
{
	return l->name != NULL && l->refs == 0 && l->queued == 0 &&
	       l->running == 0;
}

/* Free l (unused); the core's reference it held is dropped by the
 * caller, who holds the lock and drops it with core_unref_locked. */
static void lane_free_locked(struct tpool_core *c, struct tpool_lane *l)
{
	struct tpool_lane **pp;

	for (pp = &c->lanes; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	free(l->name);
	free(l);
}

/* The first job of the first ready lane, which then goes to the back
 * of the ring if it may run one more. */
static struct tpool_job *lane_take(struct tpool_core *c)
{
	struct tpool_lane *l = c->ready_head;
	struct tpool_job *job = l->head;

	c->ready_head = l->rnext;
	if (c->ready_head == NULL) {
		c->ready_tail = NULL;
	}
	l->ready = false;
	l->head = job->next;
	if (l->head == NULL) {
		l->tail = NULL;
	}
	l->queued--;
	c->queued--;
	l->running++;
	if (l->queued > 0 && l->running < l->cap) {
		ready_push(c, l);
	}
	return job;
}

/* A job of l ended: its slot is free.  True when l is to be freed. */
static bool lane_end(struct tpool_core *c, struct tpool_lane *l)
{
	l->running--;
	if (l->queued > 0 && !l->ready && l->running < l->cap) {
		ready_push(c, l);
	}
	return lane_idle_unused(l);
}

/* A job queued behind its lane's cap: the admin hears of it (at most
 * every TPOOL_LOG_EVERY_MS per lane), since a share whose calls all
 * wait there is one whose storage may hang. */
static bool lane_capped_log_due(struct tpool_lane *l)
{
	uint64_t now;

	if (l->name == NULL || l->running < l->cap) {
		return false;
	}
	now = now_ms();
	if (l->logged_ms != 0 && now - l->logged_ms < TPOOL_LOG_EVERY_MS) {
		return false;
	}
	l->logged_ms = now;
	return true;
}

static void lane_capped_log(const struct tpool_lane *l, unsigned running,
			    unsigned queued)
{
	DBG_WARNING("thread pool: %s has %u calls running, its cap, and %u "
		    "waiting\n", l->name, running, queued);
}

/* Jobs a lane on the ready ring may start now. */
static unsigned runnable_locked(const struct tpool_core *c)
{
	const struct tpool_lane *l;
	unsigned n = 0;

	for (l = c->ready_head; l != NULL; l = l->rnext) {
		/* a cap lowered since (tpool_lane_get) leaves no room */
		unsigned room = l->cap > l->running ? l->cap - l->running : 0;

		n += l->queued < room ? l->queued : room;
	}
	return n;
}

/*
 * Whether a stall check is due: work a lane would run, no idle thread,
 * room to grow, and no check on its way yet (then it is, from now).
 */
static bool stall_due_locked(struct tpool_core *c)
{
	if (c->timer_armed || c->stop || c->idle > 0 ||
	    c->ready_head == NULL || c->max <= c->base) {
		return false;
	}
	c->timer_armed = true;
	return true;
}

/* ---- the threads ---------------------------------------------------- */

/* Wake the loop (once until it looks). */
static void loop_poke(struct tpool_core *c)
{
	uint64_t one = 1;

	if (!atomic_exchange(&c->notified, true)) {
		(void)!write(c->efd, &one, sizeof(one));
	}
}

static void tpool_finish(struct tpool_core *c, struct tpool_job *job)
{
	struct tpool_job *head = atomic_load(&c->finished);

	do {
		job->next = head;
	} while (!atomic_compare_exchange_weak(&c->finished, &head, job));
	loop_poke(c);
}

static void run_job(struct tpool_job *job, bool am_root)
{
	job->cred_error = 0;
	if (job->use_cred && am_root) {
		job->cred_error = cred_switch(&job->cred);
	}
	if (job->cred_error == 0) {
		job->fn(job);
	} else {
		DBG_ERR("cannot switch to uid %u: %s\n",
			(unsigned)job->cred.uid, strerror(-job->cred_error));
	}
}

/*
 * Wait for work.  A thread beyond the base count waits at most idle_ms
 * and then leaves (false); the base threads wait for ever.
 */
static bool thread_wait(struct tpool_core *c)
{
	struct timespec end;
	int rc;

	c->idle++;
	if (c->nthreads <= c->base) {
		pthread_cond_wait(&c->cond, &c->lock);
		c->idle--;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += c->idle_ms / 1000;
	end.tv_nsec += (long)(c->idle_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	rc = pthread_cond_timedwait(&c->cond, &c->lock, &end);
	c->idle--;
	/* the caller waits again (a new deadline) after a wakeup that
	 * brought nothing, or when the others left first */
	return rc != ETIMEDOUT || c->ready_head != NULL || c->stop ||
	       c->nthreads <= c->base;
}

static void *tpool_thread(void *arg)
{
	struct tpool_thread *self = arg;
	struct tpool_core *c = self->core;
	struct tpool_lane *ended = NULL;
	bool am_root = geteuid() == 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct tpool_job *job;
		unsigned running = 0, queued = 0;
		bool more, due, capped;

		if (ended != NULL && lane_end(c, ended)) {
			lane_free_locked(c, ended);
			c->refs--;	/* the lane's; ours keeps it alive */
		}
		ended = NULL;
		self->busy_since = 0;
		while (c->ready_head == NULL && !c->stop) {
			if (!thread_wait(c)) {
				goto leave;
			}
		}
		if (c->stop) {
			break;
		}
		job = lane_take(c);
		self->busy_since = now_ms();
		/* a lane freed by a job's end has work for an idle one, or,
		 * none idle, the loop is to look at it (this very job may
		 * be one that hangs) */
		more = c->ready_head != NULL && c->idle > 0;
		due = stall_due_locked(c);
		/* this job filled its lane, and more wait behind it */
		capped = job->lane->queued > 0 &&
			 lane_capped_log_due(job->lane);
		if (capped) {
			running = job->lane->running;
			queued = job->lane->queued;
		}
		pthread_mutex_unlock(&c->lock);
		if (more) {
			pthread_cond_signal(&c->cond);
		} else if (due) {
			atomic_store(&c->arm_req, true);
			loop_poke(c);
		}
		if (capped) {
			/* the lane lives while this job runs */
			lane_capped_log(job->lane, running, queued);
		}

		ended = job->lane;	/* job is the loop's once finished */
		run_job(job, am_root);
		tpool_finish(c, job);
		pthread_mutex_lock(&c->lock);
	}
leave:
	if (self->prev != NULL) {
		self->prev->next = self->next;
	} else {
		c->threads = self->next;
	}
	if (self->next != NULL) {
		self->next->prev = self->prev;
	}
	c->nthreads--;
	pthread_cond_broadcast(&c->gone);
	free(self);
	core_unref_locked(c);
	return NULL;
}

/* One more thread (under the lock), detached, with the pool's signal
 * mask and CPUs.  False when it could not be made. */
static bool thread_start_locked(struct tpool_core *c)
{
	struct tpool_thread *t = calloc(1, sizeof(*t));
	pthread_attr_t attr;
	int rc;

	if (t == NULL || pthread_attr_init(&attr) != 0) {
		free(t);
		return false;
	}
	t->core = c;
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	(void)pthread_attr_setsigmask_np(&attr, &c->sigmask);
	if (c->have_cpus) {
		(void)pthread_attr_setaffinity_np(&attr, sizeof(c->cpus),
						  &c->cpus);
	}
	rc = pthread_create(&t->tid, &attr, tpool_thread, t);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(t);
		return false;
	}
	t->next = c->threads;
	if (t->next != NULL) {
		t->next->prev = t;
	}
	c->threads = t;
	c->nthreads++;
	c->refs++;
	if (c->nthreads > c->peak) {
		c->peak = c->nthreads;
	}
	return true;
}

static unsigned stuck_locked(const struct tpool_core *c, uint64_t now)
{
	const struct tpool_thread *t;
	unsigned n = 0;

	for (t = c->threads; t != NULL; t = t->next) {
		if (t->busy_since != 0 && now - t->busy_since > c->stuck_ms) {
			n++;
		}
	}
	return n;
}

/* ---- the loop's side ------------------------------------------------ */

static void stall_arm(struct tpool *p);

/* Growth, for the log (at most every TPOOL_LOG_EVERY_MS). */
static void log_stall_locked(struct tpool *p, unsigned stuck, unsigned added)
{
	struct tpool_core *c = p->c;
	uint64_t now = now_ms();

	if ((added > 0 || c->nthreads >= c->max) &&
	    (p->logged_ms == 0 || now - p->logged_ms >= TPOOL_LOG_EVERY_MS)) {
		p->logged_ms = now;
		LOG_AT(c->nthreads >= c->max ? LOG_WARNING : LOG_NOTICE,
		       "thread pool: %u of %u threads in calls longer than "
		       "%u ms; %u started (at most %u)\n",
		       stuck, c->nthreads - added, c->stuck_ms, added,
		       c->max);
	}
}


/*
 * Jobs wait that a lane would run and no thread is idle: threads stuck
 * in their calls are made up for, so that base threads are free to work
 * again (never more than there is work for, never past the maximum).
 * Under the lock; the threads started.
 */
static unsigned grow_locked(struct tpool *p)
{
	struct tpool_core *c = p->c;
	unsigned stuck, added = 0, healthy, want, runnable, room;

	if (c->stop || c->idle > 0 || c->ready_head == NULL) {
		return 0;
	}
	stuck = stuck_locked(c, now_ms());
	healthy = c->nthreads - stuck;
	runnable = runnable_locked(c);
	want = healthy < c->base ? c->base - healthy : 0;
	if (want > runnable) {
		want = runnable;
	}
	room = c->max > c->nthreads ? c->max - c->nthreads : 0;
	if (want > room) {
		want = room;
	}
	while (added < want && thread_start_locked(c)) {
		added++;
	}
	c->grown += added;
	if (stuck > 0) {
		log_stall_locked(p, stuck, added);
	}
	return added;
}

/* The timer: threads may have got stuck since work began to wait. */
static void stall_check(void *priv)
{
	struct tpool *p = priv;
	struct tpool_core *c = p->c;
	bool again;

	p->stall_timer = NULL;	/* freed by the loop after this */
	pthread_mutex_lock(&c->lock);
	c->timer_armed = false;
	(void)grow_locked(p);
	again = stall_due_locked(c);
	pthread_mutex_unlock(&c->lock);
	if (again) {
		stall_arm(p);
	}
}

/* The timer, once stall_due_locked said a check is due. */
static void stall_arm(struct tpool *p)
{
	if (p->stall_timer == NULL) {
		p->stall_timer = ev_timer_add(p, p->loop, p->c->stuck_ms,
					      stall_check, p);
	}
	if (p->stall_timer == NULL) {
		/* no memory for it: the next submit tries again */
		pthread_mutex_lock(&p->c->lock);
		p->c->timer_armed = false;
		pthread_mutex_unlock(&p->c->lock);
	}
}

static void tpool_completions(void *priv)
{
	struct tpool *p = priv;
	struct tpool_job *list, *rev = NULL;

	/* The loop read the eventfd already (ev_watch_eventfd).  The flag
	 * is cleared before the stack is taken: a job pushed after the take
	 * finds it clear and writes the eventfd again. */
	atomic_store(&p->c->notified, false);
	if (atomic_exchange(&p->c->arm_req, false)) {
		stall_arm(p);
	}
	list = atomic_exchange(&p->c->finished, NULL);
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
	struct tpool_core *c = p->c;
	struct tpool_lane *l, *next;
	struct timespec end;

	TALLOC_FREE(p->stall_timer);
	/* before the eventfd may be closed (the core's last reference) */
	TALLOC_FREE(p->watch);
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	/* Jobs not started never run; lanes nobody holds go now. */
	c->ready_head = c->ready_tail = NULL;
	c->queued = 0;
	c->dflt.head = c->dflt.tail = NULL;
	c->dflt.queued = 0;
	c->dflt.ready = false;
	for (l = c->lanes; l != NULL; l = next) {
		next = l->next;
		l->head = l->tail = NULL;
		l->queued = 0;
		l->ready = false;
		if (lane_idle_unused(l)) {
			lane_free_locked(c, l);
			c->refs--;
		}
	}
	pthread_cond_broadcast(&c->cond);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += TPOOL_STOP_WAIT_MS / 1000;
	while (c->nthreads > 0 &&
	       pthread_cond_timedwait(&c->gone, &c->lock, &end) == 0) {
	}
	if (c->nthreads > 0) {
		DBG_WARNING("thread pool: %u threads still in their calls are "
			    "left to finish them\n", c->nthreads);
	}
	core_unref_locked(c);
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

static struct tpool_core *core_new(unsigned nthreads)
{
	struct tpool_core *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;

	if (c == NULL) {
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_cond_init(&c->gone, &ca);
	pthread_condattr_destroy(&ca);
	c->base = nthreads;
	c->max = nthreads;
	c->stuck_ms = TPOOL_STUCK_MS;
	c->idle_ms = TPOOL_IDLE_MS;
	c->dflt.core = c;
	c->dflt.cap = nthreads;
	c->refs = 1;
	/* Every thread runs with the mask the first ones inherit from
	 * their creator, whichever thread starts it later (a job's child,
	 * the username map script, inherits it as before). */
	pthread_sigmask(SIG_SETMASK, NULL, &c->sigmask);
	/* blocking: the ring waits on it with a read (ev_watch_eventfd) */
	c->efd = eventfd(0, EFD_CLOEXEC);
	return c;
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
	if (nthreads == 0) {
		return NULL;
	}
	p = talloc_zero(mem_ctx, struct tpool);
	if (p == NULL) {
		return NULL;
	}
	p->loop = loop;
	p->c = core_new(nthreads);
	if (p->c == NULL) {
		talloc_free(p);
		return NULL;
	}
	talloc_set_destructor(p, tpool_destructor);
	p->watch = talloc_new(p);
	if (p->c->efd == -1 || p->watch == NULL ||
	    ev_watch_eventfd(loop, p->watch, p->c->efd, tpool_completions,
			     p) != 0) {
		talloc_free(p);
		return NULL;
	}
	pthread_mutex_lock(&p->c->lock);
	for (i = 0; i < nthreads; i++) {
		if (!thread_start_locked(p->c)) {
			break;
		}
	}
	i = p->c->nthreads;
	pthread_mutex_unlock(&p->c->lock);
	if (i == 0) {
		talloc_free(p);
		return NULL;
	}
	return p;
}

void tpool_set_limits(struct tpool *p, const struct tpool_limits *l)
{
	struct tpool_core *c = p->c;
	bool due;

	pthread_mutex_lock(&c->lock);
	if (l->max_threads != 0) {
		c->max = l->max_threads < c->base ? c->base : l->max_threads;
		c->dflt.cap = c->max;
	}
	if (l->stuck_ms != 0) {
		c->stuck_ms = l->stuck_ms;
	}
	if (l->idle_ms != 0) {
		c->idle_ms = l->idle_ms;
	}
	if (c->dflt.queued > 0 && !c->dflt.ready &&
	    c->dflt.running < c->dflt.cap) {
		ready_push(c, &c->dflt);
		pthread_cond_signal(&c->cond);
	}
	due = stall_due_locked(c);
	pthread_mutex_unlock(&c->lock);
	if (due) {
		stall_arm(p);
	}
}

bool tpool_set_affinity(struct tpool *p, const cpu_set_t *set)
{
	struct tpool_core *c = p->c;
	struct tpool_thread *t;
	bool ok = true;

	pthread_mutex_lock(&c->lock);
	c->cpus = *set;
	c->have_cpus = true;
	/* Listed threads have not left yet: their ids are valid. */
	for (t = c->threads; t != NULL; t = t->next) {
		if (pthread_setaffinity_np(t->tid, sizeof(*set), set) != 0) {
			ok = false;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

void tpool_submit(struct tpool *p, struct tpool_job *job)
{
	struct tpool_core *c = p->c;
	struct tpool_lane *l = job->lane != NULL ? job->lane : &c->dflt;
	unsigned running = 0, queued = 0;
	bool wake, stalled, capped;

	job->next = NULL;
	job->lane = l;
	pthread_mutex_lock(&c->lock);
	if (l->tail != NULL) {
		l->tail->next = job;
	} else {
		l->head = job;
	}
	l->tail = job;
	l->queued++;
	c->queued++;
	if (!l->ready && l->running < l->cap) {
		ready_push(c, l);
	}
	wake = c->idle > 0 && c->ready_head != NULL;
	stalled = stall_due_locked(c);
	if (stalled && grow_locked(p) > 0) {
		/* Its threads were stuck already (a hung mount, the second
		 * client on it): the job gets a new thread now rather than
		 * after a timer's stuck_ms. */
		c->timer_armed = false;
		stalled = false;
	}
	capped = lane_capped_log_due(l);
	if (capped) {
		running = l->running;
		queued = l->queued;
	}
	pthread_mutex_unlock(&c->lock);
	p->pending++;
	if (capped) {
		/* the lane lives while the job is queued */
		lane_capped_log(l, running, queued);
	}
	if (wake) {
		pthread_cond_signal(&c->cond);
	} else if (stalled) {
		stall_arm(p);
	}
}

struct tpool_lane *tpool_lane_get(struct tpool *p, const char *name,
				  unsigned cap)
{
	struct tpool_core *c = p->c;
	struct tpool_lane *l;
	bool due;

	if (cap == 0) {
		cap = 1;
	}
	pthread_mutex_lock(&c->lock);
	for (l = c->lanes; l != NULL; l = l->next) {
		if (strcmp(l->name, name) == 0) {
			break;
		}
	}
	if (l == NULL) {
		l = calloc(1, sizeof(*l));
		if (l == NULL || (l->name = strdup(name)) == NULL) {
			free(l);
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		l->core = c;
		l->next = c->lanes;
		c->lanes = l;
		c->refs++;
	}
	l->refs++;
	l->cap = cap;
	if (l->queued > 0 && !l->ready && l->running < l->cap) {
		ready_push(c, l);
		pthread_cond_signal(&c->cond);
	}
	due = stall_due_locked(c);
	pthread_mutex_unlock(&c->lock);
	if (due) {
		stall_arm(p);
	}
	return l;
}

void tpool_lane_put(struct tpool_lane *l)
{
	struct tpool_core *c;

	if (l == NULL) {
		return;
	}
	c = l->core;
	pthread_mutex_lock(&c->lock);
	l->refs--;
	if (!lane_idle_unused(l)) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	lane_free_locked(c, l);
	core_unref_locked(c);
}

unsigned tpool_pending(const struct tpool *p)
{
	return p->pending;
}

void tpool_get_stats(struct tpool *p, struct tpool_stats *out)
{
	struct tpool_core *c = p->c;

	pthread_mutex_lock(&c->lock);
	out->threads = c->nthreads;
	out->idle = c->idle;
	out->stuck = stuck_locked(c, now_ms());
	out->queued = c->queued;
	out->peak = c->peak;
	out->grown = c->grown;
	pthread_mutex_unlock(&c->lock);
}
