/*
 * libFuzzer target for the smb.conf parser: the input is loaded as a
 * configuration text with lp_load_string(), then everything it produced is
 * read back: lp_dump() to /dev/null, lp_check(), lp_list() and
 * lp_str_subst() on every share.  A successful load is dumped, reloaded
 * from the dump, and must dump to the same text again (unless a value
 * ends in a backslash, which smb.conf cannot express).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/loadparm.h"
#include "lib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dump_text(const struct lp_ctx *lp, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL) {
		abort();
	}
	lp_dump(lp, f, false);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	TALLOC_CTX *mem = talloc_new(NULL);
	struct lp_ctx *lp = lp_new(mem);
	char *text = talloc_strndup(mem, (const char *)data, size);
	int snum;

	if (devnull == NULL) {
		devnull = fopen("/dev/null", "w");
		/* no log lines: the parser warns about most inputs */
		log_set_level(-1);
	}
	if (lp == NULL || text == NULL || devnull == NULL) {
		abort();
	}
	if (lp_load_string(lp, "fuzz.conf", text)) {
		struct lp_ctx *lp2 = lp_new(mem);
		size_t l1, l2;
		char *d1 = dump_text(lp, &l1);
		char *d2;

		if (lp2 == NULL || !lp_load_string(lp2, "dump", d1)) {
			abort();
		}
		d2 = dump_text(lp2, &l2);
		/*
		 * A value ending in '\' (from "x\ " or the last line) dumps
		 * as a continuation line: smb.conf has no escape for it, as
		 * in Samba.  Everything else must dump identically.
		 */
		if (strstr(d1, "\\\n") == NULL &&
		    (l1 != l2 || memcmp(d1, d2, l1) != 0)) {
			abort();
		}
		free(d1);
		free(d2);
	}
	lp_dump(lp, devnull, true);
	(void)lp_check(lp);
	for (snum = LP_GLOBAL; snum < lp_num_shares(lp); snum++) {
		const char **l = lp_list(mem, lp, snum, LP_VALID_USERS);

		if (l == NULL) {
			abort();
		}
		(void)lp_str_subst(mem, lp, snum, LP_PATH, NULL);
		(void)lp_str_subst(mem, lp, snum, LP_COMMENT, NULL);
		(void)lp_parm_str(lp, snum, "fruit:x", NULL);
	}
	talloc_free(mem);
	return 0;
}
