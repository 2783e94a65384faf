/*
 * Time Machine's size limit (see fruit_tm.h): the sparse bundles' bands
 * counted in the pool, the sizes the share reports cut to the maximum.
 */
#include "vfs/fruit_tm.h"
#include "vfs/vfs.h"
#include "vfs/vfs_posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUNDLE_SUFFIX ".sparsebundle"

/* The first occurrence of needle (n bytes) in text[0..len), or NULL. */
static const char *find(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	return n <= len ? memmem(text, len, needle, n) : NULL;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end &&
	       (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		p++;
	}
	return p;
}

/* "<tag>" at p (within end): the byte after it, else NULL. */
static const char *expect(const char *p, const char *end, const char *tag)
{
	size_t n = strlen(tag);

	if ((size_t)(end - p) < n || memcmp(p, tag, n) != 0) {
		return NULL;
	}
	return p + n;
}

bool vfs_fruit_plist_band_size(const char *text, size_t len,
			       uint64_t *band_size)
{
	const char *end = text + len;
	const char *p = find(text, len, "<key>band-size</key>");
	uint64_t v = 0;
	bool digits = false;

	if (p == NULL) {
		return false;
	}
	p = skip_space(p + strlen("<key>band-size</key>"), end);
	p = expect(p, end, "<integer>");
	if (p == NULL) {
		return false;
	}
	p = skip_space(p, end);
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			return false;
		}
		v = v * 10 + d;
		digits = true;
	}
	p = skip_space(p, end);
	if (!digits || v == 0 || expect(p, end, "</integer>") == NULL) {
		return false;
	}
	*band_size = v;
	return true;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* Whether entry de of directory dfd is of type dtype (DT_REG, DT_DIR),
 * asking the file system when readdir could not say (DT_UNKNOWN). */
static bool entry_is(int dfd, const struct dirent *de, unsigned char dtype)
{
	struct stat sb;

	if (de->d_type != DT_UNKNOWN) {
		return de->d_type == dtype;
	}
	if (fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		return false;
	}
	return dtype == DT_DIR ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode);
}

/* The band size of bundle directory bfd's Info.plist, 0 if none. */
static uint64_t bundle_band_size(int bfd)
{
	char *buf;
	ssize_t n;
	uint64_t band = 0;
	/* a FIFO of that name must not hold the thread (vfs_posix.h) */
	int fd = vfs_open_settle(openat(bfd, "Info.plist",
					O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
						O_NONBLOCK),
				 O_RDONLY);

	if (fd == -1) {
		return 0;
	}
	buf = malloc(VFS_FRUIT_PLIST_MAX);
	n = buf != NULL ? read(fd, buf, VFS_FRUIT_PLIST_MAX) : -1;
	if (n > 0 && !vfs_fruit_plist_band_size(buf, (size_t)n, &band)) {
		band = 0;
	}
	free(buf);
	close(fd);
	return band;
}

/* Regular files in bfd's bands/ directory. */
static uint64_t bundle_bands(int bfd)
{
	int fd = openat(bfd, "bands",
			O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d = fd != -1 ? fdopendir(fd) : NULL;
	struct dirent *de;
	uint64_t count = 0;

	if (d == NULL) {
		if (fd != -1) {
			close(fd);
		}
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (entry_is(dirfd(d), de, DT_REG)) {
			count++;
		}
	}
	closedir(d);
	return count;
}

NTSTATUS vfs_fruit_tm_used(int root, uint64_t *used)
{
	int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd != -1 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t slen = strlen(BUNDLE_SUFFIX);

	*used = 0;
	if (d == NULL) {
		int err = errno;

		if (fd != -1) {
			close(fd);
		}
		return vfs_map_errno(err);
	}
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		int bfd;

		if (len <= slen ||
		    strcmp(de->d_name + len - slen, BUNDLE_SUFFIX) != 0 ||
		    !entry_is(dirfd(d), de, DT_DIR)) {
			continue;
		}
		bfd = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (bfd == -1) {
			continue;
		}
		*used = add_sat(*used, mul_sat(bundle_band_size(bfd),
					       bundle_bands(bfd)));
		close(bfd);
	}
	closedir(d);
	return NT_STATUS_OK;
}

void vfs_fruit_tm_limit(uint64_t max, uint64_t used, uint64_t *total,
			uint64_t *free_bytes, uint64_t *caller_free)
{
	uint64_t left;

	if (*total > max) {
		*total = max;
	}
	left = used < *total ? *total - used : 0;
	if (*free_bytes > left) {
		*free_bytes = left;
	}
	if (*caller_free > left) {
		*caller_free = left;
	}
}
