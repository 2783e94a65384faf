#!/usr/bin/python3
"""smbcontrol against the running daemon (issue 15 packaging): ping,
debug LEVEL reaching the workers (also Samba's "1 auth_json_audit:3"
class form), close-share disconnecting the trees of a
share in every worker, reload-config picking up a new share, shutdown
stopping the server, and refusals (an unknown message, a missing
argument, no server).  Ours only: Samba's smbcontrol talks Samba's
messaging, not this socket."""

import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

NETWORK_NAME_DELETED = 0xC00000C9


def smbcontrol_binary():
    build = os.environ.get("BUILDDIR", os.getcwd())
    return os.path.join(build, "utils", "smbcontrol")


class SmbControl(h.TestUser, h.SmbdTestCase):

    workers = 2
    global_options = [("smbd spread connections", "yes")]

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("ours only (Samba has its own)")
        super().setUpClass()

    def control(self, *args, srv=None):
        srv = srv or self.smbd
        r = subprocess.run([smbcontrol_binary(), "-s", srv.conf, "-t", "10"]
                           + list(args), capture_output=True, text=True,
                           timeout=30)
        return r.returncode, r.stdout + r.stderr

    def test_ping(self):
        self.assertEqual(self.control("smbd", "ping"),
                         (0, "PONG from smbd\n"))

    def test_refusals(self):
        rc, out = self.control("smbd", "no-such-message")
        self.assertEqual(rc, 1)
        self.assertIn("unknown message", out)
        rc, out = self.control("smbd", "close-share")
        self.assertEqual(rc, 1)
        self.assertIn("needs one argument", out)
        rc, out = self.control("smbd", "debug", "eleven")
        self.assertEqual(rc, 1)
        self.assertIn("bad debug level", out)
        # a class Samba does not have; a class file (smb.conf only)
        for bad in ("1 nosuchclass:3", "1 auth:3@/tmp/smbcontrol-file"):
            rc, out = self.control("smbd", "debug", bad)
            self.assertEqual(rc, 1, bad)
            self.assertIn("bad debug level", out)
        self.assertFalse(os.path.exists("/tmp/smbcontrol-file"))

    def test_debug_classes(self):
        # Samba's class:level form: the audit lines start
        mark = os.path.getsize(self.smbd.log)
        self.assertEqual(self.control("smbd", "debug",
                                      "1 auth_json_audit:3")[0], 0)
        try:
            conns = [self.impacket_logon() for _ in range(2)]
            for c in conns:
                c.close()
            self.assertTrue(self.smbd.wait_log(r'"type": "Authentication"',
                                               since=mark, count=2))
            with open(self.smbd.log, "rb") as f:
                f.seek(mark)
                text = f.read().decode("utf-8", "replace")
            # all at 1: no notices of other classes meanwhile
            self.assertNotRegex(text, r", 3\] worker \d+\[\d+\] conn_start")
        finally:
            self.control("smbd", "debug", "3")

    def test_debug_reaches_workers(self):
        mark = os.path.getsize(self.smbd.log)
        self.assertEqual(self.control("smbd", "debug", "10")[0], 0)
        try:
            # two connections: with spread connections, both workers
            for _ in range(2):
                with self.smbd.connect() as c:
                    c.negotiate()
            time.sleep(0.3)
            with open(self.smbd.log, "rb") as f:
                f.seek(mark)
                text = f.read().decode("utf-8", "replace")
            for i in range(self.workers):
                self.assertRegex(text, r", 10\] worker %d\[" % i)
        finally:
            self.control("smbd", "debug", "3")

    def test_close_share(self):
        from impacket.smbconnection import SessionError
        conns = [self.impacket_logon() for _ in range(2)]
        try:
            for c in conns:
                c.connectTree("share")
                c.listPath("share", "*")
            self.assertEqual(self.control("smbd", "close-share",
                                          "SHARE")[0], 0)
            time.sleep(0.3)
            for c in conns:
                with self.assertRaises(SessionError) as cm:
                    c.listPath("share", "*")
                self.assertEqual(cm.exception.getErrorCode(),
                                 NETWORK_NAME_DELETED)
        finally:
            for c in conns:
                c.close()
        # a new tree connect works again
        rc, out = self.smbclient("-c", "ls")
        self.assertEqual(rc, 0, out)

    def test_reload_config(self):
        extra = os.path.join(self.smbd.tmp, "extra")
        os.makedirs(extra, exist_ok=True)
        with open(self.smbd.conf, "a") as f:
            f.write("\n[extra]\n\tpath = %s\n" % extra)
        self.assertEqual(self.control("smbd", "reload-config")[0], 0)
        deadline = time.time() + 10
        while True:
            rc, out = self.smbclient("-c", "ls", share="extra")
            if rc == 0 or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(rc, 0, out)

    def test_only_root_may_send(self):
        import pwd
        u = pwd.getpwnam(h.TEST_USER)
        r = subprocess.run(["setpriv", "--reuid=%d" % u.pw_uid,
                            "--regid=%d" % u.pw_gid, "--clear-groups",
                            smbcontrol_binary(), "-s", self.smbd.conf,
                            "-t", "5", "smbd", "shutdown"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("no smbd answers", r.stderr)
        self.assertTrue(self.smbd.running())
        self.assertEqual(self.control("smbd", "ping")[0], 0)

    def test_shutdown(self):
        srv = self.new_server()
        self.addCleanup(srv.cleanup)
        srv.start()
        self.assertEqual(self.control("smbd", "shutdown", srv=srv)[0], 0)
        srv.proc.wait(timeout=20)
        self.assertFalse(srv.running())
        rc, out = self.control("smbd", "ping", srv=srv)
        self.assertEqual(rc, 1)
        self.assertIn("no smbd answers", out)


if __name__ == "__main__":
    h.main()
