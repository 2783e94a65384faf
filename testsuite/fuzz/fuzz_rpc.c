/*
 * libFuzzer target: the DCE/RPC PDU layer (smbd/rpc/dcerpc.c) and the NDR
 * decoders of every request srvsvc, wkssvc and lsarpc accept.
 *
 * Byte 0 picks the pipe (srvsvc, wkssvc, lsarpc).  Byte 1, bit 0: send a
 * valid NDR20 bind first; bit 1: "stub mode": byte 2 is the opnum and the
 * rest is one request's stub data (so the fuzzer reaches the NDR decoders
 * without having to invent PDU headers), else the rest is written as raw
 * PDU bytes: in one write, or with bit 2 set in writes of
 * (byte 1 >> 3) + 1 bytes.  All responses are read back in small pieces.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>
#include "conf/loadparm.h"
#include "lib/log.h"
#include "lib/wire.h"
#include "smbd/rpc/dcerpc.h"
#include "smbd/rpc/pipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct lp_ctx *fuzz_lp;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_lp = lp_new(NULL);
	lp_load_string(fuzz_lp, "fuzz",
		       "[global]\nnetbios name = FUZZ\n"
		       "[a]\npath = /tmp\ncomment = c\n"
		       "[b$]\npath = /tmp\nbrowseable = no\n");
	return 0;
}

static void hdr(struct wire_buf *b, uint8_t ptype, uint8_t flags)
{
	wire_push_u8(b, 5);
	wire_push_u8(b, 0);
	wire_push_u8(b, ptype);
	wire_push_u8(b, flags);
	wire_push_le32(b, 0x10);
	wire_push_le16(b, 0);
	wire_push_le16(b, 0);
	wire_push_le32(b, 1);
}

static void syntax(struct wire_buf *b, const struct rpc_syntax *s)
{
	wire_push_le32(b, s->uuid.time_low);
	wire_push_le16(b, s->uuid.time_mid);
	wire_push_le16(b, s->uuid.time_hi);
	wire_push_bytes(b, s->uuid.rest, 8);
	wire_push_le16(b, s->major);
	wire_push_le16(b, s->minor);
}

/*
 * A member's pipe stalls on domain lookups (rpc_domain.h): resume it
 * with the wanted accounts unanswered (no winbindd is asked here), as
 * the SMB layer does when winbindd knows none of them.
 */
static void fuzz_write(struct rpc_pipe *p, const uint8_t *data, size_t len)
{
	(void)rpc_pipe_write(p, data, len);
	while (rpc_pipe_stalled(p)) {
		TALLOC_CTX *tmp = talloc_new(NULL);

		rpc_pipe_resume(p, rpc_pipe_wanted(p, tmp));
		talloc_free(tmp);
	}
}

static void bind(TALLOC_CTX *ctx, struct rpc_pipe *p, unsigned which)
{
	const struct rpc_iface *ifs[] = { &rpc_srvsvc_iface,
					  &rpc_wkssvc_iface,
					  &rpc_lsarpc_iface };
	struct wire_buf b;

	wire_buf_init(&b, ctx, 128);
	hdr(&b, DCERPC_PKT_BIND, 3);
	wire_push_le16(&b, 4280);
	wire_push_le16(&b, 4280);
	wire_push_le32(&b, 0);
	wire_push_le32(&b, 1);
	wire_push_le16(&b, 0);
	wire_push_u8(&b, 1);
	wire_push_u8(&b, 0);
	syntax(&b, &ifs[which]->syntax);
	syntax(&b, &dcerpc_ndr20_syntax);
	put_le16(b.data + 8, (uint16_t)b.len);
	fuzz_write(p, b.data, b.len);
}

static void request(TALLOC_CTX *ctx, struct rpc_pipe *p, uint16_t opnum,
		    const uint8_t *stub, size_t len)
{
	size_t off = 0;

	do {
		size_t n = len - off < 4000 ? len - off : 4000;
		struct wire_buf b;

		wire_buf_init(&b, ctx, 4100);
		hdr(&b, DCERPC_PKT_REQUEST,
		    (off == 0 ? 1 : 0) | (off + n == len ? 2 : 0));
		wire_push_le32(&b, (uint32_t)(len - off));
		wire_push_le16(&b, 0);
		wire_push_le16(&b, opnum);
		wire_push_bytes(&b, stub + off, n);
		put_le16(b.data + 8, (uint16_t)b.len);
		fuzz_write(p, b.data, b.len);
		off += n;
	} while (off < len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = { "srvsvc", "wkssvc", "lsarpc" };
	TALLOC_CTX *ctx;
	struct rpc_server_ctx srv = { 0 };
	struct rpc_pipe *p;
	unsigned which;
	uint8_t *out;
	size_t len;
	bool more;
	int i;

	if (size < 3) {
		return 0;
	}
	log_set_level(-1);
	ctx = talloc_new(NULL);
	which = data[0] % 3;
	srv.lp = fuzz_lp;
	srv.account_name = "fuzz";
	srv.member = (data[0] & 0x80) != 0;
	if (!NT_STATUS_IS_OK(rpc_pipe_open(ctx, names[which], &srv, &p))) {
		talloc_free(ctx);
		return 0;
	}
	if (data[1] & 1) {
		bind(ctx, p, which);
	}
	if (data[1] & 2) {
		request(ctx, p, data[2], data + 3, size - 3);
	} else if (data[1] & 4) {
		/* the same bytes in writes of (data[1] >> 3) + 1 bytes */
		size_t chunk = (size_t)(data[1] >> 3) + 1, off;

		for (off = 2; off < size; off += chunk) {
			fuzz_write(p, data + off,
					     size - off < chunk ? size - off
								: chunk);
		}
	} else {
		fuzz_write(p, data + 2, size - 2);
	}
	for (i = 0; i < 100000; i++) {
		if (!NT_STATUS_IS_OK(rpc_pipe_read(p, ctx, 333, &out, &len,
						   &more))) {
			break;
		}
	}
	talloc_free(ctx);
	return 0;
}
