/*
 * NBENCH load-file parser (see nbench_load.h for the format).
 *
 * Design: one pass over the buffer, line by line, never reading past LEN.
 * Each line is cut into at most NB_MAX_TOKENS tokens (quoted strings keep
 * their spaces), the operation name picks an argument template from a
 * const table, and the template drives the field reads, so every operation
 * is checked the same way: exact argument count, numbers in range, paths
 * well formed, a known NT_STATUS_ spelling last.  Paths are interned in an
 * open-addressing hash table that lives only while parsing.
 */
#include "testsuite/bench/nbench_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NB_MAX_TOKENS 12

/*
 * Argument templates, one letter per token between the name and the
 * status:  p path, q second path, f handle number, a/b/c 32-bit fields,
 * o offset, s size, r bytes returned.
 */
struct nb_op_desc {
	const char *name;
	enum nb_op_type type;
	const char *args;
};

static const struct nb_op_desc nb_op_descs[NB_OP_COUNT] = {
        {"NTCreateX", NB_NTCREATEX, "pabf"},
        {"Close", NB_CLOSE, "f"},
        {"ReadX", NB_READX, "fosr"},
        {"WriteX", NB_WRITEX, "fosr"},
        {"QUERY_PATH_INFORMATION", NB_QPATHINFO, "pa"},
        {"QUERY_FILE_INFORMATION", NB_QFILEINFO, "fa"},
        {"QUERY_FS_INFORMATION", NB_QFSINFO, "a"},
        {"FIND_FIRST", NB_FINDFIRST, "pabc"},
        {"SET_FILE_INFORMATION", NB_SETFILEINFO, "fa"},
        {"Unlink", NB_UNLINK, "pa"},
        {"Rename", NB_RENAME, "pq"},
        {"Flush", NB_FLUSH, "f"},
        {"LockX", NB_LOCKX, "fos"},
        {"UnlockX", NB_UNLOCKX, "fos"},
        {"Deltree", NB_DELTREE, "p"},
        {"Mkdir", NB_MKDIR, "p"},
        {"Rmdir", NB_RMDIR, "p"},
};

const char *nb_op_name(enum nb_op_type t)
{
	if ((unsigned)t >= NB_OP_COUNT) {
		return "?";
	}
	return nb_op_descs[t].name;
}

struct nb_tok {
	const char *p;
	size_t len;
	bool quoted;
};

struct nb_intern {
	const char **slot;
	size_t size; /* power of two */
	size_t used;
};

struct nb_parser {
	TALLOC_CTX *owner; /* the struct nb_load */
	struct nb_load *load;
	size_t ops_alloc;
	struct nb_intern in;
	char *err;
	size_t errlen;
	uint32_t line;
};

static int nb_fail(struct nb_parser *ps, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static int nb_fail(struct nb_parser *ps, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->errlen > 0) {
		snprintf(ps->err, ps->errlen, "line %u: %s", ps->line, msg);
	}
	return -1;
}

static uint64_t nb_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int nb_intern_grow(struct nb_parser *ps)
{
	size_t nsize = ps->in.size ? ps->in.size * 2 : 1024;
	const char **ns = talloc_zero_array(ps->owner, const char *, nsize);
	size_t i;

	if (ns == NULL) {
		return nb_fail(ps, "out of memory");
	}
	for (i = 0; i < ps->in.size; i++) {
		const char *s = ps->in.slot[i];
		size_t j;

		if (s == NULL) {
			continue;
		}
		j = nb_hash(s, strlen(s)) & (nsize - 1);
		while (ns[j] != NULL) {
			j = (j + 1) & (nsize - 1);
		}
		ns[j] = s;
	}
	talloc_free(ps->in.slot);
	ps->in.slot = ns;
	ps->in.size = nsize;
	return 0;
}

/* PATH is already converted; returns the shared copy or NULL (error set). */
static const char *nb_intern(struct nb_parser *ps, const char *path, size_t len)
{
	size_t j;
	char *copy;

	if (ps->in.used * 2 >= ps->in.size && nb_intern_grow(ps) != 0) {
		return NULL;
	}
	j = nb_hash(path, len) & (ps->in.size - 1);
	while (ps->in.slot[j] != NULL) {
		const char *s = ps->in.slot[j];
		if (strncmp(s, path, len) == 0 && s[len] == '\0') {
			return s;
		}
		j = (j + 1) & (ps->in.size - 1);
	}
	copy = talloc_strndup(ps->owner, path, len);
	if (copy == NULL) {
		nb_fail(ps, "out of memory");
		return NULL;
	}
	ps->in.slot[j] = copy;
	ps->in.used++;
	ps->load->num_paths++;
	return copy;
}

/*
 * Paths must be absolute in the share ("\dir\file"), printable, at most
 * NB_MAX_PATH bytes; '\' becomes '/' so the replayer can put them in URLs.
 */
static const char *nb_path(struct nb_parser *ps, const struct nb_tok *t)
{
	char tmp[NB_MAX_PATH + 1];
	size_t i;

	if (!t->quoted) {
		nb_fail(ps, "path must be in double quotes");
		return NULL;
	}
	if (t->len == 0 || t->len > NB_MAX_PATH) {
		nb_fail(ps, "path length %zu out of range", t->len);
		return NULL;
	}
	if (t->p[0] != '\\' && t->p[0] != '/') {
		nb_fail(ps, "path must start with a separator");
		return NULL;
	}
	for (i = 0; i < t->len; i++) {
		unsigned char ch = (unsigned char)t->p[i];
		if (ch < 0x20 || ch == 0x7f) {
			nb_fail(ps, "control character in path");
			return NULL;
		}
		tmp[i] = (ch == '\\') ? '/' : (char)ch;
	}
	tmp[t->len] = '\0';
	return nb_intern(ps, tmp, t->len);
}

static int nb_number(struct nb_parser *ps,
                     const struct nb_tok *t,
                     uint64_t max,
                     uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (t->quoted || t->len == 0) {
		return nb_fail(ps, "expected a number");
	}
	if (t->len > 2 && t->p[0] == '0' &&
	    (t->p[1] == 'x' || t->p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < t->len; i++) {
		char ch = t->p[i];
		unsigned d;

		if (ch >= '0' && ch <= '9') {
			d = (unsigned)(ch - '0');
		} else if (base == 16 && ch >= 'a' && ch <= 'f') {
			d = (unsigned)(ch - 'a' + 10);
		} else if (base == 16 && ch >= 'A' && ch <= 'F') {
			d = (unsigned)(ch - 'A' + 10);
		} else {
			return nb_fail(ps,
			               "bad number '%.*s'",
			               (int)(t->len > 40 ? 40 : t->len),
			               t->p);
		}
		if (v > (UINT64_MAX - d) / base) {
			return nb_fail(ps, "number too large");
		}
		v = v * base + d;
	}
	if (v > max) {
		return nb_fail(ps,
		               "number %llu out of range (max %llu)",
		               (unsigned long long)v,
		               (unsigned long long)max);
	}
	*out = v;
	return 0;
}

static bool nb_tok_is(const struct nb_tok *t, const char *s)
{
	size_t n = strlen(s);
	return !t->quoted && t->len == n && memcmp(t->p, s, n) == 0;
}

/* MS-ERREF 2.3.1 names, folded into what errno can distinguish. */
static int nb_status(struct nb_parser *ps, const struct nb_tok *t, uint8_t *out)
{
	static const char prefix[] = "NT_STATUS_";

	if (t->quoted || t->len <= sizeof(prefix) - 1 ||
	    memcmp(t->p, prefix, sizeof(prefix) - 1) != 0) {
		return nb_fail(ps, "last field must be an NT_STATUS_ name");
	}
	if (nb_tok_is(t, "NT_STATUS_OK")) {
		*out = NB_EXPECT_OK;
	} else if (nb_tok_is(t, "NT_STATUS_OBJECT_NAME_NOT_FOUND") ||
	           nb_tok_is(t, "NT_STATUS_OBJECT_PATH_NOT_FOUND") ||
	           nb_tok_is(t, "NT_STATUS_NO_SUCH_FILE")) {
		*out = NB_EXPECT_NOENT;
	} else if (nb_tok_is(t, "NT_STATUS_OBJECT_NAME_COLLISION")) {
		*out = NB_EXPECT_EXISTS;
	} else {
		*out = NB_EXPECT_ERROR;
	}
	return 0;
}

/* Split LINE[0..len) into tokens; returns the count or -1. */
static int nb_tokenize(struct nb_parser *ps,
                       const char *line,
                       size_t len,
                       struct nb_tok *tok)
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		if (line[i] == ' ' || line[i] == '\t') {
			i++;
			continue;
		}
		if (n == NB_MAX_TOKENS) {
			return nb_fail(ps, "too many fields");
		}
		if (line[i] == '"') {
			size_t start = ++i;
			while (i < len && line[i] != '"') {
				i++;
			}
			if (i == len) {
				return nb_fail(ps, "unterminated quote");
			}
			tok[n].p = line + start;
			tok[n].len = i - start;
			tok[n].quoted = true;
			i++;
		} else {
			size_t start = i;
			while (i < len && line[i] != ' ' && line[i] != '\t') {
				if (line[i] == '"') {
					return nb_fail(ps, "stray quote");
				}
				i++;
			}
			tok[n].p = line + start;
			tok[n].len = i - start;
			tok[n].quoted = false;
		}
		n++;
	}
	return n;
}

static int nb_fill_args(struct nb_parser *ps,
                        const char *args,
                        const struct nb_tok *tok,
                        struct nb_op *op)
{
	uint64_t v;
	size_t i;

	for (i = 0; args[i] != '\0'; i++) {
		const struct nb_tok *t = &tok[i];
		uint64_t io_max = INT64_MAX / 2;

		if (op->type == NB_READX || op->type == NB_WRITEX) {
			io_max = NB_MAX_IO;
		}
		switch (args[i]) {
		case 'p':
			op->path = nb_path(ps, t);
			if (op->path == NULL) {
				return -1;
			}
			break;
		case 'q':
			op->path2 = nb_path(ps, t);
			if (op->path2 == NULL) {
				return -1;
			}
			break;
		case 'f':
			if (nb_number(ps, t, NB_MAX_FNUM, &v) != 0) {
				return -1;
			}
			op->fnum = (uint32_t)v;
			break;
		case 'a':
		case 'b':
		case 'c':
			if (nb_number(ps, t, UINT32_MAX, &v) != 0) {
				return -1;
			}
			if (args[i] == 'a') {
				op->a = (uint32_t)v;
			} else if (args[i] == 'b') {
				op->b = (uint32_t)v;
			} else {
				op->c = (uint32_t)v;
			}
			break;
		case 'o':
			/* Keep offset+size well inside off_t. */
			if (nb_number(ps, t, INT64_MAX / 2, &op->offset) != 0) {
				return -1;
			}
			break;
		case 's':
			if (nb_number(ps, t, io_max, &op->size) != 0) {
				return -1;
			}
			break;
		case 'r':
			if (nb_number(ps, t, io_max, &op->ret) != 0) {
				return -1;
			}
			break;
		default:
			return nb_fail(ps, "internal: bad template");
		}
	}
	if ((op->type == NB_READX || op->type == NB_WRITEX) &&
	    op->ret > op->size) {
		return nb_fail(ps, "bytes returned exceed the size asked");
	}
	return 0;
}

static struct nb_op *nb_new_op(struct nb_parser *ps)
{
	struct nb_load *l = ps->load;

	if (l->num_ops == ps->ops_alloc) {
		size_t n = ps->ops_alloc ? ps->ops_alloc * 2 : 4096;
		struct nb_op *ops = talloc_realloc(l, l->ops, struct nb_op, n);
		if (ops == NULL) {
			nb_fail(ps, "out of memory");
			return NULL;
		}
		l->ops = ops;
		ps->ops_alloc = n;
	}
	memset(&l->ops[l->num_ops], 0, sizeof(struct nb_op));
	return &l->ops[l->num_ops++];
}

static int nb_parse_line(struct nb_parser *ps, const char *line, size_t len)
{
	struct nb_tok tok[NB_MAX_TOKENS];
	const struct nb_op_desc *d = NULL;
	struct nb_op *op;
	size_t nargs, i;
	int n, first = 0;

	n = nb_tokenize(ps, line, len, tok);
	if (n <= 0) {
		return n; /* blank line, or error */
	}
	if (tok[0].len > 0 && tok[0].p[0] == '#' && !tok[0].quoted) {
		return 0;
	}
	/* dbench 4 load files may start each line with a timestamp. */
	if (!tok[0].quoted && tok[0].p[0] >= '0' && tok[0].p[0] <= '9') {
		first = 1;
	}
	if (first >= n) {
		return nb_fail(ps, "no operation");
	}
	for (i = 0; i < NB_OP_COUNT; i++) {
		if (nb_tok_is(&tok[first], nb_op_descs[i].name)) {
			d = &nb_op_descs[i];
			break;
		}
	}
	if (d == NULL) {
		return nb_fail(ps,
		               "unknown operation '%.*s'",
		               (int)(tok[first].len > 40 ? 40 : tok[first].len),
		               tok[first].p);
	}
	nargs = strlen(d->args);
	if ((size_t)n != (size_t)first + 1 + nargs + 1) {
		return nb_fail(ps,
		               "%s takes %zu fields and a status, got %d",
		               d->name,
		               nargs,
		               n - first - 1);
	}
	op = nb_new_op(ps);
	if (op == NULL) {
		return -1;
	}
	op->type = (uint8_t)d->type;
	op->line = ps->line;
	if (nb_fill_args(ps, d->args, &tok[first + 1], op) != 0 ||
	    nb_status(ps, &tok[n - 1], &op->expect) != 0) {
		ps->load->num_ops--;
		return -1;
	}
	return 0;
}

int nb_load_parse(TALLOC_CTX *mem_ctx,
                  const char *buf,
                  size_t len,
                  struct nb_load **out,
                  char *err,
                  size_t errlen)
{
	struct nb_parser ps = {.err = err, .errlen = errlen};
	size_t pos = 0;

	if (errlen > 0) {
		err[0] = '\0';
	}
	ps.load = talloc_zero(NULL, struct nb_load);
	if (ps.load == NULL) {
		return nb_fail(&ps, "out of memory");
	}
	ps.owner = ps.load;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos;

		pos += llen + (nl ? 1 : 0);
		ps.line++;
		if (llen > 0 && line[llen - 1] == '\r') {
			llen--;
		}
		if (llen > NB_MAX_LINE) {
			nb_fail(&ps, "line longer than %d bytes", NB_MAX_LINE);
			goto fail;
		}
		if (memchr(line, '\0', llen) != NULL) {
			nb_fail(&ps, "NUL byte");
			goto fail;
		}
		if (nb_parse_line(&ps, line, llen) != 0) {
			goto fail;
		}
	}
	if (ps.load->num_ops == 0) {
		nb_fail(&ps, "no operations in load file");
		goto fail;
	}
	TALLOC_FREE(ps.in.slot);
	*out = talloc_steal(mem_ctx, ps.load);
	return 0;
fail:
	talloc_free(ps.load);
	return -1;
}

int nb_load_file(TALLOC_CTX *mem_ctx,
                 const char *path,
                 struct nb_load **out,
                 char *err,
                 size_t errlen)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd = -1, ret = -1;
	char sub[200];

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)1 << 31) {
		snprintf(err,
		         errlen,
		         "%s: not a regular file under 2 GiB",
		         path);
		goto done;
	}
	buf = talloc_size(tmp, (size_t)st.st_size + 1);
	if (buf == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto done;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			snprintf(err, errlen, "%s: short read", path);
			goto done;
		}
		got += (size_t)n;
	}
	if (nb_load_parse(mem_ctx, buf, got, out, sub, sizeof(sub)) != 0) {
		snprintf(err, errlen, "%s: %s", path, sub);
		goto done;
	}
	ret = 0;
done:
	if (fd != -1) {
		close(fd);
	}
	talloc_free(tmp);
	return ret;
}

/*
 * DOS wildcards as MS-FSA 2.1.4.4 describes them, simplified for the
 * replayer: '*' and '<' match any run of characters, '?' and '>' one
 * character (or none at the end of the name), '"' a dot or the end of the
 * name; other characters compare case-insensitively (ASCII).
 */
bool nb_dos_match(const char *pat, const char *name)
{
	while (*pat != '\0') {
		char p = *pat;
		if (p == '*' || p == '<') {
			pat++;
			if (*pat == '\0') {
				return true;
			}
			for (; *name != '\0'; name++) {
				if (nb_dos_match(pat, name)) {
					return true;
				}
			}
			return nb_dos_match(pat, name);
		}
		if (p == '?' || p == '>') {
			if (*name != '\0') {
				name++;
			}
		} else if (p == '"') {
			if (*name == '.') {
				name++;
			} else if (*name != '\0') {
				return false;
			}
		} else {
			char a = *name, b = p;
			if (a >= 'a' && a <= 'z') {
				a = (char)(a - 32);
			}
			if (b >= 'a' && b <= 'z') {
				b = (char)(b - 32);
			}
			if (a == '\0' || a != b) {
				return false;
			}
			name++;
		}
		pat++;
	}
	return *name == '\0';
}
