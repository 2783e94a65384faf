#!/usr/bin/python3
"""SET_INFO FileBasicInformation's FileAttributes as MS-FSA 2.1.5.15.2
has them (issue 35 item 0), and the admin path that needs it:
`smbclient -Tx` restoring a tar onto a share.

smbclient sets, after writing each file, FileAttributes built from the
tar's Unix mode (0x81A4 for 0644: SYSTEM, ARCHIVE, NORMAL, TEMPORARY and
bit 0x8000) with the other times -1.  MS-FSA refuses only a time below
-2, DIRECTORY on a file and TEMPORARY on a directory; other bits (NORMAL
beside others, bits the file system has not) are ignored, and only the
settable ones are kept.  Each rule is a test; the restore is of 2,000
files, all of which must arrive.  SMBD=/usr/sbin/smbd passes the same,
but for two refusals Samba 4.17 does not make (a DIRECTORY bit on a file,
a time below -2), where MS-FSA decides.
"""

import os
import struct
import subprocess
import sys
import tarfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket import smb3structs as s3  # noqa: E402
from impacket.smb3 import SessionError  # noqa: E402

STATUS_INVALID_PARAMETER = 0xC000000D
FILE_BASIC_INFORMATION = 4
A_READONLY, A_HIDDEN, A_SYSTEM = 0x1, 0x2, 0x4
A_DIRECTORY, A_ARCHIVE, A_NORMAL, A_TEMPORARY = 0x10, 0x20, 0x80, 0x100
FROM_TAR_0644 = 0x81A4
FILES = 2000
# FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES | READ_CONTROL: what
# smbclient opens with before it sets them
ATTR_ACCESS = 0x80 | 0x100 | 0x20000


def basic(attrs, times=(0, 0, 0, 0)):
    """FILE_BASIC_INFORMATION (MS-FSCC 2.4.7): four times, attributes."""
    return struct.pack("<QQQQII", *times, attrs, 0)


class SetInfoAttrs(h.TestUser, h.SmbdTestCase):
    global_options = [("store dos attributes", "yes")]

    def setUp(self):
        super().setUp()
        self.conn = self.impacket_logon()
        self.addCleanup(self.conn.close)
        self.smb = self.conn.getSMBServer()
        self.tid = self.conn.connectTree("share")

    def open(self, name, directory=False):
        path = os.path.join(self.smbd.share, name)
        if directory:
            os.makedirs(path, exist_ok=True)
        else:
            with open(path, "w") as f:
                f.write("x")
        os.chmod(path, 0o777)
        fid = self.smb.create(self.tid, name, ATTR_ACCESS, 7,
                              s3.FILE_DIRECTORY_FILE if directory else
                              s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN, 0)
        self.addCleanup(self.smb.close, self.tid, fid)
        return fid

    def set_basic(self, fid, attrs, times=(0, 0, 0, 0)):
        self.smb.setInfo(self.tid, fid, basic(attrs, times),
                         s3.SMB2_0_INFO_FILE, FILE_BASIC_INFORMATION)

    def attrs(self, fid):
        buf = self.smb.queryInfo(self.tid, fid, b"", s3.SMB2_0_INFO_FILE,
                                 FILE_BASIC_INFORMATION)
        return struct.unpack_from("<I", buf, 32)[0]

    def refused(self, fid, attrs, times=(0, 0, 0, 0)):
        with self.assertRaises(SessionError) as cm:
            self.set_basic(fid, attrs, times)
        self.assertEqual(cm.exception.get_error_code(),
                         STATUS_INVALID_PARAMETER)

    def test_directory_bit_on_a_file_is_refused(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 takes it; MS-FSA refuses it")
        self.refused(self.open("f1"), A_DIRECTORY | A_ARCHIVE)

    def test_temporary_on_a_directory_is_refused(self):
        self.refused(self.open("d1", directory=True), A_TEMPORARY)

    def test_time_below_minus_two_is_refused(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 takes it; MS-FSA refuses it")
        fid = self.open("f2")
        self.refused(fid, 0, (0, 0, (1 << 64) - 3, 0))

    def test_minus_one_times_leave_them_alone(self):
        fid = self.open("f3")
        before = self.smb.queryInfo(self.tid, fid, b"", s3.SMB2_0_INFO_FILE,
                                    FILE_BASIC_INFORMATION)[:24]
        self.set_basic(fid, A_ARCHIVE, (0, (1 << 64) - 1, (1 << 64) - 1,
                                        (1 << 64) - 1))
        after = self.smb.queryInfo(self.tid, fid, b"", s3.SMB2_0_INFO_FILE,
                                   FILE_BASIC_INFORMATION)[:24]
        self.assertEqual(before[8:16], after[8:16])   # LastAccessTime
        self.assertEqual(before[16:24], after[16:24])  # LastWriteTime

    def test_tar_attributes_are_taken(self):
        """0x81A4: NORMAL beside others and bit 0x8000 are ignored, the
        settable ones (SYSTEM, ARCHIVE) kept."""
        fid = self.open("f4")
        self.set_basic(fid, FROM_TAR_0644)
        got = self.attrs(fid)
        self.assertEqual(got & (A_SYSTEM | A_ARCHIVE), A_SYSTEM | A_ARCHIVE)
        self.assertFalse(got & (A_DIRECTORY | 0x8000))

    def test_normal_alone_clears(self):
        fid = self.open("f5")
        self.set_basic(fid, A_HIDDEN | A_ARCHIVE)
        self.assertTrue(self.attrs(fid) & A_HIDDEN)
        self.set_basic(fid, A_NORMAL)
        self.assertFalse(self.attrs(fid) & (A_HIDDEN | A_ARCHIVE))

    def test_smbclient_restores_a_tar(self):
        src = os.path.join(self.smbd.tmp, "tree")
        for i in range(FILES):
            d = os.path.join(src, "d%02d" % (i % 20))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "f%04d.txt" % i), "w") as f:
                f.write("file %d\n" % i)
        tar = os.path.join(self.smbd.tmp, "backup.tar")
        with tarfile.open(tar, "w") as t:
            t.add(src, arcname="tree")
        os.makedirs(os.path.join(self.smbd.share, "restore"))
        os.chmod(os.path.join(self.smbd.share, "restore"), 0o777)
        rc, out = self.smbclient("-D", "restore", "-Tx", tar, timeout=240)
        self.assertEqual(rc, 0, out[-2000:])
        dst = os.path.join(self.smbd.share, "restore", "tree")
        got = sum(len(files) for _, _, files in os.walk(dst))
        self.assertEqual(got, FILES, out[-2000:])
        with open(os.path.join(dst, "d07", "f1007.txt")) as f:
            self.assertEqual(f.read(), "file 1007\n")


if __name__ == "__main__":
    h.main()
