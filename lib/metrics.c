/*
 * The shared metrics table: creating and mapping the file, share slots,
 * and the merge of the workers' blocks (lib/metrics.h has the design).
 * The Prometheus encoder is in lib/metrics_prom.c.
 */
#include "lib/metrics.h"
#include "lib/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define METRICS_PAGE 4096u

static size_t round_page(size_t n)
{
	return (n + METRICS_PAGE - 1) & ~(size_t)(METRICS_PAGE - 1);
}

static int metrics_shm_destructor(struct metrics_shm *m)
{
	if (m->hdr != NULL) {
		munmap(m->hdr, m->size);
	}
	return 0;
}

static void metrics_hdr_init(struct metrics_hdr *h, unsigned nworkers,
			     const char *const *names, unsigned nops)
{
	unsigned i;

	h->version = METRICS_VERSION;
	h->nworkers = nworkers;
	h->nops = nops;
	h->worker_size = sizeof(struct metrics_worker);
	h->workers_off = round_page(sizeof(*h));
	h->worker_stride = round_page(sizeof(struct metrics_worker));
	h->started = (int64_t)time(NULL);
	for (i = 0; i < nops; i++) {
		snprintf(h->op_name[i], sizeof(h->op_name[i]), "%s",
			 names[i] != NULL ? names[i] : "");
	}
	/* Last: a reader checks the magic before anything else. */
	__atomic_store_n(&h->magic, METRICS_MAGIC, __ATOMIC_RELEASE);
}

/* The file is made under a temporary name and renamed into place, so a
 * reader never maps one that is half set up. */
struct metrics_shm *metrics_create(TALLOC_CTX *mem_ctx, const char *dir,
				   unsigned nworkers, const char *const *names,
				   unsigned nops)
{
	struct metrics_shm *m;
	char *path, *tmp;
	void *p;
	int fd;

	if (nworkers == 0 || nworkers > METRICS_MAX_WORKERS ||
	    nops > METRICS_MAX_OPS) {
		return NULL;
	}
	m = talloc_zero(mem_ctx, struct metrics_shm);
	path = talloc_asprintf(m, "%s/%s", dir, METRICS_FILE);
	tmp = talloc_asprintf(m, "%s.tmp", path ? path : "");
	if (m == NULL || path == NULL || tmp == NULL) {
		talloc_free(m);
		return NULL;
	}
	m->size = round_page(sizeof(struct metrics_hdr)) +
		  nworkers * round_page(sizeof(struct metrics_worker));
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || ftruncate(fd, (off_t)m->size) != 0) {
		DBG_ERR("cannot create %s: %s\n", tmp, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(tmp);
		}
		talloc_free(m);
		return NULL;
	}
	p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		DBG_ERR("cannot map %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		talloc_free(m);
		return NULL;
	}
	m->hdr = p;
	m->writable = true;
	talloc_set_destructor(m, metrics_shm_destructor);
	metrics_hdr_init(m->hdr, nworkers, names, nops);
	if (rename(tmp, path) != 0) {
		DBG_ERR("cannot rename %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		talloc_free(m);
		return NULL;
	}
	return m;
}

static bool metrics_hdr_valid(const struct metrics_hdr *h, size_t size)
{
	return __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == METRICS_MAGIC &&
	       h->version == METRICS_VERSION &&
	       h->worker_size == sizeof(struct metrics_worker) &&
	       h->nops <= METRICS_MAX_OPS && h->nworkers >= 1 &&
	       h->nworkers <= METRICS_MAX_WORKERS &&
	       h->worker_stride >= sizeof(struct metrics_worker) &&
	       h->workers_off >= sizeof(*h) &&
	       h->workers_off + h->nworkers * h->worker_stride <= size;
}

struct metrics_shm *metrics_attach(TALLOC_CTX *mem_ctx, const char *dir)
{
	struct metrics_shm *m = talloc_zero(mem_ctx, struct metrics_shm);
	char *path = m ? talloc_asprintf(m, "%s/%s", dir, METRICS_FILE) : NULL;
	struct stat st;
	void *p;
	int fd, err;

	if (path == NULL) {
		talloc_free(m);
		errno = ENOMEM;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) != 0 ||
	    (size_t)st.st_size < sizeof(struct metrics_hdr)) {
		err = fd == -1 ? errno : EINVAL;
		goto fail;
	}
	m->size = (size_t)st.st_size;
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		goto fail;
	}
	close(fd);
	m->hdr = p;
	talloc_set_destructor(m, metrics_shm_destructor);
	if (!metrics_hdr_valid(m->hdr, m->size)) {
		talloc_free(m);
		errno = EINVAL;
		return NULL;
	}
	return m;
fail:
	if (fd != -1) {
		close(fd);
	}
	talloc_free(m);
	errno = err;
	return NULL;
}

void metrics_name_statuses(struct metrics_shm *m, const uint32_t *codes,
			   const char *const *names, unsigned n)
{
	struct metrics_hdr *h = m->hdr;
	unsigned i;

	if (n > METRICS_MAX_NAMED) {
		n = METRICS_MAX_NAMED;
	}
	for (i = 0; i < n; i++) {
		h->named_code[i] = codes[i];
		snprintf(h->named_name[i], sizeof(h->named_name[i]), "%s",
			 names[i]);
	}
	__atomic_store_n(&h->nnamed, n, __ATOMIC_RELEASE);
}

unsigned metrics_nnamed(const struct metrics_shm *m)
{
	unsigned n = __atomic_load_n(&m->hdr->nnamed, __ATOMIC_ACQUIRE);

	return n <= METRICS_MAX_NAMED ? n : 0;
}

const char *metrics_class_name(enum metrics_class c)
{
	static const char *const names[METRICS_NCLASSES] = {
		"success", "info", "warning", "error"};

	return (unsigned)c < METRICS_NCLASSES ? names[c] : "?";
}

static void slot_name_set(struct metrics_share_slot *s, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(s->name) && name[i] != '\0'; i++) {
		s->name[i] = (char)tolower((unsigned char)name[i]);
	}
	s->name[i] = '\0';
}

static bool slot_is(const struct metrics_share_slot *s, const char *name)
{
	return strncasecmp(s->name, name, sizeof(s->name) - 1) == 0 &&
	       (strlen(name) < sizeof(s->name) ||
		strlen(s->name) == sizeof(s->name) - 1);
}

/* A claimer that died between its two stores leaves the slot
 * CLAIMING for good: it is waited for briefly, then passed over. */
unsigned metrics_share_slot(struct metrics_shm *m, const char *name)
{
	unsigned i, spins;

	for (i = 0; i < METRICS_SHARES; i++) {
		struct metrics_share_slot *s = &m->hdr->shares[i];
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

		if (st == SLOT_FREE) {
			uint32_t want = SLOT_FREE;

			if (__atomic_compare_exchange_n(
				    &s->state, &want, SLOT_CLAIMING, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				slot_name_set(s, name);
				__atomic_store_n(&s->state, SLOT_NAMED,
						 __ATOMIC_RELEASE);
				return i;
			}
			st = want;
		}
		for (spins = 0; st == SLOT_CLAIMING && spins < 100; spins++) {
			sched_yield();
			st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		}
		if (st == SLOT_NAMED && slot_is(s, name)) {
			return i;
		}
	}
	return METRICS_SHARE_OTHER;
}

const char *metrics_share_name(const struct metrics_shm *m, unsigned i)
{
	if (i == METRICS_SHARE_OTHER) {
		return "(other)";
	}
	if (i > METRICS_SHARE_OTHER ||
	    __atomic_load_n(&m->hdr->shares[i].state, __ATOMIC_ACQUIRE) !=
		    SLOT_NAMED) {
		return NULL;
	}
	return m->hdr->shares[i].name;
}

void metrics_op_add(struct metrics_op *dst, const struct metrics_op *src)
{
	unsigned c;

	dst->count += METRIC_GET(&src->count);
	dst->bytes_in += METRIC_GET(&src->bytes_in);
	dst->bytes_out += METRIC_GET(&src->bytes_out);
	for (c = 0; c < METRICS_NCLASSES; c++) {
		dst->status[c] += METRIC_GET(&src->status[c]);
	}
}

static void metrics_info_add(struct metrics_worker_info *dst,
			     const struct metrics_worker_info *src)
{
	dst->connections += METRIC_GET(&src->connections);
	dst->sessions += METRIC_GET(&src->sessions);
	dst->opens += METRIC_GET(&src->opens);
	dst->accepted += METRIC_GET(&src->accepted);
	dst->accepted_local += METRIC_GET(&src->accepted_local);
	dst->handed_over += METRIC_GET(&src->handed_over);
	dst->starts += METRIC_GET(&src->starts);
}

struct metrics_worker *metrics_sum(TALLOC_CTX *mem_ctx,
				   struct metrics_shm *m)
{
	struct metrics_worker *sum = talloc_zero(mem_ctx,
						 struct metrics_worker);
	unsigned w, o, s;

	if (sum == NULL) {
		return NULL;
	}
	for (w = 0; w < m->hdr->nworkers; w++) {
		const struct metrics_worker *b = metrics_worker(m, w);

		metrics_info_add(&sum->info, &b->info);
		for (o = 0; o < m->hdr->nops; o++) {
			metrics_op_add(&sum->op[o], &b->op[o]);
			histo_merge(&sum->latency[o], &b->latency[o]);
			for (s = 0; s < METRICS_MAX_NAMED; s++) {
				sum->named[o][s] += METRIC_GET(&b->named[o][s]);
			}
			for (s = 0; s <= METRICS_SHARE_OTHER; s++) {
				metrics_op_add(&sum->share[s][o],
					       &b->share[s][o]);
			}
		}
	}
	return sum;
}
