#!/usr/bin/python3
"""Issue 34 item 1: what a pending request may make the server hold.

A COMPRESSION_TRANSFORM message of ~130 bytes may decompress to 8 MiB
(OriginalCompressedSegmentSize, mostly one Pattern_V1 run): a 32-byte
CHANGE_NOTIFY body followed by megabytes of padding.  A request that then
waits (NOTIFY, a blocking LOCK, a CREATE waiting for a break, work on the
pool) used to keep its whole decompressed frame, so 24 of them grew the
worker by 136-192 MiB for 3 KiB sent.

- A pending request keeps only its own declared bytes (header, StructureSize,
  the buffers its offsets and lengths name): 24 padded NOTIFYs, 24 padded
  blocking LOCKs and padded CREATEs waiting for an oplock break grow the
  worker by a few MiB, not 192 (worker RSS from /proc, one worker).
- The requests of a compound after a pending one stay whole (their
  signatures are checked when their turn comes), so a blocking LOCK
  followed by a padded ECHO does hold 8 MiB: those decompressed bytes are
  bounded per connection (`smbd max decompressed per connection`) and per
  worker (`smbd max decompressed per worker`).  The connection that goes
  past its own bound is dropped with a log line naming the limit; at the
  worker's bound the connection holding the most is dropped.
- The same padded NOTIFYs sent uncompressed (8 MiB each on the wire), ours
  and Samba's side by side: Samba 4.17 does not negotiate compression at
  all, so the compressed attack cannot be sent to it.

Every memory figure is printed, ours and Samba's, for the issue's note.
"""

import os
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c  # noqa: E402

SANITIZED = "ASAN_OPTIONS" in os.environ
MIB = 1024 * 1024
PAD = 8 * MIB               # the decompressed message: our limit is 8 MiB+272
NPENDING = 24

CREATE, LOCK, ECHO, NOTIFY = 0x05, 0x0A, 0x0D, 0x0F
STATUS_PENDING = 0x103
LOCKFLAG_EXCLUSIVE, LOCKFLAG_FAIL_IMMEDIATELY = 0x2, 0x10
FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE = 0x1, 0x40
OPLOCK_BATCH = 0x09
ALGS = (c.LZ77, c.PATTERN_V1)


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def server_rss(srv):
    """The RSS of the server's processes other than the master: our
    workers, or Samba's per-connection children and helpers."""
    return sum(rss_kib(p) for p in h.child_pids(srv.pid))


def create_body(name, options, access=0x001F01FF, disposition=3, oplock=0):
    n = name.encode("utf-16-le")
    return struct.pack("<HBBIQQIIIIIHHII", 57, 0, oplock, 2, 0, 0, access,
                       0x80 if options != FILE_DIRECTORY_FILE else 0x10,
                       7, disposition, options, 64 + 56, len(n), 0,
                       0) + (n or b"\0" * 8)


def notify_body(fid):
    # 2.2.35: StructureSize, Flags, OutputBufferLength, FileId,
    # CompletionFilter (FILE_NAME | DIR_NAME | SIZE | LAST_WRITE), Reserved
    return struct.pack("<HHI16sII", 32, 0, 4096, fid, 0x1B, 0)


def lock_body(fid, flags):
    # 2.2.26 with one LOCK_ELEMENT: bytes [0, 1)
    return struct.pack("<HHI16s", 48, 1, 0, fid) + \
        struct.pack("<QQII", 0, 1, flags, 0)


class Attacker:
    """smb3client.Client plus requests that wait: sent (signed, padded to
    `size`, compressed or not) without reading their replies."""

    def __init__(self, test, compressed=True):
        self.test = test
        self.cl = c.Client(test.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                           algorithms=ALGS if compressed else None,
                           chained=compressed)
        test.addCleanup(self.cl.disconnect)
        self.compressed = compressed and self.cl.algorithms != []
        self.cl.tree_connect("share")

    def open(self, name, options, oplock=0, disposition=3):
        r = self.cl._request(CREATE, create_body(name, options,
                                                 disposition=disposition,
                                                 oplock=oplock))
        return r[64 + 64:64 + 80]

    def msg(self, cmd, body, size=0, flags=0):
        mid = self.cl.mid
        self.cl.mid += 1
        m = h.smb2_header(cmd, mid, credit_charge=1, credits=8, flags=flags,
                          session_id=self.cl.sid, tree_id=self.cl.tid) + body
        return mid, m + b"\0" * max(0, size - len(m))

    def send_padded(self, cmd, body, size=PAD):
        """One request: the header and body, then zeros up to size (one
        Pattern_V1 run when compressed); returns its MessageId."""
        mid, m = self.msg(cmd, body, size)
        plain = 64 + len(body)
        if self.compressed:
            self.cl.send(m, compress=("chained", ALGS), plain=plain)
        else:
            self.cl.send(m)
        return mid

    def send_compound(self, first, second, size=PAD):
        """A compound: first (cmd, body) alone, then second (cmd, body)
        padded so that the message is size bytes; each part signed."""
        _, a = self.msg(*first)
        a = a + b"\0" * (-len(a) % 8)
        a = a[:20] + struct.pack("<I", len(a)) + a[24:]
        _, b = self.msg(*second, size=size - len(a))
        m = self.cl._sign(a) + self.cl._sign(b)
        if self.compressed:
            comp = c.compress_chained(ALGS, m, len(a) + 64 + len(second[1]))
            self.cl.sent_compressed += 1
            self.cl.conn.send(comp)
        else:
            self.cl.conn.send(m)

    def interim(self, mid):
        """The STATUS_PENDING interim reply for mid."""
        r = h.Smb2Response(self.cl.conn.recv())
        self.test.assertEqual((r.message_id, r.status), (mid, STATUS_PENDING))


class PendingMemory(h.TestUser):
    """One worker, so its RSS is the server's."""
    workers = 1

    def setUp(self):
        super().setUp()
        if not os.access(c.xca_tool(), os.X_OK):
            self.skipTest("no xca_tool in BUILDDIR")

    def attacker(self, compressed=True):
        a = Attacker(self, compressed)
        if compressed and not a.compressed:
            self.skipTest("the server does not negotiate compression "
                          "(Samba 4.17 does not)")
        return a

    def warm_up(self, a):
        """What the worker allocates once for any 8 MiB message (the
        decompression buffer, malloc's arenas) before the baseline."""
        for _ in range(2):
            mid = a.send_padded(ECHO, struct.pack("<HH", 4, 0))
            r = h.Smb2Response(a.cl.conn.recv())
            self.assertEqual((r.message_id, r.status), (mid, 0))
        time.sleep(0.2)
        return server_rss(self.smbd)

    def grown(self, rss0, what):
        time.sleep(0.3)
        g = server_rss(self.smbd) - rss0
        print("%s: %s: server RSS +%d KiB" %
              ("Samba" if self.smbd.samba else "ours", what, g))
        return g

    def assert_alive(self, a):
        """The attacker's connection still answers, and a fresh client
        logs on (nothing was dropped or stuck)."""
        mid, m = a.msg(ECHO, struct.pack("<HH", 4, 0))
        a.cl.send(m)
        while True:
            r = h.Smb2Response(a.cl.conn.recv())
            if r.message_id == mid:
                break
        self.assertEqual(r.status, 0)
        d = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                     algorithms=None)
        d.disconnect()

    def test_notify(self):
        """The issue's attack: 24 compressed NOTIFYs of ~130 bytes, each
        decompressing to 8 MiB, left pending."""
        a = self.attacker()
        fid = a.open("watched", FILE_DIRECTORY_FILE)
        rss0 = self.warm_up(a)
        for _ in range(NPENDING):
            a.interim(a.send_padded(NOTIFY, notify_body(fid)))
        g = self.grown(rss0, "%d compressed NOTIFYs pending, 8 MiB each "
                       "decompressed" % NPENDING)
        if not SANITIZED:
            self.assertLess(g, 24 * 1024)
        self.assert_alive(a)

    def test_lock(self):
        """The same with blocking LOCKs waiting for a range another
        handle holds."""
        a = self.attacker()
        holder = a.open("locked", FILE_NON_DIRECTORY_FILE)
        waiter = a.open("locked", FILE_NON_DIRECTORY_FILE)
        a.cl._request(LOCK, lock_body(holder, LOCKFLAG_EXCLUSIVE |
                                      LOCKFLAG_FAIL_IMMEDIATELY))
        rss0 = self.warm_up(a)
        for _ in range(NPENDING):
            a.interim(a.send_padded(LOCK, lock_body(waiter,
                                                    LOCKFLAG_EXCLUSIVE)))
        g = self.grown(rss0, "%d compressed blocking LOCKs pending, 8 MiB "
                       "each decompressed" % NPENDING)
        if not SANITIZED:
            self.assertLess(g, 24 * 1024)
        self.assert_alive(a)

    def test_create_waiting_for_break(self):
        """CREATEs waiting for a batch oplock's break (the holder never
        acknowledges) keep only their name and contexts."""
        holder = self.attacker()
        holder.open("batch", FILE_NON_DIRECTORY_FILE, oplock=OPLOCK_BATCH)
        a = self.attacker()
        rss0 = self.warm_up(a)
        n = 8
        for _ in range(n):
            a.interim(a.send_padded(CREATE, create_body(
                "batch", FILE_NON_DIRECTORY_FILE, disposition=1)))
        g = self.grown(rss0, "%d compressed CREATEs waiting for a break, "
                       "8 MiB each decompressed" % n)
        if not SANITIZED:
            self.assertLess(g, 16 * 1024)


class PendingMemoryPlain(h.TestUser):
    """The padded NOTIFYs without compression: 8 MiB each on the wire,
    ours and Samba's."""
    workers = 1

    def test_notify_plain(self):
        a = Attacker(self, compressed=False)
        fid = a.open("watched", FILE_DIRECTORY_FILE)
        n = 8
        for _ in range(2):
            mid = a.send_padded(ECHO, struct.pack("<HH", 4, 0))
            h.Smb2Response(a.cl.conn.recv())
        time.sleep(0.2)
        rss0 = server_rss(self.smbd)
        for _ in range(n):
            mid = a.send_padded(NOTIFY, notify_body(fid))
            r = h.Smb2Response(a.cl.conn.recv())
            self.assertEqual((r.message_id, r.status), (mid, STATUS_PENDING))
        time.sleep(0.3)
        g = server_rss(self.smbd) - rss0
        print("%s: %d plain NOTIFYs padded to 8 MiB pending (%d MiB sent): "
              "server RSS +%d KiB" % ("Samba" if self.smbd.samba else "ours",
                                      n, n * PAD // MIB, g))
        if not self.smbd.samba and not SANITIZED:
            self.assertLess(g, 24 * 1024)


class CompoundBound(h.TestUser):
    """A compound whose first request waits keeps the rest whole: the
    decompressed bytes a connection holds are bounded (here 24 MiB, three
    8 MiB messages), then the connection is dropped and logged."""
    workers = 1
    global_options = [("smbd max decompressed per connection", "24"),
                      ("smbd max decompressed per worker", "36")]

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("our parameters; Samba 4.17 does not "
                                    "compress")
        super().setUpClass()

    def setUp(self):
        super().setUp()
        if not os.access(c.xca_tool(), os.X_OK):
            self.skipTest("no xca_tool in BUILDDIR")

    def pending_compounds(self, a, n, name):
        holder = a.open(name, FILE_NON_DIRECTORY_FILE)
        waiter = a.open(name, FILE_NON_DIRECTORY_FILE)
        a.cl._request(LOCK, lock_body(holder, LOCKFLAG_EXCLUSIVE |
                                      LOCKFLAG_FAIL_IMMEDIATELY))
        for _ in range(n):
            a.send_compound((LOCK, lock_body(waiter, LOCKFLAG_EXCLUSIVE)),
                            (ECHO, struct.pack("<HH", 4, 0)))

    def test_connection_bound(self):
        since = self.smbd.log_size()
        rss0 = server_rss(self.smbd)
        a = Attacker(self)
        self.pending_compounds(a, 2, "c1")
        # two held: the connection lives
        self.assertIs(a.cl.conn.closed_by_peer(0.5), False)
        self.assertFalse(self.smbd.wait_log(
            r"smbd max decompressed per connection", 0.1, since=since))
        # the third fits (24 MiB), the fourth would make 32: dropped
        self.pending_compounds(a, 2, "c2")
        self.assertIs(a.cl.conn.closed_by_peer(5), True)
        self.assertTrue(self.smbd.wait_log(
            r"would hold \d+ bytes of decompressed messages, over smbd max "
            r"decompressed per connection = 24 MiB", since=since))
        g = server_rss(self.smbd) - rss0
        print("ours: LOCK+padded ECHO compounds past the connection's "
              "24 MiB: dropped, worker RSS +%d KiB" % g)
        self.server_alive()
        self.assert_negotiates()

    def test_worker_bound(self):
        """36 MiB per worker: a holds three messages (24 MiB), b one (8
        MiB); b's second would make 40: a, holding the most, is dropped;
        b goes on."""
        since = self.smbd.log_size()
        a = Attacker(self)
        b = Attacker(self)
        self.pending_compounds(a, 3, "w1")
        self.assertIs(a.cl.conn.closed_by_peer(0.5), False)
        self.pending_compounds(b, 1, "w2")
        self.assertIs(b.cl.conn.closed_by_peer(0.5), False)
        self.pending_compounds(b, 1, "w3")
        self.assertIs(a.cl.conn.closed_by_peer(5), True)
        self.assertTrue(self.smbd.wait_log(
            r"smbd max decompressed per worker = 36 MiB", since=since))
        # b lives: its ECHO after the waiting LOCKs' compounds... a plain
        # one on its own answers
        mid, m = b.msg(ECHO, struct.pack("<HH", 4, 0))
        b.cl.send(m)
        r = h.Smb2Response(b.cl.conn.recv())
        self.assertEqual((r.message_id, r.status), (mid, 0))
        self.server_alive()


h.backend_variants(globals(), PendingMemory, backends=("io_uring",))
h.backend_variants(globals(), PendingMemoryPlain, backends=("io_uring",))
h.backend_variants(globals(), CompoundBound, backends=("io_uring",))

if __name__ == "__main__":
    h.main()
