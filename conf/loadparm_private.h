/*
 * The inside of struct lp_ctx, shared by loadparm.c and dump.c only: the
 * parser (conf/parse.h) and the substitution (conf/subst.h) below them
 * never see it.
 *
 * lp_ctx
 *   defaults[]        built-in defaults, one slot per enum lp_param
 *   locked[]          [global] values set by --option (file can't change)
 *   cmdline           the --option pairs, replayed into every new state
 *   st                the loaded configuration (replaced on reload):
 *     global          [global]: slots[] + parametric options
 *     shares[]        one conf_service per share, same layout
 */
#ifndef CONF_LOADPARM_PRIVATE_H
#define CONF_LOADPARM_PRIVATE_H

#include "conf/loadparm.h"
#include "conf/param_table.h"
#include "conf/parse.h" /* struct conf_where, conf_read_file */

/* A bound on what a configuration can make us hold (see conf/parse.h). */
#define CONF_MAX_SHARES 100000
#define CONF_MAX_PARMS 10000 /* "module:option" entries per section */

struct conf_slot {
	char *str; /* canonical text; NULL for a default that is "" */
	int ival;  /* bools 0/1, ints, enums, modes, first log level */
	bool set;
};

struct conf_parm {
	char *name; /* "module:option" as written */
	char *value;
};

struct conf_service {
	char *name;
	struct conf_slot slots[LP__COUNT];
	struct conf_parm *parms; /* talloc array */
	size_t nparms;
};

struct conf_state {
	struct conf_service *global;
	struct conf_service **shares; /* talloc array of alloc */
	int nshares;
	int alloc;
	/*
	 * Share names, hashed case-insensitively: open addressing, slots
	 * hold snum or -1, at most half full.  Loading many shares and
	 * finding one at tree connect stay O(1).
	 */
	int *index;
	size_t index_size; /* a power of two */
};

struct lp_ctx {
	struct conf_state *st;
	struct conf_slot defaults[LP__COUNT];
	bool locked[LP__COUNT];
	struct conf_parm *cmdline; /* talloc array */
	size_t ncmdline;
	char *config_file;
};

enum conf_set_result {
	CONF_SET_OK,
	CONF_SET_UNKNOWN,  /* no such parameter: warning */
	CONF_SET_INVALID,  /* bad value: error */
	CONF_SET_IGNORED   /* global-only in a share, or --option locked */
};

/*
 * Set name=value in svc (the state's global or a share).  Messages name
 * where.  from_file: honour the --option locks on [global].
 */
enum conf_set_result conf_set(struct lp_ctx *lp, struct conf_state *st,
			      struct conf_service *svc, const char *name,
			      const char *value, const struct conf_where *where,
			      bool from_file);

struct conf_state *conf_state_new(TALLOC_CTX *mem_ctx);
struct conf_service *conf_service_new(TALLOC_CTX *mem_ctx, const char *name);
int conf_state_find_share(const struct conf_state *st, const char *name);
int conf_state_add_share(struct conf_state *st, const char *name);
/* `copy = share`: every value set in src, into dst. */
bool conf_service_copy(struct conf_service *dst,
		       const struct conf_service *src);
/* [global] / [globals] */
bool conf_is_global_name(const char *name);

/* The effective slot for (snum, p), never NULL. */
const struct conf_slot *conf_lookup(const struct lp_ctx *lp, int snum,
				    enum lp_param p);
/* The slot's string, "" for NULL. */
static inline const char *conf_slot_str(const struct conf_slot *s)
{
	return s->str != NULL ? s->str : "";
}

/* yes/no/true/false/on/off/1/0, case-insensitive */
bool conf_parse_bool(const char *s, bool *b);

/* Parametric lookup in one service; NULL if unset. */
const char *conf_service_parm(const struct conf_service *svc,
			      const char *name);

#endif
