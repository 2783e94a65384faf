#!/usr/bin/python3
"""ksmbd's CVE classes of 2025-2026 (issue 34, "Beyond Samba"): lifetime
and race bugs, each class tried against our server the way those bugs
were found.  A test passes when every request gets a proper answer, the
server lives on with no crash line (and, in CI's asan step, no sanitizer
report), and what the race touched is left clean: a fresh client opens
the file exclusively afterwards.

- Compound after TREE_DISCONNECT (3.3.5.2.7, 3.3.5.8): TREE_DISCONNECT
  then CREATE on the same tree in one compound, related and not; a
  CREATE, TREE_DISCONNECT, READ chain; requests on the tree and its
  handles after it; a TREE_DISCONNECT with a NOTIFY and a LOCK pending on
  the tree and WRITEs in the pool.
- LOGOFF on one channel while another has requests in flight (a pending
  CHANGE_NOTIFY, a blocking LOCK, READs and WRITEs in the pool), from the
  first channel and from the bound one.
- Durable expiry racing a reconnect on another worker: a durable open's
  connection drops; its reconnect (DH2C) comes on the other worker's CPU
  right around the open's timeout, round after round.
- Oplock and lease break acknowledgement racing CLOSE: ack and close back
  to back, close then ack, both in one compound, and the close sent on
  another channel of the session at the same moment.
- Session-binding denial of service: bindings to one session past its
  channel limit, forged bindings by the dozen, bindings finished while
  the session logs off, and bindings during the session's
  re-authentication (one that succeeds and one that fails).

SMBD=/usr/sbin/smbd runs the same tests against Samba (what needs our
channel limit is skipped there); LIFETIMES_TRACE=1 prints each answer,
LIFETIMES_ROUNDS=N runs every race N times as many rounds.
"""

import os
import struct
import sys
import threading
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import rawsmb as r  # noqa: E402

USER, PASSWORD = h.TEST_USER, h.TEST_PASSWORD
# LIFETIMES_ROUNDS=N repeats every race N times as often (a soak)
ROUNDS = max(1, int(os.environ.get("LIFETIMES_ROUNDS", "1")))
C = r.SIGN_AES_CMAC
DONE = (r.STATUS_SUCCESS,)
GONE = (r.STATUS_USER_SESSION_DELETED, r.STATUS_NETWORK_NAME_DELETED,
        r.STATUS_FILE_CLOSED)
# what a request cut short by its tree, session or handle going answers
CUT = GONE + (r.STATUS_NOTIFY_CLEANUP, r.STATUS_CANCELLED,
              r.STATUS_RANGE_NOT_LOCKED, r.STATUS_INVALID_PARAMETER)
FILE_NOTIFY_CHANGE_FILE_NAME = 0x1
LOCK_EXCLUSIVE, LOCK_UNLOCK, LOCK_FAIL_IMMEDIATELY = 0x2, 0x4, 0x10
LEASE_R, LEASE_H, LEASE_W = 0x1, 0x2, 0x4


def compound_related(reqs):
    """(cmd, body) pairs: the first plain, the rest related."""
    return [(cmd, body, tid, 0 if i == 0 else r.FLAGS_RELATED)
            for i, (cmd, body, tid) in enumerate(reqs)]


RELATED_FID = b"\xff" * 16


def lease_ctx(key, state):
    """RqLs v2 (2.2.13.2.10)."""
    return (b"RqLs", struct.pack("<16sIIQ16sHH", key, state, 0, 0,
                                 b"\0" * 16, 0, 0))


def lease_ack_body(key, state):
    """LEASE_BREAK acknowledgement (2.2.24.2)."""
    return struct.pack("<HHI16sIQ", 36, 0, 0, key, state, 0)


class pinned:
    """Run the block on one CPU (a loopback connection made there is
    steered to the worker pinned on it)."""

    def __init__(self, cpu):
        self.cpu = cpu

    def __enter__(self):
        self.saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {self.cpu})

    def __exit__(self, *exc):
        os.sched_setaffinity(0, self.saved)


class _Base(h.SmbdTestCase):
    workers = 2
    global_options = {"server multi channel support": "yes",
                      "smb2 leases": "yes",
                      "durable handles": "yes",
                      "kernel oplocks": "no"}

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(USER, PASSWORD)

    def conn(self, **kw):
        kw.setdefault("sign_algos", (C,))
        c = r.Conn(self.smbd.port, **kw)
        self.addCleanup(c.close)
        return c

    def logon(self, **kw):
        """A connection with a session and a tree: (conn, session, tid)."""
        c = self.conn(**kw)
        s = c.logon(USER, PASSWORD)
        return c, s, c.tree_connect(s.id)

    def bound(self, c, s):
        """A second connection bound to s."""
        b = self.conn(client_guid=c.client_guid)
        rep = b.bind(s)
        self.assertEqual(rep.status, 0, "binding: 0x%08x" % rep.status)
        return b

    def answered(self, c, mid, allowed, what, timeout=None):
        rep = c.wait(mid, timeout)
        if os.environ.get("LIFETIMES_TRACE"):
            sys.stderr.write("  %s.%s: %s 0x%08x\n" % (
                type(self).__name__, self._testMethodName, what,
                rep.status))
        self.assertIn(rep.status, allowed, "%s: 0x%08x" % (what, rep.status))
        return rep

    def assert_clean(self, name):
        """The server answers a new client, which opens name with no
        sharing at all: no open, share mode or lock was left behind."""
        self.server_alive()
        c, s, tid = self.logon()
        fid = None
        for _ in range(50):
            rep = c.call(r.CREATE, c.create_body(name, share=0), sid=s.id,
                         tid=tid)
            if rep.status != r.STATUS_SHARING_VIOLATION:
                break
            time.sleep(0.1)   # a disconnected open may take a moment
        self.assertEqual(rep.status, 0, "exclusive open of %s: 0x%08x" %
                         (name, rep.status))
        fid = rep.body[64:80]
        self.assertEqual(c.call(r.LOCK, c.lock_body(
            fid, 0, 1 << 20, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY),
            sid=s.id, tid=tid).status, 0, "a lock was left on %s" % name)
        c.close_file(s.id, tid, fid)
        c.logoff(s.id)

    def mkfile(self, name, data=b"x" * 4096):
        path = os.path.join(self.smbd.share, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o666)

    def mkdir(self, name):
        path = os.path.join(self.smbd.share, name)
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o777)


class TreeDisconnect(_Base):
    """Requests after a TREE_DISCONNECT in the same compound, and after."""

    def tdis_create(self, related):
        c, s, tid = self.logon()
        body = c.create_body("tdis_c.txt", disposition=r.FILE_OPEN_IF)
        reqs = [(r.TREE_DISCONNECT, c.tdis_body(), tid),
                (r.CREATE, body, tid)]
        mids = c.send_compound(compound_related(reqs) if related else
                               [(cmd, b, t, 0) for cmd, b, t in reqs],
                               s.id)
        self.answered(c, mids[0], DONE, "TREE_DISCONNECT")
        self.answered(c, mids[1], (r.STATUS_NETWORK_NAME_DELETED,),
                      "CREATE after TREE_DISCONNECT")
        # the tree is gone, the session is not
        rep = c.call(r.CREATE, body, sid=s.id, tid=tid)
        self.assertEqual(rep.status, r.STATUS_NETWORK_NAME_DELETED)
        tid2 = c.tree_connect(s.id)
        fid, _ = c.create(s.id, tid2, "tdis_c.txt")
        c.close_file(s.id, tid2, fid)
        self.assert_clean("tdis_c.txt")

    def test_tdis_then_create_related(self):
        self.tdis_create(True)

    def test_tdis_then_create_unrelated(self):
        self.tdis_create(False)

    def test_create_tdis_read_chain(self):
        """CREATE, TREE_DISCONNECT, READ of the new open, related: the
        READ finds neither tree nor open, and the open is closed with
        its tree."""
        self.mkfile("tdis_chain.txt")
        c, s, tid = self.logon()
        reqs = [(r.CREATE, c.create_body("tdis_chain.txt", share=0), tid),
                (r.TREE_DISCONNECT, c.tdis_body(), tid),
                (r.READ, c.read_body(RELATED_FID, 16), tid),
                (r.CLOSE, c.close_body(RELATED_FID), tid)]
        mids = c.send_compound(compound_related(reqs), s.id)
        self.answered(c, mids[0], DONE, "CREATE")
        self.answered(c, mids[1], DONE, "TREE_DISCONNECT")
        self.answered(c, mids[2], GONE, "READ after TREE_DISCONNECT")
        self.answered(c, mids[3], GONE, "CLOSE after TREE_DISCONNECT")
        self.assert_clean("tdis_chain.txt")

    def test_tdis_twice(self):
        c, s, tid = self.logon()
        reqs = [(r.TREE_DISCONNECT, c.tdis_body(), tid),
                (r.TREE_DISCONNECT, c.tdis_body(), tid)]
        for flags in (0, r.FLAGS_RELATED):
            tid = c.tree_connect(s.id)
            mids = c.send_compound([(cmd, b, tid, 0 if i == 0 else flags)
                                    for i, (cmd, b, _) in enumerate(reqs)],
                                   s.id)
            self.answered(c, mids[0], DONE, "TREE_DISCONNECT")
            self.answered(c, mids[1], (r.STATUS_NETWORK_NAME_DELETED,),
                          "a second TREE_DISCONNECT")

    def test_requests_after_tdis(self):
        """Every handle-based request on a tree that is gone."""
        self.mkfile("tdis_after.txt")
        c, s, tid = self.logon()
        fid, _ = c.create(s.id, tid, "tdis_after.txt")
        c.call(r.TREE_DISCONNECT, c.tdis_body(), sid=s.id,
               tid=tid).ok("TREE_DISCONNECT")
        for cmd, body in ((r.READ, c.read_body(fid, 16)),
                          (r.WRITE, c.write_body(fid, b"late")),
                          (r.LOCK, c.lock_body(fid, 0, 1, LOCK_EXCLUSIVE)),
                          (r.FLUSH, struct.pack("<HHI16s", 24, 0, 0, fid)),
                          (r.CHANGE_NOTIFY, c.notify_body(fid)),
                          (r.OPLOCK_BREAK, c.break_ack_body(fid)),
                          (r.CLOSE, c.close_body(fid))):
            rep = c.call(cmd, body, sid=s.id, tid=tid)
            self.assertEqual(rep.status, r.STATUS_NETWORK_NAME_DELETED,
                             "command %#x: 0x%08x" % (cmd, rep.status))
        # the open went with its tree: another tree does not find it
        tid2 = c.tree_connect(s.id)
        rep = c.call(r.READ, c.read_body(fid, 16), sid=s.id, tid=tid2)
        self.assertEqual(rep.status, r.STATUS_FILE_CLOSED)
        self.assert_clean("tdis_after.txt")

    def test_tdis_with_requests_in_flight(self):
        """A NOTIFY and a blocking LOCK pending on the tree and WRITEs in
        the pool when TREE_DISCONNECT comes: each ends, once."""
        self.mkfile("tdis_busy.txt")
        self.mkdir("tdis_dir")
        for rnd in range(ROUNDS * 4):
            c, s, tid = self.logon()
            dfid, _ = c.create(s.id, tid, "tdis_dir",
                               options=r.FILE_DIRECTORY_FILE,
                               access=0x1 | 0x80)
            f1, _ = c.create(s.id, tid, "tdis_busy.txt")
            f2, _ = c.create(s.id, tid, "tdis_busy.txt")
            c.call(r.LOCK, c.lock_body(f1, 0, 10, LOCK_EXCLUSIVE),
                   sid=s.id, tid=tid).ok("lock")
            n = c.send(r.CHANGE_NOTIFY, c.notify_body(dfid), sid=s.id,
                       tid=tid)
            lk = c.send(r.LOCK, c.lock_body(f2, 0, 10, LOCK_EXCLUSIVE),
                        sid=s.id, tid=tid)
            c.wait_interim(n)
            c.wait_interim(lk)
            data = os.urandom(65536)
            writes = [c.send(r.WRITE, c.write_body(f2, data,
                                                   (i + 1) * 65536),
                             sid=s.id, tid=tid) for i in range(8)]
            if rnd % 2:
                time.sleep(0.01 * (rnd % 4))
            t = c.send(r.TREE_DISCONNECT, c.tdis_body(), sid=s.id, tid=tid)
            self.answered(c, t, DONE, "TREE_DISCONNECT")
            self.answered(c, n, CUT, "pending NOTIFY")
            self.answered(c, lk, CUT, "pending LOCK")
            for w in writes:
                self.answered(c, w, DONE + CUT, "WRITE in flight")
            c.logoff(s.id)
            c.close()
        self.assert_clean("tdis_busy.txt")

    def holder(self, name):
        """Another client's batch oplock on name: (conn, session, tid,
        fid)."""
        self.mkfile(name)
        hc, hs, htid = self.logon()
        fid, rep = hc.create(hs.id, htid, name, oplock=r.OPLOCK_BATCH)
        self.assertEqual(rep.body[2], r.OPLOCK_BATCH)
        return hc, hs, htid, fid

    def test_tdis_while_create_waits_for_break(self):
        """A CREATE waits for another client's oplock break; its tree is
        disconnected, then the break is answered."""
        name = "tdis_brk.txt"
        for rnd in range(ROUNDS * 3):
            hc, hs, htid, hfid = self.holder(name)
            c, s, tid = self.logon()
            m = c.send(r.CREATE, c.create_body(name), sid=s.id, tid=tid)
            c.wait_interim(m)
            brk = hc.wait_break()
            t = c.send(r.TREE_DISCONNECT, c.tdis_body(), sid=s.id, tid=tid)
            self.answered(c, t, DONE, "TREE_DISCONNECT")
            if rnd % 3 == 0:
                hc.call(r.OPLOCK_BREAK, struct.pack(
                    "<HBBI16s", 24, brk.body[2], 0, 0, hfid), sid=hs.id,
                    tid=htid)
            elif rnd % 3 == 1:
                hc.close_file(hs.id, htid, hfid)
            else:
                hc.close()   # the holder goes away altogether
            self.answered(c, m, DONE + GONE + (r.STATUS_CANCELLED,),
                          "the waiting CREATE")
            if rnd % 3 < 2:
                hc.call(r.CLOSE, hc.close_body(hfid), sid=hs.id, tid=htid)
                hc.logoff(hs.id)
            c.logoff(s.id)
        self.assert_clean(name)

    def test_compound_create_waiting_then_tdis(self):
        """[CREATE, TREE_DISCONNECT] where the CREATE waits for a break:
        the TREE_DISCONNECT runs after it, and takes the new open."""
        name = "tdis_brk2.txt"
        hc, hs, htid, hfid = self.holder(name)
        c, s, tid = self.logon()
        mids = c.send_compound(compound_related([
            (r.CREATE, c.create_body(name), tid),
            (r.TREE_DISCONNECT, c.tdis_body(), tid)]), s.id)
        brk = hc.wait_break()
        hc.call(r.OPLOCK_BREAK, struct.pack("<HBBI16s", 24, brk.body[2], 0,
                                            0, hfid), sid=hs.id, tid=htid)
        self.answered(c, mids[0], DONE, "CREATE")
        self.answered(c, mids[1], DONE, "TREE_DISCONNECT")
        hc.close_file(hs.id, htid, hfid)
        self.assert_clean(name)


class LogoffChannels(_Base):
    """LOGOFF on one channel, requests in flight on another."""

    def in_flight(self, req_conn, s, tid, name, dname):
        """A pending NOTIFY, a blocking LOCK and READs/WRITEs in the pool
        sent on req_conn: their MessageIds."""
        c = req_conn
        dfid, _ = c.create(s.id, tid, dname, options=r.FILE_DIRECTORY_FILE,
                           access=0x1 | 0x80)
        f1, _ = c.create(s.id, tid, name)
        f2, _ = c.create(s.id, tid, name)
        c.call(r.LOCK, c.lock_body(f1, 0, 10, LOCK_EXCLUSIVE), sid=s.id,
               tid=tid).ok("lock")
        n = c.send(r.CHANGE_NOTIFY, c.notify_body(dfid), sid=s.id, tid=tid)
        lk = c.send(r.LOCK, c.lock_body(f2, 0, 10, LOCK_EXCLUSIVE),
                    sid=s.id, tid=tid)
        c.wait_interim(n)
        c.wait_interim(lk)
        data = os.urandom(65536)
        io = []
        for i in range(6):
            io.append(c.send(r.WRITE, c.write_body(f2, data,
                                                   (i + 1) * 65536),
                             sid=s.id, tid=tid))
            io.append(c.send(r.READ, c.read_body(f1, 65536), sid=s.id,
                             tid=tid))
        return n, lk, io

    def logoff_during(self, logoff_on_bound, rounds=4):
        self.mkfile("lo_busy.txt", b"y" * 65536)
        self.mkdir("lo_dir")
        for rnd in range(ROUNDS * rounds):
            a, s, tid = self.logon()
            b = self.bound(a, s)
            busy, quiet = (a, b) if logoff_on_bound else (b, a)
            n, lk, io = self.in_flight(busy, s, tid, "lo_busy.txt",
                                       "lo_dir")
            time.sleep(0.005 * (rnd % 4))
            lo = quiet.send(r.LOGOFF, quiet.logoff_body(), sid=s.id)
            self.answered(quiet, lo, DONE, "LOGOFF")
            self.answered(busy, n, CUT, "pending NOTIFY")
            self.answered(busy, lk, CUT, "pending LOCK")
            for m in io:
                self.answered(busy, m, DONE + CUT, "I/O in flight")
            # no channel outlives its session
            for c in (a, b):
                rep = c.call(r.TREE_CONNECT, struct.pack(
                    "<HHHH", 9, 0, 72, 0), sid=s.id)
                self.assertEqual(rep.status, r.STATUS_USER_SESSION_DELETED)
            a.close()
            b.close()
        self.assert_clean("lo_busy.txt")

    def test_logoff_first_channel(self):
        self.logoff_during(False)

    def test_logoff_bound_channel(self):
        self.logoff_during(True)

    def test_logoff_while_create_waits_for_break(self):
        """The session's CREATE waits on one channel for another client's
        break; LOGOFF comes on the other channel; then the break is
        answered."""
        name = "lo_brk.txt"
        self.mkfile(name)
        for rnd in range(ROUNDS * 3):
            hc, hs, htid = self.logon()
            hfid, _ = hc.create(hs.id, htid, name, oplock=r.OPLOCK_BATCH)
            a, s, tid = self.logon()
            b = self.bound(a, s)
            busy, quiet = (a, b) if rnd % 2 else (b, a)
            m = busy.send(r.CREATE, busy.create_body(name), sid=s.id,
                          tid=tid)
            busy.wait_interim(m)
            brk = hc.wait_break()
            self.answered(quiet, quiet.send(r.LOGOFF, quiet.logoff_body(),
                                            sid=s.id), DONE, "LOGOFF")
            if rnd % 3 < 2:
                hc.call(r.OPLOCK_BREAK, struct.pack(
                    "<HBBI16s", 24, brk.body[2], 0, 0, hfid), sid=hs.id,
                    tid=htid)
            self.answered(busy, m, DONE + GONE + (r.STATUS_CANCELLED,),
                          "the waiting CREATE")
            hc.close_file(hs.id, htid, hfid)
            hc.logoff(hs.id)
            a.close()
            b.close()
        self.assert_clean(name)

    def test_first_channel_drops_with_requests_in_flight(self):
        """The session's first connection drops with a NOTIFY, a blocking
        LOCK and I/O in flight on it: the session carries on over the
        bound channel, which then logs off."""
        self.mkfile("lo_drop.txt", b"z" * 65536)
        self.mkdir("lo_drop_dir")
        for rnd in range(ROUNDS * 3):
            a, s, tid = self.logon()
            b = self.bound(a, s)
            self.in_flight(a, s, tid, "lo_drop.txt", "lo_drop_dir")
            time.sleep(0.005 * (rnd % 4))
            a.close()
            deadline = time.monotonic() + h.NET_TIMEOUT
            while True:
                rep = b.call(r.CREATE, b.create_body("lo_drop.txt"),
                             sid=s.id, tid=tid)
                if rep.status == 0 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            self.assertEqual(rep.status, 0, "the session did not carry on "
                             "over its channel: 0x%08x" % rep.status)
            b.close_file(s.id, tid, rep.body[64:80])
            self.answered(b, b.send(r.LOGOFF, b.logoff_body(), sid=s.id),
                          DONE, "LOGOFF")
            b.close()
        self.assert_clean("lo_drop.txt")

    def test_logoff_inside_compound(self):
        """[WRITE, LOGOFF, WRITE] related, and a LOGOFF between two
        requests of an unrelated compound, with a NOTIFY pending on
        another channel."""
        self.mkfile("lo_cmp.txt")
        self.mkdir("lo_cmp_dir")
        for related in (True, False):
            a, s, tid = self.logon()
            b = self.bound(a, s)
            dfid, _ = b.create(s.id, tid, "lo_cmp_dir",
                               options=r.FILE_DIRECTORY_FILE,
                               access=0x1 | 0x80)
            n = b.send(r.CHANGE_NOTIFY, b.notify_body(dfid), sid=s.id,
                       tid=tid)
            b.wait_interim(n)
            fid, _ = a.create(s.id, tid, "lo_cmp.txt")
            reqs = [(r.WRITE, a.write_body(fid, b"one"), tid),
                    (r.LOGOFF, a.logoff_body(), 0),
                    (r.WRITE, a.write_body(fid, b"two", 3), tid)]
            flags = r.FLAGS_RELATED if related else 0
            mids = a.send_compound([(cmd, body, t, 0 if i == 0 else flags)
                                    for i, (cmd, body, t) in
                                    enumerate(reqs)], s.id)
            self.answered(a, mids[0], DONE, "WRITE before LOGOFF")
            self.answered(a, mids[1], DONE, "LOGOFF")
            self.answered(a, mids[2], GONE + (r.STATUS_INVALID_PARAMETER,),
                          "WRITE after LOGOFF")
            self.answered(b, n, CUT, "NOTIFY on the other channel")
            a.close()
            b.close()
        self.assert_clean("lo_cmp.txt")

    def test_logoff_both_channels_at_once(self):
        for _ in range(ROUNDS * 4):
            a, s, tid = self.logon()
            b = self.bound(a, s)
            ma = a.send(r.LOGOFF, a.logoff_body(), sid=s.id)
            mb = b.send(r.LOGOFF, b.logoff_body(), sid=s.id)
            ra = a.wait(ma)
            rb = b.wait(mb)
            self.assertEqual(sorted((ra.status, rb.status)),
                             [0, r.STATUS_USER_SESSION_DELETED])
            a.close()
            b.close()
        self.server_alive()


class BreakAckClose(_Base):
    """An oplock or lease break acknowledged while the open closes."""

    def broken(self, name, lease=False, bind=False):
        """Holder a (and its bound channel b, if bind) with a batch
        oplock or an RWH lease on name; another client's CREATE that
        broke it, pending.  (a, b, s, tid, fid, key, breaker, bmid)"""
        self.mkfile(name)
        cpus = sorted(os.sched_getaffinity(0))
        # the holder on one worker, the breaker on the other (when
        # there are two CPUs): the break crosses workers
        with pinned(cpus[0]):
            a, s, tid = self.logon()
            b = self.bound(a, s) if bind else None
        key = uuid.uuid4().bytes
        if lease:
            ctx = r.create_contexts([lease_ctx(key, LEASE_R | LEASE_H |
                                               LEASE_W)])
            fid, rep = a.create(s.id, tid, name, oplock=r.OPLOCK_LEASE,
                                contexts=ctx)
        else:
            fid, rep = a.create(s.id, tid, name, oplock=r.OPLOCK_BATCH)
        self.assertEqual(rep.body[2], r.OPLOCK_LEASE if lease else
                         r.OPLOCK_BATCH, "no oplock or lease granted")
        with pinned(cpus[-1]):
            x, xs, xtid = self.logon()
        bmid = x.send(r.CREATE, x.create_body(name), sid=xs.id, tid=xtid)
        # the break comes on one of the session's channels
        deadline = time.monotonic() + h.NET_TIMEOUT
        brk = None
        while brk is None:
            for c in filter(None, (a, b)):
                try:
                    brk = c.wait_break(0.05)
                    break
                except (TimeoutError, OSError):
                    pass
            self.assertLess(time.monotonic(), deadline, "no break came")
        if lease:
            # NewLeaseState of the LEASE_BREAK notification (2.2.23.2)
            self.new_state = struct.unpack_from("<I", brk.body, 28)[0]
        else:
            self.new_state = brk.body[2]
        return a, b, s, tid, fid, key, (x, xs, xtid), bmid

    def ack(self, lease, fid, key):
        if lease:
            return lease_ack_body(key, self.new_state)
        return struct.pack("<HBBI16s", 24, self.new_state, 0, 0, fid)

    def finish(self, breaker, bmid, name):
        x, xs, xtid = breaker
        rep = x.wait(bmid)
        self.assertEqual(rep.status, 0, "the breaking CREATE: 0x%08x" %
                         rep.status)
        x.close_file(xs.id, xtid, rep.body[64:80])
        x.logoff(xs.id)

    ACK_AFTER_CLOSE = (r.STATUS_FILE_CLOSED, r.STATUS_INVALID_OPLOCK_PROTOCOL,
                       r.STATUS_INVALID_DEVICE_STATE,
                       r.STATUS_OBJECT_NAME_NOT_FOUND,
                       r.STATUS_INVALID_PARAMETER)

    def race(self, lease, order, rounds=5):
        name = "brk_%s_%s.txt" % ("lease" if lease else "oplock", order)
        for rnd in range(ROUNDS * rounds):
            a, b, s, tid, fid, key, breaker, bmid = self.broken(
                name, lease=lease, bind=order == "other_channel")
            ack = (r.OPLOCK_BREAK, self.ack(lease, fid, key), tid, 0)
            close = (r.CLOSE, a.close_body(fid), tid, 0)
            if order == "ack_close":
                m = [a.send(*x[:2], sid=s.id, tid=tid) for x in (ack, close)]
                self.answered(a, m[0], DONE + self.ACK_AFTER_CLOSE, "ack")
                self.answered(a, m[1], DONE, "close")
            elif order == "close_ack":
                m = [a.send(*x[:2], sid=s.id, tid=tid) for x in (close, ack)]
                self.answered(a, m[0], DONE, "close")
                self.answered(a, m[1], self.ACK_AFTER_CLOSE, "ack")
            elif order == "compound":
                close = (r.CLOSE, a.close_body(fid), tid, r.FLAGS_RELATED)
                m = a.send_compound([ack, close], s.id)
                self.answered(a, m[0], DONE + self.ACK_AFTER_CLOSE, "ack")
                self.answered(a, m[1], DONE, "close")
            else:   # the ack on one channel, the close on the other
                ma = a.send(ack[0], ack[1], sid=s.id, tid=tid)
                mb = b.send(r.CLOSE, b.close_body(fid), sid=s.id, tid=tid)
                self.answered(a, ma, DONE + self.ACK_AFTER_CLOSE, "ack")
                self.answered(b, mb, DONE + (r.STATUS_FILE_CLOSED,),
                              "close on the other channel")
            self.finish(breaker, bmid, name)
            a.logoff(s.id)
        self.assert_clean(name)

    def test_breaker_goes_while_holder_acks(self):
        """The client whose CREATE broke the oplock drops its connection,
        or cancels the CREATE, as the holder acknowledges and closes."""
        name = "brk_breaker_goes.txt"
        for rnd in range(ROUNDS * 6):
            a, b, s, tid, fid, key, breaker, bmid = self.broken(name)
            x, xs, xtid = breaker
            if rnd % 2:
                x.cancel(xs.id, bmid, x.wait_interim(bmid))
            else:
                x.close()
            m = [a.send(r.OPLOCK_BREAK, self.ack(False, fid, key), sid=s.id,
                        tid=tid),
                 a.send(r.CLOSE, a.close_body(fid), sid=s.id, tid=tid)]
            self.answered(a, m[0], DONE + self.ACK_AFTER_CLOSE, "ack")
            self.answered(a, m[1], DONE, "close")
            if rnd % 2:
                self.answered(x, bmid, DONE + (r.STATUS_CANCELLED,),
                              "the cancelled CREATE")
                x.logoff(xs.id)
            a.logoff(s.id)
        self.assert_clean(name)

    def test_oplock_ack_then_close(self):
        self.race(False, "ack_close")

    def test_oplock_close_then_ack(self):
        self.race(False, "close_ack")

    def test_oplock_ack_close_compound(self):
        self.race(False, "compound")

    def test_oplock_ack_close_other_channel(self):
        self.race(False, "other_channel")

    def test_lease_ack_then_close(self):
        self.race(True, "ack_close")

    def test_lease_close_then_ack(self):
        self.race(True, "close_ack")

    def test_lease_ack_close_other_channel(self):
        self.race(True, "other_channel")


class BindingDoS(_Base):
    """Bindings that try to wear a session down."""

    def test_past_the_channel_limit(self):
        if self.smbd.samba:
            self.skipTest("Samba has no limit on a session's channels")
        a, s, tid = self.logon()
        chans = [self.bound(a, s) for _ in range(31)]
        extra = self.conn(client_guid=a.client_guid)
        self.assertEqual(extra.bind(s).status,
                         r.STATUS_INSUFFICIENT_RESOURCES)
        # channels that go give their place back
        for ch in chans[:5]:
            ch.close()
        deadline = time.monotonic() + h.NET_TIMEOUT
        while True:
            c = self.conn(client_guid=a.client_guid)
            rep = c.bind(s)
            if rep.status == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(rep.status, 0)
        chans[-1].tree_connect(s.id)

    def test_forged_bindings_in_parallel(self):
        """Forged bindings from many connections at once, each leg
        interleaved with the others': none takes anything of the
        session, which serves a proper binding afterwards."""
        a, s, tid = self.logon()
        conns = [self.conn(client_guid=a.client_guid) for _ in range(48)]
        errors = []

        def forge(c, i):
            try:
                rep = c.bind(s, forge=True,
                             forge_leg=None if i % 2 else 2)
                if rep.status == 0:
                    errors.append("forged binding %d went through" % i)
            except Exception as e:   # noqa: BLE001 - reported below
                errors.append("binding %d: %r" % (i, e))

        threads = [threading.Thread(target=forge, args=(c, i))
                   for i, c in enumerate(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(2 * h.NET_TIMEOUT)
        self.assertEqual(errors, [])
        b = self.bound(a, s)
        fid, _ = b.create(s.id, tid, "dos_forged.txt")
        b.close_file(s.id, tid, fid)

    def test_bind_during_logoff(self):
        """Bindings whose AUTHENTICATE leg comes with the session's
        LOGOFF: each ends bound-then-logged-off or refused, and no
        channel outlives the session."""
        for rnd in range(ROUNDS * 6):
            a, s, tid = self.logon()
            half = []
            for _ in range(4):
                c = self.conn(client_guid=a.client_guid)
                auth, tok = c._ntlm_negotiate()
                msg = c.build(r.SESSION_SETUP, c.setup_body(
                    tok, r.SESSION_FLAG_BINDING), sid=s.id)
                msg = c.seal(msg, s.id, sign_with=(s.signing_key, s.algo))
                c.raw.send(msg)
                rep = c.wait(struct.unpack_from("<Q", msg, 24)[0])
                self.assertEqual(rep.status,
                                 r.STATUS_MORE_PROCESSING_REQUIRED)
                tok2, _ = c._ntlm_auth(auth, rep, USER, PASSWORD)
                half.append((c, tok2))
            lo = None
            mids = []
            for i, (c, tok2) in enumerate(half):
                if i == rnd % 4:
                    lo = a.send(r.LOGOFF, a.logoff_body(), sid=s.id)
                msg = c.build(r.SESSION_SETUP, c.setup_body(
                    tok2, r.SESSION_FLAG_BINDING), sid=s.id)
                msg = c.seal(msg, s.id, sign_with=(s.signing_key, s.algo))
                c.raw.send(msg)
                mids.append(struct.unpack_from("<Q", msg, 24)[0])
            self.answered(a, lo, DONE, "LOGOFF")
            for (c, _), m in zip(half, mids):
                self.answered(c, m, DONE + (r.STATUS_USER_SESSION_DELETED,),
                              "binding during LOGOFF")
                rep = c.call(r.TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72,
                                                         0), sid=s.id,
                             sign=False)
                self.assertIn(rep.status, (r.STATUS_USER_SESSION_DELETED,),
                              "a channel outlived its session")
                c.close()
            a.close()
        self.server_alive()

    def test_bind_while_first_connection_drops(self):
        """The session's only connection drops between a binding's two
        legs: ours ends the session with it (the binding was not a
        channel yet, 3.3.7.1), Samba lets the binding finish and the
        session carry on over it; either way the outcome holds."""
        for _ in range(ROUNDS * 4):
            a, s, tid = self.logon()
            c = self.conn(client_guid=a.client_guid)

            def drop():
                a.close()
                time.sleep(0.05)

            m2 = c.bind(s, between=drop)
            self.assertIn(m2.status, (0, r.STATUS_USER_SESSION_DELETED))
            if not self.smbd.samba:
                self.assertEqual(m2.status, r.STATUS_USER_SESSION_DELETED)
            if m2.status == 0:
                # the session lives on over the new channel
                tid2 = c.tree_connect(s.id)
                fid, _ = c.create(s.id, tid2, "dos_moved.txt")
                c.close_file(s.id, tid2, fid)
            c.close()
        self.server_alive()

    def reauth_leg1(self, c, s):
        auth, tok = c._ntlm_negotiate()
        rep = c.call(r.SESSION_SETUP, c.setup_body(tok), sid=s.id)
        self.assertEqual(rep.status, r.STATUS_MORE_PROCESSING_REQUIRED)
        return auth, rep

    def test_bind_during_reauth(self):
        a, s, tid = self.logon()
        auth, rep = self.reauth_leg1(a, s)
        b = self.bound(a, s)
        tok, _ = a._ntlm_auth(auth, rep, USER, PASSWORD)
        fin = a.call(r.SESSION_SETUP, a.setup_body(tok), sid=s.id)
        self.assertEqual(fin.status, 0, "re-authentication: 0x%08x" %
                         fin.status)
        for c in (a, b):
            fid, _ = c.create(s.id, tid, "dos_reauth.txt")
            c.close_file(s.id, tid, fid)

    def test_bind_during_failed_reauth(self):
        """A re-authentication that fails while a binding is half done
        (its first leg answered) and after another channel is bound."""
        a, s, tid = self.logon()
        b = self.bound(a, s)
        c = self.conn(client_guid=a.client_guid)
        auth_c, tok_c = c._ntlm_negotiate()
        m1 = c.call(r.SESSION_SETUP, c.setup_body(
            tok_c, r.SESSION_FLAG_BINDING), sid=s.id,
            sign_with=(s.signing_key, s.algo))
        self.assertEqual(m1.status, r.STATUS_MORE_PROCESSING_REQUIRED)
        auth, rep = self.reauth_leg1(a, s)
        tok, _ = a._ntlm_auth(auth, rep, USER, "wrong-password")
        fin = a.call(r.SESSION_SETUP, a.setup_body(tok), sid=s.id)
        self.assertEqual(fin.status, r.STATUS_LOGON_FAILURE)
        tok_c2, _ = c._ntlm_auth(auth_c, m1, USER, PASSWORD)
        m2 = c.call(r.SESSION_SETUP, c.setup_body(
            tok_c2, r.SESSION_FLAG_BINDING), sid=s.id,
            sign_with=(s.signing_key, s.algo))
        self.assertIn(m2.status, (0, r.STATUS_USER_SESSION_DELETED),
                      "binding after a failed re-authentication: 0x%08x" %
                      m2.status)
        for ch in (a, b, c):
            ch.call(r.ECHO, struct.pack("<HH", 4, 0), sign=False)
        self.server_alive()


class DurableExpiry(_Base):
    """A durable open's reconnect on the other worker, right around the
    open's timeout."""
    global_options = {"server multi channel support": "no",
                      "durable handles": "yes",
                      "kernel oplocks": "no"}
    TIMEOUT_MS = 300

    @classmethod
    def setUpClass(cls):
        if len(os.sched_getaffinity(0)) < 2:
            raise unittest.SkipTest("needs 2 CPUs for 2 workers")
        super().setUpClass()

    def test_reconnect_racing_expiry(self):
        name = "durable_race.txt"
        self.mkfile(name)
        cpus = sorted(os.sched_getaffinity(0))[:2]
        outcomes = {}
        offsets = [-60, -30, -15, -5, 0, 5, 15, 30, -10, 10, -2, 2] * ROUNDS
        for rnd, off in enumerate(offsets):
            hold, there = cpus[rnd % 2], cpus[1 - rnd % 2]
            with pinned(hold):
                a, s, tid = self.logon()
            guid = uuid.uuid4().bytes
            ctx = r.create_contexts([r.dh2q(guid, self.TIMEOUT_MS)])
            fid, rep = a.create(s.id, tid, name, oplock=r.OPLOCK_BATCH,
                                contexts=ctx)
            self.assertEqual(rep.body[2], r.OPLOCK_BATCH)
            with pinned(there):
                b, bs, btid = self.logon(client_guid=a.client_guid)
            body = b.create_body(name, oplock=r.OPLOCK_BATCH,
                                 contexts=r.create_contexts(
                                     [r.dh2c(fid, guid)]))
            a.close()   # the connection drops: the open waits
            time.sleep(max(0, self.TIMEOUT_MS + off) / 1000.0)
            rep = b.call(r.CREATE, body, sid=bs.id, tid=btid)
            self.assertIn(rep.status, (0, r.STATUS_OBJECT_NAME_NOT_FOUND),
                          "reconnect %+d ms: 0x%08x" % (off, rep.status))
            outcomes[off] = rep.status
            if rep.status == 0:
                nfid = rep.body[64:80]
                b.write(bs.id, btid, nfid, b"reclaimed")
                b.close_file(bs.id, btid, nfid)
            b.logoff(bs.id)
            b.close()
            self.assert_clean(name)
        sys.stderr.write("reconnect outcomes by offset: %r\n" % sorted(
            (k, "ok" if v == 0 else "expired") for k, v in outcomes.items()))
        # early reconnects must find the open (the drop is seen at once)
        self.assertEqual(outcomes[-60], 0, outcomes)

    def test_two_reconnects_at_once(self):
        """Two reclaims of one durable open, one from each worker, at the
        same moment near its timeout: at most one gets it."""
        name = "durable_two.txt"
        self.mkfile(name)
        cpus = sorted(os.sched_getaffinity(0))[:2]
        for rnd in range(ROUNDS * 8):
            with pinned(cpus[rnd % 2]):
                a, s, tid = self.logon()
            guid = uuid.uuid4().bytes
            ctx = r.create_contexts([r.dh2q(guid, self.TIMEOUT_MS)])
            fid, _ = a.create(s.id, tid, name, oplock=r.OPLOCK_BATCH,
                              contexts=ctx)
            rec = []
            for cpu in cpus:
                with pinned(cpu):
                    rec.append(self.logon(client_guid=a.client_guid))
            a.close()
            time.sleep((self.TIMEOUT_MS - 40 + 10 * (rnd % 8)) / 1000.0)
            body = a.create_body(name, oplock=r.OPLOCK_BATCH,
                                 contexts=r.create_contexts(
                                     [r.dh2c(fid, guid)]))
            mids = [c.send(r.CREATE, body, sid=cs.id, tid=ct)
                    for c, cs, ct in rec]
            got = []
            for (c, cs, ct), m in zip(rec, mids):
                rep = c.wait(m)
                self.assertIn(rep.status, (0, r.STATUS_OBJECT_NAME_NOT_FOUND),
                              "a reclaim: 0x%08x" % rep.status)
                if rep.status == 0:
                    got.append((c, cs, ct, rep.body[64:80]))
            self.assertLessEqual(len(got), 1, "both reclaims got the open")
            for c, cs, ct, nfid in got:
                c.close_file(cs.id, ct, nfid)
            for c, cs, ct in rec:
                c.logoff(cs.id)
                c.close()
            self.assert_clean(name)

    def test_abandoned_reconnect_racing_expiry(self):
        """The reconnecting client drops too, while its reclaim is asked
        of the other worker: the open handed over to nobody is cleaned."""
        name = "durable_race2.txt"
        self.mkfile(name)
        cpus = sorted(os.sched_getaffinity(0))[:2]
        for rnd in range(ROUNDS * 6):
            with pinned(cpus[0]):
                a, s, tid = self.logon()
            guid = uuid.uuid4().bytes
            ctx = r.create_contexts([r.dh2q(guid, self.TIMEOUT_MS)])
            fid, _ = a.create(s.id, tid, name, oplock=r.OPLOCK_BATCH,
                              contexts=ctx)
            with pinned(cpus[1]):
                b, bs, btid = self.logon(client_guid=a.client_guid)
            a.close()
            time.sleep((self.TIMEOUT_MS - 20 + 8 * (rnd % 6)) / 1000.0)
            b.send(r.CREATE, b.create_body(
                name, oplock=r.OPLOCK_BATCH,
                contexts=r.create_contexts([r.dh2c(fid, guid)])),
                sid=bs.id, tid=btid)
            b.close()
        time.sleep(self.TIMEOUT_MS / 1000.0)
        self.assert_clean(name)


if __name__ == "__main__":
    h.main()
