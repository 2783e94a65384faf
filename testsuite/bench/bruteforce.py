#!/usr/bin/python3
"""Password guesses per second: ours with the authentication rate limiter,
ours without it, and Samba 4.17, in one run (issue 34, brute force).

Design
------
An attacker's view: --guessers processes (default 24), each with one TCP
connection from 127.0.0.1, NEGOTIATE SMB 3.0.2, then for --seconds
(default 5) one wrong-password logon after another on that connection
(SESSION_SETUP with an NTLMSSP NEGOTIATE, SESSION_SETUP with an NTLMv2
AUTHENTICATE for the test user and a wrong password), each waiting for
its answer as a brute-force tool does; a connection the server drops is
opened again.  A guess still unanswered when the window closes is
counted apart (held by the limiter, or queued behind the address's
budget).  logons.py's raw client (struct + hmac) makes the guesses,
the same against every server.  A guess counts when its answer,
STATUS_LOGON_FAILURE, arrived within the window.

Four servers, each started fresh for each round (so every round is the
same experiment: a fresh attacker against a fresh server, no failure
counts carried over), with the integration harness's smb.conf and the
test user:
  samba               /usr/sbin/smbd (Samba 4.17 has no limiter);
  ours, limiter off   `smbd auth rate limiter delay = 0`;
  ours, limiter on    the defaults: `smbd auth rate limiter delay = 2000`,
                      `smbd auth rate limiter budget = 50`;
  ours, budget 10     the same with `smbd auth rate limiter budget = 10`,
                      so that the per-address part shows within the
                      window.
Rounds are interleaved (samba, off, on, budget 10, samba, ...),
--rounds (default 2).  Printed per server: the guesses per second of
each round, their median and spread, and the rate in the last quarter of
the window.  What the limiter allows, from its design: each connection
one guess per delay (24 connections: 12/s, answered in waves 2 s apart);
once the address has more than budget failures in its bucket, one guess
per delay for the whole address (0.5/s) however many connections it
opens.  With the default budget of 50, the 24 guessers' 48 failures of
the first two waves keep just below it during a 5 s window; with budget
10 the first wave passes it and the address is queued from then on.
The client shares the machine's CPUs with the server: without the
limiter both servers are client- and CPU-bound here, so those two
figures compare the servers' cost of a failed logon, not a network's.

Usage: bruteforce.py [--builddir DIR] [--seconds S] [--guessers N]
                     [--rounds R] [--no-samba]
"""

import argparse
import multiprocessing
import os
import socket
import statistics
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
sys.path.insert(0, HERE)
import smbd_harness as h  # noqa: E402
import logons  # noqa: E402  the raw NTLMv2 logon client
from impacket import ntlm  # noqa: E402

LOGON_FAILURE = 0xC000006D


def guess(c, nt_hash):
    """One wrong-password logon on c: True when refused as expected."""
    status, sid, msg = logons.setup(c, logons.ntlm_negotiate(), 0)
    if status != logons.MORE_PROCESSING:
        return False
    status, _, _ = logons.setup(
        c, logons.ntlm_authenticate(logons.sec_blob(msg), h.TEST_USER, "",
                                    nt_hash), sid)
    return status == LOGON_FAILURE


def guesser(port, seconds, start, q):
    """Guesses until start + seconds: puts the times (since start) of the
    answers on q."""
    nt_hash = ntlm.compute_nthash("not-" + h.TEST_PASSWORD)
    end = start + seconds
    times, errors, waiting, c = [], 0, 0, None
    while time.monotonic() < end:
        try:
            if c is None:
                c = logons.Conn(port, timeout=5)
                logons.negotiate(c)
            # no answer before the window ends: the guess is still
            # waiting (held, or queued behind the address's budget)
            c.s.settimeout(max(end - time.monotonic(), 0.01) + 0.2)
            ok = guess(c, nt_hash)
        except socket.timeout:
            waiting += 1
            break
        except (OSError, ConnectionError, RuntimeError, struct.error):
            ok = False
            if c is not None:
                c.s.close()
            c = None
        t = time.monotonic() - start
        if ok and t <= seconds:
            times.append(t)
        elif not ok:
            errors += 1
    if c is not None:
        c.s.close()
    q.put((times, errors, waiting))


def attack(port, seconds, guessers):
    """(guesses per second, rate in the last quarter, errors, guesses
    still unanswered when the window closed)."""
    q = multiprocessing.Queue()
    start = time.monotonic() + 0.5     # all processes begin together
    ps = [multiprocessing.Process(target=guesser,
                                  args=(port, seconds, start, q))
          for _ in range(guessers)]
    for p in ps:
        p.start()
    res = [q.get(timeout=seconds + 60) for _ in ps]
    for p in ps:
        p.join(30)
    times = [t for r in res for t in r[0]]
    last = [t for t in times if t >= seconds * 0.75]
    return (len(times) / seconds, len(last) / (seconds * 0.25),
            sum(r[1] for r in res), sum(r[2] for r in res))


CONFIGS = [
    ("samba", "/usr/sbin/smbd", []),
    ("ours, limiter off", None, [("smbd auth rate limiter delay", "0")]),
    ("ours, limiter on", None, []),
    # the per-address budget reached within a short window
    ("ours, budget 10", None, [("smbd auth rate limiter budget", "10")]),
]


def one_round(name, binary, options, args):
    srv = h.Smbd(binary=binary, global_options=options)
    try:
        srv.start()
        srv.create_user(h.TEST_USER, h.TEST_PASSWORD)
        return attack(srv.port, args.seconds, args.guessers)
    finally:
        srv.cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("BUILDDIR"))
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--guessers", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-samba", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (the test user is added to the system)")
    if args.builddir:
        os.environ["BUILDDIR"] = os.path.abspath(args.builddir)
    ours = h.smbd_binary()
    configs = [(n, b or ours, o) for n, b, o in CONFIGS
               if not (args.no_samba and n == "samba")]
    if not args.no_samba and not os.access("/usr/sbin/smbd", os.X_OK):
        sys.exit("no /usr/sbin/smbd (Samba): install samba or --no-samba")
    print("%d guessers, one connection each, %.0f s a round, %d rounds; "
          "ours: %s" % (args.guessers, args.seconds, args.rounds, ours))
    results = {n: [] for n, _, _ in configs}
    for r in range(args.rounds):
        for name, binary, options in configs:
            rate, last, errors, waiting = one_round(name, binary, options,
                                                    args)
            results[name].append((rate, last, errors))
            print("round %d  %-18s %9.1f guesses/s  (last quarter %.1f/s, "
                  "%d unanswered at the end, %d errors)" %
                  (r + 1, name, rate, last, waiting, errors), flush=True)
    print()
    print("%-18s %12s %18s %16s" % ("server", "guesses/s", "spread",
                                     "last quarter/s"))
    for name, _, _ in configs:
        rates = [x[0] for x in results[name]]
        lasts = [x[1] for x in results[name]]
        print("%-18s %12.1f %8.1f-%-9.1f %16.1f" %
              (name, statistics.median(rates), min(rates), max(rates),
               statistics.median(lasts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
