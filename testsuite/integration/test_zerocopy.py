#!/usr/bin/python3
"""Zero-copy READ replies (`use sendfile`, smbd/smb2/smb2_read.c): files of
sizes around the 16 KiB threshold and page boundaries come back intact
(SHA-256) through smbclient `get` and impacket, on sessions that neither
sign nor encrypt (the data goes with sendfile), and with signing required
and encryption required (the buffered fallback); partial reads, reads at
and past the end of file, a file dropped from the page cache (the pool
reads it, later reads go zero-copy) and `use sendfile = no`.

The server logs each zero-copy READ at level 10; the tests count those
lines to prove which path ran (not against Samba, which logs otherwise).
Every test runs once per event-loop backend (io_uring, epoll).
"""

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
# the test user and impacket's logon, as test_impacket.py does them
from test_impacket import USER, PASSWORD, _Base  # noqa: E402

from impacket import smb3  # noqa: E402

SIZES = (0, 1, 16383, 16384, 65537, (1 << 20) + 3, 8 << 20)
ZC_LINE = "zero-copy READ of"
STATUS_END_OF_FILE = 0xC0000011


def sha(data):
    return hashlib.sha256(data).hexdigest()


class _ZeroCopy(_Base):
    # smbclient --client-protection, and whether READs must go zero-copy;
    # impacket's dialect: it encrypts 3.x sessions on its own whenever the
    # server can, so 2.1 is what it reads unsealed with
    protection = "off"
    zero_copy = True
    dialect = h.DIALECT_210

    @classmethod
    def new_server(cls, **kw):
        kw.setdefault("debug", 10)  # the zero-copy log lines
        return super().new_server(**kw)

    @classmethod
    def setUpClass(cls):
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
        else:
            self.assertEqual(n, 0, "zero-copy READ on a sealed session")

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


h.backend_variants(globals(), ZeroCopy)
h.backend_variants(globals(), ZeroCopySigned)
h.backend_variants(globals(), ZeroCopyEncrypted)
h.backend_variants(globals(), ZeroCopyDisabled, backends=("io_uring",))

if __name__ == "__main__":
    h.main()
