#!/usr/bin/python3
"""vfs_fruit: AAPL's READ_DIR_ATTR (issue 17; man/vfs_fruit.8).

A client whose AAPL server query asks for READ_DIR_ATTR in its client caps,
on a fruit share with streams, is told so in the server caps; its session's
FileIdBothDirectoryInformation listings then carry Apple's fields in place
of the NTFS ones: EaSize the entry's maximal access (what MxAc says for an
open of it), ShortNameLength 24 and in the ShortName area the resource
fork's size (8 bytes) and the compressed FinderInfo (type and creator of a
file, Finder flags, extended flags, the date added: big-endian seconds
since 2000 from the creation time, or 0x80000000 without metadata),
Reserved2 the UNIX mode.  Checked against what was written, for a resource
fork in a stream and in a "._" file, for a name catia maps (":" on disk),
for NT ACLs on an acl_xattr share, and with the readdir_attr:aapl_* options
off.  Samba 4.17
(SMBD=/usr/sbin/smbd) gives the same answers but where a test says
otherwise; every test runs once per event-loop backend.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
from test_fruit import RawCtx, aapl_query, afpinfo, create_contexts  # noqa
from test_catia import MACOS_MAP  # noqa: E402
from test_ntacl import FILE_READ, ntacl_blob, unix_user_sid  # noqa: E402

READ_DIR_ATTR = 0x1
FILE_ALL_ACCESS = 0x1F01FF
AFP_TIME_DELTA = 946684800
NTTIME_EPOCH = 11644473600
# type, creator, Finder flags (8-9), extended flags (24-25)
FINDER = b"TEXTttxt" + b"\x41\x02" + b"\x00" * 14 + b"\x12\x34" + b"\0" * 6


def mxac_query():
    """An MxAc create context (MS-SMB2 2.2.13.2.5), no timestamp."""
    return RawCtx(struct.pack("<IHHHHI", 0, 16, 4, 0, 0, 0) + b"MxAc" +
                  b"\0" * 4)


def entry(raw, name):
    """The fields of name's FileIdBothDirectoryInformation entry in raw
    (MS-FSCC 2.4.17): a dict, or None."""
    pos = 0
    while True:
        nxt, = struct.unpack_from("<I", raw, pos)
        nlen, ea, slen = struct.unpack_from("<IIB", raw, pos + 60)
        got = raw[pos + 104:pos + 104 + nlen].decode("utf-16-le")
        if got == name:
            ctime, = struct.unpack_from("<Q", raw, pos + 8)
            return {"ea": ea, "short_len": slen,
                    "rsize": struct.unpack_from("<Q", raw, pos + 70)[0],
                    "finder": raw[pos + 78:pos + 94],
                    "mode": struct.unpack_from("<H", raw, pos + 94)[0],
                    "ctime": ctime}
        if nxt == 0:
            return None
        pos += nxt


class ReaddirBase(h.TestUser):
    """The shares, files and listing helpers of the tests below."""

    share_options = [("vfs objects", "catia fruit streams_xattr"),
                     ("catia:mappings", MACOS_MAP),
                     ("fruit:metadata", "stream"),
                     ("fruit:resource", "stream")]
    extra_shares = [("rsrcfile", [("vfs objects",
                                   "catia fruit streams_xattr"),
                                  ("catia:mappings", MACOS_MAP),
                                  ("fruit:metadata", "stream")]),
                    ("opts", [("vfs objects", "catia fruit streams_xattr"),
                              ("fruit:metadata", "stream"),
                              ("fruit:resource", "stream"),
                              ("readdir_attr:aapl_rsize", "no"),
                              ("readdir_attr:aapl_finder_info", "no"),
                              ("readdir_attr:aapl_max_access", "no")]),
                    ("acl", [("vfs objects",
                              "acl_xattr catia fruit streams_xattr"),
                             ("fruit:metadata", "stream")]),
                    ("nostreams", [("vfs objects", "fruit"),
                                   ("fruit:metadata", "stream")]),
                    ("rsrcxattr", [("vfs objects",
                                    "catia fruit streams_xattr"),
                                   ("catia:mappings", MACOS_MAP),
                                   ("fruit:metadata", "stream"),
                                   ("fruit:resource", "xattr")]),
                    # fruit:metadata = netatalk, the default of both
                    ("netatalk", [("vfs objects",
                                   "catia fruit streams_xattr"),
                                  ("fruit:resource", "stream")])]

    def setUp(self):
        super().setUp()
        self.empty_share()
        for name in ("f", "g"):
            with open(self.share_path(name), "wb") as f:
                f.write(b"data")
            os.chmod(self.share_path(name), 0o666)
        os.mkdir(self.share_path("d"))
        os.chmod(self.share_path("d"), 0o777)

    def tree(self, share):
        conn = self.impacket_logon()
        self.addCleanup(conn.close)
        return conn, conn.connectTree(share)

    def write_stream(self, smb, tid, name, data, off=0):
        from impacket.smb3structs import (FILE_OPEN_IF, FILE_READ_DATA,
                                          FILE_WRITE_DATA)
        fid = smb.create(tid, name, FILE_READ_DATA | FILE_WRITE_DATA, 7, 0,
                         FILE_OPEN_IF, 0)
        smb.write(tid, fid, data, off, len(data))
        smb.close(tid, fid)

    def listing(self, share, caps=0xd, mac_files=True):
        """One session of share: the AAPL query with client caps caps
        (none if None), metadata on f and d if mac_files, then the
        listing: (server caps or None, raw entries, session)."""
        from impacket.smb3structs import (FILE_DIRECTORY_FILE, FILE_OPEN,
                                          FILE_READ_ATTRIBUTES,
                                          FILE_READ_DATA,
                                          FILEID_BOTH_DIRECTORY_INFORMATION)
        conn, tid = self.tree(share)
        smb = conn.getSMBServer()
        scaps = None
        if caps is not None:
            r = create_contexts(smb, tid, "", aapl_query(1, caps),
                                options=FILE_DIRECTORY_FILE)[b"AAPL"]
            scaps, = struct.unpack_from("<Q", r, 16)
        if mac_files:
            self.write_stream(smb, tid, "f:AFP_AfpInfo",
                              afpinfo(FINDER))
            self.write_stream(smb, tid, "d:AFP_AfpInfo",
                              afpinfo(FINDER))
            self.write_stream(smb, tid, "f:AFP_Resource", b"0123456789",
                              10)
        d = smb.create(tid, "", FILE_READ_DATA | FILE_READ_ATTRIBUTES, 7,
                       FILE_DIRECTORY_FILE, FILE_OPEN, 0)
        try:
            raw = smb.queryDirectory(
                tid, d, "*",
                informationClass=FILEID_BOTH_DIRECTORY_INFORMATION,
                maxBufferSize=65536)
        finally:
            smb.close(tid, d)
        return scaps, raw, (smb, tid)

    def mxac(self, sess, name):
        smb, tid = sess
        r = create_contexts(smb, tid, name, mxac_query())[b"MxAc"]
        status, access = struct.unpack("<II", r)
        self.assertEqual(status, 0)
        return access

    def date_added(self, e):
        """What the compressed FinderInfo's date is, from the entry's
        CreationTime."""
        secs = e["ctime"] // 10000000 - NTTIME_EPOCH - AFP_TIME_DELTA
        return struct.pack(">I", secs & 0xFFFFFFFF)

    def check_mac_entries(self, raw, sess, rsize=20):
        f = entry(raw, "f")
        self.assertEqual(f["short_len"], 24)
        self.assertEqual(f["rsize"], rsize)
        self.assertEqual(f["finder"], b"TEXTttxt\x41\x02\x12\x34" +
                         self.date_added(f))
        self.assertEqual(f["mode"],
                         os.stat(self.share_path("f")).st_mode & 0xFFFF)
        self.assertEqual(f["ea"], self.mxac(sess, "f"))
        # a directory: no type or creator; no fork
        d = entry(raw, "d")
        self.assertEqual(d["rsize"], 0)
        self.assertEqual(d["finder"], b"\0" * 8 + b"\x41\x02\x12\x34" +
                         self.date_added(d))
        self.assertEqual(d["mode"], 0o40777)
        self.assertEqual(d["ea"], self.mxac(sess, "d"))
        # no metadata: zeros and AFP's "no date"
        g = entry(raw, "g")
        self.assertEqual((g["short_len"], g["rsize"], g["finder"]),
                         (24, 0, b"\0" * 12 + b"\x80\0\0\0"))
        self.assertEqual(g["ea"], self.mxac(sess, "g"))


class FruitReaddir(ReaddirBase):

    def test_fork_in_stream(self):
        scaps, raw, sess = self.listing("share")
        self.assertTrue(scaps & READ_DIR_ATTR)
        self.check_mac_entries(raw, sess)
        # the test user is not the owner: no WRITE_DAC/OWNER; read,
        # write and DELETE on a 0666 file in a 0777 share (Samba leaves
        # out EXECUTE without an x bit, here CREATE's MxAc gives it with
        # read, and DELETE_CHILD with write; either way the listing says
        # what MxAc says)
        self.assertEqual(entry(raw, "f")["ea"] & ~0x60, 0x13019F)

    def test_netatalk_metadata(self):
        """fruit:metadata = netatalk: the FinderInfo from Netatalk's
        xattr."""
        scaps, raw, sess = self.listing("netatalk")
        self.assertTrue(scaps & READ_DIR_ATTR)
        self.assertIn("user.org.netatalk.Metadata",
                      os.listxattr(self.share_path("f")))
        self.check_mac_entries(raw, sess)

    def test_fork_in_xattr(self):
        """fruit:resource = xattr: the fork's size from Netatalk's
        xattr, which holds it without a NUL."""
        if h.is_samba():
            self.skipTest("Samba 4.17 on Linux cannot open the xattr")
        scaps, raw, sess = self.listing("rsrcxattr")
        self.assertEqual(len(os.getxattr(self.share_path("f"),
                                         "user.org.netatalk.ResourceFork")),
                         20)
        self.check_mac_entries(raw, sess)

    def test_fork_in_appledouble(self):
        """fruit:resource = file: the fork's size from "._f"."""
        scaps, raw, sess = self.listing("rsrcfile")
        self.assertTrue(scaps & READ_DIR_ATTR)
        self.assertTrue(os.path.exists(self.share_path("._f")))
        self.check_mac_entries(raw, sess)

    def test_options_off(self):
        """readdir_attr:aapl_rsize, aapl_finder_info, aapl_max_access =
        no: no fork size, no FinderInfo (the date stays AFP's "no date"),
        FILE_ALL_ACCESS."""
        scaps, raw, _ = self.listing("opts")
        f = entry(raw, "f")
        self.assertEqual((f["short_len"], f["rsize"], f["finder"], f["ea"]),
                         (24, 0, b"\0" * 12 + b"\x80\0\0\0",
                          FILE_ALL_ACCESS))
        self.assertEqual(f["mode"],
                         os.stat(self.share_path("f")).st_mode & 0xFFFF)

    def test_ntacl(self):
        """On an acl_xattr share a stored NT ACL decides, as for MxAc:
        a file the user may only read says FILE_READ (and DELETE, by
        the directory's mode, and WRITE_DAC, the owner's)."""
        import pwd
        me = pwd.getpwnam(h.TEST_USER).pw_uid
        for name, mask in (("ro.txt", FILE_READ),
                           ("all.txt", FILE_ALL_ACCESS)):
            with open(self.share_path(name), "wb") as f:
                f.write(b"data")
            os.chmod(self.share_path(name), 0o666)
            os.chown(self.share_path(name), me, -1)
            os.setxattr(self.share_path(name), "security.NTACL",
                        ntacl_blob(unix_user_sid(me),
                                   [(0, mask, unix_user_sid(me))]))
        _, raw, sess = self.listing("acl", mac_files=False)
        ro, rw = entry(raw, "ro.txt")["ea"], entry(raw, "all.txt")["ea"]
        self.assertEqual(ro & ~0x50000, FILE_READ)
        self.assertEqual(rw, FILE_ALL_ACCESS)
        self.assertEqual((ro, rw), (self.mxac(sess, "ro.txt"),
                                    self.mxac(sess, "all.txt")))

    def test_catia_name(self):
        """A name with a character NTFS does not allow (U+F022 on the
        wire, ':' on disk under catia's map) lists with its metadata
        (smbtorture vfs.fruit "readdir_attr with names with illegal ntfs
        characters"), its fork in a stream or in "._x:y"."""
        for share in ("share", "rsrcfile"):
            self.setUp()
            conn, tid = self.tree(share)
            smb = conn.getSMBServer()
            wire = "x\uf022y"
            self.write_stream(smb, tid, wire, b"data")
            self.write_stream(smb, tid, wire + ":AFP_AfpInfo",
                              afpinfo(FINDER))
            self.write_stream(smb, tid, wire + ":AFP_Resource", b"foo")
            self.assertTrue(os.path.exists(self.share_path("x:y")))
            _, raw, _ = self.listing(share, mac_files=False)
            e = entry(raw, wire)
            self.assertIsNotNone(e, share)
            self.assertEqual((e["short_len"], e["rsize"], e["finder"][:8]),
                             (24, 3, b"TEXTttxt"), share)

    def test_ntfs_fields_without_aapl(self):
        """A session that did not ask AAPL gets the NTFS fields: no EAs,
        no short name for an 8.3 name, Reserved2 0."""
        scaps, raw, _ = self.listing("share", caps=None)
        f = entry(raw, "f")
        self.assertEqual((f["ea"], f["short_len"], f["rsize"], f["mode"]),
                         (0, 0, 0, 0))

    def test_not_asked(self):
        """A client whose client caps lack READ_DIR_ATTR is not told it
        has it.  Samba 4.17 gives the Mac fields to it all the same (its
        fruit turns them on for the connection at any AAPL query); here
        only a session told it has them gets them."""
        scaps, raw, _ = self.listing("share", caps=0x4)
        self.assertFalse(scaps & READ_DIR_ATTR)
        self.assertEqual(entry(raw, "f")["short_len"],
                         24 if h.is_samba() else 0)

    def test_share_without_streams(self):
        """No streams, no READ_DIR_ATTR (Samba: FILE_NAMED_STREAMS)."""
        scaps, raw, _ = self.listing("nostreams", mac_files=False)
        self.assertFalse(scaps & READ_DIR_ATTR)


class FruitReaddirNoNfsAces(ReaddirBase):
    """fruit:nfs_aces = no (a global option in Samba): Reserved2 is 0,
    the rest as with it."""

    global_options = [("fruit:nfs_aces", "no")]

    def test_no_mode(self):
        scaps, raw, _ = self.listing("share")
        self.assertTrue(scaps & READ_DIR_ATTR)
        f = entry(raw, "f")
        self.assertEqual((f["short_len"], f["rsize"], f["mode"]),
                         (24, 20, 0))


h.backend_variants(globals(), FruitReaddir)
h.backend_variants(globals(), FruitReaddirNoNfsAces)

if __name__ == "__main__":
    h.main()
