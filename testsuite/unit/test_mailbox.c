/*
 * Unit tests of the inter-worker mailbox (smbd/msg/mailbox.c): two
 * workers' mailboxes in one process, on the real socketpairs the master
 * makes.  A message reaches its handler with the sender's index, its body
 * and its descriptor; one to oneself runs at once; anything malformed
 * (short, wrong magic, unknown or unregistered type, a body of another
 * length, a descriptor where the type takes none) is dropped and its
 * descriptor closed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

#include "smbd/msg/mailbox.h"
#include "smbd/smbd.h"

struct seen {
	int calls;
	int from;
	uint8_t body[64];
	int fd;
};

struct pair {
	struct smbd_server *srv;
	struct smbd_mailbox *mb[2];
	struct seen seen[2];
};

struct token {
	uint64_t a, b;
};

static void on_token(void *priv, int from, const void *body, int fd)
{
	struct seen *s = priv;

	s->calls++;
	s->from = from;
	memcpy(s->body, body, sizeof(struct token));
	if (s->fd != -1) {
		close(s->fd);
	}
	s->fd = fd;
}

static struct pair *pair_new(bool sockets)
{
	struct pair *p = talloc_zero(NULL, struct pair);
	int i;

	assert_non_null(p);
	p->srv = talloc_zero(p, struct smbd_server);
	p->srv->nworkers = 2;
	if (sockets) {
		assert_true(smbd_mailboxes_create(p->srv));
	}
	for (i = 0; i < 2; i++) {
		p->seen[i].fd = -1;
		p->mb[i] = smbd_mailbox_new(p, p->srv, i, &p->seen[i]);
		assert_non_null(p->mb[i]);
		smbd_mailbox_handle(p->mb[i], SMBD_MSG_WAKE, on_token,
				    sizeof(struct token), false);
		smbd_mailbox_handle(p->mb[i], SMBD_MSG_CONN, on_token,
				    sizeof(struct token), true);
	}
	return p;
}

static void pair_free(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->seen[i].fd != -1) {
			close(p->seen[i].fd);
		}
	}
	for (i = 0; p->srv->mbox != NULL && i < 4; i++) {
		close(p->srv->mbox[i]);
	}
	talloc_free(p);
}

/* The same file on both descriptors. */
static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void test_to_another_worker(void **state)
{
	struct pair *p = pair_new(true);
	struct token t = {0x1122334455667788ull, 42};
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(smbd_mailbox_send(p->mb[0], 1, SMBD_MSG_WAKE, &t,
				      sizeof(t), -1));
	assert_true(smbd_mailbox_send(p->mb[0], 1, SMBD_MSG_CONN, &t,
				      sizeof(t), fd));
	assert_int_equal(p->seen[1].calls, 0);	/* nothing before receipt */
	assert_int_equal(smbd_mailbox_receive(p->mb[1]), 2);
	assert_int_equal(p->seen[1].calls, 2);
	assert_int_equal(p->seen[1].from, 0);
	assert_memory_equal(p->seen[1].body, &t, sizeof(t));
	/* a copy of the descriptor: the sender keeps its own */
	assert_true(p->seen[1].fd != -1 && p->seen[1].fd != fd);
	assert_true(same_file(fd, p->seen[1].fd));
	assert_int_equal(p->seen[0].calls, 0);
	close(fd);
	pair_free(p);
}

static void test_to_oneself_runs_at_once(void **state)
{
	struct pair *p = pair_new(true);
	struct token t = {7, 8};
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(smbd_mailbox_send(p->mb[1], 1, SMBD_MSG_CONN, &t,
				      sizeof(t), fd));
	assert_int_equal(p->seen[1].calls, 1);
	assert_int_equal(p->seen[1].from, 1);
	assert_true(p->seen[1].fd != fd && same_file(fd, p->seen[1].fd));
	/* nothing was queued */
	assert_int_equal(smbd_mailbox_receive(p->mb[1]), 0);
	/* a type without handler, or a body of another size, is refused */
	assert_false(smbd_mailbox_send(p->mb[1], 1, SMBD_MSG_BREAK, &t,
				       sizeof(t), -1));
	assert_false(smbd_mailbox_send(p->mb[1], 1, SMBD_MSG_WAKE, &t,
				       sizeof(t) - 1, -1));
	assert_false(smbd_mailbox_send(p->mb[1], 1, SMBD_MSG_WAKE, &t,
				       sizeof(t), fd));
	assert_int_equal(p->seen[1].calls, 1);
	close(fd);
	pair_free(p);
}

static void test_broadcast_reaches_everyone(void **state)
{
	struct pair *p = pair_new(true);
	struct token t = {1, 2};

	smbd_mailbox_broadcast(p->mb[0], SMBD_MSG_WAKE, &t, sizeof(t));
	assert_int_equal(p->seen[0].calls, 1);	/* here, at once */
	assert_int_equal(smbd_mailbox_receive(p->mb[1]), 1);
	assert_int_equal(p->seen[1].calls, 1);
	assert_int_equal(p->seen[1].from, 0);
	pair_free(p);
}

static void test_without_sockets(void **state)
{
	struct pair *p = pair_new(false);
	struct token t = {3, 4};

	/* a single process: others cannot be reached, oneself can */
	assert_false(smbd_mailbox_send(p->mb[0], 1, SMBD_MSG_WAKE, &t,
				       sizeof(t), -1));
	assert_true(smbd_mailbox_send(p->mb[0], 0, SMBD_MSG_WAKE, &t,
				      sizeof(t), -1));
	smbd_mailbox_broadcast(p->mb[0], SMBD_MSG_WAKE, &t, sizeof(t));
	assert_int_equal(p->seen[0].calls, 2);
	assert_false(smbd_mailbox_post(p->srv, 0, SMBD_MSG_WAKE, &t,
				       sizeof(t)));
	assert_true(smbd_mailbox_listen(p->mb[0], NULL));
	pair_free(p);
}

/* A valid message as it travels, taken off worker 1's socket. */
static size_t raw_message(struct pair *p, uint8_t *buf, size_t size)
{
	struct token t = {5, 6};
	ssize_t n;

	assert_true(smbd_mailbox_send(p->mb[0], 1, SMBD_MSG_WAKE, &t,
				      sizeof(t), -1));
	n = recv(p->srv->mbox[2], buf, size, MSG_DONTWAIT);
	assert_true(n > (ssize_t)sizeof(t));
	return (size_t)n;
}

static void test_malformed_dropped(void **state)
{
	struct pair *p = pair_new(true);
	uint8_t good[256], bad[256];
	size_t n = raw_message(p, good, sizeof(good));
	uint32_t v;
	int fd;

	assert_true(smbd_mailbox_dispatch(p->mb[1], good, n, -1));
	assert_int_equal(p->seen[1].calls, 1);

	/* short: no header, half a body, a byte too many */
	assert_false(smbd_mailbox_dispatch(p->mb[1], good, 3, -1));
	assert_false(smbd_mailbox_dispatch(p->mb[1], good, n - 8, -1));
	memcpy(bad, good, n);
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n + 1, -1));
	/* wrong magic */
	bad[0] ^= 0xff;
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n, -1));
	/* unknown type, a type nobody registered */
	memcpy(bad, good, n);
	v = SMBD_MSG_MAX;
	memcpy(bad + 4, &v, 4);
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n, -1));
	v = 0;
	memcpy(bad + 4, &v, 4);
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n, -1));
	v = SMBD_MSG_BREAK;
	memcpy(bad + 4, &v, 4);
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n, -1));
	/* a length field that lies */
	memcpy(bad, good, n);
	v = 8;
	memcpy(bad + 12, &v, 4);
	assert_false(smbd_mailbox_dispatch(p->mb[1], bad, n, -1));
	assert_int_equal(p->seen[1].calls, 1);

	/* a descriptor on a type that takes none: dropped and closed */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_false(smbd_mailbox_dispatch(p->mb[1], good, n, fd));
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(p->seen[1].calls, 1);
	pair_free(p);
}

static void test_registration_bounds(void **state)
{
	struct pair *p = pair_new(true);
	static uint8_t big[SMBD_MSG_BODY_MAX + 1];

	/* a body larger than a datagram may carry is never registered */
	smbd_mailbox_handle(p->mb[1], SMBD_MSG_BREAK, on_token, sizeof(big),
			    false);
	assert_false(smbd_mailbox_send(p->mb[1], 1, SMBD_MSG_BREAK, big,
				       sizeof(big), -1));
	assert_false(smbd_mailbox_send(p->mb[0], 1, SMBD_MSG_BREAK, big,
				       sizeof(big), -1));
	smbd_mailbox_handle(NULL, SMBD_MSG_WAKE, on_token, 16, false);
	assert_false(smbd_mailbox_send(NULL, 0, SMBD_MSG_WAKE, big, 16, -1));
	pair_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_to_another_worker),
		cmocka_unit_test(test_to_oneself_runs_at_once),
		cmocka_unit_test(test_broadcast_reaches_everyone),
		cmocka_unit_test(test_without_sockets),
		cmocka_unit_test(test_malformed_dropped),
		cmocka_unit_test(test_registration_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
