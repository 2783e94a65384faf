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
#include "lib/log.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define DEFAULT_CONFIG SYSCONFDIR "/samba/smb.conf"

struct rec {
	char kind;
	uint32_t pid;
	uint64_t a, b;
	char *text;
};

struct snapshot {
	TALLOC_CTX *mem;
	struct rec *r;
	size_t n;
};

static void collect(char kind, uint32_t pid, uint64_t a, uint64_t b,
		    const char *text, void *priv)
{
	struct snapshot *s = priv;
	struct rec *r = talloc_realloc(s->mem, s->r, struct rec, s->n + 1);

	if (r == NULL) {
		return;
	}
	s->r = r;
	r[s->n] = (struct rec){.kind = kind, .pid = pid, .a = a, .b = b,
			       .text = talloc_strdup(s->mem, text)};
	s->n++;
}

/* The value of key in a "key=value\n" record ("" when absent). */
static const char *field(TALLOC_CTX *mem, const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p != NULL && *p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			return talloc_strndup(mem, p + kl + 1, len - kl - 1);
		}
		p = eol ? eol + 1 : NULL;
	}
	return "";
}

static const char *dialect_name(const char *hex)
{
	unsigned d = (unsigned)strtoul(hex, NULL, 16);

	switch (d) {
	case 0x0202:
		return "SMB2_02";
	case 0x0210:
		return "SMB2_10";
	case 0x0300:
		return "SMB3_00";
	case 0x0302:
		return "SMB3_02";
	case 0x0311:
		return "SMB3_11";
	default:
		return "SMB2";
	}
}

static void show_sessions(struct snapshot *s)
{
	size_t i;

	printf("\n%-8s %-16s %-10s %-28s %-9s %-11s %-8s\n", "PID",
	       "Username", "Session", "Machine", "Protocol", "Encryption",
	       "Signing");
	printf("%.*s\n", 96, "------------------------------------------------"
			     "------------------------------------------------");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];

		if (r->kind != STATUS_SESSION) {
			continue;
		}
		printf("%-8u %-16s %-10" PRIx64 " %-28s %-9s %-11s %-8s\n",
		       (unsigned)r->pid, field(s->mem, r->text, "user"), r->a,
		       field(s->mem, r->text, "client"),
		       dialect_name(field(s->mem, r->text, "dialect")),
		       strcmp(field(s->mem, r->text, "encryption"), "yes") == 0
			       ? "yes"
			       : "-",
		       strcmp(field(s->mem, r->text, "signing"), "required") ==
				       0
			       ? "required"
			       : "-");
	}
}

static void show_shares(struct snapshot *s)
{
	size_t i;

	printf("\n%-14s %-8s %-10s %-28s %s\n", "Service", "PID", "Session",
	       "Machine", "Path");
	printf("%.*s\n", 96, "------------------------------------------------"
			     "------------------------------------------------");
	for (i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];

		if (r->kind != STATUS_TCON) {
			continue;
		}
		printf("%-14s %-8u %-10" PRIx64 " %-28s %s\n",
		       field(s->mem, r->text, "share"), (unsigned)r->pid, r->a,
		       field(s->mem, r->text, "client"),
		       field(s->mem, r->text, "path"));
	}
}

/* The open record of (pid, open id), or NULL. */
static const struct rec *find_open(const struct snapshot *s, uint32_t pid,
				   uint64_t id)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->r[i].kind == STATUS_OPEN && s->r[i].pid == pid &&
		    s->r[i].a == id) {
			return &s->r[i];
		}
	}
	return NULL;
}

struct locks_ctx {
	struct snapshot *s;
	unsigned n;
};

static const char *deny_mode(uint32_t share)
{
	switch (share & 7) {
	case 0:
		return "DENY_ALL";
	case 1:
		return "DENY_WRITE";
	case 2:
		return "DENY_READ";
	default:
		return "DENY_NONE";
	}
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
	const struct rec *o = find_open(lc->s, e->pid, e->open_id);
	char cache[32];
	const char *rw = (e->access_mask & 0x6) && (e->access_mask & 0x1)
				 ? "RDWR"
			 : (e->access_mask & 0x6) ? "WRONLY"
			 : (e->access_mask & 0x1) ? "RDONLY"
						  : "-";

	if (lc->n++ == 0) {
		printf("\nLocked files:\n%-8s %-11s %-10s %-6s %-20s %-24s %s\n",
		       "Pid", "DenyMode", "Access", "R/W", "Oplock",
		       "SharePath", "Name");
		printf("%.*s\n", 100,
		       "--------------------------------------------------"
		       "--------------------------------------------------");
	}
	caching_str(e, cache, sizeof(cache));
	printf("%-8u %-11s 0x%-8x %-6s %-20s %-24s %s%s%s%s\n",
	       (unsigned)e->pid, deny_mode(e->share_access),
	       (unsigned)e->access_mask, rw, cache,
	       o ? field(lc->s->mem, o->text, "sharepath") : "?",
	       o ? field(lc->s->mem, o->text, "name")
		 : talloc_asprintf(lc->s->mem, "%" PRIu64 ":%" PRIu64, k->dev,
				   k->ino),
	       o && *field(lc->s->mem, o->text, "stream") ? ":" : "",
	       o ? field(lc->s->mem, o->text, "stream") : "",
	       (flags & SHARE_REC_DELETE_PENDING) ? "  (delete pending)" : "");
}

static void show_brl(const struct file_key *k, uint32_t pid, uint64_t open_id,
		     uint64_t off, uint64_t len, bool exclusive, void *priv)
{
	struct locks_ctx *lc = priv;
	const struct rec *o = find_open(lc->s, pid, open_id);

	if (lc->n++ == 0) {
		printf("\nByte range locks:\n%-8s %-6s %-20s %-20s %s\n", "Pid",
		       "R/W", "Start", "Size", "Name");
		printf("%.*s\n", 80,
		       "--------------------------------------------------"
		       "------------------------------");
	}
	printf("%-8u %-6s %-20" PRIu64 " %-20" PRIu64 " %s\n", (unsigned)pid,
	       exclusive ? "WRITE" : "READ", off, len,
	       o ? field(lc->s->mem, o->text, "name")
		 : talloc_asprintf(lc->s->mem, "%" PRIu64 ":%" PRIu64, k->dev,
				   k->ino));
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
		"  -s, --configfile=F  smb.conf to read (default %s)\n"
		"  -h, --help          This text\n",
		DEFAULT_CONFIG);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"processes", no_argument, NULL, 'p'},
		{"brief", no_argument, NULL, 'b'},
		{"shares", no_argument, NULL, 'S'},
		{"locks", no_argument, NULL, 'L'},
		{"byterange", no_argument, NULL, 'B'},
		{"configfile", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = DEFAULT_CONFIG;
	bool only_sessions = false, only_shares = false, only_locks = false;
	bool brl = false;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct snapshot snap = {.mem = mem};
	struct locks_ctx lc = {.s = &snap};
	struct locking_db *db;
	struct lp_ctx *lp;
	const char *lockdir;
	int c;

	while ((c = getopt_long(argc, argv, "pbSLBs:h", opts, NULL)) != -1) {
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
	if (!NT_STATUS_IS_OK(locking_db_open(mem, lockdir, false, &db))) {
		fprintf(stderr, "smbstatus: cannot open the databases in %s\n",
			lockdir);
		return 1;
	}
	printf("smbd-ng version %s (lock directory %s)\n", PACKAGE_VERSION,
	       lockdir);
	(void)status_db_walk(db, collect, &snap);
	if (!only_shares && !only_locks) {
		show_sessions(&snap);
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
