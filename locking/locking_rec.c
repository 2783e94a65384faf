/*
 * Encoding and checked decoding of the locking database's records (the
 * format is described in locking_rec.h).  Every read goes through the
 * wire cursor; the header's count must account for the record's length
 * exactly, so a short or padded record is refused before any entry is
 * read.
 */
#include "locking/locking_rec.h"
#include "locking/locking.h"

#include <string.h>

static NTSTATUS rec_iter_init(struct locking_rec_iter *it, const uint8_t *buf,
			      size_t len, uint8_t kind, size_t entry_len,
			      uint32_t max, uint16_t known_flags)
{
	uint8_t version, k;
	uint16_t flags;
	uint32_t count;

	wire_cur_init(&it->cur, buf, len);
	if (!NT_STATUS_IS_OK(wire_pull_u8(&it->cur, &version)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&it->cur, &k)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&it->cur, &flags)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &count))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (version != LOCKING_REC_VERSION || k != kind ||
	    (flags & ~known_flags) != 0 || count > max) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* 64-bit product: count is bounded, but keep the habit. */
	if ((uint64_t)count * entry_len != wire_remaining(&it->cur)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	it->left = count;
	it->flags = flags;
	return NT_STATUS_OK;
}

NTSTATUS share_mode_rec_iter_init(struct locking_rec_iter *it,
				  const uint8_t *buf, size_t len)
{
	return rec_iter_init(it, buf, len, LOCKING_KIND_SHARE,
			     SHARE_ENTRY_LEN, LOCKING_MAX_OPENS_PER_FILE,
			     SHARE_REC_FLAGS);
}

NTSTATUS brl_rec_iter_init(struct locking_rec_iter *it, const uint8_t *buf,
			   size_t len)
{
	return rec_iter_init(it, buf, len, LOCKING_KIND_BRL, BRL_ENTRY_LEN,
			     LOCKING_MAX_LOCKS_PER_FILE, 0);
}

/* What a share-mode entry may hold: the encoder refuses what the
 * decoder would. */
static bool share_entry_valid(const struct share_mode_entry *e)
{
	if ((e->flags & ~(uint32_t)SHARE_ENTRY_FLAGS) != 0 ||
	    e->caching > CACHING_LEASE || e->lease_version > 2 ||
	    ((e->state | e->breaking_to | e->notified_to) &
	     ~(uint32_t)CACHE_RWH) != 0) {
		return false;
	}
	if (e->caching == CACHING_NONE &&
	    (e->state != 0 || (e->flags & SHARE_ENTRY_BREAKING))) {
		return false;
	}
	return (e->caching == CACHING_LEASE) == (e->lease_version != 0);
}

NTSTATUS share_mode_rec_iter_next(struct locking_rec_iter *it,
				  struct share_mode_entry *e)
{
	uint16_t reserved = 0;

	if (it->left == 0) {
		return NT_STATUS_NO_MORE_ENTRIES;
	}
	memset(e, 0, sizeof(*e));
	if (!NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->pid)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->flags)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->open_id)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->access_mask)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->share_access)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&it->cur, &e->worker)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&it->cur, &e->caching)) ||
	    !NT_STATUS_IS_OK(wire_pull_u8(&it->cur, &e->lease_version)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->state)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->breaking_to)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->notified_to)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&it->cur, &e->epoch)) ||
	    !NT_STATUS_IS_OK(wire_pull_le16(&it->cur, &reserved)) ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(&it->cur, e->lease_key, 16)) ||
	    !NT_STATUS_IS_OK(wire_pull_bytes(&it->cur, e->client_guid, 16)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->change_time)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->change_ctime))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (reserved != 0 || !share_entry_valid(e)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	it->left--;
	return NT_STATUS_OK;
}

NTSTATUS brl_rec_iter_next(struct locking_rec_iter *it, struct brl_entry *e)
{
	if (it->left == 0) {
		return NT_STATUS_NO_MORE_ENTRIES;
	}
	if (!NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->pid)) ||
	    !NT_STATUS_IS_OK(wire_pull_le32(&it->cur, &e->flags)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->open_id)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->off)) ||
	    !NT_STATUS_IS_OK(wire_pull_le64(&it->cur, &e->len))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if ((e->flags & ~(uint32_t)BRL_ENTRY_EXCLUSIVE) != 0 ||
	    !brl_range_valid(e->off, e->len)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	it->left--;
	return NT_STATUS_OK;
}

NTSTATUS share_mode_rec_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, struct share_mode_rec *out)
{
	struct locking_rec_iter it;
	NTSTATUS status;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	status = share_mode_rec_iter_init(&it, buf, len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->flags = it.flags;
	out->num = it.left;
	out->e = talloc_array(mem_ctx, struct share_mode_entry,
			      it.left == 0 ? 1 : it.left);
	if (out->e == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->num; i++) {
		status = share_mode_rec_iter_next(&it, &out->e[i]);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(out->e);
			out->num = 0;
			return status;
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS brl_rec_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
			struct brl_rec *out)
{
	struct locking_rec_iter it;
	NTSTATUS status;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	status = brl_rec_iter_init(&it, buf, len);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	out->num = it.left;
	out->e = talloc_array(mem_ctx, struct brl_entry,
			      it.left == 0 ? 1 : it.left);
	if (out->e == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < out->num; i++) {
		status = brl_rec_iter_next(&it, &out->e[i]);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(out->e);
			out->num = 0;
			return status;
		}
	}
	return NT_STATUS_OK;
}

void locking_rec_put_header(uint8_t *p, uint8_t kind, uint16_t flags,
			    uint32_t count)
{
	p[0] = LOCKING_REC_VERSION;
	p[1] = kind;
	put_le16(p + 2, flags);
	put_le32(p + 4, count);
}

void share_mode_entry_put(uint8_t *p, const struct share_mode_entry *e)
{
	put_le32(p, e->pid);
	put_le32(p + 4, e->flags);
	put_le64(p + 8, e->open_id);
	put_le32(p + 16, e->access_mask);
	put_le32(p + 20, e->share_access);
	put_le16(p + 24, e->worker);
	p[26] = e->caching;
	p[27] = e->lease_version;
	put_le32(p + 28, e->state);
	put_le32(p + 32, e->breaking_to);
	put_le32(p + 36, e->notified_to);
	put_le16(p + 40, e->epoch);
	put_le16(p + 42, 0);
	memcpy(p + 44, e->lease_key, 16);
	memcpy(p + 60, e->client_guid, 16);
	put_le64(p + 76, e->change_time);
	put_le64(p + 84, e->change_ctime);
}

void brl_entry_put(uint8_t *p, const struct brl_entry *e)
{
	put_le32(p, e->pid);
	put_le32(p + 4, e->flags);
	put_le64(p + 8, e->open_id);
	put_le64(p + 16, e->off);
	put_le64(p + 24, e->len);
}

NTSTATUS share_mode_rec_encode(TALLOC_CTX *mem_ctx,
			       const struct share_mode_rec *r, uint8_t **buf,
			       size_t *len)
{
	size_t n = LOCKING_REC_HDR_LEN + (size_t)r->num * SHARE_ENTRY_LEN;
	uint8_t *b;
	uint32_t i;

	if (r->num > LOCKING_MAX_OPENS_PER_FILE ||
	    (r->flags & ~(uint16_t)SHARE_REC_FLAGS) != 0) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < r->num; i++) {
		if (!share_entry_valid(&r->e[i])) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	b = talloc_size(mem_ctx, n);
	if (b == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	locking_rec_put_header(b, LOCKING_KIND_SHARE, r->flags, r->num);
	for (i = 0; i < r->num; i++) {
		share_mode_entry_put(b + LOCKING_REC_HDR_LEN +
					     (size_t)i * SHARE_ENTRY_LEN,
				     &r->e[i]);
	}
	*buf = b;
	*len = n;
	return NT_STATUS_OK;
}

NTSTATUS brl_rec_encode(TALLOC_CTX *mem_ctx, const struct brl_rec *r,
			uint8_t **buf, size_t *len)
{
	size_t n = LOCKING_REC_HDR_LEN + (size_t)r->num * BRL_ENTRY_LEN;
	uint8_t *b;
	uint32_t i;

	if (r->num > LOCKING_MAX_LOCKS_PER_FILE) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < r->num; i++) {
		if ((r->e[i].flags & ~(uint32_t)BRL_ENTRY_EXCLUSIVE) != 0 ||
		    !brl_range_valid(r->e[i].off, r->e[i].len)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
	}
	b = talloc_size(mem_ctx, n);
	if (b == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	locking_rec_put_header(b, LOCKING_KIND_BRL, 0, r->num);
	for (i = 0; i < r->num; i++) {
		brl_entry_put(b + LOCKING_REC_HDR_LEN +
				      (size_t)i * BRL_ENTRY_LEN,
			      &r->e[i]);
	}
	*buf = b;
	*len = n;
	return NT_STATUS_OK;
}
