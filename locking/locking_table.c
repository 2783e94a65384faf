/*
 * The locking tables' record access, whichever backend holds them
 * (locking_private.h): every caller goes through here to the table's
 * backend (locking_db.c: local tdb; locking_ctdb.c: CTDB).
 *
 * A callback that finds a gone owner's entry in its way answers
 * LOCKING_STATUS_STALE_OWNER (issue 34 item 11): the record is purged of
 * every gone owner's entries in a read-modify-write of its own, and the
 * callback runs again on what is left.  Each purge removes at least the
 * entry the callback saw (a dead process stays dead; a pid given to a
 * new process meanwhile reads as alive, to the purge and then to the
 * callback), so the loop ends; the bound is a guard.
 */
#include "locking/locking_private.h"
#include "lib/log.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

#define LOCKING_STALE_ROUNDS 16

/* After a callback met a gone owner: purge the record, or say why not. */
static NTSTATUS locking_stale(struct locking_table *t, TDB_DATA key,
			      unsigned round)
{
	NTSTATUS status;

	if (t->purge == NULL || round == LOCKING_STALE_ROUNDS) {
		DBG_ERR("%s: entries of gone owners stay in the way\n",
			t->name);
		return LOCKING_STATUS_DB_ERROR;
	}
	status = t->ops->modify(t, key, t->purge, t->db);
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

NTSTATUS locking_read(struct locking_table *t, const struct file_key *k,
		      locking_read_fn fn, void *priv)
{
	uint8_t kbuf[LOCKING_KEY_LEN];
	TDB_DATA key;
	NTSTATUS status;
	unsigned round;

	if (t == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	key = locking_key(k, kbuf);
	for (round = 0;; round++) {
		status = t->ops->read(t, key, fn, priv);
		if (status != LOCKING_STATUS_STALE_OWNER) {
			return status;
		}
		status = locking_stale(t, key, round);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
}

NTSTATUS locking_modify(struct locking_table *t, const struct file_key *k,
			locking_modify_fn fn, void *priv)
{
	uint8_t kbuf[LOCKING_KEY_LEN];
	TDB_DATA key;
	NTSTATUS status;
	unsigned round;

	if (t == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	key = locking_key(k, kbuf);
	for (round = 0;; round++) {
		status = t->ops->modify(t, key, fn, priv);
		if (status != LOCKING_STATUS_STALE_OWNER) {
			return status;
		}
		status = locking_stale(t, key, round);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
}

int locking_walk(struct locking_table *t, locking_walk_fn fn, void *priv)
{
	return t == NULL ? -1 : t->ops->walk(t, fn, priv);
}

int locking_edit_all(struct locking_table *t, locking_modify_fn fn,
		     void *priv)
{
	return t == NULL ? -1 : t->ops->edit_all(t, fn, priv);
}
