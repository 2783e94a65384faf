/*
 * The accept barrier: a new connection is served only once every other
 * worker has handled what the kernel had already finished for it.
 *
 * Why: a client that drops a connection and at once opens another (every
 * smbtorture test does, and so does a client that reconnects after a
 * hiccup) expects the server to have ended the first one: its opens
 * closed, their share modes and pending deletes settled.  Within one
 * process that holds by the order of events.  Across workers it did not:
 * the new connection may land on another worker, which could answer its
 * CREATE while the old connection's worker had not yet run, so the old
 * open still held the file (DELETE_PENDING, SHARING_VIOLATION).
 *
 * How: the accepting worker sends every other worker a BARRIER message
 * through its mailbox and starts reading the connection when all have
 * answered.  A worker answers with ev_after_poll(), that is after it has
 * once more collected and handled its completions: the old connection's
 * EOF arrived before the new connection's SYN, so it is among them.
 * A worker that does not answer within SMBD_BARRIER_MS (stopped, busy in
 * a slow call, being replaced) delays the connection no longer than that.
 */
#include "smbd/smbd.h"
#include "smbd/conn/conn.h"
#include "smbd/msg/mailbox.h"
#include "lib/ev.h"
#include "lib/log.h"

#include <string.h>
#include <unistd.h>

#define SMBD_BARRIER_MS 250

struct smbd_barrier {
	struct smbd_worker *w;
	struct smbd_barrier *prev, *next;
	uint64_t token;
	unsigned waiting;	/* answers still missing */
	int fd;
	void (*start)(struct smbd_worker *w, int fd);
	struct ev_timer *timer;
};

static int barrier_destructor(struct smbd_barrier *b)
{
	if (b->prev != NULL) {
		b->prev->next = b->next;
	} else if (b->w->barriers == b) {
		b->w->barriers = b->next;
	}
	if (b->next != NULL) {
		b->next->prev = b->prev;
	}
	if (b->fd != -1) {
		close(b->fd);
	}
	return 0;
}

static void barrier_done(struct smbd_barrier *b)
{
	struct smbd_worker *w = b->w;
	void (*start)(struct smbd_worker *, int) = b->start;
	int fd = b->fd;

	b->fd = -1;
	talloc_free(b);
	start(w, fd);
}

static void barrier_timeout(void *priv)
{
	struct smbd_barrier *b = priv;

	b->timer = NULL;
	DBG_INFO("worker %d: %u worker(s) did not answer the accept barrier "
		 "within %d ms; serving the connection anyway\n",
		 b->w->index, b->waiting, SMBD_BARRIER_MS);
	barrier_done(b);
}

void smbd_accept_after_barrier(struct smbd_worker *w, int fd,
			       void (*start)(struct smbd_worker *w, int fd))
{
	struct smbd_barrier *b;
	int i;

	if (w->srv->nworkers < 2 || w->srv->mbox == NULL) {
		start(w, fd);
		return;
	}
	b = talloc_zero(w, struct smbd_barrier);
	if (b == NULL) {
		start(w, fd);	/* serve it unordered rather than not */
		return;
	}
	b->w = w;
	b->fd = fd;
	b->start = start;
	b->token = ++w->barrier_seq;
	b->next = w->barriers;
	if (b->next != NULL) {
		b->next->prev = b;
	}
	w->barriers = b;
	talloc_set_destructor(b, barrier_destructor);

	for (i = 0; i < w->srv->nworkers; i++) {
		if (i != w->index &&
		    smbd_mailbox_send(w->mbox, i, SMBD_MSG_BARRIER, &b->token,
				      sizeof(b->token), -1)) {
			b->waiting++;
		}
	}
	if (b->waiting == 0) {
		barrier_done(b);
		return;
	}
	b->timer = ev_timer_add(b, w->loop, SMBD_BARRIER_MS, barrier_timeout,
				b);
	if (b->timer == NULL) {
		barrier_done(b);
	}
}

struct barrier_answer {
	struct smbd_worker *w;
	int to;
	uint64_t token;
};

static void barrier_answer(void *priv)
{
	struct barrier_answer *a = priv;

	(void)smbd_mailbox_send(a->w->mbox, a->to, SMBD_MSG_BARRIER_ACK,
				&a->token, sizeof(a->token), -1);
	talloc_free(a);
}

/* SMBD_MSG_BARRIER: a worker asks; we answer after our next poll. */
static void barrier_msg_request(void *priv, int from, const void *body,
				int fd)
{
	struct smbd_worker *w = priv;
	struct barrier_answer *a;
	uint64_t token;

	memcpy(&token, body, sizeof(token));

	if (from < 0 || from >= w->srv->nworkers || from == w->index) {
		return;
	}
	a = talloc_zero(w, struct barrier_answer);
	if (a == NULL) {
		return;	/* the asker's timer covers it */
	}
	a->w = w;
	a->to = from;
	a->token = token;
	if (ev_after_poll(a, w->loop, barrier_answer, a) == NULL) {
		barrier_answer(a);
	}
}

/* SMBD_MSG_BARRIER_ACK: the answer to our own question. */
static void barrier_msg_answered(void *priv, int from, const void *body,
				 int fd)
{
	struct smbd_worker *w = priv;
	struct smbd_barrier *b;
	uint64_t token;

	memcpy(&token, body, sizeof(token));

	for (b = w->barriers; b != NULL; b = b->next) {
		if (b->token == token) {
			if (b->waiting > 0 && --b->waiting == 0) {
				barrier_done(b);
			}
			return;
		}
	}
	/* Late answer after the timeout: nothing waits for it. */
}

void smbd_barrier_register(struct smbd_worker *w)
{
	smbd_mailbox_handle(w->mbox, SMBD_MSG_BARRIER, barrier_msg_request,
			    sizeof(uint64_t), false);
	smbd_mailbox_handle(w->mbox, SMBD_MSG_BARRIER_ACK, barrier_msg_answered,
			    sizeof(uint64_t), false);
}
