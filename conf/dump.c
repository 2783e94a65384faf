/*
 * testparm's view of a configuration: lp_dump() prints it in smb.conf
 * syntax (so a dump loads back to the same values), lp_check() does the
 * logic checks that go beyond one value at a time.
 *
 * Like Samba's testparm, the dump shows [global] values that differ from
 * the built-in defaults and share values that differ from [global]; with
 * show_defaults (-v) [global] shows every parameter.
 */
#include "conf/loadparm_private.h"

#include <string.h>
#include <strings.h>

#include "lib/ifspec.h"
#include "lib/log.h"

static void dump_parms(const struct conf_service *svc, FILE *f)
{
	size_t i;

	for (i = 0; i < svc->nparms; i++) {
		fprintf(f, "\t%s = %s\n", svc->parms[i].name,
			svc->parms[i].value);
	}
}

static void dump_share(const struct lp_ctx *lp,
		       const struct conf_service *svc, FILE *f)
{
	const struct conf_service *g = lp->st->global;
	size_t i;

	/* two newlines, as Samba's testparm prints them */
	fprintf(f, "\n\n[%s]\n", svc->name);
	for (i = 0; i < LP__COUNT; i++) {
		const struct conf_slot *s = &svc->slots[i];
		const struct conf_slot *base =
			g->slots[i].set ? &g->slots[i] : &lp->defaults[i];

		if (!s->set || conf_params[i].scope != CONF_S_SHARE) {
			continue;
		}
		if (strcmp(conf_slot_str(s), conf_slot_str(base)) == 0) {
			continue;
		}
		fprintf(f, "\t%s = %s\n", conf_params[i].name,
			conf_slot_str(s));
	}
	dump_parms(svc, f);
}

/* The [global] values of one scope. */
static void dump_global_scope(const struct lp_ctx *lp, FILE *f,
			      bool show_defaults, enum conf_scope scope)
{
	const struct conf_service *g = lp->st->global;
	size_t i;

	for (i = 0; i < LP__COUNT; i++) {
		const struct conf_slot *s = &g->slots[i];
		const struct conf_slot *d = &lp->defaults[i];

		if (conf_params[i].scope != scope) {
			continue;
		}
		if (!show_defaults &&
		    (!s->set ||
		     strcmp(conf_slot_str(s), conf_slot_str(d)) == 0)) {
			continue;
		}
		fprintf(f, "\t%s = %s\n", conf_params[i].name,
			conf_slot_str(s->set ? s : d));
	}
}

/*
 * In Samba's order: server-wide parameters, parametric options, then the
 * share defaults set in [global].
 */
static void dump_global(const struct lp_ctx *lp, FILE *f, bool show_defaults)
{
	fprintf(f, "# Global parameters\n[global]\n");
	dump_global_scope(lp, f, show_defaults, CONF_S_GLOBAL);
	dump_parms(lp->st->global, f);
	dump_global_scope(lp, f, show_defaults, CONF_S_SHARE);
}

void lp_dump(const struct lp_ctx *lp, FILE *f, bool show_defaults)
{
	int snum;

	dump_global(lp, f, show_defaults);
	for (snum = 0; snum < lp->st->nshares; snum++) {
		dump_share(lp, lp->st->shares[snum], f);
	}
}

void lp_dump_section(const struct lp_ctx *lp, int snum, FILE *f,
		     bool show_defaults)
{
	if (snum == LP_GLOBAL) {
		dump_global(lp, f, show_defaults);
	} else if (snum >= 0 && snum < lp->st->nshares) {
		dump_share(lp, lp->st->shares[snum], f);
	}
}

/* The worker's thread pool (lib/tpool.h): at most 1024 threads, and a
 * share's lane at least one. */
static bool check_pool(const struct lp_ctx *lp, const char *cf)
{
	int max = lp_int(lp, LP_GLOBAL, LP_SMBD_POOL_MAX_THREADS);
	bool ok = true;
	int snum;

	if (max < 1 || max > SMBD_POOL_THREADS_LIMIT) {
		DBG_ERR("%s: smbd pool max threads must be 1 to %d\n", cf,
			SMBD_POOL_THREADS_LIMIT);
		ok = false;
	}
	for (snum = LP_GLOBAL; snum < lp_num_shares(lp); snum++) {
		int n = lp_int(lp, snum, LP_SMBD_POOL_THREADS_PER_SHARE);

		if (n < 1 || n > SMBD_POOL_THREADS_LIMIT) {
			DBG_ERR("%s: [%s]: smbd pool threads per share must "
				"be 1 to %d\n",
				cf, snum == LP_GLOBAL ? "global"
						      : lp_share_name(lp, snum),
				SMBD_POOL_THREADS_LIMIT);
			ok = false;
		}
	}
	return ok;
}

/* Each `interfaces` entry with its multichannel options (lib/ifspec.h):
 * a bad option would advertise something else than the admin wrote. */
static bool check_interfaces(const struct lp_ctx *lp, const char *cf)
{
	const char **ifs = lp_list(NULL, lp, LP_GLOBAL, LP_INTERFACES);
	bool ok = true;
	size_t i;

	for (i = 0; ifs != NULL && ifs[i] != NULL; i++) {
		struct ifspec spec;
		uint8_t addr[16];
		char err[160];
		int bits;

		if (!ifspec_parse(ifs[i], &spec, err, sizeof(err))) {
			DBG_ERR("%s: interfaces: \"%s\": %s\n", cf, ifs[i],
				err);
			ok = false;
		} else if (ifspec_address(&spec, addr, &bits) < 0) {
			DBG_ERR("%s: interfaces: \"%s\": bad network mask\n",
				cf, ifs[i]);
			ok = false;
		}
	}
	talloc_free(ifs);
	return ok;
}

/*
 * security = ads: what Samba's testparm insists on (a realm, and a range
 * for idmap config *, without which winbindd maps nobody), and a keytab
 * file where `kerberos method = dedicated keytab` says to use one (Samba
 * starts without it and then refuses every Kerberos logon).
 */
static bool check_ads(const struct lp_ctx *lp, const char *cf)
{
	const char *range = lp_parm_str(lp, LP_GLOBAL, "idmap config *:range",
					NULL);
	const char *keytab = lp_str(lp, LP_GLOBAL, LP_DEDICATED_KEYTAB_FILE);
	bool ok = true;

	if (lp_str(lp, LP_GLOBAL, LP_REALM)[0] == '\0') {
		DBG_ERR("%s: security = ads requires the realm parameter\n",
			cf);
		ok = false;
	}
	if (range == NULL || range[0] == '\0') {
		DBG_ERR("%s: security = ads: no idmap range for domain '*' "
			"(idmap config * : range)\n", cf);
		ok = false;
	}
	if (lp_int(lp, LP_GLOBAL, LP_KERBEROS_METHOD) ==
		    LP_KRB5_DEDICATED_KEYTAB &&
	    (keytab == NULL || keytab[0] == '\0')) {
		DBG_ERR("%s: kerberos method = dedicated keytab needs "
			"dedicated keytab file\n", cf);
		ok = false;
	}
	return ok;
}

static bool check_global(const struct lp_ctx *lp)
{
	const char *cf = lp_config_file(lp);
	bool ok = true;
	int role = lp_int(lp, LP_GLOBAL, LP_SERVER_ROLE);
	int sec = lp_int(lp, LP_GLOBAL, LP_SECURITY);

	if (lp_int(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL) >
	    lp_int(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL)) {
		DBG_ERR("%s: server min protocol (%s) is above server max "
			"protocol (%s)\n",
			cf, lp_str(lp, LP_GLOBAL, LP_SERVER_MIN_PROTOCOL),
			lp_str(lp, LP_GLOBAL, LP_SERVER_MAX_PROTOCOL));
		ok = false;
	}
	if (role != LP_ROLE_AUTO && role != LP_ROLE_STANDALONE &&
	    role != LP_ROLE_MEMBER) {
		DBG_ERR("%s: server role = %s is not supported, only "
			"standalone server and member server\n",
			cf, lp_str(lp, LP_GLOBAL, LP_SERVER_ROLE));
		ok = false;
	}
	if (sec == LP_SEC_DOMAIN) {
		DBG_ERR("%s: security = %s is not supported, only user and "
			"ads\n", cf, lp_str(lp, LP_GLOBAL, LP_SECURITY));
		ok = false;
	}
	if (lp_security_ads(lp) && !check_ads(lp, cf)) {
		ok = false;
	}
	if (!check_interfaces(lp, cf)) {
		ok = false;
	}
	if (lp_int(lp, LP_GLOBAL, LP_SMBD_WORKERS) < 0) {
		DBG_ERR("%s: smbd workers must not be negative\n", cf);
		ok = false;
	}
	if (!check_pool(lp, cf)) {
		ok = false;
	}
	/* Samba takes these; a negative value means "off" to the daemon. */
	if (lp_int(lp, LP_GLOBAL, LP_DEADTIME) < 0 ||
	    lp_int(lp, LP_GLOBAL, LP_MAX_LOG_SIZE) < 0 ||
	    lp_int(lp, LP_GLOBAL, LP_MAX_OPEN_FILES) < 0) {
		DBG_WARNING("%s: negative deadtime, max log size or max open "
			    "files\n",
			    cf);
	}
	return ok;
}

int lp_warn_compat(const struct lp_ctx *lp)
{
	const char *cf = lp_config_file(lp);
	int n = 0;
	size_t i;

	for (i = 0; i < LP__COUNT; i++) {
		int snum;
		bool set;

		if (!(conf_params[i].flags & CONF_F_COMPAT)) {
			continue;
		}
		set = lp->st->global->slots[i].set;
		for (snum = 0; !set && snum < lp->st->nshares; snum++) {
			set = lp->st->shares[snum]->slots[i].set;
		}
		if (set) {
			DBG_WARNING("%s: \"%s\" is accepted for compatibility "
				    "and has no effect yet\n",
				    cf, conf_params[i].name);
			n++;
		}
	}
	return n;
}

bool lp_check(const struct lp_ctx *lp)
{
	bool ok = check_global(lp);
	int snum;

	for (snum = 0; snum < lp_num_shares(lp); snum++) {
		const char *name = lp_share_name(lp, snum);

		if (lp_str(lp, snum, LP_PATH)[0] == '\0' &&
		    strcasecmp(name, "homes") != 0 &&
		    strcasecmp(name, "IPC$") != 0 &&
		    !lp_bool(lp, snum, LP_PRINTABLE)) {
			DBG_WARNING("share [%s] has no path\n", name);
		}
		if (lp_int(lp, snum, LP_MAX_CONNECTIONS) < 0) {
			DBG_ERR("share [%s]: max connections must not be "
				"negative\n",
				name);
			ok = false;
		}
	}
	return ok;
}
