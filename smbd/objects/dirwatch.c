/*
 * Directory leases and local changes: one fanotify group per worker,
 * made on the first directory lease, marking each leased directory for
 * its entries' events (see dirwatch.h).  A directory is known by the
 * file handle the kernel reports for it (FAN_REPORT_DIR_FID), taken
 * with name_to_handle_at() when it is marked.  Each leased open of a
 * directory holds a reference on its entry (a talloc child of the open,
 * so a durable open that moves keeps it); the last one to go removes the
 * mark.
 */
#include "smbd/objects/dirwatch.h"
#include "smbd/objects/oplock.h"
#include "smbd/objects/open.h"
#include "smbd/objects/smbd_locking.h"
#include "smbd/conn/worker.h"
#include "smbd/objects/objects_worker.h"
#include "locking/locking.h"
#include "lib/clock.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "vfs/watch.h"

#include <ctype.h>
#include <fcntl.h>	/* struct file_handle, in the events */
#include <limits.h>
#include <string.h>
#include <sys/fanotify.h>	/* the event format smbd_dirwatch_parse reads */
#include <talloc.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define DIRWATCH_HANDLE_MAX 128	/* MAX_HANDLE_SZ */
/* How long an answer about a pid is believed without asking /proc again:
 * a local `cp -r` into a leased directory makes an event per file. */
#define DIRWATCH_PID_TTL_MS 1000
#define DIRWATCH_PID_CACHE 8

struct dirwatch_dir {
	uint64_t dev, ino;
	unsigned refs;		/* leased opens of it on this worker */
	int fd;			/* O_PATH, to name it when unmarking */
	int handle_type;
	unsigned handle_len;
	uint8_t handle[DIRWATCH_HANDLE_MAX];
};

struct dirwatch_ref;

struct dirwatch {
	int fd;
	bool unavailable;
	bool full_logged;
	unsigned n;
	struct dirwatch_dir dirs[SMBD_DIRWATCH_MAX];
	struct dirwatch_ref *refs;	/* to detach when the worker ends */
	struct {
		pid_t pid;
		bool ours;
		uint64_t until;
	} pids[DIRWATCH_PID_CACHE];
	unsigned pids_next;
};

/* strtol(s, end, 10) that fails where it would set errno (overflow)
 * or take no digit. */
static bool dirwatch_parse_long(const char *s, long *out, char **end)
{
	bool neg = false;
	long v = 0;

	while (isspace((unsigned char)*s)) {
		s++;
	}
	if (*s == '+' || *s == '-') {
		neg = *s == '-';
		s++;
	}
	if (!isdigit((unsigned char)*s)) {
		return false;
	}
	for (; isdigit((unsigned char)*s); s++) {
		int d = *s - '0';

		if (neg ? v < (LONG_MIN + d) / 10 : v > (LONG_MAX - d) / 10) {
			return false;
		}
		v = neg ? v * 10 - d : v * 10 + d;
	}
	*out = v;
	*end = (char *)s;
	return true;
}

bool smbd_dirwatch_pid_is_smbd(pid_t pid, pid_t self, pid_t master,
			       const char *stat_text)
{
	const char *p;
	long ppid;
	char *end;

	if (pid == self || pid == master) {
		return true;
	}
	if (stat_text == NULL) {
		return false;
	}
	/* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')', so
	 * the fields go on after the last ')' (proc(5)). */
	p = strrchr(stat_text, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ') {
		return false;
	}
	if (!dirwatch_parse_long(p + 4, &ppid, &end) ||
	    (*end != ' ' && *end != '\0')) {
		return false;
	}
	return ppid == (long)master;
}

static bool dirwatch_pid_ours(struct dirwatch *dw, pid_t pid)
{
	uint64_t now = clock_mono_ms();
	char text[512];
	ssize_t got;
	unsigned i;

	for (i = 0; i < DIRWATCH_PID_CACHE; i++) {
		if (dw->pids[i].pid == pid && dw->pids[i].until > now) {
			return dw->pids[i].ours;
		}
	}
	got = proc_stat_text(pid, text, sizeof(text));
	i = dw->pids_next;
	dw->pids_next = (i + 1) % DIRWATCH_PID_CACHE;
	dw->pids[i].pid = pid;
	dw->pids[i].until = now + DIRWATCH_PID_TTL_MS;
	dw->pids[i].ours = smbd_dirwatch_pid_is_smbd(
		pid, proc_pid(), proc_parent(), got >= 0 ? text : NULL);
	return dw->pids[i].ours;
}

static struct dirwatch_dir *dirwatch_find(struct dirwatch *dw, int type,
					  const uint8_t *handle, unsigned len)
{
	unsigned i;

	for (i = 0; i < dw->n; i++) {
		struct dirwatch_dir *d = &dw->dirs[i];

		if (d->handle_type == type && d->handle_len == len &&
		    memcmp(d->handle, handle, len) == 0) {
			return d;
		}
	}
	return NULL;
}

static void dirwatch_changed(struct smbd_worker *w, struct dirwatch_dir *d)
{
	struct smbd_dir_change c;

	memset(&c, 0, sizeof(c));
	c.dev = d->dev;
	c.ino = d->ino;
	DBG_DEBUG("local change in directory %llu:%llu: breaking its "
		  "leases\n", (unsigned long long)d->dev,
		  (unsigned long long)d->ino);
	smbd_dirlease_break(w, &c);
}

/* One event's info records: the directory's handle.  An entry event
 * (create, delete, move) carries it as FAN_EVENT_INFO_TYPE_DFID; an
 * event on a file in it (modify, attrib, with FAN_EVENT_ON_CHILD) as
 * FAN_EVENT_INFO_TYPE_FID, though the handle is still the directory's
 * (FAN_REPORT_DIR_FID alone: measured on 6.18).  Each record's length
 * is checked against the event's; records are copied out, not cast. */
static void dirwatch_parse_records(const uint8_t *ev, size_t len,
				   size_t meta_len, pid_t pid,
				   smbd_dirwatch_event_fn fn, void *priv)
{
	size_t off = meta_len;

	while (off + sizeof(struct fanotify_event_info_header) <= len) {
		struct fanotify_event_info_header hdr;
		struct file_handle fh;
		size_t at;

		memcpy(&hdr, ev + off, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > len - off) {
			return;
		}
		at = off + sizeof(hdr) + sizeof(__kernel_fsid_t);
		if ((hdr.info_type == FAN_EVENT_INFO_TYPE_FID ||
		     hdr.info_type == FAN_EVENT_INFO_TYPE_DFID ||
		     hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) &&
		    at + sizeof(fh) <= off + hdr.len) {
			memcpy(&fh, ev + at, sizeof(fh));
			at += sizeof(fh);
			if (fh.handle_bytes <= DIRWATCH_HANDLE_MAX &&
			    at + fh.handle_bytes <= off + hdr.len) {
				struct smbd_dirwatch_event e = {
					.pid = pid,
					.handle_type = fh.handle_type,
					.handle = ev + at,
					.handle_len = fh.handle_bytes,
				};
				fn(&e, priv);
			}
		}
		off += hdr.len;
	}
}

/* An event carrying FID records is as long as its records (52 bytes
 * with an 8-byte ext4 handle), so the next one may start at any byte
 * offset: each header is copied out rather than read in place, which
 * FAN_EVENT_NEXT's pointer walk would do misaligned. */
void smbd_dirwatch_parse(const uint8_t *buf, size_t n,
			 smbd_dirwatch_event_fn fn, void *priv)
{
	size_t off = 0;

	while (off + FAN_EVENT_METADATA_LEN <= n) {
		struct fanotify_event_metadata m;

		memcpy(&m, buf + off, sizeof(m));
		if (m.event_len < FAN_EVENT_METADATA_LEN ||
		    m.event_len > n - off) {
			return;
		}
		if (m.mask & FAN_Q_OVERFLOW) {
			struct smbd_dirwatch_event e = {
				.overflow = true,
				.pid = m.pid,
			};
			fn(&e, priv);
		} else if (m.vers == FANOTIFY_METADATA_VERSION &&
			   m.metadata_len >= FAN_EVENT_METADATA_LEN &&
			   m.metadata_len <= m.event_len) {
			dirwatch_parse_records(buf + off, m.event_len,
					       m.metadata_len, m.pid, fn,
					       priv);
		}
		off += m.event_len;
	}
}

static void dirwatch_on_event(const struct smbd_dirwatch_event *e,
			      void *priv)
{
	struct smbd_worker *w = priv;
	struct dirwatch *dw = smbd_objects_of(w)->dirwatch;
	struct dirwatch_dir *d;
	unsigned i;

	if (e->overflow) {
		DBG_NOTICE("worker %d: fanotify queue overflow: breaking "
			   "every watched directory's leases\n", w->index);
		for (i = 0; i < dw->n; i++) {
			dirwatch_changed(w, &dw->dirs[i]);
		}
		return;
	}
	d = dirwatch_find(dw, e->handle_type, e->handle, e->handle_len);
	if (d != NULL && !dirwatch_pid_ours(dw, e->pid)) {
		dirwatch_changed(w, d);
	}
}

/* A buffer of events (vfs_dirwatch_drain). */
static void dirwatch_batch(void *priv, const uint8_t *buf, size_t n)
{
	smbd_dirwatch_parse(buf, n, dirwatch_on_event, priv);
}

static void dirwatch_readable(void *priv)
{
	struct smbd_worker *w = priv;
	struct dirwatch *dw = smbd_objects_of(w)->dirwatch;

	vfs_dirwatch_drain(dw->fd, dirwatch_batch, w);
}

/* An open's hold on its directory's entry. */
struct dirwatch_ref {
	struct dirwatch_ref *prev, *next;
	struct dirwatch *dw;	/* NULL once the worker's state is gone */
	uint64_t dev, ino;
};

static int dirwatch_destructor(struct dirwatch *dw)
{
	struct dirwatch_ref *r;
	unsigned i;

	for (r = dw->refs; r != NULL; r = r->next) {
		r->dw = NULL;
	}
	for (i = 0; i < dw->n; i++) {
		vfs_watch_close(dw->dirs[i].fd);
	}
	vfs_watch_close(dw->fd);
	return 0;
}

static struct dirwatch *dirwatch_get(struct smbd_worker *w)
{
	struct dirwatch *dw = smbd_objects_of(w)->dirwatch;
	NTSTATUS status;

	if (dw != NULL) {
		return dw->unavailable ? NULL : dw;
	}
	dw = talloc_zero(w, struct dirwatch);
	if (dw == NULL) {
		return NULL;
	}
	smbd_objects_of(w)->dirwatch = dw;
	status = vfs_dirwatch_open(&dw->fd);
	if (!NT_STATUS_IS_OK(status)) {
		dw->fd = -1;
		DBG_NOTICE("worker %d: fanotify unavailable (%s): directory "
			   "leases break on changes through SMB only, not on "
			   "local ones\n", w->index, nt_errstr(status));
		dw->unavailable = true;
		return NULL;
	}
	talloc_set_destructor(dw, dirwatch_destructor);
	if (ev_watch_fd(w->loop, dw, dw->fd, dirwatch_readable, w) != 0) {
		DBG_ERR("worker %d: cannot watch the fanotify descriptor\n",
			w->index);
		vfs_watch_close(dw->fd);
		dw->fd = -1;
		dw->unavailable = true;
		return NULL;
	}
	return dw;
}

static struct dirwatch_dir *dirwatch_by_id(struct dirwatch *dw,
					   uint64_t dev, uint64_t ino)
{
	unsigned i;

	for (i = 0; i < dw->n; i++) {
		if (dw->dirs[i].dev == dev && dw->dirs[i].ino == ino) {
			return &dw->dirs[i];
		}
	}
	return NULL;
}

/* Unmark d and forget it (the last entry takes its place). */
static void dirwatch_drop(struct dirwatch *dw, struct dirwatch_dir *d)
{
	/* Fails harmlessly when the directory is gone: the kernel dropped
	 * the mark with it. */
	(void)vfs_dirwatch_mark(dw->fd, false, d->fd);
	vfs_watch_close(d->fd);
	*d = dw->dirs[--dw->n];
}

static int dirwatch_ref_destructor(struct dirwatch_ref *r)
{
	struct dirwatch *dw = r->dw;
	struct dirwatch_dir *d;

	if (dw == NULL) {
		return 0;
	}
	if (r->prev != NULL) {
		r->prev->next = r->next;
	} else {
		dw->refs = r->next;
	}
	if (r->next != NULL) {
		r->next->prev = r->prev;
	}
	d = dirwatch_by_id(dw, r->dev, r->ino);
	if (d != NULL && --d->refs == 0) {
		dirwatch_drop(dw, d);
	}
	return 0;
}

/* A new entry for op's directory, marked; NULL when it cannot be. */
static struct dirwatch_dir *dirwatch_new_dir(struct smbd_worker *w,
					     struct dirwatch *dw,
					     const struct smbd_open *op,
					     const struct file_key *k)
{
	uint8_t handle[DIRWATCH_HANDLE_MAX];
	struct dirwatch_dir *d;
	unsigned handle_len;
	int handle_type;
	NTSTATUS status;
	int fd;

	if (dw->n == SMBD_DIRWATCH_MAX) {
		if (!dw->full_logged) {
			DBG_NOTICE("worker %d: %u directories with leases "
				   "watched already: local changes to more "
				   "are not seen\n", w->index, dw->n);
			dw->full_logged = true;
		}
		return NULL;
	}
	status = vfs_dirwatch_handle(op->h.fd, &handle_type, handle,
				     &handle_len, DIRWATCH_HANDLE_MAX);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_DEBUG("no file handle for %s: %s\n", op->path,
			  nt_errstr(status));
		return NULL;
	}
	if (!NT_STATUS_IS_OK(vfs_dirwatch_dup(op->h.fd, &fd))) {
		return NULL;
	}
	if (!vfs_dirwatch_mark(dw->fd, true, fd)) {
		DBG_NOTICE("worker %d: fanotify_mark on %s failed\n",
			   w->index, op->path);
		vfs_watch_close(fd);
		return NULL;
	}
	d = &dw->dirs[dw->n++];
	memset(d, 0, sizeof(*d));
	d->dev = k->dev;
	d->ino = k->ino;
	d->fd = fd;
	d->handle_type = handle_type;
	d->handle_len = handle_len;
	memcpy(d->handle, handle, handle_len);
	return d;
}

void smbd_dirwatch_add(struct smbd_worker *w, const struct smbd_open *op)
{
	struct dirwatch *dw;
	struct dirwatch_dir *d;
	struct dirwatch_ref *r;
	struct file_key k;
	struct open_owner o;

	if (!op->is_dir || op->h.fd == -1 || (dw = dirwatch_get(w)) == NULL) {
		return;
	}
	smbd_open_keys(op, &k, &o);
	d = dirwatch_by_id(dw, k.dev, k.ino);
	if (d == NULL && (d = dirwatch_new_dir(w, dw, op, &k)) == NULL) {
		return;
	}
	r = talloc_zero(op, struct dirwatch_ref);
	if (r == NULL) {
		if (d->refs == 0) {
			dirwatch_drop(dw, d);
		}
		return;
	}
	r->dw = dw;
	r->dev = k.dev;
	r->ino = k.ino;
	r->next = dw->refs;
	if (r->next != NULL) {
		r->next->prev = r;
	}
	dw->refs = r;
	d->refs++;
	talloc_set_destructor(r, dirwatch_ref_destructor);
}
