/*
 * Unit tests: which process made a change (smbd/objects/dirwatch.h).  A
 * directory lease is broken for a local change, not for one an smbd
 * process made (that one was broken, or spared, already): the worker
 * itself, the master, or a sibling worker, whose /proc/PID/stat names
 * the master as its parent.  The command name in that file is free text
 * (spaces, parentheses), so the parent is read after the last ')'.
 * And the parser of a fanotify read: events with FID records are not a
 * multiple of 8 bytes long, so the second one of a read is misaligned
 * (the ASan build's UBSan caught the old in-place walk on exactly that).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/fanotify.h>

#include "smbd/objects/dirwatch.h"

#define SELF 200
#define MASTER 100

static void self_and_master_are_ours(void **state)
{
	(void)state;
	assert_true(smbd_dirwatch_pid_is_smbd(SELF, SELF, MASTER, NULL));
	assert_true(smbd_dirwatch_pid_is_smbd(MASTER, SELF, MASTER, NULL));
}

static void sibling_worker_is_ours(void **state)
{
	(void)state;
	assert_true(smbd_dirwatch_pid_is_smbd(
		201, SELF, MASTER, "201 (smbd) S 100 100 100 0 -1 4194560"));
	/* the last field before the end of the text */
	assert_true(smbd_dirwatch_pid_is_smbd(202, SELF, MASTER,
					      "202 (smbd) S 100"));
}

static void other_processes_are_not(void **state)
{
	(void)state;
	/* gone before we looked: a short-lived local command */
	assert_false(smbd_dirwatch_pid_is_smbd(300, SELF, MASTER, NULL));
	assert_false(smbd_dirwatch_pid_is_smbd(
		301, SELF, MASTER, "301 (bash) S 1 301 301 0 -1 4194560"));
	/* a parent id that only starts with the master's */
	assert_false(smbd_dirwatch_pid_is_smbd(
		302, SELF, MASTER, "302 (cp) R 1000 302 0 0"));
}

static void command_names_cannot_fool_it(void **state)
{
	(void)state;
	/* a name made to look like "smbd) S 100" */
	assert_false(smbd_dirwatch_pid_is_smbd(
		400, SELF, MASTER, "400 (x) S 100 (y) S 7 400 0"));
	assert_true(smbd_dirwatch_pid_is_smbd(
		401, SELF, MASTER, "401 (a) S 1 (b) S 100 401 0"));
}

static void malformed_text_is_not_ours(void **state)
{
	(void)state;
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER, ""));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S x100"));
	assert_false(smbd_dirwatch_pid_is_smbd(500, SELF, MASTER,
					       "500 (smbd) S 100x"));
	assert_false(smbd_dirwatch_pid_is_smbd(
		500, SELF, MASTER, "500 (smbd) S 99999999999999999999999"));
}

/* What the parser reported, in order. */
struct seen {
	unsigned n;
	struct {
		bool overflow;
		pid_t pid;
		int type;
		unsigned len;
		uint8_t handle[16];
	} ev[8];
};

static void record(const struct smbd_dirwatch_event *e, void *priv)
{
	struct seen *s = priv;

	assert_true(s->n < 8);
	s->ev[s->n].overflow = e->overflow;
	s->ev[s->n].pid = e->pid;
	s->ev[s->n].type = e->handle_type;
	s->ev[s->n].len = e->handle_len;
	if (!e->overflow) {
		assert_true(e->handle_len <= 16);
		memcpy(s->ev[s->n].handle, e->handle, e->handle_len);
	}
	s->n++;
}

/* One event as the kernel lays it out: metadata, then a DFID record
 * (header, fsid, struct file_handle, handle bytes), at buf + at. */
static size_t put_event(uint8_t *buf, size_t at, pid_t pid, int type,
			const uint8_t *handle, unsigned hlen)
{
	struct fanotify_event_metadata m;
	struct fanotify_event_info_header h;
	struct file_handle fh;
	size_t rec = sizeof(h) + sizeof(__kernel_fsid_t) + sizeof(fh) + hlen;

	memset(&m, 0, sizeof(m));
	m.event_len = sizeof(m) + rec;
	m.vers = FANOTIFY_METADATA_VERSION;
	m.metadata_len = sizeof(m);
	m.mask = FAN_CREATE | FAN_ONDIR;
	m.fd = FAN_NOFD;
	m.pid = pid;
	memcpy(buf + at, &m, sizeof(m));
	at += sizeof(m);
	h.info_type = FAN_EVENT_INFO_TYPE_DFID;
	h.pad = 0;
	h.len = rec;
	memcpy(buf + at, &h, sizeof(h));
	at += sizeof(h);
	memset(buf + at, 0x5a, sizeof(__kernel_fsid_t));
	at += sizeof(__kernel_fsid_t);
	fh.handle_bytes = hlen;
	fh.handle_type = type;
	memcpy(buf + at, &fh, sizeof(fh));
	at += sizeof(fh);
	memcpy(buf + at, handle, hlen);
	return at + hlen;
}

static void misaligned_events_are_read(void **state)
{
	static const uint8_t h1[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t h2[8] = { 9, 9, 9, 9, 9, 9, 9, 7 };
	uint8_t raw[512];
	size_t end;
	struct seen s = { 0 };

	(void)state;
	/* 52-byte events (ext4's 8-byte handles): the second starts 4 bytes off an 8-byte line */
	end = put_event(raw, 0, 42, 1, h1, sizeof(h1));
	assert_int_equal(end, 52);
	end = put_event(raw, end, 43, 1, h2, sizeof(h2));
	/* from an odd address too: the caller's buffer has no promise */
	memmove(raw + 1, raw, end);
	smbd_dirwatch_parse(raw + 1, end, record, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.ev[0].pid, 42);
	assert_int_equal(s.ev[0].len, 8);
	assert_memory_equal(s.ev[0].handle, h1, 8);
	assert_int_equal(s.ev[1].pid, 43);
	assert_memory_equal(s.ev[1].handle, h2, 8);
}

static void overflow_is_reported(void **state)
{
	struct fanotify_event_metadata m;
	struct seen s = { 0 };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.event_len = sizeof(m);
	m.vers = FANOTIFY_METADATA_VERSION;
	m.metadata_len = sizeof(m);
	m.mask = FAN_Q_OVERFLOW;
	m.fd = FAN_NOFD;
	smbd_dirwatch_parse((const uint8_t *)&m, sizeof(m), record, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.ev[0].overflow);
}

static void short_or_lying_lengths_stop_the_walk(void **state)
{
	static const uint8_t h[12] = { 0 };
	struct fanotify_event_metadata m;
	uint8_t raw[256];
	size_t end, i;
	struct seen s = { 0 };

	(void)state;
	end = put_event(raw, 0, 7, 1, h, sizeof(h));
	/* every truncation of a complete event: nothing, no overrun */
	for (i = 0; i < end; i++) {
		s.n = 0;
		smbd_dirwatch_parse(raw, i, record, &s);
		assert_int_equal(s.n, 0);
	}
	/* an event shorter than its metadata ends the walk (no loop) */
	memcpy(&m, raw, sizeof(m));
	m.event_len = 3;
	memcpy(raw, &m, sizeof(m));
	smbd_dirwatch_parse(raw, end, record, &s);
	assert_int_equal(s.n, 0);
	/* a handle longer than its record is skipped */
	end = put_event(raw, 0, 7, 1, h, sizeof(h));
	raw[sizeof(m) + 4 + 8] = 200;	/* file_handle.handle_bytes */
	smbd_dirwatch_parse(raw, end, record, &s);
	assert_int_equal(s.n, 0);
	/* metadata_len past the event's end */
	end = put_event(raw, 0, 7, 1, h, sizeof(h));
	memcpy(&m, raw, sizeof(m));
	m.metadata_len = 200;
	memcpy(raw, &m, sizeof(m));
	smbd_dirwatch_parse(raw, end, record, &s);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_and_master_are_ours),
		cmocka_unit_test(sibling_worker_is_ours),
		cmocka_unit_test(other_processes_are_not),
		cmocka_unit_test(command_names_cannot_fool_it),
		cmocka_unit_test(malformed_text_is_not_ours),
		cmocka_unit_test(misaligned_events_are_read),
		cmocka_unit_test(overflow_is_reported),
		cmocka_unit_test(short_or_lying_lengths_stop_the_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
