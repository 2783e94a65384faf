/*
 * smbpasswd: manage the accounts in passdb.tdb, with Samba's flags and
 * messages, so scripts written for Samba's tool keep working.
 *
 *   smbpasswd [-a|-x|-d|-e|-n] [-s] [-c CONF] [-D LEVEL] [-U USER] [USER]
 *
 * Local mode only: root edits the database directly (the file is 0600
 * root); a non-root user changing their own password would need the
 * running server (SAMR), which does not exist yet, so that is refused with
 * a clear message.  Errors go to stderr and the exit status is 1, as with
 * Samba; -a on an existing account just sets its password.
 */
#include "conf/loadparm.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/charset.h"
#include "smbd/auth/passdb.h"
#include "locking/locking.h"
#include "locking/ctdb/ctdb_conn.h"
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum smbpasswd_op {
	OP_CHANGE,
	OP_ADD,
	OP_DELETE,
	OP_DISABLE,
	OP_ENABLE,
	OP_NO_PASSWORD,
};

struct smbpasswd_opts {
	enum smbpasswd_op op;
	bool add_no_password; /* -a -n */
	bool stdin_pw;	      /* -s */
	const char *config;
	const char *user;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbpasswd [options] [username]\n"
		"  -a        add user\n"
		"  -x        delete user\n"
		"  -d        disable user\n"
		"  -e        enable user\n"
		"  -n        set no password\n"
		"  -s        use stdin for password prompt\n"
		"  -c FILE   use the given smb.conf\n"
		"  -D LEVEL  debug level\n"
		"  -U USER   remote username\n"
		"  -h        print this usage message\n");
}

/* One line from fp, newline stripped; NULL at EOF. */
static char *read_line(TALLOC_CTX *mem_ctx, FILE *fp)
{
	char buf[512];
	size_t n;

	if (fgets(buf, sizeof(buf), fp) == NULL) {
		return NULL;
	}
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	return talloc_strdup(mem_ctx, buf);
}

/* Prompt on the terminal with echo off (Samba's prompts). */
static char *prompt_tty(TALLOC_CTX *mem_ctx, const char *prompt)
{
	struct termios old, quiet;
	FILE *tty = fopen("/dev/tty", "r+");
	FILE *in = tty != NULL ? tty : stdin;
	bool restore = false;
	char *pw;

	fputs(prompt, tty != NULL ? tty : stderr);
	fflush(tty != NULL ? tty : stderr);
	if (tcgetattr(fileno(in), &old) == 0) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		restore = tcsetattr(fileno(in), TCSAFLUSH, &quiet) == 0;
	}
	pw = read_line(mem_ctx, in);
	if (restore) {
		tcsetattr(fileno(in), TCSAFLUSH, &old);
	}
	fputs("\n", tty != NULL ? tty : stderr);
	if (tty != NULL) {
		fclose(tty);
	}
	return pw;
}

/* New password, twice; NULL (after Samba's message) on mismatch/EOF. */
static char *get_new_password(TALLOC_CTX *mem_ctx, bool from_stdin)
{
	char *p1, *p2;

	if (from_stdin) {
		p1 = read_line(mem_ctx, stdin);
		p2 = p1 != NULL ? read_line(mem_ctx, stdin) : NULL;
	} else {
		p1 = prompt_tty(mem_ctx, "New SMB password:");
		p2 = NULL;
		if (p1 != NULL) {
			p2 = prompt_tty(mem_ctx, "Retype new SMB password:");
		}
	}
	if (p1 == NULL || p2 == NULL || strcmp(p1, p2) != 0) {
		if (p1 != NULL && p2 != NULL) {
			fprintf(stderr, "Mismatch - password unchanged.\n");
		}
		fprintf(stderr, "Unable to get new password.\n");
		return NULL;
	}
	return p1;
}

static bool set_password(struct passdb_user *u, const char *pw)
{
	if (!NT_STATUS_IS_OK(auth_nt_hash(pw, u->nt_pw))) {
		return false;
	}
	u->has_nt_pw = true;
	u->has_lm_pw = false; /* Samba no longer stores LM hashes */
	u->pass_last_set_time = (uint32_t)time(NULL);
	u->acct_ctrl &= ~(uint32_t)ACB_PWNOTREQ;
	return true;
}

/* Full name as Samba takes it: the GECOS field up to the first comma. */
static char *gecos_name(TALLOC_CTX *mem_ctx, const struct passwd *pw)
{
	const char *g = pw->pw_gecos != NULL ? pw->pw_gecos : "";

	/* Samba stores "" (not "unset") when there is no name. */
	return talloc_strndup(mem_ctx, g, strcspn(g, ","));
}

static int do_add(TALLOC_CTX *mem_ctx, struct passdb *pdb,
		  const struct smbpasswd_opts *o, const char *domain)
{
	struct passdb_user *u;
	struct passwd *pw;
	char *password = NULL;
	NTSTATUS status;
	bool exists;

	exists = NT_STATUS_IS_OK(passdb_get(pdb, mem_ctx, o->user, &u));
	if (!o->add_no_password) {
		password = get_new_password(mem_ctx, o->stdin_pw);
		if (password == NULL) {
			return 1;
		}
	}
	if (exists) {
		/* Samba: -a on an existing account only sets the password. */
		if (password != NULL && !set_password(u, password)) {
			return 1;
		}
		status = passdb_update(pdb, u);
		if (!NT_STATUS_IS_OK(status)) {
			fprintf(stderr, "Failed to modify entry for user %s.\n",
				o->user);
			return 1;
		}
		return 0;
	}
	/* Samba requires the Unix account to exist. */
	pw = getpwnam(o->user);
	if (pw == NULL) {
		DBG_NOTICE("Failed to find a Unix account for %s\n", o->user);
		fprintf(stderr, "Failed to add entry for user %s.\n", o->user);
		return 1;
	}
	u = passdb_user_new(mem_ctx, pw->pw_name, domain,
			    gecos_name(mem_ctx, pw));
	if (u == NULL) {
		return 1;
	}
	if (password != NULL) {
		if (!set_password(u, password)) {
			fprintf(stderr, "Failed to add entry for user %s.\n",
				o->user);
			return 1;
		}
	} else {
		u->acct_ctrl |= ACB_PWNOTREQ;
	}
	status = passdb_add(pdb, u);
	if (!NT_STATUS_IS_OK(status)) {
		fprintf(stderr, "Failed to add entry for user %s.\n", o->user);
		return 1;
	}
	printf("Added user %s.\n", o->user);
	return 0;
}

static int do_modify(TALLOC_CTX *mem_ctx, struct passdb *pdb,
		     const struct smbpasswd_opts *o)
{
	struct passdb_user *u;
	char *password;

	if (!NT_STATUS_IS_OK(passdb_get(pdb, mem_ctx, o->user, &u))) {
		if (o->op == OP_ENABLE || o->op == OP_DISABLE) {
			fprintf(stderr,
				"Failed to find user %s in passdb backend.\n",
				o->user);
		} else {
			fprintf(stderr, "Failed to find entry for user %s.\n",
				o->user);
		}
		return 1;
	}
	switch (o->op) {
	case OP_DISABLE:
		u->acct_ctrl |= ACB_DISABLED;
		break;
	case OP_ENABLE:
		u->acct_ctrl &= ~(uint32_t)ACB_DISABLED;
		break;
	case OP_NO_PASSWORD:
		/* As Samba 4.17: the flag is set, the hash is kept. */
		u->acct_ctrl |= ACB_PWNOTREQ;
		break;
	default:
		password = get_new_password(mem_ctx, o->stdin_pw);
		if (password == NULL || !set_password(u, password)) {
			return 1;
		}
		break;
	}
	if (!NT_STATUS_IS_OK(passdb_update(pdb, u))) {
		fprintf(stderr, "Failed to modify entry for user %s.\n",
			o->user);
		return 1;
	}
	if (o->op == OP_DISABLE) {
		printf("Disabled user %s.\n", o->user);
	} else if (o->op == OP_ENABLE) {
		printf("Enabled user %s.\n", o->user);
	} else if (o->op == OP_NO_PASSWORD) {
		printf("User %s password set to none.\n", o->user);
	}
	return 0;
}

/* -D LEVEL: a whole number from 0 to LOG_LEVEL_MAX. */
static bool parse_debug_level(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < 0 || v > LOG_LEVEL_MAX) {
		return false;
	}
	*out = (int)v;
	return true;
}

static int parse_args(int argc, char **argv, struct smbpasswd_opts *o)
{
	bool n_flag = false;
	int c, level;

	while ((c = getopt(argc, argv, "axdenshc:D:U:L")) != -1) {
		switch (c) {
		case 'a':
			o->op = OP_ADD;
			break;
		case 'x':
			o->op = OP_DELETE;
			break;
		case 'd':
			o->op = OP_DISABLE;
			break;
		case 'e':
			o->op = OP_ENABLE;
			break;
		case 'n':
			n_flag = true;
			break;
		case 's':
			o->stdin_pw = true;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'D':
			if (!parse_debug_level(optarg, &level)) {
				fprintf(stderr, "smbpasswd: invalid debug "
					"level '%s'\n", optarg);
				return -1;
			}
			log_set_level(level);
			break;
		case 'U':
			o->user = optarg;
			break;
		case 'L':
			break; /* local mode is the only mode */
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (n_flag) {
		if (o->op == OP_ADD) {
			o->add_no_password = true;
		} else {
			o->op = OP_NO_PASSWORD;
		}
	}
	if (optind < argc) {
		o->user = argv[optind++];
	}
	if (optind < argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* `clustering = yes`: the users live in CTDB's persistent passdb.tdb,
 * reached through this node's ctdbd, as Samba's smbpasswd does. */
static NTSTATUS open_clustered(TALLOC_CTX *mem_ctx, struct lp_ctx *lp,
			       bool create, struct passdb **pdb)
{
	const char *sock = lp_str(lp, LP_GLOBAL, LP_CTDBD_SOCKET);
	struct ctdb_conn *conn;
	NTSTATUS status;

	if (sock == NULL || *sock == '\0') {
		sock = SMBD_CTDBD_SOCKET_DEFAULT;
	}
	status = ctdb_conn_open(mem_ctx, sock,
				(unsigned)lp_int(lp, LP_GLOBAL, LP_CTDB_TIMEOUT),
				&conn);
	if (!NT_STATUS_IS_OK(status)) {
		fprintf(stderr, "Cannot reach ctdbd at %s (ctdbd socket): "
			"%s\n", sock, nt_errstr(status));
		return status;
	}
	return passdb_open_ctdb(mem_ctx, conn, create, pdb);
}

static int run(TALLOC_CTX *mem_ctx, struct smbpasswd_opts *o)
{
	struct lp_ctx *lp = lp_new(mem_ctx);
	struct passdb *pdb;
	const char *pdir;
	NTSTATUS status;

	if (lp == NULL || !lp_load_file(lp, o->config)) {
		fprintf(stderr, "Error loading services from %s.\n",
			o->config);
		return 1;
	}
	pdir = lp_str(lp, LP_GLOBAL, LP_PRIVATE_DIR);
	if (lp_bool(lp, LP_GLOBAL, LP_CLUSTERING)) {
		status = open_clustered(mem_ctx, lp, o->op == OP_ADD, &pdb);
		pdir = "CTDB";
	} else {
		status = passdb_open(mem_ctx, passdb_path(mem_ctx, pdir),
				     o->op == OP_ADD, &pdb);
	}
	if (!NT_STATUS_IS_OK(status)) {
		fprintf(stderr, "Failed to open passdb in %s: %s\n", pdir,
			nt_errstr(status));
		return 1;
	}
	switch (o->op) {
	case OP_ADD:
		return do_add(mem_ctx, pdb, o,
			      lp_str(lp, LP_GLOBAL, LP_NETBIOS_NAME));
	case OP_DELETE:
		if (!NT_STATUS_IS_OK(passdb_delete(pdb, o->user))) {
			fprintf(stderr, "Failed to find entry for user %s.\n",
				o->user);
			return 1;
		}
		printf("Deleted user %s.\n", o->user);
		return 0;
	default:
		return do_modify(mem_ctx, pdb, o);
	}
}

int main(int argc, char **argv)
{
	TALLOC_CTX *mem_ctx = talloc_new(NULL);
	struct smbpasswd_opts o = {.op = OP_CHANGE};
	int rc;

	log_set_level(0);
	o.config = LP_DEFAULT_CONFIG_FILE;
	if (parse_args(argc, argv, &o) != 0) {
		talloc_free(mem_ctx);
		return 1;
	}
	if (getuid() != 0) {
		fprintf(stderr,
			"smbpasswd: only root can change passdb.tdb here; "
			"changing your own password needs the running "
			"server, which is not supported yet.\n");
		talloc_free(mem_ctx);
		return 1;
	}
	if (o.user == NULL) {
		struct passwd *pw = getpwuid(getuid());

		o.user = pw != NULL ? talloc_strdup(mem_ctx, pw->pw_name)
				    : NULL;
	}
	if (o.user == NULL || o.config == NULL) {
		usage(stderr);
		talloc_free(mem_ctx);
		return 1;
	}
	crypto_init();
	rc = run(mem_ctx, &o);
	talloc_free(mem_ctx);
	return rc;
}
