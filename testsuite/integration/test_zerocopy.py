#!/usr/bin/python3
"""Zero-copy READ replies (`use sendfile`, smbd/smb2/smb2_read.c): files of
sizes around the 16 KiB threshold and page boundaries come back intact
(SHA-256) through smbclient `get` and impacket, on sessions that neither
sign nor encrypt (the data goes with sendfile), and with signing required
and encryption required (the buffered fallback); partial reads, reads at
and past the end of file, a file dropped from the page cache (the pool
reads it, later reads go zero-copy; a range that is not cached never goes
zero-copy) and `use sendfile = no`.

The server logs each zero-copy READ at level 10; the tests count those
lines to prove which path ran (not against Samba, which logs otherwise).
Every test runs once per event-loop backend (io_uring, epoll).

A kernel without cachestat(2) (before 6.5: Debian 12's 6.1) answers
ENOSYS; the server then asks mincore(2) whether a range is cached, and
says so once per process at level 1.  The NoCachestat classes make any
kernel look so (the nocachestat.so LD_PRELOAD shim, built by make check)
and assert zero-copy (of reads of 128 KiB or more: below, the probe
costs more than it saves) and that line; the others assert the line only
on a kernel that lacks cachestat (probed here).
"""

import ctypes
import errno

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
# the test user and impacket's logon, as test_impacket.py does them
from test_impacket import USER, PASSWORD, _Base  # noqa: E402

from impacket import smb3  # noqa: E402

SIZES = (0, 1, 16383, 16384, 65537, (1 << 20) + 3, 8 << 20)
ZC_LINE = "zero-copy READ of"
STATUS_END_OF_FILE = 0xC0000011
NR_CACHESTAT = 451     # the same on every generic syscall table
FALLBACK_RE = re.compile(r"\[[^]]*, 1\] worker \d+\[(\d+)\] \S+: no "
                         r"cachestat\(2\) on this kernel")


def kernel_has_cachestat():
    """Whether this kernel has cachestat(2): on fd -1 it answers EBADF,
    a kernel without it ENOSYS."""
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.syscall(ctypes.c_long(NR_CACHESTAT), ctypes.c_long(-1),
                     None, None, ctypes.c_long(0))
    return not (r == -1 and ctypes.get_errno() == errno.ENOSYS)


def shim_path():
    """The LD_PRELOAD shim that hides cachestat, beside the smbd under
    test (make check builds it)."""
    build = os.environ.get("BUILDDIR") or \
        os.path.dirname(os.path.dirname(h.smbd_binary()))
    p = os.path.join(build, "testsuite", "integration", "nocachestat.so")
    if os.path.exists(p):
        return p
    raise AssertionError("nocachestat.so not built (make check builds it)")


def sha(data):
    return hashlib.sha256(data).hexdigest()


class _ZeroCopy(_Base):
    # smbclient --client-protection, and whether READs must go zero-copy;
    # impacket's dialect: it encrypts 3.x sessions on its own whenever the
    # server can, so 2.1 is what it reads unsealed with
    protection = "off"
    zero_copy = True
    dialect = h.DIALECT_210
    no_cachestat = False    # hide cachestat(2) from the server (the shim)

    @classmethod
    def new_server(cls, **kw):
        kw.setdefault("debug", 10)  # the zero-copy log lines
        srv = super().new_server(**kw)
        if cls.no_cachestat:
            env = dict(srv.env or {}, LD_PRELOAD=shim_path())
            # An ASan build (CI's asan step) refuses to start with a
            # library preloaded ahead of its runtime; the shim holds
            # nothing ASan needs to see first.
            asan = os.environ.get("ASAN_OPTIONS")
            env["ASAN_OPTIONS"] = ((asan + ":") if asan else "") + \
                "verify_asan_link_order=0"
            srv.env = env
        return srv

    @classmethod
    def setUpClass(cls):
        if cls.no_cachestat and h.is_samba():
            raise unittest.SkipTest("our fallback for a kernel without "
                                    "cachestat(2)")
        super().setUpClass()
        cls.sums = {}
        for n in SIZES:
            data = os.urandom(n)
            with open(os.path.join(cls.smbd.share, "f%d" % n), "wb") as f:
                f.write(data)
            cls.sums[n] = sha(data)


    def zc_count(self):
        """Zero-copy READs the server logged during this test."""
        with open(self.smbd.log, "rb") as f:
            f.seek(self._log_start)
            return f.read().decode("utf-8", "replace").count(ZC_LINE)

    def assert_path(self, min_zc=1):
        if self.smbd.samba:
            return
        n = self.zc_count()
        if self.zero_copy:
            self.assertGreaterEqual(n, min_zc, "no zero-copy READ logged")
            self.assert_fallback_logged()
        else:
            self.assertEqual(n, 0, "zero-copy READ on a sealed session")

    def mincore(self):
        """Whether the server asks mincore(2), not cachestat(2)."""
        return self.no_cachestat or not kernel_has_cachestat()

    def assert_fallback_logged(self):
        """Without cachestat the fallback is chosen once per worker that
        asked, at level 1; with it, never."""
        pids = [m.group(1) for m in
                FALLBACK_RE.finditer(self.smbd.log_text())]
        if self.mincore():
            self.assertGreaterEqual(len(pids), 1, "no fallback line")
            self.assertEqual(len(pids), len(set(pids)),
                             "the fallback chosen twice in one process")
        else:
            self.assertEqual(pids, [], "fallback with cachestat present")

    def test_smbclient_get(self):
        out = tempfile.mkdtemp(prefix="zc-get-")
        try:
            cmds = "; ".join("get f%d %s/f%d" % (n, out, n) for n in SIZES)
            r = subprocess.run(
                ["smbclient", "//127.0.0.1/share", "-p",
                 str(self.smbd.port), "-U", "%s%%%s" % (USER, PASSWORD),
                 "-t", "30", "--client-protection=%s" % self.protection,
                 "-c", cmds],
                capture_output=True, text=True, timeout=120,
                stdin=subprocess.DEVNULL)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            for n in SIZES:
                with open(os.path.join(out, "f%d" % n), "rb") as f:
                    self.assertEqual(sha(f.read()), self.sums[n],
                                     "f%d differs" % n)
        finally:
            shutil.rmtree(out)
        self.assert_path()
        self.server_alive()

    def test_impacket_get(self):
        conn = self.logon(self.dialect)
        try:
            for n in SIZES:
                buf = io.BytesIO()
                conn.getFile("share", "f%d" % n, buf.write)
                self.assertEqual(sha(buf.getvalue()), self.sums[n],
                                 "f%d differs" % n)
            conn.logoff()
        finally:
            conn.close()
        self.assert_path()
        self.server_alive()

    def test_partial_and_eof(self):
        """DataLength is what is left up to the end of the file; at and
        past it STATUS_END_OF_FILE (3.3.5.12)."""
        n = (1 << 20) + 3
        with open(os.path.join(self.smbd.share, "f%d" % n), "rb") as f:
            data = f.read()
        conn = self.logon(self.dialect)
        try:
            tid = conn.connectTree("share")
            fid = conn.openFile(tid, "f%d" % n, desiredAccess=0x120089)
            for off, length in ((0, 65536), (4095, 65537), (n - 40000, 65536),
                                (n - 20000, 20000), (n - 3, 65536)):
                with self.subTest(off=off, length=length):
                    got = conn.readFile(tid, fid, off, length)
                    self.assertEqual(got, data[off:off + length])
            for off in (n, n + 4096):
                with self.assertRaises(smb3.SessionError) as cm:
                    conn._SMBConnection.read(tid, fid, off, 65536)
                self.assertEqual(cm.exception.get_error_code(),
                                 STATUS_END_OF_FILE)
            conn.closeFile(tid, fid)
            conn.logoff()
        finally:
            conn.close()
        if self.mincore():
            # none of these reaches POSIX_MINCORE_MIN (128 KiB): the probe
            # would cost more than the copies zero-copy saves
            self.assert_path(min_zc=0)
            self.assertEqual(self.zc_count(), 0, "a small READ went "
                             "zero-copy without cachestat")
        else:
            self.assert_path(min_zc=3)
        self.server_alive()

    def test_uncached_file(self):
        """Pages dropped from the cache: the pool reads them (buffered),
        and the result is the same."""
        n = 8 << 20
        path = os.path.join(self.smbd.share, "f%d" % n)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        conn = self.logon(self.dialect)
        try:
            buf = io.BytesIO()
            conn.getFile("share", "f%d" % n, buf.write)
            self.assertEqual(sha(buf.getvalue()), self.sums[n])
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()

    def test_uncached_range_buffered(self):
        """A range the page cache does not hold is never sent from the
        loop (sendfile would wait for the disk there): the pool reads it.
        Read once, it is cached, and the same READ goes zero-copy: what
        cachestat(2) answers, and mincore(2) in its place."""
        n = 8 << 20
        off, length = 4 << 20, 1 << 20
        path = os.path.join(self.smbd.share, "f%d" % n)
        with open(path, "rb") as f:
            want = f.read()[off:off + length]
        conn = self.logon(self.dialect)
        try:
            tid = conn.connectTree("share")
            fid = conn.openFile(tid, "f%d" % n, desiredAccess=0x120089)
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
            self._log_start = self.smbd.log_size()
            self.assertEqual(conn.readFile(tid, fid, off, length), want)
            cold = self.zc_count()
            self._log_start = self.smbd.log_size()
            self.assertEqual(conn.readFile(tid, fid, off, length), want)
            conn.closeFile(tid, fid)
            conn.logoff()
        finally:
            conn.close()
        if not self.smbd.samba:
            self.assertEqual(cold, 0, "an uncached range went zero-copy")
        self.assert_path()
        self.server_alive()


class ZeroCopy(_ZeroCopy):
    pass


class ZeroCopySigned(_ZeroCopy):
    global_options = {"server signing": "mandatory"}
    protection = "sign"
    zero_copy = False


class ZeroCopyEncrypted(_ZeroCopy):
    global_options = {"server smb encrypt": "required"}
    protection = "encrypt"
    zero_copy = False
    dialect = h.DIALECT_300


class ZeroCopyDisabled(_ZeroCopy):
    share_options = {"use sendfile": "no"}
    zero_copy = False


class ZeroCopyNoCachestat(_ZeroCopy):
    no_cachestat = True


class ZeroCopyNoCachestatSigned(_ZeroCopy):
    global_options = {"server signing": "mandatory"}
    protection = "sign"
    zero_copy = False
    no_cachestat = True


h.backend_variants(globals(), ZeroCopy)
h.backend_variants(globals(), ZeroCopySigned)
h.backend_variants(globals(), ZeroCopyEncrypted)
h.backend_variants(globals(), ZeroCopyDisabled, backends=("io_uring",))
h.backend_variants(globals(), ZeroCopyNoCachestat)
h.backend_variants(globals(), ZeroCopyNoCachestatSigned,
                   backends=("io_uring",))

if __name__ == "__main__":
    h.main()
