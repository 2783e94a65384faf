/*
 * The master's side of systemd's service protocol (sd_notify(3), through
 * libsystemd): READY=1 once the workers serve, RELOADING=1 / READY=1
 * around a SIGHUP reload, STOPPING=1, and a STATUS= line with the
 * workers and connections, refreshed every SMBD_NOTIFY_STATUS_MS.  Each
 * call does nothing when NOTIFY_SOCKET is not set (not run by systemd),
 * so the unit can be Type=notify and a hand start costs nothing.
 */
#ifndef SMBD_SDNOTIFY_H
#define SMBD_SDNOTIFY_H

#include <stdbool.h>

struct smbd_server;

#define SMBD_NOTIFY_STATUS_MS 10000

/* Whether a service manager listens (NOTIFY_SOCKET set at start). */
bool smbd_notify_enabled(void);
void smbd_notify_ready(const struct smbd_server *srv);
void smbd_notify_reloading(void);
void smbd_notify_stopping(void);
/* STATUS= only: how many workers serve how many connections. */
void smbd_notify_status(const struct smbd_server *srv);

#endif
