/*
 * Unit tests for the pipe object (smbd/rpc/dcerpc.c) and the services
 * behind it, driven the way the SMB layer drives them: bytes in with
 * rpc_pipe_write(), messages out with rpc_pipe_read().
 *
 * The client side (bind, request fragments, response reassembly and the
 * NDR decoding of the answers) is written here from MS-RPCE/MS-SRVS/
 * MS-LSAT independently of the server's push code paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <talloc.h>

#include "conf/loadparm.h"
#include "lib/wire.h"
#include "smbd/rpc/dcerpc.h"
#include "smbd/rpc/pipe.h"
#include "smbd/rpc/rpc_sid.h"

static const char test_conf[] =
	"[global]\n"
	"netbios name = TESTSRV\n"
	"workgroup = TESTGRP\n"
	"server string = Test Server\n"
	"[data]\n"
	"path = /srv/data\n"
	"comment = Data share\n"
	"[hidden]\n"
	"path = /srv/hidden\n"
	"browseable = no\n"
	"[admin$]\n"
	"path = /srv/admin\n"
	"max connections = 7\n";

struct tctx {
	TALLOC_CTX *mem;
	struct lp_ctx *lp;
	struct rpc_server_ctx srv;
	struct rpc_pipe *p;
	uint32_t call_id;
};

static int setup(void **state)
{
	struct tctx *t = talloc_zero(NULL, struct tctx);

	t->mem = t;
	t->lp = lp_new(t);
	assert_true(lp_load_string(t->lp, "test", test_conf));
	t->srv.lp = t->lp;
	t->srv.account_name = "alice";
	t->srv.domain = "TESTSRV";
	t->srv.client_addr = "127.0.0.1";
	t->srv.private_dir = "/nonexistent";
	t->srv.state_dir = NULL;
	t->call_id = 1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	talloc_free(*state);
	return 0;
}

static void push_syntax(struct wire_buf *b, const struct rpc_syntax *s)
{
	wire_push_le32(b, s->uuid.time_low);
	wire_push_le16(b, s->uuid.time_mid);
	wire_push_le16(b, s->uuid.time_hi);
	wire_push_bytes(b, s->uuid.rest, 8);
	wire_push_le16(b, s->major);
	wire_push_le16(b, s->minor);
}

static void push_hdr(struct wire_buf *b, uint8_t ptype, uint8_t flags,
		     uint32_t call_id)
{
	wire_push_u8(b, 5);
	wire_push_u8(b, 0);
	wire_push_u8(b, ptype);
	wire_push_u8(b, flags);
	wire_push_le32(b, 0x10);
	wire_push_le16(b, 0);
	wire_push_le16(b, 0);
	wire_push_le32(b, call_id);
}

static void fix_len(struct wire_buf *b)
{
	put_le16(b->data + 8, (uint16_t)b->len);
}

static const struct rpc_syntax btfn = {
	{ 0x6cb71c2c, 0x9812, 0x4540, { 3, 0, 0, 0, 0, 0, 0, 0 } }, 1, 0
};

/* A bind with one context per transfer syntax in xfer[]. */
static void send_bind(struct tctx *t, const struct rpc_syntax *abstract,
		      const struct rpc_syntax *const *xfer, unsigned n,
		      uint16_t max_recv)
{
	struct wire_buf b;
	unsigned i;

	wire_buf_init(&b, t->mem, 128);
	push_hdr(&b, DCERPC_PKT_BIND, 3, t->call_id++);
	wire_push_le16(&b, 4280);
	wire_push_le16(&b, max_recv);
	wire_push_le32(&b, 0);
	wire_push_u8(&b, (uint8_t)n);
	wire_push_u8(&b, 0);
	wire_push_le16(&b, 0);
	for (i = 0; i < n; i++) {
		wire_push_le16(&b, (uint16_t)i);
		wire_push_u8(&b, 1);
		wire_push_u8(&b, 0);
		push_syntax(&b, abstract);
		push_syntax(&b, xfer[i]);
	}
	fix_len(&b);
	assert_int_equal(rpc_pipe_write(t->p, b.data, b.len), NT_STATUS_OK);
}

/* Read one whole message. */
static uint8_t *read_msg(struct tctx *t, size_t *len)
{
	uint8_t *d;
	bool more;

	assert_int_equal(rpc_pipe_read(t->p, t->mem, 65536, &d, len, &more),
			 NT_STATUS_OK);
	assert_false(more);
	assert_true(*len >= 16);
	assert_int_equal(le16(d + 8), *len);
	return d;
}

static void open_bound(struct tctx *t, const char *name,
		       const struct rpc_syntax *abstract)
{
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };
	uint8_t *d;
	size_t len;

	assert_int_equal(rpc_pipe_open(t->mem, name, &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, abstract, x, 1, 4280);
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_ACK);
}

/*
 * Send a request in fragments of at most frag stub bytes; return the
 * reassembled response stub, or NULL with *fault set.
 */
static uint8_t *call(struct tctx *t, uint16_t opnum, const uint8_t *stub,
		     size_t stub_len, size_t frag, size_t *out_len,
		     uint32_t *fault)
{
	uint32_t id = t->call_id++;
	size_t off = 0, have = 0;
	uint8_t *resp = NULL;
	bool last = false;

	do {
		size_t n = stub_len - off < frag ? stub_len - off : frag;
		struct wire_buf b;
		uint8_t flags = (off == 0 ? 1 : 0) |
				(off + n == stub_len ? 2 : 0);

		wire_buf_init(&b, t->mem, 64 + n);
		push_hdr(&b, DCERPC_PKT_REQUEST, flags, id);
		wire_push_le32(&b, (uint32_t)(stub_len - off));
		wire_push_le16(&b, 0);
		wire_push_le16(&b, opnum);
		wire_push_bytes(&b, stub + off, n);
		fix_len(&b);
		assert_int_equal(rpc_pipe_write(t->p, b.data, b.len),
				 NT_STATUS_OK);
		off += n;
	} while (off < stub_len);

	*fault = 0;
	while (!last) {
		size_t len;
		uint8_t *d = read_msg(t, &len);

		assert_int_equal(le32(d + 12), id);
		if (d[2] == DCERPC_PKT_FAULT) {
			assert_int_equal(len, DCERPC_FAULT_LEN);
			*fault = le32(d + 24);
			return NULL;
		}
		assert_int_equal(d[2], DCERPC_PKT_RESPONSE);
		assert_true(len <= 4280);
		resp = talloc_realloc(t->mem, resp, uint8_t, have + len);
		memcpy(resp + have, d + 24, len - 24);
		have += len - 24;
		last = (d[3] & 2) != 0;
	}
	*out_len = have;
	return resp;
}

static const struct rpc_syntax srvsvc_syntax = {
	{ 0x4b324fc8, 0x1670, 0x01d3,
	  { 0x12, 0x78, 0x5a, 0x47, 0xbf, 0x6e, 0xe1, 0x88 } }, 3, 0
};
static const struct rpc_syntax wkssvc_syntax = {
	{ 0x6bffd098, 0xa112, 0x3610,
	  { 0x98, 0x33, 0x46, 0xc3, 0xf8, 0x7e, 0x34, 0x5a } }, 1, 0
};
static const struct rpc_syntax lsa_syntax = {
	{ 0x12345778, 0x1234, 0xabcd,
	  { 0xef, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab } }, 0, 0
};

static void test_open_names(void **state)
{
	struct tctx *t = *state;
	struct rpc_pipe *p;

	assert_int_equal(rpc_pipe_open(t->mem, "nosuch", &t->srv, &p),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_null(p);
	assert_int_equal(rpc_pipe_open(t->mem, "samr", &t->srv, &p),
			 NT_STATUS_OBJECT_NAME_NOT_FOUND);
	assert_int_equal(rpc_pipe_open(t->mem, "SRVSVC", &t->srv, &p),
			 NT_STATUS_OK);
	assert_string_equal(rpc_pipe_name(p), "srvsvc");
	assert_int_equal(rpc_pipe_open(t->mem, "\\PIPE\\lsarpc", &t->srv, &p),
			 NT_STATUS_OK);
	assert_string_equal(rpc_pipe_name(p), "lsarpc");
	assert_int_equal(rpc_pipe_open(t->mem, "\\wkssvc", &t->srv, &p),
			 NT_STATUS_OK);
	/* nothing written: nothing to read */
	{
		uint8_t *d;
		size_t len;
		bool more;

		assert_int_equal(rpc_pipe_read(p, t->mem, 100, &d, &len,
					       &more),
				 NT_STATUS_PIPE_EMPTY);
	}
}

static void test_bind_results(void **state)
{
	struct tctx *t = *state;
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax,
					 &dcerpc_ndr64_syntax, &btfn };
	uint8_t *d;
	size_t len, off;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, &srvsvc_syntax, x, 3, 4280);
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_ACK);
	assert_int_equal(d[3], 3);
	assert_int_equal(le16(d + 16), 4280); /* max_xmit */
	assert_int_not_equal(le32(d + 20), 0); /* assoc group */
	/* sec_addr "\PIPE\srvsvc" + NUL */
	assert_int_equal(le16(d + 24), 13);
	assert_memory_equal(d + 26, "\\PIPE\\srvsvc", 13);
	off = 26 + 13;
	off = (off + 3) & ~(size_t)3;
	assert_int_equal(d[off], 3);
	off += 4;
	/* NDR20 accepted */
	assert_int_equal(le16(d + off), DCERPC_RESULT_ACCEPT);
	assert_int_equal(le32(d + off + 4), dcerpc_ndr20_syntax.uuid.time_low);
	/* NDR64: provider rejection, transfer syntaxes not supported */
	off += 24;
	assert_int_equal(le16(d + off), DCERPC_RESULT_PROVIDER_REJECTION);
	assert_int_equal(le16(d + off + 2),
			 DCERPC_REASON_TRANSFER_NOT_SUPPORTED);
	/* bind time feature negotiation: negotiate ack */
	off += 24;
	assert_int_equal(le16(d + off), DCERPC_RESULT_NEGOTIATE_ACK);
	assert_int_equal(off + 24, len);
}

static void test_bind_wrong_iface(void **state)
{
	struct tctx *t = *state;
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };
	uint8_t *d;
	size_t len;
	uint32_t fault;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, &lsa_syntax, x, 1, 4280);
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_ACK);
	assert_int_equal(le16(d + 44), DCERPC_RESULT_PROVIDER_REJECTION);
	assert_int_equal(le16(d + 46), DCERPC_REASON_ABSTRACT_NOT_SUPPORTED);
	/* a request on the rejected context: unknown interface */
	assert_null(call(t, 15, (const uint8_t *)"\0\0\0\0", 4, 4096, &len,
			 &fault));
	assert_int_equal(fault, DCERPC_NCA_S_UNKNOWN_IF);
}

static void test_request_before_bind(void **state)
{
	struct tctx *t = *state;
	size_t len;
	uint32_t fault;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	assert_null(call(t, 15, (const uint8_t *)"\0\0\0\0", 4, 4096, &len,
			 &fault));
	assert_int_equal(fault, DCERPC_NCA_S_PROTO_ERROR);
}

static void test_malformed(void **state)
{
	struct tctx *t = *state;
	uint8_t bind[72] = { 5, 0, 11, 3, 0x10, 0, 0, 0, 72, 0, 0, 0, 1 };
	uint8_t tiny[16] = { 5, 0, 0, 3, 0x10, 0, 0, 0, 10, 0, 0, 0, 1 };
	uint8_t *d;
	size_t len;
	uint32_t fault;

	/* bind claiming 5 contexts in a PDU that holds none */
	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	put_le16(bind + 16, 4280);
	put_le16(bind + 18, 4280);
	bind[24] = 5;
	assert_int_equal(rpc_pipe_write(t->p, bind, sizeof(bind)),
			 NT_STATUS_OK);
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_NAK);
	/* a good bind afterwards still works, then an unknown opnum */
	{
		const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };

		send_bind(t, &srvsvc_syntax, x, 1, 4280);
		d = read_msg(t, &len);
		assert_int_equal(d[2], DCERPC_PKT_BIND_ACK);
	}
	assert_null(call(t, 200, (const uint8_t *)"", 0, 4096, &len, &fault));
	assert_int_equal(fault, DCERPC_NCA_S_OP_RNG_ERROR);
	assert_null(call(t, 0, (const uint8_t *)"", 0, 4096, &len, &fault));
	assert_int_equal(fault, DCERPC_NCA_S_OP_RNG_ERROR);
	/* truncated stub data: an NDR fault */
	assert_null(call(t, 15, (const uint8_t *)"\1\0\0\0", 4, 4096, &len,
			 &fault));
	assert_int_equal(fault, DCERPC_NCA_S_FAULT_NDR);
	/* frag_length shorter than the header: the pipe breaks */
	assert_int_equal(rpc_pipe_write(t->p, tiny, sizeof(tiny)),
			 NT_STATUS_PIPE_DISCONNECTED);
	assert_int_equal(rpc_pipe_write(t->p, tiny, sizeof(tiny)),
			 NT_STATUS_PIPE_DISCONNECTED);
}

static void test_tiny_frag_bind(void **state)
{
	struct tctx *t = *state;
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };
	uint8_t *d;
	size_t len;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, &srvsvc_syntax, x, 1, 100);
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_NAK);
	assert_int_equal(le16(d + 16), DCERPC_NAK_LOCAL_LIMIT_EXCEEDED);
}

/* NetrShareEnum request: \\server, level, empty container, resume 0 */
static uint8_t *share_enum_req(struct tctx *t, uint32_t level, size_t *len)
{
	struct ndr_push p;

	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, "\\\\127.0.0.1");
	ndr_push_u32(&p, level);
	ndr_push_u32(&p, level);
	ndr_push_ptr(&p, true);
	ndr_push_u32(&p, 0);
	ndr_push_ptr(&p, false);
	ndr_push_u32(&p, 0xffffffff);
	ndr_push_ptr(&p, true);
	ndr_push_u32(&p, 0);
	*len = p.b.len;
	return p.b.data;
}

struct share1 {
	char *name, *comment;
	uint32_t type;
};

static void parse_enum1(struct tctx *t, const uint8_t *r, size_t len,
			struct share1 *out, uint32_t *n)
{
	struct ndr_pull in;
	uint32_t v, count, i, ptr, total;

	ndr_pull_init(&in, r, len);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 1);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_not_equal(ptr, 0);
	assert_int_equal(ndr_pull_u32(&in, &count), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, count);
	assert_true(count <= 8);
	for (i = 0; i < count; i++) {
		assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
		assert_int_equal(ndr_pull_u32(&in, &out[i].type),
				 NT_STATUS_OK);
		assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	}
	for (i = 0; i < count; i++) {
		assert_int_equal(ndr_pull_wstring(&in, t->mem, &out[i].name),
				 NT_STATUS_OK);
		assert_int_equal(ndr_pull_wstring(&in, t->mem,
						  &out[i].comment),
				 NT_STATUS_OK);
	}
	assert_int_equal(ndr_pull_u32(&in, &total), NT_STATUS_OK);
	assert_int_equal(total, count);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_not_equal(ptr, 0);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0); /* WERR_OK */
	assert_int_equal(in.off, len);
	*n = count;
}

static void test_share_enum(void **state)
{
	struct tctx *t = *state;
	struct share1 sh[8];
	uint8_t *req, *r;
	size_t rl, len;
	uint32_t fault, n;

	open_bound(t, "srvsvc", &srvsvc_syntax);
	req = share_enum_req(t, 1, &rl);
	/* the request in 8-byte fragments */
	r = call(t, 15, req, rl, 8, &len, &fault);
	assert_non_null(r);
	parse_enum1(t, r, len, sh, &n);
	assert_int_equal(n, 3); /* data, admin$, IPC$; not hidden */
	assert_string_equal(sh[0].name, "data");
	assert_string_equal(sh[0].comment, "Data share");
	assert_int_equal(sh[0].type, 0);
	assert_string_equal(sh[1].name, "admin$");
	assert_int_equal(sh[1].type, 0x80000000);
	assert_string_equal(sh[2].name, "IPC$");
	assert_int_equal(sh[2].type, 0x80000003);
	assert_string_equal(sh[2].comment, "IPC Service (Test Server)");

	/* every level answers WERR_OK; 503 / 7 are refused */
	{
		const uint32_t levels[] = { 0, 2, 501, 502, 503, 7 };
		size_t i;

		for (i = 0; i < 6; i++) {
			req = share_enum_req(t, levels[i], &rl);
			r = call(t, 15, req, rl, 4096, &len, &fault);
			assert_non_null(r);
			assert_int_equal(le32(r + len - 4),
					 i < 4 ? 0 : 124);
		}
	}
}

/* `access based share enum`: the shares whose user lists leave the
 * caller out are not listed; IPC$ and shares without it always are. */
static void test_share_enum_access_based(void **state)
{
	struct tctx *t = *state;
	static const char conf[] =
		"[global]\n"
		"access based share enum = yes\n"
		"[open]\npath = /tmp\n"
		"[other]\npath = /tmp\nvalid users = bob\n"
		"[banned]\npath = /tmp\ninvalid users = alice\n"
		"[mine]\npath = /tmp\nvalid users = bob, %U\n"
		"[unix]\npath = /tmp\nvalid users = ALICE_UNIX\n"
		"[plain]\npath = /tmp\nvalid users = bob\n"
		"access based share enum = no\n";
	const char *want[] = {"open", "mine", "unix", "plain", "IPC$"};
	struct share1 sh[8];
	uint8_t *req, *r;
	size_t rl, len, i;
	uint32_t fault, n;

	assert_true(lp_load_string(t->lp, "abse", conf));
	t->srv.unix_name = "alice_unix";
	open_bound(t, "srvsvc", &srvsvc_syntax);
	req = share_enum_req(t, 1, &rl);
	r = call(t, 15, req, rl, 4096, &len, &fault);
	assert_non_null(r);
	parse_enum1(t, r, len, sh, &n);
	assert_int_equal(n, 5);
	for (i = 0; i < 5; i++) {
		assert_string_equal(sh[i].name, want[i]);
	}
}

static void test_share_enum_fragmented_response(void **state)
{
	struct tctx *t = *state;
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };
	char conf[8192] = "[global]\nserver string = s\n";
	uint8_t *req, *r, *d;
	size_t rl, len, l;
	uint32_t fault;
	int i;

	for (i = 0; i < 60; i++) {
		l = strlen(conf);
		snprintf(conf + l, sizeof(conf) - l,
			 "[share%02d]\npath = /tmp\ncomment = a fairly long "
			 "comment for share %d\n", i, i);
	}
	assert_true(lp_load_string(t->lp, "many", conf));
	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, &srvsvc_syntax, x, 1, 1432);
	d = read_msg(t, &len);
	assert_int_equal(le16(d + 16), 1432);
	req = share_enum_req(t, 1, &rl);
	r = call(t, 15, req, rl, 4096, &len, &fault);
	assert_non_null(r);
	assert_true(len > 4 * 1432);
	assert_int_equal(le32(r + 12), 61);
	assert_int_equal(le32(r + len - 4), 0);
}

/* A PDU cut into 1-byte writes, then two PDUs in one write. */
static void test_split_writes(void **state)
{
	struct tctx *t = *state;
	struct wire_buf b;
	uint8_t *d;
	size_t len, i, one;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	wire_buf_init(&b, t->mem, 128);
	push_hdr(&b, DCERPC_PKT_BIND, 3, 7);
	wire_push_le16(&b, 4280);
	wire_push_le16(&b, 4280);
	wire_push_le32(&b, 0);
	wire_push_le32(&b, 1);
	wire_push_le16(&b, 0);
	wire_push_u8(&b, 1);
	wire_push_u8(&b, 0);
	push_syntax(&b, &srvsvc_syntax);
	push_syntax(&b, &dcerpc_ndr20_syntax);
	fix_len(&b);
	for (i = 0; i < b.len; i++) {
		assert_int_equal(rpc_pipe_write(t->p, b.data + i, 1),
				 NT_STATUS_OK);
		if (i + 1 < b.len) {
			assert_int_equal(rpc_pipe_pending(t->p), 0);
		}
	}
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_BIND_ACK);
	assert_int_equal(le32(d + 12), 7);

	/* two requests (unknown opnums) back to back, plus half a third */
	wire_buf_init(&b, t->mem, 128);
	for (i = 0; i < 3; i++) {
		size_t start = b.len;

		push_hdr(&b, DCERPC_PKT_REQUEST, 3, 10 + (uint32_t)i);
		wire_push_le32(&b, 0);
		wire_push_le16(&b, 0);
		wire_push_le16(&b, 99);
		put_le16(b.data + start + 8, (uint16_t)(b.len - start));
	}
	one = b.len / 3;
	assert_int_equal(rpc_pipe_write(t->p, b.data, b.len - one / 2),
			 NT_STATUS_OK);
	for (i = 0; i < 2; i++) {
		d = read_msg(t, &len);
		assert_int_equal(d[2], DCERPC_PKT_FAULT);
		assert_int_equal(le32(d + 12), 10 + i);
	}
	assert_int_equal(rpc_pipe_pending(t->p), 0);
	assert_int_equal(rpc_pipe_write(t->p, b.data + b.len - one / 2,
					one / 2),
			 NT_STATUS_OK);
	d = read_msg(t, &len);
	assert_int_equal(le32(d + 12), 12);
	assert_int_equal(le32(d + 24), DCERPC_NCA_S_OP_RNG_ERROR);
}

static void test_message_mode_read(void **state)
{
	struct tctx *t = *state;
	const struct rpc_syntax *x[] = { &dcerpc_ndr20_syntax };
	uint8_t *a, *b, *c;
	size_t la, lb, lc;
	bool more;

	assert_int_equal(rpc_pipe_open(t->mem, "srvsvc", &t->srv, &t->p),
			 NT_STATUS_OK);
	send_bind(t, &srvsvc_syntax, x, 1, 4280);
	assert_true(rpc_pipe_pending(t->p) > 10);
	assert_int_equal(rpc_pipe_read(t->p, t->mem, 10, &a, &la, &more),
			 NT_STATUS_OK);
	assert_true(more);
	assert_int_equal(la, 10);
	assert_int_equal(rpc_pipe_read(t->p, t->mem, 10, &b, &lb, &more),
			 NT_STATUS_OK);
	assert_true(more);
	assert_int_equal(rpc_pipe_read(t->p, t->mem, 1000, &c, &lc, &more),
			 NT_STATUS_OK);
	assert_false(more);
	assert_int_equal(la + lb + lc, le16(a + 8));
	assert_int_equal(rpc_pipe_read(t->p, t->mem, 1000, &c, &lc, &more),
			 NT_STATUS_PIPE_EMPTY);
}

static void test_share_getinfo(void **state)
{
	struct tctx *t = *state;
	struct ndr_push p;
	struct ndr_pull in;
	uint8_t *r;
	size_t len;
	uint32_t fault, v, ptr;
	char *s;

	open_bound(t, "srvsvc", &srvsvc_syntax);
	/* hidden shares are reachable by name */
	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, "srv");
	ndr_push_wstring(&p, "HIDDEN");
	ndr_push_u32(&p, 502);
	r = call(t, 16, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	ndr_pull_init(&in, r, len);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 502);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_not_equal(ptr, 0);
	in.off += 4 * 10; /* netname..security_descriptor */
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "hidden");
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "");
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "C:\\srv\\hidden");
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0);
	assert_int_equal(in.off, len);

	/* unknown share */
	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, NULL);
	ndr_push_wstring(&p, "nosuch");
	ndr_push_u32(&p, 1);
	r = call(t, 16, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(len, 12);
	assert_int_equal(le32(r + 8), 2310);

	/* 1005 flags */
	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, NULL);
	ndr_push_wstring(&p, "data");
	ndr_push_u32(&p, 1005);
	r = call(t, 16, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(len, 16);
	assert_int_equal(le32(r + 12), 0);
}

static void test_server_info_tod_wksta(void **state)
{
	struct tctx *t = *state;
	struct ndr_push p;
	struct ndr_pull in;
	uint8_t *r;
	size_t len;
	uint32_t fault, v, ptr;
	char *s;

	open_bound(t, "srvsvc", &srvsvc_syntax);
	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, "srv");
	ndr_push_u32(&p, 101);
	r = call(t, 21, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	ndr_pull_init(&in, r, len);
	in.off = 8 + 24; /* level, ptr, 6 fixed fields */
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "TESTSRV");
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "Test Server");
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0);
	assert_int_equal(in.off, len);

	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, NULL);
	r = call(t, 28, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(len, 4 + 48 + 4);
	assert_true(le32(r + 4) > 1700000000);

	open_bound(t, "wkssvc", &wkssvc_syntax);
	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, "srv");
	ndr_push_u32(&p, 100);
	r = call(t, 0, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	ndr_pull_init(&in, r, len);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	in.off += 20;
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "TESTSRV");
	assert_int_equal(ndr_pull_wstring(&in, t->mem, &s), NT_STATUS_OK);
	assert_string_equal(s, "TESTGRP");
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0);
}

static void lsa_open(struct tctx *t, uint8_t h[20])
{
	struct ndr_push p;
	uint8_t *r;
	size_t len;
	uint32_t fault;

	ndr_push_init(&p, t->mem);
	ndr_push_unique_wstring(&p, "\\\\srv");
	ndr_push_u32(&p, 24);
	ndr_push_ptr(&p, false);
	ndr_push_ptr(&p, false);
	ndr_push_u32(&p, 0);
	ndr_push_ptr(&p, false);
	ndr_push_ptr(&p, true);
	ndr_push_u32(&p, 12); /* QoS */
	ndr_push_u16(&p, 2);
	ndr_push_u8(&p, 1);
	ndr_push_u8(&p, 0);
	ndr_push_u32(&p, 0x02000000);
	r = call(t, 44, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(len, 24);
	assert_int_equal(le32(r + 20), 0);
	memcpy(h, r, 20);
}

static void test_lsa(void **state)
{
	struct tctx *t = *state;
	const char *sids[] = { "S-1-1-0", "S-1-5-32-544", "S-1-22-1-0",
			       "S-1-5-21-9-9-9-9" };
	struct ndr_push p;
	struct ndr_pull in;
	uint8_t h[20], *r;
	size_t len;
	uint32_t fault, v, ptr, i, nd, nn;
	uint16_t u16, l, m;
	char *s;

	open_bound(t, "lsarpc", &lsa_syntax);
	lsa_open(t, h);

	/* QueryInfoPolicy2, account domain */
	ndr_push_init(&p, t->mem);
	ndr_push_bytes(&p, h, 20);
	ndr_push_u16(&p, 5);
	r = call(t, 46, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	ndr_pull_init(&in, r, len);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u16(&in, &u16), NT_STATUS_OK);
	assert_int_equal(u16, 5);
	assert_int_equal(ndr_pull_align(&in, 4), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u16(&in, &l), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u16(&in, &m), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_not_equal(ptr, 0);
	assert_int_equal(ndr_pull_unicode_buffer(&in, t->mem, l, m, &s),
			 NT_STATUS_OK);
	assert_string_equal(s, "TESTSRV");
	{
		struct rpc_sid sid;

		assert_int_equal(ndr_pull_sid(&in, &sid), NT_STATUS_OK);
		assert_int_equal(sid.num_auths, 4);
		assert_int_equal(sid.sub[0], 21);
	}
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0);

	/* LookupSids */
	ndr_push_init(&p, t->mem);
	ndr_push_bytes(&p, h, 20);
	ndr_push_u32(&p, 4);
	ndr_push_ptr(&p, true);
	ndr_push_u32(&p, 4);
	for (i = 0; i < 4; i++) {
		ndr_push_ptr(&p, true);
	}
	for (i = 0; i < 4; i++) {
		struct rpc_sid sid;

		assert_true(rpc_sid_parse(sids[i], &sid));
		ndr_push_sid(&p, &sid);
	}
	ndr_push_u32(&p, 0);
	ndr_push_ptr(&p, false);
	ndr_push_u16(&p, 1);
	ndr_push_u32(&p, 0);
	r = call(t, 15, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	ndr_pull_init(&in, r, len);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &nd), NT_STATUS_OK);
	assert_int_equal(nd, 3); /* "", BUILTIN, Unix User */
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, nd);
	in.off += nd * 12;
	for (i = 0; i < nd; i++) {
		struct rpc_sid sid;
		const char *want[] = { "", "BUILTIN", "Unix User" };

		assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
		in.off -= 4;
		s = NULL;
		assert_int_equal(ndr_pull_unicode_buffer(&in, t->mem,
							 (uint16_t)(v * 2),
							 (uint16_t)(v * 2),
							 &s),
				 NT_STATUS_OK);
		assert_string_equal(s, want[i]);
		assert_int_equal(ndr_pull_sid(&in, &sid), NT_STATUS_OK);
	}
	assert_int_equal(ndr_pull_u32(&in, &nn), NT_STATUS_OK);
	assert_int_equal(nn, 4);
	assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	{
		const uint16_t types[] = { 5, 4, 1, 8 };
		const int32_t idx[] = { 0, 1, 2, -1 };
		const char *names[] = { "Everyone", "Administrators", "root",
					"S-1-5-21-9-9-9-9" };
		uint16_t ls[4], ms[4];

		for (i = 0; i < 4; i++) {
			assert_int_equal(ndr_pull_u16(&in, &u16),
					 NT_STATUS_OK);
			assert_int_equal(u16, types[i]);
			assert_int_equal(ndr_pull_align(&in, 4), NT_STATUS_OK);
			assert_int_equal(ndr_pull_u16(&in, &ls[i]),
					 NT_STATUS_OK);
			assert_int_equal(ndr_pull_u16(&in, &ms[i]),
					 NT_STATUS_OK);
			assert_int_equal(ndr_pull_ptr(&in, &ptr), NT_STATUS_OK);
			assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
			assert_int_equal((int32_t)v, idx[i]);
		}
		for (i = 0; i < 4; i++) {
			assert_int_equal(ndr_pull_unicode_buffer(&in, t->mem,
								 ls[i], ms[i],
								 &s),
					 NT_STATUS_OK);
			assert_string_equal(s, names[i]);
		}
	}
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 3);
	assert_int_equal(ndr_pull_u32(&in, &v), NT_STATUS_OK);
	assert_int_equal(v, 0x00000107); /* STATUS_SOME_NOT_MAPPED */
	assert_int_equal(in.off, len);

	/* LookupNames3: root, BUILTIN\Users, nosuchuser */
	{
		const char *names[] = { "root", "BUILTIN\\Users",
					"nosuchuser-xyz" };
		struct rpc_sid sid;

		ndr_push_init(&p, t->mem);
		ndr_push_bytes(&p, h, 20);
		ndr_push_u32(&p, 3);
		ndr_push_u32(&p, 3);
		for (i = 0; i < 3; i++) {
			ndr_push_unicode_fixed(&p, names[i]);
		}
		for (i = 0; i < 3; i++) {
			ndr_push_unicode_buffer(&p, names[i]);
		}
		ndr_push_u32(&p, 0);
		ndr_push_ptr(&p, false);
		ndr_push_u16(&p, 1);
		ndr_push_u32(&p, 0);
		ndr_push_u32(&p, 0);
		ndr_push_u32(&p, 2);
		r = call(t, 68, p.b.data, p.b.len, 4096, &len, &fault);
		assert_non_null(r);
		assert_int_equal(le32(r + len - 4), 0x00000107);
		assert_int_equal(le32(r + len - 8), 2);
		/* the last SID in the stream is BUILTIN\Users */
		ndr_pull_init(&in, r, len);
		in.off = len - 8 - 16 - 4;
		assert_int_equal(ndr_pull_sid(&in, &sid), NT_STATUS_OK);
		assert_string_equal(rpc_sid_string(t->mem, &sid),
				    "S-1-5-32-545");
	}

	/* Close, then the handle is gone */
	ndr_push_init(&p, t->mem);
	ndr_push_bytes(&p, h, 20);
	r = call(t, 0, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(le32(r + 20), 0);
	r = call(t, 0, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(le32(r + 20), NT_STATUS_INVALID_HANDLE);
}

/* One request fragment, written; nothing read. */
static NTSTATUS send_req(struct tctx *t, uint16_t opnum, const uint8_t *stub,
			 size_t stub_len)
{
	struct wire_buf b;

	wire_buf_init(&b, t->mem, 64 + stub_len);
	push_hdr(&b, DCERPC_PKT_REQUEST, 3, t->call_id++);
	wire_push_le32(&b, (uint32_t)stub_len);
	wire_push_le16(&b, 0);
	wire_push_le16(&b, opnum);
	wire_push_bytes(&b, stub, stub_len);
	fix_len(&b);
	return rpc_pipe_write(t->p, b.data, b.len);
}

/* LookupNames3 of names[0..n) on policy handle h. */
static void lookup_names3_stub(struct tctx *t, struct ndr_push *p,
			       const uint8_t h[20], const char **names,
			       uint32_t n)
{
	uint32_t i;

	ndr_push_init(p, t->mem);
	ndr_push_bytes(p, h, 20);
	ndr_push_u32(p, n);
	ndr_push_u32(p, n);
	for (i = 0; i < n; i++) {
		ndr_push_unicode_fixed(p, names[i]);
	}
	for (i = 0; i < n; i++) {
		ndr_push_unicode_buffer(p, names[i]);
	}
	ndr_push_u32(p, 0);
	ndr_push_ptr(p, false);
	ndr_push_u16(p, 1);
	ndr_push_u32(p, 0);
	ndr_push_u32(p, 0);
	ndr_push_u32(p, 2);
}

/*
 * A member's pipe (security = ads): a lookup naming a domain account
 * stalls until the SMB layer brings winbindd's answers; meanwhile the
 * pipe takes no input and answers nothing.  Resumed, the call is
 * answered (here with no winbindd to ask: the domain name unmapped, the
 * local one mapped), a miss is remembered and the same call then answers
 * at once.
 */
static void test_lsa_member_stall(void **state)
{
	struct tctx *t = *state;
	const char *names[] = { "SMBNG\\staff", "BUILTIN\\Users" };
	struct rpc_dbatch *b;
	struct ndr_push p;
	uint8_t h[20], *r, *d;
	size_t len;
	uint32_t fault;

	t->srv.member = true;
	open_bound(t, "lsarpc", &lsa_syntax);
	lsa_open(t, h);	/* no lookup: answered at once */
	lookup_names3_stub(t, &p, h, names, 2);
	assert_int_equal(send_req(t, 68, p.b.data, p.b.len), NT_STATUS_OK);
	assert_true(rpc_pipe_stalled(t->p));
	assert_int_equal(rpc_pipe_pending(t->p), 0);
	assert_int_equal(send_req(t, 68, p.b.data, p.b.len),
			 NT_STATUS_PIPE_BUSY);
	b = rpc_pipe_wanted(t->p, t->mem);
	assert_non_null(b);
	rpc_pipe_lookup(b);	/* no winbindd here: nothing found */
	rpc_pipe_resume(t->p, b);
	assert_false(rpc_pipe_stalled(t->p));
	d = read_msg(t, &len);
	assert_int_equal(d[2], DCERPC_PKT_RESPONSE);
	assert_int_equal(le32(d + len - 4), 0x00000107); /* SOME_NOT_MAPPED */
	assert_int_equal(le32(d + len - 8), 1);
	/* the miss is known now: no second wait */
	r = call(t, 68, p.b.data, p.b.len, 4096, &len, &fault);
	assert_non_null(r);
	assert_int_equal(le32(r + len - 4), 0x00000107);
	/* resumed without answers (no memory for them): unmapped too */
	names[0] = "SMBNG\\bob";
	lookup_names3_stub(t, &p, h, names, 2);
	assert_int_equal(send_req(t, 68, p.b.data, p.b.len), NT_STATUS_OK);
	assert_true(rpc_pipe_stalled(t->p));
	rpc_pipe_resume(t->p, NULL);
	d = read_msg(t, &len);
	assert_int_equal(le32(d + len - 8), 1);
}

static void test_lsa_lying_counts(void **state)
{
	struct tctx *t = *state;
	struct ndr_push p;
	uint8_t h[20], *r;
	size_t len;
	uint32_t fault;

	open_bound(t, "lsarpc", &lsa_syntax);
	lsa_open(t, h);
	/* 0x10000000 SIDs announced, none there */
	ndr_push_init(&p, t->mem);
	ndr_push_bytes(&p, h, 20);
	ndr_push_u32(&p, 0x10000000);
	ndr_push_ptr(&p, true);
	ndr_push_u32(&p, 0x10000000);
	r = call(t, 15, p.b.data, p.b.len, 4096, &len, &fault);
	assert_null(r);
	assert_int_equal(fault, DCERPC_NCA_S_FAULT_NDR);
	/* names: max_count != count */
	ndr_push_init(&p, t->mem);
	ndr_push_bytes(&p, h, 20);
	ndr_push_u32(&p, 1);
	ndr_push_u32(&p, 2);
	r = call(t, 14, p.b.data, p.b.len, 4096, &len, &fault);
	assert_null(r);
	assert_int_equal(fault, DCERPC_NCA_S_FAULT_NDR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_names, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_results, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_wrong_iface, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_request_before_bind,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tiny_frag_bind, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_share_enum_access_based,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_share_enum, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_share_enum_fragmented_response, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_message_mode_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_share_getinfo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_server_info_tod_wksta,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_lsa, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lsa_member_stall, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lsa_lying_counts, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
