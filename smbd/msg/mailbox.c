/*
 * The inter-worker mailbox (mailbox.h): datagrams on the socketpairs the
 * master made, a header and a body, and a descriptor when the type takes
 * one.  Between processes of one server on one host, so native layout,
 * checked on receipt all the same (size, magic, type, registered length).
 */
#include "smbd/msg/mailbox.h"
#include "smbd/smbd.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MSG_MAGIC 0x4b4f4c4fu /* "OLOK" */

struct msg_hdr {
	uint32_t magic;
	uint32_t type;
	int32_t from;
	uint32_t len;
};

struct msg_slot {
	smbd_msg_fn fn;
	size_t body_len;
	bool takes_fd;
};

struct smbd_mailbox {
	struct smbd_server *srv;
	int self;
	void *priv;
	struct msg_slot slots[SMBD_MSG_MAX];
	uint8_t *rbuf;	/* one received message: header and body */
};

bool smbd_mailboxes_create(struct smbd_server *srv)
{
	int i;

	srv->mbox = talloc_array(srv, int, 2 * srv->nworkers);
	if (srv->mbox == NULL) {
		return false;
	}
	for (i = 0; i < srv->nworkers; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       0, sv) != 0) {
			DBG_ERR("cannot create worker mailboxes: %s\n",
				log_syserr());
			return false;
		}
		srv->mbox[2 * i] = sv[0];	/* worker i reads */
		srv->mbox[2 * i + 1] = sv[1];	/* everyone writes */
	}
	return true;
}

struct smbd_mailbox *smbd_mailbox_new(TALLOC_CTX *mem_ctx,
				      struct smbd_server *srv, int index,
				      void *priv)
{
	struct smbd_mailbox *mb = talloc_zero(mem_ctx, struct smbd_mailbox);

	if (mb == NULL) {
		return NULL;
	}
	mb->srv = srv;
	mb->self = index;
	mb->priv = priv;
	mb->rbuf = talloc_size(mb, sizeof(struct msg_hdr) + SMBD_MSG_BODY_MAX);
	if (mb->rbuf == NULL) {
		talloc_free(mb);
		return NULL;
	}
	return mb;
}

void smbd_mailbox_handle(struct smbd_mailbox *mb, enum smbd_msg_type type,
			 smbd_msg_fn fn, size_t body_len, bool takes_fd)
{
	if (mb == NULL || type <= 0 || type >= SMBD_MSG_MAX ||
	    body_len > SMBD_MSG_BODY_MAX) {
		return;
	}
	mb->slots[type] = (struct msg_slot){
		.fn = fn, .body_len = body_len, .takes_fd = takes_fd,
	};
}

/* The slot of a message as it arrived; NULL when it is malformed. */
static const struct msg_slot *msg_slot(const struct smbd_mailbox *mb,
				       const struct msg_hdr *h, size_t got,
				       int fd)
{
	const struct msg_slot *s;

	if (got < sizeof(*h) || h->magic != MSG_MAGIC || h->type == 0 ||
	    h->type >= SMBD_MSG_MAX) {
		return NULL;
	}
	s = &mb->slots[h->type];
	if (s->fn == NULL || h->len != s->body_len ||
	    got != sizeof(*h) + h->len || (fd != -1 && !s->takes_fd)) {
		return NULL;
	}
	return s;
}

/* One datagram, and the descriptor it carries if any. */
static ssize_t mailbox_recv(int fd, void *buf, size_t size, int *passed)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = buf, .iov_len = size};
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	ssize_t got = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (got < 0) {
		return got;
	}
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(passed, CMSG_DATA(c), sizeof(int));
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		return 0; /* refused as malformed */
	}
	return got;
}

bool smbd_mailbox_dispatch(struct smbd_mailbox *mb, const void *msg,
			   size_t len, int fd)
{
	struct msg_hdr h;
	const struct msg_slot *s;

	if (len >= sizeof(h)) {
		memcpy(&h, msg, sizeof(h));
	} else {
		memset(&h, 0, sizeof(h));
	}
	s = msg_slot(mb, &h, len, fd);
	if (s == NULL) {
		DBG_WARNING("worker %d: malformed mailbox message "
			    "(type %u, %zu bytes)\n", mb->self, h.type, len);
		if (fd != -1) {
			close(fd);
		}
		return false;
	}
	s->fn(mb->priv, h.from, (const uint8_t *)msg + sizeof(h), fd);
	return true;
}

unsigned smbd_mailbox_receive(struct smbd_mailbox *mb)
{
	int fd = mb->srv->mbox[2 * mb->self];
	unsigned n;

	/* A bounded batch, then back to the loop: connections get their
	 * turn even when the mailbox is busy.  A handler may send (never
	 * receive), so the one buffer serves the whole batch. */
	for (n = 0; n < 64; n++) {
		int passed = -1;
		ssize_t got = mailbox_recv(fd, mb->rbuf,
					   sizeof(struct msg_hdr) +
						   SMBD_MSG_BODY_MAX,
					   &passed);

		if (got < 0) {
			break;
		}
		(void)smbd_mailbox_dispatch(mb, mb->rbuf, (size_t)got, passed);
	}
	return n;
}

static void mailbox_readable(void *priv)
{
	(void)smbd_mailbox_receive(priv);
}

bool smbd_mailbox_listen(struct smbd_mailbox *mb, struct ev_loop *loop)
{
	if (mb->srv->mbox == NULL) {
		return true;
	}
	return ev_watch_fd(loop, mb, mb->srv->mbox[2 * mb->self],
			   mailbox_readable, mb) == 0;
}

/* The datagram itself, from from to worker to of srv. */
static bool msg_send(struct smbd_server *srv, int from, int to,
		     enum smbd_msg_type type, const void *body, size_t len,
		     int fd)
{
	struct msg_hdr h = {
		.magic = MSG_MAGIC, .type = (uint32_t)type, .from = from,
		.len = (uint32_t)len,
	};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov[2] = {
		{.iov_base = &h, .iov_len = sizeof(h)},
		{.iov_base = (void *)body, .iov_len = len},
	};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	struct cmsghdr *c;

	if (srv->mbox == NULL || to < 0 || to >= srv->nworkers ||
	    len > SMBD_MSG_BODY_MAX) {
		return false;
	}
	if (fd != -1) {
		memset(cm.buf, 0, sizeof(cm.buf));
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(srv->mbox[2 * to + 1], &mh, MSG_DONTWAIT) !=
	    (ssize_t)(sizeof(h) + len)) {
		/* A full mailbox: the waiters' poll still finds the end of
		 * a break; a lost break notification ends by timeout; the
		 * other owners say what they do instead. */
		DBG_WARNING("mailbox message %d from worker %d to worker %d "
			    "lost: %s\n", (int)type,
			    from, to, log_syserr());
		return false;
	}
	return true;
}

/* A message to oneself: the handler now, with its own copy of fd. */
static bool msg_deliver_here(struct smbd_mailbox *mb,
			     enum smbd_msg_type type, const void *body,
			     size_t len, int fd)
{
	const struct msg_slot *s;
	int copy = -1;

	if (type <= 0 || type >= SMBD_MSG_MAX) {
		return false;
	}
	s = &mb->slots[type];
	if (s->fn == NULL || s->body_len != len ||
	    (fd != -1 && !s->takes_fd)) {
		return false;
	}
	if (fd != -1) {
		copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (copy == -1) {
			return false;
		}
	}
	s->fn(mb->priv, mb->self, body, copy);
	return true;
}

bool smbd_mailbox_send(struct smbd_mailbox *mb, int to,
		       enum smbd_msg_type type, const void *body,
		       size_t len, int fd)
{
	if (mb == NULL) {
		return false;
	}
	if (to == mb->self) {
		return msg_deliver_here(mb, type, body, len, fd);
	}
	return msg_send(mb->srv, mb->self, to, type, body, len, fd);
}

void smbd_mailbox_broadcast(struct smbd_mailbox *mb, enum smbd_msg_type type,
			    const void *body, size_t len)
{
	int i;

	if (mb == NULL) {
		return;
	}
	for (i = 0; mb->srv->mbox != NULL && i < mb->srv->nworkers; i++) {
		if (i != mb->self) {
			(void)msg_send(mb->srv, mb->self, i, type, body, len, -1);
		}
	}
	(void)msg_deliver_here(mb, type, body, len, -1);
}

bool smbd_mailbox_post(struct smbd_server *srv, int to,
		       enum smbd_msg_type type, const void *body, size_t len)
{
	return msg_send(srv, -1, to, type, body, len, -1);
}

bool smbd_mailbox_post_fd(struct smbd_server *srv, int to,
			  enum smbd_msg_type type, const void *body,
			  size_t len, int fd)
{
	return msg_send(srv, -1, to, type, body, len, fd);
}
