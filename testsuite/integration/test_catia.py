#!/usr/bin/python3
"""vfs_catia: character mapping between wire names and on-disk names
(issue 17, the macOS part).

A Mac sends the characters NTFS forbids in a name (" * : < > ? \\ | and
0x01-0x1F) as private-use code points U+F001-U+F027 (the SFM mapping).
With `vfs objects = catia` and `catia:mappings = SERVER:CLIENT,...` those
come to disk as the real characters and go back to the wire mapped, in
names, listings, search patterns, stream names and rename targets.  Without
catia, or with catia and no catia:mappings (as on a `catia fruit
streams_xattr` share with the default fruit:encoding = private), the
private-use characters are stored as they are.  QUERY_INFO's names
(FileAllInformation, the stream list) and CHANGE_NOTIFY's go back mapped
too.  Samba 4.17 gives the same answers (SMBD=/usr/sbin/smbd), except
that its CHANGE_NOTIFY reports the on-disk name, one the client cannot
open; every test runs once per event-loop backend.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

# Samba's macOS map (what fruit:encoding = native installs), written the
# way an admin would: server (on-disk) character : client (wire) character.
MACOS_MAP = ",".join(
    ["0x%02x:0x%04x" % (c, 0xf000 + c) for c in range(1, 0x20)] +
    ["0x22:0xf020", "0x2a:0xf021", "0x3a:0xf022", "0x3c:0xf023",
     "0x3e:0xf024", "0x3f:0xf025", "0x5c:0xf026", "0x7c:0xf027"])

# wire (client) name -> on-disk name under MACOS_MAP
WIRE = "a\uf022b\uf020c\uf021d\uf025e\uf027f\uf023g\uf024.txt"
DISK = 'a:b"c*d?e|f<g>.txt'


class Catia(h.TestUser):

    share_options = [("vfs objects", "catia streams_xattr"),
                     ("catia:mappings", MACOS_MAP)]
    # the same directory: the Mac setup of issue 17 without mappings, and
    # a share that has mappings written but no catia in vfs objects
    extra_shares = [
        ("macos", [("vfs objects", "catia fruit streams_xattr")]),
        ("plain", [("vfs objects", "streams_xattr"),
                   ("catia:mappings", MACOS_MAP)]),
    ]

    def setUp(self):
        super().setUp()
        self.empty_share()

    def create(self, share, name, data=b"", directory=False):
        from impacket.smb3structs import (FILE_CREATE, FILE_DIRECTORY_FILE,
                                          FILE_NON_DIRECTORY_FILE)
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree(share)
            fid = conn.createFile(
                tid, name, creationDisposition=FILE_CREATE,
                creationOption=FILE_DIRECTORY_FILE if directory
                else FILE_NON_DIRECTORY_FILE)
            if data:
                conn.writeFile(tid, fid, data)
            conn.closeFile(tid, fid)
        finally:
            conn.close()

    def listing(self, share, pattern="*"):
        conn = self.impacket_logon()
        try:
            return sorted(f.get_longname()
                          for f in conn.listPath(share, pattern)
                          if f.get_longname() not in (".", ".."))
        finally:
            conn.close()

    def read(self, share, name):
        from impacket.smb3structs import FILE_READ_DATA
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree(share)
            fid = conn.openFile(tid, name, desiredAccess=FILE_READ_DATA)
            data = conn.readFile(tid, fid)
            conn.closeFile(tid, fid)
            return data
        finally:
            conn.close()

    def test_create_maps_to_disk(self):
        self.create("share", WIRE, b"mapped\n")
        self.assertEqual(os.listdir(self.share_path()), [DISK])
        with open(self.share_path(DISK), "rb") as f:
            self.assertEqual(f.read(), b"mapped\n")

    def test_listing_maps_to_wire(self):
        with open(self.share_path(DISK), "wb") as f:
            f.write(b"x")
        self.assertEqual(self.listing("share"), [WIRE])
        self.assertEqual(self.read("share", WIRE), b"x")

    def test_control_characters(self):
        wire = "ctl\uf001\uf01f.txt"
        self.create("share", wire)
        self.assertEqual(os.listdir(self.share_path()),
                         ["ctl\x01\x1f.txt"])
        self.assertEqual(self.listing("share"), [wire])

    def test_pattern_is_mapped(self):
        self.create("share", WIRE)
        self.create("share", "other.txt")
        self.assertEqual(self.listing("share", "a\uf022b*"), [WIRE])

    def test_directory_path(self):
        self.create("share", "dir\uf022one", directory=True)
        self.create("share", "dir\uf022one\\in\uf03fside\uf022.txt",
                    b"deep")
        self.assertEqual(os.listdir(self.share_path()), ["dir:one"])
        # U+F03F is outside the map: kept as it is
        self.assertEqual(os.listdir(self.share_path("dir:one")),
                         ["in\uf03fside:.txt"])
        self.assertEqual(self.listing("share", "dir\uf022one\\*"),
                         ["in\uf03fside\uf022.txt"])

    def test_stream_name_is_mapped(self):
        self.create("share", "s.txt")
        self.create("share", "s.txt:col\uf022on", b"stream data")
        names = os.listxattr(self.share_path("s.txt"))
        self.assertIn("user.DosStream.col:on:$DATA", names)
        self.assertEqual(self.read("share", "s.txt:col\uf022on"),
                         b"stream data")

    def test_no_mappings_keeps_private_use(self):
        # catia fruit streams_xattr with fruit's default encoding
        self.create("macos", WIRE)
        self.assertEqual(os.listdir(self.share_path()), [WIRE])
        self.assertEqual(self.listing("macos"), [WIRE])

    def test_not_in_vfs_objects(self):
        self.create("plain", WIRE)
        self.assertEqual(os.listdir(self.share_path()), [WIRE])
        self.assertEqual(self.listing("plain"), [WIRE])

    def test_rename_target_is_mapped(self):
        self.create("share", "before.txt", b"r")
        rc, out = self.smbclient("-c", "rename before.txt after\uf022.txt")
        self.assertEqual(rc, 0, out)
        self.assertEqual(os.listdir(self.share_path()), ["after:.txt"])

    def query(self, share, name, cls):
        """QUERY_INFO of class cls on name, the raw buffer."""
        from impacket import smb3structs as s3
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree(share)
            fid = conn.openFile(tid, name,
                                desiredAccess=s3.FILE_READ_ATTRIBUTES)
            smb = conn.getSMBServer()
            data = smb.queryInfo(tid, fid, infoType=s3.SMB2_0_INFO_FILE,
                                 fileInfoClass=cls)
            conn.closeFile(tid, fid)
            return data
        finally:
            conn.close()

    def test_query_info_name_maps_to_wire(self):
        self.create("share", "dir\uf022one", directory=True)
        self.create("share", "dir\uf022one\\" + WIRE, b"q")
        data = self.query("share", "dir\uf022one\\" + WIRE, 0x12)
        # FileAllInformation (MS-FSCC 2.4.2): FileNameLength at 96
        nlen, = struct.unpack_from("<I", data, 96)
        self.assertEqual(data[100:100 + nlen].decode("utf-16-le"),
                         "\\dir\uf022one\\" + WIRE)

    def test_stream_list_maps_to_wire(self):
        self.create("share", "s.txt")
        self.create("share", "s.txt:col\uf022on", b"stream data")
        data = self.query("share", "s.txt", 0x16)
        self.assertEqual(h.stream_info_names(data),
                         ["::$DATA", ":col\uf022on:$DATA"])

    def test_notify_name_maps_to_wire(self):
        if h.is_samba():
            self.skipTest("Samba 4.17 reports the on-disk name "
                          "(a:b\"c*...), one the client cannot open")
        from impacket import smb3structs as s3
        from test_notify import notify_send, parse_changes
        os.mkdir(self.share_path("w"))
        os.chmod(self.share_path("w"), 0o777)
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("share")
            smb = conn.getSMBServer()
            d = smb.create(tid, "w", s3.FILE_READ_DATA | s3.SYNCHRONIZE,
                           s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE |
                           s3.FILE_SHARE_DELETE,
                           s3.FILE_DIRECTORY_FILE, s3.FILE_OPEN, 0)
            mid = notify_send(smb, tid, d, s3.FILE_NOTIFY_CHANGE_FILE_NAME)
            with open(self.share_path("w", DISK), "w") as f:
                f.write("n")
            ans = smb.recvSMB(mid)
            self.assertEqual(ans["Status"], 0)
            self.assertEqual(parse_changes(ans["Data"]), [(1, WIRE)])
        finally:
            conn.close()


h.backend_variants(globals(), Catia)

if __name__ == "__main__":
    h.main()
