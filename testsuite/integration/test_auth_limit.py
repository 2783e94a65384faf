#!/usr/bin/python3
"""The authentication rate limiter (issue 34, brute force; ours only:
Samba 4.17 has none, so these skip under SMBD=/usr/sbin/smbd).

A failed logon is answered `smbd auth rate limiter delay` ms late
(default 2000, as Windows Server 2025), without stopping anything else:
a good logon on another connection meanwhile is not delayed, an ECHO on
the same connection is answered at once.  The connection's next
credentials wait for that answer, so guesses pipelined on one connection
come back one delay apart.  A CANCEL of the held request changes
nothing (the answer still comes late), a disconnect is clean.  Past
`smbd auth rate limiter budget` recent failures from one address, its
logons take turns, one per delay, over all its connections; another
address is not held up.  delay 0 turns it off.

The client here is raw SMB2 (3.0.2) with impacket's NTLMSSP/SPNEGO
pieces, so that several logons can be in flight on one connection.
"""

import os
import socket
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

SESSION_SETUP, CANCEL, ECHO = 0x0001, 0x000C, 0x000D
STATUS_MORE_PROCESSING_REQUIRED = 0xC0000016
STATUS_LOGON_FAILURE = 0xC000006D


class Guesser(h.RawConn):
    """One connection; logons as two legs that may be interleaved."""

    def __init__(self, port, source="127.0.0.1"):
        self.timeout = h.NET_TIMEOUT
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             timeout=self.timeout,
                                             source_address=(source, 0))
        self.sock.settimeout(self.timeout)
        self.next_mid = 0
        self.early = {}     # replies read while waiting for another
        r = self.negotiate((h.DIALECT_302,))
        if r["status"] != 0:
            raise AssertionError("negotiate: %#x" % r["status"])
        # The legs of a logon grant back only what they cost (as Windows
        # and Samba: MS-SMB2 3.3.1.2 leaves it to the server), so a client
        # that pipelines while a logon is held asks for a window first.
        mid = self.mid()
        self.send(h.smb2_header(h.SMB2_ECHO, mid, credits=64) +
                  struct.pack("<HH", 4, 0))
        self.reply(mid)

    def _send_setup(self, sid, token):
        mid = self.mid()
        body = struct.pack("<HBBIIHHQ", 25, 0, 1, 0, 0, 64 + 24,
                           len(token), 0) + token
        self.send(h.smb2_header(SESSION_SETUP, mid, credit_charge=1,
                                credits=64, session_id=sid) + body)
        return mid

    def reply(self, mid):
        """The reply to mid: (status, session id, body), in whatever order
        replies come."""
        while mid not in self.early:
            raw = self.recv()
            r = h.Smb2Response(raw)
            if r.status == 0x103:       # an interim reply: not the answer
                continue
            self.early[r.message_id] = (r.status,
                                        struct.unpack_from("<Q", raw, 40)[0],
                                        raw)
        return self.early.pop(mid)

    def begin(self):
        """The NEGOTIATE leg: a new session with its challenge."""
        from impacket import ntlm
        from impacket.spnego import SPNEGO_NegTokenInit, TypesMech
        auth = ntlm.getNTLMSSPType1("", "", True)
        blob = SPNEGO_NegTokenInit()
        blob["MechTypes"] = [TypesMech["NTLMSSP - Microsoft NTLM Security "
                                       "Support Provider"]]
        blob["MechToken"] = auth.getData()
        status, sid, raw = self.reply(self._send_setup(0, blob.getData()))
        if status != STATUS_MORE_PROCESSING_REQUIRED:
            raise AssertionError("negotiate leg: %#x" % status)
        off, ln = struct.unpack_from("<HH", raw, 64 + 4)
        return sid, auth, raw[off:off + ln]

    def send_auth(self, leg, password, user=h.TEST_USER):
        """The AUTHENTICATE leg, not waiting for its reply: its mid."""
        from impacket import ntlm
        from impacket.spnego import SPNEGO_NegTokenResp
        sid, auth, out = leg
        type3, _ = ntlm.getNTLMSSPType3(
            auth, SPNEGO_NegTokenResp(out)["ResponseToken"], user,
            password, "", "", "")
        tok = SPNEGO_NegTokenResp()
        tok["ResponseToken"] = type3.getData()
        return self._send_setup(sid, tok.getData())

    def logon(self, password):
        """A whole logon: (status, seconds the AUTHENTICATE leg took)."""
        leg = self.begin()
        t = time.monotonic()
        status = self.reply(self.send_auth(leg, password))[0]
        return status, time.monotonic() - t

    def echo_now(self):
        mid = self.mid()
        self.send(h.echo_request(mid))
        return self.reply(mid)[0]

    def cancel(self, mid):
        self.send(h.smb2_header(CANCEL, mid) + struct.pack("<HH", 4, 0))


class LimiterCase(h.TestUser, h.SmbdTestCase):
    """A server with a short delay (fast tests) and a budget no test of
    this class reaches."""

    # long enough that a loaded machine's own slowness stays well below
    # the delays the tests tell apart
    DELAY = 1.5
    global_options = [("smbd auth rate limiter delay", "1500"),
                      ("smbd auth rate limiter budget", "1000")]

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba has no rate limiter")
        super().setUpClass()

    def guesser(self, srv=None, source="127.0.0.1"):
        g = Guesser((srv or self.smbd).port, source)
        self.addCleanup(g.close)
        return g

    def test_failure_answered_late_others_not(self):
        g = self.guesser()
        leg = g.begin()
        t0 = time.monotonic()
        mid = g.send_auth(leg, "wrong")
        # meanwhile: a good logon on another connection, and an ECHO on
        # this one, both answered at once
        status, took = self.guesser().logon(h.TEST_PASSWORD)
        self.assertEqual(status, 0)
        self.assertLess(took, self.DELAY / 2)
        self.assertEqual(g.echo_now(), 0)
        self.assertLess(time.monotonic() - t0, self.DELAY / 2)
        status = g.reply(mid)[0]
        took = time.monotonic() - t0
        self.assertEqual(status, STATUS_LOGON_FAILURE)
        self.assertGreaterEqual(took, self.DELAY * 0.9)
        self.assertLess(took, self.DELAY + 1.0)
        # the delay is over: a good logon on the same connection is quick
        status, took = g.logon(h.TEST_PASSWORD)
        self.assertEqual(status, 0)
        self.assertLess(took, self.DELAY / 2)

    def test_pipelined_guesses_one_delay_apart(self):
        # three sessions in progress on one connection, their guesses
        # sent back to back: the answers come one delay apart, and a good
        # password behind them waits its turn too
        g = self.guesser()
        legs = [g.begin() for _ in range(4)]
        t0 = time.monotonic()
        mids = [g.send_auth(legs[0], "wrong1"), g.send_auth(legs[1], "wrong2"),
                g.send_auth(legs[2], "wrong3"),
                g.send_auth(legs[3], h.TEST_PASSWORD)]
        times = []
        for i, mid in enumerate(mids):
            status = g.reply(mid)[0]
            times.append(time.monotonic() - t0)
            self.assertEqual(status, STATUS_LOGON_FAILURE if i < 3 else 0)
        for i in range(3):
            self.assertGreaterEqual(times[i], (i + 1) * self.DELAY * 0.9,
                                    times)
        self.assertGreaterEqual(times[3], 3 * self.DELAY * 0.9, times)

    def test_cancel_does_not_shorten(self):
        g = self.guesser()
        leg = g.begin()
        t0 = time.monotonic()
        mid = g.send_auth(leg, "wrong")
        time.sleep(0.05)
        g.cancel(mid)
        status = g.reply(mid)[0]
        self.assertEqual(status, STATUS_LOGON_FAILURE)
        self.assertGreaterEqual(time.monotonic() - t0, self.DELAY * 0.9)
        self.assertEqual(g.echo_now(), 0)

    def test_parallel_connections_within_budget(self):
        # far below the budget: eight connections' guesses are all
        # answered one delay late, together
        times = parallel_failures(self.smbd.port, 8)
        self.assertGreaterEqual(times[0], self.DELAY * 0.9, times)
        self.assertLess(times[-1], self.DELAY * 1.5, times)

    def test_disconnect_while_held(self):
        g = Guesser(self.smbd.port)
        g.send_auth(g.begin(), "wrong")
        time.sleep(0.05)
        g.close()
        time.sleep(self.DELAY + 0.2)
        self.server_alive()
        status, _ = self.guesser().logon(h.TEST_PASSWORD)
        self.assertEqual(status, 0)


def parallel_failures(port, n, source="127.0.0.1"):
    """n connections, each one failed guess sent at the same moment: the
    seconds each took to be answered, sorted."""
    gs = [Guesser(port, source) for _ in range(n)]
    legs = [g.begin() for g in gs]
    out, errs = [], []

    def one(g, leg):
        try:
            t = time.monotonic()
            status = g.reply(g.send_auth(leg, "wrong"))[0]
            if status != STATUS_LOGON_FAILURE:
                errs.append("status %#x" % status)
            out.append(time.monotonic() - t)
        except Exception as e:  # noqa: BLE001 (reported below)
            errs.append(repr(e))
    ts = [threading.Thread(target=one, args=(g, leg))
          for g, leg in zip(gs, legs)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(h.NET_TIMEOUT * 2)
    for g in gs:
        g.close()
    if errs:
        raise AssertionError("; ".join(errs))
    return sorted(out)


class BudgetCase(h.TestUser, h.SmbdTestCase):
    """Budget 3: past three recent failures an address takes turns."""

    DELAY = 1.0
    global_options = [("smbd auth rate limiter delay", "1000"),
                      ("smbd auth rate limiter budget", "3")]

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba has no rate limiter")
        super().setUpClass()

    def test_address_budget(self):
        # eight connections guess at once: the first ones are answered
        # together, one delay late, until the bucket holds more than three
        # failures (at most four are checked before that); from then on
        # the address takes turns, one check per delay (the first turn
        # at once): at least four turns, the last answered 4 delays late
        times = parallel_failures(self.smbd.port, 8)
        self.assertLess(times[1], self.DELAY * 2.5, times)
        self.assertGreaterEqual(times[-1], 4 * self.DELAY * 0.9, times)
        for a, b in zip(times[4:], times[5:]):
            self.assertGreaterEqual(b - a, self.DELAY * 0.8, times)
        # another address is not held up: answered one delay late, well
        # before the four turns this one waited
        other = parallel_failures(self.smbd.port, 2, source="127.0.0.2")
        self.assertLess(other[-1], self.DELAY * 2.5, other)


class OffCase(h.TestUser, h.SmbdTestCase):
    global_options = [("smbd auth rate limiter delay", "0")]

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba has no rate limiter")
        super().setUpClass()

    def test_delay_zero_answers_at_once(self):
        g = Guesser(self.smbd.port)
        self.addCleanup(g.close)
        for _ in range(3):
            status, took = g.logon("wrong")
            self.assertEqual(status, STATUS_LOGON_FAILURE)
            self.assertLess(took, 0.3)
        self.assertLess(parallel_failures(self.smbd.port, 4)[-1], 0.5)


class DefaultCase(h.TestUser, h.SmbdTestCase):
    """Nothing set: 2 s, as Windows Server 2025."""

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba has no rate limiter")
        super().setUpClass()

    def test_default_two_seconds(self):
        g = Guesser(self.smbd.port)
        self.addCleanup(g.close)
        status, took = g.logon("wrong")
        self.assertEqual(status, STATUS_LOGON_FAILURE)
        self.assertGreaterEqual(took, 1.9)
        self.assertLess(took, 3.0)


if __name__ == "__main__":
    h.main()
