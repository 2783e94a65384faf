#!/usr/bin/python3
"""`server smb encrypt` in a share section (MS-SMB2 3.3.5.7, 3.3.5.2.11).

[global] leaves encryption to the client; [enc] says `required` and
[want] says `desired`.  An SMB 3.0.2 session that connects [enc] gets
SMB2_SHAREFLAG_ENCRYPT_DATA and works with encrypted requests; a plain
(signed) request on that tree is refused with ACCESS_DENIED; an SMB 2.1
session cannot connect [enc] at all (ACCESS_DENIED) but may connect
[want], unencrypted, and the plain [share] tree of a 3.0.2 session stays
plain.  Each case runs against Samba 4.17 too (SMBD=/usr/sbin/smbd), which
answers the same.

Client: impacket (it encrypts a tree whose share flags say so, with
AES-128-CCM on 3.0.2); every call has a time limit.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SessionError  # noqa: E402
from impacket.smb3 import SessionError as Smb3Error  # noqa: E402

SESSION_FLAG_ENCRYPT_DATA = 0x0004
STATUS_ACCESS_DENIED = 0xC0000022


class ShareEncrypt(h.TestUser):
    extra_shares = [("enc", [("server smb encrypt", "required")]),
                    ("want", [("server smb encrypt", "desired")])]

    def logon(self, dialect):
        """impacket encrypts a whole 3.x session it can on its own; as
        Windows, here it encrypts only the trees whose share says so."""
        conn = self.impacket_logon(dialect)
        self.addCleanup(conn.close)
        conn.getSMBServer()._Session["SessionFlags"] &= \
            ~SESSION_FLAG_ENCRYPT_DATA
        return conn

    def tree_flags(self, conn, tid):
        return conn.getSMBServer()._Session["TreeConnectTable"][tid][
            "EncryptData"]

    def test_required_share_is_encrypted(self):
        conn = self.logon(h.DIALECT_302)
        tid = conn.connectTree("enc")
        self.assertTrue(self.tree_flags(conn, tid),
                        "SMB2_SHAREFLAG_ENCRYPT_DATA not set")
        # requests on the tree go encrypted, and the replies decrypt
        names = [f.get_longname() for f in conn.listPath("enc", "*")]
        self.assertIn(".", names)

    def test_plain_request_on_required_share_refused(self):
        conn = self.logon(h.DIALECT_302)
        tid = conn.connectTree("enc")
        smb = conn.getSMBServer()
        # the client forgets to encrypt: signed, not encrypted (on this
        # tree id: listPath would connect the share again)
        smb._Session["TreeConnectTable"][tid]["EncryptData"] = False
        with self.assertRaises(Smb3Error) as cm:
            smb.create(tid, "", 0x00100081, 7, 1, 1, 0)
        self.assertEqual(cm.exception.get_error_code(), STATUS_ACCESS_DENIED)

    def test_smb21_cannot_connect_required_share(self):
        conn = self.logon(h.DIALECT_210)
        with self.assertRaises(SessionError) as cm:
            conn.connectTree("enc")
        self.assertEqual(cm.exception.getErrorCode(), STATUS_ACCESS_DENIED)

    def test_desired_share(self):
        conn = self.logon(h.DIALECT_302)
        tid = conn.connectTree("want")
        self.assertTrue(self.tree_flags(conn, tid))
        conn.listPath("want", "*")
        old = self.logon(h.DIALECT_210)
        tid = old.connectTree("want")
        self.assertFalse(self.tree_flags(old, tid))
        old.listPath("want", "*")

    def test_other_share_stays_plain(self):
        conn = self.logon(h.DIALECT_302)
        tid = conn.connectTree("share")
        self.assertFalse(self.tree_flags(conn, tid))
        conn.listPath("share", "*")


h.backend_variants(globals(), ShareEncrypt)

if __name__ == "__main__":
    h.main()
