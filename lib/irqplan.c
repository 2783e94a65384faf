/*
 * NIC interrupt affinity plan: see irqplan.h.  The parsers take bytes and
 * lengths (they are fuzzed: testsuite/fuzz/fuzz_irqplan.c); the rest reads
 * and writes files under a root directory so that tests run on a fixture
 * tree.  The kernel files are described in Documentation/core-api/irq/
 * irq-affinity.rst (smp_affinity_list) and Documentation/networking/
 * scaling.rst (rps_cpus, xps_cpus).
 */
#include "lib/irqplan.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Linux IRQ numbers stay far below this (NR_IRQS plus sparse ones). */
#define IRQPLAN_MAX_IRQ (1u << 24)
/* A sysfs bitmap of IRQPLAN_MAX_CPUS CPUs is 2,304 bytes. */
#define IRQPLAN_MAX_VALUE 8192

/* Decimal digits at s[*i]; at least one, value at most max (else ERANGE). */
static int parse_uint(const char *s, size_t len, size_t *i, unsigned max,
		      unsigned *v)
{
	size_t start = *i;
	uint64_t acc = 0;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		if (acc <= max) {
			acc = acc * 10 + (unsigned)(s[*i] - '0');
		}
		(*i)++;
	}
	if (*i == start) {
		return EINVAL;
	}
	if (acc > max) {
		return ERANGE;
	}
	*v = (unsigned)acc;
	return 0;
}

int irqplan_cpulist_parse(const char *s, size_t len, struct irqplan_cpuset *set)
{
	size_t i = 0;

	memset(set, 0, sizeof(*set));
	/* The kernel ends its lists with one newline. */
	if (len > 0 && s[len - 1] == '\n') {
		len--;
	}
	if (len == 0) {
		return EINVAL;
	}
	for (;;) {
		unsigned a, b, c;
		int rc = parse_uint(s, len, &i, IRQPLAN_MAX_CPUS - 1, &a);

		if (rc != 0) {
			return rc;
		}
		b = a;
		if (i < len && s[i] == '-') {
			i++;
			rc = parse_uint(s, len, &i, IRQPLAN_MAX_CPUS - 1, &b);
			if (rc != 0) {
				return rc;
			}
			if (b < a) {
				return EINVAL;
			}
		}
		for (c = a; c <= b; c++) {
			irqplan_cpuset_add(set, c);
		}
		if (i == len) {
			return 0;
		}
		if (s[i] != ',' || i + 1 == len) {
			return EINVAL;
		}
		i++;
	}
}

size_t irqplan_cpuset_list(TALLOC_CTX *mem_ctx,
			   const struct irqplan_cpuset *set, unsigned **cpus)
{
	size_t n = 0, k = 0;
	unsigned c;

	for (c = 0; c < IRQPLAN_MAX_CPUS; c++) {
		n += irqplan_cpuset_has(set, c);
	}
	*cpus = talloc_array(mem_ctx, unsigned, n ? n : 1);
	if (*cpus == NULL) {
		return 0;
	}
	for (c = 0; c < IRQPLAN_MAX_CPUS; c++) {
		if (irqplan_cpuset_has(set, c)) {
			(*cpus)[k++] = c;
		}
	}
	return n;
}

/* Runs of consecutive numbers become "a-b"; any order is kept as given. */
char *irqplan_format_list(TALLOC_CTX *mem_ctx, const unsigned *v, size_t n)
{
	char *s = talloc_strdup(mem_ctx, "");
	size_t i = 0;

	while (s != NULL && i < n) {
		size_t j = i;

		while (j + 1 < n && v[j + 1] == v[j] + 1) {
			j++;
		}
		if (j == i) {
			s = talloc_asprintf_append(s, "%s%u", i ? "," : "",
						   v[i]);
		} else {
			s = talloc_asprintf_append(s, "%s%u-%u", i ? "," : "",
						   v[i], v[j]);
		}
		i = j + 1;
	}
	return s;
}

char *irqplan_format_mask(TALLOC_CTX *mem_ctx, const struct irqplan_cpuset *s)
{
	size_t nwords = IRQPLAN_MAX_CPUS / 32, top = nwords, w;
	char *out;

	for (w = nwords; w-- > 0;) {
		if (((s->bits[w / 2] >> (32 * (w % 2))) & 0xffffffffu) != 0) {
			top = w;
			break;
		}
	}
	if (top == nwords) {
		return talloc_strdup(mem_ctx, "0");
	}
	out = talloc_strdup(mem_ctx, "");
	for (w = top + 1; w-- > 0 && out != NULL;) {
		uint32_t word = (uint32_t)(s->bits[w / 2] >> (32 * (w % 2)));

		out = talloc_asprintf_append(out, w == top ? "%x" : ",%08x",
					     word);
	}
	return out;
}

bool irqplan_name_match(const char *iface, const char *name, size_t len,
			enum irqplan_kind *kind, unsigned *queue)
{
	static const struct {
		const char *word;
		enum irqplan_kind kind;
	} words[] = {
		{"TxRx-", IRQPLAN_TXRX},
		{"rx-", IRQPLAN_RX},
		{"tx-", IRQPLAN_TX},
	};
	size_t il = strlen(iface), i, w;

	if (il == 0 || len < il + 2 || memcmp(name, iface, il) != 0 ||
	    name[il] != '-') {
		return false;
	}
	i = il + 1;
	*kind = IRQPLAN_PLAIN;
	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t wl = strlen(words[w].word);

		if (len - i > wl && strncasecmp(name + i, words[w].word, wl) == 0) {
			*kind = words[w].kind;
			i += wl;
			break;
		}
	}
	return parse_uint(name, len, &i, IRQPLAN_MAX_QUEUE, queue) == 0 &&
	       i == len;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\0' || c == '\r';
}

/*
 * One line of /proc/interrupts (kernel/irq/proc.c show_interrupts):
 * "%*d: " then the per-CPU counts, the chip, the hardware IRQ and the
 * actions' names joined by ", ".  Only numbered lines can be queues; any
 * token of theirs may be the name, so none of the middle columns has to
 * be understood.  Returns whether a name matched.
 */
static bool interrupts_line(const char *s, size_t len, const char *iface,
			    unsigned *irq, size_t *name_at, size_t *name_len,
			    enum irqplan_kind *kind, unsigned *queue)
{
	size_t i = 0;

	while (i < len && is_blank(s[i])) {
		i++;
	}
	if (parse_uint(s, len, &i, IRQPLAN_MAX_IRQ, irq) != 0 || i == len ||
	    s[i] != ':') {
		return false;
	}
	i++;
	while (i < len) {
		size_t start, end;

		while (i < len && is_blank(s[i])) {
			i++;
		}
		start = i;
		while (i < len && !is_blank(s[i])) {
			i++;
		}
		end = i;
		if (end > start && s[end - 1] == ',') {
			end--;
		}
		if (end > start && irqplan_name_match(iface, s + start,
						      end - start, kind,
						      queue)) {
			*name_at = start;
			*name_len = end - start;
			return true;
		}
	}
	return false;
}

int irqplan_interrupts_parse(TALLOC_CTX *mem_ctx, const char *text,
			     size_t len, const char *iface,
			     struct irqplan_irq **irqs, size_t *nirqs)
{
	struct irqplan_irq *v = talloc_array(mem_ctx, struct irqplan_irq, 0);
	size_t n = 0, pos = 0;

	if (v == NULL) {
		return ENOMEM;
	}
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		size_t at, nlen, k;
		enum irqplan_kind kind;
		unsigned irq, queue;

		pos += ll + (nl ? 1 : 0);
		if (!interrupts_line(line, ll, iface, &irq, &at, &nlen, &kind,
				     &queue)) {
			continue;
		}
		for (k = 0; k < n && v[k].irq != irq; k++) {
		}
		if (k < n) {
			continue;
		}
		if (n == IRQPLAN_MAX_IRQS) {
			talloc_free(v);
			return E2BIG;
		}
		v = talloc_realloc(mem_ctx, v, struct irqplan_irq, n + 1);
		if (v == NULL) {
			return ENOMEM;
		}
		v[n] = (struct irqplan_irq){
			.name = talloc_strndup(v, line + at, nlen),
			.irq = irq,
			.queue = queue,
			.kind = kind,
		};
		if (v[n].name == NULL) {
			talloc_free(v);
			return ENOMEM;
		}
		n++;
	}
	*irqs = v;
	*nirqs = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Files under the root */

/* root without its trailing slashes ("/" becomes ""), on mem_ctx. */
static char *root_dup(TALLOC_CTX *mem_ctx, const char *root)
{
	char *r = talloc_strdup(mem_ctx, root != NULL ? root : "/");
	size_t n;

	for (n = r ? strlen(r) : 0; n > 0 && r[n - 1] == '/'; n--) {
		r[n - 1] = '\0';
	}
	return r;
}

static char *at_root(TALLOC_CTX *mem_ctx, const struct irqplan *p,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static char *at_root(TALLOC_CTX *mem_ctx, const struct irqplan *p,
		     const char *fmt, ...)
{
	char *rel, *path;
	va_list ap;

	va_start(ap, fmt);
	rel = talloc_vasprintf(mem_ctx, fmt, ap);
	va_end(ap);
	if (rel == NULL) {
		return NULL;
	}
	path = talloc_asprintf(mem_ctx, "%s%s", p->root, rel);
	talloc_free(rel);
	return path;
}

/* A whole (proc or sysfs: size unknown beforehand) file, NUL-terminated. */
static int read_file(TALLOC_CTX *mem_ctx, const char *path, size_t max,
		     char **buf, size_t *len)
{
	size_t have = 0, cap = 4096;
	char *b = talloc_array(mem_ctx, char, cap + 1);
	int fd, err = 0;

	if (b == NULL) {
		return ENOMEM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		err = errno;
		talloc_free(b);
		return err;
	}
	for (;;) {
		ssize_t r;

		if (have == cap) {
			if (cap >= max) {
				err = EFBIG;
				break;
			}
			cap = cap * 2 > max ? max : cap * 2;
			b = talloc_realloc(mem_ctx, b, char, cap + 1);
			if (b == NULL) {
				err = ENOMEM;
				break;
			}
		}
		r = read(fd, b + have, cap - have);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0) {
			break;
		}
		have += (size_t)r;
	}
	close(fd);
	if (err != 0) {
		talloc_free(b);
		return err;
	}
	b[have] = '\0';
	*buf = b;
	*len = have;
	return 0;
}

static bool iface_name_ok(const char *iface)
{
	size_t i, n = strlen(iface);

	/* IFNAMSIZ is 16 with the NUL; dev_valid_name() refuses these. */
	if (n == 0 || n > 15 || strcmp(iface, ".") == 0 ||
	    strcmp(iface, "..") == 0) {
		return false;
	}
	for (i = 0; i < n; i++) {
		if (iface[i] == '/' || iface[i] == ':' ||
		    isspace((unsigned char)iface[i])) {
			return false;
		}
	}
	return true;
}

/* The online CPUs (cpus == NULL) or the given ones, all online, distinct. */
static int plan_cpus(struct irqplan *p, const unsigned *cpus, size_t ncpus,
		     char **err)
{
	struct irqplan_cpuset online, seen;
	char *path = at_root(p, p, "/sys/devices/system/cpu/online");
	char *text;
	size_t len, i;
	int rc;

	if (path == NULL) {
		return ENOMEM;
	}
	rc = read_file(p, path, IRQPLAN_MAX_VALUE, &text, &len);
	if (rc != 0) {
		*err = talloc_asprintf(p, "cannot read %s: %s", path,
				       strerror(rc));
		return rc;
	}
	rc = irqplan_cpulist_parse(text, len, &online);
	if (rc != 0) {
		*err = talloc_asprintf(p, "%s: not a CPU list", path);
		return EINVAL;
	}
	if (cpus == NULL) {
		p->ncpus = irqplan_cpuset_list(p, &online, &p->cpus);
		return p->cpus == NULL ? ENOMEM : 0;
	}
	if (ncpus == 0) {
		*err = talloc_strdup(p, "no worker CPUs given");
		return EINVAL;
	}
	memset(&seen, 0, sizeof(seen));
	for (i = 0; i < ncpus; i++) {
		if (!irqplan_cpuset_has(&online, cpus[i])) {
			*err = talloc_asprintf(p, "cpu %u is not online (%s)",
					       cpus[i], path);
			return EINVAL;
		}
		if (irqplan_cpuset_has(&seen, cpus[i])) {
			*err = talloc_asprintf(p, "cpu %u listed twice",
					       cpus[i]);
			return EINVAL;
		}
		irqplan_cpuset_add(&seen, cpus[i]);
	}
	p->cpus = talloc_memdup(p, cpus, ncpus * sizeof(*cpus));
	p->ncpus = ncpus;
	return p->cpus == NULL ? ENOMEM : 0;
}

/*
 * Keep only the IRQs the device owns, where sysfs lists them (an MSI or
 * MSI-X device); another device whose names happen to match is left out.
 */
static int plan_msi_filter(struct irqplan *p)
{
	char *path = at_root(p, p, "/sys/class/net/%s/device/msi_irqs",
			     p->iface);
	struct dirent *de;
	unsigned *owned = NULL;
	size_t nowned = 0, i, k = 0;
	DIR *d;

	if (path == NULL) {
		return ENOMEM;
	}
	d = opendir(path);
	if (d == NULL) {
		return errno == ENOENT || errno == ENOTDIR ? 0 : errno;
	}
	while ((de = readdir(d)) != NULL) {
		size_t j = 0, nl = strlen(de->d_name);
		unsigned irq;

		if (parse_uint(de->d_name, nl, &j, IRQPLAN_MAX_IRQ, &irq) !=
			    0 ||
		    j != nl || nowned == IRQPLAN_MAX_IRQS) {
			continue;
		}
		owned = talloc_realloc(p, owned, unsigned, nowned + 1);
		if (owned == NULL) {
			closedir(d);
			return ENOMEM;
		}
		owned[nowned++] = irq;
	}
	closedir(d);
	for (i = 0; i < p->nirqs; i++) {
		size_t j;

		for (j = 0; j < nowned && owned[j] != p->irqs[i].irq; j++) {
		}
		if (j < nowned) {
			p->irqs[k++] = p->irqs[i];
		}
	}
	p->nirqs = k;
	talloc_free(owned);
	return 0;
}

static bool kind_rx(enum irqplan_kind k)
{
	return k != IRQPLAN_TX;
}

static bool kind_tx(enum irqplan_kind k)
{
	return k != IRQPLAN_RX;
}

static int irq_cmp(const void *a, const void *b)
{
	const struct irqplan_irq *x = a, *y = b;

	if (x->queue != y->queue) {
		return x->queue < y->queue ? -1 : 1;
	}
	if (kind_tx(x->kind) != kind_tx(y->kind) ||
	    kind_rx(x->kind) != kind_rx(y->kind)) {
		return kind_rx(x->kind) ? -1 : 1;
	}
	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

/*
 * The distinct queue numbers of the IRQs that pass want(), ascending (the
 * IRQs are sorted by queue).  Returns the count; *q on mem_ctx.
 */
static size_t queue_numbers(TALLOC_CTX *mem_ctx, const struct irqplan *p,
			    bool (*want)(enum irqplan_kind), unsigned **q)
{
	size_t n = 0, i;

	*q = talloc_array(mem_ctx, unsigned, p->nirqs ? p->nirqs : 1);
	if (*q == NULL) {
		return 0;
	}
	for (i = 0; i < p->nirqs; i++) {
		if ((want == NULL || want(p->irqs[i].kind)) &&
		    (n == 0 || (*q)[n - 1] != p->irqs[i].queue)) {
			(*q)[n++] = p->irqs[i].queue;
		}
	}
	return n;
}

static bool kind_any(enum irqplan_kind k)
{
	(void)k;
	return true;
}

/* Queue rank r (among all queue numbers) -> worker r % n. */
static int plan_irqs(struct irqplan *p)
{
	unsigned *q;
	size_t nq = queue_numbers(p, p, kind_any, &q), i, r = 0;

	if (q == NULL) {
		return ENOMEM;
	}
	for (i = 0; i < p->nirqs; i++) {
		while (r < nq && q[r] != p->irqs[i].queue) {
			r++;
		}
		p->irqs[i].worker = (unsigned)(r % p->ncpus);
		p->irqs[i].cpu = p->cpus[p->irqs[i].worker];
	}
	talloc_free(q);
	return 0;
}

/*
 * With fewer queues than workers, queue k (of nq) gets every worker
 * position j with j % nq == k: each worker CPU in exactly one mask.
 */
static int plan_steer_side(struct irqplan *p, bool rps)
{
	unsigned *q;
	size_t nq = queue_numbers(p, p, rps ? kind_rx : kind_tx, &q), k;

	if (q == NULL) {
		return ENOMEM;
	}
	if (nq == 0 || nq >= p->ncpus) {
		talloc_free(q);
		return 0;
	}
	p->steer = talloc_realloc(p, p->steer, struct irqplan_steer,
				  p->nsteer + nq);
	if (p->steer == NULL) {
		return ENOMEM;
	}
	for (k = 0; k < nq; k++) {
		struct irqplan_steer *s = &p->steer[p->nsteer++];
		size_t j, m = 0, per = (p->ncpus - k + nq - 1) / nq;

		*s = (struct irqplan_steer){.rps = rps, .queue = q[k]};
		s->cpus = talloc_array(p->steer, unsigned, per);
		s->workers = talloc_array(p->steer, unsigned, per);
		if (s->cpus == NULL || s->workers == NULL) {
			return ENOMEM;
		}
		for (j = k; j < p->ncpus; j += nq) {
			s->workers[m] = (unsigned)j;
			s->cpus[m++] = p->cpus[j];
		}
		s->ncpus = m;
	}
	talloc_free(q);
	return 0;
}

static int plan_read_irqs(struct irqplan *p, char **err)
{
	char *path = at_root(p, p, "/proc/interrupts");
	char *text;
	size_t len;
	int rc;

	if (path == NULL) {
		return ENOMEM;
	}
	rc = read_file(p, path, IRQPLAN_MAX_FILE, &text, &len);
	if (rc != 0) {
		*err = talloc_asprintf(p, "cannot read %s: %s", path,
				       strerror(rc));
		return rc;
	}
	rc = irqplan_interrupts_parse(p, text, len, p->iface, &p->irqs,
				      &p->nirqs);
	talloc_free(text);
	if (rc != 0) {
		*err = talloc_asprintf(p, "%s: %s", path, strerror(rc));
		return rc;
	}
	rc = plan_msi_filter(p);
	if (rc != 0) {
		*err = talloc_asprintf(p, "cannot list %s/sys/class/net/%s/"
				       "device/msi_irqs: %s",
				       p->root, p->iface, strerror(rc));
		return rc;
	}
	if (p->nirqs == 0) {
		*err = talloc_asprintf(p, "%s has no queue interrupts in %s "
				       "(names %s-TxRx-N, %s-rx-N, %s-tx-N "
				       "or %s-N)",
				       p->iface, path, p->iface, p->iface,
				       p->iface, p->iface);
		return ENODEV;
	}
	return 0;
}

static int plan_build(struct irqplan *p, const unsigned *cpus, size_t ncpus,
		      char **err)
{
	struct stat st;
	char *dev = at_root(p, p, "/sys/class/net/%s", p->iface);
	int rc;

	if (dev == NULL) {
		return ENOMEM;
	}
	if (stat(dev, &st) != 0) {
		rc = errno;
		*err = talloc_asprintf(p, "no interface %s (%s: %s)", p->iface,
				       dev, strerror(rc));
		return rc == ENOENT ? ENODEV : rc;
	}
	rc = plan_cpus(p, cpus, ncpus, err);
	if (rc == 0) {
		rc = plan_read_irqs(p, err);
	}
	if (rc != 0) {
		return rc;
	}
	qsort(p->irqs, p->nirqs, sizeof(p->irqs[0]), irq_cmp);
	rc = plan_irqs(p);
	if (rc == 0) {
		rc = plan_steer_side(p, true);
	}
	if (rc == 0) {
		rc = plan_steer_side(p, false);
	}
	return rc;
}

int irqplan_make(TALLOC_CTX *mem_ctx, const char *root, const char *iface,
		 const unsigned *cpus, size_t ncpus, struct irqplan **plan,
		 char **err)
{
	struct irqplan *p = talloc_zero(mem_ctx, struct irqplan);
	int rc;

	*err = NULL;
	if (p == NULL) {
		return ENOMEM;
	}
	if (!iface_name_ok(iface)) {
		*err = talloc_asprintf(mem_ctx, "not an interface name: '%s'",
				       iface);
		talloc_free(p);
		return EINVAL;
	}
	p->iface = talloc_strdup(p, iface);
	p->root = root_dup(p, root);
	if (p->iface == NULL || p->root == NULL) {
		talloc_free(p);
		return ENOMEM;
	}
	rc = plan_build(p, cpus, ncpus, err);
	if (rc != 0) {
		if (*err == NULL) {
			*err = talloc_strdup(p, strerror(rc));
		}
		*err = talloc_steal(mem_ctx, *err);
		talloc_free(p);
		return rc;
	}
	*plan = p;
	return 0;
}

static const char *kind_dir(bool rps)
{
	return rps ? "rx" : "tx";
}

char *irqplan_describe(TALLOC_CTX *mem_ctx, const struct irqplan *p)
{
	char *s = talloc_strdup(mem_ctx, "");
	size_t i;

	for (i = 0; i < p->nirqs && s != NULL; i++) {
		const struct irqplan_irq *q = &p->irqs[i];

		s = talloc_asprintf_append(s,
					   "%s queue %s irq %u -> cpu %u "
					   "(worker %u)\n",
					   p->iface, q->name, q->irq, q->cpu,
					   q->worker);
	}
	for (i = 0; i < p->nsteer && s != NULL; i++) {
		const struct irqplan_steer *st = &p->steer[i];
		char *c = irqplan_format_list(s, st->cpus, st->ncpus);
		char *w = irqplan_format_list(s, st->workers, st->ncpus);

		if (c == NULL || w == NULL) {
			return NULL;
		}
		s = talloc_asprintf_append(s, "%s %s %s-%u -> cpus %s "
					   "(workers %s)\n",
					   p->iface, st->rps ? "rps" : "xps",
					   kind_dir(st->rps), st->queue, c, w);
	}
	return s;
}

/* ------------------------------------------------------------------ */
/* Apply */

struct target {
	char *path;
	char *value;
	int fd;
	char *old;
	size_t oldlen;
	bool written;
};

static void targets_close(struct target *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].fd != -1) {
			close(t[i].fd);
			t[i].fd = -1;
		}
	}
}

static int targets_build(TALLOC_CTX *mem_ctx, const struct irqplan *p,
			 struct target **out, size_t *n)
{
	size_t cnt = p->nirqs + p->nsteer, i, k = 0;
	struct target *t = talloc_zero_array(mem_ctx, struct target, cnt + 1);

	if (t == NULL) {
		return ENOMEM;
	}
	for (i = 0; i <= cnt; i++) {
		t[i].fd = -1;
	}
	for (i = 0; i < p->nirqs; i++, k++) {
		t[k].path = at_root(t, p, "/proc/irq/%u/smp_affinity_list",
				    p->irqs[i].irq);
		t[k].value = talloc_asprintf(t, "%u\n", p->irqs[i].cpu);
	}
	for (i = 0; i < p->nsteer; i++, k++) {
		const struct irqplan_steer *st = &p->steer[i];
		struct irqplan_cpuset set;
		size_t j;

		memset(&set, 0, sizeof(set));
		for (j = 0; j < st->ncpus; j++) {
			irqplan_cpuset_add(&set, st->cpus[j]);
		}
		t[k].path = at_root(t, p, "/sys/class/net/%s/queues/%s-%u/%s",
				    p->iface, kind_dir(st->rps), st->queue,
				    st->rps ? "rps_cpus" : "xps_cpus");
		t[k].value = irqplan_format_mask(t, &set);
		if (t[k].value != NULL) {
			t[k].value = talloc_strdup_append(t[k].value, "\n");
		}
	}
	for (i = 0; i < cnt; i++) {
		if (t[i].path == NULL || t[i].value == NULL) {
			talloc_free(t);
			return ENOMEM;
		}
	}
	*out = t;
	*n = cnt;
	return 0;
}

/*
 * Open every target read-write and keep what it holds.  A missing file,
 * a directory where a file should be, or a read-only one fails here,
 * before anything is written.
 */
static int targets_open(TALLOC_CTX *mem_ctx, struct target *t, size_t n,
			char **err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ssize_t r;
		int e;

		t[i].fd = open(t[i].path, O_RDWR | O_CLOEXEC);
		if (t[i].fd == -1) {
			e = errno;
			*err = talloc_asprintf(mem_ctx, "cannot write %s: %s",
					       t[i].path, strerror(e));
			return e;
		}
		t[i].old = talloc_array(t, char, IRQPLAN_MAX_VALUE);
		if (t[i].old == NULL) {
			return ENOMEM;
		}
		r = pread(t[i].fd, t[i].old, IRQPLAN_MAX_VALUE, 0);
		if (r < 0) {
			e = errno;
			*err = talloc_asprintf(mem_ctx, "cannot read %s: %s",
					       t[i].path, strerror(e));
			return e;
		}
		t[i].oldlen = (size_t)r;
	}
	return 0;
}

/*
 * proc and sysfs take a write as the whole new value; a plain file (a
 * fixture) must also lose its old tail.
 */
static int put_value(int fd, const char *v, size_t len)
{
	struct statfs fs;
	ssize_t w;

	if (fstatfs(fd, &fs) == 0 && fs.f_type != PROC_SUPER_MAGIC &&
	    fs.f_type != SYSFS_MAGIC && ftruncate(fd, 0) != 0) {
		return errno;
	}
	w = pwrite(fd, v, len, 0);
	if (w < 0) {
		return errno;
	}
	return (size_t)w == len ? 0 : EIO;
}

int irqplan_apply(TALLOC_CTX *mem_ctx, const struct irqplan *p, char **err)
{
	struct target *t = NULL;
	size_t n = 0, i, j, bad;
	int rc;

	*err = NULL;
	rc = targets_build(mem_ctx, p, &t, &n);
	if (rc == 0) {
		rc = targets_open(mem_ctx, t, n, err);
		if (rc != 0 && *err != NULL) {
			*err = talloc_strdup_append(*err,
						    "; nothing was written");
		}
	}
	for (i = 0; rc == 0 && i < n; i++) {
		rc = put_value(t[i].fd, t[i].value, strlen(t[i].value));
		if (rc == 0) {
			t[i].written = true;
			continue;
		}
		/* Put back the values already replaced. */
		for (j = 0, bad = 0; j < i; j++) {
			bad += put_value(t[j].fd, t[j].old, t[j].oldlen) != 0;
		}
		*err = talloc_asprintf(mem_ctx, "writing %s: %s; the %zu "
				       "file(s) written before were restored",
				       t[i].path, strerror(rc), i - bad);
		if (*err != NULL && bad > 0) {
			*err = talloc_asprintf_append(*err, " (%zu could not "
						      "be)", bad);
		}
	}
	if (rc != 0 && *err == NULL) {
		*err = talloc_strdup(mem_ctx, strerror(rc));
	}
	if (t != NULL) {
		targets_close(t, n);
		talloc_free(t);
	}
	return rc;
}

bool irqplan_irqbalance_running(const char *root)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct irqplan r = {.root = root_dup(tmp, root)};
	struct dirent *de;
	bool found = false;
	char *proc = r.root ? at_root(tmp, &r, "/proc") : NULL;
	DIR *d = proc ? opendir(proc) : NULL;

	while (d != NULL && !found && (de = readdir(d)) != NULL) {
		char *path, *comm;
		size_t len;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name)) {
			continue;
		}
		path = at_root(tmp, &r, "/proc/%s/comm", de->d_name);
		if (path != NULL && read_file(tmp, path, 64, &comm, &len) == 0) {
			comm[strcspn(comm, "\n")] = '\0';
			found = strcmp(comm, "irqbalance") == 0;
		}
	}
	if (d != NULL) {
		closedir(d);
	}
	talloc_free(tmp);
	return found;
}
