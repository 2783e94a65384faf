/*
 * libFuzzer target for the metrics endpoint's request parser
 * (smbd/process/metrics_http.c metrics_http_parse): any bytes give 0
 * (incomplete) or one of the statuses it documents, never read past the
 * buffer, and the answer for a prefix that was already complete does not
 * change when more bytes follow, unless they make the whole malformed
 * (a NUL) or too long (what the endpoint relies on when it parses again
 * after each read).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbd/process/metrics_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int known(int code)
{
	return code == 0 || code == 200 || code == 400 || code == 404 ||
	       code == 405 || code == 431;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	int whole, part;
	size_t cut;

	if (size > 2 * METRICS_HTTP_MAX_REQUEST) {
		return 0;
	}
	buf = malloc(size ? size : 1);	/* exactly size: ASan sees overruns */
	if (buf == NULL) {
		return 0;
	}
	memcpy(buf, data, size);
	whole = metrics_http_parse(buf, size);
	if (!known(whole)) {
		abort();
	}
	cut = size > 0 ? (size_t)data[0] % (size + 1) : 0;
	part = metrics_http_parse(buf, cut);
	if (!known(part) || (part != 0 && whole != part && whole != 400 &&
			     whole != 431)) {
		abort();
	}
	free(buf);
	return 0;
}
