/*
 * Opening the locking database and the two record access paths
 * (locking_private.h), plus the dead-worker cleanup.
 *
 * Why these tdb flags: TDB_MUTEX_LOCKING puts a robust process-shared
 * mutex on every hash chain, so taking a chain is a futex, not an fcntl
 * lock (the "cheap locking for the DB" of DESIGN.md), and a worker killed
 * while holding one cannot wedge the others: the next locker gets
 * EOWNERDEAD and tdb marks the mutex consistent.  tdb only allows mutexes
 * together with TDB_CLEAR_IF_FIRST (the data never outlives the daemon)
 * and the newer hash (TDB_INCOMPATIBLE_HASH).  TDB_VOLATILE keeps a few
 * dead records per chain for reuse, since records are rewritten on every
 * open, close, lock and unlock.  Without robust mutexes (checked once per
 * process) the same files use fcntl chain locks.
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* Prime hash sizes: share modes and locks of many open files spread
 * over many chains, so workers rarely wait on the same mutex. */
#define LOCKING_HASH_SIZE 10007

static void locking_tdb_log(struct tdb_context *tdb,
			    enum tdb_debug_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void locking_tdb_log(struct tdb_context *tdb,
			    enum tdb_debug_level level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int lvl;

	switch (level) {
	case TDB_DEBUG_FATAL:
		lvl = LOG_ERR;
		break;
	case TDB_DEBUG_ERROR:
		lvl = LOG_WARNING;
		break;
	case TDB_DEBUG_WARNING:
		lvl = LOG_NOTICE;
		break;
	default:
		lvl = LOG_DEBUG;
		break;
	}
	if (lvl > log_class_level[LOG_CLASS_TDB]) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_msg(LOG_CLASS_TDB, lvl, "tdb", "%s: %s", tdb_name(tdb), line);
}

static int locking_db_destructor(struct locking_db *db)
{
	if (db->share != NULL) {
		tdb_close(db->share);
		db->share = NULL;
	}
	if (db->brl != NULL) {
		tdb_close(db->brl);
		db->brl = NULL;
	}
	if (db->status != NULL) {
		tdb_close(db->status);
		db->status = NULL;
	}
	return 0;
}

static struct tdb_context *locking_tdb_open(const char *path, bool mutexes)
{
	static const struct tdb_logging_context log_ctx = {
		.log_fn = locking_tdb_log,
	};
	int flags = TDB_CLEAR_IF_FIRST | TDB_INCOMPATIBLE_HASH | TDB_VOLATILE;

	if (mutexes) {
		flags |= TDB_MUTEX_LOCKING;
	}
	return tdb_open_ex(path, LOCKING_HASH_SIZE, flags,
			   O_RDWR | O_CREAT | O_CLOEXEC, 0644, &log_ctx, NULL);
}

NTSTATUS locking_db_open(TALLOC_CTX *mem_ctx, const char *lock_dir,
			 bool master, struct locking_db **out)
{
	struct locking_db *db;

	*out = NULL;
	if (lock_dir == NULL || *lock_dir == '\0') {
		return NT_STATUS_INVALID_PARAMETER;
	}
	db = talloc_zero(mem_ctx, struct locking_db);
	if (db == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	db->share_path = talloc_asprintf(db, "%s/smbd_share_modes.tdb",
					 lock_dir);
	db->brl_path = talloc_asprintf(db, "%s/smbd_brlock.tdb", lock_dir);
	db->status_path = talloc_asprintf(db, "%s/smbd_status.tdb", lock_dir);
	if (db->share_path == NULL || db->brl_path == NULL ||
	    db->status_path == NULL) {
		talloc_free(db);
		return NT_STATUS_NO_MEMORY;
	}
	if (mkdir(lock_dir, 0755) != 0 && errno != EEXIST) {
		DBG_ERR("cannot create lock directory %s: %s\n", lock_dir,
			strerror(errno));
	}
	/* Cached by tdb after the first call (it forks a test child). */
	db->mutexes = tdb_runtime_check_for_robust_mutexes();
	talloc_set_destructor(db, locking_db_destructor);
	db->share = locking_tdb_open(db->share_path, db->mutexes);
	db->brl = locking_tdb_open(db->brl_path, db->mutexes);
	if (db->share == NULL || db->brl == NULL) {
		DBG_ERR("cannot open %s / %s: %s\n", db->share_path,
			db->brl_path, strerror(errno));
		talloc_free(db);
		return LOCKING_STATUS_DB_ERROR;
	}
	/* smbstatus's view only: the server works without it. */
	db->status = locking_tdb_open(db->status_path, db->mutexes);
	if (db->status == NULL) {
		DBG_WARNING("cannot open %s: %s (smbstatus will not list "
			    "sessions)\n", db->status_path, strerror(errno));
	}
	DBG_INFO("%s locking database in %s (%s)\n",
		 master ? "created" : "opened", lock_dir,
		 db->mutexes ? "robust mutexes" : "fcntl locks");
	*out = db;
	return NT_STATUS_OK;
}

NTSTATUS locking_db_reopen(struct locking_db *db)
{
	/* tdb_reopen frees the context when it fails. */
	if (db->share != NULL && tdb_reopen(db->share) != 0) {
		db->share = NULL;
	}
	if (db->brl != NULL && tdb_reopen(db->brl) != 0) {
		db->brl = NULL;
	}
	if (db->status != NULL && tdb_reopen(db->status) != 0) {
		db->status = NULL; /* optional: smbstatus loses sessions */
	}
	if (db->share == NULL || db->brl == NULL) {
		DBG_ERR("cannot reopen the locking database: %s\n",
			strerror(errno));
		return LOCKING_STATUS_DB_ERROR;
	}
	return NT_STATUS_OK;
}

bool locking_db_uses_mutexes(const struct locking_db *db)
{
	return db->mutexes;
}

/* ---- record access ---- */

struct locking_parse_state {
	locking_read_fn fn;
	locking_modify_fn mfn;
	void *priv;
	TALLOC_CTX *tmp;
	enum locking_action action;
	uint8_t *new_buf;
	size_t new_len;
	NTSTATUS status;
};

static int locking_read_parser(TDB_DATA key, TDB_DATA data, void *private_data)
{
	struct locking_parse_state *st = private_data;

	st->status = st->fn(data.dptr, data.dsize, st->priv);
	return 0;
}

NTSTATUS locking_read(struct tdb_context *tdb, const struct file_key *k,
		      locking_read_fn fn, void *priv)
{
	struct locking_parse_state st = {.fn = fn, .priv = priv};
	uint8_t kbuf[LOCKING_KEY_LEN];

	if (tdb == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	if (tdb_parse_record(tdb, locking_key(k, kbuf), locking_read_parser,
			     &st) != 0) {
		if (tdb_error(tdb) == TDB_ERR_NOEXIST) {
			return NT_STATUS_NOT_FOUND;
		}
		DBG_ERR("%s: %s\n", tdb_name(tdb), tdb_errorstr(tdb));
		return LOCKING_STATUS_DB_ERROR;
	}
	return st.status;
}

static int locking_modify_parser(TDB_DATA key, TDB_DATA data,
				 void *private_data)
{
	struct locking_parse_state *st = private_data;

	st->status = st->mfn(st->tmp, data.dptr, data.dsize, &st->action,
			     &st->new_buf, &st->new_len, st->priv);
	return 0;
}

/* With the chain locked: run the callback on the record (or none). */
static NTSTATUS locking_modify_locked(struct tdb_context *tdb, TDB_DATA key,
				      struct locking_parse_state *st)
{
	TDB_DATA data;

	if (tdb_parse_record(tdb, key, locking_modify_parser, st) != 0) {
		if (tdb_error(tdb) != TDB_ERR_NOEXIST) {
			DBG_ERR("%s: %s\n", tdb_name(tdb), tdb_errorstr(tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		st->status = st->mfn(st->tmp, NULL, 0, &st->action,
				     &st->new_buf, &st->new_len, st->priv);
	}
	if (NT_STATUS_IS_ERR(st->status)) {
		return st->status;
	}
	switch (st->action) {
	case LOCKING_STORE:
		data.dptr = st->new_buf;
		data.dsize = st->new_len;
		if (tdb_store(tdb, key, data, TDB_REPLACE) != 0) {
			DBG_ERR("%s: store: %s\n", tdb_name(tdb),
				tdb_errorstr(tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_DELETE:
		if (tdb_delete(tdb, key) != 0 &&
		    tdb_error(tdb) != TDB_ERR_NOEXIST) {
			DBG_ERR("%s: delete: %s\n", tdb_name(tdb),
				tdb_errorstr(tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_KEEP:
		break;
	}
	return st->status;
}

NTSTATUS locking_modify(struct tdb_context *tdb, const struct file_key *k,
			locking_modify_fn fn, void *priv)
{
	struct locking_parse_state st = {
		.mfn = fn, .priv = priv, .action = LOCKING_KEEP,
	};
	uint8_t kbuf[LOCKING_KEY_LEN];
	TDB_DATA key = locking_key(k, kbuf);
	NTSTATUS status;

	if (tdb == NULL) {
		return LOCKING_STATUS_DB_ERROR;
	}
	st.tmp = talloc_new(NULL);
	if (st.tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (tdb_chainlock(tdb, key) != 0) {
		DBG_ERR("%s: chainlock: %s\n", tdb_name(tdb),
			tdb_errorstr(tdb));
		talloc_free(st.tmp);
		return LOCKING_STATUS_DB_ERROR;
	}
	status = locking_modify_locked(tdb, key, &st);
	tdb_chainunlock(tdb, key);
	talloc_free(st.tmp);
	return status;
}

/* ---- a dead worker's entries ---- */

struct cleanup_state {
	uint32_t pid;
	unsigned dropped;
};

static int cleanup_share_fn(struct tdb_context *tdb, TDB_DATA key,
			    TDB_DATA data, void *private_data)
{
	struct cleanup_state *cs = private_data;
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct share_mode_rec r;
	uint32_t i, n = 0;
	uint8_t *buf;
	size_t len;

	if (tmp == NULL) {
		return 0;
	}
	if (!NT_STATUS_IS_OK(share_mode_rec_decode(tmp, data.dptr, data.dsize,
						   &r))) {
		DBG_ERR("dropping an unreadable share-mode record\n");
		tdb_delete(tdb, key);
		talloc_free(tmp);
		return 0;
	}
	for (i = 0; i < r.num; i++) {
		if (r.e[i].pid != cs->pid) {
			r.e[n++] = r.e[i];
		}
	}
	cs->dropped += r.num - n;
	if (n == 0) {
		tdb_delete(tdb, key);
	} else if (n != r.num) {
		r.num = n;
		if (NT_STATUS_IS_OK(share_mode_rec_encode(tmp, &r, &buf,
							  &len))) {
			TDB_DATA d = {.dptr = buf, .dsize = len};

			tdb_store(tdb, key, d, TDB_REPLACE);
		}
	}
	talloc_free(tmp);
	return 0;
}

static int cleanup_brl_fn(struct tdb_context *tdb, TDB_DATA key,
			  TDB_DATA data, void *private_data)
{
	struct cleanup_state *cs = private_data;
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct brl_rec r;
	uint32_t i, n = 0;
	uint8_t *buf;
	size_t len;

	if (tmp == NULL) {
		return 0;
	}
	if (!NT_STATUS_IS_OK(brl_rec_decode(tmp, data.dptr, data.dsize,
					    &r))) {
		DBG_ERR("dropping an unreadable byte-range lock record\n");
		tdb_delete(tdb, key);
		talloc_free(tmp);
		return 0;
	}
	for (i = 0; i < r.num; i++) {
		if (r.e[i].pid != cs->pid) {
			r.e[n++] = r.e[i];
		}
	}
	cs->dropped += r.num - n;
	if (n == 0) {
		tdb_delete(tdb, key);
	} else if (n != r.num) {
		r.num = n;
		if (NT_STATUS_IS_OK(brl_rec_encode(tmp, &r, &buf, &len))) {
			TDB_DATA d = {.dptr = buf, .dsize = len};

			tdb_store(tdb, key, d, TDB_REPLACE);
		}
	}
	talloc_free(tmp);
	return 0;
}

void locking_cleanup_pid(struct locking_db *db, uint32_t pid)
{
	struct cleanup_state cs = {.pid = pid};

	/* A write traverse: each record's chain is locked while the
	 * callback rewrites or deletes it. */
	if (db->share != NULL &&
	    tdb_traverse(db->share, cleanup_share_fn, &cs) < 0) {
		DBG_ERR("traverse of %s failed\n", db->share_path);
	}
	if (db->brl != NULL && tdb_traverse(db->brl, cleanup_brl_fn, &cs) < 0) {
		DBG_ERR("traverse of %s failed\n", db->brl_path);
	}
	status_db_cleanup_pid(db, pid);
	if (cs.dropped > 0) {
		DBG_NOTICE("dropped %u share-mode and lock entries of dead "
			   "process %u\n", cs.dropped, (unsigned)pid);
	}
}
