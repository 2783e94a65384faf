#!/usr/bin/python3
"""Reparse points (issue 35): symbolic links and special files as a
Windows server and Samba 4.21+ show them, checked as bytes on the wire,
ours and (SMBD=/usr/sbin/smbd) Samba 4.17 side by side.

Where Samba 4.17 answers otherwise the test says what it answers and
why ours differs (MS-FSCC/MS-FSA/MS-SMB2 and Windows decide; Samba 4.22+
answers as ours for the links it shows):

- FSCTL_GET_REPARSE_POINT on a plain file or directory:
  STATUS_NOT_A_REPARSE_POINT (both; ours said NOT_SUPPORTED before);
- an open through a link inside the share reads the target (both);
- FILE_OPEN_REPARSE_POINT opens the link itself: REPARSE_POINT in the
  CREATE response, FileAttributeTagInformation IO_REPARSE_TAG_SYMLINK,
  FSCTL_GET_REPARSE_POINT its MS-FSCC 2.1.2.4 buffer (an absolute target
  inside the share shown relative), a delete-on-close removes the link
  only (Samba 4.17 ignores the option and opens the target);
- listings show a link inside the share as a reparse point (the tag in
  EaSize's place, DIRECTORY for a directory link), do not show a link
  that dangles or leaves the share (both), and show FIFOs, sockets and
  devices as IO_REPARSE_TAG_NFS reparse points (Samba 4.17 lists them as
  plain files);
- a path through a link the server does not follow (out of the share,
  or any with `follow symlinks = no`) is STATUS_STOPPED_ON_SYMLINK with
  the Symbolic Link Error Response (MS-SMB2 2.2.2.2.1), in an error
  context on 3.1.1 (Samba 4.17: OBJECT_PATH_NOT_FOUND/NAME_NOT_FOUND;
  ours said ACCESS_DENIED before);
- FSCTL_SET_REPARSE_POINT with IO_REPARSE_TAG_SYMLINK makes a link
  whose target stays in the share, refuses the others (PRIVILEGE_NOT_
  HELD), checks its input as MS-FSA 2.1.5.10.37 (Samba 4.17 answers
  NOT_A_REPARSE_POINT to every SET and DELETE);
  FSCTL_DELETE_REPARSE_POINT turns the link back into an empty file;
- the NFS reparse buffers of a FIFO, a socket and a character device
  (MS-FSCC 2.1.2.6);
- `wide links = yes`: a link out of the share is followed and listed as
  its target; clients make links there only with `allow insecure wide
  links` (Samba 4.17 ignores `wide links` unless `allow insecure wide
  links` or `unix extensions = no`);
- smbclient still lists and reads through links (`ls`, `get`).

The Linux kernel client is not available on this machine (no cifs
module: no /lib/modules, no cifs in /proc/filesystems), so its readlink
and mknod over reparse points are not tried here.
"""

import os
import pwd
import socket
import stat
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c3  # noqa: E402

from impacket import smb3structs as s3  # noqa: E402

CREATE, CLOSE, IOCTL, QUERY_DIRECTORY, QUERY_INFO = 5, 6, 0xB, 0xE, 0x10
SET_INFO = 0x11

STATUS_SUCCESS = 0
STATUS_BUFFER_OVERFLOW = 0x80000005
STATUS_STOPPED_ON_SYMLINK = 0x8000002D
STATUS_NOT_SUPPORTED = 0xC00000BB
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_BUFFER_TOO_SMALL = 0xC0000023
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_OBJECT_NAME_COLLISION = 0xC0000035
STATUS_OBJECT_PATH_NOT_FOUND = 0xC000003A
STATUS_PRIVILEGE_NOT_HELD = 0xC0000061
STATUS_DIRECTORY_NOT_EMPTY = 0xC0000101
STATUS_INVALID_BUFFER_SIZE = 0xC0000206
STATUS_NOT_A_REPARSE_POINT = 0xC0000275
STATUS_IO_REPARSE_TAG_MISMATCH = 0xC0000277
STATUS_IO_REPARSE_DATA_INVALID = 0xC0000278

FSCTL_SET_REPARSE_POINT = 0x000900A4
FSCTL_GET_REPARSE_POINT = 0x000900A8
FSCTL_DELETE_REPARSE_POINT = 0x000900AC

IO_REPARSE_TAG_SYMLINK = 0xA000000C
IO_REPARSE_TAG_NFS = 0x80000014
SYMLINK_FLAG_RELATIVE = 1
SYML = 0x4C4D5953

FILE_ATTRIBUTE_DIRECTORY = 0x10
FILE_ATTRIBUTE_ARCHIVE = 0x20
FILE_ATTRIBUTE_NORMAL = 0x80
FILE_ATTRIBUTE_REPARSE_POINT = 0x400

FILE_OPEN, FILE_CREATE = 1, 2
FILE_DIRECTORY_FILE = 0x1
FILE_NON_DIRECTORY_FILE = 0x40
FILE_DELETE_ON_CLOSE = 0x1000
FILE_OPEN_REPARSE_POINT = 0x200000

READ_ATTRS = 0x00100080          # FILE_READ_ATTRIBUTES | SYNCHRONIZE
READ = 0x00120089                # FILE_GENERIC_READ
WRITE_ATTRS = 0x00100180         # + FILE_WRITE_ATTRIBUTES
DELETE = 0x00010000

FILE_FULL_DIRECTORY_INFORMATION = 2
FILE_ID_BOTH_DIRECTORY_INFORMATION = 0x25
FILE_ATTRIBUTE_TAG_INFORMATION = 35


def symlink_buffer(target, relative=True, tag=IO_REPARSE_TAG_SYMLINK):
    """A REPARSE_DATA_BUFFER with MS-FSCC 2.1.2.4 symbolic link data."""
    n = target.encode("utf-16-le")
    data = struct.pack("<HHHHI", 0, len(n), len(n), len(n),
                       SYMLINK_FLAG_RELATIVE if relative else 0) + n + n
    return struct.pack("<IHH", tag, len(data), 0) + data


def parse_symlink(buf, off=0):
    """(tag, SubstituteName, PrintName, Flags) of a 2.1.2.4 buffer."""
    tag, rdl, _ = struct.unpack_from("<IHH", buf, off)
    so, sl, po, pl, flags = struct.unpack_from("<HHHHI", buf, off + 8)
    path = buf[off + 20:off + 8 + rdl]
    return (tag, path[so:so + sl].decode("utf-16-le"),
            path[po:po + pl].decode("utf-16-le"), flags)


class Client(c3.Client):
    """The 3.1.1 client with the requests these tests send."""

    def create_ex(self, name, access=READ_ATTRS, options=0,
                  disposition=FILE_OPEN, ok=(STATUS_SUCCESS,)):
        """CREATE: (status, FileId or None, FileAttributes, raw reply)."""
        n = name.encode("utf-16-le")
        body = struct.pack("<HBBIQQIIIIIHHII", 57, 0, 0, 2, 0, 0, access,
                           0x80, 7, disposition, options, 64 + 56, len(n),
                           0, 0) + (n or b"\0")   # the byte 57 counts
        r = self._request(CREATE, body, ok=ok)
        status = struct.unpack_from("<I", r, 8)[0]
        if status != STATUS_SUCCESS:
            return status, None, None, r
        attrs = struct.unpack_from("<I", r, 64 + 56)[0]
        return status, r[64 + 64:64 + 80], attrs, r

    def ioctl(self, fid, code, data=b"", max_out=4096,
              ok=(STATUS_SUCCESS,)):
        """IOCTL (FSCTL): (status, output)."""
        off = 64 + 56 if data else 0
        body = struct.pack("<HHI16sIIIIIIII", 57, 0, code, fid, off,
                           len(data), 0, 0, 0, max_out, 1, 0) + \
            (data or b"\0")
        r = self._request(IOCTL, body, ok=ok)
        status = struct.unpack_from("<I", r, 8)[0]
        if status not in (STATUS_SUCCESS, STATUS_BUFFER_OVERFLOW):
            return status, r
        oo, oc = struct.unpack_from("<II", r, 64 + 32)
        return status, r[oo:oo + oc]

    def query_info(self, fid, cls, out_len=1024):
        r = self._request(QUERY_INFO, struct.pack(
            "<HBBIHHIII16s", 41, 1, cls, out_len, 0, 0, 0, 0, 0, fid))
        off, n = struct.unpack_from("<HI", r, 64 + 2)
        return r[off:off + n]

    def set_write_time(self, fid, nttime):
        """SET_INFO FileBasicInformation: LastWriteTime only."""
        info = struct.pack("<qqqqII", 0, 0, nttime, 0, 0, 0)
        self._request(SET_INFO, struct.pack(
            "<HBBIHHI16s", 33, 1, 4, len(info), 64 + 32, 0, 0, fid) + info)

    def list_dir(self, fid, cls=FILE_ID_BOTH_DIRECTORY_INFORMATION):
        """{name: (attributes, EaSize, EndOfFile)} of the whole
        directory."""
        out = {}
        flags = 1          # RESTART_SCANS
        while True:
            pat = "*".encode("utf-16-le")
            r = self._request(QUERY_DIRECTORY, struct.pack(
                "<HBBI16sHHI", 33, cls, flags, 0, fid, 64 + 32, len(pat),
                65536) + pat, ok=(0, 0x80000006))
            if struct.unpack_from("<I", r, 8)[0] != 0:
                return out
            flags = 0
            off, n = struct.unpack_from("<HI", r, 64 + 2)
            buf = r[off:off + n]
            pos = 0
            while True:
                nxt = struct.unpack_from("<I", buf, pos)[0]
                eof = struct.unpack_from("<Q", buf, pos + 40)[0]
                attrs, nlen, ea = struct.unpack_from("<III", buf, pos + 56)
                name_at = 104 if cls == FILE_ID_BOTH_DIRECTORY_INFORMATION \
                    else 68
                name = buf[pos + name_at:pos + name_at + nlen].decode(
                    "utf-16-le")
                out[name] = (attrs, ea, eof)
                if not nxt:
                    break
                pos += nxt


class ReparseBase(h.TestUser):
    """The share's links and special files, made once per class."""

    share_options = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.smbd.share
        with open(os.path.join(s, "file.txt"), "w") as f:
            f.write("hello")
        os.mkdir(os.path.join(s, "dir"))
        with open(os.path.join(s, "dir", "inner.txt"), "w") as f:
            f.write("in")
        os.mkdir(os.path.join(s, "sub"))
        os.symlink("file.txt", os.path.join(s, "lnk_file"))
        os.symlink("dir", os.path.join(s, "lnk_dir"))
        os.symlink("../file.txt", os.path.join(s, "sub", "lnk_up"))
        os.symlink(os.path.join(s, "file.txt"),
                   os.path.join(s, "sub", "lnk_abs_in"))
        os.symlink("/etc", os.path.join(s, "lnk_out"))
        os.symlink("nothing", os.path.join(s, "lnk_dangling"))
        os.mkfifo(os.path.join(s, "fifo"))
        sk = socket.socket(socket.AF_UNIX)
        sk.bind(os.path.join(s, "sock"))
        sk.close()
        try:
            os.mknod(os.path.join(s, "chr"), stat.S_IFCHR | 0o644,
                     os.makedev(1, 3))
            cls.have_chr = True
        except OSError:
            cls.have_chr = False
        for root, dirs, files in os.walk(s):
            for n in dirs + files:
                p = os.path.join(root, n)
                if not os.path.islink(p):
                    os.chmod(p, 0o777)

    def client(self):
        c = Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                   algorithms=None)
        self.addCleanup(c.conn.close)
        c.tree_connect("share")
        return c

    def link_open(self, c, name, access=READ_ATTRS, options=0):
        st, fid, attrs, _ = c.create_ex(
            name, access=access, options=FILE_OPEN_REPARSE_POINT | options)
        self.addCleanup(c.close, fid)
        return fid, attrs


class Reparse(ReparseBase, h.SmbdTestCase):
    """The default share: `follow symlinks = yes`, `wide links = no`."""

    # -- FSCTL_GET_REPARSE_POINT -----------------------------------------
    def test_plain_file_is_not_a_reparse_point(self):
        c = self.client()
        for name, opts in (("file.txt", 0), ("dir", FILE_DIRECTORY_FILE)):
            _, fid, attrs, _ = c.create_ex(name, options=opts)
            self.assertFalse(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
            st, _ = c.ioctl(fid, FSCTL_GET_REPARSE_POINT,
                            ok=(STATUS_NOT_A_REPARSE_POINT,))
            self.assertEqual(st, STATUS_NOT_A_REPARSE_POINT, name)
            c.close(fid)

    def test_open_through_link_reads_the_target(self):
        c = self.client()
        for name in ("lnk_file", "sub\\lnk_up"):
            _, fid, attrs, _ = c.create_ex(name, access=READ)
            self.assertFalse(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
            self.assertEqual(c.read(fid, 0, 100, False), b"hello", name)
            st, _ = c.ioctl(fid, FSCTL_GET_REPARSE_POINT,
                            ok=(STATUS_NOT_A_REPARSE_POINT,))
            c.close(fid)
        _, fid, attrs, _ = c.create_ex("lnk_dir\\inner.txt", access=READ)
        self.assertEqual(c.read(fid, 0, 100, False), b"in")
        c.close(fid)

    def test_link_opened_itself(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 ignores FILE_OPEN_REPARSE_POINT "
                          "and opens the target (4.22+ opens the link)")
        c = self.client()
        fid, attrs = self.link_open(c, "lnk_file")
        self.assertTrue(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
        self.assertFalse(attrs & FILE_ATTRIBUTE_DIRECTORY)
        info = c.query_info(fid, FILE_ATTRIBUTE_TAG_INFORMATION)
        self.assertEqual(struct.unpack("<II", info),
                         (attrs, IO_REPARSE_TAG_SYMLINK))
        st, out = c.ioctl(fid, FSCTL_GET_REPARSE_POINT)
        self.assertEqual(st, STATUS_SUCCESS)
        self.assertEqual(parse_symlink(out),
                         (IO_REPARSE_TAG_SYMLINK, "file.txt", "file.txt",
                          SYMLINK_FLAG_RELATIVE))
        self.assertEqual(struct.unpack_from("<H", out, 4)[0], len(out) - 8)
        # a directory link says DIRECTORY too, its open is the link's
        fid, attrs = self.link_open(c, "lnk_dir")
        self.assertEqual(attrs & (FILE_ATTRIBUTE_REPARSE_POINT |
                                  FILE_ATTRIBUTE_DIRECTORY),
                         FILE_ATTRIBUTE_REPARSE_POINT |
                         FILE_ATTRIBUTE_DIRECTORY)
        # relative with "..", absolute inside the share shown relative,
        # and one out of the share as it is
        for name, want in (("sub\\lnk_up", ("..\\file.txt",
                                             SYMLINK_FLAG_RELATIVE)),
                           ("sub\\lnk_abs_in", ("..\\file.txt",
                                                SYMLINK_FLAG_RELATIVE)),
                           ("lnk_out", ("\\etc", 0)),
                           ("lnk_dangling", ("nothing",
                                             SYMLINK_FLAG_RELATIVE))):
            fid, _ = self.link_open(c, name)
            st, out = c.ioctl(fid, FSCTL_GET_REPARSE_POINT)
            tag, sub, _, flags = parse_symlink(out)
            self.assertEqual((sub, flags), want, name)

    def test_link_handle_acts_on_the_link(self):
        """Calls on a link opened itself reach the link, never what it
        points to (its descriptor is O_PATH; /proc/self/fd does not
        follow it): a write time set lands on the link."""
        if self.smbd.samba:
            self.skipTest("Samba 4.17 opens the target")
        os.symlink("file.txt", self.share_path("lnk_times"))
        pw = pwd.getpwnam(h.TEST_USER)     # times are the owner's to set
        os.lchown(self.share_path("lnk_times"), pw.pw_uid, pw.pw_gid)
        before = os.stat(self.share_path("file.txt")).st_mtime
        c = self.client()
        fid, _ = self.link_open(c, "lnk_times", access=WRITE_ATTRS)
        # 2001-09-09 01:46:40 UTC: 1000000000 s after 1970
        c.set_write_time(fid, (1000000000 + 11644473600) * 10000000)
        self.assertEqual(os.lstat(self.share_path("lnk_times")).st_mtime,
                         1000000000)
        self.assertEqual(os.stat(self.share_path("file.txt")).st_mtime,
                         before)

    def test_get_reparse_output_too_small(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 opens the target")
        c = self.client()
        fid, _ = self.link_open(c, "lnk_file")
        st, _ = c.ioctl(fid, FSCTL_GET_REPARSE_POINT, max_out=4,
                        ok=(STATUS_BUFFER_TOO_SMALL,))
        self.assertEqual(st, STATUS_BUFFER_TOO_SMALL)
        # MS-FSA 2.1.5.10.14: the header and what fits, BUFFER_OVERFLOW
        st, out = c.ioctl(fid, FSCTL_GET_REPARSE_POINT, max_out=24,
                          ok=(STATUS_BUFFER_OVERFLOW,))
        self.assertEqual((st, len(out)), (STATUS_BUFFER_OVERFLOW, 24))
        self.assertEqual(struct.unpack_from("<I", out)[0],
                         IO_REPARSE_TAG_SYMLINK)

    def test_delete_on_close_removes_the_link_only(self):
        os.symlink("file.txt", self.share_path("lnk_del"))
        c = self.client()
        st, fid, attrs, _ = c.create_ex(
            "lnk_del", access=READ_ATTRS | DELETE,
            options=FILE_OPEN_REPARSE_POINT | FILE_DELETE_ON_CLOSE)
        c.close(fid)
        self.assertFalse(os.path.lexists(self.share_path("lnk_del")))
        with open(self.share_path("file.txt")) as f:
            self.assertEqual(f.read(), "hello")

    # -- listings and FileAttributeTagInformation ------------------------
    def test_listing(self):
        c = self.client()
        _, fid, _, _ = c.create_ex("", access=READ,
                                    options=FILE_DIRECTORY_FILE)
        for cls in (FILE_ID_BOTH_DIRECTORY_INFORMATION,
                    FILE_FULL_DIRECTORY_INFORMATION):
            ls = c.list_dir(fid, cls)
            # neither server lists what it would not follow
            self.assertNotIn("lnk_out", ls)
            self.assertNotIn("lnk_dangling", ls)
            self.assertFalse(ls["file.txt"][0] &
                             FILE_ATTRIBUTE_REPARSE_POINT)
            if self.smbd.samba:
                # Samba 4.17: links as their targets, special files as
                # plain files
                self.assertEqual(ls["lnk_file"][2], 5)
                self.assertFalse(ls["lnk_file"][0] &
                                 FILE_ATTRIBUTE_REPARSE_POINT)
                continue
            attrs, ea, eof = ls["lnk_file"]
            self.assertEqual(attrs & (FILE_ATTRIBUTE_REPARSE_POINT |
                                      FILE_ATTRIBUTE_DIRECTORY),
                             FILE_ATTRIBUTE_REPARSE_POINT)
            self.assertEqual((ea, eof), (IO_REPARSE_TAG_SYMLINK, 0))
            attrs, ea, _ = ls["lnk_dir"]
            self.assertTrue(attrs & FILE_ATTRIBUTE_DIRECTORY)
            self.assertTrue(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
            self.assertEqual(ea, IO_REPARSE_TAG_SYMLINK)
            for name in ("fifo", "sock") + (("chr",) if self.have_chr
                                             else ()):
                attrs, ea, _ = ls[name]
                self.assertTrue(attrs & FILE_ATTRIBUTE_REPARSE_POINT, name)
                self.assertEqual(ea, IO_REPARSE_TAG_NFS, name)
        c.close(fid)

    def test_attribute_tag_of_plain_and_special(self):
        c = self.client()
        _, fid, attrs, _ = c.create_ex("file.txt")
        self.assertEqual(struct.unpack("<II", c.query_info(
            fid, FILE_ATTRIBUTE_TAG_INFORMATION)), (attrs, 0))
        c.close(fid)
        if self.smbd.samba:
            return
        for name in ("fifo", "sock"):
            fid, attrs = self.link_open(c, name)
            self.assertTrue(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
            self.assertEqual(struct.unpack("<II", c.query_info(
                fid, FILE_ATTRIBUTE_TAG_INFORMATION)),
                (attrs, IO_REPARSE_TAG_NFS))

    def test_special_files_nfs_buffers(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 has no NFS reparse points (4.21+ "
                          "answers these buffers)")
        c = self.client()
        want = [("fifo", b"FIFO\0\0\0\0", b""),
                ("sock", b"SOCK\0\0\0\0", b"")]
        if self.have_chr:
            want.append(("chr", b"CHR\0\0\0\0\0", struct.pack("<II", 1, 3)))
        for name, typ, extra in want:
            fid, _ = self.link_open(c, name)
            st, out = c.ioctl(fid, FSCTL_GET_REPARSE_POINT)
            tag, rdl, _ = struct.unpack_from("<IHH", out)
            self.assertEqual((tag, rdl), (IO_REPARSE_TAG_NFS,
                                          8 + len(extra)), name)
            self.assertEqual(out[8:], typ + extra, name)

    # -- STATUS_STOPPED_ON_SYMLINK ---------------------------------------
    def check_symlink_error(self, body, ctx, target, flags, unparsed):
        """An ERROR Response body (2.2.2) carrying a Symbolic Link Error
        Response (2.2.2.2.1), in an error context (2.2.2.1) when ctx."""
        ss, count, _, nbytes = struct.unpack_from("<HBBI", body)
        self.assertEqual(ss, 9)
        data = body[8:8 + nbytes]
        self.assertEqual(len(data), nbytes)
        if ctx:
            self.assertEqual(count, 1)
            dlen, err_id = struct.unpack_from("<II", data)
            self.assertEqual((err_id, dlen), (0, nbytes - 8))
            data = data[8:]
        else:
            self.assertEqual(count, 0)
        sl, tag = struct.unpack_from("<II", data)
        self.assertEqual((sl, tag), (len(data) - 4, SYML))
        rtag, rdl, unp = struct.unpack_from("<IHH", data, 8)
        self.assertEqual((rtag, rdl, unp),
                         (IO_REPARSE_TAG_SYMLINK, len(data) - 16, unparsed))
        # the rest is the 2.1.2.4 data, as in a reparse buffer
        _, sub, _, fl = parse_symlink(data, 8)
        self.assertEqual((sub, fl), (target, flags))

    def test_stopped_on_symlink_311(self):
        c = self.client()
        for name, unparsed in (("lnk_out\\passwd", len("\\passwd") * 2),
                               ("lnk_out", 0)):
            st, _, _, r = c.create_ex(
                name, ok=(STATUS_STOPPED_ON_SYMLINK,
                          STATUS_OBJECT_PATH_NOT_FOUND,
                          STATUS_OBJECT_NAME_NOT_FOUND))
            if self.smbd.samba:
                self.assertEqual(st, STATUS_OBJECT_PATH_NOT_FOUND
                                 if unparsed else
                                 STATUS_OBJECT_NAME_NOT_FOUND, name)
                continue
            self.assertEqual(st, STATUS_STOPPED_ON_SYMLINK, name)
            self.check_symlink_error(r[64:], True, "\\etc", 0, unparsed)

    def test_stopped_on_symlink_302(self):
        conn = self.impacket_logon(h.DIALECT_302)
        self.addCleanup(conn.close)
        smb = conn.getSMBServer()
        tid = conn.connectTree("share")
        pkt = smb.SMB_PACKET()
        pkt["Command"] = s3.SMB2_CREATE
        pkt["TreeID"] = tid
        req = s3.SMB2Create()
        req["RequestedOplockLevel"] = 0
        req["ImpersonationLevel"] = 2
        req["DesiredAccess"] = READ_ATTRS
        req["FileAttributes"] = 0x80
        req["ShareAccess"] = 7
        req["CreateDisposition"] = FILE_OPEN
        req["CreateOptions"] = 0
        name = "lnk_out\\x\\y".encode("utf-16-le")
        req["NameLength"] = len(name)
        req["NameOffset"] = 0x78
        req["CreateContextsOffset"] = 0
        req["CreateContextsLength"] = 0
        req["Buffer"] = name
        pkt["Data"] = req
        ans = smb.recvSMB(smb.sendSMB(pkt))
        if self.smbd.samba:
            self.assertEqual(ans["Status"], STATUS_OBJECT_PATH_NOT_FOUND)
            return
        self.assertEqual(ans["Status"], STATUS_STOPPED_ON_SYMLINK)
        self.check_symlink_error(bytes(ans["Data"]), False, "\\etc", 0,
                                 len("\\x\\y") * 2)

    # -- FSCTL_SET_REPARSE_POINT / FSCTL_DELETE_REPARSE_POINT -------------
    def new_object(self, c, name, directory=False, access=WRITE_ATTRS):
        if os.path.isdir(self.share_path(name)) and \
                not os.path.islink(self.share_path(name)):
            os.rmdir(self.share_path(name))
        elif os.path.lexists(self.share_path(name)):
            os.unlink(self.share_path(name))
        st, fid, _, _ = c.create_ex(
            name, access=access, disposition=FILE_CREATE,
            options=FILE_OPEN_REPARSE_POINT |
            (FILE_DIRECTORY_FILE if directory else FILE_NON_DIRECTORY_FILE))
        return fid

    def test_set_makes_a_link(self):
        c = self.client()
        fid = self.new_object(c, "made_link")
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                        symlink_buffer("file.txt"),
                        ok=(STATUS_SUCCESS, STATUS_NOT_A_REPARSE_POINT))
        c.close(fid)
        if self.smbd.samba:
            self.assertEqual(st, STATUS_NOT_A_REPARSE_POINT)
            return
        self.assertEqual(st, STATUS_SUCCESS)
        self.assertEqual(os.readlink(self.share_path("made_link")),
                         "file.txt")
        _, fid, _, _ = c.create_ex("made_link", access=READ)
        self.assertEqual(c.read(fid, 0, 10, False), b"hello")
        c.close(fid)
        # a directory becomes a directory link; '\' turns into '/'
        fid = self.new_object(c, "made_dirlink", directory=True)
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                        symlink_buffer("dir"))
        c.close(fid)
        self.assertEqual(os.readlink(self.share_path("made_dirlink")), "dir")
        fid = self.new_object(c, "sub\\made_up")
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                        symlink_buffer("..\\dir\\inner.txt"))
        c.close(fid)
        self.assertEqual(os.readlink(self.share_path("sub", "made_up")),
                         "../dir/inner.txt")
        # the link opened itself gets a new target (same tag)
        fid, _ = self.link_open(c, "made_link", access=WRITE_ATTRS)
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                        symlink_buffer("dir\\inner.txt"))
        self.assertEqual(os.readlink(self.share_path("made_link")),
                         "dir/inner.txt")

    def test_set_refusals(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 answers NOT_A_REPARSE_POINT to all")
        c = self.client()
        fid = self.new_object(c, "refused")
        self.addCleanup(c.close, fid)
        # MS-FSA 2.1.5.10.37's checks of the buffer (as Windows answers)
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT, b"",
                        ok=(STATUS_INVALID_BUFFER_SIZE,))
        for i in range(1, 15):
            st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT, b"0" * i,
                            ok=(STATUS_IO_REPARSE_DATA_INVALID,))
        good = symlink_buffer("file.txt")
        for bad in (good + b"0", good[:-1]):
            st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT, bad,
                            ok=(STATUS_IO_REPARSE_DATA_INVALID,))
        # another tag: not kept by this file system
        st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                        struct.pack("<IHH", 0x80000025, 4, 0) + b"abcd",
                        ok=(STATUS_NOT_SUPPORTED,))
        # out of the share, relative or absolute
        for target, rel in (("..\\x", True), ("sub\\..\\..\\x", True),
                            ("\\etc", False)):
            st, _ = c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                            symlink_buffer(target, rel),
                            ok=(STATUS_PRIVILEGE_NOT_HELD,))
        self.assertFalse(os.path.islink(self.share_path("refused")))
        # without WRITE_DATA or WRITE_ATTRIBUTES
        fid2 = self.new_object(c, "refused2", access=READ_ATTRS | DELETE)
        self.addCleanup(c.close, fid2)
        st, _ = c.ioctl(fid2, FSCTL_SET_REPARSE_POINT, good,
                        ok=(STATUS_ACCESS_DENIED,))
        # a file with data, a directory with entries
        _, fid3, _, _ = c.create_ex("file.txt", access=WRITE_ATTRS)
        self.addCleanup(c.close, fid3)
        st, _ = c.ioctl(fid3, FSCTL_SET_REPARSE_POINT, good,
                        ok=(STATUS_NOT_SUPPORTED,))
        _, fid4, _, _ = c.create_ex("dir", access=WRITE_ATTRS,
                                    options=FILE_DIRECTORY_FILE)
        self.addCleanup(c.close, fid4)
        st, _ = c.ioctl(fid4, FSCTL_SET_REPARSE_POINT,
                        symlink_buffer("sub"),
                        ok=(STATUS_DIRECTORY_NOT_EMPTY,))
        self.assertTrue(os.path.isfile(self.share_path("file.txt")))

    def test_delete_reparse_point(self):
        c = self.client()
        os.symlink("file.txt", self.share_path("to_unlink"))
        if self.smbd.samba:
            _, fid, _, _ = c.create_ex("to_unlink", access=WRITE_ATTRS)
            st, _ = c.ioctl(fid, FSCTL_DELETE_REPARSE_POINT,
                            struct.pack("<IHH", IO_REPARSE_TAG_SYMLINK, 0,
                                        0),
                            ok=(STATUS_NOT_A_REPARSE_POINT,))
            c.close(fid)
            return
        fid, _ = self.link_open(c, "to_unlink", access=WRITE_ATTRS)
        hdr = struct.pack("<IHH", 0x80000026, 0, 0)
        st, _ = c.ioctl(fid, FSCTL_DELETE_REPARSE_POINT, hdr,
                        ok=(STATUS_IO_REPARSE_TAG_MISMATCH,))
        st, _ = c.ioctl(fid, FSCTL_DELETE_REPARSE_POINT,
                        struct.pack("<IHH", IO_REPARSE_TAG_SYMLINK, 1, 0) +
                        b" ", ok=(STATUS_IO_REPARSE_DATA_INVALID,))
        st, _ = c.ioctl(fid, FSCTL_DELETE_REPARSE_POINT,
                        struct.pack("<IHH", IO_REPARSE_TAG_SYMLINK, 0, 0))
        p = self.share_path("to_unlink")
        self.assertFalse(os.path.islink(p))
        self.assertTrue(os.path.isfile(p))
        self.assertEqual(os.path.getsize(p), 0)
        # now a plain file: no reparse point left
        _, fid, attrs, _ = c.create_ex("to_unlink", access=WRITE_ATTRS)
        self.assertFalse(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
        st, _ = c.ioctl(fid, FSCTL_DELETE_REPARSE_POINT,
                        struct.pack("<IHH", IO_REPARSE_TAG_SYMLINK, 0, 0),
                        ok=(STATUS_NOT_A_REPARSE_POINT,))
        c.close(fid)

    # -- smbclient ---------------------------------------------------------
    def test_smbclient_lists_and_reads_through_links(self):
        rc, out = self.smbclient("-c", "ls; get lnk_file -; "
                                 "get lnk_dir\\inner.txt -")
        self.assertEqual(rc, 0, out)
        self.assertIn("lnk_file", out)
        self.assertIn("lnk_dir", out)
        self.assertNotIn("lnk_out", out)
        self.assertIn("hello", out)
        self.assertIn("in", out)

    def test_smbclient_removes_and_renames_links(self):
        """An open through a link names the link: smbclient's rm, rmdir
        and rename (no FILE_OPEN_REPARSE_POINT) remove or rename the
        link, never its target, as Samba does.  Before, ours answered
        success and removed nothing."""
        s = self.smbd.share
        os.symlink("file.txt", os.path.join(s, "rm_l"))
        os.mkdir(os.path.join(s, "rm_d"))     # rmdir wants it empty
        os.symlink("rm_d", os.path.join(s, "rm_ld"))
        os.symlink("file.txt", os.path.join(s, "mv_l"))
        rc, out = self.smbclient("-c", "rm rm_l; rmdir rm_ld; "
                                 "rename mv_l mv_l2")
        self.assertEqual(rc, 0, out)
        self.assertFalse(os.path.lexists(os.path.join(s, "rm_l")), out)
        self.assertFalse(os.path.lexists(os.path.join(s, "rm_ld")), out)
        self.assertTrue(os.path.isfile(os.path.join(s, "file.txt")))
        self.assertTrue(os.path.isdir(os.path.join(s, "rm_d")))
        self.assertEqual(os.readlink(os.path.join(s, "mv_l2")), "file.txt")
        os.unlink(os.path.join(s, "mv_l2"))
        os.rmdir(os.path.join(s, "rm_d"))


class ReparseNoFollow(ReparseBase, h.SmbdTestCase):
    """`follow symlinks = no`: no link is followed, listed or made."""

    share_options = {"follow symlinks": "no"}

    def test_open_stops_on_every_link(self):
        c = self.client()
        for name, target, unparsed in (
                ("lnk_file", "file.txt", 0),
                ("lnk_dir\\inner.txt", "dir", len("\\inner.txt") * 2),
                ("sub\\lnk_up", "..\\file.txt", 0)):
            st, _, _, r = c.create_ex(
                name, ok=(STATUS_STOPPED_ON_SYMLINK,
                          STATUS_OBJECT_PATH_NOT_FOUND,
                          STATUS_OBJECT_NAME_NOT_FOUND))
            if self.smbd.samba:
                self.assertIn(st, (STATUS_OBJECT_PATH_NOT_FOUND,
                                   STATUS_OBJECT_NAME_NOT_FOUND), name)
                continue
            self.assertEqual(st, STATUS_STOPPED_ON_SYMLINK, name)
            Reparse.check_symlink_error(self, r[64:], True, target,
                                        SYMLINK_FLAG_RELATIVE, unparsed)

    def test_not_listed(self):
        c = self.client()
        _, fid, _, _ = c.create_ex("", access=READ,
                                    options=FILE_DIRECTORY_FILE)
        ls = c.list_dir(fid)
        c.close(fid)
        self.assertIn("file.txt", ls)
        for name in ("lnk_file", "lnk_dir", "lnk_out", "lnk_dangling"):
            self.assertNotIn(name, ls)

    def test_no_links_made(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 answers NOT_A_REPARSE_POINT")
        c = self.client()
        st, fid, _, _ = c.create_ex(
            "nolink", access=WRITE_ATTRS, disposition=FILE_CREATE,
            options=FILE_OPEN_REPARSE_POINT)
        self.addCleanup(c.close, fid)
        c.ioctl(fid, FSCTL_SET_REPARSE_POINT, symlink_buffer("file.txt"),
                ok=(STATUS_PRIVILEGE_NOT_HELD,))
        # the link itself still opens, and reads
        fid2, attrs = self.link_open(c, "lnk_file")
        self.assertTrue(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
        st, out = c.ioctl(fid2, FSCTL_GET_REPARSE_POINT)
        self.assertEqual(parse_symlink(out)[1], "file.txt")


class ReparseWideLinks(ReparseBase, h.SmbdTestCase):
    """`wide links = yes` (Samba 4.17 needs `allow insecure wide links`
    for it to take effect while its unix extensions are on)."""

    share_options = {"wide links": "yes"}
    global_options = {"allow insecure wide links": "no"}

    def test_followed_out_and_listed_as_target(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 ignores `wide links` here (its "
                          "unix extensions are on)")
        c = self.client()
        _, fid, attrs, _ = c.create_ex("lnk_out", options=0)
        self.assertTrue(attrs & FILE_ATTRIBUTE_DIRECTORY)
        self.assertFalse(attrs & FILE_ATTRIBUTE_REPARSE_POINT)
        c.close(fid)
        _, fid, _, _ = c.create_ex("", access=READ,
                                    options=FILE_DIRECTORY_FILE)
        ls = c.list_dir(fid)
        c.close(fid)
        self.assertEqual(ls["lnk_out"][0] & (FILE_ATTRIBUTE_DIRECTORY |
                                             FILE_ATTRIBUTE_REPARSE_POINT),
                         FILE_ATTRIBUTE_DIRECTORY)
        self.assertTrue(ls["lnk_file"][0] & FILE_ATTRIBUTE_REPARSE_POINT)

    def test_no_client_links_without_insecure(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 answers NOT_A_REPARSE_POINT")
        c = self.client()
        st, fid, _, _ = c.create_ex(
            "wl", access=WRITE_ATTRS, disposition=FILE_CREATE,
            options=FILE_OPEN_REPARSE_POINT)
        self.addCleanup(c.close, fid)
        c.ioctl(fid, FSCTL_SET_REPARSE_POINT, symlink_buffer("file.txt"),
                ok=(STATUS_PRIVILEGE_NOT_HELD,))


class ReparseInsecureWideLinks(ReparseBase, h.SmbdTestCase):
    share_options = {"wide links": "yes"}
    global_options = {"allow insecure wide links": "yes"}

    def test_absolute_link_made(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 answers NOT_A_REPARSE_POINT")
        c = self.client()
        st, fid, _, _ = c.create_ex(
            "abs", access=WRITE_ATTRS, disposition=FILE_CREATE,
            options=FILE_OPEN_REPARSE_POINT)
        c.ioctl(fid, FSCTL_SET_REPARSE_POINT,
                symlink_buffer("\\etc", relative=False))
        c.close(fid)
        self.assertEqual(os.readlink(self.share_path("abs")), "/etc")


if __name__ == "__main__":
    h.main()
