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
 * and the newer hash (TDB_INCOMPATIBLE_HASH).  Without robust mutexes
 * (checked once per process) the same files use fcntl chain locks.
 *
 * Dead records (issue 34 item 12).  TDB_VOLATILE makes a delete only
 * mark its record dead, for a later store in the same chain to reuse
 * without the free list's lock: a file opened and closed again, a range
 * locked and unlocked again, reuses its record (a store and delete pair
 * on one key ran 5 times faster than without, two processes at once).
 * A chain's dead records go back to the free list when a store in it
 * finds none that fits, or a delete finds five of them: at most five per
 * chain, 50,035 in all, and under churn their number levels off far
 * below that (testsuite/bench/README.md "Soak").  That pays where keys
 * come back, in the share-mode and lock tables.  The keys of smbstatus's
 * table (a session, a tree connect, an open) never come back, so there a
 * dead record only ever served a stranger that shared its chain, and the
 * dead piled up towards the bound: 15,367 after an 8-minute soak, 5.4 MiB
 * for 2 live records.  That table does without TDB_VOLATILE: a delete
 * frees at once, and the file stays the size of what is open.
 *
 * In the other two the dead still spread over the chains: distinct files
 * churned through leave about one per chain, 10,000 records (about 2 MB)
 * before the file stops growing, and a dead record that once held a big
 * record (a file with many opens) keeps its size whatever it is reused
 * for.  So the master vacuums them every LOCKING_VACUUM_SECS
 * (locking_vacuum): every chain's dead records go to the free list,
 * where tdb coalesces and splits them for any chain's stores, and the
 * file stays at what one interval's churn needs.  tdb has no call for
 * that (a write traverse skips dead records in 1.4.8), but a delete
 * purges its chain's dead records when it finds max_dead of them (tdb.h
 * tdb_set_max_dead): with max_dead 1 in the master's own handle, a store
 * and a delete of a key of its own in each chain purge the chain, and
 * with max_dead 0 a second store and delete leave nothing behind.  The
 * keys are VACUUM_KEY_LEN bytes long, so no record of ours (16-byte
 * keys) is ever taken for one, and walkers skip them.
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/file.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* Prime hash sizes: share modes and locks of many open files spread
 * over many chains, so workers rarely wait on the same mutex. */
#define LOCKING_HASH_SIZE 10007
/* tdb's dead records per chain with TDB_VOLATILE (tdb_open.c). */
#define LOCKING_MAX_DEAD 5

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

static int locking_table_destructor(struct locking_table *t)
{
	if (t->tdb != NULL) {
		tdb_close(t->tdb);
		t->tdb = NULL;
	}
	return 0;
}

static int locking_db_destructor(struct locking_db *db)
{
	if (db->status != NULL) {
		tdb_close(db->status);
		db->status = NULL;
	}
	return 0;
}

static struct tdb_context *locking_tdb_open(const char *path, bool mutexes,
					    bool volatile_)
{
	static const struct tdb_logging_context log_ctx = {
		.log_fn = locking_tdb_log,
	};
	int flags = TDB_CLEAR_IF_FIRST | TDB_INCOMPATIBLE_HASH;

	if (mutexes) {
		flags |= TDB_MUTEX_LOCKING;
	}
	if (volatile_) {
		flags |= TDB_VOLATILE;
	}
	return tdb_open_ex(path, LOCKING_HASH_SIZE, flags,
			   O_RDWR | O_CREAT | O_CLOEXEC, 0644, &log_ctx, NULL);
}

static const struct locking_backend local_backend;

/* A table in a tdb of ours (NULL when the file cannot be opened). */
static struct locking_table *local_table(struct locking_db *db,
					 const char *path, bool mutexes)
{
	struct locking_table *t = talloc_zero(db, struct locking_table);

	if (t == NULL) {
		return NULL;
	}
	t->ops = &local_backend;
	t->name = path;
	t->tdb = locking_tdb_open(path, mutexes, true);
	if (t->tdb == NULL) {
		talloc_free(t);
		return NULL;
	}
	talloc_set_destructor(t, locking_table_destructor);
	return t;
}

/* The handle with its paths and smbstatus's (always local) table. */
static NTSTATUS locking_db_new(TALLOC_CTX *mem_ctx, const char *lock_dir,
			       struct locking_db **out)
{
	struct locking_db *db;
	int ret;

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
	ret = file_mkdir(lock_dir, 0755);
	if (ret != 0 && ret != -EEXIST) {
		DBG_ERR("cannot create lock directory %s: %s\n", lock_dir,
			strerror(-ret));
	}
	/* Cached by tdb after the first call (it forks a test child). */
	db->mutexes = tdb_runtime_check_for_robust_mutexes();
	talloc_set_destructor(db, locking_db_destructor);
	/* smbstatus's view only: the server works without it. */
	db->status = locking_tdb_open(db->status_path, db->mutexes, false);
	if (db->status == NULL) {
		DBG_WARNING("cannot open %s: %s (smbstatus will not list "
			    "sessions)\n", db->status_path, log_syserr());
	}
	*out = db;
	return NT_STATUS_OK;
}

NTSTATUS locking_db_open(TALLOC_CTX *mem_ctx, const char *lock_dir,
			 bool master, struct locking_db **out)
{
	struct locking_db *db;
	NTSTATUS status = locking_db_new(mem_ctx, lock_dir, &db);

	*out = NULL;
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	db->share = local_table(db, db->share_path, db->mutexes);
	db->brl = local_table(db, db->brl_path, db->mutexes);
	if (db->share == NULL || db->brl == NULL) {
		DBG_ERR("cannot open %s / %s: %s\n", db->share_path,
			db->brl_path, log_syserr());
		talloc_free(db);
		return LOCKING_STATUS_DB_ERROR;
	}
	locking_tables_ready(db);
	DBG_INFO("%s locking database in %s (%s)\n",
		 master ? "created" : "opened", lock_dir,
		 db->mutexes ? "robust mutexes" : "fcntl locks");
	*out = db;
	return NT_STATUS_OK;
}

NTSTATUS locking_db_open_clustered(TALLOC_CTX *mem_ctx, const char *lock_dir,
				   const struct locking_cluster_opts *opts,
				   struct locking_db **out)
{
	struct locking_db *db;
	NTSTATUS status = locking_db_new(mem_ctx, lock_dir, &db);

	*out = NULL;
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = locking_ctdb_connect(db, opts);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(db);
		return status;
	}
	locking_tables_ready(db);
	*out = db;
	return NT_STATUS_OK;
}

NTSTATUS locking_db_reopen(struct locking_db *db)
{
	NTSTATUS status = NT_STATUS_OK;

	if (db->status != NULL && tdb_reopen(db->status) != 0) {
		db->status = NULL; /* optional: smbstatus loses sessions */
	}
	if (db->ctdb != NULL) {
		/* A socket of this process's own, then the tables. */
		status = locking_ctdb_reopen(db);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (!NT_STATUS_IS_OK(db->share->ops->reopen(db->share)) ||
	     !NT_STATUS_IS_OK(db->brl->ops->reopen(db->brl)))) {
		status = LOCKING_STATUS_DB_ERROR;
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("cannot reopen the locking database: %s\n",
			nt_errstr(status));
	}
	return status;
}

bool locking_db_uses_mutexes(const struct locking_db *db)
{
	return db->mutexes;
}

/* ---- the local backend ---- */

struct local_parse_state {
	locking_read_fn fn;
	locking_modify_fn mfn;
	void *priv;
	TALLOC_CTX *tmp;
	enum locking_action action;
	uint8_t *new_buf;
	size_t new_len;
	NTSTATUS status;
	bool found;
};

static int local_read_parser(TDB_DATA key, TDB_DATA data, void *private_data)
{
	struct local_parse_state *st = private_data;

	st->status = st->fn(data.dptr, data.dsize, st->priv);
	return 0;
}

static NTSTATUS local_read(struct locking_table *t, TDB_DATA key,
			   locking_read_fn fn, void *priv)
{
	struct local_parse_state st = {.fn = fn, .priv = priv};

	if (tdb_parse_record(t->tdb, key, local_read_parser, &st) != 0) {
		if (tdb_error(t->tdb) == TDB_ERR_NOEXIST) {
			return NT_STATUS_NOT_FOUND;
		}
		DBG_ERR("%s: %s\n", t->name, tdb_errorstr(t->tdb));
		return LOCKING_STATUS_DB_ERROR;
	}
	return st.status;
}

static int local_modify_parser(TDB_DATA key, TDB_DATA data,
			       void *private_data)
{
	struct local_parse_state *st = private_data;

	st->found = true;
	st->status = locking_run_modify(st->mfn, st->priv, st->tmp,
					data.dptr, data.dsize, &st->action,
					&st->new_buf, &st->new_len);
	return 0;
}

/* What the callback decided, done to the locked record. */
static NTSTATUS local_apply(struct tdb_context *tdb, const char *name,
			    TDB_DATA key, struct local_parse_state *st)
{
	TDB_DATA data;

	if (NT_STATUS_IS_ERR(st->status)) {
		return st->status;
	}
	switch (st->action) {
	case LOCKING_STORE:
		data.dptr = st->new_buf;
		data.dsize = st->new_len;
		if (tdb_store(tdb, key, data, TDB_REPLACE) != 0) {
			DBG_ERR("%s: store: %s\n", name, tdb_errorstr(tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_DELETE:
		if (tdb_delete(tdb, key) != 0 &&
		    tdb_error(tdb) != TDB_ERR_NOEXIST) {
			DBG_ERR("%s: delete: %s\n", name, tdb_errorstr(tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		break;
	case LOCKING_KEEP:
		break;
	}
	return st->status;
}

/* With the chain locked: run the callback on the record (or none). */
static NTSTATUS local_modify_locked(struct locking_table *t, TDB_DATA key,
				    struct local_parse_state *st)
{
	if (tdb_parse_record(t->tdb, key, local_modify_parser, st) != 0) {
		if (tdb_error(t->tdb) != TDB_ERR_NOEXIST) {
			DBG_ERR("%s: %s\n", t->name, tdb_errorstr(t->tdb));
			return LOCKING_STATUS_DB_ERROR;
		}
		st->status = locking_run_modify(st->mfn, st->priv, st->tmp,
						NULL, 0, &st->action,
						&st->new_buf, &st->new_len);
	}
	return local_apply(t->tdb, t->name, key, st);
}

static NTSTATUS local_modify(struct locking_table *t, TDB_DATA key,
			     locking_modify_fn fn, void *priv)
{
	struct local_parse_state st = {.mfn = fn, .priv = priv};
	NTSTATUS status;

	st.tmp = talloc_new(NULL);
	if (st.tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (tdb_chainlock(t->tdb, key) != 0) {
		DBG_ERR("%s: chainlock: %s\n", t->name,
			tdb_errorstr(t->tdb));
		talloc_free(st.tmp);
		return LOCKING_STATUS_DB_ERROR;
	}
	status = local_modify_locked(t, key, &st);
	tdb_chainunlock(t->tdb, key);
	talloc_free(st.tmp);
	return status;
}

struct local_walk_state {
	struct locking_table *t;
	locking_walk_fn fn;
	locking_modify_fn mfn;
	void *priv;
};

static int local_walk_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA data,
			 void *priv)
{
	struct local_walk_state *ws = priv;

	return ws->fn(key.dptr, key.dsize, data.dptr, data.dsize, ws->priv);
}

static int local_walk(struct locking_table *t, locking_walk_fn fn, void *priv)
{
	struct local_walk_state ws = {.t = t, .fn = fn, .priv = priv};

	return tdb_traverse_read(t->tdb, local_walk_fn, &ws);
}

static int local_edit_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA data,
			 void *priv)
{
	struct local_walk_state *ws = priv;
	struct local_parse_state st = {.mfn = ws->mfn, .priv = ws->priv};

	if (key.dsize != LOCKING_KEY_LEN) {
		return 0;	/* the vacuum's key of a chain, in passing */
	}
	st.tmp = talloc_new(NULL);
	if (st.tmp == NULL) {
		return 0;
	}
	st.status = locking_run_modify(ws->mfn, ws->priv, st.tmp, data.dptr,
				       data.dsize, &st.action, &st.new_buf,
				       &st.new_len);
	(void)local_apply(tdb, ws->t->name, key, &st);
	talloc_free(st.tmp);
	return 0;
}

static int local_edit_all(struct locking_table *t, locking_modify_fn fn,
			  void *priv)
{
	struct local_walk_state ws = {.t = t, .mfn = fn, .priv = priv};

	/* A write traverse: each record's chain is locked while the
	 * callback's store or delete runs. */
	return tdb_traverse(t->tdb, local_edit_fn, &ws);
}

/* ---- the vacuum (issue 34 item 12; see the top of this file) ---- */

#define VACUUM_KEY_LEN 20

static TDB_DATA vacuum_key(uint8_t kb[VACUUM_KEY_LEN], uint32_t n)
{
	memcpy(kb, "smbd-ng vacuum:", 15);
	kb[15] = (uint8_t)n;
	kb[16] = (uint8_t)(n >> 8);
	kb[17] = (uint8_t)(n >> 16);
	kb[18] = (uint8_t)(n >> 24);
	kb[19] = 0;
	return (TDB_DATA){.dptr = kb, .dsize = VACUUM_KEY_LEN};
}

/* For each chain the number of a key of ours that hashes to it (tdb's
 * hash for TDB_INCOMPATIBLE_HASH is Jenkins's, chain = hash % size):
 * about 100,000 hashes, once per process. */
static uint32_t *vacuum_keys(void)
{
	static uint32_t *keys;	/* kept for the process's life */
	uint8_t kb[VACUUM_KEY_LEN];
	bool *have;
	unsigned left = LOCKING_HASH_SIZE;
	uint32_t n;

	if (keys != NULL) {
		return keys;
	}
	keys = talloc_array(NULL, uint32_t, LOCKING_HASH_SIZE);
	have = talloc_zero_array(NULL, bool, LOCKING_HASH_SIZE);
	if (keys == NULL || have == NULL) {
		TALLOC_FREE(keys);
		talloc_free(have);
		return NULL;
	}
	for (n = 0; left > 0 && n < UINT32_MAX; n++) {
		TDB_DATA k = vacuum_key(kb, n);
		unsigned c = tdb_jenkins_hash(&k) % LOCKING_HASH_SIZE;

		if (!have[c]) {
			have[c] = true;
			keys[c] = n;
			left--;
		}
	}
	talloc_free(have);
	return keys;
}

static void local_vacuum(struct locking_table *t)
{
	static const TDB_DATA empty = {.dptr = NULL, .dsize = 0};
	uint8_t kb[VACUUM_KEY_LEN];
	uint32_t *keys = vacuum_keys();
	unsigned c, failed = 0;
	struct timespec t0, t1;

	if (keys == NULL) {
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (c = 0; c < LOCKING_HASH_SIZE; c++) {
		TDB_DATA k = vacuum_key(kb, keys[c]);

		if (tdb_chainlock(t->tdb, k) != 0) {
			failed++;
			continue;
		}
		/* The delete purges the chain's dead records (it takes
		 * the free list only if nobody holds it: else this chain
		 * waits for the next round), then only marks ours dead;
		 * the second store takes that record back, the delete
		 * without max_dead frees it. */
		tdb_set_max_dead(t->tdb, 1);
		if (tdb_store(t->tdb, k, empty, TDB_REPLACE) != 0 ||
		    tdb_delete(t->tdb, k) != 0 ||
		    tdb_store(t->tdb, k, empty, TDB_REPLACE) != 0) {
			failed++;
		}
		tdb_set_max_dead(t->tdb, 0);
		(void)tdb_delete(t->tdb, k);
		tdb_chainunlock(t->tdb, k);
	}
	/* What TDB_VOLATILE sets, for the master's own deletes. */
	tdb_set_max_dead(t->tdb, LOCKING_MAX_DEAD);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	DBG_INFO("%s: vacuumed in %ld ms\n", t->name,
		 (long)((t1.tv_sec - t0.tv_sec) * 1000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000000));
	if (failed > 0) {
		DBG_WARNING("%s: vacuum: %u chains failed: %s\n", t->name,
			    failed, tdb_errorstr(t->tdb));
	}
}

static NTSTATUS local_reopen(struct locking_table *t)
{
	/* tdb_reopen frees the context when it fails. */
	if (t->tdb != NULL && tdb_reopen(t->tdb) != 0) {
		t->tdb = NULL;
	}
	return t->tdb != NULL ? NT_STATUS_OK : LOCKING_STATUS_DB_ERROR;
}

static const struct locking_backend local_backend = {
	.read = local_read,
	.modify = local_modify,
	.walk = local_walk,
	.edit_all = local_edit_all,
	.reopen = local_reopen,
	.vacuum = local_vacuum,
};

/* ---- a dead worker's entries ---- */

/* Entries whose (pid & mask) == pid go. */
struct cleanup_state {
	uint32_t pid, mask;
	unsigned dropped;
};

static NTSTATUS cleanup_share_fn(TALLOC_CTX *tmp, const uint8_t *old,
				 size_t old_len, enum locking_action *action,
				 uint8_t **new_buf, size_t *new_len,
				 void *priv)
{
	struct cleanup_state *cs = priv;
	struct share_mode_rec r;
	uint32_t i, n = 0;

	if (!NT_STATUS_IS_OK(share_mode_rec_decode(tmp, old, old_len, &r))) {
		DBG_ERR("dropping an unreadable share-mode record\n");
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	for (i = 0; i < r.num; i++) {
		if ((r.e[i].pid & cs->mask) != cs->pid) {
			r.e[n++] = r.e[i];
		}
	}
	cs->dropped += r.num - n;
	if (n == 0) {
		*action = LOCKING_DELETE;
	} else if (n != r.num) {
		r.num = n;
		*action = LOCKING_STORE;
		return share_mode_rec_encode(tmp, &r, new_buf, new_len);
	}
	return NT_STATUS_OK;
}

static NTSTATUS cleanup_brl_fn(TALLOC_CTX *tmp, const uint8_t *old,
			       size_t old_len, enum locking_action *action,
			       uint8_t **new_buf, size_t *new_len, void *priv)
{
	struct cleanup_state *cs = priv;
	struct brl_rec r;
	uint32_t i, n = 0;

	if (!NT_STATUS_IS_OK(brl_rec_decode(tmp, old, old_len, &r))) {
		DBG_ERR("dropping an unreadable byte-range lock record\n");
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	for (i = 0; i < r.num; i++) {
		if ((r.e[i].pid & cs->mask) != cs->pid) {
			r.e[n++] = r.e[i];
		}
	}
	cs->dropped += r.num - n;
	if (n == 0) {
		*action = LOCKING_DELETE;
	} else if (n != r.num) {
		r.num = n;
		*action = LOCKING_STORE;
		return brl_rec_encode(tmp, &r, new_buf, new_len);
	}
	return NT_STATUS_OK;
}

/* Entries whose (pid & mask) == pid, from every record held here. */
static unsigned cleanup_entries(struct locking_db *db, uint32_t pid,
				uint32_t mask)
{
	struct cleanup_state cs = {.pid = pid, .mask = mask};

	if (locking_edit_all(db->share, cleanup_share_fn, &cs) < 0) {
		DBG_ERR("traverse of %s failed\n", db->share->name);
	}
	if (locking_edit_all(db->brl, cleanup_brl_fn, &cs) < 0) {
		DBG_ERR("traverse of %s failed\n", db->brl->name);
	}
	return cs.dropped;
}

void locking_cleanup_owner(struct locking_db *db, uint32_t owner_pid)
{
	unsigned n = cleanup_entries(db, owner_pid, UINT32_MAX);

	if (n > 0) {
		DBG_NOTICE("dropped %u share-mode and lock entries of dead "
			   "process %u:%u\n", n,
			   (unsigned)(owner_pid >> LOCKING_PID_NODE_SHIFT) - 1,
			   (unsigned)(owner_pid & LOCKING_PID_MASK));
	}
}

void locking_cleanup_pid(struct locking_db *db, uint32_t pid)
{
	unsigned n = cleanup_entries(db, locking_db_owner_pid(db, pid),
				     UINT32_MAX);

	status_db_cleanup_pid(db, pid);
	if (n > 0) {
		DBG_NOTICE("dropped %u share-mode and lock entries of dead "
			   "process %u\n", n, (unsigned)pid);
	}
}

void locking_cleanup_node(struct locking_db *db)
{
	unsigned n;

	if (db->owner_tag == 0) {
		return;
	}
	n = cleanup_entries(db, db->owner_tag, ~LOCKING_PID_MASK);
	if (n > 0) {
		DBG_NOTICE("dropped %u share-mode and lock entries a previous "
			   "run of this node left\n", n);
	}
}

void locking_tables_ready(struct locking_db *db)
{
	db->share->db = db;
	db->share->purge = share_mode_purge_fn;
	db->brl->db = db;
	db->brl->purge = brl_purge_fn;
}

void locking_vacuum(struct locking_db *db)
{
	struct locking_table *t[] = {db->share, db->brl};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i] != NULL && t[i]->ops->vacuum != NULL) {
			t[i]->ops->vacuum(t[i]);
		}
	}
}

uint32_t locking_db_owner_pid(const struct locking_db *db, uint32_t pid)
{
	return pid | db->owner_tag;
}

bool locking_db_clustered(const struct locking_db *db)
{
	return db->ctdb != NULL;
}

struct ctdb_conn *locking_db_ctdb(struct locking_db *db)
{
	return db->ctdb;
}
