#!/usr/bin/python3
"""Faults (issue 14): injected file-system errors (vfs/fault.h), and
kill -9 of one worker in the middle of a write + lock load.

Two workers; client A's connection is steered to the victim worker (its
thread pinned to that worker's CPU when it connects), client B's to the
other.  A holds a byte-range lock on a.dat and writes 64 KiB chunks,
each followed by FLUSH (acknowledged = on disk, MS-SMB2 3.3.5.11); B
writes b.dat the same way.  The victim is killed with SIGKILL while both
run.  Then:

- every chunk A saw acknowledged is in a.dat, byte for byte;
- B never noticed: its writes go on without an error on the same
  connection;
- A's lock, held by the dead worker, is gone within a second: B's
  FAIL_IMMEDIATELY lock on the same range is granted.
"""

import os
import re
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
from test_lock import (lock_send, lock_recv, EXCLUSIVE,  # noqa: E402
                       FAIL_IMMEDIATELY, STATUS_LOCK_NOT_GRANTED)
from test_workers import wait_workers  # noqa: E402

CHUNK = 64 * 1024
CONN = (r"worker (\d+) \(cpu (\d+)\): connection from "
        r"127\.0\.0\.1:%d,")


def chunk(tag, i):
    """Chunk i of a writer: recognisable bytes."""
    head = ("%s-%06d|" % (tag, i)).encode()
    return (head * (CHUNK // len(head) + 1))[:CHUNK]


class Faults:
    workers = 2

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba's smbd has no workers")
        if len(os.sched_getaffinity(0)) < 2:
            raise unittest.SkipTest("needs 2 CPUs")
        super().setUpClass()
        wait_workers(cls.smbd)

    def logon_on(self, cpu):
        """An impacket logon whose connection lands on cpu's worker."""
        saved = os.sched_getaffinity(0)
        try:
            os.sched_setaffinity(0, {cpu})
            conn = self.impacket_logon()
        finally:
            os.sched_setaffinity(0, saved)
        port = conn.getSMBServer()._NetBIOSSession.get_socket() \
            .getsockname()[1]
        m = self.smbd.wait_log(CONN % port, 5.0)
        self.assertTrue(m, "no connection line")
        return conn, int(m[-1].group(1))

    def test_kill9_during_write_lock_load(self):
        self.allow_worker_death = True
        table = wait_workers(self.smbd)
        (va, (vpid, vcpu)), (ob, (opid, ocpu)) = sorted(table.items())
        a, wa = self.logon_on(vcpu)
        b, wb = self.logon_on(ocpu)
        if wa == wb:
            self.skipTest("connections were not steered apart")
        if wa != va:
            va, vpid, ob = wa, table[wa][0], wb
        ta = a.connectTree("share")
        fa = a.createFile(ta, "a.dat")
        smb_a = a.getSMBServer()
        mid = lock_send(smb_a, ta, fa, [(0, 10, EXCLUSIVE | FAIL_IMMEDIATELY)])
        self.assertEqual(lock_recv(smb_a, mid), 0)
        tb = b.connectTree("share")
        fb = b.createFile(tb, "b.dat")
        fab = b.createFile(tb, "a.dat")
        smb_b = b.getSMBServer()
        mid = lock_send(smb_b, tb, fab, [(0, 10,
                                          EXCLUSIVE | FAIL_IMMEDIATELY)])
        self.assertEqual(lock_recv(smb_b, mid), STATUS_LOCK_NOT_GRANTED)

        acked = []          # A's chunks acknowledged by FLUSH
        stop = threading.Event()

        def writer_a():
            i = 0
            try:
                while not stop.is_set():
                    a.writeFile(ta, fa, chunk("A", i), i * CHUNK)
                    smb_a.flush(ta, fa)
                    acked.append(i)
                    i += 1
            except Exception:
                pass        # its worker died under it

        t = threading.Thread(target=writer_a, daemon=True)
        t.start()
        b_errors = []
        nb = 0
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            b.writeFile(tb, fb, chunk("B", nb), nb * CHUNK)
            smb_b.flush(tb, fb)
            nb += 1
        os.kill(vpid, signal.SIGKILL)
        killed = time.monotonic()
        # B goes on on its own worker
        for _ in range(20):
            try:
                b.writeFile(tb, fb, chunk("B", nb), nb * CHUNK)
                smb_b.flush(tb, fb)
                nb += 1
            except Exception as e:
                b_errors.append(repr(e))
                break
        self.assertEqual(b_errors, [], "B's connection was disturbed")
        # the dead worker's lock goes within a second
        granted = None
        while time.monotonic() - killed < 3.0:
            mid = lock_send(smb_b, tb, fab, [(0, 10, EXCLUSIVE |
                                              FAIL_IMMEDIATELY)])
            st = lock_recv(smb_b, mid)
            if st == 0:
                granted = time.monotonic() - killed
                break
            time.sleep(0.05)
        stop.set()
        t.join(10)
        self.assertIsNotNone(granted, "the dead worker's lock stayed")
        self.assertLess(granted, 1.0, "lock freed only after %.2f s" %
                        granted)
        # every acknowledged chunk of A is on disk
        self.assertGreater(len(acked), 0, "A wrote nothing before the kill")
        with open(os.path.join(self.smbd.share, "a.dat"), "rb") as f:
            data = f.read()
        for i in acked:
            self.assertEqual(data[i * CHUNK:(i + 1) * CHUNK], chunk("A", i),
                             "acknowledged chunk %d lost" % i)
        with open(os.path.join(self.smbd.share, "b.dat"), "rb") as f:
            bdata = f.read()
        for i in range(nb):
            self.assertEqual(bdata[i * CHUNK:(i + 1) * CHUNK],
                             chunk("B", i), "B's chunk %d lost" % i)
        b.logoff()
        print("acknowledged A chunks %d, B chunks %d, lock free after "
              "%.3f s" % (len(acked), nb, granted))


class FaultsCase(Faults, h.TestUser, h.SmbdTestCase):
    pass


STATUS_DISK_FULL = 0xC000007F
STATUS_IO_DEVICE_ERROR = 0xC0000185
STATUS_TOO_MANY_OPENED_FILES = 0xC000011F
STATUS_ACCESS_DENIED = 0xC0000022

# vfs/fault.h: OP:ERRNO:MATCH[:COUNT], the test's own file names
FAULTS = ",".join([
    "write:ENOSPC:full.dat",
    "fsync:EIO:badsync.dat",
    "read:EIO:badread.dat",
    "open:EMFILE:nofd.dat",
    "write:EINTR:intr.dat:3",
    "unlink:EACCES:keep.dat",
    "mkdir:ENOSPC:nodir",
    "rename:EIO:norename.dat",
])


def err_code(e):
    get = getattr(e, "get_error_code", None) or getattr(e, "getErrorCode")
    return get()


class Injection:
    """Chosen file-system calls fail (SMBD_FAULT_INJECT, one worker): the
    client gets the mapped NTSTATUS, the worker lives and keeps no fd."""
    workers = 1

    @classmethod
    def new_server(cls, global_options=None, share_options=None, **kw):
        srv = super().new_server(global_options, share_options, **kw)
        srv.env = {"SMBD_FAULT_INJECT": FAULTS}
        return srv

    def worker_pid(self):
        kids = h.child_pids(self.smbd.pid)
        self.assertEqual(len(kids), 1)
        return kids[0]

    def fds(self, pid):
        return len(os.listdir("/proc/%d/fd" % pid))

    def fd_targets(self, pid):
        out = []
        for n in os.listdir("/proc/%d/fd" % pid):
            try:
                out.append(os.readlink("/proc/%d/fd/%s" % (pid, n)))
            except OSError:
                pass
        return sorted(out)

    def status_of(self, fn, *args):
        try:
            fn(*args)
        except Exception as e:
            return err_code(e)
        return 0

    def test_faults_map_and_leak_nothing(self):
        pid = self.worker_pid()
        # a first session warms up what the worker keeps (pool threads,
        # the locking DB): the baseline is taken after it
        c = self.impacket_logon()
        t = c.connectTree("share")
        f = c.createFile(t, "warm.dat")
        c.writeFile(t, f, b"x" * 10, 0)
        c.closeFile(t, f)
        c.close()
        time.sleep(0.3)
        base = self.fds(pid)
        before = self.fd_targets(pid)

        c = self.impacket_logon()
        t = c.connectTree("share")
        smb = c.getSMBServer()
        f = c.createFile(t, "full.dat")
        self.assertEqual(self.status_of(c.writeFile, t, f, b"x" * 4096, 0),
                         STATUS_DISK_FULL)
        c.closeFile(t, f)
        f = c.createFile(t, "badsync.dat")
        c.writeFile(t, f, b"y" * 100, 0)
        self.assertEqual(self.status_of(smb.flush, t, f),
                         STATUS_IO_DEVICE_ERROR)
        c.closeFile(t, f)
        with open(os.path.join(self.smbd.share, "badread.dat"), "wb") as w:
            w.write(b"z" * 8192)
        os.chmod(os.path.join(self.smbd.share, "badread.dat"), 0o666)
        f = c.openFile(t, "badread.dat")
        self.assertEqual(self.status_of(c.readFile, t, f, 0, 4096),
                         STATUS_IO_DEVICE_ERROR)
        c.closeFile(t, f)
        self.assertEqual(self.status_of(c.createFile, t, "nofd.dat"),
                         STATUS_TOO_MANY_OPENED_FILES)
        # EINTR is retried: the write succeeds whole
        f = c.createFile(t, "intr.dat")
        c.writeFile(t, f, b"i" * 5000, 0)
        c.closeFile(t, f)
        with open(os.path.join(self.smbd.share, "intr.dat"), "rb") as r:
            self.assertEqual(r.read(), b"i" * 5000)
        self.assertEqual(self.status_of(c.createDirectory, "share", "nodir"),
                         STATUS_DISK_FULL)
        f = c.createFile(t, "norename.dat")
        c.closeFile(t, f)
        self.assertEqual(self.status_of(c.rename, "share", "norename.dat",
                                        "renamed.dat"),
                         STATUS_IO_DEVICE_ERROR)
        # a delete that fails at close leaves the file, logged
        f = c.createFile(t, "keep.dat")
        c.closeFile(t, f)
        c.deleteFile("share", "keep.dat")
        self.assertTrue(os.path.exists(os.path.join(self.smbd.share,
                                                    "keep.dat")))
        c.close()
        # same worker, no fd left behind
        self.assertEqual(self.worker_pid(), pid, "the worker died")
        ok = h.wait_until(lambda: self.fds(pid) <= base, 5)
        after = self.fd_targets(pid)
        for t in before:
            if t in after:
                after.remove(t)
        self.assertTrue(ok, "fds: %d before, %d after; new: %s" %
                        (base, self.fds(pid), after))
        self.assertTrue(self.smbd.wait_log(r"fault injection armed", 1))


class InjectionCase(Injection, h.TestUser, h.SmbdTestCase):
    pass


if __name__ == "__main__":
    h.main()
