/*
 * The compression codecs for the test client (testsuite/integration/
 * smb3client.py): one call per run, stdin to stdout.
 *
 *   xca_tool compress ALG            exit 3 when it would not shrink
 *   xca_tool decompress ALG LENGTH   exit 2 when the stream is refused
 *   xca_tool bench ALG [SECONDS]     compress and decompress stdin over
 *                                    and over; prints the ratio and MB/s
 *                                    of CPU time each way
 *
 * ALG is the SMB2 id (MS-SMB2 2.2.3.1.3): 1 LZNT1, 2 LZ77, 3 LZ77+Huffman,
 * 5 LZ4; bench also takes 4, Pattern_V1, which it runs as the server
 * sends it (smb2_compress_msg, chained, Pattern_V1 alone).  Only the raw codecs come from here (lib/xca.h, liblz4, each
 * tested against MS-XCA's vectors); the client builds and parses the
 * COMPRESSION_TRANSFORM framing itself, independently of the server's.
 */
#include "lib/xca.h"
#include "smbd/conn/smb2_compress.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>

#define TOOL_MAX (16u * 1024 * 1024)

static unsigned char *read_all(size_t *len)
{
	unsigned char *buf = malloc(TOOL_MAX + 1);
	size_t n = 0, r;

	if (buf == NULL) {
		return NULL;
	}
	while ((r = fread(buf + n, 1, TOOL_MAX + 1 - n, stdin)) > 0) {
		n += r;
		if (n > TOOL_MAX) {
			free(buf);
			return NULL;
		}
	}
	*len = n;
	return buf;
}

static size_t tool_compress(int alg, const unsigned char *in, size_t len,
			    unsigned char *out, size_t cap)
{
	int r;

	switch (alg) {
	case 1:
		return xca_lznt1_compress(in, len, out, cap);
	case 2:
		return xca_lz77_compress(in, len, out, cap);
	case 3:
		return xca_huff_compress(in, len, out, cap);
	case 5:
		r = LZ4_compress_default((const char *)in, (char *)out,
					 (int)len, (int)cap);
		return r > 0 ? (size_t)r : 0;
	default:
		return 0;
	}
}

static int tool_decompress(int alg, const unsigned char *in, size_t len,
			   unsigned char *out, size_t out_len)
{
	switch (alg) {
	case 1:
		return xca_lznt1_decompress(in, len, out, out_len);
	case 2:
		return xca_lz77_decompress(in, len, out, out_len);
	case 3:
		return xca_huff_decompress(in, len, out, out_len);
	case 5:
		return LZ4_decompress_safe((const char *)in, (char *)out,
					   (int)len, (int)out_len) ==
		       (int)out_len;
	default:
		return 0;
	}
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Pattern_V1 the way the server sends it: the whole input one chained
 * message (the server's framing, smbd/conn/smb2_compress.c). */
static const struct smb2_compress_caps pattern_caps = {
	{SMB2_COMPRESSION_PATTERN_V1}, 1, true};

static size_t bench_compress(int alg, const unsigned char *in, size_t len,
			     unsigned char *out)
{
	if (alg == SMB2_COMPRESSION_PATTERN_V1) {
		return smb2_compress_msg(&pattern_caps, in, len, 0, out, len);
	}
	return tool_compress(alg, in, len, out, len);
}

static int bench_decompress(int alg, const unsigned char *in, size_t n,
			    unsigned char *out, size_t len)
{
	uint8_t *m = NULL;
	size_t m_len = 0;
	int ok;

	if (alg != SMB2_COMPRESSION_PATTERN_V1) {
		return tool_decompress(alg, in, n, out, len);
	}
	ok = NT_STATUS_IS_OK(smb2_decompress(NULL, &pattern_caps, in, n,
					     TOOL_MAX + 1024, &m, &m_len)) &&
	     m_len == len;
	talloc_free(m);
	return ok;
}

/* Each way for at least secs of CPU time: "ratio MB/s MB/s". */
static int bench(int alg, const unsigned char *in, size_t len, double secs)
{
	unsigned char *out = malloc(len + 1), *back = malloc(len + 1);
	size_t n = 0;
	double t0, tc, td;
	unsigned rounds = 0;

	if (out == NULL || back == NULL || len == 0) {
		return 1;
	}
	t0 = cpu_now();
	do {
		n = bench_compress(alg, in, len, out);
		rounds++;
	} while (cpu_now() - t0 < secs);
	tc = (cpu_now() - t0) / rounds;
	if (n == 0) {
		/* it does not shrink: the server would send it as it is */
		printf("1.00 %.0f -\n", (double)len / tc / 1e6);
		return 0;
	}
	rounds = 0;
	t0 = cpu_now();
	do {
		if (!bench_decompress(alg, out, n, back, len)) {
			fprintf(stderr, "xca_tool: round trip failed\n");
			return 2;
		}
		rounds++;
	} while (cpu_now() - t0 < secs);
	td = (cpu_now() - t0) / rounds;
	if (alg != SMB2_COMPRESSION_PATTERN_V1 && memcmp(back, in, len)) {
		fprintf(stderr, "xca_tool: round trip differs\n");
		return 2;
	}
	printf("%.2f %.0f %.0f\n", (double)len / (double)n,
	       (double)len / tc / 1e6, (double)len / td / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *in, *out;
	size_t len, n = 0;
	int alg;

	if (argc < 3 || (strcmp(argv[1], "decompress") == 0 && argc < 4)) {
		fprintf(stderr, "usage: xca_tool compress|decompress ALG "
				"[LENGTH]\n");
		return 1;
	}
	alg = atoi(argv[2]);
	in = read_all(&len);
	if (in == NULL) {
		fprintf(stderr, "xca_tool: input over %u bytes\n", TOOL_MAX);
		return 1;
	}
	if (strcmp(argv[1], "bench") == 0) {
		return bench(alg, in, len, argc > 3 ? atof(argv[3]) : 1.0);
	}
	if (strcmp(argv[1], "compress") == 0) {
		out = malloc(len + 1);
		n = out != NULL && len > 0 ? tool_compress(alg, in, len, out,
							   len - 1)
					   : 0;
		if (n == 0) {
			return 3;
		}
	} else {
		n = strtoul(argv[3], NULL, 10);
		out = n <= TOOL_MAX ? malloc(n + 1) : NULL;
		if (out == NULL || !tool_decompress(alg, in, len, out, n)) {
			return 2;
		}
	}
	if (fwrite(out, 1, n, stdout) != n) {
		return 1;
	}
	return 0;
}
