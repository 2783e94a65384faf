/*
 * What an RPC interface (srvsvc, wkssvc, lsarpc) gives the PDU layer: its
 * syntax identifier and a table of opnum -> handler.  A handler reads the
 * request stub with an ndr_pull and writes the response stub with an
 * ndr_push; a non-OK return (bad stub data) becomes an nca_s_fault_ndr
 * fault, an opnum past the table or a NULL slot nca_s_op_rng_error.
 */
#ifndef SMBD_RPC_RPC_SERVICE_H
#define SMBD_RPC_RPC_SERVICE_H

#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/rpc/ndr.h"
#include "smbd/rpc/pipe.h"

struct rpc_uuid {
	uint32_t time_low;
	uint16_t time_mid, time_hi;
	uint8_t rest[8];
};

struct rpc_syntax {
	struct rpc_uuid uuid;
	uint16_t major, minor;
};

/* Per-call state a handler sees. */
struct rpc_call {
	TALLOC_CTX *mem_ctx;	/* freed after the response is queued */
	const struct rpc_server_ctx *srv;
	struct rpc_pipe *pipe;
	void *iface_state;	/* the interface's per-pipe state */
};

typedef NTSTATUS (*rpc_op_fn)(struct rpc_call *call, struct ndr_pull *in,
			      struct ndr_push *out);

struct rpc_iface {
	const char *pipe_name;	/* "srvsvc" */
	const char *sec_addr;	/* bind_ack secondary address */
	struct rpc_syntax syntax;
	const rpc_op_fn *ops;
	uint16_t num_ops;
	/* per-pipe state on mem_ctx (may be NULL) */
	void *(*init)(TALLOC_CTX *mem_ctx);
};

extern const struct rpc_iface rpc_srvsvc_iface;
extern const struct rpc_iface rpc_wkssvc_iface;
extern const struct rpc_iface rpc_lsarpc_iface;

/* Windows error codes (MS-ERREF 2.2) services answer in WERROR. */
#define WERR_OK 0
#define WERR_ACCESS_DENIED 5
#define WERR_INVALID_PARAMETER 87
#define WERR_INVALID_LEVEL 124
#define WERR_NERR_NETNAMENOTFOUND 2310

/* Server name and comment shown by srvsvc/wkssvc. */
const char *rpc_server_name(const struct rpc_server_ctx *srv);
char *rpc_server_comment(TALLOC_CTX *mem_ctx,
			 const struct rpc_server_ctx *srv);

#endif
