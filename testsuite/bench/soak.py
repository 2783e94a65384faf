#!/usr/bin/python3
"""Soak: the lock and status databases' sizes under churn, ours and Samba's.

Design
------
Issue 34 item 12: after an 8-minute soak our smbd_status.tdb held 2 live
and 15,367 dead records (5.4 MiB) while Samba's matching file stayed at
80 KiB.  This runs the same kind of churn against our smbd and Samba's at
the same time, in one run, each with the integration harness's smb.conf
(smbd_harness.Smbd: a temporary directory, a free loopback port), and
prints, every --interval seconds, for each server the size of each
database in its lock directory and its live, dead and free records as
`tdbtool FILE info` counts them (tdb_summary: it takes the database's
read lock for the count, a few milliseconds).

Churn, per server:
  * --clients nbench clients (testsuite/bench/nbench) replaying dbench's
    client.txt: opens and closes of many files, creates, deletes,
    renames, byte-range locks, each client on one session;
  * --logons processes of logon churn (impacket): logon, tree connect,
    create a file of a new name, write a byte, lock it, close, delete,
    tree disconnect, logoff, disconnect; every round new session, tree
    and open records, with new keys.
Both servers run at once on the same CPUs, so each gets about half the
machine; the figures to compare are the sizes against the operations
each one served (the "logons" and "nbench ops" columns), not against
time alone.

Files shown: ours smbd_status.tdb, smbd_share_modes.tdb, smbd_brlock.tdb;
Samba's locking.tdb, brlock.tdb and smbXsrv_{session,tcon,open,client}_
global.tdb (the last four together are what our status table holds).
The empty size of each file is its first sample (ours: 430 KiB of it is
the table of robust mutexes, one per hash chain).

Usage (root: Samba's smbd switches to the test user):
  soak.py --builddir BUILD [--time 300] [--interval 30] [--clients 2]
          [--logons 2] [--workers 2] [--only ours|samba] [--json FILE]
          [--ours PATH[=LABEL]]...
Several --ours (a build of main before a change, one after) soak side by
side with Samba's in the same run.
Exit status 1 when a server died or a churn process failed.
"""

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import smbd_harness as h  # noqa: E402

OURS_FILES = ("smbd_status.tdb", "smbd_share_modes.tdb", "smbd_brlock.tdb")
SAMBA_FILES = ("locking.tdb", "brlock.tdb", "smbXsrv_session_global.tdb",
               "smbXsrv_tcon_global.tdb", "smbXsrv_open_global.tdb",
               "smbXsrv_client_global.tdb")
LOADFILE = "/usr/share/dbench/client.txt"
INFO = {"records": re.compile(r"^Number of records: (\d+)", re.M),
        "dead": re.compile(r"^Number of dead records: (\d+)", re.M),
        "free": re.compile(r"^Number of free records: (\d+)", re.M)}


def tdb_info(path):
    """{bytes, records, dead, free} of a tdb file (counts None if
    tdbtool cannot read it)."""
    out = {"bytes": os.path.getsize(path)}
    try:
        r = subprocess.run(["tdbtool", path, "info"], capture_output=True,
                           text=True, timeout=60)
        text = r.stdout
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    for k, rx in INFO.items():
        m = rx.search(text)
        out[k] = int(m.group(1)) if m else None
    return out


def logon_churn(port, stop, count, errors, tag):
    """Rounds of logon ... logoff until stop is set; counts them."""
    import struct
    from impacket import smb3structs as s3
    from impacket.smbconnection import SMBConnection
    n = 0
    while not stop.is_set():
        try:
            c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port,
                              timeout=30,
                              preferredDialect=s3.SMB2_DIALECT_30)
            c.login(h.TEST_USER, h.TEST_PASSWORD)
            smb = c.getSMBServer()
            tid = c.connectTree("share")
            name = "soak_%s_%d.dat" % (tag, n)
            fid = c.createFile(tid, name)
            c.writeFile(tid, fid, b"x", 0)
            req = s3.SMB2Lock()
            req["FileID"] = fid
            req["LockCount"] = 1
            req["LockSequence"] = 0
            req["Locks"] = struct.pack("<QQII", 0, 1, 0x12, 0)
            pkt = smb.SMB_PACKET()
            pkt["Command"] = s3.SMB2_LOCK
            pkt["TreeID"] = tid
            pkt["Data"] = req
            smb.recvSMB(smb.sendSMB(pkt))
            c.closeFile(tid, fid)
            c.deleteFile("share", name)
            c.disconnectTree(tid)
            c.logoff()
            c.close()
            n += 1
            with count.get_lock():
                count.value += 1
        except Exception as e:
            with errors.get_lock():
                errors.value += 1
            sys.stderr.write("logon churn %s: %r\n" % (tag, e))
            time.sleep(0.5)


class Subject:
    """One server under soak: its harness instance and its churn."""

    def __init__(self, name, binary, workers, debug, samba=False):
        self.name = name
        self.files = SAMBA_FILES if samba else OURS_FILES
        self.srv = h.Smbd(binary=binary, workers=workers, debug=debug)
        self.srv.create_user(h.TEST_USER, h.TEST_PASSWORD)
        self.srv.start()
        self.lockdir = os.path.join(self.srv.tmp, "lock")
        self.stop = multiprocessing.Event()
        self.logons = multiprocessing.Value("q", 0)
        self.errors = multiprocessing.Value("q", 0)
        self.procs = []
        self.nbench = None
        self.nbench_out = None

    def start_load(self, nbench, clients, logons, seconds):
        if clients > 0:
            self.nbench_out = open(os.path.join(self.srv.tmp,
                                                "nbench.out"), "w+")
            self.nbench = subprocess.Popen(
                [nbench, "-S", "127.0.0.1", "-p", str(self.srv.port),
                 "-s", "share", "-U", "%s%%%s" % (h.TEST_USER,
                                                 h.TEST_PASSWORD),
                 "-n", str(clients), "-t", str(seconds), "-w", "0",
                 "-f", LOADFILE], stdout=self.nbench_out,
                stderr=subprocess.STDOUT)
        for i in range(logons):
            p = multiprocessing.Process(
                target=logon_churn, args=(self.srv.port, self.stop,
                                          self.logons, self.errors,
                                          "%s%d" % (self.name, i)),
                daemon=True)
            p.start()
            self.procs.append(p)

    def nbench_ops(self):
        """Operations nbench reported so far (its progress lines)."""
        if self.nbench_out is None:
            return 0
        self.nbench_out.flush()
        with open(self.nbench_out.name) as f:
            text = f.read()
        m = re.findall(r"ops_all=(\d+)", text)
        if m:
            return int(m[-1])
        m = re.findall(r"clients=\d+ ops=(\d+)", text)
        return int(m[-1]) if m else 0

    def sample(self):
        row = {"logons": self.logons.value, "nbench_ops": self.nbench_ops(),
               "files": {}}
        for f in self.files:
            p = os.path.join(self.lockdir, f)
            if os.path.exists(p):
                row["files"][f] = tdb_info(p)
        return row

    def finish(self):
        self.stop.set()
        for p in self.procs:
            p.join(60)
        if self.nbench is not None:
            try:
                self.nbench.wait(120)
            except subprocess.TimeoutExpired:
                self.nbench.kill()
        alive = self.srv.running()
        return alive


def fmt_file(info):
    kib = info["bytes"] / 1024.0
    if info["records"] is None:
        return "%8.0f KiB" % kib
    return "%8.0f KiB %6d/%6d/%5d" % (kib, info["records"], info["dead"],
                                       info["free"])


def print_row(t, name, row):
    print("%5ds %-8s logons %7d  nbench ops %9d" %
          (t, name, row["logons"], row["nbench_ops"]))
    for f, info in row["files"].items():
        print("         %-28s %s" % (f, fmt_file(info)))
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default=os.getcwd())
    p.add_argument("--ours", action="append", default=[],
                   help="our smbd binary, PATH[=LABEL]; several run side "
                   "by side (a build before a change and one after)")
    p.add_argument("--samba", default="/usr/sbin/smbd")
    p.add_argument("--only", choices=("samba", "ours"))
    p.add_argument("--time", type=int, default=300)
    p.add_argument("--interval", type=int, default=30)
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--logons", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--debug", type=int, default=0,
                   help="server log level (the log grows with it)")
    p.add_argument("--json", help="write every sample here")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("soak.py: needs root (Samba's smbd switches users)")
    ours = a.ours or [os.path.join(a.builddir, "smbd/smbd")]
    nbench = os.path.join(a.builddir, "testsuite/bench/nbench")
    if a.clients > 0 and not (os.access(nbench, os.X_OK) and
                              os.path.exists(LOADFILE)):
        sys.exit("soak.py: needs %s and %s (dbench)" % (nbench, LOADFILE))
    subjects = []
    try:
        if a.only != "samba":
            for i, spec in enumerate(ours):
                path, _, label = spec.partition("=")
                label = label or ("ours" if len(ours) == 1
                                  else "ours%d" % (i + 1))
                subjects.append(Subject(label, path, a.workers, a.debug))
        if a.only != "ours":
            subjects.append(Subject("samba", a.samba, None, a.debug,
                                    samba=True))
        samples = {s.name: [] for s in subjects}
        for s in subjects:
            samples[s.name].append((0, s.sample()))
            print_row(0, s.name, samples[s.name][-1][1])
        print("columns: size, then live/dead/free records")
        t0 = time.monotonic()
        for s in subjects:
            s.start_load(nbench, a.clients, a.logons, a.time)
        due = a.interval
        while True:
            left = t0 + due - time.monotonic()
            if left > 0:
                time.sleep(left)
            t = int(time.monotonic() - t0)
            for s in subjects:
                samples[s.name].append((t, s.sample()))
                print_row(t, s.name, samples[s.name][-1][1])
            if due >= a.time:
                break
            due = min(due + a.interval, a.time)
        bad = []
        for s in subjects:
            if not s.finish():
                bad.append("%s: the server died" % s.name)
            if s.errors.value:
                bad.append("%s: %d churn rounds failed" %
                           (s.name, s.errors.value))
            if s.nbench is not None and s.nbench.returncode not in (0,
                                                                    None):
                bad.append("%s: nbench exited %s" % (s.name,
                                                     s.nbench.returncode))
        print("\nsummary (first sample -> last):")
        for s in subjects:
            (_, first), (t, last) = samples[s.name][0], samples[s.name][-1]
            print("  %s after %d s: %d logon rounds, %d nbench ops" %
                  (s.name, t, last["logons"], last["nbench_ops"]))
            for f, info in last["files"].items():
                b0 = first["files"].get(f, {"bytes": 0})["bytes"]
                print("    %-28s %8.0f -> %8.0f KiB  live %s dead %s "
                      "free %s" % (f, b0 / 1024.0, info["bytes"] / 1024.0,
                                   info["records"], info["dead"],
                                   info["free"]))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(samples, f, indent=1)
        for b in bad:
            print("FAIL: " + b)
        return 1 if bad else 0
    finally:
        for s in subjects:
            s.stop.set()
            for pr in s.procs:
                if pr.is_alive():
                    pr.terminate()
            if s.nbench is not None and s.nbench.poll() is None:
                s.nbench.kill()
            s.srv.cleanup()


if __name__ == "__main__":
    sys.exit(main())
