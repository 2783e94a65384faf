/*
 * MS-PAC parser (see pac.h): the PACTYPE (2.3), its PAC_INFO_BUFFERs
 * (2.4) and KERB_VALIDATION_INFO (2.5) in NDR.
 *
 * The logon information is MS-RPCE 2.2.6 type serialization version 1:
 * an 8-byte common header (version 1, little-endian 0x10, length 8,
 * filler), an 8-byte private header (the object's length), then NDR of a
 * unique pointer to the structure.  NDR puts what an embedded pointer
 * points to after the structure, in the order the pointers appear
 * (MS-RPCE 2.2.5, C706 14.3.12.3): the strings, GroupIds, LogonDomainId,
 * the ExtraSids array and then each of its SIDs, ResourceGroupDomainSid,
 * ResourceGroupIds.  Alignment counts from the start of the NDR stream,
 * which is 8-aligned in the buffer, so the buffer's offsets are used.
 */
#include "smbd/auth/pac.h"
#include "lib/charset.h"
#include "lib/wire.h"

#include <string.h>

#define BAD NT_STATUS_INVALID_PARAMETER

/* A pull that fails returns INVALID_PARAMETER from the function. */
#define PULL(call)                                                            \
	do {                                                                  \
		if (!NT_STATUS_IS_OK(call)) {                                 \
			return BAD;                                           \
		}                                                             \
	} while (0)

static NTSTATUS ndr_align(struct wire_cur *c, size_t n)
{
	size_t pad = (n - (c->off % n)) % n;

	return wire_skip(c, pad);
}

/* MS-DTYP 2.3.10 RPC_UNICODE_STRING, the part inside the structure. */
struct ndr_str {
	uint16_t len, max;
	uint32_t ptr;
};

static NTSTATUS pull_str_hdr(struct wire_cur *c, struct ndr_str *s)
{
	PULL(wire_pull_le16(c, &s->len));
	PULL(wire_pull_le16(c, &s->max));
	PULL(wire_pull_le32(c, &s->ptr));
	if ((s->len & 1) || s->len > s->max) {
		return BAD;
	}
	return NT_STATUS_OK;
}

/* Its deferred buffer: a conformant varying array of WCHAR. */
static NTSTATUS pull_str_body(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			      const struct ndr_str *s, char **out)
{
	uint32_t max_count, offset, actual;
	const uint8_t *p;

	if (s->ptr == 0) {
		if (s->len != 0) {
			return BAD;
		}
		*out = talloc_strdup(mem_ctx, "");
		return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	PULL(ndr_align(c, 4));
	PULL(wire_pull_le32(c, &max_count));
	PULL(wire_pull_le32(c, &offset));
	PULL(wire_pull_le32(c, &actual));
	if (offset != 0 || actual > max_count ||
	    (uint64_t)actual * 2 != s->len) {
		return BAD;
	}
	PULL(wire_pull_ref(c, &p, s->len));
	if (s->len == 0) {
		*out = talloc_strdup(mem_ctx, "");
		return *out != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
	}
	return charset_utf16_to_utf8(mem_ctx, p, s->len, out);
}

/* MS-DTYP 2.4.2.3 RPC_SID: conformance (the count) first. */
static NTSTATUS pull_sid(struct wire_cur *c, struct auth_sid *sid)
{
	uint32_t max_count, i;

	PULL(ndr_align(c, 4));
	PULL(wire_pull_le32(c, &max_count));
	PULL(wire_pull_u8(c, &sid->revision));
	PULL(wire_pull_u8(c, &sid->num_auths));
	PULL(wire_pull_bytes(c, sid->id_auth, 6));
	if (sid->revision != 1 || sid->num_auths > AUTH_SID_MAX_SUB_AUTHS ||
	    max_count != sid->num_auths) {
		return BAD;
	}
	for (i = 0; i < sid->num_auths; i++) {
		PULL(wire_pull_le32(c, &sid->sub_auths[i]));
	}
	return NT_STATUS_OK;
}

/* GROUP_MEMBERSHIP[count], deferred: conformance, then the pairs. */
static NTSTATUS pull_groups(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			    uint32_t count, struct pac_group **out)
{
	uint32_t max_count, i;
	struct pac_group *g;

	PULL(ndr_align(c, 4));
	PULL(wire_pull_le32(c, &max_count));
	if (max_count != count || (uint64_t)count * 8 > wire_remaining(c)) {
		return BAD;
	}
	g = talloc_array(mem_ctx, struct pac_group, count);
	if (g == NULL && count > 0) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		PULL(wire_pull_le32(c, &g[i].rid));
		PULL(wire_pull_le32(c, &g[i].attributes));
	}
	*out = g;
	return NT_STATUS_OK;
}

/* KERB_SID_AND_ATTRIBUTES[count], then the SID of each element whose
 * pointer is not NULL, in order (a NULL one adds no SID). */
static NTSTATUS pull_extra(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			   uint32_t count, struct pac_sid_attr **out,
			   size_t *num)
{
	uint32_t max_count, i, ptr;
	struct pac_sid_attr *e;
	size_t n = 0;
	const uint8_t *pairs;

	PULL(ndr_align(c, 4));
	PULL(wire_pull_le32(c, &max_count));
	if (max_count != count) {
		return BAD;
	}
	PULL(wire_pull_ref(c, &pairs, (size_t)count * 8));
	e = talloc_array(mem_ctx, struct pac_sid_attr, count);
	if (e == NULL && count > 0) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		ptr = le32(pairs + 8 * i);
		if (ptr == 0) {
			continue;
		}
		e[n].attributes = le32(pairs + 8 * i + 4);
		if (!NT_STATUS_IS_OK(pull_sid(c, &e[n].sid))) {
			talloc_free(e);
			return BAD;
		}
		n++;
	}
	*out = e;
	*num = n;
	return NT_STATUS_OK;
}

/* The 16 bytes of MS-RPCE 2.2.6.1 and 2.2.6.2; c then covers the NDR. */
static NTSTATUS pull_serialization_headers(struct wire_cur *c)
{
	uint8_t version, endian;
	uint16_t hdr_len;
	uint32_t filler, obj_len;

	PULL(wire_pull_u8(c, &version));
	PULL(wire_pull_u8(c, &endian));
	PULL(wire_pull_le16(c, &hdr_len));
	PULL(wire_pull_le32(c, &filler));
	PULL(wire_pull_le32(c, &obj_len));
	PULL(wire_pull_le32(c, &filler));
	if (version != 1 || endian != 0x10 || hdr_len != 8 ||
	    obj_len > wire_remaining(c)) {
		return BAD;
	}
	/* Nothing after the object counts. */
	c->len = c->off + obj_len;
	return NT_STATUS_OK;
}

/* The fixed part of KERB_VALIDATION_INFO, pointers kept for later. */
struct kvi_fixed {
	struct ndr_str names[6]; /* EffectiveName ... HomeDirectoryDrive */
	uint32_t group_count, groups_ptr;
	struct ndr_str logon_server, logon_domain;
	uint32_t domain_sid_ptr;
	uint32_t sid_count, extra_ptr;
	uint32_t resource_domain_ptr, resource_count, resource_ptr;
};

static NTSTATUS pull_fixed(struct wire_cur *c, struct pac_logon_info *li,
			   struct kvi_fixed *f)
{
	uint16_t u16;
	uint32_t u32;
	int i;

	/* six FILETIMEs: LogonTime .. PasswordMustChange */
	PULL(wire_skip(c, 6 * 8));
	for (i = 0; i < 6; i++) {
		PULL(pull_str_hdr(c, &f->names[i]));
	}
	PULL(wire_pull_le16(c, &u16));	/* LogonCount */
	PULL(wire_pull_le16(c, &u16));	/* BadPasswordCount */
	PULL(wire_pull_le32(c, &li->user_rid));
	PULL(wire_pull_le32(c, &li->primary_group_rid));
	PULL(wire_pull_le32(c, &f->group_count));
	PULL(wire_pull_le32(c, &f->groups_ptr));
	PULL(wire_pull_le32(c, &li->user_flags));
	PULL(wire_skip(c, 16));		/* UserSessionKey */
	PULL(pull_str_hdr(c, &f->logon_server));
	PULL(pull_str_hdr(c, &f->logon_domain));
	PULL(wire_pull_le32(c, &f->domain_sid_ptr));
	PULL(wire_skip(c, 8));		/* Reserved1[2] */
	PULL(wire_pull_le32(c, &li->user_account_control));
	PULL(wire_pull_le32(c, &u32));	/* SubAuthStatus */
	PULL(wire_skip(c, 16));		/* LastSuccessful/FailedILogon */
	PULL(wire_pull_le32(c, &u32));	/* FailedILogonCount */
	PULL(wire_pull_le32(c, &u32));	/* Reserved3 */
	PULL(wire_pull_le32(c, &f->sid_count));
	PULL(wire_pull_le32(c, &f->extra_ptr));
	PULL(wire_pull_le32(c, &f->resource_domain_ptr));
	PULL(wire_pull_le32(c, &f->resource_count));
	PULL(wire_pull_le32(c, &f->resource_ptr));
	/* A count without its array (or the reverse) is malformed. */
	if ((f->group_count != 0) != (f->groups_ptr != 0) ||
	    (f->sid_count != 0) != (f->extra_ptr != 0) ||
	    (f->resource_count != 0) != (f->resource_ptr != 0)) {
		return BAD;
	}
	return NT_STATUS_OK;
}

static NTSTATUS pull_deferred(TALLOC_CTX *mem_ctx, struct wire_cur *c,
			      struct pac_logon_info *li,
			      const struct kvi_fixed *f)
{
	char *names[6];
	int i;

	for (i = 0; i < 6; i++) {
		PULL(pull_str_body(li, c, &f->names[i], &names[i]));
	}
	li->account_name = names[0];
	li->full_name = names[1];
	/* LogonScript, ProfilePath, HomeDirectory, HomeDirectoryDrive:
	 * read and checked, not kept (the member uses winbindd's passwd
	 * entry, as Samba does) */
	for (i = 2; i < 6; i++) {
		TALLOC_FREE(names[i]);
	}
	if (f->groups_ptr != 0) {
		PULL(pull_groups(li, c, f->group_count, &li->groups));
		li->num_groups = f->group_count;
	}
	PULL(pull_str_body(li, c, &f->logon_server, &li->logon_server));
	PULL(pull_str_body(li, c, &f->logon_domain, &li->logon_domain));
	if (f->domain_sid_ptr != 0) {
		PULL(pull_sid(c, &li->domain_sid));
		li->has_domain_sid = true;
	}
	if (f->extra_ptr != 0) {
		PULL(pull_extra(li, c, f->sid_count, &li->extra,
				&li->num_extra));
	}
	if (f->resource_domain_ptr != 0) {
		PULL(pull_sid(c, &li->resource_domain));
		li->has_resource_domain = true;
	}
	if (f->resource_ptr != 0) {
		PULL(pull_groups(li, c, f->resource_count, &li->resource));
		li->num_resource = f->resource_count;
	}
	return NT_STATUS_OK;
}

NTSTATUS pac_parse_logon_info(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			      size_t len, struct pac_logon_info **out)
{
	struct pac_logon_info *li;
	struct kvi_fixed f;
	struct wire_cur c;
	uint32_t top;
	NTSTATUS st;

	*out = NULL;
	if (len > PAC_MAX_SIZE) {
		return BAD;
	}
	wire_cur_init(&c, buf, len);
	PULL(pull_serialization_headers(&c));
	PULL(wire_pull_le32(&c, &top));
	if (top == 0) {
		return BAD;
	}
	li = talloc_zero(mem_ctx, struct pac_logon_info);
	if (li == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	memset(&f, 0, sizeof(f));
	st = pull_fixed(&c, li, &f);
	if (NT_STATUS_IS_OK(st)) {
		st = pull_deferred(mem_ctx, &c, li, &f);
	}
	if (!NT_STATUS_IS_OK(st)) {
		talloc_free(li);
		return st == NT_STATUS_NO_MEMORY ? st : BAD;
	}
	*out = li;
	return NT_STATUS_OK;
}

NTSTATUS pac_parse(TALLOC_CTX *mem_ctx, const uint8_t *pac, size_t len,
		   struct pac_data **out)
{
	struct pac_data *d;
	struct wire_cur c;
	uint32_t count, version, i;
	uint64_t hdr_end;
	NTSTATUS st;

	*out = NULL;
	if (len > PAC_MAX_SIZE) {
		return BAD;
	}
	wire_cur_init(&c, pac, len);
	PULL(wire_pull_le32(&c, &count));
	PULL(wire_pull_le32(&c, &version));
	/* 2.3: Version MUST be 0 */
	if (version != 0 || count == 0 || count > PAC_MAX_BUFFERS) {
		return BAD;
	}
	hdr_end = 8 + (uint64_t)count * 16;
	if (hdr_end > len) {
		return BAD;
	}
	d = talloc_zero(mem_ctx, struct pac_data);
	if (d == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	d->buffers = talloc_array(d, struct pac_buffer, count);
	if (d->buffers == NULL) {
		talloc_free(d);
		return NT_STATUS_NO_MEMORY;
	}
	d->num_buffers = count;
	for (i = 0; i < count; i++) {
		struct pac_buffer *b = &d->buffers[i];
		uint64_t off;

		if (!NT_STATUS_IS_OK(wire_pull_le32(&c, &b->type)) ||
		    !NT_STATUS_IS_OK(wire_pull_le32(&c, &b->len)) ||
		    !NT_STATUS_IS_OK(wire_pull_le64(&c, &off)) ||
		    /* 2.4: Offset MUST be a multiple of 8, past the
		     * header, and the buffer inside the PAC */
		    (off % 8) != 0 || off < hdr_end ||
		    !wire_range_ok(off, b->len, len)) {
			talloc_free(d);
			return BAD;
		}
		b->data = pac + off;
		if (b->type != PAC_TYPE_LOGON_INFO) {
			continue;
		}
		if (d->logon_info != NULL) {
			talloc_free(d);
			return BAD;
		}
		st = pac_parse_logon_info(d, b->data, b->len, &d->logon_info);
		if (!NT_STATUS_IS_OK(st)) {
			talloc_free(d);
			return st;
		}
	}
	if (d->logon_info == NULL) {
		talloc_free(d);
		return BAD;
	}
	*out = d;
	return NT_STATUS_OK;
}

static bool add_sid(struct auth_sid *sids, size_t *n, size_t max,
		    const struct auth_sid *s)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (auth_sid_equal(&sids[i], s)) {
			return true;
		}
	}
	if (*n == max) {
		return false;
	}
	sids[(*n)++] = *s;
	return true;
}

NTSTATUS pac_token_sids(TALLOC_CTX *mem_ctx, const struct pac_logon_info *li,
			struct auth_sid **sids, size_t *num)
{
	size_t max = 2 + li->num_groups + li->num_extra + li->num_resource;
	struct auth_sid *out, s;
	size_t n = 0, i;

	if (!li->has_domain_sid) {
		return BAD;
	}
	out = talloc_array(mem_ctx, struct auth_sid, max);
	if (out == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* The user and primary group first, always (a duplicate primary
	 * group in GroupIds is not added twice). */
	if (!auth_sid_compose(&li->domain_sid, li->user_rid, &out[n++]) ||
	    !auth_sid_compose(&li->domain_sid, li->primary_group_rid,
			      &out[n++])) {
		goto bad;
	}
	for (i = 0; i < li->num_groups; i++) {
		if (!auth_sid_compose(&li->domain_sid, li->groups[i].rid, &s) ||
		    !add_sid(out, &n, max, &s)) {
			goto bad;
		}
	}
	for (i = 0; i < li->num_extra; i++) {
		if (!add_sid(out, &n, max, &li->extra[i].sid)) {
			goto bad;
		}
	}
	/* 2.5: ResourceGroupIds are RIDs of ResourceGroupDomainSid */
	if (li->num_resource > 0 && !li->has_resource_domain) {
		goto bad;
	}
	for (i = 0; i < li->num_resource; i++) {
		if (!auth_sid_compose(&li->resource_domain,
				      li->resource[i].rid, &s) ||
		    !add_sid(out, &n, max, &s)) {
			goto bad;
		}
	}
	*sids = out;
	*num = n;
	return NT_STATUS_OK;
bad:
	talloc_free(out);
	return BAD;
}
