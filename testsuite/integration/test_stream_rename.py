#!/usr/bin/python3
"""Stream renames (MS-FSA 2.1.5.14.11.1) beyond what smbtorture
smb2.streams.rename/rename2 cover: the renamed open goes on reading and
writing the stream under its new name, a target that exists is
OBJECT_NAME_COLLISION without ReplaceIfExists and INVALID_PARAMETER when
it holds data, a type other than $DATA is OBJECT_TYPE_MISMATCH, and the
file's own data renamed to a stream moves into the stream."""

import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket import smb3  # noqa: E402
from impacket.smbconnection import SMBConnection  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
FILE_RENAME_INFORMATION = 10
STATUS_OBJECT_NAME_COLLISION = 0xC0000035
STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_OBJECT_TYPE_MISMATCH = 0xC0000024
XATTR = "user.DosStream.%s:$DATA"


def rename_blob(name, replace):
    n = name.encode("utf-16-le")
    return struct.pack("<B7xQI", 1 if replace else 0, 0, len(n)) + n


class StreamRename(h.SmbdTestCase):
    share_options = {"vfs objects": "streams_xattr"}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)

    def setUp(self):
        super().setUp()
        self.conn = SMBConnection("127.0.0.1", "127.0.0.1",
                                  sess_port=self.smbd.port,
                                  timeout=h.NET_TIMEOUT)
        self.conn.login(USER, PASSWORD)
        self.tid = self.conn.connectTree("share")

    def tearDown(self):
        self.conn.close()
        super().tearDown()

    def open(self, name, disposition=3):
        # GENERIC_READ|GENERIC_WRITE|DELETE, share all, open-if
        return self.conn.createFile(self.tid, name,
                                    desiredAccess=0xC0010000,
                                    shareMode=7,
                                    creationDisposition=disposition)

    def rename(self, fid, name, replace=True):
        self.conn._SMBConnection.setInfo(
            self.tid, fid, inputBlob=rename_blob(name, replace),
            infoType=1, fileInfoClass=FILE_RENAME_INFORMATION)

    def status_of(self, fn, *a, **kw):
        with self.assertRaises(smb3.SessionError) as cm:
            fn(*a, **kw)
        return cm.exception.get_error_code()

    def test_open_follows_the_rename(self):
        path = os.path.join(self.smbd.share, "f1.txt")
        fid = self.open("f1.txt:one")
        self.conn.writeFile(self.tid, fid, b"hello")
        self.rename(fid, ":two:$DATA")
        self.conn.writeFile(self.tid, fid, b"HE")
        self.assertEqual(self.conn.readFile(self.tid, fid, 0, 100), b"HEllo")
        self.conn.closeFile(self.tid, fid)
        names = os.listxattr(path)
        self.assertIn(XATTR % "two", names)
        self.assertNotIn(XATTR % "one", names)
        self.assertEqual(os.getxattr(path, XATTR % "two"), b"HEllo\0")
        # and a new open of the new name sees it
        fid = self.open("f1.txt:two", disposition=1)
        self.assertEqual(self.conn.readFile(self.tid, fid, 0, 100), b"HEllo")
        self.conn.closeFile(self.tid, fid)

    def test_targets(self):
        path = os.path.join(self.smbd.share, "f2.txt")
        fid = self.open("f2.txt:full")
        self.conn.writeFile(self.tid, fid, b"data")
        self.conn.closeFile(self.tid, fid)
        fid = self.open("f2.txt:src")
        self.assertEqual(self.status_of(self.rename, fid, ":full", False),
                         STATUS_OBJECT_NAME_COLLISION)
        self.assertEqual(self.status_of(self.rename, fid, ":full", True),
                         STATUS_INVALID_PARAMETER)
        self.assertEqual(self.status_of(self.rename, fid, ":x:$FOO"),
                         STATUS_OBJECT_TYPE_MISMATCH)
        self.rename(fid, ":src")    # onto itself
        self.conn.closeFile(self.tid, fid)
        self.assertEqual(os.getxattr(path, XATTR % "full"), b"data\0")
        self.assertIn(XATTR % "src", os.listxattr(path))

    def test_data_to_stream(self):
        path = os.path.join(self.smbd.share, "f3.txt")
        with open(path, "wb") as f:
            f.write(b"file data")
        os.chmod(path, 0o666)   # written by root, opened by the user
        fid = self.open("f3.txt", disposition=1)
        self.rename(fid, ":moved")
        self.assertEqual(self.conn.readFile(self.tid, fid, 0, 100),
                         b"file data")
        self.conn.closeFile(self.tid, fid)
        self.assertEqual(os.path.getsize(path), 0)
        self.assertEqual(os.getxattr(path, XATTR % "moved"), b"file data\0")

    def standard_info(self, fid):
        """FileStandardInformation: (EndOfFile, Directory)."""
        raw = self.conn._SMBConnection.queryInfo(
            self.tid, fid, infoType=1, fileInfoClass=5)
        eof, = struct.unpack_from("<Q", raw, 8)
        return eof, raw[21]

    def test_stream_handle_is_the_streams(self):
        """A stream's handle has the stream's size and is no directory,
        also a directory's stream (smbtorture smb2.fileid.fileid-dir)."""
        path = os.path.join(self.smbd.share, "f4.txt")
        with open(path, "wb") as f:
            f.write(b"x" * 100)
        os.chmod(path, 0o666)
        fid = self.open("f4.txt:s")
        self.conn.writeFile(self.tid, fid, b"abc")
        self.conn.closeFile(self.tid, fid)
        fid = self.open("f4.txt:s", disposition=1)
        self.assertEqual(self.standard_info(fid), (3, 0))
        self.conn.closeFile(self.tid, fid)
        d = os.path.join(self.smbd.share, "d4")
        os.mkdir(d)
        os.chmod(d, 0o777)
        fid = self.open("d4:s")
        self.conn.writeFile(self.tid, fid, b"yz")
        self.assertEqual(self.standard_info(fid), (2, 0))
        self.conn.closeFile(self.tid, fid)
        self.assertEqual(os.getxattr(d, XATTR % "s"), b"yz\0")


if __name__ == "__main__":
    h.main()
