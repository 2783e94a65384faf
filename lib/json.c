/*
 * The JSON writer of lib/json.h.  One growing talloc buffer; every append
 * checks its room, so a huge client string only costs memory the caller
 * already holds (names are bounded by the NTLMSSP message, itself within
 * the 64 KiB pre-logon frame).
 */
#include "lib/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool buf_reserve(TALLOC_CTX *mem_ctx, char **out, size_t len,
			size_t more)
{
	size_t cap = *out != NULL ? talloc_get_size(*out) : 0;
	size_t want;
	char *n;

	if (more > SIZE_MAX / 2 - len) {
		return false;
	}
	want = len + more + 1;
	if (want <= cap) {
		return true;
	}
	if (want < 2 * cap) {
		want = 2 * cap;
	}
	if (want < 128) {
		want = 128;
	}
	n = talloc_realloc(mem_ctx, *out, char, want);
	if (n == NULL) {
		return false;
	}
	if (*out == NULL) {
		n[0] = '\0';
	}
	*out = n;
	return true;
}

static bool buf_append(TALLOC_CTX *mem_ctx, char **out, size_t *len,
		       const char *s, size_t n)
{
	if (!buf_reserve(mem_ctx, out, *len, n)) {
		return false;
	}
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
	return true;
}

/*
 * The length of the well-formed UTF-8 sequence at in (RFC 3629 4, the
 * Unicode "well-formed" table: no overlong forms, no surrogates
 * D800-DFFF, nothing above 10FFFF), or 0 if the first byte does not start
 * one.
 */
static size_t utf8_seq_len(const uint8_t *in, size_t len)
{
	uint8_t c = in[0];
	uint8_t lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80) {
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0) {
			lo = 0xa0; /* overlong */
		} else if (c == 0xed) {
			hi = 0x9f; /* surrogates */
		}
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0) {
			lo = 0x90; /* overlong */
		} else if (c == 0xf4) {
			hi = 0x8f; /* above U+10FFFF */
		}
	} else {
		return 0;
	}
	if (len < n) {
		return 0;
	}
	if (in[1] < lo || in[1] > hi) {
		return 0;
	}
	for (i = 2; i < n; i++) {
		if (in[i] < 0x80 || in[i] > 0xbf) {
			return 0;
		}
	}
	return n;
}

bool json_escape_append(TALLOC_CTX *mem_ctx, char **out, size_t *out_len,
			const uint8_t *in, size_t len)
{
	size_t i = 0;

	if (!buf_append(mem_ctx, out, out_len, "\"", 1)) {
		return false;
	}
	while (i < len) {
		uint8_t c = in[i];
		char esc[8];
		const char *s = esc;
		size_t n;

		switch (c) {
		case '"':
			s = "\\\"";
			n = 2;
			break;
		case '\\':
			s = "\\\\";
			n = 2;
			break;
		case '\n':
			s = "\\n";
			n = 2;
			break;
		case '\r':
			s = "\\r";
			n = 2;
			break;
		case '\t':
			s = "\\t";
			n = 2;
			break;
		case '\b':
			s = "\\b";
			n = 2;
			break;
		case '\f':
			s = "\\f";
			n = 2;
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				n = 6;
			} else if (c < 0x80) {
				s = (const char *)in + i;
				n = 1;
			} else {
				n = utf8_seq_len(in + i, len - i);
				if (n == 0) {
					/* One U+FFFD per bad byte. */
					s = "\xef\xbf\xbd";
					n = 3;
					if (!buf_append(mem_ctx, out, out_len,
							s, n)) {
						return false;
					}
					i++;
					continue;
				}
				s = (const char *)in + i;
				if (!buf_append(mem_ctx, out, out_len, s, n)) {
					return false;
				}
				i += n;
				continue;
			}
			break;
		}
		if (!buf_append(mem_ctx, out, out_len, s, n)) {
			return false;
		}
		i++;
	}
	return buf_append(mem_ctx, out, out_len, "\"", 1);
}

void json_init(struct json_writer *w, TALLOC_CTX *mem_ctx)
{
	memset(w, 0, sizeof(*w));
	w->buf = talloc_strdup(mem_ctx, "");
	w->failed = w->buf == NULL;
}

static void put(struct json_writer *w, const char *s)
{
	if (!w->failed &&
	    !buf_append(talloc_parent(w->buf), &w->buf, &w->len, s,
			strlen(s))) {
		w->failed = true;
	}
}

/* The separator and key before a member; false when out of place. */
static bool member(struct json_writer *w, const char *key)
{
	if (w->failed) {
		return false;
	}
	if (w->depth == 0) {
		/* Only one top value, and it has no key. */
		if (key != NULL || w->len != 0) {
			w->failed = true;
			return false;
		}
		return true;
	}
	/* Array elements have no key; object members must have one. */
	if ((key == NULL) != w->in_array[w->depth - 1]) {
		w->failed = true;
		return false;
	}
	if (w->need_comma[w->depth - 1]) {
		put(w, ", ");
	}
	w->need_comma[w->depth - 1] = true;
	if (key == NULL) {
		return !w->failed;
	}
	if (!w->failed &&
	    !json_escape_append(talloc_parent(w->buf), &w->buf, &w->len,
				(const uint8_t *)key, strlen(key))) {
		w->failed = true;
	}
	put(w, ": ");
	return !w->failed;
}

void json_open(struct json_writer *w, const char *key)
{
	if (!member(w, key)) {
		return;
	}
	if (w->depth >= JSON_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	put(w, "{");
	w->in_array[w->depth] = false;
	w->need_comma[w->depth++] = false;
}

void json_open_array(struct json_writer *w, const char *key)
{
	if (!member(w, key)) {
		return;
	}
	if (w->depth == 0 || w->depth >= JSON_MAX_DEPTH) {
		w->failed = true;	/* never the top value */
		return;
	}
	put(w, "[");
	w->in_array[w->depth] = true;
	w->need_comma[w->depth++] = false;
}

/* Close the innermost object (array false) or array (true). */
static void json_end(struct json_writer *w, bool array)
{
	if (w->failed) {
		return;
	}
	if (w->depth == 0 || w->in_array[w->depth - 1] != array) {
		w->failed = true;
		return;
	}
	w->depth--;
	put(w, array ? "]" : "}");
}

void json_close(struct json_writer *w)
{
	json_end(w, false);
}

void json_close_array(struct json_writer *w)
{
	json_end(w, true);
}

void json_add_bool(struct json_writer *w, const char *key, bool val)
{
	if (member(w, key)) {
		put(w, val ? "true" : "false");
	}
}

void json_add_str(struct json_writer *w, const char *key, const char *val)
{
	if (!member(w, key)) {
		return;
	}
	if (val == NULL) {
		put(w, "null");
		return;
	}
	if (!json_escape_append(talloc_parent(w->buf), &w->buf, &w->len,
				(const uint8_t *)val, strlen(val))) {
		w->failed = true;
	}
}

void json_add_int(struct json_writer *w, const char *key, int64_t val)
{
	char num[24];

	if (!member(w, key)) {
		return;
	}
	snprintf(num, sizeof(num), "%" PRId64, val);
	put(w, num);
}

const char *json_finish(struct json_writer *w)
{
	if (w->failed || w->depth != 0 || w->len == 0) {
		return NULL;
	}
	return w->buf;
}
