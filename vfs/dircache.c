/*
 * The per-worker cache of directories' names for case-insensitive lookup
 * (issue 18, "Large directories"; interface in dircache.h).
 *
 * Why: a name the client spells in another case than the disk (Windows
 * clients do, all the time) has no exact match, and without an index the
 * only way to find it is to read the whole directory and compare every
 * name (resolve_component's scan): 100,000 names per open.  Here each
 * directory's names are read once into a hash table keyed by the folded
 * name, and later lookups cost one fstat of the directory and a probe.
 *
 * How it stays right: an entry is keyed by the directory's st_dev and
 * st_ino and validated by its st_mtim and st_ctim as they were when its
 * names were read; every lookup fstat()s the directory fd the caller
 * already opened and uses the entry only if both times are unchanged.
 * POSIX has every call that adds, removes or renames an entry (open
 * O_CREAT that creates, link, unlink, rename, mkdir, rmdir, symlink,
 * mknod) mark the directory's modification and change times for update,
 * so the one fstat catches our own changes through SMB and local ones
 * alike, with no hook in smbd/smb2 and no event to miss.  We chose this
 * over inotify/fanotify on purpose: a watch per cached directory costs a
 * kernel watch (fs.inotify.max_user_watches) and an fd per worker, its
 * queue can overflow (IN_Q_OVERFLOW: then every entry must be dropped),
 * and its events arrive asynchronously, so a lookup racing a change
 * could still be served stale unless it also drained the queue -- a
 * syscall per lookup anyway.  The fstat is that syscall, and it is
 * exact.  (Changes made by other NFS/SMB clients to a network file
 * system are seen when that file system updates the directory's
 * attributes, as with a scan's readdir.)
 *
 * The one trap is timestamp granularity: a change in the same clock
 * tick as the previous one may leave the times as they were.  The kernel
 * stamps directories from the coarse real-time clock, truncated to the
 * file system's granularity; if the directory's times are older than
 * CLOCK_REALTIME_COARSE (read before our fstat) by more than that
 * granularity, any change after our fstat gets a later stamp, so the
 * times must differ.  A directory changed more recently than that (or
 * with times in the future) is not cached: the lookup scans, as before
 * (vfs_dircache_quiet).  Granularity is not reported by stat, so times
 * whose nanoseconds are both zero are taken as a coarse file system
 * (FAT: 2 s, ext4 with small inodes: 1 s) and get 2.1 s; others 20 ms,
 * a few scheduler ticks of slack over the kernel's 1-10 ms.  The names
 * are read between two fstats and kept only if the times held.
 *
 * Memory: at most DIRCACHE_MAX_BYTES of names per worker process (in
 * the directories last used, least recently used out first), at most
 * DIRCACHE_MAX_NAMES names a directory (a larger one is scanned, as
 * before), at most DIRCACHE_MAX_DIRS directories; directories of fewer
 * than DIRCACHE_MIN_NAMES names are not kept (their scan is already
 * cheap, and a tree walk through many small ones would push the large
 * ones out).  100,000 names of 16 bytes take about 4 MiB.
 *
 * Threads: the worker's pool threads resolve paths at once.  One mutex
 * guards the cache; it is held for a probe and a copy of one name, or
 * to link in a table built outside it.  Tables are immutable once in
 * the cache and freed only under the mutex.
 *
 * Shares with `case sensitive = yes` never get here (resolve_component),
 * and the cache knows nothing of users: the caller's open of the
 * directory as the user is the same permission check a scan makes.
 */
#include "vfs/dircache.h"
#include "vfs/name.h"
#include "vfs/dirents.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#define DIRCACHE_MAX_BYTES (64u * 1024 * 1024)
#define DIRCACHE_MAX_NAMES (1u << 20)
#define DIRCACHE_MAX_DIRS 4096
#define DIRCACHE_MIN_NAMES 64

/* ---- one directory's names ------------------------------------------ */

/* Open addressing; slot.off is the name's offset in pool plus one (0:
 * empty); kept at most half full. */
struct dirnames_slot {
	uint32_t hash;
	uint32_t off;
};

struct vfs_dirnames {
	char *pool;		/* NUL-terminated names */
	size_t pool_len;
	struct dirnames_slot *slots;
	size_t mask;		/* slots - 1 */
	size_t count;
	size_t max_names;
};

struct vfs_dirnames *vfs_dirnames_new(TALLOC_CTX *mem_ctx, size_t max_names)
{
	struct vfs_dirnames *t = talloc_zero(mem_ctx, struct vfs_dirnames);

	if (t == NULL) {
		return NULL;
	}
	t->max_names = max_names;
	t->slots = talloc_zero_array(t, struct dirnames_slot, 16);
	t->pool = talloc_array(t, char, 1024);
	if (t->slots == NULL || t->pool == NULL) {
		talloc_free(t);
		return NULL;
	}
	t->mask = 15;
	return t;
}

/* The slot holding name, or the empty one where it would go. */
static struct dirnames_slot *dirnames_probe(const struct vfs_dirnames *t,
					    const char *name, uint32_t h)
{
	size_t i = h & t->mask;

	for (;;) {
		struct dirnames_slot *s = &t->slots[i];

		if (s->off == 0 ||
		    (s->hash == h &&
		     vfs_strcasecmp(t->pool + s->off - 1, name) == 0)) {
			return s;
		}
		i = (i + 1) & t->mask;
	}
}

static bool dirnames_grow(struct vfs_dirnames *t)
{
	size_t n = (t->mask + 1) * 2, i;
	struct dirnames_slot *old = t->slots;
	size_t old_n = t->mask + 1;

	t->slots = talloc_zero_array(t, struct dirnames_slot, n);
	if (t->slots == NULL) {
		t->slots = old;
		return false;
	}
	t->mask = n - 1;
	for (i = 0; i < old_n; i++) {
		size_t j;

		if (old[i].off == 0) {
			continue;
		}
		j = old[i].hash & t->mask;
		while (t->slots[j].off != 0) {
			j = (j + 1) & t->mask;
		}
		t->slots[j] = old[i];
	}
	talloc_free(old);
	return true;
}

bool vfs_dirnames_add(struct vfs_dirnames *t, const char *name, size_t len)
{
	struct dirnames_slot *s;
	size_t need = t->pool_len + len + 1;
	uint32_t h;

	if (t->count >= t->max_names || need > UINT32_MAX - 1) {
		return false;
	}
	if (need > talloc_get_size(t->pool)) {
		char *p = talloc_realloc(t, t->pool, char, need * 2);

		if (p == NULL) {
			return false;
		}
		t->pool = p;
	}
	/* The name goes into the pool first: the probe compares NUL-
	 * terminated strings.  A duplicate's bytes are simply not kept. */
	memcpy(t->pool + t->pool_len, name, len);
	t->pool[t->pool_len + len] = '\0';
	h = vfs_name_case_hash(t->pool + t->pool_len);
	s = dirnames_probe(t, t->pool + t->pool_len, h);
	if (s->off != 0) {
		return true;	/* the same without case: the first stays */
	}
	s->hash = h;
	s->off = (uint32_t)t->pool_len + 1;
	t->pool_len = need;
	t->count++;
	if (t->count * 2 > t->mask + 1) {
		return dirnames_grow(t);
	}
	return true;
}

bool vfs_dirnames_seal(struct vfs_dirnames *t)
{
	char *p = talloc_realloc(t, t->pool, char,
				 t->pool_len > 0 ? t->pool_len : 1);

	if (p == NULL) {
		return false;
	}
	t->pool = p;
	return true;
}

const char *vfs_dirnames_find(const struct vfs_dirnames *t, const char *name)
{
	const struct dirnames_slot *s =
		dirnames_probe(t, name, vfs_name_case_hash(name));

	return s->off == 0 ? NULL : t->pool + s->off - 1;
}

size_t vfs_dirnames_count(const struct vfs_dirnames *t)
{
	return t->count;
}

size_t vfs_dirnames_bytes(const struct vfs_dirnames *t)
{
	return sizeof(*t) + talloc_get_size(t->pool) +
	       (t->mask + 1) * sizeof(struct dirnames_slot);
}

/* ---- the cache ------------------------------------------------------- */

#define DIRCACHE_BUCKETS 1024

struct dircache_entry {
	struct vfs_dircache_key key;
	struct vfs_dirnames *names;	/* child of the entry */
	size_t bytes;
	struct dircache_entry *lru_prev, *lru_next;	/* newest first */
	struct dircache_entry *hash_next;
};

struct vfs_dircache {
	pthread_mutex_t lock;
	size_t max_bytes, max_dirs;
	size_t bytes, dirs;
	struct dircache_entry *newest, *oldest;
	struct dircache_entry *buckets[DIRCACHE_BUCKETS];
};

static int dircache_destructor(struct vfs_dircache *c)
{
	pthread_mutex_destroy(&c->lock);
	return 0;
}

struct vfs_dircache *vfs_dircache_new(TALLOC_CTX *mem_ctx, size_t max_bytes,
				      size_t max_dirs)
{
	struct vfs_dircache *c = talloc_zero(mem_ctx, struct vfs_dircache);

	if (c == NULL) {
		return NULL;
	}
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		talloc_free(c);
		return NULL;
	}
	talloc_set_destructor(c, dircache_destructor);
	c->max_bytes = max_bytes;
	c->max_dirs = max_dirs;
	return c;
}

static size_t dircache_bucket(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 32) ^ (dev >> 32)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 54) & (DIRCACHE_BUCKETS - 1);
}

static bool ts_equal(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static struct dircache_entry **dircache_slot(struct vfs_dircache *c,
					     uint64_t dev, uint64_t ino)
{
	struct dircache_entry **pp = &c->buckets[dircache_bucket(dev, ino)];

	while (*pp != NULL &&
	       ((*pp)->key.dev != dev || (*pp)->key.ino != ino)) {
		pp = &(*pp)->hash_next;
	}
	return pp;
}

static void lru_unlink(struct vfs_dircache *c, struct dircache_entry *e)
{
	if (e->lru_prev != NULL) {
		e->lru_prev->lru_next = e->lru_next;
	} else {
		c->newest = e->lru_next;
	}
	if (e->lru_next != NULL) {
		e->lru_next->lru_prev = e->lru_prev;
	} else {
		c->oldest = e->lru_prev;
	}
	e->lru_prev = e->lru_next = NULL;
}

static void lru_push(struct vfs_dircache *c, struct dircache_entry *e)
{
	e->lru_prev = NULL;
	e->lru_next = c->newest;
	if (c->newest != NULL) {
		c->newest->lru_prev = e;
	} else {
		c->oldest = e;
	}
	c->newest = e;
}

/* Unlink and free the entry *pp points at (under the lock). */
static void dircache_drop(struct vfs_dircache *c, struct dircache_entry **pp)
{
	struct dircache_entry *e = *pp;

	*pp = e->hash_next;
	lru_unlink(c, e);
	c->bytes -= e->bytes;
	c->dirs--;
	talloc_free(e);
}

enum vfs_dircache_answer vfs_dircache_get(struct vfs_dircache *c,
					  const struct vfs_dircache_key *key,
					  const char *name, TALLOC_CTX *mem_ctx,
					  char **real)
{
	enum vfs_dircache_answer ans = VFS_DIRCACHE_UNKNOWN;
	struct dircache_entry **pp;
	const char *hit;

	*real = NULL;
	pthread_mutex_lock(&c->lock);
	pp = dircache_slot(c, key->dev, key->ino);
	if (*pp == NULL) {
		goto out;
	}
	if (!ts_equal(&(*pp)->key.mtime, &key->mtime) ||
	    !ts_equal(&(*pp)->key.ctime, &key->ctime)) {
		dircache_drop(c, pp);	/* the directory changed */
		goto out;
	}
	lru_unlink(c, *pp);
	lru_push(c, *pp);
	hit = vfs_dirnames_find((*pp)->names, name);
	if (hit == NULL) {
		ans = VFS_DIRCACHE_ABSENT;
		goto out;
	}
	*real = talloc_strdup(mem_ctx, hit);
	ans = *real != NULL ? VFS_DIRCACHE_FOUND : VFS_DIRCACHE_UNKNOWN;
out:
	pthread_mutex_unlock(&c->lock);
	return ans;
}

bool vfs_dircache_put(struct vfs_dircache *c,
		      const struct vfs_dircache_key *key,
		      struct vfs_dirnames *t)
{
	size_t bytes = vfs_dirnames_bytes(t);
	struct dircache_entry *e;
	struct dircache_entry **pp;

	if (bytes > c->max_bytes || c->max_dirs == 0) {
		talloc_free(t);
		return false;
	}
	pthread_mutex_lock(&c->lock);
	pp = dircache_slot(c, key->dev, key->ino);
	if (*pp != NULL) {
		dircache_drop(c, pp);
	}
	while (c->oldest != NULL &&
	       (c->bytes + bytes > c->max_bytes || c->dirs >= c->max_dirs)) {
		e = c->oldest;
		dircache_drop(c, dircache_slot(c, e->key.dev, e->key.ino));
	}
	e = talloc_zero(c, struct dircache_entry);
	if (e == NULL) {
		pthread_mutex_unlock(&c->lock);
		talloc_free(t);
		return false;
	}
	e->key = *key;
	e->names = talloc_steal(e, t);
	e->bytes = bytes;
	pp = &c->buckets[dircache_bucket(key->dev, key->ino)];
	e->hash_next = *pp;
	*pp = e;
	lru_push(c, e);
	c->bytes += bytes;
	c->dirs++;
	pthread_mutex_unlock(&c->lock);
	return true;
}

void vfs_dircache_usage(struct vfs_dircache *c, size_t *dirs, size_t *bytes)
{
	pthread_mutex_lock(&c->lock);
	*dirs = c->dirs;
	*bytes = c->bytes;
	pthread_mutex_unlock(&c->lock);
}

/* ---- the file-system glue -------------------------------------------- */

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

bool vfs_dircache_quiet(const struct timespec *mtime,
			const struct timespec *ctime,
			const struct timespec *now)
{
	bool coarse = mtime->tv_nsec == 0 && ctime->tv_nsec == 0;
	int64_t margin = coarse ? 2100000000 : 20000000;
	int64_t last = ts_ns(mtime) > ts_ns(ctime) ? ts_ns(mtime)
						   : ts_ns(ctime);

	return last + margin < ts_ns(now);
}

static void key_from_stat(const struct stat *st, struct vfs_dircache_key *k)
{
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->mtime = st->st_mtim;
	k->ctime = st->st_ctim;
}

static bool dircache_add(void *priv, const char *name)
{
	return vfs_dirnames_add(priv, name, strlen(name));
}

/* Every name of the directory (not "." and ".."), or NULL (an error,
 * more than DIRCACHE_MAX_NAMES, out of memory). */
static struct vfs_dirnames *dircache_read(int dirfd)
{
	struct vfs_dirnames *t = vfs_dirnames_new(NULL, DIRCACHE_MAX_NAMES);

	if (t == NULL || vfs_dir_each(dirfd, dircache_add, t) != 0) {
		talloc_free(t);
		return NULL;
	}
	vfs_dirnames_seal(t);
	return t;
}

static struct vfs_dircache *process_cache;
static pthread_once_t process_cache_once = PTHREAD_ONCE_INIT;

static void process_cache_init(void)
{
	process_cache = vfs_dircache_new(NULL, DIRCACHE_MAX_BYTES,
					 DIRCACHE_MAX_DIRS);
}

enum vfs_dircache_answer vfs_dircache_lookup(TALLOC_CTX *mem_ctx, int dirfd,
					     const char *name, char **real)
{
	struct vfs_dircache_key key;
	struct vfs_dirnames *t;
	struct timespec now;
	struct stat before, after;
	enum vfs_dircache_answer ans;
	const char *hit;

	*real = NULL;
	pthread_once(&process_cache_once, process_cache_init);
	if (process_cache == NULL ||
	    clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0 ||
	    fstat(dirfd, &before) != 0) {
		return VFS_DIRCACHE_UNKNOWN;
	}
	key_from_stat(&before, &key);
	ans = vfs_dircache_get(process_cache, &key, name, mem_ctx, real);
	if (ans != VFS_DIRCACHE_UNKNOWN ||
	    !vfs_dircache_quiet(&before.st_mtim, &before.st_ctim, &now)) {
		return ans;
	}
	t = dircache_read(dirfd);
	if (t == NULL) {
		/* Too large or unreadable: the caller's scan decides. */
		lseek(dirfd, 0, SEEK_SET);
		return VFS_DIRCACHE_UNKNOWN;
	}
	/* Answer from what was read before the cache owns it (another
	 * thread may evict it as soon as it is in). */
	hit = vfs_dirnames_find(t, name);
	ans = VFS_DIRCACHE_ABSENT;
	if (hit != NULL) {
		*real = talloc_strdup(mem_ctx, hit);
		ans = *real != NULL ? VFS_DIRCACHE_FOUND : VFS_DIRCACHE_UNKNOWN;
	}
	if (ans == VFS_DIRCACHE_UNKNOWN) {
		lseek(dirfd, 0, SEEK_SET);
	}
	if (vfs_dirnames_count(t) >= DIRCACHE_MIN_NAMES &&
	    fstat(dirfd, &after) == 0 &&
	    ts_equal(&after.st_mtim, &before.st_mtim) &&
	    ts_equal(&after.st_ctim, &before.st_ctim)) {
		vfs_dircache_put(process_cache, &key, t);
	} else {
		talloc_free(t);
	}
	return ans;
}
