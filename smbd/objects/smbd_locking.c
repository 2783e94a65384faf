/*
 * smbd_locking(): open the worker's locking database lazily (see
 * smbd_locking.h for why this lives apart and where it is going).
 */
#include "smbd/objects/smbd_locking.h"
#include "locking/locking.h"
#include "smbd/smbd.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/open.h"
#include "conf/loadparm.h"
#include "lib/proc.h"
#include "lib/log.h"

#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

struct locking_db *smbd_locking(struct smbd_worker *w)
{
	static bool warned;
	const char *dir;
	NTSTATUS status;

	if (w->locking != NULL) {
		return w->locking;
	}
	dir = lp_str(w->srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	status = locking_db_open(w, dir, false, &w->locking);
	if (!NT_STATUS_IS_OK(status)) {
		if (!warned) {
			DBG_ERR("cannot open the locking database in %s: "
				"%s\n", dir, nt_errstr(status));
			warned = true;
		}
		w->locking = NULL;
		return NULL;
	}
	return w->locking;
}

void smbd_open_locking_ids(const struct smbd_open *op, struct file_key *k,
			   struct open_owner *o)
{
	k->dev = op->dev;
	k->ino = op->ino;
	/* Volatile ids are unique in a worker, pids among workers (and,
	 * clustered, with their node among nodes). */
	o->pid = smbd_locking_pid(op->worker);
	o->open_id = op->fid_volatile;
}

uint32_t smbd_locking_pid(struct smbd_worker *w)
{
	struct locking_db *db = w != NULL ? smbd_locking(w) : NULL;
	uint32_t pid = (uint32_t)proc_pid();

	return db != NULL ? locking_db_owner_pid(db, pid) : pid;
}
