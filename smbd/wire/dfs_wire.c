/*
 * DFS referral requests and responses (MS-DFSC 2.2.2-2.2.5) and DFS
 * paths: see dfs_wire.h.  Every length read off the wire is checked
 * against what holds it before it is used; names go through lib/charset
 * (UTF-16 validated there); the response is laid out once its size is
 * known to fit, so nothing is written past MaxOutputResponse and no
 * 16-bit offset wraps.
 */
#include "smbd/wire/dfs_wire.h"
#include "lib/charset.h"

#include <string.h>

/* The UTF-16 name in [p, p + len), len even: to UTF-8 on mem_ctx. */
static NTSTATUS dfs_name(TALLOC_CTX *mem_ctx, const uint8_t *p, size_t len,
			 char **out)
{
	if (len / 2 > DFS_PATH_MAX_UNITS) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (len == 0) {
		*out = talloc_strdup(mem_ctx, "");
		return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	return charset_utf16_to_utf8(mem_ctx, p, len, out);
}

/* Length in bytes of the UTF-16 string in [p, p + len) up to its NUL
 * (or the last whole unit). */
static size_t dfs_utf16_strnlen(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		if (p[i] == 0 && p[i + 1] == 0) {
			return i;
		}
	}
	return len & ~(size_t)1;
}

NTSTATUS dfs_referral_req_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				size_t len, struct dfs_referral_req *out)
{
	struct wire_cur c;
	NTSTATUS st;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&c, buf, len);
	st = wire_pull_le16(&c, &out->max_level);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	return dfs_name(mem_ctx, wire_ptr(&c),
			dfs_utf16_strnlen(wire_ptr(&c), wire_remaining(&c)),
			&out->path);
}

/* One counted name of RequestData: its 16-bit byte length, then it;
 * trailing NULs dropped. */
static NTSTATUS dfs_counted_name(TALLOC_CTX *mem_ctx, struct wire_cur *c,
				 char **out)
{
	const uint8_t *p;
	uint16_t n;
	NTSTATUS st;

	st = wire_pull_le16(c, &n);
	if (NT_STATUS_IS_OK(st) && (n & 1) != 0) {
		st = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_ref(c, &p, n);
	}
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	while (n >= 2 && p[n - 2] == 0 && p[n - 1] == 0) {
		n -= 2;
	}
	return dfs_name(mem_ctx, p, n, out);
}

NTSTATUS dfs_referral_req_ex_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				   size_t len, struct dfs_referral_req *out)
{
	struct wire_cur c, data;
	uint16_t flags;
	uint32_t data_len;
	NTSTATUS st;

	memset(out, 0, sizeof(*out));
	wire_cur_init(&c, buf, len);
	st = wire_pull_le16(&c, &out->max_level);
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le16(&c, &flags);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_pull_le32(&c, &data_len);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = wire_slice(buf, len, c.off, data_len, &data);
	}
	if (NT_STATUS_IS_OK(st)) {
		st = dfs_counted_name(mem_ctx, &data, &out->path);
	}
	if (NT_STATUS_IS_OK(st) && (flags & DFS_REQ_EX_SITE_NAME)) {
		st = dfs_counted_name(mem_ctx, &data, &out->site);
	}
	if (!NT_STATUS_IS_OK(st)) {
		TALLOC_FREE(out->path);
		TALLOC_FREE(out->site);
	}
	return st;
}

size_t dfs_utf16_len(const char *s, size_t n)
{
	size_t i, units = 0;

	for (i = 0; i < n; i++) {
		uint8_t b = (uint8_t)s[i];

		if ((b & 0xC0) != 0x80) {
			/* a lead byte: 4-byte sequences are surrogate
			 * pairs in UTF-16 */
			units += b >= 0xF0 ? 2 : 1;
		}
	}
	return units * 2;
}

/* A string of the response: UTF-16 with its NUL. */
struct dfs_str {
	uint8_t *p;
	size_t len;	/* bytes, the NUL included */
};

static NTSTATUS dfs_str_make(TALLOC_CTX *mem_ctx, const char *s,
			     struct dfs_str *out)
{
	uint8_t *u;
	size_t n;
	NTSTATUS st = charset_utf8_to_utf16(mem_ctx, s, &u, &n);

	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	out->p = talloc_realloc(mem_ctx, u, uint8_t, n + 2);
	if (out->p == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	out->p[n] = 0;
	out->p[n + 1] = 0;
	out->len = n + 2;
	return NT_STATUS_OK;
}

/*
 * How many entries a layout of k holds within max_out and the offsets'
 * 16 bits.  Entry i (of k) sits at 8 + i * esz; its strings start at
 * 8 + k * esz + s[i], where s[i] sums the strings of the entries before
 * it, so its NetworkAddressOffset is (k - i) * esz + s[i] + 2 * dlen.
 * Both the size and the largest offset grow with k.
 */
static bool dfs_layout_fits(size_t k, size_t esz, size_t dlen,
			    const struct dfs_str *t, size_t max_out,
			    bool check_size)
{
	size_t i, s = 0;

	for (i = 0; i < k; i++) {
		if ((k - i) * esz + s + 2 * dlen > 0xFFFF) {
			return false;
		}
		s += 2 * dlen + t[i].len;
	}
	return !check_size || 8 + k * esz + s <= max_out;
}

static void dfs_push_entries(struct wire_buf *out, bool v3,
			     const struct dfs_referral_resp *r, size_t k,
			     const struct dfs_str *d, const struct dfs_str *t)
{
	size_t esz = v3 ? DFS_ENTRY_V3_LEN : DFS_ENTRY_V2_LEN;
	size_t i, s = 0;

	wire_push_le16(out, r->path_consumed);
	wire_push_le16(out, (uint16_t)k);
	wire_push_le32(out, r->root ? DFS_HEADER_REFERRAL_SERVERS |
					      DFS_HEADER_STORAGE_SERVERS
				    : DFS_HEADER_STORAGE_SERVERS);
	for (i = 0; i < k; i++) {
		size_t off = (k - i) * esz + s;

		wire_push_le16(out, v3 ? 3 : 2);	/* VersionNumber */
		wire_push_le16(out, (uint16_t)esz);	/* Size */
		wire_push_le16(out, r->root ? DFS_SERVER_ROOT
					    : DFS_SERVER_NON_ROOT);
		wire_push_le16(out, 0);		/* ReferralEntryFlags */
		if (!v3) {
			wire_push_le32(out, 0);	/* Proximity */
		}
		wire_push_le32(out, DFS_REFERRAL_TTL);
		wire_push_le16(out, (uint16_t)off);
		wire_push_le16(out, (uint16_t)(off + d->len));
		wire_push_le16(out, (uint16_t)(off + 2 * d->len));
		if (v3) {
			wire_push_zero(out, 16);	/* ServiceSiteGuid */
		}
		s += 2 * d->len + t[i].len;
	}
	for (i = 0; i < k; i++) {
		wire_push_bytes(out, d->p, d->len);	/* DFSPath */
		wire_push_bytes(out, d->p, d->len);	/* DFSAlternatePath */
		wire_push_bytes(out, t[i].p, t[i].len);
	}
}

NTSTATUS dfs_referral_resp_push(struct wire_buf *out, uint16_t max_level,
				const struct dfs_referral_resp *r,
				uint32_t max_out)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	bool v3 = max_level >= 3;
	size_t esz = v3 ? DFS_ENTRY_V3_LEN : DFS_ENTRY_V2_LEN;
	size_t i, k, all, start = out->len;
	struct dfs_str d, *t;
	NTSTATUS st;

	t = talloc_zero_array(tmp, struct dfs_str, r->ntargets + 1);
	if (tmp == NULL || t == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	st = dfs_str_make(tmp, r->dfs_path, &d);
	for (i = 0; NT_STATUS_IS_OK(st) && i < r->ntargets; i++) {
		st = dfs_str_make(tmp, r->targets[i], &t[i]);
	}
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(tmp);
		return st;
	}
	/* the most entries the offsets can address, then the most that
	 * also fit the client's buffer */
	for (all = 0; all < r->ntargets &&
		      dfs_layout_fits(all + 1, esz, d.len, t, 0, false);
	     all++) {
	}
	if (r->ntargets > 0 && all == 0) {
		talloc_free(tmp);
		return NT_STATUS_OBJECT_NAME_INVALID;
	}
	for (k = all; k > 0 && !dfs_layout_fits(k, esz, d.len, t, max_out,
						  true);
	     k--) {
	}
	if (k == 0 && (all > 0 || max_out < 8)) {
		/* not one entry fits (or not even the header) */
		dfs_push_entries(out, v3, r, all, &d, t);
		st = STATUS_BUFFER_OVERFLOW;
		if (!out->failed && out->len - start > max_out) {
			out->len = start + max_out;
		}
	} else {
		dfs_push_entries(out, v3, r, k, &d, t);
	}
	talloc_free(tmp);
	return out->failed ? NT_STATUS_NO_MEMORY : st;
}

NTSTATUS dfs_path_split(TALLOC_CTX *mem_ctx, const char *path,
			struct dfs_path *out)
{
	const char *p = path, *server, *share, *end;

	memset(out, 0, sizeof(*out));
	if (p[0] == '\\' && p[1] == '\\') {
		p++;
	}
	out->full = p;
	server = p[0] == '\\' ? p + 1 : p;
	share = strchr(server, '\\');
	if (share == NULL) {
		return NT_STATUS_NOT_FOUND;
	}
	share++;
	end = strchrnul(share, '\\');
	if (end == share) {
		return NT_STATUS_NOT_FOUND;
	}
	out->share = talloc_strndup(mem_ctx, share, (size_t)(end - share));
	if (out->share == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	out->rest = *end == '\\' ? end + 1 : end;
	return NT_STATUS_OK;
}

size_t dfs_path_prefix_len(const struct dfs_path *p, const char *norm,
			   size_t ncomp)
{
	/* The walk's depth, and how deep it agrees with norm: a name
	 * extends the agreement when it is whole and the name is norm's
	 * next, a ".." takes one back; one comparison a step, whatever
	 * the path. */
	const char **want = talloc_array(NULL, const char *, ncomp + 1);
	size_t *wlen = talloc_array(want, size_t, ncomp + 1);
	size_t k = 0, depth = 0, agree = 0, ret = 0;
	const char *r = p->rest, *s = norm;

	if (want == NULL || wlen == NULL || ncomp == 0) {
		talloc_free(want);
		return 0;
	}
	while (k < ncomp && *s != '\0') {
		s += *s == '/';
		want[k] = s;
		wlen[k] = strcspn(s, "/");
		s += wlen[k];
		k += wlen[k] > 0;
	}
	while (k == ncomp && *r != '\0') {
		size_t n = strcspn(r, "\\");

		if (n == 2 && r[0] == '.' && r[1] == '.') {
			depth -= depth > 0;
			agree = agree > depth ? depth : agree;
		} else if (n > 0 && !(n == 1 && r[0] == '.')) {
			if (agree == depth && depth < ncomp &&
			    n == wlen[depth] &&
			    memcmp(r, want[depth], n) == 0) {
				agree++;
			}
			depth++;
			if (agree == ncomp && depth == ncomp) {
				ret = (size_t)(r + n - p->full);
				break;
			}
		}
		r += n;
		r += *r == '\\';
	}
	talloc_free(want);
	return ret;
}

NTSTATUS dfs_create_name_strip(TALLOC_CTX *mem_ctx, const uint8_t *name,
			       size_t len, const char *share, size_t *skip)
{
	size_t n = len / 2, i = 0, server_end, share_end;
	char *have, *a, *b;
	bool same;
	NTSTATUS st;

	*skip = 0;
#define DFS_UNIT(k) (name[2 * (k)] | (name[2 * (k) + 1] << 8))
	if (n > 0 && DFS_UNIT(0) == '\\') {
		i = 1;
	}
	for (server_end = i; server_end < n && DFS_UNIT(server_end) != '\\';
	     server_end++) {
	}
	if (server_end == n) {
		return NT_STATUS_OK;	/* no '\': a path already */
	}
	for (share_end = server_end + 1;
	     share_end < n && DFS_UNIT(share_end) != '\\'; share_end++) {
	}
#undef DFS_UNIT
	if (share_end == server_end + 1 || share == NULL) {
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	}
	st = charset_utf16_to_utf8(mem_ctx, name + 2 * (server_end + 1),
				   2 * (share_end - server_end - 1), &have);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	a = charset_strupper(mem_ctx, have);
	b = charset_strupper(mem_ctx, share);
	same = a != NULL && b != NULL && strcmp(a, b) == 0;
	talloc_free(have);
	talloc_free(a);
	talloc_free(b);
	if (!same) {
		return NT_STATUS_OBJECT_PATH_NOT_FOUND;
	}
	*skip = 2 * (share_end < n ? share_end + 1 : n);
	return NT_STATUS_OK;
}
