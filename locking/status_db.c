/*
 * What smbstatus shows beyond share modes and locks: sessions, tree
 * connects and the names of open files, in smbd_status.tdb next to the
 * other two (same flags: robust mutexes, cleared at start).
 *
 * Each worker writes its own records, keyed by its pid first, so the
 * master drops a dead worker's records with one traverse
 * (locking_cleanup_pid) and smbstatus reads a consistent snapshot of
 * each.  Values are small text records ("key=value\n" lines): written
 * once per session, tree connect or open, read only by the tool, and
 * readable with tdbdump when something looks wrong.
 */
#include "locking/locking_private.h"
#include "locking/locking_rec.h"
#include "lib/log.h"
#include "lib/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_LOCKING

static TDB_DATA status_key(uint8_t buf[STATUS_KEY_LEN], char kind,
			   uint32_t pid, uint64_t a, uint64_t b)
{
	TDB_DATA k = {.dptr = buf, .dsize = STATUS_KEY_LEN};
	int i;

	buf[0] = (uint8_t)kind;
	for (i = 0; i < 4; i++) {
		buf[1 + i] = (uint8_t)(pid >> (8 * i));
	}
	for (i = 0; i < 8; i++) {
		buf[5 + i] = (uint8_t)(a >> (8 * i));
		buf[13 + i] = (uint8_t)(b >> (8 * i));
	}
	return k;
}

void status_db_put(struct locking_db *db, char kind, uint32_t pid,
		   uint64_t a, uint64_t b, const char *text)
{
	uint8_t kb[STATUS_KEY_LEN];
	TDB_DATA val = {.dptr = (uint8_t *)text, .dsize = strlen(text)};

	if (db == NULL || db->status == NULL) {
		return;
	}
	if (tdb_store(db->status, status_key(kb, kind, pid, a, b), val,
		      TDB_REPLACE) != 0) {
		DBG_NOTICE("status record: %s\n", tdb_errorstr(db->status));
	}
}

void status_db_del(struct locking_db *db, char kind, uint32_t pid,
		   uint64_t a, uint64_t b)
{
	uint8_t kb[STATUS_KEY_LEN];

	if (db == NULL || db->status == NULL) {
		return;
	}
	(void)tdb_delete(db->status, status_key(kb, kind, pid, a, b));
}

struct status_walk {
	status_db_fn fn;
	void *priv;
};

static int status_walk_fn(struct tdb_context *tdb, TDB_DATA key,
			  TDB_DATA val, void *priv)
{
	struct status_walk *sw = priv;
	uint32_t pid = 0;
	uint64_t a = 0, b = 0;
	char text[1024];
	size_t n;
	int i;

	if (key.dsize != STATUS_KEY_LEN) {
		return 0;
	}
	for (i = 0; i < 4; i++) {
		pid |= (uint32_t)key.dptr[1 + i] << (8 * i);
	}
	for (i = 0; i < 8; i++) {
		a |= (uint64_t)key.dptr[5 + i] << (8 * i);
		b |= (uint64_t)key.dptr[13 + i] << (8 * i);
	}
	n = val.dsize < sizeof(text) - 1 ? val.dsize : sizeof(text) - 1;
	memcpy(text, val.dptr, n);
	text[n] = '\0';
	sw->fn((char)key.dptr[0], pid, a, b, text, sw->priv);
	return 0;
}

int status_db_walk(struct locking_db *db, status_db_fn fn, void *priv)
{
	struct status_walk sw = {.fn = fn, .priv = priv};

	if (db == NULL || db->status == NULL) {
		return -1;
	}
	return tdb_traverse_read(db->status, status_walk_fn, &sw);
}

static int status_cleanup_fn(struct tdb_context *tdb, TDB_DATA key,
			     TDB_DATA val, void *priv)
{
	uint32_t pid = *(uint32_t *)priv, kp = 0;
	int i;

	if (key.dsize != STATUS_KEY_LEN) {
		return 0;
	}
	for (i = 0; i < 4; i++) {
		kp |= (uint32_t)key.dptr[1 + i] << (8 * i);
	}
	if (kp == pid) {
		(void)tdb_delete(tdb, key);
	}
	return 0;
}

void status_db_cleanup_pid(struct locking_db *db, uint32_t pid)
{
	if (db != NULL && db->status != NULL &&
	    tdb_traverse(db->status, status_cleanup_fn, &pid) < 0) {
		DBG_ERR("traverse of %s failed\n", db->status_path);
	}
}

/* ---- share modes and locks for the tool ---- */

struct walk_state {
	share_mode_walk_fn sfn;
	brl_walk_fn bfn;
	void *priv;
};

static bool walk_key(const uint8_t *key, size_t keylen, struct file_key *k)
{
	int i;

	if (keylen != LOCKING_KEY_LEN) {
		return false;
	}
	k->dev = k->ino = 0;
	for (i = 0; i < 8; i++) {
		k->dev |= (uint64_t)key[i] << (8 * i);
		k->ino |= (uint64_t)key[8 + i] << (8 * i);
	}
	return true;
}

static int share_walk_fn(const uint8_t *key, size_t keylen,
			 const uint8_t *val, size_t vlen, void *priv)
{
	struct walk_state *ws = priv;
	struct locking_rec_iter it;
	struct share_mode_entry e;
	struct file_key k;

	if (!walk_key(key, keylen, &k) ||
	    !NT_STATUS_IS_OK(share_mode_rec_iter_init(&it, val, vlen))) {
		return 0;
	}
	while (NT_STATUS_IS_OK(share_mode_rec_iter_next(&it, &e))) {
		ws->sfn(&k, it.flags, &e, ws->priv);
	}
	return 0;
}

int share_mode_walk(struct locking_db *db, share_mode_walk_fn fn, void *priv)
{
	struct walk_state ws = {.sfn = fn, .priv = priv};

	return locking_walk(db->share, share_walk_fn, &ws);
}

static int brl_walk_fn_tdb(const uint8_t *key, size_t keylen,
			   const uint8_t *val, size_t vlen, void *priv)
{
	struct walk_state *ws = priv;
	struct locking_rec_iter it;
	struct brl_entry e;
	struct file_key k;

	if (!walk_key(key, keylen, &k) ||
	    !NT_STATUS_IS_OK(brl_rec_iter_init(&it, val, vlen))) {
		return 0;
	}
	while (NT_STATUS_IS_OK(brl_rec_iter_next(&it, &e))) {
		ws->bfn(&k, e.pid, e.open_id, e.off, e.len,
			(e.flags & BRL_ENTRY_EXCLUSIVE) != 0, ws->priv);
	}
	return 0;
}

int brl_walk(struct locking_db *db, brl_walk_fn fn, void *priv)
{
	struct walk_state ws = {.bfn = fn, .priv = priv};

	return locking_walk(db->brl, brl_walk_fn_tdb, &ws);
}

/* ---- the file of a lease, from any worker ---- */

struct find_lease_state {
	const uint8_t *guid, *key;
	struct file_key *k;
	bool found;
};

static void find_lease_fn(const struct file_key *k, uint16_t flags,
			  const struct share_mode_entry *e, void *priv)
{
	struct find_lease_state *fs = priv;

	if (!fs->found && e->caching == CACHING_LEASE &&
	    memcmp(e->client_guid, fs->guid, 16) == 0 &&
	    memcmp(e->lease_key, fs->key, 16) == 0) {
		*fs->k = *k;
		fs->found = true;
	}
}

bool share_mode_find_lease(struct locking_db *db, const uint8_t guid[16],
			   const uint8_t key[16], struct file_key *k)
{
	struct find_lease_state fs = {.guid = guid, .key = key, .k = k};

	(void)share_mode_walk(db, find_lease_fn, &fs);
	return fs.found;
}

/* ---- `max connections`: tree connects of one share, all workers ---- */

struct count_state {
	const char *line;	/* "share=NAME\n" */
	unsigned n;
};

static int count_tcon_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA val,
			 void *priv)
{
	struct count_state *cs = priv;
	size_t ll = strlen(cs->line);

	if (key.dsize == STATUS_KEY_LEN && key.dptr[0] == STATUS_TCON &&
	    val.dsize >= ll && strncasecmp((const char *)val.dptr, cs->line,
					   ll) == 0) {
		cs->n++;
	}
	return 0;
}

unsigned status_db_count_tcons(struct locking_db *db, const char *share)
{
	char line[300];
	struct count_state cs = {.line = line};

	if (db == NULL || db->status == NULL) {
		return 0;
	}
	snprintf(line, sizeof(line), "share=%s\n", share);
	(void)tdb_traverse_read(db->status, count_tcon_fn, &cs);
	return cs.n;
}

/* ---- a directory rename: is anything below it open? ---- */

struct below_state {
	const char *sharepath;
	const char *dir;
	bool found;
};

/* The value of "\nKEY=" in a status text record (not terminated: up to
 * the next newline), or NULL. */
static const char *status_field(TDB_DATA val, const char *key, size_t *len)
{
	const char *p = (const char *)val.dptr, *end = p + val.dsize;
	size_t kl = strlen(key);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > kl && memcmp(p, key, kl) == 0 &&
		    p[kl] == '=') {
			*len = (size_t)(le - p) - kl - 1;
			return p + kl + 1;
		}
		p = le + 1;
	}
	return NULL;
}

static int open_below_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA val,
			 void *priv)
{
	struct below_state *bs = priv;
	size_t sl, nl, dl = strlen(bs->dir);
	const char *sp, *name;

	if (key.dsize != STATUS_KEY_LEN || key.dptr[0] != STATUS_OPEN) {
		return 0;
	}
	sp = status_field(val, "sharepath", &sl);
	name = status_field(val, "name", &nl);
	if (sp == NULL || name == NULL || sl != strlen(bs->sharepath) ||
	    memcmp(sp, bs->sharepath, sl) != 0) {
		return 0;
	}
	if ((dl == 0 && nl > 0) ||
	    (nl > dl + 1 && memcmp(name, bs->dir, dl) == 0 &&
	     name[dl] == '/')) {
		bs->found = true;
		return -1; /* stop the traverse */
	}
	return 0;
}

bool status_db_open_below(struct locking_db *db, const char *sharepath,
			  const char *dir)
{
	struct below_state bs = {.sharepath = sharepath, .dir = dir};

	if (db == NULL || db->status == NULL) {
		return false;
	}
	(void)tdb_traverse_read(db->status, open_below_fn, &bs);
	return bs.found;
}

/*
 * Which worker serves a client's connections (multichannel: all channels
 * of a session live on one worker, smbd/conn/conn_handover.c).  The key
 * is 'G' and the ClientGuid, 17 bytes, so the walks above (which take
 * STATUS_KEY_LEN keys only) pass it by; the value is the worker's index,
 * its pid (a record of a dead worker counts as none) and how many of the
 * client's connections it holds.
 */
struct client_rec {
	int32_t index;
	uint32_t pid;
	uint32_t count;
};

static TDB_DATA client_key(uint8_t buf[17], const uint8_t guid[16])
{
	buf[0] = 'G';
	memcpy(buf + 1, guid, 16);
	return (TDB_DATA){.dptr = buf, .dsize = 17};
}

static bool client_rec_get(struct tdb_context *tdb, TDB_DATA key,
			   struct client_rec *r)
{
	TDB_DATA v = tdb_fetch(tdb, key);
	bool ok = v.dptr != NULL && v.dsize == sizeof(*r);

	if (ok) {
		memcpy(r, v.dptr, sizeof(*r));
	}
	free(v.dptr);
	return ok;
}

int status_db_client_claim(struct locking_db *db, const uint8_t guid[16],
			   int index, uint32_t pid)
{
	uint8_t kb[17];
	TDB_DATA key = client_key(kb, guid);
	struct client_rec r;
	int owner = index;

	if (db == NULL || db->status == NULL ||
	    tdb_chainlock(db->status, key) != 0) {
		return index;
	}
	if (client_rec_get(db->status, key, &r) && r.pid != pid &&
	    r.index != index &&
	    proc_exists((pid_t)r.pid)) {
		owner = r.index;	/* a live worker has the client */
	} else {
		if (!client_rec_get(db->status, key, &r) || r.pid != pid) {
			r = (struct client_rec){.index = index, .pid = pid};
		}
		r.count++;
		(void)tdb_store(db->status, key,
				(TDB_DATA){.dptr = (uint8_t *)&r,
					   .dsize = sizeof(r)},
				TDB_REPLACE);
	}
	tdb_chainunlock(db->status, key);
	return owner;
}

void status_db_client_release(struct locking_db *db, const uint8_t guid[16],
			      uint32_t pid)
{
	uint8_t kb[17];
	TDB_DATA key = client_key(kb, guid);
	struct client_rec r;

	if (db == NULL || db->status == NULL ||
	    tdb_chainlock(db->status, key) != 0) {
		return;
	}
	if (client_rec_get(db->status, key, &r) && r.pid == pid) {
		if (r.count <= 1) {
			(void)tdb_delete(db->status, key);
		} else {
			r.count--;
			(void)tdb_store(db->status, key,
					(TDB_DATA){.dptr = (uint8_t *)&r,
						   .dsize = sizeof(r)},
					TDB_REPLACE);
		}
	}
	tdb_chainunlock(db->status, key);
}
