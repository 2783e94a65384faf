/*
 * Logging: one write(2) per line so lines from the master and the workers,
 * which share the file, never interleave mid-line (O_APPEND).
 *
 * Debug classes and `log level` parsing follow Samba's debug.c behaviour
 * (see log.h); client files (`log file` with %m) are kept in a small
 * table of counted handles with at most LOG_MAX_OPEN_FILES descriptors
 * open: a worker serves many clients, and one descriptor per client
 * machine would let clients spend the worker's descriptors.
 */
#include "lib/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int log_level = 1;
int log_class_level[LOG_CLASS__COUNT] = {
	[0 ... LOG_CLASS__COUNT - 1] = 1,
};

static const char *const log_class_names[LOG_CLASS__COUNT] = {
	[LOG_CLASS_ALL] = "all",
	[LOG_CLASS_TDB] = "tdb",
	[LOG_CLASS_PRINTDRIVERS] = "printdrivers",
	[LOG_CLASS_LANMAN] = "lanman",
	[LOG_CLASS_SMB] = "smb",
	[LOG_CLASS_RPC_PARSE] = "rpc_parse",
	[LOG_CLASS_RPC_SRV] = "rpc_srv",
	[LOG_CLASS_RPC_CLI] = "rpc_cli",
	[LOG_CLASS_PASSDB] = "passdb",
	[LOG_CLASS_SAM] = "sam",
	[LOG_CLASS_AUTH] = "auth",
	[LOG_CLASS_WINBIND] = "winbind",
	[LOG_CLASS_VFS] = "vfs",
	[LOG_CLASS_IDMAP] = "idmap",
	[LOG_CLASS_QUOTA] = "quota",
	[LOG_CLASS_ACLS] = "acls",
	[LOG_CLASS_LOCKING] = "locking",
	[LOG_CLASS_MSDFS] = "msdfs",
	[LOG_CLASS_DMAPI] = "dmapi",
	[LOG_CLASS_REGISTRY] = "registry",
	[LOG_CLASS_SCAVENGER] = "scavenger",
	[LOG_CLASS_DNS] = "dns",
	[LOG_CLASS_LDB] = "ldb",
	[LOG_CLASS_TEVENT] = "tevent",
	[LOG_CLASS_AUTH_AUDIT] = "auth_audit",
	[LOG_CLASS_AUTH_AUDIT_JSON] = "auth_json_audit",
	[LOG_CLASS_KERBEROS] = "kerberos",
	[LOG_CLASS_DRS_REPL] = "drs_repl",
	[LOG_CLASS_SMB2] = "smb2",
	[LOG_CLASS_SMB2_CREDITS] = "smb2_credits",
	[LOG_CLASS_DSDB_AUDIT] = "dsdb_audit",
	[LOG_CLASS_DSDB_AUDIT_JSON] = "dsdb_json_audit",
	[LOG_CLASS_DSDB_PWD_AUDIT] = "dsdb_password_audit",
	[LOG_CLASS_DSDB_PWD_AUDIT_JSON] = "dsdb_password_json_audit",
	[LOG_CLASS_DSDB_TXN_AUDIT] = "dsdb_transaction_audit",
	[LOG_CLASS_DSDB_TXN_AUDIT_JSON] = "dsdb_transaction_json_audit",
	[LOG_CLASS_DSDB_GROUP_AUDIT] = "dsdb_group_audit",
	[LOG_CLASS_DSDB_GROUP_AUDIT_JSON] = "dsdb_group_json_audit",
};

/* One log file: the main one or a client one. */
struct log_file {
	char path[PATH_MAX];
	int fd;            /* -1: not open now */
	unsigned refs;     /* client files: log_client_open() callers */
	unsigned lines;    /* since the last size check */
	unsigned long used; /* LRU stamp */
};

static struct log_file log_main = {.fd = STDOUT_FILENO};
/* Handles: one per distinct path in use.  Bounded by the connections a
 * process holds, which conn_limits bounds. */
#define LOG_MAX_CLIENT_HANDLES 4096
static struct log_file *log_clients[LOG_MAX_CLIENT_HANDLES];
static unsigned log_nopen;
static unsigned long log_stamp;
/* Per thread: the pool threads (lib/tpool.c) run with a user's ids and
 * always log to the main file; only the loop thread switches files. */
static __thread int log_current = -1;
/* "class:N@FILE": the class's client handle + 1, 0 for none. */
static int log_class_file[LOG_CLASS__COUNT];
static unsigned long log_max_kb = 5000;
static char log_role[32] = "smbd";
static int log_errors_to_stderr;

const char *log_class_name(enum log_class c)
{
	if ((unsigned)c >= LOG_CLASS__COUNT) {
		return NULL;
	}
	return log_class_names[c];
}

int log_class_by_name(const char *name)
{
	int i;

	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		if (strcasecmp(name, log_class_names[i]) == 0) {
			return i;
		}
	}
	return -1;
}

/* A level: decimal digits only, at most LOG_LEVEL_MAX. */
static bool parse_level(const char *s, size_t n, int *out)
{
	int v = 0;
	size_t i;

	if (n == 0) {
		return false;
	}
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return false;
		}
		v = v * 10 + (s[i] - '0');
		if (v > LOG_LEVEL_MAX) {
			return false;
		}
	}
	*out = v;
	return true;
}

static void parse_error(char *err, size_t errlen, const char *tok, size_t n)
{
	if (err != NULL && errlen > 0) {
		snprintf(err, errlen, "%.*s", (int)(n > 200 ? 200 : n), tok);
	}
}

bool log_parse_spec(const char *spec, struct log_spec *out, char *err,
		    size_t errlen)
{
	bool named[LOG_CLASS__COUNT] = {false};
	const char *p = spec;
	bool first = true;
	int i;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const char *tok, *colon, *at;
		size_t n, ln;
		int lvl, cls;
		char name[32];

		while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\n' ||
		       *p == '\r') {
			p++;
		}
		if (*p == '\0') {
			return true;
		}
		tok = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != ',' &&
		       *p != '\n' && *p != '\r') {
			p++;
		}
		n = (size_t)(p - tok);
		colon = memchr(tok, ':', n);
		at = colon != NULL ? memchr(colon, '@', n - (size_t)(colon - tok))
				   : NULL;
		if (colon == NULL) {
			/* A bare number is only Samba's leading "N". */
			if (!first || !parse_level(tok, n, &lvl)) {
				parse_error(err, errlen, tok, n);
				return false;
			}
			cls = LOG_CLASS_ALL;
		} else {
			size_t cn = (size_t)(colon - tok);

			ln = (at != NULL ? (size_t)(at - colon) : n - cn) - 1;
			if (cn == 0 || cn >= sizeof(name) ||
			    !parse_level(colon + 1, ln, &lvl) ||
			    (at != NULL &&
			     (at + 1 == tok + n ||
			      (size_t)(tok + n - (at + 1)) >= PATH_MAX))) {
				parse_error(err, errlen, tok, n);
				return false;
			}
			memcpy(name, tok, cn);
			name[cn] = '\0';
			cls = log_class_by_name(name);
			if (cls < 0 || (cls == LOG_CLASS_ALL && at != NULL)) {
				parse_error(err, errlen, tok, n);
				return false;
			}
		}
		first = false;
		if (cls == LOG_CLASS_ALL) {
			/* Every class not named so far; later items still
			 * override it. */
			for (i = 0; i < LOG_CLASS__COUNT; i++) {
				if (!named[i]) {
					out->level[i] = lvl;
				}
			}
			continue;
		}
		out->level[cls] = lvl;
		named[cls] = true;
		out->file_off[cls] = 0;
		out->file_len[cls] = 0;
		if (at != NULL) {
			out->file_off[cls] = (size_t)(at + 1 - spec);
			out->file_len[cls] = (size_t)(tok + n - (at + 1));
		}
	}
}

bool log_parse_levels(const char *spec, int levels[LOG_CLASS__COUNT],
		      char *err, size_t errlen)
{
	struct log_spec sp;

	if (!log_parse_spec(spec, &sp, err, errlen)) {
		return false;
	}
	memcpy(levels, sp.level, sizeof(sp.level));
	return true;
}

void log_set_errors_to_stderr(int on)
{
	log_errors_to_stderr = on;
}

void log_set_level(int level)
{
	int i;

	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		log_class_level[i] = level;
	}
	log_level = level;
}

bool log_set_levels(const char *spec)
{
	struct log_spec sp;
	int files[LOG_CLASS__COUNT];
	int i;

	if (!log_parse_spec(spec, &sp, NULL, 0)) {
		return false;
	}
	/* The new class files first: one named again keeps its handle. */
	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		char path[PATH_MAX];

		files[i] = 0;
		if (sp.file_len[i] == 0 || sp.file_len[i] >= sizeof(path)) {
			continue;
		}
		memcpy(path, spec + sp.file_off[i], sp.file_len[i]);
		path[sp.file_len[i]] = '\0';
		files[i] = log_client_open(path) + 1;
	}
	for (i = 0; i < LOG_CLASS__COUNT; i++) {
		if (log_class_file[i] != 0) {
			log_client_close(log_class_file[i] - 1);
		}
		log_class_file[i] = files[i];
	}
	memcpy(log_class_level, sp.level, sizeof(sp.level));
	log_level = sp.level[LOG_CLASS_ALL];
	return true;
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
	return log_main.fd;
}

static int log_open_path(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY,
		    0644);
}

int log_set_file(const char *path)
{
	int fd;

	if (path == NULL || strcmp(path, "-") == 0) {
		if (log_main.fd != STDOUT_FILENO &&
		    log_main.fd != STDERR_FILENO) {
			close(log_main.fd);
		}
		log_main.fd = STDOUT_FILENO;
		log_main.path[0] = '\0';
		return 0;
	}
	if (strlen(path) >= sizeof(log_main.path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = log_open_path(path);
	if (fd == -1) {
		return -1;
	}
	if (log_main.fd != STDOUT_FILENO && log_main.fd != STDERR_FILENO) {
		close(log_main.fd);
	}
	log_main.fd = fd;
	snprintf(log_main.path, sizeof(log_main.path), "%s", path);
	return 0;
}

static void log_file_close(struct log_file *f)
{
	if (f->fd != -1) {
		close(f->fd);
		f->fd = -1;
		log_nopen--;
	}
}

void log_reopen(void)
{
	unsigned i;

	if (log_main.path[0] != '\0') {
		char p[sizeof(log_main.path)];

		memcpy(p, log_main.path, sizeof(p));
		(void)log_set_file(p);
	}
	for (i = 0; i < LOG_MAX_CLIENT_HANDLES; i++) {
		if (log_clients[i] != NULL) {
			log_file_close(log_clients[i]);
		}
	}
}

int log_client_open(const char *path)
{
	int i, free_slot = -1;
	struct log_file *f;

	if (path == NULL || path[0] == '\0' ||
	    strlen(path) >= sizeof(f->path)) {
		return -1;
	}
	for (i = 0; i < LOG_MAX_CLIENT_HANDLES; i++) {
		f = log_clients[i];
		if (f == NULL) {
			if (free_slot == -1) {
				free_slot = i;
			}
			continue;
		}
		if (strcmp(f->path, path) == 0) {
			f->refs++;
			return i;
		}
	}
	if (free_slot == -1 || (f = calloc(1, sizeof(*f))) == NULL) {
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->fd = -1;
	f->refs = 1;
	log_clients[free_slot] = f;
	return free_slot;
}

void log_client_close(int handle)
{
	struct log_file *f;

	if (handle < 0 || handle >= LOG_MAX_CLIENT_HANDLES ||
	    (f = log_clients[handle]) == NULL) {
		return;
	}
	if (--f->refs > 0) {
		return;
	}
	if (log_current == handle) {
		log_current = -1;
	}
	log_file_close(f);
	free(f);
	log_clients[handle] = NULL;
}

int log_set_current(int handle)
{
	int old = log_current;

	if (handle < 0 || handle >= LOG_MAX_CLIENT_HANDLES ||
	    log_clients[handle] == NULL) {
		handle = -1;
	}
	log_current = handle;
	return old;
}

/* Make room for one more open client file: close the least recently
 * written one. */
static void log_evict(void)
{
	struct log_file *lru = NULL;
	unsigned i;

	for (i = 0; i < LOG_MAX_CLIENT_HANDLES; i++) {
		struct log_file *f = log_clients[i];

		if (f != NULL && f->fd != -1 &&
		    (lru == NULL || f->used < lru->used)) {
			lru = f;
		}
	}
	if (lru != NULL) {
		log_file_close(lru);
	}
}

/*
 * Whether this is the process's main (event loop) thread.  Only it opens,
 * rotates and reopens files: a pool thread closing a descriptor the loop
 * is about to write to could send log lines into whatever file the number
 * is reused for (a user's file opened by another pool job).  The thread
 * id is cached per thread and per pid (a fork()ed child's main thread
 * inherits the parent's cache).
 */
static bool log_on_main_thread(void)
{
	static __thread pid_t tid, for_pid;
	pid_t pid = getpid();

	if (for_pid != pid) {
		tid = gettid();
		for_pid = pid;
	}
	return tid == pid;
}

/* The file the next line goes to: the class's own file, the current
 * client file (opened on demand), else the main one. */
static struct log_file *log_target(enum log_class cls)
{
	struct log_file *f;
	int h = log_current;

	if ((unsigned)cls < LOG_CLASS__COUNT && log_class_file[cls] != 0 &&
	    log_on_main_thread()) {
		h = log_class_file[cls] - 1;
	}
	if (h < 0 || (f = log_clients[h]) == NULL) {
		return &log_main;
	}
	if (f->fd == -1) {
		if (log_nopen >= LOG_MAX_OPEN_FILES) {
			log_evict();
		}
		f->fd = log_open_path(f->path);
		if (f->fd == -1) {
			return &log_main;
		}
		log_nopen++;
	}
	f->used = ++log_stamp;
	return f;
}

/*
 * `max log size` (kB): when the file grows past it, rename it to NAME.old
 * and start a new one, as Samba does.  Checked every 256 lines of a file
 * to keep fstat off the common path.  Several processes write one file:
 * when the name no longer leads to our descriptor's file, another one has
 * rotated it and we only follow (renaming again would move its new file
 * over the .old one).
 */
static void log_check_size(struct log_file *f)
{
	struct stat st, pst;
	char old[PATH_MAX + 8];

	if (f->path[0] == '\0' || log_max_kb == 0 || (++f->lines & 255) != 0) {
		return;
	}
	if (fstat(f->fd, &st) != 0) {
		return;
	}
	if (stat(f->path, &pst) != 0 || pst.st_ino != st.st_ino ||
	    pst.st_dev != st.st_dev) {
		goto reopen;
	}
	if ((unsigned long)st.st_size / 1024 < log_max_kb) {
		return;
	}
	snprintf(old, sizeof(old), "%s.old", f->path);
	if (rename(f->path, old) != 0) {
		return;
	}
reopen:
	if (f == &log_main) {
		char p[sizeof(log_main.path)];

		memcpy(p, log_main.path, sizeof(p));
		(void)log_set_file(p);
	} else {
		int fd = log_open_path(f->path);

		if (fd != -1) {
			close(f->fd);
			f->fd = fd;
		}
	}
}

/* Lines longer than the stack buffer (a JSON audit event with long
 * names) are formatted on the heap, up to this; longer ones are cut. */
#define LOG_LINE_MAX 16384

void log_msg(enum log_class cls, int level, const char *func,
	     const char *fmt, ...)
{
	char stack[2048];
	char *line = stack, *heap = NULL;
	size_t size = sizeof(stack);
	struct timespec ts;
	struct tm tm;
	struct log_file *f;
	va_list ap, ap2;
	int n, m, pre;
	int saved_errno = errno;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, size,
		     "[%04d/%02d/%02d %02d:%02d:%02d.%03ld, %d] %s[%d] %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, level, log_role,
		     (int)getpid(), func);
	if (n < 0 || (size_t)n >= size) {
		n = 0;
	}
	pre = n;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	m = vsnprintf(line + n, size - (size_t)n - 1, fmt, ap);
	if (m > 0 && (size_t)n + (size_t)m + 2 > size) {
		size = (size_t)n + (size_t)m + 2;
		if (size > LOG_LINE_MAX) {
			size = LOG_LINE_MAX;
		}
		heap = malloc(size);
		if (heap != NULL) {
			memcpy(heap, stack, (size_t)n);
			line = heap;
			m = vsnprintf(line + n, size - (size_t)n - 1, fmt, ap2);
		} else {
			size = sizeof(stack);
		}
	}
	va_end(ap2);
	va_end(ap);
	if (m < 0) {
		m = 0;
	}
	n += m;
	if ((size_t)n > size - 2) {
		n = (int)size - 2;
	}
	if (n > 0 && line[n - 1] != '\n') {
		line[n++] = '\n';
	}
	f = log_target(cls);
	(void)!write(f->fd, line, (size_t)n);
	if (level == 0 && log_errors_to_stderr && log_main.fd != STDOUT_FILENO &&
	    log_main.fd != STDERR_FILENO && n > pre) {
		(void)!write(STDERR_FILENO, "smbd: ", 6);
		(void)!write(STDERR_FILENO, line + pre, (size_t)(n - pre));
	}
	free(heap);
	if (log_on_main_thread()) {
		log_check_size(f);
	}
	errno = saved_errno;
}

const char *log_syserr(void)
{
	return strerror(errno);
}
