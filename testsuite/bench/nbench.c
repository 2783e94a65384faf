/*
 * nbench: an NBENCH (Netbench/dbench) load generator for SMB2/SMB3.
 *
 * The parent parses the load file once, forks N clients (nbench_client.c,
 * one libsmbclient context each, own directory \clients\clientN), waits
 * until all are connected, then runs the phases: warm-up, measure, stop.
 * It prints a progress line a second and, at the end, per-operation counts
 * and latency (mean, p99, max), throughput counted as dbench does (bytes
 * read + written over the measured window, MB = 10^6 bytes), operations per
 * second, and one machine-readable line:
 *
 *   RESULT clients=N secs=S mbps=X ops=OPS_PER_SEC mean_ms=.. p99_ms=..
 *          max_ms=.. ops_total=.. ops_all=.. fails=.. skipped=.. loops=..
 *
 * ops_all counts every operation sent, warm-up included, so a caller that
 * measures server CPU over the whole run can divide by it.
 *
 * A second mode, --idle-connections N --hold S, opens N connections from
 * this one process, prints "READY idle=N" and holds them S seconds (or
 * until SIGTERM/SIGINT): for measuring a server's memory per connection.
 */
#include "testsuite/bench/nbench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t nb_interrupted;

static void nb_on_signal(int sig)
{
	nb_interrupted = sig;
}

static double nb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nb_usage(FILE *f)
{
	fprintf(f,
	        "Usage: nbench [options]\n"
	        "  -S, --server HOST        server address (127.0.0.1)\n"
	        "  -p, --port PORT          TCP port (445)\n"
	        "  -s, --share NAME         share name (share)\n"
	        "  -U, --user USER[%%PASS]   user name (and password)\n"
	        "  -P, --password PASS      password\n"
	        "  -W, --domain DOMAIN      domain/workgroup\n"
	        "  -f, --loadfile FILE      NBENCH load file\n"
	        "                           (/usr/share/dbench/client.txt)\n"
	        "  -n, --clients N          concurrent clients (1)\n"
	        "  -t, --time SECONDS       measured time (60)\n"
	        "  -w, --warmup SECONDS     warm-up before measuring (10)\n"
	        "      --signing on|off     require or disable signing\n"
	        "      --encrypt on|off     require SMB3 encryption (off)\n"
	        "      --max-protocol P     SMB2_02 .. SMB3_11 (SMB3)\n"
	        "      --op-timeout MS      limit per SMB call (30000)\n"
	        "      --cleanup            delete client directories at end\n"
	        "      --idle-connections N open N connections and hold them\n"
	        "      --hold SECONDS       how long to hold them (0: until "
	        "signal)\n"
	        "  -v, --verbose            log every unexpected status\n"
	        "  -d, --debug LEVEL        libsmbclient debug level\n");
}

static int nb_onoff(const char *v, bool *out)
{
	if (strcmp(v, "on") == 0 || strcmp(v, "yes") == 0 ||
	    strcmp(v, "1") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(v, "off") == 0 || strcmp(v, "no") == 0 ||
	    strcmp(v, "0") == 0) {
		*out = false;
		return 0;
	}
	fprintf(stderr, "nbench: expected on or off, got '%s'\n", v);
	return -1;
}

static int nb_num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(d >= lo && d <= hi)) {
		fprintf(stderr,
		        "nbench: '%s' is not a number in [%g, %g]\n",
		        v,
		        lo,
		        hi);
		return -1;
	}
	*out = d;
	return 0;
}

enum {
	OPT_SIGNING = 256,
	OPT_ENCRYPT,
	OPT_MAXPROTO,
	OPT_OPTIMEOUT,
	OPT_CLEANUP,
	OPT_IDLE,
	OPT_HOLD
};

static int nb_parse_opts(int argc, char **argv, struct nb_options *o)
{
	static const struct option lo[] = {
	        {"server", required_argument, NULL, 'S'},
	        {"port", required_argument, NULL, 'p'},
	        {"share", required_argument, NULL, 's'},
	        {"user", required_argument, NULL, 'U'},
	        {"password", required_argument, NULL, 'P'},
	        {"domain", required_argument, NULL, 'W'},
	        {"loadfile", required_argument, NULL, 'f'},
	        {"clients", required_argument, NULL, 'n'},
	        {"time", required_argument, NULL, 't'},
	        {"warmup", required_argument, NULL, 'w'},
	        {"signing", required_argument, NULL, OPT_SIGNING},
	        {"encrypt", required_argument, NULL, OPT_ENCRYPT},
	        {"max-protocol", required_argument, NULL, OPT_MAXPROTO},
	        {"op-timeout", required_argument, NULL, OPT_OPTIMEOUT},
	        {"cleanup", no_argument, NULL, OPT_CLEANUP},
	        {"idle-connections", required_argument, NULL, OPT_IDLE},
	        {"hold", required_argument, NULL, OPT_HOLD},
	        {"verbose", no_argument, NULL, 'v'},
	        {"debug", required_argument, NULL, 'd'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	double d;
	int c;

	while ((c = getopt_long(
	                argc, argv, "S:p:s:U:P:W:f:n:t:w:vd:h", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'S':
			o->server = optarg;
			break;
		case 'p':
			if (nb_num(optarg, 1, 65535, &d) != 0) {
				return -1;
			}
			o->port = (unsigned)d;
			break;
		case 's':
			o->share = optarg;
			break;
		case 'U': {
			char *pct = strchr(optarg, '%');
			if (pct != NULL) {
				*pct = '\0';
				o->password = pct + 1;
			}
			o->user = optarg;
			break;
		}
		case 'P':
			o->password = optarg;
			break;
		case 'W':
			o->domain = optarg;
			break;
		case 'f':
			o->loadfile = optarg;
			break;
		case 'n':
			if (nb_num(optarg, 1, 4096, &d) != 0) {
				return -1;
			}
			o->nclients = (int)d;
			break;
		case 't':
			if (nb_num(optarg, 0.1, 1e6, &o->time_s) != 0) {
				return -1;
			}
			break;
		case 'w':
			if (nb_num(optarg, 0, 1e6, &o->warmup_s) != 0) {
				return -1;
			}
			break;
		case OPT_SIGNING:
			if (nb_onoff(optarg, &o->signing) != 0) {
				return -1;
			}
			o->signing_set = true;
			break;
		case OPT_ENCRYPT:
			if (nb_onoff(optarg, &o->encrypt) != 0) {
				return -1;
			}
			break;
		case OPT_MAXPROTO:
			o->max_protocol = optarg;
			break;
		case OPT_OPTIMEOUT:
			if (nb_num(optarg, 100, 3600000, &d) != 0) {
				return -1;
			}
			o->op_timeout_ms = (int)d;
			break;
		case OPT_CLEANUP:
			o->cleanup = true;
			break;
		case OPT_IDLE:
			if (nb_num(optarg, 1, 65536, &d) != 0) {
				return -1;
			}
			o->idle_connections = (int)d;
			break;
		case OPT_HOLD:
			if (nb_num(optarg, 0, 1e7, &o->hold_s) != 0) {
				return -1;
			}
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'd':
			if (nb_num(optarg, 0, 10, &d) != 0) {
				return -1;
			}
			o->debug_level = (int)d;
			break;
		case 'h':
			nb_usage(stdout);
			exit(0);
		default:
			nb_usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr,
		        "nbench: unexpected argument '%s'\n",
		        argv[optind]);
		return -1;
	}
	return 0;
}

/*
 * libsmbclient takes signing and encryption policy from smb.conf
 * parameters: write a private client configuration so the host's
 * /etc/samba/smb.conf never decides what is measured.
 */
static int nb_write_client_conf(const struct nb_options *o,
                                char *dir,
                                char *path,
                                size_t pathlen)
{
	const char *sign = "default";
	FILE *f;

	if (mkdtemp(dir) == NULL) {
		perror("nbench: mkdtemp");
		return -1;
	}
	snprintf(path, pathlen, "%s/client.conf", dir);
	f = fopen(path, "w");
	if (f == NULL) {
		perror("nbench: client.conf");
		return -1;
	}
	if (o->signing_set) {
		sign = o->signing ? "required" : "disabled";
	}
	fprintf(f,
	        "[global]\n"
	        "\tclient min protocol = %s\n"
	        "\tclient max protocol = %s\n"
	        "\tclient signing = %s\n"
	        "\tclient smb encrypt = %s\n"
	        "\tlock directory = %s\n"
	        "\tstate directory = %s\n"
	        "\tcache directory = %s\n"
	        "\tprivate dir = %s\n"
	        "\tlog level = %d\n",
	        o->min_protocol,
	        o->max_protocol,
	        sign,
	        o->encrypt ? "required" : "off",
	        dir,
	        dir,
	        dir,
	        dir,
	        o->debug_level);
	if (fclose(f) != 0) {
		perror("nbench: client.conf");
		return -1;
	}
	return 0;
}

static void nb_remove_conf_dir(const char *dir)
{
	char p[4200];
	const char *names[] = {
	        "client.conf", "gencache.tdb", "gencache_notrans.tdb", NULL};
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		(void)unlink(p);
	}
	if (rmdir(dir) != 0 && errno != ENOENT) {
		fprintf(stderr, "nbench: leaving %s (not empty)\n", dir);
	}
}

static int nb_idle_mode(const struct nb_options *o)
{
	SMBCCTX **ctx = calloc((size_t)o->idle_connections, sizeof(*ctx));
	double end;
	int i, ret = 0;
	char err[256];

	if (ctx == NULL) {
		return 1;
	}
	for (i = 0; i < o->idle_connections; i++) {
		ctx[i] = nb_smb_connect(o, err, sizeof(err));
		if (ctx[i] == NULL) {
			fprintf(stderr,
			        "nbench: connection %d: %s\n",
			        i + 1,
			        err);
			ret = 1;
			goto out;
		}
	}
	printf("READY idle=%d\n", o->idle_connections);
	fflush(stdout);
	end = nb_now() + o->hold_s;
	while (!nb_interrupted && (o->hold_s == 0 || nb_now() < end)) {
		usleep(50000);
	}
out:
	for (i = 0; i < o->idle_connections; i++) {
		nb_smb_free(ctx[i]);
	}
	free(ctx);
	return ret;
}

struct nb_totals {
	uint64_t ops_all, bytes_all, ops, rd, wr, fails, skipped, loops;
};

static void nb_sum(const struct nb_shared *shm, struct nb_totals *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < shm->nclients; i++) {
		const struct nb_client_rec *r = &shm->client[i];
		t->ops_all += __atomic_load_n(&r->ops_all, __ATOMIC_RELAXED);
		t->bytes_all +=
		        __atomic_load_n(&r->bytes_all, __ATOMIC_RELAXED);
		t->ops += __atomic_load_n(&r->ops, __ATOMIC_RELAXED);
		t->rd += __atomic_load_n(&r->bytes_read, __ATOMIC_RELAXED);
		t->wr += __atomic_load_n(&r->bytes_written, __ATOMIC_RELAXED);
		t->fails += __atomic_load_n(&r->fails, __ATOMIC_RELAXED);
		t->skipped += __atomic_load_n(&r->skipped, __ATOMIC_RELAXED);
		t->loops += __atomic_load_n(&r->loops, __ATOMIC_RELAXED);
	}
}

/* Reap children that exited; returns how many are still running. */
static int nb_reap(pid_t *pids, int n, int *failed)
{
	int i, running = 0;

	for (i = 0; i < n; i++) {
		int st;
		pid_t r;

		if (pids[i] <= 0) {
			continue;
		}
		r = waitpid(pids[i], &st, WNOHANG);
		if (r == pids[i]) {
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				(*failed)++;
			}
			pids[i] = 0;
		} else {
			running++;
		}
	}
	return running;
}

static void nb_set_phase(struct nb_shared *shm, int phase)
{
	__atomic_store_n(&shm->phase, phase, __ATOMIC_RELEASE);
}

static void nb_progress(const struct nb_shared *shm,
                        double t,
                        const char *ph,
                        struct nb_totals *prev,
                        double *prev_t)
{
	struct nb_totals cur;
	double dt = t - *prev_t;
	bool tty = isatty(STDERR_FILENO);

	nb_sum(shm, &cur);
	if (dt <= 0) {
		return;
	}
	fprintf(stderr,
	        "%s%7.1fs %-7s clients=%d ops=%llu  %8.2f MB/s %9.1f ops/s%s",
	        tty ? "\r" : "",
	        t,
	        ph,
	        shm->nclients,
	        (unsigned long long)cur.ops_all,
	        (double)(cur.bytes_all - prev->bytes_all) / 1e6 / dt,
	        (double)(cur.ops_all - prev->ops_all) / dt,
	        tty ? "  " : "\n");
	*prev = cur;
	*prev_t = t;
}

/* Runs the phases; returns the measured seconds, or -1 on failure. */
static double
nb_drive(const struct nb_options *o, struct nb_shared *shm, pid_t *pids)
{
	double start, t_measure = 0, t_end, prev_t, next;
	struct nb_totals prev = {0};
	int failed = 0, i;

	/* Connect first: session setup is not part of any figure. */
	start = nb_now();
	for (;;) {
		int ready = 0;
		for (i = 0; i < o->nclients; i++) {
			int s = __atomic_load_n(&shm->client[i].state,
			                        __ATOMIC_ACQUIRE);
			ready += (s == NB_CLIENT_READY);
			if (s == NB_CLIENT_FAILED) {
				failed++;
			}
		}
		nb_reap(pids, o->nclients, &failed);
		if (failed > 0 || nb_interrupted) {
			return -1;
		}
		if (ready == o->nclients) {
			break;
		}
		if (nb_now() - start > o->op_timeout_ms / 1000.0 + 10) {
			fprintf(stderr, "nbench: clients did not connect\n");
			return -1;
		}
		usleep(10000);
	}
	start = nb_now();
	prev_t = 0;
	next = 1;
	nb_set_phase(shm, o->warmup_s > 0 ? NB_PHASE_WARMUP : NB_PHASE_MEASURE);
	if (o->warmup_s <= 0) {
		t_measure = start;
	}
	for (;;) {
		double now = nb_now(), t = now - start;
		int ph = nb_phase_get(shm);

		if (ph == NB_PHASE_WARMUP && t >= o->warmup_s) {
			nb_set_phase(shm, NB_PHASE_MEASURE);
			t_measure = now;
			ph = NB_PHASE_MEASURE;
		}
		if (ph == NB_PHASE_MEASURE &&
		    (now - t_measure >= o->time_s || nb_interrupted)) {
			nb_set_phase(shm, NB_PHASE_STOP);
			t_end = now;
			break;
		}
		if (nb_reap(pids, o->nclients, &failed) < o->nclients ||
		    (nb_interrupted && ph != NB_PHASE_MEASURE)) {
			nb_set_phase(shm, NB_PHASE_STOP);
			return -1;
		}
		if (t >= next) {
			nb_progress(shm,
			            t,
			            ph == NB_PHASE_WARMUP ? "warmup" : "run",
			            &prev,
			            &prev_t);
			next += 1;
		}
		usleep(20000);
	}
	if (isatty(STDERR_FILENO)) {
		fputc('\n', stderr);
	}
	return t_end - t_measure;
}

static void nb_wait_all(const struct nb_options *o, pid_t *pids, int *failed)
{
	double deadline = nb_now() + o->op_timeout_ms / 1000.0 + 30;
	int i;

	while (nb_reap(pids, o->nclients, failed) > 0) {
		if (nb_now() > deadline) {
			fprintf(stderr, "nbench: killing stuck clients\n");
			for (i = 0; i < o->nclients; i++) {
				if (pids[i] > 0) {
					kill(pids[i], SIGKILL);
				}
			}
			deadline = nb_now() + 5;
		}
		usleep(20000);
	}
}

static void nb_report(const struct nb_options *o,
                      const struct nb_load *load,
                      const struct nb_shared *shm,
                      double secs)
{
	static struct nb_hist all, one;
	struct nb_totals t;
	int op, i;
	double mbps, ops_s;

	nb_sum(shm, &t);
	nb_hist_reset(&all);
	printf("nbench: %d clients, //%s:%u/%s, load %s (%zu ops), "
	       "%s..%s, signing %s, encryption %s\n",
	       o->nclients,
	       o->server,
	       o->port,
	       o->share,
	       o->loadfile,
	       load->num_ops,
	       o->min_protocol,
	       o->max_protocol,
	       o->signing_set ? (o->signing ? "on" : "off") : "default",
	       o->encrypt ? "on" : "off");
	printf("warm-up %.1f s, measured %.2f s, %llu passes over the load\n\n",
	       o->warmup_s,
	       secs,
	       (unsigned long long)t.loops);
	printf("%-24s %10s %8s %10s %10s %10s\n",
	       "Operation",
	       "Count",
	       "Unexp",
	       "Mean ms",
	       "p99 ms",
	       "Max ms");
	for (op = 0; op < NB_OP_COUNT; op++) {
		uint64_t fails = 0, skipped = 0;

		nb_hist_reset(&one);
		for (i = 0; i < shm->nclients; i++) {
			nb_hist_merge(&one, &shm->client[i].hist[op]);
			fails += shm->client[i].op_fail[op];
			skipped += shm->client[i].op_skipped[op];
		}
		nb_hist_merge(&all, &one);
		if (skipped > 0) {
			printf("%-24s %10llu  not sent (libsmbclient has no "
			       "call for it)\n",
			       nb_op_name(op),
			       (unsigned long long)skipped);
		}
		if (one.count == 0) {
			continue;
		}
		printf("%-24s %10llu %8llu %10.3f %10.3f %10.3f\n",
		       nb_op_name(op),
		       (unsigned long long)one.count,
		       (unsigned long long)fails,
		       nb_hist_mean(&one) / 1e6,
		       (double)nb_hist_quantile(&one, 0.99) / 1e6,
		       (double)one.max_ns / 1e6);
	}
	mbps = secs > 0 ? (double)(t.rd + t.wr) / 1e6 / secs : 0;
	ops_s = secs > 0 ? (double)t.ops / secs : 0;
	printf("%-24s %10llu %8llu %10.3f %10.3f %10.3f\n\n",
	       "All",
	       (unsigned long long)all.count,
	       (unsigned long long)t.fails,
	       nb_hist_mean(&all) / 1e6,
	       (double)nb_hist_quantile(&all, 0.99) / 1e6,
	       (double)all.max_ns / 1e6);
	printf("Throughput %.2f MB/s (read %.1f MB + written %.1f MB, "
	       "MB = 10^6 bytes), %.1f ops/s\n",
	       mbps,
	       (double)t.rd / 1e6,
	       (double)t.wr / 1e6,
	       ops_s);
	printf("RESULT clients=%d secs=%.2f mbps=%.3f ops=%.1f mean_ms=%.4f "
	       "p99_ms=%.4f max_ms=%.3f ops_total=%llu ops_all=%llu fails=%llu "
	       "skipped=%llu loops=%llu signing=%s encrypt=%s\n",
	       o->nclients,
	       secs,
	       mbps,
	       ops_s,
	       nb_hist_mean(&all) / 1e6,
	       (double)nb_hist_quantile(&all, 0.99) / 1e6,
	       (double)all.max_ns / 1e6,
	       (unsigned long long)t.ops,
	       (unsigned long long)t.ops_all,
	       (unsigned long long)t.fails,
	       (unsigned long long)t.skipped,
	       (unsigned long long)t.loops,
	       o->signing_set ? (o->signing ? "on" : "off") : "default",
	       o->encrypt ? "on" : "off");
	fflush(stdout);
}

static int nb_load_mode(const struct nb_options *o)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct nb_load *load = NULL;
	struct nb_shared *shm;
	size_t shm_size;
	pid_t *pids = NULL;
	char err[512];
	double secs;
	int i, failed = 0, ret = 1;

	if (nb_load_file(mem, o->loadfile, &load, err, sizeof(err)) != 0) {
		fprintf(stderr, "nbench: %s\n", err);
		talloc_free(mem);
		return 2;
	}
	shm_size = sizeof(*shm) + (size_t)o->nclients * sizeof(shm->client[0]);
	shm = mmap(NULL,
	           shm_size,
	           PROT_READ | PROT_WRITE,
	           MAP_SHARED | MAP_ANONYMOUS,
	           -1,
	           0);
	pids = talloc_zero_array(mem, pid_t, o->nclients);
	if (shm == MAP_FAILED || pids == NULL) {
		fprintf(stderr, "nbench: out of memory\n");
		talloc_free(mem);
		return 2;
	}
	shm->nclients = o->nclients;
	fflush(NULL);
	for (i = 0; i < o->nclients; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			/* Ctrl-C goes to the parent, which stops everyone. */
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);
			_exit(nb_client_run(o, load, shm, i + 1));
		}
		if (pids[i] < 0) {
			perror("nbench: fork");
			nb_set_phase(shm, NB_PHASE_STOP);
			goto out;
		}
	}
	secs = nb_drive(o, shm, pids);
	nb_set_phase(shm, NB_PHASE_STOP);
	nb_wait_all(o, pids, &failed);
	for (i = 0; i < o->nclients; i++) {
		if (shm->client[i].state == NB_CLIENT_FAILED ||
		    shm->client[i].msg[0] != '\0') {
			fprintf(stderr,
			        "nbench: client %d: %s\n",
			        i + 1,
			        shm->client[i].msg[0] ? shm->client[i].msg
			                              : "failed");
		}
	}
	if (secs < 0) {
		fprintf(stderr, "nbench: run aborted\n");
		goto out;
	}
	nb_report(o, load, shm, secs);
	ret = (failed > 0 || nb_interrupted) ? 1 : 0;
out:
	nb_wait_all(o, pids, &failed);
	munmap(shm, shm_size);
	talloc_free(mem);
	return ret;
}

int main(int argc, char **argv)
{
	struct nb_options o = {
	        .server = "127.0.0.1",
	        .port = 445,
	        .share = "share",
	        .user = "",
	        .password = "",
	        .loadfile = "/usr/share/dbench/client.txt",
	        .min_protocol = "SMB2_02",
	        .max_protocol = "SMB3",
	        .nclients = 1,
	        .warmup_s = 10,
	        .time_s = 60,
	        .op_timeout_ms = 30000,
	};
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	char conf[300];
	struct sigaction sa;
	int ret;

	if (nb_parse_opts(argc, argv, &o) != 0) {
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nb_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tmp == NULL || tmp[0] == '\0' || strlen(tmp) > 200) {
		tmp = "/tmp";
	}
	snprintf(dir, sizeof(dir), "%s/nbench-XXXXXX", tmp);
	if (nb_write_client_conf(&o, dir, conf, sizeof(conf)) != 0) {
		return 2;
	}
	o.client_conf = conf;
	if (o.idle_connections > 0) {
		ret = nb_idle_mode(&o);
	} else {
		ret = nb_load_mode(&o);
	}
	nb_remove_conf_dir(dir);
	return ret;
}
