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

struct smbd_worker;
struct locking_db;

/* NULL (logged once) when the database cannot be opened. */
struct locking_db *smbd_locking(struct smbd_worker *w);

#endif
