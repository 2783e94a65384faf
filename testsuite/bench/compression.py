#!/usr/bin/python3
"""Reading a large file with and without SMB 3.1.1 compression over
loopback (issue 20): MB/s and the server's CPU per GiB, ours, with Samba's
uncompressed read in the same run for scale (Samba 4.17 does not
compress: it answers NEGOTIATE without the compression context).

The client is testsuite/integration/smb3client.py (dialect 3.1.1, signed
with AES-CMAC, one 1 MiB READ in flight; it leaves the replies'
signatures unchecked, which in Python would cost it 5 ms per MiB); LZ4
replies are decoded with python3-lz4, Pattern_V1 ones by repeating the
byte.  Files, each in the
page cache before the first run:

  sparse  --size-mib of a file with no data written (all zeros): chained
          Pattern_V1 carries each 1 MiB READ in a few dozen bytes;
  text    --size-mib of English text (Debian's copyright files,
          repeated): LZ4 (unchained).

Modes per file: plain (no SMB2_READFLAG_REQUEST_COMPRESSED) and
compressed.  Printed: MB/s of file data, wire bytes per MiB, and the
server's CPU seconds per GiB, best of --runs.

First, each codec alone (the build's testsuite/integration/xca_tool
bench, one thread): the ratio and MB/s of CPU time compressing and
decompressing 8 MiB of text, zeros and random bytes; CPU ms per MB is
1000 / MB/s.  Pattern_V1 runs as the server sends it (a chained message
of one Pattern_V1 payload, only where the data is one byte repeated).

    sudo python3 testsuite/bench/compression.py --builddir build
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import smbd_harness as h  # noqa: E402
import smb3client as c  # noqa: E402

sys.path.insert(0, HERE)
from multichannel import cpu_seconds  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CHUNK = 1 << 20


class Counting(c.RawConn):
    """RawConn that counts the bytes it receives."""

    received = 0

    def recv(self):
        pdu = super().recv()
        Counting.received += len(pdu) + 4
        return pdu


CODECS = (("LZNT1", c.LZNT1), ("LZ77", c.LZ77),
          ("LZ77+Huffman", c.LZ77_HUFFMAN), ("Pattern_V1", c.PATTERN_V1),
          ("LZ4", c.LZ4))


def text_bytes(size):
    """English text: the Debian copyright files of this machine (license
    texts and prose, about 20 MB on a Debian 12 server), in a fixed
    order, repeated to size; made-up lines where there are too few."""
    root = "/usr/share/doc"
    parts, total = [], 0
    for pkg in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        p = os.path.join(root, pkg, "copyright")
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as f:
                parts.append(f.read())
            total += len(parts[-1])
            if total >= size:
                break
    text = b"".join(parts)
    if len(text) < (1 << 20):
        text = b"".join(b"%06d: it was the best of times, it was the "
                        b"worst of times\n" % i for i in range(20000))
    return (text * (size // len(text) + 1))[:size]


def codec_table(secs):
    import subprocess
    data = {"text": text_bytes(8 << 20), "zeros": bytes(8 << 20),
            "random": os.urandom(8 << 20)}
    print("codecs alone, 8 MiB, one thread: ratio, compress MB/s, "
          "decompress MB/s")
    print("%-13s %-7s %8s %12s %14s" % ("codec", "data", "ratio",
                                         "compress", "decompress"))
    for cname, alg in CODECS:
        for dname, d in data.items():
            r = subprocess.run([c.xca_tool(), "bench", str(alg), str(secs)],
                               input=d, capture_output=True, timeout=600)
            if r.returncode != 0:
                raise RuntimeError("xca_tool bench %d: %s" % (alg, r.stderr))
            ratio, cmb, dmb = r.stdout.decode().split()
            print("%-13s %-7s %8s %12s %14s" % (cname, dname, ratio, cmb,
                                                 dmb))
    sys.stdout.flush()


def make_files(share, size):
    with open(os.path.join(share, "sparse.bin"), "wb") as f:
        f.truncate(size)
    block = text_bytes(64 << 20)
    with open(os.path.join(share, "text.bin"), "wb") as f:
        left = size
        while left > 0:
            f.write(block[:left])
            left -= min(left, len(block))
    for name in ("sparse.bin", "text.bin"):
        p = os.path.join(share, name)
        os.chmod(p, 0o644)
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass


def read_file(srv, name, size, algs, chained, compressed):
    cl = c.Client(srv.port, USER, PASSWORD, algorithms=algs,
                  chained=chained, timeout=60)
    cl.conn.__class__ = Counting
    cl.verify = False   # the server signs; checking costs 5 ms/MiB here
    try:
        cl.tree_connect("share")
        fid = cl.create(name, disposition=1, access=0x00120089)
        Counting.received = 0
        pids = [srv.pid] + h.child_pids(srv.pid)
        c0, t0 = cpu_seconds(pids), time.monotonic()
        off = 0
        while off < size:
            data = cl.read(fid, off, CHUNK, request_compressed=compressed)
            if len(data) != min(CHUNK, size - off):
                raise RuntimeError("short read at %d" % off)
            off += len(data)
        wall = time.monotonic() - t0
        cpu = cpu_seconds(pids) - c0
        ncomp = len(cl.compressed)
        cl.close(fid)
    finally:
        cl.disconnect()
    if compressed and not srv.samba and ncomp == 0:
        raise RuntimeError("%s: no reply came compressed" % name)
    return (size / wall / 1e6, Counting.received / (size / CHUNK),
            cpu / (size / (1 << 30)))


def run_server(name, binary, size, runs):
    srv = h.Smbd(binary=binary,
                 global_options={"server signing": "mandatory"})
    rows = []
    try:
        srv.start()
        srv.create_user(USER, PASSWORD)
        make_files(srv.share, size)
        cases = [("sparse", "sparse.bin", (c.LZ4, c.PATTERN_V1), True),
                 ("text", "text.bin", (c.LZ4,), False)]
        for label, fname, algs, chained in cases:
            for compressed in (False, True):
                best = None
                for _ in range(runs):
                    r = read_file(srv, fname, size, algs, chained,
                                  compressed)
                    if best is None or r[0] > best[0]:
                        best = r
                mode = "plain"
                if compressed:
                    mode = "Pattern_V1+LZ4" if chained else "LZ4"
                rows.append((name, label, mode, best))
    finally:
        srv.cleanup()
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default="build")
    p.add_argument("--ours", help="our smbd (default: BUILDDIR's)")
    p.add_argument("--samba", default="/usr/sbin/smbd",
                   help="Samba's smbd; '' to leave it out")
    p.add_argument("--size-mib", type=int, default=1024)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--codec-seconds", type=float, default=1.0,
                   help="CPU seconds per codec figure (0: no codec table)")
    a = p.parse_args()
    os.environ.setdefault("BUILDDIR", os.path.abspath(a.builddir))
    if a.codec_seconds > 0:
        codec_table(a.codec_seconds)
    ours = a.ours or os.path.join(os.path.abspath(a.builddir), "smbd",
                                  "smbd")
    size = a.size_mib << 20
    rows = []
    for name, binary in (("ours", ours), ("samba", a.samba)):
        if not binary:
            continue
        if not os.access(binary, os.X_OK):
            print("%s: %s not found, skipped" % (name, binary))
            continue
        rows += run_server(name, binary, size, a.runs)
    print("\n%d MiB files, 1 MiB READs, one in flight, signed (AES-CMAC), "
          "best of %d; %d CPUs" % (a.size_mib, a.runs, os.cpu_count()))
    print("%-6s %-7s %-15s %9s %14s %14s" % (
        "server", "file", "mode", "MB/s", "wire B/MiB", "CPU s/GiB"))
    for name, label, mode, (mbs, wire, cpu) in rows:
        print("%-6s %-7s %-15s %9.0f %14.0f %14.2f" % (
            name, label, mode, mbs, wire, cpu))


if __name__ == "__main__":
    main()
