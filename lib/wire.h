/*
 * Checked wire cursor and growable output buffer.
 *
 * Every field read from the network goes through a struct wire_cur: a
 * bounded slice with a read offset.  A read past the end fails with
 * NT_STATUS_INVALID_PARAMETER and leaves the cursor unchanged, so handlers
 * never cast wire bytes onto structs (DESIGN.md "Rules").  Offset+length
 * checks are done in 64-bit arithmetic.
 *
 * struct wire_buf is the writing side: little-endian pushes into a talloc
 * buffer that grows, plus put_* helpers to patch fields (lengths, offsets)
 * once they are known.
 */
#ifndef LIB_WIRE_H
#define LIB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include "lib/ntstatus.h"

struct wire_cur {
	const uint8_t *data;
	size_t len;
	size_t off;
};

static inline void wire_cur_init(struct wire_cur *c, const void *data,
				 size_t len)
{
	c->data = data;
	c->len = len;
	c->off = 0;
}

static inline size_t wire_remaining(const struct wire_cur *c)
{
	return c->len - c->off;
}

static inline const uint8_t *wire_ptr(const struct wire_cur *c)
{
	return c->data + c->off;
}

/* Plain little-endian loads and stores on memory the caller has checked. */
static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}
static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}
static inline uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

NTSTATUS wire_pull_u8(struct wire_cur *c, uint8_t *v);
NTSTATUS wire_pull_le16(struct wire_cur *c, uint16_t *v);
NTSTATUS wire_pull_le32(struct wire_cur *c, uint32_t *v);
NTSTATUS wire_pull_le64(struct wire_cur *c, uint64_t *v);
NTSTATUS wire_pull_bytes(struct wire_cur *c, void *dst, size_t n);
/* Hand out a pointer to n bytes in place and advance. */
NTSTATUS wire_pull_ref(struct wire_cur *c, const uint8_t **p, size_t n);
NTSTATUS wire_skip(struct wire_cur *c, size_t n);
NTSTATUS wire_seek(struct wire_cur *c, size_t off);

/*
 * Cut [off, off+len) out of buf (of buf_len bytes) into a new cursor; the
 * sum is done in 64 bits so huge wire values cannot wrap.
 */
NTSTATUS wire_slice(const uint8_t *buf, size_t buf_len, uint64_t off,
		    uint64_t len, struct wire_cur *out);

/* True when [off, off+len) lies inside total. */
static inline bool wire_range_ok(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

struct wire_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed: all later pushes are no-ops */
};

/* The buffer's data is a talloc child of mem_ctx. */
void wire_buf_init(struct wire_buf *b, void *mem_ctx, size_t initial);
/* Reserve n bytes at the end and return them (zeroed), NULL on failure. */
uint8_t *wire_buf_reserve(struct wire_buf *b, size_t n);
void wire_push_u8(struct wire_buf *b, uint8_t v);
void wire_push_le16(struct wire_buf *b, uint16_t v);
void wire_push_le32(struct wire_buf *b, uint32_t v);
void wire_push_le64(struct wire_buf *b, uint64_t v);
void wire_push_bytes(struct wire_buf *b, const void *src, size_t n);
void wire_push_zero(struct wire_buf *b, size_t n);
/* Pad with zeros to a multiple of align (a power of two). */
void wire_push_align(struct wire_buf *b, size_t align);
/* The same, counting from offset base (e.g. an SMB2 header that follows
 * a 4-byte transport header). */
void wire_push_align_from(struct wire_buf *b, size_t base, size_t align);

#endif
