/*
 * A clustered database as one node sees it: ctdbd's local tdb copy of it,
 * opened by us too (as Samba's dbwrap_ctdb does), with the 24-byte ltdb
 * header in front of every record.
 *
 * Volatile databases (share modes, byte-range locks): a record's current
 * copy lives on one node, its data master.  To change a record we lock
 * its chain in the local copy; if another node is data master we unlock,
 * ask ctdbd to migrate the record here (a CALL with immediate
 * migration), and try again.  A read uses the local copy when this node
 * is data master and otherwise asks ctdbd for the data where it lives
 * (CTDB_FETCH_FUNC), without moving the record.  A deleted record stays
 * as a bare header (ctdbd's vacuuming removes it cluster-wide).
 *
 * Persistent databases (passdb.tdb) are copied whole to every node: reads
 * use the local copy; writes go as one TRANS3_COMMIT of marshalled
 * records that ctdbd applies on every node.
 */
#ifndef LOCKING_CTDB_CTDB_DB_H
#define LOCKING_CTDB_CTDB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include <tdb.h>

#include "lib/ntstatus.h"
#include "locking/ctdb/ctdb_proto.h"

struct ctdb_conn;
struct ctdb_db;

/* Attach (creating it cluster-wide if new) and open the local copy.
 * The handle is a talloc child of mem_ctx and uses conn. */
NTSTATUS ctdb_db_attach(TALLOC_CTX *mem_ctx, struct ctdb_conn *conn,
			const char *name, bool persistent,
			struct ctdb_db **out);
/* After fork() (conn already reconnected): this process's own fd. */
NTSTATUS ctdb_db_reopen(struct ctdb_db *db);
const char *ctdb_db_path(const struct ctdb_db *db);
uint32_t ctdb_db_id(const struct ctdb_db *db);
/* Log a warning when a record stayed locked longer than this (ms, 0:
 * never): `ctdb locktime warn threshold`. */
void ctdb_db_set_warn_ms(struct ctdb_db *db, unsigned ms);

/*
 * Volatile: lock key's chain with the record's current copy here,
 * migrating it first when needed.  On success the chain is locked until
 * ctdb_db_unlock(); *hdr is the record's header, to be stored back.
 */
NTSTATUS ctdb_db_lock(struct ctdb_db *db, TDB_DATA key,
		      struct ctdb_ltdb_hdr *hdr);
/* With the chain locked: the data after the header, in place (len 0 for
 * none); valid until the next change of the database. */
typedef NTSTATUS (*ctdb_db_parse_fn)(const uint8_t *data, size_t len,
				     void *priv);
NTSTATUS ctdb_db_parse_locked(struct ctdb_db *db, TDB_DATA key,
			      ctdb_db_parse_fn fn, void *priv);
/* With the chain locked: store data (len 0: delete) under hdr. */
NTSTATUS ctdb_db_store_locked(struct ctdb_db *db, TDB_DATA key,
			      const struct ctdb_ltdb_hdr *hdr,
			      const uint8_t *data, size_t len);
void ctdb_db_unlock(struct ctdb_db *db, TDB_DATA key);

/* Read the current data wherever it is; fn sees len 0 never: a missing
 * or empty record is NT_STATUS_NOT_FOUND. */
NTSTATUS ctdb_db_parse(struct ctdb_db *db, TDB_DATA key, ctdb_db_parse_fn fn,
		       void *priv);

/* Every record whose current copy is here (volatile) or every record
 * (persistent), with data; fn returns non-zero to stop.  write: the
 * chain is locked for ctdb_db_store_locked() from fn. */
typedef int (*ctdb_db_walk_fn)(TDB_DATA key, const struct ctdb_ltdb_hdr *h,
			       const uint8_t *data, size_t len, void *priv);
int ctdb_db_walk(struct ctdb_db *db, bool write, ctdb_db_walk_fn fn,
		 void *priv);

/* Persistent: one atomic update of n records (len 0: delete). */
struct ctdb_db_update {
	TDB_DATA key;
	const uint8_t *data;
	size_t len;
};
NTSTATUS ctdb_db_commit(struct ctdb_db *db, const struct ctdb_db_update *u,
			unsigned n);

#endif
