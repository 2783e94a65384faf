/*
 * Unit tests: the worker's thread pool (lib/tpool.h).  Jobs run in the
 * pool's threads and finish on the loop thread; their threads allocate
 * with a NULL talloc parent while the loop thread does too, which is
 * only safe with talloc's null tracking off, so tpool_new() refuses to
 * start when it is on (it once corrupted the heap under nbench load).
 *
 * Issue 34 item 2: lanes and growth.  Jobs that hang (they wait on a
 * gate the test opens) stand for calls on a dead mount: a lane runs at
 * most its cap of them, a hung lane does not stop another lane, the
 * pool grows past its base when its threads are stuck (never past its
 * maximum, never while its calls return), the threads it added leave
 * once idle, and freeing a pool with a thread stuck in its call returns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

#include "lib/ev.h"
#include "lib/tpool.h"

#define NJOBS 64
#define NALLOCS 2000

struct fixture {
	struct ev_loop *loop;
	struct tpool_job jobs[NJOBS];
	pthread_t loop_thread;
	int done;
	bool off_loop;	/* a done callback ran off the loop's thread */
};

/* What a listing job does for each 8.3 alias: allocate, free. */
static void churn(void)
{
	int i;

	for (i = 0; i < NALLOCS; i++) {
		char *s = talloc_asprintf(NULL, "name%d", i);

		assert_non_null(s);
		talloc_free(s);
	}
}

static void job_fn(struct tpool_job *job)
{
	(void)job;
	churn();
}

static void job_done(struct tpool_job *job)
{
	struct fixture *fx = job->priv;

	if (!pthread_equal(pthread_self(), fx->loop_thread)) {
		fx->off_loop = true;
	}
	/* The loop thread allocates without a parent meanwhile, as it does
	 * for every reply it queues. */
	churn();
	if (++fx->done == NJOBS) {
		ev_loop_stop(fx->loop);
	}
}

static void refuses_null_tracking(void **state)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct ev_loop *loop = ev_loop_new(ctx, EV_BACKEND_EPOLL);

	(void)state;
	assert_non_null(loop);
	talloc_enable_null_tracking();
	assert_null(tpool_new(ctx, loop, 2));
	talloc_disable_null_tracking();
	talloc_free(ctx);
}

/* Both loops: epoll reads the wakeup eventfd when told it is readable,
 * io_uring has the ring read it (ev_watch_eventfd). */
static void jobs_run_and_finish_on(enum ev_backend backend)
{
	struct fixture *fx = talloc_zero(NULL, struct fixture);
	struct tpool *pool;
	int i;

	fx->loop = ev_loop_new(fx, backend);
	if (fx->loop == NULL && backend == EV_BACKEND_URING) {
		talloc_free(fx);
		skip();	/* no io_uring here (seccomp, old kernel) */
	}
	assert_non_null(fx->loop);
	fx->loop_thread = pthread_self();
	pool = tpool_new(fx, fx->loop, 4);
	assert_non_null(pool);
	for (i = 0; i < NJOBS; i++) {
		fx->jobs[i].fn = job_fn;
		fx->jobs[i].done = job_done;
		fx->jobs[i].priv = fx;
		tpool_submit(pool, &fx->jobs[i]);
	}
	assert_int_equal(ev_loop_run(fx->loop), 0);
	assert_int_equal(fx->done, NJOBS);
	assert_false(fx->off_loop);
	assert_int_equal(tpool_pending(pool), 0);
	talloc_free(fx);
}

static void jobs_run_and_finish_on_loop(void **state)
{
	(void)state;
	jobs_run_and_finish_on(EV_BACKEND_EPOLL);
}

static void jobs_run_and_finish_on_ring(void **state)
{
	(void)state;
	jobs_run_and_finish_on(EV_BACKEND_URING);
}

/* ---- lanes and growth --------------------------------------------- */

/* What the hanging jobs wait on; static, for a thread left stuck when
 * a test ends early must still find it. */
static struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};

static void gate_set(bool open)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

struct lanes_fx {
	struct ev_loop *loop;
	struct tpool *pool;
	atomic_int running;	/* hanging jobs in their call now */
	atomic_int max_running;
	int hung_done, quick_done;
	int quick_want;
	bool timed_out;
	struct ev_timer *deadline;
};

struct lj {
	struct tpool_job tj;
	struct lanes_fx *fx;
	bool hangs;
};

static void hang_fn(struct tpool_job *tj)
{
	struct lj *j = tj->priv;
	int now = atomic_fetch_add(&j->fx->running, 1) + 1;
	int seen = atomic_load(&j->fx->max_running);

	while (now > seen &&
	       !atomic_compare_exchange_weak(&j->fx->max_running, &seen, now)) {
	}
	pthread_mutex_lock(&gate.lock);
	while (!gate.open) {
		pthread_cond_wait(&gate.cond, &gate.lock);
	}
	pthread_mutex_unlock(&gate.lock);
	atomic_fetch_sub(&j->fx->running, 1);
}

static void quick_fn(struct tpool_job *tj)
{
	(void)tj;
}

static void lj_done(struct tpool_job *tj)
{
	struct lj *j = tj->priv;
	struct lanes_fx *fx = j->fx;

	if (j->hangs) {
		fx->hung_done++;
	} else if (++fx->quick_done == fx->quick_want) {
		ev_loop_stop(fx->loop);
	}
	talloc_free(j);
}

static struct lj *submit(struct lanes_fx *fx, struct tpool_lane *lane,
			 bool hangs)
{
	struct lj *j = talloc_zero(fx, struct lj);

	assert_non_null(j);
	j->fx = fx;
	j->hangs = hangs;
	j->tj.fn = hangs ? hang_fn : quick_fn;
	j->tj.done = lj_done;
	j->tj.priv = j;
	j->tj.lane = lane;
	tpool_submit(fx->pool, &j->tj);
	return j;
}

static void deadline_fired(void *priv)
{
	struct lanes_fx *fx = priv;

	fx->deadline = NULL;
	fx->timed_out = true;
	ev_loop_stop(fx->loop);
}

/* Run the loop until stopped or ms have passed (then timed_out). */
static void run_for(struct lanes_fx *fx, uint64_t ms)
{
	fx->timed_out = false;
	fx->deadline = ev_timer_add(fx, fx->loop, ms, deadline_fired, fx);
	assert_non_null(fx->deadline);
	assert_int_equal(ev_loop_run(fx->loop), 0);
	TALLOC_FREE(fx->deadline);
}

static struct lanes_fx *lanes_fx_new(unsigned base, unsigned max)
{
	struct lanes_fx *fx = talloc_zero(NULL, struct lanes_fx);
	struct tpool_limits lim = {.max_threads = max, .stuck_ms = 20,
				   .idle_ms = 200};

	assert_non_null(fx);
	gate_set(false);
	fx->loop = ev_loop_new(fx, EV_BACKEND_EPOLL);
	assert_non_null(fx->loop);
	fx->pool = tpool_new(fx, fx->loop, base);
	assert_non_null(fx->pool);
	tpool_set_limits(fx->pool, &lim);
	return fx;
}

/* Open the gate and let every hung job finish. */
static void lanes_fx_drain(struct lanes_fx *fx)
{
	gate_set(true);
	fx->quick_want = -1;
	while (tpool_pending(fx->pool) > 0) {
		run_for(fx, 50);
	}
}

/* A lane runs at most its cap of jobs; the rest wait in order and run
 * once the first return. */
static void lane_caps_its_jobs(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(4, 4);
	struct tpool_lane *a = tpool_lane_get(fx->pool, "a", 2);
	struct tpool_stats st;
	int i;

	(void)state;
	assert_non_null(a);
	assert_ptr_equal(tpool_lane_get(fx->pool, "a", 2), a);
	tpool_lane_put(a);
	for (i = 0; i < 6; i++) {
		submit(fx, a, true);
	}
	fx->quick_want = 1;
	submit(fx, NULL, false);	/* the default lane still runs */
	run_for(fx, 5000);
	assert_false(fx->timed_out);
	run_for(fx, 100);		/* time for a third to start, wrongly */
	assert_int_equal(atomic_load(&fx->max_running), 2);
	tpool_get_stats(fx->pool, &st);
	assert_int_equal(st.queued, 4);
	lanes_fx_drain(fx);
	assert_int_equal(fx->hung_done, 6);
	assert_int_equal(atomic_load(&fx->max_running), 2);
	tpool_lane_put(a);
	talloc_free(fx);
}

/*
 * Every base thread stuck in one lane's calls: another lane's jobs get
 * threads the pool adds (within stuck_ms plus a timer's round), and the
 * stuck lane gets no more than its cap however many it queues.
 */
static void stuck_lane_does_not_stop_others(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(2, 8);
	struct tpool_lane *a = tpool_lane_get(fx->pool, "hung", 4);
	struct tpool_lane *b = tpool_lane_get(fx->pool, "other", 4);
	struct tpool_stats st;
	struct timespec t0, t1;
	int i;

	(void)state;
	for (i = 0; i < 24; i++) {
		submit(fx, a, true);
	}
	run_for(fx, 200);	/* the base threads are stuck by now */
	fx->quick_want = 50;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 50; i++) {
		submit(fx, i % 2 ? b : NULL, false);
	}
	run_for(fx, 5000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(fx->timed_out);
	assert_int_equal(fx->quick_done, 50);
	/* well under a second: one stall check, not the hung calls */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 +
			    (t1.tv_nsec - t0.tv_nsec) / 1000000 <
		    1000);
	assert_int_equal(atomic_load(&fx->max_running), 4);
	tpool_get_stats(fx->pool, &st);
	assert_true(st.threads > 4 && st.threads <= 8);
	assert_int_equal(st.stuck, 4);
	assert_int_equal(st.queued, 20);
	lanes_fx_drain(fx);
	assert_int_equal(fx->hung_done, 24);
	tpool_lane_put(a);
	tpool_lane_put(b);
	talloc_free(fx);
}

/* A job that finds every thread stuck already gets a new thread at
 * once, not after a timer's stuck_ms: the second client on a hung mount
 * waits no more than the first did. */
static void grows_at_once_when_all_stuck(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(2, 8);
	struct tpool_limits lim = {.stuck_ms = 400};
	struct timespec t0, t1;
	int i;

	(void)state;
	tpool_set_limits(fx->pool, &lim);
	for (i = 0; i < 2; i++) {
		submit(fx, NULL, true);
	}
	run_for(fx, 700);	/* both threads stuck past stuck_ms */
	assert_int_equal(atomic_load(&fx->running), 2);
	fx->quick_want = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	submit(fx, NULL, false);
	run_for(fx, 5000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(fx->timed_out);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 +
			    (t1.tv_nsec - t0.tv_nsec) / 1000000 <
		    200);
	lanes_fx_drain(fx);
	talloc_free(fx);
}

/* Growth stops at the maximum; the added threads leave once idle. */
static void grows_to_max_then_shrinks(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(2, 5);
	struct tpool_stats st;
	int i;

	(void)state;
	for (i = 0; i < 12; i++) {
		submit(fx, NULL, true);
	}
	run_for(fx, 600);
	tpool_get_stats(fx->pool, &st);
	assert_int_equal(st.threads, 5);
	assert_int_equal(st.peak, 5);
	assert_int_equal(st.grown, 3);
	assert_int_equal(atomic_load(&fx->max_running), 5);
	lanes_fx_drain(fx);
	assert_int_equal(fx->hung_done, 12);
	/* idle_ms is 200: the three extra threads go */
	for (i = 0; i < 40; i++) {
		tpool_get_stats(fx->pool, &st);
		if (st.threads == 2) {
			break;
		}
		usleep(50 * 1000);
	}
	assert_int_equal(st.threads, 2);
	talloc_free(fx);
}

/* Calls that return keep the pool at its base, however many queue: the
 * hot path does not grow it. */
static void fast_jobs_do_not_grow(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(2, 16);
	struct tpool_stats st;
	int i;

	(void)state;
	fx->quick_want = 20000;
	for (i = 0; i < 20000; i++) {
		submit(fx, NULL, false);
	}
	run_for(fx, 20000);
	assert_false(fx->timed_out);
	tpool_get_stats(fx->pool, &st);
	assert_int_equal(st.peak, 2);
	assert_int_equal(st.grown, 0);
	talloc_free(fx);
}

/* Freeing the pool with a thread in a call that does not return comes
 * back (after its bounded wait); the thread finishes later, alone, and
 * a lane given back after the pool went is fine. */
static void free_with_stuck_thread(void **state)
{
	struct lanes_fx *fx = lanes_fx_new(1, 1);
	struct tpool_lane *a = tpool_lane_get(fx->pool, "a", 1);
	struct timespec t0, t1;
	struct lj *stuck;
	int i;

	(void)state;
	/* The pool owns a job until its done callback, which never runs
	 * once the pool is gone: like the server's jobs, this one is then
	 * nobody's (its thread still writes to it as it finishes). */
	stuck = submit(fx, a, true);
	talloc_steal(NULL, stuck);
	for (i = 0; i < 100 && atomic_load(&fx->running) == 0; i++) {
		usleep(10 * 1000);
	}
	assert_int_equal(atomic_load(&fx->running), 1);
	submit(fx, a, true);	/* never runs */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	talloc_free(fx->pool);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 3);
	tpool_lane_put(a);
	gate_set(true);
	for (i = 0; i < 100 && atomic_load(&fx->running) != 0; i++) {
		usleep(10 * 1000);
	}
	assert_int_equal(atomic_load(&fx->running), 0);
	/* fx is the stuck job's, which the thread reads no more once out
	 * of its call; the job itself stays (leaked, as said) */
	talloc_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refuses_null_tracking),
		cmocka_unit_test(jobs_run_and_finish_on_loop),
		cmocka_unit_test(jobs_run_and_finish_on_ring),
		cmocka_unit_test(lane_caps_its_jobs),
		cmocka_unit_test(stuck_lane_does_not_stop_others),
		cmocka_unit_test(grows_at_once_when_all_stuck),
		cmocka_unit_test(grows_to_max_then_shrinks),
		cmocka_unit_test(fast_jobs_do_not_grow),
		cmocka_unit_test(free_with_stuck_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
