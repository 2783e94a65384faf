#!/usr/bin/python3
"""The systemd service protocol (issue 15 packaging): the daemon runs with
NOTIFY_SOCKET pointing at a datagram socket this test reads, as systemd
runs a Type=notify unit.  READY=1 comes once the workers serve (with a
STATUS= line of workers and connections), RELOADING=1 then READY=1 around
a SIGHUP, STOPPING=1 at SIGTERM; without NOTIFY_SOCKET nothing is sent.
The unit file contrib/systemd/smbd-ng.service is checked for what makes
that work (Type=notify, ExecReload sending SIGHUP to the main pid)."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

UNIT = os.path.join(h.SRCDIR, "contrib", "systemd", "smbd-ng.service.in")


class Notify(h.SmbdTestCase):

    start_server = False
    workers = 2

    def setUp(self):
        if h.is_samba():
            # Debian's Samba 4.17 smbd -F sent nothing to the socket here
            raise unittest.SkipTest("ours only")
        self.srv = self.new_server()
        self.addCleanup(self.srv.cleanup)
        self.path = os.path.join(self.srv.tmp, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.addCleanup(self.sock.close)
        self.srv.env = {"NOTIFY_SOCKET": self.path}

    def messages_until(self, key, timeout=20):
        """Datagrams until one holds KEY=...; all of them, as dicts."""
        got = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                data = self.sock.recv(4096).decode()
            except socket.timeout:
                break
            msg = dict(ln.split("=", 1) for ln in data.splitlines()
                       if "=" in ln)
            got.append(msg)
            if key in msg:
                return got
        self.fail("no %s= from the daemon within %d s: %r\n%s" %
                  (key, timeout, got, self.srv.log_tail()))

    def test_ready_reload_stop(self):
        self.srv.start()
        msgs = self.messages_until("READY")
        ready = msgs[-1]
        self.assertEqual(ready["READY"], "1")
        if not self.srv.samba:
            self.assertRegex(ready.get("STATUS", ""),
                             r"2 workers, 0 connections")
        # a client connects; a reload reports it in the new READY's STATUS
        with self.srv.connect() as c:
            c.negotiate()
            os.kill(self.srv.pid, signal.SIGHUP)
            msgs = self.messages_until("READY")
            keys = [k for m in msgs for k in m]
            self.assertIn("RELOADING", keys)
            self.assertLess(keys.index("RELOADING"), keys.index("READY"))
            if not self.srv.samba:
                self.assertRegex(msgs[-1].get("STATUS", ""),
                                 r"1 connection\b")
        os.kill(self.srv.pid, signal.SIGTERM)
        self.messages_until("STOPPING")

    def test_silent_without_notify_socket(self):
        self.srv.env = None
        self.srv.start()
        self.sock.settimeout(1.0)
        with self.assertRaises(socket.timeout):
            self.sock.recv(4096)
        self.assertTrue(self.srv.running())


class UnitFile(unittest.TestCase):

    def test_unit_is_notify_and_reloads_with_hup(self):
        with open(UNIT) as f:
            text = f.read()
        self.assertRegex(text, r"(?m)^Type=notify$")
        self.assertRegex(text, r"(?m)^ExecReload=.*kill -HUP \$MAINPID")
        self.assertRegex(text, r"(?m)^ExecStart=.* --foreground ")
        self.assertRegex(text, r"(?m)^LimitNOFILE=\d+")
        self.assertRegex(text, r"(?m)^PIDFile=")
        # hardening that still lets it switch to the users it serves
        self.assertNotRegex(text, r"(?m)^NoNewPrivileges=yes")
        self.assertNotRegex(text, r"(?m)^User=")
        self.assertRegex(text, r"(?m)^ProtectSystem=")
        self.assertTrue(re.search(r"(?m)^CapabilityBoundingSet=.*"
                                  r"CAP_SETUID", text))


class Install(unittest.TestCase):
    """`make install DESTDIR=...` from the build directory: the programs
    under their -ng names (never shadowing Samba's), a manual page for
    each program and each VFS module with options or a layout of its own,
    the unit with the installed paths, the logrotate file and the example
    smb.conf."""

    def test_make_install(self):
        build = os.environ.get("BUILDDIR")
        if not build or not os.path.exists(os.path.join(build, "Makefile")):
            raise unittest.SkipTest("no build directory (BUILDDIR)")
        dest = tempfile.mkdtemp(prefix="smbd-install-")
        self.addCleanup(shutil.rmtree, dest, True)
        r = subprocess.run(["make", "-C", build, "install", "DESTDIR=" + dest],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        files = set()
        for root, _, names in os.walk(dest):
            files |= {os.path.relpath(os.path.join(root, n), dest)
                      for n in names}
        progs = [f for f in files if re.search(r"(^|/)s?bin/", f)]
        self.assertTrue(progs, files)
        for p in progs:
            name = os.path.basename(p)
            self.assertTrue(name.endswith("-ng"), name)
            self.assertTrue(
                any(re.search(r"/man[18]/%s\.[18]$" % re.escape(name), f)
                    for f in files), "no manual page for %s" % name)
        units = [f for f in files if f.endswith("/smbd-ng.service")]
        self.assertEqual(len(units), 1, files)
        with open(os.path.join(dest, units[0])) as f:
            unit = f.read()
        self.assertNotIn("@", unit.split("[Unit]", 1)[1])
        sbin = [p for p in progs if p.endswith("/smbd-ng")]
        self.assertIn("ExecStart=/%s " % sbin[0], unit)
        self.assertTrue(any(f.endswith("logrotate.d/smbd-ng")
                            for f in files), files)
        self.assertTrue(any(f.endswith("examples/smb.conf")
                            for f in files), files)
        self.assertTrue(any(f.endswith("man5/smb.conf-ng.5")
                            for f in files), files)
        for mod in ("recycle", "shadow_copy2", "snapper"):
            self.assertTrue(any(f.endswith("man8/vfs_%s-ng.8" % mod)
                                for f in files), "no vfs_%s(8)" % mod)


if __name__ == "__main__":
    h.main()
