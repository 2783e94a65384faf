/*
 * The master process (DESIGN.md "Process model"): forks one worker per
 * CPU, pins each, restarts a worker that dies, reloads on SIGHUP, stops on
 * SIGTERM.  It does no SMB work, so it cannot be slowed by a client.
 *
 * Signals are blocked and taken synchronously with sigtimedwait(), so the
 * loop has no async-signal-safety traps.  A worker that dies is restarted
 * at once, but no more often than once a second per slot, so a worker that
 * crashes at start-up cannot turn the master into a fork loop.
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "smbd/conn/conn_limits.h"
#include "smbd/conn/auth_limit.h"
#include "smbd/conn/conn.h"
#include "smbd/msg/mailbox.h"
#include "smbd/process/sdnotify.h"
#include "smbd/process/control.h"
#include "smbd/process/metrics_http.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/objects/oplock.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/heartbeat.h"
#include "lib/log.h"
#include "locking/locking.h"
#include "smbd/objects/cluster.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct smbd_slot {
	pid_t pid;
	uint64_t last_start_ms;
	bool pending_restart;
	bool late;		/* heartbeat late: no new connections */
	bool watchdog_killed;	/* the watchdog sent SIGKILL */
};

/* The set of children changed since the lock directory's list was
 * written (orphans.c). */
static bool master_children_changed;

static void master_record_children(struct smbd_server *srv,
				   const struct smbd_slot *slots)
{
	pid_t *pids = talloc_array(srv, pid_t, srv->nworkers + 1);
	size_t n = 0;
	int i;

	if (pids == NULL) {
		return;
	}
	for (i = 0; i < srv->nworkers; i++) {
		if (slots[i].pid > 0) {
			pids[n++] = slots[i].pid;
		}
	}
	if (smbd_metrics_http_pid() > 0) {
		pids[n++] = smbd_metrics_http_pid();
	}
	smbd_children_record(srv, pids, n);
	talloc_free(pids);
	master_children_changed = false;
}

static uint64_t master_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool master_start_worker(struct smbd_server *srv,
				struct smbd_slot *slots, int i)
{
	pid_t pid;

	/* Its start counts as a beat: the watchdog gives it the whole
	 * timeout to reach its loop. */
	if (srv->heartbeats != NULL) {
		heartbeat_set(&srv->heartbeats[i], heartbeat_now_ms());
	}
	pid = fork();

	if (pid == -1) {
		DBG_ERR("cannot fork worker %d: %s\n", i, log_syserr());
		slots[i].pending_restart = true;
		return false;
	}
	if (pid == 0) {
		smbd_worker_main(srv, i);
	}
	/* Pin from here too, so the worker is on its CPU by the time the
	 * line below is logged and anyone reading it checks (the worker
	 * also pins itself and does not depend on this). */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(srv->worker_cpus[i], &set);
		(void)sched_setaffinity(pid, sizeof(set), &set);
	}
	slots[i].pid = pid;
	slots[i].last_start_ms = master_now_ms();
	slots[i].pending_restart = false;
	slots[i].watchdog_killed = false;
	master_children_changed = true;
	DBG_NOTICE("started worker %d pid %d on cpu %d\n", i, (int)pid,
		   srv->worker_cpus[i]);
	return true;
}

static void master_reap(struct smbd_server *srv, struct smbd_slot *slots,
			bool stopping)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < srv->nworkers; i++) {
			if (slots[i].pid == pid) {
				break;
			}
		}
		if (i == srv->nworkers) {
			if (!stopping &&
			    smbd_metrics_http_reaped(srv, pid, status)) {
				master_children_changed = true;
			}
			continue; /* e.g. a panic action's child */
		}
		slots[i].pid = 0;
		master_children_changed = true;
		if (stopping) {
			continue;
		}
		if (WIFSIGNALED(status)) {
			DBG_ERR("worker %d (pid %d) died with signal %d\n", i,
				(int)pid, WTERMSIG(status));
		} else {
			DBG_ERR("worker %d (pid %d) died with status %d\n", i,
				(int)pid, WEXITSTATUS(status));
		}
		/* Its share modes and locks go before anyone waits on them
		 * (issue 6: "the master removes a dead worker's entries"). */
		if (srv->locking != NULL) {
			locking_cleanup_pid(srv->locking, (uint32_t)pid);
			/* Clustered: the records it touched may be held by
			 * other nodes now; each cleans its own. */
			smbd_cluster_owner_gone(srv->locking, (uint32_t)pid);
		}
		slots[i].pending_restart = true;
	}
}

/*
 * The watchdog (issue 34 item 10).  A worker's loop stamps its heartbeat
 * every HEARTBEAT_TICK_MS (lib/heartbeat.h); one whose last stamp is
 * older than `smbd watchdog timeout` is hung (SIGSTOPped, stuck in the
 * kernel, spinning): it is killed, and the reaper cleans its entries and
 * restarts it as after a crash.  Before that, once it is a few ticks
 * late, new connections of its CPU go to another worker
 * (smbd_steer_avoid), and those already queued for it are handed to that
 * worker (smbd_take_queued), until it beats again or its successor
 * starts: a hang costs new clients about WATCHDOG_LATE_MS, not the
 * timeout.
 * The loop never blocks on purpose for longer than a tick, except in
 * waits that beat (heartbeat_poll: ctdbd, bounded by `ctdb timeout`).
 */
#define WATCHDOG_LATE_MS (3 * HEARTBEAT_TICK_MS)

static void master_steer(struct smbd_server *srv, struct smbd_slot *slots)
{
	bool *avoid = talloc_zero_array(srv, bool, srv->nworkers);
	int i;

	if (avoid == NULL) {
		return;
	}
	for (i = 0; i < srv->nworkers; i++) {
		avoid[i] = slots[i].late;
	}
	smbd_steer_avoid(srv, avoid);
	talloc_free(avoid);
}

/* What the kernel queued on a late worker's sockets goes to the next
 * worker that is not late (smbd_take_queued). */
static void master_take_queued(struct smbd_server *srv,
			       const struct smbd_slot *slots)
{
	int i, k, to;
	unsigned n;

	for (i = 0; i < srv->nworkers; i++) {
		if (!slots[i].late) {
			continue;
		}
		for (to = -1, k = 1; to < 0 && k < srv->nworkers; k++) {
			int j = (i + k) % srv->nworkers;

			if (slots[j].pid > 0 && !slots[j].late) {
				to = j;
			}
		}
		if (to < 0) {
			continue;
		}
		n = smbd_take_queued(srv, i, to);
		if (n > 0) {
			DBG_NOTICE("worker %d is late: %u connections waiting "
				   "for it handed to worker %d\n", i, n, to);
		}
	}
}

/* ms until the next look, or -1 when the watchdog is off. */
static int master_watchdog(struct smbd_server *srv, struct smbd_slot *slots)
{
	int secs = lp_int(srv->lp, LP_GLOBAL, LP_SMBD_WATCHDOG_TIMEOUT);
	uint64_t now = master_now_ms(), limit, late_after;
	bool changed = false;
	int i;

	limit = secs > 0 ? (uint64_t)secs * 1000 : 0;
	late_after = limit / 2 < WATCHDOG_LATE_MS ? limit / 2
						  : WATCHDOG_LATE_MS;
	for (i = 0; i < srv->nworkers; i++) {
		struct smbd_slot *sl = &slots[i];
		uint64_t last, age;
		bool late;

		if (sl->pid <= 0 || limit == 0 || srv->heartbeats == NULL) {
			changed |= sl->late;
			sl->late = false;
			continue;
		}
		last = heartbeat_last(&srv->heartbeats[i]);
		if (last < sl->last_start_ms) {
			last = sl->last_start_ms;
		}
		age = now > last ? now - last : 0;
		late = age >= late_after;
		if (late != sl->late) {
			DBG_NOTICE("worker %d (pid %d) %s: new connections "
				   "%s\n", i, (int)sl->pid,
				   late ? "is late" : "beats again",
				   late ? "go to the other workers"
					: "of its cpu are its own again");
			sl->late = late;
			changed = true;
		}
		if (age >= limit && !sl->watchdog_killed) {
			DBG_ERR("worker %d (pid %d) missed its heartbeat for "
				"%llu ms (smbd watchdog timeout = %d): killing "
				"it\n", i, (int)sl->pid,
				(unsigned long long)age, secs);
			if (kill(sl->pid, SIGKILL) == 0) {
				sl->watchdog_killed = true;
			}
		}
	}
	if (changed) {
		master_steer(srv, slots);
	}
	master_take_queued(srv, slots);
	return limit > 0 ? HEARTBEAT_TICK_MS : -1;
}

/* Restart due slots; returns ms until the next one is due, or -1. */
static int master_restart_due(struct smbd_server *srv, struct smbd_slot *slots)
{
	uint64_t now = master_now_ms();
	int i, next = -1;

	for (i = 0; i < srv->nworkers; i++) {
		uint64_t due;

		if (!slots[i].pending_restart) {
			continue;
		}
		due = slots[i].last_start_ms + 1000;
		if (now >= due) {
			master_start_worker(srv, slots, i);
			continue;
		}
		if (next == -1 || (int)(due - now) < next) {
			next = (int)(due - now);
		}
	}
	return next;
}

static void master_signal_workers(struct smbd_server *srv,
				  struct smbd_slot *slots, int sig)
{
	int i;

	for (i = 0; i < srv->nworkers; i++) {
		if (slots[i].pid > 0) {
			kill(slots[i].pid, sig);
		}
	}
}

static void master_stop(struct smbd_server *srv, struct smbd_slot *slots)
{
	uint64_t deadline = master_now_ms() + 5000;
	int alive, i;

	master_signal_workers(srv, slots, SIGTERM);
	for (;;) {
		master_reap(srv, slots, true);
		for (alive = 0, i = 0; i < srv->nworkers; i++) {
			alive += slots[i].pid > 0;
		}
		if (alive == 0) {
			break;
		}
		if (master_now_ms() > deadline) {
			DBG_WARNING("%d workers did not stop: killing them\n",
				    alive);
			master_signal_workers(srv, slots, SIGKILL);
			deadline = master_now_ms() + 5000;
		}
		usleep(10000);
	}
}

static int min_timeout(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/*
 * What the master does between signals: restart due workers, list its
 * children in the lock directory (orphans.c), the watchdog, the locking
 * tables' vacuum (locking.h).  Returns ms until the next one is due, or
 * -1.
 */
static int master_chores(struct smbd_server *srv, struct smbd_slot *slots,
			 uint64_t *vacuum_due)
{
	int timeout = master_restart_due(srv, slots);
	uint64_t now;

	if (master_children_changed) {
		master_record_children(srv, slots);
	}
	timeout = min_timeout(timeout, master_watchdog(srv, slots));
	now = master_now_ms();
	if (now >= *vacuum_due) {
		locking_vacuum(srv->locking);
		now = master_now_ms();
		*vacuum_due = now + LOCKING_VACUUM_SECS * 1000;
	}
	return min_timeout(timeout, (int)(*vacuum_due - now));
}

/*
 * The entries of a previous run's processes killed at start: usually
 * gone with TDB_CLEAR_IF_FIRST already, unless one of them still had the
 * tables open (stuck in the kernel when we gave up waiting).
 */
static void master_clean_orphans(struct smbd_server *srv)
{
	size_t i;

	for (i = 0; i < srv->norphans; i++) {
		locking_cleanup_pid(srv->locking, srv->orphans[i]);
	}
	TALLOC_FREE(srv->orphans);
	srv->norphans = 0;
}

/*
 * The locking database, created (and wiped of a previous run's entries)
 * before any worker opens it; the master keeps it for the cleanup.
 * `clustering = yes`: in CTDB through this node's ctdbd, and entries a
 * previous run of this node left in records held here are dropped.
 */
static bool master_open_locking(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	struct locking_cluster_opts co;
	NTSTATUS status;

	if (!lp_bool(srv->lp, LP_GLOBAL, LP_CLUSTERING)) {
		status = locking_db_open(srv, dir, true, &srv->locking);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_ERR("cannot open the locking database in %s\n",
				dir);
			return false;
		}
		master_clean_orphans(srv);
		return true;
	}
	co.socket = lp_str(srv->lp, LP_GLOBAL, LP_CTDBD_SOCKET);
	if (co.socket == NULL || *co.socket == '\0') {
		co.socket = SMBD_CTDBD_SOCKET_DEFAULT;
	}
	co.timeout_ms = (unsigned)lp_int(srv->lp, LP_GLOBAL, LP_CTDB_TIMEOUT);
	co.warn_ms = (unsigned)lp_int(srv->lp, LP_GLOBAL,
				      LP_CTDB_LOCKTIME_WARN_THRESHOLD);
	status = locking_db_open_clustered(srv, dir, &co, &srv->locking);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_ERR("clustering = yes: cannot use ctdbd at %s (ctdbd "
			"socket): %s\n", co.socket, nt_errstr(status));
		return false;
	}
	locking_cleanup_node(srv->locking);
	master_clean_orphans(srv);
	return true;
}

int smbd_master_run(struct smbd_server *srv)
{
	struct smbd_slot *slots;
	sigset_t set;
	int i, timeout;
	uint64_t status_due, vacuum_due;

	slots = talloc_zero_array(srv, struct smbd_slot, srv->nworkers);
	if (slots == NULL) {
		return 1;
	}
	srv->heartbeats = heartbeat_table_new((unsigned)srv->nworkers);
	if (srv->heartbeats == NULL) {
		DBG_ERR("no heartbeat table: the watchdog is off\n");
	}
	/* Before any child: each watches the read end for the master's
	 * death (smbd.h).  Close-on-exec, so that no program a child runs
	 * (a script, the panic action) keeps it open. */
	{
		int p[2];

		if (pipe2(p, O_CLOEXEC) != 0) {
			DBG_ERR("cannot make the master's pipe: %s\n",
				log_syserr());
			return 1;
		}
		srv->alive_rd = p[0];
		srv->alive_wr = p[1];
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/* Created (and wiped of a previous run's entries) before any
	 * worker opens it; the master keeps it open for the cleanup. */
	if (!master_open_locking(srv)) {
		return 1;
	}
	if (!smbd_mailboxes_create(srv) || !smbd_spread_create(srv) ||
	    !smbd_conn_limits_create(srv) || !smbd_auth_limit_create(srv) ||
	    !smbd_dirlease_flag_create(srv) || !smbd_metrics_create(srv)) {
		return 1;
	}
	/* smbcontrol's socket: without it the server still runs (the
	 * signals do the same for reload and shutdown). */
	srv->control_fd = smbd_control_open(srv);
	for (i = 0; i < srv->nworkers; i++) {
		master_start_worker(srv, slots, i);
	}
	/* The NIC's queues onto the workers' CPUs, now that they are
	 * pinned there (not fatal: see irq_affinity.c). */
	smbd_irq_affinity_apply(srv);
	smbd_metrics_http_start(srv);
	DBG_NOTICE("master pid %d serving with %d workers\n", (int)getpid(),
		   srv->nworkers);
	vacuum_due = master_now_ms() + LOCKING_VACUUM_SECS * 1000;
	/* The sockets were bound before the fork: from here on a client's
	 * connection is accepted by a worker, so the service is up. */
	smbd_notify_ready(srv);
	status_due = master_now_ms() + SMBD_NOTIFY_STATUS_MS;

	for (;;) {
		struct timespec ts, *tsp = NULL;
		siginfo_t si;
		int sig;

		timeout = master_chores(srv, slots, &vacuum_due);
		if (smbd_notify_enabled()) {
			uint64_t now = master_now_ms();
			int left = now >= status_due
					   ? 0
					   : (int)(status_due - now);

			if (left == 0) {
				smbd_notify_status(srv);
				status_due = now + SMBD_NOTIFY_STATUS_MS;
				left = SMBD_NOTIFY_STATUS_MS;
			}
			if (timeout < 0 || left < timeout) {
				timeout = left;
			}
		}
		if (timeout >= 0) {
			ts.tv_sec = timeout / 1000;
			ts.tv_nsec = (long)(timeout % 1000) * 1000000;
			tsp = &ts;
		}
		sig = tsp ? sigtimedwait(&set, &si, tsp)
			  : sigwaitinfo(&set, &si);
		if (sig == -1) {
			continue; /* timeout or EINTR: restart what is due */
		}
		if (sig == SIGIO && srv->control_fd != -1) {
			enum smbd_control_op action = SMBD_CONTROL_NONE;

			smbd_control_handle(srv, srv->control_fd, &action);
			sig = action == SMBD_CONTROL_RELOAD ? SIGHUP
			      : action == SMBD_CONTROL_SHUTDOWN ? SIGTERM
								 : SIGIO;
		}
		switch (sig) {
		case SIGCHLD:
			master_reap(srv, slots, false);
			break;
		case SIGHUP:
			smbd_notify_reloading();
			if (smbd_reload_config(srv)) {
				DBG_NOTICE("reloaded %s\n", srv->config_file);
			}
			master_signal_workers(srv, slots, SIGHUP);
			smbd_notify_ready(srv);
			break;
		case SIGTERM:
		case SIGINT:
			smbd_notify_stopping();
			DBG_NOTICE("got signal %d: shutting down\n", sig);
			smbd_metrics_http_stop();
			master_stop(srv, slots);
			smbd_children_forget(srv);
			smbd_control_close(srv);
			smbd_pidfile_remove(srv);
			DBG_NOTICE("stopped\n");
			return 0;
		default:
			break;
		}
	}
}
