/*
 * Crash handler (see crash.h).  Only async-signal-safe calls after the
 * signal: write(2), libunwind's local unwinder, fork/exec for the panic
 * action.  The panic action string is formatted at install time.
 */
#define UNW_LOCAL_ONLY
#include "lib/crash.h"
#include "lib/log.h"

#include <libunwind.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char panic_cmd[1024];

static void crash_write(int fd, const char *s)
{
	(void)!write(fd, s, strlen(s));
}

/* Format an unsigned number without stdio (signal context). */
static void crash_fmt_hex(char *out, unsigned long v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20];
	int n = 0, i = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v != 0 && n < (int)sizeof(tmp));
	out[i++] = '0';
	out[i++] = 'x';
	while (n > 0) {
		out[i++] = tmp[--n];
	}
	out[i] = '\0';
}

static void crash_fmt_dec(char *out, unsigned long v)
{
	char tmp[24];
	int n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && n < (int)sizeof(tmp));
	while (n > 0) {
		out[i++] = tmp[--n];
	}
	out[i] = '\0';
}

void crash_backtrace(int fd)
{
	unw_cursor_t cursor;
	unw_context_t uc;
	char name[256], num[24];
	int depth = 0;

	if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0) {
		crash_write(fd, "  (no backtrace: libunwind failed)\n");
		return;
	}
	while (unw_step(&cursor) > 0 && depth < 64) {
		unw_word_t ip = 0, off = 0;

		unw_get_reg(&cursor, UNW_REG_IP, &ip);
		crash_write(fd, "  #");
		crash_fmt_dec(num, (unsigned long)depth++);
		crash_write(fd, num);
		crash_write(fd, " ");
		crash_fmt_hex(num, (unsigned long)ip);
		crash_write(fd, num);
		if (unw_get_proc_name(&cursor, name, sizeof(name), &off) == 0) {
			crash_write(fd, " ");
			crash_write(fd, name);
			crash_write(fd, "+");
			crash_fmt_hex(num, (unsigned long)off);
			crash_write(fd, num);
		}
		crash_write(fd, "\n");
	}
}

static void crash_run_panic_action(void)
{
	pid_t pid;

	if (panic_cmd[0] == '\0') {
		return;
	}
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", panic_cmd, (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		int st;
		(void)waitpid(pid, &st, 0);
	}
}

static void crash_signal(int sig)
{
	int fd = log_fd();
	char num[24];

	crash_write(fd, "===============================================\n");
	crash_write(fd, "PANIC: caught signal ");
	crash_fmt_dec(num, (unsigned long)sig);
	crash_write(fd, num);
	crash_write(fd, " in pid ");
	crash_fmt_dec(num, (unsigned long)getpid());
	crash_write(fd, num);
	crash_write(fd, "\nBACKTRACE:\n");
	crash_backtrace(fd);
	crash_write(fd, "===============================================\n");
	crash_run_panic_action();
	/* Die with the same signal: the master logs it and restarts us. */
	signal(sig, SIG_DFL);
	raise(sig);
}

void crash_set_panic_action(const char *panic_action)
{
	size_t o = 0;
	const char *p;
	char pid[16];

	panic_cmd[0] = '\0';
	if (panic_action == NULL) {
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	/* Samba substitutes %d with the pid of the crashed process. */
	for (p = panic_action; *p != '\0' && o + 16 < sizeof(panic_cmd); p++) {
		if (p[0] == '%' && p[1] == 'd') {
			o += (size_t)snprintf(panic_cmd + o,
					      sizeof(panic_cmd) - o, "%s", pid);
			p++;
			continue;
		}
		panic_cmd[o++] = *p;
	}
	panic_cmd[o] = '\0';
}

void crash_handler_install(const char *panic_action)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	static char altstack[64 * 1024];
	struct sigaction sa;
	stack_t ss;
	size_t i;

	crash_set_panic_action(panic_action);
	/* An alternate stack so a stack overflow can still be reported. */
	ss.ss_sp = altstack;
	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 0;
	(void)sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_signal;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
	}
}
