#!/usr/bin/python3
"""smbd_status.tdb's users: smbstatus and `max connections`.

smbstatus (utils/smbstatus.c) against a running server.

A client logs on, connects the share, holds a file open with a batch
oplock and a share mode, and a byte-range lock: smbstatus lists the
session (user, dialect), the tree connect, the open file with its deny
mode and oplock, and the lock; after the client leaves, nothing of it is
listed any more.
"""

import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402
from impacket import smb3structs as s3  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
NET_TIMEOUT = 20


def smbstatus_binary():
    return os.path.join(os.path.dirname(h.smbd_binary()), "..", "utils",
                        "smbstatus")


class SmbstatusTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd()
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def status(self, *args):
        out = subprocess.run([smbstatus_binary(), "-s", self.smbd.conf] +
                             list(args), capture_output=True, text=True,
                             timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_session_share_open_lock(self):
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=NET_TIMEOUT,
                          preferredDialect=s3.SMB2_DIALECT_30)
        c.login(USER, PASSWORD)
        smb = c.getSMBServer()
        tid = c.connectTree("share")
        fid = smb.create(tid, "status-file.txt",
                         s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                         s3.FILE_SHARE_READ, s3.FILE_NON_DIRECTORY_FILE,
                         s3.FILE_OPEN_IF, 0,
                         oplockLevel=s3.SMB2_OPLOCK_LEVEL_BATCH)
        lock = s3.SMB2Lock()
        lock["FileID"] = fid
        lock["LockCount"] = 1
        lock["LockSequence"] = 0
        lock["Locks"] = struct.pack("<QQII", 100, 10, 0x12, 0)
        packet = smb.SMB_PACKET()
        packet["Command"] = s3.SMB2_LOCK
        packet["TreeID"] = tid
        packet["Data"] = lock
        self.assertEqual(smb.recvSMB(smb.sendSMB(packet))["Status"], 0)

        out = self.status("-B")
        self.assertIn(USER, out)
        self.assertIn("SMB3_00", out)
        self.assertRegex(out, r"\nshare\s+\d+")
        self.assertRegex(out, r"DENY_WRITE\s+0x\w+\s+RDWR\s+BATCH\s+.*"
                              r"status-file\.txt")
        self.assertRegex(out, r"WRITE\s+100\s+10\s+status-file\.txt")
        self.assertNotIn(USER, self.status("-L"))
        c.close()
        self.assertTrue(h.wait_until(
            lambda: "status-file.txt" not in self.status("-B") and
            USER not in self.status(), 5.0), self.status("-B"))


class MaxConnectionsTests(unittest.TestCase):
    """`max connections = 1`: a second tree connect to the share, from
    another connection (maybe another worker), is refused with
    STATUS_INSUFFICIENT_RESOURCES until the first goes."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(workers=2, share_options=[("max connections",
                                                      "1")])
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def connect(self):
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=NET_TIMEOUT)
        c.login(USER, PASSWORD)
        return c

    def test_limit(self):
        c1 = self.connect()
        c1.connectTree("share")
        c2 = self.connect()
        with self.assertRaises(Exception) as e:
            c2.connectTree("share")
        self.assertIn("STATUS_INSUFFICIENT_RESOURCES", str(e.exception))
        c1.close()
        self.assertTrue(h.wait_until(lambda: self._try(c2), 5.0))
        c2.close()

    @staticmethod
    def _try(c):
        try:
            c.connectTree("share")
            return True
        except Exception:
            return False


def json_shape(v, depth=0, parent=None):
    """The keys and value types of smbstatus --json, with the ids and
    paths that name entries (sessions, tcons, files, opens) folded."""
    if isinstance(v, dict):
        fold = parent in ("sessions", "tcons", "open_files",
                          "byte_range_locks", "opens")
        out = {}
        for k, x in v.items():
            out["*" if fold else k] = json_shape(x, depth + 1, k)
        return out
    if isinstance(v, list):
        return [json_shape(x, depth + 1) for x in v[:1]]
    return type(v).__name__


class SmbstatusJson(unittest.TestCase):
    """smbstatus --json -B on ours has the keys and value types of Samba
    4.17's (its smbstatus on its smbd, same client actions, same run),
    and ours has the values."""

    def snapshot(self, binary, status):
        srv = h.Smbd(binary=binary,
                     global_options=[("server signing", "mandatory")])
        self.addCleanup(srv.cleanup)
        srv.create_user(USER, PASSWORD)
        srv.start()
        path = os.path.join(srv.share, "json-file.txt")
        with open(path, "w") as f:
            f.write("x" * 200)
        os.chmod(path, 0o666)
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=srv.port,
                          timeout=NET_TIMEOUT,
                          preferredDialect=s3.SMB2_DIALECT_30)
        c.login(USER, PASSWORD)
        self.addCleanup(c.close)
        smb = c.getSMBServer()
        tid = c.connectTree("share")
        fid = c.openFile(tid, "json-file.txt")
        req = s3.SMB2Lock()
        req["FileID"] = fid
        req["LockCount"] = 1
        req["LockSequence"] = 0
        req["Locks"] = struct.pack("<QQII", 10, 5, 2 | 0x10, 0)
        packet = smb.SMB_PACKET()
        packet["Command"] = s3.SMB2_LOCK
        packet["TreeID"] = tid
        packet["Data"] = req
        self.assertEqual(smb.recvSMB(smb.sendSMB(packet))["Status"], 0)
        out = subprocess.run([status, "--json", "-B", "-s", srv.conf],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        import json
        return json.loads(out.stdout)

    def test_schema_as_samba(self):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        if h.is_samba():
            raise unittest.SkipTest("compares ours with Samba")
        ours = self.snapshot(h.smbd_binary(), smbstatus_binary())
        sess = list(ours["sessions"].values())
        self.assertEqual(len(sess), 1)
        self.assertEqual(sess[0]["username"], USER)
        self.assertEqual(sess[0]["session_dialect"], "SMB3_00")
        self.assertEqual(sess[0]["signing"],
                         {"cipher": "AES-128-CMAC", "degree": "full"})
        self.assertEqual(sess[0]["hostname"][:15], "ipv4:127.0.0.1:")
        tcon = list(ours["tcons"].values())
        self.assertEqual([t["service"] for t in tcon], ["share"])
        files = list(ours["open_files"].values())
        self.assertEqual([f["filename"] for f in files], ["json-file.txt"])
        opens = list(files[0]["opens"].values())
        self.assertEqual(opens[0]["access_mask"]["READ_DATA"], True)
        locks = list(ours["byte_range_locks"].values())[0]["locks"]
        self.assertEqual([(x["type"], x["start"], x["size"]) for x in locks],
                         [("W", 10, 5)])
        if not os.access("/usr/sbin/smbd", os.X_OK):
            return
        samba = self.snapshot("/usr/sbin/smbd", "/usr/bin/smbstatus")
        a, b = json_shape(ours), json_shape(samba)
        # the oplock/lease objects are empty for this open on both
        self.assertEqual(a, b)


if __name__ == "__main__":
    h.main()
