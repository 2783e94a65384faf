/*
 * Requests whose work runs in the worker's thread pool (see smb2_job_run
 * in smb2_server.h).  The job holds the state, not the request: if the
 * connection is dropped while a pool thread still works on the state,
 * only the request side goes away; the orphan callback later releases
 * what the work produced (an fd, say), and the state is freed.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "lib/tpool.h"
#include "lib/log.h"

struct smb2_job {
	struct tpool_job tj;
	struct smb2_request *req;	/* NULL once orphaned */
	void *state;
	smb2_job_fn fn;
	smb2_job_done_fn done;
	smb2_job_orphan_fn orphan;
};

static void smb2_job_work(struct tpool_job *tj)
{
	struct smb2_job *job = tj->priv;

	job->fn(job->state);
}

static void smb2_job_finished(struct tpool_job *tj)
{
	struct smb2_job *job = tj->priv;
	struct smb2_request *req = job->req;
	NTSTATUS status;

	if (req == NULL) {
		if (job->orphan != NULL && tj->cred_error == 0) {
			job->orphan(job->state);
		}
		talloc_free(job);
		return;
	}
	/* This job is over: a wait or job the done callback starts is
	 * the request's next one (smb2_frame_resume()). */
	smb2_frame_set_work(req, NULL, NULL);
	if (tj->cred_error != 0) {
		status = NT_STATUS_ACCESS_DENIED;
	} else {
		/* The state moves to the request for the reply. */
		talloc_steal(req->mem_ctx, job->state);
		status = job->done(req, job->state);
	}
	talloc_free(job);
	smb2_frame_resume(req, status);
}

/* The request went first: the job finishes as an orphan. */
static void job_abandon(void *work)
{
	struct smb2_job *job = work;

	job->req = NULL;
}

static NTSTATUS job_start(struct smb2_request *req, void *state,
			  smb2_job_fn fn, smb2_job_done_fn done,
			  smb2_job_orphan_fn orphan, bool daemon)
{
	const struct smbd_session *s = daemon ? NULL : req->session;
	struct smbd_worker *w = req->conn->worker;
	struct smb2_job *job;

	if (w->tpool == NULL) {
		talloc_free(state);
		return NT_STATUS_INTERNAL_ERROR;
	}
	/* Owned by the pool's side (NULL context) until finished. */
	job = talloc_zero(NULL, struct smb2_job);
	if (job == NULL) {
		talloc_free(state);
		return NT_STATUS_NO_MEMORY;
	}
	job->req = req;
	job->state = talloc_steal(job, state);
	job->fn = fn;
	job->done = done;
	job->orphan = orphan;
	job->tj.fn = smb2_job_work;
	job->tj.done = smb2_job_finished;
	job->tj.priv = job;
	if (daemon) {
		/* A pool thread keeps the credentials of its last job:
		 * take root's explicitly. */
		job->tj.use_cred = true;
		job->tj.cred = (struct tpool_cred){0};
	} else if (s != NULL) {
		job->tj.use_cred = true;
		if (!smbd_tree_cred(job, s, req->tcon, &job->tj.cred)) {
			talloc_free(job);
			return NT_STATUS_NO_MEMORY;
		}
	}
	smb2_frame_set_work(req, job, job_abandon);
	tpool_submit(w->tpool, &job->tj);
	return SMBD_STATUS_ASYNC;
}

NTSTATUS smb2_job_run(struct smb2_request *req, void *state, smb2_job_fn fn,
		      smb2_job_done_fn done, smb2_job_orphan_fn orphan)
{
	return job_start(req, state, fn, done, orphan, false);
}

NTSTATUS smb2_job_run_daemon(struct smb2_request *req, void *state,
			     smb2_job_fn fn, smb2_job_done_fn done,
			     smb2_job_orphan_fn orphan)
{
	return job_start(req, state, fn, done, orphan, true);
}
