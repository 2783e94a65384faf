/*
 * The parameter table behind conf/loadparm.c (internal to conf/).
 *
 * One const entry per enum lp_param, in id order (which is alphabetical
 * order of the canonical names, so testparm prints them sorted as Samba
 * does).  Synonyms are a separate table mapping other spellings onto ids,
 * some of them inverted (`writeable` = not `read only`).
 */
#ifndef CONF_PARAM_TABLE_H
#define CONF_PARAM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include "conf/loadparm.h"

enum conf_type {
	CONF_T_BOOL,
	CONF_T_INT,
	CONF_T_OCTAL,    /* permission bits, printed "0744" */
	CONF_T_STRING,
	CONF_T_USTRING,  /* upper-cased string (netbios name) */
	CONF_T_LIST,     /* stored as written, split by lp_list() */
	CONF_T_ENUM,
	CONF_T_LOGLEVEL  /* "N class:N ..."; lp_int() gives the first N */
};

enum conf_scope {
	CONF_S_GLOBAL, /* only in [global] */
	CONF_S_SHARE   /* per share; a [global] value is the share default */
};

/* The value is accepted but clamped; warn when it is used. */
#define CONF_EV_CLAMPED 0x1

struct conf_enum_val {
	const char *name;
	int value;
	unsigned flags;
};

/* Parameter accepted for compatibility, no effect yet. */
#define CONF_F_COMPAT 0x1
/* String read through lp_str_subst() by the daemon. */
#define CONF_F_SUBST 0x2

struct conf_param_def {
	const char *name;
	enum conf_type type;
	enum conf_scope scope;
	const char *def; /* NULL: "" (netbios name: computed at lp_new) */
	const struct conf_enum_val *enums; /* CONF_T_ENUM only */
	unsigned flags;
};

struct conf_synonym {
	const char *name;
	enum lp_param id;
	bool inverse;
};

extern const struct conf_param_def conf_params[LP__COUNT];
extern const struct conf_synonym conf_synonyms[];
extern const size_t conf_num_synonyms;

/* Every parameter name Samba 4.17 knows (conf/samba_params.c, generated
 * by conf/gen-samba-params.sh from its testparm). */
extern const char *const conf_samba_params[];
extern const size_t conf_num_samba_params;
/* Whether Samba has a parameter of that name (compared as conf_name_eq). */
bool conf_samba_knows(const char *name);

/* Names compare case-insensitively with spaces and '_' insignificant. */
bool conf_name_eq(const char *a, const char *b);
/* An id for a canonical name or synonym; -1 if unknown. */
int conf_find_param(const char *name, bool *inverse);
/* Enum values compare case-insensitively, spaces insignificant. */
const struct conf_enum_val *conf_enum_find(const struct conf_enum_val *tab,
					   const char *value);
/* The canonical (first) name of a value; NULL if none. */
const char *conf_enum_name(const struct conf_enum_val *tab, int value);
/* "BOOL", "INTEGER", ... as testparm --show-all-parameters prints them */
const char *conf_type_name(enum conf_type t);

#endif
