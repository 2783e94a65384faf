/*
 * NDR20 primitives with bounds checks (see ndr.h).
 *
 * Alignment is counted from the start of the stub data, which is where
 * C706 14.2.2 puts the origin of the octet stream for a call's
 * parameters.  UTF-16 <-> UTF-8 goes through lib/charset.h.
 */
#include "smbd/rpc/ndr.h"

#include <string.h>

#include "lib/charset.h"

void ndr_pull_init(struct ndr_pull *n, const uint8_t *data, size_t len)
{
	n->data = data;
	n->len = len;
	n->off = 0;
}

NTSTATUS ndr_pull_align(struct ndr_pull *n, size_t align)
{
	size_t pad = (align - (n->off & (align - 1))) & (align - 1);

	if (pad > n->len - n->off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	n->off += pad;
	return NT_STATUS_OK;
}

static NTSTATUS ndr_take(struct ndr_pull *n, size_t size, const uint8_t **p)
{
	NTSTATUS status = ndr_pull_align(n, size);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (size > n->len - n->off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*p = n->data + n->off;
	n->off += size;
	return NT_STATUS_OK;
}

NTSTATUS ndr_pull_u8(struct ndr_pull *n, uint8_t *v)
{
	const uint8_t *p;
	NTSTATUS status = ndr_take(n, 1, &p);

	if (NT_STATUS_IS_OK(status)) {
		*v = p[0];
	}
	return status;
}

NTSTATUS ndr_pull_u16(struct ndr_pull *n, uint16_t *v)
{
	const uint8_t *p;
	NTSTATUS status = ndr_take(n, 2, &p);

	if (NT_STATUS_IS_OK(status)) {
		*v = le16(p);
	}
	return status;
}

NTSTATUS ndr_pull_u32(struct ndr_pull *n, uint32_t *v)
{
	const uint8_t *p;
	NTSTATUS status = ndr_take(n, 4, &p);

	if (NT_STATUS_IS_OK(status)) {
		*v = le32(p);
	}
	return status;
}

NTSTATUS ndr_pull_hyper(struct ndr_pull *n, uint64_t *v)
{
	const uint8_t *p;
	NTSTATUS status = ndr_take(n, 8, &p);

	if (NT_STATUS_IS_OK(status)) {
		*v = le64(p);
	}
	return status;
}

NTSTATUS ndr_pull_bytes(struct ndr_pull *n, uint8_t *dst, size_t len)
{
	if (len > n->len - n->off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	memcpy(dst, n->data + n->off, len);
	n->off += len;
	return NT_STATUS_OK;
}

NTSTATUS ndr_pull_ptr(struct ndr_pull *n, uint32_t *ref)
{
	return ndr_pull_u32(n, ref);
}

NTSTATUS ndr_check_count(const struct ndr_pull *n, uint32_t count,
			 size_t elem_size)
{
	uint64_t need = (uint64_t)count * elem_size;

	if (need > n->len - n->off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* actual UTF-16 units at the cursor, trailing NULs dropped. */
static NTSTATUS ndr_pull_units(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
			       uint32_t units, char **out)
{
	const uint8_t *p = n->data + n->off;
	size_t bytes;

	if (units > NDR_MAX_STRING) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	bytes = (size_t)units * 2;
	if (bytes > n->len - n->off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	n->off += bytes;
	while (bytes >= 2 && p[bytes - 2] == 0 && p[bytes - 1] == 0) {
		bytes -= 2;
	}
	if (bytes == 0) {
		*out = talloc_strdup(mem_ctx, "");
		return *out == NULL ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
	}
	return charset_utf16_to_utf8(mem_ctx, p, bytes, out);
}

NTSTATUS ndr_pull_wstring(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
			  char **out)
{
	uint32_t max_count, offset, actual;
	NTSTATUS status;

	status = ndr_pull_u32(n, &max_count);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(n, &offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(n, &actual);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* C706 14.3.3.4: offset + actual must lie within max_count. */
	if (offset != 0 || actual > max_count) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return ndr_pull_units(n, mem_ctx, actual, out);
}

NTSTATUS ndr_pull_unique_wstring(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
				 char **out)
{
	uint32_t ref;
	NTSTATUS status = ndr_pull_ptr(n, &ref);

	*out = NULL;
	if (!NT_STATUS_IS_OK(status) || ref == 0) {
		return status;
	}
	return ndr_pull_wstring(n, mem_ctx, out);
}

NTSTATUS ndr_pull_unicode_buffer(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
				 uint16_t length, uint16_t max_length,
				 char **out)
{
	uint32_t max_count, offset, actual;
	NTSTATUS status;

	status = ndr_pull_u32(n, &max_count);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(n, &offset);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(n, &actual);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-DTYP 2.3.10: size_is(MaximumLength/2), length_is(Length/2) */
	if (offset != 0 || actual > max_count || (length & 1) ||
	    length > max_length || actual != length / 2u) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return ndr_pull_units(n, mem_ctx, actual, out);
}

void ndr_push_init(struct ndr_push *n, TALLOC_CTX *mem_ctx)
{
	wire_buf_init(&n->b, mem_ctx, 256);
	n->next_ref = 0x00020000;
}

void ndr_push_align(struct ndr_push *n, size_t align)
{
	wire_push_align(&n->b, align);
}

void ndr_push_u8(struct ndr_push *n, uint8_t v)
{
	wire_push_u8(&n->b, v);
}

void ndr_push_u16(struct ndr_push *n, uint16_t v)
{
	ndr_push_align(n, 2);
	wire_push_le16(&n->b, v);
}

void ndr_push_u32(struct ndr_push *n, uint32_t v)
{
	ndr_push_align(n, 4);
	wire_push_le32(&n->b, v);
}

void ndr_push_hyper(struct ndr_push *n, uint64_t v)
{
	ndr_push_align(n, 8);
	wire_push_le64(&n->b, v);
}

void ndr_push_bytes(struct ndr_push *n, const void *p, size_t len)
{
	wire_push_bytes(&n->b, p, len);
}

void ndr_push_ptr(struct ndr_push *n, bool present)
{
	if (!present) {
		ndr_push_u32(n, 0);
		return;
	}
	ndr_push_u32(n, n->next_ref);
	n->next_ref += 4;
}

/* UTF-16 of s on a temporary context; sets failed on error. */
static uint8_t *ndr_utf16(struct ndr_push *n, TALLOC_CTX *tmp, const char *s,
			  size_t *len)
{
	uint8_t *u = NULL;

	*len = 0;
	if (s[0] == '\0') {
		return (uint8_t *)"";
	}
	if (!NT_STATUS_IS_OK(charset_utf8_to_utf16(tmp, s, &u, len))) {
		n->b.failed = true;
		return NULL;
	}
	return u;
}

void ndr_push_wstring(struct ndr_push *n, const char *s)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	size_t len;
	uint8_t *u = ndr_utf16(n, tmp, s, &len);
	uint32_t units = (uint32_t)(len / 2) + 1;

	ndr_push_u32(n, units);
	ndr_push_u32(n, 0);
	ndr_push_u32(n, units);
	if (u != NULL) {
		ndr_push_bytes(n, u, len);
	}
	wire_push_le16(&n->b, 0);
	talloc_free(tmp);
}

void ndr_push_unique_wstring(struct ndr_push *n, const char *s)
{
	ndr_push_ptr(n, s != NULL);
	if (s != NULL) {
		ndr_push_wstring(n, s);
	}
}

static size_t ndr_utf16_len(struct ndr_push *n, const char *s)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	size_t len;

	(void)ndr_utf16(n, tmp, s, &len);
	talloc_free(tmp);
	return len;
}

void ndr_push_unicode_fixed(struct ndr_push *n, const char *s)
{
	size_t len = s == NULL ? 0 : ndr_utf16_len(n, s);

	if (len > 0xfffe) {
		n->b.failed = true;
		len = 0;
	}
	/* the structure aligns to its pointer (C706 14.3.2) */
	ndr_push_align(n, 4);
	ndr_push_u16(n, (uint16_t)len);
	ndr_push_u16(n, (uint16_t)len);
	ndr_push_ptr(n, s != NULL);
}

void ndr_push_unicode_buffer(struct ndr_push *n, const char *s)
{
	TALLOC_CTX *tmp;
	uint8_t *u;
	size_t len;

	if (s == NULL) {
		return;
	}
	tmp = talloc_new(NULL);
	u = ndr_utf16(n, tmp, s, &len);
	ndr_push_u32(n, (uint32_t)(len / 2));
	ndr_push_u32(n, 0);
	ndr_push_u32(n, (uint32_t)(len / 2));
	if (u != NULL) {
		ndr_push_bytes(n, u, len);
	}
	talloc_free(tmp);
}

bool ndr_push_ok(const struct ndr_push *n)
{
	return !n->b.failed;
}
