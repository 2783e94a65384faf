/*
 * Fault injection for the file-system calls (design in fault.h).
 */
#include "vfs/fault.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct vfs_fault_table armed_table;
static bool armed_any;
static bool armed_op[VFS_FAULT_NOPS];

static const char *const op_names[VFS_FAULT_NOPS] = {
	[VFS_FAULT_OPEN] = "open",     [VFS_FAULT_READ] = "read",
	[VFS_FAULT_WRITE] = "write",   [VFS_FAULT_FSYNC] = "fsync",
	[VFS_FAULT_UNLINK] = "unlink", [VFS_FAULT_MKDIR] = "mkdir",
	[VFS_FAULT_RENAME] = "rename",
};

static const struct {
	const char *name;
	int err;
} err_names[] = {
	{"ENOSPC", ENOSPC}, {"EIO", EIO},	{"EMFILE", EMFILE},
	{"ENFILE", ENFILE}, {"EINTR", EINTR},	{"EACCES", EACCES},
	{"EPERM", EPERM},   {"EROFS", EROFS},	{"EDQUOT", EDQUOT},
	{"ENOMEM", ENOMEM}, {"EAGAIN", EAGAIN}, {"ENOENT", ENOENT},
	{"EFBIG", EFBIG},   {"EBUSY", EBUSY},
};

static bool parse_op(const char *s, size_t n, enum vfs_fault_op *op)
{
	unsigned i;

	for (i = 0; i < VFS_FAULT_NOPS; i++) {
		if (strlen(op_names[i]) == n && strncmp(op_names[i], s, n) == 0) {
			*op = (enum vfs_fault_op)i;
			return true;
		}
	}
	return false;
}

static bool parse_err(const char *s, size_t n, int *err)
{
	size_t i;

	for (i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++) {
		if (strlen(err_names[i].name) == n &&
		    strncmp(err_names[i].name, s, n) == 0) {
			*err = err_names[i].err;
			return true;
		}
	}
	return false;
}

/* SLEEP=MS: 1 to VFS_FAULT_SLEEP_MAX_MS milliseconds. */
static bool parse_sleep(const char *s, size_t n, unsigned *ms)
{
	static const char pre[] = "SLEEP=";
	char num[16], *e;
	long v;

	if (n <= sizeof(pre) - 1 || strncmp(s, pre, sizeof(pre) - 1) != 0) {
		return false;
	}
	s += sizeof(pre) - 1;
	n -= sizeof(pre) - 1;
	if (n >= sizeof(num) || s[0] < '0' || s[0] > '9') {
		return false;
	}
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	v = strtol(num, &e, 10);
	if (*e != '\0' || errno != 0 || v <= 0 ||
	    v > VFS_FAULT_SLEEP_MAX_MS) {
		return false;
	}
	*ms = (unsigned)v;
	return true;
}

/* One OP:ERRNO:MATCH[:COUNT] of length len at s. */
static bool parse_rule(const char *s, size_t len, struct vfs_fault_rule *r,
		       char *err, size_t errlen)
{
	const char *f[4];
	size_t flen[4];
	unsigned nf = 0;
	const char *p = s, *end = s + len;

	while (nf < 4) {
		const char *c = memchr(p, ':', (size_t)(end - p));

		f[nf] = p;
		flen[nf] = c != NULL ? (size_t)(c - p) : (size_t)(end - p);
		nf++;
		if (c == NULL) {
			break;
		}
		p = c + 1;
	}
	if (nf < 3 || (nf == 4 && f[3] + flen[3] != end)) {
		snprintf(err, errlen, "'%.*s': want OP:ERRNO:MATCH[:COUNT]",
			 (int)len, s);
		return false;
	}
	if (!parse_op(f[0], flen[0], &r->op)) {
		snprintf(err, errlen, "'%.*s': unknown call '%.*s'", (int)len,
			 s, (int)flen[0], f[0]);
		return false;
	}
	r->err = 0;
	r->sleep_ms = 0;
	if (!parse_err(f[1], flen[1], &r->err) &&
	    !parse_sleep(f[1], flen[1], &r->sleep_ms)) {
		snprintf(err, errlen,
			 "'%.*s': unknown errno '%.*s' (or SLEEP=1-%d)",
			 (int)len, s, (int)flen[1], f[1],
			 VFS_FAULT_SLEEP_MAX_MS);
		return false;
	}
	if (flen[2] == 0 || flen[2] >= sizeof(r->match)) {
		snprintf(err, errlen, "'%.*s': MATCH must be 1-%zu bytes",
			 (int)len, s, sizeof(r->match) - 1);
		return false;
	}
	memcpy(r->match, f[2], flen[2]);
	r->match[flen[2]] = '\0';
	r->left = -1;
	if (nf == 4) {
		char num[16], *e;
		long v;

		if (flen[3] == 0 || flen[3] >= sizeof(num)) {
			snprintf(err, errlen, "'%.*s': bad COUNT", (int)len, s);
			return false;
		}
		memcpy(num, f[3], flen[3]);
		num[flen[3]] = '\0';
		errno = 0;
		v = strtol(num, &e, 10);
		if (*e != '\0' || errno != 0 || v <= 0) {
			snprintf(err, errlen, "'%.*s': bad COUNT", (int)len, s);
			return false;
		}
		r->left = v;
	}
	return true;
}

bool vfs_fault_parse(const char *spec, struct vfs_fault_table *out,
		     char *err, size_t errlen)
{
	const char *p = spec;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c != NULL ? (size_t)(c - p) : strlen(p);

		if (out->nrules == VFS_FAULT_MAX_RULES) {
			snprintf(err, errlen, "more than %d rules",
				 VFS_FAULT_MAX_RULES);
			return false;
		}
		if (!parse_rule(p, n, &out->rules[out->nrules], err, errlen)) {
			return false;
		}
		out->nrules++;
		if (c == NULL) {
			break;
		}
		p = c + 1;
	}
	return true;
}

void vfs_fault_arm(const struct vfs_fault_table *t)
{
	unsigned i;

	memset(armed_op, 0, sizeof(armed_op));
	memset(&armed_table, 0, sizeof(armed_table));
	armed_any = false;
	if (t == NULL) {
		return;
	}
	armed_table = *t;
	for (i = 0; i < t->nrules; i++) {
		armed_op[t->rules[i].op] = true;
	}
	armed_any = t->nrules > 0;
}

bool vfs_fault_arm_from_env(char *err, size_t errlen)
{
	const char *spec = getenv("SMBD_FAULT_INJECT");
	struct vfs_fault_table t;

	if (spec == NULL || spec[0] == '\0') {
		return true;
	}
	if (!vfs_fault_parse(spec, &t, err, errlen)) {
		return false;
	}
	vfs_fault_arm(&t);
	return true;
}

bool vfs_fault_armed(enum vfs_fault_op op)
{
	return armed_any && armed_op[op];
}

/* Take one of the rule's remaining failures (any thread). */
static bool rule_take(struct vfs_fault_rule *r)
{
	long left = __atomic_load_n(&r->left, __ATOMIC_RELAXED);

	while (left != -1) {
		if (left == 0) {
			return false;
		}
		if (__atomic_compare_exchange_n(&r->left, &left, left - 1, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			return true;
		}
	}
	return true;
}

int vfs_fault_decide(enum vfs_fault_op op, const char *path,
		     unsigned *sleep_ms)
{
	unsigned i;

	*sleep_ms = 0;
	if (!armed_any || !armed_op[op] || path == NULL) {
		return 0;
	}
	for (i = 0; i < armed_table.nrules; i++) {
		struct vfs_fault_rule *r = &armed_table.rules[i];

		if (r->op != op || strstr(path, r->match) == NULL ||
		    !rule_take(r)) {
			continue;
		}
		if (r->sleep_ms == 0) {
			return r->err;
		}
		/* at most 8 rules of 10 minutes: no overflow */
		*sleep_ms += r->sleep_ms;
	}
	return 0;
}

static int fault_hit_path(enum vfs_fault_op op, const char *path)
{
	unsigned ms;
	int err = vfs_fault_decide(op, path, &ms);

	if (ms > 0) {
		struct timespec ts = {.tv_sec = ms / 1000,
				      .tv_nsec = (long)(ms % 1000) * 1000000};

		/* the rest of it after a signal: the wait is the test's */
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
		}
	}
	return err;
}

int vfs_fault_hit(enum vfs_fault_op op, const char *path, int fd)
{
	char buf[PATH_MAX];

	if (!armed_any || !armed_op[op]) {
		return 0;
	}
	if (path == NULL && fd != -1) {
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n < 0) {
			return 0;
		}
		buf[n] = '\0';
		path = buf;
	}
	return fault_hit_path(op, path);
}

int vfs_fault_hit_at(enum vfs_fault_op op, int dirfd, const char *path)
{
	char buf[PATH_MAX], link[64];
	ssize_t n;

	if (!armed_any || !armed_op[op]) {
		return 0;
	}
	if (path[0] == '/' || dirfd < 0) {
		return fault_hit_path(op, path);
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0 ||
	    (size_t)n + 1 + strlen(path) >= sizeof(buf)) {
		/* the relative path still matches what it holds */
		return fault_hit_path(op, path);
	}
	buf[n] = '/';
	memcpy(buf + n + 1, path, strlen(path) + 1);
	return fault_hit_path(op, buf);
}
