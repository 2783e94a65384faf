/*
 * Delayed write time and a ChangeTime a client set: see write_time.h for
 * the behaviour.  Everything here runs on the worker's loop thread, on
 * the open's own fd: an fstat before a burst of writes, a futimens after
 * it and for each update (and, for an open whose client set the
 * ChangeTime, a statx after them for the ctime they left).  These are
 * metadata calls on a file already open (no path walk); they run as the
 * daemon, so putting back an mtime works for any user the write was
 * allowed to, not only the file's owner.
 */
#include "smbd/objects/write_time.h"
#include "smbd/conn/worker.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/objects/smbd_locking.h"
#include "locking/locking.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"
#include "lib/clock.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>
#include <sys/stat.h>
#include <talloc.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* Writes through these opens never touch the file's mtime. */
static bool wt_applies(const struct smbd_open *op)
{
	return op->h.fd != -1 && !op->is_dir && !op->opath &&
	       op->stream == NULL;
}

static void wt_set_mtime(struct smbd_open *op, const struct timespec *mtime)
{
	struct timespec ts[2] = {{0, UTIME_OMIT}, *mtime};
	NTSTATUS status = vfs_fd_utimens(op->h.fd, ts);

	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("write time of %s: %s\n", op->path,
			   nt_errstr(status));
	}
	/* Writes still in the pool must put back this time, not the one
	 * seen before they started. */
	op->wt.keep = *mtime;
	/* The ctime moved with it (and with the write before). */
	smbd_ct_changed(op);
}

/*
 * The update itself: the write time becomes now.  Not the loop's coarse
 * cached clock: it lags the real time by up to a tick, and a client that
 * reads its own clock before CLOSE must see a later write time
 * (smb2.timestamps.delayed-2write).  clock_gettime is a vDSO call.
 */
static void wt_update_now(struct smbd_open *op)
{
	struct timespec now;

	TALLOC_FREE(op->wt.timer);
	op->wt.triggered = true;
	op->wt.dirty = false;
	if (op->wt.sticky || !wt_applies(op)) {
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	wt_set_mtime(op, &now);
}

static void wt_timer_fired(void *priv)
{
	struct smbd_open *op = priv;

	op->wt.timer = NULL; /* the loop frees a timer that fired */
	wt_update_now(op);
}

bool smbd_wt_write_begin(struct smbd_open *op)
{
	if (!wt_applies(op)) {
		return false;
	}
	/* With writes of this open already in the pool the file's mtime
	 * may be theirs; keep holds the one to put back. */
	if (op->wt.inflight == 0) {
		if (!NT_STATUS_IS_OK(vfs_posix_mtime(op->h.fd,
						     &op->wt.keep))) {
			return false;
		}
	}
	op->wt.inflight++;
	if (op->wt.sticky) {
		return true;
	}
	op->wt.dirty = true;
	if (!op->wt.triggered && op->worker->loop != NULL) {
		/* Only the first write arms the update; later ones wait
		 * for CLOSE (or FLUSH, SET_INFO). */
		op->wt.triggered = true;
		op->wt.timer = ev_timer_add(op, op->worker->loop,
					    SMBD_WRITE_TIME_DELAY_MS,
					    wt_timer_fired, op);
	}
	return true;
}

void smbd_wt_write_end(struct smbd_open *op)
{
	if (op->wt.inflight == 0 || --op->wt.inflight > 0 ||
	    !wt_applies(op)) {
		return; /* later writes of the burst still run */
	}
	wt_set_mtime(op, &op->wt.keep);
}

void smbd_wt_flush(struct smbd_open *op)
{
	if (op->wt.dirty) {
		wt_update_now(op);
	}
}

void smbd_wt_set_basic(struct smbd_open *op, uint64_t write_time)
{
	if (write_time == FSCC_TIME_UNFREEZE) {
		/* MS-FSA 2.1.5.14.2: -2 lets writes update it again. */
		op->wt.sticky = false;
		return;
	}
	if (write_time == 0) {
		/* Windows 2016 does a pending update on any
		 * FileBasicInformation, even one setting nothing
		 * (smb2.timestamps.delayed-write-vs-setbasic). */
		smbd_wt_flush(op);
		return;
	}
	/* -1 freezes the write time as it is; any other value is set by
	 * the job and sticks: Open.UserSetModificationTime. */
	TALLOC_FREE(op->wt.timer);
	op->wt.sticky = true;
	op->wt.dirty = false;
	if (write_time != FSCC_TIME_FREEZE && op->wt.inflight > 0) {
		timespec_from_nttime(write_time, &op->wt.keep);
	}
}

void smbd_wt_resized(struct smbd_open *op, const struct timespec *before)
{
	if (op->wt.sticky) {
		/* The truncate moved the mtime; the set one stays. */
		if (before != NULL && wt_applies(op)) {
			wt_set_mtime(op, before);
		}
		return;
	}
	wt_update_now(op);
}

void smbd_wt_close(struct smbd_open *op)
{
	TALLOC_FREE(op->wt.timer);
	if (op->wt.dirty) {
		/* Written since the last update: CLOSE sets it. */
		wt_update_now(op);
	}
}

/* ---- ChangeTime ---- */

/* The ChangeTime recorded in op's entry with the file's ctime now. */
static void ct_record(struct smbd_open *op, uint64_t change_time,
		      uint64_t ctime)
{
	struct locking_db *db = smbd_locking(op->worker);
	struct file_key k;
	struct open_owner o;
	NTSTATUS status;

	op->wt.change_ctime = ctime;
	if (db == NULL || !op->share_registered ||
	    (op->stream != NULL && !op->stream_ref)) {
		return;
	}
	/* The file's record: a stream open has an entry there too
	 * (SHARE_ENTRY_STREAM), and the times are the file's. */
	smbd_open_locking_ids(op, &k, &o);
	status = share_mode_set_change_time(db, &k, &o, change_time, ctime);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("change time of %s: %s\n", op->path,
			   nt_errstr(status));
	}
}

void smbd_ct_set_basic(struct smbd_open *op, uint64_t change_time,
		       const struct vfs_file_info *after)
{
	struct vfs_file_info fi;

	if (change_time == FSCC_TIME_UNFREEZE) {
		/* The set one still holds until the file changes. */
		op->wt.change_sticky = false;
		return;
	}
	if (change_time == 0) {
		/* The times or attributes this set changed moved the
		 * ctime: a ChangeTime that sticks to this open stays. */
		if (op->wt.change_sticky) {
			ct_record(op, op->wt.change_time, after->inode_ctime);
		}
		return;
	}
	if (change_time == FSCC_TIME_FREEZE) {
		/* What a query reports now stays. */
		fi = *after;
		smbd_ct_report(op->worker, &fi);
		change_time = op->wt.change_sticky ? op->wt.change_time
						   : fi.change_time;
	}
	op->wt.change_time = change_time;
	op->wt.change_sticky = true;
	ct_record(op, change_time, after->inode_ctime);
}

void smbd_ct_changed(struct smbd_open *op)
{
	struct vfs_file_info fi;

	if (!op->wt.change_sticky || op->h.fd == -1 ||
	    !NT_STATUS_IS_OK(vfs_fstat_info(op->h.fd, &fi))) {
		return;
	}
	ct_record(op, op->wt.change_time, fi.inode_ctime);
}

void smbd_ct_report(struct smbd_worker *w, struct vfs_file_info *fi)
{
	struct locking_db *db = smbd_locking(w);
	struct file_key k = {.dev = fi->dev, .ino = fi->ino};
	struct share_mode_file_state fs;

	if (db != NULL &&
	    NT_STATUS_IS_OK(share_mode_file_state(db, &k, fi->inode_ctime,
						  &fs)) &&
	    fs.change_time != 0) {
		fi->change_time = fs.change_time;
	}
}
