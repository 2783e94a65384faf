#!/usr/bin/python3
"""NTLMv1 logons (smbd/auth/ntlmssp.c) with Samba's smbclient.

`ntlm auth` as Samba 4.17: by default (ntlmv2-only) an NTLMv1 response is
refused with STATUS_LOGON_FAILURE; with `ntlm auth = yes` (ntlmv1-permitted)
it logs on, plain and with a signed session (the session key comes from
the NTLMv1 exchange), and a wrong password still fails.
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
V1 = ["--option=client ntlmv2 auth=no"]


class Ntlmv1Base:
    OPTIONS = []

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(global_options=cls.OPTIONS + h.no_auth_delay())
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def smbclient(self, *args, password=PASSWORD):
        r = subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                            str(self.smbd.port), "-U",
                            "%s%%%s" % (USER, password), "-t", "10"] +
                           list(args) + ["-c", "ls"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr


class Ntlmv1Refused(Ntlmv1Base, unittest.TestCase):
    def test_refused_by_default(self):
        rc, out = self.smbclient(*V1)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)
        self.assertIn("NTLMv1 logon", self.smbd.log_text())
        rc, out = self.smbclient()  # NTLMv2 still works
        self.assertEqual(rc, 0, out)


class Ntlmv1Permitted(Ntlmv1Base, unittest.TestCase):
    OPTIONS = [("ntlm auth", "yes")]

    def test_logon(self):
        rc, out = self.smbclient(*V1)
        self.assertEqual(rc, 0, out)

    def test_signed(self):
        rc, out = self.smbclient(*(V1 + ["--client-protection=sign"]))
        self.assertEqual(rc, 0, out)

    def test_wrong_password(self):
        rc, out = self.smbclient(*V1, password="wrong")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)


if __name__ == "__main__":
    h.main()
