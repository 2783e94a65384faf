/*
 * See control.h.
 */
#include "smbd/process/control.h"
#include "smbd/smbd.h"
#include "smbd/msg/mailbox.h"
#include "conf/loadparm.h"
#include "lib/log.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"

#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const struct {
	const char *verb;
	enum smbd_control_op op;
	bool takes_arg;
} control_verbs[] = {
	{"reload-config", SMBD_CONTROL_RELOAD, false},
	{"shutdown", SMBD_CONTROL_SHUTDOWN, false},
	{"debug", SMBD_CONTROL_DEBUG, true},
	{"close-share", SMBD_CONTROL_CLOSE_SHARE, true},
	{"ping", SMBD_CONTROL_NONE, false},
};

enum smbd_control_op smbd_control_parse(const char *req, size_t len,
					char *arg, size_t arg_size)
{
	size_t vlen = 0, alen, i;
	const char *a;

	if (arg_size == 0) {
		return SMBD_CONTROL_NONE;
	}
	arg[0] = '\0';
	while (len > 0 && (req[len - 1] == '\n' || req[len - 1] == ' ')) {
		len--;
	}
	while (vlen < len && req[vlen] != ' ') {
		vlen++;
	}
	a = req + vlen;
	alen = len - vlen;
	while (alen > 0 && *a == ' ') {
		a++;
		alen--;
	}
	for (i = 0; i < sizeof(control_verbs) / sizeof(control_verbs[0]);
	     i++) {
		if (strlen(control_verbs[i].verb) != vlen ||
		    memcmp(control_verbs[i].verb, req, vlen) != 0) {
			continue;
		}
		if (control_verbs[i].takes_arg != (alen > 0) ||
		    alen >= arg_size || memchr(a, '\0', alen) != NULL) {
			snprintf(arg, arg_size, "%s %s", control_verbs[i].verb,
				 control_verbs[i].takes_arg
					 ? "needs one argument"
					 : "takes no argument");
			return SMBD_CONTROL_NONE;
		}
		memcpy(arg, a, alen);
		arg[alen] = '\0';
		if (control_verbs[i].op == SMBD_CONTROL_NONE) {
			snprintf(arg, arg_size, "pong");
		}
		return control_verbs[i].op;
	}
	snprintf(arg, arg_size, "unknown message '%.*s'",
		 (int)(vlen > 64 ? 64 : vlen), req);
	return SMBD_CONTROL_NONE;
}

int smbd_control_open(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	mode_t old_mask;
	int fd, on = 1, rc;

	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s", dir,
			     SMBD_CONTROL_SOCKET) >= sizeof(sun.sun_path)) {
		DBG_ERR("lock directory %s: too long for the smbcontrol "
			"socket\n", dir);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		return -1;
	}
	(void)unlink(sun.sun_path);
	/* The socket file is made 0600 by bind itself (the daemon's umask
	 * is 0: a chmod after it would leave a moment in which anyone could
	 * send), and each request's sender must be root (SO_PASSCRED). */
	old_mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old_mask);
	if (rc != 0 || chmod(sun.sun_path, 0600) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0 ||
	    fcntl(fd, F_SETOWN, getpid()) != 0 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC) != 0) {
		DBG_ERR("smbcontrol socket %s: %s\n", sun.sun_path,
			log_syserr());
		close(fd);
		return -1;
	}
	return fd;
}

void smbd_control_close(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (srv->control_fd == -1) {
		return;
	}
	close(srv->control_fd);
	srv->control_fd = -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			     SMBD_CONTROL_SOCKET) < sizeof(path)) {
		(void)unlink(path);
	}
}

/* SMBD_MSG_CONTROL: an op and its argument, from the master. */
struct control_msg {
	int32_t op;
	char arg[256];	/* NUL-terminated (checked on receipt) */
};

static void control_forward(struct smbd_server *srv, int op, const char *arg)
{
	struct control_msg m = {.op = op};
	int i;

	if (strlen(arg) >= sizeof(m.arg)) {
		return;
	}
	memcpy(m.arg, arg, strlen(arg) + 1);
	for (i = 0; i < srv->nworkers; i++) {
		(void)smbd_mailbox_post(srv, i, SMBD_MSG_CONTROL, &m, sizeof(m));
	}
}

/* `debug LEVEL`: a `log level` value, "3" or "1 auth:3 passdb:5"
 * (lib/log.h), as Samba's smbcontrol takes it.  Class files
 * ("class:N@FILE") only come from smb.conf: a control message must not
 * make the daemon open a file of the sender's choosing. */
static bool control_debug_level(const char *arg)
{
	int levels[LOG_CLASS__COUNT];

	return arg[0] != '\0' && strchr(arg, '@') == NULL &&
	       log_parse_levels(arg, levels, NULL, 0);
}

/* One datagram, its sender's address and whether the sender is root
 * (the kernel's SCM_CREDENTIALS, not anything the sender wrote). */
static ssize_t control_recv(int fd, char *buf, size_t len,
			    struct sockaddr_un *from, socklen_t *flen,
			    bool *root)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr mh = {
		.msg_name = from,
		.msg_namelen = sizeof(*from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cm.buf,
		.msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	*root = false;
	*flen = mh.msg_namelen;
	if (n < 0) {
		return n;
	}
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			*root = uc.uid == 0;
		}
	}
	return n;
}

void smbd_control_handle(struct smbd_server *srv, int fd,
			 enum smbd_control_op *action)
{
	char req[SMBD_CONTROL_MAX], arg[SMBD_CONTROL_MAX];
	char answer[SMBD_CONTROL_MAX + 16];
	struct sockaddr_un from;
	socklen_t flen;
	ssize_t n;

	for (;;) {
		enum smbd_control_op op;
		bool root = false;

		n = control_recv(fd, req, sizeof(req), &from, &flen, &root);
		if (n < 0) {
			break;
		}
		if (!root) {
			DBG_WARNING("smbcontrol: a request from a process that "
				    "is not root: refused\n");
			continue;
		}
		op = smbd_control_parse(req, (size_t)n, arg, sizeof(arg));
		snprintf(answer, sizeof(answer), "ok");
		switch (op) {
		case SMBD_CONTROL_NONE:
			snprintf(answer, sizeof(answer), "%s %s",
				 strcmp(arg, "pong") == 0 ? "ok" : "error",
				 arg);
			break;
		case SMBD_CONTROL_RELOAD:
		case SMBD_CONTROL_SHUTDOWN:
			*action = op;
			break;
		case SMBD_CONTROL_DEBUG:
			if (!control_debug_level(arg)) {
				snprintf(answer, sizeof(answer),
					 "error bad debug level '%.64s'", arg);
				break;
			}
			(void)log_set_levels(arg);
			control_forward(srv, op, arg);
			break;
		case SMBD_CONTROL_CLOSE_SHARE:
			control_forward(srv, op, arg);
			break;
		}
		DBG_NOTICE("smbcontrol: %.*s: %s\n", (int)(n > 80 ? 80 : n),
			   req, answer);
		if (flen > sizeof(sa_family_t)) {
			(void)sendto(fd, answer, strlen(answer), MSG_DONTWAIT,
				     (struct sockaddr *)&from, flen);
		}
	}
}

static void worker_control(struct smbd_worker *w, int op, const char *arg)
{
	switch (op) {
	case SMBD_CONTROL_DEBUG:
		if (control_debug_level(arg)) {
			(void)log_set_levels(arg);
		}
		break;
	case SMBD_CONTROL_CLOSE_SHARE:
		smbd_tcons_close_share(w, arg);
		break;
	default:
		break;
	}
}

static void control_msg(void *priv, int from, const void *body, int fd)
{
	struct control_msg m;

	memcpy(&m, body, sizeof(m));
	if (memchr(m.arg, '\0', sizeof(m.arg)) != NULL) {
		worker_control(priv, m.op, m.arg);
	}
}

void smbd_control_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_CONTROL, control_msg,
			    sizeof(struct control_msg), false);
}
