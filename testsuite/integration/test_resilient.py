#!/usr/bin/python3
"""Resilient handles: FSCTL_LMR_REQUEST_RESILIENCY (MS-SMB2 2.2.31.3,
3.3.5.15.9), what Windows clients ask for on files they keep open over
network blips.

- The request's answers (ours and Samba's from the same test): success
  with an empty output on 2.1 and 3.1.1; INVALID_PARAMETER for an input
  shorter than NETWORK_RESILIENCY_REQUEST and for a Timeout over the
  maximum (300 s, compared in seconds); Timeout 0 is the server's choice;
  INVALID_DEVICE_REQUEST on 2.0.2; NOT_SUPPORTED on a directory;
  FILE_CLOSED for a FileId that names nothing.  Samba 4.17 answers
  INVALID_DEVICE_REQUEST to every one (it has no resilient handles).
- An open made resilient outlives its connection: its byte-range lock
  still stops another client, and a new connection of the same user gets
  it back with DHnC (and with DH2C on 3.x: 3.3.5.9.7, 3.3.5.9.12) on 2.1
  and 3.1.1, data and lock intact, a replayed LOCK (same LockSequence)
  answered as done, not applied twice (3.3.5.14); on 2.1 only a resilient
  open has that replay detection.
- After its timeout it is gone: the lock goes, DHnC answers
  OBJECT_NAME_NOT_FOUND.  Another user gets ACCESS_DENIED, a plain open
  is closed with its connection.
- A batch oplock break the disconnected open cannot answer ends at once
  (3.3.4.6 keeps a resilient open; nobody can acknowledge): the other
  client's CREATE goes on without waiting out the break timeout, and the
  open is still there to reclaim.
- With two workers, the reclaim through the other worker (the open is
  handed over with its lock and LockSequenceArray).

The tests that need resilient handles are skipped against Samba
(SMBD=/usr/sbin/smbd), whose answers the first class checks.
"""

import os
import struct
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import rawsmb as r  # noqa: E402

USER, PASSWORD = h.TEST_USER, h.TEST_PASSWORD
USER2, PASSWORD2 = "smbdtest2", "Test-Pass-2"

FSCTL_LMR_REQUEST_RESILIENCY = 0x001401D4
STATUS_INVALID_DEVICE_REQUEST = 0xC0000010
LOCK_EXCLUSIVE, LOCK_UNLOCK, LOCK_FAIL_IMMEDIATELY = 0x2, 0x4, 0x10
XLOCK = LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY
DIALECT_21, DIALECT_311 = 0x0210, 0x0311


def resiliency(timeout_ms, reserved=0):
    """NETWORK_RESILIENCY_REQUEST (2.2.31.3)."""
    return struct.pack("<II", timeout_ms, reserved)


def seq(index, number):
    """LockSequence: LockSequenceIndex above, LockSequenceNumber below."""
    return index << 4 | number


class pinned:
    """Run the block on one CPU (a loopback connection made there is
    steered to the worker pinned on it)."""

    def __init__(self, cpu):
        self.cpu = cpu

    def __enter__(self):
        self.saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {self.cpu})

    def __exit__(self, *exc):
        os.sched_setaffinity(0, self.saved)


class _Base(h.SmbdTestCase):
    global_options = {"kernel oplocks": "no"}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test users")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.create_user(USER2, PASSWORD2)

    def logon(self, dialect=DIALECT_311, user=USER, password=PASSWORD,
              **kw):
        """A connection with a session and a tree: (conn, session, tid)."""
        c = r.Conn(self.smbd.port, dialect=dialect, **kw)
        self.addCleanup(c.close)
        s = c.logon(user, password)
        return c, s, c.tree_connect(s.id)

    def mkfile(self, name, data=b"resilient data"):
        path = os.path.join(self.smbd.share, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o666)

    def ask(self, c, s, tid, fid, data):
        """The status of FSCTL_LMR_REQUEST_RESILIENCY with input data."""
        rep = c.call(r.IOCTL, c.ioctl_body(fid, FSCTL_LMR_REQUEST_RESILIENCY,
                                           data), sid=s.id, tid=tid)
        return rep


class ResiliencyRequest(_Base):
    """3.3.5.15.9's answers, ours and Samba's."""

    def check(self, dialect, data, want):
        name = "req_%x.txt" % dialect
        self.mkfile(name)
        c, s, tid = self.logon(dialect)
        fid, _ = c.create(s.id, tid, name)
        rep = self.ask(c, s, tid, fid, data)
        if h.is_samba():
            # Samba 4.17 has no resilient handles
            want = STATUS_INVALID_DEVICE_REQUEST
        self.assertEqual(rep.status, want, "dialect %x, input %s: 0x%08x" %
                         (dialect, data.hex(), rep.status))
        if rep.status == 0:
            # 2.2.32: CtlCode, the FileId, no input or output
            code, rfid = struct.unpack_from("<I16s", rep.body, 4)
            in_count, = struct.unpack_from("<I", rep.body, 28)
            out_count, = struct.unpack_from("<I", rep.body, 36)
            self.assertEqual((code, rfid, in_count, out_count),
                             (FSCTL_LMR_REQUEST_RESILIENCY, fid, 0, 0))
        c.close_file(s.id, tid, fid)

    def test_granted(self):
        for d in (DIALECT_21, DIALECT_311):
            self.check(d, resiliency(1000), r.STATUS_SUCCESS)
            # 0: the server picks the timeout
            self.check(d, resiliency(0), r.STATUS_SUCCESS)
            # the maximum, and more in milliseconds but not in seconds
            self.check(d, resiliency(300000), r.STATUS_SUCCESS)
            self.check(d, resiliency(300999, 0xffffffff), r.STATUS_SUCCESS)

    def test_invalid_input(self):
        for d in (DIALECT_21, DIALECT_311):
            self.check(d, resiliency(301000), r.STATUS_INVALID_PARAMETER)
            self.check(d, resiliency(0xffffffff), r.STATUS_INVALID_PARAMETER)
            self.check(d, struct.pack("<I", 1000),
                       r.STATUS_INVALID_PARAMETER)
            self.check(d, b"", r.STATUS_INVALID_PARAMETER)

    def test_smb2_0_2(self):
        self.check(0x0202, resiliency(1000), STATUS_INVALID_DEVICE_REQUEST)

    def test_directory(self):
        path = os.path.join(self.smbd.share, "adir")
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o777)
        c, s, tid = self.logon()
        fid, _ = c.create(s.id, tid, "adir", options=r.FILE_DIRECTORY_FILE)
        rep = self.ask(c, s, tid, fid, resiliency(1000))
        want = STATUS_INVALID_DEVICE_REQUEST if h.is_samba() else \
            r.STATUS_NOT_SUPPORTED
        self.assertEqual(rep.status, want, "0x%08x" % rep.status)

    def test_closed_fid(self):
        c, s, tid = self.logon()
        rep = self.ask(c, s, tid, b"\x11" * 16, resiliency(1000))
        self.assertEqual(rep.status, r.STATUS_FILE_CLOSED,
                         "0x%08x" % rep.status)


class _Resilient(_Base):
    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba 4.17 has no resilient handles "
                                    "(INVALID_DEVICE_REQUEST)")
        super().setUpClass()

    def resilient_open(self, name, timeout_ms, dialect=DIALECT_311,
                       oplock=r.OPLOCK_NONE, lock=True, contexts=b""):
        """A connection whose open of name is resilient and holds an
        exclusive lock on bytes 0-9 taken with LockSequence (1, 1):
        (conn, session, tid, fid)."""
        self.mkfile(name)
        c, s, tid = self.logon(dialect)
        fid, rep = c.create(s.id, tid, name, oplock=oplock,
                            contexts=contexts)
        self.assertEqual(rep.body[2], oplock)
        rep = self.ask(c, s, tid, fid, resiliency(timeout_ms))
        self.assertEqual(rep.status, 0, "resiliency: 0x%08x" % rep.status)
        if lock:
            rep = c.call(r.LOCK, c.lock_body(fid, 0, 10, XLOCK, seq(1, 1)),
                         sid=s.id, tid=tid)
            self.assertEqual(rep.status, 0, "lock: 0x%08x" % rep.status)
        return c, s, tid, fid

    def other_lock(self, name):
        """The status of another client's exclusive lock on bytes 0-9."""
        c, s, tid = self.logon()
        fid, _ = c.create(s.id, tid, name)
        rep = c.call(r.LOCK, c.lock_body(fid, 0, 10, XLOCK), sid=s.id,
                     tid=tid)
        c.close_file(s.id, tid, fid)
        c.close()
        return rep.status

    def reclaim(self, name, fid, dialect=DIALECT_311, user=USER,
                password=PASSWORD, ctx=None, **kw):
        """A new connection's CREATE with DHnC (or ctx) for fid:
        (conn, session, tid, reply)."""
        c, s, tid = self.logon(dialect, user, password, **kw)
        body = c.create_body(name, contexts=r.create_contexts(
            [ctx or r.dhnc(fid)]))
        return c, s, tid, c.call(r.CREATE, body, sid=s.id, tid=tid)

    def check_reclaimed(self, c, s, tid, rep, fid, name):
        """rep gave fid's open back with its data and its lock; returns
        the FileId it has now (FileId.Volatile is the new worker's when
        the reclaim came through another one)."""
        self.assertEqual(rep.status, 0, "reclaim: 0x%08x" % rep.status)
        self.assertEqual(rep.body[64:72], fid[:8], "FileId.Persistent")
        fid = rep.body[64:80]
        self.assertEqual(c.read(s.id, tid, fid, 100), b"resilient data")
        # a replay of the LOCK that took the range: done, not redone (a
        # second exclusive lock of the same open would not be granted)
        rep = c.call(r.LOCK, c.lock_body(fid, 0, 10, XLOCK, seq(1, 1)),
                     sid=s.id, tid=tid)
        self.assertEqual(rep.status, 0, "replayed lock: 0x%08x" % rep.status)
        rep = c.call(r.LOCK, c.lock_body(fid, 0, 10, XLOCK, seq(1, 2)),
                     sid=s.id, tid=tid)
        self.assertEqual(rep.status, r.STATUS_LOCK_NOT_GRANTED,
                         "the range is still locked: 0x%08x" % rep.status)
        self.assertEqual(self.other_lock(name), r.STATUS_LOCK_NOT_GRANTED)
        rep = c.call(r.LOCK, c.lock_body(fid, 0, 10, LOCK_UNLOCK, seq(2, 1)),
                     sid=s.id, tid=tid)
        self.assertEqual(rep.status, 0, "unlock: 0x%08x" % rep.status)
        self.assertEqual(self.other_lock(name), 0)
        return fid


class ResilientReclaim(_Resilient):

    def reclaim_after_drop(self, dialect, ctx=None, create_ctx=b""):
        name = "reclaim_%x_%s.txt" % (dialect, "dhnc" if ctx is None
                                      else "dh2c")
        a, s, tid, fid = self.resilient_open(name, 20000, dialect,
                                             contexts=create_ctx)
        a.close()
        # the open and its lock stay while nobody has them
        self.assertEqual(self.other_lock(name), r.STATUS_LOCK_NOT_GRANTED)
        c, cs, ctid, rep = self.reclaim(name, fid, dialect,
                                        ctx=ctx and ctx(fid))
        fid = self.check_reclaimed(c, cs, ctid, rep, fid, name)
        self.assertEqual(c.close_file(cs.id, ctid, fid).status, 0)

    def test_reclaim_smb2_1(self):
        self.reclaim_after_drop(DIALECT_21)

    def test_reclaim_smb3_1_1(self):
        self.reclaim_after_drop(DIALECT_311)

    def test_reclaim_dh2c(self):
        """A resilient open made with DH2Q (durable v2 without a batch
        oplock: not durable) comes back with DH2C and its CreateGuid."""
        guid = uuid.uuid4().bytes
        self.reclaim_after_drop(
            DIALECT_311, ctx=lambda fid: r.dh2c(fid, guid),
            create_ctx=r.create_contexts([r.dh2q(guid, 0)]))

    def test_expiry(self):
        name = "expiry.txt"
        a, s, tid, fid = self.resilient_open(name, 1000)
        a.close()
        start = time.monotonic()
        self.assertEqual(self.other_lock(name), r.STATUS_LOCK_NOT_GRANTED)
        while self.other_lock(name) != 0:
            self.assertLess(time.monotonic() - start, 10,
                            "the resilient open outlived its timeout")
            time.sleep(0.1)
        # not before its time (a coarse clock, a loaded machine)
        self.assertGreater(time.monotonic() - start, 0.8)
        c, cs, ctid, rep = self.reclaim(name, fid)
        self.assertEqual(rep.status, r.STATUS_OBJECT_NAME_NOT_FOUND,
                         "reclaim after the timeout: 0x%08x" % rep.status)

    def test_plain_open_closes(self):
        """Without resiliency the open goes with its connection."""
        name = "plain.txt"
        self.mkfile(name)
        a, s, tid = self.logon()
        fid, _ = a.create(s.id, tid, name)
        rep = a.call(r.LOCK, a.lock_body(fid, 0, 10, XLOCK), sid=s.id,
                     tid=tid)
        self.assertEqual(rep.status, 0)
        a.close()
        for _ in range(50):
            if self.other_lock(name) == 0:
                break
            time.sleep(0.1)
        c, cs, ctid, rep = self.reclaim(name, fid)
        self.assertEqual(rep.status, r.STATUS_OBJECT_NAME_NOT_FOUND,
                         "0x%08x" % rep.status)

    def test_other_user(self):
        name = "other_user.txt"
        a, s, tid, fid = self.resilient_open(name, 20000)
        a.close()
        self.assertEqual(self.other_lock(name), r.STATUS_LOCK_NOT_GRANTED)
        c, cs, ctid, rep = self.reclaim(name, fid, user=USER2,
                                        password=PASSWORD2)
        self.assertEqual(rep.status, r.STATUS_ACCESS_DENIED,
                         "0x%08x" % rep.status)
        # still there for its owner
        c, cs, ctid, rep = self.reclaim(name, fid)
        self.check_reclaimed(c, cs, ctid, rep, fid, name)

    def test_lock_replay_smb2_1(self):
        """3.3.5.14 on 2.1: a replayed LOCK is recognised on a resilient
        open only (smbtorture smb2.lock.replay_broken_windows)."""
        name = "replay21.txt"
        self.mkfile(name)
        c, s, tid = self.logon(DIALECT_21)
        fid, _ = c.create(s.id, tid, name)
        body = c.lock_body(fid, 0, 10, XLOCK, seq(1, 1))
        self.assertEqual(c.call(r.LOCK, body, sid=s.id, tid=tid).status, 0)
        self.assertEqual(c.call(r.LOCK, body, sid=s.id, tid=tid).status,
                         r.STATUS_LOCK_NOT_GRANTED)
        unlock = c.lock_body(fid, 0, 10, LOCK_UNLOCK, seq(1, 2))
        self.assertEqual(c.call(r.LOCK, unlock, sid=s.id, tid=tid).status, 0)
        self.assertEqual(self.ask(c, s, tid, fid, resiliency(1000)).status,
                         0)
        body = c.lock_body(fid, 0, 10, XLOCK, seq(2, 1))
        self.assertEqual(c.call(r.LOCK, body, sid=s.id, tid=tid).status, 0)
        self.assertEqual(c.call(r.LOCK, body, sid=s.id, tid=tid).status, 0)
        # index 0 and 65 are not in the array: no replay detection
        for s_ in (seq(0, 1), seq(65, 1)):
            body = c.lock_body(fid, 20, 10, XLOCK, s_)
            self.assertEqual(c.call(r.LOCK, body, sid=s.id,
                                    tid=tid).status, 0)
            self.assertEqual(c.call(r.LOCK, body, sid=s.id,
                                    tid=tid).status,
                             r.STATUS_LOCK_NOT_GRANTED)
            body = c.lock_body(fid, 20, 10, LOCK_UNLOCK, s_)
            self.assertEqual(c.call(r.LOCK, body, sid=s.id,
                                    tid=tid).status, 0)

    def test_break_while_disconnected(self):
        """The disconnected open's batch oplock must break for another
        client's open: nobody can answer, so the break ends at once and
        the open stays."""
        name = "break.txt"
        a, s, tid, fid = self.resilient_open(name, 20000,
                                             oplock=r.OPLOCK_BATCH)
        a.close()
        b, bs, btid = self.logon()
        start = time.monotonic()
        bfid, rep = b.create(bs.id, btid, name, oplock=r.OPLOCK_BATCH)
        took = time.monotonic() - start
        self.assertLess(took, 5, "the CREATE waited %.1f s for a break "
                        "nobody can answer" % took)
        self.assertNotEqual(rep.body[2], r.OPLOCK_BATCH)
        b.close_file(bs.id, btid, bfid)
        c, cs, ctid, rep = self.reclaim(name, fid)
        self.check_reclaimed(c, cs, ctid, rep, fid, name)
        # what the reclaimed open holds now: no batch oplock any more
        self.assertNotEqual(rep.body[2], r.OPLOCK_BATCH)


class ResilientWorkers(_Resilient):
    """The reclaim arrives on the other worker: the open is handed over
    with its fd, lock and LockSequenceArray."""
    workers = 2

    @classmethod
    def setUpClass(cls):
        if len(os.sched_getaffinity(0)) < 2:
            raise unittest.SkipTest("needs 2 CPUs for 2 workers")
        super().setUpClass()

    def test_reclaim_on_other_worker(self):
        cpus = sorted(os.sched_getaffinity(0))[:2]
        for dialect in (DIALECT_21, DIALECT_311):
            name = "workers_%x.txt" % dialect
            with pinned(cpus[0]):
                a, s, tid, fid = self.resilient_open(name, 20000, dialect)
            a.close()
            self.assertEqual(self.other_lock(name),
                             r.STATUS_LOCK_NOT_GRANTED)
            with pinned(cpus[1]):
                c, cs, ctid, rep = self.reclaim(name, fid, dialect)
            fid = self.check_reclaimed(c, cs, ctid, rep, fid, name)
            self.assertEqual(c.close_file(cs.id, ctid, fid).status, 0)


if __name__ == "__main__":
    h.main()
