/*
 * Strings as SMB carries them: UTF-16LE <-> UTF-8 (NTLMSSP fields, file
 * names on the wire, RPC strings) and Unicode case mapping (NTOWFv2's
 * Upper(UserName), MS-NLMP 3.3.2; passdb's lower-cased keys; the file
 * layer's case-insensitive name lookup).  In lib/ because the file layer
 * (vfs/name.c, vfs/catia.c) below auth needs it as much as auth does.
 *
 * The one UTF-8 decoder and the one case mapping of the project (issue
 * 37): callers differ only in what they do with a byte that does not
 * start a valid sequence (the converters refuse the string, name
 * comparison treats the byte as a character of its own, catia keeps it).
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

/*
 * One code point of UTF-8 at s, of which n bytes may be read: the bytes
 * it takes (1-4), or 0 when s does not start a valid sequence (a stray
 * continuation byte, a truncated sequence, an overlong form, a
 * surrogate, a value past U+10FFFF).  On a NUL-terminated string n may
 * be 4 wherever the string is: a NUL fails the continuation test, so
 * nothing past it is read.
 */
size_t charset_utf8_next(const uint8_t *s, size_t n, uint32_t *cp);
/* c (at most U+10FFFF, not a surrogate) as UTF-8 into out: its length. */
size_t charset_utf8_put(uint32_t c, uint8_t out[4]);

/*
 * Unicode simple case mapping of one code point, within the BMP as
 * Windows maps names and user names (NTFS's $UpCase table and
 * RtlUpcaseUnicodeChar work on UTF-16 units) and as Samba's own 64K-entry
 * tables do: a code point outside the BMP, or one whose mapping would
 * leave it, stays as it is.  From the C library's tables through a private
 * C.UTF-8 locale object, so the process locale does not matter; without
 * that locale only ASCII is mapped.
 */
uint32_t charset_toupper_bmp(uint32_t c);
uint32_t charset_tolower_bmp(uint32_t c);

/* The ASCII case inline: name comparison calls this per character. */
static inline uint32_t charset_toupper(uint32_t c)
{
	if (c < 0x80) {
		return (c >= 'a' && c <= 'z') ? c - 32 : c;
	}
	return charset_toupper_bmp(c);
}

static inline uint32_t charset_tolower(uint32_t c)
{
	if (c < 0x80) {
		return (c >= 'A' && c <= 'Z') ? c + 32 : c;
	}
	return charset_tolower_bmp(c);
}

/* Upper/lower-cased copies (charset_toupper/tolower of each code point);
 * NULL for invalid UTF-8 or out of memory. */
char *charset_strupper(TALLOC_CTX *mem_ctx, const char *s);
char *charset_strlower(TALLOC_CTX *mem_ctx, const char *s);

#endif
