#!/usr/bin/python3
"""A Mac's metadata moves between our smbd and Samba's unchanged (issue 17).

Both servers run at once, each with a share on the same directory and the
macOS setup (`vfs objects = catia fruit streams_xattr`, fruit:metadata =
stream, fruit:resource = stream).  A file given Finder info (the 60-byte
AFP_AfpInfo record) and a resource fork (AFP_Resource) through one server
reads back byte for byte through the other, in both directions, and both
list the same streams.  So an admin can swap one server for the other
under a share Macs already use.  A second share, "rsrcfile", on the same
directory has fruit:resource = file (the default of both): there the
resource fork is the "._NAME" AppleDouble file, and a fork larger than an
xattr holds, written through either server, reads back through the other.
A third, "netatalk", leaves fruit:metadata to the default of both,
netatalk: the FinderInfo is kept in the xattr user.org.netatalk.Metadata
(Netatalk's 402-byte AppleDouble), which either server reads as the
other wrote it.

Needs Samba's smbd (/usr/sbin/smbd, Debian's samba package, which CI
installs); skipped without it.
"""

import os
import shutil
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402
from impacket import smb3structs as s3  # noqa: E402

SAMBA = "/usr/sbin/smbd"
USER = "smbdtest"
PASSWORD = "Test-Pass-1"
MAC_SHARE = [("vfs objects", "catia fruit streams_xattr"),
             ("fruit:metadata", "stream"),
             ("fruit:resource", "stream")]
# fruit:resource = file, left to the default of both servers
RSRC_FILE_SHARE = [("vfs objects", "catia fruit streams_xattr"),
                   ("fruit:metadata", "stream")]
# fruit:metadata = netatalk, left to the default of both servers
NETATALK_SHARE = [("vfs objects", "catia fruit streams_xattr"),
                  ("fruit:resource", "stream")]
NETATALK_XATTR = "user.org.netatalk.Metadata"


def afpinfo(finder):
    """A whole AfpInfo record, as macOS writes it: 'AFP\\0', version
    0x00000100, reserved, backup time, the 32-byte FinderInfo, the 6-byte
    ProDOS info and 6 reserved bytes (60).  (A shorter write is taken as
    the start of the record by both servers, but Samba 4.17 then stores
    uninitialised bytes after it.)"""
    return struct.pack(">4sIII32s6s6s", b"AFP\0", 0x100, 0, 0x80000000,
                       finder.ljust(32, b"\0"), b"\0" * 6, b"\0" * 6)


class Client:
    def __init__(self, port, share="share"):
        self.conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port,
                                  timeout=h.NET_TIMEOUT)
        self.conn.login(USER, PASSWORD)
        self.tid = self.conn.connectTree(share)
        self.smb = self.conn.getSMBServer()

    def close(self):
        self.conn.close()

    def write(self, name, data):
        fid = self.conn.createFile(self.tid, name,
                                   creationDisposition=s3.FILE_OVERWRITE_IF)
        try:
            if data:
                self.conn.writeFile(self.tid, fid, data)
        finally:
            self.conn.closeFile(self.tid, fid)

    def read(self, name, size):
        fid = self.conn.openFile(self.tid, name,
                                 desiredAccess=s3.FILE_READ_DATA)
        try:
            return self.conn.readFile(self.tid, fid, 0, size)
        finally:
            self.conn.closeFile(self.tid, fid)

    def streams(self, name):
        fid = self.conn.openFile(self.tid, name,
                                 desiredAccess=s3.FILE_READ_ATTRIBUTES)
        try:
            raw = self.smb.queryInfo(self.tid, fid,
                                     infoType=s3.SMB2_0_INFO_FILE,
                                     fileInfoClass=22)
        finally:
            self.conn.closeFile(self.tid, fid)
        return h.stream_info_names(raw)


class FruitInterop(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        if h.is_samba() or not os.access(SAMBA, os.X_OK):
            raise unittest.SkipTest("needs our smbd and Samba's (%s)"
                                    % SAMBA)
        cls.common = tempfile.mkdtemp(prefix="smbd-fruit-interop-")
        os.chmod(cls.common, 0o777)
        cls.servers = {}
        try:
            for name, binary in (("ours", h.smbd_binary()),
                                 ("samba", SAMBA)):
                srv = h.Smbd(binary=binary, share_options=MAC_SHARE,
                             extra_shares=[("rsrcfile",
                                            RSRC_FILE_SHARE),
                                           ("netatalk", NETATALK_SHARE)])
                cls.servers[name] = srv
                srv.share = cls.common
                srv.write_conf()
                srv.create_user(USER, PASSWORD)
                srv.start()
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for srv in cls.servers.values():
            srv.cleanup()
        shutil.rmtree(cls.common, ignore_errors=True)

    def client(self, name, share="share"):
        c = Client(self.servers[name].port, share)
        self.addCleanup(c.close)
        return c

    def roundtrip(self, writer, reader, fname):
        finder = b"TEXTttxt" + bytes(range(1, 9))
        rsrc = bytes((i * 7) & 0xff for i in range(1500))
        w = self.client(writer)
        w.write(fname, b"the data fork\n")
        w.write(fname + ":AFP_AfpInfo", afpinfo(finder))
        w.write(fname + ":AFP_Resource", rsrc)
        r = self.client(reader)
        self.assertEqual(r.read(fname, 100), b"the data fork\n")
        self.assertEqual(r.read(fname + ":AFP_AfpInfo", 60),
                         afpinfo(finder))
        self.assertEqual(r.read(fname + ":AFP_Resource", 4096), rsrc)
        want = ["::$DATA", ":AFP_AfpInfo:$DATA", ":AFP_Resource:$DATA"]
        self.assertEqual(r.streams(fname), want)
        self.assertEqual(w.streams(fname), want)

    def roundtrip_rsrc_file(self, writer, reader, fname):
        # 300 KB: more than an ext4 xattr holds
        rsrc = bytes((i * 13) & 0xff for i in range(300000))
        w = self.client(writer, "rsrcfile")
        w.write(fname, b"the data fork\n")
        w.write(fname + ":AFP_Resource", rsrc)
        self.assertTrue(os.path.exists(os.path.join(self.common,
                                                    "._" + fname)))
        r = self.client(reader, "rsrcfile")
        self.assertEqual(r.read(fname + ":AFP_Resource", len(rsrc) + 10),
                         rsrc)
        want = ["::$DATA", ":AFP_Resource:$DATA"]
        self.assertEqual(r.streams(fname), want)
        self.assertEqual(w.streams(fname), want)

    def roundtrip_netatalk(self, writer, reader, fname):
        finder = b"TEXTttxt" + bytes(range(1, 9))
        w = self.client(writer, "netatalk")
        w.write(fname, b"the data fork\n")
        w.write(fname + ":AFP_AfpInfo", afpinfo(finder))
        path = os.path.join(self.common, fname)
        val = os.getxattr(path, NETATALK_XATTR)
        self.assertEqual(len(val), 402)
        self.assertEqual(val[122:122 + len(finder)], finder)
        self.assertNotIn("user.DosStream.AFP_AfpInfo:$DATA",
                         os.listxattr(path))
        r = self.client(reader, "netatalk")
        self.assertEqual(r.read(fname + ":AFP_AfpInfo", 60),
                         afpinfo(finder))
        want = ["::$DATA", ":AFP_AfpInfo:$DATA"]
        self.assertEqual(r.streams(fname), want)
        self.assertEqual(w.streams(fname), want)
        # changed by the reader, seen by the writer
        finder2 = b"APPLttxt"
        r.write(fname + ":AFP_AfpInfo", afpinfo(finder2))
        self.assertEqual(w.read(fname + ":AFP_AfpInfo", 60),
                         afpinfo(finder2))
        # zeros delete it, for both
        r.write(fname + ":AFP_AfpInfo", afpinfo(b""))
        self.assertEqual(w.streams(fname), ["::$DATA"])
        self.assertEqual(r.streams(fname), ["::$DATA"])
        return val

    def test_netatalk_ours_to_samba(self):
        ours = self.roundtrip_netatalk("ours", "samba", "na-from-ours.txt")
        theirs = self.roundtrip_netatalk("samba", "ours",
                                         "na-from-samba.txt")
        # the same layout byte for byte, but for the dates (354..370)
        self.assertEqual(ours[:354], theirs[:354])
        self.assertEqual(ours[362:366], theirs[362:366])
        self.assertEqual(ours[370:], theirs[370:])

    def test_netatalk_directory(self):
        """A directory's FinderInfo, both ways."""
        for writer, reader in (("ours", "samba"), ("samba", "ours")):
            name = "na-dir-from-" + writer
            finder = b"fldr" + writer.encode().ljust(12, b"!")
            w = self.client(writer, "netatalk")
            w.conn.createDirectory("netatalk", name)
            w.write(name + ":AFP_AfpInfo", afpinfo(finder))
            r = self.client(reader, "netatalk")
            self.assertEqual(r.read(name + ":AFP_AfpInfo", 60),
                             afpinfo(finder))
            self.assertEqual(len(os.getxattr(os.path.join(self.common, name),
                                             NETATALK_XATTR)), 402)

    def test_rsrc_file_ours_to_samba(self):
        self.roundtrip_rsrc_file("ours", "samba", "rsrc-from-ours.txt")

    def test_rsrc_file_samba_to_ours(self):
        self.roundtrip_rsrc_file("samba", "ours", "rsrc-from-samba.txt")

    def test_ours_to_samba(self):
        self.roundtrip("ours", "samba", "from-ours.txt")

    def test_samba_to_ours(self):
        self.roundtrip("samba", "ours", "from-samba.txt")


if __name__ == "__main__":
    h.main()
