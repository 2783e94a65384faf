/*
 * Named pipes on IPC$ (MS-SMB2 3.3.5.9 named pipe opens): a transport-
 * independent pipe object that speaks connection-oriented DCE/RPC
 * (C706 chapter 12, MS-RPCE 2.2.2) to one client.
 *
 * The SMB layer opens a pipe by name, feeds it the client's bytes (WRITE
 * or the input of FSCTL_PIPE_TRANSCEIVE) and reads the queued responses
 * back.  The pipe works in message mode: each PDU we produce is one
 * message, a short READ gets the start of it with *more set (the SMB
 * layer answers STATUS_BUFFER_OVERFLOW) and the next READ the rest.
 *
 * Everything here is CPU work plus short reads of secrets.tdb/passdb.tdb,
 * so it runs on the loop thread; a member's questions to winbindd stall
 * the call until the SMB layer has them answered in the pool (below).
 */
#ifndef SMBD_RPC_PIPE_H
#define SMBD_RPC_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>
#include "lib/ntstatus.h"

struct lp_ctx;
struct passdb;
struct rpc_dcache;
struct rpc_dbatch;
struct rpc_pipe;

/* What the services need from the daemon. */
struct rpc_server_ctx {
	const struct lp_ctx *lp;
	const char *account_name, *domain; /* the SMB session's user */
	uid_t uid;
	gid_t gid;
	/*
	 * The session is a null session or a guest one (below an
	 * authenticated user): `restrict anonymous` >= 1 refuses it the
	 * share list (srvsvc), as Samba does.
	 */
	bool anonymous;
	/*
	 * Who the caller is to a share's user lists (`valid users`,
	 * `invalid users`), for `access based share enum`: the Unix name
	 * (the `guest account` for an anonymous session, as Samba's
	 * anonymous token) and the Unix groups.
	 */
	const char *unix_name;
	const gid_t *groups;
	size_t ngroups;
	const char *client_addr;
	uint64_t server_start_nttime;
	const char *state_dir, *private_dir;
	/*
	 * The process's open passdb.tdb, or NULL (then lookups open
	 * <private_dir>/passdb.tdb themselves).  tdb refuses a second open
	 * of one file in a process, so a daemon that has it open passes it.
	 */
	struct passdb *passdb;
	/*
	 * security = ads: the domain's accounts come from winbindd
	 * (rpc_domain.h).  Set by rpc_pipe_open() when member is.
	 */
	bool member;
	struct rpc_dcache *dcache;
};

/*
 * Open a pipe by name ("srvsvc", "\\srvsvc", "\\PIPE\\srvsvc",
 * case-insensitive).  NULL + NT_STATUS_OBJECT_NAME_NOT_FOUND for a pipe we
 * do not serve.  The strings in ctx are copied.
 */
NTSTATUS rpc_pipe_open(TALLOC_CTX *mem_ctx, const char *name,
		       const struct rpc_server_ctx *ctx,
		       struct rpc_pipe **out);

/*
 * Client -> server bytes.  Complete PDUs are processed at once and their
 * responses queued; a partial PDU waits for the rest.
 * NT_STATUS_PIPE_DISCONNECTED once the pipe broke (a PDU we cannot frame):
 * the client should close it.
 */
NTSTATUS rpc_pipe_write(struct rpc_pipe *p, const uint8_t *data, size_t len);

/*
 * Server -> client: up to max bytes of the current response message
 * (*data on mem_ctx).  *more is true when the message has more bytes left
 * for the next read.  NT_STATUS_PIPE_EMPTY when no response is queued
 * (Samba would make the READ wait; we have nothing pending, since every
 * complete request is answered at once, so the caller fails the READ).
 */
NTSTATUS rpc_pipe_read(struct rpc_pipe *p, TALLOC_CTX *mem_ctx, size_t max,
		       uint8_t **data, size_t *len, bool *more);

/*
 * A lookup call waits for winbindd (rpc_domain.h): the request is kept,
 * nothing is answered and further writes get NT_STATUS_PIPE_BUSY until
 * rpc_pipe_resume().  rpc_pipe_wanted() copies what the call wants onto
 * mem_ctx, for rpc_pipe_lookup() to resolve in the pool.
 */
bool rpc_pipe_stalled(const struct rpc_pipe *p);
struct rpc_dbatch *rpc_pipe_wanted(const struct rpc_pipe *p,
				   TALLOC_CTX *mem_ctx);
void rpc_pipe_lookup(struct rpc_dbatch *b);
/* The answers (b NULL: none to be had) in, the call run again and
 * answered, then any input that came with it. */
void rpc_pipe_resume(struct rpc_pipe *p, const struct rpc_dbatch *b);
/* Queued response bytes (FilePipeLocalInformation ReadDataAvailable). */
size_t rpc_pipe_pending(const struct rpc_pipe *p);

/* The canonical name ("srvsvc") of an open pipe. */
const char *rpc_pipe_name(const struct rpc_pipe *p);

#ifndef NT_STATUS_PIPE_EMPTY
#define NT_STATUS_PIPE_EMPTY ((NTSTATUS)0xC00000D9)
#endif

#endif
