/*
 * libFuzzer target: CREATE with its contexts against opens waiting for a
 * durable reclaim (MS-SMB2 3.3.5.9.7 DHnC, 3.3.5.9.12 DH2C, 3.3.5.9.8
 * and 3.3.5.9.11 RqLs with them; smbd/objects/durable.c, smb2_create_durable.c).
 *
 * Before each input the harness opens, as session A on [share],
 * "dur.txt" with a batch oplock and a DH2Q (CreateGuid G1) and
 * "lease.txt" with an RWH v2 lease (key L2) and a DH2Q (G2), then drops
 * the connection: both opens are kept, disconnected, for a reclaim.  A
 * new connection (session_env.h: sessions A and B, trees A:[share],
 * B:[share], B:[ro]) then sends one CREATE built from the input, the
 * selector choosing to patch the real FileIds, CreateGuids and lease key
 * into the contexts so that reclaims match (or nearly: another share,
 * another user, another client GUID).  Nothing may crash, leak, or leave
 * a descriptor open (session_env.h counts them).
 *
 * Input: byte 0 selects
 *   bits 0-1  who sends: A on [share], B on [share], B on [ro], A with
 *             B's tree id (refused);
 *   bit 2     patch the FileId of DH2C/DHnC contexts with a kept open's;
 *   bit 3     which kept open: "lease.txt" instead of "dur.txt";
 *   bit 4     patch the CreateGuid of DH2C contexts likewise;
 *   bit 5     patch the LeaseKey of RqLs contexts with L2;
 *   bit 6     sign the CREATE;
 *   bit 7     the second connection negotiates another client GUID;
 * byte 1 bits 0-1: dialect 3.1.1, 3.0.2, 2.1, 3.1.1; bit 2: use the
 * kept open's name (overrides the input's); then 21 bytes of CREATE
 * fields (RequestedOplockLevel, DesiredAccess, FileAttributes,
 * ShareAccess, CreateDisposition, CreateOptions), a byte of name length
 * (bytes of UTF-16), the name, and the rest as the create contexts.
 */
#include "testsuite/common/smb2_testconn.c"
#include "testsuite/fuzz/session_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CREATE_FIELDS 21

static const uint8_t guid1[16] = "create-guid-0001";
static const uint8_t guid2[16] = "create-guid-0002";
static const uint8_t lease2[16] = "lease-key-000002";
static const uint8_t other_client[16] = "client-guid-0002";

struct kept {
	uint8_t fid[16];
	const uint8_t *create_guid;
	const char *name;
};

static void push_utf16(struct wire_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		wire_push_le16(b, (uint8_t)*s);
	}
}

/* One create context (2.2.13.2): name, 8-aligned data. */
static void push_ctx(struct wire_buf *b, const char *name, const void *d,
		     uint32_t dlen, bool last)
{
	size_t start = b->len;

	wire_push_le32(b, 0); /* Next */
	wire_push_le16(b, 16);
	wire_push_le16(b, 4);
	wire_push_le16(b, 0);
	wire_push_le16(b, 24);
	wire_push_le32(b, dlen);
	wire_push_bytes(b, name, 4);
	wire_push_zero(b, 4);
	wire_push_bytes(b, d, dlen);
	if (!last) {
		wire_push_align_from(b, start, 8);
		put_le32(b->data + start, (uint32_t)(b->len - start));
	}
}

/* The 2.2.13 CREATE request header and body up to its Buffer, with the
 * name at 120 and the contexts (if any) 8-aligned after it. */
static void push_create(struct wire_buf *b, uint64_t mid, uint32_t tid,
			uint64_t sid, const uint8_t fields[CREATE_FIELDS],
			const uint8_t *name, size_t name_len,
			const uint8_t *ctx, size_t ctx_len)
{
	size_t ctx_off = (SMB2_HDR_LEN + 56 + name_len + 7) & ~(size_t)7;

	wire_push_le32(b, SMB2_MAGIC);
	wire_push_le16(b, SMB2_HDR_LEN);
	wire_push_le16(b, 1);
	wire_push_le32(b, 0);
	wire_push_le16(b, SMB2_OP_CREATE);
	wire_push_le16(b, 64);
	wire_push_le32(b, 0);
	wire_push_le32(b, 0);
	wire_push_le64(b, mid);
	wire_push_le32(b, 0xFEFF);
	wire_push_le32(b, tid);
	wire_push_le64(b, sid);
	wire_push_zero(b, 16);
	wire_push_le16(b, 57);
	wire_push_u8(b, 0);		/* SecurityFlags */
	wire_push_u8(b, fields[0]);	/* RequestedOplockLevel */
	wire_push_le32(b, 2);		/* Impersonation */
	wire_push_zero(b, 16);		/* SmbCreateFlags, Reserved */
	wire_push_bytes(b, fields + 1, 20);
	wire_push_le16(b, SMB2_HDR_LEN + 56);
	wire_push_le16(b, (uint16_t)name_len);
	wire_push_le32(b, ctx_len ? (uint32_t)ctx_off : 0);
	wire_push_le32(b, (uint32_t)ctx_len);
	wire_push_bytes(b, name, name_len);
	if (name_len == 0) {
		wire_push_u8(b, 0);	/* the Buffer is never empty */
	}
	if (ctx_len != 0) {
		wire_push_zero(b, ctx_off - b->len);
		wire_push_bytes(b, ctx, ctx_len);
	}
}

/* CREATE name with a DH2Q (and an RqLs v2 with lease_key, if any) as A
 * on [share]; the FileId goes to k. */
static void setup_open(struct env *e, struct kept *k, const char *name,
		       const uint8_t *create_guid, const uint8_t *lease_key)
{
	struct wire_buf b, n, c;
	uint8_t fields[CREATE_FIELDS], dh2q[32], rqls[52];
	const uint8_t *r;
	size_t rlen;

	memset(fields, 0, sizeof(fields));
	fields[0] = lease_key ? 0xff : 0x09; /* lease / batch */
	put_le32(fields + 1, 0x0012019f);	 /* GENERIC_READ|WRITE-ish */
	put_le32(fields + 5, 0x80);		 /* NORMAL */
	put_le32(fields + 9, 7);		 /* share all */
	put_le32(fields + 13, 3);		 /* OPEN_IF */
	put_le32(fields + 17, 0x40);		 /* NON_DIRECTORY_FILE */
	wire_buf_init(&n, e->t, 64);
	push_utf16(&n, name);
	memset(dh2q, 0, sizeof(dh2q));
	put_le32(dh2q, 60000); /* Timeout: the harness expires it itself */
	memcpy(dh2q + 16, create_guid, 16);
	wire_buf_init(&c, e->t, 128);
	if (lease_key != NULL) {
		memset(rqls, 0, sizeof(rqls));
		memcpy(rqls, lease_key, 16);
		put_le32(rqls + 16, 7); /* R|H|W */
		push_ctx(&c, "RqLs", rqls, sizeof(rqls), false);
	}
	push_ctx(&c, "DH2Q", dh2q, sizeof(dh2q), true);
	wire_buf_init(&b, e->t, 256);
	push_create(&b, e->t->next_mid++, e->tid_a, e->ka.id, fields, n.data,
		    n.len, c.data, c.len);
	testconn_frame(e->t, b.data, b.len);
	testsrv_run(env_srv);
	r = testconn_reply(e->t, NULL, &rlen);
	if (r == NULL || rlen < SMB2_HDR_LEN + 88 ||
	    le32(r + SMB2_HDR_STATUS) != 0) {
		fprintf(stderr, "fuzz_create_durable: setup CREATE of %s: "
			"%08x\n", name, r && rlen >= SMB2_HDR_LEN
					     ? le32(r + SMB2_HDR_STATUS) : 0);
		abort();
	}
	/* 2.2.14: the FileId is at body offset 64. */
	memcpy(k->fid, r + SMB2_HDR_LEN + 64, 16);
	k->create_guid = create_guid;
	k->name = name;
	talloc_free(b.data);
	talloc_free(c.data);
	talloc_free(n.data);
}

/* Walk the context chain the fuzzer wrote and patch what the selector
 * asks for, wherever a context's data is long enough. */
static void patch_ctx(uint8_t *ctx, size_t len, uint8_t sel,
		      const struct kept *k)
{
	size_t off = 0;

	while (len - off >= 16) {
		uint8_t *c = ctx + off;
		uint32_t next = le32(c);
		uint16_t noff = le16(c + 4), nlen = le16(c + 6);
		uint16_t doff = le16(c + 10);
		uint32_t dlen = le32(c + 12);
		uint8_t *d = c + doff;

		if (nlen == 4 && (size_t)noff + 4 <= len - off &&
		    (size_t)doff + dlen <= len - off) {
			const uint8_t *nm = c + noff;

			if (memcmp(nm, "DH2C", 4) == 0 && dlen >= 32) {
				if (sel & 0x04) {
					memcpy(d, k->fid, 16);
				}
				if (sel & 0x10) {
					memcpy(d + 16, k->create_guid, 16);
				}
			} else if (memcmp(nm, "DHnC", 4) == 0 && dlen >= 16 &&
				   (sel & 0x04)) {
				memcpy(d, k->fid, 16);
			} else if (memcmp(nm, "RqLs", 4) == 0 && dlen >= 16 &&
				   (sel & 0x20)) {
				memcpy(d, lease2, 16);
			}
		}
		if (next < 16 || next > len - off) {
			break;
		}
		off += next;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t dialects[4] = {
		SMB2_DIALECT_0311, SMB2_DIALECT_0302, SMB2_DIALECT_0210,
		SMB2_DIALECT_0311};
	struct env e;
	struct kept k[2];
	struct wire_buf b, n;
	uint8_t sel, sel2, *ctx;
	const uint8_t *name;
	size_t name_len, ctx_len, off;
	const struct kept *kk;
	uint64_t sid;
	uint32_t tid;

	if (size < 2 + CREATE_FIELDS + 1 || size > 1 << 16) {
		return 0;
	}
	sel = data[0];
	sel2 = data[1];
	/* The opens to reclaim, on a connection that then drops. */
	if (!env_start(&e, SMB2_DIALECT_0311, SMB2_ENCRYPTION_AES128_GCM,
		       SMB2_SIGNING_AES_CMAC)) {
		abort();
	}
	setup_open(&e, &k[0], "dur.txt", guid1, NULL);
	setup_open(&e, &k[1], "lease.txt", guid2, lease2);
	TALLOC_FREE(e.t);
	testsrv_run(env_srv);
	if (smbd_objects_of(env_srv->w)->durable_conn == NULL ||
	    smbd_objects_of(env_srv->w)->durable_conn->nopens != 2) {
		fprintf(stderr, "fuzz_create_durable: the opens were not "
			"kept for a reclaim\n");
		abort();
	}
	{
		unsigned fds = e.fds_before;

		/* bit 7: another client (3.3.5.9.12 checks its GUID). */
		if (!env_start_as(&e, dialects[sel2 & 3],
				  SMB2_ENCRYPTION_AES128_GCM,
				  SMB2_SIGNING_AES_CMAC,
				  (sel & 0x80) ? other_client
					       : env_client_guid)) {
			abort();
		}
		/* The kept opens' descriptors are the harness's, not the
		 * input's: count from before they were made. */
		e.fds_before = fds;
	}
	kk = &k[(sel >> 3) & 1];
	off = 2 + CREATE_FIELDS;
	name_len = data[off++];
	if (name_len > size - off) {
		name_len = size - off;
	}
	name = data + off;
	off += name_len;
	ctx_len = size - off;
	ctx = env_dup(&e, data + off, ctx_len);
	patch_ctx(ctx, ctx_len, sel, kk);
	wire_buf_init(&n, e.t, 64);
	if (sel2 & 0x04) {
		push_utf16(&n, kk->name);
		name = n.data;
		name_len = n.len;
	}
	switch (sel & 3) {
	case 0:
		sid = e.ka.id, tid = e.tid_a;
		break;
	case 1:
		sid = e.kb.id, tid = e.tid_b;
		break;
	case 2:
		sid = e.kb.id, tid = e.tid_b_ro;
		break;
	default:
		sid = e.ka.id, tid = e.tid_b_ro;
		break;
	}
	wire_buf_init(&b, e.t, 256);
	push_create(&b, e.t->next_mid++, tid, sid, data + 2, name, name_len,
		    ctx, ctx_len);
	if (sel & 0x40) {
		testconn_sign(sid == e.ka.id ? e.a : e.b, b.data, b.len);
	}
	testconn_frame(e.t, b.data, b.len);
	testsrv_run(env_srv);
	env_check_reply(&e);
	env_end(&e);
	return 0;
}
