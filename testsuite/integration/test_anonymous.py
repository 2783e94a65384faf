#!/usr/bin/python3
"""Anonymous sessions and `restrict anonymous` (issue 14 item 10), with the
answers Samba 4.17 gives (SMBD=/usr/sbin/smbd passes too): with 0 an
anonymous rpcclient lists shares at level 2 (paths included, as Samba);
with 1 NetShareEnumAll (every level) and NetServerGetInfo are
WERR_ACCESS_DENIED while NetShareGetInfo of a named share answers; with 2
the IPC$ tree connect is refused (a guest-ok share is not).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

TIMEOUT = 30


class Anonymous:
    restrict = 0
    share_options = ["guest ok = yes"]

    @classmethod
    def setUpClass(cls):
        cls.global_options = ["restrict anonymous = %d" % cls.restrict,
                              "map to guest = bad user"]
        super().setUpClass()
        cls.client_conf = os.path.join(cls.smbd.tmp, "client.conf")
        with open(cls.client_conf, "w") as f:
            f.write("[global]\n")

    def rpc(self, command):
        try:
            r = subprocess.run(
                ["rpcclient", "127.0.0.1", "-p", str(self.smbd.port),
                 "-s", self.client_conf, "-U%", "-c", command],
                capture_output=True, text=True, timeout=TIMEOUT,
                stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("rpcclient hung")
        return r.returncode, r.stdout + r.stderr

    def smbclient_ls(self):
        r = subprocess.run(
            ["smbclient", "//127.0.0.1/share", "-p", str(self.smbd.port),
             "-s", self.client_conf, "-U%", "-c", "ls"],
            capture_output=True, text=True, timeout=TIMEOUT,
            stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr


class Open(Anonymous):
    restrict = 0

    def test_enum_level2(self):
        rc, out = self.rpc("netshareenumall 2")
        self.assertEqual(rc, 0, out)
        self.assertIn("path:", out)


class NoEnum(Anonymous):
    restrict = 1

    def test_enum_refused(self):
        for level in (0, 1, 2, 502):
            rc, out = self.rpc("netshareenumall %d" % level)
            self.assertNotEqual(rc, 0, out)
            self.assertIn("WERR_ACCESS_DENIED", out)
            self.assertNotIn("path:", out)
        rc, out = self.rpc("srvinfo")
        self.assertIn("WERR_ACCESS_DENIED", out)
        rc, out = self.rpc("netsharegetinfo share 1")
        self.assertEqual(rc, 0, out)


class NoIpc(Anonymous):
    restrict = 2

    def test_ipc_refused(self):
        rc, out = self.rpc("netshareenumall 1")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("NT_STATUS_ACCESS_DENIED", out)
        rc, out = self.smbclient_ls()
        self.assertEqual(rc, 0, out)


h.backend_variants(globals(), Open, backends=("io_uring",))
h.backend_variants(globals(), NoEnum, backends=("io_uring",))
h.backend_variants(globals(), NoIpc)

if __name__ == "__main__":
    h.main()
