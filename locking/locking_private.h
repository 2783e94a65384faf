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

struct locking_db {
	struct tdb_context *share;	/* smbd_share_modes.tdb */
	struct tdb_context *brl;	/* smbd_brlock.tdb */
	struct tdb_context *status;	/* smbd_status.tdb (may be NULL) */
	char *share_path;
	char *brl_path;
	char *status_path;
	bool mutexes;
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
NTSTATUS locking_read(struct tdb_context *tdb, const struct file_key *k,
		      locking_read_fn fn, void *priv);

enum locking_action {
	LOCKING_KEEP,	/* leave the record as it is */
	LOCKING_STORE,	/* replace it with *new_buf */
	LOCKING_DELETE,	/* remove it */
};

/*
 * Called under the chain lock with the old record in place (old == NULL
 * when there is none).  tmp is freed after the store.  An error status
 * leaves the record unchanged whatever *action says.
 */
typedef NTSTATUS (*locking_modify_fn)(TALLOC_CTX *tmp, const uint8_t *old,
				      size_t old_len,
				      enum locking_action *action,
				      uint8_t **new_buf, size_t *new_len,
				      void *priv);
NTSTATUS locking_modify(struct tdb_context *tdb, const struct file_key *k,
			locking_modify_fn fn, void *priv);

#endif
