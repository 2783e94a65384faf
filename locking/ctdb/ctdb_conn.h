/*
 * One process's connection to its node's ctdbd (the unix socket that
 * `ctdbd socket` names): controls, calls that move a record to this node,
 * and messages to and from srvids anywhere in the cluster.
 *
 * Requests are synchronous: the caller waits, with poll() and a deadline
 * (`ctdb timeout`), for the reply with its reqid.  Messages that arrive
 * meanwhile are queued, never handled inside a wait (a handler may itself
 * take records); ctdb_conn_dispatch() hands them to the message function,
 * from the owner's event loop when the socket is readable, and the
 * queued callback says when a wait left some behind.
 *
 * A connection must not cross fork(): the child calls
 * ctdb_conn_reconnect() for a socket of its own.
 */
#ifndef LOCKING_CTDB_CTDB_CONN_H
#define LOCKING_CTDB_CTDB_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"

struct ctdb_conn;

/* `ctdb timeout` = 0 (Samba: wait for ever): we still give up after
 * this, with an error and a log line, rather than hang a worker. */
#define CTDB_CONN_DEFAULT_TIMEOUT_MS 60000

/* Connect and learn this node's number.  NT_STATUS_CONNECTION_REFUSED
 * (with a log line) when no ctdbd listens at path. */
NTSTATUS ctdb_conn_open(TALLOC_CTX *mem_ctx, const char *path,
			unsigned timeout_ms, struct ctdb_conn **out);
/* After fork(): drop the parent's socket (without a word to ctdbd) and
 * connect anew.  Registered srvids are not carried over. */
NTSTATUS ctdb_conn_reconnect(struct ctdb_conn *c);
uint32_t ctdb_conn_pnn(const struct ctdb_conn *c);
int ctdb_conn_fd(const struct ctdb_conn *c);
const char *ctdb_conn_path(const struct ctdb_conn *c);

/*
 * A control to destnode (CTDB_CURRENT_NODE for ours).  *cstatus is the
 * control's own status (0 is success for most; GET_PNN returns the
 * node there), *out and *outlen its data (talloc child of mem_ctx, may be
 * NULL).  The NTSTATUS says whether a reply came at all.
 */
NTSTATUS ctdb_conn_control(struct ctdb_conn *c, uint32_t destnode,
			   uint32_t opcode, uint64_t srvid, uint32_t flags,
			   const void *in, size_t inlen, TALLOC_CTX *mem_ctx,
			   int32_t *cstatus, uint8_t **out, size_t *outlen);
/* DB_ATTACH / DB_ATTACH_PERSISTENT by name; GETDBPATH; DB_OPEN_FLAGS. */
NTSTATUS ctdb_conn_attach(struct ctdb_conn *c, const char *name,
			  bool persistent, uint32_t *db_id);
NTSTATUS ctdb_conn_db_path(struct ctdb_conn *c, uint32_t db_id,
			   TALLOC_CTX *mem_ctx, char **path);
NTSTATUS ctdb_conn_db_open_flags(struct ctdb_conn *c, uint32_t db_id,
				 int *tdb_flags);
/* Messages to srvid on this node reach this connection from now on. */
NTSTATUS ctdb_conn_register_srvid(struct ctdb_conn *c, uint64_t srvid);

/*
 * CTDB_REQ_CALL: callid CTDB_NULL_FUNC with CTDB_IMMEDIATE_MIGRATION
 * makes this node the record's data master; CTDB_FETCH_FUNC returns the
 * current data (*data, a talloc child of mem_ctx; empty for none) where
 * it is.  NT_STATUS_UNSUCCESSFUL when ctdbd answers with an error.
 */
NTSTATUS ctdb_conn_call(struct ctdb_conn *c, uint32_t db_id, uint32_t flags,
			uint32_t callid, const uint8_t *key, size_t keylen,
			TALLOC_CTX *mem_ctx, uint8_t **data, size_t *len);

/* A message to srvid on node pnn (CTDB_BROADCAST_CONNECTED: every
 * node, this one too).  Sent, not waited for. */
NTSTATUS ctdb_conn_send_message(struct ctdb_conn *c, uint32_t pnn,
				uint64_t srvid, const void *data, size_t len);

/*
 * IP failover (CTDB_CONTROL_TCP_CLIENT): a connection of its own to
 * ctdbd at path that registers one client TCP connection (client's
 * address, ours) in the node's tickle list, for as long as it stays
 * open; ctdbd forgets it when it closes.  When CTDB moves our public
 * address to another node, that node resets the client's connection with
 * a tickle ACK so the client reconnects at once.  ctdbd ignores a server
 * address that is not one of its public addresses.  NULL (logged) when
 * ctdbd cannot be reached or refuses.
 */
struct sockaddr;
struct ctdb_conn *ctdb_conn_tcp_client(TALLOC_CTX *mem_ctx, const char *path,
				       unsigned timeout_ms,
				       const struct sockaddr *client,
				       const struct sockaddr *server);

typedef void (*ctdb_message_fn)(uint64_t srvid, const uint8_t *data,
				size_t len, void *priv);
/* queued: called (once per wait) when a wait left messages queued, so
 * the owner can run ctdb_conn_dispatch() soon without the socket being
 * readable. */
void ctdb_conn_set_handlers(struct ctdb_conn *c, ctdb_message_fn fn,
			    void (*queued)(void *priv), void *priv);
/*
 * Read what the socket has (without waiting) and hand every queued
 * message to the message function.  NT_STATUS_CONNECTION_DISCONNECTED
 * when ctdbd went away.
 */
NTSTATUS ctdb_conn_dispatch(struct ctdb_conn *c);
/* Messages read but not yet handed out. */
bool ctdb_conn_has_queued(const struct ctdb_conn *c);

#endif
