#!/usr/bin/python3
"""DFS (issue 35): `host msdfs`, `msdfs root` with Samba's msdfs links,
`msdfs proxy`, `msdfs shuffle referrals`; the referrals (MS-DFSC) and
what SMB2 does around them (MS-SMB2 2.2.4, 2.2.10, 3.3.5.9, 3.3.5.15.2).

One server with an msdfs root [dfsroot] whose links point at [target]
on the same server, one link to a share that does not exist and an
empty one, and an msdfs proxy share [proxy] standing for [target]:

- NEGOTIATE offers SMB2_GLOBAL_CAP_DFS; TREE_CONNECT to the root has
  SMB2_SHAREFLAG_DFS|DFS_ROOT and SMB2_SHARE_CAP_DFS, to the proxy is
  BAD_NETWORK_NAME;
- FSCTL_DFS_GET_REFERRALS for the root, links (deep, several targets,
  a missing target, none), the proxy, at levels 0-5 and with small
  buffers: the bytes are checked against a referral built here from
  MS-DFSC 2.2.4/2.2.5 (V2 below level 3, V3 from 3 on, Samba's layout);
  the answers where nothing refers;
- CREATE through a link is PATH_NOT_COVERED (any disposition, nothing
  made), SMB2_FLAGS_DFS_OPERATIONS paths lose their server\\share;
- listings show links as DFS reparse points;
- smbclient follows the links and the proxy;
- `host msdfs = no` turns it all off.

A client following a referral dials port 445 of the target, so the
server listens on 445 of a loopback address of its own (127.x.y.z, three
digits each: two servers' paths then have the same length and their
referrals can be compared byte for byte).  The whole file passes
against Samba 4.17 (SMBD=/usr/sbin/smbd) except where a test says why;
against ours, SideBySide also starts Samba on the same configuration in
the same run and compares the raw referrals and smbclient's output.
The Linux kernel client (cifs.ko follows referrals) is tried where the
machine has it, skipped otherwise.
"""

import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import rawsmb as r  # noqa: E402

SAMBA = "/usr/sbin/smbd"

FSCTL_DFS_GET_REFERRALS = 0x00060194
FSCTL_DFS_GET_REFERRALS_EX = 0x000601B0
FLAGS_DFS_OPERATIONS = 0x10000000
CAP_DFS = 0x1
SHAREFLAG_DFS, SHAREFLAG_DFS_ROOT, SHARE_CAP_DFS = 0x1, 0x2, 0x8
IO_REPARSE_TAG_DFS = 0x8000000A
ATTR_DIRECTORY, ATTR_REPARSE_POINT = 0x10, 0x400

STATUS_BUFFER_OVERFLOW = 0x80000005
STATUS_PATH_NOT_COVERED = 0xC0000257
STATUS_NOT_FOUND = 0xC0000225
STATUS_OBJECT_PATH_NOT_FOUND = 0xC000003A
STATUS_BAD_NETWORK_NAME = 0xC00000CC
STATUS_FS_DRIVER_REQUIRED = 0xC000019C
STATUS_OBJECT_NAME_INVALID = 0xC0000033

SMB_TIMEOUT = 60


def free_host():
    """A loopback address (three digits in each of the last three parts)
    whose port 445 nobody holds; SkipTest when none is found or we may
    not bind port 445."""
    if os.geteuid() != 0:
        raise unittest.SkipTest("port 445 needs root")
    rnd = random.SystemRandom()
    for _ in range(50):
        host = "127.%d.%d.%d" % tuple(rnd.randrange(100, 255)
                                      for _ in range(3))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, 445))
                return host
            except OSError:
                continue
    raise unittest.SkipTest("no free loopback address for port 445")


def u16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def referral(consumed, dfs_path, targets, level, root):
    """RESP_GET_DFS_REFERRAL (MS-DFSC 2.2.4) as Samba lays it out: the
    entries (2.2.5.2 V2 up to level 2, 2.2.5.3 V3 from 3), then each
    entry's DFSPath, DFSAlternatePath and NetworkAddress; TTL 600."""
    v3 = level >= 3
    esz = 34 if v3 else 22
    d = u16z(dfs_path)
    ts = [u16z(t) for t in targets]
    out = struct.pack("<HHI", len(consumed.encode("utf-16-le")), len(ts),
                      3 if root else 2)
    strings = b""
    for i, t in enumerate(ts):
        off = (len(ts) - i) * esz + len(strings)
        if v3:
            out += struct.pack("<HHHHIHHH16s", 3, esz, 1 if root else 0, 0,
                               600, off, off + len(d), off + 2 * len(d),
                               b"\0" * 16)
        else:
            out += struct.pack("<HHHHIIHHH", 2, esz, 1 if root else 0, 0,
                               0, 600, off, off + len(d), off + 2 * len(d))
        strings += d + d + t
    return out + strings


def parse_referral(out):
    """(PathConsumed, header flags, [(version, server type, DFSPath,
    NetworkAddress)]) of a RESP_GET_DFS_REFERRAL."""
    consumed, n, flags = struct.unpack_from("<HHI", out)
    res, o = [], 8
    for _ in range(n):
        ver, size, stype = struct.unpack_from("<HHH", out, o)
        po, _, no = struct.unpack_from("<HHH", out,
                                       o + (12 if ver >= 3 else 16))

        def s(off):
            b = out[o + off:]
            e = 0
            while b[e:e + 2] != b"\0\0":
                e += 2
            return b[:e].decode("utf-16-le")
        res.append((ver, stype, s(po), s(no)))
        o += size
    return consumed, flags, res


class DfsServer:
    """A server (ours or Samba) on 445 of its own loopback address, with
    the shares of this file:

      [dfsroot] msdfs root: link, broken, multi, empty, dir/deep, plain
      [target]  file ("hello"), sub/f2
      [proxy]   msdfs proxy = \\HOST\\target (an empty directory)
      [shuffled] msdfs root, msdfs shuffle referrals: six, a link to six
                 targets
    """

    def __init__(self, binary=None, global_options=()):
        self.host = free_host()
        g = list(global_options)
        self.srv = h.Smbd(binary=binary, port=445, host=self.host,
                          global_options=g)
        t = self.srv.tmp
        self.root = os.path.join(t, "root")
        self.target = os.path.join(t, "target")
        proxy = os.path.join(t, "proxy")
        shuffled = os.path.join(t, "shuffled")
        for d in (self.root, self.target, proxy, shuffled,
                  os.path.join(self.root, "dir"),
                  os.path.join(self.target, "sub")):
            os.mkdir(d)
            os.chmod(d, 0o777)
        with open(os.path.join(self.target, "file"), "w") as f:
            f.write("hello\n")
        with open(os.path.join(self.target, "sub", "f2"), "w") as f:
            f.write("f2\n")
        with open(os.path.join(self.root, "plain"), "w") as f:
            f.write("plain\n")
        H = self.host
        links = {"link": "msdfs:%s\\target" % H,
                 "broken": "msdfs:%s\\nosuch" % H,
                 "multi": "msdfs:%s\\target\\sub,127.0.0.2\\target" % H,
                 "empty": "msdfs:",
                 os.path.join("dir", "deep"): "msdfs:%s\\target" % H}
        for name, text in links.items():
            os.symlink(text, os.path.join(self.root, name))
        self.six = ["\\srv%d\\share%d" % (i, i) for i in range(6)]
        os.symlink("msdfs:" + ",".join(x[1:] for x in self.six),
                   os.path.join(shuffled, "six"))
        self.srv.extra_shares = [
            ("dfsroot", [("path", self.root), ("msdfs root", "yes")]),
            ("target", [("path", self.target)]),
            ("proxy", [("path", proxy),
                       ("msdfs proxy", "\\%s\\target" % H)]),
            ("shuffled", [("path", shuffled), ("msdfs root", "yes"),
                          ("msdfs shuffle referrals", "yes")]),
        ]
        self.srv.write_conf()
        self.client_conf = os.path.join(t, "client.conf")
        with open(self.client_conf, "w") as f:
            f.write("[global]\n")

    def start(self):
        self.srv.start()
        self.srv.create_user(h.TEST_USER, h.TEST_PASSWORD)
        return self

    def cleanup(self):
        self.srv.cleanup()

    def conn(self, dialect=h.DIALECT_311):
        c = r.Conn(445, host=self.host, dialect=dialect)
        s = c.logon(h.TEST_USER, h.TEST_PASSWORD)
        return c, s

    def smbclient(self, share, commands, timeout=SMB_TIMEOUT):
        cmd = ["smbclient", "//%s/%s" % (self.host, share),
               "-s", self.client_conf,
               "-U", "%s%%%s" % (h.TEST_USER, h.TEST_PASSWORD),
               "-t", str(timeout), "-c", commands]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL,
                               cwd=self.srv.tmp)
        except subprocess.TimeoutExpired:
            raise AssertionError("smbclient hung for %d s" % timeout)
        return p.returncode, p.stdout + p.stderr


def tcon(c, s, host, share):
    """(status, tree id, ShareFlags, Capabilities) of a TREE_CONNECT."""
    path = ("\\\\%s\\%s" % (host, share)).encode("utf-16-le")
    rep = c.call(r.TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72, len(path))
                 + path, sid=s.id)
    if rep.status:
        return rep.status, None, None, None
    _, _, _, flags, caps = struct.unpack_from("<HBBII", rep.body)
    return 0, rep.tree_id, flags, caps


def ioctl(c, s, tid, code, data, max_out=4096):
    """(status, output bytes) of an FSCTL on no file."""
    body = struct.pack("<HHI16sIIIIIIII", 57, 0, code, b"\xff" * 16,
                       64 + 56, len(data), 0, 0, 0, max_out, 1, 0) + data
    rep = c.call(r.IOCTL, body, sid=s.id, tid=tid)
    if len(rep.body) < 40:
        return rep.status, b""
    off, n = struct.unpack_from("<II", rep.body, 32)
    return rep.status, rep.raw[off:off + n]


def get_referral(c, s, tid, path, level=4, max_out=4096):
    return ioctl(c, s, tid, FSCTL_DFS_GET_REFERRALS,
                 struct.pack("<H", level) + u16z(path), max_out)


def get_referral_ex(c, s, tid, path, level=4, site=None):
    name = u16z(path)
    data = struct.pack("<H", len(name)) + name
    if site is not None:
        data += struct.pack("<H", len(u16z(site))) + u16z(site)
    return ioctl(c, s, tid, FSCTL_DFS_GET_REFERRALS_EX,
                 struct.pack("<HHI", level, 1 if site else 0, len(data)) +
                 data)


def create(c, s, tid, name, flags=0, disposition=r.FILE_OPEN, options=0):
    """The status of a CREATE (its open closed again)."""
    body = r.Conn.create_body(name, access=0x80, disposition=disposition,
                              options=options)
    if not name:
        body += b"\0"
    rep = c.call(r.CREATE, body, sid=s.id, tid=tid, flags=flags)
    if rep.status == 0:
        c.close_file(s.id, tid, rep.body[64:80])
    return rep.status


def listing(c, s, tid, cls=37):
    """{name: (attributes, EaSize)} of the share root's listing."""
    body = r.Conn.create_body("", access=0x81, disposition=r.FILE_OPEN,
                              options=r.FILE_DIRECTORY_FILE) + b"\0"
    rep = c.call(r.CREATE, body, sid=s.id, tid=tid).ok("open the root")
    fid = rep.body[64:80]
    pat = "*".encode("utf-16-le")
    rep = c.call(r.QUERY_DIRECTORY, struct.pack("<HBBI16sHHI", 33, cls, 1,
                                                0, fid, 96, len(pat), 65536)
                 + pat, sid=s.id, tid=tid).ok("list")
    c.close_file(s.id, tid, fid)
    off, n = struct.unpack_from("<HI", rep.body, 2)
    buf = rep.raw[off:off + n]
    name_at = {37: 104, 3: 94}[cls]
    out, o = {}, 0
    while True:
        nxt = struct.unpack_from("<I", buf, o)[0]
        attrs, nlen, ea = struct.unpack_from("<III", buf, o + 56)
        name = buf[o + name_at:o + name_at + nlen].decode("utf-16-le")
        out[name] = (attrs, ea)
        if not nxt:
            return out
        o += nxt


def mask_host(b, host):
    """b with the server's address (UTF-16, also where a cut response
    ends inside it) made HHH...: two servers' answers compare."""
    hh = host.encode("utf-16-le")
    mask = b"H\0" * len(host)
    b = b.replace(hh, mask)
    for k in range(len(hh) - 1, 0, -1):
        if b.endswith(hh[:k]):
            return b[:-k] + mask[:k]
    return b


def smbclient_text(out, host):
    """smbclient's output without what differs between two runs (dates,
    block counts, the server's address)."""
    lines = []
    for ln in out.replace(host, "HOST").splitlines():
        if "blocks of size" in ln or not ln.strip():
            continue
        ln = re.sub(r"\s+\w{3} \w{3} +\d+ [\d:]+ \d{4}$", "", ln)
        ln = re.sub(r"\(\d+(\.\d+)? KiloBytes/sec\).*", "", ln)
        lines.append(ln.rstrip())
    return "\n".join(lines)


class DfsCase(unittest.TestCase):
    """One DfsServer for the class (the server under test)."""

    global_options = ()

    @classmethod
    def setUpClass(cls):
        cls.dfs = DfsServer(global_options=cls.global_options)
        cls.addClassCleanup(cls.dfs.cleanup)
        cls.dfs.start()
        cls.host = cls.dfs.host

    def setUp(self):
        self.c, self.s = self.dfs.conn()
        self.addCleanup(self.c.close)
        self.ipc = tcon(self.c, self.s, self.host, "IPC$")[1]

    def tearDown(self):
        bad = h.crash_lines(self.dfs.srv)
        self.assertEqual(bad, [], "the server crashed")


class Dfs(DfsCase):

    # -- NEGOTIATE and TREE_CONNECT --------------------------------------
    def test_negotiate_offers_dfs(self):
        for d in h.ALL_DIALECTS:
            with h.RawConn(445, host=self.host) as rc:
                ctx = [h.preauth_context()] if d == h.DIALECT_311 else None
                rc.send(h.negotiate_request((d,), contexts=ctx))
                n = h.parse_negotiate_response(rc.recv())
            self.assertTrue(n["capabilities"] & CAP_DFS, hex(d))

    def test_tree_connect_flags(self):
        st, _, flags, caps = tcon(self.c, self.s, self.host, "dfsroot")
        self.assertEqual(st, 0)
        self.assertEqual(flags & 3, SHAREFLAG_DFS | SHAREFLAG_DFS_ROOT)
        self.assertEqual(caps & SHARE_CAP_DFS, SHARE_CAP_DFS)
        st, _, flags, caps = tcon(self.c, self.s, self.host, "target")
        self.assertEqual((st, flags & 3, caps & SHARE_CAP_DFS), (0, 0, 0))
        # a proxy is reached through its referral only
        self.assertEqual(tcon(self.c, self.s, self.host, "proxy")[0],
                         STATUS_BAD_NETWORK_NAME)

    # -- referrals ---------------------------------------------------------
    def assert_referral(self, path, dfs_path, targets, root=False,
                        levels=(0, 1, 2, 3, 4, 5)):
        for level in levels:
            st, out = get_referral(self.c, self.s, self.ipc, path, level)
            self.assertEqual(st, 0, "%s level %d: %08x" % (path, level, st))
            self.assertEqual(out.hex(), referral(dfs_path, dfs_path,
                                                 targets, level,
                                                 root).hex(),
                             "%s level %d" % (path, level))

    def test_root_referral(self):
        p = "\\%s\\dfsroot" % self.host
        self.assert_referral(p, p, [p], root=True)
        # the path as asked, in its case, with its separator
        p = "\\%s\\DFSROOT\\" % self.host
        self.assert_referral(p, p, [p], root=True, levels=(4,))

    def test_link_referral(self):
        H = self.host
        link = "\\%s\\dfsroot\\link" % H
        t = ["\\%s\\target" % H]
        self.assert_referral(link, link, t)
        # what follows the link is not consumed
        for rest in ("\\file", "\\a\\b\\c", "\\"):
            self.assert_referral(link + rest, link, t, levels=(1, 4))
        # a link deeper down, a name in another case
        deep = "\\%s\\dfsroot\\dir\\deep" % H
        self.assert_referral(deep + "\\x\\y", deep, t, levels=(4,))
        up = "\\%s\\DfsRoot\\LINK" % H
        self.assert_referral(up + "\\f", up, t, levels=(4,))

    def test_multi_target_referral(self):
        H = self.host
        p = "\\%s\\dfsroot\\multi" % H
        self.assert_referral(p, p, ["\\%s\\target\\sub" % H,
                                    "\\127.0.0.2\\target"], levels=(2, 4))

    def test_missing_target_is_referred(self):
        # the link is answered; the target's tree connect fails later
        H = self.host
        p = "\\%s\\dfsroot\\broken" % H
        self.assert_referral(p, p, ["\\%s\\nosuch" % H], levels=(4,))

    def test_empty_link_has_no_targets(self):
        p = "\\%s\\dfsroot\\empty" % self.host
        self.assert_referral(p, p, [], levels=(4,))

    def test_proxy_referral(self):
        p = "\\%s\\proxy" % self.host
        self.assert_referral(p, p, ["\\%s\\target" % self.host],
                             levels=(1, 4))

    def test_nothing_to_refer(self):
        H = self.host
        for path, want in (
                ("\\%s\\target" % H, STATUS_NOT_FOUND),
                ("\\%s\\target\\x" % H, STATUS_NOT_FOUND),
                ("\\%s\\nosuch" % H, STATUS_NOT_FOUND),
                ("\\%s\\IPC$" % H, STATUS_NOT_FOUND),
                ("\\dfsroot", STATUS_NOT_FOUND),
                ("", STATUS_NOT_FOUND),
                ("\\%s\\dfsroot\\plain" % H, STATUS_OBJECT_PATH_NOT_FOUND),
                ("\\%s\\dfsroot\\dir" % H, STATUS_OBJECT_PATH_NOT_FOUND),
                ("\\%s\\dfsroot\\nosuch\\x" % H,
                 STATUS_OBJECT_PATH_NOT_FOUND),
                ("\\%s\\dfsroot\\link:s" % H, STATUS_OBJECT_NAME_INVALID)):
            st, _ = get_referral(self.c, self.s, self.ipc, path)
            self.assertEqual(st, want, "%r: %08x" % (path, st))
        st, _ = ioctl(self.c, self.s, self.ipc, FSCTL_DFS_GET_REFERRALS,
                      b"\x04")
        self.assertEqual(st, r.STATUS_INVALID_PARAMETER)

    def test_small_buffer_overflows(self):
        """Not even one entry fits: STATUS_BUFFER_OVERFLOW and the
        referral cut at MaxOutputResponse (Samba's answer)."""
        link = "\\%s\\dfsroot\\link" % self.host
        want = referral(link, link, ["\\%s\\target" % self.host], 4, False)
        for max_out in (10, 40, len(want) - 1):
            st, out = get_referral(self.c, self.s, self.ipc, link, 4,
                                   max_out)
            self.assertEqual(st, STATUS_BUFFER_OVERFLOW)
            self.assertEqual(out.hex(), want[:max_out].hex())
        st, out = get_referral(self.c, self.s, self.ipc, link, 4, len(want))
        self.assertEqual((st, out), (0, want))

    def test_partial_buffer_whole_entries(self):
        """MS-DFSC 3.2.5.1: room for one of two entries: that one,
        complete (Samba 4.17 sends both cut, with BUFFER_OVERFLOW)."""
        if self.dfs.srv.samba:
            raise unittest.SkipTest("Samba 4.17 cuts the response instead")
        H = self.host
        p = "\\%s\\dfsroot\\multi" % H
        one = referral(p, p, ["\\%s\\target\\sub" % H], 4, False)
        st, out = get_referral(self.c, self.s, self.ipc, p, 4, len(one) + 40)
        self.assertEqual((st, out.hex()), (0, one.hex()))

    def test_referral_ex(self):
        """FSCTL_DFS_GET_REFERRALS_EX: the same referral, a site name or
        not (Samba 4.17 answers FS_DRIVER_REQUIRED to every one)."""
        if self.dfs.srv.samba:
            raise unittest.SkipTest("Samba 4.17 does not answer _EX")
        H = self.host
        link = "\\%s\\dfsroot\\link" % H
        want = referral(link, link, ["\\%s\\target" % H], 4, False)
        for site in (None, "Default-First-Site-Name"):
            st, out = get_referral_ex(self.c, self.s, self.ipc,
                                      link + "\\f", 4, site)
            self.assertEqual((st, out.hex()), (0, want.hex()))
        st, _ = ioctl(self.c, self.s, self.ipc, FSCTL_DFS_GET_REFERRALS_EX,
                      struct.pack("<HHI", 4, 0, 100) + b"\0\0")
        self.assertEqual(st, r.STATUS_INVALID_PARAMETER)

    def test_referral_as_the_user(self):
        """The link is looked up as the user asking: a root the user may
        not search is ACCESS_DENIED (Samba's answer)."""
        os.chmod(self.dfs.root, 0o700)
        try:
            st, _ = get_referral(self.c, self.s, self.ipc,
                                 "\\%s\\dfsroot\\link" % self.host)
        finally:
            os.chmod(self.dfs.root, 0o777)
        self.assertEqual(st, r.STATUS_ACCESS_DENIED)

    def test_shuffle_referrals(self):
        p = "\\%s\\shuffled\\six" % self.host
        orders = set()
        for _ in range(12):
            st, out = get_referral(self.c, self.s, self.ipc, p)
            self.assertEqual(st, 0)
            got = [e[3] for e in parse_referral(out)[2]]
            self.assertEqual(sorted(got), sorted(self.dfs.six))
            orders.add(tuple(got))
        # 12 draws of 720 orders all alike: about 1 in 10^34
        self.assertGreater(len(orders), 1)
        # without the parameter, the link's own order every time
        p = "\\%s\\dfsroot\\multi" % self.host
        outs = {get_referral(self.c, self.s, self.ipc, p)[1]
                for _ in range(4)}
        self.assertEqual(len(outs), 1)

    # -- CREATE ------------------------------------------------------------
    def test_create_through_link_is_not_covered(self):
        tid = tcon(self.c, self.s, self.host, "dfsroot")[1]
        for name in ("link", "link\\file", "LINK\\file", "dir\\deep",
                     "dir\\deep\\x\\y", "broken", "empty"):
            self.assertEqual(create(self.c, self.s, tid, name),
                             STATUS_PATH_NOT_COVERED, name)
        # whatever the disposition: nothing is made through a link, nor
        # the link's dangling target next to it
        for disp in (r.FILE_CREATE, r.FILE_OPEN_IF, r.FILE_OVERWRITE_IF):
            for name in ("link", "link\\new"):
                self.assertEqual(create(self.c, self.s, tid, name,
                                        disposition=disp),
                                 STATUS_PATH_NOT_COVERED, (name, disp))
        self.assertEqual(sorted(os.listdir(self.dfs.root)),
                         ["broken", "dir", "empty", "link", "multi",
                          "plain"])
        self.assertEqual(sorted(os.listdir(self.dfs.target)),
                         ["file", "sub"])
        self.assertEqual(create(self.c, self.s, tid, "plain"), 0)
        self.assertEqual(create(self.c, self.s, tid, "nosuch\\x"),
                         STATUS_OBJECT_PATH_NOT_FOUND)

    def test_create_dfs_paths(self):
        """SMB2_FLAGS_DFS_OPERATIONS: server\\share\\path; the answers
        are Samba's, on a DFS root and on an ordinary share."""
        H = self.host
        D = FLAGS_DFS_OPERATIONS
        tid = tcon(self.c, self.s, H, "dfsroot")[1]
        for name, want in (
                ("%s\\dfsroot\\link\\file" % H, STATUS_PATH_NOT_COVERED),
                ("%s\\dfsroot\\plain" % H, 0),
                ("\\%s\\dfsroot\\plain" % H, 0),
                ("%s\\DFSROOT\\plain" % H, 0),
                ("otherhost\\dfsroot\\plain", 0),
                ("%s\\dfsroot" % H, 0),
                ("%s\\dfsroot\\" % H, 0),
                ("%s\\othershare\\plain" % H, STATUS_OBJECT_PATH_NOT_FOUND),
                ("a\\b\\plain", STATUS_OBJECT_PATH_NOT_FOUND),
                ("plain", 0),
                ("link", STATUS_PATH_NOT_COVERED),
                (H, r.STATUS_OBJECT_NAME_NOT_FOUND)):
            self.assertEqual(create(self.c, self.s, tid, name, D), want,
                             name)
        tid = tcon(self.c, self.s, H, "target")[1]
        self.assertEqual(create(self.c, self.s, tid,
                                "%s\\target\\file" % H, D), 0)
        self.assertEqual(create(self.c, self.s, tid, "%s\\target" % H, D),
                         0)

    # -- listings ----------------------------------------------------------
    def test_links_listed_as_dfs_reparse_points(self):
        tid = tcon(self.c, self.s, self.host, "dfsroot")[1]
        for cls in (37, 3):
            got = listing(self.c, self.s, tid, cls)
            for name in ("link", "broken", "multi", "empty"):
                self.assertEqual(got[name],
                                 (ATTR_DIRECTORY | ATTR_REPARSE_POINT,
                                  IO_REPARSE_TAG_DFS), (cls, name))
            self.assertEqual(got["dir"][0] & ATTR_REPARSE_POINT, 0)
            self.assertEqual(got["plain"][0] & ATTR_REPARSE_POINT, 0)

    # -- smbclient -----------------------------------------------------------
    def test_smbclient_follows_links(self):
        dst = os.path.join(self.dfs.srv.tmp, "got")
        rc, out = self.dfs.smbclient(
            "dfsroot", "cd link; ls; get file %s; cd \\dir\\deep; ls sub\\*"
            % dst)
        self.assertEqual(rc, 0, out)
        with open(dst) as f:
            self.assertEqual(f.read(), "hello\n")
        self.assertIn("f2", out)
        rc, out = self.dfs.smbclient("dfsroot", "cd broken")
        self.assertIn("NT_STATUS_BAD_NETWORK_NAME", out)
        rc, out = self.dfs.smbclient("dfsroot", "cd empty")
        self.assertIn("NT_STATUS_NOT_FOUND", out)

    def test_smbclient_follows_proxy(self):
        rc, out = self.dfs.smbclient("proxy", "ls")
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"\n\s+file\s+N\s+6 ")


class HostMsdfsOff(DfsCase):
    """`host msdfs = no`: no DFS anywhere (Samba's answers)."""

    global_options = (("host msdfs", "no"),)

    def test_no_dfs(self):
        H = self.host
        with h.RawConn(445, host=H) as rc:
            rc.send(h.negotiate_request((h.DIALECT_302,)))
            n = h.parse_negotiate_response(rc.recv())
        self.assertEqual(n["capabilities"] & CAP_DFS, 0)
        st, tid, flags, caps = tcon(self.c, self.s, H, "dfsroot")
        self.assertEqual((st, flags & 3, caps & SHARE_CAP_DFS), (0, 0, 0))
        # a proxy share is a share
        self.assertEqual(tcon(self.c, self.s, H, "proxy")[0], 0)
        for p in ("\\%s\\dfsroot" % H, "\\%s\\dfsroot\\link" % H):
            self.assertEqual(get_referral(self.c, self.s, self.ipc, p)[0],
                             STATUS_FS_DRIVER_REQUIRED)
        # a link is the dangling symlink it is: not there, not listed
        self.assertEqual(create(self.c, self.s, tid, "link"),
                         r.STATUS_OBJECT_NAME_NOT_FOUND)
        self.assertEqual(create(self.c, self.s, tid, "link\\file"),
                         STATUS_OBJECT_PATH_NOT_FOUND)
        self.assertNotIn("link", listing(self.c, self.s, tid))


class SideBySide(unittest.TestCase):
    """Ours and Samba 4.17 on the same configuration in one run: the raw
    referrals byte for byte (their addresses have the same length) and
    what smbclient prints."""

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("compares ours with Samba")
        if not os.path.exists(SAMBA):
            raise unittest.SkipTest("no Samba smbd at %s" % SAMBA)
        cls.ours = DfsServer()
        cls.addClassCleanup(cls.ours.cleanup)
        cls.samba = DfsServer(binary=SAMBA)
        cls.addClassCleanup(cls.samba.cleanup)
        cls.ours.start()
        cls.samba.start()

    def referrals(self, dfs):
        H = dfs.host
        c, s = dfs.conn()
        try:
            ipc = tcon(c, s, H, "IPC$")[1]
            out = []
            for p in ("dfsroot", "dfsroot\\", "DFSROOT\\LINK",
                      "dfsroot\\link", "dfsroot\\link\\file",
                      "dfsroot\\dir\\deep\\x", "dfsroot\\multi",
                      "dfsroot\\broken", "dfsroot\\empty", "proxy",
                      "dfsroot\\plain", "dfsroot\\nosuch", "target",
                      "nosuch", "dfsroot\\dir\\..\\link"):
                for level in (1, 4):
                    for max_out in (4096, 100):
                        st, b = get_referral(c, s, ipc, "\\%s\\%s" % (H, p),
                                             level, max_out)
                        b = mask_host(b, H)
                        out.append("%s L%d %d: %08x %s"
                                   % (p, level, max_out, st, b.hex()))
            return out
        finally:
            c.close()

    def test_referral_bytes_match_samba(self):
        ours, samba = self.referrals(self.ours), self.referrals(self.samba)
        for a, b in zip(ours, samba):
            self.assertEqual(a, b)

    def test_smbclient_sees_the_same(self):
        cmds = ("ls; cd link; ls; get file got; cd \\multi; ls; "
                "cd \\dir\\deep; ls; cd \\broken; cd \\empty")
        outs = []
        for dfs in (self.ours, self.samba):
            rc, out = dfs.smbclient("dfsroot", cmds)
            rc2, out2 = dfs.smbclient("proxy", "ls")
            outs.append((rc, smbclient_text(out, dfs.host), rc2,
                         smbclient_text(out2, dfs.host)))
        self.assertEqual(outs[0], outs[1])
        self.assertIn("getting file \\link\\file of size 6", outs[0][1])


class KernelClient(unittest.TestCase):
    """cifs.ko follows DFS referrals: mount the root, read through a
    link.  Needs the cifs module and mount.cifs."""

    def test_mount_follows_link(self):
        with open("/proc/filesystems") as f:
            has_cifs = any(ln.split()[-1] == "cifs" for ln in f)
        if not has_cifs:
            raise unittest.SkipTest("no cifs file system in this kernel "
                                     "(no cifs module on this machine)")
        if shutil.which("mount.cifs") is None:
            raise unittest.SkipTest("no mount.cifs (cifs-utils)")
        dfs = DfsServer()
        self.addCleanup(dfs.cleanup)
        dfs.start()
        mnt = tempfile.mkdtemp(prefix="dfs-mnt-")
        self.addCleanup(os.rmdir, mnt)
        p = subprocess.run(["mount", "-t", "cifs",
                            "//%s/dfsroot" % dfs.host, mnt, "-o",
                            "username=%s,password=%s,vers=3.0"
                            % (h.TEST_USER, h.TEST_PASSWORD)],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        try:
            with open(os.path.join(mnt, "link", "file")) as f:
                self.assertEqual(f.read(), "hello\n")
        finally:
            subprocess.run(["umount", "-l", mnt], timeout=60)


if __name__ == "__main__":
    h.main()
