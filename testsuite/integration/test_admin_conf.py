#!/usr/bin/python3
"""One admin-style smb.conf, run on Samba 4.17 and on ours in the same
test, compared item by item: what smbclient sees and what lands on disk
(issue 15 "Must show", items 2-4 and 8).

The config has a project share with masks and `force user`/`force group`,
a share with create/directory masks and force modes, one that keeps DOS
attributes in the mode bits (`store dos attributes = no`), a drop box
(`inherit permissions` under a -wx directory), a guest share (the `guest
account` owns what anonymous users write), `force group = +group` for a
member and for a non-member, veto/hide files, a global `hosts deny`
(items 5: a denied source address is refused at accept) and a `username
map` (item 6: a mapped name logs on as the Unix account it maps to).  The
same smbclient script runs against both servers; every file it makes is
stat()ed.  The
figures Samba gave on 2026-12-04 are kept below too, so the test still
checks something where Samba's smbd is not installed (it then says so).
"""

import grp
import os
import pwd
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

SAMBA = "/usr/sbin/smbd"
SVC_USER = "smbtsvc"        # force user
GUEST_USER = "smbtguest"    # guest account
FORCE_GROUP = "smbtgrp"     # force group, TEST_USER is not a member
MEMBER_GROUP = "smbtmember"  # TEST_USER is a member
MAPPED_NAME = "Project.Lead"  # username map: logs on as TEST_USER

SHARES = {
    "proj": ["create mask = 0660", "directory mask = 2770",
             "force user = %s" % SVC_USER,
             "force group = %s" % FORCE_GROUP],
    "masks": ["create mask = 0640", "force create mode = 0004",
              "directory mask = 0750", "force directory mode = 0005",
              "map hidden = yes", "map system = yes"],
    "nodos": ["store dos attributes = no", "map hidden = yes",
              "create mask = 0777"],
    "drop": ["inherit permissions = yes"],
    "pub": ["guest ok = yes"],
    "nonmember": ["force group = +%s" % FORCE_GROUP],
    "member": ["force group = +%s" % MEMBER_GROUP],
    "veto": ["veto files = /*.tmp/", "hide files = /*.bak/"],
    "mapped": [],
}
# directory modes set before the server starts (drop: write and search
# for others, no listing)
DIR_MODES = {"drop": 0o2753}

# (share, name) -> (mode, owner, group); "@user"/"@group" stand for the
# test user and its primary group, "@root" for the share directory's group
SAMBA_4_17 = {
    ("proj", "f"): (0o100660, SVC_USER, FORCE_GROUP),
    ("proj", "d"): (0o40770, SVC_USER, FORCE_GROUP),
    ("proj", "h"): (0o100660, SVC_USER, FORCE_GROUP),
    ("masks", "f"): (0o100644, "@user", "@group"),
    ("masks", "d"): (0o40755, "@user", "@group"),
    ("masks", "h"): (0o100644, "@user", "@group"),
    ("masks", "r"): (0o100644, "@user", "@group"),
    ("nodos", "f"): (0o100766, "@user", "@group"),
    ("nodos", "d"): (0o40755, "@user", "@group"),
    ("nodos", "h"): (0o100767, "@user", "@group"),
    ("nodos", "s"): (0o100766, "@user", "@group"),
    ("nodos", "r"): (0o100544, "@user", "@group"),
    ("drop", "f"): (0o100742, "@user", "@root"),
    ("drop", "d"): (0o42753, "@user", "@root"),
    ("pub", "f"): (0o100744, GUEST_USER, GUEST_USER),
    ("pub", "d"): (0o40755, GUEST_USER, GUEST_USER),
    ("nonmember", "f"): (0o100744, "@user", "@group"),
    ("member", "f"): (0o100744, "@user", MEMBER_GROUP),
    ("member", "d"): (0o40755, "@user", MEMBER_GROUP),
    ("veto", "f"): (0o100744, "@user", "@group"),
    ("mapped", "f"): (0o100744, "@user", "@group"),
}

# what each share's script does, in smbclient commands
SCRIPTS = {
    "proj": ["put src f", "mkdir d", "put src h", "setmode h +h"],
    "masks": ["put src f", "mkdir d", "put src h", "setmode h +h",
              "put src r", "setmode r +r"],
    "nodos": ["put src f", "mkdir d", "put src h", "setmode h +h",
              "put src s", "setmode s +s", "put src r", "setmode r +r"],
    "drop": ["put src f", "mkdir d"],
    "pub": ["put src f", "mkdir d"],
    "nonmember": ["put src f"],
    "member": ["put src f", "mkdir d"],
    "veto": ["put src f", "put src x.tmp", "put src old.bak", "ls"],
    "mapped": ["put src f"],
}


def run(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True,
                          timeout=30)


def ensure_accounts():
    for g in (FORCE_GROUP, MEMBER_GROUP):
        if run("getent", "group", g).returncode != 0:
            subprocess.run(["groupadd", g], check=True, timeout=30,
                           capture_output=True)
    for u in (SVC_USER, GUEST_USER):
        if run("getent", "passwd", u).returncode != 0:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", u],
                           check=True, timeout=30, capture_output=True)


class Server:
    """One server with the admin config, its script run, its results."""

    def __init__(self, binary):
        self.srv = h.Smbd(binary=binary,
                          global_options=["guest account = %s" % GUEST_USER,
                                          "map to guest = bad user",
                                          "hosts deny = 127.0.0.2"])
        usermap = os.path.join(self.srv.tmp, "users.map")
        with open(usermap, "w") as f:
            f.write("# Unix name = client names\n%s = %s\n" %
                    (h.TEST_USER, MAPPED_NAME))
        self.srv.global_options = list(self.srv.global_options) + [
            "username map = %s" % usermap]
        self.samba = self.srv.samba
        text = self.srv.conf_text()
        for name, opts in SHARES.items():
            d = os.path.join(self.srv.tmp, name)
            os.mkdir(d)
            os.chmod(d, DIR_MODES.get(name, 0o777))
            text += "\n[%s]\n\tpath = %s\n\tread only = no\n" % (name, d)
            text += "".join("\t%s\n" % o for o in opts)
        with open(self.srv.conf, "w") as f:
            f.write(text)
        h.create_user(self.srv.conf, h.TEST_USER, h.TEST_PASSWORD)
        subprocess.run(["usermod", "-a", "-G", MEMBER_GROUP, h.TEST_USER],
                       check=True, timeout=30, capture_output=True)
        self.srv.start()
        with open(os.path.join(self.srv.tmp, "src"), "w") as f:
            f.write("data\n")

    def smbclient(self, share, command):
        anon = share == "pub"
        user = MAPPED_NAME if share == "mapped" else h.TEST_USER
        auth = ["-N"] if anon else [
            "-U", "%s%%%s" % (user, h.TEST_PASSWORD)]
        r = subprocess.run(
            ["smbclient", "//127.0.0.1/%s" % share, "-p",
             str(self.srv.port), "-m", "SMB3", "-t", "20"] + auth +
            ["-c", command], capture_output=True, text=True, timeout=30,
            cwd=self.srv.tmp, stdin=subprocess.DEVNULL)
        out = r.stdout + r.stderr
        return [ln.strip() for ln in out.splitlines()
                if "NT_STATUS" in ln or "failed" in ln]

    def listing(self, share):
        """Names and attribute letters `ls` shows (no sizes, dates)."""
        r = subprocess.run(
            ["smbclient", "//127.0.0.1/%s" % share, "-p",
             str(self.srv.port), "-m", "SMB3", "-t", "20",
             "-U", "%s%%%s" % (h.TEST_USER, h.TEST_PASSWORD),
             "-c", "ls"], capture_output=True, text=True, timeout=30,
            stdin=subprocess.DEVNULL)
        rows = set()
        for ln in r.stdout.splitlines():
            parts = ln.split()
            if len(parts) >= 3 and parts[0] not in (".", "..") and \
                    ln.startswith("  "):
                attrs = parts[1] if not parts[1].isdigit() else ""
                rows.add((parts[0], attrs))
        return rows

    def from_address(self, src):
        """What a client at src gets: an SMB2 answer ("in") or not."""
        s = socket.socket()
        s.settimeout(10)
        try:
            s.bind((src, 0))
            s.connect(("127.0.0.1", self.srv.port))
            s.sendall(h.netbios(h.negotiate_request()))
            hdr = s.recv(8)
            return "in" if hdr[4:8] == b"\xfeSMB" else "refused"
        except OSError:
            return "refused"
        finally:
            s.close()

    def results(self):
        seen, disk, shown = {}, {}, {}
        seen["hosts"] = [self.from_address(a)
                         for a in ("127.0.0.1", "127.0.0.2")]
        for share, cmds in SCRIPTS.items():
            seen[share] = [self.smbclient(share, c) for c in cmds]
        user = pwd.getpwnam(h.TEST_USER)
        names = {"@user": user.pw_name,
                 "@group": grp.getgrgid(user.pw_gid).gr_name}
        for share in SCRIPTS:
            d = os.path.join(self.srv.tmp, share)
            names["@root"] = grp.getgrgid(os.stat(d).st_gid).gr_name
            for e in sorted(os.listdir(d)):
                st = os.stat(os.path.join(d, e))
                disk[(share, e)] = (st.st_mode,
                                    pwd.getpwuid(st.st_uid).pw_name,
                                    grp.getgrgid(st.st_gid).gr_name)
            shown[share] = self.listing(share)
        return seen, disk, shown, names

    def close(self):
        self.srv.cleanup()


class AdminConf(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root for users and groups")
        ensure_accounts()

    def run_server(self, binary):
        s = Server(binary)
        try:
            return s.results()
        finally:
            s.close()

    def expected(self, names):
        return {k: (m, names.get(u, u), names.get(g, g))
                for k, (m, u, g) in SAMBA_4_17.items()}

    def test_same_as_samba(self):
        ours = self.run_server(h.smbd_binary())
        o_seen, o_disk, o_shown, names = ours
        # the kept figures of Samba 4.17
        for key, want in self.expected(names).items():
            self.assertIn(key, o_disk, "%s/%s was not created" % key)
            got = o_disk[key]
            self.assertEqual(
                (oct(got[0]), got[1], got[2]),
                (oct(want[0]), want[1], want[2]), "%s/%s" % key)
        # hosts deny at accept; the mapped name wrote as TEST_USER
        self.assertEqual(o_seen["hosts"], ["in", "refused"])
        self.assertEqual(o_seen["mapped"], [[]])
        # vetoed names are not created, hidden ones listed as H
        self.assertNotIn(("veto", "x.tmp"), o_disk)
        self.assertIn(("old.bak", "AH"), o_shown["veto"])
        if h.is_samba(h.smbd_binary()) or not os.access(SAMBA, os.X_OK):
            if not os.access(SAMBA, os.X_OK):
                print("\n(Samba's smbd is not installed: compared with "
                      "the kept Samba 4.17 figures only)", file=sys.stderr)
            return
        s_seen, s_disk, s_shown, _ = self.run_server(SAMBA)
        self.assertEqual(o_seen["hosts"], s_seen["hosts"])
        for share in SCRIPTS:
            for cmd, a, b in zip(SCRIPTS[share], o_seen[share],
                                 s_seen[share]):
                self.assertEqual(a, b, "[%s] %s: ours %r, Samba %r" %
                                 (share, cmd, a, b))
            self.assertEqual(o_shown[share], s_shown[share],
                             "[%s] ls differs" % share)
        self.assertEqual(
            {k: (oct(v[0]),) + v[1:] for k, v in o_disk.items()},
            {k: (oct(v[0]),) + v[1:] for k, v in s_disk.items()})


class Startup(unittest.TestCase):
    """Item 8: overlapping `interfaces` entries are one address, and an
    error that stops the daemon reaches stderr, not only the log file."""

    def test_overlapping_interfaces(self):
        srv = h.Smbd(global_options=[("interfaces", "lo 127.0.0.1/8")])
        self.addCleanup(srv.cleanup)
        srv.start()
        with srv.connect() as c:
            self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)

    def test_fatal_error_on_stderr(self):
        if h.is_samba():
            # Samba 4.17 writes it to its log file only: ours does better
            raise unittest.SkipTest("Samba logs start-up errors only")
        srv = h.Smbd()
        self.addCleanup(srv.cleanup)
        srv.start()
        # a second daemon on the same port, logging to a file as a
        # packaged smbd does: it must say why it stops on stderr
        log = os.path.join(srv.tmp, "second.log")
        with open(srv.conf, "a") as f:
            f.write("[global]\n\tlog file = %s\n" % log)
        r = subprocess.run([srv.binary, "-F", "-s", srv.conf] +
                           (["--no-process-group"] if srv.samba else []),
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"(?i)address already in use")


if __name__ == "__main__":
    h.main()
