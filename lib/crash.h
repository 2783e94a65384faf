/*
 * Crash handler: on SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT write a libunwind
 * backtrace to the log and run `panic action` (with %d replaced by the
 * pid), then die with the original signal so the exit status tells.
 */
#ifndef LIB_CRASH_H
#define LIB_CRASH_H

void crash_handler_install(const char *panic_action);
void crash_set_panic_action(const char *panic_action);
/* Write a backtrace of the calling thread to fd (async-signal-safe). */
void crash_backtrace(int fd);

#endif
