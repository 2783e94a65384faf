/*
 * Directory leases and local changes (issue 17): a directory whose lease
 * this worker granted is watched with fanotify, so an entry created,
 * changed, deleted or renamed by a local process (a shell, an NFS
 * server, a backup job on the same file system) breaks the directory's
 * leases as a change through SMB does (MS-SMB2 3.3.4.7).  Changes made
 * by smbd's own processes are left out: smbd_dirlease_break already
 * broke what they had to, sparing the lease a change names as its
 * parent (3.3.5.9.11), which a second break here would not.
 *
 * fanotify is used rather than the worker's inotify watches because its
 * events name the process that made the change.  Where fanotify is not
 * available (no CAP_SYS_ADMIN in a container, a kernel before 5.9) the
 * worker logs it once and directory leases break on SMB changes only.
 */
#ifndef SMBD_OBJECTS_DIRWATCH_H
#define SMBD_OBJECTS_DIRWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct smbd_worker;
struct smbd_open;

/* Most directories one worker watches; past it, watches whose leases
 * are all gone are dropped first, then new ones are not taken. */
#define SMBD_DIRWATCH_MAX 1024

/* op (a directory) was granted a lease on this worker: watch it. */
void smbd_dirwatch_add(struct smbd_worker *w, const struct smbd_open *op);

/*
 * Whether pid is smbd's: this worker, the master (ppid), or a sibling
 * worker (its parent is our master).  stat_text is /proc/PID/stat's
 * contents, or NULL when it could not be read (the process is gone: a
 * short-lived local command, so not ours).  Exposed for the unit test.
 */
bool smbd_dirwatch_pid_is_smbd(pid_t pid, pid_t self, pid_t master,
			       const char *stat_text);

/* One change a fanotify read reported: a queue overflow (every watched
 * directory may have changed), or a change under the directory whose
 * file handle it names (pointing into the read's buffer). */
struct smbd_dirwatch_event {
	bool overflow;
	pid_t pid;
	int handle_type;
	const uint8_t *handle;
	unsigned handle_len;
};
typedef void (*smbd_dirwatch_event_fn)(const struct smbd_dirwatch_event *e,
				       void *priv);

/*
 * The events of one read() of a FAN_REPORT_DIR_FID group, n bytes at buf
 * (any alignment), fn called for each handle record and each overflow.
 * A record or event whose length runs past what was read ends the walk.
 * Exposed for the unit test.
 */
void smbd_dirwatch_parse(const uint8_t *buf, size_t n,
			 smbd_dirwatch_event_fn fn, void *priv);

#endif
