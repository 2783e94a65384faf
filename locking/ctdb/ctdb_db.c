/*
 * A clustered database through ctdbd (see ctdb_db.h).
 */
#include "locking/ctdb/ctdb_db.h"
#include "locking/ctdb/ctdb_conn.h"
#include "lib/log.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* Migrations in a row before giving up on a record another node keeps
 * taking back (each is a round trip; a real fight settles in a few). */
#define CTDB_DB_MAX_MIGRATIONS 1000

struct ctdb_db {
	struct ctdb_conn *conn;
	uint32_t db_id;
	bool persistent;
	char *name;
	char *path;
	int tdb_flags;
	struct tdb_context *tdb;
	unsigned warn_ms;
	struct timespec locked_at;
};

static int ctdb_db_destructor(struct ctdb_db *db)
{
	if (db->tdb != NULL) {
		tdb_close(db->tdb);
		db->tdb = NULL;
	}
	return 0;
}

static NTSTATUS open_local(struct ctdb_db *db)
{
	/* ctdbd created the file; its flags (mutexes, hash) must match. */
	db->tdb = tdb_open(db->path, 0, db->tdb_flags & ~TDB_CLEAR_IF_FIRST,
			   O_RDWR | O_CLOEXEC, 0);
	if (db->tdb == NULL) {
		DBG_ERR("cannot open ctdb's copy %s of %s: %s\n", db->path,
			db->name, log_syserr());
		return NT_STATUS_UNSUCCESSFUL;
	}
	return NT_STATUS_OK;
}

NTSTATUS ctdb_db_attach(TALLOC_CTX *mem_ctx, struct ctdb_conn *conn,
			const char *name, bool persistent,
			struct ctdb_db **out)
{
	struct ctdb_db *db;
	NTSTATUS status;

	*out = NULL;
	db = talloc_zero(mem_ctx, struct ctdb_db);
	if (db == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	db->conn = conn;
	db->persistent = persistent;
	db->name = talloc_strdup(db, name);
	if (db->name == NULL) {
		talloc_free(db);
		return NT_STATUS_NO_MEMORY;
	}
	talloc_set_destructor(db, ctdb_db_destructor);
	status = ctdb_conn_attach(conn, name, persistent, &db->db_id);
	if (NT_STATUS_IS_OK(status)) {
		status = ctdb_conn_db_path(conn, db->db_id, db, &db->path);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ctdb_conn_db_open_flags(conn, db->db_id,
						 &db->tdb_flags);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = open_local(db);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("cannot attach clustered database %s: %s\n", name,
			nt_errstr(status));
		talloc_free(db);
		return status;
	}
	DBG_INFO("attached %s database %s (0x%08x) at %s\n",
		 persistent ? "persistent" : "volatile", name,
		 (unsigned)db->db_id, db->path);
	*out = db;
	return NT_STATUS_OK;
}

NTSTATUS ctdb_db_reopen(struct ctdb_db *db)
{
	/* tdb_reopen() frees the context when it fails. */
	if (db->tdb != NULL && tdb_reopen(db->tdb) != 0) {
		db->tdb = NULL;
	}
	if (db->tdb == NULL) {
		return open_local(db);
	}
	return NT_STATUS_OK;
}

const char *ctdb_db_path(const struct ctdb_db *db)
{
	return db->path;
}

uint32_t ctdb_db_id(const struct ctdb_db *db)
{
	return db->db_id;
}

void ctdb_db_set_warn_ms(struct ctdb_db *db, unsigned ms)
{
	db->warn_ms = ms;
}

/* ---- volatile: lock with the current copy here ---- */

struct hdr_state {
	struct ctdb_ltdb_hdr hdr;
	bool ok;
};

static int hdr_parser(TDB_DATA key, TDB_DATA data, void *priv)
{
	struct hdr_state *hs = priv;

	hs->ok = ctdb_ltdb_hdr_pull(data.dptr, data.dsize, &hs->hdr);
	return 0;
}

/* Whether the local copy of key is the current one, for a write. */
static bool local_is_current(struct ctdb_db *db, TDB_DATA key,
			     struct ctdb_ltdb_hdr *hdr)
{
	struct hdr_state hs = {.ok = false};

	if (tdb_parse_record(db->tdb, key, hdr_parser, &hs) != 0 || !hs.ok) {
		return false;
	}
	if (hs.hdr.dmaster != ctdb_conn_pnn(db->conn) ||
	    (hs.hdr.flags & CTDB_REC_RO_FLAGS) != 0) {
		/* Read-only copies handed out must be revoked first:
		 * ctdbd does that in the migration. */
		return false;
	}
	*hdr = hs.hdr;
	return true;
}

NTSTATUS ctdb_db_lock(struct ctdb_db *db, TDB_DATA key,
		      struct ctdb_ltdb_hdr *hdr)
{
	unsigned tries;

	if (db->tdb == NULL) {
		return NT_STATUS_UNSUCCESSFUL;
	}
	for (tries = 0; tries < CTDB_DB_MAX_MIGRATIONS; tries++) {
		NTSTATUS status;

		if (tdb_chainlock(db->tdb, key) != 0) {
			DBG_ERR("%s: chainlock: %s\n", db->name,
				tdb_errorstr(db->tdb));
			return NT_STATUS_UNSUCCESSFUL;
		}
		if (local_is_current(db, key, hdr)) {
			clock_gettime(CLOCK_MONOTONIC, &db->locked_at);
			return NT_STATUS_OK;
		}
		tdb_chainunlock(db->tdb, key);
		status = ctdb_conn_call(db->conn, db->db_id,
					CTDB_IMMEDIATE_MIGRATION,
					CTDB_NULL_FUNC, key.dptr, key.dsize,
					NULL, NULL, NULL);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_ERR("%s: cannot migrate a record here: %s\n",
				db->name, nt_errstr(status));
			return status;
		}
	}
	DBG_ERR("%s: a record kept moving away (%u migrations)\n", db->name,
		tries);
	return NT_STATUS_POSSIBLE_DEADLOCK;
}

struct parse_state {
	ctdb_db_parse_fn fn;
	void *priv;
	NTSTATUS status;
	bool need_current;	/* a lock-free read: only a current copy */
	uint32_t pnn;
	bool used;
};

static int data_parser(TDB_DATA key, TDB_DATA data, void *priv)
{
	struct parse_state *ps = priv;
	struct ctdb_ltdb_hdr h;

	if (!ctdb_ltdb_hdr_pull(data.dptr, data.dsize, &h)) {
		ps->status = NT_STATUS_INTERNAL_DB_CORRUPTION;
		ps->used = true;
		return 0;
	}
	if (ps->need_current && (h.dmaster != ps->pnn)) {
		return 0;
	}
	ps->used = true;
	if (data.dsize == CTDB_LTDB_HDR_LEN) {
		ps->status = NT_STATUS_NOT_FOUND;
		return 0;
	}
	ps->status = ps->fn(data.dptr + CTDB_LTDB_HDR_LEN,
			    data.dsize - CTDB_LTDB_HDR_LEN, ps->priv);
	return 0;
}

NTSTATUS ctdb_db_parse_locked(struct ctdb_db *db, TDB_DATA key,
			      ctdb_db_parse_fn fn, void *priv)
{
	struct parse_state ps = {.fn = fn, .priv = priv};

	if (tdb_parse_record(db->tdb, key, data_parser, &ps) != 0 ||
	    !ps.used) {
		return fn(NULL, 0, priv);
	}
	if (ps.status == NT_STATUS_NOT_FOUND) {
		return fn(NULL, 0, priv);
	}
	return ps.status;
}

NTSTATUS ctdb_db_store_locked(struct ctdb_db *db, TDB_DATA key,
			      const struct ctdb_ltdb_hdr *hdr,
			      const uint8_t *data, size_t len)
{
	uint8_t hbuf[CTDB_LTDB_HDR_LEN];
	TDB_DATA parts[2];

	ctdb_ltdb_hdr_push(hbuf, hdr);
	parts[0].dptr = hbuf;
	parts[0].dsize = sizeof(hbuf);
	parts[1].dptr = (uint8_t *)data;
	parts[1].dsize = len;
	if (tdb_storev(db->tdb, key, parts, len > 0 ? 2 : 1, TDB_REPLACE) !=
	    0) {
		DBG_ERR("%s: store: %s\n", db->name, tdb_errorstr(db->tdb));
		return NT_STATUS_UNSUCCESSFUL;
	}
	return NT_STATUS_OK;
}

void ctdb_db_unlock(struct ctdb_db *db, TDB_DATA key)
{
	tdb_chainunlock(db->tdb, key);
	if (db->warn_ms > 0) {
		struct timespec now;
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - db->locked_at.tv_sec) * 1000 +
		     (now.tv_nsec - db->locked_at.tv_nsec) / 1000000;
		if (ms >= (long)db->warn_ms) {
			DBG_WARNING("%s: a record was locked for %ld ms "
				    "(ctdb locktime warn threshold %u)\n",
				    db->name, ms, db->warn_ms);
		}
	}
}

NTSTATUS ctdb_db_parse(struct ctdb_db *db, TDB_DATA key, ctdb_db_parse_fn fn,
		       void *priv)
{
	struct parse_state ps = {
		.fn = fn, .priv = priv, .pnn = ctdb_conn_pnn(db->conn),
		.need_current = !db->persistent,
	};
	uint8_t *data = NULL;
	size_t len = 0;
	NTSTATUS status;

	if (db->tdb == NULL) {
		return NT_STATUS_UNSUCCESSFUL;
	}
	if (tdb_parse_record(db->tdb, key, data_parser, &ps) == 0 && ps.used) {
		return ps.status;
	}
	if (db->persistent) {
		return NT_STATUS_NOT_FOUND;
	}
	/* Not current here: ask where it lives, leaving it there. */
	status = ctdb_conn_call(db->conn, db->db_id, 0, CTDB_FETCH_FUNC,
				key.dptr, key.dsize, NULL, &data, &len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = len == 0 ? NT_STATUS_NOT_FOUND : fn(data, len, priv);
	talloc_free(data);
	return status;
}

/* ---- traversals ---- */

struct walk_state {
	struct ctdb_db *db;
	ctdb_db_walk_fn fn;
	void *priv;
	uint32_t pnn;
};

static int walk_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA data,
		   void *priv)
{
	struct walk_state *ws = priv;
	struct ctdb_ltdb_hdr h;

	if (!ctdb_ltdb_hdr_pull(data.dptr, data.dsize, &h) ||
	    data.dsize == CTDB_LTDB_HDR_LEN) {
		return 0;
	}
	if (!ws->db->persistent && h.dmaster != ws->pnn) {
		return 0;	/* a stale copy: the current one is elsewhere */
	}
	return ws->fn(key, &h, data.dptr + CTDB_LTDB_HDR_LEN,
		      data.dsize - CTDB_LTDB_HDR_LEN, ws->priv);
}

int ctdb_db_walk(struct ctdb_db *db, bool write, ctdb_db_walk_fn fn,
		 void *priv)
{
	struct walk_state ws = {
		.db = db, .fn = fn, .priv = priv,
		.pnn = ctdb_conn_pnn(db->conn),
	};

	if (db->tdb == NULL) {
		return -1;
	}
	return write ? tdb_traverse(db->tdb, walk_fn, &ws)
		     : tdb_traverse_read(db->tdb, walk_fn, &ws);
}

/* ---- persistent: one transaction ---- */

/* The key ctdbd and Samba keep a persistent database's sequence number
 * under (CTDB_DB_SEQNUM_KEY, with its NUL). */
static const char seqnum_key[] = "__db_sequence_number__";

static bool add_update(struct ctdb_db *db, struct ctdb_recbuf *rb,
		       TDB_DATA key, const uint8_t *data, size_t len)
{
	struct hdr_state hs = {.ok = false};

	(void)tdb_parse_record(db->tdb, key, hdr_parser, &hs);
	if (!hs.ok) {
		memset(&hs.hdr, 0, sizeof(hs.hdr));
	}
	/* What Samba's transactions write: a newer rsn, this node. */
	hs.hdr.rsn++;
	hs.hdr.dmaster = ctdb_conn_pnn(db->conn);
	hs.hdr.flags = 0;
	return ctdb_recbuf_add(rb, key.dptr, key.dsize, &hs.hdr, data, len);
}

struct seqnum_state {
	uint64_t v;
};

static NTSTATUS seqnum_fn(const uint8_t *data, size_t len, void *priv)
{
	struct seqnum_state *ss = priv;

	if (len == sizeof(uint64_t)) {
		memcpy(&ss->v, data, sizeof(ss->v));
	}
	return NT_STATUS_OK;
}

NTSTATUS ctdb_db_commit(struct ctdb_db *db, const struct ctdb_db_update *u,
			unsigned n)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	TDB_DATA skey = {.dptr = (uint8_t *)seqnum_key,
			 .dsize = sizeof(seqnum_key)};
	struct seqnum_state ss = {.v = 0};
	struct ctdb_recbuf rb;
	int32_t cstatus = -1;
	NTSTATUS status;
	unsigned i;

	if (tmp == NULL || !db->persistent || db->tdb == NULL) {
		talloc_free(tmp);
		return NT_STATUS_INVALID_PARAMETER;
	}
	(void)ctdb_db_parse(db, skey, seqnum_fn, &ss);
	ss.v++;
	if (!ctdb_recbuf_init(tmp, &rb, db->db_id)) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		if (!add_update(db, &rb, u[i].key, u[i].data, u[i].len)) {
			talloc_free(tmp);
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (!add_update(db, &rb, skey, (const uint8_t *)&ss.v,
			sizeof(ss.v))) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	status = ctdb_conn_control(db->conn, CTDB_CURRENT_NODE,
				   CTDB_CONTROL_TRANS3_COMMIT, 0, 0, rb.buf,
				   rb.len, NULL, &cstatus, NULL, NULL);
	talloc_free(tmp);
	if (NT_STATUS_IS_OK(status) && cstatus != 0) {
		DBG_ERR("%s: ctdbd refused the transaction (%d)\n", db->name,
			(int)cstatus);
		status = NT_STATUS_UNSUCCESSFUL;
	}
	return status;
}
