/*
 * Delayed write time (MS-FSA 2.1.4.17 "Noting That a File Has Been
 * Modified" and its note: Windows does not move LastWriteTime on every
 * write).  What clients see, and smbtorture's smb2.timestamps.delayed-*
 * pin (Windows 2016, Samba 4.17):
 *
 * - a WRITE leaves the write time alone; about two seconds after the
 *   first write through an open it becomes the time of that update;
 *   later writes through the open leave it until CLOSE, which sets it;
 * - FLUSH and SET_INFO FileBasicInformation do the pending update at
 *   once, SET_INFO FileEndOfFileInformation always updates it;
 * - a write time the client set (or froze with -1) sticks: writes,
 *   truncates and CLOSE through that open no longer change it.
 *
 * The file's own mtime is the write time every query reports (QUERY_INFO
 * on any open, any worker, QUERY_DIRECTORY, CLOSE), so the state here is
 * only how to keep it: the mtime seen before a write is put back after
 * it, and the updates above set it explicitly.  No shared record is
 * needed and every reader agrees; the price is a futimens after each
 * write.  The state is per open, as Windows' Open.UserSetModificationTime
 * is.  Stream opens are left out: their writes never touch the mtime.
 */
#ifndef SMBD_WRITE_TIME_H
#define SMBD_WRITE_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ev_timer;
struct smbd_open;

/* The update after the first write (Samba's "delayed write time"). */
#define SMBD_WRITE_TIME_DELAY_MS 2000

struct smbd_write_time {
	struct ev_timer *timer;	/* the update due after the first write */
	struct timespec keep;	/* the mtime to put back after the writes */
	unsigned int inflight;	/* WRITE jobs of this open in the pool */
	bool triggered;		/* the first write's update was armed */
	bool dirty;		/* written since the last update: CLOSE sets it */
	bool sticky;		/* the client set or froze the write time */
	/* ChangeTime (below): the one this open's client set or froze,
	 * and whether it sticks (Open.UserSetChangeTime). */
	uint64_t change_time;
	uint64_t change_ctime;	/* the file's ctime it was recorded with */
	bool change_sticky;
};

/* A WRITE job of op is about to be handed to the pool; true: it is
 * counted and smbd_wt_write_end must follow once it is over (answered,
 * orphaned or never run), which puts the mtime back. */
bool smbd_wt_write_begin(struct smbd_open *op);
void smbd_wt_write_end(struct smbd_open *op);
/* FLUSH: a pending update happens now. */
void smbd_wt_flush(struct smbd_open *op);
/* SET_INFO FileBasicInformation with this LastWriteTime (0 none, -1
 * freeze, -2 thaw, else an explicit time), before the job sets it. */
void smbd_wt_set_basic(struct smbd_open *op, uint64_t write_time);
/* SET_INFO FileEndOfFileInformation done; before: the mtime the file had
 * before the truncate (kept when the write time is sticky). */
void smbd_wt_resized(struct smbd_open *op, const struct timespec *before);
/* CLOSE or teardown of op while it still has its fd. */
void smbd_wt_close(struct smbd_open *op);

/*
 * ChangeTime (MS-FSA 2.1.5.14.2).  Linux cannot set a file's ctime, and
 * without a set one we report the write time as ChangeTime, as Samba
 * does.  A ChangeTime a client sets through FileBasicInformation is kept
 * in the open's share-mode entry together with the file's real ctime
 * seen right after (share_mode_file_state in locking.h): every query of
 * the file, on any worker, reports it while the ctime has not moved
 * since, so a later change by anyone else shows again.  Like
 * Open.UserSetChangeTime it sticks to the open that set it: this open's
 * own writes and SET_INFOs record the new ctime and keep it.  -1
 * freezes the ChangeTime as it is reported, -2 lets it move again.  It
 * lasts as long as the open that set it: its entry goes with its CLOSE
 * (whose response still carries it), and then the write time shows.
 */
struct vfs_file_info;
struct smbd_worker;
/* SET_INFO FileBasicInformation done with this ChangeTime (0 none, -1,
 * -2, else a time); after: the file as the job left it. */
void smbd_ct_set_basic(struct smbd_open *op, uint64_t change_time,
		       const struct vfs_file_info *after);
/* Something through op changed the file (a write, a SET_INFO): a
 * ChangeTime that sticks to op is recorded again with the new ctime. */
void smbd_ct_changed(struct smbd_open *op);
/* fi (from statx) gets the ChangeTime a client set, if one holds. */
void smbd_ct_report(struct smbd_worker *w, struct vfs_file_info *fi);

#endif
