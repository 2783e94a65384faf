#!/usr/bin/python3
"""SMB3 directory leases (issue 17, MS-SMB2 3.3.5.9.11, 3.3.4.7).

A client holding an RH lease on a directory caches its listing; the
server breaks the lease to none when an entry of the directory changes
through any connection on any worker.  Here client A (on the first CPU's
worker) leases the directory `d`; client B (on the last CPU's worker, so
the break crosses workers when there are two) then creates, writes and
closes, renames and deletes entries, and A must get a lease break
notification for each; so must a change a local process makes in the
directory (fanotify).  A change that A makes through an open naming
the directory's lease as its ParentLeaseKey breaks nothing (though the
kernel reports it to the watch too), and with
`smb3 directory leases = no` NEGOTIATE does not offer the capability.
smbtorture smb2.lease.v2_request checks the grant itself (RH of RHW) and
the epochs.  Samba 4.17 has no directory leases: the test is ours only.

Client: impacket's SMB3 with lease contexts built here; the break is read
off A's socket with a time limit.
"""

import os
import pwd
import struct
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

import impacket.smb3  # noqa: E402
from impacket.smb3 import SMB3  # noqa: E402

NET_TIMEOUT = 20
GENERIC_ALL = 0x10000000
DIR_READ = 0x00100081   # list, read attributes, synchronize: Explorer's
SHARE_ALL = 0x7
FILE_DIRECTORY_FILE = 0x00000001
FILE_NON_DIRECTORY_FILE = 0x00000040
FILE_OPEN_IF = 3
FILE_OPEN = 1
OPLOCK_LEASE = 0xFF
LEASE_R, LEASE_H, LEASE_W = 1, 2, 4
LEASE_FLAG_PARENT_KEY_SET = 0x4
CAP_DIRECTORY_LEASING = 0x20
SMB2_OPLOCK_BREAK = 0x12
UNSOLICITED = 0xFFFFFFFFFFFFFFFF


class RawCtx:
    """What impacket's create() wants in createContexts: getData()."""

    def __init__(self, data):
        self.data = data

    def getData(self):
        return self.data


def lease_v2(key, state, parent=None):
    """An SMB2_CREATE_REQUEST_LEASE_V2 context (2.2.13.2.10), alone."""
    data = struct.pack("<16sIIQ16sHH", key, state,
                       LEASE_FLAG_PARENT_KEY_SET if parent else 0, 0,
                       parent or b"\0" * 16, 0, 0)
    body = struct.pack("<HHHHI", 16, 4, 0, 24, len(data))
    return RawCtx(struct.pack("<I", 0) + body + b"RqLs" + b"\0" * 4 + data)


def logon_on(port, cpu, ask_dirlease=True):
    """A logon whose connection is made from cpu (steered to its worker).
    ask_dirlease: NEGOTIATE says the client knows directory leases (the
    server offers them only then).  impacket 0.10 does not say so and its
    create() fails on a server that offers them, so the capability is
    added to its NEGOTIATE here and its own directory-lease bookkeeping
    turned off after it."""
    saved = os.sched_getaffinity(0)
    saved_caps = impacket.smb3.SMB2_GLOBAL_CAP_ENCRYPTION
    try:
        os.sched_setaffinity(0, {cpu})
        if ask_dirlease:
            impacket.smb3.SMB2_GLOBAL_CAP_ENCRYPTION = \
                saved_caps | CAP_DIRECTORY_LEASING
        smb = SMB3("127.0.0.1", "127.0.0.1", sess_port=port,
                   timeout=NET_TIMEOUT, preferredDialect=h.DIALECT_302)
    finally:
        impacket.smb3.SMB2_GLOBAL_CAP_ENCRYPTION = saved_caps
        os.sched_setaffinity(0, saved)
    smb.offered_dirlease = bool(smb._Connection["ServerCapabilities"] &
                                CAP_DIRECTORY_LEASING)
    smb._Connection["SupportsDirectoryLeasing"] = False
    smb.login(h.TEST_USER, h.TEST_PASSWORD)
    return smb


def lease_break(smb, timeout):
    """The next lease break notification on smb's connection, as
    (lease key, current state, new state), or None after timeout s."""
    sess = smb._NetBIOSSession
    try:
        data = sess.recv_packet(timeout)
    except Exception:
        return None
    raw = data.get_trailer()
    cmd, = struct.unpack_from("<H", raw, 12)
    mid, = struct.unpack_from("<Q", raw, 24)
    if cmd != SMB2_OPLOCK_BREAK or mid != UNSOLICITED:
        raise AssertionError("expected a lease break, got command %#x"
                             % cmd)
    body = raw[64:]
    size, _epoch, _flags = struct.unpack_from("<HHI", body, 0)
    if size != 44:
        raise AssertionError("not a lease break (StructureSize %d)" % size)
    key = body[8:24]
    cur, new = struct.unpack_from("<II", body, 24)
    return key, cur, new


class DirLease(h.TestUser):

    def setUp(self):
        super().setUp()
        self.empty_share()
        root = self.share_path()
        os.mkdir(os.path.join(root, "d"))
        os.chmod(os.path.join(root, "d"), 0o777)
        with open(os.path.join(root, "d", "old.txt"), "w") as f:
            f.write("x")
        os.chmod(os.path.join(root, "d", "old.txt"), 0o666)
        user = pwd.getpwnam(h.TEST_USER)
        for p in (os.path.join(root, "d"), os.path.join(root, "d", "old.txt")):
            os.chown(p, user.pw_uid, user.pw_gid)
        cpus = sorted(os.sched_getaffinity(0))
        self.a = logon_on(self.smbd.port, cpus[0])
        self.b = logon_on(self.smbd.port, cpus[-1])
        self.atid = self.a.connectTree("share")
        self.btid = self.b.connectTree("share")
        self.key = uuid.uuid4().bytes
        self.dfid = self.a.create(
            self.atid, "d", DIR_READ, SHARE_ALL, FILE_DIRECTORY_FILE,
            FILE_OPEN_IF, 0x10, oplockLevel=OPLOCK_LEASE,
            createContexts=[lease_v2(self.key, LEASE_R | LEASE_H |
                                     LEASE_W)])

    def tearDown(self):
        for smb in (self.a, self.b):
            try:
                smb.close_session()
            except Exception:
                pass
        super().tearDown()

    def assert_broken(self):
        got = lease_break(self.a, 5)
        self.assertIsNotNone(got, "no lease break for the directory")
        key, cur, new = got
        self.assertEqual(key, self.key)
        self.assertEqual(cur, LEASE_R | LEASE_H)   # granted RH of RHW
        self.assertEqual(new, 0)

    def b_file(self, name, disposition=FILE_OPEN_IF):
        return self.b.create(self.btid, name, GENERIC_ALL, SHARE_ALL,
                             FILE_NON_DIRECTORY_FILE, disposition, 0x80)

    def test_capability_offered(self):
        self.assertTrue(self.a.offered_dirlease)

    def test_capability_not_offered_unasked(self):
        smb = logon_on(self.smbd.port, sorted(os.sched_getaffinity(0))[0],
                       ask_dirlease=False)
        try:
            self.assertFalse(smb.offered_dirlease)
        finally:
            smb.close_session()

    def test_create_in_directory_breaks(self):
        fid = self.b_file("d\\new.txt")
        self.assert_broken()
        self.b.close(self.btid, fid)

    def test_open_of_existing_entry_does_not_break(self):
        fid = self.b_file("d\\old.txt", FILE_OPEN)
        self.b.close(self.btid, fid)
        self.assertIsNone(lease_break(self.a, 1))

    def test_write_breaks_at_close(self):
        fid = self.b_file("d\\old.txt", FILE_OPEN)
        self.b.writeFile(self.btid, fid, b"more", 0)
        self.assertIsNone(lease_break(self.a, 1))
        self.b.close(self.btid, fid)
        self.assert_broken()

    def test_rename_out_breaks(self):
        self.b.rename("share", "d\\old.txt", "moved.txt")
        self.assert_broken()

    def test_delete_breaks(self):
        self.b.remove("share", "d\\old.txt")
        self.assert_broken()

    def local_path(self, *names):
        return os.path.join(self.smbd.tmp, "share", "d", *names)

    def test_local_create_breaks(self):
        """A file made in the directory by a local process, not through
        SMB (the worker's fanotify watch, smbd/objects/dirwatch.c)."""
        with open(self.local_path("local.txt"), "w") as f:
            f.write("y")
        self.assert_broken()

    def test_local_write_breaks(self):
        with open(self.local_path("old.txt"), "a") as f:
            f.write("more")
        self.assert_broken()

    def test_local_rename_and_mkdir_break(self):
        os.rename(self.local_path("old.txt"), self.local_path("new.txt"))
        self.assert_broken()
        # broken to none: a new lease, then a subdirectory made locally
        self.a.close(self.atid, self.dfid)
        self.key = uuid.uuid4().bytes
        self.dfid = self.a.create(
            self.atid, "d", DIR_READ, SHARE_ALL, FILE_DIRECTORY_FILE,
            FILE_OPEN, 0x10, oplockLevel=OPLOCK_LEASE,
            createContexts=[lease_v2(self.key, LEASE_R | LEASE_H)])
        os.mkdir(self.local_path("sub"))
        self.assert_broken()

    def test_local_change_elsewhere_does_not_break(self):
        with open(os.path.join(self.smbd.tmp, "share", "other.txt"),
                  "w") as f:
            f.write("z")
        self.assertIsNone(lease_break(self.a, 1))

    def test_parent_key_spares(self):
        """A's own change under the directory's lease as parent: A knows
        what changed, no break (3.3.5.9.11 ParentLeaseKey)."""
        fid = self.a.create(
            self.atid, "d\\mine.txt", GENERIC_ALL, SHARE_ALL,
            FILE_NON_DIRECTORY_FILE, FILE_OPEN_IF, 0x80,
            oplockLevel=OPLOCK_LEASE,
            createContexts=[lease_v2(uuid.uuid4().bytes,
                                     LEASE_R | LEASE_H | LEASE_W,
                                     parent=self.key)])
        self.a.close(self.atid, fid)
        self.assertIsNone(lease_break(self.a, 1))


class DirLeaseOff(h.TestUser):
    global_options = [("smb3 directory leases", "no")]

    def test_capability_not_offered(self):
        smb = logon_on(self.smbd.port, sorted(os.sched_getaffinity(0))[0])
        try:
            self.assertFalse(smb.offered_dirlease)
        finally:
            smb.close_session()


h.backend_variants(globals(), DirLease)
h.backend_variants(globals(), DirLeaseOff)

if __name__ == "__main__":
    if h.is_samba():
        print("Samba 4.17 has no directory leases: nothing to compare")
        print("0 passed, 0 failed")
        sys.exit(0)
    h.main()
