/*
 * SIDs and account lookups for lsarpc (see rpc_sid.h).
 *
 * The domain SID is read from Samba's secrets.tdb so that SIDs we hand
 * out (and those in existing ACLs written by Samba) agree.  Without it we
 * make S-1-5-21-<3 random numbers> once and keep it in
 * <state dir>/smbd-ng-domain-sid; a link(2) of a temporary file makes the
 * first writer win when several workers race.
 */
#include "smbd/rpc/rpc_sid.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <tdb.h>
#include <time.h>
#include <unistd.h>

#include "conf/loadparm.h"
#include "lib/file.h"
#include "lib/log.h"
#include "lib/charset.h"
#include "lib/num.h"
#include "smbd/auth/passdb.h"
#include "smbd/rpc/rpc_domain.h"
#include "smbd/rpc/rpc_service.h"

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_RPC_SRV

bool rpc_sid_parse(const char *s, struct rpc_sid *out)
{
	unsigned long long v;
	char *end;
	bool fit;

	memset(out, 0, sizeof(*out));
	if (strncasecmp(s, "S-1-", 4) != 0) {
		return false;
	}
	out->rev = 1;
	s += 4;
	if (*s < '0' || *s > '9') {
		return false;
	}
	fit = num_strtoull(s, &end, 10, &v);
	if (end == s || !fit || v > 0xffffffffffffULL) {
		return false;
	}
	for (int i = 0; i < 6; i++) {
		out->id_auth[i] = (uint8_t)(v >> (8 * (5 - i)));
	}
	s = end;
	while (*s == '-') {
		s++;
		if (*s < '0' || *s > '9' ||
		    out->num_auths >= RPC_SID_MAX_SUBAUTH) {
			return false;
		}
		if (!num_strtoull(s, &end, 10, &v) || v > 0xffffffffULL) {
			return false;
		}
		out->sub[out->num_auths++] = (uint32_t)v;
		s = end;
	}
	return *s == '\0';
}

char *rpc_sid_string(TALLOC_CTX *mem_ctx, const struct rpc_sid *sid)
{
	unsigned long long auth = 0;
	char *r;
	int i;

	for (i = 0; i < 6; i++) {
		auth = (auth << 8) | sid->id_auth[i];
	}
	r = talloc_asprintf(mem_ctx, "S-%u-%llu", sid->rev, auth);
	for (i = 0; r != NULL && i < sid->num_auths; i++) {
		r = talloc_asprintf_append(r, "-%u", sid->sub[i]);
	}
	return r;
}

bool rpc_sid_equal(const struct rpc_sid *a, const struct rpc_sid *b)
{
	return a->rev == b->rev && a->num_auths == b->num_auths &&
	       memcmp(a->id_auth, b->id_auth, 6) == 0 &&
	       memcmp(a->sub, b->sub, a->num_auths * sizeof(a->sub[0])) == 0;
}

bool rpc_sid_split(const struct rpc_sid *sid, struct rpc_sid *domain,
		   uint32_t *rid)
{
	if (sid->num_auths == 0) {
		return false;
	}
	*domain = *sid;
	domain->num_auths--;
	*rid = sid->sub[domain->num_auths];
	domain->sub[domain->num_auths] = 0;
	return true;
}

bool rpc_sid_append(struct rpc_sid *sid, uint32_t rid)
{
	if (sid->num_auths >= RPC_SID_MAX_SUBAUTH) {
		return false;
	}
	sid->sub[sid->num_auths++] = rid;
	return true;
}

NTSTATUS ndr_pull_sid(struct ndr_pull *n, struct rpc_sid *sid)
{
	uint32_t count;
	NTSTATUS status;
	int i;

	memset(sid, 0, sizeof(*sid));
	status = ndr_pull_u32(n, &count);
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u8(n, &sid->rev);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_u8(n, &sid->num_auths);
	}
	if (NT_STATUS_IS_OK(status)) {
		status = ndr_pull_bytes(n, sid->id_auth, 6);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-DTYP 2.4.2.3: size_is(SubAuthorityCount), at most 15 */
	if (count != sid->num_auths || count > RPC_SID_MAX_SUBAUTH) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	for (i = 0; i < sid->num_auths && NT_STATUS_IS_OK(status); i++) {
		status = ndr_pull_u32(n, &sid->sub[i]);
	}
	return status;
}

void ndr_push_sid(struct ndr_push *n, const struct rpc_sid *sid)
{
	int i;

	ndr_push_u32(n, sid->num_auths);
	ndr_push_u8(n, sid->rev);
	ndr_push_u8(n, sid->num_auths);
	ndr_push_bytes(n, sid->id_auth, 6);
	for (i = 0; i < sid->num_auths; i++) {
		ndr_push_u32(n, sid->sub[i]);
	}
}

bool rpc_sid_from_secrets(const uint8_t *data, size_t len,
			  struct rpc_sid *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	if (len < 8 || data[0] != 1 || data[1] > RPC_SID_MAX_SUBAUTH ||
	    len < 8 + 4 * (size_t)data[1]) {
		return false;
	}
	out->rev = data[0];
	out->num_auths = data[1];
	memcpy(out->id_auth, data + 2, 6);
	for (i = 0; i < out->num_auths; i++) {
		out->sub[i] = le32(data + 8 + 4 * i);
	}
	return true;
}

static bool rpc_secrets_sid(const struct rpc_server_ctx *srv,
			    struct rpc_sid *out)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	const char *nb = rpc_server_name(srv);
	char *path, *key, *up;
	struct tdb_context *tdb;
	TDB_DATA k, v;
	bool ok = false;

	if (tmp == NULL || srv->private_dir == NULL) {
		talloc_free(tmp);
		return false;
	}
	path = talloc_asprintf(tmp, "%s/secrets.tdb", srv->private_dir);
	up = charset_strupper(tmp, nb);
	key = talloc_asprintf(tmp, "SECRETS/SID/%s", up ? up : nb);
	if (path == NULL || key == NULL || access(path, R_OK) != 0) {
		talloc_free(tmp);
		return false;
	}
	tdb = tdb_open(path, 0, TDB_DEFAULT, O_RDONLY, 0);
	if (tdb == NULL) {
		talloc_free(tmp);
		return false;
	}
	k.dptr = (unsigned char *)key;
	k.dsize = strlen(key);
	v = tdb_fetch(tdb, k);
	if (v.dptr == NULL) {
		k.dsize++; /* some writers include the NUL */
		v = tdb_fetch(tdb, k);
	}
	if (v.dptr != NULL) {
		ok = rpc_sid_from_secrets(v.dptr, v.dsize, out);
		free(v.dptr);
	}
	tdb_close(tdb);
	talloc_free(tmp);
	return ok;
}

static bool rpc_read_sid_file(const char *path, struct rpc_sid *out)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1) {
		return false;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return rpc_sid_parse(buf, out);
}

static void rpc_new_sid(struct rpc_sid *out)
{
	uint32_t r[3] = { 0, 0, 0 };

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		r[0] = (uint32_t)getpid();
		r[1] = (uint32_t)time(NULL);
		r[2] = 0x5eed;
	}
	memset(out, 0, sizeof(*out));
	out->rev = 1;
	out->id_auth[5] = 5;
	out->num_auths = 4;
	out->sub[0] = 21;
	out->sub[1] = r[0];
	out->sub[2] = r[1];
	out->sub[3] = r[2];
}

void rpc_domain_sid(const struct rpc_server_ctx *srv, struct rpc_sid *out)
{
	TALLOC_CTX *tmp;
	char *path, *tpath, *s;
	int fd;

	if (rpc_secrets_sid(srv, out)) {
		return;
	}
	rpc_new_sid(out);
	if (srv->state_dir == NULL || (tmp = talloc_new(NULL)) == NULL) {
		return;
	}
	path = talloc_asprintf(tmp, "%s/smbd-ng-domain-sid", srv->state_dir);
	tpath = talloc_asprintf(tmp, "%s.%d", path ? path : "", getpid());
	s = talloc_asprintf(tmp, "%s\n", rpc_sid_string(tmp, out));
	if (path == NULL || tpath == NULL || s == NULL ||
	    rpc_read_sid_file(path, out)) {
		talloc_free(tmp);
		return;
	}
	fd = open(tpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd != -1) {
		bool ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
		int ret;

		close(fd);
		if (ok && (ret = file_link(tpath, path)) != 0 &&
		    ret != -EEXIST) {
			DBG_WARNING("cannot keep the domain SID in %s: %s\n",
				    path, strerror(-ret));
		}
		unlink(tpath);
	}
	/* whoever linked first wins */
	(void)rpc_read_sid_file(path, out);
	talloc_free(tmp);
}

struct rpc_wkn {
	const char *sid, *domain, *name;
	enum rpc_sid_type type;
};

/* Names as Samba spells them ("NT Authority", where Windows says
 * "NT AUTHORITY"), so a switch from Samba changes no output. */
static const struct rpc_wkn rpc_wkn_table[] = {
	{ "S-1-1-0", "", "Everyone", RPC_SID_WKN_GROUP },
	{ "S-1-3-0", "", "Creator Owner", RPC_SID_WKN_GROUP },
	{ "S-1-3-1", "", "Creator Group", RPC_SID_WKN_GROUP },
	{ "S-1-5-1", "NT Authority", "Dialup", RPC_SID_WKN_GROUP },
	{ "S-1-5-2", "NT Authority", "Network", RPC_SID_WKN_GROUP },
	{ "S-1-5-3", "NT Authority", "Batch", RPC_SID_WKN_GROUP },
	{ "S-1-5-4", "NT Authority", "Interactive", RPC_SID_WKN_GROUP },
	{ "S-1-5-6", "NT Authority", "Service", RPC_SID_WKN_GROUP },
	{ "S-1-5-7", "NT Authority", "Anonymous Logon", RPC_SID_WKN_GROUP },
	{ "S-1-5-10", "NT Authority", "Self", RPC_SID_WKN_GROUP },
	{ "S-1-5-11", "NT Authority", "Authenticated Users",
	  RPC_SID_WKN_GROUP },
	{ "S-1-5-18", "NT Authority", "SYSTEM", RPC_SID_WKN_GROUP },
	{ "S-1-5-19", "NT Authority", "Local Service", RPC_SID_WKN_GROUP },
	{ "S-1-5-20", "NT Authority", "Network Service", RPC_SID_WKN_GROUP },
	{ "S-1-5-32", "BUILTIN", "BUILTIN", RPC_SID_DOMAIN },
	{ "S-1-5-32-544", "BUILTIN", "Administrators", RPC_SID_ALIAS },
	{ "S-1-5-32-545", "BUILTIN", "Users", RPC_SID_ALIAS },
	{ "S-1-5-32-546", "BUILTIN", "Guests", RPC_SID_ALIAS },
	{ "S-1-5-32-547", "BUILTIN", "Power Users", RPC_SID_ALIAS },
	{ "S-1-5-32-548", "BUILTIN", "Account Operators", RPC_SID_ALIAS },
	{ "S-1-5-32-549", "BUILTIN", "Server Operators", RPC_SID_ALIAS },
	{ "S-1-5-32-550", "BUILTIN", "Print Operators", RPC_SID_ALIAS },
	{ "S-1-5-32-551", "BUILTIN", "Backup Operators", RPC_SID_ALIAS },
};

#define RPC_NWKN (sizeof(rpc_wkn_table) / sizeof(rpc_wkn_table[0]))

static void rpc_fill(struct rpc_name *out, const char *domain,
		     const char *name, const struct rpc_sid *sid,
		     enum rpc_sid_type type)
{
	uint32_t rid;

	out->domain = domain;
	out->name = name;
	out->sid = *sid;
	out->type = type;
	if (type == RPC_SID_DOMAIN) {
		out->domain_sid = *sid;
	} else if (!rpc_sid_split(sid, &out->domain_sid, &rid)) {
		out->domain_sid = *sid;
	}
}

static bool rpc_wkn_by_sid(const struct rpc_sid *sid, struct rpc_name *out)
{
	struct rpc_sid w;
	size_t i;

	for (i = 0; i < RPC_NWKN; i++) {
		if (rpc_sid_parse(rpc_wkn_table[i].sid, &w) &&
		    rpc_sid_equal(&w, sid)) {
			rpc_fill(out, rpc_wkn_table[i].domain,
				 rpc_wkn_table[i].name, sid,
				 rpc_wkn_table[i].type);
			return true;
		}
	}
	return false;
}

static struct passdb *rpc_passdb(TALLOC_CTX *mem_ctx,
				 const struct rpc_server_ctx *srv)
{
	struct passdb *pdb = NULL;
	char *path;

	if (srv->passdb != NULL) {
		return srv->passdb;
	}
	if (srv->private_dir == NULL) {
		return NULL;
	}
	path = passdb_path(mem_ctx, srv->private_dir);
	if (path == NULL ||
	    !NT_STATUS_IS_OK(passdb_open(mem_ctx, path, false, &pdb))) {
		return NULL;
	}
	return pdb;
}

/* A passdb user by RID; the name on mem_ctx. */
static const char *rpc_passdb_by_rid(TALLOC_CTX *mem_ctx,
				     const struct rpc_server_ctx *srv,
				     uint32_t rid)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct passdb *pdb = rpc_passdb(tmp, srv);
	const char *found = NULL;
	char **names;
	size_t n, i;

	if (pdb == NULL ||
	    !NT_STATUS_IS_OK(passdb_list(pdb, tmp, &names, &n))) {
		talloc_free(tmp);
		return NULL;
	}
	for (i = 0; i < n && found == NULL; i++) {
		struct passdb_user *u;

		if (NT_STATUS_IS_OK(passdb_get(pdb, tmp, names[i], &u)) &&
		    u->user_rid == rid) {
			found = talloc_strdup(mem_ctx, u->username);
		}
	}
	talloc_free(tmp);
	return found;
}

/* A passdb user's stored name and RID. */
static bool rpc_passdb_by_name(TALLOC_CTX *mem_ctx,
			       const struct rpc_server_ctx *srv,
			       const char *name, const char **stored,
			       uint32_t *rid)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct passdb *pdb = rpc_passdb(tmp, srv);
	struct passdb_user *u;
	bool ok = false;

	if (pdb != NULL && NT_STATUS_IS_OK(passdb_get(pdb, tmp, name, &u))) {
		*stored = talloc_strdup(mem_ctx, u->username);
		*rid = u->user_rid;
		ok = *stored != NULL;
	}
	talloc_free(tmp);
	return ok;
}

static bool rpc_unix_by_id(TALLOC_CTX *mem_ctx, bool group, uint32_t id,
			   const char **name)
{
	char buf[4096];

	if (group) {
		struct group gr, *g = NULL;

		if (getgrgid_r((gid_t)id, &gr, buf, sizeof(buf), &g) != 0 ||
		    g == NULL) {
			return false;
		}
		*name = talloc_strdup(mem_ctx, g->gr_name);
	} else {
		struct passwd pw, *p = NULL;

		if (getpwuid_r((uid_t)id, &pw, buf, sizeof(buf), &p) != 0 ||
		    p == NULL) {
			return false;
		}
		*name = talloc_strdup(mem_ctx, p->pw_name);
	}
	return *name != NULL;
}

static bool rpc_unix_by_name(bool group, const char *name, uint32_t *id)
{
	char buf[4096];

	if (group) {
		struct group gr, *g = NULL;

		if (getgrnam_r(name, &gr, buf, sizeof(buf), &g) != 0 ||
		    g == NULL) {
			return false;
		}
		*id = (uint32_t)g->gr_gid;
	} else {
		struct passwd pw, *p = NULL;

		if (getpwnam_r(name, &pw, buf, sizeof(buf), &p) != 0 ||
		    p == NULL) {
			return false;
		}
		*id = (uint32_t)p->pw_uid;
	}
	return true;
}

bool rpc_lookup_sid(TALLOC_CTX *mem_ctx, const struct rpc_server_ctx *srv,
		    const struct rpc_sid *domain_sid,
		    const struct rpc_sid *sid, struct rpc_name *out)
{
	const char *dom = rpc_server_name(srv), *name;
	struct rpc_sid d, unix_dom;
	uint32_t rid;

	if (rpc_wkn_by_sid(sid, out)) {
		return true;
	}
	if (rpc_sid_equal(sid, domain_sid)) {
		rpc_fill(out, dom, dom, sid, RPC_SID_DOMAIN);
		return true;
	}
	if (!rpc_sid_split(sid, &d, &rid)) {
		return false;
	}
	if (rpc_sid_equal(&d, domain_sid)) {
		if (rid == PASSDB_DOMAIN_USERS_RID) {
			rpc_fill(out, dom, "None", sid, RPC_SID_GROUP);
			return true;
		}
		name = rpc_passdb_by_rid(mem_ctx, srv, rid);
		if (name == NULL) {
			return false;
		}
		rpc_fill(out, dom, name, sid, RPC_SID_USER);
		return true;
	}
	/* S-1-22-1-<uid> / S-1-22-2-<gid> */
	if (!rpc_sid_parse("S-1-22-1", &unix_dom)) {
		return false;
	}
	if (rpc_sid_equal(&d, &unix_dom) &&
	    rpc_unix_by_id(mem_ctx, false, rid, &name)) {
		rpc_fill(out, "Unix User", name, sid, RPC_SID_USER);
		return true;
	}
	unix_dom.sub[0] = 2; /* S-1-22-2 */
	if (rpc_sid_equal(&d, &unix_dom) &&
	    rpc_unix_by_id(mem_ctx, true, rid, &name)) {
		rpc_fill(out, "Unix Group", name, sid, RPC_SID_GROUP);
		return true;
	}
	/* a member: the domain's accounts are winbindd's (rpc_domain.h) */
	return srv->dcache != NULL &&
	       rpc_dcache_sid(srv->dcache, mem_ctx, sid, out);
}

static bool rpc_wkn_by_name(const char *domain, const char *name,
			    struct rpc_name *out)
{
	struct rpc_sid w;
	size_t i;

	for (i = 0; i < RPC_NWKN; i++) {
		const struct rpc_wkn *k = &rpc_wkn_table[i];

		if (domain != NULL && strcasecmp(domain, k->domain) != 0) {
			continue;
		}
		if (strcasecmp(name, k->name) == 0 &&
		    rpc_sid_parse(k->sid, &w)) {
			rpc_fill(out, k->domain, k->name, &w, k->type);
			return true;
		}
	}
	return false;
}

static bool rpc_lookup_unix(TALLOC_CTX *mem_ctx, const char *domain,
			    const char *name, struct rpc_name *out)
{
	struct rpc_sid s;
	uint32_t id;

	if ((domain == NULL || strcasecmp(domain, "Unix User") == 0) &&
	    rpc_unix_by_name(false, name, &id) &&
	    rpc_sid_parse("S-1-22-1", &s)) {
		rpc_sid_append(&s, id);
		rpc_fill(out, "Unix User", talloc_strdup(mem_ctx, name), &s,
			 RPC_SID_USER);
		return true;
	}
	if ((domain == NULL || strcasecmp(domain, "Unix Group") == 0) &&
	    rpc_unix_by_name(true, name, &id) &&
	    rpc_sid_parse("S-1-22-2", &s)) {
		rpc_sid_append(&s, id);
		rpc_fill(out, "Unix Group", talloc_strdup(mem_ctx, name), &s,
			 RPC_SID_GROUP);
		return true;
	}
	return false;
}

bool rpc_lookup_name(TALLOC_CTX *mem_ctx, const struct rpc_server_ctx *srv,
		     const struct rpc_sid *domain_sid, const char *full,
		     struct rpc_name *out)
{
	const char *dom = rpc_server_name(srv), *name = full, *stored;
	const char *sep = strchr(full, '\\');
	char *domain = NULL;
	struct rpc_sid s;
	uint32_t rid;

	if (sep != NULL) {
		domain = talloc_strndup(mem_ctx, full, (size_t)(sep - full));
		name = sep + 1;
		if (domain == NULL) {
			return false;
		}
	}
	if (name[0] == '\0') {
		/* "DOMAIN\" names the domain itself */
		name = domain != NULL ? domain : "";
		domain = NULL;
	}
	if (rpc_wkn_by_name(domain, name, out)) {
		return true;
	}
	if (domain == NULL && strcasecmp(name, dom) == 0) {
		rpc_fill(out, dom, dom, domain_sid, RPC_SID_DOMAIN);
		return true;
	}
	if ((domain == NULL || strcasecmp(domain, dom) == 0) &&
	    rpc_passdb_by_name(mem_ctx, srv, name, &stored, &rid)) {
		s = *domain_sid;
		if (rpc_sid_append(&s, rid)) {
			rpc_fill(out, dom, stored, &s, RPC_SID_USER);
			return true;
		}
	}
	if ((domain == NULL || strcasecmp(domain, dom) == 0) &&
	    strcasecmp(name, "None") == 0) {
		s = *domain_sid;
		rpc_sid_append(&s, PASSDB_DOMAIN_USERS_RID);
		rpc_fill(out, dom, "None", &s, RPC_SID_GROUP);
		return true;
	}
	/*
	 * A member asks the domain (winbindd) before the Unix accounts, as
	 * Samba's lsarpc: SMBNG\staff, or an unqualified name of the
	 * member's domain.  While the call waits for winbindd's answers
	 * (its first pass, which is not sent) nothing else is looked up.
	 */
	if (srv->dcache != NULL &&
	    (domain == NULL || strncasecmp(domain, "Unix ", 5) != 0)) {
		if (rpc_dcache_name(srv->dcache, mem_ctx, full, out)) {
			return true;
		}
		if (rpc_dcache_wanting(srv->dcache)) {
			return false;
		}
	}
	return rpc_lookup_unix(mem_ctx, domain, name, out);
}
