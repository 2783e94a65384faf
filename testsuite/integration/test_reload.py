#!/usr/bin/python3
"""Reload under load: while SIGHUP is sent to the master every 0.05 s (smb.conf
re-read, workers told to reload), clients keep logging on (impacket NTLMSSP,
and smbclient with SMB 3.1.1) and copying files in and out.  Every logon
must succeed and every byte come back as written: a reload must not change
what an established or a new session sees (issue 14; issue 15 item 1 is the
NTLMSSP target-info pointer a reload used to leave dangling).  Under the
asan build (testsuite/run-tests.sh step asan) a use-after-free here is a
report even when the restarted worker lets the client carry on.
"""

import io
import itertools
import os
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

ROUNDS = 30


class Reload(h.TestUser):

    workers = 2
    # Every string the NTLMSSP server reads from smb.conf set explicitly
    # (a default lives outside the parsed file and survives a reload),
    # and several shares, so the reload frees and reallocates them.
    global_options = [("workgroup", "RELOADGRP"),
                      ("netbios name", "RELOADSRV"),
                      ("realm", "reload.example"),
                      ("guest account", "nobody"),
                      ("map to guest", "bad user"),
                      ("ntlm auth", "ntlmv2-only")]
    share_options = ["comment = the test share"] + [
        "\n[extra%d]\n\tpath = /tmp\n\tcomment = extra share %d" % (i, i)
        for i in range(8)]

    def hup_loop(self, stop, sent):
        pid = self.smbd.pid
        try:
            while not stop.wait(0.05):
                os.kill(pid, signal.SIGHUP)
                sent[0] += 1
        except OSError as e:
            sent.append(e)

    def test_logons_and_copies_while_reloading(self):
        stop = threading.Event()
        sent = [0]
        hup = threading.Thread(target=self.hup_loop, args=(stop, sent),
                               daemon=True)
        hup.start()
        try:
            # At least ROUNDS rounds, and on until more than ROUNDS
            # reloads have been sent: a fast machine finishes the rounds
            # in under ROUNDS * 50 ms, and the reloads must overlap them.
            for i in itertools.count():
                if i >= ROUNDS and (sent[0] > ROUNDS or i >= 20 * ROUNDS):
                    break
                data = os.urandom(200000 + i)
                name = "reload_%d.bin" % i
                conn = self.impacket_logon()
                try:
                    conn.putFile("share", name, io.BytesIO(data).read)
                    out = io.BytesIO()
                    conn.getFile("share", name, out.write)
                    self.assertEqual(out.getvalue(), data, name)
                    conn.logoff()
                finally:
                    conn.close()
                with open(os.path.join(self.smbd.share, name), "rb") as f:
                    self.assertEqual(f.read(), data, name)
                # a fresh logon of another client (3.1.1, signing) reads it
                local = os.path.join(self.smbd.tmp, "got_%d" % i)
                rc, out = self.smbclient("-m", "SMB3",
                                         "-c", "get %s %s" % (name, local))
                self.assertEqual(rc, 0, out)
                with open(local, "rb") as f:
                    self.assertEqual(f.read(), data, name)
        finally:
            stop.set()
            hup.join(5)
        self.assertEqual(sent[1:], [])
        self.assertGreater(sent[0], ROUNDS)
        self.assertTrue(self.smbd.running())


class ReloadShares(h.TestUser):
    """A reload renumbers the shares: an established tree keeps serving
    its own share, and a tree whose share left smb.conf is disconnected
    (NETWORK_NAME_DELETED on its next request), as Samba's close-share."""

    workers = 1

    def write_shares(self, names):
        text = self.smbd.conf_text().split("\n[share]")[0]
        text += "".join("\n[%s]\n\tpath = %s\n\tread only = no\n"
                        % (n, self.smbd.share) for n in names)
        with open(self.smbd.conf, "w") as f:
            f.write(text)

    def hup(self):
        mark = os.path.getsize(self.smbd.log)
        os.kill(self.smbd.pid, signal.SIGHUP)
        deadline = time.time() + 10
        while time.time() < deadline:
            with open(self.smbd.log, "rb") as f:
                f.seek(mark)
                if b"worker 0 reloaded" in f.read():
                    return
            time.sleep(0.05)
        self.fail("the worker did not reload:\n" + self.smbd.log_tail())

    def test_removed_share_loses_its_tree(self):
        from impacket.smbconnection import SessionError
        self.write_shares(["share", "keep", "gone"])
        self.hup()
        conn = self.impacket_logon()
        try:
            conn.connectTree("keep")
            conn.connectTree("gone")
            conn.listPath("keep", "*")
            conn.listPath("gone", "*")
            # "gone" leaves, new shares come in front of "keep"
            self.write_shares(["a1", "a2", "a3", "keep", "share"])
            self.hup()
            names = [f.get_longname() for f in conn.listPath("keep", "*")]
            self.assertIn(".", names)
            with self.assertRaises(SessionError) as cm:
                conn.listPath("gone", "*")
            self.assertEqual(cm.exception.getErrorCode(),
                             0xC00000C9)  # NETWORK_NAME_DELETED
        finally:
            conn.close()


h.backend_variants(globals(), Reload)
h.backend_variants(globals(), ReloadShares)

if __name__ == "__main__":
    h.main()
