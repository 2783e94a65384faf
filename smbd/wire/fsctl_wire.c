/*
 * FSCTL wire structures (see fsctl_wire.h): every field read through the
 * checked cursor, every limit checked before anything is allocated.
 */
#include "smbd/wire/fsctl_wire.h"

#include <string.h>
#include <sys/socket.h>

#define FSCTL_COPYCHUNK_HDR_LEN 32	/* key, ChunkCount, Reserved */
#define FSCTL_CHUNK_LEN 24		/* 2.2.31.1.1 */

NTSTATUS fsctl_copychunk_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, struct fsctl_copychunk *out)
{
	struct wire_cur c;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(wire_pull_bytes(&c, out->key, sizeof(out->key))) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&c, &out->count)) ||
	    !NT_STATUS_IS_OK(wire_skip(&c, 4))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (out->count > FSCTL_COPYCHUNK_MAX_CHUNKS) {
		/* Refused with the limits; the array is never read. */
		return NT_STATUS_OK;
	}
	if (wire_remaining(&c) < (size_t)out->count * FSCTL_CHUNK_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (out->count == 0) {
		return NT_STATUS_OK;
	}
	out->chunks = talloc_array(mem_ctx, struct fsctl_chunk, out->count);
	if (out->chunks == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->count; i++) {
		struct fsctl_chunk *ch = &out->chunks[i];

		(void)wire_pull_le64(&c, &ch->src_off);
		(void)wire_pull_le64(&c, &ch->dst_off);
		(void)wire_pull_le32(&c, &ch->len);
		(void)wire_skip(&c, 4);
	}
	return NT_STATUS_OK;
}

bool fsctl_copychunk_limits_ok(const struct fsctl_copychunk *cc)
{
	uint64_t total = 0;
	uint32_t i;

	if (cc->count > FSCTL_COPYCHUNK_MAX_CHUNKS) {
		return false;
	}
	for (i = 0; i < cc->count; i++) {
		if (cc->chunks[i].len == 0 ||
		    cc->chunks[i].len > FSCTL_COPYCHUNK_MAX_CHUNK_LEN) {
			return false;
		}
		total += cc->chunks[i].len;
	}
	return total <= FSCTL_COPYCHUNK_MAX_TOTAL;
}

void fsctl_copychunk_rsp_push(struct wire_buf *b, uint32_t chunks_written,
			      uint32_t chunk_bytes_written,
			      uint32_t total_bytes_written)
{
	wire_push_le32(b, chunks_written);
	wire_push_le32(b, chunk_bytes_written);
	wire_push_le32(b, total_bytes_written);
}

void fsctl_resume_key_encode(const struct fsctl_resume_key *k,
			     uint8_t out[FSCTL_RESUME_KEY_LEN])
{
	put_le64(out, k->fid_volatile);
	put_le64(out + 8, k->fid_persistent);
	put_le64(out + 16, k->tag);
}

void fsctl_resume_key_decode(const uint8_t in[FSCTL_RESUME_KEY_LEN],
			     struct fsctl_resume_key *k)
{
	k->fid_volatile = le64(in);
	k->fid_persistent = le64(in + 8);
	k->tag = le64(in + 16);
}

NTSTATUS fsctl_resume_key_rsp_push(struct wire_buf *b, const uint8_t *key,
				   uint32_t max_out)
{
	if (max_out < FSCTL_RESUME_KEY_LEN + 4) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_push_bytes(b, key, FSCTL_RESUME_KEY_LEN);
	wire_push_le32(b, 0); /* ContextLength */
	if (max_out >= FSCTL_RESUME_KEY_LEN + 8) {
		wire_push_le32(b, 0); /* Context, as Windows sends it */
	}
	return NT_STATUS_OK;
}

/* Both 64-bit fields of a 16-byte input, as LONGLONGs that must not be
 * negative. */
static NTSTATUS fsctl_pull_two_offsets(const uint8_t *buf, size_t len,
				       uint64_t *a, uint64_t *b)
{
	struct wire_cur c;

	wire_cur_init(&c, buf, len);
	if (!NT_STATUS_IS_OK(wire_pull_le64(&c, a)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&c, b)) || *a > INT64_MAX ||
	    *b > INT64_MAX) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

NTSTATUS fsctl_qar_parse(const uint8_t *buf, size_t len, uint64_t *off,
			 uint64_t *length)
{
	NTSTATUS status = fsctl_pull_two_offsets(buf, len, off, length);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (*length > INT64_MAX - *off) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

void fsctl_qar_push(struct wire_buf *b, uint64_t off, uint64_t length)
{
	wire_push_le64(b, off);
	wire_push_le64(b, length);
}

NTSTATUS fsctl_zero_data_parse(const uint8_t *buf, size_t len, uint64_t *off,
			       uint64_t *beyond_final_zero)
{
	NTSTATUS status =
		fsctl_pull_two_offsets(buf, len, off, beyond_final_zero);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (*off > *beyond_final_zero) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	return NT_STATUS_OK;
}

bool fsctl_set_sparse_parse(const uint8_t *buf, size_t len)
{
	return len == 0 || buf[0] != 0;
}

NTSTATUS fsctl_compression_parse(const uint8_t *buf, size_t len,
				 uint16_t *format)
{
	struct wire_cur c;

	wire_cur_init(&c, buf, len);
	return wire_pull_le16(&c, format);
}

NTSTATUS fsctl_resiliency_parse(const uint8_t *buf, size_t len,
				uint32_t max_ms, uint32_t def_ms,
				uint32_t *timeout_ms)
{
	struct wire_cur c;
	uint32_t t;

	if (len < FSCTL_RESILIENCY_REQ_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_cur_init(&c, buf, len);
	(void)wire_pull_le32(&c, &t);	/* Reserved follows, ignored */
	if (t / 1000 > max_ms / 1000) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*timeout_ms = t != 0 ? t : def_ms;
	return NT_STATUS_OK;
}

void fsctl_object_id_push(struct wire_buf *b, uint64_t dev, uint64_t ino,
			  const uint8_t volume_id[16])
{
	uint8_t oid[16];

	put_le64(oid, ino);
	put_le64(oid + 8, dev);
	wire_push_bytes(b, oid, 16);		/* ObjectId */
	wire_push_bytes(b, volume_id, 16);	/* BirthVolumeId */
	wire_push_bytes(b, oid, 16);		/* BirthObjectId */
	wire_push_zero(b, 16);			/* DomainId */
}

/* MS-SMB2 2.2.32.5.1 SOCKADDR_STORAGE families (Windows' values). */
#define FSCTL_FAMILY_INET 0x0002
#define FSCTL_FAMILY_INET6 0x0017
#define FSCTL_SOCKADDR_LEN 128

static void fsctl_sockaddr_push(struct wire_buf *b,
				const struct fsctl_net_iface *v)
{
	size_t start = b->len;

	if (v->family == AF_INET6) {
		/* 2.2.32.5.1.2 SOCKADDR_IN6: Port, FlowInfo, address,
		 * ScopeId. */
		wire_push_le16(b, FSCTL_FAMILY_INET6);
		wire_push_zero(b, 2 + 4);
		wire_push_bytes(b, v->addr, 16);
		wire_push_le32(b, v->scope_id);
	} else {
		/* 2.2.32.5.1.1 SOCKADDR_IN: Port, address (network order),
		 * Reserved. */
		wire_push_le16(b, FSCTL_FAMILY_INET);
		wire_push_zero(b, 2);
		wire_push_bytes(b, v->addr, 4);
	}
	if (!b->failed) {
		wire_push_zero(b, FSCTL_SOCKADDR_LEN - (b->len - start));
	}
}

void fsctl_net_iface_push(struct wire_buf *b, const struct fsctl_net_iface *v,
			  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		wire_push_le32(b, i + 1 < n ? FSCTL_NET_IFACE_LEN : 0);
		wire_push_le32(b, v[i].if_index);
		wire_push_le32(b, v[i].capability);
		wire_push_le32(b, 0); /* Reserved */
		wire_push_le64(b, v[i].link_speed);
		fsctl_sockaddr_push(b, &v[i]);
	}
}

NTSTATUS fsctl_snapshot_array_push(struct wire_buf *b,
				   const char *const *tokens, uint32_t n,
				   uint32_t max_out)
{
	/* each token and its NUL in UTF-16, then the list's own NUL */
	const uint64_t each = (FSCTL_SNAPSHOT_TOKEN_CHARS + 1) * 2;
	uint64_t size = (uint64_t)n * each + 2;
	uint32_t i;
	size_t c;

	if (max_out < FSCTL_SNAPSHOT_MIN_OUT || size > UINT32_MAX - 12) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < n; i++) {
		if (strlen(tokens[i]) != FSCTL_SNAPSHOT_TOKEN_CHARS) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	wire_push_le32(b, n);	/* NumberOfSnapShots */
	if (12 + size > max_out) {
		wire_push_le32(b, 0);		/* none returned */
		wire_push_le32(b, (uint32_t)size);
		wire_push_zero(b, FSCTL_SNAPSHOT_MIN_OUT - 12);
		return NT_STATUS_OK;
	}
	wire_push_le32(b, n);	/* NumberOfSnapShotsReturned */
	wire_push_le32(b, (uint32_t)size);
	for (i = 0; i < n; i++) {
		/* the tokens are ASCII: one UTF-16 unit per byte */
		for (c = 0; c < FSCTL_SNAPSHOT_TOKEN_CHARS; c++) {
			wire_push_le16(b, (uint8_t)tokens[i][c]);
		}
		wire_push_le16(b, 0);
	}
	wire_push_le16(b, 0);
	return NT_STATUS_OK;
}
