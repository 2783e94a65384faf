#!/usr/bin/python3
"""`username map` and `username map script` (issue 15 item 6).

The name a client logs on with is mapped before the passdb lookup, as in
Samba 4 standalone (measured against Samba 4.17): the mapped account's
password is the one checked and the session is that account (the owner
of the files it writes).  In the map file the last matching line wins
and a matching '!' line stops the search; names compare without case;
"@group" matches members of a Unix group.  The script gets the name as
its argument and prints the mapped name.  Everything here that checks
behaviour passes against Samba too: SMBD=/usr/sbin/smbd.
"""

import os
import pwd
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

U1, P1 = "umapu1", "UmapPw1!"
U2, P2 = "umapu2", "UmapPw2!"
GROUP, MEMBER = "umapgrp", "umapmember"

MAP = """# a comment
; another comment
%(u1)s = client1 "Client Two" @umapnosuchgroup
!%(u2)s = client3
%(u1)s = client3
this line has no equals sign
%(u2)s = @%(group)s
""" % {"u1": U1, "u2": U2, "group": GROUP}

SCRIPT = """#!/bin/sh
case "$1" in
scr1) echo %(u1)s; echo ignored-second-line ;;
"Script Two") echo %(u2)s ;;
slow) sleep %(slow)d; echo %(u1)s ;;
*) exit 0 ;;
esac
"""


def unix_user(name, groups=None):
    try:
        pwd.getpwnam(name)
        if groups:
            subprocess.run(["usermod", "-a", "-G", groups, name],
                           check=True, timeout=30, capture_output=True)
    except KeyError:
        cmd = ["useradd", "-M", "-s", "/usr/sbin/nologin"]
        if groups:
            cmd += ["-G", groups]
        subprocess.run(cmd + [name], check=True, timeout=30,
                       capture_output=True)


class MapCase(h.SmbdTestCase):

    start_server = False

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test users")
        super().setUpClass()
        subprocess.run(["groupadd", "-f", GROUP], check=True, timeout=30,
                       capture_output=True)
        unix_user(MEMBER, GROUP)

    def server(self, options):
        srv = self.new_server(global_options=h._as_pairs(options) +
                              h.no_auth_delay())
        self.addCleanup(srv.cleanup)
        srv.create_user(U1, P1)
        srv.create_user(U2, P2)
        self.client_conf = os.path.join(srv.tmp, "client.conf")
        with open(self.client_conf, "w") as f:
            f.write("[global]\n")
        return srv.start()

    def put(self, srv, user, password, name, timeout=60):
        """smbclient logs on as user and writes `name`: (rc, output,
        owner of the file on disk or None)."""
        cmd = ["smbclient", "//127.0.0.1/share", "-p", str(srv.port),
               "-s", self.client_conf, "-U", "%s%%%s" % (user, password),
               "-t", str(timeout), "-c", "put %s %s" % (srv.conf, name)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("smbclient hung for %d s" % timeout)
        path = os.path.join(srv.share, name)
        owner = None
        if os.path.exists(path):
            owner = pwd.getpwuid(os.stat(path).st_uid).pw_name
            os.unlink(path)
        return r.returncode, r.stdout + r.stderr, owner

    def assert_logs_on_as(self, srv, user, password, account):
        rc, out, owner = self.put(srv, user, password, "f.txt")
        self.assertEqual(rc, 0, "%s: %s" % (user, out))
        self.assertEqual(owner, account, "%s: %s" % (user, out))

    def assert_refused(self, srv, user, password):
        rc, out, owner = self.put(srv, user, password, "f.txt")
        self.assertNotEqual(rc, 0, "%s logged on: %s" % (user, out))
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)
        self.assertIsNone(owner)


class UsernameMap(MapCase):

    def test_map_file(self):
        path = os.path.join(h.tempfile.gettempdir(),
                            "usermap-%d.map" % os.getpid())
        self.addCleanup(lambda: os.path.exists(path) and os.unlink(path))
        with open(path, "w") as f:
            f.write(MAP)
        # with "bad user" the unmapped name used to log on as the guest
        srv = self.server(["username map = %s" % path,
                           "map to guest = bad user"])
        since = srv.log_size()
        # the mapped account's password, and the session is that account
        self.assert_logs_on_as(srv, "client1", P1, U1)
        self.assert_logs_on_as(srv, "CLIENT1", P1, U1)
        self.assert_logs_on_as(srv, "Client Two", P1, U1)
        self.assert_refused(srv, "client1", P2)
        # the '!' line that matches stops the search
        self.assert_logs_on_as(srv, "client3", P2, U2)
        self.assert_refused(srv, "client3", P1)
        # @group: members of the Unix group
        self.assert_logs_on_as(srv, MEMBER, P2, U2)
        # a name nothing maps is itself
        self.assert_logs_on_as(srv, U1, P1, U1)
        if not srv.samba:
            self.assertTrue(srv.wait_log(
                r"username map %s line 6: no '=': line ignored" %
                h.re.escape(path), since=since), srv.log_tail())

        # the last matching line wins: a final "*" maps every name
        # (read again without a reload, as Samba reads it every logon)
        with open(path, "a") as f:
            f.write("%s = *\n" % U2)
        os.utime(path, (time.time() + 5, time.time() + 5))
        self.assert_logs_on_as(srv, "client1", P2, U2)
        self.assert_refused(srv, "client1", P1)
        self.assert_logs_on_as(srv, "client3", P2, U2)
        self.assert_logs_on_as(srv, "anybody", P2, U2)


class UsernameMapScript(MapCase):

    SLOW = 20

    def script_server(self, extra=()):
        path = os.path.join(h.tempfile.gettempdir(),
                            "usermap-%d.sh" % os.getpid())
        self.addCleanup(lambda: os.path.exists(path) and os.unlink(path))
        with open(path, "w") as f:
            f.write(SCRIPT % {"u1": U1, "u2": U2, "slow": self.SLOW})
        os.chmod(path, 0o755)
        # the script decides: the map file is not read
        mapfile = os.path.join(h.tempfile.gettempdir(),
                               "usermap-%d.unused" % os.getpid())
        self.addCleanup(
            lambda: os.path.exists(mapfile) and os.unlink(mapfile))
        with open(mapfile, "w") as f:
            f.write("%s = scr1 client1\n" % U2)
        return self.server(["username map script = %s" % path,
                            "username map = %s" % mapfile,
                            "map to guest = bad user"] + list(extra))

    def test_script(self):
        srv = self.script_server()
        self.assert_logs_on_as(srv, "scr1", P1, U1)
        self.assert_refused(srv, "scr1", P2)
        self.assert_logs_on_as(srv, "Script Two", P2, U2)
        # printed nothing: not mapped (and the file is not consulted:
        # it maps client1 to U2), so client1 is an unknown user, a
        # guest with "bad user", refused by the share
        self.assert_logs_on_as(srv, U2, P2, U2)
        rc, out, owner = self.put(srv, "client1", P2, "f.txt")
        self.assertNotEqual(rc, 0, out)
        self.assertIsNone(owner)

    def test_name_is_not_shell_text(self):
        srv = self.script_server()
        mark = os.path.join(srv.tmp, "pwned")
        for name in ("x;touch %s" % mark, "x`touch %s`" % mark):
            self.put(srv, name, P1, "f.txt")
            self.assertFalse(os.path.exists(mark), name)
        if not srv.samba:
            # Samba puts the name inside double quotes of a shell
            # command, where $(...) still runs; ours is only "$1"
            self.put(srv, "x$(touch %s)" % mark, P1, "f.txt")
            self.assertFalse(os.path.exists(mark))
        # and the script did run for those names: it maps this one
        self.assert_logs_on_as(srv, "scr1", P1, U1)

    def test_slow_script_does_not_stall_the_worker(self):
        """While a logon waits for a slow script, the worker serves other
        clients (the script runs in the thread pool); ours stops waiting
        after 10 s and the name stays unmapped."""
        srv = self.script_server(["smbd workers = 1"]
                                 if not h.is_samba() else [])
        result = {}

        def slow_logon():
            t = time.monotonic()
            result["put"] = self.put(srv, "slow", P1, "slow.txt", 60)
            result["secs"] = time.monotonic() - t
        th = threading.Thread(target=slow_logon, daemon=True)
        th.start()
        time.sleep(1.5)
        t = time.monotonic()
        srv.connect().close()
        with srv.connect() as c:
            c.negotiate()
            self.assertEqual(c.echo(), h.STATUS_SUCCESS)
        self.assert_logs_on_as(srv, "scr1", P1, U1)
        self.assertLess(time.monotonic() - t, 8)
        th.join(60)
        self.assertFalse(th.is_alive())
        if not srv.samba:
            rc, out, owner = result["put"]
            # killed at 10 s: "slow" is no account, so the logon fails
            self.assertNotEqual(rc, 0, out)
            self.assertLess(result["secs"], self.SLOW - 3, out)
            self.assertTrue(srv.wait_log(r"username map script .* for "
                                         r"\[slow\]: killed after 10 s"),
                            srv.log_tail())

    def test_cache_time(self):
        """`username map cache time`: the answer is kept, so a script
        changed meanwhile is not asked again within the time.  Ours
        keeps it per worker: one worker, so both logons meet it."""
        srv = self.script_server(["username map cache time = 60"] +
                                 (["smbd workers = 1"]
                                  if not h.is_samba() else []))
        self.assert_logs_on_as(srv, "scr1", P1, U1)
        script = [l for l in open(srv.conf)
                  if "username map script" in l][0].split("=", 1)[1].strip()
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho %s\n" % U2)
        self.assert_logs_on_as(srv, "scr1", P1, U1)


if __name__ == "__main__":
    h.main()
