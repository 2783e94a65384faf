"""A raw SMB 2.x/3.x client for the tests that need what no library sends:
a NEGOTIATE with a chosen dialect, ClientGuid, signing algorithms
(SIGNING_CAPABILITIES, MS-SMB2 2.2.3.1.7) and ciphers; a session binding
(3.2.4.1.7) signed with a chosen key and algorithm, or with a forged
signature; requests sent without waiting for their replies, compounds,
and replies collected by MessageId whatever order they come in.

Signing follows 3.1.4.1: HMAC-SHA256 (first 16 bytes), AES-128-CMAC or
AES-128-GMAC (nonce: MessageId, then a word whose bit 0 is the sender's
role and bit 1 a CANCEL); keys 3.1.4.2: the session key for 2.x,
SMB2AESCMAC/SmbSign for 3.0.x, SMBSigningKey over the preauth hash for
3.1.1 (a binding's channel over the channel's own hash, 3.2.5.3.3).
NTLMSSP and SPNEGO come from impacket; the rest is built here from the
spec with `struct`.  Every socket call has the harness's time limit.
"""

import hashlib
import hmac
import os
import struct
import time
import uuid

from smbd_harness import (RawConn, negotiate_context, preauth_context,
                          encryption_context, negotiate_request,
                          parse_negotiate_response, smb2_header,
                          SIGNING_CAPABILITIES, DIALECT_311, NET_TIMEOUT,
                          CIPHER_AES128_GCM)

# commands (2.2.1)
NEGOTIATE, SESSION_SETUP, LOGOFF, TREE_CONNECT, TREE_DISCONNECT = 0, 1, 2, 3, 4
CREATE, CLOSE, FLUSH, READ, WRITE, LOCK, IOCTL = 5, 6, 7, 8, 9, 0xA, 0xB
CANCEL, ECHO, QUERY_DIRECTORY, CHANGE_NOTIFY = 0xC, 0xD, 0xE, 0xF
QUERY_INFO, SET_INFO, OPLOCK_BREAK = 0x10, 0x11, 0x12

FLAGS_SERVER_TO_REDIR = 0x1
FLAGS_ASYNC = 0x2
FLAGS_RELATED = 0x4
FLAGS_SIGNED = 0x8

SIGN_HMAC_SHA256, SIGN_AES_CMAC, SIGN_AES_GMAC = 0, 1, 2
SESSION_FLAG_BINDING = 0x01

STATUS_SUCCESS = 0
STATUS_PENDING = 0x00000103
STATUS_NOTIFY_CLEANUP = 0x0000010B
STATUS_MORE_PROCESSING_REQUIRED = 0xC0000016
STATUS_INVALID_PARAMETER = 0xC000000D
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_FILE_CLOSED = 0xC0000128
STATUS_CANCELLED = 0xC0000120
STATUS_NOT_SUPPORTED = 0xC00000BB
STATUS_NETWORK_NAME_DELETED = 0xC00000C9
STATUS_REQUEST_NOT_ACCEPTED = 0xC00000D0
STATUS_USER_SESSION_DELETED = 0xC0000203
STATUS_LOGON_FAILURE = 0xC000006D
STATUS_SHARING_VIOLATION = 0xC0000043
STATUS_INSUFFICIENT_RESOURCES = 0xC000009A
STATUS_REQUEST_OUT_OF_SEQUENCE = 0xC000042A
STATUS_INVALID_NETWORK_RESPONSE = 0xC00000C3
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_LOCK_NOT_GRANTED = 0xC0000055
STATUS_RANGE_NOT_LOCKED = 0xC000007E
STATUS_INVALID_OPLOCK_PROTOCOL = 0xC00000E3
STATUS_INVALID_DEVICE_STATE = 0xC0000184

GENERIC_ALL = 0x10000000
GENERIC_RW = 0x0012019f
FILE_READ_DATA = 0x1
SHARE_ALL = 7
FILE_OPEN, FILE_CREATE, FILE_OPEN_IF, FILE_OVERWRITE_IF = 1, 2, 3, 5
FILE_DIRECTORY_FILE = 0x1
FILE_NON_DIRECTORY_FILE = 0x40
OPLOCK_NONE, OPLOCK_II, OPLOCK_EXCLUSIVE, OPLOCK_BATCH = 0, 1, 8, 9
OPLOCK_LEASE = 0xFF


class SmbError(Exception):
    def __init__(self, what, status):
        super().__init__("%s: status 0x%08x" % (what, status))
        self.status = status


def kdf(key, label, context):
    """SP800-108 counter mode, HMAC-SHA256, L = 128 (3.1.4.2)."""
    msg = struct.pack(">I", 1) + label + b"\0" + context + \
        struct.pack(">I", 128)
    return hmac.new(key, msg, hashlib.sha256).digest()[:16]


def signing_key(dialect, session_key, preauth):
    if dialect < 0x300:
        return session_key
    if dialect < DIALECT_311:
        return kdf(session_key, b"SMB2AESCMAC\0", b"SmbSign\0")
    return kdf(session_key, b"SMBSigningKey\0", preauth)


def signature(algo, key, msg):
    """The 16-byte signature of msg (its Signature field taken as 0)."""
    m = bytearray(msg)
    m[48:64] = b"\0" * 16
    m = bytes(m)
    if algo == SIGN_HMAC_SHA256:
        return hmac.new(key, m, hashlib.sha256).digest()[:16]
    from Cryptodome.Cipher import AES
    if algo == SIGN_AES_CMAC:
        from Cryptodome.Hash import CMAC
        return CMAC.new(key, msg=m, ciphermod=AES).digest()
    flags = struct.unpack_from("<I", m, 16)[0]
    cmd = struct.unpack_from("<H", m, 12)[0]
    word = 1 if flags & FLAGS_SERVER_TO_REDIR else (2 if cmd == CANCEL
                                                     else 0)
    nonce = m[24:32] + struct.pack("<I", word)
    c = AES.new(key, AES.MODE_GCM, nonce=nonce)
    c.update(m)
    return c.digest()


def sign(algo, key, msg):
    m = bytearray(msg)
    struct.pack_into("<I", m, 16, struct.unpack_from("<I", m, 16)[0] |
                     FLAGS_SIGNED)
    m[48:64] = signature(algo, key, bytes(m))
    return bytes(m)


def signing_context(algos):
    return negotiate_context(SIGNING_CAPABILITIES,
                             struct.pack("<H%dH" % len(algos), len(algos),
                                         *algos))


class Reply:
    """One SMB2 reply: header fields and the raw message."""

    def __init__(self, raw):
        (_, _, self.charge, self.status, self.command, self.credits,
         self.flags, self.next_command, self.mid) = \
            struct.unpack_from("<4sHHIHHIIQ", raw, 0)
        self.async_id = struct.unpack_from("<Q", raw, 32)[0]
        self.tree_id = struct.unpack_from("<I", raw, 36)[0]
        self.session_id = struct.unpack_from("<Q", raw, 40)[0]
        self.signed = bool(self.flags & FLAGS_SIGNED)
        self.raw = raw
        self.body = raw[64:]

    def ok(self, what, allowed=(STATUS_SUCCESS,)):
        if self.status not in allowed:
            raise SmbError(what, self.status)
        return self



class Session:
    """What a client keeps of a session: id, user, keys, algorithm."""

    def __init__(self, sid, dialect, session_key, key, algo, user, password):
        self.id = sid
        self.dialect = dialect
        self.session_key = session_key   # NTLMSSP's exported session key
        self.signing_key = key           # Session.SigningKey
        self.algo = algo                 # the first connection's
        self.user = user
        self.password = password


class Conn:
    """One connection.  chan maps a session id to the (key, algorithm)
    this connection signs that session's requests with."""

    def __init__(self, port, dialect=DIALECT_311, sign_algos=None,
                 ciphers=(CIPHER_AES128_GCM,), client_guid=None,
                 timeout=NET_TIMEOUT, host="127.0.0.1", negotiate=True):
        self.port = port
        self.raw = RawConn(port, host=host, timeout=timeout)
        self.timeout = timeout
        self.client_guid = client_guid or uuid.uuid4().bytes
        self.mid = 0
        self.keys = {}          # session id -> (key, algo)
        self.pending = {}       # mid -> Reply not yet asked for
        self.interims = {}      # mid -> async id of its STATUS_PENDING
        self.breaks = []        # oplock/lease break notifications
        self.preauth = b"\0" * 64
        self.dialect = None
        self.algo = None
        self.cipher = 0
        if negotiate:
            self.negotiate(dialect, sign_algos, ciphers)

    def close(self):
        self.raw.close()

    @property
    def local_port(self):
        return self.raw.local_port

    # -- negotiate -------------------------------------------------------
    def negotiate(self, dialect, sign_algos, ciphers):
        dialects = (dialect,) if isinstance(dialect, int) else \
            tuple(dialect)
        ctx = None
        if DIALECT_311 in dialects:
            ctx = [preauth_context()]
            if ciphers:
                ctx.append(encryption_context(ciphers))
            if sign_algos is not None:
                ctx.append(signing_context(sign_algos))
        req = negotiate_request(dialects, contexts=ctx, message_id=0,
                                client_guid=self.client_guid)
        self.mid = 1
        self.raw.send(req)
        raw = self.raw.recv()
        r = parse_negotiate_response(raw)
        if r["status"] != 0:
            raise SmbError("negotiate", r["status"])
        self.dialect = r["dialect"]
        if self.dialect == DIALECT_311:
            self.preauth = hashlib.sha512(
                hashlib.sha512(self.preauth + req).digest() + raw).digest()
            self.algo = SIGN_AES_CMAC
            for data in r["contexts"].get(SIGNING_CAPABILITIES, []):
                self.algo = struct.unpack_from("<H", data, 2)[0]
            for data in r["contexts"].get(0x0002, []):
                self.cipher = struct.unpack_from("<H", data, 2)[0]
        else:
            self.algo = SIGN_AES_CMAC if self.dialect >= 0x300 else \
                SIGN_HMAC_SHA256
        return r

    # -- transport ---------------------------------------------------------
    def next_mid(self, charge=1):
        m = self.mid
        self.mid += max(charge, 1)
        return m

    def build(self, cmd, body, sid=0, tid=0, mid=None, flags=0, charge=1,
              credits=64):
        if mid is None:
            mid = self.next_mid(charge)
        return smb2_header(cmd, mid, credit_charge=charge, credits=credits,
                           flags=flags, session_id=sid, tree_id=tid) + body

    def seal(self, msg, sid=None, sign_with=None, forge=False):
        """msg signed as this connection signs session sid: with the
        channel's (key, algorithm), or sign_with=(key, algo); forge puts
        16 random bytes where the signature goes (SIGNED still set)."""
        if sid is None:
            sid = struct.unpack_from("<Q", msg, 40)[0]
        if forge:
            m = bytearray(msg)
            struct.pack_into("<I", m, 16, struct.unpack_from("<I", m, 16)[0]
                             | FLAGS_SIGNED)
            m[48:64] = os.urandom(16)
            return bytes(m)
        ka = sign_with or self.keys.get(sid)
        if ka is None:
            return msg
        return sign(ka[1], ka[0], msg)

    def send(self, cmd, body, sid=0, tid=0, sign=True, **kw):
        """Send one request; returns its MessageId."""
        sign_with = kw.pop("sign_with", None)
        forge = kw.pop("forge", False)
        msg = self.build(cmd, body, sid=sid, tid=tid, **kw)
        if sign or sign_with or forge:
            msg = self.seal(msg, sid, sign_with, forge)
        self.raw.send(msg)
        return struct.unpack_from("<Q", msg, 24)[0]

    def send_compound(self, reqs, sid, sign=True):
        """reqs: (cmd, body, tid, flags) each; 8-aligned, NextCommand set,
        each signed on its own (3.1.4.1 over the padded message).
        Returns their MessageIds."""
        msgs = []
        mids = []
        for i, (cmd, body, tid, flags) in enumerate(reqs):
            m = self.build(cmd, body, sid=sid, tid=tid, flags=flags)
            mids.append(struct.unpack_from("<Q", m, 24)[0])
            if i + 1 < len(reqs):
                m += b"\0" * (-len(m) % 8)
                m = bytearray(m)
                struct.pack_into("<I", m, 20, len(m))
                m = bytes(m)
            if sign:
                m = self.seal(m, sid)
            msgs.append(m)
        self.raw.send(b"".join(msgs))
        return mids

    def _split(self, frame):
        out = []
        while True:
            nxt = struct.unpack_from("<I", frame, 20)[0]
            if nxt == 0:
                out.append(frame)
                return out
            out.append(frame[:nxt])
            frame = frame[nxt:]

    def _pump(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no reply in time")
        self.raw.sock.settimeout(left)
        try:
            frame = self.raw.recv()
        finally:
            self.raw.sock.settimeout(self.timeout)
        for msg in self._split(frame):
            r = Reply(msg)
            if r.command == OPLOCK_BREAK and r.mid == 0xFFFFFFFFFFFFFFFF:
                self.breaks.append(r)
                continue
            if r.status == STATUS_PENDING and r.flags & FLAGS_ASYNC:
                self.interims[r.mid] = r.async_id
                continue
            self.pending[r.mid] = r

    def wait(self, mid, timeout=None):
        """The final reply to mid (interim replies are noted in
        self.interims; break notifications in self.breaks)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while mid not in self.pending:
            self._pump(deadline)
        return self.pending.pop(mid)

    def wait_interim(self, mid, timeout=None):
        """mid's async id once its STATUS_PENDING came (None if a final
        reply came instead)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while mid not in self.interims and mid not in self.pending:
            self._pump(deadline)
        return self.interims.get(mid)

    def wait_break(self, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self.breaks:
            self._pump(deadline)
        return self.breaks.pop(0)

    def call(self, cmd, body, sid=0, tid=0, **kw):
        timeout = kw.pop("timeout", None)
        return self.wait(self.send(cmd, body, sid=sid, tid=tid, **kw),
                         timeout)

    # -- logon and binding -------------------------------------------------
    @staticmethod
    def _ntlm_negotiate():
        from impacket import ntlm
        from impacket.spnego import SPNEGO_NegTokenInit, TypesMech
        auth = ntlm.getNTLMSSPType1("", "", True)
        blob = SPNEGO_NegTokenInit()
        blob["MechTypes"] = [TypesMech["NTLMSSP - Microsoft NTLM Security "
                                       "Support Provider"]]
        blob["MechToken"] = auth.getData()
        return auth, blob.getData()

    @staticmethod
    def _ntlm_auth(auth, reply, user, password):
        from impacket import ntlm
        from impacket.spnego import SPNEGO_NegTokenResp
        off, ln = struct.unpack_from("<HH", reply.raw, 64 + 4)
        resp = SPNEGO_NegTokenResp(reply.raw[off:off + ln])
        type3, key = ntlm.getNTLMSSPType3(auth, resp["ResponseToken"],
                                          user, password, "", "", "")
        tok = SPNEGO_NegTokenResp()
        tok["ResponseToken"] = type3.getData()
        return tok.getData(), key

    @staticmethod
    def setup_body(token, flags=0, prev=0):
        return struct.pack("<HBBIIHHQ", 25, flags, 1, 0, 0, 64 + 24,
                           len(token), prev) + token

    def logon(self, user, password):
        """A new session on this connection (the NTLMSSP exchange); its
        requests are signed from then on."""
        auth, tok = self._ntlm_negotiate()
        h = self.preauth
        msg = self.build(SESSION_SETUP, self.setup_body(tok))
        h = hashlib.sha512(h + msg).digest()
        self.raw.send(msg)
        r = self.wait(struct.unpack_from("<Q", msg, 24)[0])
        if r.status != STATUS_MORE_PROCESSING_REQUIRED:
            raise SmbError("session setup", r.status)
        h = hashlib.sha512(h + r.raw).digest()
        sid = r.session_id
        tok, key = self._ntlm_auth(auth, r, user, password)
        msg = self.build(SESSION_SETUP, self.setup_body(tok), sid=sid)
        h = hashlib.sha512(h + msg).digest()
        self.raw.send(msg)
        r = self.wait(struct.unpack_from("<Q", msg, 24)[0])
        if r.status != 0:
            raise SmbError("session setup", r.status)
        skey = signing_key(self.dialect, key, h)
        s = Session(sid, self.dialect, key, skey, self.algo, user, password)
        self.keys[sid] = (skey, self.algo)
        return s

    def bind(self, s, user=None, password=None, sign_with=None,
             forge=False, forge_leg=None, signed=True, flags=None,
             between=None):
        """Bind this connection to session s (3.2.4.1.7).  Each leg is
        signed with s's key and algorithm unless sign_with=(key, algo)
        says otherwise; forge: random signature bytes on every leg (or
        only on leg forge_leg, 1 or 2); signed=False: no signature.
        Returns the final Reply (its status says how it ended); on
        success this connection signs s's requests with the channel's
        key from then on.  between(), if given, runs between the legs."""
        user = user or s.user
        password = password if password is not None else s.password
        flags = SESSION_FLAG_BINDING if flags is None else flags
        sw = sign_with or (s.signing_key, s.algo)
        auth, tok = self._ntlm_negotiate()
        h = self.preauth
        leg = 1
        while True:
            msg = self.build(SESSION_SETUP, self.setup_body(tok, flags),
                             sid=s.id)
            bad = forge if forge_leg is None else (forge and
                                                   forge_leg == leg)
            if bad:
                msg = self.seal(msg, s.id, forge=True)
            elif signed:
                msg = self.seal(msg, s.id, sign_with=sw)
            h = hashlib.sha512(h + msg).digest()
            self.raw.send(msg)
            r = self.wait(struct.unpack_from("<Q", msg, 24)[0])
            if r.status != STATUS_MORE_PROCESSING_REQUIRED or leg == 2:
                break
            h = hashlib.sha512(h + r.raw).digest()
            tok, key = self._ntlm_auth(auth, r, user, password)
            leg = 2
            if between is not None:
                between()
        if r.status == 0 and leg == 2:
            self.keys[s.id] = (signing_key(self.dialect, key, h), self.algo)
        return r

    def check_signature(self, r, key_algo):
        """True when reply r is signed and verifies under key_algo."""
        return r.signed and signature(key_algo[1], key_algo[0],
                                      r.raw) == r.raw[48:64]

    # -- commands ------------------------------------------------------------
    def tree_connect(self, sid, share="share"):
        path = ("\\\\127.0.0.1\\%s" % share).encode("utf-16-le")
        r = self.call(TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72,
                                                len(path)) + path, sid=sid)
        r.ok("tree connect")
        return r.tree_id

    @staticmethod
    def create_body(name, access=GENERIC_RW, share=SHARE_ALL,
                    disposition=FILE_OPEN_IF,
                    options=FILE_NON_DIRECTORY_FILE, oplock=OPLOCK_NONE,
                    contexts=b""):
        n = name.encode("utf-16-le")
        ctx_off = 0
        pad = b""
        if contexts:
            pad = b"\0" * (-(64 + 56 + len(n)) % 8)
            ctx_off = 64 + 56 + len(n) + len(pad)
        return struct.pack("<HBBIQQIIIIIHHII", 57, 0, oplock, 2, 0, 0,
                           access, 0x80, share, disposition, options,
                           64 + 56, len(n), ctx_off, len(contexts)) + n + \
            pad + contexts

    def create(self, sid, tid, name, **kw):
        """The FileId (16 bytes) of a new open, and the reply."""
        r = self.call(CREATE, self.create_body(name, **kw), sid=sid, tid=tid)
        r.ok("create %s" % name)
        return r.body[64:80], r

    @staticmethod
    def close_body(fid):
        return struct.pack("<HHI16s", 24, 0, 0, fid)

    def close_file(self, sid, tid, fid):
        return self.call(CLOSE, self.close_body(fid), sid=sid, tid=tid)

    @staticmethod
    def read_body(fid, length, offset=0):
        return struct.pack("<HBBIQ16sIIIHHB", 49, 0x50, 0, length, offset,
                           fid, 0, 0, 0, 0, 0, 0)

    def read(self, sid, tid, fid, length, offset=0):
        r = self.call(READ, self.read_body(fid, length, offset), sid=sid,
                      tid=tid, charge=max(1, (length + 65535) // 65536))
        if r.status != 0:
            raise SmbError("read", r.status)
        off = r.body[2]
        n = struct.unpack_from("<I", r.body, 4)[0]
        return r.raw[off:off + n]

    @staticmethod
    def write_body(fid, data, offset=0):
        return struct.pack("<HHIQ16sIIHHI", 49, 64 + 48, len(data), offset,
                           fid, 0, 0, 0, 0, 0) + data

    def write(self, sid, tid, fid, data, offset=0):
        r = self.call(WRITE, self.write_body(fid, data, offset), sid=sid,
                      tid=tid, charge=max(1, (len(data) + 65535) // 65536))
        r.ok("write")
        return struct.unpack_from("<I", r.body, 4)[0]

    @staticmethod
    def notify_body(fid, length=4096, flags=0, filt=0x17):
        return struct.pack("<HHI16sII", 32, flags, length, fid, filt, 0)

    @staticmethod
    def lock_body(fid, offset, length, flags, sequence=0):
        """One LOCK element (2.2.26): flags 1 shared, 2 exclusive, 4
        unlock, 0x10 fail immediately; sequence is LockSequenceNumber
        (low 4 bits) and LockSequenceIndex (the 28 above)."""
        return struct.pack("<HHI16sQQII", 48, 1, sequence, fid, offset,
                           length, flags, 0)

    @staticmethod
    def ioctl_body(fid, code, data=b"", max_out=0, flags=1):
        """IOCTL (2.2.31): code on fid with data as its input; flags 1 is
        SMB2_0_IOCTL_IS_FSCTL."""
        off = 64 + 56 if data else 0
        return struct.pack("<HHI16sIIIIIIII", 57, 0, code, fid, off,
                           len(data), 0, 0, 0, max_out, flags, 0) + data

    @staticmethod
    def break_ack_body(fid, level=OPLOCK_NONE):
        return struct.pack("<HBBI16s", 24, level, 0, 0, fid)

    @staticmethod
    def tdis_body():
        return struct.pack("<HH", 4, 0)

    @staticmethod
    def logoff_body():
        return struct.pack("<HH", 4, 0)

    def logoff(self, sid):
        return self.call(LOGOFF, self.logoff_body(), sid=sid)

    def echo(self, timeout=None):
        return self.call(ECHO, struct.pack("<HH", 4, 0), sign=False,
                         timeout=timeout)

    def cancel(self, sid, mid, async_id=None):
        """CANCEL (2.2.30) of mid, by its async id when it has one."""
        if async_id is not None:
            hdr = bytearray(smb2_header(CANCEL, 0, session_id=sid,
                                        flags=FLAGS_ASYNC))
            struct.pack_into("<Q", hdr, 24, mid)
            struct.pack_into("<Q", hdr, 32, async_id)
            msg = bytes(hdr)
        else:
            msg = smb2_header(CANCEL, mid, session_id=sid)
        msg += struct.pack("<HH", 4, 0)
        msg = self.seal(msg, sid)
        self.raw.send(msg)


def create_context(name, data):
    """One SMB2_CREATE_CONTEXT (2.2.13.2), the last of its chain."""
    return struct.pack("<IHHHHI", 0, 16, len(name), 0, 24, len(data)) + \
        name + b"\0" * (8 - len(name)) + data


def create_contexts(pairs):
    out = b""
    for i, (name, data) in enumerate(pairs):
        c = create_context(name, data)
        if i + 1 < len(pairs):
            c += b"\0" * (-len(c) % 8)
            c = struct.pack("<I", len(c)) + c[4:]
        out += c
    return out


def dh2q(create_guid, timeout_ms=0):
    """DH2Q (2.2.13.2.11): a durable v2 request."""
    return (b"DH2Q", struct.pack("<II8s16s", timeout_ms, 0, b"\0" * 8,
                                 create_guid))


def dh2c(fid, create_guid):
    """DH2C (2.2.13.2.12): reconnect to a durable open."""
    return (b"DH2C", fid + create_guid + struct.pack("<I", 0))


def dhnq():
    """DHnQ (2.2.13.2.3): a durable v1 request."""
    return (b"DHnQ", b"\0" * 16)


def dhnc(fid):
    """DHnC (2.2.13.2.4): reconnect to a durable or resilient open."""
    return (b"DHnC", fid)
