/*
 * Oplock and lease breaks across workers (issue 6 "Storage and
 * messages"): delivery of break notifications to the client that holds
 * the open, and opens that wait for a break.
 *
 * The decisions are locking/oplock.c's, made under the file's chain
 * lock; this file moves their results: a break for an open of another
 * worker goes to that worker's mailbox (smbd/msg/mailbox.h), which
 * sends the notification on the open's connection.
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

/* At the worker's start: its mailbox takes SMBD_MSG_BREAK and
 * SMBD_MSG_WAKE from the other workers. */
void smbd_breaks_register(struct smbd_worker *w);

/* Deliver breaks the locking DB handed out, here or on their worker. */
void smbd_breaks_deliver(struct smbd_worker *w, const struct file_key *k,
			 const struct share_break *b, unsigned n);
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

/*
 * Directory leases: an entry of a directory was created, changed,
 * deleted or renamed through an open.  What the break needs is taken
 * from the open while it exists (smbd_dir_change_of: its directory,
 * op->pdev/pino, and the lease it names as its parent), so a change
 * that completes after the open is gone (a delete on close) breaks once
 * it is done.  smbd_dirlease_break breaks the directory's leases, here or
 * on their workers, except the lease the open names as its parent
 * (MS-SMB2 3.3.5.9.11 ParentLeaseKey: that client knows what it
 * changed); one read of the directory's record when nobody caches it.
 */
struct smbd_dir_change {
	uint64_t dev, ino;	/* the directory; 0, 0: none */
	bool spare;
	uint8_t guid[16], key[16];
};
void smbd_dir_change_of(const struct smbd_open *op, struct smbd_dir_change *c);

/*
 * Until some worker grants the first directory lease there is nothing a
 * change could break, and smbd_dirlease_break returns without reading
 * the directory's record: the cost of `smb3 directory leases = yes` for
 * clients that never ask for one (libsmbclient, cifs.ko, SMB 2.x) is
 * then none but each modifying open's parent id.  The master maps the
 * flag before the fork (smbd_dirlease_flag_create); a worker arms it
 * before it asks the locking DB for a directory lease, so a change made
 * before the flag is seen unset was on disk before the lease existed,
 * and the lease holder's listing, made after the grant, has it.
 */
bool smbd_dirlease_flag_create(struct smbd_server *srv);
void smbd_dirlease_arm(struct smbd_worker *w);
void smbd_dirlease_break(struct smbd_worker *w,
			 const struct smbd_dir_change *c);

/* WRITE, size change, lock through op: break others' read caching. */
void smbd_break_readers(struct smbd_open *op);

#endif
