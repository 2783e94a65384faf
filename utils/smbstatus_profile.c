/*
 * smbstatus --profile (-P): the live request metrics of the running smbd
 * (lib/metrics.h, <lock directory>/smbd_metrics.dat), all workers added
 * up.  The text follows Samba's `smbstatus -P`: a "**** SMB2 Calls ****"
 * section of `smb2_<call>_<what>:` lines with Samba's call names and its
 * count, time (microseconds, summed), inbytes and outbytes; ours add the
 * NTSTATUS classes and latency quantiles, then tables of the statuses
 * counted one by one, of the shares and of the workers.  With --json the same as one object.
 */
#include "config.h"
#include "utils/smbstatus.h"
#include "lib/json.h"
#include "lib/metrics.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Samba's profile names of the SMB2 calls (its smbprofile.h). */
static const struct {
	const char *op, *samba;
} call_names[] = {
	{"NEGOTIATE", "smb2_negprot"},	 {"SESSION_SETUP", "smb2_sesssetup"},
	{"LOGOFF", "smb2_logoff"},	 {"TREE_CONNECT", "smb2_tcon"},
	{"TREE_DISCONNECT", "smb2_tdis"}, {"CREATE", "smb2_create"},
	{"CLOSE", "smb2_close"},	 {"FLUSH", "smb2_flush"},
	{"READ", "smb2_read"},		 {"WRITE", "smb2_write"},
	{"LOCK", "smb2_lock"},		 {"IOCTL", "smb2_ioctl"},
	{"CANCEL", "smb2_cancel"},	 {"ECHO", "smb2_keepalive"},
	{"QUERY_DIRECTORY", "smb2_find"}, {"CHANGE_NOTIFY", "smb2_notify"},
	{"QUERY_INFO", "smb2_getinfo"},	 {"SET_INFO", "smb2_setinfo"},
	{"OPLOCK_BREAK", "smb2_break"},
};

static const char *call_name(TALLOC_CTX *mem, const char *op)
{
	size_t i;
	char *s;

	for (i = 0; i < sizeof(call_names) / sizeof(call_names[0]); i++) {
		if (strcmp(call_names[i].op, op) == 0) {
			return call_names[i].samba;
		}
	}
	s = talloc_asprintf(mem, "smb2_%s", op);
	for (i = 0; s != NULL && s[i] != '\0'; i++) {
		s[i] = (char)tolower((unsigned char)s[i]);
	}
	return s != NULL ? s : op;
}

static void line(const char *call, const char *what, uint64_t v)
{
	char key[96];

	snprintf(key, sizeof(key), "%s_%s:", call, what);
	printf("%-40s%" PRIu64 "\n", key, v);
}

/* "**** NAME ****...", 80 columns, as Samba's sections. */
static void section(const char *name)
{
	int n = 80 - 6 - (int)strlen(name);

	printf("**** %s %.*s\n", name, n > 0 ? n : 0,
	       "****************************************"
	       "****************************************");
}

static void text_calls(TALLOC_CTX *mem, struct metrics_shm *m,
		       const struct metrics_worker *sum)
{
	unsigned o;

	section("SMB2 Calls");
	for (o = 0; o < m->hdr->nops; o++) {
		const struct metrics_op *op = &sum->op[o];
		const char *c = call_name(mem, m->hdr->op_name[o]);

		line(c, "count", op->count);
		line(c, "time", sum->latency[o].sum_us);
		line(c, "inbytes", op->bytes_in);
		line(c, "outbytes", op->bytes_out);
		line(c, "success", op->status[METRICS_SUCCESS]);
		line(c, "info", op->status[METRICS_INFO]);
		line(c, "warning", op->status[METRICS_WARNING]);
		line(c, "error", op->status[METRICS_ERROR]);
		line(c, "p50_us", histo_quantile(&sum->latency[o], 0.5));
		line(c, "p99_us", histo_quantile(&sum->latency[o], 0.99));
	}
}

static void text_statuses(struct metrics_shm *m,
			  const struct metrics_worker *sum)
{
	unsigned o, i, n = metrics_nnamed(m);

	printf("\n");
	section("Statuses");
	printf("%-16s %-40s %s\n", "Command", "NTSTATUS", "Count");
	for (o = 0; o < m->hdr->nops; o++) {
		for (i = 0; i < n; i++) {
			if (sum->named[o][i] != 0) {
				printf("%-16s %-40s %" PRIu64 "\n",
				       m->hdr->op_name[o],
				       m->hdr->named_name[i],
				       sum->named[o][i]);
			}
		}
	}
}

static void text_shares(struct metrics_shm *m,
			const struct metrics_worker *sum)
{
	unsigned s, o;

	printf("\n");
	section("Shares");
	printf("%-20s %-16s %10s %10s %8s %8s %8s %14s %14s\n", "Share",
	       "Command", "Count", "Success", "Info", "Warning", "Error",
	       "Bytes in", "Bytes out");
	for (s = 0; s <= METRICS_SHARE_OTHER; s++) {
		const char *name = metrics_share_name(m, s);

		for (o = 0; name != NULL && o < m->hdr->nops; o++) {
			const struct metrics_op *op = &sum->share[s][o];

			if (op->count == 0) {
				continue;
			}
			printf("%-20s %-16s %10" PRIu64 " %10" PRIu64
			       " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
			       " %14" PRIu64 " %14" PRIu64 "\n",
			       name, m->hdr->op_name[o], op->count,
			       op->status[METRICS_SUCCESS],
			       op->status[METRICS_INFO],
			       op->status[METRICS_WARNING],
			       op->status[METRICS_ERROR], op->bytes_in,
			       op->bytes_out);
		}
	}
}

static uint64_t worker_requests(const struct metrics_shm *m,
				const struct metrics_worker *b)
{
	uint64_t n = 0;
	unsigned o;

	for (o = 0; o < m->hdr->nops; o++) {
		n += METRIC_GET(&b->op[o].count);
	}
	return n;
}

static void text_workers(struct metrics_shm *m)
{
	unsigned w;

	printf("\n");
	section("Workers");
	printf("%-7s %-8s %-4s %-12s %-9s %-6s %-9s %-11s %-11s %s\n",
	       "Worker", "PID", "CPU", "Connections", "Sessions", "Opens",
	       "Accepted", "On its CPU", "Handed over", "Requests");
	for (w = 0; w < m->hdr->nworkers; w++) {
		const struct metrics_worker *b = metrics_worker(m, w);
		const struct metrics_worker_info *i = &b->info;

		if (METRIC_GET(&i->pid) == 0) {
			continue;
		}
		printf("%-7u %-8" PRIu64 " %-4" PRIu64 " %-12" PRIu64
		       " %-9" PRIu64 " %-6" PRIu64 " %-9" PRIu64 " %-11" PRIu64
		       " %-11" PRIu64 " %" PRIu64 "\n",
		       w, METRIC_GET(&i->pid), METRIC_GET(&i->cpu),
		       METRIC_GET(&i->connections), METRIC_GET(&i->sessions),
		       METRIC_GET(&i->opens), METRIC_GET(&i->accepted),
		       METRIC_GET(&i->accepted_local),
		       METRIC_GET(&i->handed_over), worker_requests(m, b));
	}
}

/* The named statuses of an operation that occurred, keyed by name. */
static void json_named(struct json_writer *j, const struct metrics_shm *m,
		       const uint64_t *named)
{
	unsigned i, n = metrics_nnamed(m);

	json_open(j, "ntstatus");
	for (i = 0; i < n; i++) {
		if (named[i] != 0) {
			json_add_int(j, m->hdr->named_name[i],
				     (int64_t)named[i]);
		}
	}
	json_close(j);
}

static void json_op(struct json_writer *j, const char *key,
		    const struct metrics_op *op, const struct histo *lat)
{
	json_open(j, key);
	json_add_int(j, "count", (int64_t)op->count);
	if (lat != NULL) {
		json_add_int(j, "time", (int64_t)lat->sum_us);
	}
	json_add_int(j, "inbytes", (int64_t)op->bytes_in);
	json_add_int(j, "outbytes", (int64_t)op->bytes_out);
	json_add_int(j, "success", (int64_t)op->status[METRICS_SUCCESS]);
	json_add_int(j, "info", (int64_t)op->status[METRICS_INFO]);
	json_add_int(j, "warning", (int64_t)op->status[METRICS_WARNING]);
	json_add_int(j, "error", (int64_t)op->status[METRICS_ERROR]);
	if (lat != NULL) {
		json_add_int(j, "p50_us", (int64_t)histo_quantile(lat, 0.5));
		json_add_int(j, "p99_us", (int64_t)histo_quantile(lat, 0.99));
	}
}

static void json_workers(struct json_writer *j, struct metrics_shm *m)
{
	unsigned w;

	json_open_array(j, "workers");
	for (w = 0; w < m->hdr->nworkers; w++) {
		const struct metrics_worker *b = metrics_worker(m, w);
		const struct metrics_worker_info *i = &b->info;

		if (METRIC_GET(&i->pid) == 0) {
			continue;
		}
		json_open(j, NULL);
		json_add_int(j, "worker", w);
		json_add_int(j, "pid", (int64_t)METRIC_GET(&i->pid));
		json_add_int(j, "cpu", (int64_t)METRIC_GET(&i->cpu));
		json_add_int(j, "connections",
			     (int64_t)METRIC_GET(&i->connections));
		json_add_int(j, "sessions", (int64_t)METRIC_GET(&i->sessions));
		json_add_int(j, "opens", (int64_t)METRIC_GET(&i->opens));
		json_add_int(j, "accepted", (int64_t)METRIC_GET(&i->accepted));
		json_add_int(j, "accepted_local",
			     (int64_t)METRIC_GET(&i->accepted_local));
		json_add_int(j, "handed_over",
			     (int64_t)METRIC_GET(&i->handed_over));
		json_add_int(j, "requests", (int64_t)worker_requests(m, b));
		json_close(j);
	}
	json_close_array(j);
}

static bool json_profile(TALLOC_CTX *mem, struct metrics_shm *m,
			 const struct metrics_worker *sum, const char *config)
{
	struct json_writer j;
	const char *out;
	unsigned o, s;

	json_init(&j, mem);
	json_open(&j, NULL);
	json_add_str(&j, "version", PACKAGE_VERSION " (" PACKAGE_NAME ")");
	json_add_str(&j, "smb_conf", config);
	json_add_int(&j, "started", m->hdr->started);
	json_open(&j, "SMB2 Calls");
	for (o = 0; o < m->hdr->nops; o++) {
		json_op(&j, call_name(mem, m->hdr->op_name[o]), &sum->op[o],
			&sum->latency[o]);
		json_named(&j, m, sum->named[o]);
		json_close(&j);
	}
	json_close(&j);
	json_open(&j, "shares");
	for (s = 0; s <= METRICS_SHARE_OTHER; s++) {
		const char *name = metrics_share_name(m, s);

		if (name == NULL) {
			continue;
		}
		json_open(&j, name);
		for (o = 0; o < m->hdr->nops; o++) {
			if (sum->share[s][o].count != 0) {
				json_op(&j, m->hdr->op_name[o],
					&sum->share[s][o], NULL);
				json_close(&j);
			}
		}
		json_close(&j);
	}
	json_close(&j);
	json_workers(&j, m);
	json_close(&j);
	out = json_finish(&j);
	if (out == NULL) {
		return false;
	}
	printf("%s\n", out);
	return true;
}

int smbstatus_profile(TALLOC_CTX *mem, const char *lockdir,
		      const char *config, bool json)
{
	struct metrics_shm *m = metrics_attach(mem, lockdir);
	struct metrics_worker *sum;
	char when[64];
	struct tm tm;
	time_t t;

	if (m == NULL) {
		fprintf(stderr, "smbstatus: no metrics in %s/%s: %s\n", lockdir,
			METRICS_FILE,
			errno == ENOENT ? "is smbd running, with `smbd metrics "
					  "= yes`?"
					: strerror(errno));
		return 1;
	}
	sum = metrics_sum(mem, m);
	if (sum == NULL) {
		return 1;
	}
	if (json) {
		return json_profile(mem, m, sum, config) ? 0 : 1;
	}
	t = (time_t)m->hdr->started;
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm) == 0) {
		snprintf(when, sizeof(when), "%lld", (long long)t);
	}
	printf("smbd-ng version %s (lock directory %s)\n", PACKAGE_VERSION,
	       lockdir);
	printf("profile since %s UTC, %u workers\n\n", when,
	       m->hdr->nworkers);
	text_calls(mem, m, sum);
	text_statuses(m, sum);
	text_shares(m, sum);
	text_workers(m);
	return 0;
}
