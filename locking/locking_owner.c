/*
 * Whether the owner of a locking entry is gone (locking_private.h,
 * issue 34 item 11): a leaf of locking/, used by the record code where
 * an entry is in the way.
 */
#include "locking/locking_private.h"
#include "lib/log.h"
#include "lib/proc.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

bool locking_owner_gone(const struct locking_db *db, uint32_t owner)
{
	uint32_t pid = owner & LOCKING_PID_MASK;

	if ((owner & ~LOCKING_PID_MASK) != db->owner_tag ||
	    pid == (uint32_t)proc_pid()) {
		return false;	/* another node's, or our own */
	}
	if (proc_alive((pid_t)pid)) {
		return false;
	}
	DBG_NOTICE("entries of process %u, which is gone, are in the way: "
		   "dropped\n", (unsigned)pid);
	return true;
}
