#!/usr/bin/python3
"""`vfs objects` modules (issue 15 item 7).

recycle, checked on disk after deletes made with impacket; the same tests
pass against Samba 4.17's vfs_recycle (SMBD=/usr/sbin/smbd), which is
where the expected layout comes from ("Copy #n of NAME", keeptree,
exclude lists matched without case, exclude_dir matching any directory
on the way, size bounds, files deleted inside the repository going for
real, directories removed for real, the repository made with
directory_mode).

shadow_copy2, a Previous Versions round trip: snapshot directories in
the module's layout, FSCTL_SRV_ENUMERATE_SNAPSHOTS (the size-only query
and the full one), smbclient `allinfo` listing them and `get` of an
@GMT path (smbclient sends it as a TWrp create context), a raw CREATE
with TWrp; against Samba too.  An @GMT component inside the SMB2 path
(as Windows Explorer sends it) is ours only: Samba 4.17 reads only TWrp
over SMB2.

snapper (vfs_snapper), the same round trip over snapper's layout on disk:
SUBVOL/.snapshots/N/snapshot/ with the time in N/info.xml's <date>, the
subvolume being the share's path or a directory above it; a snapshot
whose info.xml does not parse is left out and logged.  Ours only:
Samba's vfs_snapper asks snapperd over D-Bus for the list (without it,
Samba 4.17 logs "dbus connection error", FSCTL_SRV_ENUMERATE_SNAPSHOTS
fails with INVALID_PARAMETER and allinfo lists nothing).

A module neither server has makes the share unavailable (UnknownModule).
"""

import os
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

FILE_DELETE_ON_CLOSE = 0x00001000
BAD_NETWORK_NAME = 0xC00000CC
UNSUCCESSFUL = 0xC0000001
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
                     ("recycle:exclude", "*.TMP, ~$*;*.bak"),
                     ("recycle:exclude_dir", "scratch"),
                     ("recycle:noversions", "*.log"),
                     ("recycle:maxsize", "1000"),
                     ("recycle:subdir_mode", "0750")]

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
        # the repository's first component 0700 (directory_mode), every
        # directory below it 0750 (subdir_mode, as Samba), all the user's
        for d, mode in ((".bin", 0o700), (self.repo(), 0o750),
                        (self.repo("dir"), 0o750),
                        (self.repo("dir/sub"), 0o750)):
            ds = os.stat(os.path.join(self.sh, d))
            self.assertEqual(oct(stat.S_IMODE(ds.st_mode)), oct(mode), d)
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
        for n in ("e.tmp", "~$doc.docx", "o.bak", "scratch/s.txt",
                  "deep/scratch/t.txt", "scratchy/k.txt"):
            self.put(n)
            self.rm(n)
        self.assertFalse(self.there(self.repo("e.tmp")))
        self.assertFalse(self.there(self.repo("~$doc.docx")))
        self.assertFalse(self.there(self.repo("o.bak")))
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
        away without CLOSE) is recycled too (smbd/objects/open.c)."""
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
                     ("recycle:minsize", "2"),
                     ("recycle:directory_mode", "0770"),
                     ("recycle:touch_mtime", "yes")]

    def test_flat_and_replace(self):
        self.put("d1/f.txt", b"one")
        self.rm("d1/f.txt")
        self.assertEqual(self.read(".recycle/f.txt"), b"one")
        st = os.stat(os.path.join(self.sh, ".recycle/f.txt"))
        # touch_mtime: mtime now (and atime, as Samba does)
        self.assertGreater(st.st_mtime, time.time() - 600)
        self.assertGreater(st.st_atime, time.time() - 600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(
            self.sh, ".recycle")).st_mode), 0o770)
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
    """A module we do not have (issue 34 item 7): the share cannot be
    connected (BAD_NETWORK_NAME, as Samba 4.17 answers for a module it
    cannot load), each such name is logged at level 0, testparm reports
    an error naming it and exits 1 (Samba's testparm does not look at
    modules: exit 0).  [cephfs] (path = /, vfs objects = ceph) is the
    reproduction: it served the host's root file system.  io_uring and
    aio_pthread, whose job the server does anyway, are accepted with a
    level-2 note.  A reload that adds an unknown module leaves connected
    trees working and refuses new ones, as Samba's fresh connections."""
    share_options = [("vfs objects", "recycle streams_xattr no_such_module")]
    extra_shares = [("cephfs", [("path", "/"), ("vfs objects", "ceph")]),
                    ("audit", [("vfs objects", "full_audit")]),
                    ("aio", [("vfs objects", "io_uring aio_pthread "
                              "streams_xattr")]),
                    ("later", [])]

    def tcon(self, share):
        from impacket.smbconnection import SessionError
        c = self.impacket_logon()
        try:
            c.connectTree(share)
            return 0
        except SessionError as e:
            return e.getErrorCode()
        finally:
            c.close()

    def test_share_refused(self):
        self.assertEqual(self.tcon("share"), BAD_NETWORK_NAME)
        self.assertEqual(self.tcon("aio"), 0)
        if h.is_samba():
            # Debian's Samba has these two: full_audit works, ceph fails
            # without a cluster (where the module is missing, as here,
            # it answers as for no_such_module)
            self.assertEqual(self.tcon("audit"), 0)
            self.assertIn(self.tcon("cephfs"),
                          (BAD_NETWORK_NAME, UNSUCCESSFUL))
            return
        self.assertEqual(self.tcon("audit"), BAD_NETWORK_NAME)
        self.assertEqual(self.tcon("cephfs"), BAD_NETWORK_NAME)
        for mod in ("no_such_module", "ceph", "full_audit"):
            self.assertTrue(self.smbd.wait_log(
                r", 0\] .*no module '%s' in this server" % mod, timeout=5),
                self.smbd.log_tail(20))
        self.assertTrue(self.smbd.wait_log(
            r", 2\] .*share \[aio\]: vfs objects: 'io_uring' loads "
            r"nothing", timeout=5), self.smbd.log_tail(20))
        log = self.smbd.log_text()
        for known in ("recycle", "streams_xattr", "aio_pthread"):
            self.assertNotIn("no module '%s'" % known, log)

    def test_testparm_error(self):
        if h.is_samba():
            self.skipTest("our testparm")
        r = subprocess.run([os.path.join(os.environ.get("BUILDDIR", "."),
                                         "utils", "testparm"), "-s",
                            self.smbd.conf], capture_output=True,
                           text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1, r.stderr)
        for share, mod in (("share", "no_such_module"), ("cephfs", "ceph"),
                           ("audit", "full_audit")):
            self.assertIn("ERROR: [%s]: vfs objects: no module '%s'" %
                          (share, mod), r.stderr)
        for known in ("recycle", "streams_xattr", "io_uring",
                      "aio_pthread"):
            self.assertNotIn("'%s'" % known, r.stderr)

    def reload(self):
        sc = ("smbcontrol" if h.is_samba() else
              os.path.join(os.environ.get("BUILDDIR", "."), "utils",
                           "smbcontrol"))
        r = subprocess.run([sc, "-s", self.smbd.conf, "smbd",
                            "reload-config"], capture_output=True,
                           text=True, timeout=30, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_reload_adds_unknown(self):
        with open(os.path.join(self.smbd.share, "r.txt"), "wb") as f:
            f.write(b"r")
        c = self.impacket_logon()
        self.addCleanup(c.close)
        tid = c.connectTree("later")
        self.smbd.extra_shares = [
            (n, o + [("vfs objects", "no_such_module")] if n == "later"
             else o) for n, o in self.extra_shares]
        self.smbd.write_conf()
        self.addCleanup(self.restore_conf)
        self.reload()
        # a fresh connection sees the new definition
        self.assertTrue(h.wait_until(
            lambda: self.tcon("later") == BAD_NETWORK_NAME, 10))
        # the connected tree keeps working
        fid = c.openFile(tid, "r.txt", desiredAccess=1)
        self.assertEqual(c.readFile(tid, fid), b"r")
        c.closeFile(tid, fid)

    def restore_conf(self):
        self.smbd.extra_shares = list(self.extra_shares)
        self.smbd.write_conf()
        self.reload()


FSCTL_SRV_ENUMERATE_SNAPSHOTS = 0x00144064
INVALID_PARAMETER = 0xC000000D
MEDIA_WRITE_PROTECTED = 0xC00000A2
NAME_NOT_FOUND = 0xC0000034
GENERIC_READ = 0x80000000
FILE_READ_DATA = 0x1
SHARE_ALL = 7
FILE_OPEN = 1
FILE_DIRECTORY_FILE = 0x1
SNAP_NEW = "@GMT-2024.01.02-03.04.05"
SNAP_OLD = "@GMT-2023.05.06-07.08.09"


def err_code(e):
    get = getattr(e, "getErrorCode", None) or getattr(e, "get_error_code")
    return get()


def twrp(token):
    """The TWrp create context (MS-SMB2 2.2.13.2.7) for an @GMT token."""
    t = time.strptime(token, "@GMT-%Y.%m.%d-%H.%M.%S")
    import calendar
    ft = (calendar.timegm(t) + 11644473600) * 10000000
    body = struct.pack("<HHHHI", 16, 4, 0, 24, 8)
    return _Ctx(struct.pack("<I", 0) + body + b"TWrp" + b"\0" * 4 +
                struct.pack("<Q", ft))


class _Ctx:
    def __init__(self, data):
        self.data = data

    def getData(self):
        return self.data


def snapshot_array(data):
    """SRV_SNAPSHOT_ARRAY (MS-SMB2 2.2.32.2) -> (n, returned, size, tokens)"""
    n, ret, size = struct.unpack_from("<III", data)
    names = data[12:12 + size].decode("utf-16-le").split("\0")
    return n, ret, size, [x for x in names if x]


class ShadowBase:
    """A server whose share options need the share's own path (set before
    it starts): shadow_options(share_path) gives them."""
    start_server = False

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        srv = cls.new_server()
        cls.addClassCleanup(srv.cleanup)
        srv.share_options = list(srv.share_options) + \
            cls.shadow_options(srv.share, srv.tmp)
        srv.env = getattr(cls, "server_env", None)
        srv.write_conf()
        srv.start()
        cls.smbd = srv
        if os.geteuid() != 0:
            raise h.unittest.SkipTest("needs root to add the test user")
        srv.create_user(h.TEST_USER, h.TEST_PASSWORD)
        cls.client_conf = os.path.join(srv.tmp, "client.conf")
        with open(cls.client_conf, "w") as f:
            f.write("[global]\n")

    def smbclient(self, *args, timeout=60):
        return h.TestUser.smbclient(self, *args, timeout=timeout)

    def logon(self):
        return h.TestUser.impacket_logon(self)

    def make_snapshots(self, snapdir, names, rel=""):
        for name in names:
            d = os.path.join(snapdir, name, rel, "dir")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "f.txt"), "w") as f:
                f.write("old " + name)
        live = os.path.join(self.smbd.share, "dir")
        os.makedirs(live, exist_ok=True)
        with open(os.path.join(live, "f.txt"), "w") as f:
            f.write("new")
        subprocess.run(["chmod", "-R", "a+rwX", self.smbd.tmp], check=True)

    def enumerate(self, c, tid, max_out):
        fid = c.openFile(tid, "dir\\f.txt", desiredAccess=FILE_READ_DATA)
        try:
            return c._SMBConnection.ioctl(
                tid, fid, FSCTL_SRV_ENUMERATE_SNAPSHOTS, flags=1,
                maxOutputResponse=max_out)
        finally:
            c.closeFile(tid, fid)

    def read_twrp(self, c, tid, path, token, access=GENERIC_READ):
        smb = c._SMBConnection
        fid = smb.create(tid, path, access, SHARE_ALL, 0, FILE_OPEN, 0x80,
                         createContexts=[twrp(token)])
        try:
            return smb.read(tid, fid, 0, 100)
        finally:
            smb.close(tid, fid)


class ShadowMount(ShadowBase):
    """The default layout: .snapshots at the file system's root (here
    the share, as shadow:mountpoint says), @GMT names, newest first."""
    share_options = [("vfs objects", "shadow_copy2")]

    @classmethod
    def shadow_options(cls, share, tmp):
        return [("shadow:mountpoint", share)]

    def setUp(self):
        super().setUp()
        self.make_snapshots(os.path.join(self.smbd.share, ".snapshots"),
                            [SNAP_NEW, SNAP_OLD, "not-a-snapshot"])
        self.c = self.logon()
        self.tid = self.c.connectTree("share")

    def tearDown(self):
        self.c.close()
        super().tearDown()

    def test_enumerate(self):
        # the size-only query (16 bytes, as clients send it first)
        r = self.enumerate(self.c, self.tid, 16)
        self.assertEqual(len(r), 16)
        self.assertEqual(struct.unpack_from("<III", r), (2, 0, 102))
        r = self.enumerate(self.c, self.tid, 12 + 102)
        self.assertEqual(snapshot_array(r), (2, 2, 102, [SNAP_NEW, SNAP_OLD]))
        self.assertEqual(r[-4:], b"\0\0\0\0")
        with self.assertRaises(Exception) as cm:
            self.enumerate(self.c, self.tid, 15)
        self.assertEqual(err_code(cm.exception), INVALID_PARAMETER)

    def test_smbclient_allinfo_get(self):
        rc, out = self.smbclient("-c", "allinfo dir/f.txt")
        self.assertEqual(rc, 0, out)
        self.assertIn(SNAP_NEW, out)
        self.assertIn(SNAP_OLD, out)
        dest = os.path.join(self.smbd.tmp, "got.txt")
        rc, out = self.smbclient("-c", "get %s/dir/f.txt %s" %
                                 (SNAP_OLD, dest))
        self.assertEqual(rc, 0, out)
        with open(dest) as f:
            self.assertEqual(f.read(), "old " + SNAP_OLD)

    def test_twrp(self):
        self.assertEqual(self.read_twrp(self.c, self.tid, "dir\\f.txt",
                                        SNAP_NEW), b"old " + SNAP_NEW.encode())
        # a time with no snapshot
        with self.assertRaises(Exception):
            self.read_twrp(self.c, self.tid, "dir\\f.txt",
                           "@GMT-2024.01.02-03.04.06")
        # the live file is untouched
        self.assertEqual(self.c.readFile(self.tid, self.c.openFile(
            self.tid, "dir\\f.txt", desiredAccess=FILE_READ_DATA), 0, 10),
            b"new")

    def test_twrp_listing(self):
        """A directory of a snapshot lists the snapshot's entries, its
        symlinks resolved inside the snapshot (the live directory has no
        "only_old" and no "lnk")."""
        snapdir = os.path.join(self.smbd.share, ".snapshots", SNAP_NEW, "dir")
        with open(os.path.join(snapdir, "only_old"), "w") as f:
            f.write("x")
        if not os.path.lexists(os.path.join(snapdir, "lnk")):
            os.symlink("only_old", os.path.join(snapdir, "lnk"))
        smb = self.c._SMBConnection
        fid = smb.create(self.tid, "dir", FILE_READ_DATA, SHARE_ALL,
                         FILE_DIRECTORY_FILE, FILE_OPEN, 0,
                         createContexts=[twrp(SNAP_NEW)])
        try:
            buf = smb.queryDirectory(self.tid, fid, "*",
                                     informationClass=1)
            # MS-FSCC 2.4.10 FileDirectoryInformation entries
            names = []
            off = 0
            while True:
                nxt = struct.unpack_from("<I", buf, off)[0]
                ln = struct.unpack_from("<I", buf, off + 60)[0]
                names.append(buf[off + 64:off + 64 + ln]
                             .decode("utf-16-le"))
                if nxt == 0:
                    break
                off += nxt
        finally:
            smb.close(self.tid, fid)
        self.assertIn("only_old", names)
        self.assertIn("lnk", names)
        self.assertIn("f.txt", names)

    def test_read_only(self):
        if h.is_samba():
            self.skipTest("Samba opens it read-only and fails the write")
        with self.assertRaises(Exception) as cm:
            self.read_twrp(self.c, self.tid, "dir\\f.txt", SNAP_NEW,
                           access=0x12019f)
        self.assertEqual(err_code(cm.exception), MEDIA_WRITE_PROTECTED)
        with self.assertRaises(Exception) as cm:
            self.c.openFile(self.tid, SNAP_NEW + "\\dir\\f.txt",
                            desiredAccess=0x12019f)
        self.assertEqual(err_code(cm.exception), MEDIA_WRITE_PROTECTED)
        with self.assertRaises(Exception):
            self.c.createFile(self.tid, SNAP_NEW + "\\dir\\new.txt")
        self.assertFalse(os.path.exists(os.path.join(
            self.smbd.share, ".snapshots", SNAP_NEW, "dir", "new.txt")))

    def test_gmt_in_path(self):
        """An @GMT component anywhere in the path (Windows Explorer)."""
        if h.is_samba():
            self.skipTest("Samba 4.17 reads only TWrp over SMB2")
        for name in (SNAP_OLD + "\\dir\\f.txt", "dir\\" + SNAP_OLD +
                     "\\f.txt", "dir\\f.txt\\" + SNAP_OLD):
            fid = self.c.openFile(self.tid, name,
                                  desiredAccess=FILE_READ_DATA)
            self.assertEqual(self.c.readFile(self.tid, fid, 0, 100),
                             b"old " + SNAP_OLD.encode(), name)
            self.c.closeFile(self.tid, fid)
        names = [f.get_longname() for f in
                 self.c.listPath("share", SNAP_OLD + "\\dir\\*")]
        self.assertIn("f.txt", names)


class ShadowElsewhere(ShadowBase):
    """An absolute snapshot directory outside the share, a basedir above
    the share, a format of our own, oldest first."""
    share_options = [("vfs objects", "shadow_copy2"),
                     ("shadow:format", "snap-%Y%m%d-%H%M%S"),
                     ("shadow:sort", "asc")]

    @classmethod
    def shadow_options(cls, share, tmp):
        return [("shadow:snapdir", os.path.join(tmp, "snaps")),
                ("shadow:basedir", tmp)]

    def test_layout(self):
        self.make_snapshots(os.path.join(self.smbd.tmp, "snaps"),
                            ["snap-20240102-030405", "snap-20230506-070809",
                             "@GMT-2022.01.01-00.00.00"], rel="share")
        c = self.logon()
        try:
            tid = c.connectTree("share")
            r = self.enumerate(c, tid, 1000)
            self.assertEqual(snapshot_array(r),
                             (2, 2, 102, [SNAP_OLD, SNAP_NEW]))
            self.assertEqual(self.read_twrp(c, tid, "dir\\f.txt", SNAP_NEW),
                             b"old snap-20240102-030405")
        finally:
            c.close()


class ShadowLocal(ShadowBase):
    """shadow:localtime: names in the server's local time (UTC-5 here)
    are listed, and opened, by their UTC tokens."""
    share_options = [("vfs objects", "shadow_copy2"),
                     ("shadow:localtime", "yes")]
    server_env = {"TZ": "EST5"}

    @classmethod
    def shadow_options(cls, share, tmp):
        return [("shadow:mountpoint", share)]

    def test_localtime(self):
        self.make_snapshots(os.path.join(self.smbd.share, ".snapshots"),
                            [SNAP_NEW])
        c = self.logon()
        try:
            tid = c.connectTree("share")
            r = self.enumerate(c, tid, 1000)
            self.assertEqual(snapshot_array(r),
                             (1, 1, 52, ["@GMT-2024.01.02-08.04.05"]))
            self.assertEqual(
                self.read_twrp(c, tid, "dir\\f.txt",
                               "@GMT-2024.01.02-08.04.05"),
                b"old " + SNAP_NEW.encode())
        finally:
            c.close()


SNAPPER_INFO = """<?xml version="1.0"?>
<snapshot>
  <type>single</type>
  <num>%s</num>
  <date>%s</date>
  <description>smbd-ng test</description>
  <cleanup>number</cleanup>
</snapshot>
"""


def snapper_date(token):
    """"@GMT-2024.01.02-03.04.05" -> "2024-01-02 03:04:05" """
    t = time.strptime(token, "@GMT-%Y.%m.%d-%H.%M.%S")
    return time.strftime("%Y-%m-%d %H:%M:%S", t)


class SnapperBase(ShadowBase):
    """snapper's layout below subvol(); the share is rel() below it."""
    share_options = [("vfs objects", "snapper")]

    @classmethod
    def shadow_options(cls, share, tmp):
        return []

    def setUp(self):
        if h.is_samba():
            self.skipTest("Samba's vfs_snapper needs snapperd on D-Bus")
        super().setUp()
        snaps = os.path.join(self.subvol(), ".snapshots")
        # 1 and 2 are snapshots; 3's info.xml is malformed (month 13),
        # 0 is snapper's live system, "snapshot-4" no number
        for num, date in (("1", snapper_date(SNAP_OLD)),
                          ("2", snapper_date(SNAP_NEW)),
                          ("3", "2024-13-01 00:00:00"),
                          ("0", "2022-01-01 00:00:00"),
                          ("snapshot-4", "2022-01-01 00:00:00")):
            d = os.path.join(snaps, num, "snapshot", self.rel(), "dir")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "f.txt"), "w") as f:
                f.write("old " + num)
            with open(os.path.join(snaps, num, "info.xml"), "w") as f:
                f.write(SNAPPER_INFO % (num, date))
        live = os.path.join(self.smbd.share, "dir")
        os.makedirs(live, exist_ok=True)
        with open(os.path.join(live, "f.txt"), "w") as f:
            f.write("new")
        subprocess.run(["chmod", "-R", "a+rwX", self.smbd.tmp], check=True)

    def test_round_trip(self):
        rc, out = self.smbclient("-c", "allinfo dir/f.txt")
        self.assertEqual(rc, 0, out)
        self.assertIn(SNAP_OLD, out)
        self.assertIn(SNAP_NEW, out)
        # 3, 0 and snapshot-4 are not snapshots
        self.assertEqual(out.count("@GMT-"), 2, out)
        dest = os.path.join(self.smbd.tmp, "got.txt")
        rc, out = self.smbclient("-c", "get %s/dir/f.txt %s" %
                                 (SNAP_NEW, dest))
        self.assertEqual(rc, 0, out)
        with open(dest) as f:
            self.assertEqual(f.read(), "old 2")
        rc, out = self.smbclient("-c", "get %s/dir/f.txt %s" %
                                 (SNAP_OLD, dest))
        self.assertEqual(rc, 0, out)
        with open(dest) as f:
            self.assertEqual(f.read(), "old 1")
        self.assertTrue(self.smbd.wait_log(
            r"\.snapshots/3/info\.xml has no valid <date>", timeout=5),
            self.smbd.log_tail(20))

    def test_enumerate_twrp(self):
        c = self.logon()
        try:
            tid = c.connectTree("share")
            r = self.enumerate(c, tid, 1000)
            # oldest first, as snapper numbers them
            self.assertEqual(snapshot_array(r),
                             (2, 2, 102, [SNAP_OLD, SNAP_NEW]))
            self.assertEqual(self.read_twrp(c, tid, "dir\\f.txt",
                                            SNAP_OLD), b"old 1")
            # read-only, as shadow_copy2's
            with self.assertRaises(Exception) as cm:
                self.read_twrp(c, tid, "dir\\f.txt", SNAP_OLD,
                               access=0x12019f)
            self.assertEqual(err_code(cm.exception), MEDIA_WRITE_PROTECTED)
            # the live file is untouched
            fid = c.openFile(tid, "dir\\f.txt",
                             desiredAccess=FILE_READ_DATA)
            self.assertEqual(c.readFile(tid, fid, 0, 10), b"new")
            c.closeFile(tid, fid)
        finally:
            c.close()


class SnapperShare(SnapperBase):
    """The share is the subvolume: its own .snapshots."""

    def subvol(self):
        return self.smbd.share

    def rel(self):
        return ""


class SnapperAbove(SnapperBase):
    """The share is a directory of the subvolume: .snapshots above it,
    the share's path below the subvolume inside each snapshot."""

    def subvol(self):
        return self.smbd.tmp

    def rel(self):
        return "share"


class SnapperShareTest(SnapperShare, h.SmbdTestCase):
    pass


class SnapperAboveTest(SnapperAbove, h.SmbdTestCase):
    pass


class ShadowLocalShare(ShadowLocal, h.SmbdTestCase):
    pass


class ShadowMountShare(ShadowMount, h.SmbdTestCase):
    pass


class ShadowElsewhereShare(ShadowElsewhere, h.SmbdTestCase):
    pass


class RecycleTreeShare(RecycleTree, h.TestUser, h.SmbdTestCase):
    pass


class RecycleFlatShare(RecycleFlat, h.TestUser, h.SmbdTestCase):
    pass


if __name__ == "__main__":
    h.main()
