/*
 * The hit of an invariant check (lib/bug.h): one log line, then abort()
 * for the crash handler's backtrace.
 */
#include "lib/bug.h"
#include "lib/log.h"

#include <stdlib.h>

void bug_hit(const char *file, int line, const char *cond)
{
	DBG_ERR("BUG at %s:%d: %s\n", file, line, cond);
	abort();
}
