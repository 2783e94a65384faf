/*
 * Oplocks and leases on the shared database (MS-SMB2 3.3.5.9.8 and
 * 3.3.5.9.11 on CREATE, 3.3.5.22 acknowledgements, 3.3.4.6/3.3.4.7 break
 * notifications; MS-FSA 2.1.4.12 "Check for an Oplock Break on Open" and
 * 2.1.5.17 "Server Requests an Oplock").
 *
 * Both live in the share-mode entries of the file's record, as caching
 * states: a batch oplock is RWH, exclusive RW, level II R; a lease holds
 * the R/H/W bits it was granted.  All opens of one lease (same client
 * GUID and lease key) carry the same state and are updated together.
 * So one rule set serves both, and an open decides under the file's
 * chain lock, in one read-modify-write, which breaks it causes, whether
 * it must wait for them, whether share modes let it in and what it is
 * granted: no other open can slip in between.
 *
 * The breaks are returned to the caller, who delivers them (they may
 * belong to opens on other workers) after the chain lock is dropped.
 * A break that needs an acknowledgement (the holder may cache writes or
 * handles) leaves the entry BREAKING; an open that conflicts with a
 * BREAKING entry waits (NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) and sets
 * SHARE_REC_WAITERS, so whoever ends the break wakes the workers.
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/log.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

/* A "stat open" reads or changes only attributes: it breaks no oplock
 * or lease (smbtorture smb2.oplock.statopen1: READ_CONTROL is not one). */
#define ACC_STAT_OPEN                                                         \
	(0x00000080 /* READ_ATTRIBUTES */ | 0x00000100 /* WRITE_ATTRIBUTES */ \
	 | 0x00100000 /* SYNCHRONIZE */)

bool share_mode_is_stat_open(uint32_t access_mask)
{
	return (access_mask & ~(uint32_t)ACC_STAT_OPEN) == 0;
}

/* Against a lease, READ_CONTROL does not count either (smbtorture
 * smb2.lease.statopen4; an oplock is broken by it: oplock.statopen1). */
static bool stat_open_for(const struct share_mode_entry *e, uint32_t access)
{
	if (e->caching == CACHING_LEASE) {
		access &= ~(uint32_t)0x00020000; /* READ_CONTROL */
	}
	return share_mode_is_stat_open(access);
}

static bool same_lease(const struct share_mode_entry *e, uint8_t caching,
		       const uint8_t guid[16], const uint8_t key[16])
{
	return e->caching == CACHING_LEASE && caching == CACHING_LEASE &&
	       memcmp(e->client_guid, guid, 16) == 0 &&
	       memcmp(e->lease_key, key, 16) == 0;
}

/* What a state can be broken to: oplocks know only level II and none. */
static uint32_t break_target(const struct share_mode_entry *e, uint32_t to,
			     bool level2_ok)
{
	if (e->caching == CACHING_OPLOCK) {
		return ((to & CACHE_R) && level2_ok) ? CACHE_R : 0;
	}
	/* A lease never holds H or W without R. */
	return (to & CACHE_R) ? to : 0;
}

/* A break of from → to needs an acknowledgement when the holder may
 * have cached writes or handles (MS-SMB2 3.3.4.6, 3.3.4.7: level II and
 * R-only are broken to none without one). */
static bool break_needs_ack(uint32_t from)
{
	return (from & (CACHE_W | CACHE_H)) != 0;
}

struct rec_edit {
	struct locking_db *db;
	TALLOC_CTX *mem_ctx;	/* for the breaks array */
	struct share_mode_rec r;
	struct share_break *breaks;
	unsigned nbreaks;
	bool level2_ok;
};

static bool add_break(struct rec_edit *ed, const struct share_mode_entry *e,
		      uint32_t from, uint32_t to, uint16_t epoch, bool ack)
{
	struct share_break *b;
	unsigned i;

	/* One notification per lease, however many opens share it. */
	for (i = 0; i < ed->nbreaks && e->caching == CACHING_LEASE; i++) {
		b = &ed->breaks[i];
		if (b->caching == CACHING_LEASE &&
		    memcmp(b->lease_key, e->lease_key, 16) == 0 &&
		    memcmp(b->client_guid, e->client_guid, 16) == 0) {
			return true;
		}
	}
	b = talloc_realloc(ed->mem_ctx, ed->breaks, struct share_break,
			   ed->nbreaks + 1);
	if (b == NULL) {
		return false;
	}
	ed->breaks = b;
	b = &b[ed->nbreaks++];
	memset(b, 0, sizeof(*b));
	b->worker = e->worker;
	b->pid = e->pid;
	b->open_id = e->open_id;
	b->caching = e->caching;
	b->lease_version = e->lease_version;
	b->from = from;
	b->to = to;
	b->epoch = epoch;
	b->ack_required = ack;
	memcpy(b->lease_key, e->lease_key, 16);
	memcpy(b->client_guid, e->client_guid, 16);
	return true;
}

/* Set fields of every entry of e's lease (or e alone for an oplock). */
static void lease_apply(struct rec_edit *ed, const struct share_mode_entry *e,
			uint32_t flags_set, uint32_t flags_clear,
			uint32_t state, uint32_t breaking_to,
			uint32_t notified_to, uint16_t epoch)
{
	uint32_t i;

	for (i = 0; i < ed->r.num; i++) {
		struct share_mode_entry *x = &ed->r.e[i];

		if (x != e && !same_lease(x, e->caching, e->client_guid,
					  e->lease_key)) {
			continue;
		}
		x->flags = (x->flags | flags_set) & ~flags_clear;
		x->state = state;
		x->breaking_to = breaking_to;
		x->notified_to = notified_to;
		x->epoch = epoch;
		if (state == 0 && !(x->flags & SHARE_ENTRY_BREAKING) &&
		    x->caching == CACHING_OPLOCK) {
			x->caching = CACHING_NONE;
		}
	}
}

/*
 * Ask e to go down to `to`.  A break already under way only lowers its
 * target (the client hears about the rest after it acknowledges: lease
 * "breaking" tests).  Returns false on memory shortage.
 */
static bool request_break(struct rec_edit *ed, struct share_mode_entry *e,
			  uint32_t to)
{
	uint32_t from = e->state;
	uint16_t epoch = e->epoch;
	bool ack;

	to = break_target(e, to, ed->level2_ok);
	if (e->flags & SHARE_ENTRY_BREAKING) {
		if ((e->breaking_to & ~to) != 0) {
			lease_apply(ed, e, 0, 0, e->state, e->breaking_to & to,
				    e->notified_to, e->epoch);
		}
		return true;
	}
	if ((from & ~to) == 0) {
		return true;
	}
	ack = break_needs_ack(from);
	if (e->caching == CACHING_LEASE && e->lease_version == 2) {
		epoch++;
	}
	if (!add_break(ed, e, from, to, epoch, ack)) {
		return false;
	}
	if (ack) {
		lease_apply(ed, e, SHARE_ENTRY_BREAKING, 0, from, to, to, epoch);
	} else {
		lease_apply(ed, e, 0, SHARE_ENTRY_BREAKING, to, 0, 0, epoch);
	}
	return true;
}

static NTSTATUS edit_decode(struct rec_edit *ed, TALLOC_CTX *tmp,
			    const uint8_t *old, size_t old_len)
{
	if (old == NULL) {
		memset(&ed->r, 0, sizeof(ed->r));
		ed->r.e = talloc_array(tmp, struct share_mode_entry, 1);
		return ed->r.e ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	if (!NT_STATUS_IS_OK(share_mode_rec_decode(tmp, old, old_len,
						   &ed->r))) {
		return LOCKING_STATUS_CORRUPT;
	}
	return NT_STATUS_OK;
}

/* Whether e's owner is gone while e would refuse, break or hold up the
 * operation (`matters`): then the record is purged and the operation
 * runs again (locking_table.c), before anything is decided or sent. */
static bool gone_in_way(const struct rec_edit *ed,
			const struct share_mode_entry *e, bool matters)
{
	return matters && locking_owner_gone(ed->db, e->pid);
}

static NTSTATUS edit_store(struct rec_edit *ed, TALLOC_CTX *tmp,
			   enum locking_action *action, uint8_t **nb,
			   size_t *nl)
{
	if (ed->r.num == 0) {
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	*action = LOCKING_STORE;
	return share_mode_rec_encode(tmp, &ed->r, nb, nl);
}

/* ---- open ---- */

struct open_state {
	struct rec_edit ed;
	const struct share_open_req *q;
	struct share_open_res *res;
};

/* What the new open may hold next to the others (after their breaks). */
static uint32_t open_grant(struct open_state *s,
			   const struct share_mode_entry *same)
{
	const struct share_open_req *q = s->q;
	uint32_t want = q->want, asked, i;
	bool others = false;

	/* A directory gets no oplock; a lease only when the caller found
	 * the connection may have directory leases (MS-SMB2 3.3.5.9.11),
	 * and then with read and handle caching at most. */
	if (q->caching == CACHING_NONE ||
	    (q->is_dir && q->caching != CACHING_LEASE)) {
		return 0;
	}
	if (q->is_dir) {
		want &= CACHE_R | CACHE_H;
	}
	/* A stat open gets an oplock only on a file nobody else has open
	 * (smbtorture smb2.oplock.exclusive4, batch8, batch9, batch9a). */
	if (q->caching == CACHING_OPLOCK && s->ed.r.num > 0 &&
	    share_mode_is_stat_open(q->access_mask) && !q->overwrite) {
		return 0;
	}
	if (q->caching == CACHING_LEASE) {
		/* 2.2.13.2.8: H and W only with R. */
		if (!(want & CACHE_R)) {
			want = 0;
		}
	}
	asked = want;
	for (i = 0; i < s->ed.r.num; i++) {
		const struct share_mode_entry *e = &s->ed.r.e[i];

		if (same_lease(e, q->caching, q->client_guid, q->lease_key)) {
			continue;
		}
		/* A stat open counts when it holds a lease (smbtorture
		 * smb2.lease.statopen: its lease keeps W from others). */
		if (!share_mode_is_stat_open(e->access_mask) || e->state != 0) {
			others = true;
		}
		/* A batch or exclusive oplock left after its break means
		 * nothing better than level II for anyone. */
		if (e->state & CACHE_W) {
			want &= ~(uint32_t)(CACHE_W | CACHE_H);
		}
		/* Oplocks and handle leases do not mix (smbtorture
		 * smb2.lease.oplock): a lease next to an oplock gets no H,
		 * an oplock next to a handle lease gets nothing. */
		if (e->caching == CACHING_OPLOCK && e->state != 0) {
			want &= ~(uint32_t)CACHE_H;
		}
		if (q->caching == CACHING_OPLOCK &&
		    e->caching == CACHING_LEASE && (e->state & CACHE_H)) {
			want = 0;
		}
	}
	if (others) {
		/* Write caching only for the only open. */
		want &= ~(uint32_t)CACHE_W;
		if (q->caching == CACHING_OPLOCK) {
			/* An oplock is batch/exclusive alone, else level II. */
			want &= CACHE_R;
		}
	}
	if (q->caching == CACHING_OPLOCK) {
		if ((want & CACHE_R) && !(want & (CACHE_W | CACHE_H)) &&
		    !q->level2_ok) {
			want = 0;
		}
		/* RH is no oplock level: level II. */
		if ((want & CACHE_H) && !(want & CACHE_W)) {
			want = CACHE_R;
		}
	}
	if (same != NULL) {
		/* An open of a lease we hold: the lease may only grow, and
		 * not while it is breaking. */
		if (same->flags & SHARE_ENTRY_BREAKING) {
			return same->state;
		}
		if (others) {
			/* smbtorture smb2.lease.upgrade3: next to other opens
			 * the lease becomes what was asked when that is a
			 * strict superset and can be held with them. */
			return ((asked & same->state) == same->state &&
				asked != same->state && (asked & ~want) == 0)
				       ? asked
				       : same->state;
		}
		if ((want & same->state) != same->state) {
			/* Cannot have both: keep what it holds. */
			return same->state;
		}
		return want | same->state;
	}
	return want;
}

static NTSTATUS open_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
			enum locking_action *action, uint8_t **nb, size_t *nl,
			void *priv)
{
	struct open_state *s = priv;
	const struct share_open_req *q = s->q;
	struct share_mode_entry *same = NULL, *ne;
	bool violation = false, wait = false;
	uint32_t i, granted;
	NTSTATUS status;

	status = edit_decode(&s->ed, tmp, old, old_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* An entry of a gone owner in the way: a sharing conflict, a
	 * break it would be sent, a break it never answered, a delete it
	 * left pending. */
	for (i = 0; i < s->ed.r.num; i++) {
		const struct share_mode_entry *e = &s->ed.r.e[i];

		if (gone_in_way(&s->ed, e,
				(s->ed.r.flags & SHARE_REC_DELETE_PENDING) ||
				share_conflict(e, q->access_mask,
					       q->share_access) ||
				((e->state != 0 ||
				  (e->flags & SHARE_ENTRY_BREAKING)) &&
				 !same_lease(e, q->caching, q->client_guid,
					     q->lease_key)))) {
			return LOCKING_STATUS_STALE_OWNER;
		}
	}
	if (s->ed.r.flags & SHARE_REC_DELETE_PENDING) {
		return NT_STATUS_DELETE_PENDING;
	}
	if (s->ed.r.num >= LOCKING_MAX_OPENS_PER_FILE) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	for (i = 0; i < s->ed.r.num; i++) {
		struct share_mode_entry *e = &s->ed.r.e[i];
		bool is_same = same_lease(e, q->caching, q->client_guid,
					  q->lease_key);

		if (e->pid == q->o.pid && e->open_id == q->o.open_id) {
			return NT_STATUS_INTERNAL_ERROR;
		}
		if (is_same && same == NULL) {
			same = e;
		}
		if (!share_conflict(e, q->access_mask, q->share_access)) {
			continue;
		}
		violation = true;
		/* MS-FSA 2.1.5.1.2.1: a sharing conflict with a batch
		 * oplock or a handle-caching lease breaks it first: the
		 * holder may only keep the handle open for caching. */
		if (!is_same && ((e->state | e->breaking_to) & CACHE_H)) {
			/* Only H goes here (smbtorture smb2.lease.break_twice:
			 * RWH -> RW); a batch oplock becomes level II. */
			if (!request_break(&s->ed, e, e->state & ~CACHE_H)) {
				return NT_STATUS_NO_MEMORY;
			}
			if (e->flags & SHARE_ENTRY_BREAKING) {
				wait = true;
			}
		}
	}
	if (violation && !wait) {
		/* Keep the no-ack breaks made above? There are none: an
		 * H break always needs an acknowledgement. */
		return NT_STATUS_SHARING_VIOLATION;
	}
	/* 2.1.4.12: the breaks an open causes on the other holders. */
	for (i = 0; i < s->ed.r.num && !violation; i++) {
		struct share_mode_entry *e = &s->ed.r.e[i];
		uint32_t to;

		if (same_lease(e, q->caching, q->client_guid, q->lease_key) ||
		    e->state == 0 ||
		    (stat_open_for(e, q->access_mask) && !q->overwrite)) {
			continue;
		}
		to = e->state & ~(uint32_t)CACHE_W;
		if (q->overwrite) {
			/* The data goes: nothing cached of it stays. */
			to = 0;
		}
		if (!request_break(&s->ed, e, to)) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	for (i = 0; i < s->ed.r.num; i++) {
		const struct share_mode_entry *e = &s->ed.r.e[i];

		if (stat_open_for(e, q->access_mask) && !q->overwrite) {
			continue;
		}
		uint32_t going;

		if (!(e->flags & SHARE_ENTRY_BREAKING) ||
		    same_lease(e, q->caching, q->client_guid, q->lease_key)) {
			continue;
		}
		/* An open waits for the write cache to be flushed (H only
		 * matters for a sharing conflict, handled above); once it
		 * waits, it waits until the holder's break is over, steps
		 * and all (smbtorture smb2.lease.breaking3 and 4). */
		going = e->state & ~e->breaking_to;
		if (q->retry ? going != 0 : (going & CACHE_W) != 0) {
			wait = true;
		}
	}
	s->res->breaks = s->ed.breaks;
	s->res->nbreaks = s->ed.nbreaks;
	if (wait) {
		s->ed.r.flags |= SHARE_REC_WAITERS;
		status = edit_store(&s->ed, tmp, action, nb, nl);
		return NT_STATUS_IS_OK(status) ? NT_STATUS_OPLOCK_BREAK_IN_PROGRESS
					       : status;
	}
	granted = open_grant(s, same);
	ne = &s->ed.r.e[s->ed.r.num];
	if (old != NULL) {
		long same_idx = same ? (long)(same - s->ed.r.e) : -1;
		struct share_mode_entry *grown = talloc_realloc(
			tmp, s->ed.r.e, struct share_mode_entry,
			s->ed.r.num + 1);

		if (grown == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		s->ed.r.e = grown;
		same = same_idx >= 0 ? &grown[same_idx] : NULL;
		ne = &grown[s->ed.r.num];
	}
	memset(ne, 0, sizeof(*ne));
	ne->pid = q->o.pid;
	ne->open_id = q->o.open_id;
	ne->worker = q->worker;
	ne->access_mask = q->access_mask;
	ne->share_access = q->share_access;
	if (q->caching == CACHING_LEASE) {
		ne->caching = CACHING_LEASE;
		/* The lease keeps the version it was created with, whatever
		 * later opens of it send (smb2.lease.v2_epoch2/3). */
		ne->lease_version = same != NULL ? same->lease_version
			: q->lease_version ? q->lease_version : 1;
		memcpy(ne->lease_key, q->lease_key, 16);
		memcpy(ne->client_guid, q->client_guid, 16);
		if (same != NULL) {
			ne->flags = same->flags & SHARE_ENTRY_BREAKING;
			ne->breaking_to = same->breaking_to;
			ne->notified_to = same->notified_to;
			ne->epoch = same->epoch;
			if (granted != same->state && ne->lease_version == 2) {
				ne->epoch++;
			}
		} else {
			/* 3.3.5.9.11: a new v2 lease starts one past the
			 * client's epoch. */
			ne->epoch = ne->lease_version == 2 ? q->epoch + 1 : 0;
		}
		ne->state = granted;
	} else if (granted != 0) {
		ne->caching = CACHING_OPLOCK;
		ne->state = granted;
	}
	s->ed.r.num++;
	if (same != NULL && ne->state != same->state) {
		lease_apply(&s->ed, ne, 0, 0, ne->state, ne->breaking_to,
			    ne->notified_to, ne->epoch);
	}
	s->res->granted = ne->state;
	s->res->epoch = ne->epoch;
	s->res->breaking = (ne->flags & SHARE_ENTRY_BREAKING) != 0;
	s->res->breaking_to = ne->breaking_to;
	s->res->lease_version = ne->lease_version;
	return edit_store(&s->ed, tmp, action, nb, nl);
}

NTSTATUS share_mode_open(struct locking_db *db, TALLOC_CTX *mem_ctx,
			 const struct file_key *k,
			 const struct share_open_req *q,
			 struct share_open_res *res)
{
	struct open_state s = {.q = q, .res = res};
	NTSTATUS status;

	memset(res, 0, sizeof(*res));
	s.ed.db = db;
	s.ed.mem_ctx = mem_ctx;
	s.ed.level2_ok = q->level2_ok;
	status = locking_modify(db->share, k, open_fn, &s);
	if (!NT_STATUS_IS_OK(status) &&
	    status != NT_STATUS_OPLOCK_BREAK_IN_PROGRESS) {
		/* Nothing was stored: no break may go out. */
		TALLOC_FREE(s.ed.breaks);
		res->breaks = NULL;
		res->nbreaks = 0;
	}
	return status;
}

/* ---- acknowledgements, timeouts, contention ---- */

struct ack_state {
	struct rec_edit ed;
	const struct open_owner *o;	/* an oplock's open */
	const uint8_t *guid, *key;	/* or a lease */
	uint32_t ack;
	bool timeout;
	bool proto_error;	/* an oplock acked above its break */
	bool wake;
	uint32_t state;
	uint16_t epoch;
	bool found;
};

static struct share_mode_entry *ack_find(struct ack_state *a)
{
	uint32_t i;

	for (i = 0; i < a->ed.r.num; i++) {
		struct share_mode_entry *e = &a->ed.r.e[i];

		if (a->o != NULL ? (e->pid == a->o->pid &&
				    e->open_id == a->o->open_id)
				 : same_lease(e, CACHING_LEASE, a->guid,
					      a->key)) {
			return e;
		}
	}
	return NULL;
}

/* Every break of the file ends as if acknowledged with what it said. */
static NTSTATUS expire_all(struct ack_state *a, TALLOC_CTX *tmp,
			   enum locking_action *action, uint8_t **nb,
			   size_t *nl)
{
	uint32_t i;

	for (i = 0; i < a->ed.r.num; i++) {
		struct share_mode_entry *e = &a->ed.r.e[i];

		if (e->flags & SHARE_ENTRY_BREAKING) {
			DBG_NOTICE("break of open %u/%llu timed out\n",
				   (unsigned)e->pid,
				   (unsigned long long)e->open_id);
			/* MS-SMB2 3.3.6.1 (oplocks), 3.3.6.5 (leases): an
			 * unanswered break leaves nothing cached. */
			lease_apply(&a->ed, e, 0, SHARE_ENTRY_BREAKING, 0, 0,
				    0, e->epoch);
			a->wake = true;
		}
	}
	if (!a->wake) {
		*action = LOCKING_KEEP;
		return NT_STATUS_OK;
	}
	return edit_store(&a->ed, tmp, action, nb, nl);
}

static NTSTATUS ack_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		       enum locking_action *action, uint8_t **nb, size_t *nl,
		       void *priv)
{
	struct ack_state *a = priv;
	struct share_mode_entry *e;
	NTSTATUS st;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	st = edit_decode(&a->ed, tmp, old, old_len);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (a->timeout && a->o == NULL && a->guid == NULL) {
		return expire_all(a, tmp, action, nb, nl);
	}
	e = ack_find(a);
	if (e == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	a->found = true;
	if (!(e->flags & SHARE_ENTRY_BREAKING)) {
		a->state = e->state;
		a->epoch = e->epoch;
		return a->timeout ? NT_STATUS_OK : NT_STATUS_INVALID_OPLOCK_PROTOCOL;
	}
	if (a->timeout) {
		a->ack = e->breaking_to;
	} else if ((a->ack & ~e->notified_to) != 0) {
		/* 3.3.5.22.1/2: more than the break left it. */
		if (e->caching == CACHING_LEASE) {
			return NT_STATUS_REQUEST_NOT_ACCEPTED;
		}
		/* The oplock is gone and the error is the reply's; the
		 * record must still change (an error keeps it as it is). */
		a->ack = 0;
		a->proto_error = true;
	}
	if ((a->ack & ~e->breaking_to) != 0 && !a->timeout) {
		/* Acknowledged what the client was told, but a later open
		 * wants less: break again, H and W first, R after
		 * (smbtorture smb2.lease.breaking3: RH, then R, then none). */
		uint32_t to = e->breaking_to & a->ack;

		if ((a->ack & (CACHE_H | CACHE_W) & ~to) &&
		    (a->ack & CACHE_R)) {
			to |= CACHE_R;
		}
		/* The next step of a break already counted: a v2 lease's
		 * epoch went up when the break began and stays (Windows:
		 * smb2.lease.v2_breaking3). */
		lease_apply(&a->ed, e, 0, 0, a->ack, to, to, e->epoch);
		if (!add_break(&a->ed, e, a->ack, to, e->epoch,
			       break_needs_ack(a->ack))) {
			return NT_STATUS_NO_MEMORY;
		}
		if (!break_needs_ack(a->ack)) {
			lease_apply(&a->ed, e, 0, SHARE_ENTRY_BREAKING, to, 0,
				    0, e->epoch);
		}
	} else {
		lease_apply(&a->ed, e, 0, SHARE_ENTRY_BREAKING, a->ack, 0, 0,
			    e->epoch);
	}
	a->state = a->ack;
	a->epoch = e->epoch;
	a->wake = (a->ed.r.flags & SHARE_REC_WAITERS) != 0;
	return edit_store(&a->ed, tmp, action, nb, nl);
}

static NTSTATUS ack_run(struct locking_db *db, const struct file_key *k,
			struct ack_state *a, struct share_ack_res *res)
{
	NTSTATUS status = locking_modify(db->share, k, ack_fn, a);

	if (NT_STATUS_IS_OK(status) && a->proto_error) {
		status = NT_STATUS_INVALID_OPLOCK_PROTOCOL;
	}
	res->state = a->state;
	res->epoch = a->epoch;
	res->wake = a->wake;
	res->breaks = a->ed.breaks;
	res->nbreaks = a->ed.nbreaks;
	return status;
}

NTSTATUS share_mode_oplock_ack(struct locking_db *db, TALLOC_CTX *mem_ctx,
			       const struct file_key *k,
			       const struct open_owner *o, uint32_t ack,
			       struct share_ack_res *res)
{
	struct ack_state a = {.o = o, .ack = ack};

	a.ed.db = db;
	a.ed.mem_ctx = mem_ctx;
	a.ed.level2_ok = true;
	return ack_run(db, k, &a, res);
}

NTSTATUS share_mode_lease_ack(struct locking_db *db, TALLOC_CTX *mem_ctx,
			      const struct file_key *k, const uint8_t guid[16],
			      const uint8_t key[16], uint32_t ack,
			      struct share_ack_res *res)
{
	struct ack_state a = {.guid = guid, .key = key, .ack = ack};

	a.ed.db = db;
	a.ed.mem_ctx = mem_ctx;
	a.ed.level2_ok = true;
	return ack_run(db, k, &a, res);
}

NTSTATUS share_mode_break_timeout(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t guid[16], const uint8_t key[16],
				  struct share_ack_res *res)
{
	struct ack_state a = {.o = o, .guid = guid, .key = key,
			      .timeout = true};

	a.ed.db = db;
	a.ed.mem_ctx = mem_ctx;
	a.ed.level2_ok = true;
	return ack_run(db, k, &a, res);
}

struct contend_state {
	struct rec_edit ed;
	const struct open_owner *o;
	const uint8_t *guid, *key;
	/* A directory's entry changed: every lease on it goes (a
	 * directory holds R and H, never W), breaking ones to none too. */
	bool dir_change;
};

/* What a WRITE (or a change of a directory's entries) takes from e. */
static bool contend_breaks(const struct contend_state *c,
			   const struct share_mode_entry *e)
{
	if (c->dir_change) {
		return e->caching == CACHING_LEASE && e->state != 0;
	}
	/* Only read caching is left to others of a file someone writes (W
	 * would have been broken at their open). */
	return (e->state & CACHE_R) && !(e->state & CACHE_W) &&
	       !(e->flags & SHARE_ENTRY_BREAKING);
}

static NTSTATUS contend_fn(TALLOC_CTX *tmp, const uint8_t *old,
			   size_t old_len, enum locking_action *action,
			   uint8_t **nb, size_t *nl, void *priv)
{
	struct contend_state *c = priv;
	NTSTATUS status;
	uint32_t i;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	status = edit_decode(&c->ed, tmp, old, old_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i < c->ed.r.num; i++) {
		if (gone_in_way(&c->ed, &c->ed.r.e[i],
				contend_breaks(c, &c->ed.r.e[i]))) {
			return LOCKING_STATUS_STALE_OWNER;
		}
	}
	for (i = 0; i < c->ed.r.num; i++) {
		struct share_mode_entry *e = &c->ed.r.e[i];

		/* The writer's own level II oplock goes too (smbtorture
		 * smb2.oplock.batch1: "a self break to none"); its own
		 * lease stays. */
		if (c->guid != NULL &&
		    same_lease(e, CACHING_LEASE, c->guid, c->key)) {
			continue;
		}
		if (contend_breaks(c, e) && !request_break(&c->ed, e, 0)) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (c->ed.nbreaks == 0) {
		*action = LOCKING_KEEP;
		return NT_STATUS_OK;
	}
	return edit_store(&c->ed, tmp, action, nb, nl);
}

NTSTATUS share_mode_break_readers(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t *guid, const uint8_t *key,
				  struct share_break **breaks, unsigned *n)
{
	struct contend_state c = {.o = o, .guid = guid, .key = key};
	NTSTATUS status;

	c.ed.db = db;
	c.ed.mem_ctx = mem_ctx;
	c.ed.level2_ok = true;
	status = locking_modify(db->share, k, contend_fn, &c);
	*breaks = c.ed.breaks;
	*n = c.ed.nbreaks;
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

/* ---- directory leases: an entry of the directory changed ---- */

NTSTATUS share_mode_break_dir_leases(struct locking_db *db,
				     TALLOC_CTX *mem_ctx,
				     const struct file_key *dir,
				     const uint8_t *guid, const uint8_t *key,
				     struct share_break **breaks, unsigned *n)
{
	struct contend_state c = {.guid = guid, .key = key,
				  .dir_change = true};
	NTSTATUS status;

	c.ed.db = db;
	c.ed.mem_ctx = mem_ctx;
	c.ed.level2_ok = true;
	status = locking_modify(db->share, dir, contend_fn, &c);
	*breaks = c.ed.breaks;
	*n = c.ed.nbreaks;
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

/* Whether any open of the file holds something a READ/WRITE elsewhere
 * must break: a cheap in-place look before share_mode_break_readers. */
static NTSTATUS has_readers_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct locking_rec_iter it;
	struct share_mode_entry e;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it, &e))) {
		if (e.state != 0) {
			*(unsigned *)priv += 1;
		}
	}
	return NT_STATUS_OK;
}

unsigned share_mode_cached_opens(struct locking_db *db,
				 const struct file_key *k)
{
	unsigned n = 0;

	(void)locking_read(db->share, k, has_readers_fn, &n);
	return n;
}

/* ---- rename: handle caching of the other opens ---- */

struct handles_state {
	struct rec_edit ed;
	const struct open_owner *o;
	const uint8_t *guid, *key;
	bool retry;
	bool wait;
};

static NTSTATUS handles_fn(TALLOC_CTX *tmp, const uint8_t *old,
			   size_t old_len, enum locking_action *action,
			   uint8_t **nb, size_t *nl, void *priv)
{
	struct handles_state *h = priv;
	NTSTATUS status;
	uint32_t i;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	status = edit_decode(&h->ed, tmp, old, old_len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i < h->ed.r.num; i++) {
		const struct share_mode_entry *e = &h->ed.r.e[i];

		if (gone_in_way(&h->ed, e,
				e->caching == CACHING_LEASE &&
				(e->state & CACHE_H ||
				 (e->flags & SHARE_ENTRY_BREAKING)))) {
			return LOCKING_STATUS_STALE_OWNER;
		}
	}
	for (i = 0; i < h->ed.r.num; i++) {
		struct share_mode_entry *e = &h->ed.r.e[i];

		if ((e->pid == h->o->pid && e->open_id == h->o->open_id) ||
		    (h->guid != NULL &&
		     same_lease(e, CACHING_LEASE, h->guid, h->key)) ||
		    e->caching != CACHING_LEASE) {
			continue;
		}
		if ((e->state & CACHE_H) &&
		    !request_break(&h->ed, e, e->state & ~CACHE_H)) {
			return NT_STATUS_NO_MEMORY;
		}
		if (e->flags & SHARE_ENTRY_BREAKING) {
			uint32_t going = e->state & ~e->breaking_to;

			if (h->retry ? going != 0 : (going & CACHE_H) != 0) {
				h->wait = true;
			}
		}
	}
	if (h->wait) {
		h->ed.r.flags |= SHARE_REC_WAITERS;
	} else if (h->ed.nbreaks == 0) {
		*action = LOCKING_KEEP;
		return NT_STATUS_OK;
	}
	return edit_store(&h->ed, tmp, action, nb, nl);
}

NTSTATUS share_mode_break_handles(struct locking_db *db, TALLOC_CTX *mem_ctx,
				  const struct file_key *k,
				  const struct open_owner *o,
				  const uint8_t *guid, const uint8_t *key,
				  bool retry, struct share_break **breaks,
				  unsigned *n)
{
	struct handles_state h = {.o = o, .guid = guid, .key = key,
				  .retry = retry};
	NTSTATUS status;

	h.ed.db = db;
	h.ed.mem_ctx = mem_ctx;
	h.ed.level2_ok = true;
	status = locking_modify(db->share, k, handles_fn, &h);
	*breaks = h.ed.breaks;
	*n = h.ed.nbreaks;
	if (status == NT_STATUS_NOT_FOUND) {
		return NT_STATUS_OK;
	}
	if (NT_STATUS_IS_OK(status) && h.wait) {
		return NT_STATUS_OPLOCK_BREAK_IN_PROGRESS;
	}
	return status;
}

/* ---- durable reconnect: what one open holds ---- */

struct entry_get_state {
	const struct open_owner *o;
	struct share_mode_entry *out;
	bool found;
};

static NTSTATUS entry_get_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct entry_get_state *s = priv;
	struct locking_rec_iter it;
	struct share_mode_entry e;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(share_mode_rec_iter_next(&it, &e))) {
		if (e.pid == s->o->pid && e.open_id == s->o->open_id) {
			*s->out = e;
			s->found = true;
			break;
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS share_mode_get_entry(struct locking_db *db, const struct file_key *k,
			      const struct open_owner *o,
			      struct share_mode_entry *out)
{
	struct entry_get_state s = {.o = o, .out = out};
	NTSTATUS status = locking_read(db->share, k, entry_get_fn, &s);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return s.found ? NT_STATUS_OK : NT_STATUS_NOT_FOUND;
}
