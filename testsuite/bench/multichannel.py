#!/usr/bin/python3
"""One session reading two large cached files at once, over one channel
and over two (multichannel, MS-SMB2 3.3.5.5), ours and Samba's smbd side
by side in the same run (issue 19).

The client is impacket 0.10 with testsuite/integration/mchan.py for the
binding, dialect 3.0.2 and signing (impacket binds only a signed session,
so the server signs every READ reply with AES-128-CMAC on both sides).
One channel: one process keeps a READ of each file outstanding (two in
flight).  Two channels: a process per channel and file, one READ in
flight each, forked after the binding.  Two sessions: the same, but two
clients (own ClientGuids, own sessions), which a server may serve on two
CPUs: the bound on what spreading one session's channels over workers
could give (the design choice in smbd/conn/conn_handover.c).  Reads are of --chunk bytes; the
files are in the page cache before the first run.  Printed per server and
mode: MB/s of the whole (both files / wall time) and the server's CPU
seconds, the best of --runs.

    sudo python3 testsuite/bench/multichannel.py --builddir build
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import smbd_harness as h  # noqa: E402
import mchan  # noqa: E402
from impacket.smb3structs import SMB2_READ, SMB2Read  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
GENERIC_READ = 0x00120089


def cpu_seconds(pids):
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / tick


def server_pids(srv):
    return [srv.pid] + h.child_pids(srv.pid)


def read_all(ch, tid, fid, size, chunk):
    off = 0
    while off < size:
        n = min(chunk, size - off)
        data = ch.read(tid, fid, off, n)
        if len(data) != n:
            raise RuntimeError("short read at %d" % off)
        off += n


def send_read(ch, tid, fid, off, n, charge):
    """A READ sent without waiting (impacket's read() always waits)."""
    packet = ch.SMB_PACKET()
    packet['Command'] = SMB2_READ
    packet['TreeID'] = tid
    packet['CreditCharge'] = charge
    req = SMB2Read()
    req['Padding'] = 0x50
    req['FileID'] = fid
    req['Length'] = n
    req['Offset'] = off
    packet['Data'] = req
    return ch.sendSMB(packet)


def one_channel(s, tid, fids, size, chunk):
    ch = s.channels[0]
    conn = ch._Connection
    off = 0
    # impacket counts a multi-credit request's message ids only when its
    # answer is taken in order: two in flight need the ids set here
    mid = conn['SequenceWindow']
    while off < size:
        n = min(chunk, size - off)
        charge = 1 + (n - 1) // 65536
        ids = []
        for f in fids:
            conn['SequenceWindow'] = mid
            ids.append(send_read(ch, tid, f, off, n, charge))
            mid += charge
        for i in ids:
            ans = ch.recvSMB(i)
            if ans['Status'] != 0:
                raise RuntimeError("READ: 0x%08x" % ans['Status'])
        conn['SequenceWindow'] = mid
        off += n


def two_channels(s, tid, fids, size, chunk):
    pids = []
    tids = tid if isinstance(tid, list) else [tid, tid]
    for ch, t, fid in zip(s.channels, tids, fids):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                read_all(ch, t, fid, size, chunk)
            except Exception as e:  # reported, the parent fails the run
                print("reader: %s" % e, file=sys.stderr)
                code = 1
            os._exit(code)
        pids.append(pid)
    for pid in pids:
        _, st = os.waitpid(pid, 0)
        if st != 0:
            raise RuntimeError("a reader failed")


class _Two:
    """Two sessions of two clients (own ClientGuids), a file each: what
    a server does when nothing ties the two streams to one worker."""

    def __init__(self, port):
        self.sessions = [mchan.Session(port, USER, PASSWORD, timeout=60,
                                       same_guid=False) for _ in (0, 1)]
        self.channels = [x.channels[0] for x in self.sessions]

    def close(self):
        for x in self.sessions:
            x.close()


def measure(srv, size, chunk, runs, mode):
    best = None
    for _ in range(runs):
        if mode == "sessions":
            s = _Two(srv.port)
        else:
            s = mchan.Session(srv.port, USER, PASSWORD, timeout=60)
        try:
            if mode == "channels":
                s.bind()
            if mode == "sessions":
                tids, fids = [], []
                for i, x in enumerate(s.sessions):
                    tids.append(x.first.connectTree("share"))
                    fids.append(x.first.createFile(
                        tids[-1], "mc%d.bin" % i,
                        desiredAccess=GENERIC_READ, creationDisposition=1))
                tid = tids
            else:
                tid = s.first.connectTree("share")
                fids = [s.first.createFile(tid, "mc%d.bin" % i,
                                           desiredAccess=GENERIC_READ,
                                           creationDisposition=1)
                        for i in (0, 1)]
                for ch in s.channels[1:]:
                    ch._Session['TreeConnectTable'] = \
                        s.channels[0]._Session['TreeConnectTable']
            pids = server_pids(srv)
            c0, t0 = cpu_seconds(pids), time.monotonic()
            if mode == "one":
                one_channel(s, tid, fids, size, chunk)
            else:
                two_channels(s, tid, fids, size, chunk)
            wall = time.monotonic() - t0
            cpu = cpu_seconds(pids) - c0
        finally:
            s.close()
        mbs = 2 * size / wall / 1e6
        if best is None or mbs > best[0]:
            best = (mbs, cpu)
    return best


def run_server(name, binary, size, chunk, runs, workers=None):
    opts = {"server signing": "mandatory",
            "server multi channel support": "yes"}
    if name == "ours":
        # the two sessions' connections on two workers for sure (the
        # kernel's steering by receiving CPU may put both on one)
        opts["smbd spread connections"] = "yes"
    srv = h.Smbd(binary=binary, global_options=opts,
                 workers=workers if name == "ours" else None)
    try:
        srv.start()
        srv.create_user(USER, PASSWORD)
        for i in (0, 1):
            path = os.path.join(srv.share, "mc%d.bin" % i)
            with open(path, "wb") as f:
                block = os.urandom(1 << 20)
                for _ in range(size >> 20):
                    f.write(block)
            os.chmod(path, 0o644)
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass
        res = [measure(srv, size, chunk, runs, m)
               for m in ("one", "channels", "sessions")]
    finally:
        srv.cleanup()
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default="build")
    p.add_argument("--ours", help="our smbd (default: BUILDDIR's)")
    p.add_argument("--workers", type=int,
                   help="`smbd workers` for ours (default: one per CPU)")
    p.add_argument("--samba", default="/usr/sbin/smbd",
                   help="Samba's smbd; '' to leave it out")
    p.add_argument("--size-mib", type=int, default=256)
    p.add_argument("--chunk-kib", type=int, default=1024)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    ours = a.ours or os.path.join(os.path.abspath(a.builddir), "smbd",
                                  "smbd")
    size = a.size_mib << 20
    chunk = a.chunk_kib << 10
    rows = []
    for name, binary in (("ours", ours), ("samba", a.samba)):
        if not binary:
            continue
        if not os.access(binary, os.X_OK):
            print("%s: %s not found, skipped" % (name, binary))
            continue
        rows.append((name, run_server(name, binary, size, chunk,
                                      a.runs, a.workers)))
    print("\n2 x %d MiB cached files, %d KiB READs, signed (AES-CMAC), "
          "best of %d; %d CPUs" % (a.size_mib, a.chunk_kib, a.runs,
                                   os.cpu_count()))
    print("MB/s (server CPU s): one session over 1 channel, the same "
          "session over 2 channels, 2 sessions of 2 clients")
    print("%-6s %18s %18s %18s %8s" % ("server", "1 channel",
                                       "2 channels", "2 sessions",
                                       "2ch/1ch"))
    for name, (one, two, sess) in rows:
        print("%-6s %18s %18s %18s %8.2f" % (
            name, "%.0f (%.2f)" % one, "%.0f (%.2f)" % two,
            "%.0f (%.2f)" % sess, two[0] / one[0]))


if __name__ == "__main__":
    main()
