/*
 * Invariant checks, as HAProxy's BUG_ON: a condition that holds only when
 * the code itself is wrong (a reference count going below zero, credits
 * the sequence window cannot hold), never one that input from a client
 * or a file can make true (that is an NTSTATUS, not a bug).  A hit logs
 * the file, line and condition at level 0 and aborts, so the crash
 * handler (lib/crash.h) prints the backtrace and the master replaces the
 * worker: a worker that has lost track of its own state must not go on
 * serving files.
 *
 * On in every build by default (the check is one predictable branch;
 * HAProxy keeps its cheap ones on in production for the same reason);
 * `configure --disable-invariants` compiles the conditions out, unevaluated.
 * Put a BUG_ON only where the condition costs no call and has no side
 * effect.
 */
#ifndef LIB_BUG_H
#define LIB_BUG_H

#ifndef SMBD_NO_INVARIANTS
#define BUG_ON(cond)                                                          \
	do {                                                                  \
		if (__builtin_expect(!!(cond), 0)) {                          \
			bug_hit(__FILE__, __LINE__, #cond);                   \
		}                                                             \
	} while (0)
#else
#define BUG_ON(cond)                                                          \
	do {                                                                  \
		(void)sizeof(!!(cond));                                       \
	} while (0)
#endif

/* Log "BUG at FILE:LINE: COND" at level 0 and abort(). */
void bug_hit(const char *file, int line, const char *cond)
	__attribute__((noreturn, cold));

#endif
