/*
 * The live metrics (issue 20): lib/histo.c's bucket boundaries, merge and
 * quantiles; lib/metrics.c's table (create, attach, share slots, the sum
 * of the workers); lib/metrics_prom.c's text format; the endpoint's
 * request parser and `smbd metrics listen` values
 * (smbd/process/metrics_http.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "lib/histo.h"
#include "lib/metrics.h"
#include "smbd/process/metrics_http.h"

static void test_histo_boundaries(void **state)
{
	unsigned i;
	uint64_t v;

	(void)state;
	/* Linear below HISTO_SUB: one value per bucket. */
	for (v = 0; v < HISTO_SUB; v++) {
		assert_int_equal(histo_index(v), v);
	}
	assert_int_equal(histo_index(4), 4);
	assert_int_equal(histo_index(7), 7);
	assert_int_equal(histo_index(8), 8);
	assert_int_equal(histo_index(9), 8);
	assert_int_equal(histo_index(10), 9);
	assert_int_equal(histo_index(15), 11);
	assert_int_equal(histo_index(16), 12);
	/* Every bucket is [lower, upper), contiguous, lower maps back. */
	for (i = 0; i < HISTO_OVERFLOW; i++) {
		uint64_t lo = histo_bucket_lower(i), hi = histo_bucket_upper(i);

		assert_true(lo < hi);
		assert_int_equal(histo_index(lo), i);
		assert_int_equal(histo_index(hi - 1), i);
		assert_int_equal(histo_bucket_lower(i + 1), hi);
		/* at most 25% wide (1 us below 4 us) */
		assert_true((hi - lo) * 4 <= lo || hi - lo == 1);
	}
	/* 1 us resolution at the bottom, beyond 100 s at the top. */
	assert_int_equal(histo_bucket_upper(0), 1);
	assert_true(histo_bucket_lower(HISTO_OVERFLOW) >= 100000000ull);
	assert_int_equal(histo_index(histo_bucket_lower(HISTO_OVERFLOW)),
			 HISTO_OVERFLOW);
	assert_int_equal(histo_index(UINT64_MAX), HISTO_OVERFLOW);
	assert_int_equal(histo_bucket_upper(HISTO_OVERFLOW), UINT64_MAX);
}

static void test_histo_merge_quantile(void **state)
{
	struct histo a, b;
	unsigned i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(histo_quantile(&a, 0.5), 0);
	for (i = 0; i < 90; i++) {
		histo_record(&a, 100);	/* bucket [96, 112) */
	}
	for (i = 0; i < 10; i++) {
		histo_record(&b, 5000);	/* bucket [4096, 5120) */
	}
	histo_merge(&a, &b);
	assert_int_equal(histo_count(&a), 100);
	assert_int_equal(a.sum_us, 90 * 100 + 10 * 5000);
	assert_int_equal(histo_quantile(&a, 0.5), 112);
	assert_int_equal(histo_quantile(&a, 0.9), 112);
	assert_int_equal(histo_quantile(&a, 0.91), 5120);
	assert_int_equal(histo_quantile(&a, 0.99), 5120);
	assert_int_equal(histo_quantile(&a, 1.0), 5120);
	histo_record(&b, UINT64_MAX / 2);
	assert_int_equal(histo_quantile(&b, 1.0), UINT64_MAX);
}

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test_metrics.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rmdir_all(char *d)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", d, METRICS_FILE);
	unlink(path);
	rmdir(d);
	free(d);
}

static const char *const ops[] = {"NEGOTIATE", "READ", "WRITE"};

static void test_table(void **state)
{
	char *d = tmpdir();
	TALLOC_CTX *mem = talloc_new(NULL);
	struct metrics_shm *w = metrics_create(mem, d, 2, ops, 3), *r;
	struct metrics_worker *sum;
	unsigned s1, s2, i;
	char name[32];

	(void)state;
	assert_non_null(w);
	metrics_worker(w, 0)->op[1].count = 3;
	metrics_worker(w, 1)->op[1].count = 4;
	metrics_worker(w, 1)->op[1].status[METRICS_ERROR] = 1;
	histo_record(&metrics_worker(w, 0)->latency[1], 10);
	histo_record(&metrics_worker(w, 1)->latency[1], 20);
	s1 = metrics_share_slot(w, "Data");
	s2 = metrics_share_slot(w, "IPC$");
	assert_int_equal(s1, 0);
	assert_int_equal(s2, 1);
	assert_int_equal(metrics_share_slot(w, "DATA"), s1);
	metrics_worker(w, 1)->share[s1][2].bytes_in = 1000;

	r = metrics_attach(mem, d);
	assert_non_null(r);
	assert_false(r->writable);
	assert_int_equal(r->hdr->nworkers, 2);
	assert_string_equal(r->hdr->op_name[2], "WRITE");
	assert_string_equal(metrics_share_name(r, s1), "data");
	assert_null(metrics_share_name(r, 5));
	assert_string_equal(metrics_share_name(r, METRICS_SHARE_OTHER),
			    "(other)");
	sum = metrics_sum(mem, r);
	assert_non_null(sum);
	assert_int_equal(sum->op[1].count, 7);
	assert_int_equal(sum->op[1].status[METRICS_ERROR], 1);
	assert_int_equal(histo_count(&sum->latency[1]), 2);
	assert_int_equal(sum->share[s1][2].bytes_in, 1000);

	/* Full: the rest counts in the other slot. */
	for (i = 2; i < METRICS_SHARES; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		assert_int_equal(metrics_share_slot(w, name), i);
	}
	assert_int_equal(metrics_share_slot(w, "one-too-many"),
			 METRICS_SHARE_OTHER);
	assert_int_equal(metrics_share_slot(w, "s7"), 7);
	assert_int_equal(metrics_class_of(0), METRICS_SUCCESS);
	assert_int_equal(metrics_class_of(0x00000103), METRICS_SUCCESS);
	assert_int_equal(metrics_class_of(0x40000000), METRICS_INFO);
	assert_int_equal(metrics_class_of(0x80000005), METRICS_WARNING);
	assert_int_equal(metrics_class_of(0xC0000034), METRICS_ERROR);
	talloc_free(mem);
	rmdir_all(d);
}

static void test_attach_errors(void **state)
{
	char *d = tmpdir();
	char path[256];
	FILE *f;

	(void)state;
	assert_null(metrics_attach(NULL, d));
	snprintf(path, sizeof(path), "%s/%s", d, METRICS_FILE);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a table", f);
	fclose(f);
	assert_null(metrics_attach(NULL, d));
	rmdir_all(d);
}

/* One sample line's value, or -1 when the line is missing. */
static long long sample(const char *text, const char *series)
{
	const char *p = text;
	size_t n = strlen(series);

	while ((p = strstr(p, series)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == ' ') {
			return strtoll(p + n + 1, NULL, 10);
		}
		p += n;
	}
	return -1;
}

static void test_prom_text(void **state)
{
	char *d = tmpdir();
	TALLOC_CTX *mem = talloc_new(NULL);
	struct metrics_shm *m = metrics_create(mem, d, 2, ops, 3);
	struct metrics_worker *w0, *w1;
	unsigned s;
	char *t;

	(void)state;
	assert_non_null(m);
	w0 = metrics_worker(m, 0);
	w1 = metrics_worker(m, 1);
	w0->info.pid = 10;
	w0->info.accepted = 5;
	w0->info.accepted_local = 4;
	w0->op[1].count = 2;
	w0->op[1].status[METRICS_SUCCESS] = 2;
	w0->op[1].bytes_out = 4096;
	w1->op[1].count = 1;
	w1->op[1].status[METRICS_ERROR] = 1;
	histo_record(&w0->latency[1], 3);	/* le 4e-06 */
	histo_record(&w1->latency[1], 1000);	/* le 0.001024 */
	{
		static const uint32_t codes[] = {0xC0000034, 0x80000006};
		static const char *const names[] = {"NOT_FOUND", "NO_MORE"};

		metrics_name_statuses(m, codes, names, 2);
		assert_int_equal(metrics_nnamed(m), 2);
		w1->named[1][1] = 6;
	}
	s = metrics_share_slot(m, "we\"ird\\share");
	w0->share[s][1].count = 3;
	w0->share[s][1].status[METRICS_SUCCESS] = 3;
	t = metrics_prom_text(mem, m);
	assert_non_null(t);
	assert_non_null(strstr(t, "# TYPE smbd_requests_total counter\n"));
	assert_non_null(strstr(t, "# TYPE smbd_request_duration_seconds "
				  "histogram\n"));
	assert_int_equal(sample(t, "smbd_requests_total{worker=\"0\","
				   "command=\"READ\",status=\"success\"}"),
			 2);
	assert_int_equal(sample(t, "smbd_requests_total{worker=\"1\","
				   "command=\"READ\",status=\"error\"}"),
			 1);
	assert_int_equal(sample(t, "smbd_request_ntstatus_total{command="
				   "\"READ\",ntstatus=\"NO_MORE\"}"),
			 6);
	assert_null(strstr(t, "ntstatus=\"NOT_FOUND\""));
	/* Operations never seen are left out. */
	assert_null(strstr(t, "command=\"WRITE\""));
	assert_int_equal(sample(t, "smbd_sent_bytes_total{worker=\"0\","
				   "command=\"READ\"}"),
			 4096);
	assert_int_equal(sample(t, "smbd_request_duration_seconds_bucket{"
				   "command=\"READ\",le=\"3e-06\"}"),
			 0);
	assert_int_equal(sample(t, "smbd_request_duration_seconds_bucket{"
				   "command=\"READ\",le=\"4e-06\"}"),
			 1);
	assert_int_equal(sample(t, "smbd_request_duration_seconds_bucket{"
				   "command=\"READ\",le=\"0.001024\"}"),
			 2);
	assert_int_equal(sample(t, "smbd_request_duration_seconds_bucket{"
				   "command=\"READ\",le=\"+Inf\"}"),
			 2);
	assert_int_equal(sample(t, "smbd_request_duration_seconds_count{"
				   "command=\"READ\"}"),
			 2);
	assert_non_null(strstr(t, "smbd_request_duration_seconds_sum{"
				  "command=\"READ\"} 0.001003\n"));
	assert_int_equal(sample(t, "smbd_share_requests_total{share="
				   "\"we\\\"ird\\\\share\",command=\"READ\","
				   "status=\"success\"}"),
			 3);
	assert_int_equal(sample(t, "smbd_worker_accepted_local_connections_"
				   "total{worker=\"0\",cpu=\"0\"}"),
			 4);
	/* A worker never started has no worker series. */
	assert_null(strstr(t, "smbd_worker_connections{worker=\"1\""));
	assert_int_equal(t[strlen(t) - 1], '\n');
	talloc_free(mem);
	rmdir_all(d);
}

static void test_http_parse(void **state)
{
	static const struct {
		const char *req;
		int code;
	} cases[] = {
		{"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"GET /metrics HTTP/1.0\n\n", 200},
		{"GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 200},
		{"GET /metrics HTTP/1.1\r\nHost: x\r\n", 0},
		{"GET /metr", 0},
		{"", 0},
		{"GET / HTTP/1.1\r\n\r\n", 404},
		{"GET /metricsx HTTP/1.1\r\n\r\n", 404},
		{"POST /metrics HTTP/1.1\r\n\r\n", 405},
		{"HEAD /metrics HTTP/1.1\r\n\r\n", 405},
		{"GET /metrics HTTP/2.0\r\n\r\n", 400},
		{"GET /metrics\r\n\r\n", 400},
		{"GET  /metrics HTTP/1.1\r\n\r\n", 400},
		{"GET metrics HTTP/1.1\r\n\r\n", 400},
		{"G(T /metrics HTTP/1.1\r\n\r\n", 400},
		{"GET /met\x01rics HTTP/1.1\r\n\r\n", 400},
		{"\r\n\r\n", 400},
		{"GET /metrics HTTP/1.1 \r\n\r\n", 400},
	};
	char big[METRICS_HTTP_MAX_REQUEST + 1];
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int code = metrics_http_parse(cases[i].req,
					      strlen(cases[i].req));

		if (code != cases[i].code) {
			fail_msg("case %u \"%s\": %d, not %d", i, cases[i].req,
				 code, cases[i].code);
		}
	}
	assert_int_equal(metrics_http_parse("GET /metrics\0 HTTP/1.1\r\n\r\n",
					    27),
			 400);
	memset(big, 'a', sizeof(big));
	assert_int_equal(metrics_http_parse(big, METRICS_HTTP_MAX_REQUEST - 1),
			 0);
	assert_int_equal(metrics_http_parse(big, METRICS_HTTP_MAX_REQUEST),
			 431);
	assert_int_equal(metrics_http_parse(big, sizeof(big)), 431);
}

static void test_listen_parse(void **state)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	static const char *const bad[] = {
		"", "9922", ":9922", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:99x", "localhost:9922",
		"::1:9922", "[::1]", "[127.0.0.1]:9922", "[::1:9922",
		"127.0.0.1:-1", "127.0.0.1: 80",
	};
	unsigned i;

	(void)state;
	assert_true(metrics_listen_parse("127.0.0.1:9922", &ss, &sl));
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9922);
	assert_true(metrics_listen_parse("[::1]:80", &ss, &sl));
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(sl, sizeof(struct sockaddr_in6));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (metrics_listen_parse(bad[i], &ss, &sl)) {
			fail_msg("\"%s\" accepted", bad[i]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histo_boundaries),
		cmocka_unit_test(test_histo_merge_quantile),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_attach_errors),
		cmocka_unit_test(test_prom_text),
		cmocka_unit_test(test_http_parse),
		cmocka_unit_test(test_listen_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
