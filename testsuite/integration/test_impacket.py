#!/usr/bin/python3
"""A second, independent client: impacket logs on (NTLMSSP in SPNEGO),
connects the share and moves a file through CREATE/WRITE/READ/CLOSE, per
dialect, plain, with `server signing = mandatory` and with
`server smb encrypt = required` (3.0/3.0.2 sessions encrypted with
AES-128-CCM, 2.x refused with STATUS_ACCESS_DENIED, MS-SMB2 3.3.5.5.3).

impacket 0.10 cannot log on with 3.1.1 (its preauth integrity hash fails
against Samba as well), so 3.1.1 is left to smbclient and smbtorture.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket import smb3  # noqa: E402
from impacket.smb3 import SMB3  # noqa: E402
from impacket.smbconnection import SMBConnection, SessionError  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
DIALECTS = (h.DIALECT_202, h.DIALECT_210, h.DIALECT_300, h.DIALECT_302)
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_NO_EAS_ON_FILE = 0xC0000052
# security.NTACL v4 as Samba 4.17 wrote it (see testsuite/unit/test_sd.c)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "fuzz", "corpus", "fuzz_ntacl",
                       "samba417_file_v4"), "rb") as _f:
    SAMBA_NTACL_V4 = _f.read()


class _Base:

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)

    def logon(self, dialect):
        # smb3.SMB3 directly: SMBConnection refuses to ask for 3.0.2
        raw = SMB3("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                   timeout=h.NET_TIMEOUT, preferredDialect=dialect)
        conn = SMBConnection(existingConnection=raw)
        try:
            conn.login(USER, PASSWORD)
        except Exception:
            raw.close_session()
            raise
        self.assertEqual(conn.getDialect(), dialect)
        return conn

    def roundtrip(self, dialect, size=300000):
        conn = self.logon(dialect)
        name = "imp_%x.bin" % dialect
        data = os.urandom(size)
        try:
            conn.putFile("share", name, io.BytesIO(data).read)
            out = io.BytesIO()
            conn.getFile("share", name, out.write)
            self.assertEqual(out.getvalue(), data)
            with open(os.path.join(self.smbd.share, name), "rb") as f:
                self.assertEqual(f.read(), data)
            conn.deleteFile("share", name)
            self.assertFalse(os.path.exists(os.path.join(self.smbd.share,
                                                         name)))
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()


class Impacket(_Base):
    # wrong passwords, not a test of the rate limiter
    global_options = h.no_auth_delay()

    def test_roundtrip_202(self):
        self.roundtrip(h.DIALECT_202)

    def test_roundtrip_210(self):
        self.roundtrip(h.DIALECT_210)

    def test_roundtrip_300(self):
        self.roundtrip(h.DIALECT_300)

    def test_roundtrip_302(self):
        self.roundtrip(h.DIALECT_302)

    def test_write_is_the_users(self):
        """A WRITE is made as the session's user, whichever way the
        server makes it (the ring's personality or the pool's thread):
        the kernel clears the set-user-ID bit of a file that a user (not
        root, who has CAP_FSETID) writes to, as on Samba."""
        path = os.path.join(self.smbd.share, "setuid.bin")
        with open(path, "wb") as f:
            f.write(b"\0" * 16)
        os.chown(path, 0, 0)
        os.chmod(path, 0o4777)
        conn = self.logon(h.DIALECT_302)
        try:
            tid = conn.connectTree("share")
            fid = conn.createFile(tid, "setuid.bin",
                                  desiredAccess=0x0012019f,
                                  creationDisposition=1)
            conn.writeFile(tid, fid, b"data", 4)
            conn.closeFile(tid, fid)
        finally:
            conn.close()
        st = os.stat(path)
        self.assertEqual(st.st_mode & 0o4000, 0, oct(st.st_mode))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"\0" * 4 + b"data" + b"\0" * 8)
        os.unlink(path)

    def test_disconnect_during_writes(self):
        """WRITEs sent without waiting, then the connection dropped: the
        jobs still writing come from the requests' buffers, which must
        outlive the connection's frames (an ASan build reports a use after
        free if they do not; a plain one may crash).  The worker lives,
        and the data that was written is the data sent."""
        since = os.path.getsize(self.smbd.log)
        data = os.urandom(64 * 1024)
        for _ in range(3):
            conn = self.logon(h.DIALECT_302)
            sm = conn._SMBConnection
            tid = conn.connectTree("share")
            fid = conn.createFile(tid, "drop_writes.bin",
                                  desiredAccess=0x0012019f,
                                  creationDisposition=5)
            for i in range(24):
                sm.write(tid, fid, data, i * len(data), len(data),
                         waitAnswer=False)
            conn.getSMBServer().get_socket().close()
        self.server_alive()
        self.assertEqual(h.crash_lines(self.smbd, since), [])
        path = os.path.join(self.smbd.share, "drop_writes.bin")

        def held():
            # the workers' fds on it: the dropped connections' handles
            # close once their writes are done
            n = 0
            for pid in h.child_pids(self.smbd.pid):
                fds = os.path.join("/proc", str(pid), "fd")
                for f in os.listdir(fds):
                    try:
                        n += os.readlink(os.path.join(fds, f)) == path
                    except OSError:
                        pass
            return n
        h.wait_until(lambda: held() == 0, 10)
        with open(path, "rb") as f:
            got = f.read()
        self.assertEqual(len(got) % len(data), 0)
        for i in range(0, len(got), len(data)):
            self.assertIn(got[i:i + len(data)], (data, bytes(len(data))))
        conn = self.logon(h.DIALECT_302)
        conn.deleteFile("share", "drop_writes.bin")
        conn.close()

    def test_full_ea_information(self):
        """QUERY_INFO FileFullEaInformation: STATUS_NO_EAS_ON_FILE without
        EAs (MS-FSA, as Samba answers); the EA once the file has a
        user.* xattr, also through an open asking for FILE_READ_EA only
        (an attribute-only open on the server)."""
        conn = self.logon(h.DIALECT_300)
        sm = conn._SMBConnection
        path = os.path.join(self.smbd.share, "ea_query.txt")
        try:
            tid = conn.connectTree("share")
            fid = conn.createFile(tid, "ea_query.txt",
                                  desiredAccess=0x0012019f,
                                  creationDisposition=5)
            with self.assertRaises(smb3.SessionError) as cm:
                sm.queryInfo(tid, fid, inputBlob=b"", infoType=1,
                             fileInfoClass=15, additionalInformation=0,
                             flags=0)
            self.assertEqual(cm.exception.get_error_code(),
                             STATUS_NO_EAS_ON_FILE)
            conn.closeFile(tid, fid)
            os.setxattr(path, "user.EAONE", b"VALUE1")
            fid = conn.createFile(tid, "ea_query.txt", desiredAccess=0x8,
                                  creationDisposition=1)
            r = bytes(sm.queryInfo(tid, fid, inputBlob=b"", infoType=1,
                                   fileInfoClass=15,
                                   additionalInformation=0, flags=0))
            conn.closeFile(tid, fid)
            # FILE_FULL_EA_INFORMATION: Next, Flags, NameLen, ValueLen
            self.assertEqual(r[5], len("EAONE"))
            self.assertEqual(r[8:13], b"EAONE")
            self.assertEqual(r[14:20], b"VALUE1")
            conn.deleteFile("share", "ea_query.txt")
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()

    def test_bad_password(self):
        raw = SMB3("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                   timeout=h.NET_TIMEOUT, preferredDialect=h.DIALECT_300)
        conn = SMBConnection(existingConnection=raw)
        try:
            with self.assertRaises(SessionError):
                conn.login(USER, "wrong")
        finally:
            raw.close_session()
        self.server_alive()


class ImpacketSigning(_Base):
    global_options = {"server signing": "mandatory"}

    def test_signed_roundtrip(self):
        # 2.2.4: SMB2_NEGOTIATE_SIGNING_REQUIRED tells clients to sign
        r = self.assert_negotiates()
        self.assertTrue(r["security_mode"] & 0x02, "signing not required")
        for d in DIALECTS:
            with self.subTest(dialect=hex(d)):
                self.roundtrip(d, size=100000)


class ImpacketEncrypted(_Base):
    global_options = {"server smb encrypt": "required"}

    def test_encrypted_roundtrip(self):
        for d in (h.DIALECT_300, h.DIALECT_302):
            with self.subTest(dialect=hex(d)):
                self.roundtrip(d, size=100000)

    def test_unencrypted_dialects_refused(self):
        for d in (h.DIALECT_202, h.DIALECT_210):
            with self.subTest(dialect=hex(d)):
                with self.assertRaises(SessionError) as cm:
                    self.logon(d)
                self.assertEqual(cm.exception.getErrorCode(),
                                 STATUS_ACCESS_DENIED)
        self.server_alive()


class ImpacketNtacl(_Base):
    """QUERY_INFO security on a share with `vfs objects = acl_xattr`
    returns the descriptor stored in security.NTACL (MS-SMB2 3.3.5.20.3),
    only the parts AdditionalInformation asks for; without the xattr the
    descriptor still comes from the Unix mode."""
    share_options = {"vfs objects": "acl_xattr"}

    def query_sd(self, conn, tid, name, secinfo):
        fid = conn.createFile(tid, name, desiredAccess=0x00020000,
                              creationDisposition=1)
        try:
            return bytes(conn._SMBConnection.queryInfo(
                tid, fid, inputBlob=b"", infoType=3, fileInfoClass=0,
                additionalInformation=secinfo, flags=0))
        finally:
            conn.closeFile(tid, fid)

    def test_stored_ntacl(self):
        for name in ("with_acl.txt", "no_acl.txt"):
            with open(os.path.join(self.smbd.share, name), "wb") as f:
                f.write(b"x")
        os.setxattr(os.path.join(self.smbd.share, "with_acl.txt"),
                    "security.NTACL", SAMBA_NTACL_V4)
        sd = SAMBA_NTACL_V4[160:]
        # the same descriptor, offsets counted from itself
        want = (sd[:4] + (20).to_bytes(4, "little") +
                (48).to_bytes(4, "little") + bytes(4) +
                (76).to_bytes(4, "little") + sd[20:])
        conn = self.logon(h.DIALECT_300)
        try:
            tid = conn.connectTree("share")
            self.assertEqual(self.query_sd(conn, tid, "with_acl.txt", 7),
                             want)
            # DACL alone: no owner or group, the DACL right after the header
            r = self.query_sd(conn, tid, "with_acl.txt", 4)
            self.assertEqual(r[:20], sd[:4] + bytes(12) +
                             (20).to_bytes(4, "little"))
            self.assertEqual(r[20:], sd[76:])
            # no xattr: the owner is the Unix one (S-1-22-1-uid)
            r = self.query_sd(conn, tid, "no_acl.txt", 1)
            self.assertEqual(r[20:28], bytes([1, 2, 0, 0, 0, 0, 0, 22]))
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()


h.backend_variants(globals(), Impacket)
h.backend_variants(globals(), ImpacketSigning)
h.backend_variants(globals(), ImpacketEncrypted)
h.backend_variants(globals(), ImpacketNtacl)

if __name__ == "__main__":
    h.main()
