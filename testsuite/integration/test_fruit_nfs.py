#!/usr/bin/python3
"""vfs_fruit's fruit:nfs_aces (default yes; man/vfs_fruit.8): how a Mac
reads and sets a file's Unix owner, group and mode over SMB.

Once a session asked AAPL's server query, the DACL of a QUERY_INFO
security descriptor ends with three ACCESS_DENIED ACEs (no flags, empty
mask) for S-1-5-88-3-<st_mode>, S-1-5-88-1-<uid> and S-1-5-88-2-<gid>;
they come only with the DACL.  A SET_INFO DACL holding S-1-5-88-3-<mode>
chmods the file to mode & 0777 (WRITE_DAC needed, as for any DACL), and no
S-1-5-88 ACE is stored in the NT ACL.  On an acl_xattr share the chmod is
not made (Samba's acl_xattr ignores it).  AAPL's server caps say NFS_ACE.
With fruit:nfs_aces = no none of it.  Samba 4.17 (SMBD=/usr/sbin/smbd)
gives the same answers; every test runs once per event-loop backend.
"""

import os
import pwd
import stat
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
from test_fruit import aapl_query, create_root_with  # noqa: E402

READ_CONTROL = 0x00020000
WRITE_DAC = 0x00040000
FILE_READ_ATTRIBUTES = 0x80
FILE_OPEN = 1
FILE_DIRECTORY_FILE = 0x01
SHARE_ALL = 7
OWNER, GROUP, DACL = 1, 2, 4
STATUS_ACCESS_DENIED = 0xC0000022
SUPPORTS_NFS_ACE = 0x08

EVERYONE = "S-1-1-0"


def sid_bytes(text):
    """S-1-auth-sub... as MS-DTYP 2.4.2.2 bytes."""
    parts = [int(p) for p in text.split("-")[1:]]
    rev, auth, subs = parts[0], parts[1], parts[2:]
    return struct.pack("<BB", rev, len(subs)) + auth.to_bytes(6, "big") + \
        struct.pack("<%dI" % len(subs), *subs)


def sid_text(raw, off):
    n = raw[off + 1]
    auth = int.from_bytes(raw[off + 2:off + 8], "big")
    subs = struct.unpack_from("<%dI" % n, raw, off + 8)
    return "S-%d-%d" % (raw[off], auth) + "".join("-%d" % s for s in subs)


def dacl_aces(raw):
    """[(type, flags, mask, sid)] of a self-relative descriptor's DACL;
    None when it has none."""
    raw = bytes(raw)
    off = struct.unpack_from("<I", raw, 16)[0]
    if off == 0:
        return None
    count = struct.unpack_from("<H", raw, off + 4)[0]
    aces, p = [], off + 8
    for _ in range(count):
        t, fl, size, mask = struct.unpack_from("<BBHI", raw, p)
        aces.append((t, fl, mask, sid_text(raw, p + 8)))
        p += size
    return aces


def dacl_sd(aces):
    """A descriptor with just this DACL ([(type, flags, mask, sid)])."""
    body = b""
    for t, fl, mask, sid in aces:
        s = sid_bytes(sid)
        body += struct.pack("<BBHI", t, fl, 8 + len(s), mask) + s
    acl = struct.pack("<BBHHH", 2, 0, 8 + len(body), len(aces), 0) + body
    return struct.pack("<BBHIIII", 1, 0, 0x8004, 0, 0, 0, 20) + acl


def nfs(aces):
    return [a for a in aces if a[3].startswith("S-1-5-88-")]


class FruitShare(h.TestUser):
    """A fruit share with the file "f" (mode 0640) of the test user, and
    the client's side of the NFS ACEs."""

    share_options = [("vfs objects", "catia fruit streams_xattr"),
                     ("fruit:metadata", "stream")]

    def setUp(self):
        super().setUp()
        self.empty_share()
        pw = pwd.getpwnam(h.TEST_USER)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        self.make("f", False, 0o640)

    def make(self, name, is_dir, mode):
        """name in the share, the test user's, with mode."""
        p = self.share_path(name)
        if is_dir:
            os.mkdir(p)
        else:
            with open(p, "wb") as f:
                f.write(b"data")
        os.chown(p, self.uid, self.gid)
        os.chmod(p, mode)
        return p

    def session(self, share="share", aapl=True):
        """(smb, tid) of a new session, after an AAPL query if aapl."""
        conn = self.impacket_logon()
        self.addCleanup(conn.close)
        smb = conn.getSMBServer()
        tid = conn.connectTree(share)
        if aapl:
            self.caps = struct.unpack_from(
                "<Q", create_root_with(smb, tid, aapl_query())[b"AAPL"],
                16)[0]
        return smb, tid

    def open(self, smb, tid, name, access, is_dir=False):
        fid = smb.create(tid, name, access, SHARE_ALL,
                         FILE_DIRECTORY_FILE if is_dir else 0, FILE_OPEN, 0)
        self.addCleanup(self.close_quietly, smb, tid, fid)
        return fid

    @staticmethod
    def close_quietly(smb, tid, fid):
        try:
            smb.close(tid, fid)
        except Exception:
            pass  # closed by the test, or the session is gone

    def query(self, smb, tid, name, secinfo=OWNER | GROUP | DACL,
              is_dir=False):
        fid = self.open(smb, tid, name, READ_CONTROL, is_dir)
        raw = smb.queryInfo(tid, fid, infoType=3, fileInfoClass=0,
                            additionalInformation=secinfo)
        smb.close(tid, fid)
        return raw

    def set_dacl(self, smb, tid, name, aces, access=READ_CONTROL | WRITE_DAC,
                 is_dir=False):
        """SET_INFO of a DACL on name: 0 or the NTSTATUS."""
        from impacket.smb3 import SessionError
        fid = self.open(smb, tid, name, access, is_dir)
        try:
            smb.setInfo(tid, fid, dacl_sd(aces), infoType=3,
                        fileInfoClass=0, additionalInformation=DACL)
        except SessionError as e:
            return e.get_error_code()
        finally:
            smb.close(tid, fid)
        return 0


class NfsAces(FruitShare):

    extra_shares = [("acl", [("vfs objects",
                              "catia fruit streams_xattr acl_xattr"),
                             ("fruit:metadata", "stream")])]

    def expected(self, name):
        st = os.stat(self.share_path(name))
        return [(1, 0, 0, "S-1-5-88-3-%d" % st.st_mode),
                (1, 0, 0, "S-1-5-88-1-%d" % st.st_uid),
                (1, 0, 0, "S-1-5-88-2-%d" % st.st_gid)]

    def test_query(self):
        """The three ACEs end the DACL of an AAPL session, from the
        file's stat (type bits included); only with the DACL; none
        without AAPL.  The server caps say NFS_ACE."""
        smb, tid = self.session(aapl=False)
        self.assertEqual(nfs(dacl_aces(self.query(smb, tid, "f"))), [])
        smb, tid = self.session()
        self.assertTrue(self.caps & SUPPORTS_NFS_ACE)
        aces = dacl_aces(self.query(smb, tid, "f"))
        self.assertEqual(aces[-3:], self.expected("f"))
        self.assertEqual(nfs(aces[:-3]), [])
        self.assertEqual(dacl_aces(self.query(smb, tid, "f", DACL))[-3:],
                         self.expected("f"))
        self.assertIsNone(dacl_aces(self.query(smb, tid, "f",
                                               OWNER | GROUP)))
        self.make("d", True, 0o750)
        self.assertEqual(
            dacl_aces(self.query(smb, tid, "d", is_dir=True))[-3:],
            self.expected("d"))

    def test_chmod(self):
        """A mode ACE sets mode & 0777, alone or among other ACEs; a new
        query shows it."""
        smb, tid = self.session()
        self.assertEqual(self.set_dacl(smb, tid, "f", [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o4600)]), 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.share_path("f")).st_mode),
                         0o600)
        self.assertEqual(dacl_aces(self.query(smb, tid, "f"))[-3:],
                         self.expected("f"))
        # the whole DACL as a Mac sends it back: other ACEs, then its own
        aces = [a for a in dacl_aces(self.query(smb, tid, "f"))
                if not a[3].startswith("S-1-5-88-")]
        self.assertEqual(self.set_dacl(smb, tid, "f", aces + [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o100644),
            (1, 0, 0, "S-1-5-88-1-27"), (1, 0, 0, "S-1-5-88-2-300")]), 0)
        st = os.stat(self.share_path("f"))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o644)
        self.assertEqual((st.st_uid, st.st_gid), (self.uid, self.gid))
        self.assertEqual(dacl_aces(self.query(smb, tid, "f"))[-3:],
                         self.expected("f"))
        self.make("d", True, 0o700)
        self.assertEqual(self.set_dacl(smb, tid, "d", [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o755)], is_dir=True), 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.share_path("d")).st_mode),
                         0o755)

    def test_stream(self):
        """A handle on a named stream shows and sets its file's."""
        smb, tid = self.session()
        # FILE_WRITE_DATA, FILE_OVERWRITE_IF; not empty, or Samba's
        # fruit deletes it at close, as macOS does
        fid = smb.create(tid, "f:foo", 0x2 | READ_CONTROL, SHARE_ALL, 0, 5,
                         0)
        smb.write(tid, fid, b"x", 0, 1)
        smb.close(tid, fid)
        self.assertEqual(dacl_aces(self.query(smb, tid, "f:foo"))[-3:],
                         self.expected("f"))
        self.assertEqual(self.set_dacl(smb, tid, "f:foo", [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o604)]), 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.share_path("f")).st_mode),
                         0o604)

    def test_chmod_needs_write_dac(self):
        smb, tid = self.session()
        self.assertEqual(self.set_dacl(smb, tid, "f", [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o600)], access=READ_CONTROL),
            STATUS_ACCESS_DENIED)
        self.assertEqual(stat.S_IMODE(os.stat(self.share_path("f")).st_mode),
                         0o640)

    def test_acl_xattr(self):
        """On an acl_xattr share: the ACEs are shown, a mode ACE changes
        nothing (the NT ACL holds the permissions there), and none is
        stored, with AAPL or without."""
        smb, tid = self.session("acl")
        self.assertEqual(dacl_aces(self.query(smb, tid, "f"))[-3:],
                         self.expected("f"))
        self.assertEqual(self.set_dacl(smb, tid, "f", [
            (1, 0, 0, "S-1-5-88-3-%d" % 0o600)]), 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.share_path("f")).st_mode),
                         0o640)
        self.assertEqual(self.set_dacl(smb, tid, "f", [
            (0, 0, 0x1F01FF, EVERYONE),
            (1, 0, 0, "S-1-5-88-3-%d" % 0o600)]), 0)
        plain, ptid = self.session("acl", aapl=False)
        self.assertEqual(dacl_aces(self.query(plain, ptid, "f")),
                         [(0, 0, 0x1F01FF, EVERYONE)])
        # without AAPL a DACL with them sets nothing at all
        self.assertEqual(self.set_dacl(plain, ptid, "f", [
            (0, 0, 0x1F01FF, "S-1-22-1-%d" % self.uid),
            (1, 0, 0, "S-1-5-88-3-%d" % 0o600)]), 0)
        self.assertEqual(dacl_aces(self.query(plain, ptid, "f")),
                         [(0, 0, 0x1F01FF, EVERYONE)])


class NoNfsAces(FruitShare):
    """fruit:nfs_aces = no (a global option in Samba): no NFS ACEs, no
    NFS_ACE cap, and a mode ACE is no chmod."""

    global_options = [("fruit:nfs_aces", "no")]

    def test_off(self):
        smb, tid = self.session()
        self.assertFalse(self.caps & SUPPORTS_NFS_ACE)
        self.assertEqual(nfs(dacl_aces(self.query(smb, tid, "f"))), [])
        self.assertEqual(self.set_dacl(smb, tid, "f", [
            (0, 0, 0x1F01FF, "S-1-22-1-%d" % self.uid),
            (1, 0, 0, "S-1-5-88-3-%d" % 0o600)]), 0)
        self.assertNotEqual(
            stat.S_IMODE(os.stat(self.share_path("f")).st_mode), 0o600)


h.backend_variants(globals(), NfsAces)
h.backend_variants(globals(), NoNfsAces)

if __name__ == "__main__":
    h.main()
