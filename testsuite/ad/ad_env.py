"""Active Directory test bed (issue 36): a Samba AD DC, a member joined to
it with Samba's `net ads join`, Samba's winbindd for the member, and a
member file server (ours or Samba's smbd), all on loopback in private
namespaces of the test process.

    with AdEnv() as env:                      # DC up, member joined,
        env.timings                           # winbindd answering
        env.kinit("alice")                    # -> ccache path
        with MemberSmbd(env, binary) as srv:  # 127.0.0.3:445
            env.smbclient("open", "ls", user="alice", kerberos=True)

The domain
----------
Realm SMBNG.TEST, NetBIOS domain SMBNG, DNS domain smbng.test, the DC
DC1 (dc1.smbng.test) on 127.0.0.2, provisioned by `samba-tool domain
provision --use-rfc2307 --dns-backend=SAMBA_INTERNAL` into BASE/dc (its
smb.conf is BASE/dc/etc/smb.conf, every directory of its own under
BASE/dc), users alice and bob (USERS) and the group staff = {alice}
(GROUPS), made with samba-tool on the fresh sam.ldb before the DC
starts.  `samba -F` then serves 53, 88, 135, 389, 445, 464, 636, 3268,
3269 and the RPC ports on 127.0.0.2 only (`interfaces = 127.0.0.2/8`,
`bind interfaces only`, the /8 so that Samba takes an address lo does
not carry; no NetBIOS, no replication, no DNS updates: one DC alone).

The member
----------
MEMBER (member.smbng.test) on 127.0.0.3: BASE/member/smb.conf with
`security = ads`, `server role = member server`, `kerberos method =
secrets and keytab`, idmap `*` = tdb 3000-7999 and `SMBNG` = rid
100000-199999 (so alice's uid is 100000 + her RID), `winbind use
default domain = no`, its own private/lock/state/cache/pid/ncalrpc dirs,
`winbindd socket directory = BASE/member/winbindd`, shares [data]
(`valid users = @SMBNG\\staff`) and [open] (both `vfs objects =
acl_xattr`), [plain] (no NT ACLs stored: the Unix mode is the ACL) and
[homes] (`template homedir = BASE/member/home/%U`, winbindd's).  `net ads join -s that --no-dns-updates` joins it (machine
password in BASE/member/private/secrets.tdb, keys in the keytab
BASE/member/krb5.keytab, the krb5.conf's default_keytab_name);
`winbindd -F` runs for it.  MemberSmbd starts a server on that same
smb.conf plus `smb ports` (445 by default) and the caller's options.

Why namespaces, and which
-------------------------
isolate() (called by AdEnv.start()) moves this process into a new mount
namespace and a new network namespace (unshare(2); root only).  In the
network namespace only lo exists (brought up here), so the DC's fixed
ports (53, 88, 389, 445...) and the member's 445 can never collide with
another bed, a CI run or a Samba on the host, and nothing of the bed is
reachable from outside.  In the mount namespace (private propagation):

  /etc/samba, /run/samba, /var/lib/samba, /var/cache/samba,
  /var/log/samba   empty tmpfs: no Samba tool of the bed reads the host's
                   smb.conf or writes the host's state, whatever its
                   defaults (samba-tool provision merges /etc/samba/smb.conf
                   into the DC's config otherwise)
  /etc/hosts       dc1/member names -> 127.0.0.2/127.0.0.3
  /etc/resolv.conf nameserver 127.0.0.2 (the DC's DNS, as a member has)
  /etc/krb5.conf   the bed's (also in KRB5_CONFIG): kdc/admin_server
                   127.0.0.2, no DNS lookups for realm or KDC
  /etc/nsswitch.conf  passwd/group: files winbind: Samba's smbd finds a
                   domain user with getpwnam("SMBNG\\alice") (libnss-winbind)
  /run/samba/winbindd  bind of BASE/member/winbindd, the member winbindd's
                   socket directory

The last one is how libwbclient (and libnss_winbind) reach the bed's
winbindd: Samba 4.17's libwbclient connects to WINBINDD_SOCKET_DIR
compiled in as /run/samba/winbindd and reads no environment variable for
it (SELFTEST_WINBINDD_SOCKET_DIR only when nss_wrapper is active), so a
server that links libwbclient, ours included, needs nothing but to run
inside this namespace.

Every child (DC, net, winbindd, smbd, smbclient, kinit) inherits the
namespaces and env(): KRB5_CONFIG, KRB5CCNAME (a ccache under BASE unless
a user's), KRB5_KTNAME, KRB5RCACHEDIR (BASE: a Kerberos acceptor's MIT
replay cache, else /var/tmp on the host).  Every call has a timeout;
every daemon is started in its own session, dies with this process
(PR_SET_PDEATHSIG) and is stopped by PID in stop()/cleanup()/at exit
(then whatever still names its smb.conf).  BASE is a new
/tmp/ad-XXXXXXXX, removed by cleanup() unless SMBD_KEEP is set (logs:
BASE/dc/samba.log, BASE/member/winbindd.log, BASE/member/net-join.log,
BASE/srv-*/smbd.log).

Unavailable (not root, no samba-ad-dc/winbind/krb5-user, unshare
refused): AdUnavailable, which tests turn into a skip.
"""

import atexit
import ctypes
import fcntl
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cluster"))
import smbd_harness as h  # noqa: E402
from ctdb_cluster import stop_process, tail  # noqa: E402

REALM = "SMBNG.TEST"
DOMAIN = "SMBNG"
DNS_DOMAIN = "smbng.test"
DC_NAME = "DC1"
DC_IP = "127.0.0.2"
MEMBER_NAME = "MEMBER"
MEMBER_IP = "127.0.0.3"
DC_FQDN = "%s.%s" % (DC_NAME.lower(), DNS_DOMAIN)
MEMBER_FQDN = "%s.%s" % (MEMBER_NAME.lower(), DNS_DOMAIN)
ADMIN = "Administrator"
ADMIN_PASSWORD = "Admin-Pass-1"
USERS = {"alice": "Alice-Pass-1", "bob": "Bob-Pass-1"}
GROUPS = {"staff": ["alice"]}
IDMAP_STAR = (3000, 7999)
IDMAP_DOMAIN = (100000, 199999)

SAMBA = os.environ.get("SAMBA", "/usr/sbin/samba")
SAMBA_TOOL = "/usr/bin/samba-tool"
NET = "/usr/bin/net"
WINBINDD = os.environ.get("WINBINDD", "/usr/sbin/winbindd")
WBINFO = "/usr/bin/wbinfo"
KINIT = "/usr/bin/kinit"
KVNO = "/usr/bin/kvno"
SMBCLIENT = "/usr/bin/smbclient"
SMBCACLS = "/usr/bin/smbcacls"
SAMBA_SMBD = "/usr/sbin/smbd"

PROVISION_TIMEOUT = 120     # samba-tool domain provision (4-19 s seen)
TOOL_TIMEOUT = 60           # samba-tool user/group, net, kinit
DC_START_TIMEOUT = 60       # samba -F until ports accept and kinit works
WINBINDD_TIMEOUT = 60       # winbindd until it resolves a domain user
SMBD_START_TIMEOUT = 30     # a member smbd until 445 accepts
CLIENT_TIMEOUT = 30         # smbclient, smbcacls, wbinfo
STOP_TIMEOUT = 10           # SIGTERM .. SIGKILL

# the DC's services: what a lone DC needs for logons, joins and winbindd
DC_SERVICES = "s3fs rpc ldap cldap kdc winbindd dns"
DC_PORTS = (53, 88, 389, 445)

# how ours says it cannot serve this configuration (conf/dump.c)
REFUSAL = re.compile(r"(security = ads|server role = member server) is not "
                     r"supported[^\n]*")

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_BIND = 0x1000

_LIVE = []
_ISOLATED = False


@atexit.register
def _cleanup_all():
    for obj in reversed(list(_LIVE)):
        try:
            obj.cleanup()
        except Exception as e:   # keep stopping the others
            sys.stderr.write("cleanup of %r failed: %s\n" % (obj, e))


class AdUnavailable(Exception):
    """The bed cannot be built here (a reason for a skip)."""


class ServerRefused(Exception):
    """The member server exited at start saying it does not support this
    configuration (ours before issue 36); str() is its log line."""


class StepFailed(RuntimeError):
    """A step of the bed failed or ran past its limit (a real error)."""


def keep():
    return bool(os.environ.get("SMBD_KEEP"))


def bed_for_tests():
    """A started bed for a test module's setUpModule, or SkipTest (not
    root, packages missing, the bed cannot be built here)."""
    import unittest
    why = unavailable_reason()
    if why:
        raise unittest.SkipTest(why)
    env = AdEnv()
    try:
        env.start()
    except AdUnavailable as e:
        env.cleanup()
        raise unittest.SkipTest(str(e))
    except BaseException:
        env.cleanup()
        raise
    return env


def member_for_tests(env, **kw):
    """A started MemberSmbd (kw as MemberSmbd takes them), or SkipTest
    when the server refuses security = ads; one that fails to start is
    cleaned up."""
    import unittest
    srv = MemberSmbd(env, **kw)
    try:
        srv.start()
    except ServerRefused as e:
        srv.cleanup()
        raise unittest.SkipTest("smbd refuses security = ads: %s" % e)
    except BaseException:
        srv.cleanup()
        raise
    return srv


def unavailable_reason():
    """None when the bed can be built here, else why not."""
    if os.geteuid() != 0:
        return "needs root (namespaces, mounts, the DC)"
    need = {SAMBA: "samba-ad-dc", SAMBA_TOOL: "samba-ad-dc",
            NET: "samba-common-bin", WINBINDD: "winbind",
            WBINFO: "winbind", KINIT: "krb5-user", KVNO: "krb5-user",
            SMBCLIENT: "smbclient", SMBCACLS: "smbclient",
            "/usr/bin/mount": "mount"}
    for path, pkg in need.items():
        if not os.access(path, os.X_OK):
            return "%s is not installed (Debian package %s)" % (path, pkg)
    if not _find_lib("libnss_winbind.so.2"):
        # Samba's member smbd looks domain users up through NSS
        return "libnss_winbind is not installed (libnss-winbind)"
    return None


def _find_lib(name):
    for d in ("/lib", "/usr/lib", "/lib/x86_64-linux-gnu",
              "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu"):
        if os.path.exists(os.path.join(d, name)):
            return True
    return False


# ---------------------------------------------------------------------------
# namespaces

def _run(cmd, timeout=TOOL_TIMEOUT, env=None, input=None, check=True,
         what=None):
    """Run cmd (list) with a time limit; the CompletedProcess (text).
    check: raise StepFailed on a non-zero status or the timeout."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=timeout, input=input,
                           stdin=None if input is not None
                           else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        if check:
            raise StepFailed("%s: no answer within %s s" %
                             (what or " ".join(cmd), timeout))
        return subprocess.CompletedProcess(cmd, 124, "",
                                           "timed out after %s s" % timeout)
    if check and r.returncode != 0:
        raise StepFailed("%s failed (exit %d):\n%s%s" %
                         (what or " ".join(cmd), r.returncode, r.stdout,
                          r.stderr))
    return r


def _lo_up():
    """Bring lo up (a new network namespace has it down)."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    fmt = "16sh22x"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        r = fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack(fmt, b"lo", 0))
        flags = struct.unpack(fmt, r)[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack(fmt, b"lo", flags | IFF_UP))


def isolate():
    """Move this process into new mount and network namespaces (once):
    see the module comment.  Must run before the process has threads."""
    global _ISOLATED
    if _ISOLATED:
        return
    if threading.active_count() > 1:
        raise AdUnavailable("isolate() needs a single-threaded process")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS | CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise AdUnavailable("unshare(CLONE_NEWNS|CLONE_NEWNET): %s" %
                            os.strerror(e))
    _ISOLATED = True
    # mounts made from now on stay in this namespace
    _run(["mount", "--make-rprivate", "/"], what="mount --make-rprivate /")
    _lo_up()


def _mount_tmpfs(path):
    if not os.path.isdir(path):
        os.makedirs(path, exist_ok=True)
    _run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", path],
         what="mount tmpfs on %s" % path)


def _bind(src, dst):
    if not os.path.exists(dst):
        if os.path.isdir(src):
            os.makedirs(dst, exist_ok=True)
        else:
            return False    # no such file here: nothing reads it
    _run(["mount", "--bind", src, dst], what="bind %s on %s" % (src, dst))
    return True


def tcp_accepts(host, port, timeout=1.0):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def nt_status(text):
    """The first NT_STATUS_* name in a Samba tool's output, or None."""
    m = re.search(r"NT_STATUS_[A-Z0-9_]+", text)
    return m.group(0) if m else None


class _Timer:
    def __init__(self, timings, name):
        self.timings, self.name = timings, name

    def __enter__(self):
        self.t0 = time.monotonic()

    def __exit__(self, *exc):
        self.timings[self.name] = time.monotonic() - self.t0


# ---------------------------------------------------------------------------

class AdEnv:
    """The DC, the joined member and its winbindd (see the module comment).
    start() builds it all; stop() stops the daemons; cleanup() also
    removes BASE.  timings: seconds per step (provision, users, dc_start,
    join, winbindd, total)."""

    def __init__(self, base_dir=None, dc_debug=1, winbindd_debug=3):
        self.own_dir = base_dir is None
        self.base_dir = base_dir
        self.dc_debug = dc_debug
        self.winbindd_debug = winbindd_debug
        self.dc_proc = None
        self.winbindd_proc = None
        self.timings = {}
        self.sids = {}
        self.started = False

    def __repr__(self):
        return "AdEnv(%s)" % self.base_dir

    # -- paths ----------------------------------------------------------
    def path(self, *p):
        return os.path.join(self.base_dir, *p)

    @property
    def dc_dir(self):
        return self.path("dc")

    @property
    def dc_conf(self):
        return self.path("dc", "etc", "smb.conf")

    @property
    def sam_ldb(self):
        return self.path("dc", "private", "sam.ldb")

    @property
    def member_dir(self):
        return self.path("member")

    @property
    def member_conf(self):
        return self.path("member", "smb.conf")

    @property
    def keytab(self):
        return self.path("member", "krb5.keytab")

    @property
    def krb5_conf(self):
        return self.path("etc", "krb5.conf")

    @property
    def winbindd_socket_dir(self):
        return self.path("member", "winbindd")

    def share_path(self, share):
        return self.path("member", "shares", share)

    def ccache(self, user=None):
        return self.path("ccache" if user is None else "ccache." + user)

    def env(self, ccache=None, **extra):
        """The environment for any tool of the bed: KRB5_CONFIG, the
        keytab, KRB5CCNAME (ccache, default the bed's own)."""
        e = dict(os.environ)
        e.update({"KRB5_CONFIG": self.krb5_conf,
                  "KRB5_KTNAME": "FILE:" + self.keytab,
                  # MIT's replay cache, /var/tmp/krb5_0.rcache2 otherwise
                  "KRB5RCACHEDIR": self.base_dir,
                  "KRB5CCNAME": "FILE:" + (ccache or self.ccache())})
        e.update(extra)
        return e

    # -- configuration files ------------------------------------------
    def krb5_conf_text(self):
        return "\n".join([
            "[libdefaults]",
            "\tdefault_realm = %s" % REALM,
            "\tdns_lookup_realm = false",
            "\tdns_lookup_kdc = false",
            "\trdns = false",
            "\tdefault_keytab_name = FILE:%s" % self.keytab,
            "[realms]",
            "\t%s = {" % REALM,
            "\t\tkdc = %s" % DC_IP,
            "\t\tadmin_server = %s" % DC_IP,
            "\t\tdefault_domain = %s" % DNS_DOMAIN,
            "\t}",
            "[domain_realm]",
            "\t.%s = %s" % (DNS_DOMAIN, REALM),
            "\t%s = %s" % (DNS_DOMAIN, REALM),
            ""])

    def member_global_lines(self):
        """The member's [global] (shared by net, winbindd and smbd)."""
        m = self.member_dir
        return [
            "[global]",
            "\tsecurity = ads",
            "\tserver role = member server",
            "\trealm = %s" % REALM,
            "\tworkgroup = %s" % DOMAIN,
            "\tnetbios name = %s" % MEMBER_NAME,
            "\tkerberos method = secrets and keytab",
            "\tidmap config * : backend = tdb",
            "\tidmap config * : range = %d-%d" % IDMAP_STAR,
            "\tidmap config %s : backend = rid" % DOMAIN,
            "\tidmap config %s : range = %d-%d" % ((DOMAIN,) + IDMAP_DOMAIN),
            "\twinbind use default domain = no",
            "\ttemplate homedir = %s/home/%%U" % m,
            "\ttemplate shell = /usr/sbin/nologin",
            "\tinterfaces = %s/8" % MEMBER_IP,
            "\tbind interfaces only = yes",
            "\tdisable netbios = yes",
            "\tload printers = no",
            "\tdisable spoolss = yes",
            "\tprivate dir = %s/private" % m,
            "\tlock directory = %s/lock" % m,
            "\tstate directory = %s/state" % m,
            "\tcache directory = %s/cache" % m,
            "\tpid directory = %s/pid" % m,
            "\tncalrpc dir = %s/ncalrpc" % m,
            "\twinbindd socket directory = %s" % self.winbindd_socket_dir,
        ]

    def member_share_lines(self):
        return [
            "",
            "[data]",
            "\tpath = %s" % self.share_path("data"),
            "\tread only = no",
            "\tvalid users = @%s\\staff" % DOMAIN,
            "\tvfs objects = acl_xattr",
            "",
            "[open]",
            "\tpath = %s" % self.share_path("open"),
            "\tread only = no",
            "\tvfs objects = acl_xattr",
            "",
            "[plain]",
            "\tpath = %s" % self.share_path("plain"),
            "\tread only = no",
            "",
            "[homes]",
            "\tread only = no",
            "\tbrowseable = no",
        ]

    def member_conf_text(self, extra_global=()):
        return "\n".join(self.member_global_lines() +
                         h._conf_lines(list(extra_global)) +
                         self.member_share_lines()) + "\n"

    def _write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def _setup_namespace(self):
        """The bed's view of /etc and Samba's default directories."""
        etc = self.path("etc")
        # the machine's own name too: Samba resolves it (get_mydnsfullname)
        self._write(os.path.join(etc, "hosts"),
                    "127.0.0.1\tlocalhost %s\n" % socket.gethostname() +
                    "%s\t%s %s\n" % (DC_IP, DC_FQDN, DC_NAME.lower()) +
                    "%s\t%s %s\n" % (MEMBER_IP, MEMBER_FQDN,
                                     MEMBER_NAME.lower()))
        self._write(os.path.join(etc, "resolv.conf"),
                    "nameserver %s\nsearch %s\n" % (DC_IP, DNS_DOMAIN))
        self._write(os.path.join(etc, "nsswitch.conf"),
                    "passwd: files winbind\ngroup: files winbind\n"
                    "shadow: files\nhosts: files dns\n")
        self._write(self.krb5_conf, self.krb5_conf_text())
        for d in ("/etc/samba", "/run/samba", "/var/lib/samba",
                  "/var/cache/samba", "/var/log/samba"):
            _mount_tmpfs(d)
        for name in ("hosts", "resolv.conf", "nsswitch.conf", "krb5.conf"):
            _bind(os.path.join(etc, name), os.path.join("/etc", name))
        os.makedirs(self.winbindd_socket_dir, mode=0o755, exist_ok=True)
        _bind(self.winbindd_socket_dir, "/run/samba/winbindd")

    # -- steps ----------------------------------------------------------
    def start(self):
        why = unavailable_reason()
        if why:
            raise AdUnavailable(why)
        isolate()
        if self.base_dir is None:
            self.base_dir = tempfile.mkdtemp(prefix="ad-", dir="/tmp")
        os.makedirs(self.base_dir, exist_ok=True)
        os.chmod(self.base_dir, 0o755)
        _LIVE.append(self)
        os.environ.update({k: v for k, v in self.env().items()
                           if k.startswith("KRB5")})
        t0 = time.monotonic()
        try:
            self._setup_namespace()
            with _Timer(self.timings, "provision"):
                self.provision()
            with _Timer(self.timings, "users"):
                self.add_users()
            with _Timer(self.timings, "dc_start"):
                self.start_dc()
            with _Timer(self.timings, "join"):
                self.join()
            with _Timer(self.timings, "winbindd"):
                self.start_winbindd()
        except BaseException:
            self.stop()
            raise
        self.timings["total"] = time.monotonic() - t0
        self.started = True
        return self

    def provision(self):
        d = self.dc_dir
        opts = {
            "interfaces": "%s/8" % DC_IP,
            "bind interfaces only": "yes",
            "disable netbios": "yes",
            "server services": DC_SERVICES,
            "dns update command": "/bin/true",
            "prefork children": "2",
            "ncalrpc dir": "%s/ncalrpc" % d,
            "pid directory": "%s/pid" % d,
            "winbindd socket directory": "%s/winbindd" % d,
            "binddns dir": "%s/bind-dns" % d,
            "log file": "%s/log.%%m" % d,
        }
        cmd = [SAMBA_TOOL, "domain", "provision", "--realm=" + REALM,
               "--domain=" + DOMAIN, "--server-role=dc",
               "--dns-backend=SAMBA_INTERNAL", "--use-rfc2307",
               "--adminpass=" + ADMIN_PASSWORD,
               "--host-name=" + DC_NAME.lower(), "--host-ip=" + DC_IP,
               "--targetdir=" + d]
        cmd += ["--option=%s = %s" % kv for kv in opts.items()]
        r = _run(cmd, timeout=PROVISION_TIMEOUT, env=self.env(),
                 check=False, what="samba-tool domain provision")
        self._write(self.path("dc", "provision.log"), r.stdout + r.stderr)
        if r.returncode != 0:
            raise StepFailed("samba-tool domain provision failed (exit "
                             "%d):\n%s" % (r.returncode,
                                           tail(self.path("dc",
                                                          "provision.log"))))

    def samba_tool(self, *args, timeout=TOOL_TIMEOUT):
        """samba-tool ARGS on the DC's sam.ldb (works with the DC up or
        down); the CompletedProcess, StepFailed on failure."""
        return _run([SAMBA_TOOL] + list(args) + ["-H", self.sam_ldb,
                                                 "-s", self.dc_conf],
                    timeout=timeout, env=self.env(),
                    what="samba-tool " + " ".join(args[:2]))

    def add_users(self):
        for user, pw in USERS.items():
            self.samba_tool("user", "create", user, pw)
        for group, members in GROUPS.items():
            self.samba_tool("group", "add", group)
            if members:
                self.samba_tool("group", "addmembers", group,
                                ",".join(members))

    def _spawn(self, cmd, log, env=None, preexec=h._die_with_parent):
        with open(log, "ab") as logf:
            logf.write(("=== start %s\n" % " ".join(cmd)).encode())
            logf.flush()
            return subprocess.Popen(cmd, env=env or self.env(),
                                    cwd=self.base_dir,
                                    stdin=subprocess.DEVNULL, stdout=logf,
                                    stderr=subprocess.STDOUT,
                                    start_new_session=True,
                                    preexec_fn=preexec)

    @property
    def dc_log(self):
        return self.path("dc", "samba.log")

    def start_dc(self):
        cmd = [SAMBA, "-F", "--no-process-group", "--debug-stdout",
               "-d", str(self.dc_debug), "-s", self.dc_conf]
        self.dc_proc = self._spawn(cmd, self.dc_log,
                                   preexec=self._dc_namespace)
        deadline = time.monotonic() + DC_START_TIMEOUT
        admin_cc = self.ccache("administrator")
        while True:
            if self.dc_proc.poll() is not None:
                raise StepFailed("samba (the DC) exited with %s\n%s" %
                                 (self.dc_proc.returncode,
                                  tail(self.dc_log)))
            if all(tcp_accepts(DC_IP, p) for p in DC_PORTS) and \
                    self.kinit(ADMIN, ADMIN_PASSWORD, ccache=admin_cc,
                               check=False):
                return
            if time.monotonic() > deadline:
                raise StepFailed("the DC is not serving after %d s\n%s" %
                                 (DC_START_TIMEOUT, tail(self.dc_log)))
            time.sleep(0.2)

    def _dc_namespace(self):
        """In the DC's child: a mount namespace of its own where
        /run/samba/winbindd is the DC's winbindd socket directory (its
        smbd reaches its winbindd through libwbclient, which knows no
        other path; ours shows the member's)."""
        h._die_with_parent()
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
        src = os.path.join(self.dc_dir, "winbindd").encode()
        os.makedirs(src, mode=0o755, exist_ok=True)
        if libc.mount(src, b"/run/samba/winbindd", None, MS_BIND,
                      None) != 0:
            raise OSError(ctypes.get_errno(), "bind DC winbindd dir")

    def restart_dc(self, extra_global=()):
        """Restart the DC with extra [global] options (none: as
        provisioned), e.g. ntlm auth = disabled for a Kerberos-only
        domain; returns once the DC serves and the member's winbindd
        reaches it again (wbinfo -P)."""
        if not hasattr(self, "_dc_conf_orig"):
            with open(self.dc_conf) as f:
                self._dc_conf_orig = f.read()
        text = self._dc_conf_orig.replace(
            "[global]\n", "\n".join(["[global]"] +
                                     h._conf_lines(list(extra_global))) +
            "\n", 1)
        p, self.dc_proc = self.dc_proc, None
        if p is not None:
            stop_process(p, [self.dc_conf], timeout=STOP_TIMEOUT)
        self._write(self.dc_conf, text)
        self.start_dc()
        deadline = time.monotonic() + WINBINDD_TIMEOUT
        while self.wbinfo("-P", check=False, timeout=10).returncode != 0:
            if time.monotonic() > deadline:
                raise StepFailed("winbindd does not reach the restarted "
                                 "DC after %d s\n%s" %
                                 (WINBINDD_TIMEOUT, tail(self.winbindd_log)))
            time.sleep(0.2)

    def kinit(self, user, password=None, ccache=None, check=True):
        """A TGT for user (password default USERS[user]) into ccache
        (default ccache(user)); returns the ccache path, or None when
        check is False and kinit failed."""
        if password is None:
            password = USERS[user]
        ccache = ccache or self.ccache(user)
        r = _run([KINIT, "%s@%s" % (user, REALM)], input=password + "\n",
                 env=self.env(ccache=ccache), check=check,
                 timeout=TOOL_TIMEOUT, what="kinit " + user)
        if r.returncode != 0:
            return None
        return ccache

    def service_ticket(self, ccache, spn="cifs/" + MEMBER_FQDN):
        """Add a service ticket for spn to ccache (MIT kvno, from the TGT
        there): impacket 0.10's own TGS-REQ lacks the body checksum that
        Samba's KDC demands (KRB_AP_ERR_INAPP_CKSUM), so impacket logs on
        with a ticket fetched this way."""
        _run([KVNO, "-c", ccache, "%s@%s" % (spn, REALM)],
             env=self.env(ccache=ccache), timeout=TOOL_TIMEOUT,
             what="kvno " + spn)

    def join(self):
        os.makedirs(self.member_dir, exist_ok=True)
        for d in ("private", "lock", "state", "cache", "pid", "ncalrpc"):
            os.makedirs(os.path.join(self.member_dir, d), exist_ok=True)
        for s in ("data", "open", "plain"):
            os.makedirs(self.share_path(s), exist_ok=True)
            os.chmod(self.share_path(s), 0o777)
        self._write(self.member_conf, self.member_conf_text())
        r = _run([NET, "ads", "join", "-s", self.member_conf,
                  "-U", "%s%%%s" % (ADMIN, ADMIN_PASSWORD),
                  "--no-dns-updates", "-d", "3"],
                 env=self.env(), check=False, timeout=TOOL_TIMEOUT,
                 what="net ads join")
        self._write(self.path("member", "net-join.log"),
                    r.stdout + r.stderr)
        if r.returncode != 0:
            raise StepFailed("net ads join failed (exit %d):\n%s" %
                             (r.returncode,
                              tail(self.path("member", "net-join.log"))))

    @property
    def winbindd_log(self):
        return self.path("member", "winbindd.log")

    def start_winbindd(self):
        cmd = [WINBINDD, "-F", "--no-process-group", "--debug-stdout",
               "-d", str(self.winbindd_debug), "-s", self.member_conf]
        self.winbindd_proc = self._spawn(cmd, self.winbindd_log)
        deadline = time.monotonic() + WINBINDD_TIMEOUT
        while True:
            if self.winbindd_proc.poll() is not None:
                raise StepFailed("winbindd exited with %s\n%s" %
                                 (self.winbindd_proc.returncode,
                                  tail(self.winbindd_log)))
            sids = self._lookup_all()
            if sids:
                self.sids = sids
                return
            if time.monotonic() > deadline:
                raise StepFailed("winbindd does not resolve %s\\alice "
                                 "after %d s\n%s" % (DOMAIN,
                                                     WINBINDD_TIMEOUT,
                                                     tail(self.winbindd_log)))
            time.sleep(0.2)

    def _lookup_all(self):
        """{name: sid} of the users and groups through winbindd, or None
        while it cannot answer yet."""
        out = {}
        for name in list(USERS) + list(GROUPS):
            r = self.wbinfo("--name-to-sid", "%s\\%s" % (DOMAIN, name),
                            check=False, timeout=10)
            if r.returncode != 0:
                return None
            out[name] = r.stdout.split()[0]
        return out

    def wbinfo(self, *args, check=True, timeout=CLIENT_TIMEOUT):
        """wbinfo ARGS against the member's winbindd (through the
        /run/samba/winbindd bind mount, as libwbclient finds it)."""
        return _run([WBINFO] + list(args), env=self.env(), check=check,
                    timeout=timeout, what="wbinfo " + " ".join(args))

    def uid_of(self, name):
        """The uid winbindd maps DOMAIN\\name to."""
        sid = self.sids.get(name) or self.wbinfo(
            "--name-to-sid", "%s\\%s" % (DOMAIN, name)).stdout.split()[0]
        return int(self.wbinfo("--sid-to-uid", sid).stdout.strip())

    def gid_of(self, name):
        sid = self.sids.get(name) or self.wbinfo(
            "--name-to-sid", "%s\\%s" % (DOMAIN, name)).stdout.split()[0]
        return int(self.wbinfo("--sid-to-gid", sid).stdout.strip())

    # -- clients --------------------------------------------------------
    def client_conf(self):
        """An smb.conf for the client tools: the realm and workgroup, no
        other settings (the tools must not read the member's)."""
        p = self.path("client.conf")
        if not os.path.exists(p):
            self._write(p, "[global]\n\tworkgroup = %s\n\trealm = %s\n" %
                        (DOMAIN, REALM))
        return p

    def _client_auth(self, user, password, kerberos, ccache):
        """Arguments and environment for a Samba client tool: Kerberos
        with user's ccache (kinit first if none), or NTLM as DOMAIN\\user
        (password default USERS[user])."""
        if kerberos:
            ccache = ccache or self.ccache(user)
            if not os.path.exists(ccache):
                self.kinit(user, password, ccache=ccache)
            return (["--use-kerberos=required",
                     "--use-krb5-ccache=" + ccache],
                    self.env(ccache=ccache))
        if password is None:
            password = USERS[user]
        return (["--use-kerberos=off", "-U",
                 "%s\\%s%%%s" % (DOMAIN, user, password)],
                self.env(ccache=self.path("ccache.none")))

    def smbclient(self, share, command, user="alice", password=None,
                  kerberos=False, ccache=None, host=MEMBER_FQDN, port=445,
                  timeout=CLIENT_TIMEOUT, extra=()):
        """smbclient //host/share -c command; (rc, output)."""
        auth, env = self._client_auth(user, password, kerberos, ccache)
        cmd = [SMBCLIENT, "//%s/%s" % (host, share), "-p", str(port),
               "-s", self.client_conf(), "-t", str(timeout),
               "-c", command] + auth + list(extra)
        r = _run(cmd, env=env, check=False, timeout=timeout)
        return r.returncode, r.stdout + r.stderr

    def smbcacls(self, share, path, *args, user="alice", password=None,
                 kerberos=True, ccache=None, host=MEMBER_FQDN, port=445,
                 timeout=CLIENT_TIMEOUT):
        """smbcacls //host/share path ARGS; (rc, output)."""
        auth, env = self._client_auth(user, password, kerberos, ccache)
        # smbcacls has no -p: the client's smb ports say where to dial
        cmd = [SMBCACLS, "//%s/%s" % (host, share), path,
               "-s", self.client_conf(),
               "--option=smb ports=%d" % port] + auth + list(args)
        r = _run(cmd, env=env, check=False, timeout=timeout)
        return r.returncode, r.stdout + r.stderr

    # -- teardown -------------------------------------------------------
    def stop(self):
        p, self.winbindd_proc = self.winbindd_proc, None
        if p is not None:
            stop_process(p, [self.member_conf], timeout=STOP_TIMEOUT)
        p, self.dc_proc = self.dc_proc, None
        if p is not None:
            stop_process(p, [self.dc_conf], timeout=STOP_TIMEOUT)
        self.started = False

    def cleanup(self):
        self.stop()
        if self in _LIVE:
            _LIVE.remove(self)
        if self.own_dir and self.base_dir:
            if keep():
                sys.stderr.write("kept %s\n" % self.base_dir)
            else:
                shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class MemberSmbd:
    """A file server for the member on MEMBER_IP:port, reading the
    member's smb.conf plus extra_global (its own copy BASE/srv-N/smb.conf,
    so that an option for the server does not reach winbindd).  binary:
    ours or Samba's (/usr/sbin/smbd); default $SMBD, else Samba's.
    start() raises ServerRefused when the server exits saying it does not
    support security = ads / member server."""

    _n = 0

    def __init__(self, env, binary=None, extra_global=(), port=445,
                 debug=3):
        self.env = env
        self.binary = os.path.abspath(binary or os.environ.get("SMBD") or
                                      SAMBA_SMBD)
        self.samba = h.is_samba(self.binary)
        self.port = port
        self.debug = debug
        self.extra_global = list(extra_global)
        MemberSmbd._n += 1
        self.dir = env.path("srv-%d" % MemberSmbd._n)
        for sub in ("pid", "lock", "ncalrpc"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        self.conf = os.path.join(self.dir, "smb.conf")
        self.log = os.path.join(self.dir, "smbd.log")
        self.proc = None
        self.start_seconds = None
        _LIVE.append(self)

    def __repr__(self):
        return "MemberSmbd(%s)" % self.binary

    def conf_text(self):
        # its own pid, lock and ncalrpc dirs: two servers of the member
        # (another port, other options) may run at once; the machine
        # account (private dir) and winbindd are the member's
        d = self.dir
        g = [("smb ports", str(self.port)),
             ("pid directory", d + "/pid"),
             ("lock directory", d + "/lock"),
             ("ncalrpc dir", d + "/ncalrpc")] + list(self.extra_global)
        return self.env.member_conf_text(g)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout=SMBD_START_TIMEOUT):
        with open(self.conf, "w") as f:
            f.write(self.conf_text())
        cmd = [self.binary, "-F", "--debug-stdout", "-d", str(self.debug),
               "-s", self.conf]
        if self.samba:
            cmd.append("--no-process-group")   # we made its session
        t0 = time.monotonic()
        self.proc = self.env._spawn(cmd, self.log)
        deadline = t0 + timeout
        while not tcp_accepts(MEMBER_IP, self.port):
            if self.proc.poll() is not None:
                rc = self.proc.returncode
                self.proc = None
                text = self.log_text()
                m = REFUSAL.search(text)
                if m:
                    raise ServerRefused(m.group(0))
                raise StepFailed("%s exited with %s during start\n%s" %
                                 (self.binary, rc, self.log_tail()))
            if time.monotonic() > deadline:
                self.stop()
                raise StepFailed("%s not accepting on %s:%d after %d s\n%s"
                                 % (self.binary, MEMBER_IP, self.port,
                                    timeout, self.log_tail()))
            time.sleep(0.05)
        self.start_seconds = time.monotonic() - t0
        return self

    def stop(self):
        p, self.proc = self.proc, None
        if p is not None:
            return stop_process(p, [self.conf], timeout=STOP_TIMEOUT)
        return None

    def restart(self):
        self.stop()
        return self.start()

    def cleanup(self):
        self.stop()
        if self in _LIVE:
            _LIVE.remove(self)

    def log_text(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_tail(self, n=40):
        return tail(self.log, n)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


def main():
    """Build the bed, print its timings and the SIDs/uids, start a member
    smbd ($SMBD or Samba's) and list [open] as alice over Kerberos; with
    --shell, run a shell inside the bed's namespaces afterwards."""
    signal.signal(signal.SIGTERM, h._sigterm)
    try:
        env = AdEnv().start()
    except AdUnavailable as e:
        print("SKIP: %s" % e)
        sys.exit(77)
    for k, v in env.timings.items():
        print("%-10s %6.2f s" % (k, v))
    for name, sid in env.sids.items():
        print("%-6s %s" % (name, sid))
    print("alice uid %d, staff gid %d" % (env.uid_of("alice"),
                                          env.gid_of("staff")))
    try:
        srv = MemberSmbd(env).start()
    except ServerRefused as e:
        print("member smbd refused: %s" % e)
        srv = None
    if srv:
        print("member smbd up in %.2f s" % srv.start_seconds)
        print(env.smbclient("open", "ls", kerberos=True)[1])
    if "--shell" in sys.argv:
        subprocess.call([os.environ.get("SHELL", "/bin/sh")],
                        env=env.env(), cwd=env.base_dir)
    env.cleanup()


if __name__ == "__main__":
    main()
