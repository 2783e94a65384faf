#!/usr/bin/python3
"""FileFsAttributeInformation (MS-FSCC 2.5.1, QUERY_INFO FS class 5) per
share, on ours and on Samba 4.17's smbd with the same smb.conf.

The shares cover what changes the answer in Samba: `vfs objects` (the
torture config's acl_xattr streams_xattr, and none), `nt acl support`,
`case sensitive` and `store dos attributes`; and what a share without
streams_xattr does with a stream name (refuses it, as Samba).  Samba's answers, measured
on 2026-12-06, are kept below so the test still checks ours where Samba's
smbd is not installed; where it is, Samba is asked too and must still
answer them.
"""

import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402

SAMBA = "/usr/sbin/smbd"
USER = "smbdtest"
PASSWORD = "Test-Pass-1"
SMB2_0_INFO_FILESYSTEM = 2
FILE_FS_ATTRIBUTE_INFORMATION = 5

SHARES = {
    "plain": [],
    "torture": ["vfs objects = acl_xattr streams_xattr"],
    "streams": ["vfs objects = streams_xattr"],
    "acl": ["vfs objects = acl_xattr"],
    "noacl": ["nt acl support = no"],
    "cs": ["case sensitive = yes"],
    "ci": ["case sensitive = no"],
    "nodos": ["store dos attributes = no"],
}

# Samba 4.17.12 (Debian), measured with this test on 2026-12-06:
# CASE_SENSITIVE_SEARCH | CASE_PRESERVED_NAMES | UNICODE_ON_DISK |
# PERSISTENT_ACLS | VOLUME_QUOTAS | SUPPORTS_SPARSE_FILES |
# SUPPORTS_OBJECT_IDS, NAMED_STREAMS only with streams_xattr, no
# PERSISTENT_ACLS with `nt acl support = no`; `case sensitive` and `store
# dos attributes` change nothing.
SAMBA_4_17 = {
    "plain": (0x0001006f, 255, "NTFS"),
    "torture": (0x0005006f, 255, "NTFS"),
    "streams": (0x0005006f, 255, "NTFS"),
    "acl": (0x0001006f, 255, "NTFS"),
    "noacl": (0x00010067, 255, "NTFS"),
    "cs": (0x0001006f, 255, "NTFS"),
    "ci": (0x0001006f, 255, "NTFS"),
    "nodos": (0x0001006f, 255, "NTFS"),
}

FILE_VOLUME_QUOTAS = 0x20
FILE_SUPPORTS_SPARSE_FILES = 0x40
FILE_NAMED_STREAMS = 0x40000


def ours_expected(share):
    """Samba's answer, less what we do not do: VOLUME_QUOTAS (quota
    queries are NOT_SUPPORTED) and, with `store dos attributes = no`,
    SUPPORTS_SPARSE_FILES (FSCTL_SET_SPARSE is refused there); plus
    NAMED_STREAMS where `vfs objects` is empty, our default (Samba has
    no streams then; with a list, both have them only with
    streams_xattr: struct vfs_share.streams)."""
    attrs, maxlen, name = SAMBA_4_17[share]
    attrs &= ~FILE_VOLUME_QUOTAS
    if not any(o.startswith("vfs objects") for o in SHARES[share]):
        attrs |= FILE_NAMED_STREAMS
    if share == "nodos":
        attrs &= ~FILE_SUPPORTS_SPARSE_FILES
    return attrs, maxlen, name


def fs_attributes(port, share):
    conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port,
                         timeout=h.NET_TIMEOUT)
    try:
        conn.login(USER, PASSWORD)
        tid = conn.connectTree(share)
        fid = conn.createFile(tid, "", desiredAccess=0x00100080,
                              creationDisposition=1, creationOption=1,
                              shareMode=7)
        try:
            r = bytes(conn._SMBConnection.queryInfo(
                tid, fid, inputBlob=b"", infoType=SMB2_0_INFO_FILESYSTEM,
                fileInfoClass=FILE_FS_ATTRIBUTE_INFORMATION,
                additionalInformation=0, flags=0))
        finally:
            conn.closeFile(tid, fid)
        attrs, maxlen, namelen = struct.unpack_from("<IiI", r)
        return attrs, maxlen, r[12:12 + namelen].decode("utf-16-le")
    finally:
        conn.close()


def stream_names(conn, tid, name):
    """FileStreamInformation's names for name (MS-FSCC 2.4.49), sorted."""
    fid = conn.openFile(tid, name, desiredAccess=0x80)
    try:
        r = bytes(conn.getSMBServer().queryInfo(
            tid, fid, infoType=1, fileInfoClass=0x16))
    finally:
        conn.closeFile(tid, fid)
    return h.stream_info_names(r)


def stream_answers(port, share):
    """On share: CREATE (OVERWRITE_IF) of f.txt's stream names, each
    "OK" or the status, with f.txt's streams listed after the first and
    after the last, which overwrites the file's data."""
    from impacket.smbconnection import SessionError
    conn = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port,
                         timeout=h.NET_TIMEOUT)
    try:
        conn.login(USER, PASSWORD)
        tid = conn.connectTree(share)
        fid = conn.createFile(tid, "f.txt", creationDisposition=5)
        conn.writeFile(tid, fid, b"x")
        conn.closeFile(tid, fid)
        answers = []
        for name in ("f.txt:s", "f.txt:s:$DATA", "f.txt::$DATA"):
            try:
                fid = conn.createFile(tid, name, creationDisposition=5)
                if name != "f.txt::$DATA":
                    conn.writeFile(tid, fid, b"s")
                conn.closeFile(tid, fid)
                answers.append("OK")
            except SessionError as e:
                answers.append(hex(e.getErrorCode()))
            if name != "f.txt:s:$DATA":
                answers.append(stream_names(conn, tid, "f.txt"))
        return answers
    finally:
        conn.close()


# A share whose `vfs objects` lacks streams_xattr has no streams on either
# server: any name with a stream part, "::$DATA" too, is
# OBJECT_NAME_INVALID, and the file lists ::$DATA alone.  With streams,
# overwriting the file's data ("f.txt::$DATA", OVERWRITE_IF) drops its
# named streams.  Samba 4.17, measured 2026-12-06.
ONLY_DATA = ["::$DATA"]
STREAM_SHARES = {
    "acl": ["0xc0000033", ONLY_DATA, "0xc0000033", "0xc0000033",
            ONLY_DATA],
    "torture": ["OK", ["::$DATA", ":s:$DATA"], "OK", "OK", ONLY_DATA],
}


def measure(binary, probe=fs_attributes, shares=SHARES):
    srv = h.Smbd(binary=binary)
    try:
        text = srv.conf_text()
        for name, opts in SHARES.items():
            d = os.path.join(srv.tmp, name)
            os.mkdir(d)
            os.chmod(d, 0o777)
            text += "\n[%s]\n\tpath = %s\n\tread only = no\n" % (name, d)
            text += "".join("\t%s\n" % o for o in opts)
        with open(srv.conf, "w") as f:
            f.write(text)
        h.create_user(srv.conf, USER, PASSWORD)
        srv.start()
        return {s: probe(srv.port, s) for s in shares}
    finally:
        srv.cleanup()


class FsAttributes(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")

    def test_same_as_samba(self):
        binary = h.smbd_binary()
        samba = h.is_samba(binary)
        got = measure(binary)
        for share, (attrs, maxlen, name) in got.items():
            want = SAMBA_4_17[share] if samba else ours_expected(share)
            with self.subTest(share=share):
                self.assertEqual(hex(attrs), hex(want[0]))
                self.assertEqual((maxlen, name), want[1:])
        if samba or not os.access(SAMBA, os.X_OK):
            if not os.access(SAMBA, os.X_OK):
                sys.stderr.write("(%s not installed: checked against the "
                                 "recorded answers only) " % SAMBA)
            return
        samba = measure(SAMBA)
        for share in SHARES:
            with self.subTest(samba=share):
                self.assertEqual(samba[share], SAMBA_4_17[share])

    def test_streams_off_without_streams_xattr(self):
        binaries = [h.smbd_binary()]
        if not h.is_samba(binaries[0]) and os.access(SAMBA, os.X_OK):
            binaries.append(SAMBA)
        for binary in binaries:
            got = measure(binary, stream_answers, STREAM_SHARES)
            for share, want in STREAM_SHARES.items():
                with self.subTest(binary=binary, share=share):
                    self.assertEqual(got[share], want)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        for b in sys.argv[2:]:
            for s, (a, m, n) in measure(b).items():
                print("%-8s %-8s 0x%08x %d %s" % (os.path.basename(
                    os.path.dirname(b)) or b, s, a, m, n))
        sys.exit(0)
    h.main()
