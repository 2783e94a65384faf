/*
 * Unit tests for locking/: the record codec, share modes (MS-FSA
 * 2.1.5.1.2), delete-on-close, byte-range locks (MS-FSA 2.1.5.8/9,
 * 2.1.4.10, with the cases smbtorture smb2.lock checks against Windows),
 * and the multi-process guarantees: two processes contending on one file,
 * a process killed while holding a chain lock (robust mutex recovery) and
 * locking_cleanup_pid() after a worker died.
 *
 * One database per run in a fresh temporary lock directory (tdb refuses to
 * open one file twice in a process); every test uses file keys of its
 * own.  Tests that fork arm alarm() so a stuck lock fails instead of
 * hanging make check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "locking/locking.h"
#include "locking/locking_private.h"
#include "locking/locking_rec.h"

#define RD 0x00000001u	/* FILE_READ_DATA */
#define WR 0x00000002u	/* FILE_WRITE_DATA */
#define AP 0x00000004u	/* FILE_APPEND_DATA */
#define EX 0x00000020u	/* FILE_EXECUTE */
#define RA 0x00000080u	/* FILE_READ_ATTRIBUTES */
#define DE 0x00010000u	/* DELETE */
#define SR 1u
#define SW 2u
#define SD 4u

static char lockdir[] = "/tmp/test_locking.XXXXXX";
static struct locking_db *db;
static uint64_t next_ino = 1000;

static struct file_key new_key(void)
{
	struct file_key k = {.dev = 0x801, .ino = next_ino++};
	return k;
}

static struct open_owner own(uint64_t id)
{
	struct open_owner o = {.pid = (uint32_t)getpid(), .open_id = id};
	return o;
}

static int setup(void **state)
{
	if (mkdtemp(lockdir) == NULL) {
		return -1;
	}
	if (!NT_STATUS_IS_OK(locking_db_open(NULL, lockdir, true, &db))) {
		return -1;
	}
	print_message("chain locks: %s\n", locking_db_uses_mutexes(db)
						    ? "robust mutexes"
						    : "fcntl");
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	TALLOC_FREE(db);
	snprintf(path, sizeof(path), "%s/smbd_share_modes.tdb", lockdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/smbd_brlock.tdb", lockdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/smbd_status.tdb", lockdir);
	unlink(path);
	rmdir(lockdir);
	return 0;
}

/* ---- record codec ---- */

static void test_rec_roundtrip(void **state)
{
	struct share_mode_entry se[2];
	struct share_mode_rec sr = {.flags = 1, .num = 2, .e = se}, sr2;
	struct brl_entry be = {.pid = 3, .flags = 1, .open_id = 4,
			       .off = UINT64_MAX, .len = 1};
	struct brl_rec br = {.num = 1, .e = &be}, br2;
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *buf;
	size_t len;

	/* memset: the entries are compared with memcmp, padding included. */
	memset(se, 0, sizeof(se));
	se[0] = (struct share_mode_entry){.pid = 7, .flags = 1, .open_id = 9,
					  .access_mask = RD, .share_access = 7};
	se[1] = (struct share_mode_entry){.pid = 8, .open_id = UINT64_MAX,
					  .access_mask = DE, .worker = 3,
					  .caching = CACHING_LEASE,
					  .lease_version = 2,
					  .flags = SHARE_ENTRY_BREAKING,
					  .state = CACHE_RWH,
					  .breaking_to = CACHE_R,
					  .notified_to = CACHE_R | CACHE_H,
					  .epoch = 0x4712,
					  .change_time = UINT64_MAX - 1,
					  .change_ctime = 0x0102030405060708};
	memset(se[1].lease_key, 0xab, 16);
	memset(se[1].client_guid, 0xcd, 16);
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_OK);
	assert_int_equal(len, LOCKING_REC_HDR_LEN + 2 * SHARE_ENTRY_LEN);
	assert_int_equal(buf[0], LOCKING_REC_VERSION);
	assert_int_equal(buf[1], 'S');
	assert_int_equal(share_mode_rec_decode(tmp, buf, len, &sr2),
			 NT_STATUS_OK);
	assert_int_equal(sr2.flags, 1);
	assert_int_equal(sr2.num, 2);
	assert_int_equal(memcmp(&sr2.e[0], &se[0], sizeof(se[0])), 0);
	assert_int_equal(memcmp(&sr2.e[1], &se[1], sizeof(se[1])), 0);

	assert_int_equal(brl_rec_encode(tmp, &br, &buf, &len), NT_STATUS_OK);
	assert_int_equal(len, LOCKING_REC_HDR_LEN + BRL_ENTRY_LEN);
	assert_int_equal(brl_rec_decode(tmp, buf, len, &br2), NT_STATUS_OK);
	assert_int_equal(br2.num, 1);
	assert_memory_equal(br2.e, &be, sizeof(be));

	/* Records that cannot be written. */
	be.len = 2; /* runs past 2^64-1 */
	assert_int_equal(brl_rec_encode(tmp, &br, &buf, &len),
			 NT_STATUS_INVALID_PARAMETER);
	se[0].flags = 8;
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_INVALID_PARAMETER);
	/* Breaking without anything to break; a lease without a version. */
	se[0].flags = SHARE_ENTRY_BREAKING;
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_INVALID_PARAMETER);
	se[0].flags = 0;
	se[1].lease_version = 0;
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_INVALID_PARAMETER);
	talloc_free(tmp);
}

static void test_rec_malformed(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct share_mode_entry se = {.pid = 1, .open_id = 2};
	struct share_mode_rec sr = {.num = 1, .e = &se}, out;
	struct brl_entry be = {.pid = 1, .off = 5, .len = 5};
	struct brl_rec br = {.num = 1, .e = &be}, bout;
	uint8_t *buf, bad[LOCKING_REC_HDR_LEN + SHARE_ENTRY_LEN + 8];
	size_t len, i;

	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_OK);
	/* Every truncation and one byte too many. */
	for (i = 0; i < len; i++) {
		assert_int_not_equal(share_mode_rec_decode(tmp, buf, i, &out),
				     NT_STATUS_OK);
	}
	memcpy(bad, buf, len);
	bad[len] = 0;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len + 1, &out),
			     NT_STATUS_OK);
	/* Version, kind, header flags, count, entry flags. */
	memcpy(bad, buf, len);
	bad[0] = LOCKING_REC_VERSION + 1;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[1] = 'B';
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[2] = 4;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[4] = 2;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[7] = 0x80; /* a huge count */
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[LOCKING_REC_HDR_LEN + 4] = 8; /* past SHARE_ENTRY_FLAGS */
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	/* A caching state bit past RWH; a non-zero reserved field. */
	memcpy(bad, buf, len);
	bad[LOCKING_REC_HDR_LEN + 26] = CACHING_OPLOCK;
	bad[LOCKING_REC_HDR_LEN + 28] = 8;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);
	memcpy(bad, buf, len);
	bad[LOCKING_REC_HDR_LEN + 42] = 1;
	assert_int_not_equal(share_mode_rec_decode(tmp, bad, len, &out),
			     NT_STATUS_OK);

	assert_int_equal(brl_rec_encode(tmp, &br, &buf, &len), NT_STATUS_OK);
	for (i = 0; i < len; i++) {
		assert_int_not_equal(brl_rec_decode(tmp, buf, i, &bout),
				     NT_STATUS_OK);
	}
	/* A range wrapping past 2^64-1. */
	memcpy(bad, buf, len);
	memset(bad + LOCKING_REC_HDR_LEN + 16, 0xff, 8);
	assert_int_not_equal(brl_rec_decode(tmp, bad, len, &bout),
			     NT_STATUS_OK);
	/* A share record is not a lock record. */
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_OK);
	assert_int_not_equal(brl_rec_decode(tmp, buf, len, &bout),
			     NT_STATUS_OK);
	/* An empty record is fine. */
	sr.num = 0;
	assert_int_equal(share_mode_rec_encode(tmp, &sr, &buf, &len),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_rec_decode(tmp, buf, len, &out),
			 NT_STATUS_OK);
	assert_int_equal(out.num, 0);
	talloc_free(tmp);
}

/* ---- share modes ---- */

/* MS-FSA 2.1.5.1.2 spelled out independently of share_mode.c. */
static bool expect_conflict(uint32_t a1, uint32_t s1, uint32_t a2,
			    uint32_t s2)
{
	uint32_t data = RD | WR | AP | EX | DE;
	bool r1 = a1 & (RD | EX), w1 = a1 & (WR | AP), d1 = a1 & DE;
	bool r2 = a2 & (RD | EX), w2 = a2 & (WR | AP), d2 = a2 & DE;

	if (!(a1 & data) || !(a2 & data)) {
		return false;
	}
	return (r2 && !(s1 & SR)) || (w2 && !(s1 & SW)) ||
	       (d2 && !(s1 & SD)) || (r1 && !(s2 & SR)) ||
	       (w1 && !(s2 & SW)) || (d1 && !(s2 & SD));
}

static void test_share_matrix(void **state)
{
	static const uint32_t acc[] = {RA, RD, WR, AP, EX, DE, RD | WR,
				       RA | DE};
	struct open_owner o1 = own(1), o2 = own(2);
	size_t i, j;
	uint32_t s1, s2;
	bool last, del;

	for (i = 0; i < sizeof(acc) / sizeof(acc[0]); i++) {
		for (s1 = 0; s1 < 8; s1++) {
			struct file_key k = new_key();

			assert_int_equal(share_mode_add(db, &k, &o1, acc[i],
							s1),
					 NT_STATUS_OK);
			for (j = 0; j < sizeof(acc) / sizeof(acc[0]); j++) {
				for (s2 = 0; s2 < 8; s2++) {
					NTSTATUS st = share_mode_add(
						db, &k, &o2, acc[j], s2);
					bool c = expect_conflict(acc[i], s1,
								 acc[j], s2);

					assert_int_equal(
						st,
						c ? NT_STATUS_SHARING_VIOLATION
						  : NT_STATUS_OK);
					if (!c) {
						assert_int_equal(
							share_mode_remove(
								db, &k, &o2,
								&last, &del),
							NT_STATUS_OK);
						assert_false(last);
					}
				}
			}
			assert_int_equal(share_mode_remove(db, &k, &o1, &last,
							   &del),
					 NT_STATUS_OK);
			assert_true(last);
			assert_false(del);
		}
	}
}

static void test_share_three_opens(void **state)
{
	struct file_key k = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3), o4 = own(4);
	bool last, del;

	/* Two readers sharing read; a writer must be allowed by both. */
	assert_int_equal(share_mode_add(db, &k, &o1, RD, SR | SW),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o2, RD, SR), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o3, WR, SR | SW),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_int_equal(share_mode_add(db, &k, &o3, WR, SR | SW),
			 NT_STATUS_OK);
	/* Attribute-only opens pass whatever the others share. */
	assert_int_equal(share_mode_add(db, &k, &o4, RA, 0), NT_STATUS_OK);
	/* Removing twice, or an unknown open. */
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_NOT_FOUND);
	assert_false(last);
	/* The same open twice is a caller bug, refused. */
	assert_int_equal(share_mode_add(db, &k, &o1, RD, SR | SW),
			 NT_STATUS_INTERNAL_ERROR);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o3, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_int_equal(share_mode_remove(db, &k, &o4, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_false(del);
	/* The record is gone with the last open. */
	assert_int_equal(share_mode_remove(db, &k, &o4, &last, &del),
			 NT_STATUS_NOT_FOUND);
}

static void test_delete_pending(void **state)
{
	struct file_key k = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	bool last, del, pending;

	assert_int_equal(share_mode_add(db, &k, &o1, RD | DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o2, RD, SR | SW | SD),
			 NT_STATUS_OK);
	/* An unknown open cannot set it. */
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &o3, true),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &o1, true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_delete_pending(db, &k, &pending),
			 NT_STATUS_OK);
	assert_true(pending);
	assert_int_equal(share_mode_add(db, &k, &o3, RD, SR | SW | SD),
			 NT_STATUS_DELETE_PENDING);
	/* Cleared again, new opens work. */
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &o2, false),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o3, RD, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o3, &last, &del),
			 NT_STATUS_OK);
	/* Set, then the opens go: only the last one deletes. */
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &o1, true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_false(del);
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_true(del);
	assert_int_equal(share_mode_delete_pending(db, &k, &pending),
			 NT_STATUS_OK);
	assert_false(pending);
}

/*
 * A ChangeTime a client set (share_mode_set_change_time): reported for
 * the ctime it was recorded with only, by whichever entry holds it; it
 * goes with its open's entry and survives other edits of the entry.
 */
static void test_change_time(void **state)
{
	struct file_key k = new_key(), other = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	struct open_owner moved = {.pid = (uint32_t)getppid(),
				   .open_id = 11};
	struct share_mode_file_state fs;
	bool last, del;

	/* No record: nothing, and nobody to set it for. */
	assert_int_equal(share_mode_file_state(db, &k, 500, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);
	assert_false(fs.delete_pending);
	assert_int_equal(share_mode_set_change_time(db, &k, &o1, 42, 500),
			 NT_STATUS_NOT_FOUND);

	assert_int_equal(share_mode_add(db, &k, &o1, RD, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o2, RD | DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_set_change_time(db, &k, &o3, 42, 500),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(share_mode_file_state(db, &k, 500, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);

	assert_int_equal(share_mode_set_change_time(db, &k, &o2, 42, 500),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &k, 500, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 42);
	/* The ctime moved: a change nobody set. */
	assert_int_equal(share_mode_file_state(db, &k, 501, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);
	/* ctime 0 asks for DeletePending only. */
	assert_int_equal(share_mode_file_state(db, &k, 0, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);
	/* Another file's record knows nothing of it. */
	assert_int_equal(share_mode_add(db, &other, &o1, RD, SR),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &other, 500, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);
	assert_int_equal(share_mode_remove(db, &other, &o1, &last, &del),
			 NT_STATUS_OK);

	/* Recorded again with the new ctime: holds for that one. */
	assert_int_equal(share_mode_set_change_time(db, &k, &o2, 42, 501),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &k, 501, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 42);
	/* Other edits of the entry keep it; DeletePending comes along. */
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &o2, true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_move_owner(db, &k, &o2, &moved, 1),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &k, 501, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 42);
	assert_true(fs.delete_pending);
	assert_int_equal(share_mode_set_delete_on_close(db, &k, &moved, false),
			 NT_STATUS_OK);

	/* Of two, the one recorded with the file's ctime now. */
	assert_int_equal(share_mode_set_change_time(db, &k, &o1, 77, 502),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &k, 502, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 77);
	assert_int_equal(share_mode_file_state(db, &k, 501, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 42);
	/* Forgotten: 0. */
	assert_int_equal(share_mode_set_change_time(db, &k, &o1, 0, 0),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_file_state(db, &k, 502, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);

	/* It goes with its open. */
	assert_int_equal(share_mode_remove(db, &k, &moved, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_int_equal(share_mode_file_state(db, &k, 501, &fs),
			 NT_STATUS_OK);
	assert_int_equal(fs.change_time, 0);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

static void test_open_delete_on_close(void **state)
{
	struct file_key k = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	bool last, del, pending;

	/* FILE_DELETE_ON_CLOSE at create: others may still open ... */
	assert_int_equal(share_mode_add(db, &k, &o1, RD | DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_set_open_delete_on_close(db, &k, &o1,
							     true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_delete_pending(db, &k, &pending),
			 NT_STATUS_OK);
	assert_false(pending);
	assert_int_equal(share_mode_add(db, &k, &o2, RD, SR | SW | SD),
			 NT_STATUS_OK);
	/* ... until that open closes: then the delete is pending. */
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_false(del);
	assert_int_equal(share_mode_add(db, &k, &o3, RD, SR | SW | SD),
			 NT_STATUS_DELETE_PENDING);
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_true(del);

	/* Alone, its own flag deletes at close; cleared, it does not. */
	assert_int_equal(share_mode_add(db, &k, &o1, DE, SD), NT_STATUS_OK);
	assert_int_equal(share_mode_set_open_delete_on_close(db, &k, &o1,
							     true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_true(del);
	assert_int_equal(share_mode_add(db, &k, &o1, DE, SD), NT_STATUS_OK);
	assert_int_equal(share_mode_set_open_delete_on_close(db, &k, &o1,
							     true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_set_open_delete_on_close(db, &k, &o1,
							     false),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_false(del);
}

static void test_check_delete(void **state)
{
	struct file_key k = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	bool last, del;

	/* No opens at all. */
	assert_int_equal(share_mode_check_delete(db, &k, NULL), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o1, DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_check_delete(db, &k, &o1), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o2, RD, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_check_delete(db, &k, &o1), NT_STATUS_OK);
	/* An attribute-only open sharing nothing does not stop it. */
	assert_int_equal(share_mode_add(db, &k, &o3, RA, 0), NT_STATUS_OK);
	assert_int_equal(share_mode_check_delete(db, &k, &o1), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o3, &last, &del),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_OK);
	/* A reader that does not share delete does. */
	assert_int_equal(share_mode_add(db, &k, &o2, RD, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &o3, RD, SR | SW),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_check_delete(db, &k, &o2),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_check_delete(db, &k, NULL),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_check_delete(db, &k, &o3),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o2, &last, &del),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &o3, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

/* test_rename_parent's owners: o2 is the renaming client's, o3 not. */
static bool renamer_owns(const struct open_owner *o, void *priv)
{
	(void)priv;
	return o->open_id == 2;
}

static NTSTATUS rename_parent(const struct file_key *d)
{
	return share_mode_check_rename_parent(db, d, renamer_owns, NULL);
}

static void test_rename_parent(void **state)
{
	struct file_key d = new_key(), d2 = new_key();
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	bool last, del;

	assert_int_equal(rename_parent(&d), NT_STATUS_OK);
	/* No DELETE access, sharing delete: renames inside go on. */
	assert_int_equal(share_mode_add(db, &d, &o1, RD | WR | EX,
					SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(rename_parent(&d), NT_STATUS_OK);
	/* The renaming client's DELETE access, even with
	 * FILE_SHARE_DELETE, stops them ... */
	assert_int_equal(share_mode_add(db, &d, &o2, RD | DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(rename_parent(&d), NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_remove(db, &d, &o2, &last, &del),
			 NT_STATUS_OK);
	/* ... another client's does not (inotify-rename) ... */
	assert_int_equal(share_mode_add(db, &d, &o3, RD | DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(rename_parent(&d), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &d, &o3, &last, &del),
			 NT_STATUS_OK);
	/* ... not sharing write with any data access stops them, whoever
	 * holds it (another directory: o1 writes here) ... */
	assert_int_equal(share_mode_add(db, &d2, &o3, RD, SR), NT_STATUS_OK);
	assert_int_equal(rename_parent(&d2), NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_remove(db, &d2, &o3, &last, &del),
			 NT_STATUS_OK);
	/* ... sharing write but not delete does not ... */
	assert_int_equal(share_mode_add(db, &d, &o3, RD, SR | SW),
			 NT_STATUS_OK);
	assert_int_equal(rename_parent(&d), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &d, &o3, &last, &del),
			 NT_STATUS_OK);
	/* ... nor an attribute-only open sharing nothing
	 * (smb2.rename.msword). */
	assert_int_equal(share_mode_add(db, &d, &o2, RA, 0), NT_STATUS_OK);
	assert_int_equal(rename_parent(&d), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &d, &o2, &last, &del),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &d, &o1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

/* Stream opens stand in the file's record: they refuse DELETE unless
 * shared, see a pending delete, and the last of them deletes the file. */
static void test_stream_ref(void **state)
{
	struct file_key f = new_key();
	struct open_owner s1 = own(1), b = own(2);
	bool last, del;

	assert_int_equal(share_mode_add_stream_ref(db, &f, &s1, SR | SW),
			 NT_STATUS_OK);
	/* the file may be read and written, not deleted */
	assert_int_equal(share_mode_add(db, &f, &b, RD | WR, 0), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &f, &b, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_int_equal(share_mode_add(db, &f, &b, DE, SR | SW | SD),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_check_delete(db, &f, &b),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_remove(db, &f, &s1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	/* shared delete: the file's delete goes pending, the stream's ref
	 * refuses new ones and its removal deletes the file */
	assert_int_equal(share_mode_add_stream_ref(db, &f, &s1, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &f, &b, DE, SR | SW | SD),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_set_delete_on_close(db, &f, &b, true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &f, &b, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_false(del);
	assert_int_equal(share_mode_add_stream_ref(db, &f, &b, SR | SW | SD),
			 NT_STATUS_DELETE_PENDING);
	assert_int_equal(share_mode_remove(db, &f, &s1, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_true(del);
}

/* A directory rename asks whether anything below it is open. */
static void test_open_below(void **state)
{
	uint32_t pid = (uint32_t)getpid();
	const char *rec = "session=1\nshare=s\nsharepath=/srv/s\n"
			  "name=a/b/file.txt\nstream=\n";

	status_db_put(db, STATUS_OPEN, pid, 77, 0, rec);
	assert_true(status_db_open_below(db, "/srv/s", "a"));
	assert_true(status_db_open_below(db, "/srv/s", "a/b"));
	assert_true(status_db_open_below(db, "/srv/s", ""));
	/* not the file itself, not a sibling with a longer name, not
	 * another share */
	assert_false(status_db_open_below(db, "/srv/s", "a/b/file.txt"));
	assert_false(status_db_open_below(db, "/srv/s", "a/bb"));
	assert_false(status_db_open_below(db, "/srv/t", "a"));
	status_db_del(db, STATUS_OPEN, pid, 77, 0);
	assert_false(status_db_open_below(db, "/srv/s", "a"));
}

/* ---- byte-range locks ---- */

static void test_brl_basic(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);

	/* shared/shared across opens. */
	assert_int_equal(brl_lock(db, &k, &h1, 30, 4, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, 32, 4, false), NT_STATUS_OK);
	/* shared then exclusive, either owner. */
	assert_int_equal(brl_lock(db, &k, &h2, 29, 2, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &k, &h1, 33, 1, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	/* exclusive then shared by another open. */
	assert_int_equal(brl_lock(db, &k, &h1, 40, 4, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, 43, 1, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &k, &h2, 42, 4, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	/* Adjacent ranges do not overlap. */
	assert_int_equal(brl_lock(db, &k, &h2, 44, 4, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, 36, 4, true), NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 5);
	brl_remove_owner(db, &k, &h1);
	assert_int_equal(brl_count(db, &k), 3);
	assert_int_equal(brl_lock(db, &k, &h1, 40, 4, true), NT_STATUS_OK);
	brl_remove_owner(db, &k, &h1);
	brl_remove_owner(db, &k, &h2);
	assert_int_equal(brl_count(db, &k), 0);
	/* Removing nothing is fine. */
	brl_remove_owner(db, &k, &h2);
}

/* A durable open reclaimed on another worker: its entry and its locks
 * change owner (share_mode_move_owner, brl_move_owner). */
static void test_move_owner(void **state)
{
	struct file_key k = new_key();
	struct open_owner a = own(7), b = own(8), other = own(9);
	struct open_owner moved = {.pid = (uint32_t)getppid(),
				   .open_id = 77};
	bool last, del;

	assert_int_equal(share_mode_add(db, &k, &a, RD, SR), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &other, RD, SR),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &a, 0, 10, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &a, 20, 10, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &other, 40, 1, true), NT_STATUS_OK);
	/* Nothing of b: NOT_FOUND, the record as it was. */
	assert_int_equal(share_mode_move_owner(db, &k, &b, &moved, 1),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(share_mode_move_owner(db, &k, &a, &moved, 1),
			 NT_STATUS_OK);
	assert_int_equal(brl_move_owner(db, &k, &a, &moved), NT_STATUS_OK);
	/* The locks are the new owner's: it may unlock them, a may not. */
	assert_int_equal(brl_unlock(db, &k, &a, 0, 10),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_lock(db, &k, &other, 5, 1, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_unlock(db, &k, &moved, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 2);
	brl_remove_owner(db, &k, &moved);
	brl_remove_owner(db, &k, &other);
	assert_int_equal(brl_count(db, &k), 0);
	/* No locks at all moves nothing. */
	assert_int_equal(brl_move_owner(db, &k, &a, &moved), NT_STATUS_OK);
	assert_int_equal(share_mode_remove(db, &k, &a, &last, &del),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(share_mode_remove(db, &k, &moved, &last, &del),
			 NT_STATUS_OK);
	assert_false(last);
	assert_int_equal(share_mode_remove(db, &k, &other, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

/* A stream rename moves its open's entry and locks to the new stream's
 * key as they are (share_mode_move_key, brl_move_key); the counts see
 * them there and no longer at the old key. */
static void test_move_key(void **state)
{
	struct file_key from = new_key(), to = new_key();
	struct open_owner a = own(11), other = own(12), nobody = own(13);
	bool last, del, wake;

	assert_int_equal(share_mode_add(db, &from, &a, RD, SR), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &from, &other, RD, SR),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &from, &a, 0, 10, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &from, &other, 50, 5, true),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_count(db, &from, false), 2);
	assert_int_equal(share_mode_count(db, &to, false), 0);
	/* An owner with no entry moves nothing. */
	assert_int_not_equal(share_mode_move_key(db, &from, &to, &nobody,
						 &wake),
			     NT_STATUS_OK);
	assert_int_equal(share_mode_count(db, &from, false), 2);
	assert_int_equal(share_mode_move_key(db, &from, &to, &a, &wake),
			 NT_STATUS_OK);
	assert_false(wake);
	assert_int_equal(brl_move_key(db, &from, &to, &a), NT_STATUS_OK);
	assert_int_equal(share_mode_count(db, &from, false), 1);
	assert_int_equal(share_mode_count(db, &to, false), 1);
	/* a's lock is at the new key only; other's stayed. */
	assert_int_equal(brl_count(db, &from), 1);
	assert_int_equal(brl_count(db, &to), 1);
	assert_int_equal(brl_lock(db, &to, &other, 5, 1, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &from, &other, 5, 1, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &to, &a, 0, 10), NT_STATUS_OK);
	brl_remove_owner(db, &from, &other);
	assert_int_equal(share_mode_remove(db, &to, &a, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_int_equal(share_mode_remove(db, &from, &other, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

static void test_brl_stacking(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);

	/* Shared on own exclusive stacks; exclusive on own anything not. */
	assert_int_equal(brl_lock(db, &k, &h1, 0, 10, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 0, 10, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &k, &h1, 0, 10, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 0, 10, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, 0, 10, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	/* The exclusive lock goes first: then h2 can share. */
	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, 0, 10, false), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h2, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10),
			 NT_STATUS_RANGE_NOT_LOCKED);
	/* Exclusive on own shared: no. */
	assert_int_equal(brl_lock(db, &k, &h1, 0, 10, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 5, 10, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10), NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 0);
}

static void test_brl_unlock(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);

	assert_int_equal(brl_unlock(db, &k, &h1, 0, 10),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_lock(db, &k, &h1, 10001, 40002, true),
			 NT_STATUS_OK);
	/* Another open, a part of the range, a bigger range. */
	assert_int_equal(brl_unlock(db, &k, &h2, 10001, 40002),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_unlock(db, &k, &h1, 10001, 40001),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_unlock(db, &k, &h1, 10000, 40003),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_unlock(db, &k, &h1, 10001, 40002), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 10001, 40002),
			 NT_STATUS_RANGE_NOT_LOCKED);
	/* Locks are not coalesced: two locks need two unlocks. */
	assert_int_equal(brl_lock(db, &k, &h1, 110, 4, false), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 112, 4, false), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 110, 6),
			 NT_STATUS_RANGE_NOT_LOCKED);
	assert_int_equal(brl_unlock(db, &k, &h1, 112, 4), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h1, 110, 4), NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 0);
}

/* smbtorture smb2.lock.zerobytelength: the second lock after the first,
 * on the same open and on another one. */
static void test_brl_zero_length(void **state)
{
	static const struct {
		uint64_t o1, l1, o2, l2;
		NTSTATUS st;
	} t[] = {
		{10, 0, 10, 0, NT_STATUS_OK},
		{10, 0, 9, 1, NT_STATUS_OK},
		{10, 0, 10, 1, NT_STATUS_OK},
		{10, 0, 11, 1, NT_STATUS_OK},
		{10, 0, 9, 2, NT_STATUS_LOCK_NOT_GRANTED},
		{10, 0, 10, 2, NT_STATUS_OK},
		{10, 0, 9, 3, NT_STATUS_LOCK_NOT_GRANTED},
		{9, 1, 10, 0, NT_STATUS_OK},
		{10, 1, 10, 0, NT_STATUS_OK},
		{11, 1, 10, 0, NT_STATUS_OK},
		{9, 2, 10, 0, NT_STATUS_LOCK_NOT_GRANTED},
		{10, 2, 10, 0, NT_STATUS_OK},
		{9, 3, 10, 0, NT_STATUS_LOCK_NOT_GRANTED},
		{0, 0, 0, 0, NT_STATUS_OK},
		{0, 0, 0, 5, NT_STATUS_OK},
		{0, 5, 0, 0, NT_STATUS_OK},
		{UINT64_MAX, 0, UINT64_MAX, 0, NT_STATUS_OK},
		{UINT64_MAX, 0, UINT64_MAX, 1, NT_STATUS_OK},
		{UINT64_MAX - 1, 2, UINT64_MAX, 0, NT_STATUS_LOCK_NOT_GRANTED},
	};
	struct open_owner h1 = own(1), h2 = own(2);
	size_t i, pass;

	for (pass = 0; pass < 2; pass++) {
		struct open_owner *second = pass == 0 ? &h1 : &h2;

		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			struct file_key k = new_key();
			NTSTATUS st;

			assert_int_equal(brl_lock(db, &k, &h1, t[i].o1,
						  t[i].l1, true),
					 NT_STATUS_OK);
			st = brl_lock(db, &k, second, t[i].o2, t[i].l2, true);
			if (st != t[i].st) {
				fail_msg("case %zu pass %zu: 0x%08x", i, pass,
					 st);
			}
			if (st == NT_STATUS_OK) {
				assert_int_equal(brl_unlock(db, &k, second,
							    t[i].o2, t[i].l2),
						 NT_STATUS_OK);
			}
			assert_int_equal(brl_unlock(db, &k, &h1, t[i].o1,
						    t[i].l1),
					 NT_STATUS_OK);
		}
	}
}

static void test_brl_high_ranges(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);
	uint64_t top = UINT64_MAX, half = (uint64_t)1 << 63;

	/* MS-FSA 2.1.5.8: the last byte must not pass 2^64-1. */
	assert_int_equal(brl_lock(db, &k, &h1, top, top, true),
			 NT_STATUS_INVALID_LOCK_RANGE);
	assert_int_equal(brl_lock(db, &k, &h1, top, 2, true),
			 NT_STATUS_INVALID_LOCK_RANGE);
	assert_int_equal(brl_lock(db, &k, &h1, half, half + 1, true),
			 NT_STATUS_INVALID_LOCK_RANGE);
	assert_int_equal(brl_count(db, &k), 0);
	/* Up to the very last byte. */
	assert_int_equal(brl_lock(db, &k, &h1, top, 1, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, top, 1, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &k, &h2, half, half, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_lock(db, &k, &h2, half - 1, 1, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h2, half, 1, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 0, top, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	/* I/O near the top, and a range the I/O check clips. */
	assert_int_equal(brl_check_io(db, &k, &h2, top - 10, 100, false),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_check_io(db, &k, &h1, top - 10, 100, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h1, half - 1, 1, true),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_unlock(db, &k, &h1, top, 1), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h2, half - 1, 1), NT_STATUS_OK);
	assert_int_equal(brl_unlock(db, &k, &h2, half, 1), NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 0);
}

/* smb2.lock.rw-shared / rw-exclusive: who may read and write. */
static void test_brl_io(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);

	assert_int_equal(brl_check_io(db, &k, &h1, 0, 100, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &h1, 100, 100, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h1, 150, 10, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 10, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h1, 150, 10, true),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 10, true),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_unlock(db, &k, &h1, 100, 100), NT_STATUS_OK);

	assert_int_equal(brl_lock(db, &k, &h1, 100, 100, true), NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h1, 150, 10, false),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h1, 150, 10, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 10, false),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 10, true),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	/* Touching only the edges, or nothing. */
	assert_int_equal(brl_check_io(db, &k, &h2, 90, 10, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h2, 200, 10, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_check_io(db, &k, &h2, 199, 1, false),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 0, true),
			 NT_STATUS_OK);
	brl_remove_owner(db, &k, &h1);
	assert_int_equal(brl_check_io(db, &k, &h2, 150, 10, true),
			 NT_STATUS_OK);
}

static void test_brl_many(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);
	uint64_t off = 0, step = UINT64_MAX / 100;
	int i;

	/* smb2.lock.range: 200 locks spread over the 64-bit space. */
	for (i = 0; i < 100; i++) {
		off += step;
		assert_int_equal(brl_lock(db, &k, &h1, off - 1, 1, true),
				 NT_STATUS_OK);
		assert_int_equal(brl_lock(db, &k, &h2, off - 2, 1, true),
				 NT_STATUS_OK);
	}
	assert_int_equal(brl_count(db, &k), 200);
	for (off = 0, i = 0; i < 100; i++) {
		off += step;
		assert_int_equal(brl_lock(db, &k, &h1, off - 2, 1, true),
				 NT_STATUS_LOCK_NOT_GRANTED);
		assert_int_equal(brl_lock(db, &k, &h2, off - 1, 1, true),
				 NT_STATUS_LOCK_NOT_GRANTED);
	}
	brl_remove_owner(db, &k, &h2);
	assert_int_equal(brl_count(db, &k), 100);
	brl_remove_owner(db, &k, &h1);
	assert_int_equal(brl_count(db, &k), 0);
}

static void test_brl_many_ranges(void **state)
{
	struct file_key k = new_key();
	struct open_owner h1 = own(1), h2 = own(2);
	struct brl_range r[3] = {
		{.off = 0, .len = 10, .exclusive = true},
		{.off = 20, .len = 10, .exclusive = false},
		{.off = 40, .len = 10, .exclusive = true},
	};
	unsigned failed = 99;

	assert_int_equal(brl_lock_many(db, &k, &h1, r, 0, &failed),
			 NT_STATUS_INVALID_PARAMETER);
	assert_int_equal(brl_lock_many(db, &k, &h1, r, 3, &failed),
			 NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 3);
	/* The third conflicts: nothing of the request is granted. */
	r[0].off = 100;
	r[1].off = 120;
	assert_int_equal(brl_lock_many(db, &k, &h2, r, 3, &failed),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(failed, 2);
	assert_int_equal(brl_count(db, &k), 3);
	/* Ranges of one request conflict among themselves too. */
	r[2].off = 105;
	assert_int_equal(brl_lock_many(db, &k, &h2, r, 3, &failed),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(failed, 2);
	/* ... but shared stacks on the request's own exclusive. */
	r[2].exclusive = false;
	assert_int_equal(brl_lock_many(db, &k, &h2, r, 3, &failed),
			 NT_STATUS_OK);
	assert_int_equal(brl_count(db, &k), 6);
	/* A bad range anywhere refuses the whole request. */
	r[1].off = UINT64_MAX;
	assert_int_equal(brl_lock_many(db, &k, &h1, r, 3, &failed),
			 NT_STATUS_INVALID_LOCK_RANGE);
	assert_int_equal(failed, 1);
	assert_int_equal(brl_count(db, &k), 6);
	brl_remove_owner(db, &k, &h1);
	brl_remove_owner(db, &k, &h2);
	assert_int_equal(brl_count(db, &k), 0);
}

/* ---- several processes ---- */

/* Wait for a child with a time limit: a hang fails the test. */
static int wait_child(pid_t pid)
{
	int st = 0;

	alarm(30);
	if (waitpid(pid, &st, 0) != pid) {
		return -1;
	}
	alarm(0);
	return st;
}

#define ROUNDS 300

/* Each child takes an exclusive lock, checks it is alone inside, lets
 * go; and opens with share none, checks the same. */
static void contend_child(volatile int *inside)
{
	struct open_owner o = own(1);
	struct file_key k = {.dev = 1, .ino = 1};
	int i, bad = 0;
	bool last, del;

	if (!NT_STATUS_IS_OK(locking_db_reopen(db))) {
		_exit(2);
	}
	for (i = 0; i < ROUNDS; i++) {
		while (brl_lock(db, &k, &o, 0, 1, true) != NT_STATUS_OK) {
		}
		if (__atomic_add_fetch(&inside[0], 1, __ATOMIC_SEQ_CST) != 1) {
			bad++;
		}
		__atomic_sub_fetch(&inside[0], 1, __ATOMIC_SEQ_CST);
		if (brl_unlock(db, &k, &o, 0, 1) != NT_STATUS_OK) {
			bad++;
		}
		while (share_mode_add(db, &k, &o, RD | WR, 0) != NT_STATUS_OK) {
		}
		if (__atomic_add_fetch(&inside[1], 1, __ATOMIC_SEQ_CST) != 1) {
			bad++;
		}
		__atomic_sub_fetch(&inside[1], 1, __ATOMIC_SEQ_CST);
		if (share_mode_remove(db, &k, &o, &last, &del) !=
			    NT_STATUS_OK ||
		    !last) {
			bad++;
		}
	}
	_exit(bad == 0 ? 0 : 1);
}

static void test_two_processes(void **state)
{
	volatile int *inside;
	pid_t p[2];
	int i;

	inside = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(inside != MAP_FAILED);
	inside[0] = inside[1] = 0;
	for (i = 0; i < 2; i++) {
		p[i] = fork();
		assert_true(p[i] >= 0);
		if (p[i] == 0) {
			contend_child(inside);
		}
	}
	for (i = 0; i < 2; i++) {
		int st = wait_child(p[i]);

		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	munmap((void *)inside, 4096);
	{
		struct file_key k = {.dev = 1, .ino = 1};

		assert_int_equal(brl_count(db, &k), 0);
	}
}

/*
 * A child takes a share mode and a lock, then the chain lock of the same
 * key, and is killed with SIGKILL while holding it.  The parent must get
 * the chain (robust mutex: EOWNERDEAD, made consistent by tdb; fcntl
 * locks die with their process anyway), and the dead child's entries
 * must not refuse its open and lock.
 */
static void test_killed_holder(void **state)
{
	struct file_key k = new_key();
	struct open_owner me = own(1);
	uint8_t kbuf[LOCKING_KEY_LEN];
	int pfd[2];
	char c;
	pid_t pid;
	int st;
	bool last, del;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct open_owner o = own(1);

		close(pfd[0]);
		if (!NT_STATUS_IS_OK(locking_db_reopen(db)) ||
		    share_mode_add(db, &k, &o, RD | WR, 0) != NT_STATUS_OK ||
		    brl_lock(db, &k, &o, 0, 100, true) != NT_STATUS_OK ||
		    tdb_chainlock(db->share->tdb, locking_key(&k, kbuf)) != 0 ||
		    tdb_chainlock(db->brl->tdb, locking_key(&k, kbuf)) != 0) {
			_exit(1);
		}
		c = 'x';
		if (write(pfd[1], &c, 1) != 1) {
			_exit(1);
		}
		for (;;) {
			pause();
		}
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = wait_child(pid);
	assert_true(WIFSIGNALED(st));

	/* Both chains can be taken again (a hang here trips alarm()).  The
	 * dead child's entries are still there, and go as soon as they are
	 * in the way (locking_owner_gone), cleanup or not. */
	alarm(30);
	assert_int_equal(brl_count(db, &k), 1);
	assert_int_equal(share_mode_count(db, &k, false), 1);
	assert_int_equal(share_mode_add(db, &k, &me, RD | WR, 0),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &me, 50, 1, true), NT_STATUS_OK);
	alarm(0);
	assert_int_equal(brl_count(db, &k), 1);
	assert_int_equal(share_mode_count(db, &k, false), 1);
	/* Our own entries survive a cleanup of someone else. */
	locking_cleanup_pid(db, (uint32_t)pid);
	assert_int_equal(brl_count(db, &k), 1);
	brl_remove_owner(db, &k, &me);
	assert_int_equal(share_mode_remove(db, &k, &me, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
}

/*
 * Issue 34 item 11: a record never outlives its owner, whatever happened
 * to the master.  A child holds, on files of its own: an exclusive open
 * and an exclusive lock (a), a batch oplock (b), a read-handle lease (c),
 * an open with delete pending (d).  Killed, and left unreaped (a zombie:
 * kill(pid, 0) still succeeds) or reaped, it blocks nothing: the open,
 * the lock, the I/O, the rename and delete checks go through without a
 * break to send, and its entries go then; nothing that does not meet
 * them removes them.  Stopped but alive, it still blocks everything.
 */
struct gone_keys {
	struct file_key a, b, c, d;
};

static struct share_open_req oreq(uint64_t id, uint32_t access,
				  uint32_t share, uint8_t caching,
				  uint32_t want);
static struct share_open_req lreq(uint64_t id, uint8_t key, uint32_t want);

static pid_t gone_child(const struct gone_keys *g)
{
	struct share_open_req qb = oreq(1, RD | WR, SR | SW, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_req qc = lreq(2, 0x3c, CACHE_R | CACHE_H);
	struct open_owner oa = own(7), od = own(9);
	struct share_open_res r;
	int pfd[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		TALLOC_CTX *tmp = talloc_new(NULL);

		close(pfd[0]);
		qb.o = own(1);
		qc.o = own(2);
		oa = own(7);
		od = own(9);
		if (!NT_STATUS_IS_OK(locking_db_reopen(db)) ||
		    share_mode_add(db, &g->a, &oa, RD | WR | DE, 0) !=
			    NT_STATUS_OK ||
		    brl_lock(db, &g->a, &oa, 0, 100, true) != NT_STATUS_OK ||
		    share_mode_open(db, tmp, &g->b, &qb, &r) != NT_STATUS_OK ||
		    r.granted != CACHE_RWH ||
		    share_mode_open(db, tmp, &g->c, &qc, &r) != NT_STATUS_OK ||
		    r.granted != (CACHE_R | CACHE_H) ||
		    share_mode_add(db, &g->d, &od, RD | DE, SR | SW | SD) !=
			    NT_STATUS_OK ||
		    share_mode_set_delete_on_close(db, &g->d, &od, true) !=
			    NT_STATUS_OK) {
			_exit(1);
		}
		c = 'x';
		if (write(pfd[1], &c, 1) != 1) {
			_exit(1);
		}
		for (;;) {
			pause();
		}
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	return pid;
}

static struct gone_keys gone_keys(void)
{
	struct gone_keys g = {new_key(), new_key(), new_key(), new_key()};

	return g;
}

/* What a live owner's entries refuse, they refuse. */
static void gone_assert_blocked(const struct gone_keys *g)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct share_open_req qb = oreq(11, RD | WR, SR | SW, CACHING_OPLOCK,
					CACHE_RWH);
	struct open_owner me = own(10);
	struct share_open_res r;
	bool pending;

	assert_int_equal(share_mode_add(db, &g->a, &me, RD, SR | SW | SD),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(brl_lock(db, &g->a, &me, 50, 1, false),
			 NT_STATUS_LOCK_NOT_GRANTED);
	assert_int_equal(brl_check_io(db, &g->a, &me, 10, 1, false),
			 NT_STATUS_FILE_LOCK_CONFLICT);
	assert_int_equal(share_mode_check_delete(db, &g->a, NULL),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(share_mode_open(db, tmp, &g->b, &qb, &r),
			 NT_STATUS_OPLOCK_BREAK_IN_PROGRESS);
	assert_int_equal(r.nbreaks, 1);
	assert_int_equal(share_mode_delete_pending(db, &g->d, &pending),
			 NT_STATUS_OK);
	assert_true(pending);
	assert_int_equal(share_mode_add(db, &g->d, &me, RD, SR | SW | SD),
			 NT_STATUS_DELETE_PENDING);
	talloc_free(tmp);
}

static void gone_assert_free(const struct gone_keys *g)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct share_open_req qb = oreq(11, RD | WR, SR | SW, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_req qc = lreq(12, 0x5a, CACHE_R | CACHE_H);
	struct open_owner me = own(10), mb = own(11), mc = own(12);
	struct share_open_res r;
	struct share_break *breaks;
	unsigned nb;
	bool last, del;

	/* Nothing met the entries yet: they are all there. */
	assert_int_equal(share_mode_count(db, &g->a, false), 1);
	assert_int_equal(brl_count(db, &g->a), 1);
	/* I/O first: the dead lock is ignored and dropped. */
	assert_int_equal(brl_check_io(db, &g->a, &me, 10, 1, true),
			 NT_STATUS_OK);
	assert_int_equal(brl_count(db, &g->a), 0);
	assert_int_equal(share_mode_check_delete(db, &g->a, NULL),
			 NT_STATUS_OK);
	assert_int_equal(share_mode_count(db, &g->a, false), 0);
	assert_int_equal(share_mode_add(db, &g->a, &me, RD | WR, 0),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &g->a, &me, 0, 10, true),
			 NT_STATUS_OK);
	/* The batch oplock: no break to send, the open gets its own. */
	assert_int_equal(share_mode_open(db, tmp, &g->b, &qb, &r),
			 NT_STATUS_OK);
	assert_int_equal(r.nbreaks, 0);
	assert_int_equal(r.granted, CACHE_RWH);
	/* A write of a file with the dead lease: nothing to break. */
	assert_int_equal(share_mode_break_readers(db, tmp, &g->c, &me, NULL,
						  NULL, &breaks, &nb),
			 NT_STATUS_OK);
	assert_int_equal(nb, 0);
	assert_int_equal(share_mode_count(db, &g->c, false), 0);
	assert_int_equal(share_mode_open(db, tmp, &g->c, &qc, &r),
			 NT_STATUS_OK);
	assert_int_equal(r.nbreaks, 0);
	/* The delete it left pending is no longer pending. */
	assert_int_equal(share_mode_add(db, &g->d, &me, RD, SR | SW | SD),
			 NT_STATUS_OK);
	brl_remove_owner(db, &g->a, &me);
	assert_int_equal(share_mode_remove(db, &g->a, &me, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_int_equal(share_mode_remove(db, &g->b, &mb, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_int_equal(share_mode_remove(db, &g->c, &mc, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_int_equal(share_mode_remove(db, &g->d, &me, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	assert_false(del);
	talloc_free(tmp);
}

static void test_gone_owner(void **state)
{
	struct gone_keys g = gone_keys(), z = gone_keys();
	siginfo_t si;
	pid_t pid;
	int st;

	/* Stopped: alive, in the way. */
	pid = gone_child(&g);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	gone_assert_blocked(&g);
	/* Killed and reaped. */
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = wait_child(pid);
	assert_true(WIFSIGNALED(st));
	gone_assert_free(&g);

	/* Killed, not reaped: a zombie is gone too. */
	pid = gone_child(&z);
	assert_int_equal(kill(pid, SIGKILL), 0);
	alarm(30);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT),
			 0);
	alarm(0);
	gone_assert_free(&z);
	st = wait_child(pid);
	assert_true(WIFSIGNALED(st));
}

/* Entries of another node's processes are never taken for gone here
 * (their node cleans them): an owner pid that names a node other than
 * ours keeps its conflict even when no such local process runs. */
static void test_gone_owner_remote(void **state)
{
	struct file_key k = new_key();
	struct open_owner remote = {
		.pid = (uint32_t)getpid() | (5u << LOCKING_PID_NODE_SHIFT),
		.open_id = 1,
	};
	struct open_owner me = own(2);
	bool last, del;

	assert_int_equal(share_mode_add(db, &k, &remote, RD | WR, 0),
			 NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &remote, 0, 1, true), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &me, RD, SR | SW | SD),
			 NT_STATUS_SHARING_VIOLATION);
	assert_int_equal(brl_lock(db, &k, &me, 0, 1, true),
			 NT_STATUS_LOCK_NOT_GRANTED);
	locking_cleanup_owner(db, remote.pid);
	assert_int_equal(brl_count(db, &k), 0);
	assert_int_equal(share_mode_remove(db, &k, &remote, &last, &del),
			 NT_STATUS_NOT_FOUND);
}

/* "Number of dead records: N" of tdb_summary(), or -1. */
static long tdb_dead(struct tdb_context *tdb)
{
	char *sum = tdb_summary(tdb);
	const char *p = sum ? strstr(sum, "Number of dead records: ") : NULL;
	long n = p ? strtol(p + strlen("Number of dead records: "), NULL, 10)
		   : -1;

	free(sum);
	return n;
}

static off_t file_size(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", lockdir, name);
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static int odd_key_fn(struct tdb_context *tdb, TDB_DATA key, TDB_DATA data,
		      void *priv)
{
	*(int *)priv += key.dsize != LOCKING_KEY_LEN;
	return 0;
}

/* Records whose key is not a file's (the vacuum's, left behind). */
static int count_odd_keys(struct tdb_context *tdb)
{
	int n = 0;

	assert_true(tdb_traverse_read(tdb, odd_key_fn, &n) >= 0);
	return n;
}

/* One round of churn on files never seen before: an open and a lock,
 * then their removal, per file. */
static void churn_round(unsigned n)
{
	struct open_owner o = own(1);
	unsigned i;
	bool last, del;

	for (i = 0; i < n; i++) {
		struct file_key k = new_key();

		assert_int_equal(share_mode_add(db, &k, &o, RD | WR, SR),
				 NT_STATUS_OK);
		assert_int_equal(brl_lock(db, &k, &o, 0, 1, true),
				 NT_STATUS_OK);
		brl_remove_owner(db, &k, &o);
		assert_int_equal(share_mode_remove(db, &k, &o, &last, &del),
				 NT_STATUS_OK);
	}
}

/*
 * Issue 34 item 12: smbstatus's table keeps no dead records, so churn of
 * new keys (sessions, tree connects, opens come and go) leaves its file
 * as it was; the share-mode and lock tables keep them (TDB_VOLATILE) for
 * their keys that come back: the same file opened, locked, unlocked and
 * closed again and again reuses its records, and the file stays as it
 * was too.  Churn of new files leaves dead records there until the
 * vacuum hands them all to the free list; vacuumed, the same churn again
 * fits in the file as it is.
 */
static void test_dead_records(void **state)
{
	struct file_key k = new_key();
	struct open_owner o = own(1);
	off_t share_size, brl_size, status_size;
	unsigned i;
	bool last, del;

	for (i = 0; i < 100; i++) {
		status_db_put(db, STATUS_OPEN, 42, i, 0, "name=x\nshare=y\n");
		status_db_del(db, STATUS_OPEN, 42, i, 0);
	}
	status_size = file_size("smbd_status.tdb");
	for (i = 0; i < 20000; i++) {
		status_db_put(db, STATUS_OPEN, 43, i, 0, "name=x\nshare=y\n");
		status_db_del(db, STATUS_OPEN, 43, i, 0);
	}
	assert_int_equal(tdb_dead(db->status), 0);
	assert_true(file_size("smbd_status.tdb") == status_size);

	churn_round(100);
	assert_true(tdb_dead(db->share->tdb) > 0);
	assert_true(tdb_dead(db->brl->tdb) > 0);
	share_size = file_size("smbd_share_modes.tdb");
	brl_size = file_size("smbd_brlock.tdb");
	for (i = 0; i < 20000; i++) {
		assert_int_equal(share_mode_add(db, &k, &o, RD | WR, SR),
				 NT_STATUS_OK);
		assert_int_equal(brl_lock(db, &k, &o, 0, 1, true),
				 NT_STATUS_OK);
		assert_int_equal(brl_unlock(db, &k, &o, 0, 1), NT_STATUS_OK);
		assert_int_equal(share_mode_remove(db, &k, &o, &last, &del),
				 NT_STATUS_OK);
	}
	assert_true(file_size("smbd_share_modes.tdb") == share_size);
	assert_true(file_size("smbd_brlock.tdb") == brl_size);

	churn_round(20000);
	assert_true(tdb_dead(db->share->tdb) > 1000);
	assert_true(tdb_dead(db->brl->tdb) > 1000);
	locking_vacuum(db);
	assert_int_equal(tdb_dead(db->share->tdb), 0);
	assert_int_equal(tdb_dead(db->brl->tdb), 0);
	share_size = file_size("smbd_share_modes.tdb");
	brl_size = file_size("smbd_brlock.tdb");
	for (i = 0; i < 3; i++) {
		churn_round(5000);
		locking_vacuum(db);
		assert_int_equal(tdb_dead(db->share->tdb), 0);
	}
	assert_true(file_size("smbd_share_modes.tdb") == share_size);
	assert_true(file_size("smbd_brlock.tdb") == brl_size);
	/* The vacuum's keys are gone with it: nothing for the walkers. */
	assert_int_equal(count_odd_keys(db->share->tdb), 0);
	assert_int_equal(count_odd_keys(db->brl->tdb), 0);
}

static void test_cleanup_mixed(void **state)
{
	struct file_key k = new_key();
	struct open_owner a = {.pid = 4000001, .open_id = 1};
	struct open_owner b = {.pid = 4000002, .open_id = 1};
	bool last, del;

	assert_int_equal(share_mode_add(db, &k, &a, RD, SR), NT_STATUS_OK);
	assert_int_equal(share_mode_add(db, &k, &b, RD, SR), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &a, 0, 1, true), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &b, 1, 1, true), NT_STATUS_OK);
	locking_cleanup_pid(db, a.pid);
	assert_int_equal(brl_count(db, &k), 1);
	assert_int_equal(share_mode_remove(db, &k, &a, &last, &del),
			 NT_STATUS_NOT_FOUND);
	assert_int_equal(share_mode_remove(db, &k, &b, &last, &del),
			 NT_STATUS_OK);
	assert_true(last);
	locking_cleanup_pid(db, b.pid);
	assert_int_equal(brl_count(db, &k), 0);
}

/* A record another process damaged is reported, never trusted. */
static void test_corrupt_record(void **state)
{
	struct file_key k = new_key();
	struct open_owner o = own(1);
	uint8_t kbuf[LOCKING_KEY_LEN], junk[5] = {1, 'B', 0, 0, 9};
	TDB_DATA d = {.dptr = junk, .dsize = sizeof(junk)};
	bool last, del;

	assert_int_equal(tdb_store(db->brl->tdb, locking_key(&k, kbuf), d,
				   TDB_REPLACE),
			 0);
	assert_int_equal(brl_lock(db, &k, &o, 0, 1, true),
			 LOCKING_STATUS_CORRUPT);
	assert_int_equal(brl_check_io(db, &k, &o, 0, 1, true),
			 LOCKING_STATUS_CORRUPT);
	assert_int_equal(brl_unlock(db, &k, &o, 0, 1),
			 LOCKING_STATUS_CORRUPT);
	junk[1] = 'S';
	assert_int_equal(tdb_store(db->share->tdb, locking_key(&k, kbuf), d,
				   TDB_REPLACE),
			 0);
	assert_int_equal(share_mode_add(db, &k, &o, RD, 7),
			 LOCKING_STATUS_CORRUPT);
	assert_int_equal(share_mode_remove(db, &k, &o, &last, &del),
			 LOCKING_STATUS_CORRUPT);
	/* The cleanup traverse drops what it cannot read. */
	locking_cleanup_pid(db, 1);
	assert_int_equal(share_mode_add(db, &k, &o, RD, 7), NT_STATUS_OK);
	assert_int_equal(brl_lock(db, &k, &o, 0, 1, true), NT_STATUS_OK);
	brl_remove_owner(db, &k, &o);
	assert_int_equal(share_mode_remove(db, &k, &o, &last, &del),
			 NT_STATUS_OK);
}

static void test_open_errors(void **state)
{
	struct locking_db *d2 = NULL;

	assert_int_equal(locking_db_open(NULL, "", false, &d2),
			 NT_STATUS_INVALID_PARAMETER);
	assert_null(d2);
	assert_int_not_equal(locking_db_open(NULL, "/proc/no/such", false,
					     &d2),
			     NT_STATUS_OK);
	assert_null(d2);
}

/* ---- oplocks and leases (locking/oplock.c) ---- */

static struct share_open_req oreq(uint64_t id, uint32_t access,
				  uint32_t share, uint8_t caching,
				  uint32_t want)
{
	struct share_open_req q;

	memset(&q, 0, sizeof(q));
	q.o = own(id);
	q.worker = 1;
	q.access_mask = access;
	q.share_access = share;
	q.caching = caching;
	q.want = want;
	q.level2_ok = true;
	return q;
}

static struct share_open_req lreq(uint64_t id, uint8_t key, uint32_t want)
{
	struct share_open_req q = oreq(id, RD | WR, SR | SW | SD,
				       CACHING_LEASE, want);

	q.lease_version = 2;
	q.epoch = 0x10;
	memset(q.lease_key, key, 16);
	memset(q.client_guid, 0x77, 16);
	return q;
}

/* MS-FSA 2.1.4.12 for oplocks: batch alone, level II after a break that
 * waits for the acknowledgement; a stat open neither breaks nor gets. */
static void test_oplock_batch_break(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct file_key k = new_key();
	struct share_open_req q1 = oreq(1, RD | WR, SR | SW, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_req q2 = oreq(2, RD | WR, SR | SW, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_req qs = oreq(3, RA, SR | SW | SD, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_res r;
	struct share_ack_res a;
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	bool last, del, wake;

	assert_int_equal(share_mode_open(db, tmp, &k, &q1, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_RWH);
	assert_int_equal(r.nbreaks, 0);
	/* A stat open: no break, no oplock. */
	assert_int_equal(share_mode_open(db, tmp, &k, &qs, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, 0);
	assert_int_equal(r.nbreaks, 0);
	/* The second real open breaks batch to level II and waits. */
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r),
			 NT_STATUS_OPLOCK_BREAK_IN_PROGRESS);
	assert_int_equal(r.nbreaks, 1);
	assert_int_equal(r.breaks[0].open_id, 1);
	assert_int_equal(r.breaks[0].to, CACHE_R);
	assert_true(r.breaks[0].ack_required);
	/* Trying again before the ack: still waiting, no second break. */
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r),
			 NT_STATUS_OPLOCK_BREAK_IN_PROGRESS);
	assert_int_equal(r.nbreaks, 0);
	/* Acknowledging more than level II is a protocol error. */
	assert_int_equal(share_mode_oplock_ack(db, tmp, &k, &o1, CACHE_RWH, &a),
			 NT_STATUS_INVALID_OPLOCK_PROTOCOL);
	/* The failed ack left no oplock; the waiter is let in with II. */
	assert_int_equal(a.state, 0);
	assert_true(a.wake);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_R);
	/* A write through open 2 breaks level II (its own too), no ack. */
	{
		struct share_break *b;
		unsigned n;

		assert_int_equal(share_mode_break_readers(db, tmp, &k, &o2,
							  NULL, NULL, &b, &n),
				 NT_STATUS_OK);
		assert_int_equal(n, 1);
		assert_int_equal(b[0].open_id, 2);
		assert_false(b[0].ack_required);
		assert_int_equal(share_mode_cached_opens(db, &k), 0);
	}
	assert_int_equal(share_mode_remove_wake(db, &k, &o3, &last, &del,
						&wake), NT_STATUS_OK);
	assert_true(wake);
	(void)share_mode_remove(db, &k, &o2, &last, &del);
	(void)share_mode_remove(db, &k, &o1, &last, &del);
	assert_true(last);
	talloc_free(tmp);
}

/* A sharing conflict with a batch oplock breaks it first; after the ack
 * the conflict stands. */
static void test_oplock_share_conflict(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct file_key k = new_key();
	struct share_open_req q1 = oreq(1, RD | WR, 0, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_req q2 = oreq(2, RD, SR | SW, CACHING_NONE, 0);
	struct share_open_res r;
	struct share_ack_res a;
	struct open_owner o1 = own(1);
	bool last, del;

	assert_int_equal(share_mode_open(db, tmp, &k, &q1, &r), NT_STATUS_OK);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r),
			 NT_STATUS_OPLOCK_BREAK_IN_PROGRESS);
	assert_int_equal(r.breaks[0].to, CACHE_R);
	assert_int_equal(share_mode_oplock_ack(db, tmp, &k, &o1, CACHE_R, &a),
			 NT_STATUS_OK);
	assert_int_equal(a.state, CACHE_R);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r),
			 NT_STATUS_SHARING_VIOLATION);
	(void)share_mode_remove(db, &k, &o1, &last, &del);
	talloc_free(tmp);
}

/* Directory leases (MS-SMB2 3.3.5.9.11): a directory gets R and H at
 * most, and no oplock; a change of its entries breaks every lease on it
 * to none except the one named as the change's parent key. */
static void test_dir_leases(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct file_key k = new_key();
	struct share_open_req q1 = lreq(1, 0x11, CACHE_RWH);
	struct share_open_req q2 = lreq(2, 0x22, CACHE_R);
	struct share_open_req qo = oreq(3, RD, SR | SW | SD, CACHING_OPLOCK,
					CACHE_RWH);
	struct share_open_res r;
	struct share_break *b;
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	uint8_t key1[16], guid[16];
	unsigned n;
	bool last, del;

	memset(key1, 0x11, 16);
	memset(guid, 0x77, 16);
	q1.is_dir = q2.is_dir = qo.is_dir = true;
	assert_int_equal(share_mode_open(db, tmp, &k, &q1, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_R | CACHE_H);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_R);
	assert_int_equal(share_mode_open(db, tmp, &k, &qo, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, 0);
	/* A change under lease 1 as parent: only lease 2 breaks, no ack
	 * (R alone). */
	assert_int_equal(share_mode_break_dir_leases(db, tmp, &k, guid, key1,
						     &b, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].open_id, 2);
	assert_int_equal(b[0].to, 0);
	assert_false(b[0].ack_required);
	/* Anyone else's change: lease 1 breaks RH to none, with an ack. */
	assert_int_equal(share_mode_break_dir_leases(db, tmp, &k, NULL, NULL,
						     &b, &n),
			 NT_STATUS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].open_id, 1);
	assert_int_equal(b[0].from, CACHE_R | CACHE_H);
	assert_int_equal(b[0].to, 0);
	assert_true(b[0].ack_required);
	/* A directory nobody has open: nothing to break. */
	{
		struct file_key none = new_key();

		assert_int_equal(share_mode_break_dir_leases(
					 db, tmp, &none, NULL, NULL, &b, &n),
				 NT_STATUS_OK);
		assert_int_equal(n, 0);
	}
	(void)share_mode_remove(db, &k, &o3, &last, &del);
	(void)share_mode_remove(db, &k, &o2, &last, &del);
	(void)share_mode_remove(db, &k, &o1, &last, &del);
	assert_true(last);
	talloc_free(tmp);
}

/* Leases: W goes to the first holder's break, the second key gets RH;
 * epochs count; an upgrade next to another lease only to a superset that
 * both can hold; the timeout gives the holder what the break said. */
static void test_lease_break_upgrade(void **state)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct file_key k = new_key();
	struct share_open_req q1 = lreq(1, 0x11, CACHE_RWH);
	struct share_open_req q2 = lreq(2, 0x22, CACHE_RWH);
	struct share_open_req q3 = lreq(3, 0x11, CACHE_RWH);
	struct share_open_res r;
	struct share_ack_res a;
	struct open_owner o1 = own(1), o2 = own(2), o3 = own(3);
	uint8_t key1[16], guid[16];
	bool last, del;

	memset(key1, 0x11, 16);
	memset(guid, 0x77, 16);
	assert_int_equal(share_mode_open(db, tmp, &k, &q1, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_RWH);
	assert_int_equal(r.epoch, 0x11);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r),
			 NT_STATUS_OPLOCK_BREAK_IN_PROGRESS);
	assert_int_equal(r.nbreaks, 1);
	assert_int_equal(r.breaks[0].from, CACHE_RWH);
	assert_int_equal(r.breaks[0].to, CACHE_R | CACHE_H);
	assert_int_equal(r.breaks[0].epoch, 0x12);
	/* An ack with more than the break said is refused. */
	assert_int_equal(share_mode_lease_ack(db, tmp, &k, guid, key1,
					      CACHE_RWH, &a),
			 NT_STATUS_REQUEST_NOT_ACCEPTED);
	/* No ack: the timeout ends the break, and the lease. */
	assert_int_equal(share_mode_break_timeout(db, tmp, &k, NULL, NULL,
						  NULL, &a),
			 NT_STATUS_OK);
	assert_true(a.wake);
	assert_int_equal(share_mode_open(db, tmp, &k, &q2, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, CACHE_R | CACHE_H);
	/* A late ack: no break under way. */
	assert_int_equal(share_mode_lease_ack(db, tmp, &k, guid, key1,
					      CACHE_R | CACHE_H, &a),
			 NT_STATUS_INVALID_OPLOCK_PROTOCOL);
	/* The timeout left lease 1 with nothing; asking for RWH again next
	 * to lease 2 changes nothing (W cannot be held with it), asking
	 * for RH does (upgrade3). */
	assert_int_equal(share_mode_open(db, tmp, &k, &q3, &r), NT_STATUS_OK);
	assert_int_equal(r.granted, 0);
	{
		struct share_open_req q4 = lreq(4, 0x11, CACHE_R | CACHE_H);
		struct open_owner o4 = own(4);

		assert_int_equal(share_mode_open(db, tmp, &k, &q4, &r),
				 NT_STATUS_OK);
		assert_int_equal(r.granted, CACHE_R | CACHE_H);
		(void)share_mode_remove(db, &k, &o4, &last, &del);
	}
	(void)share_mode_remove(db, &k, &o3, &last, &del);
	(void)share_mode_remove(db, &k, &o2, &last, &del);
	(void)share_mode_remove(db, &k, &o1, &last, &del);
	assert_true(last);
	talloc_free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_roundtrip),
		cmocka_unit_test(test_rec_malformed),
		cmocka_unit_test(test_share_matrix),
		cmocka_unit_test(test_share_three_opens),
		cmocka_unit_test(test_delete_pending),
		cmocka_unit_test(test_change_time),
		cmocka_unit_test(test_open_delete_on_close),
		cmocka_unit_test(test_check_delete),
		cmocka_unit_test(test_rename_parent),
		cmocka_unit_test(test_open_below),
		cmocka_unit_test(test_stream_ref),
		cmocka_unit_test(test_brl_basic),
		cmocka_unit_test(test_move_owner),
		cmocka_unit_test(test_move_key),
		cmocka_unit_test(test_brl_stacking),
		cmocka_unit_test(test_brl_unlock),
		cmocka_unit_test(test_brl_zero_length),
		cmocka_unit_test(test_brl_high_ranges),
		cmocka_unit_test(test_brl_io),
		cmocka_unit_test(test_brl_many),
		cmocka_unit_test(test_brl_many_ranges),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_killed_holder),
		cmocka_unit_test(test_gone_owner),
		cmocka_unit_test(test_gone_owner_remote),
		cmocka_unit_test(test_dead_records),
		cmocka_unit_test(test_cleanup_mixed),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_oplock_batch_break),
		cmocka_unit_test(test_oplock_share_conflict),
		cmocka_unit_test(test_lease_break_upgrade),
		cmocka_unit_test(test_dir_leases),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
