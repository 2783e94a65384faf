#!/usr/bin/python3
"""smbtorture runner with a known-failures list (run via run-torture.sh).

Design
------
Starts one server (ours, or SMBD=...) configured like the reference Samba
run in /work/shared/conformance/README.md (same smb.conf options, a user
made with smbpasswd), then runs each entry of suites.txt (a suite such as
`smb2.lock` or a single test such as `smb2.session.reauth1`) as

    smbtorture //127.0.0.1/share -p PORT -U USER%PASS --target=samba3 \\
        --option=torture:sharedelay=100000 ENTRY

with a time limit per entry, emptying the share before each.  It parses
`success:` / `failure:` / `error:` / `skip:` lines into full test names
(`smb2.lock.rw-shared`; a single test keeps its own name, `smb2.connect`),
and compares the results with known-failures.txt:

  - a test that fails and is not listed is a REGRESSION;
  - a listed test that now passes is an UNEXPECTED PASS (delete the line,
    or replace a glob by the tests that still fail: --write-known-failures
    does that), so the list only ever shrinks on purpose.

known-failures.txt: one name per line, `# reason` after it; `*` makes a
glob (`smb2.lock.*`).  Pseudo-tests the runner adds: `SUITE.TIMEOUT` (the
entry hit its limit), `SUITE.SERVER-DIED` (the server or one of its workers
crashed or a sanitizer fired: restarted for the next entry) and SUITE itself when smbtorture exits non-zero without
reporting a result.  Globs never match TIMEOUT/SERVER-DIED: a crash or a
hang must be listed by its exact name to be tolerated.

--cross-workers (make torture-workers): our server runs with `smbd
workers = 2` and `smbd spread connections = yes`, so successive
connections are served by different workers and every two-connection
test (oplock and lease breaks, share modes, locks) crosses workers; it
reads suites-workers.txt and known-failures-workers.txt by default.
Multichannel is off there except for the suites that bind channels
(CROSS_WORKER_MULTICHANNEL), whose bindings then cross workers.

--fruit (make torture-fruit): the share a Mac client would use (issue
17): [share] gets `vfs objects = catia fruit streams_xattr` and the
fruit options of FRUIT_SHARE_OPTIONS, and a second section [share2] on
the same directory keeps the global `vfs objects` (no fruit), because
smbtorture's vfs.fruit opens its two-tree tests' second tree on
torture:share2 and reads and writes xattrs of the share's files
directly through torture:localdir (as Samba's own selftest gives it
vfs_fruit_metadata_stream and vfs_wo_fruit).  It reads suites-fruit.txt
and known-failures-fruit.txt by default; SMBD=/usr/sbin/smbd runs the
same against Samba.  --fruit-full (make torture-fruit-full) runs the
same suites with fruit:nfs_aces = yes and fruit:copyfile = yes, the
setup in which smbtorture's AAPL tests run at all, against
known-failures-fruit-full.txt.

Exit status: 0 when there is no regression and no unexpected pass.
"""

import argparse
import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import smbd_harness as h  # noqa: E402

USER = "smbdtest"
PASSWORD = "Test-Pass-1"
DEFAULT_LIMIT = 120

# The reference configuration (conformance/README.md); the harness adds
# ports, interfaces, NetBIOS off, passdb backend and the directories.
# `smbd auth rate limiter delay` stays at its default (2 s, as Windows
# Server 2025): smbtorture must pass against a server that holds failed
# logons back.  Measured (issue 34): smb2.session has one failed logon
# (about 2 s longer, same results), smb2.multichannel and smb2.session-id
# none.
GLOBAL_OPTIONS = [
    ("server min protocol", "SMB2_02"),
    ("map to guest", "bad user"),
    ("vfs objects", "acl_xattr streams_xattr"),
    ("ea support", "yes"),
    ("store dos attributes", "yes"),
    ("kernel oplocks", "no"),
    ("kernel share modes", "no"),
    ("posix locking", "no"),
    ("smb2 leases", "yes"),
    ("durable handles", "yes"),
]

# --cross-workers: two workers, each new connection on the next one.
CROSS_WORKER_OPTIONS = [
    ("smbd workers", "2"),
    ("smbd spread connections", "yes"),
]
# With multichannel on, a client's connections (one ClientGuid, as all of
# an smbtorture run's) move to the worker of its first at NEGOTIATE, which
# would keep the two connections of a break, share-mode or lock test on
# one worker: --cross-workers runs those suites with it off, and only the
# entries below with it on (their bindings then cross workers: moved at
# NEGOTIATE or at the binding, smbd/conn/conn_handover.c).
CROSS_WORKER_MULTICHANNEL = ("smb2.session", "smb2.multichannel",
                             "smb2.replay")


def wants_multichannel(entry):
    return any(entry == p or entry.startswith(p + ".")
               for p in CROSS_WORKER_MULTICHANNEL)

# --fruit: the [share] options of issue 17's macOS setup.  fruit:model
# and fruit:nfs_aces are global options in Samba (vfs_fruit.8), so they
# go to [global]; the rest are per share.
FRUIT_GLOBAL_OPTIONS = [
    ("fruit:model", "MacSamba"),
    ("fruit:nfs_aces", "no"),
]
FRUIT_SHARE_OPTIONS = [
    ("vfs objects", "catia fruit streams_xattr"),
    ("fruit:metadata", "stream"),
    ("fruit:posix_rename", "yes"),
    ("fruit:veto_appledouble", "no"),
    ("fruit:wipe_intentionally_left_blank_rfork", "yes"),
    ("fruit:delete_empty_adfiles", "yes"),
    ("fruit:time machine", "yes"),
]
FRUIT_SHARE2 = "share2"
# --fruit-full: the same share with what a Mac gets from Samba's defaults
# plus copyfile (AAPL server caps READ_DIR_ATTR, OSX_COPYFILE, UNIX_BASED
# and NFS_ACE, which smbtorture's enable_aapl insists on): fruit:nfs_aces
# = yes (Samba's default) and fruit:copyfile = yes.  Samba 4.17 passes 31
# of vfs.fruit's 32 tests here.
# fruit:copyfile is a global option in Samba, as nfs_aces is.
FRUIT_FULL_GLOBAL_OPTIONS = [
    ("fruit:model", "MacSamba"),
    ("fruit:nfs_aces", "yes"),
    ("fruit:copyfile", "yes"),
]
FRUIT_FULL_SHARE_OPTIONS = FRUIT_SHARE_OPTIONS

RESULT = re.compile(r"^(success|successful|failure|fail|error|skip|xfail|"
                    r"uxsuccess): (.*?)(?: \[.*)?$")
PSEUDO = (".TIMEOUT", ".SERVER-DIED")


def read_suites(path):
    """[(entry, limit_seconds, options)] from suites.txt ('name [seconds]
    [| option; option...]').  An option is an smb.conf line for [global]
    ('server signing = required'), which the entry gets a server of its
    own for, or 'torture:NAME=VALUE' for smbtorture ({share} is the
    share's directory)."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            line, _, tail = line.partition("|")
            opts = tuple(o.strip() for o in tail.split(";") if o.strip())
            parts = line.split()
            limit = DEFAULT_LIMIT
            if len(parts) > 1 and parts[-1].isdigit():
                limit = int(parts[-1])
                parts = parts[:-1]
            out.append((" ".join(parts), limit, opts))
    return out


def split_options(opts):
    """(smb.conf [(name, value)], smbtorture --option arguments)."""
    conf, torture = [], []
    for o in opts:
        if o.startswith("torture:"):
            torture.append(o)
        else:
            name, _, value = o.partition("=")
            conf.append((name.strip(), value.strip()))
    return conf, torture


def read_known(path):
    """[(pattern, reason)] from known-failures.txt."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            name, _, reason = line.partition("#")
            name = name.strip()
            if name:
                out.append((name, reason.strip()))
    return out


def matches(pattern, test):
    if "*" in pattern:
        if test.endswith(PSEUDO):
            return False
        return fnmatch.fnmatchcase(test, pattern)
    return pattern == test


def full_name(entry, name, is_suite):
    """smbtorture names tests relative to the entry it was given; a single
    test is reported by its last component (smb2.connect -> 'connect'),
    but a suite may hold a test named like itself (smb2.lock.lock)."""
    if not is_suite and name == entry.rsplit(".", 1)[-1]:
        return entry
    return "%s.%s" % (entry, name)


def summarize(block):
    """One short line out of smbtorture's reason block: the first line,
    without the source path prefix."""
    for line in block:
        line = line.strip()
        if line and line != "]":
            line = re.sub(r"(\.\./)*source4/torture/", "", line)
            return line[:110]
    return ""


def parse_output(entry, text):
    """({full test name: 'success'|'failure'|'error'|'skip'},
    [names that started ('test:') without a result],
    {full test name: one-line reason of a failure or skip})."""
    results = {}
    reasons = {}
    started = []
    # smbtorture prints "progress: N" when it runs a suite, not for a test
    is_suite = re.search(r"^progress: ", text, re.M) is not None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("test: "):
            started.append(line[6:].strip())
            continue
        m = RESULT.match(line)
        if not m:
            continue
        kind, name = m.group(1), m.group(2).strip()
        kind = {"successful": "success", "uxsuccess": "success",
                "fail": "failure", "xfail": "failure"}.get(kind, kind)
        full = full_name(entry, name, is_suite)
        if line.rstrip().endswith("["):
            reasons.setdefault(full, summarize(lines[i + 1:i + 4]))
        # a test reported twice keeps its worst result
        if results.get(full) in ("failure", "error") and kind == "success":
            continue
        results[full] = kind
        if name in started:
            started.remove(name)
    return (results, [full_name(entry, n, is_suite) for n in started],
            reasons)


def empty_dir(path):
    for n in os.listdir(path):
        p = os.path.join(path, n)
        if os.path.isdir(p) and not os.path.islink(p):
            # smbtorture leaves read-only directories behind
            for root, dirs, _ in os.walk(p):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
            os.chmod(p, 0o755)
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)


class Runner:

    def __init__(self, args):
        self.args = args
        self.srv = None
        self.results = {}          # test -> kind
        self.reasons = {}          # test -> smbtorture's reason, one line
        self.suite_stats = []      # (entry, passed, failed, skipped, secs)
        self.logdir = args.logdir
        self.known = []            # known-failures, to spot regressions
        self.details = {}          # regression -> what to print about it
        self.multichannel = True   # --cross-workers: see wants_multichannel

    def start_server(self, entry_conf=()):
        opts = list(GLOBAL_OPTIONS)
        share_opts = None
        extra_shares = None
        if self.args.cross_workers:
            opts += CROSS_WORKER_OPTIONS
            if not self.multichannel:
                opts.append(("server multi channel support", "no"))
        if self.args.fruit_full:
            opts += FRUIT_FULL_GLOBAL_OPTIONS
            share_opts = FRUIT_FULL_SHARE_OPTIONS
            extra_shares = [(FRUIT_SHARE2, None)]
        elif self.args.fruit:
            opts += FRUIT_GLOBAL_OPTIONS
            share_opts = FRUIT_SHARE_OPTIONS
            extra_shares = [(FRUIT_SHARE2, None)]
        # an entry's own options come last, so they override
        opts += list(entry_conf)
        self.entry_conf = tuple(entry_conf)
        self.srv = h.Smbd(global_options=opts, share_options=share_opts,
                          extra_shares=extra_shares,
                          io_backend=self.args.io_backend,
                          debug=int(os.environ.get("SMBD_DEBUG", "3")))
        self.srv.start()
        self.srv.create_user(USER, PASSWORD)

    def run_entry(self, entry, limit, torture_opts=()):
        if not self.srv.running():
            self.srv.cleanup()
            self.start_server(self.entry_conf)
        empty_dir(self.srv.share)
        log_start = self.srv.log_size()
        cmd = ["smbtorture", "//127.0.0.1/share", "-p", str(self.srv.port),
               "-U", "%s%%%s" % (USER, PASSWORD), "--target=samba3",
               "--option=torture:sharedelay=100000"]
        if self.args.fruit:
            # what vfs.fruit asks for (see the head comment); the
            # conversion test reads delete_empty_adfiles to know how many
            # files to expect
            cmd += ["--option=torture:share2=%s" % FRUIT_SHARE2,
                    "--option=torture:localdir=%s" % self.srv.share,
                    "--option=torture:delete_empty_adfiles=yes"]
        cmd += ["--option=%s" % o.replace("{share}", self.srv.share)
                for o in torture_opts]
        cmd.append(entry)
        t0 = time.monotonic()
        timed_out = False
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        secs = time.monotonic() - t0
        text = out.decode("utf-8", "replace")
        if self.logdir:
            with open(os.path.join(self.logdir, entry + ".log"), "w") as f:
                f.write(text)
        res, unfinished, reasons = parse_output(entry, text)
        for n in unfinished:
            res[n] = "error"
            reasons[n] = "did not finish"
        self.reasons.update(reasons)
        if timed_out:
            res[entry + ".TIMEOUT"] = "error"
            self.reasons[entry + ".TIMEOUT"] = "over the %d s limit" % limit
        elif proc.returncode != 0 and not any(
                k in ("failure", "error") for k in res.values()):
            # e.g. "Unknown torture operation": no result line at all
            res[entry] = "error"
            if not self.args.quiet:
                sys.stdout.write(text[-2000:])
        # a crashed worker is replaced by the master: read the log too
        crashes = h.crash_lines(self.srv, log_start)
        if crashes or not self.srv.running():
            res[entry + ".SERVER-DIED"] = "error"
            sys.stdout.write("server crashed during %s:\n%s\nlog tail:\n%s\n"
                             % (entry, "\n".join(crashes),
                                self.srv.log_tail(60)))
            if self.logdir:
                shutil.copy(self.srv.log, os.path.join(
                    self.logdir, entry + ".server.log"))
        passed = sum(1 for k in res.values() if k == "success")
        skipped = sum(1 for k in res.values() if k == "skip")
        failed = len(res) - passed - skipped
        self.keep_details(entry, text, res, log_start)
        self.suite_stats.append((entry, passed, failed, skipped, secs))
        print("%-40s %4d passed %4d failed %4d skipped %6.1f s%s" %
              (entry, passed, failed, skipped, secs,
               "  TIMEOUT" if timed_out else ""), flush=True)
        self.results.update(res)

    def keep_details(self, entry, text, res, log_start):
        """For a failure known-failures does not list: smbtorture's lines
        about it and the server's log during the entry, printed with the
        REGRESSION line (an intermittent failure can be read from the CI
        output alone; the server's log is gone after the run)."""
        new = [t for t, k in res.items() if k in ("failure", "error") and
               not any(matches(p, t) for p, _ in self.known)]
        if not new:
            return
        log = ""
        try:
            with open(self.srv.log, "rb") as f:
                f.seek(log_start)
                log = f.read().decode("utf-8", "replace")
        except OSError:
            pass
        # connection, logon and tree-connect lines drown the rest (a CI
        # log showed 40 lines of them and no cause)
        noise = ("connection from", "auth_audit_log", "connected to [")
        log_lines = [x for x in log.splitlines()
                     if not any(n in x for n in noise)][-40:]
        lines = text.splitlines()
        for t in new:
            name = t[len(entry) + 1:] if t.startswith(entry + ".") else t
            out = []
            for i, line in enumerate(lines):
                m = RESULT.match(line)
                if m and m.group(2).strip() == name and \
                        m.group(1) not in ("success", "successful", "skip"):
                    out = lines[max(0, i - 15):i + 8]
            self.details[t] = ("  smbtorture:\n" +
                               "\n".join("  | " + x for x in out) +
                               "\n  server log during %s (last %d lines):\n"
                               % (entry, len(log_lines)) +
                               "\n".join("  | " + x for x in log_lines))

    def run(self, entries):
        self.multichannel = not entries or wants_multichannel(entries[0][0])
        self.start_server()
        try:
            for entry, limit, opts in entries:
                conf, torture_opts = split_options(opts)
                mc = wants_multichannel(entry)
                if (self.args.cross_workers and mc != self.multichannel) \
                        or tuple(conf) != self.entry_conf:
                    self.srv.cleanup()
                    self.multichannel = mc
                    self.start_server(conf)
                self.run_entry(entry, limit, torture_opts)
        finally:
            if self.srv:
                if self.args.keep_log:
                    shutil.copy(self.srv.log, self.args.keep_log)
                self.srv.cleanup()

    def compare(self, known):
        """(regressions, unexpected passes as (test, pattern))."""
        regressions = []
        unexpected = []
        for test, kind in sorted(self.results.items()):
            entry = next(((p, r) for p, r in known if matches(p, test)),
                         None)
            hit = entry[0] if entry else None
            if kind in ("failure", "error") and hit is None:
                regressions.append(test)
            elif (kind == "success" and hit is not None and
                  not is_flaky(entry[1])):
                unexpected.append((test, hit))
        return regressions, unexpected

    def write_known(self, path, known, default_reason, fresh=False):
        """Rewrite the list: today's failures, keeping known reasons (a
        glob none of whose tests passes stays a glob).  New lines, and all
        lines with fresh=True, get smbtorture's own reason (the most common
        one for a glob) or default_reason."""
        failing = sorted(t for t, k in self.results.items()
                         if k in ("failure", "error"))

        def why(tests, old):
            if old and not fresh:
                return old
            rs = [self.reasons[t] for t in tests if self.reasons.get(t)
                  and self.results[t] != "skip"]
            if not rs:
                return old or default_reason
            common = max(set(rs), key=rs.count)
            return "%s: %s" % (default_reason, common)

        lines = []
        covered = set()
        for pattern, reason in known:
            hits = [t for t in self.results if matches(pattern, t)]
            if "*" in pattern:
                if not any(self.results[t] == "success" for t in hits):
                    lines.append((pattern, why(hits, reason)))
                    covered.update(hits)
                else:
                    for t in hits:
                        if t in failing and t not in covered:
                            lines.append((t, why([t], reason)))
                            covered.add(t)
            elif pattern in failing or not hits or is_flaky(reason):
                # keep lines for tests that did not run this time
                lines.append((pattern, why([pattern] if hits else [],
                                           reason)))
                covered.add(pattern)
        for t in failing:
            if t not in covered:
                lines.append((t, why([t], None)))
        with open(path, "w") as f:
            f.write(KNOWN_HEADER)
            for name, reason in lines:
                f.write("%s  # %s\n" % (name, reason) if reason
                        else "%s\n" % name)
        print("wrote %d entries to %s" % (len(lines), path))


def is_flaky(reason):
    """A known-failures line whose reason starts with "flaky" may pass or
    fail (timing-dependent tests on a loaded 2-CPU machine)."""
    return bool(reason) and reason.lower().startswith("flaky")


KNOWN_HEADER = """\
# smbtorture tests known to fail against our smbd (see run_torture.py).
# One test name per line, '# reason' after it; '*' makes a glob
# (suite-level, e.g. smb2.lock.*).  A failure not listed here, or a listed
# test that passes, fails `make torture`, except lines whose reason
# starts with "flaky" (timing-dependent: may pass or fail).  Regenerate with
#   testsuite/torture/run-torture.sh --write-known-failures FILE
"""


def main():
    signal.signal(signal.SIGTERM, lambda n, f: sys.exit(128 + n))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("entries", nargs="*",
                    help="suites/tests to run instead of suites.txt")
    ap.add_argument("--suites", default=None,
                    help="default: suites.txt (suites-workers.txt with "
                    "--cross-workers, suites-fruit.txt with --fruit)")
    ap.add_argument("--known-failures", default=None,
                    help="default: known-failures.txt "
                    "(known-failures-workers.txt with --cross-workers, "
                    "known-failures-fruit.txt with --fruit)")
    ap.add_argument("--cross-workers", action="store_true",
                    help="2 workers, successive connections on different "
                    "ones (our server only)")
    ap.add_argument("--fruit", action="store_true",
                    help="the macOS share (catia fruit streams_xattr, "
                    "a second share without fruit): vfs.fruit")
    ap.add_argument("--fruit-full", action="store_true",
                    help="--fruit with fruit:nfs_aces = yes and "
                    "fruit:copyfile = yes (known-failures-fruit-full.txt)")
    ap.add_argument("--limit", type=int, default=None,
                    help="time limit per entry (default: suites.txt)")
    ap.add_argument("--io-backend", default=None,
                    help="smbd io backend = io_uring|epoll")
    ap.add_argument("--write-known-failures", metavar="FILE",
                    help="write today's failures as a known-failures list")
    ap.add_argument("--reason", default="not triaged yet",
                    help="reason prefix for new lines of "
                    "--write-known-failures (smbtorture's reason follows)")
    ap.add_argument("--fresh-reasons", action="store_true",
                    help="--write-known-failures replaces old reasons too")
    ap.add_argument("--results", metavar="FILE",
                    help="write 'result<TAB>test' lines for every test")
    ap.add_argument("--logdir", help="keep each entry's smbtorture output")
    ap.add_argument("--keep-log", metavar="FILE",
                    help="copy the server log here at the end")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    full = args.fruit_full
    args.fruit = args.fruit or full
    if args.cross_workers and args.fruit:
        ap.error("--cross-workers and --fruit are separate runs")
    sfx = "-workers" if args.cross_workers else ""
    if args.fruit:
        sfx = "-fruit"
    if args.suites is None:
        args.suites = os.path.join(HERE, "suites%s.txt" % sfx)
    if full:
        sfx = "-fruit-full"
    if args.known_failures is None:
        args.known_failures = os.path.join(HERE,
                                           "known-failures%s.txt" % sfx)

    listed = read_suites(args.suites)
    if args.entries:
        # an entry named on the command line keeps its suites.txt options
        opts = {e: o for e, _, o in listed}
        entries = [(e, args.limit or DEFAULT_LIMIT, opts.get(e, ()))
                   for e in args.entries]
    else:
        entries = listed
        if args.limit:
            entries = [(e, args.limit, o) for e, _, o in entries]
    if args.logdir:
        os.makedirs(args.logdir, exist_ok=True)
    known = read_known(args.known_failures)
    print("server under test: %s" % h.smbd_binary(), flush=True)

    r = Runner(args)
    r.known = known
    try:
        r.run(entries)
    except RuntimeError as e:
        # the server does not start (or not again after dying)
        print("FATAL: %s" % e)
        print("%d passed, %d failed" % (
            sum(1 for k in r.results.values() if k == "success"),
            max(1, sum(1 for k in r.results.values()
                       if k in ("failure", "error")))))
        return 2
    regressions, unexpected = r.compare(known)
    total_pass = sum(1 for k in r.results.values() if k == "success")
    total_skip = sum(1 for k in r.results.values() if k == "skip")
    total_fail = len(r.results) - total_pass - total_skip
    known_fail = total_fail - len(regressions)

    if args.results:
        with open(args.results, "w") as f:
            for t, k in sorted(r.results.items()):
                f.write("%s\t%s\n" % (k, t))
    if args.write_known_failures:
        r.write_known(args.write_known_failures, known, args.reason,
                      args.fresh_reasons)
    for t in regressions:
        print("REGRESSION: %s fails and is not in known-failures%s" %
              (t, ": " + r.reasons[t] if r.reasons.get(t) else ""))
        if t in r.details:
            print(r.details[t])
    for t, p in unexpected:
        if p == t:
            print("UNEXPECTED PASS: %s passes: delete it from "
                  "known-failures" % t)
        else:
            print("UNEXPECTED PASS: %s passes but glob '%s' lists it: "
                  "replace the glob by the tests that still fail" % (t, p))
    if regressions:
        # again after the details, so a tail of the output names them
        print("regressions: %s" % ", ".join(regressions))
    print("%d skipped, %d known failures, %d regressions, %d unexpected "
          "passes" % (total_skip, known_fail, len(regressions),
                      len(unexpected)))
    print("%d passed, %d failed" % (total_pass, total_fail))
    return 1 if regressions or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
