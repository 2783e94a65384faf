#!/usr/bin/python3
"""Samba's smbclient against the server: `smbclient //127.0.0.1/share -c ls`.

Until authentication lands our server answers SESSION_SETUP with an error,
so the test asserts that smbclient got through NEGOTIATE and failed AT
session setup with an NT_STATUS_ (not a connection error).  Flip
EXPECT_SESSION_SETUP below (the one place) when auth works; against
Samba's smbd (SMBD=/usr/sbin/smbd) success is always expected.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

# The switch: True once our SESSION_SETUP/TREE_CONNECT/QUERY_DIRECTORY work.
EXPECT_SESSION_SETUP = os.environ.get("SMBD_EXPECT_AUTH", "0") == "1"

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CLIENT_TIMEOUT = 30


class SmbClient:

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            # useradd and smbpasswd -a need root
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)
        cls.client_conf = os.path.join(cls.smbd.tmp, "client.conf")
        with open(cls.client_conf, "w") as f:
            f.write("[global]\n")
        with open(os.path.join(cls.smbd.share, "hello.txt"), "w") as f:
            f.write("hello\n")

    def expect_success(self):
        return EXPECT_SESSION_SETUP or self.smbd.samba

    def smbclient(self, *args):
        cmd = ["smbclient", "//127.0.0.1/share", "-p", str(self.smbd.port),
               "-s", self.client_conf, "-U", "%s%%%s" % (USER, PASSWORD),
               "-t", "10"] + list(args)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=CLIENT_TIMEOUT,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("smbclient hung for %d s" % CLIENT_TIMEOUT)
        return r.returncode, r.stdout + r.stderr

    def check_ls(self, *args):
        rc, out = self.smbclient("-c", "ls", *args)
        if self.expect_success():
            self.assertEqual(rc, 0, out)
            self.assertIn("hello.txt", out)
            self.assertRegex(out, r"blocks of size")
        else:
            self.assertNotEqual(rc, 0, out)
            # reached session setup: negotiate worked, no transport error
            self.assertRegex(out, r"session setup failed: NT_STATUS_\w+",
                             out)
            for bad in ("NT_STATUS_CONNECTION_REFUSED",
                        "NT_STATUS_CONNECTION_RESET",
                        "NT_STATUS_CONNECTION_DISCONNECTED",
                        "NT_STATUS_IO_TIMEOUT",
                        "NT_STATUS_INVALID_NETWORK_RESPONSE",
                        "protocol negotiation failed"):
                self.assertNotIn(bad, out)
        self.server_alive()

    def test_ls(self):
        self.check_ls()

    def test_ls_smb2_02(self):
        self.check_ls("-m", "SMB2_02")

    def test_ls_smb3_00(self):
        self.check_ls("-m", "SMB3_00")

    def test_bad_password(self):
        cmd_user = "%s%%wrong" % USER
        cmd = ["smbclient", "//127.0.0.1/share", "-p", str(self.smbd.port),
               "-s", self.client_conf, "-U", cmd_user, "-t", "10",
               "-c", "ls"]
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=CLIENT_TIMEOUT, stdin=subprocess.DEVNULL)
        out = r.stdout + r.stderr
        self.assertNotEqual(r.returncode, 0, out)
        self.assertTrue(re.search(r"NT_STATUS_(LOGON_FAILURE|"
                                  r"\w+)", out), out)
        self.server_alive()


h.backend_variants(globals(), SmbClient)

if __name__ == "__main__":
    h.main()
