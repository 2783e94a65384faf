#!/usr/bin/python3
"""`veto files` and `hide files` (issue 15 item 3), with the answers Samba
4.17 gives on the same share (run with SMBD=/usr/sbin/smbd: it passes too).

The share vetoes /*.tmp/secret/ and hides /*.bak/: vetoed names are not
listed, cannot be opened, created, renamed onto or walked through; a
directory holding only vetoed files is not empty; hidden names are listed
with FILE_ATTRIBUTE_HIDDEN.  Every test runs under both event loops.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

NAME_NOT_FOUND = 0xC0000034
PATH_NOT_FOUND = 0xC000003A
DIRECTORY_NOT_EMPTY = 0xC0000101
HIDDEN = 0x2


def status(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        return e.getErrorCode()
    return 0


class Veto:
    share_options = ["veto files = /*.tmp/secret/", "hide files = /*.bak/"]

    def setUp(self):
        super().setUp()
        sh = self.smbd.share
        for n in ("a.tmp", "b.txt", "c.bak"):
            with open(os.path.join(sh, n), "w") as f:
                f.write("x")
        for d, inner in (("secret", "in.txt"), ("d", "e.tmp")):
            os.makedirs(os.path.join(sh, d), exist_ok=True)
            os.chmod(os.path.join(sh, d), 0o777)
            with open(os.path.join(sh, d, inner), "w") as f:
                f.write("x")
        self.c = self.impacket_logon()
        self.tid = self.c.connectTree("share")

    def tearDown(self):
        self.c.close()
        super().tearDown()

    def listing(self, pattern="*"):
        return {f.get_longname(): f.get_attributes()
                for f in self.c.listPath("share", pattern)}

    def test_listing(self):
        names = self.listing()
        self.assertNotIn("a.tmp", names)
        self.assertNotIn("secret", names)
        self.assertIn("b.txt", names)
        self.assertTrue(names["c.bak"] & HIDDEN, "c.bak not hidden")
        self.assertFalse(names["b.txt"] & HIDDEN)
        self.assertEqual(sorted(self.listing("d\\*")), [".", ".."])
        # an exact name is not listed either
        self.assertEqual(status(self.listing, "a.tmp"), 0xC000000F)

    def test_open_create(self):
        c, t = self.c, self.tid
        self.assertEqual(status(c.openFile, t, "a.tmp", 0x80), NAME_NOT_FOUND)
        self.assertEqual(status(c.openFile, t, "A.TMP", 0x80), NAME_NOT_FOUND)
        self.assertEqual(status(c.createFile, t, "n.tmp"), NAME_NOT_FOUND)
        self.assertFalse(os.path.exists(os.path.join(self.smbd.share,
                                                     "n.tmp")))
        self.assertEqual(status(c.openFile, t, "secret\\in.txt", 0x80),
                         PATH_NOT_FOUND)
        self.assertEqual(status(c.createDirectory, "share", "secret"),
                         NAME_NOT_FOUND)
        self.assertEqual(status(c.openFile, t, "d\\e.tmp", 0x80),
                         NAME_NOT_FOUND)

    def test_rename_rmdir(self):
        c = self.c
        self.assertEqual(status(c.rename, "share", "b.txt", "b.tmp"),
                         NAME_NOT_FOUND)
        self.assertTrue(os.path.exists(os.path.join(self.smbd.share,
                                                    "b.txt")))
        self.assertEqual(status(c.deleteDirectory, "share", "d"),
                         DIRECTORY_NOT_EMPTY)


class VetoShare(Veto, h.TestUser):
    pass


h.backend_variants(globals(), VetoShare)

if __name__ == "__main__":
    h.main()
