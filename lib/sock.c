/*
 * Socket calls with -errno results (design in sock.h).
 */
#include "lib/sock.h"

#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>

ssize_t sock_send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t n = send(fd, buf, len, flags);

	return n < 0 ? -errno : n;
}

ssize_t sock_recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t n = recv(fd, buf, len, flags);

	return n < 0 ? -errno : n;
}

ssize_t sock_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t sock_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

int sock_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int r = poll(fds, n, timeout_ms);

	return r < 0 ? -errno : r;
}

int sock_setopt(int fd, int level, int name, const void *val, socklen_t len)
{
	return setsockopt(fd, level, name, val, len) == 0 ? 0 : -errno;
}

int sock_port_free(const struct sockaddr *sa, socklen_t salen)
{
	int one = 1, err = 0;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd == -1) {
		return -errno;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6) {
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				 sizeof(one));
	}
	if (bind(fd, sa, salen) != 0) {
		err = -errno;
	}
	close(fd);
	return err;
}

int sock_listen_reuseport(const struct sockaddr *sa, socklen_t salen,
			  int backlog)
{
	int one = 1;
	int fd = socket(sa->sa_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd == -1) {
		return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
	    (sa->sa_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) !=
		     0) ||
	    bind(fd, sa, salen) != 0 || listen(fd, backlog) != 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	return fd;
}
