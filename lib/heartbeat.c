/*
 * Heartbeats (heartbeat.h).
 */
#include "lib/heartbeat.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

static struct heartbeat_slot *heartbeat_mine;

struct heartbeat_slot *heartbeat_table_new(unsigned n)
{
	void *p;

	if (n == 0) {
		return NULL;
	}
	p = mmap(NULL, (size_t)n * sizeof(struct heartbeat_slot),
		 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

uint64_t heartbeat_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void heartbeat_attach(struct heartbeat_slot *slot)
{
	heartbeat_mine = slot;
	heartbeat_beat();
}

void heartbeat_beat(void)
{
	if (heartbeat_mine != NULL) {
		heartbeat_set(heartbeat_mine, heartbeat_now_ms());
	}
}

uint64_t heartbeat_last(const struct heartbeat_slot *slot)
{
	return __atomic_load_n(&slot->ms, __ATOMIC_RELAXED);
}

void heartbeat_set(struct heartbeat_slot *slot, uint64_t ms)
{
	__atomic_store_n(&slot->ms, ms, __ATOMIC_RELAXED);
}

int heartbeat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	uint64_t deadline = heartbeat_now_ms() + (uint64_t)
		(timeout_ms > 0 ? timeout_ms : 0);

	for (;;) {
		uint64_t now = heartbeat_now_ms();
		int slice = HEARTBEAT_TICK_MS, r;

		if (timeout_ms >= 0) {
			if (now >= deadline) {
				slice = 0;
			} else if (deadline - now < (uint64_t)slice) {
				slice = (int)(deadline - now);
			}
		}
		heartbeat_beat();
		r = poll(fds, n, slice);
		if (r < 0) {
			return -errno;
		}
		if (r != 0 || slice == 0 ||
		    (timeout_ms >= 0 && heartbeat_now_ms() >= deadline)) {
			return r;
		}
	}
}
