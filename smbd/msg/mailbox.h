/*
 * smbd/msg/: the inter-worker mailbox (DESIGN.md "Storage and messages").
 *
 * Each worker has one: a datagram socketpair the master makes before
 * forking (smbd_mailboxes_create), so no name in the file system and no
 * stranger can write to it.  A message is a type, the sender's index and
 * a fixed-size body of the type's owner, and may carry one descriptor
 * (SCM_RIGHTS).  The owners register a handler per type at the worker's
 * start (smbd_mailbox_handle): oplock and lease breaks and their ends
 * (smbd/objects/oplock.c), durable hand-overs (smbd/objects/durable.c),
 * connections spread over workers, moved to their session's worker
 * (multichannel) and the accept barrier (smbd/conn/),
 * directory delete-pending and replaced sessions (smbd/smb2/), smbcontrol
 * (smbd/process/).  The mailbox knows nothing of what the messages mean.
 *
 * What it may use: smbd/smbd.h (the server's descriptors) and lib/ only;
 * it includes nobody above it.
 *
 * A message to the worker itself runs its handler at once, so an owner
 * sends the same way whether the other side is here or elsewhere.  A
 * process without mailbox sockets (the unit tests' server, a single
 * process) has a mailbox all the same: messages to itself are delivered,
 * to others refused.
 */
#ifndef SMBD_MSG_MAILBOX_H
#define SMBD_MSG_MAILBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

struct smbd_server;
struct smbd_mailbox;
struct ev_loop;

enum smbd_msg_type {
	SMBD_MSG_BREAK = 1,	/* break an open of yours (objects/oplock.c) */
	SMBD_MSG_WAKE,		/* a break on a file ended: look again */
	SMBD_MSG_CONN,		/* serve this connection; its fd rides along */
	SMBD_MSG_DIR_DELETE_PENDING,	/* CHANGE_NOTIFYs on a dir end */
	SMBD_MSG_SESSION_PREVIOUS,	/* log off a replaced session */
	SMBD_MSG_BARRIER,	/* answer after your next poll (conn_barrier.c) */
	SMBD_MSG_BARRIER_ACK,
	SMBD_MSG_DURABLE_REQ,	/* reclaim of a durable open (durable.c) */
	SMBD_MSG_DURABLE_GIVE,	/* its hand-over; its fd rides along */
	SMBD_MSG_DURABLE_NACK,	/* refused */
	SMBD_MSG_CONTROL,	/* from the master: smbcontrol (control.c) */
	SMBD_MSG_CONN_MOVE,	/* take over this connection and its request
				 * (conn_handover.c); its fd rides along */
	SMBD_MSG_MAX
};

/* The largest body a type may have (a connection's move is the biggest:
 * its credit window and the request it moves for). */
#define SMBD_MSG_BODY_MAX 8192

/*
 * A message for priv (the worker): from is the sender's worker index (-1
 * for the master), body exactly the length registered, fd a descriptor
 * that is the handler's to keep or close (-1: none).
 */
typedef void (*smbd_msg_fn)(void *priv, int from, const void *body, int fd);

/* Master, before forking: one socketpair per worker in srv->mbox. */
bool smbd_mailboxes_create(struct smbd_server *srv);

/* Worker index's mailbox, for handlers that get priv; NULL when out of
 * memory.  Listen once the loop exists. */
struct smbd_mailbox *smbd_mailbox_new(TALLOC_CTX *mem_ctx,
				      struct smbd_server *srv, int index,
				      void *priv);
bool smbd_mailbox_listen(struct smbd_mailbox *mb, struct ev_loop *loop);

/* type's handler and its body's size (at most SMBD_MSG_BODY_MAX); a
 * message of another size, or with a descriptor when takes_fd is false,
 * is dropped as malformed.  mb NULL: nothing. */
void smbd_mailbox_handle(struct smbd_mailbox *mb, enum smbd_msg_type type,
			 smbd_msg_fn fn, size_t body_len, bool takes_fd);

/*
 * To worker to (its own index: the handler runs now).  fd, when not -1,
 * goes along as a copy: the sender keeps its own.  False when the
 * message could not be queued (a full mailbox, no mailboxes, no such
 * worker, no handler for a message to oneself).
 */
bool smbd_mailbox_send(struct smbd_mailbox *mb, int to,
		       enum smbd_msg_type type, const void *body,
		       size_t len, int fd);
/* To every worker, this one included (its handler last). */
void smbd_mailbox_broadcast(struct smbd_mailbox *mb, enum smbd_msg_type type,
			    const void *body, size_t len);
/*
 * One received message (header and body as they came, fd or -1): checked
 * (magic, type, a registered handler, the body's registered length, a
 * descriptor only where the type takes one) and handed to its handler;
 * false, with fd closed and a log line, when it is malformed.  The loop
 * calls it through smbd_mailbox_receive, tests and the fuzz target
 * directly.
 */
bool smbd_mailbox_dispatch(struct smbd_mailbox *mb, const void *msg,
			   size_t len, int fd);
/* What is queued for this worker, at most a batch of 64 (the loop calls
 * it when the socket is readable); how many datagrams were read. */
unsigned smbd_mailbox_receive(struct smbd_mailbox *mb);

/* From the master (no mailbox of its own) to worker to; _fd: with a
 * copy of fd (the master keeps its own). */
bool smbd_mailbox_post(struct smbd_server *srv, int to,
		       enum smbd_msg_type type, const void *body, size_t len);
bool smbd_mailbox_post_fd(struct smbd_server *srv, int to,
			  enum smbd_msg_type type, const void *body,
			  size_t len, int fd);

#endif
