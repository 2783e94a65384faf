/*
 * The authentication rate limiter (issue 34, "brute force"): what makes
 * guessing passwords over SMB slow, as Windows Server 2025's SMB
 * authentication rate limiter does (Samba has none).
 *
 * Per connection.  A failed logon's SESSION_SETUP reply is held
 * `smbd auth rate limiter delay` ms (default 2000) on a loop timer: the
 * request goes async, the loop and the connection's other requests go
 * on, and the reply, unchanged, leaves when the timer fires.  Until then
 * the connection's next credentials (any SESSION_SETUP with a SessionId,
 * i.e. the leg that carries the NTLM response, a re-authentication or a
 * binding) wait too, so pipelining guesses on one connection (several
 * sessions at once, not waiting for the answers) gains nothing: a
 * connection gets at most one verdict per delay after a failure.  A
 * CANCEL does not end the wait (it would tell a failure from a success
 * at once): the request is not cancellable, and a CANCEL for it is
 * ignored (MS-SMB2 3.3.5.16: no request found).  A connection that goes
 * meanwhile frees the held request with its timer.  A good logon is
 * never delayed, unless it follows a failure on the same connection.
 *
 * Per source address.  An attacker with many connections would multiply
 * the per-connection rate, so failures are also counted per client
 * address, across all the workers, in a table the master maps shared
 * before it forks them (4096 cells, each two 64-bit words updated with
 * atomic compare-and-swap, so no lock is ever held and a dead worker
 * leaves nothing to clean).  Each cell is a leaky bucket: a failure
 * pours in one delay's worth of time and the bucket drains in real time,
 * so it holds the failures of about the last budget x delay ms.  While it
 * holds more than `smbd auth rate limiter budget` failures (default 50),
 * each credentials leg from that address first takes the next slot of a
 * queue shared by all its connections, one every delay ms: the address
 * as a whole gets one verdict per delay, whatever its connections, and
 * its pouring in one failure per delay keeps it over the budget for as
 * long as the attack goes on.  Below the budget only the per-connection
 * delay applies, so an office behind one address with a few typos is
 * never queued.
 *
 * Limits, said in the manual too:
 * - the key is the IPv4 address, an IPv6 address's /64 (one subscriber's
 *   prefix; an attacker holding a /48 has 65536 of them), IPv4-mapped
 *   IPv6 as IPv4; keys are hashed into the cells, and two addresses that
 *   share a cell are counted together (which can only slow them, never
 *   let more through);
 * - behind a NAT the attacker and its legitimate users are one address:
 *   once over the budget their logons wait in the same queue, one per
 *   delay (good ones too, as nobody knows which are good before trying
 *   them); a waiting connection is still dropped by `smbd logon timeout`;
 * - the slot queue is shared by all the workers through the same cells,
 *   so two logons never share a slot; the per-connection gate is local.
 *
 * delay 0 turns all of it off; budget 0 turns off the per-address part.
 */
#ifndef SMBD_CONN_AUTH_LIMIT_H
#define SMBD_CONN_AUTH_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ntstatus.h"

#define SMBD_AUTH_LIMIT_CELLS 4096

struct smbd_server;
struct smbd_conn;
struct smb2_request;

/* One cell of the shared table: times in CLOCK_MONOTONIC ms, which all
 * the processes of the machine share. */
struct auth_limit_cell {
	uint64_t empty_at;	/* when the failure bucket is empty */
	uint64_t next_slot;	/* the queue's next free slot */
};

/* ---- the arithmetic, pure (unit tests drive it with their own clock) */

/* A failure from the cell's address at now (the bucket holds at most
 * 2 x budget failures). */
void auth_limit_cell_fail(struct auth_limit_cell *c, uint64_t now,
			  unsigned delay_ms, unsigned budget);
/* A credentials leg from the cell's address at now: 0 when the address
 * is within its budget; else the ms until the slot just taken (0 when
 * the slot is now). */
uint64_t auth_limit_cell_admit(struct auth_limit_cell *c, uint64_t now,
			       unsigned delay_ms, unsigned budget);
/* The cell of a numeric address ("192.0.2.1", "2001:db8::1",
 * "::ffff:192.0.2.1"): IPv4 whole, IPv6 by its /64. */
unsigned auth_limit_cell_of(const char *addr);

/* ---- the server's table and its requests ---------------------------- */

/* The master, before the workers fork.  False: no memory (logged). */
bool smbd_auth_limit_create(struct smbd_server *srv);

/* Whether a SESSION_SETUP that ended with status is a failed logon the
 * limiter counts: what a wrong guess is answered (LOGON_FAILURE), not a
 * malformed or out-of-place request, nor a refusal that comes only after
 * a right password. */
bool smbd_auth_limit_counts(NTSTATUS status);

/*
 * At the start of a SESSION_SETUP that carries credentials (SessionId
 * not 0): NT_STATUS_OK to go on now; else SMBD_STATUS_ASYNC, and
 * retry(req) runs on the loop when its turn comes (the handler from the
 * top: nothing of the request was used yet) and its status finishes
 * the request.
 */
NTSTATUS smbd_auth_limit_wait(struct smb2_request *req,
			      NTSTATUS (*retry)(struct smb2_request *req));
/*
 * A SESSION_SETUP ends with status: a counted failure is held (the
 * delay) and SMBD_STATUS_ASYNC returned, the reply leaving with status
 * when the timer fires; anything else returns status as it is.
 */
NTSTATUS smbd_auth_limit_hold(struct smb2_request *req, NTSTATUS status);

#endif
