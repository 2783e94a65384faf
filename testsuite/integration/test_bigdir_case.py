#!/usr/bin/python3
"""Names in another case than on disk, through the directory name cache.

Issue 18 ("Large directories"): a name without an exact match is looked
up in a per-worker cache of the directory's case-folded names
(vfs/dircache.c), validated by the directory's mtime and ctime.  These
tests check that the answers are those of a scan: a different-case open
finds the file; after a create, delete or rename made on disk (outside
SMB) and after ones made through SMB the lookup is right, not stale,
both at once (the directory just changed: the server scans) and after a
pause (the directory is quiet: the cache is rebuilt); an 8.3 alias still
resolves; a case-sensitive share finds nothing in another case.  The
directory holds 200 names (more than the cache's lower bound of 64).  A
listing (the entries' attributes and EaSize, read without opening them)
is checked too.  Samba 4.17 passes all of them (SMBD=/usr/sbin/smbd).
"""

import os
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket import smb3structs as s3  # noqa: E402

N = 200
SHARE_ALL = 0x7
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_OBJECT_NAME_COLLISION = 0xC0000035
QUIET = 0.15     # longer than the cache's 20 ms margin for a changed dir
FILE_ATTRIBUTE_HIDDEN = 0x2


def name(i):
    return "Name_%03d.txt" % i


class BigdirCase(h.TestUser):

    def setUp(self):
        super().setUp()
        self.empty_share()
        d = self.share_path("dir")
        os.mkdir(d)
        os.chmod(d, 0o777)
        for i in range(N):
            self.disk_write("dir/" + name(i))
        time.sleep(QUIET)
        self.conn = self.impacket_logon()
        self.addCleanup(self.conn.close)
        self.smb = self.conn.getSMBServer()
        self.tid = self.conn.connectTree("share")

    def disk_write(self, rel, data=None):
        """A file made on disk, holding its own name (or data)."""
        p = self.share_path(*rel.split("/"))
        with open(p, "wb") as f:
            f.write((data if data is not None else rel).encode())
        os.chmod(p, 0o666)

    def open_read(self, path):
        """What the file the server finds for path holds, or the NTSTATUS
        of the failed open."""
        try:
            fid = self.smb.create(self.tid, path, s3.FILE_READ_DATA,
                                  SHARE_ALL, s3.FILE_NON_DIRECTORY_FILE,
                                  s3.FILE_OPEN, 0)
        except Exception as e:  # impacket's SessionError
            return e.get_error_code()
        try:
            return self.smb.read(self.tid, fid, 0, 200).decode()
        finally:
            self.smb.close(self.tid, fid)

    def assert_finds(self, path, on_disk):
        self.assertEqual(self.open_read(path), on_disk)

    def assert_missing(self, path):
        self.assertEqual(self.open_read(path), STATUS_OBJECT_NAME_NOT_FOUND)

    def warm(self):
        """A lookup in another case: builds the cache for "dir"."""
        self.assert_finds("dir\\NAME_199.TXT", "dir/Name_199.txt")

    def test_other_case_finds_file(self):
        for _ in range(2):
            self.assert_finds("dir\\NAME_007.TXT", "dir/Name_007.txt")
            self.assert_finds("dir\\name_008.txt", "dir/Name_008.txt")
            self.assert_finds("DIR\\nAmE_009.TxT", "dir/Name_009.txt")
        self.assert_missing("dir\\NAME_200.TXT")
        self.assert_missing("dir\\NAME_00.TXT")

    def test_create_in_other_case_collides(self):
        self.warm()
        with self.assertRaises(Exception) as cm:
            self.smb.create(self.tid, "dir\\NAME_011.TXT",
                            s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                            SHARE_ALL, s3.FILE_NON_DIRECTORY_FILE,
                            s3.FILE_CREATE, 0)
        self.assertEqual(cm.exception.get_error_code(),
                         STATUS_OBJECT_NAME_COLLISION)
        self.assertNotIn("NAME_011.TXT", os.listdir(self.share_path("dir")))

    def test_local_create(self):
        self.warm()
        self.assert_missing("dir\\FRESH_1.TXT")
        self.disk_write("dir/Fresh_1.txt")
        self.assert_finds("dir\\FRESH_1.TXT", "dir/Fresh_1.txt")
        self.disk_write("dir/Fresh_2.txt")
        time.sleep(QUIET)
        self.assert_finds("dir\\FRESH_2.TXT", "dir/Fresh_2.txt")
        self.assert_finds("dir\\FRESH_1.TXT", "dir/Fresh_1.txt")

    def test_local_delete(self):
        self.warm()
        self.assert_finds("dir\\NAME_010.TXT", "dir/Name_010.txt")
        os.unlink(self.share_path("dir", name(10)))
        self.assert_missing("dir\\NAME_010.TXT")
        os.unlink(self.share_path("dir", name(11)))
        time.sleep(QUIET)
        self.assert_missing("dir\\NAME_011.TXT")
        self.assert_missing("dir\\NAME_010.TXT")
        self.assert_finds("dir\\NAME_012.TXT", "dir/Name_012.txt")

    def test_local_rename(self):
        self.warm()
        os.rename(self.share_path("dir", name(20)),
                  self.share_path("dir", "Renamed_020.txt"))
        self.assert_missing("dir\\NAME_020.TXT")
        self.assert_finds("dir\\RENAMED_020.TXT", "dir/Name_020.txt")
        time.sleep(QUIET)
        os.rename(self.share_path("dir", name(21)),
                  self.share_path("dir", "Renamed_021.txt"))
        time.sleep(QUIET)
        self.assert_missing("dir\\NAME_021.TXT")
        self.assert_finds("dir\\renamed_021.TXT", "dir/Name_021.txt")

    def test_local_rename_case_only(self):
        self.warm()
        time.sleep(QUIET)
        os.rename(self.share_path("dir", name(30)),
                  self.share_path("dir", "NAME_030.TXT"))
        time.sleep(QUIET)
        # the exact name now, and another case: the same file
        self.assert_finds("dir\\NAME_030.TXT", "dir/Name_030.txt")
        self.assert_finds("dir\\name_030.txt", "dir/Name_030.txt")

    def test_local_replace_by_other_file(self):
        """A name removed and made again holds other data: the lookup
        reaches the new file (no cached handle of the old one)."""
        self.warm()
        os.unlink(self.share_path("dir", name(40)))
        self.disk_write("dir/NAME_040.txt", "second")
        time.sleep(QUIET)
        self.assert_finds("dir\\name_040.TXT", "second")

    def test_smb_rename(self):
        self.warm()
        self.conn.rename("share", "dir\\NAME_050.TXT", "dir\\Moved_050.txt")
        self.assertIn("Moved_050.txt", os.listdir(self.share_path("dir")))
        self.assert_missing("dir\\NAME_050.TXT")
        self.assert_finds("dir\\MOVED_050.TXT", "dir/Name_050.txt")
        time.sleep(QUIET)
        self.assert_finds("dir\\moved_050.txt", "dir/Name_050.txt")
        self.assert_missing("dir\\name_050.txt")

    def test_smb_create_and_delete(self):
        self.warm()
        fid = self.smb.create(self.tid, "dir\\NewOne.txt",
                              s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                              SHARE_ALL, s3.FILE_NON_DIRECTORY_FILE,
                              s3.FILE_CREATE, 0)
        self.smb.writeFile(self.tid, fid, b"made over SMB", 0)
        self.smb.close(self.tid, fid)
        self.assert_finds("dir\\NEWONE.TXT", "made over SMB")
        time.sleep(QUIET)
        self.assert_finds("dir\\newone.TXT", "made over SMB")
        self.conn.deleteFile("share", "dir\\NEWONE.TXT")
        self.assertNotIn("NewOne.txt", os.listdir(self.share_path("dir")))
        self.assert_missing("dir\\NEWONE.TXT")
        time.sleep(QUIET)
        self.assert_missing("dir\\newone.txt")

    def test_subdirectory_other_case(self):
        os.mkdir(self.share_path("dir", "Sub Dir"))
        os.chmod(self.share_path("dir", "Sub Dir"), 0o777)
        self.disk_write("dir/Sub Dir/Deep.txt")
        time.sleep(QUIET)
        self.assert_finds("DIR\\SUB DIR\\DEEP.TXT", "dir/Sub Dir/Deep.txt")
        self.assert_finds("dir\\sub dir\\deep.txt", "dir/Sub Dir/Deep.txt")

    def test_mangled_name(self):
        """An 8.3 alias the server listed opens its long name."""
        longname = "A Long File Name Example.document"
        self.disk_write("dir/" + longname)
        time.sleep(QUIET)
        self.warm()
        short = self.short_name(longname)
        if not short and h.is_samba():
            # Samba 4.17's `mangled names = illegal` lists none for it
            self.skipTest("no 8.3 alias listed")
        self.assertTrue(short and short != longname, short)
        self.assert_finds("dir\\" + short, "dir/" + longname)
        self.assert_finds("dir\\" + short.lower(), "dir/" + longname)

    def query_dir(self, pattern, cls):
        """The raw entries of one QUERY_DIRECTORY of "dir"."""
        fid = self.smb.create(self.tid, "dir", s3.FILE_READ_DATA,
                              SHARE_ALL, s3.FILE_DIRECTORY_FILE,
                              s3.FILE_OPEN, 0)
        try:
            raw = self.smb.queryDirectory(self.tid, fid, pattern,
                                          informationClass=cls,
                                          maxBufferSize=65536)
        finally:
            self.smb.close(self.tid, fid)
        off = 0
        while True:
            nxt, = struct.unpack_from("<I", raw, off)
            yield raw[off:off + nxt] if nxt else raw[off:]
            if nxt == 0:
                return
            off += nxt

    def short_name(self, longname):
        """The 8.3 alias the server lists for longname: its
        FileBothDirectoryInformation (MS-FSCC 2.4.8: ShortNameLength at
        68, ShortName at 70, FileName at 94)."""
        for e in self.query_dir(longname, s3.FILE_BOTH_DIRECTORY_INFORMATION):
            slen = e[68]
            return e[70:70 + slen].decode("utf-16-le")
        return None

    def listing(self, pattern):
        """{name: (attributes, EaSize)} from FileFullDirectoryInformation
        (MS-FSCC 2.4.14: FileAttributes at 56, FileNameLength at 60,
        EaSize at 64, FileName at 68)."""
        out = {}
        for e in self.query_dir(pattern, s3.FILE_FULL_DIRECTORY_INFORMATION):
            attrs, nlen, ea = struct.unpack_from("<III", e, 56)
            out[e[68:68 + nlen].decode("utf-16-le")] = (attrs, ea)
        return out

    def test_listing_attributes_and_ea_size(self):
        self.disk_write("dir/With_ea.txt")
        os.setxattr(self.share_path("dir", "With_ea.txt"), "user.colour",
                    b"blue")
        rc, out = self.smbclient("-c", "setmode dir/Name_005.txt +h")
        self.assertEqual(rc, 0, out)
        got = self.listing("*")
        self.assertEqual(len(got), N + 3)       # ".", "..", With_ea.txt
        self.assertTrue(got[name(5)][0] & FILE_ATTRIBUTE_HIDDEN, got[name(5)])
        self.assertFalse(got[name(6)][0] & FILE_ATTRIBUTE_HIDDEN)
        self.assertEqual(got[name(6)][1], 0)
        # what the server says for the file itself (FileEaInformation):
        # FILE_FULL_EA_INFORMATION of 8 + "colour" NUL + "blue"
        self.assertEqual(got["With_ea.txt"][1],
                         self.ea_size("dir\\With_ea.txt"))
        self.assertIn(got["With_ea.txt"][1], (19, 20))

    def test_large_listing_with_links(self):
        """Enough entries for the listing's two-thread stat-ahead
        (smb2_querydir.c qd_prestat), with symlinks among them: one to a
        file is listed (ours: as a reparse point, 'r' and no data, issue
        35; Samba 4.17: as the file), a dangling one is not listed."""
        big = self.share_path("dir", "many")
        os.mkdir(big)
        os.chmod(big, 0o777)
        for i in range(3000):
            with open(os.path.join(big, "f%05d.txt" % i), "wb") as f:
                f.write(b"x" * (i % 7))
        os.symlink("f00003.txt", os.path.join(big, "link_to_file"))
        os.symlink("nowhere", os.path.join(big, "link_dangling"))
        rc, out = self.smbclient("-c", "cd dir/many; ls")
        self.assertEqual(rc, 0, out)
        listed = {}
        for ln in out.splitlines():
            parts = ln.split()
            if ln.startswith("  ") and len(parts) >= 3 and \
                    parts[0] not in (".", ".."):
                listed[parts[0]] = parts
        self.assertEqual(len(listed), 3001, sorted(listed)[:5])
        self.assertNotIn("link_dangling", listed)
        if h.is_samba():
            self.assertEqual(listed["link_to_file"][-6], "3")  # the file's
        else:
            self.assertEqual(listed["link_to_file"][-6], "0")
            self.assertIn("r", listed["link_to_file"][1])
        for i in (0, 1499, 1500, 2999):
            self.assertEqual(listed["f%05d.txt" % i][-6], str(i % 7))

    def ea_size(self, path):
        """FileEaInformation (MS-FSCC 2.4.12) of path."""
        fid = self.smb.create(self.tid, path, s3.FILE_READ_EA, SHARE_ALL,
                              s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN, 0)
        try:
            raw = self.smb.queryInfo(self.tid, fid,
                                     infoType=s3.SMB2_0_INFO_FILE,
                                     fileInfoClass=7)
        finally:
            self.smb.close(self.tid, fid)
        return struct.unpack_from("<I", raw, 0)[0]


class BigdirCaseSensitive(h.TestUser):
    """`case sensitive = yes`: no lookup without case, cached or not."""

    share_options = {"case sensitive": "yes"}

    def test_other_case_not_found(self):
        self.empty_share()
        d = self.share_path("dir")
        os.mkdir(d)
        os.chmod(d, 0o777)
        for i in range(N):
            with open(os.path.join(d, name(i)), "wb") as f:
                f.write(b"x")
        time.sleep(QUIET)
        conn = self.impacket_logon()
        try:
            smb = conn.getSMBServer()
            tid = conn.connectTree("share")
            for path in ("dir\\NAME_001.TXT", "dir\\NAME_001.TXT"):
                with self.assertRaises(Exception) as cm:
                    smb.create(tid, path, s3.FILE_READ_DATA, SHARE_ALL,
                               s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN, 0)
                self.assertEqual(cm.exception.get_error_code(),
                                 STATUS_OBJECT_NAME_NOT_FOUND)
            fid = smb.create(tid, "dir\\" + name(1), s3.FILE_READ_DATA,
                             SHARE_ALL, s3.FILE_NON_DIRECTORY_FILE,
                             s3.FILE_OPEN, 0)
            smb.close(tid, fid)
        finally:
            conn.close()


h.backend_variants(globals(), BigdirCase)
h.backend_variants(globals(), BigdirCaseSensitive, backends=("io_uring",))

if __name__ == "__main__":
    h.main()
