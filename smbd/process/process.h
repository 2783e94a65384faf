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
int smbd_open_listeners(struct smbd_server *srv);
bool smbd_choose_cpus(struct smbd_server *srv);

/* pidfile.c: the pid file, and the persistent server GUID. */
bool smbd_load_server_guid(struct smbd_server *srv);
bool smbd_pidfile_create(struct smbd_server *srv);
void smbd_pidfile_remove(struct smbd_server *srv);

#endif
