/*
 * String helpers the authentication code needs: UTF-16LE <-> UTF-8 for
 * NTLMSSP fields and Unicode case mapping for NTOWFv2's Upper(UserName)
 * (MS-NLMP 3.3.2) and passdb's lower-cased keys.
 *
 * Kept local to smbd/auth/ until lib/ grows a charset module; then these
 * become thin wrappers or go away.
 */
#ifndef SMBD_AUTH_AUTH_STR_H
#define SMBD_AUTH_AUTH_STR_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"

/*
 * UTF-16LE (len bytes) to a NUL-terminated UTF-8 string on mem_ctx.
 * NT_STATUS_INVALID_PARAMETER for an odd length, an unpaired surrogate or
 * an embedded NUL.
 */
NTSTATUS auth_utf16_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *p, size_t len,
			    char **out);

/* UTF-8 to UTF-16LE without terminator. Invalid UTF-8 is an error. */
NTSTATUS auth_utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *s, uint8_t **out,
			    size_t *out_len);

/* Upper/lower-cased copies (Unicode simple case mapping); NULL on error. */
char *auth_strupper(TALLOC_CTX *mem_ctx, const char *s);
char *auth_strlower(TALLOC_CTX *mem_ctx, const char *s);

/* MD4(UTF-16LE(password)), MS-NLMP 3.3.1 NTOWFv1. */
NTSTATUS auth_nt_hash(const char *password, uint8_t out[16]);

#endif
