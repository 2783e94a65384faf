/*
 * The clustered backend of the locking tables (`clustering = yes`): the
 * same records, kept in volatile CTDB databases (locking/ctdb/).  A change
 * locks the record's chain in this node's copy after migrating the record
 * here; a read looks where the record lives.  Only the records whose
 * current copy is on this node are walked (smbstatus, the dead-worker
 * cleanup): a record follows the node that last changed it.
 */
#include "locking/locking_private.h"
#include "locking/ctdb/ctdb_conn.h"
#include "locking/ctdb/ctdb_db.h"
#include "lib/log.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* The databases' names in the cluster: our own record format, so not
 * Samba's locking.tdb/brlock.tdb. */
#define CTDB_SHARE_DB "smbd_share_modes.tdb"
#define CTDB_BRL_DB "smbd_brlock.tdb"

struct read_state {
	locking_read_fn fn;
	void *priv;
};

static NTSTATUS read_adapter(const uint8_t *data, size_t len, void *priv)
{
	struct read_state *rs = priv;

	return rs->fn(data, len, rs->priv);
}

static NTSTATUS ctdb_read(struct locking_table *t, TDB_DATA key,
			  locking_read_fn fn, void *priv)
{
	struct read_state rs = {.fn = fn, .priv = priv};

	return ctdb_db_parse(t->cdb, key, read_adapter, &rs);
}

struct modify_state {
	locking_modify_fn fn;
	void *priv;
	TALLOC_CTX *tmp;
	enum locking_action action;
	uint8_t *new_buf;
	size_t new_len;
};

static NTSTATUS modify_adapter(const uint8_t *data, size_t len, void *priv)
{
	struct modify_state *ms = priv;

	return locking_run_modify(ms->fn, ms->priv, ms->tmp,
				  len > 0 ? data : NULL, len, &ms->action,
				  &ms->new_buf, &ms->new_len);
}

/* Under the chain lock: the callback's decision, kept with the header. */
static NTSTATUS apply_locked(struct locking_table *t, TDB_DATA key,
			     const struct ctdb_ltdb_hdr *hdr,
			     struct modify_state *ms, NTSTATUS status)
{
	if (NT_STATUS_IS_ERR(status)) {
		return status;
	}
	switch (ms->action) {
	case LOCKING_STORE:
		if (!NT_STATUS_IS_OK(ctdb_db_store_locked(
			    t->cdb, key, hdr, ms->new_buf, ms->new_len))) {
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_DELETE:
		/* A bare header: ctdbd's vacuuming removes it everywhere. */
		if (!NT_STATUS_IS_OK(ctdb_db_store_locked(t->cdb, key, hdr,
							  NULL, 0))) {
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_KEEP:
		break;
	}
	return status;
}

static NTSTATUS ctdb_modify(struct locking_table *t, TDB_DATA key,
			    locking_modify_fn fn, void *priv)
{
	struct modify_state ms = {.fn = fn, .priv = priv};
	struct ctdb_ltdb_hdr hdr;
	NTSTATUS status;

	ms.tmp = talloc_new(NULL);
	if (ms.tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ctdb_db_lock(t->cdb, key, &hdr);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(ms.tmp);
		return LOCKING_STATUS_DB_ERROR;
	}
	status = ctdb_db_parse_locked(t->cdb, key, modify_adapter, &ms);
	status = apply_locked(t, key, &hdr, &ms, status);
	ctdb_db_unlock(t->cdb, key);
	talloc_free(ms.tmp);
	return status;
}

struct walk_state {
	struct locking_table *t;
	locking_walk_fn fn;
	locking_modify_fn mfn;
	void *priv;
};

static int walk_adapter(TDB_DATA key, const struct ctdb_ltdb_hdr *h,
			const uint8_t *data, size_t len, void *priv)
{
	struct walk_state *ws = priv;

	return ws->fn(key.dptr, key.dsize, data, len, ws->priv);
}

static int ctdb_walk(struct locking_table *t, locking_walk_fn fn, void *priv)
{
	struct walk_state ws = {.t = t, .fn = fn, .priv = priv};

	return ctdb_db_walk(t->cdb, false, walk_adapter, &ws);
}

static int edit_adapter(TDB_DATA key, const struct ctdb_ltdb_hdr *h,
			const uint8_t *data, size_t len, void *priv)
{
	struct walk_state *ws = priv;
	struct modify_state ms = {.fn = ws->mfn, .priv = ws->priv};
	NTSTATUS status;

	ms.tmp = talloc_new(NULL);
	if (ms.tmp == NULL) {
		return 0;
	}
	status = modify_adapter(data, len, &ms);
	(void)apply_locked(ws->t, key, h, &ms, status);
	talloc_free(ms.tmp);
	return 0;
}

static int ctdb_edit_all(struct locking_table *t, locking_modify_fn fn,
			 void *priv)
{
	struct walk_state ws = {.t = t, .mfn = fn, .priv = priv};

	return ctdb_db_walk(t->cdb, true, edit_adapter, &ws);
}

static NTSTATUS ctdb_reopen(struct locking_table *t)
{
	return ctdb_db_reopen(t->cdb);
}

static const struct locking_backend ctdb_backend = {
	.read = ctdb_read,
	.modify = ctdb_modify,
	.walk = ctdb_walk,
	.edit_all = ctdb_edit_all,
	.reopen = ctdb_reopen,
};

static struct locking_table *ctdb_table(struct locking_db *db,
					const char *name, unsigned warn_ms)
{
	struct locking_table *t = talloc_zero(db, struct locking_table);

	if (t == NULL) {
		return NULL;
	}
	t->ops = &ctdb_backend;
	t->name = name;
	if (!NT_STATUS_IS_OK(ctdb_db_attach(t, db->ctdb, name, false,
					    &t->cdb))) {
		talloc_free(t);
		return NULL;
	}
	ctdb_db_set_warn_ms(t->cdb, warn_ms);
	return t;
}

NTSTATUS locking_ctdb_connect(struct locking_db *db,
			      const struct locking_cluster_opts *opts)
{
	NTSTATUS status;

	status = ctdb_conn_open(db, opts->socket, opts->timeout_ms,
				&db->ctdb);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (ctdb_conn_pnn(db->ctdb) >= (1u << (32 - LOCKING_PID_NODE_SHIFT)) -
					       1) {
		DBG_ERR("node number %u is too large\n",
			(unsigned)ctdb_conn_pnn(db->ctdb));
		return NT_STATUS_INVALID_PARAMETER;
	}
	db->owner_tag = (ctdb_conn_pnn(db->ctdb) + 1)
			<< LOCKING_PID_NODE_SHIFT;
	db->share = ctdb_table(db, CTDB_SHARE_DB, opts->warn_ms);
	db->brl = ctdb_table(db, CTDB_BRL_DB, opts->warn_ms);
	if (db->share == NULL || db->brl == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	DBG_NOTICE("clustered locking database: node %u through %s\n",
		   (unsigned)ctdb_conn_pnn(db->ctdb), opts->socket);
	return NT_STATUS_OK;
}

NTSTATUS locking_ctdb_reopen(struct locking_db *db)
{
	return ctdb_conn_reconnect(db->ctdb);
}
