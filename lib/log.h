/*
 * Logging with Samba's debug levels: 0 errors, 1 warnings, 3 notices,
 * 5 information, 10 debugging.  `log level` / -d set the threshold; the
 * check is a single compare so disabled debug lines cost nothing more.
 *
 * Lines go to the log file (`log file`, or -l DIR/log.smbd) or, with
 * --debug-stdout / -i, to stdout.  Each line carries a timestamp, the pid,
 * the process role ("master", "worker 3"), the level and the function.
 */
#ifndef LIB_LOG_H
#define LIB_LOG_H

#include <stdbool.h>
#include <stddef.h>

extern int log_level;

#define LOG_ERR 0
#define LOG_WARNING 1
#define LOG_NOTICE 3
#define LOG_INFO 5
#define LOG_DEBUG 10

void log_set_level(int level);
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
void log_reopen(void);

void log_msg(int level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define LOG_AT(lvl, ...)                                                      \
	do {                                                                  \
		if ((lvl) <= log_level) {                                     \
			log_msg((lvl), __func__, __VA_ARGS__);                \
		}                                                             \
	} while (0)

#define DBG_ERR(...) LOG_AT(LOG_ERR, __VA_ARGS__)
#define DBG_WARNING(...) LOG_AT(LOG_WARNING, __VA_ARGS__)
#define DBG_NOTICE(...) LOG_AT(LOG_NOTICE, __VA_ARGS__)
#define DBG_INFO(...) LOG_AT(LOG_INFO, __VA_ARGS__)
#define DBG_DEBUG(...) LOG_AT(LOG_DEBUG, __VA_ARGS__)

#endif
