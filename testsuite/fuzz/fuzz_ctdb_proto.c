/*
 * libFuzzer target for locking/ctdb/ctdb_proto.c, the ctdbd client
 * protocol codec: what a broken or hostile stream on the ctdbd socket
 * could hand the parser.
 *
 * The input goes through ctdb_pkt_length (its first 4 bytes) and
 * ctdb_pkt_parse twice: as it is, and with the header's length, magic and
 * version made right, since random bytes almost never carry those and the
 * bodies behind them are what matters.  Whenever a parse succeeds, every
 * byte of the data and error ranges it points out is read, so ASan reports
 * a range that reaches past the buffer even where nobody would read it.
 *
 * The input also goes out through ctdb_pkt_message (and must parse back to
 * itself) and, cut in a key and data, into a record buffer
 * (ctdb_recbuf_add), whose layout is checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "locking/ctdb/ctdb_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Read every byte of [p, p+n), which must lie inside [buf, buf+len). */
static uint8_t touch(const uint8_t *buf, size_t len, const uint8_t *p,
		     uint32_t n)
{
	uint8_t x = 0;
	uint32_t i;

	if (p == NULL) {
		if (n != 0) {
			abort();
		}
		return 0;
	}
	if (p < buf || (size_t)(p - buf) > len ||
	    n > len - (size_t)(p - buf)) {
		abort();
	}
	for (i = 0; i < n; i++) {
		x ^= p[i];
	}
	return x;
}

static void parse(const uint8_t *buf, size_t len)
{
	struct ctdb_pkt p;
	volatile uint8_t sink;

	if (!NT_STATUS_IS_OK(ctdb_pkt_parse(buf, len, &p))) {
		return;
	}
	if (len < CTDB_HDR_LEN || p.hdr.length != len ||
	    p.hdr.magic != CTDB_MAGIC || p.hdr.version != CTDB_PROTOCOL) {
		abort();
	}
	sink = touch(buf, len, p.data, p.datalen);
	sink ^= touch(buf, len, p.errmsg, p.errlen);
	(void)sink;
}

/* The input as a message: it must parse back to the same srvid and data. */
static void message(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	uint64_t srvid = 0;
	struct ctdb_pkt p;
	uint8_t *pk;
	size_t len;

	memcpy(&srvid, data, size < 8 ? size : 8);
	pk = ctdb_pkt_message(ctx, 1, CTDB_CURRENT_NODE, srvid, data, size,
			      &len);
	if (pk == NULL) {
		return;
	}
	if (len % 8 != 0 || len < CTDB_HDR_LEN + 12 + size ||
	    !NT_STATUS_IS_OK(ctdb_pkt_parse(pk, len, &p)) ||
	    p.hdr.operation != CTDB_REQ_MESSAGE || p.srvid != srvid ||
	    p.datalen != size ||
	    (size > 0 && memcmp(p.data, data, size) != 0)) {
		abort();
	}
	talloc_free(pk);
}

/* The input cut in a key and data, added twice to a record buffer. */
static void recbuf(TALLOC_CTX *ctx, const uint8_t *data, size_t size)
{
	struct ctdb_recbuf rb;
	struct ctdb_ltdb_hdr h = {0}, g;
	size_t keylen, datalen, off, i;

	/* an empty input has no key to point at */
	if (size == 0) {
		return;
	}
	keylen = data[0] % size;
	datalen = size - keylen;
	if (size >= CTDB_LTDB_HDR_LEN &&
	    !ctdb_ltdb_hdr_pull(data, size, &h)) {
		abort();
	}
	if (!ctdb_recbuf_init(ctx, &rb, size)) {
		return;
	}
	for (i = 0; i < 2; i++) {
		if (!ctdb_recbuf_add(&rb, data, keylen, &h, data + keylen,
				     datalen)) {
			return;
		}
	}
	if (rb.count != 2 || get32(rb.buf + 4) != 2 ||
	    rb.len != 8 + 2 * (16 + size + CTDB_LTDB_HDR_LEN) ||
	    talloc_get_size(rb.buf) != rb.len) {
		abort();
	}
	for (i = 0, off = 8; i < 2; i++) {
		const uint8_t *r = rb.buf + off;

		if (get32(r) != 16 + size + CTDB_LTDB_HDR_LEN ||
		    get32(r + 8) != keylen ||
		    get32(r + 12) != CTDB_LTDB_HDR_LEN + datalen ||
		    (keylen > 0 && memcmp(r + 16, data, keylen) != 0) ||
		    !ctdb_ltdb_hdr_pull(r + 16 + keylen, CTDB_LTDB_HDR_LEN,
					&g) ||
		    g.rsn != h.rsn || g.dmaster != h.dmaster ||
		    g.flags != h.flags ||
		    (datalen > 0 &&
		     memcmp(r + 16 + keylen + CTDB_LTDB_HDR_LEN, data + keylen,
			    datalen) != 0)) {
			abort();
		}
		off += get32(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx;
	uint8_t *buf;
	uint32_t len;

	if (size > 1024 * 1024) {
		return 0;
	}
	if (size >= 4 && NT_STATUS_IS_OK(ctdb_pkt_length(data, &len)) &&
	    (len < CTDB_HDR_LEN || len > CTDB_MAX_PACKET)) {
		abort();
	}
	parse(data, size);

	/* A copy of exactly size bytes, so reading one past it is caught. */
	if (size >= 12) {
		buf = malloc(size);
		if (buf == NULL) {
			return 0;
		}
		memcpy(buf, data, size);
		put32(buf, (uint32_t)size);
		put32(buf + 4, CTDB_MAGIC);
		put32(buf + 8, CTDB_PROTOCOL);
		parse(buf, size);
		free(buf);
	}

	ctx = talloc_new(NULL);
	if (ctx == NULL) {
		return 0;
	}
	message(ctx, data, size);
	recbuf(ctx, data, size);
	talloc_free(ctx);
	return 0;
}
