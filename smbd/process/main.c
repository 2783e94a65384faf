/*
 * smbd: command line (Samba's flags), configuration, logging, then the
 * master (master.c).  The flags are Samba's smbd(8) ones so init scripts
 * and systemd units written for Samba work unchanged.
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "smbd/conn/conn_log.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/crash.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "vfs/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LOCALSTATEDIR
#define LOCALSTATEDIR "/var"
#endif

struct smbd_opts {
	bool daemon, foreground, interactive, no_process_group, log_stdout;
	const char *config;
	const char *log_basename;
	const char *debuglevel;
	const char *ports;
	const char **options;
	size_t noptions;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbd [OPTION...]\n"
		"  -D, --daemon              Become a daemon (default)\n"
		"  -i, --interactive         Run interactive (not a daemon), "
		"log to stdout\n"
		"  -F, --foreground          Run daemon in foreground (for "
		"daemontools, etc.)\n"
		"      --no-process-group    Don't create a new process group\n"
		"  -b, --build-options       Print build options\n"
		"  -p, --port=PORTS          Listen on the specified ports\n"
		"  -d, --debuglevel=LEVEL    Set debug level\n"
		"      --debug-stdout        Send debug output to stdout\n"
		"  -s, --configfile=FILE     Use alternate configuration file\n"
		"      --option=name=value   Set smb.conf option from command "
		"line\n"
		"  -l, --log-basename=DIR    Basename for log/debug files\n"
		"  -V, --version             Print version\n"
		"  -?, --help                Show this help message\n");
}

static void build_options(void)
{
	/* The "Paths:" block has Samba's smbd -b names and layout, so the
	 * scripts that read it (grep CONFIGFILE) work on either. */
	printf("Build environment:\n"
	       "   Version: %s (%s)\n"
	       "\n"
	       "Paths:\n"
	       "   SBINDIR: %s\n"
	       "   BINDIR: %s\n"
	       "   CONFIGFILE: %s\n"
	       "   LOGFILEBASE: %s/log/samba\n"
	       "   LOCKDIR: %s/samba\n"
	       "   STATEDIR: %s/lib/samba\n"
	       "   CACHEDIR: %s/cache/samba\n"
	       "   PIDDIR: %s/samba\n"
	       "   PRIVATE_DIR: %s/lib/samba/private\n"
	       "\n"
	       "Features:\n"
	       "   I/O loops: io_uring (liburing), epoll fallback\n"
	       "   Crypto: OpenSSL 3 libcrypto\n"
	       "   Databases: tdb (mutex locking)\n"
	       "   Service manager: systemd (sd_notify)\n",
	       PACKAGE_VERSION, PACKAGE_NAME, SBINDIR, BINDIR, LP_DEFAULT_CONFIG_FILE,
	       LOCALSTATEDIR, RUNSTATEDIR, LOCALSTATEDIR, LOCALSTATEDIR,
	       RUNSTATEDIR, LOCALSTATEDIR);
}

static bool parse_args(int argc, char **argv, struct smbd_opts *o)
{
	enum { OPT_NO_PG = 256, OPT_DEBUG_STDOUT, OPT_OPTION, OPT_LOG_STDOUT };
	static const struct option longopts[] = {
		{"daemon", no_argument, NULL, 'D'},
		{"interactive", no_argument, NULL, 'i'},
		{"foreground", no_argument, NULL, 'F'},
		{"no-process-group", no_argument, NULL, OPT_NO_PG},
		{"build-options", no_argument, NULL, 'b'},
		{"port", required_argument, NULL, 'p'},
		{"debuglevel", required_argument, NULL, 'd'},
		{"debug-stdout", no_argument, NULL, OPT_DEBUG_STDOUT},
		{"log-stdout", no_argument, NULL, OPT_LOG_STDOUT},
		{"configfile", required_argument, NULL, 's'},
		{"option", required_argument, NULL, OPT_OPTION},
		{"log-basename", required_argument, NULL, 'l'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0},
	};
	int c;

	o->options = talloc_array(NULL, const char *, argc);
	while ((c = getopt_long(argc, argv, "DiFbp:d:s:l:SV?h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'D':
			o->daemon = true;
			break;
		case 'i':
			o->interactive = true;
			break;
		case 'F':
			o->foreground = true;
			break;
		case OPT_NO_PG:
			o->no_process_group = true;
			break;
		case 'b':
			build_options();
			exit(0);
		case 'p':
			o->ports = optarg;
			break;
		case 'd':
			o->debuglevel = optarg;
			break;
		case OPT_DEBUG_STDOUT:
		case OPT_LOG_STDOUT:
		case 'S':
			o->log_stdout = true;
			break;
		case 's':
			o->config = optarg;
			break;
		case OPT_OPTION:
			o->options[o->noptions++] = optarg;
			break;
		case 'l':
			o->log_basename = optarg;
			break;
		case 'V':
			printf("Version %s\n", PACKAGE_VERSION);
			exit(0);
		case '?':
		case 'h':
			usage(optopt ? stderr : stdout);
			exit(optopt ? 1 : 0);
		default:
			usage(stderr);
			return false;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "smbd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return false;
	}
	if (o->interactive) {
		o->foreground = true;
		o->log_stdout = true;
	}
	return true;
}

static bool apply_cmdline(struct lp_ctx *lp, const struct smbd_opts *o)
{
	size_t i;

	for (i = 0; i < o->noptions; i++) {
		char *name = talloc_strdup(lp, o->options[i]);
		char *eq = name ? strchr(name, '=') : NULL;

		if (eq == NULL) {
			fprintf(stderr, "smbd: --option needs name=value: %s\n",
				o->options[i]);
			return false;
		}
		*eq = '\0';
		if (!lp_set_cmdline(lp, name, eq + 1)) {
			fprintf(stderr, "smbd: invalid --option %s\n",
				o->options[i]);
			return false;
		}
	}
	if (o->debuglevel != NULL &&
	    !lp_set_cmdline(lp, "log level", o->debuglevel)) {
		fprintf(stderr, "smbd: invalid debug level '%s'\n",
			o->debuglevel);
		return false;
	}
	if (o->ports != NULL && !lp_set_cmdline(lp, "smb ports", o->ports)) {
		fprintf(stderr, "smbd: invalid port list '%s'\n", o->ports);
		return false;
	}
	return true;
}

static bool setup_logging(struct smbd_server *srv, const struct smbd_opts *o)
{
	char *path;

	(void)log_set_levels(lp_str(srv->lp, LP_GLOBAL, LP_LOG_LEVEL));
	log_set_max_size_kb(
		(unsigned long)lp_int(srv->lp, LP_GLOBAL, LP_MAX_LOG_SIZE));
	if (o->log_stdout) {
		return true;
	}
	if (o->log_basename != NULL) {
		path = talloc_asprintf(srv, "%s/log.smbd", o->log_basename);
	} else if (*lp_str(srv->lp, LP_GLOBAL, LP_LOG_FILE) != '\0') {
		const char *f = lp_str(srv->lp, LP_GLOBAL, LP_LOG_FILE);
		struct lp_subst s = {.client_name = "smbd"};

		/* %m / %I: each client machine its own file (conn_log.h);
		 * the daemon's own lines go to the name with %m = smbd. */
		smbd_conn_log_enable(strstr(f, "%m") != NULL ||
				     strstr(f, "%I") != NULL);
		path = lp_str_subst(srv, srv->lp, LP_GLOBAL, LP_LOG_FILE, &s);
	} else {
		path = talloc_strdup(srv, LOCALSTATEDIR "/log/samba/log.smbd");
	}
	if (path == NULL || log_set_file(path) != 0) {
		fprintf(stderr, "smbd: cannot open log file %s: %s\n",
			path ? path : "?", strerror(errno));
		return false;
	}
	return true;
}

static bool become_daemon(const struct smbd_opts *o)
{
	pid_t pid = fork();
	int fd;

	if (pid == -1) {
		return false;
	}
	if (pid > 0) {
		_exit(0);
	}
	if (!o->no_process_group) {
		setsid();
	}
	if (chdir("/") != 0) {
		return false;
	}
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2) {
			close(fd);
		}
	}
	return true;
}

static bool check_role(const struct lp_ctx *lp)
{
	int role = lp_int(lp, LP_GLOBAL, LP_SERVER_ROLE);

	if (role != LP_ROLE_AUTO && role != LP_ROLE_STANDALONE &&
	    role != LP_ROLE_MEMBER) {
		DBG_ERR("server role = %s is not supported: only a standalone "
			"or member server\n",
			lp_str(lp, LP_GLOBAL, LP_SERVER_ROLE));
		return false;
	}
	return true;
}

/* Every connection, tree connect and open holds a descriptor: the soft
 * limit becomes `max open files` plus a few for the daemon's own files,
 * as Samba sets it, within the hard limit (an admin or a test that
 * lowered the hard limit keeps it). */
static void raise_nofile(const struct lp_ctx *lp)
{
	int max_open = lp_int(lp, LP_GLOBAL, LP_MAX_OPEN_FILES);
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		return;
	}
	want = max_open > 0 ? (rlim_t)max_open + 20 : rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) {
		want = rl.rlim_max;
	}
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		DBG_NOTICE("cannot set the descriptor limit: %s\n",
			   strerror(errno));
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		DBG_NOTICE("descriptor limit %llu\n",
			   (unsigned long long)rl.rlim_cur);
	}
}

int main(int argc, char **argv)
{
	struct smbd_opts o;
	struct smbd_server *srv;

	memset(&o, 0, sizeof(o));
	/* No talloc_enable_null_tracking(): it links every chunk without a
	 * parent into one global list, unlocked, and the pool threads make
	 * such chunks (a listing's 8.3 alias) while the loop thread makes
	 * others (every reply it sends): under load that corrupted the heap
	 * (a worker in about 1 of 3 nbench runs at 8 clients died in
	 * free()).  lib/tpool.c refuses to start threads with it on. */
	if (!parse_args(argc, argv, &o)) {
		return 1;
	}
	clock_update();
	srv = talloc_zero(NULL, struct smbd_server);
	srv->control_fd = -1;
	srv->alive_rd = srv->alive_wr = -1;
	srv->lp = lp_new(srv);
	srv->config_file = o.config ? o.config : LP_DEFAULT_CONFIG_FILE;
	srv->foreground = o.foreground;
	srv->no_process_group = o.no_process_group;
	log_set_role("master");
	if (!apply_cmdline(srv->lp, &o)) {
		return 1;
	}
	if (!lp_load_file(srv->lp, srv->config_file)) {
		fprintf(stderr, "smbd: cannot load %s: see the messages above\n",
			srv->config_file);
		return 1;
	}
	if (!lp_check(srv->lp) || !check_role(srv->lp)) {
		return 1;
	}
	if (!setup_logging(srv, &o)) {
		return 1;
	}
	(void)lp_warn_compat(srv->lp);
	/* Until we run, errors that stop us are shown on stderr as well as
	 * in the log file (issue 15 item 8). */
	log_set_errors_to_stderr(1);
	crash_handler_install(lp_str(srv->lp, LP_GLOBAL, LP_PANIC_ACTION));
	if (!crypto_init()) {
		DBG_ERR("cannot initialise libcrypto\n");
		return 1;
	}
	{
		char err[160];

		/* A test facility (vfs/fault.h), armed before the workers
		 * fork; refused loudly when it does not parse. */
		if (!vfs_fault_arm_from_env(err, sizeof(err))) {
			DBG_ERR("SMBD_FAULT_INJECT: %s\n", err);
			return 1;
		}
		if (getenv("SMBD_FAULT_INJECT") != NULL) {
			DBG_ERR("fault injection armed: SMBD_FAULT_INJECT=%s "
				"(tests only)\n", getenv("SMBD_FAULT_INJECT"));
		}
	}
	log_set_errors_to_stderr(0);
	DBG_ERR("smbd version %s started (config %s)\n", PACKAGE_VERSION,
		srv->config_file);
	log_set_errors_to_stderr(1);
	srv->start_nttime = clock_nttime();
	signal(SIGPIPE, SIG_IGN);
	/* The modes of new files come from smb.conf alone (create mask,
	 * directory mask, force modes: vfs_mode_from_dos), as in Samba: the
	 * umask of whoever started us must not cut them (issue 15 item 4).
	 * Our own files are created with explicit modes. */
	umask(0);
	raise_nofile(srv->lp);
	/* The sockets are bound before we daemonize, so that a port in use
	 * or a bad `interfaces` line reaches the terminal that started us. */
	/* A previous run's workers that outlived their master hold the
	 * port and the tables: they go first (orphans.c).  Those that
	 * went on their own or were killed release their sockets a little
	 * after they are gone: after a run that did not stop cleanly a
	 * port in use is tried again for a while. */
	smbd_orphans_recover(srv);
	if (!smbd_choose_cpus(srv) || !smbd_load_server_guid(srv) ||
	    smbd_open_listeners(srv, srv->unclean_stop ? 5000 : 0) != 0) {
		return 1;
	}
	if (!o.foreground && !become_daemon(&o)) {
		DBG_ERR("cannot become a daemon: %s\n", strerror(errno));
		return 1;
	}
	log_set_errors_to_stderr(0);
	if (!smbd_pidfile_create(srv)) {
		return 1;
	}
	return smbd_master_run(srv);
}
