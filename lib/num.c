/*
 * Checked number parsing (design in num.h).
 */
#include "lib/num.h"

#include <errno.h>
#include <stdlib.h>

bool num_strtoll(const char *s, char **end, int base, long long *out)
{
	errno = 0;
	*out = strtoll(s, end, base);
	return errno == 0;
}

bool num_strtoull(const char *s, char **end, int base,
		  unsigned long long *out)
{
	errno = 0;
	*out = strtoull(s, end, base);
	return errno == 0;
}
