#!/usr/bin/python3
"""Large directories: different-case opens/s and a full listing's time.

Issue 18's "Large directories" target, ours and Samba's smbd side by side
from one run.  Each server's share gets a directory `big` of N files
(default 100,000), made directly on disk, named `File_0000000.dat` ...
Then, per server, alternating the order between rounds:

* **opens/s in another case**: one impacket connection opens and closes,
  for --time seconds after --warmup seconds, randomly chosen names spelled
  in upper case (`BIG\\FILE_0012345.DAT`): no exact match exists, so the
  server must find the name case-insensitively (a scan of the directory
  without a name cache);
* **opens/s in the exact case**, the same loop with the names as on disk:
  the client's and the open path's own ceiling, to read the first against;
* **listing**: `smbclient -c "cd big; ls"` run --listings times, its wall
  time minus that of `smbclient -c "cd big"` (logon and tree connect);
  the median, and the number of entries listed (must be N + 2); and the
  server's CPU seconds for it (its process tree's, as compare.py counts
  them, the same difference), which smbclient's own time does not blur.

The servers are started by compare.py's Bench/Server code (imported, not
copied): the same smb.conf text, each its own state directories, share and
free loopback port, ours with `smbd workers = --workers`.  Needs root
(Samba's smbd switches to the benchmark user) and Debian's python3 with
python3-impacket.

Usage: bigdir.py [--builddir DIR] [--files N] [--time S] [--warmup S]
                 [--listings R] [--rounds K] [--only ours|samba] [--seed X]
"""

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

FILE_READ_ATTRIBUTES = 0x80
SYNCHRONIZE = 0x100000
SHARE_ALL = 0x7
FILE_OPEN = 1
FILE_NON_DIRECTORY_FILE = 0x40


def file_name(i):
    return "File_%07d.dat" % i


def fill(directory, n):
    """N empty files, made on disk (not through SMB); readable by all."""
    os.makedirs(directory, exist_ok=True)
    os.chmod(directory, 0o777)
    for i in range(n):
        fd = os.open(os.path.join(directory, file_name(i)),
                     os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o666)
        os.close(fd)


def impacket_opener(s, user, password):
    """(open+close of one name, close the connection) with impacket."""
    from impacket.smbconnection import SMBConnection
    from impacket import smb3structs as s3
    c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=s.port,
                      timeout=30, preferredDialect=s3.SMB2_DIALECT_30)
    c.login(user, password)
    smb = c.getSMBServer()
    tid = c.connectTree("share")

    def one(name):
        fid = smb.create(tid, name.replace("/", "\\"),
                         FILE_READ_ATTRIBUTES | SYNCHRONIZE, SHARE_ALL,
                         FILE_NON_DIRECTORY_FILE, FILE_OPEN, 0)
        smb.close(tid, fid)
    return one, c.close


def smbc_opener(s, user, password):
    """The same with libsmbclient (python3-smbc): its C client costs
    less per call than impacket's Python, so the rate is more the
    server's.  The context keeps one connection to the server."""
    import smbc
    ctx = smbc.Context(auth_fn=lambda *args: ("", user, password))
    ctx.optionNoAutoAnonymousLogin = True
    base = "smb://127.0.0.1:%d/share/" % s.port

    def one(name):
        ctx.open(base + name, os.O_RDONLY).close()
    return one, lambda: None


def opens_per_second(a, s, user, password, upper, seed):
    """(opens/s, errors) of open+close loops on one connection."""
    one, done_with = (smbc_opener if a.client == "smbc"
                      else impacket_opener)(s, user, password)
    n, seconds, warmup = a.files, a.time, a.warmup
    rnd = random.Random(seed)
    done, errors = 0, 0
    start = time.monotonic()
    measure_from = start + warmup
    end = measure_from + seconds
    while True:
        now = time.monotonic()
        if now >= end:
            break
        name = "big/" + file_name(rnd.randrange(n))
        if upper:
            name = name.upper()
        try:
            one(name)
        except Exception:  # the client's error for a wrong answer
            errors += 1
            continue
        if now >= measure_from:
            done += 1
    done_with()
    return done / seconds, errors


def smbclient_time(b, s, command):
    """(wall seconds, stdout) of one smbclient run of COMMAND."""
    cmd = ["smbclient", "//127.0.0.1/share", "-p", str(s.port),
           "-s", b.client_conf, "-U", "%s%%%s" % (b.a.user, b.password),
           "-c", command]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    t = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("smbclient %r on %s: %s" %
                           (command, s.name, (r.stdout + r.stderr)[-300:]))
    return t, r.stdout


def listing(b, s, runs):
    """(median seconds of a full listing, entries in the last one, the
    server's CPU seconds per listing)."""
    times, cpu, entries = [], [], 0
    tries = 0
    while len(times) < runs:
        tries += 1
        s.settle()
        c0 = s.cpu_seconds()
        base, _ = smbclient_time(b, s, "cd big")
        s.settle()
        c1 = s.cpu_seconds()
        try:
            full, out = smbclient_time(b, s, "cd big; ls")
        except RuntimeError as e:
            # Seen on this shared machine under heavy load, with both
            # servers: say so, and try again (at most twice per run).
            compare.log("%s: listing failed (%s)" % (s.name,
                                                     str(e)[-120:]))
            s.failures = getattr(s, "failures", 0) + 1
            if tries >= 3 * runs:
                raise
            continue
        s.settle()
        c2 = s.cpu_seconds()
        times.append(max(full - base, 0.0))
        cpu.append(max((c2 - c1) - (c1 - c0), 0.0))
        entries = sum(1 for ln in out.splitlines()
                      if ln.startswith("  ") and " blocks of size " not in ln)
    return statistics.median(times), entries, statistics.median(cpu)


def measure(b, s, a, rnd_seed):
    r = {}
    r["upper"], r["upper_err"] = opens_per_second(
        a, s, b.a.user, b.password, True, rnd_seed)
    r["exact"], r["exact_err"] = opens_per_second(
        a, s, b.a.user, b.password, False, rnd_seed)
    r["list_s"], r["entries"], r["list_cpu"] = listing(b, s, a.listings)
    return r


def report(a, res, servers):
    names = [n for n in ("ours", "samba") if n in res]
    print("Large directory: %d files in one directory, %d s per open "
          "figure (after %d s warm-up), listing median of %d"
          % (a.files, a.time, a.warmup, a.listings))
    print("%-34s" % "" + "".join("%14s" % n for n in names) +
          ("%14s" % "ours/samba" if len(names) == 2 else ""))

    def row(label, key, spec, higher_better=True):
        vals = [statistics.median(x[key] for x in res[n]) for n in names]
        line = "%-34s" % label + "".join(("%14" + spec) % v for v in vals)
        if len(vals) == 2 and not higher_better and vals[0] < 1e-3:
            # a listing within the noise of the logon it is set off
            # against (small --files): no ratio to speak of
            line += "%14s" % "n/a"
        elif len(vals) == 2 and vals[1] > 0:
            line += "%13.2fx" % (vals[0] / vals[1] if higher_better
                                 else vals[1] / vals[0])
        print(line)

    row("opens/s, name in upper case", "upper", ".1f")
    row("opens/s, name as on disk", "exact", ".1f")
    row("full listing, s (samba/ours)", "list_s", ".3f", False)
    row("server CPU s per listing (s/o)", "list_cpu", ".3f", False)
    row("entries listed", "entries", "d")
    for n in names:
        errs = sum(x["upper_err"] + x["exact_err"] for x in res[n])
        if errs:
            print("%s: %d opens failed (counted as not done)" % (n, errs))
        if getattr(servers[n], "failures", 0):
            print("%s: %d listings failed and were run again" %
                  (n, servers[n].failures))
        if any(x["entries"] != a.files + 2 for x in res[n]):
            print("%s: a listing did not have %d entries" %
                  (n, a.files + 2))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default=os.getcwd())
    p.add_argument("--ours", default=None,
                   help="our smbd (default BUILDDIR/smbd/smbd)")
    p.add_argument("--samba", default="/usr/sbin/smbd")
    p.add_argument("--only", choices=("samba", "ours"))
    p.add_argument("--files", type=int, default=100000)
    p.add_argument("--time", type=int, default=10, help="s per open figure")
    p.add_argument("--warmup", type=int, default=2, help="s before each")
    p.add_argument("--listings", type=int, default=3)
    p.add_argument("--rounds", type=int, default=1,
                   help="measure each server K times, alternating order")
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--client", choices=("smbc", "impacket"), default="smbc",
                   help="the opening client (default smbc)")
    p.add_argument("--workers", type=int, default=os.cpu_count())
    p.add_argument("--user", default="benchuser")
    p.add_argument("--results", default=None,
                   help="server logs (default BUILDDIR/bench-results)")
    p.add_argument("--tmpdir", default=None)
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    a.builddir = os.path.abspath(a.builddir)
    a.ours = a.ours or os.path.join(a.builddir, "smbd/smbd")
    a.results = os.path.abspath(a.results or
                                os.path.join(a.builddir, "bench-results"))
    if os.geteuid() != 0:
        compare.log("bigdir.py must run as root")
        return 2
    # What compare.Bench.setup reads besides the options above.
    a.ours_option, a.signing, a.encrypt = [], "off", "off"
    a.max_protocol = "SMB3"
    signal.signal(signal.SIGTERM, compare.on_signal)
    signal.signal(signal.SIGINT, compare.on_signal)
    b = compare.Bench(a)
    res = {}
    try:
        b.setup()
        for s in b.servers:
            t0 = time.monotonic()
            fill(os.path.join(s.share, "big"), a.files)
            compare.log("%s: %d files made in %.1f s" %
                        (s.name, a.files, time.monotonic() - t0))
        order = list(b.servers)
        for k in range(a.rounds):
            for s in (order if k % 2 == 0 else order[::-1]):
                compare.log("%s: round %d" % (s.name, k + 1))
                res.setdefault(s.name, []).append(
                    measure(b, s, a, a.seed + k))
    except (compare.Interrupted, RuntimeError, subprocess.SubprocessError,
            OSError) as e:
        compare.log("bigdir.py: %s" % e)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        b.cleanup()
    report(a, res, {s.name: s for s in b.servers})
    return 0


if __name__ == "__main__":
    sys.exit(main())
