/*
 * Strings as SMB carries them: UTF-16LE <-> UTF-8 (NTLMSSP fields, file
 * names on the wire, RPC strings) and Unicode case mapping (NTOWFv2's
 * Upper(UserName), MS-NLMP 3.3.2; passdb's lower-cased keys; the file
 * layer's case-insensitive name lookup).  In lib/ because the file layer
 * (vfs/name.c) below auth needs it as much as auth does.
 */
#ifndef LIB_CHARSET_H
#define LIB_CHARSET_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"

/*
 * UTF-16LE (len bytes) to a NUL-terminated UTF-8 string on mem_ctx.
 * NT_STATUS_INVALID_PARAMETER for an odd length, an unpaired surrogate or
 * an embedded NUL.
 */
NTSTATUS charset_utf16_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *p,
			       size_t len, char **out);

/* UTF-8 to UTF-16LE without terminator. Invalid UTF-8 is an error. */
NTSTATUS charset_utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *s,
			       uint8_t **out, size_t *out_len);

/* Upper/lower-cased copies (Unicode simple case mapping); NULL on error. */
char *charset_strupper(TALLOC_CTX *mem_ctx, const char *s);
char *charset_strlower(TALLOC_CTX *mem_ctx, const char *s);

#endif
