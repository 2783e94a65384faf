/*
 * Requests whose work runs in the worker's thread pool (see smb2_job_run
 * in smb2_server.h), and the request's side of any such work, which the
 * ring's writes share (smb2_work.h: the work holds the state, not the
 * request, so a connection dropped meanwhile orphans it).
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/conn/smb2_work.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "lib/tpool.h"
#include "lib/log.h"

struct smb2_job {
	struct smb2_work work;
	struct tpool_job tj;
	smb2_job_fn fn;
};

static void smb2_job_work(struct tpool_job *tj)
{
	struct smb2_job *job = tj->priv;

	job->fn(job->work.state);
}

static void smb2_job_finished(struct tpool_job *tj)
{
	struct smb2_job *job = tj->priv;

	smb2_work_end(&job->work, tj->cred_error == 0);
}

/* The request went first: the work finishes as an orphan. */
static void work_abandon(void *work)
{
	struct smb2_work *w = work;

	w->req = NULL;
}

void smb2_work_begin(struct smb2_work *w, void *owner,
		     struct smb2_request *req, void *state,
		     smb2_job_done_fn done, smb2_job_orphan_fn orphan)
{
	w->req = req;
	w->owner = owner;
	w->state = talloc_steal(owner, state);
	w->done = done;
	w->orphan = orphan;
	smb2_frame_set_work(req, w, work_abandon);
}

void smb2_work_end(struct smb2_work *w, bool ran)
{
	struct smb2_request *req = w->req;
	NTSTATUS status;

	if (req == NULL) {
		if (w->orphan != NULL && ran) {
			w->orphan(w->state);
		}
		talloc_free(w->owner);
		return;
	}
	/* This work is over: a wait or job the done callback starts is
	 * the request's next one (smb2_frame_resume()). */
	smb2_frame_set_work(req, NULL, NULL);
	if (!ran) {
		status = NT_STATUS_ACCESS_DENIED;
	} else {
		/* The state moves to the request for the reply. */
		talloc_steal(req->mem_ctx, w->state);
		status = w->done(req, w->state);
	}
	talloc_free(w->owner);
	smb2_frame_resume(req, status);
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
	job->fn = fn;
	job->tj.fn = smb2_job_work;
	job->tj.done = smb2_job_finished;
	job->tj.priv = job;
	/* Its lane (lib/tpool.h): logon work has its own, a tree's work
	 * its share's, so neither can take the threads of the other. */
	job->tj.lane = daemon		   ? w->logon_lane
		       : req->tcon != NULL ? smbd_tcon_lane(w, req->tcon)
					   : NULL;
	if (daemon) {
		/* A pool thread keeps the credentials of its last job:
		 * take root's explicitly. */
		job->tj.use_cred = true;
		job->tj.cred = (struct tpool_cred){0};
	} else if (s != NULL) {
		job->tj.use_cred = true;
		if (!smbd_tree_cred(job, s, req->tcon, &job->tj.cred)) {
			talloc_free(job);
			talloc_free(state);
			return NT_STATUS_NO_MEMORY;
		}
	}
	smb2_work_begin(&job->work, job, req, state, done, orphan);
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

/* ---- work with no request to answer ------------------------------------ */

struct smbd_detached {
	struct tpool_job tj;
	smb2_job_fn fn;
	void *state;
};

static void detached_work(struct tpool_job *tj)
{
	struct smbd_detached *d = tj->priv;

	d->fn(d->state);
}

static void detached_finished(struct tpool_job *tj)
{
	talloc_free(tj->priv);
}

bool smbd_job_detached(struct smbd_worker *w, void *state, smb2_job_fn fn)
{
	struct smbd_detached *d;

	if (w->tpool == NULL) {
		talloc_free(state);
		return false;
	}
	/* Owned by the pool's side (NULL context) until finished. */
	d = talloc_zero(NULL, struct smbd_detached);
	if (d == NULL) {
		talloc_free(state);
		return false;
	}
	d->fn = fn;
	d->state = talloc_steal(d, state);
	d->tj.fn = detached_work;
	d->tj.done = detached_finished;
	d->tj.priv = d;
	/* root, explicitly: a pool thread keeps its last job's identity */
	d->tj.use_cred = true;
	d->tj.cred = (struct tpool_cred){0};
	/* logon work (a PAM session's close): the logons' lane */
	d->tj.lane = w->logon_lane;
	tpool_submit(w->tpool, &d->tj);
	return true;
}
