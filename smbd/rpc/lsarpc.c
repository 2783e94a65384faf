/*
 * lsarpc (MS-LSAT, MS-LSAD): policy handles and SID <-> name translation,
 * what rpcclient's lookupsids/lookupnames and Windows' Security tab use.
 *
 * Served: LsarClose (0), LsarOpenPolicy (6), LsarQueryInformationPolicy
 * (7) and ...Policy2 (46) for PolicyPrimaryDomainInformation (3) and
 * PolicyAccountDomainInformation (5), LsarLookupNames (14),
 * LsarLookupSids (15), LsarOpenPolicy2 (44), LsarGetUserName (45),
 * LsarLookupSids2 (57), LsarLookupNames2 (58), LsarLookupNames3 (68),
 * LsarLookupSids3 (76).
 * The lookups themselves are in rpc_sid.c.
 *
 * Request decoding reads what the answer depends on and stops there (the
 * trailing [in] parameters such as LookupLevel change nothing for a
 * standalone server); every read is bounds checked by ndr_pull.
 */
#include "smbd/rpc/rpc_service.h"

#include <string.h>
#include <sys/random.h>

#include "conf/loadparm.h"
#include "lib/log.h"
#include "smbd/rpc/rpc_sid.h"

#ifndef STATUS_SOME_NOT_MAPPED
#define STATUS_SOME_NOT_MAPPED ((NTSTATUS)0x00000107)
#endif

#define LSA_MAX_HANDLES 64
#define LSA_MAX_LOOKUP 20480
#define LSA_HANDLE_LEN 20

enum lsa_variant { LSA_V1, LSA_V2, LSA_V3 };

struct lsa_state {
	uint8_t handles[LSA_MAX_HANDLES][LSA_HANDLE_LEN];
	bool used[LSA_MAX_HANDLES];
	uint32_t counter;
	bool have_sid;
	struct rpc_sid domain_sid;
};

static void *lsa_init(TALLOC_CTX *mem_ctx)
{
	return talloc_zero(mem_ctx, struct lsa_state);
}

static const struct rpc_sid *lsa_domain_sid(struct rpc_call *call)
{
	struct lsa_state *st = call->iface_state;

	if (!st->have_sid) {
		rpc_domain_sid(call->srv, &st->domain_sid);
		st->have_sid = true;
	}
	return &st->domain_sid;
}

/* policy_handle: a 20-byte context handle (MS-LSAD 2.2.2.1) */
static NTSTATUS lsa_pull_handle(struct ndr_pull *in, uint8_t h[20])
{
	NTSTATUS status = ndr_pull_align(in, 4);

	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_bytes(in, h, LSA_HANDLE_LEN);
	}
	return status;
}

static int lsa_find_handle(struct lsa_state *st, const uint8_t h[20])
{
	int i;

	for (i = 0; i < LSA_MAX_HANDLES; i++) {
		if (st->used[i] &&
		    memcmp(st->handles[i], h, LSA_HANDLE_LEN) == 0) {
			return i;
		}
	}
	return -1;
}

static NTSTATUS lsa_open_common(struct rpc_call *call, struct ndr_pull *in,
				struct ndr_push *out)
{
	struct lsa_state *st = call->iface_state;
	uint32_t len, root, name, attrs, sd, qos;
	NTSTATUS status;
	int i;

	/* LSAPR_OBJECT_ATTRIBUTES fixed part (MS-LSAD 2.2.9) */
	status = ndr_pull_u32(in, &len);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &root);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &name);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &attrs);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &sd);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &qos);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* 2.2.9: RootDirectory and ObjectName are ignored; skip the rest. */
	for (i = 0; i < LSA_MAX_HANDLES && st->used[i]; i++) {
	}
	ndr_push_align(out, 4);
	if (i < LSA_MAX_HANDLES) {
		memset(st->handles[i], 0, LSA_HANDLE_LEN);
		st->counter++;
		put_le32(st->handles[i] + 4, st->counter);
		st->used[i] = getrandom(st->handles[i] + 8, 12, 0) == 12;
	}
	if (i == LSA_MAX_HANDLES || !st->used[i]) {
		wire_push_zero(&out->b, LSA_HANDLE_LEN);
		ndr_push_u32(out, NT_STATUS_INSUFFICIENT_RESOURCES);
		return NT_STATUS_OK;
	}
	ndr_push_bytes(out, st->handles[i], LSA_HANDLE_LEN);
	ndr_push_u32(out, NT_STATUS_OK);
	return NT_STATUS_OK;
}

static NTSTATUS lsa_open_policy(struct rpc_call *call, struct ndr_pull *in,
				struct ndr_push *out)
{
	uint32_t ptr;
	uint16_t wc;
	NTSTATUS status;

	/* [in, unique] wchar_t *SystemName: one char (MS-LSAD 3.1.4.4.1) */
	status = ndr_pull_ptr(in, &ptr);
	if (NT_STATUS_IS_OK(status) && ptr != 0) {
		status = ndr_pull_u16(in, &wc);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return lsa_open_common(call, in, out);
}

static NTSTATUS lsa_open_policy2(struct rpc_call *call, struct ndr_pull *in,
				 struct ndr_push *out)
{
	char *server;
	NTSTATUS status;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return lsa_open_common(call, in, out);
}

static NTSTATUS lsa_close(struct rpc_call *call, struct ndr_pull *in,
			  struct ndr_push *out)
{
	struct lsa_state *st = call->iface_state;
	uint8_t h[LSA_HANDLE_LEN];
	NTSTATUS status = lsa_pull_handle(in, h);
	int i;

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	i = lsa_find_handle(st, h);
	if (i >= 0) {
		st->used[i] = false;
	}
	wire_push_zero(&out->b, LSA_HANDLE_LEN);
	ndr_push_u32(out, i >= 0 ? NT_STATUS_OK : NT_STATUS_INVALID_HANDLE);
	return NT_STATUS_OK;
}

/* LsarQueryInformationPolicy(2) (MS-LSAD 3.1.4.4.3/3.1.4.4.4) */
static NTSTATUS lsa_query_info(struct rpc_call *call, struct ndr_pull *in,
			       struct ndr_push *out)
{
	struct lsa_state *st = call->iface_state;
	const struct rpc_server_ctx *srv = call->srv;
	uint8_t h[LSA_HANDLE_LEN];
	const char *name;
	const struct rpc_sid *sid = NULL;
	uint16_t cls;
	NTSTATUS status;

	status = lsa_pull_handle(in, h);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u16(in, &cls);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (lsa_find_handle(st, h) < 0 || (cls != 3 && cls != 5)) {
		ndr_push_ptr(out, false);
		ndr_push_u32(out, lsa_find_handle(st, h) < 0
					  ? NT_STATUS_INVALID_HANDLE
					  : NT_STATUS_INVALID_PARAMETER);
		return NT_STATUS_OK;
	}
	if (cls == 5) {
		/* account domain: a standalone server's own name and SID */
		name = rpc_server_name(srv);
		sid = lsa_domain_sid(call);
	} else {
		/* primary domain: the workgroup, no SID when standalone */
		name = lp_str(srv->lp, LP_GLOBAL, LP_WORKGROUP);
		if (name == NULL) {
			name = "WORKGROUP";
		}
	}
	ndr_push_ptr(out, true);
	ndr_push_u16(out, cls);
	ndr_push_unicode_fixed(out, name);
	ndr_push_ptr(out, sid != NULL);
	ndr_push_unicode_buffer(out, name);
	if (sid != NULL) {
		ndr_push_sid(out, sid);
	}
	ndr_push_u32(out, NT_STATUS_OK);
	return NT_STATUS_OK;
}

/* The referenced domains of one lookup call. */
struct lsa_domains {
	uint32_t count;
	const char *names[64];
	struct rpc_sid sids[64];
};

static int32_t lsa_domain_index(struct lsa_domains *d,
				const struct rpc_name *n)
{
	uint32_t i;

	for (i = 0; i < d->count; i++) {
		if (rpc_sid_equal(&d->sids[i], &n->domain_sid)) {
			return (int32_t)i;
		}
	}
	if (d->count == 64) {
		return -1;
	}
	d->names[d->count] = n->domain;
	d->sids[d->count] = n->domain_sid;
	return (int32_t)d->count++;
}

/* [out] PLSAPR_REFERENCED_DOMAIN_LIST* (MS-LSAT 2.2.12) */
static void lsa_push_domains(struct ndr_push *out,
			     const struct lsa_domains *d)
{
	uint32_t i;

	ndr_push_ptr(out, true);
	ndr_push_u32(out, d->count);
	ndr_push_ptr(out, true);
	ndr_push_u32(out, 32);	/* MaxEntries, as Windows sends */
	ndr_push_u32(out, d->count);
	for (i = 0; i < d->count; i++) {
		ndr_push_unicode_fixed(out, d->names[i]);
		ndr_push_ptr(out, true);
	}
	for (i = 0; i < d->count; i++) {
		ndr_push_unicode_buffer(out, d->names[i]);
		ndr_push_sid(out, &d->sids[i]);
	}
}

static NTSTATUS lsa_mapped_status(uint32_t mapped, uint32_t count)
{
	if (count > 0 && mapped == 0) {
		return NT_STATUS_NONE_MAPPED;
	}
	return mapped < count ? STATUS_SOME_NOT_MAPPED : NT_STATUS_OK;
}

/* LSAPR_SID_ENUM_BUFFER (MS-LSAT 2.2.18) */
static NTSTATUS lsa_pull_sids(struct ndr_pull *in, TALLOC_CTX *mem_ctx,
			      struct rpc_sid **sids, bool **present,
			      uint32_t *count)
{
	uint32_t n, ptr, max, i;
	uint32_t *ptrs;
	NTSTATUS status;

	*count = 0;
	status = ndr_pull_u32(in, &n);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &ptr);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (ptr == 0) {
		return n == 0 ? NT_STATUS_OK : NT_STATUS_INVALID_PARAMETER;
	}
	status = ndr_pull_u32(in, &max);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (max != n || n > LSA_MAX_LOOKUP ||
	    !NT_STATUS_IS_OK(ndr_check_count(in, n, 4))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*sids = talloc_zero_array(mem_ctx, struct rpc_sid, n ? n : 1);
	*present = talloc_zero_array(mem_ctx, bool, n ? n : 1);
	ptrs = talloc_zero_array(mem_ctx, uint32_t, n ? n : 1);
	if (*sids == NULL || *present == NULL || ptrs == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n && NT_STATUS_IS_OK(status); i++) {
		status = ndr_pull_ptr(in, &ptrs[i]);
	}
	for (i = 0; i < n && NT_STATUS_IS_OK(status); i++) {
		if (ptrs[i] != 0) {
			status = ndr_pull_sid(in, &(*sids)[i]);
			(*present)[i] = true;
		}
	}
	*count = n;
	return status;
}

static NTSTATUS lsa_lookup_sids(struct rpc_call *call, struct ndr_pull *in,
				struct ndr_push *out, bool handle,
				enum lsa_variant v)
{
	struct lsa_state *st = call->iface_state;
	uint8_t h[LSA_HANDLE_LEN];
	struct rpc_sid *sids = NULL;
	bool *present = NULL;
	struct rpc_name *names;
	struct lsa_domains *doms;
	int32_t *idx;
	uint32_t n, i, mapped = 0;
	NTSTATUS status = NT_STATUS_OK;

	if (handle) {
		status = lsa_pull_handle(in, h);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = lsa_pull_sids(in, call->mem_ctx, &sids, &present, &n);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	doms = talloc_zero(call->mem_ctx, struct lsa_domains);
	names = talloc_zero_array(call->mem_ctx, struct rpc_name, n ? n : 1);
	idx = talloc_zero_array(call->mem_ctx, int32_t, n ? n : 1);
	if (doms == NULL || names == NULL || idx == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (handle && lsa_find_handle(st, h) < 0) {
		n = 0;
		status = NT_STATUS_INVALID_HANDLE;
	}
	for (i = 0; i < n; i++) {
		idx[i] = -1;
		names[i].type = RPC_SID_UNKNOWN;
		if (present[i] &&
		    rpc_lookup_sid(call->mem_ctx, call->srv,
				   lsa_domain_sid(call), &sids[i], &names[i])) {
			idx[i] = lsa_domain_index(doms, &names[i]);
			mapped++;
		} else if (present[i]) {
			names[i].name = rpc_sid_string(call->mem_ctx,
						       &sids[i]);
		}
	}
	lsa_push_domains(out, doms);
	/* LSAPR_TRANSLATED_NAMES(_EX) (MS-LSAT 2.2.19, 2.2.20) */
	ndr_push_u32(out, n);
	ndr_push_ptr(out, true);
	ndr_push_u32(out, n);
	for (i = 0; i < n; i++) {
		ndr_push_u16(out, (uint16_t)names[i].type);
		ndr_push_unicode_fixed(out, names[i].name);
		ndr_push_u32(out, (uint32_t)idx[i]);
		if (v != LSA_V1) {
			ndr_push_u32(out, 0); /* Flags */
		}
	}
	for (i = 0; i < n; i++) {
		ndr_push_unicode_buffer(out, names[i].name);
	}
	ndr_push_u32(out, mapped);
	if (NT_STATUS_IS_OK(status)) {
		status = lsa_mapped_status(mapped, n);
	}
	ndr_push_u32(out, status);
	return NT_STATUS_OK;
}

static NTSTATUS lsa_lookup_sids1(struct rpc_call *call, struct ndr_pull *in,
				 struct ndr_push *out)
{
	return lsa_lookup_sids(call, in, out, true, LSA_V1);
}

static NTSTATUS lsa_lookup_sids2(struct rpc_call *call, struct ndr_pull *in,
				 struct ndr_push *out)
{
	return lsa_lookup_sids(call, in, out, true, LSA_V2);
}

static NTSTATUS lsa_lookup_sids3(struct rpc_call *call, struct ndr_pull *in,
				 struct ndr_push *out)
{
	return lsa_lookup_sids(call, in, out, false, LSA_V2);
}

/* Count + [size_is(Count)] RPC_UNICODE_STRING Names[] */
static NTSTATUS lsa_pull_names(struct ndr_pull *in, TALLOC_CTX *mem_ctx,
			       char ***names, uint32_t *count)
{
	uint32_t n, max, i, *ptrs;
	uint16_t *len, *maxlen;
	NTSTATUS status;

	*count = 0;
	status = ndr_pull_u32(in, &n);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u32(in, &max);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (max != n || n > LSA_MAX_LOOKUP ||
	    !NT_STATUS_IS_OK(ndr_check_count(in, n, 8))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	*names = talloc_zero_array(mem_ctx, char *, n ? n : 1);
	ptrs = talloc_zero_array(mem_ctx, uint32_t, n ? n : 1);
	len = talloc_zero_array(mem_ctx, uint16_t, n ? n : 1);
	maxlen = talloc_zero_array(mem_ctx, uint16_t, n ? n : 1);
	if (*names == NULL || ptrs == NULL || len == NULL || maxlen == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n && NT_STATUS_IS_OK(status); i++) {
		status = ndr_pull_align(in, 4);
		if (NT_STATUS_IS_OK(status)) {
			status = ndr_pull_u16(in, &len[i]);
		}
		if (NT_STATUS_IS_OK(status)) {
			status = ndr_pull_u16(in, &maxlen[i]);
		}
		if (NT_STATUS_IS_OK(status)) {
			status = ndr_pull_ptr(in, &ptrs[i]);
		}
	}
	for (i = 0; i < n && NT_STATUS_IS_OK(status); i++) {
		if (ptrs[i] != 0) {
			status = ndr_pull_unicode_buffer(in, mem_ctx, len[i],
							 maxlen[i],
							 &(*names)[i]);
		} else {
			(*names)[i] = talloc_strdup(mem_ctx, "");
		}
	}
	*count = n;
	return status;
}

static NTSTATUS lsa_lookup_names(struct rpc_call *call, struct ndr_pull *in,
				 struct ndr_push *out, enum lsa_variant v)
{
	struct lsa_state *st = call->iface_state;
	uint8_t h[LSA_HANDLE_LEN];
	char **in_names = NULL;
	struct rpc_name *res;
	struct lsa_domains *doms;
	int32_t *idx;
	bool *ok;
	uint32_t n, i, mapped = 0;
	NTSTATUS status;

	status = lsa_pull_handle(in, h);
	if (NT_STATUS_IS_OK(status)) {
		status = lsa_pull_names(in, call->mem_ctx, &in_names, &n);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	doms = talloc_zero(call->mem_ctx, struct lsa_domains);
	res = talloc_zero_array(call->mem_ctx, struct rpc_name, n ? n : 1);
	idx = talloc_zero_array(call->mem_ctx, int32_t, n ? n : 1);
	ok = talloc_zero_array(call->mem_ctx, bool, n ? n : 1);
	if (doms == NULL || res == NULL || idx == NULL || ok == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (lsa_find_handle(st, h) < 0) {
		n = 0;
		status = NT_STATUS_INVALID_HANDLE;
	}
	for (i = 0; i < n; i++) {
		idx[i] = -1;
		res[i].type = RPC_SID_UNKNOWN;
		ok[i] = rpc_lookup_name(call->mem_ctx, call->srv,
					lsa_domain_sid(call), in_names[i],
					&res[i]);
		if (ok[i]) {
			idx[i] = lsa_domain_index(doms, &res[i]);
			mapped++;
		}
	}
	lsa_push_domains(out, doms);
	/* LSAPR_TRANSLATED_SIDS(_EX, _EX2) (MS-LSAT 2.2.15 - 2.2.17) */
	ndr_push_u32(out, n);
	ndr_push_ptr(out, true);
	ndr_push_u32(out, n);
	for (i = 0; i < n; i++) {
		struct rpc_sid d;
		uint32_t rid = 0;

		ndr_push_u16(out, (uint16_t)res[i].type);
		if (v == LSA_V3) {
			ndr_push_ptr(out, ok[i]);
		} else if (ok[i] && res[i].type != RPC_SID_DOMAIN) {
			(void)rpc_sid_split(&res[i].sid, &d, &rid);
			ndr_push_u32(out, rid);
		} else {
			ndr_push_u32(out, ok[i] ? 0xffffffff : 0);
		}
		ndr_push_u32(out, (uint32_t)idx[i]);
		if (v != LSA_V1) {
			ndr_push_u32(out, 0); /* Flags */
		}
	}
	for (i = 0; v == LSA_V3 && i < n; i++) {
		if (ok[i]) {
			ndr_push_sid(out, &res[i].sid);
		}
	}
	ndr_push_u32(out, mapped);
	if (NT_STATUS_IS_OK(status)) {
		status = lsa_mapped_status(mapped, n);
	}
	ndr_push_u32(out, status);
	return NT_STATUS_OK;
}

static NTSTATUS lsa_lookup_names1(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	return lsa_lookup_names(call, in, out, LSA_V1);
}

static NTSTATUS lsa_lookup_names2(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	return lsa_lookup_names(call, in, out, LSA_V2);
}

static NTSTATUS lsa_lookup_names3(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	return lsa_lookup_names(call, in, out, LSA_V3);
}

/* An [in] PRPC_UNICODE_STRING's pointee (its pointer already read). */
static NTSTATUS lsa_pull_unicode(struct ndr_pull *in, TALLOC_CTX *mem_ctx)
{
	uint16_t len, max;
	uint32_t ptr;
	char *s;
	NTSTATUS status = ndr_pull_align(in, 4);

	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u16(in, &len);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u16(in, &max);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &ptr);
	}
	if (NT_STATUS_IS_OK(status) && ptr != 0) {
		status = ndr_pull_unicode_buffer(in, mem_ctx, len, max, &s);
	}
	return status;
}

/* LsarGetUserName (MS-LSAT 3.1.4.4): who the caller is. */
static NTSTATUS lsa_get_user_name(struct rpc_call *call, struct ndr_pull *in,
				  struct ndr_push *out)
{
	const struct rpc_server_ctx *srv = call->srv;
	const char *user = srv->account_name, *domain = rpc_server_name(srv);
	uint32_t uptr, dptr = 0, dinner = 0;
	char *server;
	NTSTATUS status;

	status = ndr_pull_unique_wstring(in, call->mem_ctx, &server);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &uptr);
	}
	if (NT_STATUS_IS_OK(status) && uptr != 0) {
		status = lsa_pull_unicode(in, call->mem_ctx);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_ptr(in, &dptr);
	}
	if (NT_STATUS_IS_OK(status) && dptr != 0) {
		status = ndr_pull_ptr(in, &dinner);
	}
	if (NT_STATUS_IS_OK(status) && dinner != 0) {
		status = lsa_pull_unicode(in, call->mem_ctx);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (user == NULL || user[0] == '\0') {
		user = "ANONYMOUS LOGON";
		domain = "NT Authority";
	}
	ndr_push_ptr(out, true);
	ndr_push_unicode_fixed(out, user);
	ndr_push_unicode_buffer(out, user);
	ndr_push_ptr(out, dptr != 0);
	if (dptr != 0) {
		ndr_push_ptr(out, true);
		ndr_push_unicode_fixed(out, domain);
		ndr_push_unicode_buffer(out, domain);
	}
	ndr_push_u32(out, NT_STATUS_OK);
	return NT_STATUS_OK;
}

static const rpc_op_fn lsa_ops[77] = {
	[0] = lsa_close,
	[6] = lsa_open_policy,
	[7] = lsa_query_info,
	[14] = lsa_lookup_names1,
	[15] = lsa_lookup_sids1,
	[44] = lsa_open_policy2,
	[45] = lsa_get_user_name,
	[46] = lsa_query_info,
	[57] = lsa_lookup_sids2,
	[58] = lsa_lookup_names2,
	[68] = lsa_lookup_names3,
	[76] = lsa_lookup_sids3,
};

const struct rpc_iface rpc_lsarpc_iface = {
	.pipe_name = "lsarpc",
	.sec_addr = "\\PIPE\\lsass",
	.syntax = { { 0x12345778, 0x1234, 0xabcd,
		      { 0xef, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab } },
		    0, 0 },
	.ops = lsa_ops,
	.num_ops = 77,
	.init = lsa_init,
};
