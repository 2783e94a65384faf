#!/usr/bin/python3
"""`vfs objects` modules (issue 15 item 7): recycle, checked on disk after
deletes made with impacket; the same tests pass against Samba 4.17's
vfs_recycle (SMBD=/usr/sbin/smbd), which is where the expected layout
comes from ("Copy #n of NAME", keeptree, exclude lists matched without
case, exclude_dir matching any directory on the way, size bounds, files
deleted inside the repository going for real, directories removed for
real, the repository made with directory_mode).
"""

import os
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

FILE_DELETE_ON_CLOSE = 0x00001000
DELETE = 0x00010000
OLD = 1000000000  # a timestamp far in the past


class RecycleBase:
    def setUp(self):
        super().setUp()
        self.sh = self.smbd.share
        os.chmod(self.sh, 0o777)
        self.c = self.impacket_logon()

    def tearDown(self):
        self.c.close()
        super().tearDown()

    def put(self, name, data=b"xx"):
        p = os.path.join(self.sh, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        d = os.path.dirname(p)
        while d.startswith(self.sh) and d != self.sh:
            os.chmod(d, 0o777)
            d = os.path.dirname(d)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o666)
        os.utime(p, (OLD, OLD))
        return p

    def rm(self, name):
        self.c.deleteFile("share", name.replace("/", "\\"))
        self.assertFalse(os.path.lexists(os.path.join(self.sh, name)))

    def there(self, rel):
        return os.path.exists(os.path.join(self.sh, rel))

    def read(self, rel):
        with open(os.path.join(self.sh, rel), "rb") as f:
            return f.read()


class RecycleTree(RecycleBase):
    """keeptree, versions, exclude, exclude_dir, maxsize, noversions,
    touch, a repository with %U."""
    share_options = [("vfs objects", "recycle"),
                     ("recycle:repository", ".bin/%U"),
                     ("recycle:keeptree", "yes"),
                     ("recycle:versions", "yes"),
                     ("recycle:touch", "yes"),
                     ("recycle:exclude", "*.TMP, ~$*"),
                     ("recycle:exclude_dir", "scratch"),
                     ("recycle:noversions", "*.log"),
                     ("recycle:maxsize", "1000")]

    def repo(self, rel=""):
        return os.path.join(".bin", h.TEST_USER, rel)

    def test_keeptree(self):
        self.put("dir/sub/a.txt", b"tree")
        self.rm("dir/sub/a.txt")
        self.assertEqual(self.read(self.repo("dir/sub/a.txt")), b"tree")
        st = os.stat(os.path.join(self.sh, self.repo("dir/sub/a.txt")))
        # touch: atime now, mtime kept
        self.assertGreater(st.st_atime, time.time() - 600)
        self.assertEqual(int(st.st_mtime), OLD)
        # the repository and the tree in it: 0700, the user's
        for d in (".bin", self.repo(), self.repo("dir"),
                  self.repo("dir/sub")):
            ds = os.stat(os.path.join(self.sh, d))
            self.assertEqual(stat.S_IMODE(ds.st_mode), 0o700, d)
            self.assertEqual(ds.st_uid, self.smbd_uid(), d)

    def test_versions(self):
        for data in (b"v1", b"v2", b"v3"):
            self.put("v.txt", data)
            self.rm("v.txt")
        self.assertEqual(self.read(self.repo("v.txt")), b"v1")
        self.assertEqual(self.read(self.repo("Copy #1 of v.txt")), b"v2")
        self.assertEqual(self.read(self.repo("Copy #2 of v.txt")), b"v3")
        # noversions: the newer one replaces the older
        for data in (b"l1", b"l2"):
            self.put("x.log", data)
            self.rm("x.log")
        self.assertEqual(self.read(self.repo("x.log")), b"l2")
        self.assertFalse(self.there(self.repo("Copy #1 of x.log")))

    def test_exclude(self):
        for n in ("e.tmp", "~$doc.docx", "scratch/s.txt",
                  "deep/scratch/t.txt", "scratchy/k.txt"):
            self.put(n)
            self.rm(n)
        self.assertFalse(self.there(self.repo("e.tmp")))
        self.assertFalse(self.there(self.repo("~$doc.docx")))
        self.assertFalse(self.there(self.repo("scratch/s.txt")))
        self.assertFalse(self.there(self.repo("deep/scratch/t.txt")))
        # a directory whose name only starts like one excluded is kept
        self.assertTrue(self.there(self.repo("scratchy/k.txt")))

    def test_maxsize(self):
        self.put("big.bin", b"b" * 1001)
        self.put("fits.bin", b"f" * 1000)
        self.rm("big.bin")
        self.rm("fits.bin")
        self.assertFalse(self.there(self.repo("big.bin")))
        self.assertTrue(self.there(self.repo("fits.bin")))

    def test_dropped_connection(self):
        """A delete on close that the open leaves behind (the client goes
        away without CLOSE) is recycled too (smbd/open.c)."""
        self.put("gone/d.txt", b"dropped")
        c = self.impacket_logon()
        tid = c.connectTree("share")
        c.openFile(tid, "gone\\d.txt", desiredAccess=DELETE,
                   creationOption=FILE_DELETE_ON_CLOSE)
        c.getSMBServer().get_socket().close()
        self.assertTrue(h.wait_until(
            lambda: self.there(self.repo("gone/d.txt")), 10),
            "not recycled:\n" + self.smbd.log_tail(20))
        self.assertFalse(self.there("gone/d.txt"))

    def smbd_uid(self):
        import pwd
        return pwd.getpwnam(h.TEST_USER).pw_uid


class RecycleFlat(RecycleBase):
    """The defaults (.recycle, no tree, no versions) and minsize."""
    share_options = [("vfs objects", "recycle"),
                     ("recycle:minsize", "2")]

    def test_flat_and_replace(self):
        self.put("d1/f.txt", b"one")
        self.rm("d1/f.txt")
        self.assertEqual(self.read(".recycle/f.txt"), b"one")
        # no versions: the later delete replaces the earlier one
        self.put("d2/f.txt", b"two")
        self.rm("d2/f.txt")
        self.assertEqual(self.read(".recycle/f.txt"), b"two")
        self.assertFalse(self.there(".recycle/Copy #1 of f.txt"))
        self.assertFalse(self.there(".recycle/d1"))

    def test_minsize(self):
        self.put("small.txt", b"s")
        self.put("enough.txt", b"ss")
        self.rm("small.txt")
        self.rm("enough.txt")
        self.assertFalse(self.there(".recycle/small.txt"))
        self.assertTrue(self.there(".recycle/enough.txt"))

    def test_in_repository_and_dirs(self):
        self.put("keep.txt")
        self.rm("keep.txt")
        self.assertTrue(self.there(".recycle/keep.txt"))
        # deleted from inside the repository: gone for real
        self.rm(".recycle/keep.txt")
        self.assertFalse(self.there(".recycle/keep.txt"))
        # directories are removed, not kept
        os.makedirs(os.path.join(self.sh, "emptydir"))
        os.chmod(os.path.join(self.sh, "emptydir"), 0o777)
        self.c.deleteDirectory("share", "emptydir")
        self.assertFalse(self.there("emptydir"))
        self.assertFalse(self.there(".recycle/emptydir"))


class UnknownModule(h.TestUser, h.SmbdTestCase):
    """A module we do not have: the share is served without it, with a
    warning naming it (Samba refuses the tree connect instead)."""
    share_options = [("vfs objects", "recycle no_such_module")]

    def test_warned_and_served(self):
        if h.is_samba():
            self.skipTest("Samba refuses a share with a missing module")
        c = self.impacket_logon()
        try:
            c.connectTree("share")
        finally:
            c.close()
        self.assertTrue(self.smbd.wait_log(r"no module 'no_such_module'",
                                           timeout=5),
                        self.smbd.log_tail(20))
        r = subprocess.run([os.path.join(os.environ.get("BUILDDIR", "."),
                                         "conf", "testparm"), "-s",
                            self.smbd.conf], capture_output=True,
                           text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertIn("'no_such_module' is not available", r.stderr)
        self.assertNotIn("'recycle' is not available", r.stderr)


class RecycleTreeShare(RecycleTree, h.TestUser, h.SmbdTestCase):
    pass


class RecycleFlatShare(RecycleFlat, h.TestUser, h.SmbdTestCase):
    pass


if __name__ == "__main__":
    h.main()
