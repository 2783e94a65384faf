#!/usr/bin/python3
"""Server cost of one client call, per kind of call, servers side by side.

Issue 18 asks that each operation kind be served inline on the loop
thread, by the ring or by the thread pool as measurement decides; this is
the measurement.  For each kind below, one libsmbclient client (python3-smbc,
one connection, one call in flight) repeats the call for --time seconds
against each server; the script prints

  - server CPU microseconds per call: utime+stime (and the reaped
    children's) of the server's process tree, before and after, divided
    by the calls made (the client's own CPU is not in it);
  - with --syscalls, system calls per call by name: a second pass with
    `strace -c -f` attached to the server's processes (ours: the workers
    and their pool threads; Samba: the master with -f before the client
    connects, so its per-connection child is followed), the counts
    divided by the calls that pass made.  strace makes that pass slow, so
    it is not the timed one.

Kinds (the SMB2 requests each libsmbclient call sends):
  open-close   open + close of an existing file: CREATE, CLOSE
  stat-handle  fstat of an open file: QUERY_INFO (basic, standard...)
  read-4k      4 KiB read at offset 0 of a cached file: READ
  write-4k     4 KiB write at offset 0: WRITE
  stat-path    stat of a path: CREATE, QUERY_INFO, CLOSE
  create-new   open with O_CREAT of a fresh name, then unlink:
               CREATE, CLOSE, CREATE (delete-on-close), CLOSE
  list-dir     listing of a 20-entry directory: CREATE, QUERY_DIRECTORY
               (until NO_MORE_FILES), CLOSE

Usage:
  opcost.py [--ours PATH[=LABEL]]... [--samba PATH | --no-samba]
            [--time S] [--syscalls] [--kinds k1,k2]
Several --ours binaries (e.g. a build of main before a change and one
after) run in the same invocation, alternating per kind, so their figures
compare.  Run as root (the harness adds a Unix user).
"""

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import smbd_harness as h  # noqa: E402

USER, PASSWORD = "opcost", "Opcost-Pass-1"
KINDS = ("open-close", "stat-handle", "read-4k", "write-4k", "stat-path",
         "create-new", "list-dir")

# The client: one process, one connection, the call in a loop for a
# fixed time; prints the number of calls made.  python3-smbc belongs to
# /usr/bin/python3.
CLIENT = r'''
import os, smbc, sys, time
port, user, pw, kind, secs = sys.argv[1], sys.argv[2], sys.argv[3], \
    sys.argv[4], float(sys.argv[5])
def auth(server, share, workgroup, username, password):
    return ("", user, pw)
ctx = smbc.Context(auth_fn=auth)
ctx.optionNoAutoAnonymousLogin = True
base = "smb://127.0.0.1:%s/share/" % port
f = None
if kind in ("stat-handle", "read-4k", "write-4k"):
    f = ctx.open(base + "data.bin", os.O_RDWR)
buf = b"w" * 4096
n = 0
end = time.monotonic() + secs
while time.monotonic() < end:
    for _ in range(20):
        if kind == "open-close":
            ctx.open(base + "data.bin", os.O_RDONLY).close()
        elif kind == "stat-handle":
            f.fstat()
        elif kind == "read-4k":
            f.seek(0); f.read(4096)
        elif kind == "write-4k":
            f.seek(0); f.write(buf)
        elif kind == "stat-path":
            ctx.stat(base + "data.bin")
        elif kind == "create-new":
            name = base + "new%d.tmp" % n
            ctx.open(name, os.O_CREAT | os.O_WRONLY, 0o644).close()
            ctx.unlink(name)
        elif kind == "list-dir":
            d = ctx.opendir(base + "dir20")
            d.getdents()
        n += 1
print("CALLS", n)
'''


def tree_pids(root):
    """root and every process below it."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def tree_cpu(root):
    """CPU seconds of the tree: each process's own and its reaped
    children's (Samba's per-connection children end up there)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in tree_pids(root):
        try:
            with open("/proc/%d/stat" % p) as f:
                s = f.read()
        except OSError:
            continue
        v = s[s.rindex(")") + 2:].split()
        total += sum(int(x) for x in v[11:15])
    return total / tick


def prepare(srv):
    share = srv.share
    with open(os.path.join(share, "data.bin"), "wb") as f:
        f.write(os.urandom(65536))
    os.mkdir(os.path.join(share, "dir20"))
    for i in range(20):
        open(os.path.join(share, "dir20", "f%02d.txt" % i), "w").close()
    for dirpath, dirs, files in os.walk(share):
        for n in dirs + files:
            os.chmod(os.path.join(dirpath, n), 0o777)
    os.chmod(share, 0o777)


def run_client(port, kind, secs):
    r = subprocess.run(["/usr/bin/python3", "-c", CLIENT, str(port), USER,
                        PASSWORD, kind, str(secs)],
                       capture_output=True, text=True, timeout=secs + 60)
    for line in r.stdout.splitlines():
        if line.startswith("CALLS "):
            return int(line.split()[1])
    raise RuntimeError("client failed for %s: %s" % (kind, r.stderr[-500:]))


def start(binary):
    srv = h.Smbd(binary=binary, workers=None if h.is_samba(binary) else 1,
                 debug=0)
    srv.start()
    srv.create_user(USER, PASSWORD)
    prepare(srv)
    return srv


def timed(srv, kind, secs):
    before = tree_cpu(srv.pid)
    calls = run_client(srv.port, kind, secs)
    time.sleep(0.3)   # Samba's child exits and is reaped
    return calls, (tree_cpu(srv.pid) - before) / max(calls, 1) * 1e6


def straced(srv, kind, secs):
    out = os.path.join(srv.tmp, "strace.out")
    pids = [srv.pid] if srv.samba else h.child_pids(srv.pid)
    cmd = ["strace", "-c", "-f", "-o", out]
    for p in pids:
        cmd += ["-p", str(p)]
    st = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    try:
        calls = run_client(srv.port, kind, secs)
        time.sleep(0.3)
    finally:
        st.send_signal(2)
        st.wait(timeout=30)
    rows = {}
    with open(out) as f:
        for line in f:
            v = line.split()
            if len(v) >= 5 and v[0][0].isdigit() and v[-1] != "total":
                rows[v[-1]] = int(v[3])
    return {k: n / max(calls, 1) for k, n in rows.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ours", action="append", default=[],
                   help="our smbd binary, PATH or PATH=LABEL (repeatable)")
    p.add_argument("--samba", default="/usr/sbin/smbd")
    p.add_argument("--no-samba", action="store_true")
    p.add_argument("--time", type=float, default=5.0)
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--syscalls", action="store_true")
    a = p.parse_args()
    servers = []
    for spec in a.ours or [h.smbd_binary()]:
        path, _, label = spec.partition("=")
        servers.append((label or "ours", os.path.abspath(path)))
    if not a.no_samba and os.access(a.samba, os.X_OK):
        servers.append(("samba", a.samba))
    kinds = [k for k in a.kinds.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            p.error("unknown kind %s (one of %s)" % (k, ", ".join(KINDS)))
    live = []
    try:
        for label, path in servers:
            live.append((label, start(path)))
        res = {}
        for i, k in enumerate(kinds):
            order = live if i % 2 == 0 else list(reversed(live))
            for label, srv in order:
                res[(k, label)] = timed(srv, k, a.time)
        print("server CPU per call, one client, %.0f s per point "
              "(alternating order)" % a.time)
        print("%-12s" % "kind" + "".join("%22s" % lb for lb, _ in live))
        for k in kinds:
            print("%-12s" % k + "".join(
                "%12.1f us %6d/s" % (res[(k, lb)][1],
                                     res[(k, lb)][0] / a.time)
                for lb, _ in live))
        if a.syscalls:
            for k in kinds:
                per = {lb: straced(srv, k, min(a.time, 3.0))
                       for lb, srv in live}
                names = sorted({n for d in per.values() for n in d},
                               key=lambda n: -max(d.get(n, 0)
                                                  for d in per.values()))
                print("\nsyscalls per call: %s" % k)
                print("  %-18s" % "total" + "".join(
                    "%10.1f" % sum(per[lb].values()) for lb, _ in live) +
                    "   (" + ", ".join(lb for lb, _ in live) + ")")
                for n in names:
                    if max(d.get(n, 0) for d in per.values()) < 0.05:
                        continue
                    print("  %-18s" % n + "".join(
                        "%10.2f" % per[lb].get(n, 0) for lb, _ in live))
    finally:
        for _, srv in live:
            srv.stop()
            srv.cleanup()


if __name__ == "__main__":
    main()
