#!/usr/bin/python3
"""QUERY_DIRECTORY (MS-SMB2 3.3.5.18) against the server.

Files are made on disk in the share (names with spaces, Unicode, 200
characters, dot files, 10,000 entries), then listed with smbclient (`ls`,
wildcards, 8.3 aliases) and with impacket's SMB3 client, which can ask for
each information class, small buffers, RETURN_SINGLE_ENTRY and
RESTART_SCANS, so the raw entries are checked too.  Every client call has a
timeout.  Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import re
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402
from impacket.smb3 import SessionError  # noqa: E402
from impacket import smb3structs as s3  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CLIENT_TIMEOUT = 60
NET_TIMEOUT = 30

NAMES = ["plain.txt", "with space.txt", "caf\u00e9 \u00fcber.txt",
         "\u65e5\u672c\u8a9e.txt", "L" * 196 + ".txt", ".hidden",
         "abc.dat", "axc.md", "abd.txt"]
LONG = "LongFileNameExample.txt"
BIG = 10000

# Offsets of FileNameLength and FileName in each class (MS-FSCC 2.4).
CLASSES = {
    s3.FILE_DIRECTORY_INFORMATION: (60, 64),
    s3.FILE_FULL_DIRECTORY_INFORMATION: (60, 68),
    s3.FILE_BOTH_DIRECTORY_INFORMATION: (60, 94),
    s3.FILENAMES_INFORMATION: (8, 12),
    s3.FILEID_BOTH_DIRECTORY_INFORMATION: (60, 104),
    s3.FILEID_FULL_DIRECTORY_INFORMATION: (60, 80),
}

STATUS_NO_MORE_FILES = 0x80000006
STATUS_NO_SUCH_FILE = 0xC000000F
STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_INVALID_INFO_CLASS = 0xC0000003
STATUS_NOT_SUPPORTED = 0xC00000BB
STATUS_OBJECT_NAME_INVALID = 0xC0000033
STATUS_ILLEGAL_CHARACTER = 0xC0000161

RESTART_SCANS = 0x01
RETURN_SINGLE_ENTRY = 0x02


def query(smb, tid, fid, pattern="*", cls=s3.FILENAMES_INFORMATION,
          bufsize=65536, flags=0, raw_name=None, name_len=None,
          name_off=None, charge=None):
    """One QUERY_DIRECTORY with the Flags given (impacket's own
    queryDirectory drops enumRestart and singleEntry).  Returns the output
    buffer; a status other than success raises impacket's SessionError.
    raw_name/name_len/name_off/charge override what goes on the wire."""
    q = s3.SMB2QueryDirectory()
    q["FileInformationClass"] = cls
    q["Flags"] = flags
    q["FileIndex"] = 0
    q["FileID"] = fid
    q["OutputBufferLength"] = bufsize
    name = pattern.encode("utf-16le") if raw_name is None else raw_name
    q["FileNameLength"] = len(name) if name_len is None else name_len
    if name_off is not None:
        q["FileNameOffset"] = name_off
    q["Buffer"] = name
    packet = smb.SMB_PACKET()
    packet["Command"] = s3.SMB2_QUERY_DIRECTORY
    packet["TreeID"] = tid
    packet["Data"] = q
    if smb.getDialect() != s3.SMB2_DIALECT_002:
        packet["CreditCharge"] = (1 + (bufsize - 1) // 65536
                                  if charge is None else charge)
    ans = smb.recvSMB(smb.sendSMB(packet))
    if ans.isValidAnswer(0):
        return s3.SMB2QueryDirectory_Response(ans["Data"])["Buffer"]


def parse_entries(buf, cls):
    """[(name, entry bytes)] of a QUERY_DIRECTORY output buffer."""
    len_off, name_off = CLASSES[cls]
    out = []
    off = 0
    while True:
        nxt = struct.unpack_from("<I", buf, off)[0]
        nlen = struct.unpack_from("<I", buf, off + len_off)[0]
        name = bytes(buf[off + name_off:off + name_off + nlen])
        end = off + nxt if nxt else len(buf)
        out.append((name.decode("utf-16le"), bytes(buf[off:end])))
        if nxt == 0:
            return out
        assert nxt % 8 == 0, "NextEntryOffset %d not 8-aligned" % nxt
        off += nxt


class QueryDir:

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)
        cls.client_conf = os.path.join(cls.smbd.tmp, "client.conf")
        with open(cls.client_conf, "w") as f:
            f.write("[global]\n")
        share = cls.smbd.share
        for n in NAMES + [LONG]:
            with open(os.path.join(share, n), "w") as f:
                f.write("x" * 10)
        os.mkdir(os.path.join(share, "adir"))
        # symlinks (`follow symlinks = yes`, `wide links = no`)
        os.mkdir(os.path.join(share, "links"))
        with open(os.path.join(share, "links", "target.txt"), "w") as f:
            f.write("z" * 7)
        os.symlink("target.txt", os.path.join(share, "links", "in.txt"))
        os.symlink("../adir", os.path.join(share, "links", "indir"))
        os.symlink("nothing", os.path.join(share, "links", "dangling"))
        os.symlink("/etc", os.path.join(share, "links", "outside"))
        big = os.path.join(share, "big")
        os.mkdir(big)
        for i in range(BIG):
            open(os.path.join(big, "f%05d" % i), "w").close()
        cls.classes_dir = os.path.join(share, "classes")
        os.mkdir(cls.classes_dir)
        for i in range(40):
            with open(os.path.join(cls.classes_dir,
                                   "entry-%02d.bin" % i), "w") as f:
                f.write("y" * i)

    # -- clients -------------------------------------------------------
    def smbclient(self, command, *args):
        """Run smbclient -c command; (exit status, output)."""
        cmd = ["smbclient", "//127.0.0.1/share", "-p", str(self.smbd.port),
               "-s", self.client_conf, "-U", "%s%%%s" % (USER, PASSWORD),
               "-t", "20", "-c", command] + list(args)
        try:
            r = subprocess.run(cmd, capture_output=True, encoding="utf-8",
                               errors="replace", timeout=CLIENT_TIMEOUT,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("smbclient hung for %d s" % CLIENT_TIMEOUT)
        self.server_alive()
        return r.returncode, r.stdout + r.stderr

    def ls_names(self, command, *args):
        rc, out = self.smbclient(command, *args)
        self.assertEqual(rc, 0, out)
        names = []
        # "  name    A     10  Wed Dec  2 12:00:00 2026" ('r': a reparse
        # point)
        rx = re.compile(r"^  (.*?)\s+([ADHSRNr]*)\s+(\d+)\s+\w{3} \w{3} ")
        for line in out.splitlines():
            m = rx.match(line)
            if m:
                names.append((m.group(1), m.group(2)))
        return names, out

    def impacket(self):
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=NET_TIMEOUT,
                          preferredDialect=s3.SMB2_DIALECT_21)
        c.login(USER, PASSWORD)
        self.addCleanup(c.close)
        tid = c.connectTree("share")
        return c, c.getSMBServer(), tid

    def open_dir(self, smb, tid, path):
        fid = smb.create(tid, path,
                         s3.FILE_READ_DATA | s3.FILE_READ_ATTRIBUTES |
                         s3.SYNCHRONIZE,
                         s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE |
                         s3.FILE_SHARE_DELETE,
                         s3.FILE_DIRECTORY_FILE, s3.FILE_OPEN, 0)
        self.addCleanup(lambda: self._close(smb, tid, fid))
        return fid

    @staticmethod
    def _close(smb, tid, fid):
        try:
            smb.close(tid, fid)
        except Exception:
            pass

    def list_all(self, smb, tid, fid, cls, pattern="*", bufsize=65536):
        """Every entry until STATUS_NO_MORE_FILES."""
        entries = []
        restart = True
        while True:
            try:
                buf = query(smb, tid, fid, pattern, cls, bufsize,
                            RESTART_SCANS if restart else 0)
            except SessionError as e:
                self.assertEqual(e.get_error_code(), STATUS_NO_MORE_FILES)
                return entries
            restart = False
            got = parse_entries(buf, cls)
            self.assertTrue(got)
            self.assertLessEqual(len(buf), bufsize)
            entries += got

    # -- smbclient -----------------------------------------------------
    def test_ls_names(self):
        names, out = self.ls_names("ls")
        listed = dict(names)
        for n in NAMES + [LONG, "adir", ".", ".."]:
            self.assertIn(n, listed, out)
        self.assertIn("D", listed["adir"])
        # `hide dot files` (default yes): HIDDEN
        self.assertIn("H", listed[".hidden"], out)
        self.assertNotIn("H", listed["plain.txt"], out)

    def test_ls_wildcards(self):
        names, out = self.ls_names("ls *.txt")
        got = {n for n, _ in names}
        want = {n for n in NAMES + [LONG] if n.endswith(".txt")}
        self.assertEqual(got, want, out)
        names, out = self.ls_names("ls a?c*")
        self.assertEqual({n for n, _ in names}, {"abc.dat", "axc.md"}, out)

    def test_ls_no_match(self):
        rc, out = self.smbclient("ls nosuchfile*")
        self.assertIn("NT_STATUS_NO_SUCH_FILE", out)

    def test_symlinks(self):
        """Dangling ones and ones that leave the share are not listed (as
        Samba).  Ours lists the others as reparse points (issue 35: 'r',
        no data, 'D' for a directory link; test_reparse.py has the
        bytes); Samba 4.17 lists them as their targets."""
        names, out = self.ls_names("ls links\\*")
        listed = dict(names)
        self.assertEqual(set(listed),
                         {".", "..", "target.txt", "in.txt", "indir"}, out)
        self.assertIn("D", listed["indir"])
        if self.smbd.samba:
            self.assertRegex(out, r"(?m)^  in\.txt\s+\w*\s+7 ")
            return
        self.assertIn("r", listed["indir"])
        self.assertIn("r", listed["in.txt"])
        self.assertRegex(out, r"(?m)^  in\.txt\s+\w*\s+0 ")

    def test_ls_many(self):
        names, out = self.ls_names("ls big\\*")
        files = [n for n, _ in names if n.startswith("f")]
        self.assertEqual(len(files), BIG, out[-2000:])
        self.assertEqual(len(set(files)), BIG)

    def test_ls_many_dialects(self):
        """Large multi-credit listings, signed and encrypted."""
        for args in (("-m", "SMB2_02"),
                     ("-m", "SMB3_11", "--client-protection=sign"),
                     ("-m", "SMB3_11", "--client-protection=encrypt")):
            with self.subTest(args=args):
                names, out = self.ls_names("ls big\\*", *args)
                files = [n for n, _ in names if n.startswith("f")]
                self.assertEqual(len(files), BIG, out[-2000:])

    def test_short_name(self):
        rc, out = self.smbclient("allinfo %s" % LONG)
        self.assertEqual(rc, 0, out)
        m = re.search(r"altname: (\S+)", out)
        self.assertIsNotNone(m, out)
        alias = m.group(1)
        self.assertRegex(alias, r"^[A-Z0-9_]{1,6}~[A-Z0-9]\.TXT$")
        names, out = self.ls_names("ls %s" % alias)
        self.assertEqual([n for n, _ in names], [LONG], out)
        if self.smbd.samba:
            # Samba 4.17 with `mangled names = illegal` (the default)
            # sends no ShortName in SMB2 listings at all
            return
        # the same alias in the directory entry's ShortName
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "")
        cls = s3.FILEID_BOTH_DIRECTORY_INFORMATION
        for name, e in self.list_all(smb, tid, fid, cls, pattern=LONG):
            slen = e[68]
            self.assertEqual(e[70:70 + slen].decode("utf-16le"), alias)
        for name, e in self.list_all(smb, tid, fid, cls,
                                     pattern="plain.txt"):
            self.assertEqual(e[68], 0, "8.3 name has no ShortName")

    # -- impacket ------------------------------------------------------
    def test_list_path(self):
        c, smb, tid = self.impacket()
        got = {f.get_longname() for f in c.listPath("share", "*")}
        self.assertTrue(set(NAMES + [LONG, "adir", "big"]) <= got, got)
        big = [f for f in c.listPath("share", "big\\*")
               if f.get_longname().startswith("f")]
        self.assertEqual(len(big), BIG)

    def test_classes(self):
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "classes")
        want = {".", ".."} | {"entry-%02d.bin" % i for i in range(40)}
        for cls in CLASSES:
            for bufsize in (65536, 300):
                with self.subTest(cls=cls, bufsize=bufsize):
                    ents = self.list_all(smb, tid, fid, cls,
                                         bufsize=bufsize)
                    names = [n for n, _ in ents]
                    self.assertEqual(len(names), len(want), names)
                    self.assertEqual(set(names), want)
        # sizes and attributes (FileDirectoryInformation)
        ents = dict(self.list_all(smb, tid, fid,
                                  s3.FILE_DIRECTORY_INFORMATION))
        for i in range(40):
            e = ents["entry-%02d.bin" % i]
            eof, = struct.unpack_from("<Q", e, 40)
            attrs, = struct.unpack_from("<I", e, 56)
            self.assertEqual(eof, i)
            self.assertFalse(attrs & 0x10)
        attrs, = struct.unpack_from("<I", ents["."], 56)
        self.assertTrue(attrs & 0x10)
        # FileIdBothDirectoryInformation: FileId is the inode
        ents = dict(self.list_all(smb, tid, fid,
                                  s3.FILEID_BOTH_DIRECTORY_INFORMATION))
        st = os.stat(os.path.join(self.classes_dir, "entry-07.bin"))
        fileid, = struct.unpack_from("<Q", ents["entry-07.bin"], 96)
        self.assertEqual(fileid, st.st_ino)

    def test_single_and_restart(self):
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "classes")
        cls = s3.FILENAMES_INFORMATION
        first = parse_entries(query(smb, tid, fid, "*", cls,
                                    flags=RETURN_SINGLE_ENTRY), cls)
        self.assertEqual(len(first), 1)
        second = parse_entries(query(smb, tid, fid, "*", cls,
                                     flags=RETURN_SINGLE_ENTRY), cls)
        self.assertEqual(len(second), 1)
        self.assertNotEqual(first[0][0], second[0][0])
        again = parse_entries(query(smb, tid, fid, "*", cls,
                                    flags=RETURN_SINGLE_ENTRY |
                                    RESTART_SCANS), cls)
        self.assertEqual(again[0][0], first[0][0])
        # the rest: 42 entries in all
        rest = parse_entries(query(smb, tid, fid, "*", cls), cls)
        self.assertEqual(len(rest), 41)

    def test_no_such_file_then_no_more(self):
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "classes")
        cls = s3.FILENAMES_INFORMATION
        with self.assertRaises(SessionError) as cm:
            query(smb, tid, fid, "nomatch*", cls)
        self.assertEqual(cm.exception.get_error_code(), STATUS_NO_SUCH_FILE)
        ents = self.list_all(smb, tid, fid, cls, pattern="entry-1?.bin")
        self.assertEqual(len(ents), 10)
        with self.assertRaises(SessionError) as cm:
            query(smb, tid, fid, "*", cls)
        self.assertEqual(cm.exception.get_error_code(), STATUS_NO_MORE_FILES)

    def test_errors(self):
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "classes")
        with self.assertRaises(SessionError) as cm:
            query(smb, tid, fid, "*", 0x55)
        self.assertEqual(cm.exception.get_error_code(),
                         STATUS_INVALID_INFO_CLASS)
        ffid = smb.create(tid, "plain.txt",
                          s3.FILE_READ_DATA | s3.FILE_READ_ATTRIBUTES,
                          s3.FILE_SHARE_READ, s3.FILE_NON_DIRECTORY_FILE,
                          s3.FILE_OPEN, 0)
        self.addCleanup(lambda: self._close(smb, tid, ffid))
        with self.assertRaises(SessionError) as cm:
            query(smb, tid, ffid, "*")
        # 3.3.5.18; Samba answers STATUS_NOT_SUPPORTED
        self.assertEqual(cm.exception.get_error_code(),
                         STATUS_NOT_SUPPORTED if self.smbd.samba
                         else STATUS_INVALID_PARAMETER)
        # the buffer cannot hold even one entry
        with self.assertRaises(SessionError) as cm:
            query(smb, tid, fid, "*", bufsize=8, flags=RESTART_SCANS)
        self.assertNotEqual(cm.exception.get_error_code(), 0)
        # the open still works afterwards
        ents = self.list_all(smb, tid, fid, s3.FILENAMES_INFORMATION)
        self.assertEqual(len(ents), 42)

    def test_malformed(self):
        """Bad requests get a clear status, and the server goes on."""
        c, smb, tid = self.impacket()
        fid = self.open_dir(smb, tid, "classes")
        # (request fields, the status Samba 4.17 answers too)
        bad = [
            (dict(raw_name=b"*\0\0"), STATUS_ILLEGAL_CHARACTER),  # odd
            (dict(raw_name=b"\x00\xd8"), STATUS_ILLEGAL_CHARACTER),
            (dict(raw_name=b"a\0\0\0b\0"), STATUS_OBJECT_NAME_INVALID),
            (dict(raw_name="a\\b".encode("utf-16le")),
             STATUS_OBJECT_NAME_INVALID),
            (dict(name_len=200), STATUS_INVALID_PARAMETER),
            (dict(name_off=8), STATUS_INVALID_PARAMETER),
            (dict(name_off=0xFFF0), STATUS_INVALID_PARAMETER),
            # OutputBufferLength > MaxTransactSize
            (dict(bufsize=16 * 1024 * 1024, charge=1),
             STATUS_INVALID_PARAMETER),
        ]
        for kw, want in bad:
            with self.subTest(**{k: repr(v) for k, v in kw.items()}):
                with self.assertRaises(SessionError) as cm:
                    query(smb, tid, fid, flags=RESTART_SCANS, **kw)
                self.assertEqual(cm.exception.get_error_code(), want)
        ents = self.list_all(smb, tid, fid, s3.FILENAMES_INFORMATION)
        self.assertEqual(len(ents), 42)


h.backend_variants(globals(), QueryDir)

if __name__ == "__main__":
    h.main()
