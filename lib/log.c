/*
 * Logging: one write(2) per line so lines from the master and the workers,
 * which share the file, never interleave mid-line (O_APPEND).
 */
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int log_level = 1;

static int log_out_fd = STDOUT_FILENO;
static char log_path[4096];
static unsigned long log_max_kb = 5000;
static char log_role[32] = "smbd";
static int log_errors_to_stderr;

void log_set_errors_to_stderr(int on)
{
	log_errors_to_stderr = on;
}

void log_set_level(int level)
{
	log_level = level;
}

void log_set_role(const char *role)
{
	snprintf(log_role, sizeof(log_role), "%s", role);
}

void log_set_max_size_kb(unsigned long kb)
{
	log_max_kb = kb;
}

int log_fd(void)
{
	return log_out_fd;
}

int log_set_file(const char *path)
{
	int fd;

	if (path == NULL || strcmp(path, "-") == 0) {
		if (log_out_fd != STDOUT_FILENO && log_out_fd != STDERR_FILENO) {
			close(log_out_fd);
		}
		log_out_fd = STDOUT_FILENO;
		log_path[0] = '\0';
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd == -1) {
		return -1;
	}
	if (log_out_fd != STDOUT_FILENO && log_out_fd != STDERR_FILENO) {
		close(log_out_fd);
	}
	log_out_fd = fd;
	snprintf(log_path, sizeof(log_path), "%s", path);
	return 0;
}

void log_reopen(void)
{
	if (log_path[0] != '\0') {
		char p[sizeof(log_path)];
		memcpy(p, log_path, sizeof(p));
		(void)log_set_file(p);
	}
}

/*
 * `max log size` (kB): when the file grows past it, rename it to NAME.old
 * and start a new one, as Samba does.  Checked every 256 lines to keep
 * fstat off the common path.
 */
static void log_check_size(void)
{
	static unsigned int count;
	struct stat st;
	char old[sizeof(log_path) + 8];

	if (log_path[0] == '\0' || log_max_kb == 0 || (++count & 255) != 0) {
		return;
	}
	if (fstat(log_out_fd, &st) != 0 ||
	    (unsigned long)st.st_size / 1024 < log_max_kb) {
		return;
	}
	snprintf(old, sizeof(old), "%s.old", log_path);
	if (rename(log_path, old) == 0) {
		log_reopen();
	}
}

void log_msg(int level, const char *func, const char *fmt, ...)
{
	char line[2048];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m, pre;
	int saved_errno = errno;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "[%04d/%02d/%02d %02d:%02d:%02d.%03ld, %d] %s[%d] %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, level, log_role,
		     (int)getpid(), func);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		n = 0;
	}
	pre = n;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0) {
		m = 0;
	}
	n += m;
	if ((size_t)n > sizeof(line) - 2) {
		n = (int)sizeof(line) - 2;
	}
	if (n > 0 && line[n - 1] != '\n') {
		line[n++] = '\n';
	}
	(void)!write(log_out_fd, line, (size_t)n);
	if (level == 0 && log_errors_to_stderr && log_out_fd != STDOUT_FILENO &&
	    log_out_fd != STDERR_FILENO && n > pre) {
		(void)!write(STDERR_FILENO, "smbd: ", 6);
		(void)!write(STDERR_FILENO, line + pre, (size_t)(n - pre));
	}
	log_check_size();
	errno = saved_errno;
}
