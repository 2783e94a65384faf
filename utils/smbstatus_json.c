/*
 * smbstatus --json: Samba 4.17's schema (the keys, nesting and value
 * forms its smbstatus --json printed for the same sessions, trees, open
 * files and byte-range locks on this machine), so the scripts and
 * monitoring written for it read ours.  Fields Samba fills from state we
 * do not have keep their form: server_id.task_id "0", vnn "4294967295"
 * (no cluster), unique_id the server's start time (unique with the pid).
 */
#include "config.h"
#include "utils/smbstatus.h"
#include "locking/locking.h"
#include "locking/locking_rec.h"
#include "lib/clock.h"
#include "lib/json.h"

#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "2026-12-04T03:10:40.971098+00:00" from an NTTIME. */
static const char *iso_time(TALLOC_CTX *mem, uint64_t nt, bool colon)
{
	struct timespec ts;
	struct tm tm;
	char buf[64];

	timespec_from_nttime(nt, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return talloc_asprintf(mem, "%s.%06ld%s", buf, ts.tv_nsec / 1000,
			       colon ? "+00:00" : "+0000");
}

static void server_id(struct json_writer *w, TALLOC_CTX *mem, uint32_t pid,
		      const char *unique)
{
	json_open(w, "server_id");
	json_add_str(w, "pid", talloc_asprintf(mem, "%u", (unsigned)pid));
	json_add_str(w, "task_id", "0");
	json_add_str(w, "vnn", "4294967295");
	json_add_str(w, "unique_id", unique[0] ? unique : "0");
	json_close(w);
}

static const char *unique_of(const struct snapshot *s, uint32_t pid,
			     uint64_t session)
{
	const struct rec *r = smbstatus_find_session(s, pid, session);

	return r ? smbstatus_field(s->mem, r->text, "unique") : "";
}

/* Samba's encryption/signing objects: cipher and degree. */
static void crypto_obj(struct json_writer *w, const char *key,
		       const char *cipher, const char *degree)
{
	json_open(w, key);
	json_add_str(w, "cipher", degree[0] == 'n' ? "-" : cipher);
	json_add_str(w, "degree", degree);
	json_close(w);
}

static void session_crypto(struct json_writer *w, TALLOC_CTX *mem,
			   const struct rec *r, bool tree)
{
	struct smbstatus_crypto c;

	smbstatus_crypto_of(mem, r, tree, &c);
	crypto_obj(w, "encryption", c.enc_cipher, c.enc_degree);
	crypto_obj(w, "signing", c.sign_cipher, c.sign_degree);
}

static const char *addr_port(TALLOC_CTX *mem, const char *addr,
			     const char *port)
{
	return talloc_asprintf(mem, "ipv%c:%s:%s",
			       strchr(addr, ':') ? '6' : '4', addr, port);
}

/*
 * The session's connections, as Samba 4.18 on lists them (channel_id,
 * creation_time, local_address, remote_address, transport; and ours, the
 * worker): only for a session with more than one (multichannel), so a
 * single-channel session has 4.17's keys exactly.
 */
static void json_channels(struct json_writer *w, struct snapshot *s,
			  const struct rec *sess)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		n += s->r[i].kind == STATUS_CHANNEL &&
		     s->r[i].pid == sess->pid && s->r[i].a == sess->a;
	}
	if (n < 2) {
		return;
	}
	json_open(w, "channels");
	for (i = 0; i < s->n; i++) {
		const struct rec *c = &s->r[i];
		const char *id;

		if (c->kind != STATUS_CHANNEL || c->pid != sess->pid ||
		    c->a != sess->a) {
			continue;
		}
		id = talloc_asprintf(s->mem, "%" PRIu64, c->b);
		json_open(w, id);
		json_add_str(w, "channel_id", id);
		json_add_str(w, "creation_time",
			     iso_time(s->mem,
				      strtoull(smbstatus_field(s->mem, c->text,
							       "since"),
					       NULL, 10),
				      true));
		json_add_str(w, "local_address",
			     addr_port(s->mem,
				       smbstatus_field(s->mem, c->text, "laddr"),
				       smbstatus_field(s->mem, c->text,
						       "lport")));
		json_add_str(w, "remote_address",
			     addr_port(s->mem,
				       smbstatus_field(s->mem, c->text, "raddr"),
				       smbstatus_field(s->mem, c->text,
						       "rport")));
		json_add_str(w, "transport", "tcp");
		json_add_str(w, "worker",
			     smbstatus_field(s->mem, c->text, "worker"));
		json_close(w);
	}
	json_close(w);
}

static void json_sessions(struct json_writer *w, struct snapshot *s)
{
	size_t i;

	json_open(w, "sessions");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];
		const char *id, *gid;
		struct group *g;

		if (r->kind != STATUS_SESSION) {
			continue;
		}
		id = talloc_asprintf(s->mem, "%" PRIu64, r->a);
		gid = smbstatus_field(s->mem, r->text, "gid");
		g = getgrgid((gid_t)strtoul(gid, NULL, 10));
		json_open(w, id);
		json_add_str(w, "session_id", id);
		server_id(w, s->mem, r->pid,
			  smbstatus_field(s->mem, r->text, "unique"));
		json_add_int(w, "uid", strtol(smbstatus_field(s->mem, r->text,
							      "uid"),
					      NULL, 10));
		json_add_int(w, "gid", strtol(gid, NULL, 10));
		json_add_str(w, "username",
			     smbstatus_field(s->mem, r->text, "user"));
		json_add_str(w, "groupname", g ? g->gr_name : gid);
		json_add_str(w, "remote_machine",
			     smbstatus_field(s->mem, r->text, "raddr"));
		json_add_str(w, "hostname",
			     talloc_asprintf(s->mem, "ipv%c:%s:%s",
					     strchr(smbstatus_field(
							    s->mem, r->text,
							    "raddr"),
						    ':')
						     ? '6'
						     : '4',
					     smbstatus_field(s->mem, r->text,
							     "raddr"),
					     smbstatus_field(s->mem, r->text,
							     "rport")));
		json_add_str(w, "session_dialect",
			     smbstatus_dialect_name(smbstatus_field(
				     s->mem, r->text, "dialect")));
		session_crypto(w, s->mem, r, false);
		json_channels(w, s, r);
		json_close(w);
	}
	json_close(w);
}

static void json_tcons(struct json_writer *w, struct snapshot *s)
{
	size_t i;

	json_open(w, "tcons");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];
		const struct rec *sess;
		const char *id;

		if (r->kind != STATUS_TCON) {
			continue;
		}
		sess = smbstatus_find_session(s, r->pid, r->a);
		id = talloc_asprintf(s->mem, "%" PRIu64, r->b);
		json_open(w, id);
		json_add_str(w, "service",
			     smbstatus_field(s->mem, r->text, "share"));
		server_id(w, s->mem, r->pid, unique_of(s, r->pid, r->a));
		json_add_str(w, "tcon_id", id);
		json_add_str(w, "session_id",
			     talloc_asprintf(s->mem, "%" PRIu64, r->a));
		json_add_str(w, "machine",
			     sess ? smbstatus_field(s->mem, sess->text, "raddr")
				  : "");
		json_add_str(w, "connected_at",
			     iso_time(s->mem,
				      strtoull(smbstatus_field(s->mem, r->text,
							       "connected"),
					       NULL, 10),
				      true));
		if (sess != NULL) {
			session_crypto(w, s->mem, sess, true);
		} else {
			crypto_obj(w, "encryption", "-", "none");
			crypto_obj(w, "signing", "-", "none");
		}
		json_close(w);
	}
	json_close(w);
}

struct json_files {
	struct snapshot *s;
	struct json_writer *w;
	const char *open_path;	/* the file object now open, or NULL */
};

static void flag(struct json_writer *w, const char *name, uint32_t v,
		 uint32_t bit)
{
	json_add_bool(w, name, (v & bit) != 0);
}

static void json_share_entry(struct json_writer *w, TALLOC_CTX *mem,
			     const struct share_mode_entry *e,
			     const struct rec *o)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} access[] = {
		{"READ_DATA", 0x1},	{"WRITE_DATA", 0x2},
		{"APPEND_DATA", 0x4},	{"READ_EA", 0x8},
		{"WRITE_EA", 0x10},	{"EXECUTE", 0x20},
		{"READ_ATTRIBUTES", 0x80}, {"WRITE_ATTRIBUTES", 0x100},
		{"DELETE_CHILD", 0x40}, {"DELETE", 0x10000},
		{"READ_CONTROL", 0x20000}, {"WRITE_DAC", 0x40000},
		{"SYNCHRONIZE", 0x100000},
		{"ACCESS_SYSTEM_SECURITY", 0x1000000},
	};
	char text[8];
	size_t i, n = 0;
	uint32_t st = e->state;

	server_id(w, mem, e->pid, "");
	json_add_int(w, "uid",
		     o ? strtol(smbstatus_field(mem, o->text, "uid"), NULL, 10)
		       : -1);
	json_add_str(w, "share_file_id",
		     talloc_asprintf(mem, "%" PRIu64, e->open_id));
	json_open(w, "sharemode");
	json_add_str(w, "hex", talloc_asprintf(mem, "0x%08x", e->share_access));
	flag(w, "READ", e->share_access, 1);
	flag(w, "WRITE", e->share_access, 2);
	flag(w, "DELETE", e->share_access, 4);
	n = 0;
	if (e->share_access & 1) text[n++] = 'R';
	if (e->share_access & 2) text[n++] = 'W';
	if (e->share_access & 4) text[n++] = 'D';
	text[n] = '\0';
	json_add_str(w, "text", text);
	json_close(w);
	json_open(w, "access_mask");
	json_add_str(w, "hex", talloc_asprintf(mem, "0x%08x", e->access_mask));
	for (i = 0; i < sizeof(access) / sizeof(access[0]); i++) {
		flag(w, access[i].name, e->access_mask, access[i].bit);
	}
	n = 0;
	if (e->access_mask & 0x1) text[n++] = 'R';
	if (e->access_mask & 0x6) text[n++] = 'W';
	if (e->access_mask & 0x10000) text[n++] = 'D';
	text[n] = '\0';
	json_add_str(w, "text", text);
	json_close(w);
	json_open(w, "caching");
	flag(w, "READ", st, CACHE_R);
	flag(w, "WRITE", st, CACHE_W);
	flag(w, "HANDLE", st, CACHE_H);
	json_add_str(w, "hex", talloc_asprintf(mem, "0x%08x", st));
	n = 0;
	if (st & CACHE_R) text[n++] = 'R';
	if (st & CACHE_W) text[n++] = 'W';
	if (st & CACHE_H) text[n++] = 'H';
	text[n] = '\0';
	json_add_str(w, "text", text);
	json_close(w);
	json_open(w, "oplock");
	if (e->caching == CACHING_OPLOCK) {
		json_add_bool(w, "EXCLUSIVE", (st & CACHE_W) && !(st & CACHE_H));
		json_add_bool(w, "BATCH", (st & CACHE_RWH) == CACHE_RWH);
		json_add_bool(w, "LEVEL_II", st == CACHE_R);
		json_add_bool(w, "LEASE", false);
		json_add_str(w, "text", (st & CACHE_RWH) == CACHE_RWH ? "BATCH"
					: (st & CACHE_W)	       ? "EXCLUSIVE"
					: st != 0		       ? "LEVEL_II"
								       : "NONE");
	}
	json_close(w);
	json_open(w, "lease");
	if (e->caching == CACHING_LEASE) {
		char key[33];

		for (i = 0; i < 16; i++) {
			snprintf(key + 2 * i, 3, "%02x", e->lease_key[i]);
		}
		json_add_str(w, "lease_key", key);
		flag(w, "READ", st, CACHE_R);
		flag(w, "WRITE", st, CACHE_W);
		flag(w, "HANDLE", st, CACHE_H);
		json_add_str(w, "text", text);
	}
	json_close(w);
	json_add_str(w, "opened_at",
		     iso_time(mem,
			      o ? strtoull(smbstatus_field(mem, o->text,
							   "opened"),
					   NULL, 10)
				: 0,
			      true));
}

static const char *full_path(TALLOC_CTX *mem, const struct rec *o,
			     const struct file_key *k)
{
	if (o == NULL) {
		return talloc_asprintf(mem, "%" PRIu64 ":%" PRIu64, k->dev,
				       k->ino);
	}
	return talloc_asprintf(mem, "%s/%s",
			       smbstatus_field(mem, o->text, "sharepath"),
			       smbstatus_field(mem, o->text, "name"));
}

static void fileid(struct json_writer *w, const struct file_key *k)
{
	json_open(w, "fileid");
	json_add_int(w, "devid", (int64_t)k->dev);
	json_add_int(w, "inode", (int64_t)k->ino);
	json_add_int(w, "extid", 0);
	json_close(w);
}

/* share_mode_walk gives a file's entries one after the other: a new key
 * closes the previous file's object. */
static void json_open_entry(const struct file_key *k, uint16_t flags,
			    const struct share_mode_entry *e, void *priv)
{
	struct json_files *f = priv;
	struct snapshot *s = f->s;
	const struct rec *o = smbstatus_find_open(s, e->pid, e->open_id);
	const char *path = full_path(s->mem, o, k);

	if (f->open_path == NULL || strcmp(f->open_path, path) != 0) {
		if (f->open_path != NULL) {
			json_close(f->w);	/* opens */
			json_close(f->w);	/* the file */
		}
		f->open_path = path;
		json_open(f->w, path);
		json_add_str(f->w, "service_path",
			     o ? smbstatus_field(s->mem, o->text, "sharepath")
			       : "");
		json_add_str(f->w, "filename",
			     o ? smbstatus_field(s->mem, o->text, "name") : "");
		fileid(f->w, k);
		json_add_int(f->w, "num_pending_deletes",
			     (flags & SHARE_REC_DELETE_PENDING) ? 1 : 0);
		json_open(f->w, "opens");
	}
	json_open(f->w, talloc_asprintf(s->mem, "%u/%" PRIu64,
					(unsigned)e->pid, e->open_id));
	json_share_entry(f->w, s->mem, e, o);
	json_close(f->w);
}

static void json_brl(const struct file_key *k, uint32_t pid, uint64_t open_id,
		     uint64_t off, uint64_t len, bool exclusive, void *priv)
{
	struct json_files *f = priv;
	struct snapshot *s = f->s;
	const struct rec *o = smbstatus_find_open(s, pid, open_id);
	const char *path = full_path(s->mem, o, k);

	if (f->open_path == NULL || strcmp(f->open_path, path) != 0) {
		if (f->open_path != NULL) {
			json_close_array(f->w);	/* locks */
			json_close(f->w);	/* the file */
		}
		f->open_path = path;
		json_open(f->w, path);
		fileid(f->w, k);
		json_add_str(f->w, "file_name",
			     o ? smbstatus_field(s->mem, o->text, "name") : "");
		json_add_str(f->w, "share_path",
			     o ? smbstatus_field(s->mem, o->text, "sharepath")
			       : "");
		server_id(f->w, s->mem, pid, "");
		json_open_array(f->w, "locks");
	}
	json_open(f->w, NULL);
	server_id(f->w, s->mem, pid, "");
	json_add_str(f->w, "type", exclusive ? "W" : "R");
	json_add_str(f->w, "flavour", "Windows");
	json_add_int(f->w, "start", (int64_t)off);
	json_add_int(f->w, "size", (int64_t)len);
	json_close(f->w);
}

bool smbstatus_json(struct snapshot *s, struct locking_db *db,
		    const char *config, bool sessions, bool shares, bool locks,
		    bool brl)
{
	struct json_writer w;
	struct json_files f = {.s = s, .w = &w};
	struct timespec now;
	const char *out;

	clock_gettime(CLOCK_REALTIME, &now);
	json_init(&w, s->mem);
	json_open(&w, NULL);
	json_add_str(&w, "timestamp",
		     iso_time(s->mem, nttime_from_timespec(&now), false));
	json_add_str(&w, "version", PACKAGE_VERSION " (" PACKAGE_NAME ")");
	json_add_str(&w, "smb_conf", config);
	if (sessions) {
		json_sessions(&w, s);
	}
	if (shares) {
		json_tcons(&w, s);
	}
	if (locks) {
		json_open(&w, "open_files");
		(void)share_mode_walk(db, json_open_entry, &f);
		if (f.open_path != NULL) {
			json_close(&w);
			json_close(&w);
		}
		json_close(&w);
	}
	if (brl) {
		f.open_path = NULL;
		json_open(&w, "byte_range_locks");
		(void)brl_walk(db, json_brl, &f);
		if (f.open_path != NULL) {
			json_close_array(&w);
			json_close(&w);
		}
		json_close(&w);
	}
	json_close(&w);
	out = json_finish(&w);
	if (out == NULL) {
		return false;
	}
	printf("%s\n", out);
	return true;
}
