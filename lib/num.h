/*
 * Numbers read from text with strtoll(3)/strtoull(3), saying whether the
 * number fit.  The C library reports an overflow only through errno
 * (ERANGE, the value clamped), and errno stays in lib/ and vfs/ (issue
 * 37): the rooms above ask here and get a bool.  Everything else is the
 * C library's: the base (0: C's prefixes), leading space, a sign (for
 * num_strtoull a '-' negates, as strtoull does), *end after the last
 * digit, the value when nothing was read (0, *end == s).  The callers
 * keep their own checks of *end and of the range they accept.
 */
#ifndef LIB_NUM_H
#define LIB_NUM_H

#include <stdbool.h>

/* strtoll(s, end, base) into *out; false when it overflowed (ERANGE). */
bool num_strtoll(const char *s, char **end, int base, long long *out);
/* strtoull(s, end, base) into *out; false when it overflowed (ERANGE). */
bool num_strtoull(const char *s, char **end, int base,
		  unsigned long long *out);

#endif
