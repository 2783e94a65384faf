/*
 * The pipe object: connection-oriented DCE/RPC over a named pipe
 * (C706 chapter 12, MS-RPCE 2.2.2 and 3.3.1).
 *
 * Bytes the client writes collect in `in` until a whole PDU (frag_length)
 * is there; each PDU is handled at once.  bind/alter_context negotiate
 * presentation contexts: only our interface with NDR20 is accepted, NDR64
 * gets a provider rejection and the bind time feature negotiation syntax
 * (MS-RPCE 3.3.1.5.3) a negotiate_ack with no features.  Requests are
 * reassembled from fragments, dispatched by opnum to the interface's
 * table, and the response stub is cut into fragments of at most the
 * client's max_recv_frag.  Every response PDU is one message in the
 * output queue (message mode reads, MS-SMB2 3.3.5.12).
 *
 * What cannot be framed (bad version, frag_length < 16) breaks the pipe:
 * writes then fail with NT_STATUS_PIPE_DISCONNECTED and the client closes
 * it.  Everything else that is wrong gets a bind_nak or a fault.
 * Authentication (auth_length != 0) is not supported: the pipe runs at
 * auth level none inside the authenticated SMB session.
 */
#include "smbd/rpc/dcerpc.h"
#include "smbd/rpc/rpc_domain.h"

#include <string.h>
#include <strings.h>

#include "lib/log.h"
#include "lib/wire.h"
#include "smbd/rpc/pipe.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_RPC_SRV

const struct rpc_syntax dcerpc_ndr20_syntax = {
	{ 0x8a885d04, 0x1ceb, 0x11c9,
	  { 0x9f, 0xe8, 0x08, 0x00, 0x2b, 0x10, 0x48, 0x60 } }, 2, 0
};
const struct rpc_syntax dcerpc_ndr64_syntax = {
	{ 0x71710533, 0xbeba, 0x4937,
	  { 0x83, 0x19, 0xb5, 0xdb, 0xef, 0x9c, 0xcc, 0x36 } }, 1, 0
};
/* MS-RPCE 2.2.2.14: 6cb71c2c-9812-4540-XXXX-000000000000, XXXX = bits */
static const struct rpc_uuid dcerpc_btfn_prefix = {
	0x6cb71c2c, 0x9812, 0x4540, { 0, 0, 0, 0, 0, 0, 0, 0 }
};

#define RPC_MAX_CONTEXTS 16
#define RPC_IN_MAX 65536

struct rpc_msg {
	struct rpc_msg *next;
	uint8_t *data;
	size_t len, off;
};

struct rpc_pipe {
	const struct rpc_iface *iface;
	struct rpc_server_ctx srv;
	void *iface_state;
	uint8_t *in;
	size_t in_len;
	struct rpc_msg *out_head, *out_tail;
	size_t out_bytes;
	bool bound, broken;
	/* the request below waits for winbindd (rpc_domain.h) */
	bool stalled;
	uint16_t max_xmit;
	uint32_t assoc_group;
	uint16_t ctx_ids[RPC_MAX_CONTEXTS];
	unsigned num_ctx;
	/* request being reassembled */
	bool req_active;
	uint32_t req_call_id;
	uint16_t req_ctx, req_opnum;
	uint8_t *req_stub;
	size_t req_len;
};

static const struct rpc_iface *const rpc_ifaces[] = {
	&rpc_srvsvc_iface,
	&rpc_wkssvc_iface,
	&rpc_lsarpc_iface,
};

NTSTATUS dcerpc_pull_hdr(const uint8_t *data, size_t len,
			 struct dcerpc_hdr *h)
{
	if (len < DCERPC_HDR_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	h->vers = data[0];
	h->vers_minor = data[1];
	h->ptype = data[2];
	h->flags = data[3];
	memcpy(h->drep, data + 4, 4);
	h->frag_len = le16(data + 8);
	h->auth_len = le16(data + 10);
	h->call_id = le32(data + 12);
	/* C706 12.6.1: only version 5.0 and 5.1 exist. */
	if (h->vers != 5 || h->vers_minor > 1 ||
	    h->frag_len < DCERPC_HDR_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* The auth verifier (8-byte sec_trailer + auth_len) ends the PDU. */
	if (h->auth_len != 0 &&
	    (size_t)h->auth_len + 8 > (size_t)h->frag_len - DCERPC_HDR_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

static const char *rpc_strip_pipe_prefix(const char *name)
{
	if (name[0] == '\\' || name[0] == '/') {
		name++;
	}
	if (strncasecmp(name, "PIPE\\", 5) == 0 ||
	    strncasecmp(name, "PIPE/", 5) == 0) {
		name += 5;
	}
	return name;
}

NTSTATUS rpc_pipe_open(TALLOC_CTX *mem_ctx, const char *name,
		       const struct rpc_server_ctx *ctx,
		       struct rpc_pipe **out)
{
	const char *base = rpc_strip_pipe_prefix(name);
	const struct rpc_iface *iface = NULL;
	struct rpc_pipe *p;
	size_t i;

	*out = NULL;
	for (i = 0; i < sizeof(rpc_ifaces) / sizeof(rpc_ifaces[0]); i++) {
		if (strcasecmp(base, rpc_ifaces[i]->pipe_name) == 0) {
			iface = rpc_ifaces[i];
		}
	}
	if (iface == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	p = talloc_zero(mem_ctx, struct rpc_pipe);
	if (p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	p->iface = iface;
	p->srv = *ctx;
#define RPC_DUP(f)                                                        \
	do {                                                              \
		p->srv.f = ctx->f ? talloc_strdup(p, ctx->f) : NULL;       \
		if (ctx->f != NULL && p->srv.f == NULL) {                 \
			talloc_free(p);                                   \
			return NT_STATUS_NO_MEMORY;                       \
		}                                                         \
	} while (0)
	RPC_DUP(account_name);
	RPC_DUP(unix_name);
	RPC_DUP(domain);
	RPC_DUP(client_addr);
	RPC_DUP(state_dir);
	RPC_DUP(private_dir);
#undef RPC_DUP
	p->srv.groups = NULL;
	if (ctx->ngroups > 0 && ctx->groups != NULL) {
		p->srv.groups = talloc_memdup(p, ctx->groups,
					      ctx->ngroups * sizeof(gid_t));
		if (p->srv.groups == NULL) {
			talloc_free(p);
			return NT_STATUS_NO_MEMORY;
		}
	} else {
		p->srv.ngroups = 0;
	}
	if (ctx->member) {
		p->srv.dcache = rpc_dcache_new(p);
		if (p->srv.dcache == NULL) {
			talloc_free(p);
			return NT_STATUS_NO_MEMORY;
		}
	}
	if (iface->init != NULL) {
		p->iface_state = iface->init(p);
		if (p->iface_state == NULL) {
			talloc_free(p);
			return NT_STATUS_NO_MEMORY;
		}
	}
	*out = p;
	return NT_STATUS_OK;
}

const char *rpc_pipe_name(const struct rpc_pipe *p)
{
	return p->iface->pipe_name;
}

size_t rpc_pipe_pending(const struct rpc_pipe *p)
{
	return p->out_head == NULL ? 0 : p->out_head->len - p->out_head->off;
}

/* Queue one finished PDU (steals data). */
static void rpc_queue(struct rpc_pipe *p, struct wire_buf *b)
{
	struct rpc_msg *m;

	if (b->failed) {
		p->broken = true;
		return;
	}
	m = talloc_zero(p, struct rpc_msg);
	if (m == NULL) {
		p->broken = true;
		return;
	}
	m->data = talloc_steal(m, b->data);
	m->len = b->len;
	put_le16(m->data + 8, (uint16_t)b->len); /* frag_length */
	if (p->out_tail != NULL) {
		p->out_tail->next = m;
	} else {
		p->out_head = m;
	}
	p->out_tail = m;
	p->out_bytes += m->len;
}

static void rpc_push_hdr(struct wire_buf *b, uint8_t ptype, uint8_t flags,
			 uint32_t call_id)
{
	wire_push_u8(b, 5);
	wire_push_u8(b, 0);
	wire_push_u8(b, ptype);
	wire_push_u8(b, flags);
	/* little-endian integers, ASCII, IEEE floats (C706 14.1) */
	wire_push_le32(b, 0x00000010);
	wire_push_le16(b, 0); /* frag_length: set by rpc_queue */
	wire_push_le16(b, 0);
	wire_push_le32(b, call_id);
}

static void rpc_fault(struct rpc_pipe *p, uint32_t call_id, uint16_t ctx_id,
		      uint32_t status, bool not_executed)
{
	struct wire_buf b;
	uint8_t flags = DCERPC_PFC_FIRST_FRAG | DCERPC_PFC_LAST_FRAG;

	DBG_INFO("rpc %s: fault 0x%08x for call %u\n", p->iface->pipe_name,
		 status, call_id);
	if (not_executed) {
		flags |= DCERPC_PFC_DID_NOT_EXECUTE;
	}
	wire_buf_init(&b, p, DCERPC_FAULT_LEN);
	rpc_push_hdr(&b, DCERPC_PKT_FAULT, flags, call_id);
	wire_push_le32(&b, 0); /* alloc_hint */
	wire_push_le16(&b, ctx_id);
	wire_push_u8(&b, 0);   /* cancel_count */
	wire_push_u8(&b, 0);
	wire_push_le32(&b, status);
	wire_push_le32(&b, 0);
	rpc_queue(p, &b);
}

static void rpc_bind_nak(struct rpc_pipe *p, uint32_t call_id,
			 uint16_t reason)
{
	struct wire_buf b;

	DBG_INFO("rpc %s: bind_nak reason %u\n", p->iface->pipe_name, reason);
	wire_buf_init(&b, p, 24);
	rpc_push_hdr(&b, DCERPC_PKT_BIND_NAK,
		     DCERPC_PFC_FIRST_FRAG | DCERPC_PFC_LAST_FRAG, call_id);
	wire_push_le16(&b, reason);
	/* p_rt_versions_supported: one, 5.0 */
	wire_push_u8(&b, 1);
	wire_push_u8(&b, 5);
	wire_push_u8(&b, 0);
	wire_push_align(&b, 4);
	rpc_queue(p, &b);
}

static NTSTATUS rpc_pull_syntax(struct wire_cur *c, struct rpc_syntax *s)
{
	NTSTATUS status;

	status = wire_pull_le32(c, &s->uuid.time_low);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &s->uuid.time_mid);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &s->uuid.time_hi);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_bytes(c, s->uuid.rest, 8);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &s->major);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &s->minor);
	}
	return status;
}

static void rpc_push_syntax(struct wire_buf *b, const struct rpc_syntax *s)
{
	wire_push_le32(b, s->uuid.time_low);
	wire_push_le16(b, s->uuid.time_mid);
	wire_push_le16(b, s->uuid.time_hi);
	wire_push_bytes(b, s->uuid.rest, 8);
	wire_push_le16(b, s->major);
	wire_push_le16(b, s->minor);
}

static bool rpc_uuid_eq(const struct rpc_uuid *a, const struct rpc_uuid *b)
{
	return a->time_low == b->time_low && a->time_mid == b->time_mid &&
	       a->time_hi == b->time_hi &&
	       memcmp(a->rest, b->rest, sizeof(a->rest)) == 0;
}

static bool rpc_syntax_eq(const struct rpc_syntax *a,
			  const struct rpc_syntax *b)
{
	return rpc_uuid_eq(&a->uuid, &b->uuid) && a->major == b->major &&
	       a->minor == b->minor;
}

/* MS-RPCE 2.2.2.14: the uuid with its bitmask bytes zeroed matches. */
static bool rpc_is_btfn(const struct rpc_syntax *s)
{
	struct rpc_uuid u = s->uuid;

	u.rest[0] = 0;
	u.rest[1] = 0;
	return rpc_uuid_eq(&u, &dcerpc_btfn_prefix) && s->major == 1 &&
	       s->minor == 0;
}

struct rpc_ctx_result {
	uint16_t result, reason;
	struct rpc_syntax transfer;
};

/* Decide one p_cont_elem_t (C706 12.6.3.1). */
static NTSTATUS rpc_one_context(struct rpc_pipe *p, struct wire_cur *c,
				struct rpc_ctx_result *r, bool *accepted,
				uint16_t *ctx_id)
{
	struct rpc_syntax abstract, transfer;
	uint8_t n_transfer, pad;
	bool iface_ok, btfn = false, ndr20 = false;
	NTSTATUS status;
	unsigned i;

	status = wire_pull_le16(c, ctx_id);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(c, &n_transfer);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(c, &pad);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = rpc_pull_syntax(c, &abstract);
	}
	for (i = 0; NT_STATUS_IS_OK(status) && i < n_transfer; i++) {
		status = rpc_pull_syntax(c, &transfer);
		if (rpc_syntax_eq(&transfer, &dcerpc_ndr20_syntax)) {
			ndr20 = true;
		} else if (rpc_is_btfn(&transfer)) {
			btfn = true;
		}
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	memset(r, 0, sizeof(*r));
	*accepted = false;
	iface_ok = rpc_uuid_eq(&abstract.uuid, &p->iface->syntax.uuid) &&
		   abstract.major == p->iface->syntax.major &&
		   abstract.minor == p->iface->syntax.minor;
	if (btfn) {
		/* MS-RPCE 3.3.1.5.3: we support none of the features. */
		r->result = DCERPC_RESULT_NEGOTIATE_ACK;
		r->reason = 0;
	} else if (!iface_ok) {
		r->result = DCERPC_RESULT_PROVIDER_REJECTION;
		r->reason = DCERPC_REASON_ABSTRACT_NOT_SUPPORTED;
	} else if (!ndr20) {
		/* NDR64 (or anything else) alone: not spoken here. */
		r->result = DCERPC_RESULT_PROVIDER_REJECTION;
		r->reason = DCERPC_REASON_TRANSFER_NOT_SUPPORTED;
	} else {
		r->result = DCERPC_RESULT_ACCEPT;
		r->transfer = dcerpc_ndr20_syntax;
		*accepted = true;
	}
	return NT_STATUS_OK;
}

static void rpc_add_ctx(struct rpc_pipe *p, uint16_t id)
{
	unsigned i;

	for (i = 0; i < p->num_ctx; i++) {
		if (p->ctx_ids[i] == id) {
			return;
		}
	}
	if (p->num_ctx < RPC_MAX_CONTEXTS) {
		p->ctx_ids[p->num_ctx++] = id;
	}
}

static bool rpc_has_ctx(const struct rpc_pipe *p, uint16_t id)
{
	unsigned i;

	for (i = 0; i < p->num_ctx; i++) {
		if (p->ctx_ids[i] == id) {
			return true;
		}
	}
	return false;
}

/* bind and alter_context (C706 12.6.4.3, 12.6.4.1). */
static void rpc_bind(struct rpc_pipe *p, const struct dcerpc_hdr *h,
		     struct wire_cur *c)
{
	bool alter = h->ptype == DCERPC_PKT_ALTER;
	struct rpc_ctx_result res[RPC_MAX_CONTEXTS];
	uint16_t max_xmit, max_recv, ids[RPC_MAX_CONTEXTS];
	bool acc[RPC_MAX_CONTEXTS];
	uint32_t assoc;
	uint8_t n_ctx, pad8;
	uint16_t pad16;
	struct wire_buf b;
	NTSTATUS status;
	unsigned i;

	status = wire_pull_le16(c, &max_xmit);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &max_recv);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le32(c, &assoc);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(c, &n_ctx);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_u8(c, &pad8);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &pad16);
	}
	if (NT_STATUS_IS_OK(status) &&
	    (n_ctx == 0 || n_ctx > RPC_MAX_CONTEXTS)) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; NT_STATUS_IS_OK(status) && i < n_ctx; i++) {
		status = rpc_one_context(p, c, &res[i], &acc[i], &ids[i]);
	}
	if (!NT_STATUS_IS_OK(status) || h->auth_len != 0 ||
	    (alter && !p->bound) || (!alter && p->bound)) {
		if (alter) {
			rpc_fault(p, h->call_id, 0, DCERPC_NCA_S_PROTO_ERROR,
				  true);
		} else {
			rpc_bind_nak(p, h->call_id, DCERPC_NAK_NOT_SPECIFIED);
		}
		return;
	}
	if (!alter) {
		if (max_recv < DCERPC_MIN_FRAG || max_xmit < DCERPC_MIN_FRAG) {
			rpc_bind_nak(p, h->call_id,
				     DCERPC_NAK_LOCAL_LIMIT_EXCEEDED);
			return;
		}
		p->max_xmit = max_recv < DCERPC_OUR_MAX_FRAG
				      ? max_recv
				      : DCERPC_OUR_MAX_FRAG;
		p->assoc_group = assoc != 0 ? assoc : 0x53f0;
		p->bound = true;
	}
	for (i = 0; i < n_ctx; i++) {
		if (acc[i]) {
			rpc_add_ctx(p, ids[i]);
		}
	}

	wire_buf_init(&b, p, 128);
	rpc_push_hdr(&b, alter ? DCERPC_PKT_ALTER_RESP : DCERPC_PKT_BIND_ACK,
		     DCERPC_PFC_FIRST_FRAG | DCERPC_PFC_LAST_FRAG, h->call_id);
	wire_push_le16(&b, p->max_xmit);
	wire_push_le16(&b, p->max_xmit);
	wire_push_le32(&b, p->assoc_group);
	if (alter) {
		wire_push_le16(&b, 0); /* no secondary address */
	} else {
		size_t l = strlen(p->iface->sec_addr) + 1;

		wire_push_le16(&b, (uint16_t)l);
		wire_push_bytes(&b, p->iface->sec_addr, l);
	}
	wire_push_align(&b, 4);
	wire_push_u8(&b, n_ctx);
	wire_push_u8(&b, 0);
	wire_push_le16(&b, 0);
	for (i = 0; i < n_ctx; i++) {
		wire_push_le16(&b, res[i].result);
		wire_push_le16(&b, res[i].reason);
		rpc_push_syntax(&b, &res[i].transfer);
	}
	rpc_queue(p, &b);
}

/* Cut the response stub into response PDUs (C706 12.6.4.10). */
static void rpc_respond(struct rpc_pipe *p, uint32_t call_id,
			uint16_t ctx_id, const uint8_t *stub, size_t len)
{
	size_t chunk_max = ((size_t)p->max_xmit - DCERPC_RESPONSE_HDR_LEN) &
			   ~(size_t)7;
	size_t off = 0;

	do {
		size_t n = len - off < chunk_max ? len - off : chunk_max;
		uint8_t flags = 0;
		struct wire_buf b;

		if (off == 0) {
			flags |= DCERPC_PFC_FIRST_FRAG;
		}
		if (off + n == len) {
			flags |= DCERPC_PFC_LAST_FRAG;
		}
		wire_buf_init(&b, p, DCERPC_RESPONSE_HDR_LEN + n);
		rpc_push_hdr(&b, DCERPC_PKT_RESPONSE, flags, call_id);
		wire_push_le32(&b, (uint32_t)(len - off)); /* alloc_hint */
		wire_push_le16(&b, ctx_id);
		wire_push_u8(&b, 0);
		wire_push_u8(&b, 0);
		wire_push_bytes(&b, stub + off, n);
		rpc_queue(p, &b);
		off += n;
	} while (off < len && !p->broken);
}

/* True when the call waits for winbindd: nothing was answered. */
static bool rpc_dispatch(struct rpc_pipe *p)
{
	const struct rpc_iface *ifc = p->iface;
	struct rpc_call call;
	struct ndr_pull in;
	struct ndr_push out;
	NTSTATUS status;

	if (!rpc_has_ctx(p, p->req_ctx)) {
		rpc_fault(p, p->req_call_id, p->req_ctx,
			  DCERPC_NCA_S_UNKNOWN_IF, true);
		return false;
	}
	if (p->req_opnum >= ifc->num_ops || ifc->ops[p->req_opnum] == NULL) {
		rpc_fault(p, p->req_call_id, p->req_ctx,
			  DCERPC_NCA_S_OP_RNG_ERROR, true);
		return false;
	}
	memset(&call, 0, sizeof(call));
	call.mem_ctx = talloc_new(p);
	if (call.mem_ctx == NULL) {
		p->broken = true;
		return false;
	}
	call.srv = &p->srv;
	call.pipe = p;
	call.iface_state = p->iface_state;
	ndr_pull_init(&in, p->req_stub, p->req_len);
	ndr_push_init(&out, call.mem_ctx);
	status = ifc->ops[p->req_opnum](&call, &in, &out);
	DBG_DEBUG("rpc %s: opnum %u: %s\n", ifc->pipe_name, p->req_opnum,
		  nt_errstr(status));
	if (p->srv.dcache != NULL && rpc_dcache_wanting(p->srv.dcache)) {
		talloc_free(call.mem_ctx);
		return true;
	}
	if (p->srv.dcache != NULL) {
		rpc_dcache_pass_done(p->srv.dcache);
	}
	if (!NT_STATUS_IS_OK(status)) {
		rpc_fault(p, p->req_call_id, p->req_ctx,
			  status == NT_STATUS_NO_MEMORY
				  ? DCERPC_NCA_S_REMOTE_NO_MEMORY
				  : DCERPC_NCA_S_FAULT_NDR,
			  false);
	} else if (!ndr_push_ok(&out)) {
		rpc_fault(p, p->req_call_id, p->req_ctx,
			  DCERPC_NCA_S_REMOTE_NO_MEMORY, false);
	} else {
		rpc_respond(p, p->req_call_id, p->req_ctx, out.b.data,
			    out.b.len);
	}
	talloc_free(call.mem_ctx);
	return false;
}

static void rpc_req_reset(struct rpc_pipe *p)
{
	TALLOC_FREE(p->req_stub);
	p->req_len = 0;
	p->req_active = false;
}

/* request (C706 12.6.4.9), possibly one fragment of several. */
static void rpc_request(struct rpc_pipe *p, const struct dcerpc_hdr *h,
			struct wire_cur *c)
{
	uint32_t alloc_hint;
	uint16_t ctx_id, opnum;
	NTSTATUS status;
	uint8_t *n;
	size_t len;

	status = wire_pull_le32(c, &alloc_hint);
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &ctx_id);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = wire_pull_le16(c, &opnum);
	}
	if (NT_STATUS_IS_OK(status) && (h->flags & DCERPC_PFC_OBJECT_UUID)) {
		status = wire_skip(c, 16);
	}
	if (!NT_STATUS_IS_OK(status) || !p->bound || h->auth_len != 0 ||
	    (h->drep[0] & 0xf0) != 0x10) {
		rpc_req_reset(p);
		rpc_fault(p, h->call_id, 0, DCERPC_NCA_S_PROTO_ERROR, true);
		return;
	}
	if (h->flags & DCERPC_PFC_FIRST_FRAG) {
		rpc_req_reset(p);
		p->req_active = true;
		p->req_call_id = h->call_id;
		p->req_ctx = ctx_id;
		p->req_opnum = opnum;
	} else if (!p->req_active || p->req_call_id != h->call_id) {
		rpc_req_reset(p);
		rpc_fault(p, h->call_id, ctx_id, DCERPC_NCA_S_PROTO_ERROR,
			  true);
		return;
	}
	len = wire_remaining(c);
	if (len > DCERPC_MAX_REQUEST - p->req_len) {
		rpc_req_reset(p);
		rpc_fault(p, h->call_id, ctx_id,
			  DCERPC_NCA_S_REMOTE_NO_MEMORY, true);
		return;
	}
	n = talloc_realloc(p, p->req_stub, uint8_t, p->req_len + len + 1);
	if (n == NULL) {
		rpc_req_reset(p);
		p->broken = true;
		return;
	}
	memcpy(n + p->req_len, wire_ptr(c), len);
	p->req_stub = n;
	p->req_len += len;
	if (h->flags & DCERPC_PFC_LAST_FRAG) {
		if (rpc_dispatch(p)) {
			p->stalled = true;
			return;
		}
		rpc_req_reset(p);
	}
}

/* One whole PDU of h->frag_len bytes. */
static void rpc_pdu(struct rpc_pipe *p, const uint8_t *data,
		    const struct dcerpc_hdr *h)
{
	struct wire_cur c;
	size_t body = h->frag_len - DCERPC_HDR_LEN;

	/* The auth trailer is not part of the body (MS-RPCE 2.2.2.11). */
	if (h->auth_len != 0) {
		body -= (size_t)h->auth_len + 8;
	}
	wire_cur_init(&c, data + DCERPC_HDR_LEN, body);
	DBG_DEBUG("rpc %s: ptype %u flags 0x%x len %u call %u\n",
		  p->iface->pipe_name, h->ptype, h->flags, h->frag_len,
		  h->call_id);
	switch (h->ptype) {
	case DCERPC_PKT_BIND:
	case DCERPC_PKT_ALTER:
		if ((h->drep[0] & 0xf0) != 0x10) {
			/* big-endian peers: NDR20 little-endian only */
			rpc_bind_nak(p, h->call_id,
				     DCERPC_NAK_PROTOCOL_VERSION);
			return;
		}
		rpc_bind(p, h, &c);
		return;
	case DCERPC_PKT_REQUEST:
		rpc_request(p, h, &c);
		return;
	case DCERPC_PKT_AUTH3:
	case DCERPC_PKT_CO_CANCEL:
	case DCERPC_PKT_ORPHANED:
		/* nothing to answer (C706 12.6.4.4, MS-RPCE 3.3.1.5.7) */
		rpc_req_reset(p);
		return;
	default:
		rpc_fault(p, h->call_id, 0, DCERPC_NCA_S_PROTO_ERROR, true);
		return;
	}
}

/* Handle every whole PDU at the start of the input buffer. */
static void rpc_drain_buffer(struct rpc_pipe *p)
{
	struct dcerpc_hdr h;

	while (p->in_len >= DCERPC_HDR_LEN && !p->broken && !p->stalled) {
		if (!NT_STATUS_IS_OK(dcerpc_pull_hdr(p->in, p->in_len, &h))) {
			DBG_INFO("rpc %s: unframeable PDU, pipe broken\n",
				 p->iface->pipe_name);
			p->broken = true;
			return;
		}
		if (p->in_len < h.frag_len) {
			return;
		}
		rpc_pdu(p, p->in, &h);
		memmove(p->in, p->in + h.frag_len, p->in_len - h.frag_len);
		p->in_len -= h.frag_len;
	}
}

/* Input behind a stalled request, kept whole for rpc_drain_buffer(). */
static void rpc_keep_input(struct rpc_pipe *p, const uint8_t *data,
			   size_t len)
{
	if (len > RPC_IN_MAX - p->in_len) {
		DBG_INFO("rpc %s: %zu bytes behind a waiting call, pipe "
			 "broken\n", p->iface->pipe_name, len);
		p->broken = true;
		return;
	}
	if (p->in == NULL) {
		p->in = talloc_size(p, RPC_IN_MAX);
		if (p->in == NULL) {
			p->broken = true;
			return;
		}
	}
	memcpy(p->in + p->in_len, data, len);
	p->in_len += len;
}

/*
 * Whole PDUs are handled straight from the caller's bytes; only a partial
 * PDU is copied, into a buffer that exists only while one is pending
 * (frag_length is 16 bits, so RPC_IN_MAX always holds a whole PDU).
 */
NTSTATUS rpc_pipe_write(struct rpc_pipe *p, const uint8_t *data, size_t len)
{
	if (p->broken) {
		return NT_STATUS_PIPE_DISCONNECTED;
	}
	if (p->out_bytes > DCERPC_MAX_QUEUED || p->stalled) {
		return NT_STATUS_PIPE_BUSY;
	}
	while (len > 0 && !p->broken && !p->stalled) {
		struct dcerpc_hdr h;
		size_t take;

		if (p->in_len == 0 && len >= DCERPC_HDR_LEN) {
			if (!NT_STATUS_IS_OK(dcerpc_pull_hdr(data, len, &h))) {
				DBG_INFO("rpc %s: unframeable PDU, pipe "
					 "broken\n", p->iface->pipe_name);
				p->broken = true;
				break;
			}
			if (len >= h.frag_len) {
				rpc_pdu(p, data, &h);
				data += h.frag_len;
				len -= h.frag_len;
				continue;
			}
		}
		if (p->in == NULL) {
			p->in = talloc_size(p, RPC_IN_MAX);
			if (p->in == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
		}
		take = RPC_IN_MAX - p->in_len;
		if (take > len) {
			take = len;
		}
		memcpy(p->in + p->in_len, data, take);
		p->in_len += take;
		data += take;
		len -= take;
		rpc_drain_buffer(p);
	}
	if (len > 0 && !p->broken) {
		/* stalled: the rest waits for rpc_pipe_resume() */
		rpc_keep_input(p, data, len);
	}
	if (p->in_len == 0) {
		TALLOC_FREE(p->in);
	}
	return p->broken ? NT_STATUS_PIPE_DISCONNECTED : NT_STATUS_OK;
}

bool rpc_pipe_stalled(const struct rpc_pipe *p)
{
	return p->stalled;
}

struct rpc_dbatch *rpc_pipe_wanted(const struct rpc_pipe *p,
				   TALLOC_CTX *mem_ctx)
{
	return p->srv.dcache != NULL ? rpc_dcache_batch(p->srv.dcache, mem_ctx)
				     : NULL;
}

void rpc_pipe_lookup(struct rpc_dbatch *b)
{
	rpc_dcache_resolve(b);
}

void rpc_pipe_resume(struct rpc_pipe *p, const struct rpc_dbatch *b)
{
	if (!p->stalled) {
		return;
	}
	rpc_dcache_fill(p->srv.dcache, b);
	p->stalled = false;
	/* the second pass wants nothing: it answers */
	(void)rpc_dispatch(p);
	rpc_req_reset(p);
	rpc_drain_buffer(p);
	if (p->in_len == 0) {
		TALLOC_FREE(p->in);
	}
}

NTSTATUS rpc_pipe_read(struct rpc_pipe *p, TALLOC_CTX *mem_ctx, size_t max,
		       uint8_t **data, size_t *len, bool *more)
{
	struct rpc_msg *m = p->out_head;
	size_t n;

	*data = NULL;
	*len = 0;
	*more = false;
	if (m == NULL) {
		return p->broken ? NT_STATUS_PIPE_DISCONNECTED
				 : NT_STATUS_PIPE_EMPTY;
	}
	n = m->len - m->off;
	if (n > max) {
		n = max;
	}
	*data = talloc_memdup(mem_ctx, m->data + m->off, n ? n : 1);
	if (*data == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*len = n;
	m->off += n;
	if (m->off < m->len) {
		*more = true;
		return NT_STATUS_OK;
	}
	p->out_head = m->next;
	if (p->out_head == NULL) {
		p->out_tail = NULL;
	}
	p->out_bytes -= m->len;
	talloc_free(m);
	return NT_STATUS_OK;
}
