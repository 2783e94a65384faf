#!/usr/bin/python3
"""`log file = DIR/log.%m`: one file per client machine (smbd/conn/conn_log.c).

As Samba 4.17 does it (SMBD=/usr/sbin/smbd passes the same test): the
daemon's lines go to log.smbd, a connection's lines to log.<address>
until its logon names the workstation, then to log.<workstation> in
lower case (smbclient -n ALPHA and -n Beta: log.alpha, log.beta), and
the tree connect to [share] is logged in the workstation's file at
level 2.  Ours also warns once in log.smbd, at start, about each
parameter set that is accepted for compatibility only.
"""

import glob
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"


class LogPerMachine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(debug=2)
        cls.logs = os.path.join(cls.smbd.tmp, "logs")
        os.mkdir(cls.logs)
        cls.smbd.global_options = [("log file",
                                    os.path.join(cls.logs, "log.%m"))]
        cls.smbd.write_conf()
        cls.smbd.debug_stdout = False
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def smbclient(self, netbios_name):
        r = subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                            str(self.smbd.port), "-n", netbios_name, "-U",
                            "%s%%%s" % (USER, PASSWORD), "-t", "10",
                            "-c", "ls"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def read(self, name):
        with open(os.path.join(self.logs, name), errors="replace") as f:
            return f.read()

    def test_files_per_machine(self):
        self.smbclient("ALPHA")
        self.smbclient("Beta")
        path = os.path.join(self.logs, "log.beta")
        self.assertTrue(h.wait_until(
            lambda: os.path.exists(path) and "share" in self.read("log.beta"),
            5.0), sorted(glob.glob(self.logs + "/*")))
        names = sorted(os.path.basename(p)
                       for p in glob.glob(self.logs + "/log.*"))
        for want in ("log.smbd", "log.alpha", "log.beta"):
            self.assertIn(want, names)
        self.assertIn("share", self.read("log.alpha"))
        # nothing of the daemon's start in a client's file, nor the
        # other way round
        self.assertIn("started", self.read("log.smbd"))
        self.assertNotIn("started", self.read("log.alpha"))
        self.assertNotRegex(self.read("log.smbd"),
                            r"connect(ed)? to (service )?\[?share")

    @unittest.skipIf(h.is_samba(), "our warning (issue 15 item 10)")
    def test_compat_parameters_warned_at_start(self):
        # the harness's smb.conf sets `disable netbios` (no NetBIOS name
        # service here: accepted, no effect): one line at start
        text = self.read("log.smbd")
        self.assertEqual(text.count('"disable netbios" is accepted for '
                                    'compatibility and has no effect yet'),
                         1, text)


class LogClassFile(unittest.TestCase):
    """`log level = 1 auth_json_audit:3@FILE` (Samba 4.13 and later): the
    class's lines go to FILE only."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd()
        cls.json = os.path.join(cls.smbd.tmp, "auth.json")
        cls.smbd.debug = "1 auth_json_audit:3@%s" % cls.json
        cls.smbd.global_options = [("log file",
                                    os.path.join(cls.smbd.tmp, "log.%m"))]
        cls.smbd.write_conf()
        cls.smbd.debug_stdout = False
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def test_json_in_its_file(self):
        for pw in ("wrong", PASSWORD):
            subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                            str(self.smbd.port), "-U", "%s%%%s" % (USER, pw),
                            "-t", "10", "-c", "ls"], capture_output=True,
                           timeout=30, stdin=subprocess.DEVNULL)

        def events():
            try:
                with open(self.json) as f:
                    return f.read().count('"type": "Authentication"')
            except OSError:
                return 0
        self.assertTrue(h.wait_until(lambda: events() == 2, 5.0),
                        "%d events in %s" % (events(), self.json))
        for p in glob.glob(os.path.join(self.smbd.tmp, "log.*")):
            with open(p, errors="replace") as f:
                self.assertNotIn('"type": "Authentication"', f.read(), p)


if __name__ == "__main__":
    h.main()
