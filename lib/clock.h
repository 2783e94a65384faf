/*
 * The coarse cached clock (DESIGN.md "Clock").
 *
 * Each worker loop calls clock_update() once per iteration; protocol code
 * asks clock_now()/clock_nttime() and never makes a syscall of its own for
 * "now".  NTTIME is 100 ns units since 1601-01-01 (MS-DTYP 2.3.3).
 */
#ifndef LIB_CLOCK_H
#define LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Seconds between 1601-01-01 and 1970-01-01. */
#define NTTIME_EPOCH_DELTA 11644473600ULL

extern struct timespec clock_cached_rt;
extern struct timespec clock_cached_mono;

void clock_update(void);

static inline time_t clock_now(void)
{
	return clock_cached_rt.tv_sec;
}

/* Monotonic milliseconds, for timeouts. */
static inline uint64_t clock_mono_ms(void)
{
	return (uint64_t)clock_cached_mono.tv_sec * 1000 +
	       (uint64_t)clock_cached_mono.tv_nsec / 1000000;
}

uint64_t nttime_from_timespec(const struct timespec *ts);
void timespec_from_nttime(uint64_t nt, struct timespec *ts);

static inline uint64_t clock_nttime(void)
{
	return nttime_from_timespec(&clock_cached_rt);
}

#endif
