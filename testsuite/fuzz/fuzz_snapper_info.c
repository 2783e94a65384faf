/*
 * libFuzzer target: snapper's info.xml parser (vfs/snapper_info.c).
 *
 * The input is an info.xml.  When a date is read, the document held the
 * date exactly as "YYYY-MM-DD hh:mm:ss" (formatted back from the time)
 * and the input was within VFS_SNAPPER_INFO_MAX; the result depends
 * only on the bytes given (a second parse of a copy agrees); a copy
 * with one more byte than the limit is always refused.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vfs/snapper_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;
	int64_t t = 0, t2 = 0;
	bool ok, ok2;

	if (size > VFS_SNAPPER_INFO_MAX + 16) {
		return 0;
	}
	/* an exact-size copy, so ASan sees any read past the end */
	copy = malloc(size ? size : 1);
	if (copy == NULL) {
		return 0;
	}
	memcpy(copy, data, size);
	ok = vfs_snapper_info_date(copy, size, &t);
	ok2 = vfs_snapper_info_date((const char *)data, size, &t2);
	if (ok != ok2 || (ok && t != t2) ||
	    (ok && size > VFS_SNAPPER_INFO_MAX)) {
		abort();
	}
	if (ok) {
		time_t tt = (time_t)t;
		struct tm tm;
		char want[32];

		/* %04d: strftime's %Y does not pad year 901 */
		if (gmtime_r(&tt, &tm) == NULL ||
		    snprintf(want, sizeof(want),
			     "%04d-%02d-%02d %02d:%02d:%02d",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			     tm.tm_hour, tm.tm_min, tm.tm_sec) != 19 ||
		    memmem(copy, size, want, 19) == NULL) {
			abort();
		}
	}
	free(copy);
	return 0;
}
