#!/usr/bin/python3
"""Samba's smbclient against the server: `smbclient //127.0.0.1/share -c ls`.

The server grows step by step, so the test knows how far smbclient gets
today: REACHES below, the one place to change.  Before that step everything
must work; AT that step smbclient must fail with an NT_STATUS_ (never a
connection error, a hang or a crash); getting FURTHER also fails the test,
with a message to move REACHES on, so progress is recorded on purpose.
Against Samba's smbd (SMBD=/usr/sbin/smbd) `ls` always succeeds.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

# How far `smbclient -c ls` gets against our smbd today (THE switch):
#   "session setup"  fails at SESSION_SETUP (before authentication)
#   "tree connect"   SESSION_SETUP works, TREE_CONNECT fails
#   "listing"        the share connects, the directory listing fails
#   "done"           `ls` lists the share
STAGES = ("session setup", "tree connect", "listing", "done")
REACHES = os.environ.get("SMBD_SMBCLIENT_REACHES", "done")

# smbclient's message when it fails at each stage
FAILED_AT = {
    "session setup": r"session setup failed: NT_STATUS_\w+",
    "tree connect": r"tree connect failed: NT_STATUS_\w+",
    "listing": r"NT_STATUS_\w+ listing ",
}
TRANSPORT_ERRORS = ("NT_STATUS_CONNECTION_REFUSED",
                    "NT_STATUS_CONNECTION_RESET",
                    "NT_STATUS_CONNECTION_DISCONNECTED",
                    "NT_STATUS_IO_TIMEOUT",
                    "NT_STATUS_INVALID_NETWORK_RESPONSE",
                    "NT_STATUS_END_OF_FILE",
                    "protocol negotiation failed")

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CLIENT_TIMEOUT = 30


class SmbClient:
    # a wrong password, not a test of the rate limiter
    global_options = h.no_auth_delay()

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

    def reaches(self):
        return "done" if self.smbd.samba else REACHES

    def beyond(self, stage):
        """True if smbclient is expected to get past `stage`."""
        return STAGES.index(self.reaches()) > STAGES.index(stage)

    def smbclient(self, *args, share="share", password=PASSWORD):
        cmd = ["smbclient", "//127.0.0.1/%s" % share,
               "-p", str(self.smbd.port), "-s", self.client_conf,
               "-U", "%s%%%s" % (USER, password), "-t", "10"] + list(args)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=CLIENT_TIMEOUT,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("smbclient hung for %d s" % CLIENT_TIMEOUT)
        out = r.stdout + r.stderr
        for bad in TRANSPORT_ERRORS:
            self.assertNotIn(bad, out)
        self.server_alive()
        return r.returncode, out

    def check_ls(self, *args):
        rc, out = self.smbclient("-c", "ls", *args)
        stage = self.reaches()
        if stage == "done":
            self.assertEqual(rc, 0, out)
            self.assertIn("hello.txt", out)
            self.assertRegex(out, r"blocks of size")
            return
        if rc == 0:
            self.fail("smbclient ls succeeded: set REACHES = \"done\" in "
                      "test_smbclient.py\n%s" % out)
        failed_at = next((s for s in STAGES[:-1]
                          if re.search(FAILED_AT[s], out)), None)
        if failed_at is None:
            self.fail("smbclient failed in an unexpected way\n%s" % out)
        if STAGES.index(failed_at) < STAGES.index(stage):
            self.fail("smbclient failed at %s, expected to reach %s\n%s" %
                      (failed_at, stage, out))
        if STAGES.index(failed_at) > STAGES.index(stage):
            self.fail("smbclient got further than %r (failed at %r): move "
                      "REACHES on in test_smbclient.py\n%s" %
                      (stage, failed_at, out))

    def test_ls(self):
        self.check_ls()

    def test_ls_smb2_02(self):
        self.check_ls("-m", "SMB2_02")

    def test_ls_smb3_00(self):
        self.check_ls("-m", "SMB3_00")

    def test_ls_smb3_11_signed(self):
        self.check_ls("-m", "SMB3_11", "--client-protection=sign")

    def test_put_get_mkdir_rm(self):
        # a round trip through CREATE/WRITE/READ/CLOSE and deletes
        if self.reaches() != "done":
            self.skipTest("the share does not work yet")
        src = os.path.join(self.smbd.tmp, "upload.bin")
        back = os.path.join(self.smbd.tmp, "download.bin")
        data = os.urandom(3 * 1024 * 1024 + 17)
        with open(src, "wb") as f:
            f.write(data)
        rc, out = self.smbclient("-c", "mkdir sub; put %s sub\\up.bin; "
                                 "get sub\\up.bin %s" % (src, back))
        self.assertEqual(rc, 0, out)
        with open(back, "rb") as f:
            self.assertEqual(f.read(), data)
        with open(os.path.join(self.smbd.share, "sub", "up.bin"),
                  "rb") as f:
            self.assertEqual(f.read(), data)
        rc, out = self.smbclient("-c", "rm sub\\up.bin; rmdir sub")
        self.assertEqual(rc, 0, out)
        self.assertFalse(os.path.exists(os.path.join(self.smbd.share,
                                                     "sub")))

    def test_bad_password(self):
        if not self.beyond("session setup"):
            self.skipTest("no authentication yet")
        rc, out = self.smbclient("-c", "ls", password="wrong")
        self.assertNotEqual(rc, 0, out)
        self.assertRegex(out, r"session setup failed: "
                         r"NT_STATUS_LOGON_FAILURE")

    def test_bad_share(self):
        if not self.beyond("session setup"):
            self.skipTest("no authentication yet")
        rc, out = self.smbclient("-c", "ls", share="nosuchshare")
        self.assertNotEqual(rc, 0, out)
        self.assertRegex(out, r"tree connect failed: "
                         r"NT_STATUS_BAD_NETWORK_NAME")


h.backend_variants(globals(), SmbClient)

if __name__ == "__main__":
    h.main()
