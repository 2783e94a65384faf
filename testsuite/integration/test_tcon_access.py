#!/usr/bin/python3
"""Who may connect a tree (issue 34 items 4 and 6).

Item 4, the share's directory entered as the user.  A share whose path
lies under a directory the user may not search (`x`, mode 0700 root)
must not serve its files to that user, nor a share whose root itself
denies search (0744): ours refuses the TREE_CONNECT with ACCESS_DENIED;
Samba 4.17 connects the tree and then fails every request on it with
ACCESS_DENIED (its smbd chdirs into the share as the user per request);
the file cannot be read either way, which is what each run checks
(SMBD=/usr/sbin/smbd runs the same tests against Samba).  The check is
made as the user the tree works as: `force user = root` enters where the
user could not, `force user = nobody` does not enter where only the
user's group could, `force group` enters through the forced group.  A
missing path is BAD_NETWORK_NAME on both.  Taking the rights away while
a tree is connected: ours keeps serving the connected tree (it holds the
root's descriptor, as a process whose working directory is inside) and
refuses new ones; Samba serves it or fails its requests depending on
whether its process has to chdir into the share again (in this test's
order it serves; after a logon made before the rights were given it
refused).  A LOGOFF racing the TREE_CONNECT's pool job, or a connection
dropped then, leaves no tree and no crash.

Item 6 (MS-SMB2 3.3.5.7): in a 3.1.1 session of a real user, a
TREE_CONNECT that is neither signed nor encrypted is refused with
ACCESS_DENIED (unsigned), the connection stays, and a signed one then
works; guest and anonymous sessions, which cannot sign, still connect.
Samba 4.17 answers the same (the spec would drop the connection).

Clients: impacket (3.0.2) and smb3client.py (3.1.1, signed by hand);
every call has a time limit.
"""

import grp
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c3  # noqa: E402

from impacket.smbconnection import SessionError  # noqa: E402

ACCESS_DENIED = 0xC0000022
BAD_NETWORK_NAME = 0xC00000CC
USER_SESSION_DELETED = 0xC0000203
FILE_READ_DATA = 0x1
SECRET = b"not for smbdtest"
LOGOFF = 2
TREE_CONNECT = 3
FLAGS_SIGNED = 0x8


def status_of(fn, *args, **kw):
    """(0, result) or (NTSTATUS, None) of an impacket call."""
    try:
        return 0, fn(*args, **kw)
    except SessionError as e:
        return e.getErrorCode(), None


class Traverse(h.TestUser):
    """[locked] under x (0700 root); [noexec] a root the user may not
    search; [viaroot] the same as [locked] with `force user = root`;
    [groupdir] under y (0750 root:smbdtest's group), as the user and
    with `force user = nobody`; [forcegroup] under z (0710
    root:nogroup) with `force group = nogroup`; [missing] a path that is
    not there."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to build the directories")
        try:
            cls.nogroup = grp.getgrnam("nogroup").gr_gid
        except KeyError:
            raise unittest.SkipTest("no group 'nogroup'")
        super().setUpClass()
        t = cls.smbd.tmp
        ugid = grp.getgrnam(h.TEST_USER).gr_gid
        dirs = {"locked": ("x", 0o700, 0),
                "groupdir": ("y", 0o750, ugid),
                "forcegroup": ("z", 0o710, cls.nogroup)}
        cls.paths = {}
        for share, (top, mode, gid) in dirs.items():
            root = os.path.join(t, top, "share")
            os.makedirs(root)
            os.chown(os.path.join(t, top), 0, gid)
            os.chmod(os.path.join(t, top), mode)
            os.chmod(root, 0o777)
            cls.paths[share] = root
        noexec = os.path.join(t, "noexec")
        os.mkdir(noexec)
        os.chmod(noexec, 0o744)
        cls.paths["noexec"] = noexec
        for p in cls.paths.values():
            with open(os.path.join(p, "f"), "wb") as f:
                f.write(SECRET)
            os.chmod(os.path.join(p, "f"), 0o644)
        cls.smbd.extra_shares = [
            ("locked", [("path", cls.paths["locked"])]),
            ("noexec", [("path", noexec)]),
            ("viaroot", [("path", cls.paths["locked"]),
                         ("force user", "root")]),
            ("groupdir", [("path", cls.paths["groupdir"])]),
            ("groupnobody", [("path", cls.paths["groupdir"]),
                             ("force user", "nobody")]),
            ("forcegroup", [("path", cls.paths["forcegroup"]),
                            ("force group", "nogroup")]),
            ("missing", [("path", os.path.join(t, "nosuchdir"))]),
        ]
        cls.smbd.write_conf()
        cls.smbd.restart()

    def setUp(self):
        super().setUp()
        self.c = self.impacket_logon()
        self.addCleanup(self.c.close)

    def read_f(self, share):
        """(tree connect status, read status, data)."""
        st, tid = status_of(self.c.connectTree, share)
        if st != 0:
            return st, None, None
        st, fid = status_of(self.c.openFile, tid, "f",
                            desiredAccess=FILE_READ_DATA)
        if st != 0:
            return 0, st, None
        data = self.c.readFile(tid, fid)
        self.c.closeFile(tid, fid)
        return 0, 0, data

    def assert_refused(self, share):
        tcon, op, data = self.read_f(share)
        self.assertIsNone(data, "%s: the user read the file" % share)
        if h.is_samba():
            # Samba connects, then refuses each request on the tree
            self.assertEqual((tcon, op), (0, ACCESS_DENIED), share)
        else:
            self.assertEqual(tcon, ACCESS_DENIED, share)

    def assert_served(self, share):
        self.assertEqual(self.read_f(share), (0, 0, SECRET), share)

    def test_parent_without_search(self):
        self.assert_refused("locked")
        if not h.is_samba():
            self.assertTrue(self.smbd.wait_log(
                r"share \[locked\]: %s may not enter" % h.TEST_USER),
                self.smbd.log_tail(20))

    def test_root_without_search(self):
        self.assert_refused("noexec")

    def test_open_share_still_served(self):
        with open(self.share_path("g"), "wb") as f:
            f.write(b"open")
        tid = self.c.connectTree("share")
        fid = self.c.openFile(tid, "g", desiredAccess=FILE_READ_DATA)
        self.assertEqual(self.c.readFile(tid, fid), b"open")
        self.c.closeFile(tid, fid)

    def test_checked_as_the_forced_user(self):
        self.assert_served("viaroot")       # root may go where we may not
        self.assert_served("groupdir")      # through the user's group
        self.assert_refused("groupnobody")  # nobody is not in it
        self.assert_served("forcegroup")    # through the forced group

    def test_missing_path(self):
        tcon, _, _ = self.read_f("missing")
        self.assertEqual(tcon, BAD_NETWORK_NAME)

    def test_rights_taken_while_connected(self):
        x = os.path.dirname(self.paths["locked"])
        os.chmod(x, 0o755)
        try:
            tid = self.c.connectTree("locked")
            fid = self.c.openFile(tid, "f", desiredAccess=FILE_READ_DATA)
            self.assertEqual(self.c.readFile(tid, fid), SECRET)
            self.c.closeFile(tid, fid)
        finally:
            os.chmod(x, 0o700)
        st, fid = status_of(self.c.openFile, tid, "f",
                            desiredAccess=FILE_READ_DATA)
        if h.is_samba():
            # whether Samba's process must chdir into the share again
            # (its cache of the working directory) decides: served
            # here, refused in other orders of the same steps
            self.assertIn(st, (0, ACCESS_DENIED))
        else:
            # the connected tree goes on; a new one is refused
            self.assertEqual(st, 0)
            self.c.closeFile(tid, fid)
            c2 = self.impacket_logon()   # impacket reuses its trees
            self.addCleanup(c2.close)
            self.assertEqual(status_of(c2.connectTree, "locked")[0],
                             ACCESS_DENIED)


def tcon_body(share):
    path = ("\\\\127.0.0.1\\%s" % share).encode("utf-16-le")
    return struct.pack("<HHHH", 9, 0, 72, len(path)) + path


def request(cl, cmd, body, sign, tree_id=0):
    """(mid, message) of a request on smb3client cl, signed or not."""
    mid = cl.mid
    cl.mid += 1
    msg = h.smb2_header(cmd, mid, credit_charge=1, credits=16,
                        session_id=cl.sid, tree_id=tree_id) + body
    return mid, cl._sign(msg) if sign else msg


def send(cl, cmd, body, sign, tree_id=0):
    """Send one request on smb3client cl, signed or not; its mid."""
    mid, msg = request(cl, cmd, body, sign, tree_id)
    cl.conn.send(msg)
    return mid


def reply(cl):
    """(status, signed, mid, tree id) of the next reply."""
    r = cl.recv()
    flags = struct.unpack_from("<I", r, 16)[0]
    return (struct.unpack_from("<I", r, 8)[0], bool(flags & FLAGS_SIGNED),
            struct.unpack_from("<Q", r, 24)[0],
            struct.unpack_from("<I", r, 36)[0])


class LogoffRace(h.TestUser):
    """TREE_CONNECT and LOGOFF in one write (two messages, not a
    compound): the server reads both at once, so the LOGOFF usually ends
    the session while the tree connect's pool job runs.  Ours then
    answers the tree connect USER_SESSION_DELETED, Samba (which does it
    all in order) 0; either way no tree, no crash, no leak (the ASan
    build runs this too)."""

    def test_logoff_while_connecting(self):
        seen = set()
        for _ in range(20):
            cl = c3.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                           algorithms=None)
            try:
                m1, a = request(cl, TREE_CONNECT, tcon_body("share"), True)
                m2, b = request(cl, LOGOFF, struct.pack("<HH", 4, 0), True)
                cl.conn.send_raw(h.netbios(a) + h.netbios(b))
                got = {}
                for _ in range(2):
                    st, _, mid, _ = reply(cl)
                    got[mid] = st
                self.assertIn(got[m1], (0, USER_SESSION_DELETED))
                self.assertEqual(got[m2], 0)
                seen.add(got[m1])
            finally:
                cl.disconnect()
        self.server_alive()
        if not h.is_samba():
            self.assertIn(USER_SESSION_DELETED, seen,
                          "the race was never run")

    def test_disconnect_while_connecting(self):
        for _ in range(20):
            cl = c3.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                           algorithms=None)
            send(cl, TREE_CONNECT, tcon_body("share"), True)
            cl.disconnect()
        # the next client is served
        cl = c3.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                       algorithms=None)
        self.addCleanup(cl.disconnect)
        self.assertNotEqual(cl.tree_connect("share"), 0)


class UnsignedTcon(h.TestUser):
    """MS-SMB2 3.3.5.7 on 3.1.1 (smb3client: AES-CMAC after an NTLM
    logon)."""

    global_options = [("map to guest", "bad user")]
    share_options = [("guest ok", "yes")]

    def client(self, user=h.TEST_USER, password=h.TEST_PASSWORD):
        cl = c3.Client(self.smbd.port, user, password, algorithms=None)
        self.addCleanup(cl.disconnect)
        return cl

    def echo_works(self, cl):
        mid = cl.mid
        cl.mid += 1
        cl.conn.send(h.smb2_header(h.SMB2_ECHO, mid, credit_charge=1,
                                   credits=1) + struct.pack("<HH", 4, 0))
        return reply(cl)[0] == 0

    def test_unsigned_refused(self):
        cl = self.client()
        for share in ("share", "IPC$"):
            send(cl, TREE_CONNECT, tcon_body(share), False)
            st, signed, _, tid = reply(cl)
            self.assertEqual((st, signed), (ACCESS_DENIED, False), share)
        # the connection stays, and a signed TREE_CONNECT works
        self.assertTrue(self.echo_works(cl))
        send(cl, TREE_CONNECT, tcon_body("share"), True)
        st, signed, _, tid = reply(cl)
        self.assertEqual((st, signed), (0, True))
        self.assertNotEqual(tid, 0)

    def test_encrypted_accepted(self):
        cl = c3.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                       algorithms=None, encrypt=True)
        self.addCleanup(cl.disconnect)
        self.assertNotEqual(cl.tree_connect("share"), 0)

    def test_guest_and_anonymous_unsigned(self):
        for user, password in (("nosuchuser", "x"), ("", "")):
            cl = self.client(user, password)
            share = "share" if user else "IPC$"
            send(cl, TREE_CONNECT, tcon_body(share), False)
            st, _, _, tid = reply(cl)
            self.assertEqual(st, 0, user or "anonymous")


h.backend_variants(globals(), Traverse)
h.backend_variants(globals(), LogoffRace, backends=("io_uring",))
h.backend_variants(globals(), UnsignedTcon, backends=("io_uring",))

if __name__ == "__main__":
    h.main()
