/*
 * smb.conf: loading, parameter lookup, `%` substitution, testparm dump.
 *
 * The syntax and parameter names are Samba's (smb.conf(5)), so an existing
 * Samba configuration loads unchanged.  A struct lp_ctx holds the [global]
 * section, the shares, the built-in defaults and the `--option` overrides
 * from the command line.
 *
 * Lookups go by enum lp_param id and are O(1): every service keeps an array
 * of values indexed by id, and a share lookup falls back share -> [global]
 * -> built-in default.  Strings returned by lp_str() live as talloc children
 * of the lp_ctx and stay valid until the next load into it.
 *
 * lp_load_file()/lp_load_string() replace the whole configuration (a
 * reload): the new text is parsed into a fresh state, which replaces the
 * old one only when it loaded without errors, so a failed SIGHUP reload
 * leaves the running configuration intact.  Command-line overrides
 * (lp_set_cmdline) stay in force across reloads.
 */
#ifndef CONF_LOADPARM_H
#define CONF_LOADPARM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <talloc.h>

#include "conf/subst.h" /* struct lp_subst */

struct lp_ctx;

/* Where smbd and testparm look without -s/CONFIGFILE (Samba's place). */
#ifdef SYSCONFDIR
#define LP_DEFAULT_CONFIG_FILE SYSCONFDIR "/samba/smb.conf"
#else
#define LP_DEFAULT_CONFIG_FILE "/etc/samba/smb.conf"
#endif

/* snum meaning the [global] section */
#define LP_GLOBAL (-1)

/* `smbd pool max threads` and `smbd pool threads per share` go up to
 * this (testparm refuses more; lib/tpool.h). */
#define SMBD_POOL_THREADS_LIMIT 1024

/*
 * One id per parameter, in the (alphabetical) order of the parameter table
 * in conf/param_table.c; synonyms map onto these ids.
 */
enum lp_param {
	LP_ACCESS_BASED_SHARE_ENUM,
	LP_ADMIN_USERS,
	LP_ADMINISTRATIVE_SHARE,
	LP_ALLOW_INSECURE_WIDE_LINKS,
	LP_ALLOW_TRUSTED_DOMAINS,
	LP_AVAILABLE,
	LP_BIND_INTERFACES_ONLY,
	LP_BROWSEABLE,
	LP_CACHE_DIRECTORY,
	LP_CASE_SENSITIVE,
	LP_CHANGE_NOTIFY,
	LP_CLUSTER_ADDRESSES,
	LP_CLUSTERING,
	LP_COMMENT,
	LP_CREATE_MASK,
	LP_CSC_POLICY,
	LP_CTDB_LOCKTIME_WARN_THRESHOLD,
	LP_CTDB_TIMEOUT,
	LP_CTDBD_SOCKET,
	LP_DEADTIME,
	LP_DEDICATED_KEYTAB_FILE,
	LP_DEFAULT_CASE,
	LP_DFREE_COMMAND,
	LP_DIRECTORY_MASK,
	LP_DISABLE_NETBIOS,
	LP_DISABLE_SPOOLSS,
	LP_DOS_CHARSET,
	LP_DURABLE_HANDLES,
	LP_EA_SUPPORT,
	LP_FOLLOW_SYMLINKS,
	LP_FORCE_CREATE_MODE,
	LP_FORCE_DIRECTORY_MODE,
	LP_FORCE_GROUP,
	LP_FORCE_USER,
	LP_FSTYPE,
	LP_GUEST_ACCOUNT,
	LP_GUEST_OK,
	LP_GUEST_ONLY,
	LP_HIDE_DOT_FILES,
	LP_HIDE_FILES,
	LP_HOST_MSDFS,
	LP_HOSTS_ALLOW,
	LP_HOSTS_DENY,
	LP_INCLUDE,
	LP_INHERIT_ACLS,
	LP_INHERIT_PERMISSIONS,
	LP_INTERFACES,
	LP_INVALID_USERS,
	LP_KERBEROS_METHOD,
	LP_KERNEL_OPLOCKS,
	LP_KERNEL_SHARE_MODES,
	LP_LANMAN_AUTH,
	LP_LEVEL2_OPLOCKS,
	LP_LOAD_PRINTERS,
	LP_LOCK_DIRECTORY,
	LP_LOG_FILE,
	LP_LOG_LEVEL,
	LP_MANGLED_NAMES,
	LP_MAP_ARCHIVE,
	LP_MAP_HIDDEN,
	LP_MAP_READONLY,
	LP_MAP_SYSTEM,
	LP_MAP_TO_GUEST,
	LP_MAX_CONNECTIONS,
	LP_MAX_LOG_SIZE,
	LP_MAX_OPEN_FILES,
	LP_MAX_SMBD_PROCESSES,
	LP_MAX_XMIT,
	LP_MSDFS_PROXY,
	LP_MSDFS_ROOT,
	LP_MSDFS_SHUFFLE_REFERRALS,
	LP_NETBIOS_NAME,
	LP_NT_ACL_SUPPORT,
	LP_NTLM_AUTH,
	LP_OBEY_PAM_RESTRICTIONS,
	LP_OPLOCKS,
	LP_PANIC_ACTION,
	LP_PASSDB_BACKEND,
	LP_PATH,
	LP_PID_DIRECTORY,
	LP_POSIX_LOCKING,
	LP_PRESERVE_CASE,
	LP_PRINTABLE,
	LP_PRINTCAP_NAME,
	LP_PRINTING,
	LP_PRIVATE_DIR,
	LP_READ_LIST,
	LP_READ_ONLY,
	LP_REALM,
	LP_RESET_ON_ZERO_VC,
	LP_RESTRICT_ANONYMOUS,
	LP_SECURITY,
	LP_SERVER_MAX_PROTOCOL,
	LP_SERVER_MIN_PROTOCOL,
	LP_SERVER_MULTI_CHANNEL_SUPPORT,
	LP_SERVER_ROLE,
	LP_SERVER_SIGNING,
	LP_SERVER_SMB_ENCRYPT,
	LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS,
	LP_SERVER_SMB3_SIGNING_ALGORITHMS,
	LP_SERVER_STRING,
	LP_SHORT_PRESERVE_CASE,
	LP_SMB_PORTS,
	LP_SMB2_LEASES,
	LP_SMB3_COMPRESSION,
	LP_SMB3_DIRECTORY_LEASES,
	LP_SMBD_AUTH_RATE_LIMITER_BUDGET,
	LP_SMBD_AUTH_RATE_LIMITER_DELAY,
	LP_SMBD_IO_BACKEND,
	LP_SMBD_IRQ_AFFINITY,
	LP_SMBD_IRQ_INTERFACES,
	LP_SMBD_LOGON_TIMEOUT,
	LP_SMBD_MAX_CLIENTS_PER_HOST,
	LP_SMBD_MAX_DECOMPRESSED_PER_CONNECTION,
	LP_SMBD_MAX_DECOMPRESSED_PER_WORKER,
	LP_SMBD_METRICS,
	LP_SMBD_METRICS_LISTEN,
	LP_SMBD_POOL_MAX_THREADS,
	LP_SMBD_POOL_THREADS_PER_SHARE,
	LP_SMBD_REUSEPORT_STEERING,
	LP_SMBD_SPREAD_CONNECTIONS,
	LP_SMBD_WATCHDOG_TIMEOUT,
	LP_SMBD_WORKERS,
	LP_SOCKET_OPTIONS,
	LP_STATE_DIRECTORY,
	LP_STORE_DOS_ATTRIBUTES,
	LP_STRICT_LOCKING,
	LP_STRICT_SYNC,
	LP_SYNC_ALWAYS,
	LP_TEMPLATE_HOMEDIR,
	LP_TEMPLATE_SHELL,
	LP_UNIX_CHARSET,
	LP_USE_SENDFILE,
	LP_USERNAME_MAP,
	LP_USERNAME_MAP_CACHE_TIME,
	LP_USERNAME_MAP_SCRIPT,
	LP_VALID_USERS,
	LP_VETO_FILES,
	LP_VFS_OBJECTS,
	LP_VOLUME,
	LP_WIDE_LINKS,
	LP_WINBIND_SEPARATOR,
	LP_WINBIND_USE_DEFAULT_DOMAIN,
	LP_WORKGROUP,
	LP_WRITE_LIST,
	LP__COUNT
};

/*
 * "SMB2" means SMB2_10 as max / SMB2_02 as min; "SMB3" SMB3_11 (max) /
 * SMB3_00 (min); "NT1", "LANMAN*", "CORE*" as min are accepted and clamp to
 * SMB2_02 with a warning; as max they are an error since we have no SMB1.
 */
enum lp_protocol {
	LP_PROTO_SMB2_02 = 0x0202,
	LP_PROTO_SMB2_10 = 0x0210,
	LP_PROTO_SMB3_00 = 0x0300,
	LP_PROTO_SMB3_02 = 0x0302,
	LP_PROTO_SMB3_11 = 0x0311
};

/*
 * `server signing`.  As in Samba, yes/true/on/enabled/if_required/desired
 * mean auto; required/force/forced/enforced mean mandatory; no/false/off
 * mean disabled.
 */
enum lp_signing {
	LP_SIGNING_DEFAULT,
	LP_SIGNING_AUTO,
	LP_SIGNING_MANDATORY,
	LP_SIGNING_DISABLED
};

/* `smb3 compression`: READ replies compressed when the client asks
 * (auto), always where they shrink (yes), or never (no; in [global] it
 * also leaves compression out of NEGOTIATE). */
enum lp_compress { LP_COMPRESS_AUTO, LP_COMPRESS_YES, LP_COMPRESS_NO };

enum lp_io_backend { LP_IO_URING, LP_IO_EPOLL };

/* `server smb encrypt` / `smb encrypt` (Samba's values) */
enum lp_encrypt {
	LP_ENCRYPT_DEFAULT,
	LP_ENCRYPT_OFF,
	LP_ENCRYPT_IF_REQUIRED,
	LP_ENCRYPT_DESIRED,
	LP_ENCRYPT_REQUIRED
};

/* `server role`: auto, standalone and member server (security = ads)
 * are supported by the daemon; the domain controller roles are not */
enum lp_server_role {
	LP_ROLE_AUTO,
	LP_ROLE_STANDALONE,
	LP_ROLE_MEMBER,
	LP_ROLE_CLASSIC_PDC,
	LP_ROLE_CLASSIC_BDC,
	LP_ROLE_ACTIVE_DIRECTORY_DC,
	LP_ROLE_IPA_DC
};

enum lp_security {
	LP_SEC_AUTO,
	LP_SEC_USER,
	LP_SEC_DOMAIN,
	LP_SEC_ADS
};

/* `kerberos method`: where the keys that decrypt service tickets come
 * from (security = ads).  Samba's default is secrets only. */
enum lp_kerberos_method {
	LP_KRB5_DEFAULT,
	LP_KRB5_SECRETS_ONLY,
	LP_KRB5_SYSTEM_KEYTAB,
	LP_KRB5_DEDICATED_KEYTAB,
	LP_KRB5_SECRETS_AND_KEYTAB
};

enum lp_map_to_guest {
	LP_MAP_TO_GUEST_NEVER,
	LP_MAP_TO_GUEST_BAD_USER,
	LP_MAP_TO_GUEST_BAD_PASSWORD,
	LP_MAP_TO_GUEST_BAD_UID
};

enum lp_ntlm_auth {
	LP_NTLM_AUTH_DISABLED,
	LP_NTLM_AUTH_NTLMV2_ONLY,
	LP_NTLM_AUTH_MSCHAPV2_AND_NTLMV2_ONLY,
	LP_NTLM_AUTH_NTLMV1_PERMITTED
};

/* `case sensitive` */
enum lp_case_sensitive { LP_CASE_AUTO, LP_CASE_YES, LP_CASE_NO };

/* `default case` */
enum lp_default_case { LP_CASE_LOWER, LP_CASE_UPPER };

/* `mangled names` */
enum lp_mangled_names {
	LP_MANGLED_NO,
	LP_MANGLED_YES,
	LP_MANGLED_ILLEGAL
};

/* `strict locking` */
enum lp_strict_locking {
	LP_STRICT_LOCKING_NO,
	LP_STRICT_LOCKING_YES,
	LP_STRICT_LOCKING_AUTO
};

/* `map readonly` */
enum lp_map_readonly {
	LP_MAP_READONLY_NO,
	LP_MAP_READONLY_YES,
	LP_MAP_READONLY_PERMISSIONS
};

/* `csc policy` (MS-SRVS 2.2.4.29 shi1005_flags CSC bits) */
enum lp_csc_policy {
	LP_CSC_MANUAL,
	LP_CSC_DOCUMENTS,
	LP_CSC_PROGRAMS,
	LP_CSC_DISABLE
};

/* `printing` (accepted, no print server yet) */
enum lp_printing {
	LP_PRINT_BSD,
	LP_PRINT_SYSV,
	LP_PRINT_HPUX,
	LP_PRINT_AIX,
	LP_PRINT_QNX,
	LP_PRINT_PLP,
	LP_PRINT_LPRNG,
	LP_PRINT_CUPS,
	LP_PRINT_IPRINT
};

/* A new context with every parameter at its built-in default, no shares. */
struct lp_ctx *lp_new(TALLOC_CTX *mem_ctx);

/*
 * `--option name=value`: validates and sets the [global] value; the file
 * cannot override it, and it stays in force across reloads.  False (with
 * a logged error) for an unknown name or an invalid value.
 */
bool lp_set_cmdline(struct lp_ctx *lp, const char *name, const char *value);

/* Load (or reload) from a file.  False: errors were logged. */
bool lp_load_file(struct lp_ctx *lp, const char *path);
/* The same from a string; label is used in messages like a file name. */
bool lp_load_string(struct lp_ctx *lp, const char *label, const char *text);
/* Reload the file last given to lp_load_file(). */
bool lp_reload(struct lp_ctx *lp);

/*
 * Never NULL ("" when unset).  Booleans read "Yes"/"No", enums canonical.
 * `volume` reads as the share name when not set.
 */
const char *lp_str(const struct lp_ctx *lp, int snum, enum lp_param p);
bool lp_bool(const struct lp_ctx *lp, int snum, enum lp_param p);
/* ints, enums, octal modes; `log level`: its first number */
int lp_int(const struct lp_ctx *lp, int snum, enum lp_param p);
/*
 * NULL-terminated, split on commas and whitespace, "quoted items" kept
 * whole (the quotes are removed).  NULL only when out of memory.
 */
const char **lp_list(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp, int snum,
		     enum lp_param p);
/*
 * A list whose items name values of the parameter's enum table (`server
 * smb3 encryption algorithms`): the values in the order written, at most
 * max of them; returns how many.  Validated when the file was read.
 */
size_t lp_enum_list(const struct lp_ctx *lp, int snum, enum lp_param p,
		    int *out, size_t max);
/*
 * Parametric options "module:option" (e.g. "acl_xattr:ignore system acls"),
 * looked up case-insensitively in the share, then [global]; def if unset.
 */
const char *lp_parm_str(const struct lp_ctx *lp, int snum,
			const char *module_colon_option, const char *def);
/* lp_parm_str() read as a boolean; def when unset or not a boolean. */
bool lp_parm_bool(const struct lp_ctx *lp, int snum,
		  const char *module_colon_option, bool def);
/* lp_parm_str() as a number, base as strtol's 0 (0700 octal, 0x hex, else
 * decimal); def when unset or not a whole number. */
int lp_parm_int(const struct lp_ctx *lp, int snum,
		const char *module_colon_option, int def);
/* lp_parm_str() as a size in bytes, "100", "10K", "2M", "1GB" (units of
 * 1024, as Samba's conv_str_size); def when unset or malformed. */
uint64_t lp_parm_bytes(const struct lp_ctx *lp, int snum,
		       const char *module_colon_option, uint64_t def);
/* lp_parm_str() split as lp_list() splits, and on ';' as Samba's
 * parametric lists are (an empty list when unset); NULL only when out of
 * memory. */
const char **lp_parm_list(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp,
			  int snum, const char *module_colon_option);
/* lp_str() with `%` substitution (see lp_substitute). */
char *lp_str_subst(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp, int snum,
		   enum lp_param p, const struct lp_subst *s);

int lp_num_shares(const struct lp_ctx *lp);
const char *lp_share_name(const struct lp_ctx *lp, int snum);
/* case-insensitive; -1 if none */
int lp_find_share(const struct lp_ctx *lp, const char *name);
/* Returns the snum (the existing one if the name exists), -1 on error. */
int lp_add_share(struct lp_ctx *lp, const char *name);
/*
 * A new share name with every value set in share src (the [homes] clone
 * for a user).  An existing share of that name is returned unchanged.
 * -1 on error.
 */
int lp_clone_share(struct lp_ctx *lp, int src, const char *name);
/*
 * Set a share parameter at run time; LP_GLOBAL sets the [global] value.
 * A string previously returned for that value is freed.
 */
bool lp_share_set(struct lp_ctx *lp, int snum, const char *name,
		  const char *value);
/* The file given to the last lp_load_file() (or the lp_load_string label) */
const char *lp_config_file(const struct lp_ctx *lp);

/*
 * testparm format, Samba-like: "# Global parameters", "[global]" then the
 * shares, "\tname = value" lines.  Without show_defaults only values that
 * differ from the default (for shares: from [global]) are printed.
 */
void lp_dump(const struct lp_ctx *lp, FILE *f, bool show_defaults);
/* One section of lp_dump(): [global] for LP_GLOBAL, else the share. */
void lp_dump_section(const struct lp_ctx *lp, int snum, FILE *f,
		     bool show_defaults);

/*
 * One warning per parameter flagged "accepted for compatibility, no effect
 * yet" (CONF_F_COMPAT) that the loaded configuration sets, in [global] or
 * in any share: smbd at start, testparm.  Returns how many.
 */
int lp_warn_compat(const struct lp_ctx *lp);

/*
 * Logic checks as testparm does them (min > max protocol, unsupported
 * server role or security, shares without path).  Problems are logged;
 * false when one of them is an error.
 */
bool lp_check(const struct lp_ctx *lp);
/*
 * The server is a domain member (Samba's ROLE_DOMAIN_MEMBER): security =
 * ads, or security = auto with server role = member server.  As in Samba
 * an explicit security decides over the role.
 */
bool lp_security_ads(const struct lp_ctx *lp);

/* Expand %U %G %H %S %P %m %I %L %h %v %T %D %u %g %N %$(VAR) %%. */
char *lp_substitute(TALLOC_CTX *mem_ctx, const struct lp_ctx *lp,
		    const char *str, const struct lp_subst *s);

/* Parameter names: the canonical name of an id, an id from any name or
 * synonym (-1 if unknown). */
const char *lp_param_name(enum lp_param p);
int lp_param_by_name(const char *name);

#endif
