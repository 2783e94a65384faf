#!/usr/bin/python3
"""What the live metrics cost (issue 20: under 2% of the Netbench
throughput): ours with `smbd metrics = yes` (the default) and with
`smbd metrics = no`, same binary, same machine, in one run.

Two servers are started, one each way, on their own ports and
directories; nbench (this directory's, dbench's client.txt) runs against
them in turn, --rounds times, so a drift of the machine's speed hits both
alike.  Printed per round and in all: nbench ops/s and MB/s of each, the
server CPU seconds per 1,000 operations, and the ratio on/off.

    sudo python3 testsuite/bench/metrics_cost.py --builddir build
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, HERE)
import smbd_harness as h  # noqa: E402
from compare import parse_result  # noqa: E402
from multichannel import cpu_seconds  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"


def run_point(a, srv, n):
    shutil.rmtree(os.path.join(srv.share, "clients"), ignore_errors=True)
    pids = [srv.pid] + h.child_pids(srv.pid)
    c0 = cpu_seconds(pids)
    cmd = [a.nbench, "-S", "127.0.0.1", "-p", str(srv.port), "-s", "share",
           "-U", USER, "-P", PASSWORD, "-n", str(n), "-t", str(a.time),
           "-w", str(a.warmup)]
    r = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=a.time + a.warmup + 120)
    res = parse_result(r.stdout + r.stderr)
    if res is None or not srv.running():
        raise RuntimeError("nbench failed (rc %d): %s" %
                           (r.returncode, (r.stdout + r.stderr)[-2000:]))
    cpu = cpu_seconds(pids) - c0
    return (float(res["ops"]), float(res["mbps"]),
            cpu * 1000.0 / int(res["ops_all"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default="build")
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--time", type=int, default=30, help="s per point")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    b = os.path.abspath(a.builddir)
    a.nbench = os.path.join(b, "testsuite", "bench", "nbench")
    binary = os.path.join(b, "smbd", "smbd")
    servers = {}
    try:
        for mode in ("on", "off"):
            srv = h.Smbd(binary=binary, debug=0, global_options={
                "smbd metrics": "yes" if mode == "on" else "no"})
            srv.start()
            srv.create_user(USER, PASSWORD)
            servers[mode] = srv
        res = {"on": [], "off": []}
        for i in range(a.rounds):
            for mode in (("on", "off") if i % 2 == 0 else ("off", "on")):
                res[mode].append(run_point(a, servers[mode], a.clients))
            print("round %d: on %.0f ops/s, off %.0f ops/s (%.3f)" % (
                i + 1, res["on"][-1][0], res["off"][-1][0],
                res["on"][-1][0] / res["off"][-1][0]))
            sys.stdout.flush()
    finally:
        for srv in servers.values():
            srv.cleanup()
    print("\nnbench %d clients, %d s per point + %d s warm-up, %d rounds; "
          "%d CPUs" % (a.clients, a.time, a.warmup, a.rounds,
                       os.cpu_count()))
    print("%-8s %10s %8s %14s" % ("metrics", "ops/s", "MB/s",
                                  "CPUs/1k ops"))
    mean = {}
    for mode in ("on", "off"):
        rows = res[mode]
        mean[mode] = [sum(r[k] for r in rows) / len(rows) for k in (0, 1, 2)]
        print("%-8s %10.0f %8.1f %14.4f" % (mode, *mean[mode]))
    print("on/off: ops/s %.3f, CPU per op %.3f" % (
        mean["on"][0] / mean["off"][0], mean["on"][2] / mean["off"][2]))


if __name__ == "__main__":
    main()
