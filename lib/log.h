/*
 * Logging with Samba's debug levels: 0 errors, 1 warnings, 3 notices,
 * 5 information, 10 debugging, and Samba's debug classes: `log level =
 * 1 auth:3 passdb:2` sets every class to 1, then auth to 3 and passdb to
 * 2.  A line is written when its level is at most its class's level; the
 * check is a single compare, so disabled debug lines cost nothing more.
 *
 * A source file picks its class once, after its includes:
 *
 *	#undef DBGC_CLASS
 *	#define DBGC_CLASS LOG_CLASS_AUTH
 *
 * and its DBG_ERR ... DBG_DEBUG lines then use it; without that they use
 * class "all".  DBGC_NOTICE(LOG_CLASS_AUTH_AUDIT, ...) and friends name
 * the class at the call.
 *
 * Lines go to the log file (`log file`, or -l DIR/log.smbd) or, with
 * --debug-stdout / -i, to stdout.  Each line carries a timestamp, the pid,
 * the process role ("master", "worker 3"), the level and the function.
 *
 * Per-client files (`log file = /var/log/samba/log.%m`): a connection
 * opens a client file with log_client_open() (its path already
 * substituted by the caller) and lines logged while it is the current
 * one (log_set_current) go there.  At most LOG_MAX_OPEN_FILES client files
 * are open at a time per process; the least recently written is closed
 * and reopened when next needed.  Each file rotates by itself at `max
 * log size` (NAME -> NAME.old).  A class with its own file (see
 * log_parse_spec) writes there from the process's main thread; lines of
 * other threads go to the main file, as the table is the main thread's.
 */
#ifndef LIB_LOG_H
#define LIB_LOG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Samba 4.17's debug classes (lib/util/debug.h DBGC_*), in its order and
 * with its names, so every `log level` an admin wrote for Samba parses.
 * The ones our code logs under: all, tdb, passdb, auth, vfs, acls,
 * locking, rpc_srv, smb2, smb2_credits, auth_audit, auth_json_audit.
 */
enum log_class {
	LOG_CLASS_ALL,
	LOG_CLASS_TDB,
	LOG_CLASS_PRINTDRIVERS,
	LOG_CLASS_LANMAN,
	LOG_CLASS_SMB,
	LOG_CLASS_RPC_PARSE,
	LOG_CLASS_RPC_SRV,
	LOG_CLASS_RPC_CLI,
	LOG_CLASS_PASSDB,
	LOG_CLASS_SAM,
	LOG_CLASS_AUTH,
	LOG_CLASS_WINBIND,
	LOG_CLASS_VFS,
	LOG_CLASS_IDMAP,
	LOG_CLASS_QUOTA,
	LOG_CLASS_ACLS,
	LOG_CLASS_LOCKING,
	LOG_CLASS_MSDFS,
	LOG_CLASS_DMAPI,
	LOG_CLASS_REGISTRY,
	LOG_CLASS_SCAVENGER,
	LOG_CLASS_DNS,
	LOG_CLASS_LDB,
	LOG_CLASS_TEVENT,
	LOG_CLASS_AUTH_AUDIT,
	LOG_CLASS_AUTH_AUDIT_JSON,
	LOG_CLASS_KERBEROS,
	LOG_CLASS_DRS_REPL,
	LOG_CLASS_SMB2,
	LOG_CLASS_SMB2_CREDITS,
	LOG_CLASS_DSDB_AUDIT,
	LOG_CLASS_DSDB_AUDIT_JSON,
	LOG_CLASS_DSDB_PWD_AUDIT,
	LOG_CLASS_DSDB_PWD_AUDIT_JSON,
	LOG_CLASS_DSDB_TXN_AUDIT,
	LOG_CLASS_DSDB_TXN_AUDIT_JSON,
	LOG_CLASS_DSDB_GROUP_AUDIT,
	LOG_CLASS_DSDB_GROUP_AUDIT_JSON,
	LOG_CLASS__COUNT
};

/* The level of class "all" (what -d N and `log level = N` set). */
extern int log_level;
/* Every class's level; [LOG_CLASS_ALL] is log_level's value. */
extern int log_class_level[LOG_CLASS__COUNT];

#define LOG_ERR 0
#define LOG_WARNING 1
#define LOG_NOTICE 3
#define LOG_INFO 5
#define LOG_DEBUG 10

/* The highest level a class takes (Samba's MAX_DEBUG_LEVEL). */
#define LOG_LEVEL_MAX 1000

/* Samba's name of a class; NULL out of range. */
const char *log_class_name(enum log_class c);
/* A class by name (case-insensitive); -1 if Samba has none of that name. */
int log_class_by_name(const char *name);

/*
 * Parse a `log level` value as Samba does: an optional leading number for
 * every class, then "class:level" items (separated by spaces, tabs or
 * commas; "all:N" sets every class not named before it).  Classes not
 * named take the leading number (0 without one).  On success fills
 * levels[] and returns true; on a malformed item or a class Samba does
 * not have returns false and, when err is given, names the item there.
 *
 * "class:level@FILE" (Samba 4.13 and later) also sends that class's lines
 * to FILE instead of the log file: log_parse_spec() returns where each
 * class's FILE is in spec (offset and length, 0 when none).  Not for
 * "all" or the leading number (the log file is theirs).
 */
struct log_spec {
	int level[LOG_CLASS__COUNT];
	size_t file_off[LOG_CLASS__COUNT];
	size_t file_len[LOG_CLASS__COUNT];
};
bool log_parse_spec(const char *spec, struct log_spec *out, char *err,
		    size_t errlen);
bool log_parse_levels(const char *spec, int levels[LOG_CLASS__COUNT],
		      char *err, size_t errlen);

/* Every class to level (-d N). */
void log_set_level(int level);
/* As log_parse_spec(), then applied, class files included (opened when
 * first written); false leaves the levels and files alone. */
bool log_set_levels(const char *spec);
/* path NULL or "-" means stdout. Returns 0, or -1 with errno. */
int log_set_file(const char *path);
void log_set_max_size_kb(unsigned long kb);
void log_set_role(const char *role);
/* While on, level-0 lines (DBG_ERR) also go to stderr, without the
 * prefix: the daemon's start-up, so an admin sees why it did not start
 * without looking for the log file. */
void log_set_errors_to_stderr(int on);
/* The fd lines currently go to, for the crash handler. */
int log_fd(void);
/* Reopen the main file and close every client file (SIGHUP, logrotate). */
void log_reopen(void);

/* The most client files open at once in one process. */
#define LOG_MAX_OPEN_FILES 16

/*
 * A handle (>= 0) for a client log file at path, shared by every caller
 * naming the same path (counted); -1 when path is NULL/empty or the
 * handle table is full (lines then go to the main file).  The file is
 * opened when a line is first written to it.
 */
int log_client_open(const char *path);
void log_client_close(int handle);
/* Lines go to handle's file from now on (-1: the main file); returns the
 * previous current handle, to restore. */
int log_set_current(int handle);

void log_msg(enum log_class cls, int level, const char *func,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * strerror(errno): the text of the error of the C library call that just
 * failed, for a log line ("cannot open %s: %s\n", path, log_syserr()).
 * errno stays in lib/ and vfs/ (issue 37); a caller above that only
 * prints the error asks here, right after the failed call, as it would
 * have read errno.
 */
const char *log_syserr(void);

#define LOG_CLASS_AT(cls, lvl, ...)                                           \
	do {                                                                  \
		if ((lvl) <= log_class_level[(cls)]) {                        \
			log_msg((cls), (lvl), __func__, __VA_ARGS__);         \
		}                                                             \
	} while (0)

#ifndef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_ALL
#endif

#define LOG_AT(lvl, ...) LOG_CLASS_AT(DBGC_CLASS, (lvl), __VA_ARGS__)

#define DBG_ERR(...) LOG_AT(LOG_ERR, __VA_ARGS__)
#define DBG_WARNING(...) LOG_AT(LOG_WARNING, __VA_ARGS__)
#define DBG_NOTICE(...) LOG_AT(LOG_NOTICE, __VA_ARGS__)
#define DBG_INFO(...) LOG_AT(LOG_INFO, __VA_ARGS__)
#define DBG_DEBUG(...) LOG_AT(LOG_DEBUG, __VA_ARGS__)

#define DBGC_ERR(cls, ...) LOG_CLASS_AT((cls), LOG_ERR, __VA_ARGS__)
#define DBGC_WARNING(cls, ...) LOG_CLASS_AT((cls), LOG_WARNING, __VA_ARGS__)
#define DBGC_NOTICE(cls, ...) LOG_CLASS_AT((cls), LOG_NOTICE, __VA_ARGS__)
#define DBGC_INFO(cls, ...) LOG_CLASS_AT((cls), LOG_INFO, __VA_ARGS__)
#define DBGC_DEBUG(cls, ...) LOG_CLASS_AT((cls), LOG_DEBUG, __VA_ARGS__)

#endif
