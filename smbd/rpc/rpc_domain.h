/*
 * Domain accounts for lsarpc on a member server (security = ads): the
 * names and SIDs of the domain's users and groups are winbindd's (and,
 * through it, the DC's), so LookupNames turns SMBNG\staff into its SID
 * for smbcacls and LookupSids shows Explorer's Security tab SMBNG\alice.
 *
 * Asking winbindd blocks (a socket, maybe a round trip to the DC), and
 * the pipe runs on the loop thread.  So a lookup call is answered in two
 * passes: the first asks this per-pipe cache; every name or SID it does
 * not hold is noted as wanted, and the pipe stalls the call instead of
 * answering (rpc_pipe_stalled()).  The SMB layer copies the wanted
 * entries out (rpc_dcache_batch), resolves them in the pool
 * (rpc_dcache_resolve: winbindd calls only, on the batch's own memory,
 * nothing of the pipe's), hands the answers back on the loop
 * (rpc_pipe_resume), and the call runs again, now from the cache.  The
 * second pass wants nothing: what the batch did not find is unmapped.
 */
#ifndef SMBD_RPC_RPC_DOMAIN_H
#define SMBD_RPC_RPC_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>
#include "smbd/rpc/rpc_sid.h"

/* Entries a cache keeps (then it starts over) and a batch carries (the
 * rest of one call's accounts are unmapped). */
#define RPC_DCACHE_MAX 1024

struct rpc_dcache;
struct rpc_dbatch;

struct rpc_dcache *rpc_dcache_new(TALLOC_CTX *mem_ctx);

/*
 * An account by "DOMAIN\name" or "name" (default_domain then, the
 * workgroup) / by SID: true and *out (strings on mem_ctx) when the cache
 * holds it; false when it does not, the account then wanted unless this
 * is a call's second pass.
 */
bool rpc_dcache_name(struct rpc_dcache *c, TALLOC_CTX *mem_ctx,
		     const char *full, struct rpc_name *out);
bool rpc_dcache_sid(struct rpc_dcache *c, TALLOC_CTX *mem_ctx,
		    const struct rpc_sid *sid, struct rpc_name *out);

/* Whether the call that just ran wants accounts from winbindd. */
bool rpc_dcache_wanting(const struct rpc_dcache *c);
/* The wanted accounts, copied onto mem_ctx (NULL: no memory). */
struct rpc_dbatch *rpc_dcache_batch(const struct rpc_dcache *c,
				    TALLOC_CTX *mem_ctx);
/* Pool thread: ask winbindd for each account of b. */
void rpc_dcache_resolve(struct rpc_dbatch *b);
/*
 * Loop thread: b's answers into the cache (found or not: a miss is kept
 * too, so the second pass does not want it again) and the second pass
 * armed.  b may be NULL (no memory, or the pipe's call given up): every
 * wanted account is then unmapped.
 */
void rpc_dcache_fill(struct rpc_dcache *c, const struct rpc_dbatch *b);
/* The second pass is over: the next call may want again. */
void rpc_dcache_pass_done(struct rpc_dcache *c);

#endif
