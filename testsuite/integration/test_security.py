#!/usr/bin/python3
"""Issue 14's reproductions of what a hostile client or local user could do,
each a regression test that failed on the code before its fix.

- durable reclaim onto another share (item 1): a DH2C through a tree
  connect of another share is OBJECT_NAME_NOT_FOUND, and the open's
  delete-on-close never lands on that share's file;
- delete-on-close through a re-pointed path (item 2): a directory swapped
  for a symlink to somewhere outside the share after the open was made
  does not make the server delete the file there (as root or anyone);
- one session's encryption key driving another session (item 3): a CREATE
  naming user B's session inside a transform encrypted with user A's key
  is refused;
- delete-on-close on TREE_DISCONNECT, LOGOFF and a dropped connection
  (item 8): the file goes, as after a CLOSE;
- CANCEL of a CREATE waiting for an oplock break (item 9): answered
  STATUS_CANCELLED at once, not after the break timeout.

Clients: impacket's SMB3 (its structures, with create contexts built here)
over 127.0.0.1; every call has a time limit.
"""

import os
import shutil
import struct
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket import smb3structs as s3  # noqa: E402
from impacket.smb3 import SMB3, SessionError  # noqa: E402

NET_TIMEOUT = 20
USER2 = "smbdtest2"
PASSWORD2 = "Test-Pass-2"

STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_CANCELLED = 0xC0000120
STATUS_PENDING = 0x00000103

FILE_DELETE_ON_CLOSE = 0x00001000
FILE_NON_DIRECTORY_FILE = 0x00000040
FILE_DIRECTORY_FILE = 0x00000001
DELETE = 0x00010000
GENERIC_ALL = 0x10000000
SHARE_ALL = 0x7
FILE_CREATE = 2
FILE_OPEN = 1
FILE_OPEN_IF = 3
OPLOCK_BATCH = 0x09


def err_code(e):
    get = getattr(e, "get_error_code", None) or getattr(e, "getErrorCode")
    return get()


def create_contexts(pairs):
    """SMB2_CREATE_CONTEXT chain (MS-SMB2 2.2.13.2) of (name, data)."""
    out = b""
    for i, (name, data) in enumerate(pairs):
        body = struct.pack("<HHHHI", 16, len(name), 0, 24, len(data))
        ctx = body + name + b"\0" * (8 - len(name)) + data
        if i + 1 < len(pairs):
            ctx += b"\0" * ((8 - len(ctx) % 8) % 8)
            out += struct.pack("<I", 4 + len(ctx)) + ctx
        else:
            out += struct.pack("<I", 0) + ctx
    return out


class RawCtx:
    """What impacket's create() wants in createContexts: getData()."""

    def __init__(self, data):
        self.data = data

    def getData(self):
        return self.data


def dh2q(create_guid, timeout_ms=2000):
    return (b"DH2Q", struct.pack("<II8s16s", timeout_ms, 0, b"\0" * 8,
                                 create_guid))


def dh2c(fid, create_guid):
    return (b"DH2C", fid + create_guid + struct.pack("<I", 0))


def logon(port, user=h.TEST_USER, password=h.TEST_PASSWORD,
          dialect=h.DIALECT_302):
    smb = SMB3("127.0.0.1", "127.0.0.1", sess_port=port,
               timeout=NET_TIMEOUT, preferredDialect=dialect)
    smb.login(user, password)
    return smb


def logon_on(port, cpu):
    """A logon whose connection is made from cpu (so steered to the
    worker pinned there)."""
    saved = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {cpu})
        return logon(port)
    finally:
        os.sched_setaffinity(0, saved)


def drop(smb):
    """Drop the TCP connection without LOGOFF (a client that vanished)."""
    try:
        smb._NetBIOSSession.get_socket().close()
    except Exception:
        pass


def create(smb, tid, name, access=GENERIC_ALL, options=0,
           disposition=FILE_OPEN_IF, oplock=0, contexts=None):
    ctx = [RawCtx(create_contexts(contexts))] if contexts else None
    return smb.create(tid, name, access, SHARE_ALL, options, disposition,
                      0x80, oplockLevel=oplock, createContexts=ctx)


def create_request(name, access=GENERIC_ALL,
                   options=FILE_NON_DIRECTORY_FILE, disposition=FILE_OPEN_IF):
    req = s3.SMB2Create()
    raw = name.encode("utf-16le")
    req["SecurityFlags"] = 0
    req["RequestedOplockLevel"] = 0
    req["ImpersonationLevel"] = 2
    req["DesiredAccess"] = access
    req["FileAttributes"] = 0x80
    req["ShareAccess"] = SHARE_ALL
    req["CreateDisposition"] = disposition
    req["CreateOptions"] = options
    req["NameLength"] = len(raw)
    req["Buffer"] = raw
    req["CreateContextsOffset"] = 0
    req["CreateContextsLength"] = 0
    return req


def recv_raw(smb, mid, timeout):
    """The next unencrypted SMB2 message for mid (others, such as break
    notifications, are skipped), or None after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = smb._NetBIOSSession.recv_packet(
                max(0.1, deadline - time.monotonic()))
        except Exception:
            return None
        pkt = s3.SMB2Packet(data.get_trailer())
        if pkt["MessageID"] == mid:
            return pkt
    return None


class Security:
    extra = None

    @classmethod
    def ro_share(cls):
        return os.path.join(cls.smbd.tmp, "ro")

    def test_durable_reclaim_other_share(self):
        """Item 1: the reclaim goes through the read-only share's tree;
        it must not find the open, and when the open expires its
        delete-on-close removes the writable share's file only."""
        ro = self.ro_share()
        victim = os.path.join(ro, "f.txt")
        with open(victim, "w") as f:
            f.write("root's")
        os.chmod(victim, 0o600)
        guid = uuid.uuid4().bytes
        cpus = sorted(os.sched_getaffinity(0))
        smb = logon_on(self.smbd.port, cpus[0])
        tid = smb.connectTree("share")
        fid = create(smb, tid, "f.txt", access=GENERIC_ALL | DELETE,
                     options=FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE,
                     oplock=OPLOCK_BATCH, contexts=[dh2q(guid)])
        drop(smb)
        time.sleep(0.3)
        # on another CPU: with two workers the reclaim crosses workers
        # (the holder checks the claim, smbd/objects/durable.c)
        smb2 = logon_on(self.smbd.port, cpus[-1])
        rtid = smb2.connectTree("ro")
        with self.assertRaises(SessionError) as cm:
            create(smb2, rtid, "f.txt", access=GENERIC_ALL | DELETE,
                   options=FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE,
                   oplock=OPLOCK_BATCH, contexts=[dh2c(fid, guid)])
        self.assertEqual(err_code(cm.exception), STATUS_OBJECT_NAME_NOT_FOUND)
        drop(smb2)
        # the 2 s durable timeout passes: the kept open closes
        ok = h.wait_until(lambda: not os.path.exists(
            os.path.join(self.smbd.share, "f.txt")), 10)
        self.assertTrue(ok, "the expired open's delete-on-close was lost")
        self.assertTrue(os.path.exists(victim),
                        "the read-only share's file was deleted")

    def _swap_and_check(self, end):
        """Item 2: open d/x delete-on-close, swap d for a symlink to a
        directory outside the share, end the open with end(smb, tid):
        the file outside survives."""
        outside = os.path.join(self.smbd.tmp, "victim")
        os.makedirs(outside, exist_ok=True)
        target = os.path.join(outside, "x")
        with open(target, "w") as f:
            f.write("keep me")
        share = self.smbd.share
        d = os.path.join(share, "d")
        if os.path.islink(d):
            os.unlink(d)
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(d + "_old", ignore_errors=True)
        smb = logon(self.smbd.port)
        tid = smb.connectTree("share")
        dfid = create(smb, tid, "d", options=FILE_DIRECTORY_FILE,
                      disposition=FILE_CREATE)
        smb.close(tid, dfid)
        guid = uuid.uuid4().bytes
        create(smb, tid, "d\\x", access=GENERIC_ALL | DELETE,
               options=FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE,
               oplock=OPLOCK_BATCH, contexts=[dh2q(guid)])
        # a local user re-points the directory
        os.rename(d, d + "_old")
        os.symlink(outside, d)
        try:
            end(smb, tid)
            time.sleep(3.5)   # past the 2 s durable timeout
            self.assertTrue(os.path.exists(target),
                            "the server deleted a file outside the share")
        finally:
            os.unlink(d)

    def test_swapped_dir_drop(self):
        self._swap_and_check(lambda smb, tid: drop(smb))

    def test_swapped_dir_tdis(self):
        def tdis(smb, tid):
            smb.disconnectTree(tid)
            drop(smb)
        self._swap_and_check(tdis)

    def _doc_end(self, name, end):
        """Item 8: delete-on-close set at CREATE completes when the open
        ends without CLOSE."""
        path = os.path.join(self.smbd.share, name)
        smb = logon(self.smbd.port)
        tid = smb.connectTree("share")
        create(smb, tid, name, access=GENERIC_ALL | DELETE,
               options=FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE,
               disposition=FILE_CREATE)
        self.assertTrue(os.path.exists(path))
        end(smb, tid)
        ok = h.wait_until(lambda: not os.path.exists(path), 5)
        self.assertTrue(ok, "delete on close lost")

    def test_doc_tree_disconnect(self):
        def tdis(smb, tid):
            smb.disconnectTree(tid)
            smb.logoff()
        self._doc_end("doc-tdis.txt", tdis)

    def test_doc_logoff(self):
        self._doc_end("doc-logoff.txt", lambda smb, tid: smb.logoff())

    def test_doc_drop(self):
        self._doc_end("doc-drop.txt", lambda smb, tid: drop(smb))

    def test_cancel_create_waiting_for_break(self):
        """Item 9: a CREATE that waits for a batch oplock's holder to
        answer the break ends at once when the client cancels it."""
        holder = logon(self.smbd.port, dialect=s3.SMB2_DIALECT_21)
        htid = holder.connectTree("share")
        create(holder, htid, "held.txt", oplock=OPLOCK_BATCH)
        smb = logon(self.smbd.port, dialect=s3.SMB2_DIALECT_21)
        tid = smb.connectTree("share")
        req = create_request("held.txt")
        pkt = smb.SMB_PACKET()
        pkt["Command"] = s3.SMB2_CREATE
        pkt["TreeID"] = tid
        pkt["Data"] = req
        mid = smb.sendSMB(pkt)
        interim = recv_raw(smb, mid, 5)
        self.assertIsNotNone(interim, "no interim reply")
        self.assertEqual(interim["Status"], STATUS_PENDING)
        async_id = struct.unpack("<Q", interim.getData()[32:40])[0]
        cancel = smb.SMB_PACKET()
        cancel["Command"] = s3.SMB2_CANCEL
        cancel["Flags"] = s3.SMB2_FLAGS_ASYNC_COMMAND
        cancel["MessageID"] = mid
        cancel["Reserved"] = async_id & 0xffffffff
        cancel["TreeID"] = async_id >> 32
        cancel["Data"] = b"\x04\x00\x00\x00"
        smb._NetBIOSSession.send_packet(cancel.getData())
        t0 = time.monotonic()
        final = recv_raw(smb, mid, 5)
        self.assertIsNotNone(final, "the cancelled CREATE was not answered "
                             "within 5 s")
        self.assertEqual(final["Status"], STATUS_CANCELLED)
        self.assertLess(time.monotonic() - t0, 5)
        holder.logoff()
        smb.logoff()

    def test_transform_other_session(self):
        """Item 3: user A's key, user B's SessionId and TreeId inside."""
        secret = os.path.join(self.smbd.share, "b-secret.txt")
        with open(secret, "w") as f:
            f.write("B only")
        import pwd
        pw = pwd.getpwnam(USER2)
        os.chown(secret, pw.pw_uid, pw.pw_gid)
        os.chmod(secret, 0o600)
        smb = logon(self.smbd.port)
        if not smb._Session["SessionFlags"] & s3.SMB2_SESSION_FLAG_ENCRYPT_DATA:
            self.skipTest("no encryption negotiated")
        sess_a = dict(smb._Session)
        # a second session on the same connection, user B
        smb._Session["SessionID"] = 0
        smb._Session["SessionFlags"] = 0
        smb._Session["SigningActivated"] = False
        smb._Session["TreeConnectTable"] = {}
        smb.login(USER2, PASSWORD2)
        tid_b = smb.connectTree("share")
        fid = create(smb, tid_b, "b-secret.txt", access=0x80000000,
                     options=FILE_NON_DIRECTORY_FILE, disposition=FILE_OPEN)
        smb.close(tid_b, fid)   # B itself may open it
        sess_b = smb._Session
        # now A's transform, B's header
        smb._Session = dict(sess_b)
        smb._Session["EncryptionKey"] = sess_a["EncryptionKey"]
        smb._Session["DecryptionKey"] = sess_a["DecryptionKey"]
        sid_b = sess_b["SessionID"]
        # the encrypted frame by hand: the transform names A, the
        # header inside names B
        req = create_request("b-secret.txt", access=0x80000000,
                             disposition=FILE_OPEN)
        pkt = smb.SMB_PACKET()
        pkt["Command"] = s3.SMB2_CREATE
        pkt["TreeID"] = tid_b
        pkt["Data"] = req
        pkt["MessageID"] = smb._Connection["SequenceWindow"]
        smb._Connection["SequenceWindow"] += 1
        pkt["SessionID"] = sid_b
        pkt["CreditCharge"] = 1
        pkt["CreditRequestResponse"] = 127
        from Cryptodome.Cipher import AES
        plain = pkt.getData()
        tf = s3.SMB2_TRANSFORM_HEADER()
        tf["Nonce"] = os.urandom(11) + b"\0" * 5
        tf["OriginalMessageSize"] = len(plain)
        tf["EncryptionAlgorithm"] = s3.SMB2_ENCRYPTION_AES128_CCM
        tf["SessionID"] = sess_a["SessionID"]
        c = AES.new(sess_a["EncryptionKey"], AES.MODE_CCM, tf["Nonce"][:11])
        c.update(tf.getData()[20:])
        ct = c.encrypt(plain)
        tf["Signature"] = c.digest()
        smb._NetBIOSSession.send_packet(tf.getData() + ct)
        try:
            ans = smb.recvSMB(pkt["MessageID"])
            status = ans["Status"]
        except SessionError as e:
            status = err_code(e)
        except Exception:
            status = None   # the server dropped the connection: refused
        self.assertNotEqual(status, 0,
                            "A's key opened B's file through B's session")


class SecurityMixin(Security, h.TestUser):
    """The class's server gets a read-only share [ro] beside [share] and
    a second user."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        h.create_user(cls.smbd.conf, USER2, PASSWORD2)

    @classmethod
    def new_server(cls, global_options=None, share_options=None, **kw):
        srv = super().new_server(global_options, share_options, **kw)
        ro = os.path.join(srv.tmp, "ro")
        os.mkdir(ro)
        base = srv.conf_text
        srv.conf_text = lambda: (base() + "\n[ro]\n\tpath = %s\n"
                                 "\tread only = yes\n" % ro)
        srv.write_conf()
        return srv


h.backend_variants(globals(), SecurityMixin)


if __name__ == "__main__":
    h.main()
