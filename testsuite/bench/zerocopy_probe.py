#!/usr/bin/python3
"""Cached sequential get with and without cachestat(2) (issue 37): is
zero-copy READ still worth it where the kernel has no cachestat (Linux
before 6.5, Debian 12's 6.1) and vfs/handle_posix.c asks mincore(2)?

Four servers in one run, 2 workers each, the integration harness's
smb.conf and test user, a --mib MiB file in each share, read once
beforehand so it is cached:
  ours cachestat        as built (the kernel has cachestat);
  ours mincore          cachestat hidden by the LD_PRELOAD shim
                        testsuite/integration/nocachestat.so (make check
                        builds it): the fallback;
  ours no sendfile      `use sendfile = no`: the buffered READ on the
                        loop (preadv2 RWF_NOWAIT), what a 6.1 server did
                        before the fallback;
  samba                 /usr/sbin/smbd (no sendfile by default).
--rounds rounds after a warm-up, the servers interleaved in each: one
smbclient `get` of the file to /dev/null, unsigned and unsealed.  Per
server: smbclient's MB/s and the CPU seconds of the server's processes
over the get (the master, its workers, and children it reaped), median
and spread.

Usage: zerocopy_probe.py [--builddir BUILD] [--mib 256] [--rounds 5]
(root: the harness adds the test user).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))


def tree_cpu(pid, hz):
    """CPU seconds of pid, its descendants and the children it reaped."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        procs[int(d)] = fields
    kids = {}
    for p, f in procs.items():
        kids.setdefault(int(f[1]), []).append(p)
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        f = procs.get(p)
        if f is None:
            continue
        total += sum(int(x) for x in f[11:15])
        todo.extend(kids.get(p, []))
    return total / hz


def get_once(h, srv, timeout=120):
    r = subprocess.run(["smbclient", "//127.0.0.1/share", "-p",
                        str(srv.port), "-U", "%s%%%s" % (h.TEST_USER,
                                                         h.TEST_PASSWORD),
                        "-t", "60", "--client-protection=off", "-c",
                        "get seq.bin /dev/null"],
                       capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    m = re.search(r"average ([0-9.]+) KiloBytes/sec", r.stdout + r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError("get failed: %s" % (r.stdout + r.stderr))
    return float(m.group(1)) * 1024 / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default=os.getcwd())
    p.add_argument("--mib", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    os.environ["BUILDDIR"] = os.path.abspath(a.builddir)
    import smbd_harness as h
    shim = os.path.join(os.environ["BUILDDIR"], "testsuite", "integration",
                        "nocachestat.so")
    if not os.path.exists(shim):
        sys.exit("%s not built (make check builds it)" % shim)
    hz = os.sysconf("SC_CLK_TCK")
    configs = [("ours cachestat", {}),
               ("ours mincore", {"env": {"LD_PRELOAD": shim}}),
               ("ours no sendfile", {"share": [("use sendfile", "no")]}),
               ("samba", {"binary": "/usr/sbin/smbd"})]
    servers = []
    try:
        block = os.urandom(1 << 20)
        for name, c in configs:
            s = h.Smbd(binary=c.get("binary"), workers=2, debug=1,
                       share_options=c.get("share", []))
            s.env = c.get("env")
            s.create_user(h.TEST_USER, h.TEST_PASSWORD)
            s.start()
            s.name = name
            servers.append(s)
            path = os.path.join(s.share, "seq.bin")
            with open(path, "wb") as f:
                for _ in range(a.mib):
                    f.write(block)
            with open(path, "rb") as f:
                while f.read(1 << 22):
                    pass
        res = {s.name: [] for s in servers}
        for rnd in range(a.rounds + 1):
            for s in servers:
                c0 = tree_cpu(s.pid, hz)
                mbs = get_once(h, s)
                c1 = tree_cpu(s.pid, hz)
                if rnd > 0:     # round 0 warms up
                    res[s.name].append((mbs, c1 - c0))
        print("cached get of %d MiB, %d rounds, median (min-max)" %
              (a.mib, a.rounds))
        for s in servers:
            mb = [x[0] for x in res[s.name]]
            cpu = [x[1] for x in res[s.name]]
            print("%-18s %6.0f MB/s (%.0f-%.0f)  server CPU %.2f s "
                  "(%.2f-%.2f)" % (s.name, statistics.median(mb), min(mb),
                                   max(mb), statistics.median(cpu),
                                   min(cpu), max(cpu)))
        fell = [s.name for s in servers
                if "no cachestat(2) on this kernel" in s.log_text()]
        print("logged the fallback: %s" % (", ".join(fell) or "none"))
    finally:
        for s in servers:
            s.cleanup()


if __name__ == "__main__":
    main()
