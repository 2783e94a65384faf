#!/usr/bin/python3
"""Resource limits against a hostile client (issue 14 items 5, 6, 7, 10).

- out of descriptors (item 7): a server with RLIMIT_NOFILE 64 and 150
  connections that never send anything: the worker does not spin on the
  accept that keeps failing with EMFILE (its CPU time over 2 s stays
  small), and once the connections go a normal client is served again;
  one session holds at most 256 tree connects (INSUFFICIENT_RESOURCES).
"""

import os
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a process, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


class OutOfFds:
    workers = 1

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba forks a process per client")
        super().setUpClass()

    @classmethod
    def new_server(cls, global_options=None, share_options=None, **kw):
        srv = super().new_server(global_options, share_options, **kw)
        srv.nofile = 64
        return srv

    def test_emfile_no_spin(self):
        kids = h.child_pids(self.smbd.pid)
        self.assertEqual(len(kids), 1)
        worker = kids[0]
        socks = []
        try:
            for _ in range(150):
                s = socket.create_connection(("127.0.0.1", self.smbd.port),
                                             timeout=5)
                socks.append(s)
            time.sleep(0.5)
            c0 = cpu_seconds(worker)
            time.sleep(2.0)
            used = cpu_seconds(worker) - c0
            self.assertLess(used, 0.5, "the worker spun: %.2f s of CPU in "
                            "2 s while out of fds" % used)
        finally:
            for s in socks:
                s.close()
        # fds are free again: a normal client is served
        ok = h.wait_until(self._negotiates, 10)
        self.assertTrue(ok, "no service after the flood\n" +
                        self.smbd.log_tail())
        self.assertTrue(self.smbd.wait_log(r"not accepting for a while", 1))

    def _negotiates(self):
        try:
            with self.smbd.connect(timeout=2) as c:
                return c.negotiate()["status"] == h.STATUS_SUCCESS
        except Exception:
            return False


class TreeCap(h.TestUser):
    """Tree connects per session are capped (item 7): each holds the
    share's directory open."""

    def test_tcon_cap(self):
        if h.is_samba():
            self.skipTest("Samba allows more tree connects per session")
        c = self.impacket_logon()
        try:
            n = 0
            status = 0
            smb = c.getSMBServer()
            for _ in range(300):
                # impacket reuses a tree connect by share name: forget
                # the name so each call sends a TREE_CONNECT
                for k in [k for k in smb._Session["TreeConnectTable"]
                          if isinstance(k, str)]:
                    del smb._Session["TreeConnectTable"][k]
                try:
                    c.connectTree("share")
                    n += 1
                except Exception as e:
                    status = e.getErrorCode()
                    break
            self.assertEqual(n, 256)
            self.assertEqual(status, 0xC000009A)
            # another session still connects
            d = self.impacket_logon()
            d.connectTree("share")
            d.close()
        finally:
            c.close()


h.backend_variants(globals(), OutOfFds)
h.backend_variants(globals(), TreeCap)

if __name__ == "__main__":
    h.main()
