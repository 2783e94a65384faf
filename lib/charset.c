/*
 * UTF-8/UTF-16 conversion and case mapping (see charset.h).
 *
 * Conversions are written out by hand (no iconv state, no locale) because
 * they are tiny and must reject malformed input deterministically: NTLMSSP
 * strings come straight off the wire.  Case mapping uses the C library's
 * Unicode tables through a private C.UTF-8 locale object (towupper_l), so
 * the process locale does not matter; without that locale only ASCII is
 * mapped.  It keeps to the BMP, as Windows' upcase tables do (charset.h).
 */
#include "lib/charset.h"
#include <locale.h>
#include <stdbool.h>
#include <pthread.h>
#include <string.h>
#include <wctype.h>

size_t charset_utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len, i;

	if (n == 0) {
		return 0;
	}
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		c = s[0] & 0x1f;
		len = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		c = s[0] & 0x0f;
		len = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		c = s[0] & 0x07;
		len = 4;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		/* Also stops at a NUL terminator. */
		if (i >= n || (s[i] & 0xc0) != 0x80) {
			return 0;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
	    (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff)) {
		return 0;
	}
	*cp = c;
	return len;
}

size_t charset_utf8_put(uint32_t c, uint8_t out[4])
{
	if (c < 0x80) {
		out[0] = (uint8_t)c;
		return 1;
	} else if (c < 0x800) {
		out[0] = (uint8_t)(0xc0 | (c >> 6));
		out[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	} else if (c < 0x10000) {
		out[0] = (uint8_t)(0xe0 | (c >> 12));
		out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (uint8_t)(0xf0 | (c >> 18));
	out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

NTSTATUS charset_utf16_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *p,
			       size_t len, char **out)
{
	uint8_t *buf;
	size_t i, o = 0;

	if (len % 2 != 0 || len > 65536) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* Each UTF-16 unit yields at most 3 UTF-8 bytes. */
	buf = talloc_array(mem_ctx, uint8_t, len / 2 * 3 + 1);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < len; i += 2) {
		uint32_t c = (uint32_t)p[i] | ((uint32_t)p[i + 1] << 8);

		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo;

			if (i + 4 > len) {
				goto bad;
			}
			lo = (uint32_t)p[i + 2] | ((uint32_t)p[i + 3] << 8);
			if (lo < 0xdc00 || lo > 0xdfff) {
				goto bad;
			}
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i += 2;
		} else if ((c >= 0xdc00 && c <= 0xdfff) || c == 0) {
			goto bad;
		}
		o += charset_utf8_put(c, buf + o);
	}
	buf[o] = '\0';
	*out = (char *)buf;
	return NT_STATUS_OK;
bad:
	talloc_free(buf);
	return NT_STATUS_INVALID_PARAMETER;
}

NTSTATUS charset_utf8_to_utf16(TALLOC_CTX *mem_ctx, const char *s,
			       uint8_t **out, size_t *out_len)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t n = strlen(s), i = 0, o = 0;
	uint8_t *buf;

	/* Each UTF-8 byte yields at most one UTF-16 unit (2 bytes). */
	buf = talloc_array(mem_ctx, uint8_t, n * 2 + 2);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	while (i < n) {
		uint32_t c;
		size_t used = charset_utf8_next(u + i, n - i, &c);

		if (used == 0) {
			talloc_free(buf);
			return NT_STATUS_INVALID_PARAMETER;
		}
		i += used;
		if (c >= 0x10000) {
			c -= 0x10000;
			buf[o++] = (uint8_t)((0xd800 | (c >> 10)) & 0xff);
			buf[o++] = (uint8_t)((0xd800 | (c >> 10)) >> 8);
			c = 0xdc00 | (c & 0x3ff);
		}
		buf[o++] = (uint8_t)(c & 0xff);
		buf[o++] = (uint8_t)(c >> 8);
	}
	*out = buf;
	*out_len = o;
	return NT_STATUS_OK;
}

static locale_t utf8_locale;
static pthread_once_t utf8_locale_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static uint32_t case_bmp(uint32_t c, bool upper)
{
	wint_t m;

	if (c > 0xffff || (c >= 0xd800 && c <= 0xdfff)) {
		return c;
	}
	pthread_once(&utf8_locale_once, utf8_locale_init);
	if (utf8_locale == (locale_t)0) {
		return c;
	}
	m = upper ? towupper_l((wint_t)c, utf8_locale)
		  : towlower_l((wint_t)c, utf8_locale);
	/* A simple mapping stays in the BMP; keep the one-unit rule. */
	return (m > 0xffff || (m >= 0xd800 && m <= 0xdfff)) ? c : (uint32_t)m;
}

uint32_t charset_toupper_bmp(uint32_t c)
{
	return case_bmp(c, true);
}

uint32_t charset_tolower_bmp(uint32_t c)
{
	return case_bmp(c, false);
}

static char *strcase(TALLOC_CTX *mem_ctx, const char *s, bool upper)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t n = strlen(s), i = 0, o = 0;
	uint8_t *buf;

	/* A BMP mapping may take a code point from 2 UTF-8 bytes to 3
	 * (U+023A -> U+2C65), never more than doubling a string. */
	buf = talloc_array(mem_ctx, uint8_t, n * 2 + 1);
	if (buf == NULL) {
		return NULL;
	}
	while (i < n) {
		uint32_t c;
		size_t used = charset_utf8_next(u + i, n - i, &c);

		if (used == 0) {
			talloc_free(buf);
			return NULL;
		}
		i += used;
		c = upper ? charset_toupper(c) : charset_tolower(c);
		o += charset_utf8_put(c, buf + o);
	}
	buf[o] = '\0';
	return (char *)buf;
}

char *charset_strupper(TALLOC_CTX *mem_ctx, const char *s)
{
	return strcase(mem_ctx, s, true);
}

char *charset_strlower(TALLOC_CTX *mem_ctx, const char *s)
{
	return strcase(mem_ctx, s, false);
}
