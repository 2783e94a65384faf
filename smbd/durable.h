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

/* Whether the open may be durable after CREATE granted it this caching
 * (3.3.5.9.6/3.3.5.9.10: a batch oplock or a lease with handle caching). */
bool smbd_durable_grantable(const struct smbd_open *op, bool lease,
			    uint32_t granted_state);
/* Mark op durable as req asked (the CREATE's session user owns it). */
void smbd_durable_grant(struct smbd_open *op, const struct create_durable *req,
			uid_t owner);

/* 3.3.7.1: the connection goes; its durable opens stay, the rest close
 * as before.  Called first thing in the connection's destructor. */
void smbd_durable_conn_lost(struct smbd_conn *conn);

/* 3.3.5.5.3: a SESSION_SETUP with PreviousSessionId ends session s as if
 * its connection were lost: its durable opens stay for the reclaim. */
struct smbd_session;
void smbd_durable_session_lost(struct smbd_conn *conn,
			       const struct smbd_session *s);

/* A break (locking/) names op: a disconnected open cannot answer, so it
 * is closed (from the loop, not inside the caller).  True when op was
 * disconnected and the break is not to be sent. */
bool smbd_durable_break(struct smbd_open *op);

/* 3.3.5.9.10 replay: the open of this client with this CreateGuid on
 * this worker, connected or not, or NULL. */
struct smbd_open *smbd_durable_find_guid(struct smbd_worker *w,
					 const uint8_t client_guid[16],
					 const uint8_t create_guid[16]);

/*
 * 3.3.5.9.7 / 3.3.5.9.12: reclaim the open d names for req's session and
 * tree.  path is the CREATE's name, lease_key the RqLs key (NULL without
 * one).  NT_STATUS_OBJECT_NAME_NOT_FOUND when there is no such
 * disconnected open or it is not the client's, ACCESS_DENIED for another
 * user, INVALID_PARAMETER for another name.
 */
NTSTATUS smbd_durable_reconnect(struct smb2_request *req,
				const struct create_durable *d,
				const char *path, const uint8_t *lease_key,
				struct smbd_open **out);

#endif
