#!/usr/bin/python3
"""Case-only renames, as Explorer's F2 and Finder make them (issue 17).

`report.txt` -> `Report.txt` names the file itself: MS-FSA 2.1.5.14.11
treats a target that is the same file as a rename, not a collision, so the
file (or directory) gets the new spelling on disk.  A rename of an open
file follows the usual rule: every other open must share delete.  Samba
4.17 passes all of these (SMBD=/usr/sbin/smbd); every test runs once per
event-loop backend.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

SHARE_RWD = 0x7          # FILE_SHARE_READ | WRITE | DELETE
SHARE_RW = 0x3


class RenameCase(h.TestUser):

    def setUp(self):
        super().setUp()
        self.empty_share()

    def make_file(self, name, data=b"quarterly figures\n"):
        with open(self.share_path(name), "wb") as f:
            f.write(data)
        os.chmod(self.share_path(name), 0o666)

    def test_file(self):
        self.make_file("report.txt")
        rc, out = self.smbclient("-c", "rename report.txt Report.txt")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("NT_STATUS", out)
        self.assertEqual(os.listdir(self.share_path()), ["Report.txt"])

    def test_directory(self):
        os.mkdir(self.share_path("projects"))
        os.chmod(self.share_path("projects"), 0o777)
        self.make_file("projects/a.txt")
        rc, out = self.smbclient("-c", "rename projects Projects")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("NT_STATUS", out)
        self.assertEqual(os.listdir(self.share_path()), ["Projects"])
        self.assertEqual(os.listdir(self.share_path("Projects")),
                         ["a.txt"])

    def test_same_name_is_no_change(self):
        self.make_file("Same.txt")
        rc, out = self.smbclient("-c", "rename Same.txt Same.txt")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("NT_STATUS", out)
        self.assertEqual(os.listdir(self.share_path()), ["Same.txt"])

    def test_other_name_still_collides(self):
        self.make_file("a.txt")
        self.make_file("b.txt")
        rc, out = self.smbclient("-c", "rename a.txt B.TXT")
        self.assertIn("NT_STATUS_OBJECT_NAME_COLLISION", out)
        self.assertEqual(sorted(os.listdir(self.share_path())),
                         ["a.txt", "b.txt"])

    def open_and_rename(self, share_mode):
        """Hold report.txt open with share_mode, rename it to Report.txt
        through a second handle: (rename error or None, what the first
        handle reads afterwards)."""
        from impacket.smb3structs import (FILE_READ_DATA, FILE_OPEN,
                                          FILE_NON_DIRECTORY_FILE)
        self.make_file("report.txt")
        conn = self.impacket_logon()
        # the rename on a connection of its own: impacket keeps one entry
        # per file name and connection, which two handles would share
        other = self.impacket_logon()
        try:
            smb = conn.getSMBServer()
            tid = conn.connectTree("share")
            fid = smb.create(tid, "report.txt", FILE_READ_DATA, share_mode,
                             FILE_NON_DIRECTORY_FILE, FILE_OPEN, 0)
            err = None
            try:
                other.getSMBServer().rename("share", "report.txt",
                                            "Report.txt")
            except Exception as e:  # impacket's SessionError
                err = str(e)
            data = smb.read(tid, fid, 0, 100)
            smb.close(tid, fid)
            return err, data
        finally:
            other.close()
            conn.close()

    def test_open_file_sharing_delete(self):
        err, data = self.open_and_rename(SHARE_RWD)
        self.assertIsNone(err)
        self.assertEqual(os.listdir(self.share_path()), ["Report.txt"])
        self.assertEqual(data, b"quarterly figures\n")

    def test_open_file_not_sharing_delete(self):
        err, data = self.open_and_rename(SHARE_RW)
        self.assertIsNotNone(err)
        self.assertIn("STATUS_SHARING_VIOLATION", err)
        self.assertEqual(os.listdir(self.share_path()), ["report.txt"])
        self.assertEqual(data, b"quarterly figures\n")


h.backend_variants(globals(), RenameCase)

if __name__ == "__main__":
    h.main()
