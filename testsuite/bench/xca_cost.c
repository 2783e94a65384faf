/*
 * xca_cost: what one decompressed message can cost the worker's loop
 * (issue 34, "decompression cost").  The worker decompresses a
 * COMPRESSION_TRANSFORM message on its loop thread before anything else
 * of that connection or any other runs, so the worst decode time of a
 * message is a stall every client of that worker sees.
 *
 * For each hand-built adversary of testsuite/common/xca_adversary.c
 * (the inputs that make each MS-XCA decoder work hardest per byte) it
 * times the daemon's own decoder (libsmbd, not counting steps) in CPU
 * time, best of -r runs, and prints nanoseconds per output and per
 * input byte beside memcpy and memset (Pattern_V1) of the same output,
 * then the worst time
 * one message can cost.  A message holds at most SMBD_MAX_PDU bytes and
 * decompresses to at most 8 MiB + 272 (smb2_decompress_limit); a chained
 * one may mix payloads of several algorithms, so with each adversary's
 * time linear in its size (lib/xca.h), the worst mix is a linear
 * programme in two budgets, whose optimum uses at most two of them:
 * every adversary alone and every pair filling both budgets is tried.
 * Not a test: it asserts no time (test_xca_cost counts the same inputs'
 * steps).
 *
 * Usage: xca_cost [-s MiB of output, default 8] [-r runs, default 5]
 */
#include "lib/xca.h"
#include "smbd/smb2.h"
#include "testsuite/common/xca_adversary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)

/* The thread's CPU time, not the wall clock: on a shared machine the
 * time others run meanwhile is not the decoder's. */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best of runs: the least disturbed by the other work on the machine. */
static double time_decode(const struct xca_adv *a, uint8_t *out, int runs,
			  bool *ok)
{
	double best = 0;
	int i;

	for (i = 0; i < runs; i++) {
		double t0 = now_ns(), t;

		*ok = xca_adv_decode(a, out);
		t = now_ns() - t0;
		if (i == 0 || t < best) {
			best = t;
		}
	}
	return best;
}

static double time_mem(uint8_t *dst, const uint8_t *src, size_t n,
		       int runs, bool set)
{
	double best = 0;
	int i;

	for (i = 0; i < runs; i++) {
		double t0 = now_ns(), t;

		if (set) {
			memset(dst, src[i % 7], n);
		} else {
			memcpy(dst, src, n);
		}
		t = now_ns() - t0;
		if (i == 0 || t < best) {
			best = t;
		}
	}
	/* keep the copies from being optimised away */
	if (dst[n / 2] == 0x5a && dst[n / 3] == 0xa5) {
		fprintf(stderr, " ");
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t mib = 8, out_cap, in_budget, out_budget;
	double worst_in = 0, worst_out = 0, worst_msg = 0, worst_mix = 0;
	const char *worst_in_name = "", *worst_out_name = "",
		   *worst_msg_name = "", *mix_a = "", *mix_b = "";
	double ti[64], ii[64], oi[64];
	const char *names[64];
	int runs = 5, c;
	uint8_t *out, *src;
	double t, cpy;
	unsigned i;

	while ((c = getopt(argc, argv, "s:r:")) != -1) {
		switch (c) {
		case 's':
			mib = (size_t)atoi(optarg);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: xca_cost [-s MiB] [-r runs]\n");
			return 2;
		}
	}
	if (mib < 1 || runs < 1) {
		fprintf(stderr, "xca_cost: -s and -r must be positive\n");
		return 2;
	}
	out_cap = mib * MIB;
	/* what one message may hold and decompress to (smb2.h,
	 * smb2_compress.c) */
	in_budget = SMBD_MAX_PDU;
	out_budget = SMBD_MAX_IO + 272;
	out = malloc(out_cap + 1);
	src = malloc(out_cap);
	if (out == NULL || src == NULL) {
		return 1;
	}
	memset(src, 0x3c, out_cap);
	memset(out, 0, out_cap);

	printf("%-20s %9s %9s %9s %8s %8s %6s  %s\n", "input", "in KiB",
	       "out KiB", "ms", "ns/out", "ns/in", "x cpy", "what");
	t = time_mem(out, src, out_cap, runs, false);
	cpy = t / (double)out_cap;
	printf("%-20s %9s %9zu %9.2f %8.3f %8s %6s  %s\n", "memcpy", "-",
	       out_cap / 1024, t / 1e6, cpy, "-", "1.0",
	       "the floor: copying the output");
	t = time_mem(out, src, out_cap, runs, true);
	printf("%-20s %9s %9zu %9.2f %8.3f %8s %6.1f  %s\n",
	       "pattern_v1 (memset)", "-", out_cap / 1024, t / 1e6,
	       t / (double)out_cap, "-", t / (double)out_cap / cpy,
	       "one byte repeated");
	for (i = 0; i < xca_adv_count(); i++) {
		struct xca_adv *a = xca_adv_new(NULL, i, out_cap);
		double per_out, per_in, scale, msg;
		bool ok;

		if (a == NULL) {
			return 1;
		}
		t = time_decode(a, out, runs, &ok);
		per_out = a->out_len ? t / (double)a->out_len : 0;
		per_in = t / (double)a->in_len;
		printf("%-20s %9zu %9zu %9.2f %8.3f %8.3f %6.1f  %s%s\n",
		       a->name, a->in_len / 1024, a->out_len / 1024, t / 1e6,
		       per_out, per_in, per_out / cpy, a->what,
		       ok ? "" : " (REFUSED: not a valid stream)");
		if (per_in > worst_in) {
			worst_in = per_in;
			worst_in_name = a->name;
		}
		if (per_out > worst_out) {
			worst_out = per_out;
			worst_out_name = a->name;
		}
		/* this input alone, scaled to the most one message holds */
		scale = (double)in_budget / (double)a->in_len;
		if (a->out_len != 0 &&
		    (double)out_budget / (double)a->out_len < scale) {
			scale = (double)out_budget / (double)a->out_len;
		}
		msg = t * scale;
		if (msg > worst_msg) {
			worst_msg = msg;
			worst_msg_name = a->name;
		}
		if (i < 64) {
			ti[i] = t;
			ii[i] = (double)a->in_len;
			oi[i] = (double)a->out_len;
			names[i] = a->name;
		}
		talloc_free(a);
	}
	worst_mix = worst_msg;
	mix_a = mix_b = worst_msg_name;
	/* Pairs whose scales s, u >= 0 fill both budgets exactly. */
	for (i = 0; i < xca_adv_count() && i < 64; i++) {
		unsigned j;

		for (j = i + 1; j < xca_adv_count() && j < 64; j++) {
			double det = ii[i] * oi[j] - ii[j] * oi[i], s, u, v;

			if (det == 0) {
				continue;
			}
			s = ((double)in_budget * oi[j] -
			     ii[j] * (double)out_budget) / det;
			u = (ii[i] * (double)out_budget -
			     (double)in_budget * oi[i]) / det;
			v = s * ti[i] + u * ti[j];
			if (s >= 0 && u >= 0 && v > worst_mix) {
				worst_mix = v;
				mix_a = names[i];
				mix_b = names[j];
			}
		}
	}
	printf("\nworst ns per output byte: %.3f (%s), per input byte: %.3f "
	       "(%s)\n", worst_out, worst_out_name, worst_in,
	       worst_in_name);
	printf("one message (at most %zu bytes in, %zu out): %.1f ms of one "
	       "input (%s);\n%.1f ms mixing two in a chained message (%s + "
	       "%s)\n", in_budget, out_budget, worst_msg / 1e6,
	       worst_msg_name, worst_mix / 1e6, mix_a, mix_b);
	free(out);
	free(src);
	return 0;
}
