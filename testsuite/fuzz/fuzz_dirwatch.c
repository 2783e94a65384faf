/*
 * libFuzzer target: smbd_dirwatch_parse (smbd/objects/dirwatch.c), the
 * walk over one read() of a fanotify FAN_REPORT_DIR_FID group.  The
 * kernel writes those bytes, not a client, but a walk that trusts a
 * length reads past the buffer.  Each input is parsed at an odd offset
 * (events are not 8-byte multiples, so the walk must not cast); every
 * handle reported lies inside the input, at most MAX_HANDLE_SZ long.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "smbd/objects/dirwatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct span {
	const uint8_t *lo, *hi;
};

static void check(const struct smbd_dirwatch_event *e, void *priv)
{
	const struct span *s = priv;
	volatile uint8_t sum = 0;
	unsigned i;

	if (e->overflow) {
		return;
	}
	if (e->handle_len > 128 || e->handle < s->lo ||
	    e->handle + e->handle_len > s->hi) {
		abort();
	}
	/* touch every byte, so ASan sees an overrun */
	for (i = 0; i < e->handle_len; i++) {
		sum ^= e->handle[i];
	}
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size + 1);
	struct span s;

	if (buf == NULL) {
		return 0;
	}
	memcpy(buf + 1, data, size);
	s.lo = buf + 1;
	s.hi = buf + 1 + size;
	smbd_dirwatch_parse(buf + 1, size, check, &s);
	free(buf);
	return 0;
}
