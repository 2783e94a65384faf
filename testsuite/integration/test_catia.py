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
private-use characters are stored as they are.  Samba 4.17 gives the same
answers (SMBD=/usr/sbin/smbd); every test runs once per event-loop backend.
"""

import os
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


h.backend_variants(globals(), Catia)

if __name__ == "__main__":
    h.main()
