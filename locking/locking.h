/*
 * The shared locking database: share modes and byte-range locks of every
 * open file on the server, shared by all worker processes (DESIGN.md
 * "Process model").
 *
 * Two tdb files in `lock directory`, opened with TDB_MUTEX_LOCKING: each
 * hash chain is guarded by a robust process-shared mutex (a futex), so a
 * worker that dies holding one never blocks the others, and an
 * uncontended lock costs no system call.  Records are keyed by the file's
 * 16-byte identity (device, inode); their format is ours, versioned and
 * decoded through the checked cursor (locking_rec.h).
 *
 *   smbd_share_modes.tdb: one record per open file: a delete-pending flag
 *       and one entry per open (owner, access mask, share access, the
 *       open's own delete-on-close flag).
 *   smbd_brlock.tdb: one record per file holding byte-range locks.
 *
 * Nothing here knows about SMB requests: callers pass the owner (worker
 * pid, open id) and get NTSTATUS back.
 *
 * An entry never outlives its owner: the master drops a dead worker's
 * entries (locking_cleanup_pid), and whatever happened to the master, an
 * entry that would refuse an open, a lock or an I/O, hold one up or be
 * sent a break is checked first, and dropped with every other entry of
 * a gone owner in its record when its process (of this node) no longer
 * runs (locking_owner_gone in locking_private.h).
 *
 * The names differ from Samba's locking.tdb/brlock.tdb so Samba's tools
 * never read our format.
 */
#ifndef LOCKING_LOCKING_H
#define LOCKING_LOCKING_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

/* Not (yet) in lib/ntstatus.h; MS-ERREF 2.3.1. */
#ifndef NT_STATUS_INVALID_LOCK_RANGE
#define NT_STATUS_INVALID_LOCK_RANGE ((NTSTATUS)0xC00001A1)
#endif

struct locking_db;

/* A file's identity: streams get an inode of their own from the caller. */
struct file_key {
	uint64_t dev, ino;
};

/* Who holds an entry: the worker's pid and an id unique in that worker
 * (the open's FileId.Volatile). */
struct open_owner {
	uint32_t pid;
	uint64_t open_id;
};

/* At most this many opens / locks on one file (a client cannot make the
 * record, rewritten on every change, grow without bound). */
#define LOCKING_MAX_OPENS_PER_FILE 16384
#define LOCKING_MAX_LOCKS_PER_FILE 65536

/*
 * Open (create) the three tdb files in lock_dir (share modes, byte-range
 * locks, the status records).  The master opens them at
 * start: TDB_CLEAR_IF_FIRST wipes what a previous run left, as long as no
 * other process has them open.  A worker opens them again after fork()
 * (master = false), or calls locking_db_reopen() on an inherited handle.
 * The database is a talloc child of mem_ctx; freeing it closes the files.
 */
NTSTATUS locking_db_open(TALLOC_CTX *mem_ctx, const char *lock_dir,
			 bool master, struct locking_db **out);
/* After fork(): fresh file descriptors and locks for this process. */
NTSTATUS locking_db_reopen(struct locking_db *db);
/* Whether the chains are guarded by robust mutexes (else fcntl locks). */
bool locking_db_uses_mutexes(const struct locking_db *db);

/*
 * `clustering = yes`: share modes and byte-range locks live in two
 * volatile CTDB databases of the same names (smbd_share_modes.tdb,
 * smbd_brlock.tdb), shared by every node; smbstatus's table stays local.
 * Each process has its own connection to its node's ctdbd (socket; the
 * master's is replaced by locking_db_reopen() in a worker).  timeout_ms:
 * `ctdb timeout`; warn_ms: `ctdb locktime warn threshold`.
 */
#define SMBD_CTDBD_SOCKET_DEFAULT "/run/ctdb/ctdbd.socket"
struct locking_cluster_opts {
	const char *socket;
	unsigned timeout_ms;
	unsigned warn_ms;
};
NTSTATUS locking_db_open_clustered(TALLOC_CTX *mem_ctx, const char *lock_dir,
				   const struct locking_cluster_opts *opts,
				   struct locking_db **out);
bool locking_db_clustered(const struct locking_db *db);
/* The process's ctdbd connection (NULL unless clustered), for messages
 * to other nodes. */
struct ctdb_conn;
struct ctdb_conn *locking_db_ctdb(struct locking_db *db);

/*
 * Owner pids as entries name them.  Clustered, a pid carries its node so
 * that processes of different nodes never look alike: pid | (pnn + 1) <<
 * LOCKING_PID_NODE_SHIFT (Linux pids stay below 2^22).  Alone, the pid
 * as it is.
 */
#define LOCKING_PID_NODE_SHIFT 22
#define LOCKING_PID_MASK ((1u << LOCKING_PID_NODE_SHIFT) - 1)
uint32_t locking_db_owner_pid(const struct locking_db *db, uint32_t pid);
/* The node an owner pid lives on: false for a pid without one. */
static inline bool locking_pid_node(uint32_t pid, uint32_t *pnn)
{
	if ((pid >> LOCKING_PID_NODE_SHIFT) == 0) {
		return false;
	}
	*pnn = (pid >> LOCKING_PID_NODE_SHIFT) - 1;
	return true;
}

/* ---- share modes (MS-FSA 2.1.5.1.2) ---- */

/*
 * Add this open if its DesiredAccess/ShareAccess are compatible with every
 * other open of the file: NT_STATUS_SHARING_VIOLATION otherwise.  A file
 * whose delete is pending refuses new opens with NT_STATUS_DELETE_PENDING.
 */
NTSTATUS share_mode_add(struct locking_db *db, const struct file_key *k,
			const struct open_owner *o, uint32_t access_mask,
			uint32_t share_access);
/*
 * An open of a named stream of the file k stands in the file's own record
 * too (SHARE_ENTRY_STREAM): DELETE_PENDING when the file's delete is
 * pending; removed with share_mode_remove() when the stream open ends.
 */
NTSTATUS share_mode_add_stream_ref(struct locking_db *db,
				   const struct file_key *k,
				   const struct open_owner *o,
				   uint32_t share_access);
/*
 * Remove the open.  *last: no other open of the file remains.
 * *delete_now: delete-on-close was set on the file or on this open and
 * this was the last open: the caller deletes the file.  An open's own
 * delete-on-close that is not the last one makes the file's delete
 * pending (MS-FSA 2.1.5.4 cleanup).  NT_STATUS_NOT_FOUND when the open
 * was not there (both flags false).
 */
NTSTATUS share_mode_remove(struct locking_db *db, const struct file_key *k,
			   const struct open_owner *o, bool *last,
			   bool *delete_now);
/* The same, and *wake: opens wait for a break of this file (the record
 * has SHARE_REC_WAITERS): the caller wakes the workers. */
NTSTATUS share_mode_remove_wake(struct locking_db *db,
				const struct file_key *k,
				const struct open_owner *o, bool *last,
				bool *delete_now, bool *wake);
/* FileDispositionInformation: the file's delete pending on or off.  The
 * open must be registered (NT_STATUS_NOT_FOUND otherwise). */
NTSTATUS share_mode_set_delete_on_close(struct locking_db *db,
					const struct file_key *k,
					const struct open_owner *o, bool on);
/* FILE_DELETE_ON_CLOSE at create: set on the open only, so other opens
 * still succeed until this one closes (MS-FSA 2.1.5.1.2.1). */
NTSTATUS share_mode_set_open_delete_on_close(struct locking_db *db,
					     const struct file_key *k,
					     const struct open_owner *o,
					     bool on);
/* FileStandardInformation.DeletePending: *pending is false when the file
 * has no record. */
NTSTATUS share_mode_delete_pending(struct locking_db *db,
				   const struct file_key *k, bool *pending);
/*
 * What queries of an open file add to what the file system says:
 * DeletePending, and the ChangeTime a client set through
 * FileBasicInformation (MS-FSA 2.1.5.14.2).  Linux cannot set a ctime,
 * so an open that sets one keeps it in its entry with the file's real
 * ctime seen right after.  Given the file's ctime now, change_time is
 * the ChangeTime of the entry recorded with that ctime: 0 when there is
 * none or the ctime moved since (a later change shows).  ctime 0 asks
 * for DeletePending only.
 */
struct share_mode_file_state {
	bool delete_pending;
	uint64_t change_time;
};
NTSTATUS share_mode_file_state(struct locking_db *db,
			       const struct file_key *k, uint64_t ctime,
			       struct share_mode_file_state *out);
/* o's entry remembers change_time (0: forgets it) and the file's ctime
 * just after it was set (both NTTIME).  NT_STATUS_NOT_FOUND when o has
 * no entry. */
NTSTATUS share_mode_set_change_time(struct locking_db *db,
				    const struct file_key *k,
				    const struct open_owner *o,
				    uint64_t change_time, uint64_t ctime);
/* Rename or delete of an open file: NT_STATUS_SHARING_VIOLATION when an
 * open other than o (o may be NULL) does not share FILE_SHARE_DELETE. */
NTSTATUS share_mode_check_delete(struct locking_db *db,
				 const struct file_key *k,
				 const struct open_owner *o);

/*
 * Rename of a file inside directory k: NT_STATUS_SHARING_VIOLATION when
 * an open of the directory with data or DELETE access does not share
 * FILE_SHARE_WRITE, or holds DELETE access and stops(its owner, priv)
 * says that counts (the caller's policy: smbd_open_check_rename_parent);
 * attribute-only opens do not count (smbtorture smb2.rename.msword).
 */
NTSTATUS share_mode_check_rename_parent(
	struct locking_db *db, const struct file_key *k,
	bool (*stops)(const struct open_owner *o, void *priv), void *priv);

/*
 * A rename of a stream (MS-FSA 2.1.5.14.11.1) changes the key its opens
 * are known by: open o's entry moves from `from` to `to` as it is
 * (access, sharing, caching state), without a sharing check (the caller
 * made sure nothing else has the target open).  *wake: opens waited on
 * `from` (the caller wakes them).  On failure the entry stays in from.
 */
NTSTATUS share_mode_move_key(struct locking_db *db, const struct file_key *from,
			     const struct file_key *to,
			     const struct open_owner *o, bool *wake);
/* How many opens the file has (0 when it has no record); skip_streams:
 * not counting its streams' opens (share_mode_add_stream_ref). */
unsigned share_mode_count(struct locking_db *db, const struct file_key *k,
			  bool skip_streams);

/* ---- oplocks and leases (oplock.c) ---- */

#ifndef NT_STATUS_OPLOCK_BREAK_IN_PROGRESS
#define NT_STATUS_OPLOCK_BREAK_IN_PROGRESS ((NTSTATUS)0x00000108)
#endif
#ifndef NT_STATUS_INVALID_OPLOCK_PROTOCOL
#define NT_STATUS_INVALID_OPLOCK_PROTOCOL ((NTSTATUS)0xC00000E3)
#endif
#ifndef NT_STATUS_REQUEST_NOT_ACCEPTED
#define NT_STATUS_REQUEST_NOT_ACCEPTED ((NTSTATUS)0xC00000D0)
#endif

/* An open that only reads or sets attributes or security: it breaks no
 * oplock or lease. */
bool share_mode_is_stat_open(uint32_t access_mask);

/* What a CREATE asks of the locking DB (caching states as in
 * locking_rec.h: CACHE_R/H/W; an oplock level maps to batch = RWH,
 * exclusive = RW, level II = R). */
struct share_open_req {
	struct open_owner o;
	uint16_t worker;		/* where breaks of this open go */
	uint32_t access_mask, share_access;
	bool overwrite;		/* OVERWRITE/SUPERSEDE of an existing file */
	bool is_dir;
	uint8_t caching;	/* CACHING_NONE, _OPLOCK or _LEASE */
	uint32_t want;
	uint8_t lease_version;	/* 1 or 2 */
	uint16_t epoch;		/* v2: the client's */
	uint8_t lease_key[16];
	uint8_t client_guid[16];
	bool level2_ok;		/* `level2 oplocks` */
	bool retry;		/* it waited already: wait for the whole
				 * break, not only for the write cache */
};

/* A break for the worker that holds the open to deliver. */
struct share_break {
	uint16_t worker;
	uint32_t pid;
	uint64_t open_id;
	uint8_t caching;
	uint8_t lease_version;
	uint32_t from, to;
	uint16_t epoch;
	bool ack_required;
	uint8_t lease_key[16];
	uint8_t client_guid[16];
};

struct share_open_res {
	uint32_t granted;
	uint16_t epoch;
	bool breaking;		/* the open's lease is breaking */
	uint32_t breaking_to;
	uint8_t lease_version;	/* the lease's, set by its first open */
	struct share_break *breaks;	/* talloc children of mem_ctx */
	unsigned nbreaks;
};

/*
 * CREATE: in one step under the file's lock, the breaks this open causes
 * (returned in res->breaks for the caller to deliver), the sharing check
 * and, when nothing must be waited for, the open's entry with what it is
 * granted (res->granted, res->epoch).  NT_STATUS_OPLOCK_BREAK_IN_PROGRESS:
 * a break needs an acknowledgement first; try again when woken.
 * SHARING_VIOLATION, DELETE_PENDING as share_mode_add().
 */
NTSTATUS share_mode_open(struct locking_db *db, TALLOC_CTX *mem_ctx,
			 const struct file_key *k,
			 const struct share_open_req *q,
			 struct share_open_res *res);

struct share_ack_res {
	uint32_t state;		/* held after the acknowledgement */
	uint16_t epoch;
	bool wake;		/* opens wait for this file: wake workers */
	struct share_break *breaks;	/* a further break to send */
	unsigned nbreaks;
};

/* OPLOCK_BREAK acknowledgement (3.3.5.22.1): ack is R (level II) or 0.
 * NT_STATUS_INVALID_OPLOCK_PROTOCOL when no break is under way or the
 * level is above what the break said (the oplock is then gone). */
NTSTATUS share_mode_oplock_ack(struct locking_db *db, TALLOC_CTX *mem_ctx,
			       const struct file_key *k,
			       const struct open_owner *o, uint32_t ack,
			       struct share_ack_res *res);
/* LEASE_BREAK acknowledgement (3.3.5.22.2): NT_STATUS_NOT_FOUND for no
 * such lease, INVALID_OPLOCK_PROTOCOL when not breaking,
 * REQUEST_NOT_ACCEPTED for a state above the break's. */
NTSTATUS share_mode_lease_ack(struct locking_db *db, TALLOC_CTX *mem_ctx,
			      const struct file_key *k, const uint8_t guid[16],
			      const uint8_t key[16], uint32_t ack,
			      struct share_ack_res *res);
/* No acknowledgement in time: the holder is left with nothing cached
 * (MS-SMB2 3.3.6.1, 3.3.6.5).  o for an oplock, else the lease (guid,
 * key); all NULL: every break of the file. */
NTSTATUS share_mode_break_timeout(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t guid[16], const uint8_t key[16],
				  struct share_ack_res *res);
/* WRITE, a size change or a byte-range lock through o: level II oplocks
 * and read leases of the other opens are broken to none (MS-FSA
 * 2.1.4.12; no waiting).  guid/key: o's own lease, spared (may be NULL). */
NTSTATUS share_mode_break_readers(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t *guid, const uint8_t *key,
				  struct share_break **breaks, unsigned *n);
/* An entry of directory dir was created, changed, deleted or renamed:
 * every lease on the directory is broken to none (MS-SMB2 3.3.4.7, no
 * waiting), except the one (guid, key) the change came under as its
 * ParentLeaseKey (may be NULL). */
NTSTATUS share_mode_break_dir_leases(struct locking_db *db,
				     TALLOC_CTX *mem_ctx,
				     const struct file_key *dir,
				     const uint8_t *guid, const uint8_t *key,
				     struct share_break **breaks, unsigned *n);
/* Rename through o (MS-FSA 2.1.5.14.11): the other leases of the file
 * lose handle caching (the client must close what it cached under the
 * old name).  NT_STATUS_OPLOCK_BREAK_IN_PROGRESS: wait for their
 * acknowledgements, then call again with retry.  guid/key: o's lease. */
NTSTATUS share_mode_break_handles(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t *guid, const uint8_t *key,
				  bool retry, struct share_break **breaks,
				  unsigned *n);
/* The file a lease (client GUID, key) is held on, found by walking every
 * record: for an acknowledgement that arrives on a connection of another
 * worker than the lease's opens (rare; a traverse). */
bool share_mode_find_lease(struct locking_db *db, const uint8_t guid[16],
			   const uint8_t key[16], struct file_key *k);
/* The entry of open o (its caching state, for a durable reconnect's
 * reply, MS-SMB2 3.3.5.9.7); NT_STATUS_NOT_FOUND when it has none. */
struct share_mode_entry;
NTSTATUS share_mode_get_entry(struct locking_db *db, const struct file_key *k,
			      const struct open_owner *o,
			      struct share_mode_entry *out);
/* How many opens of the file hold a caching state (in place, no copy). */
unsigned share_mode_cached_opens(struct locking_db *db,
				 const struct file_key *k);

/* ---- byte-range locks (MS-FSA 2.1.5.8, 2.1.5.9, 2.1.4.10) ---- */

/*
 * Lock [off, off+len) shared or exclusive for the open o.  Offsets go up
 * to 2^64-1, zero-length ranges are allowed; a range whose last byte is
 * past 2^64-1 is NT_STATUS_INVALID_LOCK_RANGE.  A conflict is
 * NT_STATUS_LOCK_NOT_GRANTED.  The same open may stack a shared lock on
 * its own exclusive range and shared on shared, never exclusive on
 * anything it overlaps.
 */
NTSTATUS brl_lock(struct locking_db *db, const struct file_key *k,
		  const struct open_owner *o, uint64_t off, uint64_t len,
		  bool exclusive);
/* Several ranges for one open, all or nothing (MS-SMB2 3.3.5.14.2: a
 * LOCK request with several elements): each must be grantable against
 * the file's locks and the request's earlier ranges.  *failed (may be
 * NULL) is the index of the first range refused. */
struct brl_range {
	uint64_t off, len;
	bool exclusive;
};
NTSTATUS brl_lock_many(struct locking_db *db, const struct file_key *k,
		       const struct open_owner *o, const struct brl_range *r,
		       unsigned n, unsigned *failed);
/* Remove one lock of o with exactly this range (an exclusive one before a
 * shared one): NT_STATUS_RANGE_NOT_LOCKED when there is none. */
NTSTATUS brl_unlock(struct locking_db *db, const struct file_key *k,
		    const struct open_owner *o, uint64_t off, uint64_t len);
/* READ (write = false) or WRITE through [off, off+len):
 * NT_STATUS_FILE_LOCK_CONFLICT when an exclusive lock of another open, or
 * for a write any shared lock (its owner's too), covers part of it. */
NTSTATUS brl_check_io(struct locking_db *db, const struct file_key *k,
		      const struct open_owner *o, uint64_t off, uint64_t len,
		      bool write);
/* CLOSE: drop every lock the open holds. */
void brl_remove_owner(struct locking_db *db, const struct file_key *k,
		      const struct open_owner *o);
/*
 * A durable open reclaimed on another worker (MS-SMB2 3.3.5.9.7) changes
 * owner: its share-mode entry (breaks then go to worker) and its locks
 * now name to.  The new worker calls these once it holds the fd, so a
 * worker that dies before leaves its own entries for the master to
 * clean.  share_mode_move_owner: NT_STATUS_NOT_FOUND when from has no
 * entry (its worker died and was cleaned up meanwhile).
 */
NTSTATUS share_mode_move_owner(struct locking_db *db, const struct file_key *k,
			       const struct open_owner *from,
			       const struct open_owner *to, uint16_t worker);
NTSTATUS brl_move_owner(struct locking_db *db, const struct file_key *k,
			const struct open_owner *from,
			const struct open_owner *to);
/* Stream rename: o's locks move from one key to another. */
NTSTATUS brl_move_key(struct locking_db *db, const struct file_key *from,
		      const struct file_key *to, const struct open_owner *o);
/* How many locks the file has (tests, diagnostics). */
unsigned brl_count(struct locking_db *db, const struct file_key *k);

/* ---- smbstatus's view (status_db.c) ---- */

/* Kinds of records: a session (a = session id), a tree connect
 * (a = session id, b = tree id), an open (a = open id). */
#define STATUS_SESSION 'S'
#define STATUS_TCON 'T'
#define STATUS_OPEN 'O'
/* A connection of a session, its first one included (a = session id,
 * b = the connection's id in its worker): multichannel. */
#define STATUS_CHANNEL 'C'
/* A worker's connection counts (a = worker index): smbstatus --workers. */
#define STATUS_WORKER 'W'
/* text: "key=value\n" lines, written by the worker pid. */
void status_db_put(struct locking_db *db, char kind, uint32_t pid,
		   uint64_t a, uint64_t b, const char *text);
void status_db_del(struct locking_db *db, char kind, uint32_t pid,
		   uint64_t a, uint64_t b);
typedef void (*status_db_fn)(char kind, uint32_t pid, uint64_t a, uint64_t b,
			     const char *text, void *priv);
/* Every record, read-only; -1 when there is no status database. */
int status_db_walk(struct locking_db *db, status_db_fn fn, void *priv);
void status_db_cleanup_pid(struct locking_db *db, uint32_t pid);
/*
 * The worker that serves the client with this ClientGuid: another live
 * worker's index if it holds one of the client's connections, else
 * index, which then counts one more (pid: the caller's).  Each claim that
 * returned index is matched by a release when that connection ends.
 */
int status_db_client_claim(struct locking_db *db, const uint8_t guid[16],
			   int index, uint32_t pid);
void status_db_client_release(struct locking_db *db, const uint8_t guid[16],
			      uint32_t pid);
/* Tree connects to the share (any worker; a traverse): `max connections`. */
unsigned status_db_count_tcons(struct locking_db *db, const char *share);
/* Whether a file below share-relative directory dir (of the share at
 * sharepath) is open on any worker (a directory rename refuses then). */
bool status_db_open_below(struct locking_db *db, const char *sharepath,
			  const char *dir);

/* Every share-mode entry and lock, read-only (smbstatus). */
struct share_mode_entry;
typedef void (*share_mode_walk_fn)(const struct file_key *k, uint16_t flags,
				   const struct share_mode_entry *e,
				   void *priv);
int share_mode_walk(struct locking_db *db, share_mode_walk_fn fn, void *priv);
typedef void (*brl_walk_fn)(const struct file_key *k, uint32_t pid,
			    uint64_t open_id, uint64_t off, uint64_t len,
			    bool exclusive, void *priv);
int brl_walk(struct locking_db *db, brl_walk_fn fn, void *priv);

/*
 * The master after a worker died: drop all its entries (share modes and
 * locks), so its files can be opened and locked again at once.  A file
 * whose last open this was and whose delete was pending is not deleted
 * (nobody knows its path here); its record just goes.
 */
void locking_cleanup_pid(struct locking_db *db, uint32_t pid);
/* The same by an owner pid as entries name it (locking_db_owner_pid()),
 * in the records held on this node only, without smbstatus's records:
 * a clustered node's share of another node's cleanup. */
void locking_cleanup_owner(struct locking_db *db, uint32_t owner_pid);
/* Clustered, at the master's start: the same for every entry of this
 * node's processes (a previous run's), in the records held here. */
void locking_cleanup_node(struct locking_db *db);
/*
 * The master, every LOCKING_VACUUM_SECS: the dead records the share-mode
 * and lock tables keep for reuse (TDB_VOLATILE) go back to the free list,
 * so the files stop growing under churn (locking_db.c says why and how).
 * One chain locked at a time; nothing for CTDB's tables.
 */
#define LOCKING_VACUUM_SECS 60
void locking_vacuum(struct locking_db *db);

#endif
