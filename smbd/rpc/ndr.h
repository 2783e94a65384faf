/*
 * NDR20 marshalling (C706 chapter 14, MS-RPCE 2.2.5), little-endian only.
 *
 * struct ndr_pull reads a request's stub data through bounds checks: every
 * primitive is aligned to its own size relative to the stub start (C706
 * 14.2.2), every read past the end fails with NT_STATUS_INVALID_PARAMETER
 * (the PDU layer turns that into an nca_s_fault_ndr fault), and every
 * count the peer sends is checked against the bytes that remain before
 * anything is allocated, so a huge max_count cannot make us allocate.
 *
 * struct ndr_push writes a response's stub data into a wire_buf; pointer
 * referent ids are handed out in increasing order (any non-zero value is
 * valid, C706 14.3.10).
 *
 * Deferred pointees (C706 14.3.12.3) are the caller's business: a service
 * pushes a structure's fixed part, then the pointees in order.
 */
#ifndef SMBD_RPC_NDR_H
#define SMBD_RPC_NDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "lib/wire.h"

/* Longest string (in UTF-16 units) we accept from a client. */
#define NDR_MAX_STRING 4096

struct ndr_pull {
	const uint8_t *data;
	size_t len;
	size_t off;
};

void ndr_pull_init(struct ndr_pull *n, const uint8_t *data, size_t len);
NTSTATUS ndr_pull_align(struct ndr_pull *n, size_t align);
NTSTATUS ndr_pull_u8(struct ndr_pull *n, uint8_t *v);
NTSTATUS ndr_pull_u16(struct ndr_pull *n, uint16_t *v);
NTSTATUS ndr_pull_u32(struct ndr_pull *n, uint32_t *v);
NTSTATUS ndr_pull_hyper(struct ndr_pull *n, uint64_t *v);
NTSTATUS ndr_pull_bytes(struct ndr_pull *n, uint8_t *dst, size_t len);
/* A pointer's referent id (unique/full: 0 means NULL). */
NTSTATUS ndr_pull_ptr(struct ndr_pull *n, uint32_t *ref);
/*
 * An array count that is about to describe count elements of at least
 * elem_size bytes each: fails when they cannot fit in what remains.
 */
NTSTATUS ndr_check_count(const struct ndr_pull *n, uint32_t count,
			 size_t elem_size);
/*
 * [string] wchar_t*: conformant varying UTF-16 (max_count, offset,
 * actual_count, units), converted to UTF-8 without the terminating NUL.
 */
NTSTATUS ndr_pull_wstring(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
			  char **out);
/* A unique pointer to a [string] wchar_t (NULL when the pointer is). */
NTSTATUS ndr_pull_unique_wstring(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
				 char **out);
/*
 * The deferred part of an RPC_UNICODE_STRING (MS-DTYP 2.3.10): a
 * conformant varying array of length/2 units, no terminator.
 */
NTSTATUS ndr_pull_unicode_buffer(struct ndr_pull *n, TALLOC_CTX *mem_ctx,
				 uint16_t length, uint16_t max_length,
				 char **out);

struct ndr_push {
	struct wire_buf b;
	uint32_t next_ref;
};

void ndr_push_init(struct ndr_push *n, TALLOC_CTX *mem_ctx);
void ndr_push_align(struct ndr_push *n, size_t align);
void ndr_push_u8(struct ndr_push *n, uint8_t v);
void ndr_push_u16(struct ndr_push *n, uint16_t v);
void ndr_push_u32(struct ndr_push *n, uint32_t v);
void ndr_push_hyper(struct ndr_push *n, uint64_t v);
void ndr_push_bytes(struct ndr_push *n, const void *p, size_t len);
/* A unique pointer: a fresh referent id when present, else 0. */
void ndr_push_ptr(struct ndr_push *n, bool present);
/* [string] wchar_t pointee: conformant varying, NUL included. */
void ndr_push_wstring(struct ndr_push *n, const char *s);
/* Unique pointer + string in one go (for top-level [out] strings). */
void ndr_push_unique_wstring(struct ndr_push *n, const char *s);
/*
 * RPC_UNICODE_STRING: the fixed part (Length, MaximumLength, pointer) and
 * its deferred buffer.  s == NULL pushes a NULL buffer.
 */
void ndr_push_unicode_fixed(struct ndr_push *n, const char *s);
void ndr_push_unicode_buffer(struct ndr_push *n, const char *s);
/* NULL when an allocation failed (b.failed). */
bool ndr_push_ok(const struct ndr_push *n);

#endif
