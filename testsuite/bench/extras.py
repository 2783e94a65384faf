"""compare.py's optional figures (issue 18's "Must show"), ours and Samba's
from the same run, with the servers compare.py started:

  * syscalls per SMB operation, by syscall (--syscalls N): one nbench
    point of N clients with `strace -c -f` attached to every process of
    the server's tree (ours: master and workers, -f adds their pool
    threads; Samba: master and helpers, -f adds the per-connection
    children it forks once the clients connect).  Each syscall's count is
    divided by every operation nbench sent in the point (ops_all).  The
    tracing slows the servers, so the point's timing says nothing and it
    is kept apart from the timed ones.
  * memory per connection at scale (--scale N): N logged-on idle
    connections (`nbench --idle-connections` in processes of at most
    1,000 each), PSS of the server's tree with them minus idle, divided
    by N; descriptors of the tree; the tree's CPU while they are held.
    Samba forks a process per connection, so it gets min(N,
    --samba-scale).
  * a connect storm (--storm SECONDS): logons.py from --storm-procs
    processes, once logging on and off on one connection per process and
    once with a new TCP connection per logon.
  * plain / signed / encrypted (--crypto): nbench at --crypto-clients and
    a cached --seq-mib read in each mode, as ratios to plain; the dialect,
    signing algorithm and cipher each server chose are read from a
    capture on lo (AF_PACKET) of one nbench connection in that mode, and
    so is how many of the server's replies were signed or encrypted.
"""

import os
import re
import resource
import select
import signal
import socket
import struct
import subprocess
import threading
import time

CHUNK = 1000           # idle connections per nbench process
SIGNING_ALGS = {0: "HMAC-SHA256", 1: "AES-CMAC", 2: "AES-GMAC"}
CIPHERS = {1: "AES-128-CCM", 2: "AES-128-GCM", 3: "AES-256-CCM",
           4: "AES-256-GCM"}
MODES = (("plain", "off", "off"), ("signed", "on", "off"),
         ("encrypted", "off", "on"))


def log(msg):
    import sys
    print(msg, file=sys.stderr, flush=True)


def raise_nofile():
    """preexec_fn: the soft descriptor limit up to the hard one (a client
    process holding 1,000 connections needs more than the usual 1,024)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def tree_fds(tree):
    """(descriptors of all of TREE, the most one process holds): the
    second is what meets RLIMIT_NOFILE."""
    counts = [0]
    for pid in tree:
        try:
            counts.append(len(os.listdir("/proc/%d/fd" % pid)))
        except OSError:
            pass
    return sum(counts), max(counts)


# ----- syscalls per operation ---------------------------------------------
def parse_strace_c(text):
    """{syscall: [calls, errors]} from `strace -c`'s table."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if len(f) < 5 or f[-1] == "total" or not f[0][0].isdigit():
            continue
        rows[f[-1]] = [int(f[3]), int(f[4]) if len(f) == 6 else 0]
    return rows


class Strace:
    """`strace -c -f` attached to PIDS while the context is held."""

    def __init__(self, pids, out):
        self.pids, self.out, self.proc = pids, out, None

    def __enter__(self):
        cmd = ["strace", "-c", "-f", "-o", self.out]
        for pid in self.pids:
            cmd += ["-p", str(pid)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        time.sleep(2.0)  # attaching every thread takes a moment
        if self.proc.poll() is not None:
            raise RuntimeError("strace exited at once (status %d)" %
                               self.proc.returncode)
        return self

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        return False


def syscalls(b):
    n, secs = b.a.syscalls, b.a.syscalls_time
    res = {}
    for s in b.servers:
        if not s.alive():
            continue
        log("%s: syscalls under strace -c -f, nbench %d clients %ds ..." %
            (s.name, n, secs))
        out = os.path.join(b.logs, "strace-%s.txt" % s.name)
        st = Strace(s.tree(), out)
        p = b.load_point(s, n, secs=secs, warmup=2, tag="-strace",
                         during=st)
        if "error" in p or not os.path.exists(out):
            res[s.name] = {"error": p.get("error", "no strace output")}
            continue
        with open(out) as f:
            rows = parse_strace_c(f.read())
        ops = p["ops_all"]
        res[s.name] = {"ops_all": ops, "calls": rows,
                       "per_op": sum(c for c, _ in rows.values()) / ops}
        log("%s: %.1f syscalls per operation (%d operations)" %
            (s.name, res[s.name]["per_op"], ops))
    return {"clients": n, "secs": secs, "servers": res}


def format_syscalls(d, w, top=30):
    sv = {n: v for n, v in d["servers"].items() if "calls" in v}
    w("")
    w("syscalls per SMB operation by syscall: strace -c -f on each server's "
      "process tree during one nbench point of %d clients, %d s (+2 s "
      "warm-up),\ndivided by every operation nbench sent (ops_all); "
      "traced, so the point's speed means nothing" % (d["clients"],
                                                       d["secs"]))
    for n, v in d["servers"].items():
        if "error" in v:
            w("  %s: FAILED: %s" % (n, v["error"]))
    if not sv:
        return
    names = [n for n in ("ours", "samba") if n in sv]
    w("%-22s" % "syscall" + "".join("%12s" % ("%s/op" % n) for n in names) +
      "".join("%14s" % ("%s err/op" % n) for n in names))
    allsc = set()
    for v in sv.values():
        allsc |= set(v["calls"])

    def per(n, sc, i=0):
        return sv[n]["calls"].get(sc, [0, 0])[i] / sv[n]["ops_all"]
    order = sorted(allsc, key=lambda sc: -max(per(n, sc) for n in names))
    for sc in order[:top]:
        w("%-22s" % sc + "".join("%12.2f" % per(n, sc) for n in names) +
          "".join("%14.2f" % per(n, sc, 1) for n in names))
    if len(order) > top:
        w("%-22s" % ("(%d others)" % (len(order) - top)) +
          "".join("%12.2f" % sum(per(n, sc) for sc in order[top:])
                  for n in names))
    w("%-22s" % "total" + "".join("%12.2f" % sv[n]["per_op"]
                                  for n in names))
    w("%-22s" % "operations (ops_all)" +
      "".join("%12d" % sv[n]["ops_all"] for n in names))


# ----- idle connections at scale --------------------------------------------
def hold_idle(b, s, n, timeout):
    """Start nbench processes holding N idle connections to S; returns
    (procs, seconds to READY or None, error)."""
    procs, outs = [], []
    t0 = time.time()
    for i in range(0, n, CHUNK):
        k = min(CHUNK, n - i)
        p = subprocess.Popen(
            b.nbench_cmd(s, ["--idle-connections", str(k), "--hold", "0"]),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=b.env, preexec_fn=raise_nofile)
        procs.append(p)
        b.idle_procs.append(p)
        outs.append("")
    pending = set(range(len(procs)))
    deadline = t0 + timeout
    while pending and time.time() < deadline:
        fds = {procs[i].stdout.fileno(): i for i in pending}
        r, _, _ = select.select(list(fds), [], [], 1.0)
        for fd in r:
            i = fds[fd]
            line = procs[i].stdout.readline()
            outs[i] += line
            if line.startswith("READY"):
                pending.discard(i)
            elif line == "":
                return procs, None, "client %d exited: %s" % (
                    i, outs[i].strip().splitlines()[-1:])
    if pending:
        return procs, None, "%d clients not READY in %d s" % (len(pending),
                                                             timeout)
    return procs, time.time() - t0, None


def idle_scale(b, s, n):
    s.settle()
    idle = {"pss_kib": s.pss_kib(),
            "fds": tree_fds(s.tree())[0],
            "procs": len(s.tree())}
    procs, connect_s, err = hold_idle(b, s, n, 60 + n // 20)
    res = {"n": n, "idle": idle, "connect_s": connect_s}
    try:
        if err:
            res["error"] = err
            return res
        time.sleep(2.0)
        tree = s.tree()
        fds, fds_max = tree_fds(tree)
        res.update({"pss_kib": s.pss_kib(), "fds": fds, "fds_max": fds_max,
                    "procs": len(tree)})
        cpu0 = s.cpu_seconds()
        time.sleep(b.a.scale_hold)
        res["cpu_idle_s"] = s.cpu_seconds() - cpu0
        res["hold_s"] = b.a.scale_hold
        res["per_conn_kib"] = (res["pss_kib"] - idle["pss_kib"]) / n
        res["alive"] = s.alive()
    finally:
        b.stop_idle(procs)
        s.settle(timeout=120)
    return res


def scale(b):
    res = {}
    for s in b.servers:
        if not s.alive():
            continue
        n = b.a.scale if s.name == "ours" else min(b.a.scale,
                                                   b.a.samba_scale)
        log("%s: %d idle logged-on connections ..." % (s.name, n))
        res[s.name] = r = idle_scale(b, s, n)
        if "error" in r:
            log("%s: %d idle connections: %s" % (s.name, n, r["error"]))
        else:
            log("%s: %d idle connections: %.1f KiB PSS each, %d fds, "
                "%.2f CPU s in %d s" % (s.name, n, r["per_conn_kib"],
                                        r["fds"], r["cpu_idle_s"],
                                        r["hold_s"]))
    return res


def format_scale(d, a, w):
    w("")
    w("idle logged-on connections (nbench --idle-connections, %d per "
      "client process): ours %d, Samba %d (a process each)" %
      (CHUNK, a.scale, min(a.scale, a.samba_scale)))
    w("%-8s %7s %10s %10s %11s %8s %8s %7s %12s %9s" %
      ("server", "conns", "PSS idle", "PSS held", "KiB/conn", "fds",
       "max/proc", "procs", "CPU s held", "setup s"))
    for n in ("ours", "samba"):
        r = d.get(n)
        if r is None:
            continue
        if "error" in r:
            w("%-8s %7d FAILED: %s" % (n, r["n"], r["error"]))
            continue
        w("%-8s %7d %8.1f M %8.1f M %11.1f %8d %8d %7d %12s %9.1f" %
          (n, r["n"], r["idle"]["pss_kib"] / 1024.0,
           r["pss_kib"] / 1024.0, r["per_conn_kib"], r["fds"],
           r["fds_max"], r["procs"],
           "%.2f/%ds" % (r["cpu_idle_s"], r["hold_s"]), r["connect_s"]))
    w("KiB/conn = (PSS of the tree with them - idle PSS) / conns; socket "
      "buffers are kernel memory, not in PSS; max/proc = descriptors of "
      "the process holding most (against its RLIMIT_NOFILE)")


# ----- connect storm --------------------------------------------------------
def storm(b):
    res = {}
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "logons.py")
    for mode, flag in (("reuse", []), ("connect", ["--connect"])):
        order = b.servers if mode == "reuse" else b.servers[::-1]
        for s in order:
            if not s.alive():
                continue
            log("%s: logon storm (%s), %d processes, %d s ..." %
                (s.name, mode, b.a.storm_procs, b.a.storm))
            cmd = ["/usr/bin/python3", script] + flag + [
                str(s.port), b.a.user, b.password, str(b.a.storm),
                str(b.a.storm_procs)]
            s.settle()
            cpu0 = s.cpu_seconds()
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=b.a.storm + 120,
                                   preexec_fn=raise_nofile)
                text = r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                text = "timeout"
            with open(os.path.join(b.logs, "logons-%s-%s.txt" %
                                   (s.name, mode)), "w") as f:
                f.write(text.replace(b.password, "***"))
            m = re.search(r"logons/s ([0-9.]+) min1s ([0-9.]+) "
                          r"errors (\d+)", text)
            s.settle()
            cpu = s.cpu_seconds() - cpu0
            res.setdefault(s.name, {})[mode] = (
                {"rate": float(m.group(1)), "min1s": float(m.group(2)),
                 "errors": int(m.group(3)),
                 # server CPU (whole tree, forks included) per logon
                 "cpu_ms": cpu * 1000.0 / (float(m.group(1)) * b.a.storm)
                 if float(m.group(1)) else None} if m else
                {"error": (text.strip().splitlines() or ["?"])[-1]})
    return res


def format_storm(d, a, w):
    w("")
    w("logon storm (logons.py, raw NTLMv2 client in Python, %d processes, "
      "%d s):\nlogons/s overall / in the worst second / errors / server "
      "CPU ms per logon" %
      (a.storm_procs, a.storm))
    for n in ("ours", "samba"):
        if n not in d:
            continue
        cells = []
        for mode, label in (("reuse", "logon+logoff on one connection"),
                            ("connect", "new TCP connection per logon")):
            r = d[n].get(mode)
            if r is None:
                continue
            cells.append("%s: %s" % (label, "FAILED %s" % r["error"]
                                     if "error" in r else
                                     "%.0f / %.0f / %d / %s" %
                                     (r["rate"], r["min1s"], r["errors"],
                                      "-" if r.get("cpu_ms") is None else
                                      "%.2f" % r["cpu_ms"])))
        w("  %-6s %s" % (n, "; ".join(cells)))
    w("  (the Python client takes CPU from the same %d CPUs: a floor for "
      "both servers, not their ceiling)" % os.cpu_count())


# ----- plain / signed / encrypted -------------------------------------------
class LoCapture:
    """TCP payloads to and from PORT on lo, read with an AF_PACKET socket
    in a thread while the context is held (needs root)."""

    def __init__(self, port):
        self.port = port
        self.segs = {True: {}, False: {}}   # from_server -> {seq: bytes}
        self.stop = False

    def __enter__(self):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(0x0003))  # ETH_P_ALL
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.2)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        time.sleep(0.3)
        self.stop = True
        self.thread.join(5)
        self.sock.close()
        return False

    def run(self):
        while not self.stop:
            try:
                data, addr = self.sock.recvfrom(1 << 18)
            except (socket.timeout, OSError):
                continue
            if addr[2] == socket.PACKET_OUTGOING or len(data) < 34:
                continue   # lo shows each frame twice: keep the receive
            ip = data[14:]
            if ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack_from(">H", ip, 2)[0]
            sport, dport, seq = struct.unpack_from(">HHI", ip, ihl)
            doff = (ip[ihl + 12] >> 4) * 4
            payload = bytes(ip[ihl + doff:total])
            if payload and self.port in (sport, dport):
                self.segs[sport == self.port][seq] = payload

    def stream(self, from_server):
        """The payloads in sequence order, counted from the first segment
        seen (sequence numbers wrap at 2^32)."""
        segs = self.segs[from_server]
        if not segs:
            return b""
        first = next(iter(segs))
        return b"".join(segs[k] for k in
                        sorted(segs, key=lambda k: (k - first) & 0xFFFFFFFF))


def smb_messages(stream):
    off = 0
    while off + 4 <= len(stream):
        n = struct.unpack_from(">I", stream, off)[0] & 0xFFFFFF
        yield stream[off + 4:off + 4 + n]
        off += 4 + n


def parse_negotiation(stream):
    """What the server's replies say: dialect, signing algorithm and cipher
    from its NEGOTIATE response (MS-SMB2 2.2.4, contexts 2.2.4.1), and how
    many later replies were encrypted (0xFD transform header, 2.2.41) or
    signed (SMB2_FLAGS_SIGNED, 2.2.1)."""
    res = {"dialect": None, "signing": None, "cipher": None,
           "replies": 0, "signed": 0, "encrypted": 0}
    for msg in smb_messages(stream):
        if msg[:4] == b"\xfdSMB":
            res["replies"] += 1
            res["encrypted"] += 1
            continue
        if msg[:4] != b"\xfeSMB" or len(msg) < 64:
            continue
        cmd, flags = struct.unpack_from("<H", msg, 12)[0], \
            struct.unpack_from("<I", msg, 16)[0]
        if cmd == 0 and len(msg) >= 128:
            dialect, nctx = struct.unpack_from("<HH", msg, 64 + 4)
            res["dialect"] = "%x.%x.%x" % (dialect >> 8, (dialect >> 4) & 15,
                                           dialect & 15)
            off = struct.unpack_from("<I", msg, 64 + 60)[0]
            for _ in range(nctx if dialect == 0x311 else 0):
                if off + 8 > len(msg):
                    break
                ctype, dlen = struct.unpack_from("<HH", msg, off)
                data = msg[off + 8:off + 8 + dlen]
                if ctype in (2, 8) and len(data) >= 4:
                    alg = struct.unpack_from("<H", data, 2)[0]
                    if ctype == 2:
                        res["cipher"] = CIPHERS.get(alg, str(alg))
                    else:
                        res["signing"] = SIGNING_ALGS.get(alg, str(alg))
                off += (8 + dlen + 7) & ~7
            continue
        res["replies"] += 1
        if flags & 8:
            res["signed"] += 1
    return res


def capture(b, s, cmd, tag):
    """Run CMD under a capture on lo of S's port; the two byte streams are
    kept in logs/capture-TAG-{requests,replies} (SMB2 messages, each after
    its 4-byte length).  Returns what the replies and requests say."""
    try:
        with LoCapture(s.port) as cap:
            subprocess.run(cmd, capture_output=True, timeout=60, env=b.env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    for name, side in (("requests", False), ("replies", True)):
        with open(os.path.join(b.logs, "capture-%s-%s" % (tag, name)),
                  "wb") as f:
            f.write(cap.stream(side))
    res = parse_negotiation(cap.stream(True))
    req = parse_negotiation(cap.stream(False))
    res.update({"requests": req["replies"], "req_signed": req["signed"],
                "req_encrypted": req["encrypted"]})
    return res


def check_negotiation(b, s, mode, signing, encrypt, conf):
    """What one nbench connection and one smbclient `ls` in this mode
    negotiated and sent, from captures on lo."""
    return {
        "nbench": capture(b, s, b.nbench_cmd(
            s, ["--idle-connections", "1", "--hold", "1"], signing, encrypt),
            "%s-%s-nbench" % (s.name, mode)),
        "smbclient": capture(b, s, [
            "smbclient", "//127.0.0.1/share", "-p", str(s.port),
            "-s", conf, "-U", "%s%%%s" % (b.a.user, b.password), "-c", "ls"],
            "%s-%s-smbclient" % (s.name, mode))}


def crypto_point(b, s, mode, sign, enc, conf, src):
    r = {"negotiated": check_negotiation(b, s, mode, sign, enc, conf)}
    log("%s: %s: nbench %d clients, %ds ..." % (s.name, mode,
                                                 b.a.crypto_clients,
                                                 b.a.time))
    r["point"] = b.load_point(s, b.a.crypto_clients, signing=sign,
                              encrypt=enc, tag="-" + mode)
    log("%s: %s: cached %d MiB get ..." % (s.name, mode, b.a.seq_mib))
    r["seq"] = b.sequential(s, src, conf, put=False)
    s.settle()
    return r


def crypto(b, src):
    """Plain and signed on the servers of the run; encrypted on a twin of
    each started with `server smb encrypt = desired`, because libsmbclient
    4.17 with `client smb encrypt = required` encrypts only when the
    server asks (SMB2_SESSION_FLAG_ENCRYPT_DATA) or on its DFS path
    (SMB2_GLOBAL_CAP_DFS, which both offer with `host msdfs`)."""
    res = {}
    for i, (mode, sign, enc) in enumerate(MODES):
        conf = b.write_client_conf(sign, enc)
        order = b.servers if i % 2 == 0 else b.servers[::-1]
        for s in order:
            if not s.alive():
                continue
            if enc == "off":
                res.setdefault(s.name, {})[mode] = crypto_point(
                    b, s, mode, sign, enc, conf, src)
                continue
            log("%s: starting a twin with server smb encrypt = desired" %
                s.name)
            t = b.twin(s, "  server smb encrypt = desired\n")
            if t is None:
                res.setdefault(s.name, {})[mode] = {
                    "point": {"error": "twin server did not start"}}
                continue
            try:
                res.setdefault(s.name, {})[mode] = crypto_point(
                    b, t, mode, sign, enc, conf, src)
            finally:
                t.stop()
    return res


def format_crypto(d, a, w):
    w("")
    w("plain / signed / encrypted, max protocol %s: nbench %d clients %d s "
      "(+%d s warm-up) and a cached %d MiB get;\nx = ratio to plain of the "
      "same server" % (a.max_protocol, a.crypto_clients, a.time, a.warmup,
                       a.seq_mib))
    names = [n for n in ("ours", "samba") if n in d]
    head = "%-10s" % "mode"
    for n in names:
        head += " | %-5s %8s %6s %8s %6s %8s %6s" % (
            n, "ops/s", "x", "CPUs/1k", "x", "get MB/s", "x")
    w(head)
    w("-" * len(head))

    def ratio(v, base):
        return "-" if v is None or not base else "%.2f" % (v / base)
    for mode, _, _ in MODES:
        row = "%-10s" % mode
        for n in names:
            r = d[n].get(mode, {})
            base = d[n].get("plain", {})
            p, bp = r.get("point", {}), base.get("point", {})
            g, bg = (r.get("seq", {}).get("read_mbps"),
                     base.get("seq", {}).get("read_mbps"))
            if "error" in p:
                row += " | %-50s" % ("FAILED: " + p["error"])[:50]
                continue
            row += " | %-5s %8.0f %6s %8.4f %6s %8s %6s" % (
                "(!)" if "warning" in p else "", p.get("ops", 0),
                ratio(p.get("ops"), bp.get("ops")),
                p.get("cpu_per_1k") or 0,
                ratio(p.get("cpu_per_1k"), bp.get("cpu_per_1k")),
                "-" if g is None else "%.0f" % g, ratio(g, bg))
        w(row)
    w("negotiated, from captures on lo (AF_PACKET) of one nbench "
      "connection and one smbclient ls per mode: the server's NEGOTIATE "
      "response (dialect, algorithms), then how many messages after it "
      "were signed or encrypted")
    for n in names:
        for mode, _, _ in MODES:
            for client in ("nbench", "smbclient"):
                ng = d[n].get(mode, {}).get("negotiated", {}).get(client,
                                                                  {})
                if "error" in ng:
                    w("  %-6s %-10s %-9s capture failed: %s" %
                      (n, mode, client, ng["error"]))
                    continue
                w("  %-6s %-10s %-9s %s, signing %s, cipher %s; signed/"
                  "encrypted: requests %d/%d of %d, replies %d/%d of %d" %
                  (n, mode, client, ng.get("dialect"), ng.get("signing"),
                   ng.get("cipher"), ng.get("req_signed", 0),
                   ng.get("req_encrypted", 0), ng.get("requests", 0),
                   ng.get("signed", 0), ng.get("encrypted", 0),
                   ng.get("replies", 0)))
    w("  (encrypted: on a second server of each kind started with `server "
      "smb encrypt = desired`; libsmbclient 4.17 does not encrypt "
      "otherwise unless it takes its DFS path)")
