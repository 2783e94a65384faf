/*
 * An LD_PRELOAD shim for test_zerocopy.py: the server sees a kernel
 * without cachestat(2) (Linux before 6.5, Debian 12's 6.1), whose
 * syscall answers ENOSYS, on a kernel that has it.  vfs/handle_posix.c
 * calls it through glibc's syscall(), which this one stands in for;
 * every other number goes on to glibc's.  Only a test loads it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>

#define NR_CACHESTAT 451

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;
	int i;

	if (nr == NR_CACHESTAT) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, nr);
	for (i = 0; i < 6; i++) {
		a[i] = va_arg(ap, long);
	}
	va_end(ap);
	if (next == NULL) {
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
