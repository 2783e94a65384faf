"""Integration-test harness: start an smbd on a loopback port, talk to it.

Design
------
Every integration test starts a real server (ours, or Samba's with
SMBD=/usr/sbin/smbd) in the foreground in a private temporary directory:

    TMP/smb.conf   standalone, smb ports = PORT, 127.0.0.1 only, no NetBIOS
    TMP/share/     the [share] (writable)
    TMP/private/ lock/ state/ cache/ pid/   every state directory
    TMP/smbd.log   stdout and stderr of the server (-d 3 --debug-stdout)

`Smbd` does that (start, wait until the port accepts, stop with SIGTERM then
SIGKILL, clean up); `RawConn` is a minimal SMB2 client over a plain socket,
built with `struct`, for what impacket hides or refuses to send (8 MiB
limits, negotiate contexts, SMB1 negotiate, malformed packets); every socket
operation has a timeout.  `SmbdTestCase` runs one server per test class and
`backend_variants()` turns a test mixin into one class per event-loop backend
(`smbd io backend = io_uring` and `= epoll`), so every test runs under both
loops.  `main()` runs a module's tests, prints "N passed, N failed" and
exits 0, 1 on a failure, or 77 (automake's SKIP) when every test was
skipped: every test file ends with `h.main()`.

Run with /usr/bin/python3 (Debian's impacket and smbc live there).
Environment: SMBD (server binary), BUILDDIR (a build directory whose
smbd/smbd is used when SMBD is unset), SMBD_KEEP=1 (keep temp dirs),
SMBD_VERBOSE=1 (print server logs of failed tests in full).
"""

import atexit
import os
import random
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# The event-loop backends every test class runs under (DESIGN.md "Fallback").
IO_BACKENDS = ("io_uring", "epoll")

START_TIMEOUT = 20.0     # seconds until the port must accept
STOP_TIMEOUT = 10.0      # seconds between SIGTERM and SIGKILL
NET_TIMEOUT = 10.0       # every socket operation

# The user TestUser adds (the name and password the other tests use).
TEST_USER = "smbdtest"
TEST_PASSWORD = "Test-Pass-1"


def smbd_binary():
    """The server under test: $SMBD, else BUILDDIR's, else a guess."""
    env = os.environ.get("SMBD")
    if env:
        return os.path.abspath(env)
    candidates = []
    if os.environ.get("BUILDDIR"):
        candidates.append(os.path.join(os.environ["BUILDDIR"], "smbd/smbd"))
    candidates += [os.path.join(os.getcwd(), "smbd/smbd"),
                   os.path.join(SRCDIR, "build/smbd/smbd"),
                   os.path.join(SRCDIR, "smbd/smbd")]
    for c in candidates:
        if os.access(c, os.X_OK):
            return os.path.abspath(c)
    raise RuntimeError("no smbd binary: set SMBD or BUILDDIR (tried %s)" %
                       ", ".join(candidates))


def is_samba(binary=None):
    """True when the server under test is Samba's smbd (reference runs)."""
    if os.environ.get("SMBD_IS_SAMBA") is not None:
        return os.environ["SMBD_IS_SAMBA"] not in ("", "0", "no")
    b = os.path.realpath(binary or smbd_binary())
    return b.startswith("/usr/sbin/") or b.startswith("/usr/bin/")


def no_auth_delay():
    """smb.conf options for a server whose tests try wrong passwords but
    are not about the authentication rate limiter (test_auth_limit.py):
    its failed logons are answered at once instead of 2 s late, so the
    suite's many wrong passwords cost no time.  Nothing for Samba, which
    has no limiter (and would warn about the unknown parameter)."""
    return [] if is_samba() else [("smbd auth rate limiter delay", "0")]


def free_port():
    """A loopback TCP port nobody uses right now, chosen at random below
    the kernel's ephemeral range, so that client connections (which get
    ephemeral ports) cannot take it between this check and the bind."""
    low = 32768
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    rnd = random.SystemRandom()
    for _ in range(100):
        port = rnd.randrange(10000, max(low, 10001))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            # state is the field after "(comm)"; comm may hold spaces
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def child_pids(pid):
    """Pids whose parent is pid (what `ps --ppid` shows)."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)],
                         capture_output=True, text=True, timeout=10).stdout
    return sorted(int(x) for x in out.split())


def wait_until(pred, timeout, interval=0.05):
    """Poll pred() until it returns something true; return it or None."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def _conf_lines(opts):
    """Options as smb.conf lines: a dict, a list of (k, v) or of strings."""
    if not opts:
        return []
    if isinstance(opts, dict):
        opts = list(opts.items())
    lines = []
    for o in opts:
        if isinstance(o, str):
            lines.append("\t%s" % o)
        else:
            lines.append("\t%s = %s" % o)
    return lines


def _die_with_parent():
    """In the server child: SIGTERM when the test process dies, so a killed
    test run (timeout, SIGKILL) leaves no daemon behind."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                                signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _sigterm(signum, frame):
    # turn SIGTERM (make's or timeout's) into a normal exit: atexit runs
    sys.exit(128 + signum)


# Servers not cleaned up yet: stopped at exit whatever happened.
_LIVE = []
# Crash lines of servers already cleaned up (see crash_lines()).
CRASHES = []


@atexit.register
def _cleanup_all():
    for srv in list(_LIVE):
        srv.cleanup()


class Smbd:
    """One server instance in its own temporary directory.

    global_options / share_options: extra smb.conf lines (dict, list of
    pairs or raw "name = value" strings), appended after the defaults so
    they override them.  io_backend / workers set our own parameters.
    extra_shares: more sections, [(name, options)], each on the same
    directory as [share] unless its options set a path (smbtorture's
    vfs.fruit wants a second share on the same files without fruit).
    host: the loopback address it listens on (a test that needs port 445,
    which a client following a DFS referral dials, takes a 127.x of its
    own for it).
    """

    def __init__(self, global_options=None, share_options=None,
                 io_backend=None, workers=None, binary=None, debug=3,
                 extra_args=None, port=None, extra_shares=None,
                 host="127.0.0.1"):
        self.binary = binary or smbd_binary()
        self.samba = is_samba(self.binary)
        self.tmp = tempfile.mkdtemp(prefix="smbd-test-")
        self.port = port or free_port()
        self.port_fixed = port is not None
        self.host = host    # the loopback address it listens on
        self.global_options = global_options
        self.share_options = share_options
        self.extra_shares = list(extra_shares or [])
        self.io_backend = io_backend
        self.workers = workers
        self.debug = debug
        self.extra_args = list(extra_args or [])
        self.env = None   # extra environment variables for the server
        self.debug_stdout = True
        self.nofile = None  # RLIMIT_NOFILE for the server, if set
        for d in ("share", "private", "lock", "state", "cache", "pid"):
            os.mkdir(os.path.join(self.tmp, d))
        # users other than root must reach and write the share
        os.chmod(self.tmp, 0o755)
        os.chmod(os.path.join(self.tmp, "share"), 0o777)
        self.share = os.path.join(self.tmp, "share")
        self.conf = os.path.join(self.tmp, "smb.conf")
        self.log = os.path.join(self.tmp, "smbd.log")
        self.proc = None
        self._logf = None
        self.write_conf()
        _LIVE.append(self)

    # -- configuration -------------------------------------------------
    def conf_text(self):
        t = self.tmp
        g = ["[global]",
             "\tserver role = standalone server",
             "\tsmb ports = %d" % self.port,
             # another 127.x is no interface's own address: written
             # with lo's netmask, both servers bind it (Samba's rule)
             "\tinterfaces = %s" % (self.host if self.host == "127.0.0.1"
                                    else self.host + "/8"),
             "\tbind interfaces only = yes",
             "\tdisable netbios = yes",
             "\tpassdb backend = tdbsam",
             "\tprivate dir = %s/private" % t,
             "\tlock directory = %s/lock" % t,
             "\tstate directory = %s/state" % t,
             "\tcache directory = %s/cache" % t,
             "\tpid directory = %s/pid" % t]
        if self.samba:
            # Samba's RPC helpers would otherwise use /run/samba
            g.append("\tncalrpc dir = %s/lock/ncalrpc" % t)
        if self.io_backend:
            g.append("\tsmbd io backend = %s" % self.io_backend)
        if self.workers is not None:
            g.append("\tsmbd workers = %d" % self.workers)
        g += _conf_lines(self.global_options)
        s = ["", "[share]",
             "\tpath = %s" % self.share,
             "\tread only = no"]
        s += _conf_lines(self.share_options)
        for name, opts in self.extra_shares:
            s += ["", "[%s]" % name, "\tpath = %s" % self.share,
                  "\tread only = no"]
            s += _conf_lines(opts)
        return "\n".join(g + s) + "\n"

    def write_conf(self):
        with open(self.conf, "w") as f:
            f.write(self.conf_text())

    @property
    def pid_file(self):
        return os.path.join(self.tmp, "pid", "smbd.pid")

    # -- process control -----------------------------------------------
    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout=START_TIMEOUT):
        """Start in the foreground; return once the port accepts.  If the
        port was taken meanwhile (another test picked it), move to a new
        one, unless the caller chose it."""
        for attempt in range(3):
            try:
                return self._start(timeout)
            except RuntimeError as e:
                if (self.port_fixed or attempt == 2 or
                        not re.search(r"(?i)in use", str(e))):
                    raise
                self.port = free_port()
                self.write_conf()

    def _start(self, timeout):
        if self.running():
            return self
        # debug_stdout False: the server logs where smb.conf says
        # (`log file`); stdout then only has what it prints itself.
        cmd = [self.binary, "-F"] + (["--debug-stdout"]
                                     if self.debug_stdout else []) + \
            ["-d", str(self.debug), "-s", self.conf] + self.extra_args
        if self.samba:
            # we give it its own session already; its setsid() would fail
            cmd.append("--no-process-group")
        self._logf = open(self.log, "ab")
        self._logf.write(("=== start %s\n" % " ".join(cmd)).encode())
        self._logf.flush()
        env = dict(os.environ, **self.env) if self.env else None
        nofile = self.nofile

        def preexec():
            _die_with_parent()
            if nofile is not None:
                import resource
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     env=env,
                                     stdout=self._logf,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True,
                                     preexec_fn=preexec)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self._close_log()
                raise RuntimeError("smbd exited with %s during start\n%s" %
                                   (rc, self.log_tail()))
            try:
                with socket.create_connection((self.host, self.port),
                                              timeout=1.0):
                    pass
                # still ours (not another server that owns the port)?
                time.sleep(0.05)
                if self.proc.poll() is None:
                    return self
                continue
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("smbd did not accept on port %d within "
                                   "%.0f s\n%s" % (self.port, timeout,
                                                   self.log_tail()))
            time.sleep(0.05)

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, then SIGKILL (whole process group) after timeout.
        Returns the exit status, or None if it was not running."""
        if self.proc is None:
            return None
        rc = None
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                rc = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._killpg()
                rc = self.proc.wait(5)
        else:
            rc = self.proc.returncode
        # workers or helpers the master left behind
        self._killpg()
        self._kill_by_conf()
        self._close_log()
        self.proc = None
        return rc

    def _killpg(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _kill_by_conf(self):
        """Samba's smbd starts samba-dcerpcd, which calls setsid() and so
        leaves our process group: find whatever still runs with our
        smb.conf on its command line and kill it."""
        me = os.getpid()
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            conf = self.conf.encode()
            if any(a == conf or a.endswith(b"=" + conf) for a in args):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def _close_log(self):
        if self._logf:
            self._logf.close()
            self._logf = None

    def restart(self):
        self.stop()
        return self.start()

    def reconfigure(self, global_options=None, share_options=None):
        """Rewrite smb.conf (takes effect on restart or SIGHUP)."""
        self.global_options = global_options
        self.share_options = share_options
        self.write_conf()

    def cleanup(self):
        self.stop()
        # remembered for SmbdTestCase.tearDown: the log goes away now
        CRASHES.extend(crash_lines(self))
        if self in _LIVE:
            _LIVE.remove(self)
        if os.environ.get("SMBD_KEEP"):
            sys.stderr.write("kept %s\n" % self.tmp)
            return
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()

    # -- log -----------------------------------------------------------
    def log_text(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def log_size(self):
        try:
            return os.path.getsize(self.log)
        except FileNotFoundError:
            return 0

    def log_tail(self, n=40):
        lines = self.log_text().splitlines()
        return "\n".join("  | " + x for x in lines[-n:])

    def wait_log(self, regex, timeout=5.0, since=0, count=1):
        """Wait until regex matches `count` times in the log after byte
        offset `since`; return the list of matches or None."""
        rx = re.compile(regex)

        def probe():
            with open(self.log, "rb") as f:
                f.seek(since)
                text = f.read().decode("utf-8", "replace")
            m = list(rx.finditer(text))
            return m if len(m) >= count else None
        return wait_until(probe, timeout)

    # -- helpers -------------------------------------------------------
    def create_user(self, name, password):
        create_user(self.conf, name, password)

    def connect(self, timeout=NET_TIMEOUT):
        return RawConn(self.port, host=self.host, timeout=timeout)


def create_user(conf, name, password):
    """Add a Unix user (if missing) and a passdb entry via Samba's
    smbpasswd, so both servers can authenticate it.  Needs root: a test
    that gets here as another user is skipped, not failed (it could not
    run)."""
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root to add the user %s" % name)
    try:
        import pwd
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", name],
                       check=True, timeout=30, capture_output=True)
    r = subprocess.run(["smbpasswd", "-c", conf, "-a", "-s", name],
                       input="%s\n%s\n" % (password, password), text=True,
                       capture_output=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError("smbpasswd -a %s failed: %s%s" %
                           (name, r.stdout, r.stderr))


# ---------------------------------------------------------------------------
# Raw SMB2 packets (MS-SMB2 2.2), built with struct: no impacket limits.

SMB2_NEGOTIATE = 0x0000
SMB2_SESSION_SETUP = 0x0001
SMB2_ECHO = 0x000D

DIALECT_202 = 0x0202
DIALECT_210 = 0x0210
DIALECT_300 = 0x0300
DIALECT_302 = 0x0302
DIALECT_311 = 0x0311
DIALECT_WILDCARD = 0x02FF
ALL_DIALECTS = (DIALECT_202, DIALECT_210, DIALECT_300, DIALECT_302,
                DIALECT_311)

STATUS_SUCCESS = 0x00000000
STATUS_NOT_SUPPORTED = 0xC00000BB
STATUS_INVALID_PARAMETER = 0xC000000D

# negotiate contexts (2.2.3.1)
PREAUTH_INTEGRITY_CAPABILITIES = 0x0001
ENCRYPTION_CAPABILITIES = 0x0002
SIGNING_CAPABILITIES = 0x0008
HASH_SHA512 = 0x0001
CIPHER_AES128_CCM = 0x0001
CIPHER_AES128_GCM = 0x0002
CIPHER_AES256_CCM = 0x0003
CIPHER_AES256_GCM = 0x0004

CAP_ENCRYPTION = 0x40
SIGNING_ENABLED = 0x01


def netbios(payload, length=None):
    """Direct-TCP framing (MS-SMB2 2.1): zero byte + 24-bit length."""
    n = len(payload) if length is None else length
    return struct.pack(">I", n & 0xFFFFFF) + payload


def smb2_header(command, message_id=0, credit_charge=0, credits=1,
                flags=0, session_id=0, tree_id=0, status=0,
                structure_size=64):
    """The 64-byte sync SMB2 header (2.2.1.2)."""
    return struct.pack("<4sHHIHHIIQIIQ16s", b"\xfeSMB", structure_size,
                       credit_charge, status, command, credits, flags, 0,
                       message_id, 0, tree_id, session_id, b"\0" * 16)


def _pad8(b):
    return b + b"\0" * (-len(b) % 8)


def negotiate_context(ctype, data):
    return struct.pack("<HHI", ctype, len(data), 0) + data


def preauth_context(salt=None):
    salt = os.urandom(32) if salt is None else salt
    return negotiate_context(PREAUTH_INTEGRITY_CAPABILITIES,
                             struct.pack("<HHH", 1, len(salt), HASH_SHA512)
                             + salt)


def encryption_context(ciphers=(CIPHER_AES128_GCM, CIPHER_AES128_CCM)):
    return negotiate_context(ENCRYPTION_CAPABILITIES,
                             struct.pack("<H%dH" % len(ciphers),
                                         len(ciphers), *ciphers))


def negotiate_request(dialects=ALL_DIALECTS, contexts=None, message_id=0,
                      client_guid=None, capabilities=CAP_ENCRYPTION,
                      structure_size=36, dialect_count=None):
    """SMB2 NEGOTIATE request (2.2.3).  With 3.1.1 in `dialects` and
    contexts None, offers preauth SHA-512 and encryption capabilities."""
    if contexts is None:
        contexts = ([preauth_context(), encryption_context()]
                    if DIALECT_311 in dialects else [])
    guid = client_guid or uuid.uuid4().bytes
    count = len(dialects) if dialect_count is None else dialect_count
    dial = struct.pack("<%dH" % len(dialects), *dialects)
    ctx_off = 0
    ctx_blob = b""
    if contexts:
        # contexts start 8-aligned after the dialect array (2.2.3)
        ctx_off = 64 + 36 + len(dial)
        ctx_off += -ctx_off % 8
        ctx_blob = b"".join(_pad8(c) for c in contexts[:-1]) + contexts[-1]
    body = struct.pack("<HHHHI16sIHH", structure_size, count,
                       SIGNING_ENABLED, 0, capabilities, guid,
                       ctx_off, len(contexts), 0) + dial
    if contexts:
        body += b"\0" * (ctx_off - 64 - len(body)) + ctx_blob
    return smb2_header(SMB2_NEGOTIATE, message_id) + body


def echo_request(message_id):
    return smb2_header(SMB2_ECHO, message_id) + struct.pack("<HH", 4, 0)


def smb1_negotiate_request(dialects=("NT LM 0.12", "SMB 2.002",
                                     "SMB 2.???")):
    """SMB1 NEGOTIATE (MS-SMB 2.2.4.52) offering SMB2 dialect strings."""
    data = b"".join(b"\x02" + d.encode("ascii") + b"\0" for d in dialects)
    hdr = struct.pack("<4sBIBHH8sHHHHH", b"\xffSMB", 0x72, 0, 0x18, 0xC853,
                      0, b"\0" * 8, 0, 0xFFFF, os.getpid() & 0xFFFF, 0, 0)
    return hdr + struct.pack("<BH", 0, len(data)) + data


class Smb2Response:
    """A parsed SMB2 header plus raw body."""

    def __init__(self, pdu):
        if len(pdu) < 64 or pdu[:4] != b"\xfeSMB":
            raise ValueError("not an SMB2 PDU: %r" % pdu[:16])
        (_, self.structure_size, self.credit_charge, self.status,
         self.command, self.credits, self.flags, self.next_command,
         self.message_id) = struct.unpack_from("<4sHHIHHIIQ", pdu, 0)
        self.raw = pdu
        self.body = pdu[64:]


def parse_negotiate_response(pdu):
    """NEGOTIATE response (2.2.4) as a dict; contexts as {type: [data]}."""
    r = Smb2Response(pdu)
    d = {"status": r.status, "command": r.command,
         "message_id": r.message_id, "credits": r.credits}
    if r.status != STATUS_SUCCESS:
        return d
    b = r.body
    (ssize, secmode, dialect, ctx_count, guid, caps, max_transact,
     max_read, max_write, systime, boottime, sec_off, sec_len,
     ctx_off) = struct.unpack_from("<HHHH16sIIIIQQHHI", b, 0)
    d.update(structure_size=ssize, security_mode=secmode, dialect=dialect,
             server_guid=guid, capabilities=caps,
             max_transact=max_transact, max_read=max_read,
             max_write=max_write, system_time=systime,
             security_buffer=pdu[sec_off:sec_off + sec_len], contexts={})
    d["context_offset"] = ctx_off
    d["context_count"] = ctx_count
    if dialect == DIALECT_311 and ctx_count:
        # the first context sits at the offset given (which 2.2.4 says is
        # 8-aligned: tests check that); the next ones at the next 8-byte
        # boundary after the previous one
        off = ctx_off
        for i in range(ctx_count):
            if i:
                off += -off % 8
            ctype, dlen = struct.unpack_from("<HH", pdu, off)
            d["contexts"].setdefault(ctype, []).append(
                pdu[off + 8:off + 8 + dlen])
            off += 8 + dlen
    return d


class ConnectionClosed(Exception):
    pass


class RawConn:
    """A TCP connection speaking framed SMB2; every call has a timeout."""

    def __init__(self, port, host="127.0.0.1", timeout=NET_TIMEOUT):
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.next_mid = 0

    @property
    def local_port(self):
        return self.sock.getsockname()[1]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, pdu):
        self.sock.sendall(netbios(pdu))

    def _recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionClosed("connection closed after %d of %d "
                                       "bytes" % (len(buf), n))
            buf += chunk
        return buf

    def recv(self):
        """One framed PDU (skipping NetBIOS keepalives).  Raises
        ConnectionClosed on EOF/reset, socket.timeout on timeout."""
        while True:
            try:
                hdr = self._recv_exact(4)
                length = struct.unpack(">I", hdr)[0] & 0xFFFFFF
                if hdr[0] == 0x85:      # NetBIOS keepalive
                    continue
                return self._recv_exact(length)
            except ConnectionResetError as e:
                raise ConnectionClosed(str(e))

    def closed_by_peer(self, timeout=None):
        """Wait up to timeout for the server to close; True if it did (EOF
        or reset), False on timeout.  Data that arrives first is
        returned instead as bytes."""
        r, _, _ = select.select([self.sock], [], [],
                                self.timeout if timeout is None else timeout)
        if not r:
            return False
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False
        return True if not data else data

    def mid(self):
        m = self.next_mid
        self.next_mid += 1
        return m

    def negotiate(self, dialects=ALL_DIALECTS, **kw):
        self.send(negotiate_request(dialects, message_id=self.mid(), **kw))
        return parse_negotiate_response(self.recv())

    def echo(self):
        """ECHO (2.2.28); returns the response status."""
        mid = self.mid()
        self.send(echo_request(mid))
        r = Smb2Response(self.recv())
        if r.command != SMB2_ECHO or r.message_id != mid:
            raise AssertionError("unexpected response cmd %#x mid %d" %
                                 (r.command, r.message_id))
        return r.status


# ---------------------------------------------------------------------------
# unittest glue

class SmbdTestCase(unittest.TestCase):
    """Base class: one server per test class (setUpClass), configured by
    the class attributes below.  Subclasses made by backend_variants() set
    io_backend."""

    io_backend = None
    workers = None
    global_options = None
    share_options = None
    extra_shares = None    # Smbd's extra_shares
    start_server = True

    @classmethod
    def setUpClass(cls):
        cls.smbd = None
        if cls.start_server:
            srv = cls.new_server()
            # class cleanups run even when a subclass's setUpClass fails
            cls.addClassCleanup(srv.cleanup)
            srv.start()
            cls.smbd = srv

    @classmethod
    def new_server(cls, global_options=None, share_options=None, **kw):
        """A server (not started) with this class's backend and options."""
        g = list(_as_pairs(cls.global_options)) + \
            list(_as_pairs(global_options))
        s = list(_as_pairs(cls.share_options)) + \
            list(_as_pairs(share_options))
        kw.setdefault("io_backend", cls.io_backend)
        kw.setdefault("workers", cls.workers)
        kw.setdefault("extra_shares", cls.extra_shares)
        return Smbd(global_options=g, share_options=s, **kw)

    # a test that kills a worker on purpose sets this to True
    allow_worker_death = False

    def setUp(self):
        super().setUp()
        self._log_start = self.smbd.log_size() if self.smbd else 0
        self._crashes_start = len(CRASHES)

    def tearDown(self):
        # the master restarts a crashed worker, so "the server is alive"
        # proves nothing: look for crashes in what this test logged, on the
        # class's server and on servers the test started and cleaned up
        if not self.allow_worker_death:
            bad = CRASHES[getattr(self, "_crashes_start", len(CRASHES)):]
            if self.smbd:
                bad = bad + crash_lines(self.smbd,
                                        getattr(self, "_log_start", 0))
            if bad:
                self.fail("the server crashed during this test:\n%s\n%s" %
                          ("\n".join(bad), self.smbd.log_tail(60)
                           if self.smbd else ""))
        super().tearDown()

    def share_path(self, *names):
        """A path in the class server's [share] directory."""
        return os.path.join(self.smbd.tmp, "share", *names)

    def empty_share(self):
        """Remove what earlier tests of the class left in [share]."""
        root = self.share_path()
        for name in os.listdir(root):
            p = os.path.join(root, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)

    def server_alive(self, srv=None):
        srv = srv or self.smbd
        self.assertTrue(srv.running(), "server died\n" + srv.log_tail())

    def assert_negotiates(self, srv=None, dialects=ALL_DIALECTS):
        srv = srv or self.smbd
        with srv.connect() as c:
            r = c.negotiate(dialects)
        self.assertEqual(r["status"], STATUS_SUCCESS)
        self.assertIn(r["dialect"], dialects)
        return r


# Lines that mean a process of the server crashed or a sanitizer fired.
CRASH = re.compile(r"worker \d+ \(pid \d+\) died|PANIC: caught signal|"
                   r"ERROR: AddressSanitizer|runtime error:|"
                   r"LeakSanitizer")


def stream_info_names(raw):
    """The stream names of a FileStreamInformation buffer (MS-FSCC
    2.4.49: NextEntryOffset, StreamNameLength, StreamSize,
    StreamAllocationSize, then the name), sorted."""
    raw = bytes(raw)
    names, off = [], 0
    while True:
        nxt, nlen = struct.unpack_from("<II", raw, off)
        names.append(raw[off + 24:off + 24 + nlen].decode("utf-16-le"))
        if nxt == 0:
            return sorted(names)
        off += nxt


def crash_lines(srv, since=0):
    """The crash lines the server logged after byte offset `since`."""
    try:
        with open(srv.log, "rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    return [ln for ln in text.splitlines() if CRASH.search(ln)]


def _as_pairs(opts):
    if not opts:
        return []
    if isinstance(opts, dict):
        return list(opts.items())
    return list(opts)


class TestUser:
    """Test mixin, listed before SmbdTestCase: the class's server gets the
    user TEST_USER (adding it needs root: the class is skipped otherwise)
    and cls.client_conf, an empty smb.conf for smbclient's -s;
    impacket_logon() logs on with impacket (every call with NET_TIMEOUT)."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root to add the test user")
        super().setUpClass()
        cls.smbd.create_user(TEST_USER, TEST_PASSWORD)
        cls.client_conf = os.path.join(cls.smbd.tmp, "client.conf")
        with open(cls.client_conf, "w") as f:
            f.write("[global]\n")

    def smbclient(self, *args, share="share", timeout=60):
        """smbclient //127.0.0.1/SHARE ARGS... as TEST_USER: (rc, output);
        fails the test if it hangs."""
        cmd = ["smbclient", "//127.0.0.1/%s" % share,
               "-p", str(self.smbd.port), "-s", self.client_conf,
               "-U", "%s%%%s" % (TEST_USER, TEST_PASSWORD),
               "-t", str(timeout)] + list(args)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail("smbclient hung for %d s" % timeout)
        return r.returncode, r.stdout + r.stderr

    def impacket_logon(self, dialect=DIALECT_302):
        from impacket.smb3 import SMB3
        from impacket.smbconnection import SMBConnection
        raw = SMB3("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                   timeout=NET_TIMEOUT, preferredDialect=dialect)
        conn = SMBConnection(existingConnection=raw)
        try:
            conn.login(TEST_USER, TEST_PASSWORD)
        except Exception:
            raw.close_session()
            raise
        return conn


def backend_variants(namespace, mixin, backends=IO_BACKENDS):
    """Define mixin_<backend> test classes (one per event-loop backend) in
    namespace (a module's globals())."""
    for b in backends:
        name = "%s_%s" % (mixin.__name__, b)
        namespace[name] = type(name, (mixin, SmbdTestCase),
                               {"io_backend": b,
                                "__module__": namespace["__name__"]})


class _Result(unittest.TextTestResult):
    """Prints the server log tail next to a failure (the log says why) and
    counts successes (class-level skips are not in testsRun)."""

    passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1

    def _dump(self, test):
        srv = getattr(test, "smbd", None)
        if srv is not None:
            n = 10000 if os.environ.get("SMBD_VERBOSE") else 30
            self.stream.write("\n--- server log %s (tail)\n%s\n" %
                              (srv.log, srv.log_tail(n)))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._dump(test)

    def addError(self, test, err):
        super().addError(test, err)
        self._dump(test)


# automake's test driver: 0 PASS, 77 SKIP, anything else FAIL.
EXIT_SKIP = 77


def exit_status(res):
    """The exit status for a finished run: 1 on any failure, error or
    unexpected success; 77 (automake's SKIP) when no test ran to the end,
    i.e. every test, class or module was skipped (not root, a tool or a
    feature missing, Samba's server for a test of ours only), so a file
    that could not run is never counted as a PASS; 0 otherwise, also when
    some tests passed and others were skipped.  A file that holds no test
    at all is a failure."""
    failed = len(res.failures) + len(res.errors) + \
        len(res.unexpectedSuccesses)
    if failed:
        return 1
    if res.passed or res.expectedFailures:
        return 0
    if res.skipped:
        return EXIT_SKIP
    return 1


def main(resultclass=None, epilogue=None):
    """Run the calling module's tests (those named on the command line,
    options such as -v left aside, else all); print 'N passed, N failed'
    and exit with exit_status().  resultclass: a _Result subclass (e.g. to
    dump other servers' logs); epilogue: called before the exit."""
    signal.signal(signal.SIGTERM, _sigterm)
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    mod = sys.modules["__main__"]
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names, mod)
    else:
        suite = loader.loadTestsFromModule(mod)
    sys.stderr.write("server under test: %s\n" % smbd_binary())
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=resultclass or _Result)
    res = runner.run(suite)
    failed = len(res.failures) + len(res.errors) + \
        len(res.unexpectedSuccesses)
    if res.skipped:
        print("%d skipped" % len(res.skipped))
    if res.expectedFailures:
        print("%d known failures" % len(res.expectedFailures))
    print("%d passed, %d failed" % (res.passed, failed))
    if epilogue is not None:
        epilogue()
    rc = exit_status(res)
    if rc == EXIT_SKIP:
        for _, why in res.skipped[:1]:
            print("SKIP (exit 77): nothing ran; first reason: %s" % why)
    elif rc != 0 and not failed:
        print("FAIL: no test found")
    sys.exit(rc)
