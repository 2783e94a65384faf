#!/usr/bin/python3
"""`obey pam restrictions` (issue 34 item 8).

Debian's smb.conf sets `obey pam restrictions = yes`: Samba then asks PAM
(service "samba", /etc/pam.d/samba) whether an account NTLM accepted may
log on (pam_acct_mgmt), and opens a PAM session for the SMB session.
Measured on Samba 4.17 with Debian's PAM stack, and what these tests
expect of both servers (SMBD=/usr/sbin/smbd runs them against Samba):

    case                                 Samba 4.17             ours
    account expired (usermod -e 1)       LOGON_FAILURE          same
    password to change (chage -d 0)      PASSWORD_MUST_CHANGE   same
    password expired and inactive        LOGON_FAILURE          same
    Unix password locked (usermod -L)    logs on (pam_unix's    same
                                         account module does
                                         not look at the lock)
    pam_access refuses the user          ACCESS_DENIED          same
    PAM session refused (pam_deny)       LOGON_FAILURE          same
    obey pam restrictions = no           all of them log on     same

The PAM items a module sees (pam_exec's environment) are Samba's too:
PAM_RHOST the client's address, PAM_TTY "samba" for the account check
and "smb/<session>" for the session, which is closed at LOGOFF.

The pam_access and session cases put a line before the content of
/etc/pam.d/samba for the length of one test (Samba reads no other
service, so there is no private file to use) and restore it; every
other case uses the system's stack as it is.  Needs root (a Unix user of
its own is created and its shadow entry changed) and Linux-PAM with
pam_unix; skipped otherwise.
"""

import fcntl
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

USER, PASSWORD = "smbdpamu", "PamTest-1"
PAM_FILE = "/etc/pam.d/samba"
LOCK_FILE = "/run/lock/smbd-ng-test-pam.lock"
PAM_MODULE_DIRS = ("/usr/lib/x86_64-linux-gnu/security",
                   "/lib/x86_64-linux-gnu/security",
                   "/usr/lib/security", "/lib/security")

STATUS_LOGON_FAILURE = 0xC000006D
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_PASSWORD_MUST_CHANGE = 0xC0000224


def pam_module(name):
    for d in PAM_MODULE_DIRS:
        if os.path.exists(os.path.join(d, name)):
            return True
    return False


def run(*cmd):
    subprocess.run(cmd, check=True, timeout=30, capture_output=True)


class PamEdit:
    """Prepend lines to /etc/pam.d/samba; the original comes back on
    exit, whatever happened (and at interpreter exit, as a last resort)."""

    def __init__(self, lines):
        self.lines = lines
        self.orig = None

    def __enter__(self):
        with open(PAM_FILE) as f:
            self.orig = f.read()
        import atexit
        atexit.register(self.restore)
        with open(PAM_FILE, "w") as f:
            f.write("# test_pam.py (smbd-ng): restored when it ends\n" +
                    self.lines + self.orig)
        return self

    def restore(self):
        if self.orig is not None:
            with open(PAM_FILE, "w") as f:
                f.write(self.orig)
            self.orig = None

    def __exit__(self, *exc):
        self.restore()


class PamCase(h.SmbdTestCase):

    global_options = [("obey pam restrictions", "yes")]

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to change a Unix account")
        if not os.path.exists(PAM_FILE) or not pam_module("pam_unix.so"):
            raise unittest.SkipTest("no Linux-PAM stack for service samba")
        # The account and /etc/pam.d/samba are the machine's: another run
        # of this file at the same time (a second checkout's make check)
        # would change them under us.  One at a time, then.
        cls.lock = open(LOCK_FILE, "w")
        cls.addClassCleanup(cls.lock.close)
        fcntl.flock(cls.lock, fcntl.LOCK_EX)
        # not a test of the rate limiter: refusals are answered at once
        cls.global_options = cls.global_options + h.no_auth_delay()
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)
        # a real Unix password, so that locking it means something
        subprocess.run(["chpasswd"], input="%s:%s\n" % (USER, PASSWORD),
                       text=True, check=True, timeout=30,
                       capture_output=True)
        cls.addClassCleanup(cls.reset_account)

    @classmethod
    def reset_account(cls):
        run("usermod", "-e", "", "-U", USER)
        run("chage", "-d", str(int(time.time() // 86400)), "-M", "99999",
            "-I", "-1", USER)

    def setUp(self):
        super().setUp()
        self.reset_account()

    def logon(self, srv=None):
        """impacket logon and logoff: 0, or the NTSTATUS refusing it."""
        from impacket.smbconnection import SMBConnection, SessionError
        srv = srv or self.smbd
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=srv.port,
                          timeout=h.NET_TIMEOUT)
        try:
            c.login(USER, PASSWORD)
        except SessionError as e:
            return e.getErrorCode()
        finally:
            try:
                c.logoff()
            except Exception:
                pass
            c.close()
        return 0

    def test_account_ok(self):
        self.assertEqual(self.logon(), 0)

    def test_expired_account(self):
        run("usermod", "-e", "1", USER)
        self.assertEqual(self.logon(), STATUS_LOGON_FAILURE)
        run("usermod", "-e", "", USER)
        self.assertEqual(self.logon(), 0)

    def test_password_must_change(self):
        run("chage", "-d", "0", USER)
        self.assertEqual(self.logon(), STATUS_PASSWORD_MUST_CHANGE)

    def test_password_expired_inactive(self):
        run("chage", "-d", "1000", "-M", "1", "-I", "1", USER)
        self.assertEqual(self.logon(), STATUS_LOGON_FAILURE)

    def test_locked_unix_password_logs_on(self):
        # NTLM checks the passdb hash; PAM's account stage (pam_unix)
        # does not look at the '!' of a locked shadow password: Samba 4.17
        # lets the user in, so do we
        run("usermod", "-L", USER)
        self.assertEqual(self.logon(), 0)

    def test_pam_access(self):
        if not pam_module("pam_access.so"):
            self.skipTest("no pam_access")
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as acc:
            acc.write("-:%s:127.0.0.1\n+:ALL:ALL\n" % USER)
            acc.flush()
            line = "account required pam_access.so accessfile=%s\n" % \
                acc.name
            with PamEdit(line):
                self.assertEqual(self.logon(), STATUS_ACCESS_DENIED)
                # another user is not refused by that rule
                self.assertEqual(self.logon_other(), 0)
        self.assertEqual(self.logon(), 0)

    def logon_other(self):
        from impacket.smbconnection import SMBConnection
        self.smbd.create_user(h.TEST_USER, h.TEST_PASSWORD)
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=h.NET_TIMEOUT)
        try:
            c.login(h.TEST_USER, h.TEST_PASSWORD)
            c.logoff()
        finally:
            c.close()
        return 0

    def test_session_refused(self):
        with PamEdit("session requisite pam_deny.so\n"):
            self.assertEqual(self.logon(), STATUS_LOGON_FAILURE)
        self.assertEqual(self.logon(), 0)

    def test_pam_items_and_session_close(self):
        if not pam_module("pam_exec.so"):
            self.skipTest("no pam_exec")
        d = tempfile.mkdtemp(prefix="smbd-pam-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        log = os.path.join(d, "items")
        script = os.path.join(d, "items.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho \"$PAM_TYPE $PAM_TTY $PAM_RHOST "
                    "$PAM_USER\" >> %s\n" % log)
        os.chmod(script, 0o755)
        with PamEdit("account optional pam_exec.so %s\n"
                     "session optional pam_exec.so %s\n" % (script, script)):
            self.assertEqual(self.logon(), 0)
            # the close runs after the LOGOFF's reply, in the pool

            def closed():
                if not os.path.exists(log):
                    return None
                with open(log) as f:
                    lines = f.read().split("\n")
                return lines if any(x.startswith("close_session")
                                    for x in lines) else None
            lines = h.wait_until(closed, 10)
        self.assertIsNotNone(lines, "no close_session")
        lines = [x.split() for x in lines if x]
        self.assertEqual([x[0] for x in lines],
                         ["account", "open_session", "close_session"])
        self.assertEqual(lines[0][1:], ["samba", "127.0.0.1", USER])
        self.assertTrue(lines[1][1].startswith("smb/"), lines)
        self.assertEqual(lines[1][1:], lines[2][1:])
        self.assertEqual(lines[1][2:], ["127.0.0.1", USER])


class PamOffCase(PamCase):
    """Samba's default: `obey pam restrictions = no` asks PAM nothing."""

    global_options = []

    def test_account_ok(self):
        self.assertEqual(self.logon(), 0)

    def test_expired_account(self):
        run("usermod", "-e", "1", USER)
        self.assertEqual(self.logon(), 0)

    def test_password_must_change(self):
        run("chage", "-d", "0", USER)
        self.assertEqual(self.logon(), 0)

    def test_password_expired_inactive(self):
        run("chage", "-d", "1000", "-M", "1", "-I", "1", USER)
        self.assertEqual(self.logon(), 0)

    def test_pam_access(self):
        self.skipTest("PAM is not asked")

    def test_session_refused(self):
        with PamEdit("session requisite pam_deny.so\n"):
            self.assertEqual(self.logon(), 0)

    def test_pam_items_and_session_close(self):
        self.skipTest("PAM is not asked")


if __name__ == "__main__":
    h.main()
