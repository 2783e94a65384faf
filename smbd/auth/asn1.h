/*
 * A small ASN.1 DER reader and writer, enough for SPNEGO (RFC 4178).
 *
 * Reading: struct asn1_cur is a bounded slice, like lib/wire.h's cursor.
 * asn1_read() cuts one element (identifier, definite length, contents) off
 * the front and hands back a struct asn1_tlv that points into the caller's
 * buffer; asn1_enter() opens a constructed element's contents as a child
 * cursor one level deeper.  Every length is checked against what is left
 * (64-bit sums), indefinite lengths (BER 0x80, not DER, X.690 10.1) are
 * refused, long-form lengths are limited to 4 octets, high tag numbers (31
 * and up) are refused (SPNEGO never uses them) and nesting is limited to
 * ASN1_MAX_DEPTH levels, so no input can make the reader loop, recurse or
 * read out of bounds.  Errors are NT_STATUS_INVALID_PARAMETER.
 *
 * Writing: struct asn1_writer appends to a talloc buffer (struct wire_buf);
 * asn1_push_start()/asn1_push_end() bracket a constructed element and the
 * length is patched in at the end (moving the contents when the long form
 * is needed), so callers never compute lengths themselves.
 */
#ifndef SMBD_AUTH_ASN1_H
#define SMBD_AUTH_ASN1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "lib/wire.h"

#define ASN1_MAX_DEPTH 16

/* Identifier octets (X.690 8.1.2): class | constructed | number. */
#define ASN1_BOOLEAN 0x01
#define ASN1_INTEGER 0x02
#define ASN1_BIT_STRING 0x03
#define ASN1_OCTET_STRING 0x04
#define ASN1_NULL 0x05
#define ASN1_OID 0x06
#define ASN1_ENUMERATED 0x0a
#define ASN1_GENERAL_STRING 0x1b
#define ASN1_SEQUENCE 0x30
#define ASN1_APPLICATION(n) (0x60 | (n)) /* constructed */
#define ASN1_CONTEXT(n) (0xa0 | (n))     /* constructed, explicit tag */
#define ASN1_CONSTRUCTED 0x20

struct asn1_cur {
	const uint8_t *data;
	size_t len;
	size_t off;
	unsigned depth;
};

struct asn1_tlv {
	uint8_t tag;
	const uint8_t *val; /* contents */
	size_t len;
	const uint8_t *raw; /* the whole element: identifier..contents */
	size_t raw_len;
	unsigned depth; /* of the cursor it was read from */
};

void asn1_cur_init(struct asn1_cur *c, const uint8_t *data, size_t len);

static inline bool asn1_at_end(const struct asn1_cur *c)
{
	return c->off >= c->len;
}

/* The next identifier octet without consuming it; false at the end. */
bool asn1_peek_tag(const struct asn1_cur *c, uint8_t *tag);

/* Cut the next element off c. */
NTSTATUS asn1_read(struct asn1_cur *c, struct asn1_tlv *out);

/* Like asn1_read(), but the identifier must be `tag`. */
NTSTATUS asn1_read_tag(struct asn1_cur *c, uint8_t tag, struct asn1_tlv *out);

/* A cursor over a constructed element's contents, one level deeper. */
NTSTATUS asn1_enter(const struct asn1_tlv *t, struct asn1_cur *inner);

/* Read an element with tag `tag` and enter it. */
NTSTATUS asn1_enter_tag(struct asn1_cur *c, uint8_t tag, struct asn1_cur *in);

/* ENUMERATED or INTEGER contents as a signed 32-bit value. */
NTSTATUS asn1_tlv_int(const struct asn1_tlv *t, int32_t *v);

/* BIT STRING: the unused-bit count and the bits that follow it. */
NTSTATUS asn1_tlv_bits(const struct asn1_tlv *t, uint8_t *unused,
		       const uint8_t **bits, size_t *nbytes);

/* OID contents equal to the encoded contents `enc` (no tag/length). */
bool asn1_oid_equal(const struct asn1_tlv *t, const uint8_t *enc,
		    size_t enc_len);

/* Dotted form ("1.3.6.1.5.5.2") of an OID element, for logs and tests. */
NTSTATUS asn1_oid_to_str(TALLOC_CTX *mem_ctx, const struct asn1_tlv *t,
			 char **out);

/* Encode a dotted OID into its contents octets (no tag/length). */
NTSTATUS asn1_oid_from_str(TALLOC_CTX *mem_ctx, const char *s, uint8_t **enc,
			   size_t *enc_len);

struct asn1_writer {
	struct wire_buf b;
	size_t stack[ASN1_MAX_DEPTH];
	unsigned depth;
	bool failed;
};

void asn1_writer_init(struct asn1_writer *w, TALLOC_CTX *mem_ctx);
/* Open a constructed element (SEQUENCE, [n], APPLICATION n). */
void asn1_push_start(struct asn1_writer *w, uint8_t tag);
/* Close the innermost open element and patch its length. */
void asn1_push_end(struct asn1_writer *w);
/* A primitive element with the given contents. */
void asn1_push_prim(struct asn1_writer *w, uint8_t tag, const void *val,
		    size_t len);
/* Already-encoded element bytes, appended as they are. */
void asn1_push_raw(struct asn1_writer *w, const void *raw, size_t len);
void asn1_push_enumerated(struct asn1_writer *w, int32_t v);
/*
 * Hand the encoding to the caller: NT_STATUS_NO_MEMORY if anything failed,
 * NT_STATUS_INTERNAL_ERROR if elements are still open.  The buffer is a
 * talloc child of the mem_ctx given to asn1_writer_init().
 */
NTSTATUS asn1_writer_finish(struct asn1_writer *w, uint8_t **out,
			    size_t *out_len);

#endif
