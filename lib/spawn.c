/*
 * A helper program run to completion, its output captured: the design
 * is in spawn.h (moved out of smbd/smb2/user_map.c, issue 37).
 */
#include "lib/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Read the child's output until EOF, the byte bound or the deadline. */
static size_t spawn_read(int fd, char *buf, size_t max, struct timespec end)
{
	size_t have = 0;

	while (have < max) {
		struct timespec now;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long ms;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (end.tv_sec - now.tv_sec) * 1000 +
		     (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0 || poll(&p, 1, (int)ms) <= 0) {
			break;
		}
		n = read(fd, buf + have, max - have);
		if (n <= 0) {
			break;
		}
		have += (size_t)n;
	}
	return have;
}

/* Reap pid, waiting until end at most; false when it still runs. */
static bool spawn_reap(pid_t pid, int *status, struct timespec end)
{
	struct timespec now;

	if (waitpid(pid, status, WNOHANG) != 0) {
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	while (waitpid(pid, status, WNOHANG) == 0 &&
	       (now.tv_sec < end.tv_sec ||
		(now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec))) {
		struct timespec pause = {0, 10 * 1000 * 1000};

		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	}
	return waitpid(pid, status, WNOHANG) != 0;
}

bool spawn_capture(char *const argv[], char *out, size_t max,
		   unsigned seconds, size_t *n, char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	struct timespec end;
	int pfd[2], status = 0, rc;
	pid_t pid;

	*n = 0;
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot start: %s", strerror(errno));
		return false;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc != 0) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot start: %s", strerror(rc));
		return false;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	*n = spawn_read(pfd[0], out, max, end);
	close(pfd[0]);
	/* Past the deadline or the output bound it is killed; either way
	 * it is reaped here. */
	if (!spawn_reap(pid, &status, end)) {
		kill(pid, SIGKILL);
		(void)waitpid(pid, &status, 0);
		snprintf(err, errlen, "killed after %u s or %zu bytes",
			 seconds, max);
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "failed (status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return false;
	}
	return true;
}
