/*
 * The objects room's per-worker state (objects_worker.h): made once, at
 * the worker's start, and registered in its slot of the worker (issue 37
 * item 2).  A file of its own: the cluster's start and the handlers'
 * both call it, and neither needs the opens' code to.
 */
#include "smbd/objects/objects_worker.h"

bool smbd_objects_worker_start(struct smbd_worker *w)
{
	struct smbd_objects_worker *ow;

	if (smbd_objects_of(w) != NULL) {
		return true;
	}
	ow = talloc_zero(w, struct smbd_objects_worker);
	if (!smbd_worker_ctx_register(w, SMBD_WCTX_OBJECTS, ow)) {
		talloc_free(ow);
		return false;
	}
	return true;
}
