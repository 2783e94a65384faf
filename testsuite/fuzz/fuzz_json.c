/*
 * libFuzzer target: lib/json.c, the escaper and the writer.
 *
 * The input is split at its first NUL into a key and a value; both are
 * escaped and written as {"key": "value", "n": 1}.  The output must be
 * one line of valid JSON: the checker below parses it back (strings with
 * every escape JSON has, UTF-8 checked byte by byte) and the strings it
 * reads must equal the input where the input was well-formed UTF-8, with
 * U+FFFD (EF BF BD) for every byte that was not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A well-formed UTF-8 sequence's length at p (independent of lib/json). */
static size_t seq(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0x80) {
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len) {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			return 0;
		}
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff)) {
		return 0;
	}
	return len;
}

/* What the escaper should have encoded: bad bytes as U+FFFD. */
static size_t expect(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t i = 0, o = 0, l;

	while (i < n) {
		l = seq(in + i, n - i);
		if (l == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, in + i, l);
			o += l;
			i += l;
		}
	}
	return o;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* Parse a JSON string at *pp into out (UTF-8); abort when invalid. */
static size_t parse_str(const char **pp, uint8_t *out)
{
	const uint8_t *p = (const uint8_t *)*pp;
	size_t o = 0, l;

	if (*p++ != '"') {
		abort();
	}
	for (;;) {
		if (*p == '"') {
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			abort(); /* control bytes must be escaped */
		}
		if (*p == '\\') {
			int cp = 0, i;

			p++;
			switch (*p) {
			case '"': out[o++] = '"'; p++; continue;
			case '\\': out[o++] = '\\'; p++; continue;
			case '/': out[o++] = '/'; p++; continue;
			case 'n': out[o++] = '\n'; p++; continue;
			case 'r': out[o++] = '\r'; p++; continue;
			case 't': out[o++] = '\t'; p++; continue;
			case 'b': out[o++] = '\b'; p++; continue;
			case 'f': out[o++] = '\f'; p++; continue;
			case 'u':
				for (i = 1; i <= 4; i++) {
					int h = hexval((char)p[i]);

					if (h < 0) {
						abort();
					}
					cp = cp * 16 + h;
				}
				/* The escaper only writes \u for bytes. */
				if (cp >= 0x80) {
					abort();
				}
				out[o++] = (uint8_t)cp;
				p += 5;
				continue;
			default:
				abort();
			}
		}
		l = seq(p, strlen((const char *)p));
		if (l == 0) {
			abort(); /* output must be valid UTF-8 */
		}
		memcpy(out + o, p, l);
		o += l;
		p += l;
	}
	*pp = (const char *)p + 1;
	return o;
}

static void expect_lit(const char **pp, const char *lit)
{
	if (strncmp(*pp, lit, strlen(lit)) != 0) {
		abort();
	}
	*pp += strlen(lit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *tmp;
	struct json_writer w;
	const uint8_t *nul;
	char *key, *val;
	const char *out, *p;
	size_t klen, vlen, n;
	uint8_t *want, *got;

	if (size > 4096) {
		return 0;
	}
	nul = memchr(data, 0, size);
	klen = nul != NULL ? (size_t)(nul - data) : size;
	vlen = nul != NULL ? size - klen - 1 : 0;
	tmp = talloc_new(NULL);
	key = talloc_strndup(tmp, (const char *)data, klen);
	val = talloc_strndup(tmp, nul != NULL ? (const char *)nul + 1 : "",
			     vlen);
	/* strndup stops at a later NUL: compare what was written. */
	klen = strlen(key);
	vlen = strlen(val);
	json_init(&w, tmp);
	json_open(&w, NULL);
	json_add_str(&w, key, val);
	json_add_int(&w, "n", 1);
	json_close(&w);
	out = json_finish(&w);
	if (out == NULL) {
		abort();
	}
	if (strchr(out, '\n') != NULL || strlen(out) != w.len) {
		abort();
	}
	want = talloc_size(tmp, 3 * (klen + vlen) + 1);
	got = talloc_size(tmp, 3 * (klen + vlen) + 1);
	p = out;
	expect_lit(&p, "{");
	n = parse_str(&p, got);
	if (n != expect((const uint8_t *)key, klen, want) ||
	    memcmp(got, want, n) != 0) {
		abort();
	}
	expect_lit(&p, ": ");
	n = parse_str(&p, got);
	if (n != expect((const uint8_t *)val, vlen, want) ||
	    memcmp(got, want, n) != 0) {
		abort();
	}
	expect_lit(&p, ", \"n\": 1}");
	if (*p != '\0') {
		abort();
	}
	talloc_free(tmp);
	return 0;
}
