/*
 * SMB 3.1.1 compression on the wire (MS-SMB2 2.2.42, 3.1.4.4, 3.1.5).
 *
 * NEGOTIATE settles a list of algorithms in the client's order of
 * preference and whether messages may be chained (smb2_compress_negotiate).
 * After that either side may send any message as a
 * COMPRESSION_TRANSFORM_HEADER message:
 *
 *   unchained (2.2.42.1)  Offset plain bytes, then one compressed segment
 *                         of OriginalCompressedSegmentSize bytes;
 *   chained (2.2.42.2)    a run of payloads, each NONE (raw bytes),
 *                         Pattern_V1 (one byte repeated) or compressed
 *                         with an OriginalPayloadSize, which together
 *                         make OriginalCompressedSegmentSize bytes.
 *
 * Receiving (smb2_decompress): every size is checked against what is left
 * of the input and of the output before a byte moves, and the output is
 * allocated once, after its size was checked against the connection's
 * limit (3.3.5.2.x: 256 + header + the largest of MaxRead, MaxWrite,
 * MaxTransact), so a 100-byte message that claims 16 MiB is refused
 * without allocating anything.  The codecs themselves refuse streams that
 * decode to more or fewer bytes than announced (lib/xca.h).
 *
 * Sending (smb2_compress_msg): only ever done when the result is smaller;
 * it works on caller-owned buffers so the worker's pool can run it.
 *
 * Signing covers the uncompressed message and encryption the compressed
 * one (3.1.4.4: compress after signing, encrypt after compressing); the
 * dispatcher keeps that order both ways.
 */
#include "smbd/conn/smb2_compress.h"
#include "lib/wire.h"
#include "lib/xca.h"

#include <limits.h>
#include <lz4.h>
#include <string.h>
#include <talloc.h>

/* LZ4 (MS-SMB2 3.1.4.4 cites [LZ4]): the raw block format, whose size
 * the payload header carries; liblz4 does the work. */
static size_t lz4_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			   size_t out_cap)
{
	int r;

	if (in_len > (size_t)LZ4_MAX_INPUT_SIZE) {
		return 0;
	}
	if (out_cap > INT_MAX) {
		out_cap = INT_MAX;
	}
	r = LZ4_compress_default((const char *)in, (char *)out, (int)in_len,
				 (int)out_cap);
	return r > 0 ? (size_t)r : 0;
}

static bool lz4_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			   size_t out_len)
{
	int r;

	if (in_len > INT_MAX || out_len > INT_MAX) {
		return false;
	}
	r = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len,
				(int)out_len);
	return r >= 0 && (size_t)r == out_len;
}

struct comp_codec {
	uint16_t id;
	size_t (*compress)(const uint8_t *in, size_t in_len, uint8_t *out,
			   size_t out_cap);
	bool (*decompress)(const uint8_t *in, size_t in_len, uint8_t *out,
			   size_t out_len);
};

static const struct comp_codec comp_codecs[] = {
	{SMB2_COMPRESSION_LZNT1, xca_lznt1_compress, xca_lznt1_decompress},
	{SMB2_COMPRESSION_LZ77, xca_lz77_compress, xca_lz77_decompress},
	{SMB2_COMPRESSION_LZ77_HUFFMAN, xca_huff_compress,
	 xca_huff_decompress},
	{SMB2_COMPRESSION_LZ4, lz4_compress, lz4_decompress},
};

static const struct comp_codec *comp_codec(uint16_t id)
{
	size_t i;

	for (i = 0; i < sizeof(comp_codecs) / sizeof(comp_codecs[0]); i++) {
		if (comp_codecs[i].id == id) {
			return &comp_codecs[i];
		}
	}
	return NULL;
}

bool smb2_compress_algo_known(uint16_t id)
{
	return id == SMB2_COMPRESSION_PATTERN_V1 || comp_codec(id) != NULL;
}

bool smb2_compress_has(const struct smb2_compress_caps *caps, uint16_t id)
{
	uint8_t i;

	for (i = 0; i < caps->n && i < SMB2_COMPRESS_MAX_IDS; i++) {
		if (caps->ids[i] == id) {
			return true;
		}
	}
	return false;
}

NTSTATUS smb2_compress_negotiate(const uint8_t *data, size_t len,
				 bool allow_chained,
				 struct smb2_compress_caps *caps)
{
	struct wire_cur c;
	uint16_t count, pad, id, i;
	uint32_t flags;

	memset(caps, 0, sizeof(*caps));
	wire_cur_init(&c, data, len);
	if (!NT_STATUS_IS_OK(wire_pull_le16(&c, &count)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&c, &pad)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &flags)) || count == 0 ||
	    len < 8 + 2 * (size_t)count ||
	    (flags & ~SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	caps->chained =
		allow_chained &&
		(flags & SMB2_COMPRESSION_CAPABILITIES_FLAG_CHAINED) != 0;
	for (i = 0; i < count; i++) {
		(void)wire_pull_le16(&c, &id);
		if (!smb2_compress_algo_known(id) ||
		    smb2_compress_has(caps, id) ||
		    (id == SMB2_COMPRESSION_PATTERN_V1 && !caps->chained) ||
		    caps->n >= SMB2_COMPRESS_MAX_IDS) {
			continue;
		}
		caps->ids[caps->n++] = id;
	}
	return NT_STATUS_OK;
}

size_t smb2_decompress_limit(uint32_t max_read, uint32_t max_write,
			     uint32_t max_trans)
{
	uint32_t m = max_read;

	if (max_write > m) {
		m = max_write;
	}
	if (max_trans > m) {
		m = max_trans;
	}
	return 256 + SMB2_COMP_TF_HDR_LEN + (size_t)m;
}

/* 2.2.42.1: Offset plain bytes, then one segment in CompressionAlgorithm. */
static NTSTATUS decompress_unchained(void *mem_ctx,
				     const struct smb2_compress_caps *caps,
				     const uint8_t *buf, size_t len,
				     size_t limit, uint8_t **out,
				     size_t *out_len)
{
	uint32_t seg = le32(buf + 4), offset = le32(buf + 12);
	uint16_t alg = le16(buf + 8);
	const struct comp_codec *codec = comp_codec(alg);
	const uint8_t *in = buf + SMB2_COMP_TF_HDR_LEN;
	size_t in_len = len - SMB2_COMP_TF_HDR_LEN;
	uint64_t total = (uint64_t)offset + seg;
	uint8_t *m;

	if (codec == NULL || !smb2_compress_has(caps, alg) ||
	    offset > in_len || total > limit || seg == 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	m = talloc_size(mem_ctx, (size_t)total);
	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memcpy(m, in, offset);
	if (!codec->decompress(in + offset, in_len - offset, m + offset,
			       seg)) {
		talloc_free(m);
		return NT_STATUS_INVALID_PARAMETER;
	}
	*out = m;
	*out_len = (size_t)total;
	return NT_STATUS_OK;
}

/* One chained payload (2.2.42.2.1) at in[0..len): its bytes go to
 * m[*pos..total); *used is how much of the input it took. */
static bool decompress_payload(const struct smb2_compress_caps *caps,
			       const uint8_t *in, size_t len, uint8_t *m,
			       size_t *pos, size_t total, size_t *used)
{
	uint16_t alg;
	uint32_t plen, orig;
	const struct comp_codec *codec;
	size_t room = total - *pos;

	if (len < SMB2_COMP_PAYLOAD_HDR_LEN) {
		return false;
	}
	alg = le16(in);
	plen = le32(in + 4);
	in += SMB2_COMP_PAYLOAD_HDR_LEN;
	len -= SMB2_COMP_PAYLOAD_HDR_LEN;
	if (plen > len) {
		return false;
	}
	*used = SMB2_COMP_PAYLOAD_HDR_LEN + plen;
	if (alg == SMB2_COMPRESSION_NONE) {
		if (plen > room) {
			return false;
		}
		memcpy(m + *pos, in, plen);
		*pos += plen;
		return true;
	}
	if (!smb2_compress_has(caps, alg)) {
		return false;
	}
	if (alg == SMB2_COMPRESSION_PATTERN_V1) {
		/* 2.2.42.2.2: Pattern, two reserved fields, Repetitions */
		if (plen != SMB2_COMP_PATTERN_LEN || le32(in + 4) > room) {
			return false;
		}
		memset(m + *pos, in[0], le32(in + 4));
		*pos += le32(in + 4);
		return true;
	}
	codec = comp_codec(alg);
	if (codec == NULL || plen < 4) {
		return false;
	}
	orig = le32(in); /* OriginalPayloadSize, counted in Length */
	if (orig > room ||
	    !codec->decompress(in + 4, plen - 4, m + *pos, orig)) {
		return false;
	}
	*pos += orig;
	return true;
}

/* 2.2.42.2, 3.1.5.3: payloads until the input ends, exactly
 * OriginalCompressedSegmentSize bytes in all. */
static NTSTATUS decompress_chained(void *mem_ctx,
				   const struct smb2_compress_caps *caps,
				   const uint8_t *buf, size_t len,
				   size_t limit, uint8_t **out,
				   size_t *out_len)
{
	uint32_t total = le32(buf + 4);
	size_t off = SMB2_COMP_TF_CHAINED_HDR_LEN, pos = 0, used;
	uint8_t *m;

	if (!caps->chained || total == 0 || total > limit) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	m = talloc_size(mem_ctx, total);
	if (m == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	while (off < len) {
		if (!decompress_payload(caps, buf + off, len - off, m, &pos,
					total, &used)) {
			talloc_free(m);
			return NT_STATUS_INVALID_PARAMETER;
		}
		off += used;
	}
	if (pos != total) {
		talloc_free(m);
		return NT_STATUS_INVALID_PARAMETER;
	}
	*out = m;
	*out_len = total;
	return NT_STATUS_OK;
}

NTSTATUS smb2_decompress(void *mem_ctx, const struct smb2_compress_caps *caps,
			 const uint8_t *buf, size_t len, size_t limit,
			 uint8_t **out, size_t *out_len)
{
	uint16_t flags;

	if (caps->n == 0 || len < SMB2_COMP_TF_HDR_LEN ||
	    le32(buf) != SMB2_COMP_TF_MAGIC) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	flags = le16(buf + 10);
	if (flags == SMB2_COMPRESSION_FLAG_NONE) {
		return decompress_unchained(mem_ctx, caps, buf, len, limit,
					    out, out_len);
	}
	if (flags == SMB2_COMPRESSION_FLAG_CHAINED) {
		return decompress_chained(mem_ctx, caps, buf, len, limit, out,
					  out_len);
	}
	return NT_STATUS_INVALID_PARAMETER;
}

/* The codec a sender uses: the client's most preferred one. */
static const struct comp_codec *
compress_pick(const struct smb2_compress_caps *caps)
{
	uint8_t i;

	for (i = 0; i < caps->n && i < SMB2_COMPRESS_MAX_IDS; i++) {
		if (comp_codec(caps->ids[i]) != NULL) {
			return comp_codec(caps->ids[i]);
		}
	}
	return NULL;
}

/* 2.2.42.1: [hdr][plain][segment]; 0 unless smaller than len. */
static size_t compress_unchained(const struct comp_codec *codec,
				 const uint8_t *msg, size_t len, size_t plain,
				 uint8_t *out, size_t out_cap)
{
	size_t room, c, head = SMB2_COMP_TF_HDR_LEN + plain;

	if (codec == NULL || len <= head + 1 || out_cap <= head) {
		return 0;
	}
	room = len - head - 1; /* the whole must come out smaller */
	if (room > out_cap - head) {
		room = out_cap - head;
	}
	c = codec->compress(msg + plain, len - plain, out + head, room);
	if (c == 0) {
		return 0;
	}
	put_le32(out, SMB2_COMP_TF_MAGIC);
	put_le32(out + 4, (uint32_t)(len - plain));
	put_le16(out + 8, codec->id);
	put_le16(out + 10, SMB2_COMPRESSION_FLAG_NONE);
	put_le32(out + 12, (uint32_t)plain);
	memcpy(out + SMB2_COMP_TF_HDR_LEN, msg, plain);
	return head + c;
}

/* How many bytes from p on (forward) or before p+n (backward) equal the
 * first or last one: compared a block at a time against a block of that
 * byte (memcmp is vectorised; a 1 MiB run of zeros is the common case,
 * a sparse file's hole). */
#define RUN_BLOCK 4096

static size_t run_forward(const uint8_t *p, size_t n)
{
	uint8_t blk[RUN_BLOCK];
	size_t i = 0, k;

	if (n == 0) {
		return 0;
	}
	memset(blk, p[0], sizeof(blk));
	while (n - i >= RUN_BLOCK && memcmp(p + i, blk, RUN_BLOCK) == 0) {
		i += RUN_BLOCK;
	}
	for (k = i; k < n && p[k] == p[0]; k++) {
	}
	return k;
}

static size_t run_backward(const uint8_t *p, size_t n)
{
	uint8_t blk[RUN_BLOCK];
	size_t i = 0, k;

	if (n == 0) {
		return 0;
	}
	memset(blk, p[n - 1], sizeof(blk));
	while (n - i >= RUN_BLOCK &&
	       memcmp(p + n - i - RUN_BLOCK, blk, RUN_BLOCK) == 0) {
		i += RUN_BLOCK;
	}
	for (k = i; k < n && p[n - 1 - k] == p[n - 1]; k++) {
	}
	return k;
}

/* A chained message being built in out[0..cap). */
struct chain_out {
	uint8_t *out;
	size_t cap, pos;
	bool failed;
	bool first;
};

static uint8_t *chain_payload(struct chain_out *co, uint16_t alg,
			      size_t body)
{
	uint8_t *h;

	if (co->failed || body > UINT32_MAX ||
	    co->cap - co->pos < SMB2_COMP_PAYLOAD_HDR_LEN + body) {
		co->failed = true;
		return NULL;
	}
	h = co->out + co->pos;
	put_le16(h, alg);
	put_le16(h + 2, co->first ? SMB2_COMPRESSION_FLAG_CHAINED
				  : SMB2_COMPRESSION_FLAG_NONE);
	put_le32(h + 4, (uint32_t)body);
	co->first = false;
	co->pos += SMB2_COMP_PAYLOAD_HDR_LEN + body;
	return h + SMB2_COMP_PAYLOAD_HDR_LEN;
}

static void chain_plain(struct chain_out *co, const uint8_t *p, size_t n)
{
	uint8_t *d;

	if (n > 0 && (d = chain_payload(co, SMB2_COMPRESSION_NONE, n))) {
		memcpy(d, p, n);
	}
}

static void chain_pattern(struct chain_out *co, uint8_t byte, size_t reps)
{
	uint8_t *d = chain_payload(co, SMB2_COMPRESSION_PATTERN_V1,
				   SMB2_COMP_PATTERN_LEN);

	if (d != NULL) {
		d[0] = byte;
		d[1] = 0;
		put_le16(d + 2, 0);
		put_le32(d + 4, (uint32_t)reps);
	}
}

/* The middle of the data: compressed when that shrinks it, else raw. */
static void chain_middle(struct chain_out *co, const struct comp_codec *codec,
			 const uint8_t *p, size_t n)
{
	size_t room, c;
	uint8_t *h;

	if (n == 0) {
		return;
	}
	if (codec != NULL && !co->failed &&
	    co->cap - co->pos > SMB2_COMP_PAYLOAD_HDR_LEN + 4 + 1) {
		/* worth it only when it beats the raw payload's 8 + n */
		room = co->cap - co->pos - SMB2_COMP_PAYLOAD_HDR_LEN - 4;
		if (room + 5 > n) {
			room = n > 5 ? n - 5 : 0;
		}
		h = co->out + co->pos;
		c = room > 0 ? codec->compress(
				       p, n, h + SMB2_COMP_PAYLOAD_HDR_LEN + 4,
				       room)
			     : 0;
		if (c > 0) {
			(void)chain_payload(co, codec->id, 4 + c);
			put_le32(h + SMB2_COMP_PAYLOAD_HDR_LEN, (uint32_t)n);
			return;
		}
	}
	chain_plain(co, p, n);
}

/* 2.2.42.2 with 3.1.4.4.1's scan: [plain][pattern][middle][pattern]. */
static size_t compress_chained(const struct smb2_compress_caps *caps,
			       const struct comp_codec *codec,
			       const uint8_t *msg, size_t len, size_t plain,
			       uint8_t *out, size_t out_cap)
{
	struct chain_out co = {.out = out, .first = true};
	const uint8_t *d = msg + plain;
	size_t n = len - plain, fwd = 0, bwd = 0;

	if (len <= SMB2_COMP_TF_CHAINED_HDR_LEN + 1) {
		return 0;
	}
	/* the whole must come out smaller than msg */
	co.cap = out_cap < len - 1 ? out_cap : len - 1;
	co.pos = SMB2_COMP_TF_CHAINED_HDR_LEN;
	if (co.cap <= co.pos) {
		return 0;
	}
	if (smb2_compress_has(caps, SMB2_COMPRESSION_PATTERN_V1)) {
		fwd = run_forward(d, n);
		fwd = fwd >= SMB2_COMP_PATTERN_MIN ? fwd : 0;
		if (fwd < n) {
			bwd = run_backward(d + fwd, n - fwd);
			bwd = bwd >= SMB2_COMP_PATTERN_MIN ? bwd : 0;
		}
	}
	if (codec == NULL && fwd == 0 && bwd == 0) {
		return 0;
	}
	chain_plain(&co, msg, plain);
	if (fwd > 0) {
		chain_pattern(&co, d[0], fwd);
	}
	chain_middle(&co, codec, d + fwd, n - fwd - bwd);
	if (bwd > 0) {
		chain_pattern(&co, d[n - 1], bwd);
	}
	if (co.failed) {
		return 0;
	}
	put_le32(out, SMB2_COMP_TF_MAGIC);
	put_le32(out + 4, (uint32_t)len);
	return co.pos;
}

size_t smb2_compress_msg(const struct smb2_compress_caps *caps,
			 const uint8_t *msg, size_t len, size_t plain,
			 uint8_t *out, size_t out_cap)
{
	const struct comp_codec *codec = compress_pick(caps);

	if (caps->n == 0 || plain > len || len > UINT32_MAX) {
		return 0;
	}
	if (caps->chained) {
		return compress_chained(caps, codec, msg, len, plain, out,
					out_cap);
	}
	return compress_unchained(codec, msg, len, plain, out, out_cap);
}
