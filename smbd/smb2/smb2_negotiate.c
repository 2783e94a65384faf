/*
 * NEGOTIATE (MS-SMB2 2.2.3, 2.2.4, 3.3.5.4) and the SMB1 upgrade path
 * (3.3.5.3.1): dialect choice within `server min/max protocol`, the
 * 3.1.1 negotiate contexts, capabilities, sizes, the server GUID and the
 * SPNEGO hint.  Only what is implemented is advertised.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/smbd.h"
#include "smbd/auth/spnego.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "locking/locking.h"

#include <string.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

/* `server smb encrypt = off` turns SMB3 encryption off entirely. */
static bool neg_encryption_allowed(const struct lp_ctx *lp)
{
	return lp_int(lp, LP_GLOBAL, LP_SERVER_SMB_ENCRYPT) != LP_ENCRYPT_OFF;
}

static const uint16_t smbd_dialects[] = {
	SMB2_DIALECT_0202, SMB2_DIALECT_0210, SMB2_DIALECT_0300,
	SMB2_DIALECT_0302, SMB2_DIALECT_0311,
};

struct neg_ctx_in {
	bool have_preauth, have_enc, have_sign, have_comp, have_rdma;
	bool have_sha512;
	uint16_t cipher;	/* chosen, 0 = none in common */
	uint16_t sign_algo;
	bool sign_algo_set;
	struct smb2_compress_caps comp;	/* have_comp: what we answer */
	bool seen_comp;		/* the context came (answered or not) */
};

static bool dialect_allowed(const struct lp_ctx *lp, uint16_t d)
{
	int min = lp_int(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL);
	int max = lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL);
	size_t i;

	for (i = 0; i < sizeof(smbd_dialects) / sizeof(smbd_dialects[0]); i++) {
		if (smbd_dialects[i] == d) {
			return d >= min && d <= max;
		}
	}
	return false;
}

/* 2.2.3.1.1 */
static NTSTATUS neg_ctx_preauth(struct wire_cur *c, struct neg_ctx_in *nc)
{
	uint16_t count, salt_len, i, alg;

	if (nc->have_preauth) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	nc->have_preauth = true;
	if (!NT_STATUS_IS_OK(wire_pull_le16(c, &count)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(c, &salt_len)) || count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < count; i++) {
		if (!NT_STATUS_IS_OK(wire_pull_le16(c, &alg))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (alg == SMB2_PREAUTH_INTEGRITY_SHA512) {
			nc->have_sha512 = true;
		}
	}
	return wire_skip(c, salt_len);
}

/*
 * The first algorithm of the server's list (`server smb3 encryption
 * algorithms`, `server smb3 signing algorithms`, Samba's order by
 * default) that the client offered; -1 when none.  MS-SMB2 3.3.5.4 leaves
 * the choice to the server.
 */
static int neg_pick(const struct lp_ctx *lp, enum lp_param p,
		    uint32_t offered)
{
	int pref[8];
	size_t i, n = lp_enum_list(lp, LP_GLOBAL, p, pref, 8);

	for (i = 0; i < n; i++) {
		if (pref[i] >= 0 && pref[i] < 32 && (offered & (1u << pref[i]))) {
			return pref[i];
		}
	}
	return -1;
}

/* Whether the server's list p holds algorithm id. */
static bool neg_allowed(const struct lp_ctx *lp, enum lp_param p, int id)
{
	int pref[8];
	size_t i, n = lp_enum_list(lp, LP_GLOBAL, p, pref, 8);

	for (i = 0; i < n; i++) {
		if (pref[i] == id) {
			return true;
		}
	}
	return false;
}

/*
 * The signing algorithm and cipher a connection of this dialect would
 * use (nc: 3.1.1's contexts; enc: the client asked for 3.0.x encryption
 * and the server allows it) must be in `server smb3 signing algorithms`
 * and `server smb3 encryption algorithms`: 2.x signs with HMAC-SHA256,
 * 3.0.x with AES-128-CMAC and encrypts with AES-128-CCM, 3.1.1 with what
 * the contexts chose (AES-128-CMAC without a common signing algorithm).
 * Otherwise the NEGOTIATE fails with INVALID_PARAMETER, as Samba's does
 * (its smb311_capabilities_check): taking a name out of a list makes the
 * dialects that need it unavailable (smb.conf(5)).
 */
static NTSTATUS neg_check_algos(const struct smbd_conn *conn,
				const struct lp_ctx *lp, uint16_t dialect,
				const struct neg_ctx_in *nc, bool enc)
{
	int sign = SMB2_SIGNING_HMAC_SHA256, cipher = 0;

	if (dialect == SMB2_DIALECT_0311) {
		sign = nc->sign_algo_set ? nc->sign_algo
					 : SMB2_SIGNING_AES_CMAC;
		cipher = nc->cipher;
	} else if (dialect >= SMB2_DIALECT_0300) {
		sign = SMB2_SIGNING_AES_CMAC;
		cipher = enc ? SMB2_ENCRYPTION_AES128_CCM : 0;
	}
	if (!neg_allowed(lp, LP_SERVER_SMB3_SIGNING_ALGORITHMS, sign)) {
		DBG_NOTICE("%s: dialect %04x would sign with algorithm %d, "
			   "not in 'server smb3 signing algorithms'\n",
			   conn->remote, dialect, sign);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (cipher != 0 &&
	    !neg_allowed(lp, LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS, cipher)) {
		DBG_NOTICE("%s: dialect %04x would encrypt with cipher %d, "
			   "not in 'server smb3 encryption algorithms'\n",
			   conn->remote, dialect, cipher);
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

/* An algorithm list context (at most one of each type, 3.3.5.4): the
 * server's pick among the ids it lists (bits past 31 cannot be ours). */
static NTSTATUS neg_ctx_algos(struct wire_cur *c, bool *seen,
			      const struct lp_ctx *lp, enum lp_param p,
			      int *pick)
{
	uint32_t offered = 0;
	uint16_t count, i, id;

	if (*seen) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*seen = true;
	if (!NT_STATUS_IS_OK(wire_pull_le16(c, &count)) || count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < count; i++) {
		if (!NT_STATUS_IS_OK(wire_pull_le16(c, &id))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (id < 32) {
			offered |= 1u << id;
		}
	}
	*pick = neg_pick(lp, p, offered);
	return NT_STATUS_OK;
}

/* 2.2.3.1.2: a cipher we implement and allow; 0 = none in common. */
static NTSTATUS neg_ctx_encryption(struct wire_cur *c, struct neg_ctx_in *nc,
				   const struct lp_ctx *lp, bool allowed)
{
	NTSTATUS status;
	int pick;

	status = neg_ctx_algos(c, &nc->have_enc, lp,
			       LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS, &pick);
	if (NT_STATUS_IS_OK(status) && allowed &&
	    pick >= SMB2_ENCRYPTION_AES128_CCM &&
	    pick <= SMB2_ENCRYPTION_AES256_GCM) {
		nc->cipher = (uint16_t)pick;
	}
	return status;
}

/* 2.2.3.1.7: a signing algorithm we implement and allow. */
static NTSTATUS neg_ctx_signing(struct wire_cur *c, struct neg_ctx_in *nc,
				const struct lp_ctx *lp)
{
	NTSTATUS status;
	int pick;

	status = neg_ctx_algos(c, &nc->have_sign, lp,
			       LP_SERVER_SMB3_SIGNING_ALGORITHMS, &pick);
	if (NT_STATUS_IS_OK(status) && pick >= 0 &&
	    pick <= SMB2_SIGNING_AES_GMAC) {
		nc->sign_algo = (uint16_t)pick;
		nc->sign_algo_set = true;
	}
	return status;
}

/* 2.2.3.1.3, 3.3.5.4: the algorithms of ours the client lists, unless
 * `smb3 compression = no` in [global] turns compression off. */
static NTSTATUS neg_ctx_compression(struct wire_cur *c, struct neg_ctx_in *nc,
				    const struct lp_ctx *lp)
{
	NTSTATUS status;

	if (nc->seen_comp) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	nc->seen_comp = true;
	status = smb2_compress_negotiate(wire_ptr(c), wire_remaining(c), true,
					 &nc->comp);
	nc->have_comp = NT_STATUS_IS_OK(status) &&
			lp_int(lp, LP_GLOBAL, LP_SMB3_COMPRESSION) !=
				LP_COMPRESS_NO;
	return status;
}

/* 2.2.3.1: contexts start 8-aligned at an offset from the header. */
static NTSTATUS neg_parse_contexts(struct smb2_request *req, uint32_t offset,
				   uint16_t count, struct neg_ctx_in *nc)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	bool enc_ok = neg_encryption_allowed(lp);
	uint64_t off = offset;
	uint16_t i;

	if (count == 0 || (off & 7) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < count; i++) {
		struct wire_cur c, data;
		uint16_t type, len;
		NTSTATUS st;

		off = (off + 7) & ~(uint64_t)7;
		if (!NT_STATUS_IS_OK(wire_slice(req->in, req->in_len, off, 8,
						&c))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		(void)wire_pull_le16(&c, &type);
		(void)wire_pull_le16(&c, &len);
		if (!NT_STATUS_IS_OK(wire_slice(req->in, req->in_len, off + 8,
						len, &data))) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		switch (type) {
		case SMB2_PREAUTH_INTEGRITY_CAPABILITIES:
			st = neg_ctx_preauth(&data, nc);
			break;
		case SMB2_ENCRYPTION_CAPABILITIES:
			st = neg_ctx_encryption(&data, nc, lp, enc_ok);
			break;
		case SMB2_SIGNING_CAPABILITIES:
			st = neg_ctx_signing(&data, nc, lp);
			break;
		case SMB2_COMPRESSION_CAPABILITIES:
			st = neg_ctx_compression(&data, nc, lp);
			break;
		case SMB2_RDMA_TRANSFORM_CAPABILITIES:
			st = nc->have_rdma ? NT_STATUS_INVALID_PARAMETER
					   : NT_STATUS_OK;
			nc->have_rdma = true;
			break;
		default:
			/* NETNAME, TRANSPORT and unknown ones: ignored. */
			st = NT_STATUS_OK;
			break;
		}
		if (!NT_STATUS_IS_OK(st)) {
			return st;
		}
		off += 8 + len;
	}
	if (!nc->have_preauth) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!nc->have_sha512) {
		return STATUS_SMB_NO_PREAUTH_INTEGRITY_HASH_OVERLAP;
	}
	return NT_STATUS_OK;
}

static void neg_push_ctx_hdr(struct wire_buf *out, size_t hdr, uint16_t type,
			     uint16_t len)
{
	wire_push_align_from(out, hdr, 8);
	wire_push_le16(out, type);
	wire_push_le16(out, len);
	wire_push_le32(out, 0);
}

/* 3.3.5.4: the common algorithms in the client's order, or NONE alone
 * when there is none; CHAINED when both sides chain. */
static void neg_push_compression(struct wire_buf *out, size_t hdr,
				 const struct smb2_compress_caps *comp)
{
	uint16_t n = comp->n > 0 ? comp->n : 1, i;

	neg_push_ctx_hdr(out, hdr, SMB2_COMPRESSION_CAPABILITIES,
			 (uint16_t)(8 + 2 * n));
	wire_push_le16(out, n);
	wire_push_le16(out, 0);
	wire_push_le32(out, comp->chained && comp->n > 0
				    ? SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED
				    : SMB2_COMPRESSION_CAPABILITIES_FLAG_NONE);
	if (comp->n == 0) {
		wire_push_le16(out, SMB2_COMPRESSION_NONE);
	}
	for (i = 0; i < comp->n; i++) {
		wire_push_le16(out, comp->ids[i]);
	}
}

/*
 * The body of a NEGOTIATE response (2.2.4) at the end of out.  hdr is the
 * offset of the reply's SMB2 header in out (offsets count from it).
 */
static NTSTATUS neg_build_body(struct smbd_conn *conn, struct wire_buf *out,
			       size_t hdr, uint16_t dialect,
			       const struct neg_ctx_in *nc)
{
	struct smbd_server *srv = conn->worker->srv;
	uint8_t *blob = NULL;
	size_t blob_len = 0, body = out->len, ctx_count_pos;
	uint16_t nctx = 0;
	uint32_t max_io = SMBD_MAX_IO;
	uint8_t salt[32];

	/* 2.0.2 has no multi-credit requests, so no transfer over 64 KiB. */
	if (dialect == SMB2_DIALECT_0202) {
		max_io = 65536;
	}
	/* security = ads offers Kerberos first, as Samba's member does */
	(void)spnego_negotiate_hint(NULL, lp_security_ads(srv->lp), &blob,
				    &blob_len);

	wire_push_le16(out, 65);
	wire_push_le16(out, conn->server_security_mode);
	wire_push_le16(out, dialect);
	ctx_count_pos = out->len;
	wire_push_le16(out, 0); /* NegotiateContextCount, patched below */
	wire_push_bytes(out, srv->server_guid, 16);
	wire_push_le32(out, conn->server_caps);
	wire_push_le32(out, max_io);
	wire_push_le32(out, max_io);
	wire_push_le32(out, max_io);
	wire_push_le64(out, clock_nttime());
	wire_push_le64(out, 0); /* ServerStartTime: MUST be 0 (2.2.4) */
	wire_push_le16(out, (uint16_t)(SMB2_HDR_LEN + 64));
	wire_push_le16(out, (uint16_t)blob_len);
	wire_push_le32(out, 0); /* NegotiateContextOffset, patched below */
	wire_push_bytes(out, blob, blob_len);
	talloc_free(blob);
	conn->max_trans = conn->max_read = conn->max_write = max_io;

	if (dialect == SMB2_DIALECT_0311) {
		wire_push_align_from(out, hdr, 8);
		if (out->failed) {
			return NT_STATUS_NO_MEMORY;
		}
		put_le32(out->data + body + 60, (uint32_t)(out->len - hdr));
		neg_push_ctx_hdr(out, hdr, SMB2_PREAUTH_INTEGRITY_CAPABILITIES, 38);
		wire_push_le16(out, 1);
		wire_push_le16(out, sizeof(salt));
		wire_push_le16(out, SMB2_PREAUTH_INTEGRITY_SHA512);
		crypto_random(salt, sizeof(salt));
		wire_push_bytes(out, salt, sizeof(salt));
		nctx++;
		if (nc->have_enc) {
			neg_push_ctx_hdr(out, hdr, SMB2_ENCRYPTION_CAPABILITIES, 4);
			wire_push_le16(out, 1);
			wire_push_le16(out, nc->cipher);
			nctx++;
		}
		if (nc->have_sign && nc->sign_algo_set) {
			neg_push_ctx_hdr(out, hdr, SMB2_SIGNING_CAPABILITIES, 4);
			wire_push_le16(out, 1);
			wire_push_le16(out, nc->sign_algo);
			nctx++;
		}
		if (nc->have_comp) {
			neg_push_compression(out, hdr, &nc->comp);
			nctx++;
		}
	}
	if (out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	put_le16(out->data + ctx_count_pos, nctx);
	return NT_STATUS_OK;
}

/* Connection state once a dialect is chosen (3.3.5.4). */
static void neg_set_conn(struct smbd_conn *conn, uint16_t dialect,
			 const struct neg_ctx_in *nc)
{
	const struct lp_ctx *lp = conn->worker->srv->lp;

	conn->dialect = dialect;
	conn->negotiated = true;
	conn->server_security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED;
	if (lp_int(lp, LP_GLOBAL, LP_SERVER_SIGNING) == LP_SIGNING_MANDATORY) {
		conn->server_security_mode |= SMB2_NEGOTIATE_SIGNING_REQUIRED;
	}
	/* 2.2.4: DFS for every dialect when `host msdfs` (Samba too). */
	conn->server_caps = lp_bool(lp, LP_GLOBAL, LP_HOST_MSDFS)
				    ? SMB2_GLOBAL_CAP_DFS
				    : 0;
	if (dialect >= SMB2_DIALECT_0210) {
		conn->server_caps |= SMB2_GLOBAL_CAP_LARGE_MTU;
		/* 3.3.5.4: leases from 2.1 on, when `smb2 leases` allows. */
		if (lp_bool(lp, LP_GLOBAL, LP_SMB2_LEASES)) {
			conn->server_caps |= SMB2_GLOBAL_CAP_LEASING;
			/* Directory leases are a 3.x thing (2.2.4),
			 * offered to a client that says it knows them, as
			 * Windows and Samba 4.22 do: some clients (impacket
			 * 0.10) fail every CREATE when a server offers
			 * them unasked. */
			if (dialect >= SMB2_DIALECT_0300 &&
			    (conn->client_caps &
			     SMB2_GLOBAL_CAP_DIRECTORY_LEASING) &&
			    lp_bool(lp, LP_GLOBAL,
				    LP_SMB3_DIRECTORY_LEASES)) {
				conn->server_caps |=
					SMB2_GLOBAL_CAP_DIRECTORY_LEASING;
			}
		}
	}
	/* 3.3.5.4: multichannel for 3.x, when `server multi channel
	 * support` allows (session binding, smb2_sesssetup.c) and only to
	 * a client whose Capabilities ask for it, as Windows and Samba do:
	 * strict clients refuse a capability they did not offer. */
	if (dialect >= SMB2_DIALECT_0300 &&
	    (conn->client_caps & SMB2_GLOBAL_CAP_MULTI_CHANNEL) &&
	    lp_bool(lp, LP_GLOBAL, LP_SERVER_MULTI_CHANNEL_SUPPORT)) {
		conn->server_caps |= SMB2_GLOBAL_CAP_MULTI_CHANNEL;
	}
	if (neg_encryption_allowed(lp) &&
	    (dialect == SMB2_DIALECT_0300 || dialect == SMB2_DIALECT_0302) &&
	    (conn->client_caps & SMB2_GLOBAL_CAP_ENCRYPTION)) {
		conn->server_caps |= SMB2_GLOBAL_CAP_ENCRYPTION;
		conn->cipher = SMB2_ENCRYPTION_AES128_CCM;
	}
	if (nc != NULL) {
		/* 3.1.1 agrees on the cipher through the context; the
		 * capability bit is a 3.0.x thing (2.2.4). */
		conn->cipher = nc->cipher;
		/* Without the signing context 3.1.1 signs with AES-CMAC. */
		conn->signing_algo = nc->sign_algo_set ? nc->sign_algo
						       : SMB2_SIGNING_AES_CMAC;
		conn->signing_algo_negotiated = nc->sign_algo_set;
		/* 3.3.5.4: Connection.CompressionIds (empty: none) */
		if (nc->have_comp) {
			conn->compress = nc->comp;
		}
	} else if (dialect >= SMB2_DIALECT_0300) {
		conn->signing_algo = SMB2_SIGNING_AES_CMAC;
	} else {
		conn->signing_algo = SMB2_SIGNING_HMAC_SHA256;
	}
}

/* 3.3.5.4: the 3.1.1 preauth hash over the request and the reply. */
static void neg_preauth_update(struct smbd_conn *conn, const uint8_t *msg,
			       size_t len)
{
	struct crypto_iov iov[2] = {
		{conn->preauth_hash, sizeof(conn->preauth_hash)},
		{msg, len},
	};

	crypto_sha512_iov(iov, 2, conn->preauth_hash);
}

static void neg_after_reply(struct smb2_request *req, const uint8_t *reply,
			    size_t len)
{
	if (req->conn->dialect == SMB2_DIALECT_0311) {
		neg_preauth_update(req->conn, reply, len);
	}
}

/*
 * Multichannel: every connection of a client (by ClientGuid) goes to one
 * worker, the one that has its first, so a session's channels can bind
 * there (3.3.5.5.2) whichever CPU the kernel steered them to; as Samba
 * passes them to one smbd process.  True when this connection moves to
 * that worker, which answers the NEGOTIATE itself.  A client's later
 * connections then share a worker; different clients still spread.
 */
static bool neg_route_client(struct smb2_request *req, uint16_t dialect)
{
	static const uint8_t zero[16];
	struct smbd_conn *conn = req->conn;
	struct smbd_worker *w = conn->worker;
	int owner;

	if (dialect < SMB2_DIALECT_0300 || w->srv->nworkers < 2 ||
	    !lp_bool(w->srv->lp, LP_GLOBAL, LP_SERVER_MULTI_CHANNEL_SUPPORT) ||
	    memcmp(conn->client_guid, zero, 16) == 0 || conn->client_claimed) {
		return false;
	}
	owner = status_db_client_claim(w->locking, conn->client_guid,
				       w->index, (uint32_t)proc_pid());
	if (owner == w->index) {
		conn->client_claimed = true;
		return false;
	}
	return !conn->moved && smbd_conn_hand_over(req, owner);
}

NTSTATUS smb2_negotiate(struct smb2_request *req)
{
	struct smbd_conn *conn = req->conn;
	const struct lp_ctx *lp = conn->worker->srv->lp;
	struct neg_ctx_in nc;
	uint16_t count, secmode, i, best = 0, d, ctx_count;
	uint32_t caps, ctx_off;
	struct wire_cur *b = &req->body;
	NTSTATUS st;

	if (conn->negotiated) {
		/* 3.3.5.4: a second NEGOTIATE drops the connection. */
		req->disconnect = true;
		return NT_STATUS_INVALID_PARAMETER;
	}
	(void)wire_skip(b, 2);
	(void)wire_pull_le16(b, &count);
	(void)wire_pull_le16(b, &secmode);
	(void)wire_skip(b, 2);
	(void)wire_pull_le32(b, &caps);
	(void)wire_pull_bytes(b, conn->client_guid, 16);
	(void)wire_pull_le32(b, &ctx_off);
	(void)wire_pull_le16(b, &ctx_count);
	(void)wire_skip(b, 2);
	if (count == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	conn->client_security_mode = secmode;
	conn->client_caps = caps;
	conn->client_ndialects = 0;
	for (i = 0; i < count; i++) {
		(void)wire_pull_le16(b, &d); /* the table checked the count */
		if (conn->client_ndialects < 16) {
			conn->client_dialects[conn->client_ndialects++] = d;
		}
		if (dialect_allowed(lp, d) && d > best) {
			best = d;
		}
	}
	if (best == 0) {
		DBG_NOTICE("%s: no common dialect\n", conn->remote);
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (neg_route_client(req, best)) {
		return NT_STATUS_OK;	/* answered by the client's worker */
	}
	memset(&nc, 0, sizeof(nc));
	if (best == SMB2_DIALECT_0311) {
		st = neg_parse_contexts(req, ctx_off, ctx_count, &nc);
		if (!NT_STATUS_IS_OK(st)) {
			return st;
		}
	}
	st = neg_check_algos(conn, lp, best, &nc,
			     neg_encryption_allowed(lp) &&
				     (caps & SMB2_GLOBAL_CAP_ENCRYPTION));
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	if (best == SMB2_DIALECT_0311) {
		memset(conn->preauth_hash, 0, sizeof(conn->preauth_hash));
		neg_preauth_update(conn, req->in, req->in_len);
	}
	neg_set_conn(conn, best, best == SMB2_DIALECT_0311 ? &nc : NULL);
	DBG_INFO("%s: negotiated dialect %04x\n", conn->remote, best);
	req->after_reply = neg_after_reply;
	return neg_build_body(conn, req->out, req->out_hdr, best, &nc);
}

/*
 * SMB1 NEGOTIATE (MS-SMB2 3.3.5.3.1): answer "SMB 2.???" with dialect
 * 0x02FF (the client then sends an SMB2 NEGOTIATE) or "SMB 2.002" with
 * 0x0202.  We have no SMB1, so anything else drops the connection.
 */
void smb1_negotiate(struct smbd_conn *conn, const uint8_t *buf, size_t len)
{
	const struct lp_ctx *lp = conn->worker->srv->lp;
	bool has_wild = false, has_202 = false;
	struct wire_cur c;
	struct wire_buf out;
	uint16_t bytecount, dialect;
	uint8_t wordcount;
	const uint8_t *p, *end;
	struct neg_ctx_in nc;
	uint8_t *h;
	TALLOC_CTX *tmp;

	wire_cur_init(&c, buf, len);
	if (len < 35 || buf[4] != 0x72 ||
	    !NT_STATUS_IS_OK(wire_skip(&c, 32)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&c, &wordcount)) ||
	    !NT_STATUS_IS_OK(wire_skip(&c, (size_t)wordcount * 2)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &bytecount)) ||
	    bytecount > wire_remaining(&c)) {
		smbd_conn_disconnect(conn, "malformed SMB1 NEGOTIATE");
		return;
	}
	p = wire_ptr(&c);
	end = p + bytecount;
	while (p < end) {
		const uint8_t *nul;

		if (*p != 0x02) {
			break;
		}
		nul = memchr(p + 1, 0, (size_t)(end - p - 1));
		if (nul == NULL) {
			break;
		}
		if (strcmp((const char *)p + 1, "SMB 2.???") == 0) {
			has_wild = true;
		} else if (strcmp((const char *)p + 1, "SMB 2.002") == 0) {
			has_202 = true;
		}
		p = nul + 1;
	}
	memset(&nc, 0, sizeof(nc));
	if (has_wild && lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL) >=
				SMB2_DIALECT_0210) {
		dialect = SMB2_DIALECT_WILDCARD;
	} else if ((has_202 || has_wild) &&
		   dialect_allowed(lp, SMB2_DIALECT_0202) &&
		   NT_STATUS_IS_OK(neg_check_algos(conn, lp, SMB2_DIALECT_0202,
						   &nc, false))) {
		dialect = SMB2_DIALECT_0202;
	} else {
		smbd_conn_disconnect(conn, "SMB1 client without SMB2 dialects");
		return;
	}

	if (dialect == SMB2_DIALECT_WILDCARD) {
		conn->smb1_wildcard = true;
		conn->server_security_mode = SMB2_NEGOTIATE_SIGNING_ENABLED;
		if (lp_int(lp, LP_GLOBAL, LP_SERVER_SIGNING) ==
		    LP_SIGNING_MANDATORY) {
			conn->server_security_mode |=
				SMB2_NEGOTIATE_SIGNING_REQUIRED;
		}
		conn->server_caps = SMB2_GLOBAL_CAP_LARGE_MTU;
		if (lp_bool(lp, LP_GLOBAL, LP_HOST_MSDFS)) {
			conn->server_caps |= SMB2_GLOBAL_CAP_DFS;
		}
	} else {
		neg_set_conn(conn, dialect, NULL);
	}
	/* The SMB2 reply takes message id 0 (3.3.5.3.1). */
	(void)smb2_credits_charge(conn, 0, 1);

	tmp = talloc_new(conn);
	wire_buf_init(&out, tmp, 256);
	wire_push_zero(&out, 4);
	h = wire_buf_reserve(&out, SMB2_HDR_LEN);
	if (h != NULL) {
		put_le32(h + SMB2_HDR_PROTOCOL, SMB2_MAGIC);
		put_le16(h + SMB2_HDR_LENGTH, SMB2_HDR_LEN);
		put_le16(h + SMB2_HDR_OPCODE, SMB2_OP_NEGPROT);
		put_le16(h + SMB2_HDR_CREDIT, smb2_credits_grant(conn, 1, 1));
		put_le32(h + SMB2_HDR_FLAGS, SMB2_FLAGS_SERVER_TO_REDIR);
	}
	if (!NT_STATUS_IS_OK(neg_build_body(conn, &out, 4, dialect, &nc)) ||
	    out.failed) {
		talloc_free(tmp);
		smbd_conn_disconnect(conn, "out of memory");
		return;
	}
	DBG_INFO("%s: SMB1 NEGOTIATE answered with dialect %04x\n",
		 conn->remote, dialect);
	{
		uint8_t *frame = talloc_steal(NULL, out.data);
		size_t flen = out.len;

		talloc_free(tmp);
		smbd_conn_send_frame(conn, frame, flen);
	}
}
