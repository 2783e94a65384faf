/*
 * libFuzzer target: lib/log.c log_parse_spec, the `log level` parser.
 *
 * The input is the value.  What parses must be consistent: every level
 * within 0..LOG_LEVEL_MAX; a value with no "class:level" item gives every
 * class the same level; parsing the value again (it does not depend on
 * state) gives the same levels; a class file ("class:N@FILE") lies inside
 * the input, right after an '@', and is not empty; applying a value
 * without files with log_set_levels() sets exactly those levels.  What does not parse names the bad item, which
 * occurs in the input, and leaves the applied levels alone.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int lv[LOG_CLASS__COUNT], again[LOG_CLASS__COUNT];
	int before[LOG_CLASS__COUNT];
	char spec[512], err[256];
	int i;

	if (size >= sizeof(spec)) {
		return 0;
	}
	memcpy(spec, data, size);
	spec[size] = '\0';
	log_set_level(-1); /* nothing is logged, and a known state */
	memcpy(before, log_class_level, sizeof(before));
	err[0] = '\0';
	if (!log_parse_levels(spec, lv, err, sizeof(err))) {
		if (err[0] == '\0' || strstr(spec, err) == NULL) {
			abort();
		}
		if (log_set_levels(spec) ||
		    memcmp(before, log_class_level, sizeof(before)) != 0) {
			abort();
		}
		return 0;
	}
	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		if (lv[i] < 0 || lv[i] > LOG_LEVEL_MAX) {
			abort();
		}
		if (strchr(spec, ':') == NULL && lv[i] != lv[LOG_CLASS_ALL]) {
			abort();
		}
	}
	if (!log_parse_levels(spec, again, NULL, 0) ||
	    memcmp(lv, again, sizeof(lv)) != 0) {
		abort();
	}
	{
		struct log_spec sp;
		bool files = false;

		if (!log_parse_spec(spec, &sp, NULL, 0) ||
		    memcmp(sp.level, lv, sizeof(lv)) != 0 ||
		    sp.file_len[LOG_CLASS_ALL] != 0) {
			abort();
		}
		for (i = 0; i < LOG_CLASS__COUNT; i++) {
			if (sp.file_len[i] == 0) {
				continue;
			}
			files = true;
			if (sp.file_off[i] < 1 ||
			    sp.file_off[i] + sp.file_len[i] > size ||
			    spec[sp.file_off[i] - 1] != '@' ||
			    memchr(spec + sp.file_off[i], ' ',
				   sp.file_len[i]) != NULL) {
				abort();
			}
		}
		if (files) {
			return 0; /* would create files named by the input */
		}
	}
	if (!log_set_levels(spec) ||
	    memcmp(lv, log_class_level, sizeof(lv)) != 0 ||
	    log_level != lv[LOG_CLASS_ALL]) {
		abort();
	}
	log_set_level(-1);
	return 0;
}
