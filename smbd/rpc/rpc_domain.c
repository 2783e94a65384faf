/*
 * The domain accounts lsarpc asks winbindd for on a member (see
 * rpc_domain.h for the two passes).
 */
#include "smbd/rpc/rpc_domain.h"

#include <string.h>
#include <strings.h>

#include "smbd/auth/winbind.h"

/* One account asked for, and winbindd's answer. */
struct rpc_dentry {
	bool by_sid;
	char *key;		/* the name as asked, when !by_sid */
	struct rpc_sid key_sid;	/* the SID asked, when by_sid */
	bool found;
	char *domain, *name;
	struct rpc_sid sid;
	enum rpc_sid_type type;
};

struct rpc_dcache {
	struct rpc_dentry *known, *wanted;
	size_t nknown, nwanted;
	bool second_pass;
};

struct rpc_dbatch {
	struct rpc_dentry *e;
	size_t n;
};

struct rpc_dcache *rpc_dcache_new(TALLOC_CTX *mem_ctx)
{
	return talloc_zero(mem_ctx, struct rpc_dcache);
}

static bool dentry_matches(const struct rpc_dentry *e, bool by_sid,
			   const char *key, const struct rpc_sid *sid)
{
	if (e->by_sid != by_sid) {
		return false;
	}
	return by_sid ? rpc_sid_equal(&e->key_sid, sid)
		      : strcasecmp(e->key, key) == 0;
}

static const struct rpc_dentry *dentry_find(const struct rpc_dentry *v,
					    size_t n, bool by_sid,
					    const char *key,
					    const struct rpc_sid *sid)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (dentry_matches(&v[i], by_sid, key, sid)) {
			return &v[i];
		}
	}
	return NULL;
}

/* A miss: wanted, once, unless this is the second pass or the batch is
 * full (then the account is simply unmapped). */
static void dcache_want(struct rpc_dcache *c, bool by_sid, const char *key,
			const struct rpc_sid *sid)
{
	struct rpc_dentry *v, *e;

	if (c->second_pass || c->nwanted >= RPC_DCACHE_MAX ||
	    dentry_find(c->wanted, c->nwanted, by_sid, key, sid) != NULL) {
		return;
	}
	v = talloc_realloc(c, c->wanted, struct rpc_dentry, c->nwanted + 1);
	if (v == NULL) {
		return;
	}
	c->wanted = v;
	e = &v[c->nwanted];
	memset(e, 0, sizeof(*e));
	e->by_sid = by_sid;
	if (by_sid) {
		e->key_sid = *sid;
	} else {
		e->key = talloc_strdup(v, key);
		if (e->key == NULL) {
			return;
		}
	}
	c->nwanted++;
}

static bool dcache_get(struct rpc_dcache *c, TALLOC_CTX *mem_ctx,
		       bool by_sid, const char *key,
		       const struct rpc_sid *sid, struct rpc_name *out)
{
	const struct rpc_dentry *e =
		dentry_find(c->known, c->nknown, by_sid, key, sid);
	uint32_t rid;

	if (e == NULL) {
		dcache_want(c, by_sid, key, sid);
		return false;
	}
	if (!e->found) {
		return false;
	}
	out->domain = talloc_strdup(mem_ctx, e->domain);
	out->name = talloc_strdup(mem_ctx, e->name);
	out->sid = e->sid;
	out->type = e->type;
	out->domain_sid = e->sid;
	if (e->type != RPC_SID_DOMAIN) {
		(void)rpc_sid_split(&e->sid, &out->domain_sid, &rid);
	}
	return out->domain != NULL && out->name != NULL;
}

bool rpc_dcache_name(struct rpc_dcache *c, TALLOC_CTX *mem_ctx,
		     const char *full, struct rpc_name *out)
{
	return dcache_get(c, mem_ctx, false, full, NULL, out);
}

bool rpc_dcache_sid(struct rpc_dcache *c, TALLOC_CTX *mem_ctx,
		    const struct rpc_sid *sid, struct rpc_name *out)
{
	return dcache_get(c, mem_ctx, true, NULL, sid, out);
}

bool rpc_dcache_wanting(const struct rpc_dcache *c)
{
	return c->nwanted > 0;
}

struct rpc_dbatch *rpc_dcache_batch(const struct rpc_dcache *c,
				    TALLOC_CTX *mem_ctx)
{
	struct rpc_dbatch *b = talloc_zero(mem_ctx, struct rpc_dbatch);
	size_t i;

	if (b == NULL) {
		return NULL;
	}
	b->e = talloc_zero_array(b, struct rpc_dentry,
				 c->nwanted ? c->nwanted : 1);
	if (b->e == NULL) {
		talloc_free(b);
		return NULL;
	}
	for (i = 0; i < c->nwanted; i++) {
		b->e[i].by_sid = c->wanted[i].by_sid;
		b->e[i].key_sid = c->wanted[i].key_sid;
		if (!c->wanted[i].by_sid) {
			b->e[i].key = talloc_strdup(b->e, c->wanted[i].key);
			if (b->e[i].key == NULL) {
				talloc_free(b);
				return NULL;
			}
		}
	}
	b->n = c->nwanted;
	return b;
}

static void sid_to_auth(const struct rpc_sid *r, struct auth_sid *a)
{
	memset(a, 0, sizeof(*a));
	a->revision = r->rev;
	a->num_auths = r->num_auths;
	memcpy(a->id_auth, r->id_auth, 6);
	memcpy(a->sub_auths, r->sub, sizeof(uint32_t) * r->num_auths);
}

static void sid_from_auth(const struct auth_sid *a, struct rpc_sid *r)
{
	memset(r, 0, sizeof(*r));
	r->rev = a->revision;
	r->num_auths = a->num_auths;
	memcpy(r->id_auth, a->id_auth, 6);
	memcpy(r->sub, a->sub_auths, sizeof(uint32_t) * a->num_auths);
}

/* An unqualified name goes to winbindd with domain "": winbindd then
 * looks in the member's own domain, as Samba's lsarpc does. */
static void resolve_one(TALLOC_CTX *mem_ctx, struct rpc_dentry *e)
{
	struct auth_sid a;
	int type = RPC_SID_UNKNOWN;
	NTSTATUS status;

	if (e->by_sid) {
		sid_to_auth(&e->key_sid, &a);
		status = winbind_lookup_sid(mem_ctx, &a, &e->domain, &e->name,
					    &type);
		e->sid = e->key_sid;
	} else {
		const char *sep = strchr(e->key, '\\');
		char *dom = sep != NULL ? talloc_strndup(mem_ctx, e->key,
							 (size_t)(sep - e->key))
					: talloc_strdup(mem_ctx, "");

		if (dom == NULL) {
			return;
		}
		status = winbind_lookup_name(mem_ctx, dom,
					     sep != NULL ? sep + 1 : e->key,
					     &a, &e->domain, &e->name, &type);
		if (NT_STATUS_IS_OK(status)) {
			sid_from_auth(&a, &e->sid);
		}
	}
	e->found = NT_STATUS_IS_OK(status) && type >= RPC_SID_USER &&
		   type <= RPC_SID_WKN_GROUP;
	e->type = (enum rpc_sid_type)type;
}

void rpc_dcache_resolve(struct rpc_dbatch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		resolve_one(b->e, &b->e[i]);
	}
}

/* One answer into the cache, its strings copied onto the cache. */
static void dcache_add(struct rpc_dcache *c, const struct rpc_dentry *src)
{
	struct rpc_dentry *v, *e;

	v = talloc_realloc(c, c->known, struct rpc_dentry, c->nknown + 1);
	if (v == NULL) {
		return;
	}
	c->known = v;
	e = &v[c->nknown];
	*e = *src;
	e->key = src->key != NULL ? talloc_strdup(v, src->key) : NULL;
	e->domain = src->domain != NULL ? talloc_strdup(v, src->domain) : NULL;
	e->name = src->name != NULL ? talloc_strdup(v, src->name) : NULL;
	if ((src->key != NULL && e->key == NULL) ||
	    (src->found && (e->domain == NULL || e->name == NULL))) {
		e->found = false;
		if (e->key == NULL && !e->by_sid) {
			return;
		}
	}
	c->nknown++;
}

void rpc_dcache_fill(struct rpc_dcache *c, const struct rpc_dbatch *b)
{
	size_t i;

	/* a batch holds at most RPC_DCACHE_MAX: all of it fits after this */
	if (b != NULL && c->nknown + b->n > RPC_DCACHE_MAX) {
		TALLOC_FREE(c->known);
		c->nknown = 0;
	}
	for (i = 0; b != NULL && i < b->n; i++) {
		dcache_add(c, &b->e[i]);
	}
	TALLOC_FREE(c->wanted);
	c->nwanted = 0;
	c->second_pass = true;
}

void rpc_dcache_pass_done(struct rpc_dcache *c)
{
	c->second_pass = false;
}
