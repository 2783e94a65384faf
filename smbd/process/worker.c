/*
 * A worker process: pinned to one CPU, one event loop, many connections
 * (DESIGN.md "Worker").  It accepts only on its own socket of each
 * reuseport group, so the CBPF program in listen.c decides which worker
 * serves a connection.
 */
#include "smbd/conn/conn_limits.h"
#include "smbd/conn/smb2_metrics.h"
#include "smbd/process/control.h"
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "smbd/conn/conn.h"
#include "smbd/msg/mailbox.h"
#include "smbd/conn/session.h"
#include "smbd/smb2/smb2_cmds.h"
#include "conf/loadparm.h"
#include "lib/crash.h"
#include "lib/ev.h"
#include "lib/heartbeat.h"
#include "lib/log.h"
#include "lib/tpool.h"
#include "locking/locking.h"
#include "smbd/objects/cluster.h"

#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void worker_on_accept(void *priv, int fd)
{
	smbd_spread_accept(priv, fd);
}

/* The master is gone (kill -9, a crash): nobody would clean up after
 * us or restart us, and a new master needs the port.  Stop, leaving no
 * entries behind (worker_main). */
static bool worker_orphaned;

static void worker_on_master_gone(void *priv)
{
	struct smbd_worker *w = priv;

	if (worker_orphaned) {
		return;	/* the watch stays readable until the loop ends */
	}
	worker_orphaned = true;
	DBG_ERR("worker %d: the master is gone: stopping\n", w->index);
	w->stopping = true;
	ev_loop_stop(w->loop);
}

/* The master's watchdog sees the loop turn (lib/heartbeat.h). */
static void worker_beat(void *priv)
{
	struct smbd_worker *w = priv;

	heartbeat_beat();
	if (ev_timer_add(w, w->loop, HEARTBEAT_TICK_MS, worker_beat, w) ==
	    NULL) {
		DBG_ERR("worker %d: no heartbeat timer: the watchdog will "
			"take this worker for hung\n", w->index);
	}
}

/* What the master would have done after our death: our share modes,
 * locks and status records go (other nodes are told when clustered). */
static void worker_clean_own(struct smbd_worker *w)
{
	uint32_t pid = (uint32_t)getpid();

	locking_cleanup_pid(w->locking, pid);
	smbd_cluster_owner_gone(w->locking, pid);
}

/* Logon work's lane in the pool: `username map script` (which has its
 * own time limit) and PAM may be slow, and eight at once per worker is
 * plenty for logons while they cannot hold what file work needs. */
#define WORKER_LOGON_LANE_CAP 8

/* `smbd pool max threads` (lib/tpool.h): at start and at each reload. */
static void worker_pool_limits(struct smbd_worker *w)
{
	int max = lp_int(w->srv->lp, LP_GLOBAL, LP_SMBD_POOL_MAX_THREADS);
	struct tpool_limits lim = {0};

	if (max > SMBD_POOL_THREADS_LIMIT) {
		max = SMBD_POOL_THREADS_LIMIT;
	}
	lim.max_threads = max < 1 ? 1 : (unsigned)max;
	tpool_set_limits(w->tpool, &lim);
}

static void worker_on_signal(void *priv, int signo)
{
	struct smbd_worker *w = priv;

	switch (signo) {
	case SIGTERM:
	case SIGINT:
		w->stopping = true;
		ev_loop_stop(w->loop);
		break;
	case SIGHUP:
		if (smbd_reload_config(w->srv)) {
			worker_pool_limits(w);
			smbd_tcons_reloaded(w);
			DBG_NOTICE("worker %d reloaded the configuration\n",
				   w->index);
		}
		break;
	default:
		break;
	}
}

/* The CPUs the worker may use, as the master was started with (taskset
 * or systemd's CPUAffinity), before its loop thread was pinned. */
static cpu_set_t worker_allowed;

static void worker_pin(struct smbd_worker *w)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(worker_allowed), &worker_allowed) !=
	    0) {
		CPU_ZERO(&worker_allowed);
	}
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		DBG_WARNING("cannot pin worker %d to cpu %d: %s\n", w->index,
			    w->cpu, log_syserr());
	}
}

/*
 * Large READ and WRITE buffers (up to SMBD_MAX_IO each) come from the
 * heap and stay there when freed.  With glibc's defaults a buffer of
 * 8 MiB is mapped fresh on each request, or taken from a heap that was
 * trimmed back to the kernel after the last one, so every request pays
 * a page fault per 4 KiB of it before any data moves: an 8 MiB pread
 * from the page cache took 2.1 ms into new memory and 0.7 ms into
 * reused memory, and a signed 512 MiB get spent three quarters of the
 * server's CPU in those faults (testsuite/bench/README.md, "Large
 * transfers").
 * The cost is memory a worker keeps after a burst of large transfers:
 * at most SMBD_MALLOC_KEEP of free heap at its top.
 */
#define SMBD_MALLOC_MMAP (32 * 1024 * 1024)	/* glibc's 64-bit maximum */
#define SMBD_MALLOC_KEEP (32 * 1024 * 1024)

static void worker_tune_malloc(void)
{
	if (mallopt(M_MMAP_THRESHOLD, SMBD_MALLOC_MMAP) != 1 ||
	    mallopt(M_TRIM_THRESHOLD, SMBD_MALLOC_KEEP) != 1) {
		DBG_NOTICE("malloc thresholds not set: large transfers "
			   "will fault in fresh memory\n");
	}
}

static struct ev_loop *worker_loop(struct smbd_worker *w)
{
	int want = lp_int(w->srv->lp, LP_GLOBAL, LP_SMBD_IO_BACKEND);
	struct ev_loop *loop = NULL;

	if (want == LP_IO_URING) {
		loop = ev_loop_new(w, EV_BACKEND_URING);
		if (loop == NULL) {
			DBG_WARNING("worker %d: io_uring unavailable, "
				    "falling back to epoll\n",
				    w->index);
		}
	}
	if (loop == NULL) {
		loop = ev_loop_new(w, EV_BACKEND_EPOLL);
	}
	if (loop != NULL) {
		DBG_NOTICE("worker %d uses the %s loop\n", w->index,
			 ev_backend_name(ev_loop_backend(loop)));
	}
	return loop;
}

void smbd_worker_main(struct smbd_server *srv, int index)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	struct smbd_worker *w;
	char role[32];
	sigset_t none;
	size_t g;
	int i;

	snprintf(role, sizeof(role), "worker %d", index);
	log_set_role(role);
	if (srv->control_fd != -1) {
		close(srv->control_fd);	/* smbcontrol talks to the master */
		srv->control_fd = -1;
	}
	crash_set_panic_action(lp_str(srv->lp, LP_GLOBAL, LP_PANIC_ACTION));
	/* Die with the master: no orphaned workers holding the port.  Not
	 * PR_SET_PDEATHSIG: the kernel clears it when a thread's effective
	 * ids change, as the loop thread's do for a ring personality
	 * (smbd_tcon_personality).  The pipe's EOF cannot be lost: had the
	 * master died already, the read end is readable at once. */
	close(srv->alive_wr);
	srv->alive_wr = -1;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);

	/* The first beat: the start counts from here. */
	heartbeat_attach(srv->heartbeats ? &srv->heartbeats[index] : NULL);
	w = talloc_zero(srv, struct smbd_worker);
	if (w == NULL) {
		_exit(1);
	}
	w->srv = srv;
	w->index = index;
	w->cpu = srv->worker_cpus[index];
	worker_pin(w);
	worker_tune_malloc();
	smbd_conn_limits_worker_init(w);

	/* Keep only our own socket of each group. */
	for (g = 0; g < srv->ngroups; g++) {
		for (i = 0; i < srv->nworkers; i++) {
			if (i != index) {
				close(srv->groups[g].fds[i]);
			}
		}
	}
	/* The shared locking DB: the master's handle, reopened so this
	 * process has its own file descriptors and locks (tdb refuses a
	 * second open of the same file in one process). */
	if (srv->locking == NULL ||
	    !NT_STATUS_IS_OK(locking_db_reopen(srv->locking))) {
		DBG_ERR("worker %d: cannot reopen the locking database\n",
			index);
		_exit(1);
	}
	w->locking = srv->locking;
	smbd_conn_stats_publish(w);
	w->loop = worker_loop(w);
	if (w->loop == NULL) {
		DBG_ERR("worker %d: no event loop\n", index);
		_exit(1);
	}
	smbd_metrics_worker_init(w);
	if (!smbd_cluster_worker_init(w)) {
		DBG_ERR("worker %d: no cluster messages\n", index);
		_exit(1);
	}
	/* Four threads: enough to overlap a few slow disk calls per CPU
	 * while the loop keeps serving.  The loop stays on its CPU (the
	 * one the kernel steers its connections to); the pool may use any
	 * of the server's, so one busy session (its channels all live on
	 * this worker: smbd/conn/conn_handover.c) signs, encrypts and
	 * reads on more CPUs than one (testsuite/bench/README.md
	 * "Multichannel"). */
	w->tpool = tpool_new(w, w->loop, 4);
	if (w->tpool == NULL) {
		DBG_ERR("worker %d: no thread pool\n", index);
		_exit(1);
	}
	/* It grows past its four while calls are stuck, up to `smbd pool
	 * max threads`; shares and logons run in lanes of their own. */
	worker_pool_limits(w);
	w->logon_lane = tpool_lane_get(w->tpool, "logon",
				       WORKER_LOGON_LANE_CAP);
	if (CPU_COUNT(&worker_allowed) > 1 &&
	    !tpool_set_affinity(w->tpool, &worker_allowed)) {
		DBG_WARNING("worker %d: its pool stays on cpu %d\n", index,
			    w->cpu);
	}
	if (!smb2_server_install(w)) {
		DBG_ERR("worker %d: out of memory\n", index);
		_exit(1);
	}
	smbd_control_register(w);
	if (!smbd_mailbox_listen(w->mbox, w->loop)) {
		DBG_ERR("worker %d: cannot watch its mailbox\n", index);
		_exit(1);
	}
	if (ev_signals(w->loop, sigs, sizeof(sigs) / sizeof(sigs[0]),
		       worker_on_signal, w) != 0) {
		DBG_ERR("worker %d: cannot watch signals\n", index);
		_exit(1);
	}
	if (ev_watch_fd(w->loop, w, srv->alive_rd, worker_on_master_gone,
			w) != 0) {
		DBG_ERR("worker %d: cannot watch the master\n", index);
		_exit(1);
	}
	/* The master blocked these; the loop takes them via signalfd. */
	sigemptyset(&none);
	sigaddset(&none, SIGCHLD);
	sigaddset(&none, SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &none, NULL);
	for (g = 0; g < srv->ngroups; g++) {
		if (ev_listen(w->loop, srv->groups[g].fds[index],
			      worker_on_accept, w) != 0) {
			DBG_ERR("worker %d: cannot listen\n", index);
			_exit(1);
		}
	}
	worker_beat(w);
	DBG_INFO("worker %d running on cpu %d\n", index, w->cpu);
	(void)ev_loop_run(w->loop);
	DBG_INFO("worker %d stopping with %u connections\n", index,
		 w->nconns);
	if (worker_orphaned) {
		worker_clean_own(w);
	}
	/* Connections go with the worker; the kernel closes the sockets. */
	_exit(0);
}
