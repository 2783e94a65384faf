/*
 * libFuzzer target for the NBENCH load-file parser
 * (testsuite/bench/nbench_load.c).  build.sh links only the daemon's
 * directories, so the parser source is included here directly.  Checks
 * beyond "no crash": a failed parse leaves nothing allocated, a good one
 * yields operations whose fields respect the documented limits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testsuite/bench/nbench_load.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);
	struct nb_load *l = NULL;
	char err[256];
	size_t i;

	if (nb_load_parse(
	            ctx, (const char *)data, size, &l, err, sizeof(err)) != 0) {
		if (talloc_total_blocks(ctx) != 1 || err[0] == '\0') {
			abort();
		}
		talloc_free(ctx);
		return 0;
	}
	for (i = 0; i < l->num_ops; i++) {
		const struct nb_op *op = &l->ops[i];
		if (op->type >= NB_OP_COUNT || op->fnum > NB_MAX_FNUM ||
		    op->line == 0) {
			abort();
		}
		if ((op->type == NB_READX || op->type == NB_WRITEX) &&
		    (op->size > NB_MAX_IO || op->ret > op->size)) {
			abort();
		}
		if (op->path != NULL &&
		    (op->path[0] != '/' || strlen(op->path) > NB_MAX_PATH ||
		     strchr(op->path, '\\') != NULL)) {
			abort();
		}
	}
	talloc_free(ctx);
	return 0;
}
