/*
 * Socket calls that return the error instead of leaving it in errno: each
 * returns what the C library call returns on success and -errno on
 * failure (never -1 with errno set), so the rooms above lib/ and vfs/,
 * which read no errno (issue 37), still tell a retry (-EINTR), a full or
 * empty socket (-EAGAIN) and a port in use (-EADDRINUSE) from a failure,
 * and log strerror(-ret).  Plain calls, no extra syscall.
 *
 * sock_port_free() and sock_listen_reuseport() are the two halves of
 * opening a SO_REUSEPORT group (smbd/process/listen.c): SO_REUSEPORT lets
 * any process of the same user join a port's group, and the kernel would
 * then share our connections with it (another smbd, say), so the port is
 * checked free first with a plain bind.
 */
#ifndef LIB_SOCK_H
#define LIB_SOCK_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

ssize_t sock_send(int fd, const void *buf, size_t len, int flags);
ssize_t sock_recv(int fd, void *buf, size_t len, int flags);
ssize_t sock_read(int fd, void *buf, size_t len);
ssize_t sock_write(int fd, const void *buf, size_t len);
int sock_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
int sock_setopt(int fd, int level, int name, const void *val,
		socklen_t len);

/* 0 when a plain bind (SO_REUSEADDR) to sa succeeds, else -errno. */
int sock_port_free(const struct sockaddr *sa, socklen_t salen);
/* A non-blocking listening TCP socket bound to sa in a SO_REUSEPORT
 * group (IPv6 only for an IPv6 address), or -errno. */
int sock_listen_reuseport(const struct sockaddr *sa, socklen_t salen,
			  int backlog);

#endif
