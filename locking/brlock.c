/*
 * Byte-range locks (MS-FSA 2.1.5.8 lock, 2.1.5.9 unlock, 2.1.4.10 range
 * conflicts) on the shared database.  The lock owner is the open (SMB2
 * has no per-process lock context: smbtorture smb2.lock.context).
 *
 * One record per file holds all its locks in arrival order.  brl_lock and
 * brl_unlock are read-modify-writes under the file's chain lock;
 * brl_check_io, run on every READ and WRITE, walks the record in place
 * and allocates nothing.  A file without locks has no record, so the
 * common case is one failed hash lookup.
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

static bool same_owner(const struct brl_entry *e, const struct open_owner *o)
{
	return e->pid == o->pid && e->open_id == o->open_id;
}

/*
 * MS-FSA 2.1.4.10: ranges overlap when they share a byte.  The last byte
 * of a zero-length range is offset-1, so {10,0} overlaps {9,2} but not
 * {10,1} or {9,1} (smbtorture smb2.lock.zerobytelength), and {0,0}
 * overlaps nothing.  Lengths are valid (brl_range_valid), so only the
 * zero-length case wraps, harmlessly, to offset-1.
 */
static bool brl_overlap(uint64_t off1, uint64_t len1, uint64_t off2,
			uint64_t len2)
{
	uint64_t last1, last2;

	if ((off1 == 0 && len1 == 0) || (off2 == 0 && len2 == 0)) {
		return false;
	}
	last1 = off1 + len1 - 1;
	last2 = off2 + len2 - 1;
	return off1 <= last2 && last1 >= off2;
}

/*
 * A lock request against an overlapping lock: another open's exclusive
 * lock always conflicts; a shared lock conflicts with any exclusive
 * request (its owner's too: exclusive never stacks on shared); the owner
 * of an exclusive lock may stack shared locks on it, never another
 * exclusive one (smbtorture smb2.lock.stacking).
 */
static bool lock_conflicts(const struct brl_entry *e,
			   const struct open_owner *o, bool exclusive)
{
	if (e->flags & BRL_ENTRY_EXCLUSIVE) {
		return exclusive || !same_owner(e, o);
	}
	return exclusive;
}

/* I/O: an exclusive lock stops others' reads and writes, a shared lock
 * stops every write, its owner's too (smb2.lock.rw-shared). */
static bool io_conflicts(const struct brl_entry *e, const struct open_owner *o,
			 bool write)
{
	if (e->flags & BRL_ENTRY_EXCLUSIVE) {
		return !same_owner(e, o);
	}
	return write;
}

/* ---- owners that are gone (issue 34 item 11) ---- */

NTSTATUS brl_purge_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		      enum locking_action *action, uint8_t **nb, size_t *nl,
		      void *priv)
{
	struct locking_db *db = priv;
	struct brl_rec r;
	uint32_t i, n = 0;

	if (old == NULL) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(brl_rec_decode(tmp, old, old_len, &r))) {
		return LOCKING_STATUS_CORRUPT;
	}
	for (i = 0; i < r.num; i++) {
		if (!locking_owner_gone(db, r.e[i].pid)) {
			r.e[n++] = r.e[i];
		}
	}
	if (n == 0) {
		*action = LOCKING_DELETE;
	} else if (n != r.num) {
		r.num = n;
		*action = LOCKING_STORE;
		return brl_rec_encode(tmp, &r, nb, nl);
	}
	return NT_STATUS_OK;
}

/* ---- lock ---- */

struct lock_state {
	struct locking_db *db;
	const struct open_owner *o;
	const struct brl_range *r;
	unsigned n;
	unsigned failed;
};

/* Range i of the request against the locks already there and the
 * request's ranges before it (same owner). */
static bool range_refused(const struct lock_state *l, unsigned i,
			  const uint8_t *old, size_t old_len, NTSTATUS *err)
{
	const struct brl_range *r = &l->r[i];
	struct locking_rec_iter it;
	struct brl_entry e;
	NTSTATUS status;
	unsigned j;

	*err = NT_STATUS_LOCK_NOT_GRANTED;
	if (old != NULL) {
		if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, old, old_len))) {
			*err = LOCKING_STATUS_CORRUPT;
			return true;
		}
		while (NT_STATUS_IS_OK(status = brl_rec_iter_next(&it, &e))) {
			if (brl_overlap(e.off, e.len, r->off, r->len) &&
			    lock_conflicts(&e, l->o, r->exclusive)) {
				if (locking_owner_gone(l->db, e.pid)) {
					*err = LOCKING_STATUS_STALE_OWNER;
				}
				return true;
			}
		}
		if (status != NT_STATUS_NO_MORE_ENTRIES) {
			*err = LOCKING_STATUS_CORRUPT;
			return true;
		}
	}
	for (j = 0; j < i; j++) {
		e = (struct brl_entry){
			.pid = l->o->pid,
			.open_id = l->o->open_id,
			.flags = l->r[j].exclusive ? BRL_ENTRY_EXCLUSIVE : 0,
			.off = l->r[j].off,
			.len = l->r[j].len,
		};
		if (brl_overlap(e.off, e.len, r->off, r->len) &&
		    lock_conflicts(&e, l->o, r->exclusive)) {
			return true;
		}
	}
	return false;
}

static NTSTATUS lock_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
			enum locking_action *action, uint8_t **nb, size_t *nl,
			void *priv)
{
	struct lock_state *l = priv;
	struct locking_rec_iter it;
	uint32_t count = 0;
	NTSTATUS err;
	uint8_t *buf;
	unsigned i;
	size_t n;

	if (old != NULL) {
		if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, old, old_len))) {
			return LOCKING_STATUS_CORRUPT;
		}
		count = it.left;
	}
	if ((uint64_t)count + l->n > LOCKING_MAX_LOCKS_PER_FILE) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	for (i = 0; i < l->n; i++) {
		if (range_refused(l, i, old, old_len, &err)) {
			l->failed = i;
			return err;
		}
	}
	n = LOCKING_REC_HDR_LEN + ((size_t)count + l->n) * BRL_ENTRY_LEN;
	buf = talloc_size(tmp, n);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (old != NULL) {
		memcpy(buf, old, old_len);
	}
	locking_rec_put_header(buf, LOCKING_KIND_BRL, 0, count + l->n);
	for (i = 0; i < l->n; i++) {
		struct brl_entry e = {
			.pid = l->o->pid,
			.flags = l->r[i].exclusive ? BRL_ENTRY_EXCLUSIVE : 0,
			.open_id = l->o->open_id,
			.off = l->r[i].off,
			.len = l->r[i].len,
		};

		brl_entry_put(buf + LOCKING_REC_HDR_LEN +
				      ((size_t)count + i) * BRL_ENTRY_LEN,
			      &e);
	}
	*nb = buf;
	*nl = n;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

NTSTATUS brl_lock_many(struct locking_db *db, const struct file_key *k,
		       const struct open_owner *o, const struct brl_range *r,
		       unsigned n, unsigned *failed)
{
	struct lock_state l = {.db = db, .o = o, .r = r, .n = n};
	NTSTATUS status;
	unsigned i;

	if (failed != NULL) {
		*failed = 0;
	}
	if (n == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* MS-FSA 2.1.5.8: a range past the last 64-bit offset. */
	for (i = 0; i < n; i++) {
		if (!brl_range_valid(r[i].off, r[i].len)) {
			if (failed != NULL) {
				*failed = i;
			}
			return NT_STATUS_INVALID_LOCK_RANGE;
		}
	}
	status = locking_modify(db->brl, k, lock_fn, &l);
	if (failed != NULL && !NT_STATUS_IS_OK(status)) {
		*failed = l.failed;
	}
	return status;
}

NTSTATUS brl_lock(struct locking_db *db, const struct file_key *k,
		  const struct open_owner *o, uint64_t off, uint64_t len,
		  bool exclusive)
{
	struct brl_range r = {.off = off, .len = len, .exclusive = exclusive};

	return brl_lock_many(db, k, o, &r, 1, NULL);
}

/* ---- unlock and remove ---- */

/* Copy the record without the entries drop[] marks. */
static NTSTATUS rewrite_without(TALLOC_CTX *tmp, const uint8_t *old,
				size_t old_len, const bool *drop,
				uint32_t count, uint32_t ndrop,
				enum locking_action *action, uint8_t **nb,
				size_t *nl)
{
	uint32_t i, j = 0;
	uint8_t *buf;
	size_t n;

	if (ndrop == 0) {
		*action = LOCKING_KEEP;
		return NT_STATUS_OK;
	}
	if (ndrop == count) {
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	n = old_len - (size_t)ndrop * BRL_ENTRY_LEN;
	buf = talloc_size(tmp, n);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	locking_rec_put_header(buf, LOCKING_KIND_BRL, 0, count - ndrop);
	for (i = 0; i < count; i++) {
		if (drop[i]) {
			continue;
		}
		memcpy(buf + LOCKING_REC_HDR_LEN + (size_t)j * BRL_ENTRY_LEN,
		       old + LOCKING_REC_HDR_LEN + (size_t)i * BRL_ENTRY_LEN,
		       BRL_ENTRY_LEN);
		j++;
	}
	*nb = buf;
	*nl = n;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

struct unlock_state {
	const struct open_owner *o;
	uint64_t off, len;
	bool all;	/* brl_remove_owner: every lock of o */
	unsigned removed;
};

static NTSTATUS unlock_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
			  enum locking_action *action, uint8_t **nb,
			  size_t *nl, void *priv)
{
	struct unlock_state *u = priv;
	struct locking_rec_iter it;
	long excl = -1, shared = -1;
	struct brl_entry e;
	uint32_t i, count, ndrop = 0;
	NTSTATUS status;
	bool *drop;

	if (old == NULL) {
		return u->all ? NT_STATUS_OK : NT_STATUS_RANGE_NOT_LOCKED;
	}
	if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, old, old_len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	count = it.left;
	drop = talloc_zero_array(tmp, bool, count);
	if (drop == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; NT_STATUS_IS_OK(status = brl_rec_iter_next(&it, &e));
	     i++) {
		if (!same_owner(&e, u->o)) {
			continue;
		}
		if (u->all) {
			drop[i] = true;
			ndrop++;
		} else if (e.off == u->off && e.len == u->len) {
			/* MS-FSA 2.1.5.9: the exact range; an exclusive
			 * lock goes before shared ones stacked on it
			 * (smb2.lock.unlock). */
			if ((e.flags & BRL_ENTRY_EXCLUSIVE) && excl < 0) {
				excl = i;
			} else if (!(e.flags & BRL_ENTRY_EXCLUSIVE) &&
				   shared < 0) {
				shared = i;
			}
		}
	}
	if (status != NT_STATUS_NO_MORE_ENTRIES) {
		return LOCKING_STATUS_CORRUPT;
	}
	if (!u->all) {
		if (excl < 0 && shared < 0) {
			return NT_STATUS_RANGE_NOT_LOCKED;
		}
		drop[excl >= 0 ? excl : shared] = true;
		ndrop = 1;
	}
	u->removed = ndrop;
	return rewrite_without(tmp, old, old_len, drop, count, ndrop, action,
			       nb, nl);
}

NTSTATUS brl_unlock(struct locking_db *db, const struct file_key *k,
		    const struct open_owner *o, uint64_t off, uint64_t len)
{
	struct unlock_state u = {.o = o, .off = off, .len = len};

	return locking_modify(db->brl, k, unlock_fn, &u);
}

void brl_remove_owner(struct locking_db *db, const struct file_key *k,
		      const struct open_owner *o)
{
	struct unlock_state u = {.o = o, .all = true};
	NTSTATUS status;

	status = locking_modify(db->brl, k, unlock_fn, &u);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("cannot drop the locks of open %u/%llu: 0x%08x\n",
			(unsigned)o->pid, (unsigned long long)o->open_id,
			(unsigned)status);
	}
}

/* ---- I/O check ---- */

struct io_state {
	struct locking_db *db;
	const struct open_owner *o;
	uint64_t off, len;
	bool write;
};

static NTSTATUS io_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct io_state *io = priv;
	struct locking_rec_iter it;
	struct brl_entry e;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(status = brl_rec_iter_next(&it, &e))) {
		if (brl_overlap(e.off, e.len, io->off, io->len) &&
		    io_conflicts(&e, io->o, io->write)) {
			return locking_owner_gone(io->db, e.pid)
				       ? LOCKING_STATUS_STALE_OWNER
				       : NT_STATUS_FILE_LOCK_CONFLICT;
		}
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

NTSTATUS brl_check_io(struct locking_db *db, const struct file_key *k,
		      const struct open_owner *o, uint64_t off, uint64_t len,
		      bool write)
{
	struct io_state io = {.db = db, .o = o, .off = off, .write = write};
	NTSTATUS status;

	if (len == 0) {
		return NT_STATUS_OK; /* no byte is touched */
	}
	/* A range running past 2^64-1 (off > 0 then) is checked up to the
	 * last byte there is: 2^64 - off bytes. */
	io.len = brl_range_valid(off, len) ? len : (uint64_t)0 - off;
	status = locking_read(db->brl, k, io_fn, &io);
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

static NTSTATUS count_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct locking_rec_iter it;

	if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	*(unsigned *)priv = it.left;
	return NT_STATUS_OK;
}

unsigned brl_count(struct locking_db *db, const struct file_key *k)
{
	unsigned n = 0;

	(void)locking_read(db->brl, k, count_fn, &n);
	return n;
}

/* ---- durable hand-over: the locks change owner ---- */

struct brl_move_state {
	const struct open_owner *from, *to;
};

static NTSTATUS brl_move_fn(TALLOC_CTX *tmp, const uint8_t *old,
			    size_t old_len, enum locking_action *action,
			    uint8_t **nb, size_t *nl, void *priv)
{
	struct brl_move_state *m = priv;
	struct locking_rec_iter it;
	struct brl_entry e;
	uint8_t *buf;
	uint32_t i;
	NTSTATUS status;
	bool changed = false;

	if (old == NULL) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, old, old_len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	buf = talloc_memdup(tmp, old, old_len);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; NT_STATUS_IS_OK(status = brl_rec_iter_next(&it, &e));
	     i++) {
		if (!same_owner(&e, m->from)) {
			continue;
		}
		e.pid = m->to->pid;
		e.open_id = m->to->open_id;
		brl_entry_put(buf + LOCKING_REC_HDR_LEN +
				      (size_t)i * BRL_ENTRY_LEN,
			      &e);
		changed = true;
	}
	if (status != NT_STATUS_NO_MORE_ENTRIES) {
		return LOCKING_STATUS_CORRUPT;
	}
	*nb = buf;
	*nl = old_len;
	*action = changed ? LOCKING_STORE : LOCKING_KEEP;
	return NT_STATUS_OK;
}

NTSTATUS brl_move_owner(struct locking_db *db, const struct file_key *k,
			const struct open_owner *from,
			const struct open_owner *to)
{
	struct brl_move_state m = {.from = from, .to = to};

	return locking_modify(db->brl, k, brl_move_fn, &m);
}

/* ---- stream rename: the locks move to the stream's new key ---- */

struct collect_state {
	TALLOC_CTX *mem_ctx;
	const struct open_owner *o;
	struct brl_range *r;
	unsigned n;
};

static NTSTATUS collect_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct collect_state *c = priv;
	struct locking_rec_iter it;
	struct brl_entry e;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(brl_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(status = brl_rec_iter_next(&it, &e))) {
		if (!same_owner(&e, c->o)) {
			continue;
		}
		c->r = talloc_realloc(c->mem_ctx, c->r, struct brl_range,
				      c->n + 1);
		if (c->r == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		c->r[c->n++] = (struct brl_range){
			.off = e.off,
			.len = e.len,
			.exclusive = (e.flags & BRL_ENTRY_EXCLUSIVE) != 0,
		};
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

NTSTATUS brl_move_key(struct locking_db *db, const struct file_key *from,
		      const struct file_key *to, const struct open_owner *o)
{
	struct collect_state c = {.o = o};
	NTSTATUS status;

	c.mem_ctx = talloc_new(NULL);
	if (c.mem_ctx == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = locking_read(db->brl, from, collect_fn, &c);
	if (status == NT_STATUS_NOT_FOUND || c.n == 0) {
		talloc_free(c.mem_ctx);
		return NT_STATUS_OK; /* no locks */
	}
	if (NT_STATUS_IS_OK(status)) {
		status = brl_lock_many(db, to, o, c.r, c.n, NULL);
	}
	if (NT_STATUS_IS_OK(status)) {
		brl_remove_owner(db, from, o);
	}
	talloc_free(c.mem_ctx);
	return status;
}
