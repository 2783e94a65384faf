/*
 * libFuzzer target: smbd/auth/usermap.c, the username map parser.
 *
 * The input is the file.  Whatever it holds, every kept rule must have a
 * non-empty Unix name without blanks or quotes, at least one non-empty
 * client name, and a line number inside the file; a name that a rule
 * lists (not a group or "*") must map to some rule's Unix name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/log.h"
#include "smbd/auth/usermap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Group entries are skipped below; they must still be asked safely. */
static bool no_group(void *priv, const char *user, const char *group)
{
	(void)priv;
	if (user == NULL || group == NULL) {
		abort();
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx;
	struct usermap *m;
	unsigned lines = 1;
	size_t i, j;

	if (size > 65536) {
		return 0;
	}
	for (i = 0; i < size; i++) {
		lines += data[i] == '\n';
	}
	ctx = talloc_new(NULL);
	m = usermap_parse(ctx, (const char *)data, size, "fuzz");
	if (m == NULL) {
		abort();
	}
	for (i = 0; i < m->nrules; i++) {
		const struct usermap_rule *r = &m->rules[i];

		if (r->unix_name[0] == '\0' ||
		    strpbrk(r->unix_name, " \t\"") != NULL || r->nnames == 0 ||
		    r->line == 0 || r->line > lines) {
			abort();
		}
		for (j = 0; j < r->nnames; j++) {
			const char *n = r->names[j];
			const char *to;
			size_t k;

			if (n[0] == '\0') {
				abort();
			}
			if (n[0] == '@' || n[0] == '+' || n[0] == '&') {
				continue;
			}
			to = usermap_map(m, n, no_group, NULL);
			if (to == NULL) {
				abort();
			}
			for (k = 0; k < m->nrules; k++) {
				if (to == m->rules[k].unix_name) {
					break;
				}
			}
			if (k == m->nrules) {
				abort();
			}
		}
	}
	talloc_free(ctx);
	return 0;
}
