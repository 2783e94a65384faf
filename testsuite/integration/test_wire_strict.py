#!/usr/bin/python3
"""Wire details strict SMB client libraries check (issue 35), each as the
bytes on the wire, against ours and (SMBD=/usr/sbin/smbd) Samba 4.17:

- the final SESSION_SETUP response of a raw NTLMSSP logon, whose buffer
  is empty, still points SecurityBufferOffset at 0x48 (MS-SMB2 2.2.6;
  Windows and Samba), never 0;
- SMB2_GLOBAL_CAP_MULTI_CHANNEL only for a client whose Capabilities
  carry it (3.3.5.4);
- STATUS_BUFFER_TOO_SMALL for a security descriptor says how long the
  descriptor is (3.3.5.20.3, 2.2.2.2): 4 bytes of ErrorData before
  3.1.1, one SMB2 ERROR Context (ByteCount 12) on 3.1.1, where Samba
  4.17 still sends the 4 bytes (the spec and Windows decide: that check
  is ours only); a too small file-system query on 3.1.1 carries an empty
  context (3.3.5.20.2, ByteCount 8);
- a related compound takes the chained CREATE's open whatever FileId the
  next request carries (3.3.5.2.7.2 as Windows and Samba do it);
- FileStandardInformation.NumberOfLinks of a directory is 1;
- a logon leg that needs another one grants back only its charge.
"""

import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c3  # noqa: E402

from impacket import smb3structs as s3  # noqa: E402

STATUS_BUFFER_TOO_SMALL = 0xC0000023
STATUS_INFO_LENGTH_MISMATCH = 0xC0000004
SMB2_QUERY_INFO = 16
SMB2_FLAGS_RELATED = 0x4
CAP_MULTI_CHANNEL = 0x08
INFO_FILE, INFO_FS, INFO_SECURITY = 1, 2, 3
FILE_STANDARD_INFORMATION = 5
FS_VOLUME_INFORMATION = 1
OWNER_GROUP_DACL = 0x7
READ_CONTROL_AND_ATTRS = 0x00020089


def create_body(name, directory=False, disposition=1,
                access=READ_CONTROL_AND_ATTRS):
    """SMB2 CREATE request body (2.2.13), no contexts."""
    n = name.encode("utf-16-le")
    options = 0x1 if directory else 0x40
    return struct.pack("<HBBIQQIIIIIHHII", 57, 0, 0, 2, 0, 0, access,
                       0x80, 7, disposition, options, 64 + 56, len(n),
                       0, 0) + n


def query_body(fid, info_type, cls, out_len, additional=0):
    """SMB2 QUERY_INFO request body (2.2.37), no input buffer."""
    return struct.pack("<HBBIHHIII16s", 41, info_type, cls, out_len, 0, 0,
                       0, additional, 0, fid)


def split_frame(frame):
    """The SMB2 messages of a (compound) reply frame."""
    out = []
    off = 0
    while True:
        nxt = struct.unpack_from("<I", frame, off + 20)[0]
        out.append(frame[off:off + nxt] if nxt else frame[off:])
        if not nxt:
            return out
        off += nxt


class RecordingClient(c3.Client):
    """smb3client's 3.1.1 client, keeping each SESSION_SETUP reply."""

    def __init__(self, *args, raw_ntlmssp=False, **kw):
        self.setups = []
        self.raw_ntlmssp = raw_ntlmssp
        super().__init__(*args, **kw)

    def _setup(self, token, sess_hash):
        r = super()._setup(token, sess_hash)
        self.setups.append(r[3])
        return r

    def _logon(self, user, password):
        if not self.raw_ntlmssp:
            return super()._logon(user, password)
        # NTLMSSP straight in the security buffer, no SPNEGO around it
        # (gensec accepts both, as Samba and Windows do)
        from impacket import ntlm, crypto
        auth = ntlm.getNTLMSSPType1("", "", True)
        _, out, hh, _ = self._setup(auth.getData(), self.preauth)
        type3, key = ntlm.getNTLMSSPType3(auth, out, user, password, "",
                                          "", "")
        _, _, hh, final = self._setup(type3.getData(), hh)
        self.signing_key = crypto.KDF_CounterMode(key, b"SMBSigningKey\0",
                                                  hh, 128)

    def compound(self, parts):
        """Send [(command, body, related)] as one signed compound frame;
        the replies, in order."""
        msgs = []
        for i, (cmd, body, related) in enumerate(parts):
            flags = SMB2_FLAGS_RELATED if related else 0
            m = bytearray(h.smb2_header(cmd, self.mid, credit_charge=1,
                                        credits=8, flags=flags,
                                        session_id=self.sid,
                                        tree_id=self.tid) + body)
            self.mid += 1
            if i + 1 < len(parts):
                m += b"\0" * (-len(m) % 8)
                struct.pack_into("<I", m, 20, len(m))
            msgs.append(self._sign(bytes(m)))
        self.conn.send(b"".join(msgs))
        return split_frame(self.conn.recv())


class WireStrict(h.TestUser, h.SmbdTestCase):
    global_options = [("server multi channel support", "yes")]

    def client(self, **kw):
        c = RecordingClient(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                            algorithms=None, **kw)
        self.addCleanup(c.conn.close)
        return c

    # -- SESSION_SETUP --------------------------------------------------
    def test_final_session_setup_points_at_its_empty_buffer(self):
        c = self.client(raw_ntlmssp=True)
        final = c.setups[-1]
        self.assertEqual(struct.unpack_from("<I", final, 8)[0], 0)
        off, length = struct.unpack_from("<HH", final, 64 + 4)
        self.assertEqual(length, 0)
        self.assertEqual(off, 0x48)

    def test_logon_leg_grants_its_charge(self):
        c = self.client()
        first = c.setups[0]
        self.assertEqual(struct.unpack_from("<I", first, 8)[0],
                         c3.STATUS_MORE_PROCESSING_REQUIRED)
        self.assertEqual(struct.unpack_from("<H", first, 14)[0], 1)
        # the session, once up, opens the window as asked (256)
        self.assertEqual(struct.unpack_from("<H", c.setups[-1], 14)[0],
                         256)

    # -- NEGOTIATE ------------------------------------------------------
    def negotiate_caps(self, client_caps):
        with h.RawConn(self.smbd.port) as conn:
            conn.send(h.negotiate_request((h.DIALECT_302, h.DIALECT_311),
                                          capabilities=client_caps))
            r = h.parse_negotiate_response(conn.recv())
        self.assertEqual(r["status"], 0)
        return r["capabilities"]

    def test_multichannel_only_when_asked(self):
        self.assertFalse(self.negotiate_caps(h.CAP_ENCRYPTION) &
                         CAP_MULTI_CHANNEL)
        self.assertTrue(self.negotiate_caps(h.CAP_ENCRYPTION |
                                            CAP_MULTI_CHANNEL) &
                        CAP_MULTI_CHANNEL)

    # -- QUERY_INFO error data ------------------------------------------
    def open_dir_311(self, c, name="d"):
        os.makedirs(os.path.join(self.smbd.share, name, "sub1"),
                    exist_ok=True)
        os.makedirs(os.path.join(self.smbd.share, name, "sub2"),
                    exist_ok=True)
        c.tree_connect("share")
        r = c._request(c3.CREATE, create_body(name, directory=True))
        return r[64 + 64:64 + 80]

    def sd_length(self, c, fid):
        r = c._request(SMB2_QUERY_INFO, query_body(fid, INFO_SECURITY, 0,
                                                   4096, OWNER_GROUP_DACL))
        return struct.unpack_from("<I", r, 64 + 4)[0]

    def test_security_too_small_says_the_length_311(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 sends the pre-3.1.1 form on 3.1.1")
        c = self.client()
        fid = self.open_dir_311(c)
        need = self.sd_length(c, fid)
        r = c._request(SMB2_QUERY_INFO,
                       query_body(fid, INFO_SECURITY, 0, 8,
                                  OWNER_GROUP_DACL),
                       ok=(STATUS_BUFFER_TOO_SMALL,))
        # 2.2.2: StructureSize 9, ErrorContextCount 1, ByteCount 12, and
        # the context: ErrorDataLength 4, ErrorId 0, the length
        ss, count, _, nbytes, dlen, err_id, value = struct.unpack_from(
            "<HBBIIII", r, 64)
        self.assertEqual((ss, count, nbytes, dlen, err_id),
                         (9, 1, 12, 4, 0))
        self.assertEqual(value, need)

    def test_fs_too_small_has_an_empty_context_311(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 sends ByteCount 0 on 3.1.1")
        c = self.client()
        fid = self.open_dir_311(c)
        r = c._request(SMB2_QUERY_INFO,
                       query_body(fid, INFO_FS, FS_VOLUME_INFORMATION, 4),
                       ok=(STATUS_INFO_LENGTH_MISMATCH,))
        ss, count, _, nbytes, dlen, err_id = struct.unpack_from(
            "<HBBIII", r, 64)
        self.assertEqual((ss, count, nbytes, dlen, err_id),
                         (9, 1, 8, 0, 0))

    def test_security_too_small_says_the_length_302(self):
        conn = self.impacket_logon(h.DIALECT_302)
        self.addCleanup(conn.close)
        os.makedirs(os.path.join(self.smbd.share, "e"), exist_ok=True)
        smb = conn.getSMBServer()
        tid = conn.connectTree("share")
        fid = smb.create(tid, "e", READ_CONTROL_AND_ATTRS, 7, 1, 1, 0)
        self.addCleanup(smb.close, tid, fid)
        need = len(smb.queryInfo(tid, fid, b"", INFO_SECURITY, 0,
                                 OWNER_GROUP_DACL))
        pkt = smb.SMB_PACKET()
        pkt["Command"] = s3.SMB2_QUERY_INFO
        pkt["TreeID"] = tid
        q = s3.SMB2QueryInfo()
        q["FileID"] = fid
        q["InfoType"] = INFO_SECURITY
        q["FileInfoClass"] = 0
        q["OutputBufferLength"] = 8
        q["AdditionalInformation"] = OWNER_GROUP_DACL
        q["InputBufferOffset"] = 0
        q["Buffer"] = b"\0"
        pkt["Data"] = q
        ans = smb.recvSMB(smb.sendSMB(pkt))
        self.assertEqual(ans["Status"], STATUS_BUFFER_TOO_SMALL)
        body = bytes(ans["Data"])
        ss, count, _, nbytes, value = struct.unpack_from("<HBBII", body)
        self.assertEqual((ss, count, nbytes), (9, 0, 4))
        self.assertEqual(value, need)

    def test_directory_has_one_link(self):
        c = self.client()
        fid = self.open_dir_311(c, "links")
        r = c._request(SMB2_QUERY_INFO,
                       query_body(fid, INFO_FILE,
                                  FILE_STANDARD_INFORMATION, 24))
        off = struct.unpack_from("<H", r, 64 + 2)[0]
        nlink, pending, is_dir = struct.unpack_from("<IBB", r, off + 16)
        self.assertEqual((nlink, pending, is_dir), (1, 0, 1))

    # -- related compounds ----------------------------------------------
    def test_related_request_takes_the_chained_open(self):
        c = self.client()
        c.tree_connect("share")
        with open(os.path.join(self.smbd.share, "chained.txt"), "w") as f:
            f.write("x")
        # an earlier open, closed: its FileId is what a client may leave
        # in the next request's buffer
        r = c._request(c3.CREATE, create_body("chained.txt"))
        stale = r[64 + 64:64 + 80]
        c.close(stale)
        replies = c.compound([
            (c3.CREATE, create_body("chained.txt"), False),
            (SMB2_QUERY_INFO, query_body(stale, INFO_FILE,
                                         FILE_STANDARD_INFORMATION, 24),
             True),
            (c3.CLOSE, struct.pack("<HHI16s", 24, 0, 0, stale), True),
        ])
        self.assertEqual([struct.unpack_from("<I", m, 8)[0]
                          for m in replies], [0, 0, 0])



if __name__ == "__main__":
    h.main()
