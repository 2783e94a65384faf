#!/usr/bin/python3
"""Live per-operation metrics (issue 20): `smbd metrics listen` and
`smbstatus --profile`.

A client does a known sequence on [share] (three files created, one
written with N bytes and read back, an open of a missing file); the
difference of two scrapes of GET /metrics, parsed with prometheus_client's
own parser, shows exactly those requests for that share and command,
with their NTSTATUS class, the data bytes and the latency histograms;
`smbstatus --profile` (text and --json) shows the same counts.  The
endpoint refuses what is not GET /metrics, drops a client that says
nothing, bounds the request size and the number of scrapers at once, and
comes back when its process dies; a bad `smbd metrics listen` is logged by name, and `smbd metrics = no`
leaves no table.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smbconnection import SMBConnection  # noqa: E402
from impacket import smb3structs as s3  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
NET_TIMEOUT = 20
N = 10000


def smbstatus_binary():
    return os.path.join(os.path.dirname(h.smbd_binary()), "..", "utils",
                        "smbstatus")


def samples(text):
    """{(sample name, frozenset of labels): value} of a scrape."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def total(smp, name, **labels):
    """The sum of name's samples whose labels include these."""
    want = set(labels.items())
    return sum(v for (n, ls), v in smp.items()
               if n == name and want <= set(ls))


class MetricsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        cls.mport = h.free_port()
        cls.smbd = h.Smbd(workers=2, global_options=[
            ("smbd metrics listen", "127.0.0.1:%d" % cls.mport)])
        cls.smbd.create_user(USER, PASSWORD)
        cls.smbd.start()
        ok = h.wait_until(lambda: cls._probe(), 10.0)
        if not ok:
            cls.smbd.cleanup()
            raise RuntimeError("no metrics endpoint:\n" +
                               cls.smbd.log_tail())

    @classmethod
    def _probe(cls):
        try:
            cls.fetch()
            return True
        except OSError:
            return False

    @classmethod
    def tearDownClass(cls):
        cls.smbd.cleanup()

    @classmethod
    def fetch(cls, path="/metrics"):
        url = "http://127.0.0.1:%d%s" % (cls.mport, path)
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200
            assert r.headers["Content-Type"].startswith(
                "text/plain; version=0.0.4")
            return r.read().decode()

    def raw(self, data, shut=True):
        """Send data, return the status code of the answer (0: none)."""
        with socket.create_connection(("127.0.0.1", self.mport), 10) as s:
            s.sendall(data)
            if shut:
                s.shutdown(socket.SHUT_WR)
            got = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
        m = re.match(rb"HTTP/1\.1 (\d+) ", got)
        return int(m.group(1)) if m else 0

    def status(self, *args):
        out = subprocess.run([smbstatus_binary(), "-s", self.smbd.conf] +
                             list(args), capture_output=True, text=True,
                             timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def operations(self, smb, tid):
        for i in range(3):
            fid = smb.create(tid, "metrics-%d.txt" % i,
                             s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                             s3.FILE_SHARE_READ, s3.FILE_NON_DIRECTORY_FILE,
                             s3.FILE_OVERWRITE_IF, 0)
            smb.close(tid, fid)
        fid = smb.create(tid, "metrics-data.bin",
                         s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                         s3.FILE_SHARE_READ, s3.FILE_NON_DIRECTORY_FILE,
                         s3.FILE_OVERWRITE_IF, 0)
        self.assertEqual(smb.write(tid, fid, b"x" * N, 0, N), N)
        self.assertEqual(len(smb.read(tid, fid, 0, N)), N)
        smb.close(tid, fid)
        with self.assertRaises(Exception) as e:
            smb.create(tid, "no-such-file.txt", s3.FILE_READ_DATA,
                       s3.FILE_SHARE_READ, s3.FILE_NON_DIRECTORY_FILE,
                       s3.FILE_OPEN, 0)
        self.assertIn("OBJECT_NAME_NOT_FOUND", str(e.exception))

    def test_counts(self):
        c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                          timeout=NET_TIMEOUT,
                          preferredDialect=s3.SMB2_DIALECT_30)
        c.login(USER, PASSWORD)
        smb = c.getSMBServer()
        tid = c.connectTree("share")
        before = samples(self.fetch())
        self.operations(smb, tid)
        after = samples(self.fetch())
        prof = self.status("--profile")
        pjson = json.loads(self.status("-P", "--json"))
        c.close()

        def delta(name, **labels):
            return total(after, name, **labels) - total(before, name,
                                                        **labels)
        want = {("CREATE", "success"): 4, ("CREATE", "error"): 1,
                ("CLOSE", "success"): 4, ("WRITE", "success"): 1,
                ("READ", "success"): 1, ("CREATE", "warning"): 0,
                ("READ", "error"): 0, ("QUERY_INFO", "success"): 0}
        for (cmd, cls), n in want.items():
            self.assertEqual(delta("smbd_share_requests_total",
                                   share="share", command=cmd, status=cls),
                             n, (cmd, cls))
            self.assertEqual(delta("smbd_requests_total", command=cmd,
                                   status=cls), n, (cmd, cls))
        self.assertEqual(delta("smbd_request_ntstatus_total",
                               command="CREATE",
                               ntstatus="NT_STATUS_OBJECT_NAME_NOT_FOUND"),
                         1)
        # the data: a WRITE request and a READ reply carry N bytes
        win = delta("smbd_share_received_bytes_total", share="share",
                    command="WRITE")
        rout = delta("smbd_share_sent_bytes_total", share="share",
                     command="READ")
        self.assertTrue(N + 64 <= win <= N + 200, win)
        self.assertTrue(N + 64 <= rout <= N + 200, rout)
        # histograms: one observation per request, cumulative buckets
        for cmd, n in (("CREATE", 5), ("CLOSE", 4), ("READ", 1)):
            self.assertEqual(delta("smbd_request_duration_seconds_count",
                                   command=cmd), n, cmd)
            buckets = sorted(
                (float(dict(ls)["le"]), v) for (nm, ls), v in after.items()
                if nm == "smbd_request_duration_seconds_bucket" and
                dict(ls)["command"] == cmd)
            self.assertEqual(buckets[-1][0], float("inf"))
            self.assertEqual(buckets[-1][1], total(
                after, "smbd_request_duration_seconds_count", command=cmd))
            self.assertEqual([v for _, v in buckets],
                             sorted(v for _, v in buckets))
            self.assertGreater(total(
                after, "smbd_request_duration_seconds_sum", command=cmd), 0)
        # the workers: connections accepted, one worker served ours
        self.assertGreaterEqual(total(
            after, "smbd_worker_accepted_connections_total"), 1)
        self.assertEqual(len({dict(ls)["worker"] for (nm, ls) in after
                              if nm == "smbd_worker_starts_total"}), 2)
        # smbstatus --profile: the same totals (nothing ran in between)
        creates = total(after, "smbd_requests_total", command="CREATE")
        self.assertRegex(prof, r"\*\*\*\* SMB2 Calls \*+")
        self.assertRegex(prof, r"(?m)^smb2_create_count:\s+%d$" % creates)
        self.assertRegex(prof, r"(?m)^smb2_create_error:\s+%d$" % total(
            after, "smbd_requests_total", command="CREATE", status="error"))
        self.assertRegex(prof, r"(?m)^share\s+CREATE\s+%d\s+%d\s+0\s+0\s+%d"
                         % (total(after, "smbd_share_requests_total",
                                  share="share", command="CREATE"),
                            total(after, "smbd_share_requests_total",
                                  share="share", command="CREATE",
                                  status="success"),
                            total(after, "smbd_share_requests_total",
                                  share="share", command="CREATE",
                                  status="error")))
        self.assertEqual(pjson["SMB2 Calls"]["smb2_create"]["count"],
                         creates)
        self.assertEqual(pjson["shares"]["share"]["WRITE"]["inbytes"],
                         total(after, "smbd_share_received_bytes_total",
                               share="share", command="WRITE"))
        self.assertEqual(len(pjson["workers"]), 2)
        self.assertRegex(prof, r"(?m)^CREATE\s+NT_STATUS_OBJECT_NAME_NOT_FOUND"
                         r"\s+%d$" % total(
                             after, "smbd_request_ntstatus_total",
                             command="CREATE",
                             ntstatus="NT_STATUS_OBJECT_NAME_NOT_FOUND"))
        self.assertEqual(pjson["SMB2 Calls"]["smb2_create"]["ntstatus"]
                         ["NT_STATUS_OBJECT_NAME_NOT_FOUND"],
                         total(after, "smbd_request_ntstatus_total",
                               command="CREATE",
                               ntstatus="NT_STATUS_OBJECT_NAME_NOT_FOUND"))

    def test_bad_requests(self):
        self.assertEqual(self.raw(b"GET /other HTTP/1.1\r\n\r\n"), 404)
        self.assertEqual(self.raw(b"POST /metrics HTTP/1.1\r\n\r\n"), 405)
        self.assertEqual(self.raw(b"GET /metrics HTTP/9\r\n\r\n"), 400)
        self.assertEqual(self.raw(b"\x00\x01\x02\r\n\r\n"), 400)
        self.assertEqual(self.raw(b"GET /metrics HTTP/1.1\r\nX: " +
                                  b"a" * 5000, shut=False), 431)
        # a request without its end, then nothing: closed, no answer
        self.assertEqual(self.raw(b"GET /metrics HTTP/1.1\r\n"), 0)
        with self.assertRaises(urllib.error.HTTPError) as e:
            self.fetch("/")
        self.assertEqual(e.exception.code, 404)

    def test_endpoint_restart(self):
        """The endpoint's process is started again when it dies."""
        m = self.smbd.wait_log(r"metrics endpoint on \S+ \(pid (\d+)\)")
        self.assertTrue(m, self.smbd.log_tail())
        pid = int(m[-1].group(1))
        time.sleep(1.1)  # one that dies within a second stays dead
        os.kill(pid, 9)
        self.assertTrue(self.smbd.wait_log(
            r"metrics endpoint \(pid %d\) died" % pid), self.smbd.log_tail())
        self.assertTrue(h.wait_until(self._probe, 5.0))
        self.assertIn("smbd_requests_total", self.fetch())

    def test_slow_and_many(self):
        idle = [socket.create_connection(("127.0.0.1", self.mport), 10)
                for _ in range(8)]
        try:
            time.sleep(0.3)
            # all slots taken: the next one is turned away
            self.assertEqual(self.raw(b"", shut=False), 503)
            # the silent ones are dropped after the time limit
            idle[0].settimeout(10)
            t0 = time.monotonic()
            self.assertEqual(idle[0].recv(10), b"")
            self.assertLess(time.monotonic() - t0, 8)
        finally:
            for s in idle:
                s.close()
        self.assertTrue(h.wait_until(self._probe, 5.0))
        self.assertIn("smbd_requests_total", self.fetch())


class MetricsConfigTests(unittest.TestCase):
    """A bad `smbd metrics listen` names itself in the log and the server
    serves on; `smbd metrics = no` makes no table."""

    def run_server(self, opts):
        s = h.Smbd(global_options=opts)
        self.addCleanup(s.cleanup)
        s.start()
        return s

    def test_bad_listen(self):
        s = self.run_server([("smbd metrics listen", "localhost:http")])
        self.assertTrue(s.wait_log(
            r'smbd metrics listen = "localhost:http": not a numeric'),
            s.log_tail())
        self.assertTrue(s.running())

    def test_off(self):
        port = h.free_port()
        s = self.run_server([("smbd metrics", "no"),
                             ("smbd metrics listen", "127.0.0.1:%d" % port)])
        self.assertTrue(s.wait_log(r"smbd metrics listen = .* no metrics "
                                   r"table"), s.log_tail())
        self.assertFalse(os.path.exists(os.path.join(s.tmp, "lock",
                                                     "smbd_metrics.dat")))
        out = subprocess.run([smbstatus_binary(), "-s", s.conf, "-P"],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn("smbd metrics = yes", out.stderr)


if __name__ == "__main__":
    h.main()
