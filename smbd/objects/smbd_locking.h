/*
 * The worker's handle on the locking database (locking.h).
 *
 * Kept apart from locking.h because it is the one place locking/ knows
 * the worker structure: it opens the database on first use, in the
 * worker, from `lock directory`.  Meant to move to worker start (after
 * fork, with locking_db_reopen() of the master's handle) once the master
 * opens the database; callers keep calling smbd_locking().
 */
#ifndef LOCKING_SMBD_LOCKING_H
#define LOCKING_SMBD_LOCKING_H

#include <stdint.h>

struct smbd_worker;
struct smbd_open;
struct locking_db;
struct file_key;
struct open_owner;

/* NULL (logged once) when the database cannot be opened. */
struct locking_db *smbd_locking(struct smbd_worker *w);

/* The file key (dev, ino) and the owner (this worker's pid, the open's
 * FileId.Volatile) every caller must use for an open: CREATE/CLOSE for
 * share modes, LOCK, READ/WRITE and CLOSE for byte-range locks. */
/* This process's pid as the locking database's entries name it. */
uint32_t smbd_locking_pid(struct smbd_worker *w);
void smbd_open_locking_ids(const struct smbd_open *op, struct file_key *k,
			   struct open_owner *o);

#endif
