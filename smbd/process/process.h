/*
 * smbd/process/: the process model (DESIGN.md "Process model"): main
 * parses the command line and builds struct smbd_server, the master opens
 * the listeners and the shared databases, forks one worker per CPU,
 * restarts the ones that die, and re-reads smb.conf on SIGHUP; each
 * worker pins itself, runs its event loop and serves its connections.
 * smbcontrol's socket (control.c), sd_notify (sdnotify.c) and the pid
 * file live here too.
 *
 * What it may use: everything below it (smbd/smb2 and down).  It is the
 * top room: nothing includes its headers but itself.  Master and worker
 * share this interface, not each other's files: the reload both run on
 * SIGHUP is reload.c's.
 */
#ifndef SMBD_PROCESS_H
#define SMBD_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct smbd_server;

/* master.c */
int smbd_master_run(struct smbd_server *srv);
/* `smbd irq affinity`: place the NIC queue interrupts (irq_affinity.c). */
void smbd_irq_affinity_apply(struct smbd_server *srv);

/* worker.c: never returns */
void smbd_worker_main(struct smbd_server *srv, int index) __attribute__((noreturn));

/* reload.c: re-read smb.conf, then the log levels and the log file (the
 * master and every worker, each for itself); false leaves the old
 * configuration in force. */
bool smbd_reload_config(struct smbd_server *srv);

/* listen.c */
/* wait_ms > 0: a port in use is tried again for that long (after a run
 * that did not stop cleanly: its workers' sockets go a little after
 * them). */
int smbd_open_listeners(struct smbd_server *srv, unsigned wait_ms);
bool smbd_choose_cpus(struct smbd_server *srv);
/* New connections away from the workers avoid[] marks (NULL: none);
 * those already queued on worker from's sockets handed to worker to. */
void smbd_steer_avoid(struct smbd_server *srv, const bool *avoid);
unsigned smbd_take_queued(struct smbd_server *srv, int from, int to);

/* pidfile.c: the pid file, and the persistent server GUID. */
bool smbd_load_server_guid(struct smbd_server *srv);
bool smbd_pidfile_create(struct smbd_server *srv);
void smbd_pidfile_remove(struct smbd_server *srv);
pid_t smbd_pidfile_holder(struct smbd_server *srv);

/*
 * orphans.c: the master's children listed in the lock directory, and
 * at start, before the listeners, the children a dead master of this
 * configuration left running killed (their pids in srv->orphans, for
 * the master to drop their entries once the tables are open;
 * srv->unclean_stop when the last run's list was still there).
 */
void smbd_children_record(struct smbd_server *srv, const pid_t *pids,
			  size_t n);
void smbd_children_forget(struct smbd_server *srv);
void smbd_orphans_recover(struct smbd_server *srv);

#endif
