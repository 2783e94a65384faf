/*
 * Internals shared by the locking/ sources: the database handle and the
 * two ways a record is touched.
 *
 *   locking_read():   tdb_parse_record() under the chain's lock; the
 *                     callback sees the record in place (no copy), so
 *                     lookups on the READ/WRITE path never allocate.
 *   locking_modify(): chain lock, the callback decodes the old record in
 *                     place and builds the new one, then store or delete,
 *                     then unlock: one read-modify-write is atomic for
 *                     every process.
 */
#ifndef LOCKING_LOCKING_PRIVATE_H
#define LOCKING_LOCKING_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include <tdb.h>

#include "locking/locking.h"

/* MS-ERREF 2.3.1: our record is unreadable / the tdb call failed. */
#define LOCKING_STATUS_CORRUPT ((NTSTATUS)0xC0000104)
#define LOCKING_STATUS_DB_ERROR ((NTSTATUS)0xC0000158)
/*
 * Internal, never returned by locking.h's functions (customer bit set):
 * a callback found that an entry which would refuse, break or hold up
 * the operation belongs to a process that is gone.  locking_read() and
 * locking_modify() then drop the record's dead entries (the table's
 * purge) and run the callback again (locking_table.c).
 */
#define LOCKING_STATUS_STALE_OWNER ((NTSTATUS)0xE0AC0001)

struct ctdb_conn;
struct ctdb_db;
struct locking_table;

enum locking_action {
	LOCKING_KEEP,	/* leave the record as it is */
	LOCKING_STORE,	/* replace it with *new_buf */
	LOCKING_DELETE,	/* remove it */
};

/*
 * The two kinds of store a table of share modes or locks can live in
 * (locking_db.c: a tdb of ours with robust mutexes; locking_ctdb.c: a
 * volatile CTDB database, records migrating to the node that changes
 * them).  The record format and every caller are the same for both.
 */
struct locking_backend;

/* A modify callback (below) of the table's own record kind that drops
 * the entries of owners locking_owner_gone() finds gone (priv: the
 * database). */
typedef NTSTATUS (*locking_modify_fn)(TALLOC_CTX *tmp, const uint8_t *old,
				      size_t old_len,
				      enum locking_action *action,
				      uint8_t **new_buf, size_t *new_len,
				      void *priv);

struct locking_table {
	const struct locking_backend *ops;
	struct tdb_context *tdb;	/* the local tdb (local backend) */
	struct ctdb_db *cdb;		/* the CTDB database (clustered) */
	const char *name;		/* for log lines */
	struct locking_db *db;		/* the database it is part of */
	locking_modify_fn purge;	/* share_mode_purge_fn, brl_purge_fn */
};

struct locking_db {
	struct locking_table *share;	/* share modes */
	struct locking_table *brl;	/* byte-range locks */
	struct tdb_context *status;	/* smbd_status.tdb (may be NULL),
					 * always local: one per node */
	char *share_path;
	char *brl_path;
	char *status_path;
	bool mutexes;
	/* clustering = yes */
	struct ctdb_conn *ctdb;
	uint32_t owner_tag;		/* or-ed into owner pids */
};

#define LOCKING_KEY_LEN 16
/* smbd_status.tdb keys: kind, pid, two ids (status_db.c). */
#define STATUS_KEY_LEN 21

/* The record key: device then inode, little-endian. */
static inline TDB_DATA locking_key(const struct file_key *k,
				   uint8_t buf[LOCKING_KEY_LEN])
{
	TDB_DATA key;
	int i;

	for (i = 0; i < 8; i++) {
		buf[i] = (uint8_t)(k->dev >> (8 * i));
		buf[8 + i] = (uint8_t)(k->ino >> (8 * i));
	}
	key.dptr = buf;
	key.dsize = LOCKING_KEY_LEN;
	return key;
}

/* MS-FSA 2.1.5.1.2: whether an open with access/share conflicts with the
 * existing entry e (share_mode.c; oplock.c uses it too). */
struct share_mode_entry;
bool share_conflict(const struct share_mode_entry *e, uint32_t access,
		    uint32_t share);

/* Called with the record in place; its status is locking_read()'s. */
typedef NTSTATUS (*locking_read_fn)(const uint8_t *buf, size_t len,
				    void *priv);
/* NT_STATUS_NOT_FOUND (fn not called) when the file has no record. */
NTSTATUS locking_read(struct locking_table *t, const struct file_key *k,
		      locking_read_fn fn, void *priv);

/*
 * locking_modify_fn (above) is called under the chain lock with the old
 * record in place (old == NULL when there is none).  tmp is freed after
 * the store.  An error status leaves the record unchanged whatever
 * *action says.
 */
NTSTATUS locking_modify(struct locking_table *t, const struct file_key *k,
			locking_modify_fn fn, void *priv);

/* Every record, read-only (key: LOCKING_KEY_LEN bytes); fn returns
 * non-zero to stop.  Clustered: the records whose current copy is on
 * this node. */
typedef int (*locking_walk_fn)(const uint8_t *key, size_t keylen,
			       const uint8_t *buf, size_t len, void *priv);
int locking_walk(struct locking_table *t, locking_walk_fn fn, void *priv);
/* Every record through fn, each under its chain lock (the dead-worker
 * cleanup). */
int locking_edit_all(struct locking_table *t, locking_modify_fn fn,
		     void *priv);

/* ---- for the backends ---- */

struct locking_backend {
	NTSTATUS (*read)(struct locking_table *t, TDB_DATA key,
			 locking_read_fn fn, void *priv);
	NTSTATUS (*modify)(struct locking_table *t, TDB_DATA key,
			   locking_modify_fn fn, void *priv);
	int (*walk)(struct locking_table *t, locking_walk_fn fn, void *priv);
	int (*edit_all)(struct locking_table *t, locking_modify_fn fn,
			void *priv);
	NTSTATUS (*reopen)(struct locking_table *t);
	/* Dead records back to the free list (NULL: the store does it
	 * itself, as ctdbd vacuums its volatile databases). */
	void (*vacuum)(struct locking_table *t);
};

/* One modify callback run (both backends): old is the record or NULL;
 * on success *action says what to do with *new_buf. */
static inline NTSTATUS locking_run_modify(locking_modify_fn fn, void *priv,
					  TALLOC_CTX *tmp, const uint8_t *old,
					  size_t old_len,
					  enum locking_action *action,
					  uint8_t **new_buf, size_t *new_len)
{
	*action = LOCKING_KEEP;
	*new_buf = NULL;
	*new_len = 0;
	return fn(tmp, old, old_len, action, new_buf, new_len, priv);
}

/*
 * Whether the process that owns an entry is gone (issue 34 item 11): a
 * process of this node (owner pids as locking_db_owner_pid() makes
 * them) that does not run, a zombie included (lib/proc.h).  Called only
 * where an entry would refuse, break or hold up an operation, as Samba
 * checks its stale pids, so the common path makes no system call.
 * Another node's owners are never taken for gone here: their node's
 * master cleans their entries and tells the others
 * (smbd_cluster_owner_gone), and a node that dies takes its records'
 * copies with it in CTDB's recovery.
 */
bool locking_owner_gone(const struct locking_db *db, uint32_t owner);
/* Both tables know their database and purge (both open paths). */
void locking_tables_ready(struct locking_db *db);
/* The purges: entries of gone owners out of a record (priv: the db). */
NTSTATUS share_mode_purge_fn(TALLOC_CTX *tmp, const uint8_t *old,
			     size_t old_len, enum locking_action *action,
			     uint8_t **new_buf, size_t *new_len, void *priv);
NTSTATUS brl_purge_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		      enum locking_action *action, uint8_t **new_buf,
		      size_t *new_len, void *priv);

/* locking_ctdb.c: the clustered tables of `clustering = yes`. */
NTSTATUS locking_ctdb_connect(struct locking_db *db,
			      const struct locking_cluster_opts *opts);
NTSTATUS locking_ctdb_reopen(struct locking_db *db);

#endif
