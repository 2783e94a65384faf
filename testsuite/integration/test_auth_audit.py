#!/usr/bin/python3
"""Authentication audit lines (`log level` classes auth_audit and
auth_json_audit, smbd/auth/auth_audit.c) as Samba 4.17 writes them.

A wrong and a right password under `log level = 1 auth_json_audit:3
auth_audit:3`: one JSON "Authentication" event per logon with exactly
Samba 4.17's keys, in its order (SAMBA_KEYS was taken from
/usr/sbin/smbd's output; SMBD=/usr/sbin/smbd runs this test against Samba
and checks the same list), eventId 4625/4624 and the status Samba
reports (WRONG_PASSWORD, though the client is told LOGON_FAILURE); the
human "Auth: [SMB2,(null)] user [...]" line for each; at level 4 also
Samba's "Authorization" event (its keys from Samba 4.17 as well) and
"Successful AuthZ:" line for the session set up.  At level 2 only
the failure is logged (Samba's levels); at `log level = 1` none.  A user
name with a quote and control characters stays inside its
JSON string and its line (ours only: Samba writes the human line raw).
"""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"

# Samba 4.17.12's "Authentication" event, keys in its order.
SAMBA_KEYS = ["timestamp", "type", "Authentication"]
SAMBA_AUTH_KEYS = [
    "version", "eventId", "logonId", "logonType", "status", "localAddress",
    "remoteAddress", "serviceDescription", "authDescription", "clientDomain",
    "clientAccount", "workstation", "becameAccount", "becameDomain",
    "becameSid", "mappedAccount", "mappedDomain", "netlogonComputer",
    "netlogonTrustAccount", "netlogonNegotiateFlags",
    "netlogonSecureChannelType", "netlogonTrustAccountSid", "passwordType",
    "duration"]
# Samba 4.17.12's "Authorization" event (level 4, after the session is set
# up), keys in its order.
SAMBA_AUTHZ_KEYS = [
    "version", "localAddress", "remoteAddress", "serviceDescription",
    "authType", "domain", "account", "sid", "sessionId", "logonServer",
    "transportProtection", "accountFlags"]


def json_events(text):
    """The JSON objects of the log, in order (Samba writes the object
    alone on its line, we after our line prefix)."""
    out = []
    for line in text.splitlines():
        i = line.find('{"timestamp"')
        if i >= 0:
            out.append(json.loads(line[i:],
                                  object_pairs_hook=lambda p: p))
    return out


def keys(pairs):
    return [k for k, _ in pairs]


def as_dict(pairs):
    return {k: as_dict(v) if isinstance(v, list) else v for k, v in pairs}


class AuditBase:
    LEVEL = "1 auth_json_audit:3 auth_audit:3"

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(debug=cls.LEVEL,
                          global_options=h.no_auth_delay())
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    def smbclient(self, password, user=USER):
        r = subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                            str(self.smbd.port), "-U",
                            "%s%%%s" % (user, password), "-t", "10",
                            "-c", "ls"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr

    def logons(self):
        since = self.smbd.log_size()
        rc, out = self.smbclient("wrong-password")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_LOGON_FAILURE", out)
        rc, out = self.smbclient(PASSWORD)
        self.assertEqual(rc, 0, out)
        return since


class AuditJson(AuditBase, unittest.TestCase):
    def test_json_keys_and_values(self):
        since = self.logons()
        self.smbd.wait_log(r'"eventId": 4624', since=since)
        ev = json_events(self.smbd.log_text()[since:])
        self.assertEqual(len(ev), 2, ev)
        for e in ev:
            self.assertEqual(keys(e), SAMBA_KEYS)
            auth = dict(e)["Authentication"]
            self.assertEqual(keys(auth), SAMBA_AUTH_KEYS)
            self.assertEqual(keys(dict(auth)["version"]),
                             ["major", "minor"])
        bad, good = as_dict(ev[0]), as_dict(ev[1])
        self.assertEqual(bad["type"], "Authentication")
        self.assertRegex(bad["timestamp"],
                         r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d{4}$")
        a, b = bad["Authentication"], good["Authentication"]
        self.assertEqual(a["version"], {"major": 1, "minor": 2})
        self.assertEqual((a["eventId"], b["eventId"]), (4625, 4624))
        self.assertEqual(a["status"], "NT_STATUS_WRONG_PASSWORD")
        self.assertEqual(b["status"], "NT_STATUS_OK")
        for x in (a, b):
            self.assertEqual(x["logonType"], 3)
            self.assertEqual(x["serviceDescription"], "SMB2")
            self.assertEqual(x["clientAccount"], USER)
            self.assertEqual(x["mappedAccount"], USER)
            self.assertEqual(x["passwordType"], "NTLMv2")
            self.assertRegex(x["remoteAddress"], r"^ipv4:127\.0\.0\.1:\d+$")
            self.assertEqual(x["localAddress"],
                             "ipv4:127.0.0.1:%d" % self.smbd.port)
            self.assertIsInstance(x["duration"], int)
        self.assertIsNone(a["becameAccount"])
        self.assertEqual(b["becameAccount"], USER)
        self.assertRegex(b["becameSid"], r"^S-1-")

    def test_human_lines(self):
        since = self.logons()
        self.smbd.wait_log(r"Auth: .*status \[NT_STATUS_OK\]", since=since)
        text = self.smbd.log_text()[since:]
        lines = re.findall(r"Auth: \[SMB2,\(null\)\] user \[[^]]*\]\\"
                           r"\[smbdtest\] at \[[^]]+\] with \[NTLMv2\] "
                           r"status \[(\w+)\] workstation \[[^]]*\] "
                           r"remote host \[ipv4:127\.0\.0\.1:\d+\] "
                           r"(became|mapped to) \[", text)
        self.assertEqual(lines, [("NT_STATUS_WRONG_PASSWORD", "mapped to"),
                                 ("NT_STATUS_OK", "became")], text)

    @unittest.skipIf(h.is_samba(), "Samba writes client names raw")
    def test_hostile_user_name(self):
        since = self.smbd.log_size()
        name = 'ev"il\tna\x01me'
        rc, out = self.smbclient("whatever", user=name)
        self.assertNotEqual(rc, 0, out)
        self.smbd.wait_log(r'"eventId": 4625', since=since)
        text = self.smbd.log_text()[since:]
        ev = [as_dict(e) for e in json_events(text)]
        self.assertEqual(len(ev), 1, text)
        self.assertEqual(ev[0]["Authentication"]["clientAccount"], name)
        self.assertEqual(ev[0]["Authentication"]["status"],
                         "NT_STATUS_NO_SUCH_USER")
        self.assertIn('\\[ev"il\\x09na\\x01me] at [', text)


class AuditFailuresOnly(AuditBase, unittest.TestCase):
    LEVEL = "1 auth_json_audit:2"

    def test_level_2_logs_failures(self):
        since = self.logons()
        self.smbd.wait_log(r'"eventId": 4625', since=since)
        # the success would come right after the failure: give it time
        self.assertFalse(self.smbd.wait_log(r'"eventId": 4624', since=since,
                                            timeout=1.0))
        ev = json_events(self.smbd.log_text()[since:])
        self.assertEqual([as_dict(e)["Authentication"]["eventId"]
                          for e in ev], [4625])
        self.assertNotIn("Auth: [SMB2", self.smbd.log_text()[since:])


class AuditAuthz(AuditBase, unittest.TestCase):
    LEVEL = "1 auth_json_audit:4 auth_audit:4"

    def test_authorization_event(self):
        since = self.logons()
        self.smbd.wait_log(r'"type": "Authorization"', since=since)
        text = self.smbd.log_text()[since:]
        ev = json_events(text)
        types = [dict(e)["type"] for e in ev]
        self.assertEqual(types, ["Authentication", "Authentication",
                                 "Authorization"], text)
        z = ev[2]
        self.assertEqual(keys(z), ["timestamp", "type", "Authorization"])
        self.assertEqual(keys(dict(z)["Authorization"]), SAMBA_AUTHZ_KEYS)
        a = as_dict(z)["Authorization"]
        self.assertEqual(a["version"], {"major": 1, "minor": 1})
        self.assertEqual(a["account"], USER)
        self.assertEqual(a["authType"], "NTLMSSP")
        self.assertEqual(a["serviceDescription"], "SMB2")
        self.assertRegex(a["sessionId"], r"^[0-9a-f]{8}(-[0-9a-f]{4}){3}"
                                         r"-[0-9a-f]{12}$")
        self.assertEqual(a["accountFlags"], "0x00000010")
        self.assertRegex(text, r"Successful AuthZ: \[SMB2,NTLMSSP\] user "
                               r"\[[^]]+\]\\\[smbdtest\] \[S-1-[-0-9]+\] at "
                               r"\[[^]]+\] Remote host \[ipv4:127\.0\.0\.1:"
                               r"\d+\] local host \[ipv4:127\.0\.0\.1:\d+\]")


class AuditUsermap(AuditBase, unittest.TestCase):
    """mappedAccount is the name after `username map` (as Samba's)."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.smbd = h.Smbd(debug=cls.LEVEL,
                          global_options=h.no_auth_delay())
        umap = os.path.join(cls.smbd.tmp, "usermap")
        with open(umap, "w") as f:
            f.write("%s = alias\n" % USER)
        cls.smbd.global_options = [("username map", umap)] + \
            h.no_auth_delay()
        cls.smbd.write_conf()
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()

    def test_mapped_account(self):
        since = self.smbd.log_size()
        rc, out = self.smbclient(PASSWORD, user="alias")
        self.assertEqual(rc, 0, out)
        self.smbd.wait_log(r'"eventId": 4624', since=since)
        ev = [as_dict(e)["Authentication"]
              for e in json_events(self.smbd.log_text()[since:])]
        self.assertEqual(len(ev), 1, ev)
        self.assertEqual((ev[0]["clientAccount"], ev[0]["mappedAccount"],
                          ev[0]["becameAccount"]), ("alias", USER, USER))


class AuditOff(AuditBase, unittest.TestCase):
    LEVEL = "1"

    def test_no_audit_lines(self):
        since = self.logons()
        text = self.smbd.log_text()[since:]
        self.assertEqual(json_events(text), [])
        self.assertNotIn("Auth: [SMB2", text)


if __name__ == "__main__":
    h.main()
