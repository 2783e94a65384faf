/*
 * CREATE context chains (MS-SMB2 2.2.13.2).  Each context: Next (4),
 * NameOffset (2), NameLength (2), Reserved (2), DataOffset (2),
 * DataLength (4); offsets from the context's start; Next 8-aligned, 0 for
 * the last.
 */
#include "smbd/wire/create_ctx.h"
#include "lib/charset.h"

#include <string.h>

const struct create_ctx *create_ctx_find(const struct create_ctx_list *l,
					 const char *tag)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->ctx[i].tag, tag) == 0) {
			return &l->ctx[i];
		}
	}
	return NULL;
}

NTSTATUS create_ctx_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			  struct create_ctx_list *out)
{
	size_t off = 0;

	out->ctx = NULL;
	out->n = 0;
	while (len > 0) {
		struct wire_cur c;
		uint32_t next, dlen;
		uint16_t noff, nlen, doff;
		struct create_ctx *x;
		size_t clen;

		if (out->n >= 64 ||
		    !NT_STATUS_IS_OK(wire_slice(buf, len, off, 16, &c))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		(void)wire_pull_le32(&c, &next);
		(void)wire_pull_le16(&c, &noff);
		(void)wire_pull_le16(&c, &nlen);
		(void)wire_skip(&c, 2);
		(void)wire_pull_le16(&c, &doff);
		(void)wire_pull_le32(&c, &dlen);
		if (next != 0 && ((next & 7) != 0 || next < 16 ||
				  !wire_range_ok(off, next, len))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		clen = next != 0 ? next : len - off;
		/* Names shorter than 4 bytes are invalid; longer ones are
		 * legal and simply unknown (2.2.13.2). */
		if (nlen < 4 || !wire_range_ok(noff, nlen, clen) ||
		    noff < 16 ||
		    (dlen > 0 && (doff < 16 || (doff & 7) != 0 ||
				  !wire_range_ok(doff, dlen, clen)))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		out->ctx = talloc_realloc(mem_ctx, out->ctx, struct create_ctx,
					  out->n + 1);
		if (out->ctx == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		x = &out->ctx[out->n];
		memset(x, 0, sizeof(*x));
		x->name = buf + off + noff;
		x->name_len = nlen;
		memcpy(x->tag, x->name, nlen < 16 ? nlen : 16);
		x->tag[nlen < 16 ? nlen : 16] = '\0';
		x->data = dlen ? buf + off + doff : NULL;
		x->data_len = dlen;
		if (nlen <= 16 && create_ctx_find(out, x->tag) != NULL) {
			return NT_STATUS_INVALID_PARAMETER; /* given twice */
		}
		out->n++;
		if (next == 0) {
			break;
		}
		off += next;
	}
	return NT_STATUS_OK;
}

void create_ctx_push(struct wire_buf *out, size_t base, size_t *prev,
		     const char *tag, const void *data, size_t data_len)
{
	size_t start, nlen = strlen(tag);

	wire_push_align_from(out, base, 8);
	start = out->len;
	if (*prev != (size_t)-1 && !out->failed) {
		put_le32(out->data + *prev, (uint32_t)(start - *prev));
	}
	wire_push_le32(out, 0);		/* Next */
	wire_push_le16(out, 16);	/* NameOffset */
	wire_push_le16(out, (uint16_t)nlen);
	wire_push_le16(out, 0);
	wire_push_le16(out, data_len ? 24 : 0); /* DataOffset */
	wire_push_le32(out, (uint32_t)data_len);
	wire_push_bytes(out, tag, nlen);
	wire_push_zero(out, 24 - 16 - nlen);	/* names here are 4 bytes */
	wire_push_bytes(out, data, data_len);
	*prev = start;
}

#define SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET 0x04
#define SMB2_LEASE_STATE_MASK 0x07

NTSTATUS create_ctx_lease_parse(const struct create_ctx *c, bool v2_ok,
				struct create_lease *out)
{
	struct wire_cur cur;
	uint64_t duration;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&cur, c->data, c->data_len);
	if (!NT_STATUS_IS_OK(wire_pull_bytes(&cur, out->key, 16)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&cur, &out->state)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&cur, &out->flags)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&cur, &duration))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->state &= SMB2_LEASE_STATE_MASK;
	out->version = 1;
	if (v2_ok && c->data_len >= 52) {
		out->version = 2;
		(void)wire_pull_bytes(&cur, out->parent_key, 16);
		(void)wire_pull_le16(&cur, &out->epoch);
		out->has_parent =
			(out->flags & SMB2_LEASE_FLAG_PARENT_LEASE_KEY_SET) != 0;
		if (!out->has_parent) {
			memset(out->parent_key, 0, 16);
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS create_ctx_twrp_parse(const struct create_ctx *c, uint64_t *ft)
{
	struct wire_cur cur;

	*ft = 0;
	if (c->data_len != 8) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_cur_init(&cur, c->data, c->data_len);
	return wire_pull_le64(&cur, ft);
}

NTSTATUS create_ctx_durable_parse(const struct create_ctx *c,
				  struct create_durable *out)
{
	struct wire_cur cur;
	NTSTATUS st = NT_STATUS_OK;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&cur, c->data, c->data_len);
	if (strcmp(c->tag, "DHnQ") == 0) {
		/* 2.2.13.2.3: DurableRequest, 16 reserved bytes. */
		st = wire_skip(&cur, 16);
	} else if (strcmp(c->tag, "DHnC") == 0) {
		/* 2.2.13.2.4: Data is the SMB2_FILEID to reclaim. */
		out->reconnect = true;
		st = wire_pull_le64(&cur, &out->fid_persistent);
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le64(&cur, &out->fid_volatile);
		}
	} else if (strcmp(c->tag, "DH2Q") == 0) {
		/* 2.2.13.2.11 */
		out->v2 = true;
		st = wire_pull_le32(&cur, &out->timeout_ms);
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le32(&cur, &out->flags);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_skip(&cur, 8);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_bytes(&cur, out->create_guid, 16);
		}
	} else if (strcmp(c->tag, "DH2C") == 0) {
		/* 2.2.13.2.12 */
		out->v2 = true;
		out->reconnect = true;
		st = wire_pull_le64(&cur, &out->fid_persistent);
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le64(&cur, &out->fid_volatile);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_bytes(&cur, out->create_guid, 16);
		}
		if (NT_STATUS_IS_OK(st)) {
			st = wire_pull_le32(&cur, &out->flags);
		}
	} else {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_IS_OK(st) ? NT_STATUS_OK
				   : NT_STATUS_INVALID_PARAMETER;
}

NTSTATUS create_ctx_aapl_parse(const struct create_ctx *c,
			       struct create_aapl *out)
{
	struct wire_cur cur;
	uint32_t reserved;
	NTSTATUS st;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&cur, c->data, c->data_len);
	if (!NT_STATUS_IS_OK(st = wire_pull_le32(&cur, &out->command)) ||
	    !NT_STATUS_IS_OK(st = wire_pull_le32(&cur, &reserved))) {
		return st;
	}
	if (out->command != SMB2_AAPL_SERVER_QUERY) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(st = wire_pull_le64(&cur,
						 &out->request_bitmap)) ||
	    !NT_STATUS_IS_OK(st = wire_pull_le64(&cur, &out->client_caps))) {
		return st;
	}
	return NT_STATUS_OK;
}

uint8_t *create_ctx_aapl_reply(TALLOC_CTX *mem_ctx,
			       const struct create_aapl *q,
			       uint64_t server_caps, uint64_t volume_caps,
			       const char *model, size_t *len)
{
	uint64_t bits = q->request_bitmap &
			(SMB2_AAPL_SERVER_CAPS | SMB2_AAPL_VOLUME_CAPS |
			 SMB2_AAPL_MODEL_INFO);
	uint8_t *m = NULL, *r;
	size_t mlen = 0, n = 16;

	if ((bits & SMB2_AAPL_MODEL_INFO) &&
	    !NT_STATUS_IS_OK(charset_utf8_to_utf16(mem_ctx, model, &m,
						    &mlen))) {
		return NULL;
	}
	n += (bits & SMB2_AAPL_SERVER_CAPS) ? 8 : 0;
	n += (bits & SMB2_AAPL_VOLUME_CAPS) ? 8 : 0;
	n += (bits & SMB2_AAPL_MODEL_INFO) ? 8 + mlen : 0;
	r = talloc_zero_size(mem_ctx, n);
	if (r == NULL) {
		talloc_free(m);
		return NULL;
	}
	put_le32(r, SMB2_AAPL_SERVER_QUERY);
	put_le64(r + 8, bits);
	*len = 16;
	if (bits & SMB2_AAPL_SERVER_CAPS) {
		put_le64(r + *len, server_caps);
		*len += 8;
	}
	if (bits & SMB2_AAPL_VOLUME_CAPS) {
		put_le64(r + *len, volume_caps);
		*len += 8;
	}
	if (bits & SMB2_AAPL_MODEL_INFO) {
		put_le32(r + *len + 4, (uint32_t)mlen);
		memcpy(r + *len + 8, m, mlen);
		*len += 8 + mlen;
	}
	talloc_free(m);
	return r;
}
