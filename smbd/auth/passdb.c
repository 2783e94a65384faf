/*
 * Samba tdbsam passdb.tdb access: the record format is described in
 * passdb.h.  Records are decoded with the checked cursor (a corrupt or
 * hostile file cannot make us read out of bounds) and written inside a tdb
 * transaction so the USER_, RID_ and NEXT_RID records change together, as
 * Samba's own tdbsam does.
 */
#include "smbd/auth/passdb.h"
#include "lib/charset.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/tdbfile.h"
#include "lib/wire.h"
#include "locking/ctdb/ctdb_db.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tdb.h>
#include <time.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_PASSDB

struct passdb {
	struct tdb_context *tdb;	/* the file, or */
	struct ctdb_db *cdb;		/* its clustered database */
	char *path;
};

static const char key_version[] = "INFO/version";
static const char key_minor[] = "INFO/minor_version";
static const char key_next_rid[] = "NEXT_RID";

/* tdb keys carry the terminating NUL, as Samba writes them. */
static TDB_DATA str_key(const char *s)
{
	TDB_DATA k = {(unsigned char *)s, strlen(s) + 1};
	return k;
}

static NTSTATUS pull_blob(struct wire_cur *c, const uint8_t **p, size_t *len)
{
	uint32_t l;
	NTSTATUS status = wire_pull_le32(c, &l);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*len = l;
	return wire_pull_ref(c, p, l);
}

/* A B-packed string: length 0 is NULL; stop at the first NUL. */
static NTSTATUS pull_string(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			    char **out)
{
	const uint8_t *p;
	size_t len;
	NTSTATUS status = pull_blob(c, &p, &len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (len == 0) {
		*out = NULL;
		return NT_STATUS_OK;
	}
	*out = talloc_strndup(mem_ctx, (const char *)p, len);
	return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static NTSTATUS pull_hash(struct wire_cur *c, uint8_t out[16], bool *has)
{
	const uint8_t *p;
	size_t len;
	NTSTATUS status = pull_blob(c, &p, &len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (len != 0 && len != 16) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*has = (len == 16);
	if (*has) {
		memcpy(out, p, 16);
	}
	return NT_STATUS_OK;
}

static NTSTATUS pull_copy(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			  uint8_t **out, size_t *out_len)
{
	const uint8_t *p;
	size_t len;
	NTSTATUS status = pull_blob(c, &p, &len);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*out = NULL;
	*out_len = len;
	if (len > 0) {
		*out = talloc_memdup(mem_ctx, p, len);
		if (*out == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS passdb_user_unpack(TALLOC_CTX *mem_ctx, const uint8_t *data,
			    size_t len, struct passdb_user **out)
{
	struct passdb_user *u = talloc_zero(mem_ctx, struct passdb_user);
	uint32_t *times[7];
	char **strs[12];
	struct wire_cur c;
	NTSTATUS status = NT_STATUS_OK;
	size_t i;

	if (u == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	times[0] = &u->logon_time;
	times[1] = &u->logoff_time;
	times[2] = &u->kickoff_time;
	times[3] = &u->bad_password_time;
	times[4] = &u->pass_last_set_time;
	times[5] = &u->pass_can_change_time;
	times[6] = &u->pass_must_change_time;
	strs[0] = &u->username;
	strs[1] = &u->domain;
	strs[2] = &u->nt_username;
	strs[3] = &u->fullname;
	strs[4] = &u->homedir;
	strs[5] = &u->dir_drive;
	strs[6] = &u->logon_script;
	strs[7] = &u->profile_path;
	strs[8] = &u->acct_desc;
	strs[9] = &u->workstations;
	strs[10] = &u->comment;
	strs[11] = &u->munged_dial;

	wire_cur_init(&c, data, len);
	for (i = 0; i < 7 && NT_STATUS_IS_OK(status); i++) {
		status = wire_pull_le32(&c, times[i]);
	}
	for (i = 0; i < 12 && NT_STATUS_IS_OK(status); i++) {
		status = pull_string(u, &c, strs[i]);
	}
#define STEP(x)                                                               \
	do {                                                                  \
		if (NT_STATUS_IS_OK(status)) {                                \
			status = (x);                                         \
		}                                                             \
	} while (0)
	STEP(wire_pull_le32(&c, &u->user_rid));
	STEP(wire_pull_le32(&c, &u->group_rid));
	STEP(pull_hash(&c, u->lm_pw, &u->has_lm_pw));
	STEP(pull_hash(&c, u->nt_pw, &u->has_nt_pw));
	STEP(pull_copy(u, &c, &u->nt_pw_hist, &u->nt_pw_hist_len));
	STEP(wire_pull_le32(&c, &u->acct_ctrl));
	STEP(wire_pull_le16(&c, &u->logon_divs));
	STEP(wire_pull_le32(&c, &u->hours_len));
	STEP(pull_copy(u, &c, &u->hours, &u->hours_size));
	STEP(wire_pull_le16(&c, &u->bad_password_count));
	STEP(wire_pull_le16(&c, &u->logon_count));
	STEP(wire_pull_le32(&c, &u->unknown_6));
#undef STEP
	if (NT_STATUS_IS_OK(status) &&
	    (u->username == NULL || u->username[0] == '\0')) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(u);
		return status;
	}
	*out = u;
	return NT_STATUS_OK;
}

static void push_string(struct wire_buf *b, const char *s)
{
	if (s == NULL) {
		wire_push_le32(b, 0);
		return;
	}
	wire_push_le32(b, (uint32_t)(strlen(s) + 1));
	wire_push_bytes(b, s, strlen(s) + 1);
}

static void push_blob(struct wire_buf *b, const uint8_t *p, size_t len)
{
	wire_push_le32(b, (uint32_t)len);
	wire_push_bytes(b, p, len);
}

NTSTATUS passdb_user_pack(TALLOC_CTX *mem_ctx, const struct passdb_user *u,
			  uint8_t **out, size_t *out_len)
{
	const char *strs[12] = {
		u->username,	 u->domain,	  u->nt_username,
		u->fullname,	 u->homedir,	  u->dir_drive,
		u->logon_script, u->profile_path, u->acct_desc,
		u->workstations, u->comment,	  u->munged_dial,
	};
	const uint32_t times[7] = {
		u->logon_time,		u->logoff_time,
		u->kickoff_time,	u->bad_password_time,
		u->pass_last_set_time,	u->pass_can_change_time,
		u->pass_must_change_time,
	};
	struct wire_buf b;
	size_t i;

	wire_buf_init(&b, mem_ctx, 256);
	for (i = 0; i < 7; i++) {
		wire_push_le32(&b, times[i]);
	}
	for (i = 0; i < 12; i++) {
		push_string(&b, strs[i]);
	}
	wire_push_le32(&b, u->user_rid);
	wire_push_le32(&b, u->group_rid);
	push_blob(&b, u->lm_pw, u->has_lm_pw ? 16 : 0);
	push_blob(&b, u->nt_pw, u->has_nt_pw ? 16 : 0);
	push_blob(&b, u->nt_pw_hist, u->nt_pw_hist_len);
	wire_push_le32(&b, u->acct_ctrl);
	wire_push_le16(&b, u->logon_divs);
	wire_push_le32(&b, u->hours_len);
	push_blob(&b, u->hours, u->hours_size);
	wire_push_le16(&b, u->bad_password_count);
	wire_push_le16(&b, u->logon_count);
	wire_push_le32(&b, u->unknown_6);
	if (b.failed) {
		talloc_free(b.data);
		return NT_STATUS_NO_MEMORY;
	}
	*out = b.data;
	*out_len = b.len;
	return NT_STATUS_OK;
}

struct passdb_user *passdb_user_new(TALLOC_CTX *mem_ctx, const char *name,
				    const char *domain, const char *fullname)
{
	struct passdb_user *u = talloc_zero(mem_ctx, struct passdb_user);

	if (u == NULL) {
		return NULL;
	}
	/* The values Samba 4.17's smbpasswd -a stores (tdbdump). */
	u->logoff_time = PASSDB_TIME_NEVER;
	u->kickoff_time = PASSDB_TIME_NEVER;
	u->pass_must_change_time = PASSDB_TIME_NEVER;
	u->pass_last_set_time = (uint32_t)time(NULL);
	u->username = talloc_strdup(u, name);
	u->domain = talloc_strdup(u, domain != NULL ? domain : "");
	u->nt_username = talloc_strdup(u, "");
	u->fullname = fullname != NULL ? talloc_strdup(u, fullname) : NULL;
	u->acct_desc = talloc_strdup(u, "");
	u->workstations = talloc_strdup(u, "");
	u->comment = talloc_strdup(u, "");
	u->munged_dial = talloc_strdup(u, "");
	u->group_rid = PASSDB_DOMAIN_USERS_RID;
	u->acct_ctrl = ACB_NORMAL;
	u->logon_divs = 168; /* hours per week */
	u->hours_len = 21;
	u->hours_size = 32; /* MAX_HOURS_LEN */
	u->hours = talloc_zero_array(u, uint8_t, 32);
	u->unknown_6 = 0x4ec;
	if (u->username == NULL || u->domain == NULL || u->hours == NULL ||
	    u->nt_username == NULL || u->munged_dial == NULL ||
	    (fullname != NULL && u->fullname == NULL)) {
		talloc_free(u);
		return NULL;
	}
	memset(u->hours, 0xff, 21);
	return u;
}

char *passdb_path(TALLOC_CTX *mem_ctx, const char *private_dir)
{
	return talloc_asprintf(mem_ctx, "%s/%s", private_dir, PASSDB_FILE);
}

static int passdb_destructor(struct passdb *pdb)
{
	if (pdb->tdb != NULL) {
		tdb_close(pdb->tdb);
		pdb->tdb = NULL;
	}
	return 0;
}

/*
 * Storage: the file itself, or (clustered) the persistent CTDB database
 * of the same name, which Samba's clustered tdbsam uses: same keys and
 * records, each behind CTDB's header, changed only by transactions that
 * ctdbd applies on every node.
 */

/* A copy of key's value (talloc child of mem_ctx), NULL when absent. */
struct fetch_state {
	TALLOC_CTX *mem_ctx;
	uint8_t *data;
	size_t len;
};

static NTSTATUS fetch_copy(const uint8_t *data, size_t len, void *priv)
{
	struct fetch_state *fs = priv;

	fs->data = talloc_memdup(fs->mem_ctx, data, len);
	fs->len = len;
	return fs->data != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static uint8_t *pdb_fetch(struct passdb *pdb, TALLOC_CTX *mem_ctx,
			  const char *key, size_t *len)
{
	struct fetch_state fs = {.mem_ctx = mem_ctx};
	TDB_DATA d;

	if (pdb->cdb != NULL) {
		if (!NT_STATUS_IS_OK(ctdb_db_parse(pdb->cdb, str_key(key),
						   fetch_copy, &fs))) {
			return NULL;
		}
		*len = fs.len;
		return fs.data;
	}
	d = tdb_fetch(pdb->tdb, str_key(key));
	if (d.dptr == NULL) {
		return NULL;
	}
	fs.data = talloc_memdup(mem_ctx, d.dptr, d.dsize);
	*len = d.dsize;
	free(d.dptr);
	return fs.data;
}

static bool fetch_u32(struct passdb *pdb, const char *key, uint32_t *v)
{
	size_t len = 0;
	uint8_t *d = pdb_fetch(pdb, NULL, key, &len);
	bool ok = d != NULL && len == 4;

	if (ok) {
		*v = le32(d);
	}
	talloc_free(d);
	return ok;
}

/* One write of a batch: data NULL deletes; insert refuses an existing
 * key (NT_STATUS_OBJECT_NAME_COLLISION), modify a missing one
 * (NT_STATUS_NO_SUCH_USER). */
struct pdb_change {
	const char *key;
	const uint8_t *data;
	size_t len;
	int flag;	/* TDB_REPLACE, TDB_INSERT or TDB_MODIFY */
};

static NTSTATUS batch_check(struct passdb *pdb, const struct pdb_change *c,
			    unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		size_t len;
		uint8_t *d;

		if (c[i].flag == TDB_REPLACE) {
			continue;
		}
		d = pdb_fetch(pdb, NULL, c[i].key, &len);
		talloc_free(d);
		if (c[i].flag == TDB_INSERT && d != NULL) {
			return NT_STATUS_OBJECT_NAME_COLLISION;
		}
		if (c[i].flag == TDB_MODIFY && d == NULL) {
			return NT_STATUS_NO_SUCH_USER;
		}
	}
	return NT_STATUS_OK;
}

static NTSTATUS batch_ctdb(struct passdb *pdb, const struct pdb_change *c,
			   unsigned n)
{
	struct ctdb_db_update u[8];
	NTSTATUS status = batch_check(pdb, c, n);
	unsigned i;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (n > sizeof(u) / sizeof(u[0])) {
		return NT_STATUS_INTERNAL_ERROR;
	}
	for (i = 0; i < n; i++) {
		u[i].key = str_key(c[i].key);
		u[i].data = c[i].data;
		u[i].len = c[i].data != NULL ? c[i].len : 0;
	}
	return ctdb_db_commit(pdb->cdb, u, n);
}

/* All or nothing. */
static NTSTATUS pdb_write(struct passdb *pdb, const struct pdb_change *c,
			  unsigned n)
{
	NTSTATUS status = NT_STATUS_OK;
	unsigned i;

	if (pdb->cdb != NULL) {
		return batch_ctdb(pdb, c, n);
	}
	if (tdb_transaction_start(pdb->tdb) != 0) {
		return NT_STATUS_UNSUCCESSFUL;
	}
	for (i = 0; i < n && NT_STATUS_IS_OK(status); i++) {
		TDB_DATA d = {(uint8_t *)c[i].data, c[i].len};

		if (c[i].data == NULL) {
			if (tdb_delete(pdb->tdb, str_key(c[i].key)) != 0 &&
			    tdb_error(pdb->tdb) != TDB_ERR_NOEXIST) {
				status = NT_STATUS_UNSUCCESSFUL;
			}
		} else if (tdb_store(pdb->tdb, str_key(c[i].key), d,
				     c[i].flag) != 0) {
			enum TDB_ERROR e = tdb_error(pdb->tdb);

			status = e == TDB_ERR_EXISTS
					 ? NT_STATUS_OBJECT_NAME_COLLISION
				 : e == TDB_ERR_NOEXIST
					 ? NT_STATUS_NO_SUCH_USER
					 : NT_STATUS_UNSUCCESSFUL;
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		tdb_transaction_cancel(pdb->tdb);
		return status;
	}
	return tdb_transaction_commit(pdb->tdb) == 0 ? NT_STATUS_OK
						     : NT_STATUS_UNSUCCESSFUL;
}

static NTSTATUS init_version(struct passdb *pdb)
{
	uint8_t ver[4], minor[4];
	struct pdb_change c[2] = {
		{key_version, ver, 4, TDB_REPLACE},
		{key_minor, minor, 4, TDB_REPLACE},
	};
	uint32_t v;

	if (fetch_u32(pdb, key_version, &v)) {
		if (v != PASSDB_VERSION) {
			DBG_ERR("%s: tdbsam version %u, only %u is "
				"supported (let Samba's pdbedit upgrade it)\n",
				pdb->path, v, PASSDB_VERSION);
			return NT_STATUS_NOT_SUPPORTED;
		}
		return NT_STATUS_OK;
	}
	/* A fresh database: write what Samba writes on creation. */
	put_le32(ver, PASSDB_VERSION);
	put_le32(minor, 0);
	return pdb_write(pdb, c, 2);
}

NTSTATUS passdb_open(TALLOC_CTX *mem_ctx, const char *path, bool create,
		     struct passdb **out)
{
	struct passdb *pdb = talloc_zero(mem_ctx, struct passdb);
	NTSTATUS status;
	int err = 0;

	if (pdb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	pdb->path = talloc_strdup(pdb, path);
	if (pdb->path == NULL) {
		talloc_free(pdb);
		return NT_STATUS_NO_MEMORY;
	}
	pdb->tdb = tdbfile_open(path, 0, TDB_DEFAULT,
				create ? O_RDWR | O_CREAT : O_RDWR, 0600, &err);
	if (pdb->tdb == NULL && !create && err == EACCES) {
		pdb->tdb = tdbfile_open(path, 0, TDB_DEFAULT, O_RDONLY, 0600,
					&err);
	}
	if (pdb->tdb == NULL) {
		DBG_NOTICE("cannot open %s: %s\n", path, strerror(err));
		talloc_free(pdb);
		return err == ENOENT ? NT_STATUS_OBJECT_NAME_NOT_FOUND
				     : NT_STATUS_ACCESS_DENIED;
	}
	talloc_set_destructor(pdb, passdb_destructor);
	status = init_version(pdb);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(pdb);
		return status;
	}
	*out = pdb;
	return NT_STATUS_OK;
}

NTSTATUS passdb_open_ctdb(TALLOC_CTX *mem_ctx, struct ctdb_conn *conn,
			  bool create, struct passdb **out)
{
	struct passdb *pdb = talloc_zero(mem_ctx, struct passdb);
	NTSTATUS status;
	uint32_t v;

	if (pdb == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ctdb_db_attach(pdb, conn, PASSDB_FILE, true, &pdb->cdb);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(pdb);
		return status;
	}
	pdb->path = talloc_asprintf(pdb, "%s (clustered)",
				    ctdb_db_path(pdb->cdb));
	if (pdb->path == NULL) {
		talloc_free(pdb);
		return NT_STATUS_NO_MEMORY;
	}
	/* Attaching creates an empty database: only smbpasswd -a writes
	 * the version records, as with a file. */
	if (!create && !fetch_u32(pdb, key_version, &v)) {
		talloc_free(pdb);
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	status = init_version(pdb);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(pdb);
		return status;
	}
	*out = pdb;
	return NT_STATUS_OK;
}

static char *user_key(TALLOC_CTX *mem_ctx, const char *name)
{
	char *lower = charset_strlower(mem_ctx, name);
	char *key;

	if (lower == NULL) {
		return NULL;
	}
	key = talloc_asprintf(mem_ctx, "USER_%s", lower);
	talloc_free(lower);
	return key;
}

NTSTATUS passdb_get(struct passdb *pdb, TALLOC_CTX *mem_ctx, const char *name,
		    struct passdb_user **out)
{
	char *key = user_key(mem_ctx, name);
	uint8_t *d;
	size_t len = 0;
	NTSTATUS status;

	if (key == NULL) {
		return NT_STATUS_NO_SUCH_USER; /* not valid UTF-8 */
	}
	d = pdb_fetch(pdb, mem_ctx, key, &len);
	talloc_free(key);
	if (d == NULL) {
		return NT_STATUS_NO_SUCH_USER;
	}
	status = passdb_user_unpack(mem_ctx, d, len, out);
	talloc_free(d);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("%s: corrupt record for user %s\n", pdb->path, name);
	}
	return status;
}

struct list_state {
	TALLOC_CTX *mem_ctx;
	char **names;
	size_t count;
	bool failed;
};

static int list_one(const uint8_t *key, size_t keylen, const uint8_t *data,
		    size_t len, struct list_state *st)
{
	struct passdb_user *u;
	char **n;

	if (keylen < 6 || memcmp(key, "USER_", 5) != 0) {
		return 0;
	}
	if (!NT_STATUS_IS_OK(passdb_user_unpack(st->mem_ctx, data, len,
						&u))) {
		return 0; /* skip corrupt records */
	}
	n = talloc_realloc(st->mem_ctx, st->names, char *, st->count + 1);
	if (n == NULL) {
		st->failed = true;
		return -1;
	}
	st->names = n;
	st->names[st->count++] = talloc_steal(st->names, u->username);
	talloc_free(u);
	return 0;
}

static int list_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA data,
		   void *private_data)
{
	return list_one(key.dptr, key.dsize, data.dptr, data.dsize,
			private_data);
}

static int list_ctdb_fn(TDB_DATA key, const struct ctdb_ltdb_hdr *h,
			const uint8_t *data, size_t len, void *private_data)
{
	return list_one(key.dptr, key.dsize, data, len, private_data);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

NTSTATUS passdb_list(struct passdb *pdb, TALLOC_CTX *mem_ctx, char ***names,
		     size_t *count)
{
	struct list_state st = {.mem_ctx = mem_ctx};
	int r = pdb->cdb != NULL
			? ctdb_db_walk(pdb->cdb, false, list_ctdb_fn, &st)
			: tdb_traverse_read(pdb->tdb, list_fn, &st);

	if (r < 0 || st.failed) {
		TALLOC_FREE(st.names);
		return st.failed ? NT_STATUS_NO_MEMORY : NT_STATUS_UNSUCCESSFUL;
	}
	if (st.count > 1) {
		qsort(st.names, st.count, sizeof(char *), cmp_names);
	}
	*names = st.names;
	*count = st.count;
	return NT_STATUS_OK;
}

/* The USER_ record (and, for a new account, RID_ and NEXT_RID). */
static NTSTATUS write_user(struct passdb *pdb, TALLOC_CTX *tmp,
			   const struct passdb_user *u, int flag,
			   bool rid_too, const uint32_t *next_rid)
{
	char *key = user_key(tmp, u->username);
	char *lower = charset_strlower(tmp, u->username);
	char ridkey[16];
	uint8_t next[4];
	struct pdb_change c[3];
	unsigned n = 0;
	uint8_t *rec;
	size_t len;
	NTSTATUS status;

	if (key == NULL || lower == NULL) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	status = passdb_user_pack(tmp, u, &rec, &len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	c[n++] = (struct pdb_change){key, rec, len, flag};
	if (rid_too) {
		snprintf(ridkey, sizeof(ridkey), "RID_%08x", u->user_rid);
		c[n++] = (struct pdb_change){ridkey, (uint8_t *)lower,
					     strlen(lower) + 1, TDB_REPLACE};
	}
	if (next_rid != NULL) {
		put_le32(next, *next_rid);
		c[n++] = (struct pdb_change){key_next_rid, next, 4,
					     TDB_REPLACE};
	}
	return pdb_write(pdb, c, n);
}

NTSTATUS passdb_add(struct passdb *pdb, struct passdb_user *u)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint32_t next, after;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (u->user_rid == 0) {
		if (!fetch_u32(pdb, key_next_rid, &next) ||
		    next < PASSDB_BASE_RID) {
			next = PASSDB_BASE_RID;
		}
		u->user_rid = next;
		after = next + 1;
		status = write_user(pdb, tmp, u, TDB_INSERT, true, &after);
	} else {
		status = write_user(pdb, tmp, u, TDB_INSERT, true, NULL);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS passdb_update(struct passdb *pdb, const struct passdb_user *u)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = write_user(pdb, tmp, u, TDB_MODIFY, false, NULL);
	talloc_free(tmp);
	return status;
}

NTSTATUS passdb_delete(struct passdb *pdb, const char *name)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct passdb_user *u;
	char ridkey[16], *key;
	struct pdb_change c[2];
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = passdb_get(pdb, tmp, name, &u);
	key = user_key(tmp, name);
	if (!NT_STATUS_IS_OK(status) || key == NULL) {
		talloc_free(tmp);
		return NT_STATUS_IS_OK(status) ? NT_STATUS_NO_MEMORY : status;
	}
	snprintf(ridkey, sizeof(ridkey), "RID_%08x", u->user_rid);
	c[0] = (struct pdb_change){key, NULL, 0, TDB_REPLACE};
	c[1] = (struct pdb_change){ridkey, NULL, 0, TDB_REPLACE};
	status = pdb_write(pdb, c, 2);
	talloc_free(tmp);
	return status;
}

NTSTATUS passdb_auth_record(struct passdb *pdb, TALLOC_CTX *mem_ctx,
			    const char *user, struct auth_user_info **out)
{
	struct passdb_user *u;
	struct auth_user_info *info;
	NTSTATUS status;

	status = passdb_get(pdb, mem_ctx, user, &u);
	if (!NT_STATUS_IS_OK(status)) {
		return status == NT_STATUS_NO_MEMORY ? status
						     : NT_STATUS_NO_SUCH_USER;
	}
	info = talloc_zero(mem_ctx, struct auth_user_info);
	if (info == NULL) {
		memset(u->nt_pw, 0, 16);
		talloc_free(u);
		return NT_STATUS_NO_MEMORY;
	}
	info->account_name = talloc_steal(info, u->username);
	info->domain = talloc_steal(info, u->domain);
	info->has_nt_hash = u->has_nt_pw;
	memcpy(info->nt_hash, u->nt_pw, 16);
	info->acct_ctrl = u->acct_ctrl;
	memset(u->nt_pw, 0, 16);
	talloc_free(u);
	*out = info;
	return NT_STATUS_OK;
}

NTSTATUS passdb_auth_unix(TALLOC_CTX *mem_ctx, struct auth_user_info *rec,
			  struct auth_user_info **out)
{
	struct auth_user_info *info;
	NTSTATUS status;

	/*
	 * Samba: the SAM account maps to the Unix user of the same name,
	 * tried as stored and then lower-cased (Get_Pwnam's first tries).
	 */
	status = auth_unix_user_info(mem_ctx, rec->account_name, &info);
	if (status == NT_STATUS_NO_SUCH_USER) {
		char *lower = charset_strlower(rec, rec->account_name);

		if (lower != NULL && strcmp(lower, rec->account_name) != 0) {
			status = auth_unix_user_info(mem_ctx, lower, &info);
		}
		talloc_free(lower);
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_WARNING("passdb user %s has no Unix account\n",
			    rec->account_name);
		return status == NT_STATUS_NO_MEMORY ? status
						     : NT_STATUS_NO_SUCH_USER;
	}
	info->account_name = talloc_steal(info, rec->account_name);
	info->domain = talloc_steal(info, rec->domain);
	info->has_nt_hash = rec->has_nt_hash;
	memcpy(info->nt_hash, rec->nt_hash, 16);
	info->acct_ctrl = rec->acct_ctrl;
	explicit_bzero(rec->nt_hash, 16);
	*out = info;
	return NT_STATUS_OK;
}

NTSTATUS passdb_auth_lookup(void *priv, TALLOC_CTX *mem_ctx, const char *user,
			    const char *domain, struct auth_user_info **out)
{
	struct auth_user_info *rec;
	NTSTATUS status;

	status = passdb_auth_record(priv, mem_ctx, user, &rec);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = passdb_auth_unix(mem_ctx, rec, out);
	talloc_free(rec);
	return status;
}

NTSTATUS auth_nt_hash(const char *password, uint8_t out[16])
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *u16;
	size_t len;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = charset_utf8_to_utf16(tmp, password, &u16, &len);
	if (NT_STATUS_IS_OK(status)) {
		crypto_md4(u16, len, out);
		memset(u16, 0, len);
	}
	talloc_free(tmp);
	return status;
}
