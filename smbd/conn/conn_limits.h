/*
 * What a client may make the server hold before and around its logon
 * (issue 14 item 5):
 *
 * - `max smbd processes` (Samba's name: in Samba each client connection
 *   is a process, so it caps connections) and `smbd max clients per
 *   host`: counted across workers in a table the master maps shared
 *   before it forks them.  Each worker writes only its own row (its
 *   connections in all, and per source address hashed into buckets), so
 *   a worker that dies takes its counts with it: its successor zeroes
 *   the row.  A refused connection is closed at once.
 * - the [global] `hosts allow` / `hosts deny` lists (issue 15 item 5):
 *   a refused host is told so with a NetBIOS negative session response
 *   and closed before it can negotiate, as Samba does; a share's own
 *   lists are checked at tree connect (smb2_tcon.c), both with
 *   access.c's one parser;
 * - before a session is logged on, a frame may carry at most
 *   SMBD_MAX_PRELOGON_PDU bytes (NEGOTIATE and SESSION_SETUP need far
 *   less), so an unauthenticated connection holds at most that much;
 * - `smbd logon timeout`: a connection with no logged-on session that
 *   long after it was accepted is dropped (slow or idle clients that
 *   never log on, slowloris).
 *
 * And after its logon (issue 34 item 1), the decompressed bytes its
 * waiting requests keep.  A COMPRESSION_TRANSFORM message of 130 bytes
 * may decompress to MaxWrite + 272 bytes (8 MiB), and a request that
 * waits (CHANGE_NOTIFY, a blocking LOCK, a CREATE waiting for a break,
 * work on the pool) used to keep it whole: 24 of them grew a worker by
 * 192 MiB.  A waiting request now keeps only its declared bytes
 * (smb2_pdu_extent) and the requests after it in its compound, whole,
 * since their signatures are checked when their turn comes; what it
 * keeps of a decompressed message is counted here, per connection and
 * per worker, until it is freed (with the frame, or with a job still
 * reading it):
 *
 * - `smbd max decompressed per connection` (MiB, default 64): a
 *   connection whose waiting requests would keep more is dropped, as
 *   Windows drops a connection that sends a bad compressed message
 *   (MS-SMB2 3.3.5.2.x): no client needs it, and a reply cannot carry
 *   the refusal of work already under way (the handler started it),
 *   while a client that loses its connection reconnects and replays its
 *   writes on its durable handles, which a failed WRITE would not.
 * - `smbd max decompressed per worker` (MiB, default 256): when a
 *   connection's request would take a worker past it, the worker's
 *   connection holding the most is dropped (after the loop's next poll
 *   if it is another one: its frames may be on the stack), so one client
 *   filling the worker cannot get others dropped.
 *
 * Either counts as at least one decompressed message (MaxWrite + 272
 * bytes), so legitimate compressed WRITEs always fit.  A worker then
 * holds at most its bound plus the one message it is decompressing
 * (the loop handles one frame at a time; a frame that does not wait is
 * freed when answered): with N workers the server holds at most
 * N x (256 MiB + 8 MiB) by default.
 */
#ifndef SMBD_CONN_LIMITS_H
#define SMBD_CONN_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smbd_server;
struct smbd_worker;
struct smbd_conn;

/* NEGOTIATE and an NTLMSSP/SPNEGO SESSION_SETUP fit in a few KiB; a
 * Kerberos ticket with a large PAC in well under 64 KiB (Windows'
 * MaxTokenSize is 48,000 bytes). */
#define SMBD_MAX_PRELOGON_PDU (64 * 1024)

/* The master, before the workers fork. */
bool smbd_conn_limits_create(struct smbd_server *srv);
/* A worker starts: its row is empty. */
void smbd_conn_limits_worker_init(struct smbd_worker *w);

/* The connections all workers hold now (for the service status). */
unsigned smbd_conn_limits_total(const struct smbd_server *srv);

/* Whether the [global] host lists let conn (its remote_addr set) in;
 * refused: logged, answered on fd, which the caller closes. */
bool smbd_conn_hosts_admit(struct smbd_conn *conn, int fd);
/* Whether conn (its remote_addr set) may stay; counts it if so. */
bool smbd_conn_limits_admit(struct smbd_conn *conn);
/* conn goes (counted or not). */
void smbd_conn_limits_release(struct smbd_conn *conn);

/* Start the logon timer of a new connection; a session logged on
 * (smbd_conn_logged_on) stops it. */
void smbd_conn_logon_timer_start(struct smbd_conn *conn);
void smbd_conn_logged_on(struct smbd_conn *conn);

/*
 * conn's waiting request would keep size more bytes of a decompressed
 * message, msg_max the most one may decompress to: true when it may (the
 * caller counts them in conn->decomp_held and the worker's); false, and
 * logged, when conn must be dropped.  Another connection, holding the
 * most at the worker's bound, may be dropped after the next poll.
 */
bool smbd_conn_decomp_admit(struct smbd_conn *conn, size_t size,
			    size_t msg_max);

#endif
