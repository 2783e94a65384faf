"""Cluster-test harness: a CTDB cluster on loopback and one clustered SMB
server per node, all in one temporary directory.

    with CtdbCluster(nodes=2) as cl, ClusterSmbd(cl) as srv:
        srv.create_user("smbdtest", "Test-Pass-1")   # once, for all heads
        srv.host(0), srv.port(0)   # head 1: 127.0.0.1:<free port>
        srv.host(1), srv.port(1)   # head 2: 127.0.0.2:<free port>
        cl.ctdb(1, "getdbmap")     # the ctdb tool against node 1

CtdbCluster
-----------
Node i has the private address 127.0.0.(i+1) (any 127/8 address is local
on Linux, nothing to configure) and its own CTDB_BASE directory
BASE/n<i>/ holding

    ctdb.conf   [logging] log level, [cluster] node address + cluster lock,
                [database] volatile/persistent/state dirs under db/,
                [failover] disabled = true, [legacy] realtime scheduling = no
    nodes       127.0.0.1 / 127.0.0.2 (the same list on every node)
    events/legacy/   empty: no event scripts run
    run/        ctdbd.socket, ctdbd.pid, eventd.socket (CTDB_TEST_MODE
                puts the "rundir" at $CTDB_BASE/run, "vardir" at
                $CTDB_BASE/var, "etcdir" at $CTDB_BASE)
    ctdbd.log   stdout+stderr of `ctdbd -i` (interactive mode logs to
                stderr whatever [logging] location says)

ctdbd runs in the foreground (-i) in its own session with
CTDB_TEST_MODE=yes, CTDB_BASE and CTDB_SOCKET set; env(i) is that
environment, for the `ctdb` tool, smbpasswd or a server.  The cluster lock
is an fcntl lock on BASE/reclock (ctdb_mutex_fcntl_helper), shared by the
nodes since they share the file system.  CTDB's transport port is fixed
(4379, the "ctdb" service): only one such cluster can run per address, so
start() refuses to run when 127.0.0.(i+1):4379 is taken.  The socket path
must fit in sun_path (107 bytes): keep base_dir short (the default is
/tmp/ctdb-XXXXXXXX).

ClusterSmbd
-----------
One server per node, in the foreground (like smbd_harness.Smbd: `-F
--debug-stdout -d N -s CONF`, plus `--no-process-group` for Samba's), with
`clustering = yes`, `ctdbd socket = <node socket>`, `interfaces =
127.0.0.(i+1)/8` + `bind interfaces only = yes` (Samba only binds
addresses of an interface; with the /8 mask it takes 127.0.0.2 although lo
only carries 127.0.0.1), `smb ports = <free port>`, the same `netbios
name` on all heads, private/lock/state/cache/pid dirs per node and ONE
[share] directory for all heads.  With clustering = yes Samba keeps
passdb.tdb and secrets.tdb (so the domain SID) in CTDB persistent
databases: a user added once with smbpasswd against any head's smb.conf
logs on through every head.

Binary: $SMBD, else /usr/sbin/smbd.  $SMB_CLUSTER_HOSTS (e.g.
"127.0.0.1,127.0.0.1") overrides the addresses the heads listen on.

Every subprocess call has a timeout; everything started is stopped by PID
(SIGTERM, then SIGKILL of the process, its process group, its descendants
and anything whose command line names our directories) in stop(), in
__exit__ and at exit.  The daemons also get SIGTERM when the test process
dies (PR_SET_PDEATHSIG); after a SIGKILL of the test process ctdb-eventd
and the cluster-lock helper linger up to ~15 s before exiting on their
own, and the temporary directory stays.
"""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import smbd_harness as h  # noqa: E402

CTDBD = os.environ.get("CTDBD", "/usr/sbin/ctdbd")
CTDB = os.environ.get("CTDB", "/usr/bin/ctdb")
CTDB_PORT = 4379            # fixed: the "ctdb" service port
START_TIMEOUT = 30.0        # cluster healthy / servers accepting
STOP_TIMEOUT = 10.0         # between SIGTERM and SIGKILL
TOOL_TIMEOUT = 15           # one `ctdb` / smbpasswd call
SUN_PATH_MAX = 107          # sizeof(sun_path) - 1

_LIVE = []


@atexit.register
def _cleanup_all():
    for obj in reversed(list(_LIVE)):
        try:
            obj.cleanup()
        except Exception as e:   # keep stopping the others
            sys.stderr.write("cleanup of %r failed: %s\n" % (obj, e))


def ctdb_installed():
    return os.access(CTDBD, os.X_OK) and os.access(CTDB, os.X_OK)


def keep():
    return bool(os.environ.get("SMBD_KEEP") or os.environ.get("CTDB_KEEP"))


# ---------------------------------------------------------------------------
# process helpers

def _ppid_map():
    """{pid: ppid} of every process now."""
    m = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                m[int(p)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return m


def descendants(pid):
    """Every live descendant of pid (children, grandchildren, ...)."""
    m = _ppid_map()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in m.items() if pp == p]
        out += kids
        todo += kids
    return out


def pids_naming(path):
    """Processes (not us) whose command line mentions path."""
    me, needle, out = os.getpid(), path.encode(), []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if needle in f.read():
                    out.append(int(p))
        except OSError:
            continue
    return out


def _kill(pids, sig):
    for p in pids:
        try:
            os.kill(p, sig)
        except (ProcessLookupError, PermissionError):
            pass


def stop_process(proc, extra_paths=(), timeout=STOP_TIMEOUT):
    """Stop a Popen started with start_new_session=True and everything it
    left: SIGTERM to it; after timeout SIGKILL; then SIGKILL to its
    process group, to the descendants seen before, and to processes whose
    command line names one of extra_paths.  Waits until they are gone
    (at most 5 s more).  Returns the exit status."""
    if proc is None:
        return None
    kids = descendants(proc.pid) if proc.poll() is None else []
    rc = proc.poll()
    if rc is None:
        try:
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait(5)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    left = [p for p in kids if h.pid_alive(p)]
    for path in extra_paths:
        left += pids_naming(path)
    _kill(left, signal.SIGKILL)
    h.wait_until(lambda: not any(h.pid_alive(p) for p in left), 5.0)
    return rc


def _preexec():
    h._die_with_parent()


def tcp_port_free(host, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def free_port(hosts):
    """A TCP port free on every address in hosts right now (random, below
    the ephemeral range, like smbd_harness.free_port)."""
    for _ in range(200):
        port = h.free_port()
        if all(tcp_port_free(a, port) for a in hosts):
            return port
    raise RuntimeError("no free port on %s" % ", ".join(hosts))


def tail(path, n=40):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return "  | (no %s)" % path
    return "\n".join("  | " + x for x in lines[-n:])


# ---------------------------------------------------------------------------

class _Owned:
    """stop() everything, then remove the base directory if we made it
    (SMBD_KEEP=1 keeps it); a context manager around start()."""

    def cleanup(self):
        self.stop()
        if self in _LIVE:
            _LIVE.remove(self)
        if self.own_dir:
            if keep():
                sys.stderr.write("kept %s\n" % self.base_dir)
            else:
                shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class CtdbCluster(_Owned):
    """nodes ctdbd daemons on 127.0.0.1 .. 127.0.0.<nodes> (or addresses),
    under base_dir (default: a new /tmp/ctdb-XXXXXXXX, removed by
    cleanup() unless SMBD_KEEP/CTDB_KEEP is set).

    start() takes about 9 s on loopback (ctdbd's default leader timeout
    of 5 s passes before the first election).  leader_timeout=2 brings it
    to about 6 s but leaves little slack on a loaded machine; with 1 the
    nodes never settle (elections and cluster-lock contention forever)."""

    def __init__(self, nodes=2, base_dir=None, addresses=None,
                 log_level="NOTICE", cluster_lock=True, leader_timeout=None,
                 public_addresses=None):
        self.n = nodes
        # CTDB public addresses ("127.0.0.11/8 lo"), moved between the
        # nodes by failover; none: failover off
        self.public_addresses = list(public_addresses or [])
        self.addresses = list(addresses or
                              ["127.0.0.%d" % (i + 1) for i in range(nodes)])
        assert len(self.addresses) == nodes
        self.own_dir = base_dir is None
        self.base_dir = os.path.abspath(
            base_dir or tempfile.mkdtemp(prefix="ctdb-", dir="/tmp"))
        os.makedirs(self.base_dir, exist_ok=True)
        os.chmod(self.base_dir, 0o755)
        self.log_level = log_level
        self.cluster_lock = cluster_lock
        self.leader_timeout = leader_timeout
        self.procs = [None] * nodes
        self.start_seconds = None   # how long start() took
        for i in range(nodes):
            if len(self.socket(i)) > SUN_PATH_MAX:
                raise ValueError("socket path too long for sun_path: %s" %
                                 self.socket(i))
        _LIVE.append(self)
        self.write_config()

    def __repr__(self):
        return "CtdbCluster(%s)" % self.base_dir

    # -- paths and environment ------------------------------------------
    def node_dir(self, i):
        return os.path.join(self.base_dir, "n%d" % i)

    def socket(self, i):
        # where CTDB_TEST_MODE puts it anyway; CTDB_SOCKET says so too
        return os.path.join(self.node_dir(i), "run", "ctdbd.socket")

    def log(self, i):
        return os.path.join(self.node_dir(i), "ctdbd.log")

    def address(self, i):
        return self.addresses[i]

    @property
    def reclock(self):
        return os.path.join(self.base_dir, "reclock")

    def env(self, i):
        """Variables for running ctdbd, the ctdb tool, smbpasswd or a
        server against node i (add them to os.environ)."""
        return {"CTDB_TEST_MODE": "yes",
                "CTDB_BASE": self.node_dir(i),
                "CTDB_SOCKET": self.socket(i)}

    def full_env(self, i):
        return dict(os.environ, **self.env(i))

    def conf_text(self, i):
        d = self.node_dir(i)
        lines = ["[logging]",
                 "\tlocation = file:%s" % self.log(i),
                 "\tlog level = %s" % self.log_level,
                 "[cluster]",
                 "\tnode address = %s" % self.addresses[i]]
        if self.cluster_lock:
            lines.append("\tcluster lock = %s" % self.reclock)
        if self.leader_timeout is not None:
            lines.append("\tleader timeout = %d" % self.leader_timeout)
        lines += ["[database]",
                  "\tvolatile database directory = %s/db/volatile" % d,
                  "\tpersistent database directory = %s/db/persistent" % d,
                  "\tstate database directory = %s/db/state" % d,
                  "[failover]",
                  "\tdisabled = %s" % ("false" if self.public_addresses
                                       else "true"),
                  "[legacy]",
                  "\trealtime scheduling = false"]
        return "\n".join(lines) + "\n"

    def write_config(self):
        for i in range(self.n):
            d = self.node_dir(i)
            for sub in ("run", "var", "events/legacy", "db/volatile",
                        "db/persistent", "db/state"):
                os.makedirs(os.path.join(d, sub), exist_ok=True)
            with open(os.path.join(d, "ctdb.conf"), "w") as f:
                f.write(self.conf_text(i))
            with open(os.path.join(d, "nodes"), "w") as f:
                f.write("".join(a + "\n" for a in self.addresses))
            if self.public_addresses:
                with open(os.path.join(d, "public_addresses"), "w") as f:
                    f.write("".join(a + "\n"
                                    for a in self.public_addresses))

    # -- the ctdb tool --------------------------------------------------
    def ctdb(self, i, *args, timeout=TOOL_TIMEOUT):
        """Run `ctdb ARGS` against node i; the CompletedProcess (text)."""
        try:
            return subprocess.run([CTDB] + list(args), env=self.full_env(i),
                                  capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(e.cmd, 124, "",
                                               "timed out after %ss" %
                                               timeout)

    def pnn(self, i):
        r = self.ctdb(i, "pnn")
        if r.returncode != 0:
            raise RuntimeError("ctdb pnn on node %d: %s" % (i, r.stderr))
        return int(r.stdout.strip())

    def healthy(self):
        """True when every node is OK and RUNNING, seen from each node,
        and recovery is over."""
        for i in range(self.n):
            if self.ctdb(i, "nodestatus", "all", timeout=5).returncode != 0:
                return False
            if self.ctdb(i, "runstate", "RUNNING",
                         timeout=5).returncode != 0:
                return False
        st = self.ctdb(0, "status", timeout=5)
        return st.returncode == 0 and "Recovery mode:NORMAL" in st.stdout

    # -- process control ------------------------------------------------
    def running(self, i):
        p = self.procs[i]
        return p is not None and p.poll() is None

    def start(self, timeout=START_TIMEOUT):
        for i, a in enumerate(self.addresses):
            if not tcp_port_free(a, CTDB_PORT):
                raise RuntimeError("%s:%d is taken (another ctdbd or CTDB "
                                   "test cluster runs?)" % (a, CTDB_PORT))
        t0 = time.monotonic()
        try:
            for i in range(self.n):
                logf = open(self.log(i), "ab")
                try:
                    self.procs[i] = subprocess.Popen(
                        [CTDBD, "-i"], env=self.full_env(i),
                        cwd=self.node_dir(i), stdin=subprocess.DEVNULL,
                        stdout=logf, stderr=subprocess.STDOUT,
                        start_new_session=True, preexec_fn=_preexec)
                finally:
                    logf.close()
            deadline = t0 + timeout
            while True:
                for i in range(self.n):
                    if not self.running(i):
                        raise RuntimeError(
                            "ctdbd of node %d exited with %s\n%s" %
                            (i, self.procs[i].returncode,
                             tail(self.log(i))))
                if self.healthy():
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        "CTDB cluster not healthy after %.0f s\n%s\n%s" %
                        (timeout, self.ctdb(0, "status").stdout,
                         "\n".join(tail(self.log(i), 20)
                                   for i in range(self.n))))
                time.sleep(0.25)
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - t0
        return self

    def stop(self):
        """Stop every node (SIGTERM, SIGKILL after STOP_TIMEOUT) and what
        it started (eventd, recovery daemon, lock helpers)."""
        for i in range(self.n):
            p, self.procs[i] = self.procs[i], None
            # ctdb-eventd's command line names ctdbd's pid, the mutex
            # helper names the reclock file
            extra = [self.reclock] if i == self.n - 1 else []
            if p is not None:
                extra.append("-P\0%d\0" % p.pid)
                stop_process(p, extra)
            elif extra:
                _kill(pids_naming(self.reclock), signal.SIGKILL)



# ---------------------------------------------------------------------------

class NodeSmbd:
    """One server of a ClusterSmbd: node i's head."""

    def __init__(self, owner, i):
        self.owner = owner
        self.i = i
        self.host = owner.hosts[i]
        self.dir = os.path.join(owner.base_dir, "s%d" % i)
        for d in ("private", "lock", "state", "cache", "pid"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        self.conf = os.path.join(self.dir, "smb.conf")
        self.log = os.path.join(self.dir, "smbd.log")
        self.port = None
        self.proc = None

    def conf_text(self):
        o, d = self.owner, self.dir
        g = ["[global]",
             "\tclustering = yes",
             "\tctdbd socket = %s" % o.cluster.socket(self.i),
             "\tnetbios name = %s" % o.netbios_name,
             "\tserver role = standalone server",
             "\tsmb ports = %d" % self.port,
             "\tinterfaces = %s" % " ".join(
                 ["%s/8" % self.host] +
                 [a.split()[0] for a in o.cluster.public_addresses]),
             "\tbind interfaces only = yes",
             "\tdisable netbios = yes",
             "\tload printers = no",
             "\tdisable spoolss = yes",
             "\tpassdb backend = tdbsam",
             "\tprivate dir = %s/private" % d,
             "\tlock directory = %s/lock" % d,
             "\tstate directory = %s/state" % d,
             "\tcache directory = %s/cache" % d,
             "\tpid directory = %s/pid" % d]
        if o.samba:
            g.append("\tncalrpc dir = %s/lock/ncalrpc" % d)
        g += h._conf_lines(o.global_options)
        s = ["", "[share]", "\tpath = %s" % o.share, "\tread only = no"]
        s += h._conf_lines(o.share_options)
        return "\n".join(g + s) + "\n"

    def write_conf(self):
        with open(self.conf, "w") as f:
            f.write(self.conf_text())

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def spawn(self):
        o = self.owner
        cmd = [o.binary, "-F", "--debug-stdout", "-d", str(o.debug),
               "-s", self.conf]
        if o.samba:
            cmd.append("--no-process-group")   # we made its session
        with open(self.log, "ab") as logf:
            logf.write(("=== start %s\n" % " ".join(cmd)).encode())
            logf.flush()
            self.proc = subprocess.Popen(
                cmd, env=o.cluster.full_env(self.i), cwd=self.dir,
                stdin=subprocess.DEVNULL, stdout=logf,
                stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=_preexec)

    def accepting(self):
        try:
            with socket.create_connection((self.host, self.port),
                                          timeout=1.0):
                return True
        except OSError:
            return False

    def stop(self):
        p, self.proc = self.proc, None
        if p is not None:
            return stop_process(p, [self.conf])
        _kill(pids_naming(self.conf), signal.SIGKILL)
        return None

    def log_tail(self, n=40):
        return tail(self.log, n)


class ClusterSmbd(_Owned):
    """One clustered SMB server per node of cluster (started), all serving
    one directory (self.share).  binary: $SMBD, else /usr/sbin/smbd."""

    def __init__(self, cluster, base_dir=None, binary=None, debug=3,
                 global_options=None, share_options=None,
                 netbios_name="SMBCLUSTER", hosts=None):
        self.cluster = cluster
        # head i listens on hosts[i]: node i's address unless told, or
        # $SMB_CLUSTER_HOSTS ("127.0.0.1,127.0.0.1": both heads on one
        # address, distinct ports, for a server that cannot bind
        # 127.0.0.2 yet)
        env_hosts = os.environ.get("SMB_CLUSTER_HOSTS")
        if hosts is None and env_hosts:
            hosts = [x.strip() for x in env_hosts.split(",")]
        self.hosts = list(hosts or cluster.addresses)
        assert len(self.hosts) == cluster.n, "one address per node"
        self.binary = os.path.abspath(binary or os.environ.get("SMBD") or
                                      "/usr/sbin/smbd")
        self.samba = h.is_samba(self.binary)
        self.own_dir = base_dir is None
        self.base_dir = os.path.abspath(
            base_dir or tempfile.mkdtemp(prefix="smb-", dir=cluster.base_dir))
        os.makedirs(self.base_dir, exist_ok=True)
        os.chmod(self.base_dir, 0o755)
        self.share = os.path.join(self.base_dir, "share")
        os.makedirs(self.share, exist_ok=True)
        os.chmod(self.share, 0o777)
        self.debug = debug
        self.global_options = global_options
        self.share_options = share_options
        self.netbios_name = netbios_name
        self.servers = [NodeSmbd(self, i) for i in range(cluster.n)]
        self.start_seconds = None
        _LIVE.append(self)

    def __repr__(self):
        return "ClusterSmbd(%s)" % self.base_dir

    def host(self, i):
        return self.servers[i].host

    def port(self, i):
        return self.servers[i].port

    def conf(self, i):
        return self.servers[i].conf

    def log(self, i):
        return self.servers[i].log

    def log_tail(self, i, n=40):
        return self.servers[i].log_tail(n)

    def log_tails(self, n=30):
        return "\n".join("--- head %d: %s\n%s" % (s.i, s.log, s.log_tail(n))
                         for s in self.servers)

    def start(self, timeout=START_TIMEOUT):
        t0 = time.monotonic()
        try:
            for s in self.servers:
                s.port = free_port([s.host])
                s.write_conf()
                s.spawn()
            deadline = t0 + timeout
            for s in self.servers:
                while not s.accepting():
                    if not s.running():
                        raise RuntimeError(
                            "smbd of head %d exited with %s during start\n%s"
                            % (s.i, s.proc.returncode, s.log_tail()))
                    if time.monotonic() > deadline:
                        raise RuntimeError(
                            "smbd of head %d not accepting on %s:%d after "
                            "%.0f s\n%s" % (s.i, s.host, s.port, timeout,
                                            s.log_tail()))
                    time.sleep(0.05)
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - t0
        return self

    def running(self):
        return all(s.running() for s in self.servers)

    def create_user(self, name, password, node=0):
        """The Unix user (if missing) and its passdb entry, written once
        through node's smb.conf (clustered passdb: seen by all heads)."""
        h.create_user(self.conf(node), name, password)

    def stop(self):
        for s in self.servers:
            s.stop()

