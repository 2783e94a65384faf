#!/usr/bin/python3
"""vfs_fruit: the AFP_AfpInfo stream with fruit:metadata = stream and the
resource fork's delete-on-close, the conversion of AppleDouble "._" files and
the AAPL create context (issue 17, the macOS part; man/vfs_fruit.8).

macOS keeps a file's Finder metadata in the named stream AFP_AfpInfo, a
60-byte AfpInfo record ('AFP\\0', version 0x100, backup time, 32 bytes of
FinderInfo).  On a share with fruit the stream exists only while it holds
a valid record whose FinderInfo is not all zero; writes of anything else
fail with STATUS_INVALID_PARAMETER; reads return the record from its
start; it cannot grow past 60 bytes.  It is stored like Samba's
streams_xattr does (user.DosStream.AFP_AfpInfo:$DATA), so the second share
without fruit, on the same directory, sees the same bytes.  Delete-on-close
of the resource fork AFP_Resource is ignored, as on macOS (a fork goes by
truncating it to 0).  A "._NAME" AppleDouble file becomes NAME's streams
when NAME is opened.  With fruit:resource = file (the default; the main
share here sets stream) AFP_Resource is the fork inside "._NAME", which
follows NAME's renames and deletes.  The AAPL create context's server query is answered.
Samba 4.17 (SMBD=/usr/sbin/smbd) gives the same answers but where a test
says otherwise; every test runs once per event-loop backend.
"""

import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

XATTR = "user.DosStream.AFP_AfpInfo:$DATA"
STREAM = ":AFP_AfpInfo"
NETATALK_XATTR = "user.org.netatalk.Metadata"
RSRC_XATTR = "user.org.netatalk.ResourceFork"

STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_ALLOTTED_SPACE_EXCEEDED = 0xC0000099


def afpinfo(finder=b"SMB,OLE!"):
    """The record smbtorture's vfs.fruit writes."""
    rec = struct.pack(">III", 0x41465000, 0x00000100, 0) + \
        struct.pack(">I", 0x80000000) + finder
    return rec + b"\0" * (60 - len(rec))


def adouble(finder, xattrs, rsrc):
    """A "._" file as macOS writes it (AppleDouble 2: Finder Info entry
    with the ATTR block of extended attributes after the FinderInfo, then
    the resource fork entry), big-endian throughout."""
    fi = 50
    names = [n.encode() + b"\0" for n, _ in xattrs]
    entries, pos = b"", fi + 34 + 36
    for n in names:
        size = 11 + len(n)
        pos += size + (-size) % 4
    data_start = pos
    for (name, val), n in zip(xattrs, names):
        e = struct.pack(">IIHB", pos, len(val), 0, len(n)) + n
        entries += e + b"\0" * ((-len(e)) % 4)
        pos += len(val)
    values = b"".join(v for _, v in xattrs)
    attr = b"ATTR" + struct.pack(">IIII", 0, 3810, data_start,
                                 len(values)) + b"\0" * 12 + \
        struct.pack(">HH", 0, len(xattrs))
    body = finder.ljust(32, b"\0") + b"\0\0" + attr + entries + values
    # macOS gives the Finder Info entry room up to 3810, where the
    # resource fork starts (and Samba's fruit converts only that shape)
    body = body.ljust(3810 - fi, b"\0")
    head = struct.pack(">II", 0x00051607, 0x00020000) + \
        b"Mac OS X        " + struct.pack(">H", 2) + \
        struct.pack(">III", 9, fi, len(body)) + \
        struct.pack(">III", 2, fi + len(body), len(rsrc))
    return head + body + rsrc


class RawCtx:
    """What impacket's create() wants in createContexts: getData()."""

    def __init__(self, data):
        self.data = data

    def getData(self):
        return self.data


def aapl_query(bitmap=7, client_caps=0xd):
    """An AAPL create context: kAAPL_SERVER_QUERY for bitmap (1 server
    caps, 2 volume caps, 4 model info), alone in its chain."""
    data = struct.pack("<IIQQ", 1, 0, bitmap, client_caps)
    return RawCtx(struct.pack("<IHHHHI", 0, 16, 4, 0, 24, len(data)) +
                  b"AAPL" + b"\0" * 4 + data)


def reply_contexts(pdu):
    """{name: data} of a CREATE response's contexts (2.2.14)."""
    body = pdu[64:]
    off, length = struct.unpack_from("<II", body, 80)
    out, pos = {}, off
    while length:
        nxt, noff, nlen, _, doff, dlen = struct.unpack_from("<IHHHHI",
                                                           pdu, pos)
        out[pdu[pos + noff:pos + noff + nlen]] = \
            pdu[pos + doff:pos + doff + dlen]
        if nxt == 0:
            break
        pos += nxt
    return out


def create_contexts(smb, tid, name, ctx, options=0):
    """CREATE (FILE_OPEN, FILE_READ_ATTRIBUTES) of name with context ctx
    on impacket's smb; the response's contexts.  The open is closed."""
    from impacket.smb3structs import (FILE_READ_ATTRIBUTES, FILE_OPEN,
                                      FILE_SHARE_READ, FILE_SHARE_WRITE)
    seen = []
    recv = smb.recvSMB

    def keep(*a, **kw):
        ans = recv(*a, **kw)
        seen.append(ans.getData())
        return ans
    smb.recvSMB = keep
    try:
        fid = smb.create(tid, name, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE, options,
                         FILE_OPEN, 0, createContexts=[ctx])
    finally:
        smb.recvSMB = recv
    smb.close(tid, fid)
    return reply_contexts(seen[-1])


def create_root_with(smb, tid, ctx):
    """create_contexts of the share's root."""
    return create_contexts(smb, tid, "", ctx)


# Apple's empty resource fork, as macOS writes it into a "._" file: the
# resource header, the text, the map (the header again, no types)
RFORK_HEAD = bytes.fromhex("00000100000001000000000000" "00001e")
BLANK_RFORK = (RFORK_HEAD + b"This resource fork intentionally left "
               b"blank   ").ljust(0x100, b"\0") + RFORK_HEAD + \
    b"\0" * 8 + bytes.fromhex("001c001effff")
assert len(BLANK_RFORK) == 286


class Fruit(h.TestUser):

    share_options = [("vfs objects", "catia fruit streams_xattr"),
                     ("fruit:metadata", "stream"),
                     ("fruit:resource", "stream")]
    extra_shares = [("plain", [("vfs objects", "streams_xattr")]),
                    ("rsrcfile", [("vfs objects", "catia fruit streams_xattr"),
                                  ("fruit:metadata", "stream")]),
                    ("noaapl", [("vfs objects", "fruit streams_xattr"),
                                ("fruit:aapl", "no")]),
                    ("xserve", [("vfs objects", "fruit streams_xattr"),
                                ("fruit:model", "Xserve")]),
                    ("noposix", [("vfs objects", "fruit streams_xattr"),
                                 ("fruit:posix_rename", "no")]),
                    ("ids", [("vfs objects", "fruit streams_xattr"),
                             ("fruit:zero_file_id", "no")]),
                    ("showad", [("vfs objects", "fruit streams_xattr"),
                                ("fruit:veto_appledouble", "no")]),
                    ("wipe", [("vfs objects", "catia fruit streams_xattr"),
                              ("fruit:metadata", "stream"),
                              ("fruit:wipe_intentionally_left_blank_rfork",
                               "yes")]),
                    ("wipedel", [("vfs objects",
                                  "catia fruit streams_xattr"),
                                 ("fruit:metadata", "stream"),
                                 ("fruit:wipe_intentionally_left_blank_rfork",
                                  "yes"),
                                 ("fruit:delete_empty_adfiles", "yes")]),
                    ("rsrcxattr", [("vfs objects",
                                    "catia fruit streams_xattr"),
                                   ("fruit:metadata", "stream"),
                                   ("fruit:resource", "xattr")]),
                    # fruit:metadata = netatalk, the default of both
                    ("netatalk", [("vfs objects",
                                   "catia fruit streams_xattr"),
                                  ("fruit:resource", "stream")]),
                    ("tm", [("vfs objects", "catia fruit streams_xattr"),
                            ("fruit:metadata", "stream"),
                            ("fruit:time machine", "yes"),
                            ("fruit:time machine max size", "64M")])]

    def setUp(self):
        super().setUp()
        self.fresh_file()

    def fresh_file(self):
        """An empty share but for the file "f" that the user may write."""
        self.empty_share()
        with open(self.share_path("f"), "wb") as f:
            f.write(b"data")
        os.chmod(self.share_path("f"), 0o666)

    def tree(self, share="share"):
        conn = self.impacket_logon()
        self.addCleanup(conn.close)
        return conn, conn.connectTree(share)

    def open(self, conn, tid, name, disposition, access=None):
        from impacket.smb3structs import (FILE_READ_DATA, FILE_SHARE_READ,
                                          FILE_SHARE_WRITE,
                                          FILE_SHARE_DELETE,
                                          FILE_WRITE_DATA)
        if access is None:
            access = FILE_READ_DATA | FILE_WRITE_DATA
        return conn.getSMBServer().create(
            tid, name, access,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, 0,
            disposition, 0)

    def status(self, fn, *args):
        from impacket.smb3 import SessionError
        try:
            fn(*args)
        except SessionError as e:
            return e.get_error_code()
        return 0

    def streams(self, share="share"):
        """f's stream list on a new session of share."""
        conn, tid = self.tree(share)
        return self.stream_names(conn.getSMBServer(), tid)

    def test_write_and_read_back(self):
        from impacket.smb3structs import FILE_OVERWRITE_IF
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        smb.write(tid, fid, afpinfo(), 0, 60)
        # macOS reads from the start at any offset up to 60
        self.assertEqual(smb.read(tid, fid, 0, 61), afpinfo())
        self.assertEqual(smb.read(tid, fid, 16, 8), afpinfo()[:8])
        self.assertEqual(smb.read(tid, fid, 60, 1), b"A")
        smb.close(tid, fid)
        self.assertEqual(os.getxattr(self.share_path("f"), XATTR),
                         afpinfo() + b"\0")
        self.assertIn(":AFP_AfpInfo:$DATA", self.streams())

    def test_invalid_write_is_refused(self):
        from impacket.smb3structs import FILE_OPEN_IF
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OPEN_IF)
        # no signature, and a short record not at offset 0
        self.assertEqual(self.status(smb.write, tid, fid, b"\0" * 60, 0,
                                     60), STATUS_INVALID_PARAMETER)
        self.assertEqual(self.status(smb.write, tid, fid, afpinfo()[:30],
                                     1, 30), STATUS_INVALID_PARAMETER)
        # the open alone made no stream
        smb.close(tid, fid)
        self.assertEqual(self.streams(), ["::$DATA"])
        self.assertNotIn(XATTR, os.listxattr(self.share_path("f")))

    def test_zero_finder_info_deletes(self):
        from impacket.smb3structs import FILE_OVERWRITE_IF
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        smb.write(tid, fid, afpinfo(), 0, 60)
        smb.write(tid, fid, afpinfo(b"\0" * 32), 0, 60)
        smb.close(tid, fid)
        self.assertEqual(self.streams(), ["::$DATA"])

    def test_end_of_file(self):
        from impacket.smb3structs import FILE_OVERWRITE_IF
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        smb.write(tid, fid, afpinfo(), 0, 60)
        eof = struct.pack("<Q", 61)
        self.assertEqual(self.status(smb.setInfo, tid, fid, eof, 1,
                                     20),
                         STATUS_ALLOTTED_SPACE_EXCEEDED)
        # smaller: success, and the record stays as it is
        smb.setInfo(tid, fid, struct.pack("<Q", 0), 1, 20)
        smb.close(tid, fid)
        self.assertEqual(os.getxattr(self.share_path("f"), XATTR),
                         afpinfo() + b"\0")

    def test_invalid_record_is_hidden(self):
        from impacket.smb3structs import FILE_OPEN, FILE_OVERWRITE_IF
        # written through the share without fruit
        conn, tid = self.tree("plain")
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        conn.getSMBServer().write(tid, fid, b"foo", 0, 3)
        conn.getSMBServer().close(tid, fid)
        self.assertEqual(self.streams("plain"),
                         ["::$DATA", ":AFP_AfpInfo:$DATA"])
        self.assertEqual(self.streams(), ["::$DATA"])
        conn, tid = self.tree()
        self.assertEqual(self.status(self.open, conn, tid, "f" + STREAM,
                                     FILE_OPEN),
                         STATUS_OBJECT_NAME_NOT_FOUND)

    def test_netatalk_metadata(self):
        """fruit:metadata = netatalk (the default): the FinderInfo in
        Netatalk's 402-byte AppleDouble xattr, the stream's rules as with
        metadata = stream."""
        from impacket.smb3structs import (FILE_OPEN, FILE_OPEN_IF,
                                          FILE_OVERWRITE_IF,
                                          SMB2_0_INFO_FILE)
        conn, tid = self.tree("netatalk")
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OPEN_IF)
        # the open alone makes nothing; invalid writes are refused
        self.assertEqual(self.status(smb.write, tid, fid, b"\0" * 60, 0,
                                     60), STATUS_INVALID_PARAMETER)
        self.assertEqual(self.streams("netatalk"), ["::$DATA"])
        smb.write(tid, fid, afpinfo(), 0, 60)
        self.assertEqual(smb.read(tid, fid, 0, 61), afpinfo())
        self.assertEqual(self.status(smb.setInfo, tid, fid,
                                     struct.pack("<Q", 61), 1, 20),
                         STATUS_ALLOTTED_SPACE_EXCEEDED)
        # FileStandardInformation: EndOfFile 60
        raw = smb.queryInfo(tid, fid, infoType=SMB2_0_INFO_FILE,
                            fileInfoClass=5)
        self.assertEqual(struct.unpack_from("<Q", raw, 8)[0], 60)
        smb.close(tid, fid)
        names = os.listxattr(self.share_path("f"))
        self.assertNotIn(XATTR, names)
        val = os.getxattr(self.share_path("f"), NETATALK_XATTR)
        self.assertEqual(len(val), 402)
        self.assertEqual(val[:8], bytes.fromhex("0005160700020000"))
        self.assertEqual(val[122:130], b"SMB,OLE!")
        self.assertEqual(self.streams("netatalk"),
                         ["::$DATA", ":AFP_AfpInfo:$DATA"])
        # a stream xattr of that name (metadata = stream's) is not the
        # record here: not listed, the netatalk one is read
        os.setxattr(self.share_path("f"), XATTR,
                    afpinfo(b"OTHERREC") + b"\0")
        self.assertEqual(self.streams("netatalk"),
                         ["::$DATA", ":AFP_AfpInfo:$DATA"])
        fid = self.open(conn, tid, "f" + STREAM, FILE_OPEN)
        self.assertEqual(smb.read(tid, fid, 0, 60), afpinfo())
        smb.close(tid, fid)
        os.removexattr(self.share_path("f"), XATTR)
        # zeros delete it
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        smb.write(tid, fid, afpinfo(b"\0" * 32), 0, 60)
        smb.close(tid, fid)
        self.assertEqual(self.streams("netatalk"), ["::$DATA"])
        self.assertEqual(self.status(self.open, conn, tid, "f" + STREAM,
                                     FILE_OPEN),
                         STATUS_OBJECT_NAME_NOT_FOUND)
        # and so does delete-on-close
        fid = self.open(conn, tid, "f" + STREAM, FILE_OPEN_IF)
        smb.write(tid, fid, afpinfo(), 0, 60)
        smb.close(tid, fid)
        conn.deleteFile("netatalk", "f" + STREAM)
        self.assertEqual(self.streams("netatalk"), ["::$DATA"])
        self.assertNotIn(NETATALK_XATTR, os.listxattr(self.share_path("f")))

    def test_resource_xattr(self):
        """fruit:resource = xattr: the fork alone (no NUL) in the xattr
        user.org.netatalk.ResourceFork, listed while not empty.  (Samba
        4.17 serves it only where attropen(3) exists, Solaris: on Linux
        every open of AFP_Resource there is STATUS_NOT_SUPPORTED.)"""
        from impacket.smb3structs import (FILE_OPEN, FILE_OPEN_IF,
                                          SMB2_0_INFO_FILE)
        if h.is_samba():
            self.skipTest("Samba 4.17 on Linux cannot open the xattr")
        conn, tid = self.tree("rsrcxattr")
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f:AFP_Resource", FILE_OPEN_IF)
        # made empty: not listed
        self.assertEqual(os.getxattr(self.share_path("f"), RSRC_XATTR), b"")
        self.assertEqual(self.streams("rsrcxattr"), ["::$DATA"])
        smb.write(tid, fid, b"fork", 0, 4)
        smb.write(tid, fid, b"!", 10, 1)
        self.assertEqual(smb.read(tid, fid, 0, 100),
                         b"fork" + b"\0" * 6 + b"!")
        raw = smb.queryInfo(tid, fid, infoType=SMB2_0_INFO_FILE,
                            fileInfoClass=5)
        self.assertEqual(struct.unpack_from("<Q", raw, 8)[0], 11)
        smb.setInfo(tid, fid, struct.pack("<Q", 4), 1, 20)
        smb.close(tid, fid)
        self.assertEqual(os.getxattr(self.share_path("f"), RSRC_XATTR),
                         b"fork")
        self.assertFalse(any(x.endswith("AFP_Resource:$DATA")
                             for x in os.listxattr(self.share_path("f"))))
        self.assertEqual(self.streams("rsrcxattr"),
                         ["::$DATA", ":AFP_Resource:$DATA"])
        # written by another (Netatalk on ZFS): read as it is
        os.setxattr(self.share_path("f"), RSRC_XATTR, b"abc")
        fid = self.open(conn, tid, "f:AFP_Resource", FILE_OPEN)
        self.assertEqual(smb.read(tid, fid, 0, 100), b"abc")
        smb.close(tid, fid)
        # delete-on-close of a fork is ignored, as with the others
        conn.deleteFile("rsrcxattr", "f:AFP_Resource")
        self.assertEqual(os.getxattr(self.share_path("f"), RSRC_XATTR),
                         b"abc")

    def test_plain_share_has_no_rules(self):
        from impacket.smb3structs import FILE_OVERWRITE_IF
        conn, tid = self.tree("plain")
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f" + STREAM, FILE_OVERWRITE_IF)
        smb.write(tid, fid, b"\0" * 70, 0, 70)
        smb.close(tid, fid)
        self.assertEqual(os.getxattr(self.share_path("f"), XATTR),
                         b"\0" * 71)

    def write_resource(self, share):
        from impacket.smb3structs import FILE_OVERWRITE_IF
        conn, tid = self.tree(share)
        fid = self.open(conn, tid, "f:AFP_Resource", FILE_OVERWRITE_IF)
        conn.getSMBServer().write(tid, fid, b"1234567890", 10, 10)
        conn.getSMBServer().close(tid, fid)

    def delete_resource(self, share, by_setinfo):
        from impacket.smb3structs import (DELETE, FILE_DELETE_ON_CLOSE,
                                          FILE_OPEN, FILE_READ_ATTRIBUTES,
                                          FILE_SHARE_DELETE, FILE_SHARE_READ,
                                          FILE_SHARE_WRITE)
        conn, tid = self.tree(share)
        smb = conn.getSMBServer()
        fid = smb.create(tid, "f:AFP_Resource", FILE_READ_ATTRIBUTES | DELETE,
                         FILE_SHARE_READ | FILE_SHARE_WRITE |
                         FILE_SHARE_DELETE,
                         0 if by_setinfo else FILE_DELETE_ON_CLOSE,
                         FILE_OPEN, 0)
        if by_setinfo:
            # FileDispositionInformation, DeletePending = 1
            smb.setInfo(tid, fid, b"\x01", 1, 13)
        smb.close(tid, fid)

    def test_resource_delete_on_close_is_ignored(self):
        rsrc = ":AFP_Resource:$DATA"
        for by_setinfo in (False, True):
            self.write_resource("share")
            self.delete_resource("share", by_setinfo)
            self.assertIn(rsrc, self.streams())
            # without fruit the same removes it
            self.fresh_file()
            self.write_resource("plain")
            self.delete_resource("plain", by_setinfo)
            self.assertNotIn(rsrc, self.streams("plain"), by_setinfo)
            self.fresh_file()

    def test_resource_delete_pending_for_others(self):
        """A Mac's delete of AFP_Resource is pending for other opens
        (DELETE_PENDING) while its handle is open, and the fork is still
        there after the close (smbtorture vfs.fruit empty_stream, T_DOC).
        Samba 4.17 answers the same."""
        from impacket.smb3structs import (DELETE, FILE_OPEN,
                                          FILE_READ_ATTRIBUTES,
                                          FILE_SHARE_DELETE, FILE_SHARE_READ,
                                          FILE_SHARE_WRITE)
        self.write_resource("share")
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        self.aapl(smb, tid)
        fid = smb.create(tid, "f:AFP_Resource", FILE_READ_ATTRIBUTES | DELETE,
                         FILE_SHARE_READ | FILE_SHARE_WRITE |
                         FILE_SHARE_DELETE, 0, FILE_OPEN, 0)
        smb.setInfo(tid, fid, b"\x01", 1, 13)
        self.assertEqual(self.status(self.open, conn, tid, "f:AFP_Resource",
                                     FILE_OPEN, FILE_READ_ATTRIBUTES),
                         0xC0000056)    # STATUS_DELETE_PENDING
        smb.close(tid, fid)
        self.assertIn(":AFP_Resource:$DATA", self.streams())

    def aapl(self, smb, tid):
        """The AAPL server query on smb's session: a Mac's from now on."""
        from impacket.smb3structs import (FILE_OPEN, FILE_READ_ATTRIBUTES,
                                          FILE_SHARE_READ)
        fid = smb.create(tid, "", FILE_READ_ATTRIBUTES, FILE_SHARE_READ, 0,
                         FILE_OPEN, 0, createContexts=[aapl_query()])
        smb.close(tid, fid)

    def test_empty_stream_is_not_there_for_a_mac(self):
        """On a Mac's session an empty named stream does not exist for a
        plain open (OBJECT_NAME_NOT_FOUND) nor in the stream list, while
        another handle has it open or after; written, it does; emptied
        again (EOF 0), it does not.  Other clients see it as NTFS does.
        Samba 4.17 answers the same (smbtorture vfs.fruit empty_stream,
        setinfo eof stream)."""
        from impacket.smb3structs import (FILE_OPEN, FILE_OPEN_IF,
                                          FILE_READ_ATTRIBUTES)
        conn, tid = self.tree()
        smb = conn.getSMBServer()
        self.aapl(smb, tid)
        h = self.open(conn, tid, "f:foo", FILE_OPEN_IF)
        plain_open = (self.open, conn, tid, "f:foo", FILE_OPEN,
                      FILE_READ_ATTRIBUTES)
        self.assertEqual(self.status(*plain_open), 0xC0000034)
        names = self.stream_names(smb, tid)
        self.assertNotIn(":foo:$DATA", names)
        smb.write(tid, h, b"foo", 0, 3)
        self.assertEqual(self.status(*plain_open), 0)
        self.assertIn(":foo:$DATA", self.stream_names(smb, tid))
        smb.setInfo(tid, h, struct.pack("<Q", 0), 1, 20)  # EndOfFile 0
        self.assertEqual(self.status(*plain_open), 0xC0000034)
        smb.close(tid, h)
        self.assertEqual(self.status(*plain_open), 0xC0000034)
        self.assertNotIn(":foo:$DATA", self.stream_names(smb, tid))
        # a client that never asked AAPL: the empty stream is there
        self.assertIn(":foo:$DATA", self.streams())

    def stream_names(self, smb, tid):
        """f's stream list (FileStreamInformation) on smb's session."""
        from impacket.smb3structs import (FILE_OPEN, FILE_READ_ATTRIBUTES,
                                          FILE_SHARE_READ, FILE_SHARE_WRITE,
                                          FILE_SHARE_DELETE,
                                          SMB2_0_INFO_FILE)
        fid = smb.create(tid, "f", FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE |
                         FILE_SHARE_DELETE, 0, FILE_OPEN, 0)
        try:
            raw = smb.queryInfo(tid, fid, infoType=SMB2_0_INFO_FILE,
                                fileInfoClass=22)
        finally:
            smb.close(tid, fid)
        return h.stream_info_names(raw)

    def appledouble_entries(self, name):
        """{id: (offset, length)} of the "._" file's header."""
        with open(self.share_path(name), "rb") as f:
            head = f.read(0x52)
        magic, version = struct.unpack_from(">II", head, 0)
        self.assertEqual((magic, version), (0x00051607, 0x00020000))
        count = struct.unpack_from(">H", head, 24)[0]
        return {e[0]: (e[1], e[2]) for e in
                (struct.unpack_from(">III", head, 26 + 12 * i)
                 for i in range(count))}

    def test_resource_fork_in_appledouble(self):
        """fruit:resource = file (the default): the fork is the "._"
        file's, sparse at a large offset, and goes with its file."""
        from impacket.smb3structs import (FILE_OPEN, FILE_OPEN_IF,
                                          SMB2_0_INFO_FILE)
        big = 64 * 1024 * 1024
        conn, tid = self.tree("rsrcfile")
        smb = conn.getSMBServer()
        fid = self.open(conn, tid, "f:AFP_Resource", FILE_OPEN_IF)
        smb.write(tid, fid, b"1234567890", big, 10)
        smb.close(tid, fid)
        self.assertFalse(any(x.endswith("AFP_Resource:$DATA")
                             for x in os.listxattr(self.share_path("f"))))
        entries = self.appledouble_entries("._f")
        self.assertEqual(entries[2], (0x52, big + 10))
        self.assertEqual(entries[9], (0x32, 32))
        self.assertEqual(os.path.getsize(self.share_path("._f")),
                         0x52 + big + 10)
        fid = self.open(conn, tid, "f:AFP_Resource", FILE_OPEN)
        # FileStandardInformation: AllocationSize, EndOfFile
        raw = smb.queryInfo(tid, fid, infoType=SMB2_0_INFO_FILE,
                            fileInfoClass=5)
        self.assertEqual(struct.unpack_from("<Q", raw, 8)[0], big + 10)
        self.assertEqual(smb.read(tid, fid, big, 10), b"1234567890")
        self.assertEqual(smb.read(tid, fid, 0, 4), b"\0" * 4)
        smb.close(tid, fid)
        self.assertIn(":AFP_Resource:$DATA", self.streams("rsrcfile"))
        conn.rename("rsrcfile", "f", "g")
        self.assertFalse(os.path.exists(self.share_path("._f")))
        self.assertEqual(self.appledouble_entries("._g")[2],
                         (0x52, big + 10))
        conn.deleteFile("rsrcfile", "g")
        self.assertFalse(os.path.exists(self.share_path("._g")))

    @unittest.skipIf(h.is_samba(), "Samba 4.17 converts the ._ file "
                     "smbtorture carries from macOS, not this one built "
                     "from the layout (it lists only AFP_Resource, read "
                     "from the ._ file)")
    def test_appledouble_conversion(self):
        with open(self.share_path("._f"), "wb") as f:
            f.write(adouble(b"TESTSLOW", [("foo:bar", b"baz"),
                                          ("com.apple.x", b"yz")],
                            b"\xf0" * 16))
        os.chmod(self.share_path("._f"), 0o666)
        self.assertEqual(self.streams(),
                         ["::$DATA", ":AFP_AfpInfo:$DATA",
                          ":AFP_Resource:$DATA", ":com.apple.x:$DATA",
                          ":foo\uf022bar:$DATA"])
        # without fruit:delete_empty_adfiles it stays, a bare header
        # (its fork is a stream on this share)
        self.assertEqual(os.path.getsize(self.share_path("._f")), 0x52)
        self.assertEqual(os.getxattr(self.share_path("f"), XATTR)[16:24],
                         b"TESTSLOW")
        self.assertEqual(os.getxattr(
            self.share_path("f"), "user.DosStream.AFP_Resource:$DATA"),
            b"\xf0" * 16 + b"\0")

    def convert_blank(self, share):
        """A "._" file as macOS writes it for a file with an attribute
        and no resource fork (Apple's blank one), converted by an open of
        f:AFP_AfpInfo (Samba converts at the open of an AFP stream): the
        streams then listed, and the "._" file's size (None if gone)."""
        from impacket.smb3 import SessionError
        from impacket.smb3structs import FILE_OPEN
        with open(self.share_path("._f"), "wb") as f:
            f.write(adouble(b"TESTSLOW", [("foo:bar", b"baz")],
                            BLANK_RFORK))
        # the Mac's user wrote it
        os.chmod(self.share_path("._f"), 0o666)
        conn, tid = self.tree(share)
        try:
            fid = self.open(conn, tid, "f" + STREAM, FILE_OPEN)
            conn.getSMBServer().close(tid, fid)
        except SessionError:
            pass    # Samba looks the stream up before it converts
        names = self.streams(share)
        try:
            size = os.path.getsize(self.share_path("._f"))
        except FileNotFoundError:
            size = None
        return names, size

    def test_wipe_blank_rfork(self):
        """fruit:wipe_intentionally_left_blank_rfork and
        fruit:delete_empty_adfiles (fruit:resource = file): Samba's
        ad_convert rules."""
        converted = ["::$DATA", ":AFP_AfpInfo:$DATA", ":foo\uf022bar:$DATA"]
        # neither: the blank fork is a fork; the "._" file keeps it
        names, size = self.convert_blank("rsrcfile")
        self.assertEqual(names, converted[:2] + [":AFP_Resource:$DATA"] +
                         converted[2:])
        self.assertEqual(size, 0x52 + 286)
        self.fresh_file()
        # wiped: no fork, the "._" file stays, a bare header
        names, size = self.convert_blank("wipe")
        self.assertEqual(names, converted)
        self.assertEqual(size, 0x52)
        self.fresh_file()
        # and deleted with delete_empty_adfiles
        names, size = self.convert_blank("wipedel")
        self.assertEqual(names, converted)
        self.assertIsNone(size)

    @unittest.skipIf(h.is_samba(), "Samba's fruit:resource = file serves "
                     "AFP_Resource from the ._ file itself")
    def test_appledouble_kept_when_not_writable(self):
        # the user may not write f's streams: nothing is converted (and
        # so nothing converted again at each open)
        os.chmod(self.share_path("f"), 0o444)
        with open(self.share_path("._f"), "wb") as f:
            f.write(adouble(b"TESTSLOW", [], b"rsrc"))
        self.assertEqual(self.streams(), ["::$DATA"])
        self.assertTrue(os.path.exists(self.share_path("._f")))

    def test_appledouble_left_without_fruit(self):
        with open(self.share_path("._f"), "wb") as f:
            f.write(adouble(b"TESTSLOW", [], b""))
        self.assertEqual(self.streams("plain"), ["::$DATA"])
        self.assertTrue(os.path.exists(self.share_path("._f")))
        # not AppleDouble: left alone on the fruit share too
        with open(self.share_path("._f"), "wb") as f:
            f.write(b"not AppleDouble")
        self.assertEqual(self.streams(), ["::$DATA"])
        self.assertTrue(os.path.exists(self.share_path("._f")))

    def create_with(self, share, ctx):
        """CREATE of the share's root with context ctx; the response's
        contexts."""
        conn, tid = self.tree(share)
        return create_contexts(conn.getSMBServer(), tid, "", ctx)

    def test_aapl_server_query(self):
        r = self.create_with("share", aapl_query())[b"AAPL"]
        cmd, _, bitmap, scaps, vcaps, _, mlen = struct.unpack_from(
            "<IIQQQII", r)
        self.assertEqual((cmd, bitmap), (1, 7))
        # UNIX_BASED, READ_DIR_ATTR (asked for, on a share with
        # streams; test_fruit_readdir.py) and NFS_ACE (fruit:nfs_aces is
        # on); no copyfile (fruit:copyfile is off), as Samba
        self.assertEqual(scaps, 13)
        self.assertEqual(vcaps, 0)     # case-insensitive share
        self.assertEqual(r[40:40 + mlen].decode("utf-16-le"), "MacSamba")
        # only what was asked for
        r = self.create_with("share", aapl_query(bitmap=2))[b"AAPL"]
        self.assertEqual(len(r), 24)
        # a share without fruit ignores it, as Samba's does
        self.assertNotIn(b"AAPL", self.create_with("plain", aapl_query()))
        if h.is_samba():
            return  # fruit:aapl and fruit:model are global options there
        self.assertNotIn(b"AAPL", self.create_with("noaapl", aapl_query()))
        r = self.create_with("xserve", aapl_query(bitmap=4))[b"AAPL"]
        self.assertEqual(r[24:].decode("utf-16-le"), "Xserve")

    def rename_dir_with_open_file(self, share, aapl):
        """Rename d to d2 (each test's share is fresh) while d/f is open
        on the same session, after an AAPL query on it if aapl: the
        status."""
        from impacket.smb3structs import (FILE_OPEN, FILE_READ_ATTRIBUTES,
                                          FILE_SHARE_READ)
        os.mkdir(self.share_path("d"))
        os.chmod(self.share_path("d"), 0o777)
        with open(self.share_path("d", "f"), "wb") as f:
            f.write(b"open")
        os.chmod(self.share_path("d", "f"), 0o666)
        conn, tid = self.tree(share)
        smb = conn.getSMBServer()
        if aapl:
            fid = smb.create(tid, "", FILE_READ_ATTRIBUTES, FILE_SHARE_READ,
                             0, FILE_OPEN, 0, createContexts=[aapl_query()])
            smb.close(tid, fid)
        f = self.open(conn, tid, "d\\f", FILE_OPEN)
        try:
            return self.status(smb.rename, share, "d", "d2")
        finally:
            smb.close(tid, f)

    def test_posix_rename(self):
        """fruit:posix_rename (default yes): after AAPL, a directory with
        a file open below it can be renamed, as on a Mac's disk; without
        AAPL, or with no, it cannot (ACCESS_DENIED, Windows's rule).
        Samba 4.17 answers the same."""
        self.assertEqual(self.rename_dir_with_open_file("share", False),
                         0xC0000022)
        self.assertFalse(os.path.exists(self.share_path("d2")))
        self.fresh_file()
        self.assertEqual(self.rename_dir_with_open_file("share", True), 0)
        self.assertTrue(os.path.exists(self.share_path("d2", "f")))
        self.fresh_file()
        self.assertEqual(self.rename_dir_with_open_file("noposix", True),
                         0xC0000022)

    def file_ids(self, share, aapl):
        """f's FileInternalInformation IndexNumber and its FileId in a
        FileIdBothDirectoryInformation listing, on one session of share
        that asked AAPL first if aapl."""
        from impacket.smb3structs import (FILE_OPEN, FILE_READ_ATTRIBUTES,
                                          FILE_READ_DATA, FILE_SHARE_READ,
                                          FILE_DIRECTORY_FILE,
                                          FILEID_BOTH_DIRECTORY_INFORMATION,
                                          SMB2_0_INFO_FILE)
        conn, tid = self.tree(share)
        smb = conn.getSMBServer()
        if aapl:
            fid = smb.create(tid, "", FILE_READ_ATTRIBUTES, FILE_SHARE_READ,
                             0, FILE_OPEN, 0, createContexts=[aapl_query()])
            smb.close(tid, fid)
        fid = self.open(conn, tid, "f", FILE_OPEN, FILE_READ_ATTRIBUTES)
        try:
            raw = smb.queryInfo(tid, fid, infoType=SMB2_0_INFO_FILE,
                                fileInfoClass=6)
        finally:
            smb.close(tid, fid)
        index, = struct.unpack_from("<Q", raw)
        d = smb.create(tid, "", FILE_READ_DATA | FILE_READ_ATTRIBUTES, 7,
                       FILE_DIRECTORY_FILE, FILE_OPEN, 0)
        try:
            raw = smb.queryDirectory(
                tid, d, "f",
                informationClass=FILEID_BOTH_DIRECTORY_INFORMATION)
        finally:
            smb.close(tid, d)
        listed, = struct.unpack_from("<Q", raw, 96)
        return index, listed

    def test_zero_file_id(self):
        """fruit:zero_file_id (default yes): a Mac's session (AAPL) gets
        file ids of 0, in queries and listings; other sessions, and all
        with no, the inode number.  Samba 4.17 answers the same."""
        ino = os.stat(self.share_path("f")).st_ino
        self.assertEqual(self.file_ids("share", False), (ino, ino))
        self.assertEqual(self.file_ids("share", True), (0, 0))
        self.assertEqual(self.file_ids("ids", True), (ino, ino))

    def listing(self, share):
        conn, tid = self.tree(share)
        return sorted(f.get_longname() for f in conn.listPath(share, "*")
                      if f.get_longname() not in (".", ".."))

    def test_veto_appledouble(self):
        """fruit:veto_appledouble (default yes, as Samba): a "._" file
        is neither listed nor opened; with no it is an ordinary file."""
        from impacket.smb3structs import FILE_OPEN
        os.mkdir(self.share_path("d"))
        with open(self.share_path("d", "._g"), "wb") as f:
            f.write(b"not AppleDouble")
        os.chmod(self.share_path("d", "._g"), 0o666)
        # on the default fruit:resource = file (Samba vetoes "._" names
        # only there)
        conn, tid = self.tree("rsrcfile")
        self.assertEqual(conn.listPath("rsrcfile", "d\\*")[2:], [])
        self.assertEqual(self.status(self.open, conn, tid, "d\\._g",
                                     FILE_OPEN), 0xC0000034)
        conn, tid = self.tree("showad")
        self.assertEqual([f.get_longname()
                          for f in conn.listPath("showad", "d\\*")[2:]],
                         ["._g"])
        self.assertEqual(self.status(self.open, conn, tid, "d\\._g",
                                     FILE_OPEN), 0)

    def full_size(self, share):
        """FileFsFullSizeInformation (MS-FSCC 2.5.4) of share: total,
        caller-available and available bytes."""
        from impacket.smb3structs import FILE_READ_ATTRIBUTES, FILE_OPEN
        conn, tid = self.tree(share)
        smb = conn.getSMBServer()
        fid = smb.create(tid, "", FILE_READ_ATTRIBUTES, 7, 1, FILE_OPEN, 0)
        try:
            raw = smb.queryInfo(tid, fid, infoType=2, fileInfoClass=7)
        finally:
            smb.close(tid, fid)
        total, caller, actual, spu, bps = struct.unpack_from("<QQQII", raw)
        unit = spu * bps
        return total * unit, caller * unit, actual * unit

    def test_time_machine(self):
        """fruit:time machine: AAPL's volume caps say FULL_SYNC; with a
        max size the share is that big, less its sparse bundles' bands
        (here 5 of 1 MiB)."""
        r = self.create_with("tm", aapl_query(bitmap=2))[b"AAPL"]
        self.assertEqual(struct.unpack_from("<Q", r, 16)[0], 4)
        bundle = self.share_path("mac.sparsebundle")
        os.makedirs(os.path.join(bundle, "bands"))
        with open(os.path.join(bundle, "Info.plist"), "w") as f:
            f.write("<plist version=\"1.0\">\n<dict>\n"
                    "\t<key>band-size</key>\n"
                    "\t<integer>1048576</integer>\n</dict>\n</plist>\n")
        for i in range(5):
            with open(os.path.join(bundle, "bands", "%x" % i), "wb") as f:
                f.write(b"b")
        mib = 1024 * 1024
        self.assertEqual(self.full_size("tm"), (64 * mib, 59 * mib,
                                                59 * mib))
        # a share without the limit reports the disk
        self.assertGreater(self.full_size("share")[0], 64 * mib)


class FruitOptions(h.TestUser):
    """Samba's fruit options this server does not build are said so, by
    name and value, at tree connect (never taken silently); those it
    builds (fruit:metadata = netatalk, fruit:resource = xattr or stream)
    say nothing."""

    share_options = [("vfs objects", "catia fruit streams_xattr"),
                     ("fruit:metadata", "netatalk"),
                     ("fruit:resource", "xattr"),
                     ("fruit:locking", "netatalk")]
    extra_shares = [("streamfork", [("vfs objects", "fruit streams_xattr"),
                                    ("fruit:metadata", "stream"),
                                    ("fruit:resource", "stream")])]

    def connect(self, share):
        conn = self.impacket_logon()
        try:
            conn.connectTree(share)
        finally:
            conn.close()

    def test_unsupported_values_are_logged(self):
        if h.is_samba():
            self.skipTest("Samba builds all of them")
        self.connect("share")
        log = self.smbd.log_text()
        self.assertNotIn("fruit:metadata", log)
        self.assertNotIn("fruit:resource", log)
        self.assertIn("fruit:locking = netatalk: not supported", log)

    def test_stream_resource_is_quiet(self):
        if h.is_samba():
            self.skipTest("Samba builds all of them")
        self.connect("streamfork")
        log = self.smbd.log_text()
        self.assertNotIn("fruit:resource", log)
        self.assertNotIn("fruit:metadata", log)


h.backend_variants(globals(), Fruit)
h.backend_variants(globals(), FruitOptions)

if __name__ == "__main__":
    h.main()
