#!/usr/bin/python3
"""Session binding (MS-SMB2 3.3.5.5, 3.3.5.2.4): every check a binding
SESSION_SETUP must pass, each refusal with its status, side by side with
Samba 4.17 (SMBD=/usr/sbin/smbd runs the same tests against it).

Issue 34 item 3: a binding whose connection negotiated another signing
algorithm than the session's (SIGNING_CAPABILITIES, 2.2.3.1.7) was
accepted with random signature bytes, so whoever knew the password but
not the victim's session key joined the victim's session and read
through its exclusive handle.  A binding must be signed with
Session.SigningKey under the session's algorithm; one that is not is
answered USER_SESSION_DELETED, as Samba answers, and nothing of the
binding stays behind.

The table (session -> new connection: status), ours and Samba's:
  signature forged, any algorithms (CMAC/HMAC/GMAC) .. USER_SESSION_DELETED
  signed with the session's key but the channel's algorithm  .. the same
  not signed ...................... INVALID_PARAMETER (3.3.5.5; Samba:
                                    USER_SESSION_DELETED)
  3.0.2 session, 3.1.1 connection (dialects differ) .. INVALID_PARAMETER
  ciphers differ (AES-128-GCM vs AES-128-CCM) ........ INVALID_PARAMETER
  a 2.1 connection, or multichannel off .............. REQUEST_NOT_ACCEPTED
  GMAC session, CMAC connection ...................... REQUEST_OUT_OF_SEQUENCE
  CMAC session, GMAC connection ...................... NOT_SUPPORTED
  no such session .................................... USER_SESSION_DELETED
  the session's own connection, or a bound one ....... REQUEST_NOT_ACCEPTED
  after a forged AUTHENTICATE leg, a proper binding .. goes through
                                    (Samba: INVALID_PARAMETER)
  a logon still in progress .......................... REQUEST_NOT_ACCEPTED
                                    (Samba drops the connection)
  a guest session .................................... NOT_SUPPORTED
                                    (Samba: INVALID_PARAMETER)
  wrong password ..................................... LOGON_FAILURE
  another user ....................................... ACCESS_DENIED
  a 33rd channel ..................................... INSUFFICIENT_RESOURCES
                                    (ours only: Samba has no limit)
A different ClientGuid is accepted (3.3.5.5 says MAY refuse; smbtorture's
*d tests expect Windows to accept), as before.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import rawsmb as r  # noqa: E402

USER, PASSWORD = h.TEST_USER, h.TEST_PASSWORD
USER2, PASSWORD2 = "smbdtest2", "Test-Pass-2"
C, H, G = r.SIGN_AES_CMAC, r.SIGN_HMAC_SHA256, r.SIGN_AES_GMAC
NAMES = {C: "AES-CMAC", H: "HMAC-SHA256", G: "AES-GMAC"}
SECRET = b"the victim's data, opened exclusively\n"


class Binding(h.SmbdTestCase):
    global_options = {"server multi channel support": "yes",
                      "server signing": "mandatory",
                      "map to guest": "bad user"}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test users")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)
        h.create_user(cls.smbd.conf, USER2, PASSWORD2)

    def conn(self, **kw):
        c = r.Conn(self.smbd.port, **kw)
        self.addCleanup(c.close)
        return c

    def victim(self, algo=C, dialect=h.DIALECT_311, **kw):
        """A session on its own connection: (conn, session)."""
        v = self.conn(dialect=dialect, sign_algos=(algo,), **kw)
        return v, v.logon(USER, PASSWORD)

    def attacker(self, v, algo, **kw):
        """A connection of v's client (its ClientGuid) signing with
        algo."""
        kw.setdefault("client_guid", v.client_guid)
        return self.conn(sign_algos=(algo,), **kw)

    def assert_status(self, rep, status, why):
        self.assertEqual(rep.status, status, "%s: 0x%08x, not 0x%08x" %
                         (why, rep.status, status))

    def assert_alive(self, v, s, tid, fid):
        """The victim's session and handle still work."""
        self.assertEqual(v.read(s.id, tid, fid, len(SECRET)), SECRET)

    def exclusive(self, v, s, name):
        tid = v.tree_connect(s.id)
        fid, _ = v.create(s.id, tid, name, share=0,
                          disposition=r.FILE_OVERWRITE_IF)
        v.write(s.id, tid, fid, SECRET)
        return tid, fid

    # -- item 3's reproduction ----------------------------------------------
    def forged_bind(self, victim_algo, attacker_algo):
        v, s = self.victim(victim_algo)
        self.assertEqual(v.algo, victim_algo)
        tid, fid = self.exclusive(v, s, "excl_%d%d.txt" % (victim_algo,
                                                           attacker_algo))
        a = self.attacker(v, attacker_algo)
        self.assertEqual(a.algo, attacker_algo, "the server did not take "
                         "the offered signing algorithm")
        rep = a.bind(s, forge=True)
        self.assert_status(rep, r.STATUS_USER_SESSION_DELETED,
                           "a forged %s binding to a %s session" %
                           (NAMES[attacker_algo], NAMES[victim_algo]))
        if not self.smbd.samba:
            # no answer signed with the session's key to a request
            # that was not
            self.assertFalse(rep.signed, "the refusal was signed")
        # the attacker's channel key, had the binding gone through
        a.keys[s.id] = (os.urandom(16), attacker_algo)
        back = a.call(r.READ, a.read_body(fid, len(SECRET)), sid=s.id,
                      tid=tid)
        self.assertNotEqual(back.status, 0, "read through the victim's "
                            "exclusive handle")
        self.assert_alive(v, s, tid, fid)

    def test_forged_bind_cmac_session_hmac_channel(self):
        self.forged_bind(C, H)

    def test_forged_bind_hmac_session_cmac_channel(self):
        self.forged_bind(H, C)

    def test_forged_bind_same_algorithm(self):
        for algo in (C, H, G):
            with self.subTest(algo=NAMES[algo]):
                self.forged_bind(algo, algo)

    def test_forged_second_leg(self):
        """The first leg signed, the AUTHENTICATE leg forged: refused,
        and the half-made channel goes (a third, proper binding from the
        same connection succeeds)."""
        v, s = self.victim(C)
        a = self.attacker(v, H)
        rep = a.bind(s, forge=True, forge_leg=2)
        self.assert_status(rep, r.STATUS_USER_SESSION_DELETED,
                           "forged AUTHENTICATE leg")
        if self.smbd.samba:
            return  # Samba answers INVALID_PARAMETER to what follows
        rep = a.bind(s)
        self.assert_status(rep, 0, "a proper binding after it")

    def test_session_key_channel_algorithm(self):
        """Session.SigningKey, but under the connection's algorithm."""
        v, s = self.victim(C)
        a = self.attacker(v, H)
        rep = a.bind(s, sign_with=(s.signing_key, H))
        self.assert_status(rep, r.STATUS_USER_SESSION_DELETED,
                           "signed under HMAC-SHA256 with a CMAC key")

    def test_forged_binds_leave_nothing(self):
        """More forged bindings than a session has channels, then a
        proper one: nothing of the forged ones stayed behind."""
        v, s = self.victim(C)
        for i in range(40):
            a = self.attacker(v, H if i % 2 else C)
            rep = a.bind(s, forge=True, forge_leg=None if i % 3 else 2)
            self.assertNotEqual(rep.status, 0)
            a.close()
        a = self.attacker(v, C)
        self.assert_status(a.bind(s), 0, "a proper binding")

    # -- what goes through ---------------------------------------------------
    def test_bind_mixed_algorithms(self):
        """CMAC and HMAC-SHA256 may be mixed (smbtorture signCtoH,
        signHtoC expect Windows to accept); the channel reads the
        session's open with its own key."""
        for va, aa in ((C, H), (H, C), (C, C), (G, G)):
            with self.subTest(session=NAMES[va], channel=NAMES[aa]):
                v, s = self.victim(va)
                tid, fid = self.exclusive(v, s, "mix_%d%d.txt" % (va, aa))
                a = self.attacker(v, aa)
                rep = a.bind(s)
                self.assert_status(rep, 0, "binding")
                self.assertTrue(a.check_signature(rep, a.keys[s.id]),
                                "the final reply is not signed with the "
                                "channel's key")
                self.assertEqual(a.read(s.id, tid, fid, len(SECRET)),
                                 SECRET)

    def test_other_client_guid(self):
        v, s = self.victim(C)
        a = self.attacker(v, C, client_guid=os.urandom(16))
        rep = a.bind(s)
        if self.smbd.samba:
            # Samba's process per client: another ClientGuid lands in a
            # process that has no such session
            self.assert_status(rep, r.STATUS_USER_SESSION_DELETED, "Samba")
        else:
            self.assert_status(rep, 0, "another ClientGuid")

    # -- each refusal ---------------------------------------------------------
    def test_unsigned(self):
        v, s = self.victim(C)
        rep = self.attacker(v, C).bind(s, signed=False)
        self.assert_status(rep, r.STATUS_USER_SESSION_DELETED
                           if self.smbd.samba else
                           r.STATUS_INVALID_PARAMETER, "unsigned binding")
        self.assertFalse(rep.signed and not self.smbd.samba)

    def test_dialect_differs(self):
        v, s = self.victim(C, dialect=h.DIALECT_302)
        for forge in (False, True):
            with self.subTest(forged=forge):
                a = self.attacker(v, C)
                rep = a.bind(s, forge=forge)
                self.assert_status(rep, r.STATUS_INVALID_PARAMETER,
                                   "3.0.2 session, 3.1.1 connection")
                if not forge:
                    self.assertTrue(a.check_signature(
                        rep, (s.signing_key, s.algo)),
                        "the refusal is not signed with the session's key")
                elif not self.smbd.samba:
                    self.assertFalse(rep.signed)

    def test_cipher_differs(self):
        v, s = self.victim(C, ciphers=(h.CIPHER_AES128_GCM,))
        a = self.attacker(v, C, ciphers=(h.CIPHER_AES128_CCM,))
        self.assert_status(a.bind(s), r.STATUS_INVALID_PARAMETER,
                           "AES-128-GCM session, AES-128-CCM connection")

    def test_smb21_connection(self):
        v, s = self.victim(C)
        a = self.attacker(v, C, dialect=h.DIALECT_210)
        self.assert_status(a.bind(s), r.STATUS_REQUEST_NOT_ACCEPTED,
                           "a 2.1 connection")

    def test_gmac_mismatch(self):
        v, s = self.victim(G)
        self.assert_status(self.attacker(v, C).bind(s),
                           r.STATUS_REQUEST_OUT_OF_SEQUENCE,
                           "GMAC session, CMAC connection")
        v, s = self.victim(C)
        self.assert_status(self.attacker(v, G).bind(s),
                           r.STATUS_NOT_SUPPORTED,
                           "CMAC session, GMAC connection")

    def test_no_such_session(self):
        v, s = self.victim(C)
        a = self.attacker(v, C)
        s.id ^= 0x5a5a0000
        self.assert_status(a.bind(s), r.STATUS_USER_SESSION_DELETED,
                           "no such session")

    def test_own_connection(self):
        v, s = self.victim(C)
        self.assert_status(v.bind(s), r.STATUS_REQUEST_NOT_ACCEPTED,
                           "the session's own connection")

    def test_bound_connection(self):
        v, s = self.victim(C)
        a = self.attacker(v, C)
        self.assert_status(a.bind(s), 0, "binding")
        self.assert_status(a.bind(s, sign_with=a.keys[s.id]),
                           r.STATUS_REQUEST_NOT_ACCEPTED,
                           "a connection bound already")

    def test_logon_in_progress(self):
        if self.smbd.samba:
            self.skipTest("Samba drops the connection (it has no key to "
                          "sign the refusal with)")
        v = self.conn(sign_algos=(C,))
        _, tok = v._ntlm_negotiate()
        first = v.call(r.SESSION_SETUP, v.setup_body(tok))
        self.assert_status(first, r.STATUS_MORE_PROCESSING_REQUIRED, "logon")
        s = r.Session(first.session_id, v.dialect, b"\0" * 16,
                      os.urandom(16), C, USER, PASSWORD)
        a = self.attacker(v, C)
        self.assert_status(a.bind(s), r.STATUS_REQUEST_NOT_ACCEPTED,
                           "a logon in progress")

    def test_guest_session(self):
        v = self.conn(sign_algos=(C,))
        s = v.logon("nosuchuser", "whatever")   # mapped to guest
        a = self.attacker(v, C)
        rep = a.bind(s, user="nosuchuser", password="whatever")
        # 3.3.5.5: NOT_SUPPORTED; Samba answers INVALID_PARAMETER
        self.assert_status(rep, r.STATUS_INVALID_PARAMETER
                           if self.smbd.samba else r.STATUS_NOT_SUPPORTED,
                           "a guest session")

    def test_wrong_password(self):
        v, s = self.victim(C)
        rep = self.attacker(v, C).bind(s, password="not-the-password")
        self.assert_status(rep, r.STATUS_LOGON_FAILURE, "wrong password")

    def test_other_user(self):
        v, s = self.victim(C)
        rep = self.attacker(v, C).bind(s, user=USER2, password=PASSWORD2)
        self.assert_status(rep, r.STATUS_ACCESS_DENIED, "another user")

    def test_channel_limit(self):
        if self.smbd.samba:
            self.skipTest("Samba has no limit on a session's channels")
        v, s = self.victim(C)
        for i in range(31):
            self.assert_status(self.attacker(v, C).bind(s), 0,
                               "channel %d" % (i + 2))
        self.assert_status(self.attacker(v, C).bind(s),
                           r.STATUS_INSUFFICIENT_RESOURCES, "channel 33")


class BindingOff(h.SmbdTestCase):
    """`server multi channel support = no` (IsMultiChannelCapable FALSE):
    a binding is not accepted."""
    global_options = {"server multi channel support": "no",
                      "server signing": "mandatory"}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)

    def test_multichannel_off(self):
        v = r.Conn(self.smbd.port, sign_algos=(C,))
        self.addCleanup(v.close)
        s = v.logon(USER, PASSWORD)
        a = r.Conn(self.smbd.port, sign_algos=(C,),
                   client_guid=v.client_guid)
        self.addCleanup(a.close)
        rep = a.bind(s)
        self.assertEqual(rep.status, r.STATUS_REQUEST_NOT_ACCEPTED,
                         "0x%08x" % rep.status)


if __name__ == "__main__":
    h.main()
