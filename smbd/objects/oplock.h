/*
 * Oplock and lease breaks across workers (issue 6 "Storage and
 * messages"): per-worker mailboxes, delivery of break notifications to
 * the client that holds the open, and opens that wait for a break.
 *
 * The decisions are locking/oplock.c's, made under the file's chain
 * lock; this file moves their results: a break for an open of another
 * worker goes to that worker's mailbox (a datagram socketpair the master
 * made before forking, so no name in the file system and no stranger can
 * write to it), which sends the notification on the open's connection.
 * An open that must wait for a break registers a waiter on the file's
 * key; whoever ends a break (acknowledgement, close, timeout) wakes every
 * worker's waiters of that key.  Waiters also look again on a slow timer,
 * so a worker that died mid-break delays nobody for long, and after
 * SMBD_BREAK_TIMEOUT_MS they end the break themselves as its timeout
 * (MS-SMB2 3.3.6.1 Oplock Break Acknowledgment Timer).
 */
#ifndef SMBD_OPLOCK_H
#define SMBD_OPLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "locking/locking.h"

struct smbd_worker;
struct smbd_server;
struct smbd_open;
struct smbd_conn;

/* Samba's default break wait: 35 seconds (OPLOCK_BREAK_TIMEOUT + 5). */
#define SMBD_BREAK_TIMEOUT_MS 35000

/* SMB2 OplockLevel values (2.2.13). */
#define SMB2_OPLOCK_LEVEL_NONE 0x00
#define SMB2_OPLOCK_LEVEL_II 0x01
#define SMB2_OPLOCK_LEVEL_EXCLUSIVE 0x08
#define SMB2_OPLOCK_LEVEL_BATCH 0x09
#define SMB2_OPLOCK_LEVEL_LEASE 0xFF

/* Oplock level <-> caching state. */
uint32_t smbd_oplock_level_to_state(uint8_t level);
uint8_t smbd_oplock_state_to_level(uint32_t state);

/* Master, before forking: one mailbox per worker. */
bool smbd_mailboxes_create(struct smbd_server *srv);
/* Worker, after its loop exists: watch its own mailbox. */
bool smbd_mailbox_listen(struct smbd_worker *w);

/* The accept barrier's question (ack false) or answer to worker to;
 * false if the message could not be queued. */
/* The master (or anyone) to worker to: an smbcontrol op (control.h) with
 * its argument (under 256 bytes).  False when it cannot be sent. */
bool smbd_mailbox_send_control(struct smbd_server *srv, int to, int op,
			       const char *arg);
bool smbd_mailbox_barrier(struct smbd_worker *w, int to, uint64_t token,
			  bool ack);

/* `smbd spread connections`: accept fd here or hand it to the next
 * worker in turn (tests of cross-worker behaviour). */
void smbd_spread_accept(struct smbd_worker *w, int fd);
/* A durable hand-over message (durable.c) to worker to: a request, a
 * refusal (nack) or the open itself (give, with its fd). */
struct smbd_durable_xfer;
bool smbd_mailbox_send_durable(struct smbd_worker *w, int to, bool give,
			       bool nack, const struct smbd_durable_xfer *x,
			       int fd);

/* Deliver breaks the locking DB handed out, here or on their worker. */
void smbd_breaks_deliver(struct smbd_worker *w, const struct file_key *k,
			 const struct share_break *b, unsigned n);
/* A directory's delete became pending: every worker's CHANGE_NOTIFYs on
 * it end (smb2_notify.c). */
void smbd_dir_delete_pending(struct smbd_worker *w, uint64_t dev,
			     uint64_t ino);
/* 3.3.5.5.3 PreviousSessionId: the worker that holds session id logs it
 * off if account owns it. */
void smbd_session_previous(struct smbd_worker *w, uint64_t id,
			   const char *account);
/* A break of k ended: wake the waiters of every worker. */
void smbd_breaks_wake(struct smbd_worker *w, const struct file_key *k);

/*
 * Wait for a break of k to end: fn(priv) runs when woken, on a slow
 * poll, or with expired = true once SMBD_BREAK_TIMEOUT_MS have passed
 * (the caller then ends the break with share_mode_break_timeout()).
 * Freeing the returned object (a child of mem_ctx) stops the wait.
 */
struct smbd_waiter;
struct smbd_waiter *smbd_waiter_add(TALLOC_CTX *mem_ctx,
				    struct smbd_worker *w,
				    const struct file_key *k,
				    void (*fn)(void *priv, bool expired),
				    void *priv);

/* WRITE, size change, lock through op: break others' read caching. */
void smbd_break_readers(struct smbd_open *op);

#endif
