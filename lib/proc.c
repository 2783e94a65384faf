#include "lib/proc.h"

#include <pthread.h>
#include <unistd.h>

static pid_t cached_pid;

static void proc_forked(void)
{
	cached_pid = 0;
}

/* Registered before main(): a fork made any time later resets the
 * cache in its child. */
__attribute__((constructor)) static void proc_init(void)
{
	(void)pthread_atfork(NULL, NULL, proc_forked);
}

pid_t proc_pid(void)
{
	pid_t p = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);

	if (p == 0) {
		p = getpid();
		__atomic_store_n(&cached_pid, p, __ATOMIC_RELAXED);
	}
	return p;
}
