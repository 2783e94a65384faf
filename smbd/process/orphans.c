/*
 * Children of a master that died (issue 34 item 9).
 *
 * A worker stops when its master goes (the pipe of smbd.h), but one that
 * cannot notice (stopped, stuck in the kernel) keeps the listening
 * sockets, so a new master could not bind, and keeps the locking tables
 * open, so TDB_CLEAR_IF_FIRST would not wipe its entries.  So the master
 * lists its children in the lock directory (smbd_children: "PID START"
 * lines, START being the kernel's start time of the process, which with
 * the pid names one process for good: a pid alone may have been given
 * to someone else since), and a master starting on the same lock
 * directory with no live master holding the pid file kills whatever of
 * that list still runs, waits for it to go, and drops its entries once
 * the tables are open (master.c).
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "conf/loadparm.h"
#include "lib/log.h"
#include "lib/proc.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a start waits for a killed orphan to go (one stuck in an
 * uninterruptible call dies when the call returns). */
#define ORPHAN_WAIT_MS 5000
/* At most this many lines are read (two per CPU is plenty). */
#define ORPHAN_MAX 4096

static char *children_path(TALLOC_CTX *mem_ctx, struct smbd_server *srv)
{
	return talloc_asprintf(mem_ctx, "%s/smbd_children",
			       lp_str(srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY));
}

void smbd_children_record(struct smbd_server *srv, const pid_t *pids,
			  size_t n)
{
	char *path = children_path(srv, srv);
	char *tmp = talloc_asprintf(srv, "%s.tmp", path ? path : "");
	char *text = talloc_strdup(srv, "");
	struct proc_info pi;
	size_t i;
	int fd;

	for (i = 0; text != NULL && i < n; i++) {
		if (pids[i] > 0 && proc_stat(pids[i], &pi)) {
			text = talloc_asprintf_append(text, "%d %" PRIu64
						      "\n", (int)pids[i],
						      pi.start);
		}
	}
	if (path == NULL || tmp == NULL || text == NULL) {
		goto done;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)
	    || close(fd) != 0 || rename(tmp, path) != 0) {
		DBG_WARNING("cannot write %s: %s (a later start will not "
			    "find this run's workers if they outlive us)\n",
			    path, log_syserr());
		if (fd != -1) {
			(void)unlink(tmp);
		}
	}
done:
	talloc_free(path);
	talloc_free(tmp);
	talloc_free(text);
}

void smbd_children_forget(struct smbd_server *srv)
{
	char *path = children_path(srv, srv);

	if (path != NULL) {
		(void)unlink(path);
	}
	talloc_free(path);
}

static uint64_t orphans_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether pid is still the process that was recorded, and running. */
static bool orphan_is(pid_t pid, uint64_t start)
{
	struct proc_info pi;

	return proc_stat(pid, &pi) && pi.start == start && proc_alive(pid);
}

/* The recorded children that still run, killed: their pids appended to
 * srv->orphans. */
static void orphans_kill(struct smbd_server *srv, FILE *f)
{
	char line[64];
	int pid;
	uint64_t start;

	while (srv->norphans < ORPHAN_MAX &&
	       fgets(line, sizeof(line), f) != NULL) {
		uint32_t *n;

		if (sscanf(line, "%d %" SCNu64, &pid, &start) != 2 ||
		    pid <= 1 || pid == (int)getpid() ||
		    !orphan_is(pid, start)) {
			continue;
		}
		if (kill(pid, SIGKILL) != 0) {
			DBG_ERR("pid %d of a previous run of this server is "
				"still running (its master died) and cannot "
				"be killed: %s\n", pid, log_syserr());
			continue;
		}
		DBG_ERR("pid %d of a previous run of this server was still "
			"running (its master died): killed\n", pid);
		n = talloc_realloc(srv, srv->orphans, uint32_t,
				   srv->norphans + 1);
		if (n == NULL) {
			continue;
		}
		srv->orphans = n;
		n[srv->norphans++] = (uint32_t)pid;
	}
}

void smbd_orphans_recover(struct smbd_server *srv)
{
	char *path = children_path(srv, srv);
	uint64_t deadline;
	pid_t master;
	size_t i, left;
	FILE *f;

	if (path == NULL) {
		return;
	}
	master = smbd_pidfile_holder(srv);
	if (master > 0) {
		/* A live master: these are its own.  Its pid file stops
		 * us later (smbd_pidfile_create). */
		talloc_free(path);
		return;
	}
	f = fopen(path, "re");
	if (f == NULL) {
		talloc_free(path);
		return;	/* the last run stopped cleanly, or never ran */
	}
	srv->unclean_stop = true;
	orphans_kill(srv, f);
	fclose(f);
	/* Not our children: we cannot wait for them, only watch. */
	deadline = orphans_now_ms() + ORPHAN_WAIT_MS;
	do {
		for (left = 0, i = 0; i < srv->norphans; i++) {
			left += proc_alive((pid_t)srv->orphans[i]);
		}
		if (left > 0) {
			usleep(10000);
		}
	} while (left > 0 && orphans_now_ms() < deadline);
	if (left > 0) {
		DBG_ERR("%zu processes of a previous run did not die within "
			"%d ms\n", left, ORPHAN_WAIT_MS);
	}
	(void)unlink(path);
	talloc_free(path);
}
