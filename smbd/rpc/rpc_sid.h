/*
 * SIDs (MS-DTYP 2.4.2) and the name <-> SID mapping lsarpc serves,
 * following what Samba's standalone server answers:
 *   - passdb users: <domain SID>-<RID>, domain = our NetBIOS name; the
 *     domain SID is Samba's (secrets.tdb SECRETS/SID/<NETBIOSNAME>) when
 *     present, else one we make once and keep in the state directory;
 *   - Unix users/groups without a passdb entry: S-1-22-1-<uid> in "Unix
 *     User", S-1-22-2-<gid> in "Unix Group";
 *   - well-known SIDs (Everyone, Authenticated Users, BUILTIN aliases...).
 */
#ifndef SMBD_RPC_RPC_SID_H
#define SMBD_RPC_RPC_SID_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"
#include "smbd/rpc/ndr.h"
#include "smbd/rpc/pipe.h"

#define RPC_SID_MAX_SUBAUTH 15

struct rpc_sid {
	uint8_t rev, num_auths;
	uint8_t id_auth[6];
	uint32_t sub[RPC_SID_MAX_SUBAUTH];
};

/* SID_NAME_USE (MS-LSAT 2.2.13) */
enum rpc_sid_type {
	RPC_SID_USER = 1,
	RPC_SID_GROUP = 2,
	RPC_SID_DOMAIN = 3,
	RPC_SID_ALIAS = 4,
	RPC_SID_WKN_GROUP = 5,
	RPC_SID_UNKNOWN = 8
};

/* "S-1-5-21-1-2-3" */
bool rpc_sid_parse(const char *s, struct rpc_sid *out);
char *rpc_sid_string(TALLOC_CTX *mem_ctx, const struct rpc_sid *sid);
bool rpc_sid_equal(const struct rpc_sid *a, const struct rpc_sid *b);
/* sid minus its last sub-authority; false when it has none */
bool rpc_sid_split(const struct rpc_sid *sid, struct rpc_sid *domain,
		   uint32_t *rid);
/* domain plus one RID; false when full */
bool rpc_sid_append(struct rpc_sid *sid, uint32_t rid);

/* An RPC_SID pointee (conformant struct, MS-DTYP 2.4.2.3). */
NTSTATUS ndr_pull_sid(struct ndr_pull *n, struct rpc_sid *sid);
void ndr_push_sid(struct ndr_push *n, const struct rpc_sid *sid);

/*
 * Samba's secrets.tdb record value (a struct dom_sid: rev, num_auths,
 * id_auth[6], 15 x le32) to a SID.
 */
bool rpc_sid_from_secrets(const uint8_t *data, size_t len,
			  struct rpc_sid *out);

/* Our domain SID (see above).  Never fails: falls back to a fresh one. */
void rpc_domain_sid(const struct rpc_server_ctx *srv, struct rpc_sid *out);

struct rpc_name {
	const char *domain;	/* "" for S-1-1 / S-1-3 */
	const char *name;	/* the account; the domain for SidTypeDomain */
	struct rpc_sid sid;
	struct rpc_sid domain_sid;
	enum rpc_sid_type type;
};

/* false: unknown (out untouched) */
bool rpc_lookup_sid(TALLOC_CTX *mem_ctx, const struct rpc_server_ctx *srv,
		    const struct rpc_sid *domain_sid,
		    const struct rpc_sid *sid, struct rpc_name *out);
/* "name" or "DOMAIN\name" */
bool rpc_lookup_name(TALLOC_CTX *mem_ctx, const struct rpc_server_ctx *srv,
		     const struct rpc_sid *domain_sid, const char *name,
		     struct rpc_name *out);

#endif
