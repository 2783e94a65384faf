/*
 * smbd/conn/: the request pipeline.  A worker's connections (conn.c:
 * the socket, NetBIOS framing, limits before logon), the PDU checks and
 * compound split (smb2_pdu.c), the dispatcher with credits and the
 * message-id window (smb2_dispatch.c), signing and the transform
 * (smb2_signing.c, smb2_transform.c), pool jobs (smb2_job.c), the accept
 * barrier, and the sessions and tree connects every request is checked
 * against (session.c: lookups only; SESSION_SETUP and TREE_CONNECT make
 * them).
 *
 * What it may use: the rooms below it (rpc, auth, locking, vfs, conf,
 * msg, lib).  It sits below the SMB2 commands and the objects, which use
 * its request, session and tree types; it reaches them only through what
 * they register at the worker's start: the command table (smbd_worker.smb2),
 * the hooks (smbd_worker.hooks) and their own per-worker state
 * (smbd_worker.ctx, opaque here).  One circle stays inside the room,
 * as one mechanism: a connection hands its frames to the dispatcher and
 * the dispatcher its replies (and a disconnect) to the connection, and the
 * pre-logon limits drop a connection that overstays (conn.c, smb2_dispatch.c,
 * conn_limits.c).
 *
 * This header: the connection's calls (its state: conn_state.h; the
 * worker's: worker.h).  A worker owns its connections; a connection owns
 * its sessions (issue 3) and everything below them, as a talloc tree
 * (DESIGN.md "Memory").  Multichannel: a session's other connections hold
 * only a channel record (session.h); all of them are on one worker
 * (conn_handover.c moves a connection to the worker of its client or of
 * the session it binds to).
 */
#ifndef SMBD_CONN_H
#define SMBD_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/conn/conn_state.h"
#include "smbd/conn/worker.h"

void smbd_conn_accept(struct smbd_worker *w, int fd);
/* A connection on fd, admitted (`hosts allow`, limits) and reading; NULL
 * when refused (fd is closed then). */
struct smbd_conn *smbd_conn_start(struct smbd_worker *w, int fd);
/* At the worker's start: its mailbox takes SMBD_MSG_CONN_MOVE
 * (conn_handover.c). */
void smbd_conn_handover_register(struct smbd_worker *w);
/* The body of SMBD_MSG_CONN_MOVE: its size, and what the receiving
 * worker does with it on the new connection (checked: false, nothing
 * done, for a state the credit code could not work with; else the state
 * is the connection's and its bytes are input).  The fuzz target calls
 * it on a test connection. */
extern const size_t smbd_conn_move_msg_len;
bool smbd_conn_move_apply(struct smbd_conn *conn, const void *body);
/* Publish w's connection counts (at its start, then at each accept). */
void smbd_conn_stats_publish(struct smbd_worker *w);
/* `smbd spread connections`: accept fd here or hand it to the next
 * worker in turn (tests of cross-worker behaviour).  The master makes
 * the shared turn counter before forking (false: out of memory). */
bool smbd_spread_create(struct smbd_server *srv);
void smbd_spread_accept(struct smbd_worker *w, int fd);
/* At the worker's start: its mailbox takes SMBD_MSG_CONN (a connection
 * spread to it) and the accept barrier's SMBD_MSG_BARRIER(_ACK). */
void smbd_conn_register(struct smbd_worker *w);
void smbd_barrier_register(struct smbd_worker *w);
/*
 * conn_barrier.c: start(w, fd) runs once every other worker has handled
 * what the kernel finished for it before now (a client's dropped earlier
 * connection), or after a short timeout.
 */
void smbd_accept_after_barrier(struct smbd_worker *w, int fd,
			       void (*start)(struct smbd_worker *w, int fd));
/* Bytes from the socket (also the entry point for tests and fuzzers). */
void smbd_conn_input(struct smbd_conn *conn, const uint8_t *data, size_t len);
/* A connection without a socket, for tests and fuzzers. */
struct smbd_conn *smbd_conn_new_detached(struct smbd_worker *w,
					 void (*sink)(struct smbd_conn *,
						      uint8_t *, size_t));
/* Send one frame: buf starts with 4 bytes the function fills with the
 * NetBIOS session-message header; it takes ownership of buf. */
void smbd_conn_send_frame(struct smbd_conn *conn, uint8_t *buf, size_t len);
/* The same, the frame's payload continuing with flen bytes of the file
 * fd from off, sent from the page cache without a copy (zero-copy READ);
 * takes fd.  Only for a connection with a socket (conn->sink == NULL). */
void smbd_conn_send_frame_file(struct smbd_conn *conn, uint8_t *buf,
			       size_t len, int fd, uint64_t off, size_t flen);
/* Drop the connection (logged at level 3 with the reason). */
void smbd_conn_disconnect(struct smbd_conn *conn, const char *why);

#endif
