#!/usr/bin/python3
"""Logons with Samba's smbclient: unknown users, guest, signing modes.

Issue 3's list: a user created by Samba's smbpasswd logs on with signing
off, auto and required by the client; an unknown user fails with
STATUS_LOGON_FAILURE unless `map to guest = bad user`, and then works as
guest only on a share with `guest ok = yes` (elsewhere the tree connect
is refused).  Runs against ours, or Samba's with SMBD=/usr/sbin/smbd.
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"


class Base:
    GLOBAL = []
    SHARE = []

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(global_options=cls.GLOBAL + h.no_auth_delay(),
                          share_options=cls.SHARE)
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def smbclient(self, user, password, *args):
        r = subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                            str(self.smbd.port), "-U",
                            "%s%%%s" % (user, password), "-t", "10"] +
                           list(args) + ["-c", "ls"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr


class NoGuest(Base, unittest.TestCase):
    def test_signing_modes(self):
        for prot in ("off", "sign"):
            rc, out = self.smbclient(USER, PASSWORD,
                                     "--client-protection=%s" % prot)
            self.assertEqual(rc, 0, "%s: %s" % (prot, out))
        rc, out = self.smbclient(USER, PASSWORD)  # auto
        self.assertEqual(rc, 0, out)

    def test_unknown_user(self):
        rc, out = self.smbclient("nosuchuser", "whatever")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)


class GuestNotOnShare(Base, unittest.TestCase):
    GLOBAL = [("map to guest", "bad user")]

    def test_unknown_user_refused_at_share(self):
        rc, out = self.smbclient("nosuchuser", "whatever")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_ACCESS_DENIED", out)


class GuestOnShare(Base, unittest.TestCase):
    GLOBAL = [("map to guest", "bad user")]
    SHARE = [("guest ok", "yes")]

    def test_unknown_user_is_guest(self):
        rc, out = self.smbclient("nosuchuser", "whatever")
        self.assertEqual(rc, 0, out)

    def test_known_user_wrong_password(self):
        # bad user, not bad password: a real user with a wrong password
        # is still refused.
        rc, out = self.smbclient(USER, "wrong")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)


if __name__ == "__main__":
    h.main()
