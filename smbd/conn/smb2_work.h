/*
 * The request's side of work that finishes later on the loop thread: a
 * pool job (smb2_job.c) or a write through the ring (smb2_ring.c).  The
 * work, not the request, holds the state: if the connection goes
 * meanwhile, only the request side goes away; orphan(state) then runs
 * when the work ends (to release what it produced), and the state is
 * freed with the work's record.  Private to smbd/conn/.
 */
#ifndef SMBD_CONN_SMB2_WORK_H
#define SMBD_CONN_SMB2_WORK_H

#include "smbd/conn/smb2_server.h"

struct smb2_work {
	struct smb2_request *req;	/* NULL once orphaned */
	void *owner;			/* the record w is in; freed at the end */
	void *state;
	smb2_job_done_fn done;
	smb2_job_orphan_fn orphan;
};

/* The work is under way: state moves to owner (a talloc object on the
 * NULL context, holding w), and the request waits for smb2_work_end. */
void smb2_work_begin(struct smb2_work *w, void *owner,
		     struct smb2_request *req, void *state,
		     smb2_job_done_fn done, smb2_job_orphan_fn orphan);

/* The work is over: done(req, state) answers the request, or, when ran
 * is false (it never ran: the pool could not take the credentials),
 * ACCESS_DENIED does; an orphan gets orphan(state) if it ran.  Frees
 * owner. */
void smb2_work_end(struct smb2_work *w, bool ran);

#endif
