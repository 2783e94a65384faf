/*
 * The metrics table in Prometheus's text exposition format, version 0.0.4
 * (# HELP / # TYPE, then one sample per line, a family's samples
 * together; counters end in _total; a histogram is its cumulative
 * _bucket{le=...} series ending with le="+Inf", then _sum and _count).
 *
 * What is per worker and what is summed: request counts and bytes carry
 * worker="N" (a few series per command); latency histograms and the
 * per-share series are summed over the workers, which keeps a scrape
 * near a few thousand lines on a many-CPU server.  Only operations that
 * were seen and share slots that are named appear.
 */
#include "lib/metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct prom {
	TALLOC_CTX *tmp;	/* the sum, escaped labels */
	char *buf;
	bool failed;
};

static void prom_printf(struct prom *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void prom_printf(struct prom *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed) {
		return;
	}
	va_start(ap, fmt);
	p->buf = talloc_vasprintf_append_buffer(p->buf, fmt, ap);
	va_end(ap);
	p->failed = p->buf == NULL;
}

static void prom_family(struct prom *p, const char *name, const char *type,
			const char *help)
{
	prom_printf(p, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: \, " and newline escaped (the format's three). */
static const char *prom_label(TALLOC_CTX *mem, const char *v)
{
	size_t i, n = 0;
	char *out = talloc_array(mem, char, strlen(v) * 2 + 1);

	if (out == NULL) {
		return "";
	}
	for (i = 0; v[i] != '\0'; i++) {
		if (v[i] == '\\' || v[i] == '"') {
			out[n++] = '\\';
			out[n++] = v[i];
		} else if (v[i] == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
		} else {
			out[n++] = v[i];
		}
	}
	out[n] = '\0';
	return out;
}

/* smbd_requests_total and the byte counters, per worker and command. */
/* Bytes received (or sent: out) by worker and command. */
static void prom_worker_bytes(struct prom *p, struct metrics_shm *m,
			      const char *name, const char *help, bool out)
{
	const struct metrics_hdr *h = m->hdr;
	unsigned w, o;

	prom_family(p, name, "counter", help);
	for (w = 0; w < h->nworkers; w++) {
		const struct metrics_worker *b = metrics_worker(m, w);

		for (o = 0; o < h->nops; o++) {
			if (METRIC_GET(&b->op[o].count) == 0) {
				continue;
			}
			prom_printf(p,
				    "%s{worker=\"%u\",command=\"%s\"} %" PRIu64
				    "\n",
				    name, w, h->op_name[o],
				    out ? METRIC_GET(&b->op[o].bytes_out)
					: METRIC_GET(&b->op[o].bytes_in));
		}
	}
}

static void prom_worker_ops(struct prom *p, struct metrics_shm *m)
{
	const struct metrics_hdr *h = m->hdr;
	unsigned w, o, c;

	prom_family(p, "smbd_requests_total", "counter",
		    "SMB2 requests answered, by worker, command and NTSTATUS "
		    "class.");
	for (w = 0; w < h->nworkers; w++) {
		const struct metrics_worker *b = metrics_worker(m, w);

		for (o = 0; o < h->nops; o++) {
			if (METRIC_GET(&b->op[o].count) == 0) {
				continue;
			}
			for (c = 0; c < METRICS_NCLASSES; c++) {
				prom_printf(p,
					    "smbd_requests_total{worker=\"%u\","
					    "command=\"%s\",status=\"%s\"} "
					    "%" PRIu64 "\n",
					    w, h->op_name[o],
					    metrics_class_name(c),
					    METRIC_GET(&b->op[o].status[c]));
			}
		}
	}
	prom_worker_bytes(p, m, "smbd_received_bytes_total",
			  "Bytes of SMB2 requests (headers and data), by "
			  "worker and command.",
			  false);
	prom_worker_bytes(p, m, "smbd_sent_bytes_total",
			  "Bytes of SMB2 replies (headers and data), by worker "
			  "and command.",
			  true);
}

static void prom_histograms(struct prom *p, const struct metrics_hdr *h,
			    const struct metrics_worker *sum)
{
	unsigned o, i;

	prom_family(p, "smbd_request_duration_seconds", "histogram",
		    "Time from the arrival of an SMB2 request to its reply, by "
		    "command, all workers.");
	for (o = 0; o < h->nops; o++) {
		const struct histo *l = &sum->latency[o];
		uint64_t cum = 0;

		if (histo_count(l) == 0) {
			continue;
		}
		for (i = 0; i < HISTO_OVERFLOW; i++) {
			cum += l->bucket[i];
			prom_printf(p,
				    "smbd_request_duration_seconds_bucket{"
				    "command=\"%s\",le=\"%.9g\"} %" PRIu64 "\n",
				    h->op_name[o],
				    (double)histo_bucket_upper(i) / 1e6, cum);
		}
		cum += l->bucket[HISTO_OVERFLOW];
		prom_printf(p,
			    "smbd_request_duration_seconds_bucket{command="
			    "\"%s\",le=\"+Inf\"} %" PRIu64 "\n"
			    "smbd_request_duration_seconds_sum{command=\"%s\"} "
			    "%.6f\n"
			    "smbd_request_duration_seconds_count{command="
			    "\"%s\"} %" PRIu64 "\n",
			    h->op_name[o], cum, h->op_name[o],
			    (double)l->sum_us / 1e6, h->op_name[o], cum);
	}
}

static void prom_named(struct prom *p, struct metrics_shm *m,
		       const struct metrics_worker *sum)
{
	unsigned o, i, n = metrics_nnamed(m);

	prom_family(p, "smbd_request_ntstatus_total", "counter",
		    "SMB2 replies with a few NTSTATUS codes, counted one by "
		    "one, by command, all workers.");
	for (o = 0; o < m->hdr->nops; o++) {
		for (i = 0; i < n; i++) {
			if (sum->named[o][i] == 0) {
				continue;
			}
			prom_printf(p,
				    "smbd_request_ntstatus_total{command=\"%s\","
				    "ntstatus=\"%s\"} %" PRIu64 "\n",
				    m->hdr->op_name[o],
				    prom_label(p->tmp, m->hdr->named_name[i]),
				    sum->named[o][i]);
		}
	}
}

/* One of the per-share families; field: 0 requests, 1 in, 2 out. */
static void prom_share_family(struct prom *p, struct metrics_shm *m,
			      const struct metrics_worker *sum, int field)
{
	static const char *const names[] = {
		"smbd_share_requests_total", "smbd_share_received_bytes_total",
		"smbd_share_sent_bytes_total"};
	static const char *const helps[] = {
		"SMB2 requests on a share's trees, by command and NTSTATUS "
		"class, all workers.",
		"Bytes of SMB2 requests on a share's trees, by command.",
		"Bytes of SMB2 replies on a share's trees, by command."};
	unsigned s, o, c;

	prom_family(p, names[field], "counter", helps[field]);
	for (s = 0; s <= METRICS_SHARE_OTHER; s++) {
		const char *name = metrics_share_name(m, s);
		const char *label;

		if (name == NULL) {
			continue;
		}
		label = prom_label(p->tmp, name);
		for (o = 0; o < m->hdr->nops; o++) {
			const struct metrics_op *op = &sum->share[s][o];

			if (op->count == 0) {
				continue;
			}
			if (field != 0) {
				prom_printf(p,
					    "%s{share=\"%s\",command=\"%s\"} "
					    "%" PRIu64 "\n",
					    names[field], label,
					    m->hdr->op_name[o],
					    field == 1 ? op->bytes_in
						       : op->bytes_out);
				continue;
			}
			for (c = 0; c < METRICS_NCLASSES; c++) {
				prom_printf(p,
					    "%s{share=\"%s\",command=\"%s\","
					    "status=\"%s\"} %" PRIu64 "\n",
					    names[0], label,
					    m->hdr->op_name[o],
					    metrics_class_name(c),
					    op->status[c]);
			}
		}
	}
}

#define INFO_FIELD(f) offsetof(struct metrics_worker_info, f)

static void prom_worker_info(struct prom *p, struct metrics_shm *m)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} fams[] = {
		{"smbd_worker_connections", "gauge",
		 "Connections the worker serves now.",
		 INFO_FIELD(connections)},
		{"smbd_worker_sessions", "gauge",
		 "Sessions on the worker's connections (about a second old).",
		 INFO_FIELD(sessions)},
		{"smbd_worker_opens", "gauge",
		 "Open handles on the worker's connections (about a second "
		 "old).",
		 INFO_FIELD(opens)},
		{"smbd_worker_accepted_connections_total", "counter",
		 "Connections the worker accepted.", INFO_FIELD(accepted)},
		{"smbd_worker_accepted_local_connections_total", "counter",
		 "Accepted connections the kernel received on the worker's "
		 "own CPU (SO_INCOMING_CPU).",
		 INFO_FIELD(accepted_local)},
		{"smbd_worker_handed_over_connections_total", "counter",
		 "Connections the worker passed on to another worker.",
		 INFO_FIELD(handed_over)},
		{"smbd_worker_starts_total", "counter",
		 "Times the worker was started (1 plus its restarts).",
		 INFO_FIELD(starts)},
	};
	unsigned f, w;

	for (f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		prom_family(p, fams[f].name, fams[f].type, fams[f].help);
		for (w = 0; w < m->hdr->nworkers; w++) {
			const struct metrics_worker *b = metrics_worker(m, w);
			const uint64_t *v =
				(const uint64_t *)((const char *)&b->info +
						   fams[f].off);

			if (METRIC_GET(&b->info.pid) == 0) {
				continue;
			}
			prom_printf(p, "%s{worker=\"%u\",cpu=\"%" PRIu64
				       "\"} %" PRIu64 "\n",
				    fams[f].name, w,
				    METRIC_GET(&b->info.cpu), METRIC_GET(v));
		}
	}
}

char *metrics_prom_text(TALLOC_CTX *mem_ctx, struct metrics_shm *m)
{
	struct prom p = {.tmp = talloc_new(mem_ctx)};
	struct metrics_worker *sum;

	p.buf = talloc_strdup(mem_ctx, "");
	sum = p.tmp != NULL ? metrics_sum(p.tmp, m) : NULL;
	if (p.buf == NULL || sum == NULL) {
		talloc_free(p.tmp);
		talloc_free(p.buf);
		return NULL;
	}
	prom_family(&p, "smbd_start_time_seconds", "gauge",
		    "When the server started, in seconds since the epoch.");
	prom_printf(&p, "smbd_start_time_seconds %" PRId64 "\n",
		    m->hdr->started);
	prom_worker_ops(&p, m);
	prom_histograms(&p, m->hdr, sum);
	prom_named(&p, m, sum);
	prom_share_family(&p, m, sum, 0);
	prom_share_family(&p, m, sum, 1);
	prom_share_family(&p, m, sum, 2);
	prom_worker_info(&p, m);
	talloc_free(p.tmp);
	if (p.failed) {
		return NULL;
	}
	return p.buf;
}
