/*
 * smb.conf values: parsing one value by its table type, storing it in a
 * service, and the O(1) lookups the daemon makes per request.
 *
 * Every value is kept twice: as canonical text (what testparm prints and
 * lp_str returns) and as an int (bools, ints, enums, modes), both computed
 * once when the value is set, so lookups never parse.  A share lookup falls
 * back share -> [global] -> built-in default, the way Samba treats share
 * parameters set in [global] as the default for every share.
 *
 * lp_dump and lp_check are in conf/dump.c.  Below this file, and calling
 * nothing of it (loadparm -> parse -> subst):
 *   conf/parse.c   the file syntax: lp_load_text() calls conf_parse_text()
 *                  with the conf_parse_ops below, which store what it reads
 *   conf/subst.c   `%` substitution, which knows no lp_ctx: lp_substitute()
 *                  and lp_str_subst() look up the values it needs and call
 *                  down
 */
#include "conf/loadparm_private.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf/parse.h"
#include "conf/subst.h"
#include "lib/log.h"
#include "lib/num.h"

/* NetBIOS names are 15 characters plus a type byte (RFC 1001 14.1). */
#define CONF_NETBIOS_NAME_MAX 15

static const struct conf_slot conf_empty_slot;

static void where_str(const struct conf_where *w, char *buf, size_t size)
{
	if (w->line == 0) {
		snprintf(buf, size, "%s", w->file);
	} else {
		snprintf(buf, size, "%s:%u", w->file, w->line);
	}
}

bool conf_parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*b = true;
			return true;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*b = false;
			return true;
		}
	}
	return false;
}

/* Decimal (or 0x hex), the whole string, within int. */
static bool parse_int(const char *s, int *v)
{
	char *end;
	long long n;
	int base = 10;
	const char *p = s;

	if (*p == '-' || *p == '+') {
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
	}
	if (!isxdigit((unsigned char)p[base == 16 ? 2 : 0])) {
		return false;
	}
	if (!num_strtoll(s, &end, base, &n) || *end != '\0' || n < INT_MIN ||
	    n > INT_MAX) {
		return false;
	}
	*v = (int)n;
	return true;
}

/* Permission bits: octal digits (or 0x hex, as Samba), at most 07777. */
static bool parse_octal(const char *s, int *v)
{
	unsigned long n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		return parse_int(s, v) && *v >= 0 && *v <= 07777;
	}
	if (*s == '\0') {
		return false;
	}
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '7') {
			return false;
		}
		n = n * 8 + (unsigned long)(*s - '0');
		if (n > 07777) {
			return false;
		}
	}
	*v = (int)n;
	return true;
}

/*
 * Samba's `log level`: "N" optionally followed by "class:N" items
 * (lib/log.h log_parse_levels: a class Samba does not have is an error,
 * as in Samba's debug_parse_levels).  We keep the text; lp_int() gives
 * the level of class "all".
 */
static bool parse_loglevel(const char *s, int *v)
{
	int levels[LOG_CLASS__COUNT];
	char bad[64];

	if (!log_parse_levels(s, levels, bad, sizeof(bad))) {
		DBG_ERR("log level: \"%s\" is not a level or class:level of "
			"a debug class Samba has\n", bad);
		return false;
	}
	*v = levels[LOG_CLASS_ALL];
	return true;
}

/* A list of enum names (commas or whitespace between them, each name
 * itself without spaces, as Samba's algorithm lists are written). */
static bool valid_enum_list(const struct conf_enum_val *enums,
			    const char *s)
{
	char item[64];

	while (*s != '\0') {
		size_t n = 0;

		while (*s == ',' || isspace((unsigned char)*s)) {
			s++;
		}
		while (*s != '\0' && *s != ',' && !isspace((unsigned char)*s)) {
			if (n + 1 >= sizeof(item)) {
				return false;
			}
			item[n++] = *s++;
		}
		item[n] = '\0';
		if (n > 0 && conf_enum_find(enums, item) == NULL) {
			return false;
		}
	}
	return true;
}

/* `smb ports`: TCP ports 1..65535, separated by commas or whitespace. */
static bool valid_ports(const char *s)
{
	bool any = false;

	while (*s != '\0') {
		unsigned long port = 0;
		size_t n = 0;

		while (*s == ',' || isspace((unsigned char)*s)) {
			s++;
		}
		while (*s >= '0' && *s <= '9' && n < 6) {
			port = port * 10 + (unsigned long)(*s++ - '0');
			n++;
		}
		if (n == 0 && *s == '\0') {
			break;
		}
		if (n == 0 || port == 0 || port > 65535 ||
		    (*s != '\0' && *s != ',' && !isspace((unsigned char)*s))) {
			return false;
		}
		any = true;
	}
	return any;
}

/*
 * Parse value for parameter id into out (strings allocated on mem_ctx).
 * inverse: a synonym such as `writeable` meaning "not read only".
 */
static bool conf_parse_value(TALLOC_CTX *mem_ctx, enum lp_param id,
			     const char *value, bool inverse,
			     const struct conf_where *where,
			     struct conf_slot *out)
{
	const struct conf_param_def *def = &conf_params[id];
	const struct conf_enum_val *ev;
	char w[512];
	bool b;
	int v = 0;
	size_t i;

	*out = conf_empty_slot;
	switch (def->type) {
	case CONF_T_BOOL:
		if (!conf_parse_bool(value, &b)) {
			goto invalid;
		}
		b = inverse ? !b : b;
		out->ival = b;
		out->str = talloc_strdup(mem_ctx, b ? "Yes" : "No");
		break;
	case CONF_T_INT:
		if (!parse_int(value, &v)) {
			goto invalid;
		}
		out->ival = v;
		out->str = talloc_asprintf(mem_ctx, "%d", v);
		break;
	case CONF_T_OCTAL:
		if (!parse_octal(value, &v)) {
			goto invalid;
		}
		out->ival = v;
		out->str = talloc_asprintf(mem_ctx, "0%03o", (unsigned)v);
		break;
	case CONF_T_ENUM:
		ev = conf_enum_find(def->enums, value);
		if (ev == NULL) {
			goto invalid;
		}
		if (ev->flags & CONF_EV_CLAMPED) {
			where_str(where, w, sizeof(w));
			DBG_WARNING("%s: %s = %s: SMB1 is not supported, "
				    "using %s\n",
				    w, def->name, value,
				    conf_enum_name(def->enums, ev->value));
		}
		out->ival = ev->value;
		out->str = talloc_strdup(mem_ctx,
					 conf_enum_name(def->enums, ev->value));
		break;
	case CONF_T_LOGLEVEL:
		if (!parse_loglevel(value, &v)) {
			goto invalid;
		}
		out->ival = v;
		out->str = talloc_strdup(mem_ctx, value);
		break;
	case CONF_T_USTRING:
		out->str = talloc_strdup(mem_ctx, value);
		if (out->str == NULL) {
			break;
		}
		for (i = 0; out->str[i] != '\0'; i++) {
			out->str[i] = (char)toupper((unsigned char)out->str[i]);
		}
		if (id == LP_NETBIOS_NAME && i > CONF_NETBIOS_NAME_MAX) {
			where_str(where, w, sizeof(w));
			DBG_WARNING("%s: netbios name \"%s\" is longer than "
				    "%d characters, truncated\n",
				    w, value, CONF_NETBIOS_NAME_MAX);
			out->str[CONF_NETBIOS_NAME_MAX] = '\0';
		}
		break;
	case CONF_T_LIST:
		if (id == LP_SMB_PORTS && !valid_ports(value)) {
			goto invalid;
		}
		if (def->enums != NULL && !valid_enum_list(def->enums, value)) {
			goto invalid;
		}
		out->str = talloc_strdup(mem_ctx, value);
		break;
	case CONF_T_STRING:
		out->str = talloc_strdup(mem_ctx, value);
		break;
	}
	if (out->str == NULL) {
		DBG_ERR("out of memory\n");
		return false;
	}
	out->set = true;
	return true;

invalid:
	where_str(where, w, sizeof(w));
	DBG_ERR("%s: invalid value \"%s\" for parameter \"%s\" (%s)\n", w,
		value, def->name, conf_type_name(def->type));
	return false;
}

static bool parm_name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t') {
			a++;
		}
		while (*b == ' ' || *b == '\t') {
			b++;
		}
		if (*a == '\0' || *b == '\0') {
			return *a == *b;
		}
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
		a++;
		b++;
	}
}

const char *conf_service_parm(const struct conf_service *svc,
			      const char *name)
{
	size_t i;

	for (i = 0; i < svc->nparms; i++) {
		if (parm_name_eq(svc->parms[i].name, name)) {
			return svc->parms[i].value;
		}
	}
	return NULL;
}

static bool service_set_parm(struct conf_service *svc, const char *name,
			     const char *value)
{
	struct conf_parm *n;
	char *v;
	size_t i;

	for (i = 0; i < svc->nparms; i++) {
		if (parm_name_eq(svc->parms[i].name, name)) {
			v = talloc_strdup(svc, value);
			if (v == NULL) {
				return false;
			}
			talloc_free(svc->parms[i].value);
			svc->parms[i].value = v;
			return true;
		}
	}
	/* a linear list: bounded, so a section can't make loading O(n^2) */
	if (svc->nparms >= CONF_MAX_PARMS) {
		DBG_ERR("more than %d module:option entries in [%s]\n",
			CONF_MAX_PARMS, svc->name);
		return false;
	}
	n = talloc_realloc(svc, svc->parms, struct conf_parm, svc->nparms + 1);
	if (n == NULL) {
		return false;
	}
	svc->parms = n;
	n[svc->nparms].name = talloc_strdup(svc, name);
	n[svc->nparms].value = talloc_strdup(svc, value);
	if (n[svc->nparms].name == NULL || n[svc->nparms].value == NULL) {
		return false;
	}
	svc->nparms++;
	return true;
}

static const char **lp_split_list(TALLOC_CTX *mem_ctx, const char *s,
				  bool semicolon);

/* Enum lists hold a few names; an edit of a longer one is refused. */
#define CONF_ENUM_LIST_MAX 32

/*
 * Samba's list edits (its set_variable_helper for P_LIST): a value whose
 * first item is "+NAME" or "-NAME" changes the list the parameter has so
 * far (its default, or what an earlier line set): "+NAME" appends NAME
 * unless it is there, "-NAME" takes it out; every item must then be an
 * edit ("Unsupported list syntax" in Samba).  A value that starts with a
 * plain item replaces the list, as before.  Only for lists of enum
 * names (`server smb3 encryption algorithms`, `server smb3 signing
 * algorithms`), where no name starts with '+' or '-'; names compare as
 * conf_enum_find() does (Samba's edits are case-sensitive).
 *
 * *out: the new value in canonical names ("" for an empty list, on
 * mem_ctx), or NULL when value is no edit.  False for an unknown name, a
 * mix, or out of memory.
 */
static bool enum_list_edit(TALLOC_CTX *mem_ctx,
			   const struct conf_param_def *def, const char *base,
			   const char *value, char **out)
{
	const char **items = lp_split_list(mem_ctx, value, false);
	const char **old;
	int cur[CONF_ENUM_LIST_MAX];
	size_t n = 0, i, j;
	char *text;

	*out = NULL;
	if (items == NULL) {
		return false;
	}
	if (items[0] == NULL || (items[0][0] != '+' && items[0][0] != '-')) {
		talloc_free(items);
		return true;
	}
	old = lp_split_list(items, base != NULL ? base : "", false);
	for (i = 0; old != NULL && old[i] != NULL; i++) {
		const struct conf_enum_val *ev = conf_enum_find(def->enums,
								old[i]);

		if (ev != NULL && n < CONF_ENUM_LIST_MAX) {
			cur[n++] = ev->value;
		}
	}
	for (i = 0; items[i] != NULL && old != NULL; i++) {
		const struct conf_enum_val *ev;
		char op = items[i][0];

		ev = conf_enum_find(def->enums, items[i] + 1);
		if ((op != '+' && op != '-') || ev == NULL) {
			talloc_free(items);
			return false;
		}
		for (j = 0; j < n && cur[j] != ev->value; j++) {
		}
		if (op == '+' && j == n) {
			if (n == CONF_ENUM_LIST_MAX) {
				talloc_free(items);
				return false;
			}
			cur[n++] = ev->value;
		} else if (op == '-' && j < n) {
			memmove(&cur[j], &cur[j + 1], (n - j - 1) * sizeof(int));
			n--;
		}
	}
	text = talloc_strdup(mem_ctx, "");
	for (i = 0; i < n && text != NULL && old != NULL; i++) {
		text = talloc_asprintf_append(text, "%s%s", i > 0 ? ", " : "",
					      conf_enum_name(def->enums,
							     cur[i]));
	}
	if (old == NULL || text == NULL) {
		talloc_free(items);
		talloc_free(text);
		return false;
	}
	talloc_free(items);
	*out = text;
	return true;
}

/* What parameter id holds in svc before this line: its own value, the
 * [global] one for a share, or the default. */
static const char *conf_current(const struct lp_ctx *lp,
				const struct conf_state *st,
				const struct conf_service *svc, int id)
{
	const struct conf_slot *s = &svc->slots[id];

	if (!s->set && svc != st->global) {
		s = &st->global->slots[id];
	}
	if (!s->set) {
		s = &lp->defaults[id];
	}
	return s->str;
}

static bool cmdline_has_parm(const struct lp_ctx *lp, const char *name)
{
	size_t i;

	for (i = 0; i < lp->ncmdline; i++) {
		if (parm_name_eq(lp->cmdline[i].name, name)) {
			return true;
		}
	}
	return false;
}

enum conf_set_result conf_set(struct lp_ctx *lp, struct conf_state *st,
			      struct conf_service *svc, const char *name,
			      const char *value, const struct conf_where *where,
			      bool from_file)
{
	struct conf_slot slot;
	char w[512];
	bool inverse;
	int id;

	where_str(where, w, sizeof(w));
	/* A value with a line break could not be dumped and read back. */
	if (strpbrk(value, "\r\n") != NULL || strpbrk(name, "\r\n") != NULL) {
		DBG_ERR("%s: line break in the value of \"%s\"\n", w, name);
		return CONF_SET_INVALID;
	}
	if (strchr(name, ':') != NULL) {
		if (from_file && svc == st->global &&
		    cmdline_has_parm(lp, name)) {
			return CONF_SET_IGNORED;
		}
		if (!service_set_parm(svc, name, value)) {
			DBG_ERR("%s: can't store \"%s\"\n", w, name);
			return CONF_SET_INVALID;
		}
		return CONF_SET_OK;
	}
	id = conf_find_param(name, &inverse);
	if (id < 0) {
		/* A Samba parameter we lack is the admin's real question
		 * ("does this server do X?"), not a typo. */
		if (conf_samba_knows(name)) {
			DBG_WARNING("%s: parameter \"%s\" is not supported by "
				    "this server, ignored\n", w, name);
		} else {
			DBG_WARNING("%s: unknown parameter \"%s\", ignored\n",
				    w, name);
		}
		return CONF_SET_UNKNOWN;
	}
	if (svc != st->global && conf_params[id].scope == CONF_S_GLOBAL) {
		DBG_WARNING("%s: global parameter \"%s\" in share [%s], "
			    "ignored\n",
			    w, name, svc->name);
		return CONF_SET_IGNORED;
	}
	if (from_file && svc == st->global && lp->locked[id]) {
		DBG_INFO("%s: \"%s\" is set on the command line, file value "
			 "ignored\n",
			 w, name);
		return CONF_SET_IGNORED;
	}
	if (conf_params[id].type == CONF_T_LIST &&
	    conf_params[id].enums != NULL) {
		char *edited;
		bool ok;

		if (!enum_list_edit(svc, &conf_params[id],
				    conf_current(lp, st, svc, id), value,
				    &edited)) {
			DBG_ERR("%s: invalid value \"%s\" for parameter "
				"\"%s\" (a list edit takes +NAME or -NAME "
				"items only, each a known name)\n",
				w, value, name);
			return CONF_SET_INVALID;
		}
		ok = conf_parse_value(svc, (enum lp_param)id,
				      edited != NULL ? edited : value, inverse,
				      where, &slot);
		talloc_free(edited);
		if (!ok) {
			return CONF_SET_INVALID;
		}
	} else if (!conf_parse_value(svc, (enum lp_param)id, value, inverse,
				     where, &slot)) {
		return CONF_SET_INVALID;
	}
	talloc_free(svc->slots[id].str);
	svc->slots[id] = slot;
	return CONF_SET_OK;
}

bool conf_is_global_name(const char *name)
{
	return strcasecmp(name, "global") == 0 ||
	       strcasecmp(name, "globals") == 0;
}

struct conf_service *conf_service_new(TALLOC_CTX *mem_ctx, const char *name)
{
	struct conf_service *svc = talloc_zero(mem_ctx, struct conf_service);

	if (svc == NULL) {
		return NULL;
	}
	svc->name = talloc_strdup(svc, name);
	if (svc->name == NULL) {
		talloc_free(svc);
		return NULL;
	}
	return svc;
}

struct conf_state *conf_state_new(TALLOC_CTX *mem_ctx)
{
	struct conf_state *st = talloc_zero(mem_ctx, struct conf_state);

	if (st == NULL) {
		return NULL;
	}
	st->global = conf_service_new(st, "global");
	if (st->global == NULL) {
		talloc_free(st);
		return NULL;
	}
	return st;
}

/* FNV-1a over the lower-cased bytes, matching strcasecmp() equality. */
static size_t share_hash(const char *name)
{
	size_t h = 2166136261u;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)tolower((unsigned char)*name);
		h *= 16777619u;
	}
	return h;
}

int conf_state_find_share(const struct conf_state *st, const char *name)
{
	size_t mask = st->index_size - 1;
	size_t i;

	if (st->index_size == 0) {
		return -1;
	}
	for (i = share_hash(name) & mask; st->index[i] != -1;
	     i = (i + 1) & mask) {
		if (strcasecmp(st->shares[st->index[i]]->name, name) == 0) {
			return st->index[i];
		}
	}
	return -1;
}

static void index_insert(int *index, size_t size, const char *name, int snum)
{
	size_t i = share_hash(name) & (size - 1);

	while (index[i] != -1) {
		i = (i + 1) & (size - 1);
	}
	index[i] = snum;
}

/* Room for one more share in the array and the index. */
static bool state_grow(struct conf_state *st)
{
	if (st->nshares == st->alloc) {
		int want = st->alloc == 0 ? 8 : st->alloc * 2;
		struct conf_service **n = talloc_realloc(
			st, st->shares, struct conf_service *, want);

		if (n == NULL) {
			return false;
		}
		st->shares = n;
		st->alloc = want;
	}
	if ((size_t)(st->nshares + 1) * 2 > st->index_size) {
		size_t size = st->index_size == 0 ? 16 : st->index_size * 2;
		int *index = talloc_array(st, int, size);
		int i;

		if (index == NULL) {
			return false;
		}
		memset(index, 0xff, size * sizeof(int)); /* all -1 */
		for (i = 0; i < st->nshares; i++) {
			index_insert(index, size, st->shares[i]->name, i);
		}
		talloc_free(st->index);
		st->index = index;
		st->index_size = size;
	}
	return true;
}

int conf_state_add_share(struct conf_state *st, const char *name)
{
	struct conf_service *svc;
	int i;

	if (name[0] == '\0' || strpbrk(name, "[]\r\n") != NULL ||
	    conf_is_global_name(name)) {
		DBG_ERR("invalid share name \"%s\"\n", name);
		return -1;
	}
	i = conf_state_find_share(st, name);
	if (i >= 0) {
		return i;
	}
	if (st->nshares >= CONF_MAX_SHARES) {
		DBG_ERR("more than %d shares\n", CONF_MAX_SHARES);
		return -1;
	}
	if (!state_grow(st)) {
		return -1;
	}
	svc = conf_service_new(st, name);
	if (svc == NULL) {
		return -1;
	}
	st->shares[st->nshares] = svc;
	index_insert(st->index, st->index_size, svc->name, st->nshares);
	return st->nshares++;
}

bool conf_service_copy(struct conf_service *dst,
		       const struct conf_service *src)
{
	size_t i;

	if (dst == src) {
		return true;
	}
	for (i = 0; i < LP__COUNT; i++) {
		char *s;

		if (!src->slots[i].set) {
			continue;
		}
		s = talloc_strdup(dst, conf_slot_str(&src->slots[i]));
		if (s == NULL) {
			return false;
		}
		talloc_free(dst->slots[i].str);
		dst->slots[i] = src->slots[i];
		dst->slots[i].str = s;
	}
	for (i = 0; i < src->nparms; i++) {
		if (!service_set_parm(dst, src->parms[i].name,
				      src->parms[i].value)) {
			return false;
		}
	}
	return true;
}

/* Samba's default: the short host name, upper-cased, 15 characters. */
static const char *default_netbios_name(char *buf, size_t size)
{
	char *dot;

	if (gethostname(buf, size) != 0 || buf[0] == '\0') {
		snprintf(buf, size, "SMBD");
	}
	buf[size - 1] = '\0';
	dot = strchr(buf, '.');
	if (dot != NULL) {
		*dot = '\0';
	}
	/* silently: a long host name is no configuration error */
	if (strlen(buf) > CONF_NETBIOS_NAME_MAX) {
		buf[CONF_NETBIOS_NAME_MAX] = '\0';
	}
	return buf;
}

struct lp_ctx *lp_new(TALLOC_CTX *mem_ctx)
{
	struct lp_ctx *lp = talloc_zero(mem_ctx, struct lp_ctx);
	struct conf_where where = {"built-in default", 0};
	char host[256];
	size_t i;

	if (lp == NULL) {
		return NULL;
	}
	for (i = 0; i < LP__COUNT; i++) {
		const char *def = conf_params[i].def;

		if (i == LP_NETBIOS_NAME) {
			def = default_netbios_name(host, sizeof(host));
		}
		if (!conf_parse_value(lp, (enum lp_param)i,
				      def != NULL ? def : "", false, &where,
				      &lp->defaults[i])) {
			talloc_free(lp);
			return NULL;
		}
		lp->defaults[i].set = false;
	}
	lp->st = conf_state_new(lp);
	lp->config_file = talloc_strdup(lp, "");
	if (lp->st == NULL || lp->config_file == NULL) {
		talloc_free(lp);
		return NULL;
	}
	return lp;
}

bool lp_set_cmdline(struct lp_ctx *lp, const char *name, const char *value)
{
	struct conf_where where = {"--option", 0};
	struct conf_parm *n;
	bool inverse;
	int id = -1;
	size_t i;

	if (name == NULL || value == NULL) {
		return false;
	}
	if (strchr(name, ':') == NULL) {
		id = conf_find_param(name, &inverse);
		if (id < 0) {
			DBG_ERR("--option: %s parameter \"%s\"\n",
				conf_samba_knows(name)
					? "this server does not support the"
					: "unknown",
				name);
			return false;
		}
		if (id == LP_INCLUDE) {
			/* Only a file includes (conf/parse.c); a value set
			 * here would read nothing. */
			DBG_ERR("--option: include is only read from a "
				"file\n");
			return false;
		}
	}
	if (conf_set(lp, lp->st, lp->st->global, name, value, &where,
		     false) != CONF_SET_OK) {
		return false;
	}
	if (id >= 0) {
		lp->locked[id] = true;
	}
	for (i = 0; i < lp->ncmdline; i++) {
		if (conf_name_eq(lp->cmdline[i].name, name)) {
			break;
		}
	}
	if (i == lp->ncmdline) {
		n = talloc_realloc(lp, lp->cmdline, struct conf_parm, i + 1);
		if (n == NULL) {
			return false;
		}
		lp->cmdline = n;
		n[i].name = talloc_strdup(lp, name);
		n[i].value = NULL;
		if (n[i].name == NULL) {
			return false;
		}
		lp->ncmdline++;
	}
	talloc_free(lp->cmdline[i].value);
	lp->cmdline[i].value = talloc_strdup(lp, value);
	return lp->cmdline[i].value != NULL;
}

/*
 * What conf/parse.c reads, stored into the new state: the parser calls
 * these through load_ops and knows nothing of services and slots.
 */
struct conf_load {
	struct lp_ctx *lp;
	struct conf_state *st;    /* the state being loaded */
	struct conf_service *cur; /* section being filled */
};

static bool load_section(void *priv, const char *name)
{
	struct conf_load *l = priv;
	int snum;

	if (conf_is_global_name(name)) {
		l->cur = l->st->global;
		return true;
	}
	snum = conf_state_add_share(l->st, name);
	if (snum < 0) {
		/* the parser says so and sends nothing until a new section */
		return false;
	}
	l->cur = l->st->shares[snum];
	return true;
}

static bool load_parameter(void *priv, const char *name, const char *value,
			   const struct conf_where *where)
{
	struct conf_load *l = priv;

	/* unknown and ignored parameters warn, but the load goes on */
	return conf_set(l->lp, l->st, l->cur, name, value, where, true) !=
	       CONF_SET_INVALID;
}

static enum conf_copy_result load_copy(void *priv, const char *share)
{
	struct conf_load *l = priv;
	int src;

	if (l->cur == l->st->global) {
		return CONF_COPY_IN_GLOBAL;
	}
	src = conf_state_find_share(l->st, share);
	if (src < 0) {
		return CONF_COPY_NO_SHARE;
	}
	if (!conf_service_copy(l->cur, l->st->shares[src])) {
		return CONF_COPY_NOMEM;
	}
	return CONF_COPY_OK;
}

/* The global value the new state will have (for include's %L, %D). */
static const char *load_global_str(const struct conf_load *l,
				   enum lp_param id)
{
	const struct conf_slot *s = &l->st->global->slots[id];

	return conf_slot_str(s->set ? s : &l->lp->defaults[id]);
}

static void load_include_vars(void *priv, const char **server_name,
			      const char **workgroup)
{
	const struct conf_load *l = priv;

	*server_name = load_global_str(l, LP_NETBIOS_NAME);
	*workgroup = load_global_str(l, LP_WORKGROUP);
}

static const struct conf_parse_ops load_ops = {
	.section = load_section,
	.parameter = load_parameter,
	.copy = load_copy,
	.include_vars = load_include_vars,
};

/*
 * Parse into a new state; it replaces the old one only on success, so a
 * failed reload keeps the running configuration.
 */
static bool lp_load_text(struct lp_ctx *lp, const char *label,
			 const char *text, size_t len)
{
	struct conf_where where = {"--option", 0};
	struct conf_state *st = conf_state_new(lp);
	char *file = talloc_strdup(lp, label);
	struct conf_load load = {.lp = lp, .st = st};
	size_t i;

	if (st == NULL || file == NULL) {
		talloc_free(st);
		talloc_free(file);
		return false;
	}
	for (i = 0; i < lp->ncmdline; i++) {
		(void)conf_set(lp, st, st->global, lp->cmdline[i].name,
			       lp->cmdline[i].value, &where, false);
	}
	load.cur = st->global;
	if (!conf_parse_text(&load_ops, &load, label, text, len)) {
		talloc_free(st);
		talloc_free(file);
		return false;
	}
	talloc_free(lp->st);
	lp->st = st;
	talloc_free(lp->config_file);
	lp->config_file = file;
	return true;
}

bool lp_load_string(struct lp_ctx *lp, const char *label, const char *text)
{
	if (text == NULL) {
		return false;
	}
	return lp_load_text(lp, label != NULL ? label : "(string)", text,
			    strlen(text));
}

bool lp_load_file(struct lp_ctx *lp, const char *path)
{
	size_t len;
	char *text;
	bool ok;
	int err;

	if (path == NULL) {
		return false;
	}
	text = conf_read_file(lp, path, &len, &err);
	if (text == NULL) {
		DBG_ERR("can't load %s: %s\n", path, strerror(err));
		return false;
	}
	ok = lp_load_text(lp, path, text, len);
	talloc_free(text);
	return ok;
}

bool lp_reload(struct lp_ctx *lp)
{
	char *path = talloc_strdup(lp, lp->config_file);
	bool ok;

	if (path == NULL) {
		return false;
	}
	ok = lp_load_file(lp, path);
	talloc_free(path);
	return ok;
}

const struct conf_slot *conf_lookup(const struct lp_ctx *lp, int snum,
				    enum lp_param p)
{
	const struct conf_state *st = lp->st;
	const struct conf_slot *s;

	if ((unsigned)p >= LP__COUNT) {
		return &conf_empty_slot;
	}
	if (snum >= 0 && snum < st->nshares &&
	    conf_params[p].scope == CONF_S_SHARE) {
		s = &st->shares[snum]->slots[p];
		if (s->set) {
			return s;
		}
	}
	s = &st->global->slots[p];
	if (s->set) {
		return s;
	}
	return &lp->defaults[p];
}

const char *lp_str(const struct lp_ctx *lp, int snum, enum lp_param p)
{
	const char *s = conf_slot_str(conf_lookup(lp, snum, p));

	/* `volume`: the share name unless set (smb.conf(5)) */
	if (p == LP_VOLUME && s[0] == '\0' && snum >= 0) {
		return lp_share_name(lp, snum);
	}
	return s;
}

char *lp_substitute(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp,
		    const char *str, const struct lp_subst *s)
{
	return conf_substitute(mem_ctx, lp_str(lp, LP_GLOBAL, LP_NETBIOS_NAME),
			       lp_str(lp, LP_GLOBAL, LP_WORKGROUP), str, s);
}

/*
 * With a share, %S and %P default to the share's name and (unsubstituted)
 * path when the caller left them NULL.
 */
char *lp_str_subst(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp, int snum,
		   enum lp_param p, const struct lp_subst *s)
{
	struct lp_subst local = {0};

	if (s != NULL) {
		local = *s;
	}
	if (snum >= 0 && snum < lp_num_shares(lp)) {
		if (local.share == NULL) {
			local.share = lp_share_name(lp, snum);
		}
		if (local.share_path == NULL) {
			local.share_path = lp_str(lp, snum, LP_PATH);
		}
	}
	return lp_substitute(mem_ctx, lp, lp_str(lp, snum, p), &local);
}

bool lp_bool(const struct lp_ctx *lp, int snum, enum lp_param p)
{
	return conf_lookup(lp, snum, p)->ival != 0;
}

int lp_int(const struct lp_ctx *lp, int snum, enum lp_param p)
{
	return conf_lookup(lp, snum, p)->ival;
}

size_t lp_enum_list(const struct lp_ctx *lp, int snum, enum lp_param p,
		    int *out, size_t max)
{
	const char **items = lp_list(NULL, lp, snum, p);
	const struct conf_enum_val *ev;
	size_t i, n = 0;

	for (i = 0; items != NULL && items[i] != NULL && n < max; i++) {
		ev = conf_enum_find(conf_params[p].enums, items[i]);
		if (ev != NULL) {
			out[n++] = ev->value;
		}
	}
	talloc_free(items);
	return n;
}

/*
 * Split on commas and whitespace (and semicolons for parametric lists); a
 * '"' toggles quoting (and is removed), so "a b" is one item, as Samba's
 * lists do.
 */
static bool lp_list_sep(char c, bool semicolon)
{
	return c == ',' || isspace((unsigned char)c) || (semicolon && c == ';');
}

static const char **lp_split_list(TALLOC_CTX *mem_ctx, const char *s,
				  bool semicolon)
{
	const char **list;
	char *item;
	size_t n = 0, alloc = 4;

	list = talloc_array(mem_ctx, const char *, alloc);
	if (list == NULL) {
		return NULL;
	}
	for (;;) {
		bool quoted = false, any = false;
		size_t l = 0;

		while (lp_list_sep(*s, semicolon)) {
			s++;
		}
		if (*s == '\0') {
			break;
		}
		item = talloc_array(list, char, strlen(s) + 1);
		if (item == NULL) {
			goto nomem;
		}
		for (; *s != '\0'; s++) {
			if (*s == '"') {
				quoted = !quoted;
				any = true;
				continue;
			}
			if (!quoted && lp_list_sep(*s, semicolon)) {
				break;
			}
			item[l++] = *s;
		}
		item[l] = '\0';
		if (l == 0 && !any) {
			talloc_free(item);
			continue;
		}
		if (n + 2 > alloc) {
			const char **nl;

			alloc *= 2;
			nl = talloc_realloc(mem_ctx, list, const char *, alloc);
			if (nl == NULL) {
				goto nomem;
			}
			list = nl;
		}
		list[n++] = item;
	}
	list[n] = NULL;
	return list;
nomem:
	talloc_free(list);
	return NULL;
}

const char **lp_list(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp, int snum,
		     enum lp_param p)
{
	return lp_split_list(mem_ctx, lp_str(lp, snum, p), false);
}

bool lp_security_ads(const struct lp_ctx *lp)
{
	int sec = lp_int(lp, LP_GLOBAL, LP_SECURITY);

	return sec == LP_SEC_ADS ||
	       (sec == LP_SEC_AUTO &&
		lp_int(lp, LP_GLOBAL, LP_SERVER_ROLE) == LP_ROLE_MEMBER);
}

const char *lp_parm_str(const struct lp_ctx *lp, int snum,
			const char *module_colon_option, const char *def)
{
	const char *v = NULL;

	if (module_colon_option == NULL) {
		return def;
	}
	if (snum >= 0 && snum < lp->st->nshares) {
		v = conf_service_parm(lp->st->shares[snum],
				      module_colon_option);
	}
	if (v == NULL) {
		v = conf_service_parm(lp->st->global, module_colon_option);
	}
	return v != NULL ? v : def;
}

bool lp_parm_bool(const struct lp_ctx *lp, int snum,
		  const char *module_colon_option, bool def)
{
	const char *v = lp_parm_str(lp, snum, module_colon_option, NULL);
	bool b;

	if (v == NULL || !conf_parse_bool(v, &b)) {
		return def;
	}
	return b;
}

/*
 * Samba reads numeric parametric options with strtol(s, NULL, 0): "0700"
 * is octal, "0x1c0" hex, "448" decimal.  A value that is not a number
 * throughout falls back to def here rather than to its leading digits.
 */
int lp_parm_int(const struct lp_ctx *lp, int snum,
		const char *module_colon_option, int def)
{
	const char *v = lp_parm_str(lp, snum, module_colon_option, NULL);
	char *end;
	long long n;
	bool fit;

	if (v == NULL) {
		return def;
	}
	while (isspace((unsigned char)*v)) {
		v++;
	}
	fit = num_strtoll(v, &end, 0, &n);
	while (isspace((unsigned char)*end)) {
		end++;
	}
	if (end == v || *end != '\0' || !fit || n < INT_MIN ||
	    n > INT_MAX) {
		return def;
	}
	return (int)n;
}

/*
 * A size as Samba's conv_str_size() reads one: decimal digits and an
 * optional unit K, M, G, T or P (powers of 1024, either case, an optional
 * trailing B); anything else (a sign, other text, overflow) is def.
 */
uint64_t lp_parm_bytes(const struct lp_ctx *lp, int snum,
		       const char *module_colon_option, uint64_t def)
{
	static const char units[] = "KMGTP";
	const char *v = lp_parm_str(lp, snum, module_colon_option, NULL);
	const char *u;
	unsigned long long n;
	char *end;
	unsigned shift = 0;

	if (v == NULL || !isdigit((unsigned char)*v)) {
		return def;
	}
	if (!num_strtoull(v, &end, 10, &n)) {
		return def;
	}
	if (*end != '\0') {
		u = strchr(units, toupper((unsigned char)*end));
		if (u == NULL) {
			return def;
		}
		shift = 10 * (unsigned)(u - units + 1);
		end++;
		if (*end == 'B' || *end == 'b') {
			end++;
		}
		if (*end != '\0' || n > (UINT64_MAX >> shift)) {
			return def;
		}
	}
	return (uint64_t)n << shift;
}

const char **lp_parm_list(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp,
			  int snum, const char *module_colon_option)
{
	/* Samba splits parametric lists on ';' too (recycle:exclude =
	 * *.tmp;*.o excludes both). */
	return lp_split_list(mem_ctx,
			     lp_parm_str(lp, snum, module_colon_option, ""),
			     true);
}

int lp_num_shares(const struct lp_ctx *lp)
{
	return lp->st->nshares;
}

const char *lp_share_name(const struct lp_ctx *lp, int snum)
{
	if (snum == LP_GLOBAL) {
		return "global";
	}
	if (snum < 0 || snum >= lp->st->nshares) {
		return "";
	}
	return lp->st->shares[snum]->name;
}

int lp_find_share(const struct lp_ctx *lp, const char *name)
{
	return name != NULL ? conf_state_find_share(lp->st, name) : -1;
}

int lp_add_share(struct lp_ctx *lp, const char *name)
{
	return name != NULL ? conf_state_add_share(lp->st, name) : -1;
}

int lp_clone_share(struct lp_ctx *lp, int src, const char *name)
{
	int snum;

	if (name == NULL || src < 0 || src >= lp->st->nshares) {
		return -1;
	}
	snum = lp_find_share(lp, name);
	if (snum >= 0) {
		return snum;
	}
	snum = conf_state_add_share(lp->st, name);
	if (snum < 0) {
		return -1;
	}
	if (!conf_service_copy(lp->st->shares[snum], lp->st->shares[src])) {
		/* the share exists, half-filled: never serve it */
		(void)lp_share_set(lp, snum, "available", "no");
		return -1;
	}
	return snum;
}

bool lp_share_set(struct lp_ctx *lp, int snum, const char *name,
		  const char *value)
{
	struct conf_where where = {"lp_share_set", 0};
	struct conf_service *svc;

	if (name == NULL || value == NULL) {
		return false;
	}
	if (snum == LP_GLOBAL) {
		svc = lp->st->global;
	} else if (snum >= 0 && snum < lp->st->nshares) {
		svc = lp->st->shares[snum];
	} else {
		return false;
	}
	return conf_set(lp, lp->st, svc, name, value, &where, false) ==
	       CONF_SET_OK;
}

const char *lp_config_file(const struct lp_ctx *lp)
{
	return lp->config_file;
}

const char *lp_param_name(enum lp_param p)
{
	if ((unsigned)p >= LP__COUNT) {
		return "";
	}
	return conf_params[p].name;
}

int lp_param_by_name(const char *name)
{
	bool inverse;

	return name != NULL ? conf_find_param(name, &inverse) : -1;
}
