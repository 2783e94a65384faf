/*
 * Internal to CREATE (MS-SMB2 2.2.13, 2.2.14, 3.3.5.9): the request
 * state and the helpers shared by smb2_create.c (the open itself),
 * smb2_create_access.c (MAXIMUM_ALLOWED, NT ACLs, the granted access),
 * smb2_create_ctx_apply.c (the table of create contexts,
 * create_ctx_ops[], and its walks; applying ExtA and SecD),
 * smb2_create_durable.c (DHnQ/DH2Q requests, DHnC/DH2C reclaims, DH2Q
 * replays) and smb2_create_reply.c (the CREATE response and all its
 * contexts, built from this state; it calls none of the others), plus
 * the attributes part of the CLOSE response (smb2_close.c).  Not for
 * other files: these names carry no module prefix.
 */
#ifndef SMBD_SMB2_CREATE_PRIVATE_H
#define SMBD_SMB2_CREATE_PRIVATE_H

#include "smbd/conn/smb2_server.h"
#include "smbd/wire/create_ctx.h"
#include "vfs/vfs.h"
#include "vfs/stream_policy.h"
#include "vfs/anchor.h"
#include "vfs/dosattrib.h"

struct sd;
struct smbd_open;
struct create_ctx_op;

/* CreateDisposition (2.2.13) */
#define FILE_SUPERSEDE 0
#define FILE_OPEN 1
#define FILE_CREATE 2
#define FILE_OPEN_IF 3
#define FILE_OVERWRITE 4
#define FILE_OVERWRITE_IF 5

/* CreateAction (2.2.14) */
#define FILE_SUPERSEDED 0
#define FILE_OPENED 1
#define FILE_CREATED 2
#define FILE_OVERWRITTEN 3

/* CreateOptions (2.2.13) */
#define FILE_DIRECTORY_FILE 0x00000001
#define FILE_WRITE_THROUGH 0x00000002
#define FILE_NON_DIRECTORY_FILE 0x00000040
#define FILE_DELETE_ON_CLOSE 0x00001000
#define FILE_OPEN_BY_FILE_ID 0x00002000
#define FILE_RESERVE_OPFILTER 0x00100000
#define FILE_OPEN_REPARSE_POINT 0x00200000
#define FILE_OPTIONS_VALID 0x00ffffff

struct create_state {
	/* in */
	/* root_fd is the tree's, borrowed (smbd_tcon_root_borrow), or,
	 * root_owned, our own (a snapshot's root) */
	struct vfs_share share;
	bool root_owned;
	/* A previous version (an @GMT component or TWrp, vfs/snapshot.h):
	 * the create job swaps root_fd for the snapshot's share root
	 * (vfs_stack_snap_root) and the open is read-only. */
	bool snapshot;
	int64_t snap_time;
	/* Directory leases are on: the job finds the identity of the
	 * object's directory for the open. */
	bool want_parent;
	struct vfs_file_id parent;
	struct vfs_stack *vfs;		/* our reference, when snapshot */
	char *path;
	uint32_t disposition, options, access, attrs;
	bool read_only_share;
	bool want_max_access;
	bool want_qfid;
	/* AAPL server query on a share with fruit:aapl (vfs/fruit.h) */
	bool want_aapl;
	struct create_aapl aapl;
	uint64_t alloc_size;	/* AlSi (2.2.13.2.4) */
	uint32_t share_access;
	bool need_truncate;	/* overwrite: truncated once share modes
				 * allow it (create_truncate_job) */
	char *stream;		/* the stream name asked for, or NULL */
	bool data_stream;	/* "name::$DATA": the unnamed stream */
	char *stream_xattr;	/* out: the xattr that holds it */
	/* the share's modules' rules for names and streams (vfs/fruit.h) */
	struct vfs_stream_policy streams;
	/* a Mac's session (AAPL asked) on such a share: an empty named
	 * stream does not exist for a plain open (create_stream) */
	bool aapl_session;
	/* out: the stream handle's module and its mode (vfs/handle.h,
	 * vfs_stream_handle_pick); NULL for the file's own data */
	const struct vfs_handle_ops *hops;
	int hmode;
	/* the stream module's own fd until the open is made
	 * (vfs_handle_ops.stream_open) */
	int aux_fd;
	/* The directory holding real_path (parent_of names it), opened
	 * once in the job for the checks that need it (create_parent_fd);
	 * -1 when not opened.  Closed at the job's end. */
	int parent_fd;
	char *parent_of;
	uint8_t *sd;		/* SecD (2.2.13.2.2): stored on acl_xattr
				 * shares, otherwise applied as a mode */
	size_t sd_len;
	struct ntacl_token *tok;	/* who opens (acl_xattr shares) */
	struct sd *parent_sd;	/* a new object's directory's NT ACL */
	bool have_ntacl;	/* out: a stored NT ACL gave max_access */
	/* A new object's DOS attributes as create_new stored them: the
	 * handle's attributes without reading them back. */
	bool new_dos_stored;
	bool fi_valid;		/* st->fi is the open fd's (create_open_exact) */
	struct dos_info new_dos;
	struct fscc_ea *eas;	/* ExtA (2.2.13.2.1): set on a new or */
	size_t num_eas;		/* overwritten file */
	/* Oplock or lease asked for (2.2.13, 2.2.13.2.8/10). */
	uint8_t oplock_level;
	bool lease;
	uint8_t lease_version;
	uint8_t lease_key[16];
	uint32_t lease_state;
	uint16_t lease_epoch;
	uint8_t parent_key[16];
	bool has_parent_key;
	/* The table of create contexts (create_ctx_ops[]), set by
	 * create_contexts for the walks below it (create_reply). */
	const struct create_ctx_op *ctx_ops;
	/* The contexts the request carries, one bit per row of
	 * create_ctx_ops[] (create_contexts fills it, create_ctx_apply
	 * reads it). */
	uint32_t ctx_present;
	/* It carries a CREATE_CTX_RECLAIM row (DHnC, DH2C on 3.x). */
	bool reclaim;
	/* Durable handle contexts (2.2.13.2.3/.4/.11/.12, durable.h). */
	bool durable_seen;	/* a durable context was taken already */
	bool durable_v2_seen;	/* and it was DH2Q or DH2C */
	bool want_durable;	/* DHnQ or DH2Q */
	bool reconnect;		/* DHnC or DH2C */
	bool durable_granted;
	struct create_durable durable;
	/* Granted (locking/oplock.c). */
	uint32_t granted_state;
	uint16_t granted_epoch;
	bool lease_breaking;
	/* Waiting for a break (smbd/objects/oplock.h). */
	struct smb2_request *req;
	uint64_t wait_open_id;
	struct smbd_waiter *waiter;
	/* Symbolic links (smb2_create_link.c).  link_open: fd is a reparse
	 * point itself (FILE_OPEN_REPARSE_POINT: a link, FIFO, socket or
	 * device, O_PATH), link_dir: a link that leads to a directory.
	 * STOPPED_ON_SYMLINK: the link at component link_comp of path, its
	 * target as shown (vfs/symlink.h). */
	bool link_open;
	bool link_dir;
	size_t link_comp;
	char *link_target;
	bool link_relative;
	/* out */
	NTSTATUS status;
	int fd;
	bool opath;
	uint32_t action;
	uint32_t granted;
	uint32_t max_access;
	char *real_path;
	struct vfs_file_info fi;
};


/* smb2_create_access.c */
/* The directory holding st->real_path, opened once per job (O_PATH,
 * the share's resolve rules): -1 when it cannot be opened. */
int create_parent_fd(struct create_state *st);
void create_parent_fd_close(struct create_state *st);
/* st->max_access for name (share-relative, "." for the root), once
 * st->fi holds the file's (the base file's, for a stream): from its
 * stored NT ACL on an acl_xattr share when it has one (st->have_ntacl),
 * else from the Unix permissions as the job's credentials see them,
 * checked only for the rights that will be looked at (max_access.h). */
void create_access(struct create_state *st, const char *name);
bool create_parent_allows(struct create_state *st, bool dir);
void create_set_ntacl(struct create_state *st, bool dir);
NTSTATUS create_grant(struct create_state *st, uint32_t *granted);

/* smb2_create_link.c */
struct vfs_resolved;
/* In the job, after the lookup: a link as the last component of r is
 * opened itself (FILE_OPEN_REPARSE_POINT) or, where the share's rules do
 * not follow it, answered STOPPED_ON_SYMLINK; true when it was (st->
 * status says how), false for everything else. */
bool create_link_open(struct create_state *st, const struct vfs_resolved *r);
/* In the job: the walk stopped on the link link_path, component comp. */
void create_link_stopped(struct create_state *st, size_t comp,
			 const char *link_path);
/* On the loop: STOPPED_ON_SYMLINK's reply with its error data. */
NTSTATUS create_link_error(struct smb2_request *req, struct create_state *st);

/*
 * The create contexts CREATE handles (MS-SMB2 2.2.13.2, 3.3.5.9), one
 * row each in create_ctx_ops[] (smb2_create_ctx_apply.c); a context no
 * row names is ignored, as 3.3.5.9 allows.  A row with a NULL tag ends
 * the table.  The rows are in the order the steps run, for all three
 * walks:
 * - take: create_contexts() calls it for each context the request
 *   carries (with NULL too where CREATE_CTX_ABSENT says so), to check it
 *   (through its pure codec in smbd/wire/create_ctx.c) and fill the
 *   create state; a failure fails the CREATE;
 * - apply: create_ctx_apply() calls it, on the loop before the open's
 *   job, for each context the request carries; true when it answered
 *   the CREATE itself (*status, st consumed: a reclaim, a replay), false
 *   to go on with the open.  The effects on the file (ExtA, SecD, AlSi)
 *   and on share modes (RqLs, DHnQ/DH2Q) are no row's: they happen in
 *   the job (create_new/create_existing) and in create_share, where the
 *   open is made, from what take left in the state;
 * - reply: create_reply() calls it for every row of st->ctx_ops (the
 *   table create_contexts() handed it); it appends its response context
 *   when the state says one is owed (2.2.14.2).
 */
#define CREATE_CTX_SMB3 0x1	/* a 3.x context, ignored before */
#define CREATE_CTX_ABSENT 0x2	/* take runs without the context too */
#define CREATE_CTX_RECLAIM 0x4	/* names a durable open to reclaim */
struct create_ctx_op {
	const char *tag;
	unsigned flags;
	NTSTATUS (*take)(struct smb2_request *req, struct create_state *st,
			 const struct create_ctx *c);
	bool (*apply)(struct smb2_request *req, struct create_state *st,
		      NTSTATUS *status);
	void (*reply)(struct smb2_request *req, const struct create_state *st,
		      const struct smbd_open *op, size_t *prev);
};

/* smb2_create_ctx_apply.c */
/* The take walk over the request's contexts (off, len in req->in). */
NTSTATUS create_contexts(struct smb2_request *req, struct create_state *st,
			 uint32_t off, uint32_t len);
/* The apply walk: true when a row answered the CREATE (*status). */
bool create_ctx_apply(struct smb2_request *req, struct create_state *st,
		      NTSTATUS *status);
/* Whether the CREATE carries a CREATE_CTX_RECLAIM context (a malformed
 * list does not: the take walk reports it). */
bool create_is_reconnect(struct smb2_request *req, uint32_t off,
			 uint32_t len);
void create_set_eas(struct create_state *st);
NTSTATUS create_apply_secd(struct create_state *st, struct sd **sd);

/* smb2_create_durable.c: DHnQ, DHnC, DH2Q, DH2C */
NTSTATUS create_durable_take(struct smb2_request *req,
			     struct create_state *st,
			     const struct create_ctx *c);
bool create_reclaim_apply(struct smb2_request *req, struct create_state *st,
			  NTSTATUS *status);
bool create_replay_apply(struct smb2_request *req, struct create_state *st,
			 NTSTATUS *status);

/* smb2_create_reply.c */
void create_push_times(struct wire_buf *out, const struct vfs_file_info *fi);
/* The rows' reply builders. */
void create_reply_mxac(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev);
void create_reply_qfid(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev);
void create_reply_aapl(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev);
void create_reply_lease(struct smb2_request *req,
			const struct create_state *st,
			const struct smbd_open *op, size_t *prev);
void create_reply_dh2q(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev);
void create_reply_dhnq(struct smb2_request *req, const struct create_state *st,
		       const struct smbd_open *op, size_t *prev);
NTSTATUS create_reply(struct smb2_request *req, struct create_state *st,
		      struct smbd_open *op);

#endif
