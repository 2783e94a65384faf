#!/usr/bin/python3
"""What clustering on CTDB costs, ours and Samba's smbd side by side in the
same run (issue 21).

For each server (ours, then Samba 4.17's /usr/sbin/smbd; --no-samba skips
it) the script starts a plain server (`clustering = no`, smbd_harness.Smbd
on 127.0.0.1) and, next to it, a 2-node CTDB cluster on 127.0.0.1 /
127.0.0.2 with one head per node (testsuite/cluster/ctdb_cluster.py,
`clustering = yes`, both heads serving one directory), and measures, the
points of a pair one after the other (the order within a pair flips for
the second server):

  1. one head, clustering = no vs = yes (head 1 of the cluster):
     (a) opens/s: --clients processes (python3-smbc, one libsmbclient
         context and connection each) doing open(O_RDONLY) + close of an
         existing file in a loop, each client its own file;
     (b) NBENCH: this directory's nbench, --clients clients, dbench's
         client.txt.
  2. two heads vs one, clustered:
     (a) contended: the same open + close loop, every client on ONE file,
         all clients on head 1 vs half on head 1 and half on head 2 (so
         that file's share-mode record migrates between the nodes);
         uncontended opens, each client its own file, split across the
         heads, as a reference;
     (b) uncontended NBENCH: nbench with half the clients against head 1
         and the other half against head 2 at the same time (each nbench
         in its own subdirectory, so every client has its own files), the
         sum of their ops/s, vs all the clients on head 1 (the 1(b) point).

The open loops are timed over a window that every client is inside: each
client connects and opens its file 20 times, says READY, and on the
script's word loops until the window's end; the script samples CPU at
the window's start and end, and each client counts the opens that
completed within it (split points also print the opens/s through each
head, to show whether one head's clients starve).  nbench's CPU is taken
over its whole run and divided by its ops_all (warm-up included), as
metrics_cost.py does.  Per point it prints

  ops/s      opens (open + close pairs) or nbench operations per second;
  smbd us/op server CPU (utime + stime of the server processes and their
             reaped children: ours' master and workers, Samba's parent and
             per-connection children) per operation, both heads summed;
  ctdbd us/op the same for the ctdbd daemons of both nodes (with their
             recovery daemon, eventd and lock helpers);
  busy       how busy the machine's CPUs were (100% = all of them): the
             clients run here too, so on a small machine throughput is
             bound by CPU and the CPU per operation is the steadier figure.

No figure is asserted; the script fails only when a server or client
fails (then it prints the server logs' tails).  Run as root (ctdbd, the
test user), with Debian's python3 (python3-smbc):

    sudo /usr/bin/python3 testsuite/bench/cluster.py --builddir build

About 5 minutes with the defaults (--time 15 --clients 4).  SMBD_KEEP=1
keeps the directories (plain server: /tmp/smbd-test-*, cluster:
/tmp/ctdb-*/ with n*/ctdbd.log and smb-*/s*/smbd.log).
"""

import argparse
import os
import select
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cluster"))
sys.path.insert(0, HERE)
import smbd_harness as h  # noqa: E402
import ctdb_cluster as cc  # noqa: E402
from compare import parse_result  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
CALL_TIMEOUT_MS = 15000      # libsmbclient's limit per SMB call
NB_OP_TIMEOUT_MS = 30000     # nbench's

# One open-loop client: one libsmbclient context (one connection); after
# connecting and a few opens it prints READY and waits for "T0 T1" on
# stdin, then does open + close of one file until T1 and counts the pairs
# that completed in [T0, T1] (CLOCK_MONOTONIC is the same for every
# process).
CLIENT = r'''
import os, smbc, sys, time
host, port, user, pw, name = sys.argv[1:6]
tmo = int(sys.argv[6])
def auth(server, share, workgroup, username, password):
    return ("", user, pw)
ctx = smbc.Context(auth_fn=auth)
ctx.optionNoAutoAnonymousLogin = True
ctx.timeout = tmo
url = "smb://%s:%s/share/%s" % (host, port, name)
for _ in range(20):
    ctx.open(url, os.O_RDONLY).close()
print("READY", flush=True)
t0, t1 = (float(x) for x in sys.stdin.readline().split())
n = errs = 0
first = ""
while True:
    if time.monotonic() >= t1:
        break
    try:
        ctx.open(url, os.O_RDONLY).close()
    except Exception as e:
        errs += 1
        first = first or repr(e)
        time.sleep(0.01)
        continue
    now = time.monotonic()
    if t0 <= now <= t1:
        n += 1
print("RESULT %d %d %s" % (n, errs, first.replace("\n", " ")), flush=True)
'''


# ---------------------------------------------------------------------------
# CPU accounting

def _stat_map():
    """{pid: (ppid, utime+stime+cutime+cstime ticks)} of every process."""
    m = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                v = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        m[int(d)] = (int(v[1]), sum(int(x) for x in v[11:15]))
    return m


def tree_cpu(roots):
    """CPU seconds of the process trees under roots: each process's own
    and its reaped children's (Samba's per-connection children, ctdbd's
    lock helpers end up in their parent's cutime/cstime)."""
    m = _stat_map()
    kids = {}
    for p, (pp, _) in m.items():
        kids.setdefault(pp, []).append(p)
    total, seen, todo = 0, set(), [r for r in roots if r]
    while todo:
        p = todo.pop()
        if p in seen or p not in m:
            continue
        seen.add(p)
        total += m[p][1]
        todo += kids.get(p, [])
    return total / os.sysconf("SC_CLK_TCK")


def machine_busy():
    """(busy ticks, all ticks) of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


class Meter:
    """CPU of the server and ctdbd process trees over a window."""

    def __init__(self, server_roots, ctdb_roots):
        self.s, self.c = list(server_roots), list(ctdb_roots)

    def sample(self):
        return (tree_cpu(self.s), tree_cpu(self.c)) + machine_busy()

    @staticmethod
    def delta(a, b):
        busy = (b[2] - a[2]) / max(b[3] - a[3], 1)
        return b[0] - a[0], b[1] - a[1], busy


# ---------------------------------------------------------------------------
# the two loads

def sleep_until(t):
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)


def open_loop(meter, targets, secs):
    """targets: [(host, port, file name)], one client each.  Returns
    (opens, smbd s, ctdbd s, busy, notes, {(host, port): opens})."""
    procs = []
    for host, port, name in targets:
        procs.append(subprocess.Popen(
            ["/usr/bin/python3", "-c", CLIENT, host, str(port), USER,
             PASSWORD, name, str(CALL_TIMEOUT_MS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.PIPE))
    try:
        # every client connected (READY) before the window opens
        deadline = time.monotonic() + CALL_TIMEOUT_MS / 1000 + 30
        for p, (host, port, _) in zip(procs, targets):
            ready = ""
            while not ready:
                left = deadline - time.monotonic()
                if left <= 0 or p.poll() is not None:
                    break
                r, _, _ = select.select([p.stdout], [], [], min(left, 1.0))
                if r:
                    ready = p.stdout.readline() or "EOF"
            if ready.strip() != "READY":
                if p.poll() is None:
                    p.kill()
                raise RuntimeError("open client on %s:%d did not connect: "
                                   "%s" % (host, port, p.stderr.read()[-1500:]
                                           if p.poll() is not None else
                                           "timed out"))
        t0 = time.monotonic() + 0.3
        t1 = t0 + secs
        for p in procs:
            p.stdin.write("%r %r\n" % (t0, t1))
            p.stdin.flush()
        sleep_until(t0)
        a = meter.sample()
        sleep_until(t1)
        b = meter.sample()
        total, notes, per_head = 0, [], {}
        for p, (host, port, _) in zip(procs, targets):
            out, err = p.communicate(timeout=CALL_TIMEOUT_MS / 1000 + 30)
            line = [x for x in out.splitlines() if x.startswith("RESULT ")]
            if p.returncode != 0 or not line:
                raise RuntimeError("open client on %s:%d failed (rc %s): %s"
                                   % (host, port, p.returncode, err[-1500:]))
            v = line[0].split(None, 3)
            total += int(v[1])
            per_head[(host, port)] = (per_head.get((host, port), 0) +
                                      int(v[1]))
            if int(v[2]):
                notes.append("%s:%d %s errors (first: %s)" %
                             (host, port, v[2], v[3] if len(v) > 3 else ""))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)
    cs, cc_, busy = Meter.delta(a, b)
    return total, cs, cc_, busy, notes, per_head


def nbench_run(a, meter, targets):
    """targets: [(host, port, subdir, clients)], one nbench each, all at
    once, each in share/subdir (own client directories).  Returns
    (ops/s summed, ops_all summed, smbd s, ctdbd s, busy, notes)."""
    procs = []
    m0 = meter.sample()
    for host, port, sub, n in targets:
        cmd = [a.nbench, "-S", host, "-p", str(port), "-s", "share/" + sub,
               "-U", USER, "-P", PASSWORD, "-n", str(n), "-t", str(a.time),
               "-w", str(a.warmup), "--op-timeout", str(NB_OP_TIMEOUT_MS)]
        procs.append((cmd, subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL)))
    ops = ops_all = fails = 0
    notes = []
    try:
        for cmd, p in procs:
            out, _ = p.communicate(timeout=a.time + a.warmup + 120)
            res = parse_result(out)
            if res is None or p.returncode != 0:
                raise RuntimeError("nbench failed (rc %s): %s\n%s" %
                                   (p.returncode, " ".join(cmd),
                                    out[-2000:]))
            ops += float(res["ops"])
            ops_all += int(res["ops_all"])
            fails += int(res["fails"])
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)
    m1 = meter.sample()
    if fails:
        notes.append("nbench: %d failed operations" % fails)
    cs, cc_, busy = Meter.delta(m0, m1)
    return ops, ops_all, cs, cc_, busy, notes


# ---------------------------------------------------------------------------

def prepare(share, nclients):
    """The files the open loops use and nbench's subdirectories."""
    with open(os.path.join(share, "same.dat"), "wb") as f:
        f.write(b"x" * 4096)
    for i in range(nclients):
        with open(os.path.join(share, "own%d.dat" % i), "wb") as f:
            f.write(b"x" * 4096)
    for sub in ("nb1", "nb2"):
        os.makedirs(os.path.join(share, sub), exist_ok=True)
    for dirpath, dirs, files in os.walk(share):
        for n in dirs + files:
            os.chmod(os.path.join(dirpath, n), 0o777)
    os.chmod(share, 0o777)


def wipe_nbench(share):
    for sub in ("nb1", "nb2"):
        shutil.rmtree(os.path.join(share, sub, "clients"),
                      ignore_errors=True)


class Setup:
    """One server kind: a plain server and a clustered pair, both up."""

    def __init__(self, label, binary, a):
        self.label, self.binary, self.a = label, binary, a
        self.plain = self.cluster = self.heads = None

    def start(self):
        a = self.a
        self.plain = h.Smbd(binary=self.binary, debug=a.debug)
        self.plain.start()
        self.plain.create_user(USER, PASSWORD)
        prepare(self.plain.share, a.clients)
        self.cluster = cc.CtdbCluster(nodes=2)
        self.cluster.start()
        self.heads = cc.ClusterSmbd(self.cluster, binary=self.binary,
                                    debug=a.debug)
        self.heads.start()
        self.heads.create_user(USER, PASSWORD)
        prepare(self.heads.share, a.clients)
        ctdb_roots = [p.pid for p in self.cluster.procs]
        self.m_plain = Meter([self.plain.pid], [])
        self.m_clu = Meter([s.proc.pid for s in self.heads.servers],
                           ctdb_roots)
        return self

    def check(self):
        """Every server and ctdbd still running, else the logs."""
        bad = []
        if not self.plain.running():
            bad.append("plain server exited (rc %s)\n%s" %
                       (self.plain.proc.returncode if self.plain.proc
                        else "?", self.plain.log_tail(40)))
        for s in self.heads.servers:
            if not s.running():
                bad.append("head %d exited (rc %s)\n%s" %
                           (s.i + 1, s.proc.returncode if s.proc else "?",
                            s.log_tail(40)))
        for i in range(self.cluster.n):
            if not self.cluster.running(i):
                bad.append("ctdbd of node %d exited\n%s" %
                           (i, cc.tail(self.cluster.log(i), 30)))
        if bad:
            raise RuntimeError("\n".join(bad))

    def logs(self, n=25):
        return ("--- plain: %s\n%s\n" % (self.plain.log,
                                         self.plain.log_tail(n)) +
                self.heads.log_tails(n) + "\n" +
                "\n".join("--- ctdbd %d: %s\n%s" %
                          (i, self.cluster.log(i),
                           cc.tail(self.cluster.log(i), n))
                          for i in range(self.cluster.n)))

    def stop(self):
        for o in (self.heads, self.cluster, self.plain):
            if o is not None:
                try:
                    o.cleanup()
                except Exception as e:
                    sys.stderr.write("cleanup of %r: %s\n" % (o, e))


# (key, label): the rows, in the order they are printed
ROWS = [
    ("open-no", "1a opens/s, own file each, clustering=no"),
    ("open-yes", "1a opens/s, own file each, clustering=yes (head 1)"),
    ("nb-no", "1b nbench, clustering=no"),
    ("nb-yes", "1b nbench, clustering=yes (head 1) [= 2b one head]"),
    ("same-1", "2a opens/s, ONE file, all clients on head 1"),
    ("same-2", "2a opens/s, ONE file, clients split on heads 1+2"),
    ("own-2", "2a' opens/s, own file each, split on heads 1+2"),
    ("nb-2", "2b nbench, clients split on heads 1+2 (sum)"),
]


def measure(setup, flip, a, res, notes, log):
    """Every point for one server, pairs in flipped order if flip."""
    n = a.clients
    p, hs = setup.plain, setup.heads
    h1 = (hs.host(0), hs.port(0))
    h2 = (hs.host(1), hs.port(1))
    half = n // 2

    def split(name_of):
        return [(h1 if i < n - half else h2) + (name_of(i),)
                for i in range(n)]

    points = {
        "open-no": lambda: open_loop(
            setup.m_plain, [("127.0.0.1", p.port, "own%d.dat" % i)
                            for i in range(n)], a.time),
        "open-yes": lambda: open_loop(
            setup.m_clu, [h1 + ("own%d.dat" % i,) for i in range(n)],
            a.time),
        "same-1": lambda: open_loop(
            setup.m_clu, [h1 + ("same.dat",) for i in range(n)], a.time),
        "same-2": lambda: open_loop(
            setup.m_clu, split(lambda i: "same.dat"), a.time),
        "own-2": lambda: open_loop(
            setup.m_clu, split(lambda i: "own%d.dat" % i), a.time),
        "nb-no": lambda: nbench_run(
            a, setup.m_plain, [("127.0.0.1", p.port, "nb1", n)]),
        "nb-yes": lambda: nbench_run(
            a, setup.m_clu, [h1 + ("nb1", n)]),
        "nb-2": lambda: nbench_run(
            a, setup.m_clu, [h1 + ("nb1", n - half), h2 + ("nb2", half)]),
    }
    pairs = [("open-no", "open-yes"), ("same-1", "same-2"), ("own-2",),
             ("nb-no", "nb-yes"), ("nb-2",)]
    for pair in pairs:
        for key in (reversed(pair) if flip else pair):
            wipe_nbench(p.share)
            wipe_nbench(hs.share)
            t = time.monotonic()
            r = points[key]()
            setup.check()
            if key.startswith("nb"):
                ops, ops_all, cs, cc_, busy, nn = r
                div = ops_all
            else:
                opens, cs, cc_, busy, nn, per_head = r
                ops, div = opens / a.time, opens
                if len(per_head) > 1:
                    nn.append("opens/s by head: " + ", ".join(
                        "%s %.0f" % (hp[0], c / a.time)
                        for hp, c in sorted(per_head.items())))
            res[(setup.label, key)] = (ops, cs / max(div, 1) * 1e6,
                                       cc_ / max(div, 1) * 1e6, busy)
            for x in nn:
                notes.append("%s %s: %s" % (setup.label, key, x))
            log("  %-8s %-9s %9.0f ops/s  smbd %7.1f us/op  ctdbd %7.1f "
                "us/op  busy %3.0f%%  (%.0f s)" %
                (setup.label, key, ops, res[(setup.label, key)][1],
                 res[(setup.label, key)][2], busy * 100,
                 time.monotonic() - t))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default=os.path.join(SRCDIR, "build"))
    p.add_argument("--ours", help="our smbd (default BUILDDIR/smbd/smbd)")
    p.add_argument("--samba", default="/usr/sbin/smbd")
    p.add_argument("--no-samba", action="store_true")
    p.add_argument("--samba-first", action="store_true",
                   help="measure Samba before ours")
    p.add_argument("--time", type=int, default=15,
                   help="measured seconds per point (open loops and "
                   "nbench -t)")
    p.add_argument("--warmup", type=int, default=5, help="nbench -w")
    p.add_argument("--clients", type=int, default=4,
                   help="clients per point (split points: half on each "
                   "head)")
    p.add_argument("--debug", type=int, default=0,
                   help="servers' debug level (logs: SMBD_KEEP=1)")
    a = p.parse_args()
    if a.clients < 2:
        p.error("--clients must be at least 2 (split points)")
    b = os.path.abspath(a.builddir)
    a.nbench = os.path.join(b, "testsuite", "bench", "nbench")
    ours = os.path.abspath(a.ours or os.path.join(b, "smbd", "smbd"))
    for path in (a.nbench, ours):
        if not os.access(path, os.X_OK):
            p.error("%s missing (build it)" % path)
    if not cc.ctdb_installed():
        p.error("ctdbd / ctdb not installed (Debian package ctdb)")
    if os.geteuid() != 0:
        p.error("run as root (ctdbd, the test user)")
    servers = [("ours", ours)]
    if not a.no_samba and os.access(a.samba, os.X_OK):
        servers.append(("samba", a.samba))
    if a.samba_first:
        servers.reverse()

    t_all = time.monotonic()

    def log(msg):
        print("[%5.0f s] %s" % (time.monotonic() - t_all, msg))
        sys.stdout.flush()

    res, notes, failed = {}, [], []
    for k, (label, binary) in enumerate(servers):
        st = Setup(label, binary, a)
        try:
            log("%s: starting a plain server and a 2-node cluster (%s)" %
                (label, binary))
            st.start()
            log("%s: cluster up in %.1f s, heads %s:%d and %s:%d" %
                (label, st.cluster.start_seconds, st.heads.host(0),
                 st.heads.port(0), st.heads.host(1), st.heads.port(1)))
            measure(st, k % 2 == 1, a, res, notes, log)
        except Exception as e:
            failed.append(label)
            log("%s FAILED: %s" % (label, e))
            try:
                print(st.logs())
            except Exception:
                pass
        finally:
            st.stop()

    labels = [lb for lb, _ in servers]
    print("\ncluster.py: %d clients, %d s per point (nbench -w %d), %d CPUs,"
          " %.0f s in all" % (a.clients, a.time, a.warmup, os.cpu_count(),
                              time.monotonic() - t_all))
    print("ops/s: opens (open+close) or nbench ops; us/op: server CPU per "
          "op (both heads), ctdbd: both ctdbd trees; busy: all CPUs")
    w = 52
    print("%-*s" % (w, "") + "".join(
        "| %-36s" % lb for lb in labels))
    print("%-*s" % (w, "point") + "".join(
        "| %8s %9s %9s %6s " % ("ops/s", "smbd us", "ctdbd us", "busy")
        for _ in labels))
    for key, title in ROWS:
        line = "%-*s" % (w, title)
        for lb in labels:
            r = res.get((lb, key))
            if r is None:
                line += "| %-36s" % "-"
            else:
                line += "| %8.0f %9.1f %9.1f %5.0f%% " % (r[0], r[1], r[2],
                                                         r[3] * 100)
        print(line)
    print("\nratios (ops/s; server+ctdbd CPU per op):")
    for num, den, what in (("open-yes", "open-no", "1a opens yes/no"),
                           ("nb-yes", "nb-no", "1b nbench yes/no"),
                           ("same-2", "same-1", "2a one file, 2 heads/1"),
                           ("own-2", "open-yes", "2a' own files, 2 heads/1"),
                           ("nb-2", "nb-yes", "2b nbench, 2 heads/1")):
        line = "  %-28s" % what
        for lb in labels:
            x, y = res.get((lb, num)), res.get((lb, den))
            if x and y and y[0] and (y[1] + y[2]):
                line += "  %s %.2f; %.2f" % (lb, x[0] / y[0],
                                             (x[1] + x[2]) / (y[1] + y[2]))
        print(line)
    for x in notes:
        print("note: " + x)
    if failed:
        print("FAILED: %s" % ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
