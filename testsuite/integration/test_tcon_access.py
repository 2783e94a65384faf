#!/usr/bin/python3
"""Who may connect a tree (issue 34).

Item 6 (MS-SMB2 3.3.5.7): in a 3.1.1 session of a real user, a
TREE_CONNECT that is neither signed nor encrypted is refused with
ACCESS_DENIED (unsigned), the connection stays, and a signed one then
works; guest and anonymous sessions, which cannot sign, still connect.
Samba 4.17 answers the same (the spec would drop the connection).

Client: smb3client.py (3.1.1, signed by hand); every call has a time
limit.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c3  # noqa: E402

ACCESS_DENIED = 0xC0000022
TREE_CONNECT = 3
FLAGS_SIGNED = 0x8


def tcon_body(share):
    path = ("\\\\127.0.0.1\\%s" % share).encode("utf-16-le")
    return struct.pack("<HHHH", 9, 0, 72, len(path)) + path


def send(cl, cmd, body, sign, tree_id=0):
    """Send one request on smb3client cl, signed or not; its mid."""
    mid = cl.mid
    cl.mid += 1
    msg = h.smb2_header(cmd, mid, credit_charge=1, credits=16,
                        session_id=cl.sid, tree_id=tree_id) + body
    cl.conn.send(cl._sign(msg) if sign else msg)
    return mid


def reply(cl):
    """(status, signed, mid, tree id) of the next reply."""
    r = cl.recv()
    flags = struct.unpack_from("<I", r, 16)[0]
    return (struct.unpack_from("<I", r, 8)[0], bool(flags & FLAGS_SIGNED),
            struct.unpack_from("<Q", r, 24)[0],
            struct.unpack_from("<I", r, 36)[0])


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


h.backend_variants(globals(), UnsignedTcon, backends=("io_uring",))

if __name__ == "__main__":
    h.main()
