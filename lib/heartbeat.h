/*
 * Heartbeats: each worker stamps a slot of shared memory with the time
 * every HEARTBEAT_TICK_MS from its event loop, and the master, which
 * reads the slots, knows a worker whose loop no longer turns (stopped,
 * stuck in the kernel, spinning) from one that is merely idle (issue 34
 * item 10: the master's watchdog).
 *
 * The slots are a MAP_SHARED anonymous mapping the master makes before
 * forking, one cache line each so that workers never share a line.  A
 * stamp is CLOCK_MONOTONIC in milliseconds (the same clock for every
 * process of the machine), stored and loaded atomically.
 *
 * A call that blocks the loop on purpose (a request to ctdbd, which waits
 * up to `ctdb timeout`) waits through heartbeat_poll(), which beats while
 * it waits: the watchdog is for hangs, not for waits with their own
 * bound.
 */
#ifndef LIB_HEARTBEAT_H
#define LIB_HEARTBEAT_H

#include <poll.h>
#include <stdint.h>

/* How often a worker beats (and the master looks). */
#define HEARTBEAT_TICK_MS 500

struct heartbeat_slot {
	uint64_t ms;		/* the last beat, CLOCK_MONOTONIC ms */
	uint8_t pad[56];
};

/* n zeroed slots shared with every child forked later; NULL on error. */
struct heartbeat_slot *heartbeat_table_new(unsigned n);

uint64_t heartbeat_now_ms(void);
/* This process beats into slot from now on (NULL: no heartbeat). */
void heartbeat_attach(struct heartbeat_slot *slot);
/* Stamp this process's slot with the time (nothing without one). */
void heartbeat_beat(void);
uint64_t heartbeat_last(const struct heartbeat_slot *slot);
void heartbeat_set(struct heartbeat_slot *slot, uint64_t ms);

/* poll(2), beating every HEARTBEAT_TICK_MS while it waits (timeout_ms
 * < 0: for ever); a failure returns -errno (-EINTR: interrupted), so
 * that callers above lib/ read no errno (issue 37). */
int heartbeat_poll(struct pollfd *fds, nfds_t n, int timeout_ms);

#endif
