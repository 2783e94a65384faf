/*
 * Durable handles (MS-SMB2 3.3.5.9.6 DHnQ, 3.3.5.9.7 DHnC, 3.3.5.9.10
 * DH2Q, 3.3.5.9.12 DH2C, 3.3.7.1 connection loss, 3.3.2.x durable open
 * scavenger timer).
 *
 * A durable open whose connection drops is kept: it moves from its
 * connection's table into the worker's durable connection (a connection
 * without a socket or session), keeps its fd, share-mode entry, byte-range
 * locks and oplock or lease, and gets a private copy of its tree's share
 * (root fd, path).  A scavenger timer closes it when nobody reclaimed it
 * within its timeout; a break it would have to receive closes it at once
 * (no client could answer it).  A CREATE with DHnC/DH2C from the same user
 * moves it into the new connection, session and tree.
 *
 * Resilient opens (FSCTL_LMR_REQUEST_RESILIENCY, 3.3.5.15.9) take the
 * same road with their own timeout (Open.ResiliencyTimeout, the resilient
 * open scavenger timer of 3.3.2.4) and two differences: they need no
 * oplock or lease to be kept, and a break they would have to receive
 * while disconnected does not close them (3.3.4.6 closes only opens that
 * are neither resilient nor persistent): nobody can acknowledge it, so it
 * ends at once as an unacknowledged break ends (3.3.6.1: the open keeps
 * what the break left it) and the open stays for its client.  Either
 * reconnect context reclaims them (3.3.5.9.7, 3.3.5.9.12: "Open.IsDurable
 * is FALSE and Open.IsResilient is FALSE" is what fails).
 */
#ifndef SMBD_DURABLE_H
#define SMBD_DURABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/ntstatus.h"

struct smbd_conn;
struct smbd_open;
struct smbd_worker;
struct smb2_request;
struct create_durable;

/* v1 opens and v2 requests with Timeout 0 (3.3.5.9.10: the server picks
 * one); a v2 request asking for more gets the maximum. */
#define SMBD_DURABLE_DEFAULT_TIMEOUT_MS (60 * 1000)
#define SMBD_DURABLE_MAX_TIMEOUT_MS (300 * 1000)

/* 3.3.5.15.9: Timeout 0 gets the server's choice, more than the maximum
 * (in seconds) is INVALID_PARAMETER.  Windows' values: 120 s when the
 * client leaves it to the server, at most 300 s (MaxResiliencyTimeout). */
#define SMBD_RESILIENT_DEFAULT_TIMEOUT_MS (120 * 1000)
#define SMBD_RESILIENT_MAX_TIMEOUT_MS (300 * 1000)

/* Whether the open may be durable after CREATE granted it this caching
 * (3.3.5.9.6/3.3.5.9.10: a batch oplock or a lease with handle caching). */
bool smbd_durable_grantable(const struct smbd_open *op, bool lease,
			    uint32_t granted_state);
/* Mark op durable as req asked (the CREATE's session user owns it). */
void smbd_durable_grant(struct smbd_open *op, const struct create_durable *req,
			uid_t owner);

/* 3.3.5.15.9: op becomes resilient (Open.IsDurable FALSE, IsResilient
 * TRUE) for timeout_ms, owned by user owner (Open.DurableOwner). */
void smbd_resilient_grant(struct smbd_open *op, uint32_t timeout_ms,
			  uid_t owner);

/* 3.3.7.1: the connection goes; its durable opens stay, the rest close
 * as before.  Called first thing in the connection's destructor. */
void smbd_durable_conn_lost(struct smbd_conn *conn);

/* 3.3.5.5.3: a SESSION_SETUP with PreviousSessionId ends session s as if
 * its connection were lost: its durable opens stay for the reclaim. */
struct smbd_session;
void smbd_durable_session_lost(struct smbd_conn *conn,
			       const struct smbd_session *s);

/* A break (locking/) names op: a disconnected open cannot answer, so a
 * durable one is closed, and a resilient one has the break ended for it
 * as if unacknowledged (both from the loop, not inside the caller).  True
 * when op was disconnected and the break is not to be sent. */
bool smbd_durable_break(struct smbd_open *op);

/* 3.3.5.9.10 replay: the open of this client with this CreateGuid on
 * this worker, connected or not, or NULL. */
struct smbd_open *smbd_durable_find_guid(struct smbd_worker *w,
					 const uint8_t client_guid[16],
					 const uint8_t create_guid[16]);

/*
 * 3.3.5.9.7 / 3.3.5.9.12: reclaim the open d names for req's session and
 * tree.  path is the CREATE's name, lease_key the RqLs key (NULL without
 * one).  NT_STATUS_NOT_FOUND: this worker has no durable open of that
 * FileId (ask the others: smbd_durable_reclaim_remote());
 * NT_STATUS_OBJECT_NAME_NOT_FOUND when it is not disconnected or not the
 * client's, ACCESS_DENIED for another user, INVALID_PARAMETER for
 * another name.
 */
NTSTATUS smbd_durable_reconnect(struct smb2_request *req,
				const struct create_durable *d,
				const char *path, const uint8_t *lease_key,
				struct smbd_open **out);

/*
 * Reclaim on another worker (the reconnect landed elsewhere).  The
 * worker of the CREATE asks the others (SMBD_MSG_DURABLE_REQ, checked there
 * as 3.3.5.9.7 says); the holder sends the open's state with its fd
 * (SMBD_MSG_DURABLE_GIVE, SCM_RIGHTS) and forgets the open without touching
 * the locking DB; the new worker then moves the share-mode entry and the
 * byte-range locks to itself.  A worker dying on either side leaves only
 * entries of its own pid, which the master cleans.
 */
#define SMBD_DURABLE_XFER_PATH 1024
#define SMBD_DURABLE_XFER_SHARE 80	/* share names are shorter */
struct smbd_durable_xfer {
	uint64_t token;		/* the asking worker's wait */
	uint16_t from_worker;	/* the asking worker (REQ) */
	uint32_t status;	/* NACK: why */
	/* The claim (REQ): what 3.3.5.9.7/3.3.5.9.12 check. */
	uint64_t fid_persistent, fid_volatile;
	uint8_t v2;
	uint8_t has_lease;
	uint8_t create_guid[16];
	uint8_t lease_key[16];
	uint8_t client_guid[16];
	uint32_t uid;
	char share_name[SMBD_DURABLE_XFER_SHARE];	/* the tree's share */
	uint64_t root_dev, root_ino;	/* and its directory */
	/* The open (GIVE). */
	uint32_t old_pid;
	uint64_t old_open_id;
	uint64_t dev, ino;
	uint64_t pdev, pino;	/* its directory (directory leases) */
	uint8_t modified;
	uint32_t access_mask, share_access, create_options;
	uint32_t create_disposition, create_action;
	uint8_t is_dir, opath, delete_on_close;
	uint8_t caching, lease_version, has_parent_key, durable_v2;
	uint8_t durable, resilient;
	uint8_t parent_lease_key[16];
	uint32_t durable_timeout_ms;
	uint8_t lock_seq[64];
	uint64_t position;
	uint32_t mode;
	uint16_t channel_seq;	/* 3.3.1.10 Open.ChannelSequence */
	char path[SMBD_DURABLE_XFER_PATH];	/* NUL-terminated */
};
/* At the worker's start: its mailbox takes the SMBD_MSG_DURABLE_*
 * messages (a reclaim asked of it, a hand-over, a refusal). */
void smbd_durable_register(struct smbd_worker *w);

/* After smbd_durable_reconnect() found nothing here: ask the other
 * workers.  SMBD_STATUS_ASYNC: done(priv, op, status) follows (op NULL
 * unless status is OK); NT_STATUS_OBJECT_NAME_NOT_FOUND: no other worker
 * has an open of that id. */
typedef void (*smbd_durable_done_fn)(void *priv, struct smbd_open *op,
				     NTSTATUS status);
NTSTATUS smbd_durable_reclaim_remote(struct smb2_request *req,
				     const struct create_durable *d,
				     const char *path,
				     const uint8_t *lease_key,
				     smbd_durable_done_fn done, void *priv);

#endif
