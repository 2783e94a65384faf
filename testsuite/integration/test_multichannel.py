#!/usr/bin/python3
"""Multichannel (MS-SMB2 3.3.5.5 session binding) with a real client:
impacket's connections bound to one session by mchan.py.

With two workers and `smbd spread connections = yes` the second
connection is accepted by the other worker, so every binding crosses
workers: a connection of the same client (ClientGuid) moves to the
worker of its first connection at NEGOTIATE, one of another client at
its binding SESSION_SETUP (smbd/conn/conn_handover.c).  Data written on
one channel is read on the other; smbstatus lists both channels; a
LOGOFF on one ends the session on all; and a channel closed by the
server in the middle of a write load (ss -K, as a NIC or a path dying)
loses no acknowledged write: the client sends the unacknowledged ones
again over the channel left, and the session goes on, also when the
channel that died was the session's first.
"""

import json
import os
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import mchan  # noqa: E402

from impacket.smb3 import SessionError  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CHUNK = 64 * 1024
STATUS_USER_SESSION_DELETED = 0xC0000203
GENERIC_RW = 0x0012019f


def kill_socket(server_port, client_port):
    """Close the server's end of one connection (ss -K): the client sees
    a reset, the server a dead socket, as when a path goes."""
    r = subprocess.run(["ss", "-K", "-t", "sport", "=", ":%d" % server_port,
                        "dport", "=", ":%d" % client_port],
                       capture_output=True, text=True, timeout=10)
    return r.returncode == 0 and ":%d" % client_port in r.stdout


def smbstatus_binary():
    return os.path.join(os.path.dirname(h.smbd_binary()), "..", "utils",
                        "smbstatus")


def local_port(ch):
    return ch._NetBIOSSession.get_socket().getsockname()[1]


class _Base(h.SmbdTestCase):
    workers = 2
    global_options = {"server signing": "mandatory",
                      "smbd spread connections": "yes"}
    same_guid = True

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)

    def session(self):
        s = mchan.Session(self.smbd.port, USER, PASSWORD,
                          timeout=h.NET_TIMEOUT, same_guid=self.same_guid)
        self.addCleanup(s.close)
        return s

    def open_file(self, s, name):
        conn = s.first
        tid = conn.connectTree("share")
        fid = conn.createFile(tid, name, desiredAccess=GENERIC_RW,
                              creationDisposition=5)
        return tid, fid

    def test_write_here_read_there(self):
        s = self.session()
        ch = s.bind()
        tid, fid = self.open_file(s, "mc_rw.bin")
        data = os.urandom(3 * CHUNK + 17)
        ch.write(tid, fid, data, 0, len(data))
        back = s.channels[0].read(tid, fid, 0, len(data))
        self.assertEqual(back, data)
        s.first.closeFile(tid, fid)
        with open(os.path.join(self.smbd.share, "mc_rw.bin"), "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertTrue(self.smbd.wait_log(r"bound to session", 5))

    def test_smbstatus_lists_channels(self):
        s = self.session()
        s.bind()
        s.bind()
        out = subprocess.run([smbstatus_binary(), "-s", self.smbd.conf,
                              "--json"], capture_output=True, text=True,
                             timeout=h.NET_TIMEOUT)
        self.assertEqual(out.returncode, 0, out.stderr)
        sessions = json.loads(out.stdout)["sessions"]
        counts = sorted(len(v.get("channels", {}))
                        for v in sessions.values())
        self.assertEqual(counts[-1], 3, out.stdout)
        ports = {local_port(c) for c in s.channels}
        mine = [v for v in sessions.values()
                if len(v.get("channels", {})) == 3][0]
        seen = {int(c["remote_address"].rsplit(":", 1)[1])
                for c in mine["channels"].values()}
        self.assertEqual(seen, ports)
        text = subprocess.run([smbstatus_binary(), "-s", self.smbd.conf,
                               "-p"], capture_output=True, text=True,
                              timeout=h.NET_TIMEOUT).stdout
        self.assertIn("Channel", text)
        for p in ports:
            self.assertIn("127.0.0.1:%d" % p, text)

    def test_logoff_ends_every_channel(self):
        s = self.session()
        ch = s.bind()
        tid, fid = self.open_file(s, "mc_logoff.bin")
        ch.logoff()
        with self.assertRaises(SessionError) as e:
            s.channels[0].read(tid, fid, 0, 1)
        self.assertEqual(e.exception.get_error_code(),
                         STATUS_USER_SESSION_DELETED)

    def killed_during_writes(self, victim):
        """Writes of CHUNK bytes at their own offsets go round the two
        channels from two threads; the server closes channel victim
        halfway.  What was acknowledged is on disk; the rest goes again
        over the other channel (a client's replay) and all of it lands."""
        s = self.session()
        s.bind()
        name = "mc_kill%d.bin" % victim
        tid, fid = self.open_file(s, name)
        n = 64
        chunks = [os.urandom(CHUNK) for _ in range(n)]
        acked = set()
        lock = threading.Lock()
        half = threading.Event()

        def writer(idx):
            ch = s.channels[idx]
            for i in range(idx, n, 2):
                if i >= n // 2 and idx == victim:
                    half.wait(h.NET_TIMEOUT)
                try:
                    ch.write(tid, fid, chunks[i], i * CHUNK, CHUNK)
                except Exception:
                    return
                with lock:
                    acked.add(i)
                    if len(acked) >= n // 2:
                        half.set()

        threads = [threading.Thread(target=writer, args=(i,))
                   for i in (0, 1)]
        for t in threads:
            t.start()
        self.assertTrue(half.wait(h.NET_TIMEOUT))
        self.assertTrue(kill_socket(self.smbd.port,
                                    local_port(s.channels[victim])),
                        "ss -K found no such connection")
        for t in threads:
            t.join(h.NET_TIMEOUT)
        left = s.channels[1 - victim]
        # the session carries on over the channel left
        for i in range(n):
            if i not in acked:
                left.write(tid, fid, chunks[i], i * CHUNK, CHUNK)
        self.assertEqual(left.read(tid, fid, 0, CHUNK), chunks[0])
        left.close(tid, fid)
        with open(os.path.join(self.smbd.share, name), "rb") as f:
            self.assertEqual(f.read(), b"".join(chunks))
        if victim == 0:
            self.assertTrue(self.smbd.wait_log(r"carries on over", 5))
        self.server_alive()

    def test_bound_channel_killed_during_writes(self):
        if subprocess.run(["which", "ss"], capture_output=True).returncode:
            self.skipTest("no ss(8) to close a connection with")
        self.killed_during_writes(1)

    def test_first_channel_killed_during_writes(self):
        if subprocess.run(["which", "ss"], capture_output=True).returncode:
            self.skipTest("no ss(8) to close a connection with")
        self.killed_during_writes(0)


class SameClient(_Base):
    """Both connections carry the same ClientGuid: moved at NEGOTIATE."""


class OtherClient(_Base):
    """Different ClientGuids: moved at the binding SESSION_SETUP."""
    same_guid = False


del _Base

if __name__ == "__main__":
    h.main()
