/*
 * Checked wire cursor: see wire.h for why every read goes through here.
 */
#include "lib/wire.h"
#include <talloc.h>

NTSTATUS wire_pull_u8(struct wire_cur *c, uint8_t *v)
{
	if (wire_remaining(c) < 1) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*v = c->data[c->off++];
	return NT_STATUS_OK;
}

NTSTATUS wire_pull_le16(struct wire_cur *c, uint16_t *v)
{
	if (wire_remaining(c) < 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*v = le16(c->data + c->off);
	c->off += 2;
	return NT_STATUS_OK;
}

NTSTATUS wire_pull_le32(struct wire_cur *c, uint32_t *v)
{
	if (wire_remaining(c) < 4) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*v = le32(c->data + c->off);
	c->off += 4;
	return NT_STATUS_OK;
}

NTSTATUS wire_pull_le64(struct wire_cur *c, uint64_t *v)
{
	if (wire_remaining(c) < 8) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*v = le64(c->data + c->off);
	c->off += 8;
	return NT_STATUS_OK;
}

NTSTATUS wire_pull_bytes(struct wire_cur *c, void *dst, size_t n)
{
	if (wire_remaining(c) < n) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (n > 0) {
		memcpy(dst, c->data + c->off, n);
	}
	c->off += n;
	return NT_STATUS_OK;
}

NTSTATUS wire_pull_ref(struct wire_cur *c, const uint8_t **p, size_t n)
{
	if (wire_remaining(c) < n) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*p = c->data + c->off;
	c->off += n;
	return NT_STATUS_OK;
}

NTSTATUS wire_skip(struct wire_cur *c, size_t n)
{
	if (wire_remaining(c) < n) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	c->off += n;
	return NT_STATUS_OK;
}

NTSTATUS wire_seek(struct wire_cur *c, size_t off)
{
	if (off > c->len) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	c->off = off;
	return NT_STATUS_OK;
}

NTSTATUS wire_slice(const uint8_t *buf, size_t buf_len, uint64_t off,
		    uint64_t len, struct wire_cur *out)
{
	if (!wire_range_ok(off, len, buf_len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_cur_init(out, buf + off, (size_t)len);
	return NT_STATUS_OK;
}

void wire_buf_init(struct wire_buf *b, void *mem_ctx, size_t initial)
{
	if (initial < 64) {
		initial = 64;
	}
	b->len = 0;
	b->failed = false;
	b->data = talloc_size(mem_ctx, initial);
	b->cap = b->data != NULL ? initial : 0;
	if (b->data == NULL) {
		b->failed = true;
	}
}

uint8_t *wire_buf_reserve(struct wire_buf *b, size_t n)
{
	uint8_t *p;

	if (b->failed) {
		return NULL;
	}
	if (n > SIZE_MAX / 2 - b->len) {
		b->failed = true;
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t ncap = b->cap * 2;
		uint8_t *nd;

		while (ncap < b->len + n) {
			ncap *= 2;
		}
		nd = talloc_realloc_size(NULL, b->data, ncap);
		if (nd == NULL) {
			b->failed = true;
			return NULL;
		}
		b->data = nd;
		b->cap = ncap;
	}
	p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

void wire_push_u8(struct wire_buf *b, uint8_t v)
{
	uint8_t *p = wire_buf_reserve(b, 1);
	if (p != NULL) {
		*p = v;
	}
}

void wire_push_le16(struct wire_buf *b, uint16_t v)
{
	uint8_t *p = wire_buf_reserve(b, 2);
	if (p != NULL) {
		put_le16(p, v);
	}
}

void wire_push_le32(struct wire_buf *b, uint32_t v)
{
	uint8_t *p = wire_buf_reserve(b, 4);
	if (p != NULL) {
		put_le32(p, v);
	}
}

void wire_push_le64(struct wire_buf *b, uint64_t v)
{
	uint8_t *p = wire_buf_reserve(b, 8);
	if (p != NULL) {
		put_le64(p, v);
	}
}

void wire_push_bytes(struct wire_buf *b, const void *src, size_t n)
{
	uint8_t *p = wire_buf_reserve(b, n);
	if (p != NULL && n > 0) {
		memcpy(p, src, n);
	}
}

void wire_push_zero(struct wire_buf *b, size_t n)
{
	(void)wire_buf_reserve(b, n);
}

void wire_push_align(struct wire_buf *b, size_t align)
{
	size_t pad = (align - (b->len & (align - 1))) & (align - 1);
	wire_push_zero(b, pad);
}

void wire_push_align_from(struct wire_buf *b, size_t base, size_t align)
{
	size_t rel = b->len - base;
	size_t pad = (align - (rel & (align - 1))) & (align - 1);
	wire_push_zero(b, pad);
}
