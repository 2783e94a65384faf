/*
 * A descriptor shared by its owner and pool jobs: see fd_share.h.
 */
#include "lib/fd_share.h"
#include "lib/bug.h"

#include <errno.h>
#include <unistd.h>

struct fd_share {
	int fd;
	unsigned refs;	/* the owner's, then one per holder */
};

struct fd_borrow {
	struct fd_share *share;
};

static void fd_share_put(struct fd_share *sh)
{
	BUG_ON(sh->refs == 0);
	if (--sh->refs == 0) {
		close(sh->fd);
		talloc_free(sh);
	}
}

static int fd_borrow_destructor(struct fd_borrow *b)
{
	fd_share_put(b->share);
	return 0;
}

int fd_share_borrow(struct fd_share **shp, int fd, TALLOC_CTX *holder)
{
	struct fd_borrow *b;

	if (fd == -1) {
		errno = EBADF;
		return -1;
	}
	b = talloc(holder, struct fd_borrow);
	if (b == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (*shp == NULL) {
		/* Not a child of the owner: it outlives the owner while a
		 * holder does. */
		*shp = talloc(NULL, struct fd_share);
		if (*shp == NULL) {
			talloc_free(b);
			errno = ENOMEM;
			return -1;
		}
		(*shp)->fd = fd;
		(*shp)->refs = 1;	/* the owner's */
	}
	b->share = *shp;
	b->share->refs++;
	talloc_set_destructor(b, fd_borrow_destructor);
	return fd;
}

void fd_share_release(struct fd_share **shp, int fd)
{
	if (*shp != NULL) {
		fd_share_put(*shp);
		*shp = NULL;
	} else if (fd != -1) {
		close(fd);
	}
}

bool fd_share_borrowed(const struct fd_share *sh)
{
	return sh != NULL && sh->refs > 1;
}

void fd_share_forget(struct fd_share **shp)
{
	if (*shp != NULL && !fd_share_borrowed(*shp)) {
		talloc_free(*shp);
		*shp = NULL;
	}
}
