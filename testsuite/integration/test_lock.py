#!/usr/bin/python3
"""SMB2 LOCK through the shared locking database (locking/, smb2_lock.c).

What smbtorture's smb2.lock cannot show until the server sends interim
responses: a blocking lock (no FAIL_IMMEDIATELY) waits and is granted
once the holder unlocks, from another connection; closing the waiting
handle ends the wait with STATUS_RANGE_NOT_LOCKED; and locks hold across
worker processes (`smbd workers = 2`, connections on both workers), so a
lock taken through one worker stops a lock through the other.  Every
test runs with the server's default worker count and with two workers.

impacket's SMB3.lock() joins lock elements as text on Python 3, so LOCK
requests are built here from impacket's structures; recvSMB waits for
the final answer (no interim response is sent yet).
"""

import os
import re
import signal
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402
from impacket.smb3 import SessionError  # noqa: E402
from impacket import smb3structs as s3  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
NET_TIMEOUT = 20

SHARED = 0x01
EXCLUSIVE = 0x02
UNLOCK = 0x04
FAIL_IMMEDIATELY = 0x10

STATUS_LOCK_NOT_GRANTED = 0xC0000055
STATUS_RANGE_NOT_LOCKED = 0xC000007E
STATUS_INVALID_LOCK_RANGE = 0xC00001A1
STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_FILE_CLOSED = 0xC0000128

STARTED = re.compile(r"started worker (\d+) pid (\d+) on cpu (\d+)")
CONN_BY = r"worker %d \(cpu \d+\): connection from 127\.0\.0\.1:"


def err_code(e):
    """The NTSTATUS of impacket's smb3 SessionError."""
    get = getattr(e, "get_error_code", None) or getattr(e, "getErrorCode")
    return get()


def lock_send(smb, tid, fid, elements):
    """Send one LOCK request; elements are (offset, length, flags)."""
    req = s3.SMB2Lock()
    req["FileID"] = fid
    req["LockCount"] = len(elements)
    req["LockSequence"] = 0
    req["Locks"] = b"".join(struct.pack("<QQII", o, ln, f, 0)
                            for o, ln, f in elements)
    packet = smb.SMB_PACKET()
    packet["Command"] = s3.SMB2_LOCK
    packet["TreeID"] = tid
    packet["Data"] = req
    return smb.sendSMB(packet)


def lock_recv(smb, mid):
    """The status of the LOCK request mid (0 on success)."""
    try:
        ans = smb.recvSMB(mid)
    except SessionError as e:
        return err_code(e)
    return ans["Status"]


def lock(smb, tid, fid, elements):
    return lock_recv(smb, lock_send(smb, tid, fid, elements))


class LockTests:
    WORKERS = None

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(workers=cls.WORKERS)
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def tearDown(self):
        self.assertTrue(self.smbd.running(), self.smbd.log_tail())

    def connect(self):
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=NET_TIMEOUT,
                          preferredDialect=s3.SMB2_DIALECT_21)
        c.login(USER, PASSWORD)
        self.addCleanup(self._logoff, c)
        smb = c.getSMBServer()
        return c, smb, c.connectTree("share")

    @staticmethod
    def _logoff(c):
        try:
            c.close()
        except Exception:
            pass

    def open(self, smb, tid, name):
        fid = smb.create(tid, name,
                         s3.FILE_READ_DATA | s3.FILE_WRITE_DATA |
                         s3.FILE_READ_ATTRIBUTES | s3.SYNCHRONIZE,
                         s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE |
                         s3.FILE_SHARE_DELETE,
                         s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN_IF, 0)
        return fid

    def connect_on_worker(self, n):
        """A connection served by worker n: connect pinned to its CPU
        (loopback steering, test_workers.py), and see the worker log the
        connection."""
        table = {}
        for m in STARTED.finditer(self.smbd.log_text()):
            table[int(m.group(1))] = int(m.group(3))
        if n not in table:
            self.skipTest("worker %d not started" % n)
        saved = os.sched_getaffinity(0)
        try:
            os.sched_setaffinity(0, {table[n]})
            before = self.conn_count(n)
            conn = self.connect()
        finally:
            os.sched_setaffinity(0, saved)
        self.assertTrue(h.wait_until(lambda: self.conn_count(n) > before,
                                     5.0), "no connection on worker %d" % n)
        return conn

    def two_conns(self):
        """Two connections; with two workers, one on each."""
        if self.WORKERS != 2:
            return [self.connect(), self.connect()]
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 CPUs")
        h.wait_until(lambda: len(STARTED.findall(self.smbd.log_text())) >= 2,
                     10.0)
        return [self.connect_on_worker(0), self.connect_on_worker(1)]

    def conn_count(self, n):
        return len(re.findall(CONN_BY % n, self.smbd.log_text()))

    # -- tests ---------------------------------------------------------
    def test_basic(self):
        c, smb, tid = self.connect()
        f1 = self.open(smb, tid, "basic.dat")
        f2 = self.open(smb, tid, "basic.dat")
        x = EXCLUSIVE | FAIL_IMMEDIATELY
        self.assertEqual(lock(smb, tid, f1, [(0, 10, x)]), 0)
        self.assertEqual(lock(smb, tid, f2, [(5, 1, x)]),
                         STATUS_LOCK_NOT_GRANTED)
        self.assertEqual(lock(smb, tid, f2, [(10, 1, x)]), 0)
        self.assertEqual(lock(smb, tid, f2, [(10, 1, UNLOCK)]), 0)
        self.assertEqual(lock(smb, tid, f2, [(10, 1, UNLOCK)]),
                         STATUS_RANGE_NOT_LOCKED)
        self.assertEqual(lock(smb, tid, f1, [(2**64 - 1, 2, x)]),
                         STATUS_INVALID_LOCK_RANGE)
        self.assertEqual(lock(smb, tid, f1, [(20, 1, x), (30, 1, UNLOCK)]),
                         STATUS_INVALID_PARAMETER)
        self.assertEqual(lock(smb, tid, f1, [(0, 10, UNLOCK)]), 0)

    def test_blocking_lock_granted_after_unlock(self):
        (c1, smb1, tid1), (c2, smb2, tid2) = self.two_conns()
        f1 = self.open(smb1, tid1, "wait.dat")
        f2 = self.open(smb2, tid2, "wait.dat")
        self.assertEqual(lock(smb1, tid1, f1, [(100, 50, EXCLUSIVE)]), 0)
        mid = lock_send(smb2, tid2, f2, [(120, 10, EXCLUSIVE)])
        result = []
        t = threading.Thread(target=lambda: result.append(
            lock_recv(smb2, mid)))
        t.start()
        time.sleep(0.5)
        self.assertTrue(t.is_alive(), "the blocking lock did not wait")
        self.assertEqual(lock(smb1, tid1, f1, [(100, 50, UNLOCK)]), 0)
        t.join(NET_TIMEOUT)
        self.assertFalse(t.is_alive())
        self.assertEqual(result, [0])
        # Now f2 holds it.
        self.assertEqual(lock(smb1, tid1, f1,
                              [(125, 1, SHARED | FAIL_IMMEDIATELY)]),
                         STATUS_LOCK_NOT_GRANTED)
        self.assertEqual(lock(smb2, tid2, f2, [(120, 10, UNLOCK)]), 0)

    def test_blocking_lock_handle_closed(self):
        c1, smb1, tid1 = self.connect()
        f1 = self.open(smb1, tid1, "closed.dat")
        f2 = self.open(smb1, tid1, "closed.dat")
        self.assertEqual(lock(smb1, tid1, f1, [(0, 1, EXCLUSIVE)]), 0)
        mid = lock_send(smb1, tid1, f2, [(0, 1, SHARED)])
        time.sleep(0.3)
        # smb2.lock.cancel: closing the waiting handle answers the lock.
        close = s3.SMB2Close()
        close["FileID"] = f2
        packet = smb1.SMB_PACKET()
        packet["Command"] = s3.SMB2_CLOSE
        packet["TreeID"] = tid1
        packet["Data"] = close
        cmid = smb1.sendSMB(packet)
        self.assertEqual(smb1.recvSMB(cmid)["Status"], 0)
        self.assertEqual(lock_recv(smb1, mid), STATUS_RANGE_NOT_LOCKED)
        self.assertEqual(lock(smb1, tid1, f2, [(0, 1, UNLOCK)]),
                         STATUS_FILE_CLOSED)

    def test_across_connections(self):
        """A lock taken through one connection (one worker) holds
        through the other."""
        conns = self.two_conns()
        (_, smb1, tid1), (_, smb2, tid2) = conns
        f1 = self.open(smb1, tid1, "cross.dat")
        f2 = self.open(smb2, tid2, "cross.dat")
        x = EXCLUSIVE | FAIL_IMMEDIATELY
        self.assertEqual(lock(smb1, tid1, f1, [(0, 4096, x)]), 0)
        self.assertEqual(lock(smb2, tid2, f2, [(4095, 1, x)]),
                         STATUS_LOCK_NOT_GRANTED)
        self.assertEqual(lock(smb2, tid2, f2,
                              [(4096, 1, x), (4000, 1, x)]),
                         STATUS_LOCK_NOT_GRANTED)
        # All or nothing: 4096 was not kept.
        self.assertEqual(lock(smb1, tid1, f1, [(4096, 1, x)]), 0)
        self.assertEqual(lock(smb1, tid1, f1, [(0, 4096, UNLOCK),
                                               (4096, 1, UNLOCK)]), 0)
        self.assertEqual(lock(smb2, tid2, f2, [(4095, 1, x)]), 0)


    def test_killed_worker_entries_dropped(self):
        """A worker killed while its open holds a lock and a share mode:
        the master drops its entries (locking_cleanup_pid), so the other
        worker's client gets both at once."""
        if self.WORKERS != 2:
            self.skipTest("needs two workers")
        (c1, smb1, tid1), (c2, smb2, tid2) = self.two_conns()
        f1 = self.open(smb1, tid1, "killed.dat")
        x = EXCLUSIVE | FAIL_IMMEDIATELY
        self.assertEqual(lock(smb1, tid1, f1, [(0, 100, x)]), 0)
        excl = smb1.create(tid1, "killed2.dat",
                           s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                           0, s3.FILE_NON_DIRECTORY_FILE,
                           s3.FILE_OPEN_IF, 0)
        self.assertTrue(excl)
        f2 = self.open(smb2, tid2, "killed.dat")
        self.assertEqual(lock(smb2, tid2, f2, [(50, 1, x)]),
                         STATUS_LOCK_NOT_GRANTED)
        with self.assertRaises(SessionError) as e:
            self.open(smb2, tid2, "killed2.dat")
        self.assertEqual(err_code(e.exception), 0xC0000043)
        pid = {int(m.group(1)): int(m.group(2)) for m in
               STARTED.finditer(self.smbd.log_text())}[0]
        os.kill(pid, signal.SIGKILL)
        self.assertTrue(h.wait_until(
            lambda: lock(smb2, tid2, f2, [(50, 1, x)]) == 0, 5.0),
            self.smbd.log_tail())
        self.assertTrue(self.open(smb2, tid2, "killed2.dat"))
        # The master restarts the worker.
        self.assertTrue(h.wait_until(lambda: len(STARTED.findall(
            self.smbd.log_text())) >= 3, 5.0))


    def test_kill_under_lock_load(self):
        """Issue 6: a worker SIGKILLed in the middle of a lock-heavy load.
        The files its client held (a share-none open, a locked range)
        can be opened and locked again at once, and the client of the
        other worker, locking and unlocking all along, never notices."""
        if self.WORKERS != 2:
            self.skipTest("needs two workers")
        (c1, smb1, tid1), (c2, smb2, tid2) = self.two_conns()
        # The checks after the kill go through a connection of their own
        # on the surviving worker: impacket connections are not shared
        # between threads (load_b uses smb2).
        _, smb3c, tid3c = self.connect_on_worker(1)
        x = EXCLUSIVE | FAIL_IMMEDIATELY
        held = smb1.create(tid1, "held.dat",
                           s3.FILE_READ_DATA | s3.FILE_WRITE_DATA, 0,
                           s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN_IF, 0)
        self.assertTrue(held)
        hl = self.open(smb1, tid1, "held-lock.dat")
        self.assertEqual(lock(smb1, tid1, hl, [(0, 4096, x)]), 0)
        fa = self.open(smb1, tid1, "load-a.dat")
        fb = self.open(smb2, tid2, "load-b.dat")
        stop = threading.Event()
        killed = threading.Event()
        b_errors, b_after = [], [0]

        def load_a():
            i = 0
            try:
                while not stop.is_set():
                    off = (i % 64) * 10
                    lock(smb1, tid1, fa, [(off, 10, x)])
                    lock(smb1, tid1, fa, [(off, 10, UNLOCK)])
                    i += 1
            except Exception:
                pass  # its worker is gone: expected

        def load_b():
            i = 0
            while not stop.is_set():
                off = (i % 64) * 10
                for el in ([(off, 10, x)], [(off, 10, UNLOCK)]):
                    st = lock(smb2, tid2, fb, el)
                    if st != 0:
                        b_errors.append(st)
                if killed.is_set():
                    b_after[0] += 1
                i += 1

        ta = threading.Thread(target=load_a)
        tb = threading.Thread(target=load_b)
        ta.start()
        tb.start()
        time.sleep(0.5)
        pid = {int(m.group(1)): int(m.group(2)) for m in
               STARTED.finditer(self.smbd.log_text())}[0]
        os.kill(pid, signal.SIGKILL)
        killed.set()
        # What the dead worker's client held is free at once.
        self.assertTrue(h.wait_until(
            lambda: lock(smb3c, tid3c, self.open(smb3c, tid3c,
                                                 "held-lock.dat"),
                         [(0, 4096, x)]) == 0, 5.0),
            self.smbd.log_tail())
        again = smb3c.create(tid3c, "held.dat",
                            s3.FILE_READ_DATA | s3.FILE_WRITE_DATA, 0,
                            s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN, 0)
        self.assertTrue(again)
        time.sleep(1.0)
        stop.set()
        ta.join(NET_TIMEOUT)
        tb.join(NET_TIMEOUT)
        self.assertFalse(tb.is_alive())
        self.assertEqual(b_errors, [])
        self.assertGreater(b_after[0], 10,
                           "the other worker's client stalled")
        # And a new connection works (the master restarted the worker).
        self.assertTrue(h.wait_until(lambda: len(STARTED.findall(
            self.smbd.log_text())) >= 3, 5.0))
        c3, smb3, tid3 = self.connect()
        f3 = self.open(smb3, tid3, "load-a.dat")
        self.assertEqual(lock(smb3, tid3, f3, [(0, 640, x)]), 0)


class LockDefault(LockTests, unittest.TestCase):
    WORKERS = None


class LockTwoWorkers(LockTests, unittest.TestCase):
    WORKERS = 2


if __name__ == "__main__":
    h.main()
