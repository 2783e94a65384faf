/*
 * The locking tables' record access, whichever backend holds them
 * (locking_private.h): every caller goes through here to the table's
 * backend (locking_db.c: local tdb; locking_ctdb.c: CTDB).
 */
#include "locking/locking_private.h"

NTSTATUS locking_read(struct locking_table *t, const struct file_key *k,
		      locking_read_fn fn, void *priv)
{
	uint8_t kbuf[LOCKING_KEY_LEN];

	if (t == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	return t->ops->read(t, locking_key(k, kbuf), fn, priv);
}

NTSTATUS locking_modify(struct locking_table *t, const struct file_key *k,
			locking_modify_fn fn, void *priv)
{
	uint8_t kbuf[LOCKING_KEY_LEN];

	if (t == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	return t->ops->modify(t, locking_key(k, kbuf), fn, priv);
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
