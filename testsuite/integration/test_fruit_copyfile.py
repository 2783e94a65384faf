#!/usr/bin/python3
"""fruit:copyfile (issue 17; man/vfs_fruit.8): a Mac told OSX_COPYFILE
(kAAPL_SUPPORTS_OSX_COPYFILE, 0x2) in the AAPL server caps copies a file
with one FSCTL_SRV_COPYCHUNK of 0 chunks, and the server copies the
whole source onto the target: its data, then every named stream the
source lists (AFP_AfpInfo, AFP_Resource, which fruit:resource = file
keeps in the "._" file, and the rest), answering 0 chunks, 0 and the
data's size.  Without AAPL on the session 0 chunks copy nothing, as on
Windows.  The same access checks as any copychunk apply.  Samba 4.17
(SMBD=/usr/sbin/smbd) answers the same, but where a test says otherwise;
fruit:copyfile is a global option there, so it is set in [global].
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
from test_fruit import afpinfo, aapl_query, create_root_with  # noqa: E402

FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078
FSCTL_SRV_COPYCHUNK = 0x001440F2
FSCTL_SRV_COPYCHUNK_WRITE = 0x001480F2
SMB2_0_IOCTL_IS_FSCTL = 1
OSX_COPYFILE = 0x2

STATUS_ACCESS_DENIED = 0xC0000022
STATUS_OBJECT_NAME_COLLISION = 0xC0000035

FILE_READ_DATA = 0x1
FILE_WRITE_DATA = 0x2
FILE_READ_ATTRIBUTES = 0x80
SHARE_ALL = 7
FILE_OPEN = 1
FILE_CREATE = 2
FILE_OPEN_IF = 3

# the data: more than the server's 1 MiB buffer, not a multiple of it
DATA = bytes(range(256)) * (4096 * 3) + b"tail"
# what smbtorture's vfs.fruit copyfile writes: a fork at offset 10, and
# a stream whose name has catia's U+F022 (a Mac's ':')
RSRC = b"\0" * 10 + b"1234567890"
NAMED = "foo\uf022bar"


class FruitCopyfile(h.TestUser):

    global_options = [("fruit:copyfile", "yes")]
    share_options = [("vfs objects", "catia fruit streams_xattr"),
                     ("fruit:metadata", "stream")]
    extra_shares = [("streamfork", [("vfs objects",
                                     "catia fruit streams_xattr"),
                                    ("fruit:metadata", "stream"),
                                    ("fruit:resource", "stream")]),
                    ("netatalk", [("vfs objects",
                                   "catia fruit streams_xattr"),
                                  ("fruit:metadata", "netatalk"),
                                  ("fruit:resource", "xattr")]),
                    ("nocopy", [("vfs objects", "catia fruit streams_xattr"),
                                ("fruit:metadata", "stream"),
                                ("fruit:copyfile", "no")])]

    def setUp(self):
        super().setUp()
        self.empty_share()

    def session(self, share="share", aapl=True):
        """(conn, smb, tid) of a new session on share; after an AAPL
        server query on it if aapl: then also its server caps."""
        conn = self.impacket_logon()
        self.addCleanup(conn.close)
        smb = conn.getSMBServer()
        tid = conn.connectTree(share)
        self.caps = None
        if aapl:
            r = create_root_with(smb, tid, aapl_query())[b"AAPL"]
            self.caps = struct.unpack_from("<Q", r, 16)[0]
        return conn, smb, tid

    def put(self, smb, tid, name, data, offset=0):
        fid = smb.create(tid, name, FILE_READ_DATA | FILE_WRITE_DATA,
                         SHARE_ALL, 0, FILE_OPEN_IF, 0)
        try:
            if data:
                smb.write(tid, fid, data, offset, len(data))
        finally:
            smb.close(tid, fid)

    def get(self, smb, tid, name):
        fid = smb.create(tid, name, FILE_READ_DATA, SHARE_ALL, 0,
                         FILE_OPEN, 0)
        try:
            out, off = b"", 0
            while True:
                # a short read is the end (AFP_AfpInfo reads the record
                # again at offset 60)
                chunk = smb.read(tid, fid, off, 65536)
                out += chunk
                off += len(chunk)
                if len(chunk) < 65536:
                    return out
        except Exception as e:
            if "STATUS_END_OF_FILE" in str(e):
                return out
            raise
        finally:
            smb.close(tid, fid)

    def streams(self, smb, tid, name):
        fid = smb.create(tid, name, FILE_READ_ATTRIBUTES, SHARE_ALL, 0,
                         FILE_OPEN, 0)
        try:
            raw = smb.queryInfo(tid, fid, infoType=1, fileInfoClass=22)
        finally:
            smb.close(tid, fid)
        return h.stream_info_names(raw)

    def source(self, smb, tid, name="src"):
        """A file with data, AfpInfo, a resource fork and a stream."""
        self.put(smb, tid, name, DATA)
        self.put(smb, tid, name + ":AFP_AfpInfo", afpinfo())
        self.put(smb, tid, name + ":AFP_Resource", RSRC[10:], 10)
        self.put(smb, tid, name + ":" + NAMED, b"abcdefghij", 10)

    def copyfile(self, smb, tid, src="src", dst="dst", code=None,
                 src_access=FILE_READ_DATA,
                 dst_access=FILE_READ_DATA | FILE_WRITE_DATA,
                 disposition=FILE_CREATE):
        """A copychunk of 0 chunks from src to dst: (status, response)."""
        from impacket.smb3 import SessionError
        sfid = smb.create(tid, src, src_access, SHARE_ALL, 0, FILE_OPEN, 0)
        dfid = smb.create(tid, dst, dst_access, SHARE_ALL, 0, disposition,
                          0)
        try:
            key = bytes(smb.ioctl(tid, sfid, FSCTL_SRV_REQUEST_RESUME_KEY,
                                  SMB2_0_IOCTL_IS_FSCTL, b"", 0, 32))[:24]
            try:
                rsp = smb.ioctl(tid, dfid, code or FSCTL_SRV_COPYCHUNK,
                                SMB2_0_IOCTL_IS_FSCTL,
                                key + struct.pack("<II", 0, 0), 0, 12)
                return 0, struct.unpack("<III", bytes(rsp))
            except SessionError as e:
                return e.get_error_code(), None
        finally:
            smb.close(tid, dfid)
            smb.close(tid, sfid)

    def assert_copied(self, smb, tid, dst="dst"):
        self.assertEqual(self.get(smb, tid, dst), DATA)
        self.assertEqual(self.get(smb, tid, dst + ":AFP_AfpInfo"),
                         afpinfo())
        self.assertEqual(self.get(smb, tid, dst + ":AFP_Resource"), RSRC)
        self.assertEqual(self.get(smb, tid, dst + ":" + NAMED),
                         b"\0" * 10 + b"abcdefghij")
        self.assertEqual(self.streams(smb, tid, dst),
                         self.streams(smb, tid, "src"))

    def test_copyfile(self):
        """The whole file, its streams included, with either copychunk
        code; the fork in dst's "._" file (fruit:resource = file).  As
        Samba's copy of a stream sets the write time at its close, dst
        gets src's."""
        conn, smb, tid = self.session()
        self.assertTrue(self.caps & OSX_COPYFILE)
        self.source(smb, tid)
        self.assertEqual(len(self.streams(smb, tid, "src")), 4)
        os.utime(self.share_path("src"), (1000000000, 1000000000))
        st, rsp = self.copyfile(smb, tid)
        self.assertEqual((st, rsp), (0, (0, 0, len(DATA))))
        self.assert_copied(smb, tid)
        self.assertTrue(os.path.exists(self.share_path("._dst")))
        self.assertEqual(os.stat(self.share_path("dst")).st_mtime,
                         1000000000)
        st, rsp = self.copyfile(smb, tid, dst="dst2",
                                code=FSCTL_SRV_COPYCHUNK_WRITE,
                                dst_access=FILE_WRITE_DATA)
        self.assertEqual((st, rsp), (0, (0, 0, len(DATA))))
        self.assert_copied(smb, tid, "dst2")

    def test_large_file(self):
        """A file over two of the server's 64 MiB steps (three pool
        jobs for the data) comes whole."""
        size = (129 << 20) + 3
        with open(self.share_path("src"), "wb") as f:
            for off in (0, 64 << 20, (128 << 20) + 7, size - 5):
                f.seek(off)
                f.write(b"mark%d" % off)
            f.truncate(size)
        os.chmod(self.share_path("src"), 0o666)
        conn, smb, tid = self.session()
        self.put(smb, tid, "src:" + NAMED, b"x")
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, size)))
        with open(self.share_path("src"), "rb") as a, \
                open(self.share_path("dst"), "rb") as b:
            while True:
                x, y = a.read(1 << 20), b.read(1 << 20)
                self.assertEqual(x, y)
                if not x:
                    break
        self.assertEqual(self.get(smb, tid, "dst:" + NAMED), b"x")

    def test_stream_fork(self):
        """fruit:resource = stream: the fork is an xattr stream."""
        conn, smb, tid = self.session("streamfork")
        self.source(smb, tid)
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, len(DATA))))
        self.assert_copied(smb, tid)
        self.assertFalse(os.path.exists(self.share_path("._dst")))

    def test_netatalk(self):
        """fruit:metadata = netatalk and fruit:resource = xattr (Samba's
        default metadata; the fork in Netatalk's xattr): the FinderInfo
        and the fork come with the copy, in the target's own xattrs."""
        if h.is_samba():
            self.skipTest("Samba 4.17 on Linux refuses AFP_Resource with "
                          "fruit:resource = xattr (NOT_SUPPORTED)")
        conn, smb, tid = self.session("netatalk")
        self.source(smb, tid)
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, len(DATA))))
        self.assert_copied(smb, tid)
        self.assertEqual(os.getxattr(self.share_path("dst"),
                                     "user.org.netatalk.ResourceFork"), RSRC)
        self.assertEqual(len(os.getxattr(self.share_path("dst"),
                                         "user.org.netatalk.Metadata")),
                         len(os.getxattr(self.share_path("src"),
                                         "user.org.netatalk.Metadata")))

    def test_empty_source(self):
        """An empty file's streams are copied too."""
        conn, smb, tid = self.session()
        self.put(smb, tid, "src", b"")
        self.put(smb, tid, "src:" + NAMED, b"x")
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, 0)))
        self.assertEqual(self.get(smb, tid, "dst:" + NAMED), b"x")

    def test_without_aapl(self):
        """A session that did not negotiate AAPL: 0 chunks copy
        nothing (Windows's answer, smbtorture's copyfile first part)."""
        conn, smb, tid = self.session(aapl=False)
        self.source(smb, tid)
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, 0)))
        self.assertEqual(self.get(smb, tid, "dst"), b"")
        self.assertEqual(self.streams(smb, tid, "dst"), ["::$DATA"])

    def test_target_stream_exists(self):
        """As Samba creates each stream with FILE_CREATE: one the target
        has already fails the copy with OBJECT_NAME_COLLISION, after the
        data."""
        conn, smb, tid = self.session()
        self.source(smb, tid)
        self.put(smb, tid, "dst", b"")
        self.put(smb, tid, "dst:" + NAMED, b"old")
        st, rsp = self.copyfile(smb, tid, disposition=FILE_OPEN)
        self.assertEqual(st, STATUS_OBJECT_NAME_COLLISION)
        self.assertEqual(self.get(smb, tid, "dst"), DATA)
        self.assertEqual(self.get(smb, tid, "dst:" + NAMED), b"old")

    def test_access(self):
        """The checks of any copychunk: read on the source, write (and
        for FSCTL_SRV_COPYCHUNK read) on the target."""
        conn, smb, tid = self.session()
        self.source(smb, tid)
        self.put(smb, tid, "dst", b"")
        for src_access, dst_access, code in (
                (FILE_READ_ATTRIBUTES, FILE_READ_DATA | FILE_WRITE_DATA,
                 None),
                (FILE_READ_DATA, FILE_READ_DATA, None),
                (FILE_READ_DATA, FILE_WRITE_DATA, None)):
            st, _ = self.copyfile(smb, tid, src_access=src_access,
                                  dst_access=dst_access, code=code,
                                  disposition=FILE_OPEN)
            self.assertEqual(st, STATUS_ACCESS_DENIED)
        self.assertEqual(self.get(smb, tid, "dst"), b"")
        self.assertEqual(self.streams(smb, tid, "dst"), ["::$DATA"])

    def test_share_without_copyfile(self):
        """fruit:copyfile = no on a share: no cap, no copy."""
        if h.is_samba():
            self.skipTest("a global option in Samba")
        conn, smb, tid = self.session("nocopy")
        self.assertFalse(self.caps & OSX_COPYFILE)
        self.source(smb, tid)
        self.assertEqual(self.copyfile(smb, tid), (0, (0, 0, 0)))
        self.assertEqual(self.get(smb, tid, "dst"), b"")


h.backend_variants(globals(), FruitCopyfile)

if __name__ == "__main__":
    h.main()
