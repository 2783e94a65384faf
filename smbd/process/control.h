/*
 * smbcontrol's channel to a running smbd (Samba's verbs): the master
 * binds a datagram socket, `lock directory`/smbd-control (mode 0600:
 * root only), whose readability raises SIGIO in the master's signal
 * loop.  A request is one datagram "VERB [ARGUMENT]"; the answer, one
 * datagram "ok ..." or "error ...", goes back to the sender's address.
 *
 *   reload-config      as SIGHUP (master and workers re-read smb.conf)
 *   shutdown           as SIGTERM
 *   debug LEVEL        `log level` for the master and every worker, now
 *   close-share NAME   every worker disconnects the trees of share NAME
 *                      (its next request on one: NETWORK_NAME_DELETED)
 *   ping               "ok pong"
 *
 * The master forwards debug and close-share to the workers through their
 * mailboxes (SMBD_MSG_CONTROL, smbd/msg/mailbox.h); a worker applies
 * them in the handler smbd_control_register gives its mailbox.
 */
#ifndef SMBD_CONTROL_H
#define SMBD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

struct smbd_server;
struct smbd_worker;

#define SMBD_CONTROL_SOCKET "smbd-control"
#define SMBD_CONTROL_MAX 512	/* bytes of one request or answer */

enum smbd_control_op {
	SMBD_CONTROL_NONE = 0,
	SMBD_CONTROL_RELOAD,
	SMBD_CONTROL_SHUTDOWN,
	SMBD_CONTROL_DEBUG,
	SMBD_CONTROL_CLOSE_SHARE,
};

/* The master, before the workers fork: bind the socket, arm SIGIO.
 * Returns the descriptor or -1 (logged; the server runs without it). */
int smbd_control_open(struct smbd_server *srv);
/* The master stops: the socket goes. */
void smbd_control_close(struct smbd_server *srv);
/* SIGIO: answer every queued request; reload/shutdown are left to the
 * master's loop (*action), debug/close-share are forwarded. */
void smbd_control_handle(struct smbd_server *srv, int fd,
			 enum smbd_control_op *action);

/* Parse one request: the op and its argument (into arg, NUL-terminated),
 * or SMBD_CONTROL_NONE with an error text in arg.  Pure (unit tests,
 * fuzz target). */
enum smbd_control_op smbd_control_parse(const char *req, size_t len,
					char *arg, size_t arg_size);

/* A worker, at its start: its mailbox applies a forwarded debug or
 * close-share. */
void smbd_control_register(struct smbd_worker *w);

#endif
