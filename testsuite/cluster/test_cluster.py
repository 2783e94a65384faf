#!/usr/bin/python3
"""Two clustered SMB heads on one CTDB cluster: what one head holds, the
other must honour.

setUpClass starts a 2-node CTDB cluster on 127.0.0.1/127.0.0.2
(ctdb_cluster.CtdbCluster) and one server per node with clustering = yes
(ctdb_cluster.ClusterSmbd), both serving the same directory, and adds the
test user once, through head 1's smb.conf.  Each test opens a file through
head 1 (127.0.0.1) and then acts through head 2 (127.0.0.2):

  share mode      share access 0 on head 1 -> head 2's open fails
  byte-range lock exclusive lock on head 1 -> head 2's lock fails
  delete pending  delete-on-close set on head 1 -> head 2's open fails
  oplock break    batch oplock on head 1; head 2's open makes head 1's
                  client get an OPLOCK_BREAK, and succeeds after the ack
  lease break     the same with an RWH lease (SMB 3)
  logon           the user added once logs on through both heads

The status codes in the assertions are what Samba 4.17 answers
(SMBD=/usr/sbin/smbd).  Client: impacket's SMB3 (SMB 3.0.2), with the
CREATE, LOCK and break acknowledgements built here so that the response
status, the granted oplock and unsolicited breaks can be seen; every
network call has a timeout (NET_TIMEOUT).

Run: SMBD=/usr/sbin/smbd /usr/bin/python3 testsuite/cluster/test_cluster.py -v
(or testsuite/cluster/run.sh test_cluster.py).  SMBD_KEEP=1 keeps the
directory (logs: BASE/n*/ctdbd.log, BASE/smb-*/s*/smbd.log).
"""

import os
import signal
import struct
import subprocess
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctdb_cluster as cc  # noqa: E402
from ctdb_cluster import h  # noqa: E402  (testsuite/integration/smbd_harness)

NET_TIMEOUT = 15

USER = h.TEST_USER
PASSWORD = h.TEST_PASSWORD

GENERIC_READ_WRITE = 0x0012019F     # FILE_GENERIC_READ | FILE_GENERIC_WRITE
DELETE = 0x00010000
SYNCHRONIZE = 0x00100000
FILE_READ_ATTRIBUTES = 0x00000080
SHARE_NONE = 0
SHARE_ALL = 0x7                     # read | write | delete
FILE_OPEN = 1
FILE_OPEN_IF = 3
FILE_NON_DIRECTORY_FILE = 0x40
ATTR_NORMAL = 0x80

OPLOCK_NONE = 0x00
OPLOCK_II = 0x01
OPLOCK_BATCH = 0x09
OPLOCK_LEASE = 0xFF
LEASE_R, LEASE_H, LEASE_W = 1, 2, 4
LEASE_BREAK_ACK_REQUIRED = 0x01

LOCK_EXCLUSIVE = 0x02
LOCK_UNLOCK = 0x04
LOCK_FAIL_IMMEDIATELY = 0x10

FILE_DISPOSITION_INFORMATION = 13
SMB2_0_INFO_FILE = 1

STATUS_SUCCESS = 0
STATUS_PENDING = 0x00000103
STATUS_SHARING_VIOLATION = 0xC0000043
STATUS_FILE_LOCK_CONFLICT = 0xC0000054
STATUS_LOCK_NOT_GRANTED = 0xC0000055
STATUS_DELETE_PENDING = 0xC0000056
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_LOGON_FAILURE = 0xC000006D

SMB2_OPLOCK_BREAK = 0x12
UNSOLICITED = 0xFFFFFFFFFFFFFFFF

from impacket import smb3structs as s3  # noqa: E402
from impacket.smb3 import SMB3, SessionError  # noqa: E402


def status_name(st):
    for k, v in globals().items():
        if k.startswith("STATUS_") and v == st:
            return "%s (0x%08x)" % (k, st)
    return "0x%08x" % st


def err_code(e):
    get = getattr(e, "get_error_code", None) or getattr(e, "getErrorCode")
    return get()


class Head:
    """One logged-on connection to a head, with its tree on [share]."""

    def __init__(self, host, port, user=USER, password=PASSWORD):
        self.smb = SMB3(host, host, sess_port=port, timeout=NET_TIMEOUT,
                        preferredDialect=s3.SMB2_DIALECT_302)
        try:
            self.smb.login(user, password)
            self.tid = self.smb.connectTree("share")
        except Exception:
            self.drop()
            raise

    def drop(self):
        try:
            self.smb._NetBIOSSession.get_socket().close()
        except Exception:
            pass

    def close_all(self):
        """LOGOFF (closes every open of the session), then drop."""
        try:
            self.smb.logoff()
        except Exception:
            pass
        self.drop()

    # -- raw requests: the status, not an exception ----------------------
    def _send(self, command, data):
        pkt = self.smb.SMB_PACKET()
        pkt["Command"] = command
        pkt["TreeID"] = self.tid
        pkt["Data"] = data
        return self.smb.sendSMB(pkt)

    def _recv(self, mid):
        """The final answer to mid (interim STATUS_PENDING skipped by
        impacket) as an SMB2Packet."""
        return self.smb.recvSMB(mid)

    def create_send(self, name, access=GENERIC_READ_WRITE, share=SHARE_ALL,
                    disposition=FILE_OPEN_IF, oplock=OPLOCK_NONE,
                    contexts=b""):
        req = s3.SMB2Create()
        raw = name.encode("utf-16le")
        req["SecurityFlags"] = 0
        req["RequestedOplockLevel"] = oplock
        req["ImpersonationLevel"] = s3.SMB2_IL_IMPERSONATION
        req["DesiredAccess"] = access
        req["FileAttributes"] = ATTR_NORMAL
        req["ShareAccess"] = share
        req["CreateDisposition"] = disposition
        req["CreateOptions"] = FILE_NON_DIRECTORY_FILE
        req["NameLength"] = len(raw)
        req["Buffer"] = raw
        if contexts:
            off = s3.SMB2_PACKET_SIZE + s3.SMB2Create.SIZE + len(raw)
            pad = -off % 8
            req["Buffer"] = raw + b"\0" * pad + contexts
            req["CreateContextsOffset"] = off + pad
            req["CreateContextsLength"] = len(contexts)
        else:
            req["CreateContextsOffset"] = 0
            req["CreateContextsLength"] = 0
        return self._send(s3.SMB2_CREATE, req)

    def create_recv(self, mid):
        """(status, fid or None, granted oplock level, response body)."""
        ans = self._recv(mid)
        if ans["Status"] != STATUS_SUCCESS:
            return ans["Status"], None, None, None
        rsp = s3.SMB2Create_Response(ans["Data"])
        fid = rsp["FileID"].getData()
        return STATUS_SUCCESS, fid, rsp["OplockLevel"], ans["Data"]

    def create(self, name, **kw):
        return self.create_recv(self.create_send(name, **kw))

    def close(self, fid):
        """CLOSE; the status."""
        req = s3.SMB2Close()
        req["Flags"] = 0
        req["FileID"] = fid
        return self._recv(self._send(s3.SMB2_CLOSE, req))["Status"]

    def lock(self, fid, elements):
        """LOCK with (offset, length, flags) elements; the status."""
        req = s3.SMB2Lock()
        req["FileID"] = fid
        req["LockCount"] = len(elements)
        req["LockSequence"] = 0
        req["Locks"] = b"".join(struct.pack("<QQII", o, n, f, 0)
                                for o, n, f in elements)
        return self._recv(self._send(s3.SMB2_LOCK, req))["Status"]

    def set_delete_on_close(self, fid, on=True):
        """SET_INFO FileDispositionInformation; the status."""
        req = s3.SMB2SetInfo()
        req["InfoType"] = SMB2_0_INFO_FILE
        req["FileInfoClass"] = FILE_DISPOSITION_INFORMATION
        req["BufferLength"] = 1
        req["AdditionalInformation"] = 0
        req["FileID"] = fid
        req["Buffer"] = bytes([1 if on else 0])
        return self._recv(self._send(s3.SMB2_SET_INFO, req))["Status"]

    def next_break(self, timeout):
        """The next unsolicited OPLOCK_BREAK on this connection: the raw
        SMB2 message (header + body), or None after timeout seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                data = self.smb._NetBIOSSession.recv_packet(left)
            except Exception:
                return None
            raw = data.get_trailer()
            cmd, = struct.unpack_from("<H", raw, 12)
            mid, = struct.unpack_from("<Q", raw, 24)
            if cmd == SMB2_OPLOCK_BREAK and mid == UNSOLICITED:
                return raw
            # an answer to something else: keep it for recvSMB
            pkt = s3.SMB2Packet(raw)
            self.smb._Connection["OutstandingResponses"][mid] = pkt

    def ack_oplock(self, fid, level):
        """OPLOCK_BREAK acknowledgement (MS-SMB2 2.2.24.1); the status."""
        body = struct.pack("<HBBI16s", 24, level, 0, 0, fid)
        return self._recv(self._send(SMB2_OPLOCK_BREAK, body))["Status"]

    def ack_lease(self, key, state):
        """Lease break acknowledgement (2.2.24.2); the status."""
        body = struct.pack("<HHI16sIQ", 36, 0, 0, key, state, 0)
        return self._recv(self._send(SMB2_OPLOCK_BREAK, body))["Status"]


def lease_context(key, state):
    """SMB2_CREATE_REQUEST_LEASE (v1, 2.2.13.2.8) context, alone."""
    data = struct.pack("<16sIIQ", key, state, 0, 0)
    hdr = struct.pack("<IHHHHI", 0, 16, 4, 0, 24, len(data))
    return hdr + b"RqLs" + b"\0" * 4 + data


def granted_lease(create_body):
    """The lease state in a CREATE response's RqLs context, or None."""
    rsp = s3.SMB2Create_Response(create_body)
    off, length = rsp["CreateContextsOffset"], rsp["CreateContextsLength"]
    if not length:
        return None
    buf = create_body[off - 64:off - 64 + length]
    pos = 0
    while True:
        nxt, noff, nlen, _, doff, dlen = struct.unpack_from("<IHHHHI",
                                                            buf, pos)
        if buf[pos + noff:pos + noff + nlen] == b"RqLs":
            return struct.unpack_from("<I", buf, pos + doff + 16)[0]
        if not nxt:
            return None
        pos += nxt


PUBLIC_IP = "127.0.0.11"


class Cluster(unittest.TestCase):

    # Both heads run on one host and one local file system, so POSIX
    # (fcntl) locks alone would make head 2's lock fail: without them a
    # conflict can only come from the cluster-wide byte-range lock
    # database (Samba: brlock.tdb in CTDB).  Checked: with clustering = no
    # (and the user added on both heads) test_byte_range_lock passes with
    # posix locking = yes and fails with = no; share mode, delete pending,
    # oplock and lease breaks fail with clustering = no either way.
    share_options = [("posix locking", "no")]

    @classmethod
    def setUpClass(cls):
        if not cc.ctdb_installed():
            raise unittest.SkipTest("ctdbd is not installed")
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root (ctdbd, the test user)")
        t0 = time.monotonic()
        # one public address for CTDB to place on a node: connections to
        # it go on that node's tickle list (IP failover)
        cls.cluster = cc.CtdbCluster(nodes=2,
                                     public_addresses=[PUBLIC_IP + "/8 lo"])
        cls.addClassCleanup(cls.cluster.cleanup)
        cls.cluster.start()
        # wrong passwords, not a test of the rate limiter: answered at once
        cls.srv = cc.ClusterSmbd(cls.cluster,
                                 global_options=h.no_auth_delay(),
                                 share_options=cls.share_options)
        cls.addClassCleanup(cls.srv.cleanup)
        cls.srv.start()
        # once, through head 1: the passdb is a CTDB persistent database
        cls.srv.create_user(USER, PASSWORD, node=0)
        sys.stderr.write("\nserver %s; cluster healthy in %.1f s, servers "
                         "up in %.1f s, setup %.1f s\n" %
                         (cls.srv.binary, cls.cluster.start_seconds,
                          cls.srv.start_seconds, time.monotonic() - t0))

    def setUp(self):
        self.heads = []
        self.name = "%s-%s.txt" % (self._testMethodName, uuid.uuid4().hex[:6])

    def tearDown(self):
        for c in self.heads:
            c.close_all()
        for s in self.srv.servers:
            self.assertTrue(s.running(), "head %d died\n%s" %
                            (s.i, s.log_tail()))

    def head(self, i, user=USER, password=PASSWORD):
        c = Head(self.srv.host(i), self.srv.port(i), user, password)
        self.heads.append(c)
        return c

    def diag(self):
        return "\n" + self.srv.log_tails(20)

    def assertStatus(self, got, want, what):
        want = want if isinstance(want, (tuple, list)) else (want,)
        self.assertIn(got, want, "%s: got %s, want %s%s" %
                      (what, status_name(got),
                       " or ".join(status_name(w) for w in want),
                       self.diag()))

    # -- the servers are clustered ---------------------------------------
    def test_clustered(self):
        cl = self.cluster
        for i in range(2):
            self.assertEqual(cl.pnn(i), i)
        st = cl.ctdb(1, "status")
        self.assertEqual(st.returncode, 0, st.stderr)
        self.assertEqual(st.stdout.count(" OK"), 2, st.stdout)
        # the user added through head 1's smb.conf is in the passdb seen
        # through node 2 (pdbedit is Samba's: it reads CTDB directly)
        r = subprocess.run(["pdbedit", "-s", self.srv.conf(1), "-L"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertIn(USER + ":", r.stdout, r.stdout + r.stderr)
        if not self.srv.samba:
            # ours: share modes and locks in two volatile CTDB databases
            # of our own format, users in the persistent passdb.tdb
            for i in range(2):
                dbs = cl.ctdb(i, "getdbmap").stdout
                for db in ("smbd_share_modes.tdb", "smbd_brlock.tdb",
                           "passdb.tdb"):
                    self.assertIn("name:%s " % db, dbs, dbs)
            return
        # Samba attaches its databases to CTDB (4.17 lists 15, among them
        # locking.tdb, brlock.tdb, leases.tdb, smbXsrv_*_global.tdb,
        # g_lock.tdb and the persistent passdb.tdb and secrets.tdb)
        for i in range(2):
            dbs = cl.ctdb(i, "getdbmap").stdout
            for db in ("locking.tdb", "brlock.tdb", "passdb.tdb"):
                self.assertIn("name:%s " % db, dbs, dbs)

    # -- a. share modes --------------------------------------------------
    def test_share_mode(self):
        a, b = self.head(0), self.head(1)
        st, fid, _, _ = a.create(self.name, share=SHARE_NONE)
        self.assertStatus(st, STATUS_SUCCESS, "exclusive open on head 1")
        st, _, _, _ = b.create(self.name, share=SHARE_ALL)
        # Samba 4.17: STATUS_SHARING_VIOLATION, at once
        self.assertStatus(st, STATUS_SHARING_VIOLATION, "open on head 2")
        st, _, _, _ = b.create(self.name, access=FILE_READ_ATTRIBUTES,
                               share=SHARE_ALL)
        # attributes-only opens do not conflict (no data access)
        self.assertStatus(st, STATUS_SUCCESS, "stat open on head 2")
        a.close(fid)
        st, fid2, _, _ = b.create(self.name, share=SHARE_ALL)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 2 after close")
        b.close(fid2)

    # -- b. byte-range locks ---------------------------------------------
    def test_byte_range_lock(self):
        a, b = self.head(0), self.head(1)
        st, fa, _, _ = a.create(self.name)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 1")
        st, fb, _, _ = b.create(self.name)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 2")
        st = a.lock(fa, [(0, 10, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY)])
        self.assertStatus(st, STATUS_SUCCESS, "lock on head 1")
        st = b.lock(fb, [(0, 10, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY)])
        # Samba 4.17: STATUS_LOCK_NOT_GRANTED
        self.assertStatus(st, STATUS_LOCK_NOT_GRANTED, "same lock on head 2")
        st = b.lock(fb, [(5, 10, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY)])
        self.assertStatus(st, STATUS_LOCK_NOT_GRANTED,
                          "overlapping lock on head 2")
        st = b.lock(fb, [(10, 10, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY)])
        self.assertStatus(st, STATUS_SUCCESS, "adjacent lock on head 2")
        st = a.lock(fa, [(0, 10, LOCK_UNLOCK)])
        self.assertStatus(st, STATUS_SUCCESS, "unlock on head 1")
        st = b.lock(fb, [(0, 10, LOCK_EXCLUSIVE | LOCK_FAIL_IMMEDIATELY)])
        self.assertStatus(st, STATUS_SUCCESS, "lock on head 2 after unlock")
        a.close(fa)
        b.close(fb)

    # -- c. delete pending -----------------------------------------------
    def test_delete_pending(self):
        a, b = self.head(0), self.head(1)
        st, fa, _, _ = a.create(self.name, access=GENERIC_READ_WRITE | DELETE)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 1")
        self.assertStatus(a.set_delete_on_close(fa), STATUS_SUCCESS,
                          "set delete-on-close on head 1")
        st, _, _, _ = b.create(self.name, disposition=FILE_OPEN)
        # Samba 4.17: STATUS_DELETE_PENDING
        self.assertStatus(st, STATUS_DELETE_PENDING, "open on head 2")
        a.close(fa)
        st, _, _, _ = b.create(self.name, disposition=FILE_OPEN)
        self.assertStatus(st, STATUS_OBJECT_NAME_NOT_FOUND,
                          "open on head 2 after the close")
        self.assertFalse(os.path.exists(os.path.join(self.srv.share,
                                                     self.name)))

    # -- d. oplock and lease breaks --------------------------------------
    def test_oplock_break(self):
        a, b = self.head(0), self.head(1)
        st, fa, level, _ = a.create(self.name, oplock=OPLOCK_BATCH)
        self.assertStatus(st, STATUS_SUCCESS, "batch open on head 1")
        self.assertEqual(level, OPLOCK_BATCH, "batch oplock not granted")
        t0 = time.monotonic()
        mid = b.create_send(self.name)
        brk = a.next_break(10)
        self.assertIsNotNone(brk, "no oplock break on head 1's client" +
                             self.diag())
        took = time.monotonic() - t0
        size, new_level = struct.unpack_from("<HB", brk, 64)
        self.assertEqual(size, 24, "not an oplock break notification")
        self.assertEqual(brk[64 + 8:64 + 24], fa, "break for another open")
        # Samba 4.17 breaks batch to level II for a plain read/write open
        self.assertIn(new_level, (OPLOCK_II, OPLOCK_NONE))
        self.assertStatus(a.ack_oplock(fa, new_level), STATUS_SUCCESS,
                          "oplock break ack on head 1")
        st, fb, _, _ = b.create_recv(mid)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 2 after break")
        self.assertLess(took, 5, "the break took %.1f s" % took)
        a.close(fa)
        b.close(fb)

    def test_lease_break(self):
        a, b = self.head(0), self.head(1)
        key = uuid.uuid4().bytes
        rwh = LEASE_R | LEASE_W | LEASE_H
        st, fa, level, body = a.create(self.name, oplock=OPLOCK_LEASE,
                                       contexts=lease_context(key, rwh))
        self.assertStatus(st, STATUS_SUCCESS, "RWH lease open on head 1")
        self.assertEqual(level, OPLOCK_LEASE)
        self.assertEqual(granted_lease(body), rwh, "RWH not granted")
        mid = b.create_send(self.name)
        brk = a.next_break(10)
        self.assertIsNotNone(brk, "no lease break on head 1's client" +
                             self.diag())
        size, _epoch, flags = struct.unpack_from("<HHI", brk, 64)
        self.assertEqual(size, 44, "not a lease break notification")
        self.assertEqual(brk[64 + 8:64 + 24], key)
        cur, new = struct.unpack_from("<II", brk, 64 + 24)
        self.assertEqual(cur, rwh)
        # Samba 4.17: RWH -> RH, acknowledgement required
        self.assertEqual(new & LEASE_W, 0, "break keeps W: %#x" % new)
        self.assertTrue(flags & LEASE_BREAK_ACK_REQUIRED)
        self.assertStatus(a.ack_lease(key, new), STATUS_SUCCESS,
                          "lease break ack on head 1")
        st, fb, _, _ = b.create_recv(mid)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 2 after break")
        a.close(fa)
        b.close(fb)

    # -- e. logon --------------------------------------------------------
    def test_logon_both_heads(self):
        for i in range(2):
            c = self.head(i)
            self.assertFalse(c.smb.isGuestSession(),
                             "head %d: guest logon" % (i + 1))
        for i in range(2):
            with self.assertRaises(SessionError) as cm:
                self.head(i, password="wrong-" + PASSWORD)
            self.assertStatus(err_code(cm.exception), STATUS_LOGON_FAILURE,
                              "bad password on head %d" % (i + 1))


    # -- a dead process's entries, wherever its records went -----------
    def test_dead_worker_entries(self):
        """Head 2's workers are killed while one holds an exclusive open
        whose record head 1 has since pulled to node 1 (its refused open
        changed it there): node 2's master cleans what node 2 holds and
        tells every node, so node 1 drops the entry and head 1 opens."""
        if self.srv.samba:
            self.skipTest("ours: Samba checks the owner's serverid instead")
        a, b = self.head(0), self.head(1)
        st, _, _, _ = b.create(self.name, share=SHARE_NONE)
        self.assertStatus(st, STATUS_SUCCESS, "exclusive open on head 2")
        st, _, _, _ = a.create(self.name, share=SHARE_ALL)
        self.assertStatus(st, STATUS_SHARING_VIOLATION, "open on head 1")
        master = self.srv.servers[1].proc.pid
        workers = h.child_pids(master)
        self.assertTrue(workers)
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        b.drop()
        deadline = time.monotonic() + 10
        while True:
            st, fid, _, _ = a.create(self.name, share=SHARE_ALL)
            if st != STATUS_SHARING_VIOLATION or \
                    time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 1 after head "
                          "2's workers died")
        a.close(fid)
        # head 2 serves again (its master restarted the workers)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                self.head(1)
                break
            except Exception:
                time.sleep(0.3)
        else:
            self.fail("head 2 did not come back" + self.diag())

    # -- IP failover: the tickle list ---------------------------------
    def public_ip_node(self):
        """The node CTDB placed PUBLIC_IP on (waits for the takeover)."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            r = self.cluster.ctdb(0, "ip")
            for line in r.stdout.splitlines():
                f = line.split()
                if len(f) == 2 and f[0] == PUBLIC_IP and f[1].isdigit() \
                        and int(f[1]) >= 0:
                    return int(f[1])
            time.sleep(0.5)
        self.fail("no node holds %s:\n%s" % (PUBLIC_IP, r.stdout))

    def tickles(self, node):
        r = self.cluster.ctdb(node, "gettickles", PUBLIC_IP)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout

    def test_tickle_list(self):
        """A client connected to the public address is on its node's
        tickle list while connected (Samba registers it too), and off
        it once gone."""
        k = self.public_ip_node()
        port = self.srv.port(k)
        dst = "%s:%d" % (PUBLIC_IP, port)
        c = Head(PUBLIC_IP, port)
        self.heads.append(c)
        deadline = time.monotonic() + 10
        while dst not in self.tickles(k) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertIn(dst, self.tickles(k))
        c.drop()
        deadline = time.monotonic() + 10
        while dst in self.tickles(k) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertNotIn(dst, self.tickles(k))

    # -- our tools on a clustered config --------------------------------
    def our_tool(self, name):
        if self.srv.samba:
            self.skipTest("our %s: the server under test is Samba's" % name)
        path = os.path.join(os.path.dirname(self.srv.binary), "..",
                            {"smbpasswd": "utils/smbpasswd",
                             "smbstatus": "utils/smbstatus"}[name])
        if not os.access(path, os.X_OK):
            self.skipTest("no %s in the build" % path)
        return os.path.normpath(path)

    def test_our_smbpasswd_both_heads(self):
        """A user our smbpasswd adds through head 2's config (CTDB's
        persistent passdb.tdb, TRANS3_COMMIT) logs on at both heads, and
        Samba's pdbedit sees it through head 1's."""
        tool = self.our_tool("smbpasswd")
        user, pw = "clusterpw2", "Other-Pass-2"
        try:
            import pwd
            pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin",
                            user], check=True, timeout=30,
                           capture_output=True)
        r = subprocess.run([tool, "-c", self.srv.conf(1), "-a", "-s", user],
                           input="%s\n%s\n" % (pw, pw), text=True,
                           capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for i in range(2):
            c = self.head(i, user=user, password=pw)
            self.assertFalse(c.smb.isGuestSession())
        r = subprocess.run(["pdbedit", "-s", self.srv.conf(0), "-L"],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        self.assertIn(user + ":", r.stdout, r.stdout + r.stderr)
        r = subprocess.run([tool, "-c", self.srv.conf(0), "-x", user],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for i in range(2):
            with self.assertRaises(SessionError):
                self.head(i, user=user, password=pw)

    def test_our_smbstatus_node(self):
        """smbstatus on a node lists an open made there as node:pid."""
        tool = self.our_tool("smbstatus")
        b = self.head(1)
        st, fid, _, _ = b.create(self.name, share=SHARE_NONE)
        self.assertStatus(st, STATUS_SUCCESS, "open on head 2")
        r = subprocess.run([tool, "-s", self.srv.conf(1), "-L"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = [ln for ln in r.stdout.splitlines() if self.name in ln]
        self.assertEqual(len(lines), 1, r.stdout)
        self.assertRegex(lines[0], r"^1:\d+ ", r.stdout)
        b.close(fid)


if __name__ == "__main__":
    h.main()
