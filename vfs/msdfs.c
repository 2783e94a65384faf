/*
 * msdfs links (vfs/msdfs.h): the text of a link, its targets, and the
 * walk that finds the first link on a path.  The walk takes each name
 * as vfs_resolve does (vfs_lookup_component) and each directory through
 * the share's openat2 rules, so it sees what a CREATE of the same path
 * would see, as the same user, and cannot leave the share.
 */
#include "vfs/msdfs.h"
#include "vfs/name.h"
#include "vfs/vfs_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MSDFS_PREFIX "msdfs:"
#define MSDFS_PREFIX_LEN 6

const char *vfs_msdfs_link_text(const char *text)
{
	if (strncasecmp(text, MSDFS_PREFIX, MSDFS_PREFIX_LEN) != 0) {
		return NULL;
	}
	return text + MSDFS_PREFIX_LEN;
}

/* One target of the list, [p, p + len): '/' as '\', the leading '\'s
 * replaced by one. */
static char *msdfs_target(TALLOC_CTX *mem_ctx, const char *p, size_t len)
{
	char *t;
	size_t i;

	while (len > 0 && (*p == '\\' || *p == '/')) {
		p++;
		len--;
	}
	t = talloc_array(mem_ctx, char, len + 2);
	if (t == NULL) {
		return NULL;
	}
	t[0] = '\\';
	for (i = 0; i < len; i++) {
		t[i + 1] = p[i] == '/' ? '\\' : p[i];
	}
	t[len + 1] = '\0';
	return t;
}

bool vfs_msdfs_targets(TALLOC_CTX *mem_ctx, const char *list,
		       char ***targets, size_t *n)
{
	const char *p = list;
	char **t = talloc_array(mem_ctx, char *, 0);
	size_t count = 0;

	*targets = NULL;
	*n = 0;
	if (t == NULL) {
		return false;
	}
	while (*p != '\0') {
		size_t len = strcspn(p, ",");

		if (len > 0) {
			char **nt = talloc_realloc(mem_ctx, t, char *,
						   count + 1);

			if (nt == NULL) {
				talloc_free(t);
				return false;
			}
			t = nt;
			t[count] = msdfs_target(t, p, len);
			if (t[count] == NULL) {
				talloc_free(t);
				return false;
			}
			count++;
		}
		p += len;
		p += *p == ',';
	}
	*targets = t;
	*n = count;
	return true;
}

void vfs_msdfs_shuffle(char **targets, size_t n, const uint32_t *rnd)
{
	size_t i;

	/* Fisher-Yates, from the end */
	for (i = n; i > 1; i--) {
		size_t j = rnd[n - i] % i;
		char *tmp = targets[i - 1];

		targets[i - 1] = targets[j];
		targets[j] = tmp;
	}
}

bool vfs_msdfs_is_link_at(int dirfd, const char *name)
{
	char buf[MSDFS_PREFIX_LEN + 1];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);

	if (n < MSDFS_PREFIX_LEN) {
		return false;
	}
	buf[n] = '\0';
	return vfs_msdfs_link_text(buf) != NULL;
}

/* The target list of the symlink name in dirfd, when it is an msdfs
 * link: on mem_ctx; NULL otherwise (or out of memory). */
static char *msdfs_read_link(TALLOC_CTX *mem_ctx, int dirfd,
			     const char *name)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
	const char *t;

	if (n < 0) {
		return NULL;
	}
	buf[n] = '\0';
	t = vfs_msdfs_link_text(buf);
	return t != NULL ? talloc_strdup(mem_ctx, t) : NULL;
}

NTSTATUS vfs_msdfs_find(TALLOC_CTX *mem_ctx, const struct vfs_share *sh,
			const char *path, size_t *depth, char **text)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	char *work = talloc_strdup(tmp, path);
	char *save = NULL, *comp, *next;
	NTSTATUS st = NT_STATUS_OK;
	size_t i = 0;
	int dirfd;

	*depth = 0;
	*text = NULL;
	if (tmp == NULL || work == NULL) {
		talloc_free(tmp);
		return NT_STATUS_NO_MEMORY;
	}
	dirfd = vfs_openat_beneath(sh, sh->root_fd, "", O_PATH | O_DIRECTORY,
				   0);
	if (dirfd == -1) {
		talloc_free(tmp);
		return vfs_map_errno(errno);
	}
	for (comp = strtok_r(work, "/", &save); comp != NULL; comp = next) {
		struct stat sb;
		char *real;
		bool found;
		int nfd;

		next = strtok_r(NULL, "/", &save);
		i++;
		st = vfs_lookup_component(tmp, sh, dirfd, comp, next == NULL,
					  &real, &found, &sb);
		if (!NT_STATUS_IS_OK(st) || !found ||
		    vfs_name_in_list(sh->veto_files, comp,
				     sh->case_sensitive) ||
		    vfs_name_in_list(sh->veto_files, real,
				     sh->case_sensitive)) {
			break;
		}
		if (S_ISLNK(sb.st_mode)) {
			*text = msdfs_read_link(mem_ctx, dirfd, real);
			if (*text != NULL) {
				*depth = i;
				break;
			}
		}
		if (next == NULL) {
			break;
		}
		nfd = vfs_openat_beneath(sh, dirfd, real, O_PATH | O_DIRECTORY,
					 0);
		if (nfd == -1) {
			/* not a directory to go on in (a file, a symlink
			 * the share does not follow or that dangles) ends
			 * the walk; a directory the user may not enter is
			 * the answer */
			if (errno == EACCES || errno == EPERM ||
			    errno == ENOMEM || errno == EMFILE ||
			    errno == ENFILE) {
				st = vfs_map_errno(errno);
			}
			break;
		}
		close(dirfd);
		dirfd = nfd;
	}
	close(dirfd);
	talloc_free(tmp);
	return st;
}
