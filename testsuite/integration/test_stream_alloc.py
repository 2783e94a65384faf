#!/usr/bin/python3
"""SET_INFO FileAllocationInformation on a stream's handle (MS-FSA
2.1.5.14.1: an AllocationSize below the open's EndOfFile truncates the
open's stream, not its file): the file's own data stays as it was, the
stream is cut.  The same for fruit's AFP_Resource kept in the "._" file
(fruit:resource = file), whose fork is cut while the "._" file's header
stays, and for AFP_AfpInfo, which stays 60 bytes.  Samba 4.17
(SMBD=/usr/sbin/smbd) gives the same answers.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

FILE_ALLOCATION_INFORMATION = 19
FILE_STANDARD_INFORMATION = 5
DATA = bytes(range(100))


def afpinfo(finder=b"SMB,OLE!"):
    """A valid AfpInfo record (as smbtorture's vfs.fruit writes)."""
    rec = struct.pack(">III", 0x41465000, 0x00000100, 0) + \
        struct.pack(">I", 0x80000000) + finder
    return rec + b"\0" * (60 - len(rec))


class StreamAllocation(h.TestUser, h.SmbdTestCase):

    share_options = [("vfs objects", "streams_xattr")]
    extra_shares = [("rsrcfile", [("vfs objects",
                                   "catia fruit streams_xattr"),
                                  ("fruit:metadata", "stream"),
                                  ("fruit:resource", "file")])]

    def setUp(self):
        super().setUp()
        self.empty_share()
        with open(self.share_path("f"), "wb") as f:
            f.write(DATA)
        os.chmod(self.share_path("f"), 0o666)

    def tree(self, share):
        conn = self.impacket_logon()
        self.addCleanup(conn.close)
        return conn.getSMBServer(), conn.connectTree(share)

    def open(self, smb, tid, name):
        from impacket.smb3structs import (FILE_READ_DATA, FILE_WRITE_DATA,
                                          FILE_SHARE_READ, FILE_SHARE_WRITE,
                                          FILE_SHARE_DELETE, FILE_OPEN_IF)
        return smb.create(tid, name, FILE_READ_DATA | FILE_WRITE_DATA,
                          FILE_SHARE_READ | FILE_SHARE_WRITE |
                          FILE_SHARE_DELETE, 0, FILE_OPEN_IF, 0)

    def allocate(self, smb, tid, fid, size):
        smb.setInfo(tid, fid, inputBlob=struct.pack("<Q", size),
                    infoType=1,
                    fileInfoClass=FILE_ALLOCATION_INFORMATION)

    def end_of_file(self, smb, tid, fid):
        raw = smb.queryInfo(tid, fid, infoType=1,
                            fileInfoClass=FILE_STANDARD_INFORMATION)
        return struct.unpack_from("<Q", raw, 8)[0]

    def cut(self, share, stream, data, size):
        """Write data to f's stream, set its allocation to size; what
        the stream then holds, by a new open."""
        smb, tid = self.tree(share)
        fid = self.open(smb, tid, "f" + stream)
        smb.write(tid, fid, data, 0, len(data))
        self.allocate(smb, tid, fid, size)
        eof = self.end_of_file(smb, tid, fid)
        smb.close(tid, fid)
        fid = self.open(smb, tid, "f" + stream)
        got = smb.read(tid, fid, 0, 4096)
        smb.close(tid, fid)
        return eof, got

    def assert_file_intact(self, share):
        with open(self.share_path("f"), "rb") as f:
            self.assertEqual(f.read(), DATA)
        smb, tid = self.tree(share)
        fid = self.open(smb, tid, "f")
        self.assertEqual(smb.read(tid, fid, 0, 4096), DATA)
        smb.close(tid, fid)

    def test_named_stream(self):
        eof, got = self.cut("share", ":s", b"x" * 50, 10)
        self.assert_file_intact("share")
        self.assertEqual((eof, got), (10, b"x" * 10))

    def test_named_stream_above_its_size(self):
        """Above the stream's end (but below the file's) nothing moves."""
        eof, got = self.cut("share", ":s", b"y" * 5, 10)
        self.assert_file_intact("share")
        self.assertEqual((eof, got), (5, b"y" * 5))

    def test_resource_fork_in_dot_underscore_file(self):
        eof, got = self.cut("rsrcfile", ":AFP_Resource", b"r" * 50, 10)
        self.assert_file_intact("rsrcfile")
        self.assertEqual((eof, got), (10, b"r" * 10))
        # the "._" file keeps its AppleDouble header
        with open(self.share_path("._f"), "rb") as f:
            self.assertEqual(f.read(8), struct.pack(">II", 0x00051607,
                                                    0x00020000))

    def test_afpinfo(self):
        eof, got = self.cut("rsrcfile", ":AFP_AfpInfo", afpinfo(), 10)
        self.assert_file_intact("rsrcfile")
        self.assertEqual((eof, got), (60, afpinfo()))


if __name__ == "__main__":
    h.main()
