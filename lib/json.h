/*
 * A small JSON writer for log lines (the auth_json_audit events) and
 * smbstatus --json: objects, arrays, strings, integers, booleans and null, written as Samba's JSON log lines are
 * (`{"key": value, "key": value}`, one line).
 *
 * Strings come from clients (user, domain and workstation names), so the
 * escaper must turn any bytes into a valid JSON string (RFC 8259 7):
 * '"' and '\' escaped, every control character below 0x20 and DEL
 * escaped (so a value can never end the log line), and bytes that are not
 * well-formed UTF-8 (RFC 3629 4: overlong forms, surrogates, values above
 * U+10FFFF, truncated sequences) replaced by U+FFFD, one per bad byte.
 * The output is then valid UTF-8 and valid JSON whatever the input.
 *
 * Errors (out of memory, nesting deeper than JSON_MAX_DEPTH, a value
 * without a key inside an object) stick: json_finish() returns NULL.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#define JSON_MAX_DEPTH 8

struct json_writer {
	char *buf;   /* talloc, NUL-terminated */
	size_t len;
	bool failed;
	unsigned depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool in_array[JSON_MAX_DEPTH];
};

/* buf is allocated on mem_ctx. */
void json_init(struct json_writer *w, TALLOC_CTX *mem_ctx);
/* An object: the top one (key NULL) or a member of the open object. */
void json_open(struct json_writer *w, const char *key);
void json_close(struct json_writer *w);
/* An array member of the open object; its elements are added with key
 * NULL (json_open(w, NULL) for an object element).  Never the top value. */
void json_open_array(struct json_writer *w, const char *key);
void json_close_array(struct json_writer *w);
void json_add_bool(struct json_writer *w, const char *key, bool val);
/* A string member; val NULL writes null (Samba's unset fields). */
void json_add_str(struct json_writer *w, const char *key, const char *val);
void json_add_int(struct json_writer *w, const char *key, int64_t val);
/* The text, once every object is closed; NULL after any error.  Owned by
 * the mem_ctx given to json_init(). */
const char *json_finish(struct json_writer *w);

/*
 * Append the JSON string for len bytes at in (with its quotes) to the
 * talloc string *out (grown with talloc_realloc); false when out of
 * memory.  *out_len is kept as strlen(*out).
 */
bool json_escape_append(TALLOC_CTX *mem_ctx, char **out, size_t *out_len,
			const uint8_t *in, size_t len);

#endif
