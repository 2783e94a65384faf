#!/usr/bin/python3
"""Issue 36's scenario: a file server as a member of an Active Directory
domain, each outcome as a test.

setUpModule builds the bed once (ad_env.AdEnv: a Samba AD DC on
127.0.0.2, the member MEMBER on 127.0.0.3 joined with Samba's net ads
join, Samba's winbindd for it) and starts the member file server chosen
by SMBD (default this build's smbd; SMBD=/usr/sbin/smbd: Samba's, the
yardstick) on member.smbng.test:445 with `security = ads`.  Clients:
smbclient and smbcacls (Samba 4.17) and impacket, every call with a
time limit.

  kerberos logon   kinit alice, smbclient --use-kerberos=required: the
                   listing, and a cifs/member.smbng.test ticket in her
                   ccache
  owner            a file alice makes (Kerberos) and one bob makes
                   (NTLM) belong to the uids winbindd maps them to
                   (wbinfo --name-to-sid, --sid-to-uid), group Domain
                   Users' gid
  NTLM logon       SMBNG\\bob with his password
  [data]           valid users = @SMBNG\\staff: alice in (Kerberos and
                   NTLM), bob NT_STATUS_ACCESS_DENIED at tree connect
                   (NTLM and Kerberos)
  wrong password   NT_STATUS_LOGON_FAILURE (smbclient, impacket)
  NT ACL           smbcacls over Kerberos sets an ACL granting only
                   SMBNG\\staff on a directory, by SID (--numeric) and by
                   name (the server's lsarpc), reads it back; alice may
                   list and write there, bob gets ACCESS_DENIED
  impacket         Kerberos logon with alice's ccache (her TGT and a
                   cifs/member ticket); the uid of what she writes
  ntlm auth = disabled  on the member (a second server on port 1445):
                   Kerberos works, a local passdb account's NTLM is
                   NT_STATUS_NTLM_BLOCKED, a domain user's NTLM still
                   goes to the DC (Samba's semantics); on the DC (a
                   Kerberos-only domain, the DC restarted): bob's NTLM
                   NT_STATUS_NTLM_BLOCKED, Kerberos works

The expected statuses are what Samba 4.17's smbd answers in this bed.
When the server under test exits at start saying it does not support
security = ads (ours before issue 36), every test is skipped with that
reason and the file exits 77.

Run: testsuite/ad/run.sh (both servers) or
SMBD=/usr/sbin/smbd /usr/bin/python3 testsuite/ad/test_ad_member.py -v
(root).  SMBD_KEEP=1 keeps BASE (/tmp/ad-*) with every log.
"""

import os
import signal
import subprocess
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ad_env  # noqa: E402
from ad_env import h, DOMAIN, REALM, MEMBER_FQDN, MEMBER_IP, DC_IP  # noqa

ENV = None      # the bed (ad_env.AdEnv), shared by every test
SRV = None      # the member server (ad_env.MemberSmbd) on 445
NET_TIMEOUT = 15
NTLM_OFF_PORT = 1445
STUCK_PORT = 1446

STATUS_ACCESS_DENIED = 0xC0000022
STATUS_LOGON_FAILURE = 0xC000006D
STATUS_NTLM_BLOCKED = 0xC0000418


def setUpModule():
    global ENV, SRV
    ENV = ad_env.bed_for_tests()
    sys.stderr.write("bed: %s\n" % "  ".join(
        "%s %.1f s" % kv for kv in ENV.timings.items()))
    SRV = ad_env.member_for_tests(ENV, binary=h.smbd_binary())
    sys.stderr.write("member smbd %s up in %.2f s\n" %
                     (SRV.binary, SRV.start_seconds))


def tearDownModule():
    if SRV is not None:
        SRV.cleanup()
    if ENV is not None:
        ENV.cleanup()


def unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


class AdCase(unittest.TestCase):
    """Helpers over the module's bed."""

    srv_port = 445

    def smbclient(self, share, command, user="alice", **kw):
        kw.setdefault("port", self.srv_port)
        return ENV.smbclient(share, command, user=user, **kw)

    def assertOk(self, rc_out, what):
        rc, out = rc_out
        self.assertEqual(rc, 0, "%s: exit %d\n%s" % (what, rc, out))
        self.assertIsNone(ad_env.nt_status(out), "%s:\n%s" % (what, out))
        return out

    def assertStatus(self, rc_out, status, what):
        rc, out = rc_out
        self.assertNotEqual(rc, 0, "%s succeeded:\n%s" % (what, out))
        self.assertEqual(ad_env.nt_status(out), status,
                         "%s:\n%s" % (what, out))

    def owner(self, share, name):
        st = os.stat(os.path.join(ENV.share_path(share), name))
        return st.st_uid, st.st_gid

    def domain_users_gid(self):
        return ENV.gid_of("Domain Users")

    def impacket(self, port=None):
        from impacket.smbconnection import SMBConnection
        return SMBConnection(MEMBER_FQDN, MEMBER_IP,
                             sess_port=port or self.srv_port,
                             timeout=NET_TIMEOUT)

    def impacket_status(self, fn):
        """The NT status fn() raises (impacket SessionError), or 0."""
        from impacket.smbconnection import SessionError
        try:
            fn()
        except SessionError as e:
            return e.getErrorCode() & 0xFFFFFFFF
        return 0


class TestLogon(AdCase):

    def test_kerberos_logon(self):
        """kinit alice, then smbclient --use-kerberos=required lists
        [open]; her ccache now holds a ticket for cifs/member."""
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb-logon"))
        self.assertOk(self.smbclient("open", "ls", kerberos=True,
                                     ccache=cc), "Kerberos ls [open]")
        r = subprocess.run(["klist", "-c", cc], capture_output=True,
                           text=True, timeout=NET_TIMEOUT,
                           env=ENV.env(ccache=cc))
        self.assertIn("cifs/%s@%s" % (MEMBER_FQDN, REALM), r.stdout)

    def test_kerberos_owner_is_winbind_uid(self):
        """What alice writes over Kerberos belongs to the uid winbindd
        maps her SID to, and her primary group Domain Users."""
        name = unique("alice-krb")
        self.assertOk(self.smbclient("open", "mkdir %s" % name,
                                     kerberos=True), "Kerberos mkdir")
        sid = ENV.wbinfo("--name-to-sid",
                         "%s\\alice" % DOMAIN).stdout.split()[0]
        uid = int(ENV.wbinfo("--sid-to-uid", sid).stdout.strip())
        self.assertGreaterEqual(uid, ad_env.IDMAP_DOMAIN[0])
        self.assertEqual(self.owner("open", name),
                         (uid, self.domain_users_gid()))

    def test_ntlm_logon_bob(self):
        """NTLM logon as SMBNG\\bob (winbindd checks it with the DC);
        his directory is his uid's."""
        name = unique("bob-ntlm")
        self.assertOk(self.smbclient("open", "mkdir %s" % name, user="bob"),
                      "NTLM mkdir as bob")
        self.assertEqual(self.owner("open", name),
                         (ENV.uid_of("bob"), self.domain_users_gid()))

    def test_wrong_password(self):
        self.assertStatus(self.smbclient("open", "ls", user="bob",
                                         password="Wrong-Pass-9"),
                          "NT_STATUS_LOGON_FAILURE", "wrong password")

    def test_unknown_user(self):
        self.assertStatus(self.smbclient("open", "ls", user="carol",
                                         password="Carol-Pass-1"),
                          "NT_STATUS_LOGON_FAILURE", "unknown user")


class TestHomes(AdCase):

    def test_home_from_template_homedir(self):
        """[homes]: alice's share is the home winbindd's passwd entry
        gives her (`template homedir`), over Kerberos and NTLM."""
        home = os.path.join(ENV.member_dir, "home", "alice")
        os.makedirs(home, exist_ok=True)
        os.chown(home, ENV.uid_of("alice"), -1)
        os.chmod(home, 0o700)
        name = unique("home")
        self.assertOk(self.smbclient("alice", "mkdir %s" % name,
                                     kerberos=True), "mkdir (Kerberos)")
        self.assertTrue(os.path.isdir(os.path.join(home, name)))
        self.assertEqual(os.stat(os.path.join(home, name)).st_uid,
                         ENV.uid_of("alice"))
        out = self.assertOk(self.smbclient("alice", "ls"), "ls (NTLM)")
        self.assertIn(name, out)


class TestGroupAccess(AdCase):
    """[data]: valid users = @SMBNG\\staff; staff = {alice}."""

    def test_alice_in_kerberos(self):
        self.assertOk(self.smbclient("data", "ls", kerberos=True),
                      "alice (Kerberos) on [data]")

    def test_alice_in_ntlm(self):
        self.assertOk(self.smbclient("data", "ls"), "alice (NTLM) on [data]")

    def test_bob_denied_ntlm(self):
        self.assertStatus(self.smbclient("data", "ls", user="bob"),
                          "NT_STATUS_ACCESS_DENIED", "bob (NTLM) on [data]")

    def test_bob_denied_kerberos(self):
        self.assertStatus(self.smbclient("data", "ls", user="bob",
                                         kerberos=True),
                          "NT_STATUS_ACCESS_DENIED",
                          "bob (Kerberos) on [data]")


class TestNtAcl(AdCase):
    """An NT ACL naming the domain group, set with smbcacls over Kerberos,
    read back and honoured."""

    GRANT = "ALLOWED/OI|CI/FULL"

    def make_dir(self):
        name = unique("acl")
        self.assertOk(self.smbclient("open", "mkdir %s" % name,
                                     kerberos=True), "mkdir")
        return name

    def check_honoured(self, name):
        self.assertOk(self.smbclient("open", "ls %s\\*" % name,
                                     kerberos=True), "alice lists")
        self.assertOk(self.smbclient("open", "mkdir %s\\sub" % name,
                                     kerberos=True), "alice writes")
        self.assertStatus(self.smbclient("open", "ls %s\\*" % name,
                                         user="bob"),
                          "NT_STATUS_ACCESS_DENIED", "bob lists")
        self.assertStatus(self.smbclient("open", "ls %s\\*" % name,
                                         user="bob", kerberos=True),
                          "NT_STATUS_ACCESS_DENIED", "bob (Kerberos) lists")

    def test_staff_acl_by_sid(self):
        """--numeric: the group's SID from winbindd, no name lookups on
        the server."""
        name = self.make_dir()
        staff = ENV.sids["staff"]
        ace = "ACL:%s:%s" % (staff, self.GRANT)
        self.assertOk(ENV.smbcacls("open", name, "--numeric", "--set", ace,
                                   port=self.srv_port), "smbcacls --set")
        out = self.assertOk(ENV.smbcacls("open", name, "--numeric",
                                         port=self.srv_port),
                            "smbcacls read")
        acl = [ln for ln in out.splitlines() if ln.startswith("ACL:")]
        # --numeric: ALLOWED = 0, OI|CI = 0x3, FULL = 0x001f01ff
        self.assertEqual(acl, ["ACL:%s:0/0x3/0x001f01ff" % staff], out)
        self.check_honoured(name)

    def test_staff_acl_by_name(self):
        """Names: the server's lsarpc turns SMBNG\\staff into the SID and
        back (what Explorer's Security tab shows)."""
        name = self.make_dir()
        ace = "ACL:%s\\staff:%s" % (DOMAIN, self.GRANT)
        self.assertOk(ENV.smbcacls("open", name, "--set", ace,
                                   port=self.srv_port), "smbcacls --set")
        out = self.assertOk(ENV.smbcacls("open", name, port=self.srv_port),
                            "smbcacls read")
        acl = [ln for ln in out.splitlines() if ln.startswith("ACL:")]
        self.assertEqual(acl, ["ACL:%s\\staff:ALLOWED/OI|CI/FULL" % DOMAIN],
                         out)
        self.check_honoured(name)

    def test_owner_is_domain_account(self):
        """A directory alice made, with no stored NT ACL: its owner is
        SMBNG\\alice (the SID winbindd maps her uid to), as Samba shows."""
        name = self.make_dir()
        out = self.assertOk(ENV.smbcacls("open", name, port=self.srv_port),
                            "smbcacls read")
        self.assertRegex(out, r"(?m)^OWNER:%s\\alice$" % DOMAIN)

    def test_plain_share_acl_round_trip(self):
        """A share without stored NT ACLs: the ACL the Unix permissions
        give shows alice as SMBNG\\alice with full control; set back as
        read, she keeps it (her ACE is the owner's whichever SID names it:
        Samba keeps it in a POSIX ACL, ours in the mode's owner bits)."""
        name = unique("plain")
        self.assertOk(self.smbclient("plain", "mkdir %s" % name,
                                     kerberos=True), "mkdir")

        def alice_full(text):
            return any(ln.startswith("ACL:%s\\alice:ALLOWED/" % DOMAIN) and
                       ln.endswith("/FULL") for ln in text.splitlines())

        out = self.assertOk(ENV.smbcacls("plain", name, port=self.srv_port),
                            "smbcacls read")
        self.assertRegex(out, r"(?m)^OWNER:%s\\alice$" % DOMAIN)
        self.assertTrue(alice_full(out), out)
        acl = [ln for ln in out.splitlines() if ln.startswith("ACL:")]
        self.assertOk(ENV.smbcacls("plain", name, "--set", ",".join(acl),
                                   port=self.srv_port), "smbcacls --set")
        again = self.assertOk(ENV.smbcacls("plain", name,
                                           port=self.srv_port),
                              "smbcacls read again")
        self.assertTrue(alice_full(again),
                        "before:\n%s\nafter:\n%s" % (out, again))
        self.assertOk(self.smbclient("plain", "mkdir %s\\sub" % name,
                                     kerberos=True), "alice writes")


class TestImpacket(AdCase):

    def _write_and_owner(self, conn):
        name = unique("imp") + ".txt"
        tid = conn.connectTree("open")
        fid = conn.createFile(tid, name)
        conn.writeFile(tid, fid, b"hello")
        conn.closeFile(tid, fid)
        conn.disconnectTree(tid)
        return self.owner("open", name)

    def test_kerberos_ccache(self):
        """kerberosLogin from alice's ccache (KRB5CCNAME, useCache) holding
        her TGT and a cifs/member ticket (ad_env.service_ticket: impacket's
        own TGS-REQ does not satisfy Samba's KDC); impacket builds its own
        AP-REQ from that ticket."""
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.impacket"))
        ENV.service_ticket(cc)
        old = os.environ.get("KRB5CCNAME")
        os.environ["KRB5CCNAME"] = cc
        conn = self.impacket()
        try:
            conn.kerberosLogin("alice", "", REALM, kdcHost=DC_IP,
                               useCache=True)
            self.assertEqual(self._write_and_owner(conn)[0],
                             ENV.uid_of("alice"))
        finally:
            conn.close()
            if old is None:
                del os.environ["KRB5CCNAME"]
            else:
                os.environ["KRB5CCNAME"] = old

    def test_ntlm_wrong_password(self):
        conn = self.impacket()
        try:
            st = self.impacket_status(
                lambda: conn.login("bob", "Wrong-Pass-9", DOMAIN))
        finally:
            conn.close()
        self.assertEqual(st, STATUS_LOGON_FAILURE)

    def test_ntlm_group_access(self):
        """impacket NTLM: bob's tree connect to [data] is ACCESS_DENIED,
        alice's succeeds."""
        conn = self.impacket()
        try:
            conn.login("bob", ad_env.USERS["bob"], DOMAIN)
            st = self.impacket_status(lambda: conn.connectTree("data"))
        finally:
            conn.close()
        self.assertEqual(st, STATUS_ACCESS_DENIED)
        conn = self.impacket()
        try:
            conn.login("alice", ad_env.USERS["alice"], DOMAIN)
            conn.disconnectTree(conn.connectTree("data"))
        finally:
            conn.close()


class TestStuckWinbindd(AdCase):
    """A winbindd that stops answering holds only what waits for it.
    A tree connect to [data] (`valid users = @SMBNG\\staff`) must ask NSS
    (nss_winbind) for the group; with winbindd stopped (SIGSTOP) that
    call hangs.  Another client's work on [open] on the same server, with
    one worker (`smbd workers = 1`: the same loop for both), must go on.
    Samba's smbd runs each client in a process of its own."""

    srv_port = STUCK_PORT

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            # Its process for bob asks winbindd itself while listing
            # [open] (measured: the listing waits until winbindd is
            # back); what this checks is a loop shared between clients.
            raise unittest.SkipTest("Samba: one process per client")
        cls.srv = ad_env.member_for_tests(
            ENV, binary=h.smbd_binary(), port=STUCK_PORT,
            extra_global=[("smbd workers", "1")])
        cls.addClassCleanup(cls.srv.cleanup)

    def logged_on(self, user):
        conn = self.impacket()
        conn.login(user, ad_env.USERS[user], DOMAIN)
        return conn

    def test_other_client_goes_on(self):
        import threading
        waiting, other = self.logged_on("alice"), self.logged_on("bob")
        pid = ENV.winbindd_proc.pid
        result = {}

        def connect_data():
            result["status"] = self.impacket_status(
                lambda: waiting.connectTree("data"))

        os.kill(pid, signal.SIGSTOP)
        try:
            t = threading.Thread(target=connect_data, daemon=True)
            t.start()
            time.sleep(1)   # its tree connect is now waiting for NSS
            self.assertTrue(t.is_alive(),
                            "the tree connect did not wait for winbindd")
            t0 = time.monotonic()
            tid = other.connectTree("open")
            other.listPath("open", "*")
            other.disconnectTree(tid)
            took = time.monotonic() - t0
        finally:
            os.kill(pid, signal.SIGCONT)
        t.join(NET_TIMEOUT)
        self.assertLess(took, 3.0, "bob's [open] waited %.1f s for "
                        "alice's NSS call" % took)
        self.assertFalse(t.is_alive(), "alice's tree connect never ended")
        self.assertEqual(result.get("status"), 0,
                         "alice's [data] after winbindd came back")
        waiting.logoff()
        other.logoff()


class TestNtlmDisabled(AdCase):
    """`ntlm auth = disabled` on the member (a second server on port 1445,
    same member identity).  Samba's semantics (smb.conf(5)): it covers
    the member's own accounts, its local passdb; a domain user's NTLM is
    still forwarded to the DC, which decides (TestKerberosOnlyDomain).
    The local account is smbdtest in the member's passdb."""

    srv_port = NTLM_OFF_PORT

    @classmethod
    def setUpClass(cls):
        h.create_user(ENV.member_conf, h.TEST_USER, h.TEST_PASSWORD)
        cls.srv = ad_env.member_for_tests(
            ENV, binary=h.smbd_binary(), port=NTLM_OFF_PORT,
            extra_global=[("ntlm auth", "disabled")])
        cls.addClassCleanup(cls.srv.cleanup)

    def local_ntlm(self, port, password=h.TEST_PASSWORD):
        return ad_env._run(
            [ad_env.SMBCLIENT, "//%s/open" % MEMBER_FQDN, "-p", str(port),
             "-s", ENV.client_conf(), "--use-kerberos=off",
             "-U", "%s\\%s%%%s" % (ad_env.MEMBER_NAME, h.TEST_USER,
                                     password), "-c", "ls"],
            env=ENV.env(), check=False, timeout=ad_env.CLIENT_TIMEOUT)

    def test_kerberos_works(self):
        self.assertOk(self.smbclient("open", "ls", kerberos=True),
                      "Kerberos with ntlm auth = disabled")

    def test_local_ntlm_blocked(self):
        r = self.local_ntlm(NTLM_OFF_PORT)
        self.assertStatus((r.returncode, r.stdout + r.stderr),
                          "NT_STATUS_NTLM_BLOCKED", "local user's NTLM")
        conn = self.impacket()
        try:
            st = self.impacket_status(lambda: conn.login(
                h.TEST_USER, h.TEST_PASSWORD, ad_env.MEMBER_NAME))
        finally:
            conn.close()
        self.assertEqual(st, STATUS_NTLM_BLOCKED)

    def test_local_ntlm_allowed_by_default(self):
        """The control: the same account logs on where NTLM is allowed."""
        r = self.local_ntlm(445)
        self.assertOk((r.returncode, r.stdout + r.stderr),
                      "local user's NTLM (ntlm auth default)")

    def test_domain_ntlm_forwarded(self):
        self.assertOk(self.smbclient("open", "ls", user="bob"),
                      "bob's NTLM with the member's ntlm auth = disabled")


class TestKerberosOnlyDomain(AdCase):
    """The DC restarted with `ntlm auth = disabled` (restored after):
    the member's domain logons by NTLM fail with the DC's
    NT_STATUS_NTLM_BLOCKED, which the server passes on; Kerberos works."""

    @classmethod
    def setUpClass(cls):
        if SRV is None:
            raise unittest.SkipTest("no member server")
        cls.addClassCleanup(ENV.restart_dc)
        ENV.restart_dc([("ntlm auth", "disabled")])

    def test_domain_ntlm_blocked(self):
        self.assertStatus(self.smbclient("open", "ls", user="bob"),
                          "NT_STATUS_NTLM_BLOCKED", "bob's NTLM")
        conn = self.impacket()
        try:
            st = self.impacket_status(lambda: conn.login(
                "bob", ad_env.USERS["bob"], DOMAIN))
        finally:
            conn.close()
        self.assertEqual(st, STATUS_NTLM_BLOCKED)

    def test_kerberos_works(self):
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb-only"))
        self.assertOk(self.smbclient("open", "ls", kerberos=True,
                                     ccache=cc), "Kerberos")


class _Result(h._Result):
    """The harness's result, dumping the member servers' logs."""

    def _dump(self, test):
        for srv in (SRV, getattr(TestNtlmDisabled, "srv", None),
                    getattr(TestStuckWinbindd, "srv", None)):
            if srv is not None:
                self.stream.write("\n--- %s log %s (tail)\n%s\n" %
                                  (srv.binary, srv.log, srv.log_tail(30)))


def bed_timings():
    if ENV is not None:
        print("bed timings: %s" % ", ".join(
            "%s %.1f s" % kv for kv in ENV.timings.items()))


if __name__ == "__main__":
    # exits 77 when nothing ran but skips (the bed cannot be built, or the
    # server refuses security = ads)
    h.main(resultclass=_Result, epilogue=bed_timings)
