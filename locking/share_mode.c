/*
 * Share modes (MS-FSA 2.1.5.1.2 open of an existing file, 2.1.5.4 cleanup,
 * 2.1.5.14.3 FileDispositionInformation) on the shared database.
 *
 * One record per file lists its opens.  Every change is one
 * read-modify-write under the file's chain lock (locking_modify), so two
 * workers opening the same file at once see each other.  Entries are
 * fixed-size, so adding appends one entry to a copy of the old record and
 * removing copies around it; nothing is decoded into an array.
 *
 * The access masks are the granted ones, generic bits already mapped
 * (GENERIC_READ is FILE_READ_DATA etc., MAXIMUM_ALLOWED resolved).
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/log.h"
#include "lib/wire.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

#define FILE_SHARE_READ 0x1
#define FILE_SHARE_WRITE 0x2
#define FILE_SHARE_DELETE 0x4

#define ACC_READ_DATA 0x00000001
#define ACC_WRITE_DATA 0x00000002
#define ACC_APPEND_DATA 0x00000004
#define ACC_EXECUTE 0x00000020
#define ACC_DELETE 0x00010000
#define ACC_READS (ACC_READ_DATA | ACC_EXECUTE)
#define ACC_WRITES (ACC_WRITE_DATA | ACC_APPEND_DATA)
/* Opens with none of these (attributes, security) never conflict. */
#define ACC_DATA (ACC_READS | ACC_WRITES | ACC_DELETE)

static bool owner_is(const struct share_mode_entry *e,
		     const struct open_owner *o)
{
	return o != NULL && e->pid == o->pid && e->open_id == o->open_id;
}

/*
 * MS-FSA 2.1.5.1.2: an open that asks for data access must be allowed by
 * the share access of every open that has data access, and must itself
 * share what they use.
 */
bool share_conflict(const struct share_mode_entry *e, uint32_t access,
		    uint32_t share)
{
	if (e->flags & SHARE_ENTRY_STREAM) {
		return (access & ACC_DELETE) &&
		       !(e->share_access & FILE_SHARE_DELETE);
	}
	if ((e->access_mask & ACC_DATA) == 0 || (access & ACC_DATA) == 0) {
		return false;
	}
	if (((access & ACC_READS) && !(e->share_access & FILE_SHARE_READ)) ||
	    ((access & ACC_WRITES) && !(e->share_access & FILE_SHARE_WRITE)) ||
	    ((access & ACC_DELETE) && !(e->share_access & FILE_SHARE_DELETE))) {
		return true;
	}
	if (((e->access_mask & ACC_READS) && !(share & FILE_SHARE_READ)) ||
	    ((e->access_mask & ACC_WRITES) && !(share & FILE_SHARE_WRITE)) ||
	    ((e->access_mask & ACC_DELETE) && !(share & FILE_SHARE_DELETE))) {
		return true;
	}
	return false;
}

/* ---- owners that are gone (issue 34 item 11) ---- */

NTSTATUS share_mode_purge_fn(TALLOC_CTX *tmp, const uint8_t *old,
			     size_t old_len, enum locking_action *action,
			     uint8_t **nb, size_t *nl, void *priv)
{
	struct locking_db *db = priv;
	struct share_mode_rec r;
	uint32_t i, n = 0;

	if (old == NULL) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(share_mode_rec_decode(tmp, old, old_len, &r))) {
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
		return share_mode_rec_encode(tmp, &r, nb, nl);
	}
	return NT_STATUS_OK;
}

/* A pending delete whose every open is gone is no longer pending: the
 * purge drops the record (and the flag with it). */
static NTSTATUS pending_or_stale(struct locking_db *db, const uint8_t *buf,
				 size_t len)
{
	struct locking_rec_iter it;
	struct share_mode_entry e;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(share_mode_rec_iter_next(&it, &e))) {
		if (!locking_owner_gone(db, e.pid)) {
			return NT_STATUS_DELETE_PENDING;
		}
	}
	return LOCKING_STATUS_STALE_OWNER;
}

/* ---- add ---- */

struct add_state {
	struct locking_db *db;
	const struct open_owner *o;
	uint32_t access;
	uint32_t share;
	uint32_t flags;		/* SHARE_ENTRY_STREAM or 0 */
};
/* The record old (count entries, header flags) with e after them: a new
 * buffer on tmp to store; INSUFFICIENT_RESOURCES past the bound. */
static NTSTATUS rec_append(TALLOC_CTX *tmp, const uint8_t *old,
			   size_t old_len, uint32_t count, uint16_t flags,
			   const struct share_mode_entry *e,
			   enum locking_action *action, uint8_t **nb,
			   size_t *nl)
{
	size_t len = LOCKING_REC_HDR_LEN + ((size_t)count + 1) *
						   SHARE_ENTRY_LEN;
	uint8_t *buf;

	if (count >= LOCKING_MAX_OPENS_PER_FILE) {
		return NT_STATUS_INSUFFICIENT_RESOURCES;
	}
	buf = talloc_size(tmp, len);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (old != NULL) {
		memcpy(buf, old, old_len);
	}
	locking_rec_put_header(buf, LOCKING_KIND_SHARE, flags, count + 1);
	share_mode_entry_put(buf + LOCKING_REC_HDR_LEN +
				     (size_t)count * SHARE_ENTRY_LEN,
			     e);
	*nb = buf;
	*nl = len;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}


static NTSTATUS add_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		       enum locking_action *action, uint8_t **nb, size_t *nl,
		       void *priv)
{
	struct add_state *a = priv;
	struct share_mode_entry e;
	struct locking_rec_iter it;
	uint32_t count = 0;
	uint16_t flags = 0;
	NTSTATUS status;

	if (old != NULL) {
		if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, old,
							      old_len))) {
			return LOCKING_STATUS_CORRUPT;
		}
		/* MS-FSA 2.1.5.1.2: a pending delete refuses new opens
		 * before any sharing check. */
		if (it.flags & SHARE_REC_DELETE_PENDING) {
			return pending_or_stale(a->db, old, old_len);
		}
		count = it.left;
		flags = it.flags;
		while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it,
									 &e))) {
			if (owner_is(&e, a->o)) {
				DBG_ERR("open %u/%llu registered twice\n",
					(unsigned)e.pid,
					(unsigned long long)e.open_id);
				return NT_STATUS_INTERNAL_ERROR;
			}
			if (share_conflict(&e, a->access, a->share)) {
				return locking_owner_gone(a->db, e.pid)
					       ? LOCKING_STATUS_STALE_OWNER
					       : NT_STATUS_SHARING_VIOLATION;
			}
		}
		if (status != NT_STATUS_NO_MORE_ENTRIES) {
			return LOCKING_STATUS_CORRUPT;
		}
	}
	e = (struct share_mode_entry){
		.pid = a->o->pid,
		.flags = a->flags,
		.open_id = a->o->open_id,
		.access_mask = a->access,
		.share_access = a->share,
	};
	return rec_append(tmp, old, old_len, count, flags, &e, action, nb, nl);
}

NTSTATUS share_mode_add(struct locking_db *db, const struct file_key *k,
			const struct open_owner *o, uint32_t access_mask,
			uint32_t share_access)
{
	struct add_state a = {
		.db = db, .o = o, .access = access_mask,
		.share = share_access,
	};

	return locking_modify(db->share, k, add_fn, &a);
}

NTSTATUS share_mode_add_stream_ref(struct locking_db *db,
				   const struct file_key *k,
				   const struct open_owner *o,
				   uint32_t share_access)
{
	struct add_state a = {
		.db = db, .o = o, .share = share_access,
		.flags = SHARE_ENTRY_STREAM,
	};

	return locking_modify(db->share, k, add_fn, &a);
}

/* ---- find one open in a record ---- */

/* Index of o's entry, or -1; LOCKING_STATUS_CORRUPT on a bad record. */
static NTSTATUS find_owner(const uint8_t *buf, size_t len,
			   const struct open_owner *o,
			   struct locking_rec_iter *hdr, long *idx,
			   struct share_mode_entry *found)
{
	struct share_mode_entry e;
	struct locking_rec_iter it;
	NTSTATUS status;
	long i = 0;

	*idx = -1;
	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	*hdr = it;
	while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it, &e))) {
		if (*idx == -1 && owner_is(&e, o)) {
			*idx = i;
			*found = e;
		}
		i++;
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

/* ---- remove ---- */

struct remove_state {
	const struct open_owner *o;
	bool last;
	bool delete_now;
	bool wake;
};

static NTSTATUS remove_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
			  enum locking_action *action, uint8_t **nb, size_t *nl,
			  void *priv)
{
	struct remove_state *r = priv;
	struct locking_rec_iter hdr;
	struct share_mode_entry e;
	uint16_t flags;
	size_t at, n;
	NTSTATUS status;
	uint8_t *buf;
	long idx;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	status = find_owner(old, old_len, r->o, &hdr, &idx, &e);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (idx < 0) {
		return NT_STATUS_NOT_FOUND;
	}
	flags = hdr.flags;
	r->wake = (flags & SHARE_REC_WAITERS) != 0;
	if (hdr.left == 1) {
		r->last = true;
		r->delete_now = (flags & SHARE_REC_DELETE_PENDING) ||
				(e.flags & SHARE_ENTRY_DELETE_ON_CLOSE);
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	/* MS-FSA 2.1.5.4: closing an open with DeleteOnClose makes the
	 * file's delete pending for the opens that remain. */
	if (e.flags & SHARE_ENTRY_DELETE_ON_CLOSE) {
		flags |= SHARE_REC_DELETE_PENDING;
	}
	n = old_len - SHARE_ENTRY_LEN;
	buf = talloc_size(tmp, n);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	at = LOCKING_REC_HDR_LEN + (size_t)idx * SHARE_ENTRY_LEN;
	memcpy(buf, old, at);
	memcpy(buf + at, old + at + SHARE_ENTRY_LEN,
	       old_len - at - SHARE_ENTRY_LEN);
	locking_rec_put_header(buf, LOCKING_KIND_SHARE, flags, hdr.left - 1);
	*nb = buf;
	*nl = n;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

NTSTATUS share_mode_remove_wake(struct locking_db *db,
				const struct file_key *k,
				const struct open_owner *o, bool *last,
				bool *delete_now, bool *wake)
{
	struct remove_state r = {.o = o};
	NTSTATUS status;

	status = locking_modify(db->share, k, remove_fn, &r);
	*last = NT_STATUS_IS_OK(status) && r.last;
	*delete_now = NT_STATUS_IS_OK(status) && r.delete_now;
	*wake = NT_STATUS_IS_OK(status) && r.wake;
	return status;
}

NTSTATUS share_mode_remove(struct locking_db *db, const struct file_key *k,
			   const struct open_owner *o, bool *last,
			   bool *delete_now)
{
	bool wake;

	return share_mode_remove_wake(db, k, o, last, delete_now, &wake);
}

/* ---- delete on close ---- */

/* A copy of the record to edit o's entry in: its index, the entry and
 * the header.  NT_STATUS_NOT_FOUND when o has no entry. */
static NTSTATUS owner_edit_begin(TALLOC_CTX *tmp, const uint8_t *old,
				 size_t old_len, const struct open_owner *o,
				 struct locking_rec_iter *hdr, long *idx,
				 struct share_mode_entry *e, uint8_t **buf)
{
	NTSTATUS status;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	status = find_owner(old, old_len, o, hdr, idx, e);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (*idx < 0) {
		return NT_STATUS_NOT_FOUND;
	}
	*buf = talloc_memdup(tmp, old, old_len);
	return *buf == NULL ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
}

/* One read-modify-write of o's entry alone: edit changes its fields. */
struct owner_edit_state {
	const struct open_owner *o;
	void (*edit)(struct share_mode_entry *e, void *priv);
	void *priv;
};

static NTSTATUS owner_edit_fn(TALLOC_CTX *tmp, const uint8_t *old,
			      size_t old_len, enum locking_action *action,
			      uint8_t **nb, size_t *nl, void *priv)
{
	struct owner_edit_state *s = priv;
	struct locking_rec_iter hdr;
	struct share_mode_entry e;
	NTSTATUS status;
	uint8_t *buf;
	long idx;

	status = owner_edit_begin(tmp, old, old_len, s->o, &hdr, &idx, &e,
				  &buf);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	s->edit(&e, s->priv);
	share_mode_entry_put(buf + LOCKING_REC_HDR_LEN +
				     (size_t)idx * SHARE_ENTRY_LEN,
			     &e);
	*nb = buf;
	*nl = old_len;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

/* NT_STATUS_NOT_FOUND when o has no entry (the record is left). */
static NTSTATUS owner_edit(struct locking_db *db, const struct file_key *k,
			   const struct open_owner *o,
			   void (*edit)(struct share_mode_entry *e,
					void *priv),
			   void *priv)
{
	struct owner_edit_state s = {.o = o, .edit = edit, .priv = priv};

	return locking_modify(db->share, k, owner_edit_fn, &s);
}

struct doc_state {
	const struct open_owner *o;
	bool on;
};

static NTSTATUS doc_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		       enum locking_action *action, uint8_t **nb, size_t *nl,
		       void *priv)
{
	struct doc_state *d = priv;
	struct locking_rec_iter hdr;
	struct share_mode_entry e;
	NTSTATUS status;
	uint16_t flags;
	uint8_t *buf;
	long idx;

	status = owner_edit_begin(tmp, old, old_len, d->o, &hdr, &idx, &e,
				  &buf);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	flags = hdr.flags;
	if (d->on) {
		flags |= SHARE_REC_DELETE_PENDING;
	} else {
		flags &= (uint16_t)~SHARE_REC_DELETE_PENDING;
	}
	locking_rec_put_header(buf, LOCKING_KIND_SHARE, flags, hdr.left);
	*nb = buf;
	*nl = old_len;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

NTSTATUS share_mode_set_delete_on_close(struct locking_db *db,
					const struct file_key *k,
					const struct open_owner *o, bool on)
{
	struct doc_state d = {.o = o, .on = on};

	return locking_modify(db->share, k, doc_fn, &d);
}

static void doc_edit(struct share_mode_entry *e, void *priv)
{
	if (*(const bool *)priv) {
		e->flags |= SHARE_ENTRY_DELETE_ON_CLOSE;
	} else {
		e->flags &= ~(uint32_t)SHARE_ENTRY_DELETE_ON_CLOSE;
	}
}

NTSTATUS share_mode_set_open_delete_on_close(struct locking_db *db,
					     const struct file_key *k,
					     const struct open_owner *o,
					     bool on)
{
	return owner_edit(db, k, o, doc_edit, &on);
}

/* ---- a ChangeTime the client set ---- */

struct ct_state {
	uint64_t change_time, ctime;
};

static void ct_edit(struct share_mode_entry *e, void *priv)
{
	const struct ct_state *c = priv;

	e->change_time = c->change_time;
	e->change_ctime = c->ctime;
}

NTSTATUS share_mode_set_change_time(struct locking_db *db,
				    const struct file_key *k,
				    const struct open_owner *o,
				    uint64_t change_time, uint64_t ctime)
{
	struct ct_state c = {.change_time = change_time, .ctime = ctime};

	return owner_edit(db, k, o, ct_edit, &c);
}

/* ---- queries ---- */

struct query_state {
	uint64_t ctime;
	struct share_mode_file_state *out;
};

static NTSTATUS query_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct query_state *q = priv;
	struct share_mode_entry e;
	struct locking_rec_iter it;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	q->out->delete_pending = (it.flags & SHARE_REC_DELETE_PENDING) != 0;
	if (q->ctime == 0) {
		return NT_STATUS_OK;
	}
	while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it, &e))) {
		/* Only while nothing changed the file since: a ctime that
		 * moved is a change the client did not set. */
		if (e.change_time != 0 && e.change_ctime == q->ctime) {
			q->out->change_time = e.change_time;
			return NT_STATUS_OK;
		}
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

NTSTATUS share_mode_file_state(struct locking_db *db,
			       const struct file_key *k, uint64_t ctime,
			       struct share_mode_file_state *out)
{
	struct query_state q = {.ctime = ctime, .out = out};
	NTSTATUS status;

	memset(out, 0, sizeof(*out));
	status = locking_read(db->share, k, query_fn, &q);
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

NTSTATUS share_mode_delete_pending(struct locking_db *db,
				   const struct file_key *k, bool *pending)
{
	struct share_mode_file_state fs;
	NTSTATUS status;

	status = share_mode_file_state(db, k, 0, &fs);
	*pending = fs.delete_pending;
	return status;
}

struct check_delete_state {
	struct locking_db *db;
	const struct open_owner *o;
};

static NTSTATUS check_delete_fn(const uint8_t *buf, size_t len, void *priv)
{
	const struct check_delete_state *cd = priv;
	const struct open_owner *o = cd->o;
	struct share_mode_entry e;
	struct locking_rec_iter it;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it, &e))) {
		/* Attribute-only opens took no part in the sharing check
		 * and do not stop a rename or delete either. */
		if (owner_is(&e, o) || ((e.access_mask & ACC_DATA) == 0 &&
					!(e.flags & SHARE_ENTRY_STREAM))) {
			continue;
		}
		if (!(e.share_access & FILE_SHARE_DELETE)) {
			return locking_owner_gone(cd->db, e.pid)
				       ? LOCKING_STATUS_STALE_OWNER
				       : NT_STATUS_SHARING_VIOLATION;
		}
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

NTSTATUS share_mode_check_delete(struct locking_db *db,
				 const struct file_key *k,
				 const struct open_owner *o)
{
	struct check_delete_state cd = {.db = db, .o = o};
	NTSTATUS status;

	status = locking_read(db->share, k, check_delete_fn, &cd);
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

struct rename_parent {
	struct locking_db *db;
	bool (*stops)(const struct open_owner *o, void *priv);
	void *priv;
};

static NTSTATUS rename_parent_fn(const uint8_t *buf, size_t len, void *priv)
{
	const struct rename_parent *rp = priv;
	struct share_mode_entry e;
	struct locking_rec_iter it;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(status = share_mode_rec_iter_next(&it, &e))) {
		struct open_owner o = {.pid = e.pid, .open_id = e.open_id};

		/* An attribute-only open of the directory does not count
		 * (smbtorture smb2.rename.msword: Word opens the folder
		 * for READ_ATTRIBUTES sharing nothing, then renames). */
		if ((e.access_mask & ACC_DATA) == 0) {
			continue;
		}
		/* The rename opens the directory to change its entries, as
		 * Windows does (write access, sharing read and write): an
		 * open that does not share writing conflicts with it, and
		 * so does DELETE access where the caller says it counts.
		 * A gone owner's entry is never in the way
		 * (locking_table.c). */
		if (!(e.share_access & FILE_SHARE_WRITE) ||
		    ((e.access_mask & ACC_DELETE) && rp->stops(&o, rp->priv))) {
			return locking_owner_gone(rp->db, e.pid)
				       ? LOCKING_STATUS_STALE_OWNER
				       : NT_STATUS_SHARING_VIOLATION;
		}
	}
	return status == NT_STATUS_NO_MORE_ENTRIES ? NT_STATUS_OK
						   : LOCKING_STATUS_CORRUPT;
}

NTSTATUS share_mode_check_rename_parent(
	struct locking_db *db, const struct file_key *k,
	bool (*stops)(const struct open_owner *o, void *priv), void *priv)
{
	struct rename_parent rp = {.db = db, .stops = stops, .priv = priv};
	NTSTATUS status;

	status = locking_read(db->share, k, rename_parent_fn, &rp);
	return status == NT_STATUS_NOT_FOUND ? NT_STATUS_OK : status;
}

/* ---- durable hand-over: the entry changes owner ---- */

struct move_state {
	const struct open_owner *to;
	uint16_t worker;
};

static void move_edit(struct share_mode_entry *e, void *priv)
{
	const struct move_state *m = priv;

	e->pid = m->to->pid;
	e->open_id = m->to->open_id;
	e->worker = m->worker;
}

NTSTATUS share_mode_move_owner(struct locking_db *db, const struct file_key *k,
			       const struct open_owner *from,
			       const struct open_owner *to, uint16_t worker)
{
	struct move_state m = {.to = to, .worker = worker};

	return owner_edit(db, k, from, move_edit, &m);
}

/* ---- stream rename: the entry moves to the stream's new key ---- */

struct take_state {
	const struct open_owner *o;
	struct share_mode_entry e;
	bool wake;
};

/* Remove o's entry as it is (no delete-on-close effect: the open goes
 * on under another key). */
static NTSTATUS take_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
			enum locking_action *action, uint8_t **nb, size_t *nl,
			void *priv)
{
	struct take_state *t = priv;
	struct locking_rec_iter hdr;
	size_t at;
	NTSTATUS status;
	uint8_t *buf;
	long idx;

	if (old == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	status = find_owner(old, old_len, t->o, &hdr, &idx, &t->e);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (idx < 0) {
		return NT_STATUS_NOT_FOUND;
	}
	t->wake = (hdr.flags & SHARE_REC_WAITERS) != 0;
	if (hdr.left == 1) {
		*action = LOCKING_DELETE;
		return NT_STATUS_OK;
	}
	buf = talloc_size(tmp, old_len - SHARE_ENTRY_LEN);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	at = LOCKING_REC_HDR_LEN + (size_t)idx * SHARE_ENTRY_LEN;
	memcpy(buf, old, at);
	memcpy(buf + at, old + at + SHARE_ENTRY_LEN,
	       old_len - at - SHARE_ENTRY_LEN);
	locking_rec_put_header(buf, LOCKING_KIND_SHARE, hdr.flags,
			       hdr.left - 1);
	*nb = buf;
	*nl = old_len - SHARE_ENTRY_LEN;
	*action = LOCKING_STORE;
	return NT_STATUS_OK;
}

/* Append the entry unchanged. */
static NTSTATUS put_fn(TALLOC_CTX *tmp, const uint8_t *old, size_t old_len,
		       enum locking_action *action, uint8_t **nb, size_t *nl,
		       void *priv)
{
	const struct share_mode_entry *e = priv;
	struct locking_rec_iter it;
	uint32_t count = 0;
	uint16_t flags = 0;

	if (old != NULL) {
		if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, old,
							      old_len))) {
			return LOCKING_STATUS_CORRUPT;
		}
		count = it.left;
		flags = it.flags;
	}
	return rec_append(tmp, old, old_len, count, flags, e, action, nb, nl);
}

NTSTATUS share_mode_move_key(struct locking_db *db, const struct file_key *from,
			     const struct file_key *to,
			     const struct open_owner *o, bool *wake)
{
	struct take_state t = {.o = o};
	NTSTATUS status;

	*wake = false;
	status = locking_modify(db->share, from, take_fn, &t);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*wake = t.wake;
	status = locking_modify(db->share, to, put_fn, &t.e);
	if (!NT_STATUS_IS_OK(status)) {
		/* Back where it was: the open keeps its old name. */
		(void)locking_modify(db->share, from, put_fn, &t.e);
	}
	return status;
}

struct count_state {
	bool skip_streams;
	unsigned n;
};

static NTSTATUS count_fn(const uint8_t *buf, size_t len, void *priv)
{
	struct count_state *c = priv;
	struct locking_rec_iter it;
	struct share_mode_entry e;

	if (!NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, buf, len))) {
		return LOCKING_STATUS_CORRUPT;
	}
	while (NT_STATUS_IS_OK(share_mode_rec_iter_next(&it, &e))) {
		if (!c->skip_streams || !(e.flags & SHARE_ENTRY_STREAM)) {
			c->n++;
		}
	}
	return NT_STATUS_OK;
}

unsigned share_mode_count(struct locking_db *db, const struct file_key *k,
			  bool skip_streams)
{
	struct count_state c = {.skip_streams = skip_streams};

	(void)locking_read(db->share, k, count_fn, &c);
	return c.n;
}
