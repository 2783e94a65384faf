/*
 * smbd/objects/: what the server keeps for its clients between requests:
 * opens (open.c), durable handles and their hand-over between workers
 * (durable.c), oplock and lease breaks and the opens waiting for them
 * (oplock.c), the locking DB glue (smbd_locking.c), pending write times
 * (write_time.c), smbstatus' records (status.c), NT ACLs and security
 * descriptors (ntacl.c, ntacl_file.c, secdesc.c).  How it is written on
 * the wire (the MS-FSCC information classes, create contexts, the
 * security descriptor codec) is smbd/wire/'s.
 *
 * What it may use: the pipeline (smbd/conn: requests, sessions, trees)
 * and the rooms below it.  The SMB2 commands above use it; it calls them
 * only through smbd_worker.hooks and the mailbox handlers they register.
 * One circle stays inside the room, as one mechanism: an open's end wakes
 * the waiters of its file, a break of a disconnected durable open closes
 * it, and a reclaim moves an open (open.c, oplock.c, durable.c).
 *
 * Open files (MS-SMB2 3.3.1.10 Open): one per successful CREATE, found by
 * the volatile part of the FileId in the connection's table.  An open is
 * a talloc child of its tree connect, so TREE_DISCONNECT, LOGOFF and a
 * dropped connection close it; its destructor closes the fd (in the pool,
 * since close(2) can block on some file systems).
 */
#ifndef SMBD_OPEN_H
#define SMBD_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/ntstatus.h"
#include "lib/tpool.h"
#include "smbd/objects/write_time.h"
#include "vfs/vfs.h"
#include "vfs/handle.h"

struct smbd_conn;
struct smbd_session;
struct smbd_tcon;
struct smb2_request;
struct ev_timer;

/* Access mask bits (MS-SMB2 2.2.13.1.1, MS-DTYP 2.4.3). */
#define SEC_FILE_READ_DATA 0x00000001
#define SEC_FILE_WRITE_DATA 0x00000002
#define SEC_FILE_APPEND_DATA 0x00000004
#define SEC_FILE_READ_EA 0x00000008
#define SEC_FILE_WRITE_EA 0x00000010
#define SEC_FILE_EXECUTE 0x00000020
#define SEC_DIR_DELETE_CHILD 0x00000040
#define SEC_FILE_READ_ATTRIBUTE 0x00000080
#define SEC_FILE_WRITE_ATTRIBUTE 0x00000100
#define SEC_STD_DELETE 0x00010000
#define SEC_STD_READ_CONTROL 0x00020000
#define SEC_STD_WRITE_DAC 0x00040000
#define SEC_STD_WRITE_OWNER 0x00080000
#define SEC_STD_SYNCHRONIZE 0x00100000
#define SEC_FLAG_SYSTEM_SECURITY 0x01000000
#define SEC_FLAG_MAXIMUM_ALLOWED 0x02000000
#define SEC_GENERIC_ALL 0x10000000
#define SEC_GENERIC_EXECUTE 0x20000000
#define SEC_GENERIC_WRITE 0x40000000
#define SEC_GENERIC_READ 0x80000000

#define SEC_FILE_ALL 0x001f01ff
#define SEC_RIGHTS_FILE_READ 0x00120089
#define SEC_RIGHTS_FILE_WRITE 0x00120116
#define SEC_RIGHTS_FILE_EXECUTE 0x001200a0
/* What a read-only share can never grant. */
#define SEC_RIGHTS_WRITE_ANY                                                  \
	(SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA | SEC_FILE_WRITE_EA |     \
	 SEC_FILE_WRITE_ATTRIBUTE | SEC_STD_DELETE | SEC_STD_WRITE_DAC |      \
	 SEC_STD_WRITE_OWNER | SEC_DIR_DELETE_CHILD)

/* 3.3.1.10 Open.ChannelSequence, Open.OutstandingRequestCount and
 * Open.OutstandingPreRequestCount: the client's channel generation and
 * the requests in flight under it and under earlier ones. */
struct smbd_channel_seq {
	uint16_t seq;
	uint32_t outstanding;
	uint32_t outstanding_pre;
};

/*
 * 3.3.5.2.10 for a request with ChannelSequence csn (replay: the
 * SMB2_FLAGS_REPLAY_OPERATION flag): true when the request counts under
 * cs (give it back with smbd_channel_seq_done() at the reply); false when
 * it is stale, which WRITE, SET_INFO and IOCTL answer with
 * STATUS_FILE_NOT_AVAILABLE.  Pure, for unit tests.
 */
bool smbd_channel_seq_verify(struct smbd_channel_seq *cs, uint16_t csn,
			     bool replay);
void smbd_channel_seq_done(struct smbd_channel_seq *cs, uint16_t csn);

struct smbd_open {
	struct smbd_open *hnext;	/* hash chain in the connection */
	struct smbd_open *whnext;	/* hash chain in the worker */
	struct smbd_open *lhnext;	/* worker->lease_hash chain */
	bool lease_linked;
	struct smbd_worker *worker;
	struct smbd_conn *conn;
	uint64_t opened_nttime;	/* when it was opened (smbstatus) */
	struct smbd_tcon *tcon;
	struct smbd_session *session;
	uint64_t fid_persistent;
	uint64_t fid_volatile;
	/* The open's data (vfs/handle.h): its module's ops, the fd (-1 once
	 * handed to a CLOSE job), h.xattr == stream, the module's mode */
	struct vfs_handle h;
	struct fd_share *fd_share;	/* jobs hold fd (smbd_open_fd_borrow) */
	bool is_dir;
	bool opath;		/* fd is O_PATH (attribute-only open) */
	char *path;		/* on-disk, share-relative, '/' separated */
	/* An open of a previous version (vfs_shadow_copy2): the snapshot's
	 * share root that path is relative to, else -1. */
	int snap_root_fd;
	char *stream;		/* NULL for the file's data */
	uint32_t access_mask;	/* granted */
	uint32_t share_access;
	uint32_t create_options;
	uint32_t create_disposition;
	bool delete_on_close;
	bool share_registered;	/* has a share-mode entry in locking/ */
	bool stream_ref;	/* a stream open: stands in the file's
				 * record too (SHARE_ENTRY_STREAM) */
	struct smbd_write_time wt;	/* delayed write time (write_time.c) */
	uint64_t position;	/* FilePositionInformation */
	uint32_t mode;		/* FileModeInformation */
	uint64_t resume_tag;	/* FSCTL_SRV_REQUEST_RESUME_KEY: random,
				 * 0 until a key was asked for */
	uint64_t dev, ino;	/* the file's identity for locking/ */
	/* Its directory's identity, for the directory's leases (0, 0 for
	 * the share root, whose directory is outside the share). */
	uint64_t pdev, pino;
	/* Written, resized or its times or attributes set: its close
	 * changes its directory's entry (directory leases). */
	bool modified;
	/* Oplock or lease (locking/oplock.c keeps the state). */
	uint8_t caching;	/* CACHING_NONE/_OPLOCK/_LEASE */
	uint8_t lease_version;
	uint8_t lease_key[16];
	uint8_t client_guid[16];
	uint8_t parent_lease_key[16];
	bool has_parent_key;
	/* Durable handles (MS-SMB2 3.3.1.10 Open.IsDurable, DurableOwner,
	 * DurableOpenTimeout, CreateGuid; smbd/objects/durable.c). */
	bool durable;
	bool durable_v2;	/* granted through DH2Q */
	/* 3.3.1.10 Open.IsResilient (FSCTL_LMR_REQUEST_RESILIENCY,
	 * 3.3.5.15.9): kept over a lost connection like a durable open,
	 * whatever its caching; durable is false then (the spec says so),
	 * durable_timeout_ms holds Open.ResiliencyTimeout. */
	bool resilient;
	bool disconnected;	/* its connection is gone: waits for a
				 * reconnect on the worker's durable conn */
	uint32_t durable_timeout_ms;
	uint32_t create_action;	/* CreateAction its CREATE answered */
	uint8_t create_guid[16];
	bool has_create_guid;	/* made by a DH2Q (durable or not) */
	/* A replay of its CREATE gets it back (3.3.5.9.10): until another
	 * request used it, as Samba purges its replay cache then (smbtorture
	 * replay6: a replay after a QUERY_INFO opens anew). */
	bool replay_ok;
	bool create_pending;	/* its CREATE waits for a break */
	uid_t owner_uid;	/* DurableOwner: the session's user */
	/* Whom the open's own deferred work runs as (a delete on close
	 * from a TREE_DISCONNECT, LOGOFF, dropped connection or durable
	 * expiry): the session user that made it, never root. */
	struct tpool_cred owner_cred;
	bool has_owner_cred;
	struct ev_timer *durable_timer;	/* scavenger while disconnected */
	/* A disconnected resilient open ends a break it cannot answer from
	 * the loop (durable.c) */
	struct ev_timer *settle_timer;
	/* 3.3.1.10 Open.LockSequenceArray (3.3.5.14): bit 7 = valid,
	 * low 4 bits = the sequence number of that index. */
	uint8_t lock_seq[64];
	void *dir;		/* QUERY_DIRECTORY state (smb2_querydir.c) */
	void *notify;		/* CHANGE_NOTIFY state (smb2_notify.c) */
	void *pipe;		/* struct rpc_pipe on IPC$ (smb2_pipe.c) */
	struct smbd_channel_seq channel;	/* 3.3.5.2.10 */
};

struct smbd_worker;
/* FileId.Volatile carries its worker's index + 1 from this bit up. */
#define SMBD_OPEN_ID_WORKER_SHIFT 40
/* The open with this FileId.Volatile on this worker, or NULL. */
struct smbd_open *smbd_open_by_id(struct smbd_worker *w, uint64_t id);

/* FileId bytes as on the wire (persistent, then volatile). */
void smbd_open_fid_bytes(const struct smbd_open *op, uint8_t out[16]);

struct smbd_open *smbd_open_new(struct smbd_conn *conn,
				struct smbd_session *s,
				struct smbd_tcon *t, int fd);
/*
 * The open a request names: FileId from the request (or, for a related
 * compound, the one the request before produced: 3.3.5.2.7.2).  Checks it
 * belongs to the request's session and tree.  NT_STATUS_FILE_CLOSED when
 * none.
 */
NTSTATUS smbd_open_lookup(struct smb2_request *req, const uint8_t fid[16],
			  struct smbd_open **out);
/*
 * 3.3.5.2.10 Verifying the Channel Sequence Number, for a request on a
 * 3.x connection naming op: counts the request under op's channel
 * sequence, moving on to a newer one; a WRITE, SET_INFO or IOCTL with a
 * stale one (or a replay while requests of an older one are still out)
 * is STATUS_FILE_NOT_AVAILABLE: it may come from a channel the client
 * has given up, and must not overwrite what it did since.
 * smbd_open_channel_done() at the reply takes the count back.
 */
NTSTATUS smbd_open_channel_check(struct smb2_request *req,
				 struct smbd_open *op);
void smbd_open_channel_done(struct smb2_request *req);

/* An open of this connection's client (its ClientGuid, on any of its
 * connections to this worker) that holds the lease with this key (a
 * lease names no file; its opens do), or NULL.  One bucket of the
 * worker's lease table. */
struct smbd_open *smbd_open_find_lease(struct smbd_conn *conn,
				       const uint8_t key[16]);
/* Enter op (caching CACHING_LEASE, key and client GUID set) in the
 * worker's lease table; it leaves with the open. */
void smbd_open_lease_link(struct smbd_open *op);
/* Move op into the table of connection to (same worker): a durable open
 * that loses or regains its connection (smbd/objects/durable.c). */
void smbd_open_move(struct smbd_open *op, struct smbd_conn *to);
/* The worker's session_moved hook: s's opens on from follow it to
 * s->conn (its first channel dropped, another carries it on). */
void smbd_open_session_moved(struct smbd_session *s, struct smbd_conn *from);
/* Remove from the table (further lookups fail) and take the fd away:
 * returns it for a job to close (a duplicate where pool jobs still use
 * the open's own, smbd_open_fd_borrow). */
int smbd_open_detach(struct smbd_open *op);

/*
 * op's fd for a pool job that holder (the job's state) owns, without a
 * dup per request (issue 18: a READ, WRITE or QUERY_INFO paid an fcntl
 * and a close for its own copy): the descriptor stays open until every
 * holder is freed, even when the open ends first (a CLOSE or a dropped
 * connection racing the job), so its number is never reused under the
 * job.  The job must not close it.  Holders are freed on the loop thread
 * (smb2_job.c), where the count is kept.  -1 with errno set when op has
 * no fd or there is no memory.
 */
int smbd_open_fd_borrow(struct smbd_open *op, TALLOC_CTX *holder);
/*
 * op's handle for a pool job: the same module and mode, the fd borrowed
 * as above and the stream's xattr copied, both owned by holder (a
 * stream rename or a CLOSE meanwhile changes nothing under the job).
 * NT_STATUS_INVALID_HANDLE when op has no fd, NT_STATUS_NO_MEMORY.
 */
NTSTATUS smbd_open_handle_borrow(struct smbd_open *op, TALLOC_CTX *holder,
				 struct vfs_handle *h);

/* A directory is not renamed while a file below it is open, on any
 * worker (MS-FSA 2.1.5.14.11; Windows answers ACCESS_DENIED: smbtorture
 * smb2.rename.rename_dir_openfile).  The names come from the status
 * records every open writes. */
NTSTATUS smbd_open_check_open_below(struct smbd_open *op);

/* The open's entry in the shared locking DB is made by CREATE
 * (smb2_create.c, through locking/oplock.c's share_mode_open()). */
/* Drop the entry and the open's byte-range locks; *delete_now: this was
 * the last open of a file whose delete is pending (the caller deletes).
 * *delete_base: a stream open was the last open of its file, whose
 * delete is pending: the caller deletes the file itself. */
void smbd_open_share_release(struct smbd_open *op, bool *delete_now,
			     bool *delete_base);
/* FileDispositionInformation through the locking DB. */
NTSTATUS smbd_open_set_delete_pending(struct smbd_open *op, bool on);
/* QUERY_INFO of op: fi (op's file, from statx) gets DeletePending
 * (FileStandardInformation) and a ChangeTime a client set
 * (write_time.h) from the locking DB; left as they are when the open has
 * no entry or the DB cannot be read. */
void smbd_open_query_state(struct smbd_open *op, struct vfs_file_info *fi);
/* Rename/delete: SHARING_VIOLATION if another open lacks SHARE_DELETE. */
NTSTATUS smbd_open_check_delete(struct smbd_open *op);
/* Rename of op: its parent directory's opens must share delete and
 * hold no DELETE access (NT_STATUS_SHARING_VIOLATION otherwise). */
NTSTATUS smbd_open_check_rename_parent(struct smbd_open *op);
/* READ/WRITE through another open's byte-range lock (MS-FSA 2.1.4.10):
 * NT_STATUS_FILE_LOCK_CONFLICT. */
NTSTATUS smbd_open_check_io(struct smbd_open *op, uint64_t off, uint64_t len,
			    bool write);
/* A stream rename's target (MS-FSA 2.1.5.14.11.1): whether stream
 * xattr (any case; NULL: the file's own data) of op's file is open. */
bool smbd_open_stream_busy(const struct smbd_open *op, const char *xattr);
/* After a stream rename: op is the stream xattr now (NULL: the file's
 * data); its share-mode entry and locks follow it to the new key. */
NTSTATUS smbd_open_rename_stream(struct smbd_open *op, const char *xattr);
/* The key and owner locking/ knows this open by. */
struct file_key;
struct open_owner;
void smbd_open_keys(const struct smbd_open *op, struct file_key *k,
		    struct open_owner *o);

#endif
