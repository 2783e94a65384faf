/*
 * ASN.1 DER reader/writer for SPNEGO: see asn1.h for the limits and why.
 *
 * X.690 is the reference: 8.1.2 identifier octets, 8.1.3 length octets,
 * 8.3/8.4 INTEGER and ENUMERATED, 8.6 BIT STRING, 8.19 OBJECT IDENTIFIER,
 * 10.1 (DER) definite lengths only.
 */
#include "smbd/auth/asn1.h"
#include <stdio.h>
#include <stdlib.h>

void asn1_cur_init(struct asn1_cur *c, const uint8_t *data, size_t len)
{
	c->data = data;
	c->len = len;
	c->off = 0;
	c->depth = 0;
}

bool asn1_peek_tag(const struct asn1_cur *c, uint8_t *tag)
{
	if (c->off >= c->len) {
		return false;
	}
	*tag = c->data[c->off];
	return true;
}

NTSTATUS asn1_read(struct asn1_cur *c, struct asn1_tlv *out)
{
	size_t off = c->off;
	size_t avail;
	uint64_t len;
	uint8_t id, l0;

	if (off >= c->len || c->len - off < 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	id = c->data[off++];
	if ((id & 0x1f) == 0x1f) {
		/* High tag number form (X.690 8.1.2.4): unused by SPNEGO. */
		return NT_STATUS_INVALID_PARAMETER;
	}
	l0 = c->data[off++];
	if (l0 < 0x80) {
		len = l0;
	} else if (l0 == 0x80) {
		/* Indefinite length: BER only, never DER (X.690 10.1). */
		return NT_STATUS_INVALID_PARAMETER;
	} else {
		unsigned n = l0 & 0x7f, i;

		if (n > 4 || c->len - off < n) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		len = 0;
		for (i = 0; i < n; i++) {
			len = (len << 8) | c->data[off++];
		}
	}
	avail = c->len - off;
	if (len > avail) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	out->tag = id;
	out->val = c->data + off;
	out->len = (size_t)len;
	out->raw = c->data + c->off;
	out->raw_len = off + (size_t)len - c->off;
	out->depth = c->depth;
	c->off = off + (size_t)len;
	return NT_STATUS_OK;
}

NTSTATUS asn1_read_tag(struct asn1_cur *c, uint8_t tag, struct asn1_tlv *out)
{
	uint8_t t;

	if (!asn1_peek_tag(c, &t) || t != tag) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return asn1_read(c, out);
}

NTSTATUS asn1_enter(const struct asn1_tlv *t, struct asn1_cur *inner)
{
	if ((t->tag & ASN1_CONSTRUCTED) == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (t->depth + 1 >= ASN1_MAX_DEPTH) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	asn1_cur_init(inner, t->val, t->len);
	inner->depth = t->depth + 1;
	return NT_STATUS_OK;
}

NTSTATUS asn1_enter_tag(struct asn1_cur *c, uint8_t tag, struct asn1_cur *in)
{
	struct asn1_tlv t;
	NTSTATUS status;

	status = asn1_read_tag(c, tag, &t);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return asn1_enter(&t, in);
}

NTSTATUS asn1_tlv_int(const struct asn1_tlv *t, int32_t *v)
{
	uint32_t u;
	size_t i;

	/* X.690 8.3.2: at least one octet; we hold at most 32 bits. */
	if (t->len < 1 || t->len > 4) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	u = (t->val[0] & 0x80) ? UINT32_MAX : 0;
	for (i = 0; i < t->len; i++) {
		u = (u << 8) | t->val[i];
	}
	*v = (int32_t)u;
	return NT_STATUS_OK;
}

NTSTATUS asn1_tlv_bits(const struct asn1_tlv *t, uint8_t *unused,
		       const uint8_t **bits, size_t *nbytes)
{
	/* X.690 8.6.2: initial octet is the count of unused bits, 0..7. */
	if (t->len < 1 || t->val[0] > 7 || (t->len == 1 && t->val[0] != 0)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*unused = t->val[0];
	*bits = t->val + 1;
	*nbytes = t->len - 1;
	return NT_STATUS_OK;
}

bool asn1_oid_equal(const struct asn1_tlv *t, const uint8_t *enc,
		    size_t enc_len)
{
	return t->tag == ASN1_OID && t->len == enc_len &&
	       memcmp(t->val, enc, enc_len) == 0;
}

NTSTATUS asn1_oid_to_str(TALLOC_CTX *mem_ctx, const struct asn1_tlv *t,
			 char **out)
{
	char *s;
	uint64_t arc = 0;
	size_t i;
	bool first = true;

	if (t->tag != ASN1_OID || t->len < 1 ||
	    (t->val[t->len - 1] & 0x80) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	s = talloc_strdup(mem_ctx, "");
	if (s == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < t->len; i++) {
		/* X.690 8.19.2: base-128 subidentifiers, 0x80 continues. */
		if (arc > (UINT64_MAX >> 8)) {
			talloc_free(s);
			return NT_STATUS_INVALID_PARAMETER;
		}
		arc = (arc << 7) | (t->val[i] & 0x7f);
		if (t->val[i] & 0x80) {
			continue;
		}
		if (first) {
			/* 8.19.4: the first subidentifier packs two arcs. */
			unsigned a = arc < 40 ? 0 : (arc < 80 ? 1 : 2);
			unsigned long long rest = arc - a * 40;

			s = talloc_asprintf_append(s, "%u.%llu", a, rest);
			first = false;
		} else {
			s = talloc_asprintf_append(s, ".%llu",
						   (unsigned long long)arc);
		}
		if (s == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		arc = 0;
	}
	*out = s;
	return NT_STATUS_OK;
}

static void oid_push_arc(struct wire_buf *b, uint64_t arc)
{
	uint8_t tmp[10];
	int n = 0;

	do {
		tmp[n++] = (uint8_t)(arc & 0x7f);
		arc >>= 7;
	} while (arc != 0 && n < (int)sizeof(tmp));
	while (n > 0) {
		n--;
		wire_push_u8(b, (uint8_t)(tmp[n] | (n > 0 ? 0x80 : 0)));
	}
}

NTSTATUS asn1_oid_from_str(TALLOC_CTX *mem_ctx, const char *s, uint8_t **enc,
			   size_t *enc_len)
{
	struct wire_buf b;
	uint64_t arcs[2] = {0, 0};
	unsigned idx = 0;
	const char *p = s;

	wire_buf_init(&b, mem_ctx, 16);
	while (*p != '\0') {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9') {
			goto bad;
		}
		v = strtoull(p, &end, 10);
		if (*end != '.' && *end != '\0') {
			goto bad;
		}
		if (idx < 2) {
			arcs[idx] = v;
			if (idx == 1) {
				if (arcs[0] > 2 ||
				    (arcs[0] < 2 && arcs[1] >= 40) ||
				    arcs[1] > UINT32_MAX) {
					goto bad;
				}
				oid_push_arc(&b, arcs[0] * 40 + arcs[1]);
			}
		} else {
			oid_push_arc(&b, v);
		}
		idx++;
		p = (*end == '.') ? end + 1 : end;
		if (*end == '.' && *p == '\0') {
			goto bad;
		}
	}
	if (idx < 2) {
		goto bad;
	}
	if (b.failed) {
		talloc_free(b.data);
		return NT_STATUS_NO_MEMORY;
	}
	*enc = b.data;
	*enc_len = b.len;
	return NT_STATUS_OK;
bad:
	talloc_free(b.data);
	return NT_STATUS_INVALID_PARAMETER;
}

void asn1_writer_init(struct asn1_writer *w, TALLOC_CTX *mem_ctx)
{
	wire_buf_init(&w->b, mem_ctx, 128);
	w->depth = 0;
	w->failed = w->b.failed;
}

static void asn1_push_len(struct asn1_writer *w, size_t len)
{
	if (len < 0x80) {
		wire_push_u8(&w->b, (uint8_t)len);
	} else if (len <= 0xff) {
		wire_push_u8(&w->b, 0x81);
		wire_push_u8(&w->b, (uint8_t)len);
	} else if (len <= 0xffff) {
		wire_push_u8(&w->b, 0x82);
		wire_push_u8(&w->b, (uint8_t)(len >> 8));
		wire_push_u8(&w->b, (uint8_t)len);
	} else if (len <= 0xffffff) {
		wire_push_u8(&w->b, 0x83);
		wire_push_u8(&w->b, (uint8_t)(len >> 16));
		wire_push_u8(&w->b, (uint8_t)(len >> 8));
		wire_push_u8(&w->b, (uint8_t)len);
	} else {
		w->failed = true;
	}
}

void asn1_push_start(struct asn1_writer *w, uint8_t tag)
{
	if (w->failed || w->depth >= ASN1_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	wire_push_u8(&w->b, tag);
	wire_push_u8(&w->b, 0); /* short-form placeholder, see push_end */
	w->stack[w->depth++] = w->b.len;
}

void asn1_push_end(struct asn1_writer *w)
{
	size_t start, len, extra;
	uint8_t hdr[5];
	uint8_t *p;
	unsigned i;

	if (w->failed || w->depth == 0 || w->b.failed) {
		w->failed = true;
		return;
	}
	start = w->stack[--w->depth];
	len = w->b.len - start;
	if (len < 0x80) {
		w->b.data[start - 1] = (uint8_t)len;
		return;
	}
	/* Long form (X.690 8.1.3.5): make room after the placeholder. */
	extra = len <= 0xff ? 1 : (len <= 0xffff ? 2 : (len <= 0xffffff ? 3
									 : 4));
	hdr[0] = (uint8_t)(0x80 | extra);
	for (i = 0; i < extra; i++) {
		hdr[extra - i] = (uint8_t)(len >> (8 * i));
	}
	p = wire_buf_reserve(&w->b, extra);
	if (p == NULL) {
		w->failed = true;
		return;
	}
	memmove(w->b.data + start + extra, w->b.data + start, len);
	memcpy(w->b.data + start - 1, hdr, extra + 1);
}

void asn1_push_prim(struct asn1_writer *w, uint8_t tag, const void *val,
		    size_t len)
{
	if (w->failed) {
		return;
	}
	wire_push_u8(&w->b, tag);
	asn1_push_len(w, len);
	wire_push_bytes(&w->b, val, len);
}

void asn1_push_raw(struct asn1_writer *w, const void *raw, size_t len)
{
	if (w->failed) {
		return;
	}
	wire_push_bytes(&w->b, raw, len);
}

void asn1_push_enumerated(struct asn1_writer *w, int32_t v)
{
	uint8_t tmp[4];
	size_t n = 4, skip = 0;

	put_be32(tmp, (uint32_t)v);
	/* X.690 8.3.2: drop redundant leading 0x00/0xff octets. */
	while (skip < n - 1 &&
	       ((tmp[skip] == 0x00 && (tmp[skip + 1] & 0x80) == 0) ||
		(tmp[skip] == 0xff && (tmp[skip + 1] & 0x80) != 0))) {
		skip++;
	}
	asn1_push_prim(w, ASN1_ENUMERATED, tmp + skip, n - skip);
}

NTSTATUS asn1_writer_finish(struct asn1_writer *w, uint8_t **out,
			    size_t *out_len)
{
	if (w->failed || w->b.failed) {
		TALLOC_FREE(w->b.data);
		return NT_STATUS_NO_MEMORY;
	}
	if (w->depth != 0) {
		TALLOC_FREE(w->b.data);
		return NT_STATUS_INTERNAL_ERROR;
	}
	*out = w->b.data;
	*out_len = w->b.len;
	return NT_STATUS_OK;
}
