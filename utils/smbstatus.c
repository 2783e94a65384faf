/*
 * smbstatus: what the running smbd serves, read from the shared
 * databases in `lock directory` (Samba's tool's flags and layout):
 * sessions, tree connects, open files with their share modes and
 * oplocks/leases, byte-range locks.  It only reads (tdb traverses that
 * take each chain's lock briefly), so it is safe on a busy server.
 */
#include "config.h"
#include "conf/loadparm.h"
#include "locking/locking.h"
#include "locking/locking_rec.h"
#include "utils/smbstatus.h"
#include "locking/ctdb/ctdb_conn.h"
#include "lib/log.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <grp.h>
#include <time.h>
#include "lib/clock.h"








/* Samba 4.17's layout: PID, Username, Group, Machine (with its
 * ipv4:addr:port), Protocol Version, Encryption, Signing. */
static void show_sessions(struct snapshot *s)
{
	size_t i;

	printf("\n%-7s %-12s %-12s %-41s %-17s %-20s %-21s\n", "PID",
	       "Username", "Group", "Machine", "Protocol Version",
	       "Encryption", "Signing");
	printf("%.*s\n", 136, "------------------------------------------------"
			      "------------------------------------------------"
			      "----------------------------------------");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];
		const char *addr, *gid;
		struct smbstatus_crypto c;
		struct group *g;

		if (r->kind != STATUS_SESSION) {
			continue;
		}
		addr = smbstatus_field(s->mem, r->text, "raddr");
		gid = smbstatus_field(s->mem, r->text, "gid");
		g = getgrgid((gid_t)strtoul(gid, NULL, 10));
		smbstatus_crypto_of(s->mem, r, false, &c);
		printf("%-7u %-12s %-12s %-41s %-17s %-20s %-21s\n",
		       (unsigned)r->pid, smbstatus_field(s->mem, r->text, "user"),
		       g ? g->gr_name : gid,
		       talloc_asprintf(s->mem, "%s (ipv%c:%s:%s)", addr,
				       strchr(addr, ':') ? '6' : '4', addr,
				       smbstatus_field(s->mem, r->text,
						       "rport")),
		       smbstatus_dialect_name(
			       smbstatus_field(s->mem, r->text, "dialect")),
		       smbstatus_crypto_text(s->mem, c.enc_cipher,
					     c.enc_degree),
		       smbstatus_crypto_text(s->mem, c.sign_cipher,
					     c.sign_degree));
	}
}

static unsigned session_channels(const struct snapshot *s,
				  const struct rec *sess)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		n += s->r[i].kind == STATUS_CHANNEL &&
		     s->r[i].pid == sess->pid && s->r[i].a == sess->a;
	}
	return n;
}

/*
 * Ours (Samba shows channels only in --json): the connections of each
 * session that has more than one (multichannel), with the worker that
 * serves them, after the sessions; nothing when no session has two.
 */
static void show_channels(struct snapshot *s)
{
	bool header = false;
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];

		if (r->kind != STATUS_SESSION || session_channels(s, r) < 2) {
			continue;
		}
		if (!header) {
			printf("\n%-7s %-12s %-8s %-7s %-41s %s\n", "PID",
			       "Session", "Channel", "Worker", "Remote",
			       "Since");
			printf("%.*s\n", 100, "-------------------------------"
					      "-------------------------------"
					      "-------------------------------"
					      "-------");
			header = true;
		}
		for (j = 0; j < s->n; j++) {
			const struct rec *c = &s->r[j];
			const char *addr;

			if (c->kind != STATUS_CHANNEL || c->pid != r->pid ||
			    c->a != r->a) {
				continue;
			}
			addr = smbstatus_field(s->mem, c->text, "raddr");
			printf("%-7u %-12" PRIx64 " %-8" PRIu64 " %-7s %-41s %s\n",
			       (unsigned)c->pid, c->a, c->b,
			       smbstatus_field(s->mem, c->text, "worker"),
			       talloc_asprintf(s->mem, "ipv%c:%s:%s",
					       strchr(addr, ':') ? '6' : '4',
					       addr,
					       smbstatus_field(s->mem, c->text,
							       "rport")),
			       smbstatus_ctime(s->mem,
					       smbstatus_field(s->mem, c->text,
							       "since")));
		}
	}
}

static int worker_cmp(const void *x, const void *y)
{
	const struct rec *const *a = x, *const *b = y;

	return (*a)->a < (*b)->a ? -1 : (*a)->a > (*b)->a;
}

/*
 * Ours only (--workers): each worker's CPU, the connections it took and
 * how many of them the kernel received on that CPU (SO_INCOMING_CPU),
 * which steering and the NIC's interrupt placement (smbd-irq(8)) aim to
 * make all of them.  Counted since the worker (re)started.
 */
static void show_workers(struct snapshot *s)
{
	const struct rec **w = talloc_array(s->mem, const struct rec *,
					    s->n + 1);
	size_t i, n = 0;

	if (w == NULL) {
		return;
	}
	for (i = 0; i < s->n; i++) {
		if (s->r[i].kind == STATUS_WORKER) {
			w[n++] = &s->r[i];
		}
	}
	qsort(w, n, sizeof(w[0]), worker_cmp);
	printf("\n%-7s %-7s %-5s %-10s %s\n", "Worker", "PID", "CPU",
	       "Accepted", "On its CPU");
	printf("%.*s\n", 43, "-------------------------------------------");
	for (i = 0; i < n; i++) {
		printf("%-7" PRIu64 " %-7u %-5s %-10s %s\n", w[i]->a,
		       (unsigned)w[i]->pid,
		       smbstatus_field(s->mem, w[i]->text, "cpu"),
		       smbstatus_field(s->mem, w[i]->text, "accepted"),
		       smbstatus_field(s->mem, w[i]->text, "local"));
	}
}

/* Service, pid, Machine, Connected at, Encryption, Signing (Samba's). */
static void show_shares(struct snapshot *s)
{
	size_t i;

	printf("\n%-12s %-7s %-13s %-32s %-12s %-12s\n", "Service", "pid",
	       "Machine", "Connected at", "Encryption", "Signing");
	printf("%.*s\n", 93, "------------------------------------------------"
			     "------------------------------------------------");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];
		const struct rec *sess;
		struct smbstatus_crypto c = {"-", "none", "-", "none"};

		if (r->kind != STATUS_TCON) {
			continue;
		}
		sess = smbstatus_find_session(s, r->pid, r->a);
		if (sess != NULL) {
			smbstatus_crypto_of(s->mem, sess, true, &c);
		}
		printf("%-12s %-7u %-13s %-32s %-12s %-12s\n",
		       smbstatus_field(s->mem, r->text, "share"),
		       (unsigned)r->pid,
		       sess ? smbstatus_field(s->mem, sess->text, "raddr") : "",
		       talloc_asprintf(s->mem, "%s UTC",
				       smbstatus_ctime(s->mem,
						       smbstatus_field(
							       s->mem, r->text,
							       "connected"))),
		       smbstatus_crypto_text(s->mem, c.enc_cipher,
					     c.enc_degree),
		       smbstatus_crypto_text(s->mem, c.sign_cipher,
					     c.sign_degree));
	}
}


struct locks_ctx {
	struct snapshot *s;
	unsigned n;
	bool clustered;
	uint32_t pnn;		/* this node's, when clustered */
};

/* An entry's owner as Samba's smbstatus shows it: "node:pid" when
 * clustered.  *local: the pid this node's status records know it by,
 * or 0 for a process of another node. */
static const char *owner_str(struct locks_ctx *lc, uint32_t pid,
			     uint32_t *local)
{
	uint32_t node;

	*local = pid;
	if (!lc->clustered || !locking_pid_node(pid, &node)) {
		return talloc_asprintf(lc->s->mem, "%u", (unsigned)pid);
	}
	*local = node == lc->pnn ? (pid & LOCKING_PID_MASK) : 0;
	return talloc_asprintf(lc->s->mem, "%u:%u", (unsigned)node,
			       (unsigned)(pid & LOCKING_PID_MASK));
}


static void caching_str(const struct share_mode_entry *e, char *buf,
			size_t len)
{
	const char *st = (e->state & CACHE_RWH) == CACHE_RWH ? "RWH"
			 : (e->state & (CACHE_R | CACHE_W)) == (CACHE_R | CACHE_W) ? "RW"
			 : (e->state & (CACHE_R | CACHE_H)) == (CACHE_R | CACHE_H) ? "RH"
			 : (e->state & CACHE_R) ? "R" : "";

	if (e->caching == CACHING_LEASE) {
		snprintf(buf, len, "LEASE(%s)%s", st,
			 (e->flags & SHARE_ENTRY_BREAKING) ? " breaking" : "");
	} else if (e->caching == CACHING_OPLOCK) {
		snprintf(buf, len, "%s%s",
			 strcmp(st, "RWH") == 0 ? "BATCH"
			 : strcmp(st, "RW") == 0 ? "EXCLUSIVE"
						 : "LEVEL_II",
			 (e->flags & SHARE_ENTRY_BREAKING) ? " breaking" : "");
	} else {
		snprintf(buf, len, "NONE");
	}
}

static void show_open(const struct file_key *k, uint16_t flags,
		      const struct share_mode_entry *e, void *priv)
{
	struct locks_ctx *lc = priv;
	uint32_t local;
	const char *owner = owner_str(lc, e->pid, &local);
	const struct rec *o = smbstatus_find_open(lc->s, local, e->open_id);
	char cache[32];
	const char *rw = (e->access_mask & 0x6) && (e->access_mask & 0x1)
				 ? "RDWR"
			 : (e->access_mask & 0x6) ? "WRONLY"
			 : (e->access_mask & 0x1) ? "RDONLY"
						  : "-";

	if (lc->n++ == 0) {
		printf("\nLocked files:\n%-8s %-10s %-11s %-10s %-6s %-20s "
		       "%-24s %-20s %s\n",
		       "Pid", "User(ID)", "DenyMode", "Access", "R/W", "Oplock",
		       "SharePath", "Name", "Time");
		printf("%.*s\n", 100,
		       "--------------------------------------------------"
		       "--------------------------------------------------");
	}
	caching_str(e, cache, sizeof(cache));
	printf("%-8s %-10s %-11s 0x%-8x %-6s %-20s %-24s %s%s%s   %s%s\n",
	       owner,
	       o ? smbstatus_field(lc->s->mem, o->text, "uid") : "-",
	       smbstatus_deny_mode(e->share_access),
	       (unsigned)e->access_mask, rw, cache,
	       o ? smbstatus_field(lc->s->mem, o->text, "sharepath") : "?",
	       o ? smbstatus_field(lc->s->mem, o->text, "name")
		 : talloc_asprintf(lc->s->mem, "%" PRIu64 ":%" PRIu64, k->dev,
				   k->ino),
	       o && *smbstatus_field(lc->s->mem, o->text, "stream") ? ":" : "",
	       o ? smbstatus_field(lc->s->mem, o->text, "stream") : "",
	       o ? smbstatus_ctime(lc->s->mem, smbstatus_field(lc->s->mem,
							       o->text,
							       "opened"))
		 : "",
	       (flags & SHARE_REC_DELETE_PENDING) ? "  (delete pending)" : "");
}

static void show_brl(const struct file_key *k, uint32_t pid, uint64_t open_id,
		     uint64_t off, uint64_t len, bool exclusive, void *priv)
{
	struct locks_ctx *lc = priv;
	uint32_t local;
	const char *owner = owner_str(lc, pid, &local);
	const struct rec *o = smbstatus_find_open(lc->s, local, open_id);

	if (lc->n++ == 0) {
		printf("\nByte range locks:\n%-8s %-6s %-20s %-20s %s\n", "Pid",
		       "R/W", "Start", "Size", "Name");
		printf("%.*s\n", 80,
		       "--------------------------------------------------"
		       "------------------------------");
	}
	printf("%-8s %-6s %-20" PRIu64 " %-20" PRIu64 " %s\n", owner,
	       exclusive ? "WRITE" : "READ", off, len,
	       o ? smbstatus_field(lc->s->mem, o->text, "name")
		 : talloc_asprintf(lc->s->mem, "%" PRIu64 ":%" PRIu64, k->dev,
				   k->ino));
}

/* The databases; `clustering = yes`: through this node's ctdbd. */
static bool open_db(TALLOC_CTX *mem, struct lp_ctx *lp, const char *lockdir,
		    struct locking_db **db)
{
	struct locking_cluster_opts co = {
		.socket = lp_str(lp, LP_GLOBAL, LP_CTDBD_SOCKET),
		.timeout_ms = (unsigned)lp_int(lp, LP_GLOBAL, LP_CTDB_TIMEOUT),
	};

	if (!lp_bool(lp, LP_GLOBAL, LP_CLUSTERING)) {
		if (NT_STATUS_IS_OK(locking_db_open(mem, lockdir, false, db))) {
			return true;
		}
		fprintf(stderr, "smbstatus: cannot open the databases in %s\n",
			lockdir);
		return false;
	}
	if (co.socket == NULL || *co.socket == '\0') {
		co.socket = SMBD_CTDBD_SOCKET_DEFAULT;
	}
	if (NT_STATUS_IS_OK(locking_db_open_clustered(mem, lockdir, &co, db))) {
		return true;
	}
	fprintf(stderr, "smbstatus: cannot reach ctdbd at %s (ctdbd socket)\n",
		co.socket);
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbstatus [OPTION...]\n"
		"  -p, --processes     Show sessions only\n"
		"  -b, --brief         Same as -p\n"
		"  -S, --shares        Show tree connects only\n"
		"  -L, --locks         Show open files only\n"
		"  -B, --byterange     Show byte-range locks too\n"
		"  -W, --workers       Show the workers' connection counts "
		"only\n"
		"  -P, --profile       Show the request metrics (counts, "
		"bytes, latency)\n"
		"      --json          Everything as one JSON object (Samba's "
		"schema)\n"
		"  -s, --configfile=F  smb.conf to read (default %s)\n"
		"  -h, --help          This text\n",
		LP_DEFAULT_CONFIG_FILE);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"processes", no_argument, NULL, 'p'},
		{"brief", no_argument, NULL, 'b'},
		{"shares", no_argument, NULL, 'S'},
		{"locks", no_argument, NULL, 'L'},
		{"byterange", no_argument, NULL, 'B'},
		{"workers", no_argument, NULL, 'W'},
		{"profile", no_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"configfile", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = LP_DEFAULT_CONFIG_FILE;
	bool only_sessions = false, only_shares = false, only_locks = false;
	bool brl = false, json = false, workers = false, profile = false;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct snapshot snap = {.mem = mem};
	struct locks_ctx lc = {.s = &snap};
	struct locking_db *db;
	struct lp_ctx *lp;
	const char *lockdir;
	int c;

	while ((c = getopt_long(argc, argv, "pbSLBWPs:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'b':
			only_sessions = true;
			break;
		case 'S':
			only_shares = true;
			break;
		case 'L':
			only_locks = true;
			break;
		case 'B':
			brl = true;
			break;
		case 'W':
			workers = true;
			break;
		case 'P':
			profile = true;
			break;
		case 'j':
			json = true;
			break;
		case 's':
			config = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	log_set_level(0);
	lp = lp_new(mem);
	if (lp == NULL || !lp_load_file(lp, config)) {
		fprintf(stderr, "smbstatus: cannot load %s\n", config);
		return 1;
	}
	lockdir = lp_str(lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	if (profile) {
		/* The metrics file only: no databases to open. */
		c = smbstatus_profile(mem, lockdir, config, json);
		talloc_free(mem);
		return c;
	}
	if (!open_db(mem, lp, lockdir, &db)) {
		return 1;
	}
	if (locking_db_clustered(db)) {
		lc.clustered = true;
		lc.pnn = ctdb_conn_pnn(locking_db_ctdb(db));
	}
	(void)status_db_walk(db, smbstatus_collect, &snap);
	if (json) {
		bool ok = smbstatus_json(&snap, db, config,
					 !only_shares && !only_locks,
					 !only_sessions && !only_locks,
					 !only_sessions && !only_shares,
					 brl && !only_sessions && !only_shares);

		talloc_free(mem);
		return ok ? 0 : 1;
	}
	printf("smbd-ng version %s (lock directory %s)\n", PACKAGE_VERSION,
	       lockdir);
	if (workers) {
		show_workers(&snap);
		talloc_free(mem);
		return 0;
	}
	if (!only_shares && !only_locks) {
		show_sessions(&snap);
		show_channels(&snap);
	}
	if (!only_sessions && !only_locks) {
		show_shares(&snap);
	}
	if (!only_sessions && !only_shares) {
		(void)share_mode_walk(db, show_open, &lc);
		if (lc.n == 0) {
			printf("\nNo locked files\n");
		}
		if (brl) {
			lc.n = 0;
			(void)brl_walk(db, show_brl, &lc);
			if (lc.n == 0) {
				printf("\nNo byte range locks\n");
			}
		}
	}
	talloc_free(mem);
	return 0;
}
