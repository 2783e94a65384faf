/*
 * The ctdbd client protocol codec (see ctdb_proto.h for the layouts).
 * Every parse goes through the checked cursor's bounds, in host order.
 */
#include "locking/ctdb/ctdb_proto.h"

#include <string.h>

#define BAD NT_STATUS_INVALID_NETWORK_RESPONSE
#define CTDB_ALIGN 8

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

NTSTATUS ctdb_pkt_length(const uint8_t first4[4], uint32_t *len)
{
	uint32_t l = get32(first4);

	if (l < CTDB_HDR_LEN || l > CTDB_MAX_PACKET) {
		return BAD;
	}
	*len = l;
	return NT_STATUS_OK;
}

/* A length-prefixed part at off: [off, off+n) must lie in the packet. */
static bool part_ok(size_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

static NTSTATUS parse_reply_call(const uint8_t *buf, size_t len,
				 struct ctdb_pkt *p)
{
	if (len < CTDB_HDR_LEN + 8) {
		return BAD;
	}
	p->status = (int32_t)get32(buf + 32);
	p->datalen = get32(buf + 36);
	if (!part_ok(40, p->datalen, len)) {
		return BAD;
	}
	p->data = buf + 40;
	if (p->hdr.operation == CTDB_REPLY_ERROR) {
		/* REPLY_ERROR has the same shape: status, msglen, msg. */
		p->errmsg = p->data;
		p->errlen = p->datalen;
		p->data = NULL;
		p->datalen = 0;
	}
	return NT_STATUS_OK;
}

static NTSTATUS parse_message(const uint8_t *buf, size_t len,
			      struct ctdb_pkt *p)
{
	if (len < CTDB_HDR_LEN + 12) {
		return BAD;
	}
	p->srvid = get64(buf + 32);
	p->datalen = get32(buf + 40);
	if (!part_ok(44, p->datalen, len)) {
		return BAD;
	}
	p->data = buf + 44;
	return NT_STATUS_OK;
}

static NTSTATUS parse_reply_control(const uint8_t *buf, size_t len,
				    struct ctdb_pkt *p)
{
	if (len < CTDB_HDR_LEN + 12) {
		return BAD;
	}
	p->status = (int32_t)get32(buf + 32);
	p->datalen = get32(buf + 36);
	p->errlen = get32(buf + 40);
	if (!part_ok(44, (uint64_t)p->datalen + p->errlen, len)) {
		return BAD;
	}
	p->data = buf + 44;
	p->errmsg = p->errlen > 0 ? buf + 44 + p->datalen : NULL;
	return NT_STATUS_OK;
}

NTSTATUS ctdb_pkt_parse(const uint8_t *buf, size_t len, struct ctdb_pkt *p)
{
	memset(p, 0, sizeof(*p));
	if (len < CTDB_HDR_LEN) {
		return BAD;
	}
	p->hdr.length = get32(buf);
	p->hdr.magic = get32(buf + 4);
	p->hdr.version = get32(buf + 8);
	p->hdr.generation = get32(buf + 12);
	p->hdr.operation = get32(buf + 16);
	p->hdr.destnode = get32(buf + 20);
	p->hdr.srcnode = get32(buf + 24);
	p->hdr.reqid = get32(buf + 28);
	if (p->hdr.length != len || p->hdr.magic != CTDB_MAGIC ||
	    p->hdr.version != CTDB_PROTOCOL) {
		return BAD;
	}
	switch (p->hdr.operation) {
	case CTDB_REPLY_CALL:
	case CTDB_REPLY_ERROR:
		return parse_reply_call(buf, len, p);
	case CTDB_REQ_MESSAGE:
		return parse_message(buf, len, p);
	case CTDB_REPLY_CONTROL:
		return parse_reply_control(buf, len, p);
	default:
		return NT_STATUS_OK;
	}
}

/* A zeroed packet of fixed + var bytes, padded, with its header. */
static uint8_t *pkt_new(TALLOC_CTX *mem_ctx, uint32_t op, uint32_t reqid,
			uint32_t destnode, size_t fixed, size_t var,
			size_t *len)
{
	size_t n = CTDB_HDR_LEN + fixed + var;
	uint8_t *p;

	/* What ctdb_pkt_length() would accept from the other side. */
	if (var > CTDB_MAX_PACKET) {
		return NULL;
	}
	n = (n + CTDB_ALIGN - 1) & ~(size_t)(CTDB_ALIGN - 1);
	if (n > CTDB_MAX_PACKET) {
		return NULL;
	}
	p = talloc_zero_array(mem_ctx, uint8_t, n);
	if (p == NULL) {
		return NULL;
	}
	put32(p, (uint32_t)n);
	put32(p + 4, CTDB_MAGIC);
	put32(p + 8, CTDB_PROTOCOL);
	put32(p + 12, 0);	/* generation: ctdbd fills it in */
	put32(p + 16, op);
	put32(p + 20, destnode);
	put32(p + 24, 0);	/* srcnode: likewise */
	put32(p + 28, reqid);
	*len = n;
	return p;
}

uint8_t *ctdb_pkt_call(TALLOC_CTX *mem_ctx, uint32_t reqid, uint32_t db_id,
		       uint32_t flags, uint32_t callid, const uint8_t *key,
		       size_t keylen, size_t *len)
{
	uint8_t *p = pkt_new(mem_ctx, CTDB_REQ_CALL, reqid, CTDB_CURRENT_NODE,
			     24, keylen, len);

	if (p == NULL) {
		return NULL;
	}
	put32(p + 32, flags);
	put32(p + 36, db_id);
	put32(p + 40, callid);
	put32(p + 44, 0);	/* hopcount */
	put32(p + 48, (uint32_t)keylen);
	put32(p + 52, 0);	/* no call data */
	/* An empty key may come as NULL, and memcpy from NULL is undefined
	 * even for 0 bytes. */
	if (keylen > 0) {
		memcpy(p + 56, key, keylen);
	}
	return p;
}

uint8_t *ctdb_pkt_control(TALLOC_CTX *mem_ctx, uint32_t reqid,
			  uint32_t destnode, uint32_t opcode, uint64_t srvid,
			  uint32_t flags, const void *data, size_t datalen,
			  size_t *len)
{
	uint8_t *p = pkt_new(mem_ctx, CTDB_REQ_CONTROL, reqid, destnode, 28,
			     datalen, len);

	if (p == NULL) {
		return NULL;
	}
	put32(p + 32, opcode);
	put32(p + 36, 0);	/* pad */
	put64(p + 40, srvid);
	put32(p + 48, 0);	/* client_id */
	put32(p + 52, flags);
	put32(p + 56, (uint32_t)datalen);
	if (datalen > 0) {
		memcpy(p + 60, data, datalen);
	}
	return p;
}

uint8_t *ctdb_pkt_message(TALLOC_CTX *mem_ctx, uint32_t reqid,
			  uint32_t destnode, uint64_t srvid, const void *data,
			  size_t datalen, size_t *len)
{
	uint8_t *p = pkt_new(mem_ctx, CTDB_REQ_MESSAGE, reqid, destnode, 12,
			     datalen, len);

	if (p == NULL) {
		return NULL;
	}
	put64(p + 32, srvid);
	put32(p + 40, (uint32_t)datalen);
	if (datalen > 0) {
		memcpy(p + 44, data, datalen);
	}
	return p;
}

bool ctdb_ltdb_hdr_pull(const uint8_t *buf, size_t len,
			struct ctdb_ltdb_hdr *h)
{
	if (buf == NULL || len < CTDB_LTDB_HDR_LEN) {
		return false;
	}
	h->rsn = get64(buf);
	h->dmaster = get32(buf + 8);
	/* buf + 12: reserved1 */
	h->flags = get32(buf + 16);
	return true;
}

void ctdb_ltdb_hdr_push(uint8_t out[CTDB_LTDB_HDR_LEN],
			const struct ctdb_ltdb_hdr *h)
{
	memset(out, 0, CTDB_LTDB_HDR_LEN);
	put64(out, h->rsn);
	put32(out + 8, h->dmaster);
	put32(out + 16, h->flags);
}

bool ctdb_recbuf_init(TALLOC_CTX *mem_ctx, struct ctdb_recbuf *rb,
		      uint32_t db_id)
{
	rb->buf = talloc_zero_array(mem_ctx, uint8_t, 8);
	if (rb->buf == NULL) {
		return false;
	}
	put32(rb->buf, db_id);
	rb->len = 8;
	rb->count = 0;
	return true;
}

bool ctdb_recbuf_add(struct ctdb_recbuf *rb, const uint8_t *key,
		     size_t keylen, const struct ctdb_ltdb_hdr *h,
		     const uint8_t *data, size_t datalen)
{
	uint64_t n;
	uint8_t *p;

	/* Each length alone first: near SIZE_MAX the 64-bit sum would wrap
	 * to something small and pass the check below. */
	if (keylen > CTDB_MAX_PACKET || datalen > CTDB_MAX_PACKET) {
		return false;
	}
	n = 16 + (uint64_t)keylen + CTDB_LTDB_HDR_LEN + datalen;
	if (n > CTDB_MAX_PACKET || rb->len + n > CTDB_MAX_PACKET) {
		return false;
	}
	p = talloc_realloc(talloc_parent(rb->buf), rb->buf, uint8_t,
			   rb->len + n);
	if (p == NULL) {
		return false;
	}
	rb->buf = p;
	p += rb->len;
	put32(p, (uint32_t)n);
	put32(p + 4, 0);	/* reqid */
	put32(p + 8, (uint32_t)keylen);
	put32(p + 12, (uint32_t)(CTDB_LTDB_HDR_LEN + datalen));
	if (keylen > 0) {
		memcpy(p + 16, key, keylen);
	}
	ctdb_ltdb_hdr_push(p + 16 + keylen, h);
	if (datalen > 0) {
		memcpy(p + 16 + keylen + CTDB_LTDB_HDR_LEN, data, datalen);
	}
	rb->len += n;
	rb->count++;
	put32(rb->buf + 4, rb->count);
	return true;
}
