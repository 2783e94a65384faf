/*
 * Unit tests: the worker's thread pool (lib/tpool.h).  Jobs run in the
 * pool's threads and finish on the loop thread; their threads allocate
 * with a NULL talloc parent while the loop thread does too, which is
 * only safe with talloc's null tracking off, so tpool_new() refuses to
 * start when it is on (it once corrupted the heap under nbench load).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <talloc.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refuses_null_tracking),
		cmocka_unit_test(jobs_run_and_finish_on_loop),
		cmocka_unit_test(jobs_run_and_finish_on_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
