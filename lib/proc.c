#include "lib/proc.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/*
 * /proc/PID/stat: "PID (COMM) STATE PPID ...", COMM may hold spaces and
 * parentheses, so fields are counted from the last ')': the thread count
 * is field 20, the start time field 22 (proc(5)).
 */
bool proc_stat(pid_t pid, struct proc_info *out)
{
	char path[32], buf[1024], *p, *end;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		return false;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0') {
		return false;
	}
	out->state = p[2];
	p += 3;	/* the space before field 4 */
	for (field = 4; field <= 22; field++) {
		p = strchr(p, ' ');
		if (p == NULL) {
			return false;
		}
		p++;
		if (field == 20) {
			out->threads = strtoul(p, NULL, 10);
		}
	}
	errno = 0;
	out->start = strtoull(p, &end, 10);
	return errno == 0 && end != p;
}

bool proc_exists(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

bool proc_alive(pid_t pid)
{
	struct proc_info pi;

	if (pid <= 0 || !proc_exists(pid)) {
		return false;
	}
	if (!proc_stat(pid, &pi)) {
		/* No /proc mounted: what kill() said.  Gone meanwhile:
		 * dead. */
		return access("/proc/self/stat", F_OK) != 0;
	}
	/* A zombie leader whose other threads still exit holds the
	 * process's files (sockets, locks) until the last one is done. */
	return !(pi.state == 'Z' || pi.state == 'X') || pi.threads > 1;
}

pid_t proc_parent(void)
{
	return getppid();
}

ssize_t proc_stat_text(pid_t pid, char *buf, size_t size)
{
	char path[32];
	ssize_t got = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd != -1) {
		got = read(fd, buf, size - 1);
		close(fd);
	}
	if (got >= 0) {
		buf[got] = '\0';
	}
	return got;
}

void *proc_shared_alloc(size_t size, const char *what)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		DBG_ERR("%s: %s\n", what, strerror(errno));
		return NULL;
	}
	return p;
}
