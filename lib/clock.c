/*
 * Coarse clock: CLOCK_*_COARSE are read from the vDSO without a syscall and
 * are as precise as protocol "now" needs (a few ms).
 */
#include "lib/clock.h"

struct timespec clock_cached_rt;
struct timespec clock_cached_mono;

void clock_update(void)
{
	clock_gettime(CLOCK_REALTIME_COARSE, &clock_cached_rt);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &clock_cached_mono);
}

uint64_t nttime_from_timespec(const struct timespec *ts)
{
	if (ts->tv_sec < -(time_t)NTTIME_EPOCH_DELTA) {
		return 0;
	}
	return ((uint64_t)(ts->tv_sec + (time_t)NTTIME_EPOCH_DELTA)) *
		       10000000ULL +
	       (uint64_t)ts->tv_nsec / 100;
}

void timespec_from_nttime(uint64_t nt, struct timespec *ts)
{
	ts->tv_sec = (time_t)(nt / 10000000ULL) - (time_t)NTTIME_EPOCH_DELTA;
	ts->tv_nsec = (long)(nt % 10000000ULL) * 100;
}
