/*
 * See sdnotify.h.  sd_notify() itself ignores a missing NOTIFY_SOCKET;
 * smbd_notify_enabled() lets the master skip its status timer as well.
 */
#include "smbd/process/sdnotify.h"
#include "smbd/smbd.h"
#include "smbd/conn/conn_limits.h"
#include "lib/log.h"

#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

bool smbd_notify_enabled(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s != NULL && s[0] != '\0';
}

static void notify_status_line(const struct smbd_server *srv, bool ready)
{
	unsigned n = smbd_conn_limits_total(srv);
	int rc;

	rc = sd_notifyf(0, "%sSTATUS=smbd: %d workers, %u connection%s",
			ready ? "READY=1\n" : "", srv->nworkers, n,
			n == 1 ? "" : "s");
	if (rc < 0) {
		DBG_WARNING("sd_notify: %s\n", strerror(-rc));
	}
}

void smbd_notify_ready(const struct smbd_server *srv)
{
	if (smbd_notify_enabled()) {
		notify_status_line(srv, true);
	}
}

void smbd_notify_status(const struct smbd_server *srv)
{
	if (smbd_notify_enabled()) {
		notify_status_line(srv, false);
	}
}

void smbd_notify_reloading(void)
{
	struct timespec ts;

	if (!smbd_notify_enabled()) {
		return;
	}
	/* MONOTONIC_USEC lets Type=notify-reload units (systemd 253+) match
	 * this reload to the signal they sent; older ones ignore it. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	(void)sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
			 (unsigned long long)ts.tv_sec * 1000000ULL +
				 (unsigned long long)ts.tv_nsec / 1000);
}

void smbd_notify_stopping(void)
{
	if (smbd_notify_enabled()) {
		(void)sd_notify(0, "STOPPING=1");
	}
}
