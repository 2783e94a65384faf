"""A small SMB 3.1.1 client that speaks compression (MS-SMB2 2.2.3.1.3,
2.2.42, 3.1.4.4, 3.1.5), for the tests and the benchmark: neither impacket
nor smbclient nor the Linux client offers it.

It does what a 3.1.1 client must and nothing more: NEGOTIATE with the
preauth, encryption and compression contexts, an NTLMSSP logon (impacket's
NTLMSSP and SPNEGO pieces), the preauth hash and the 3.1.1 keys, AES-CMAC
signing or AES-128-GCM or AES-128-CCM encryption (the ciphers offered in
the order given; self.cipher is the server's choice), TREE_CONNECT,
CREATE, READ, WRITE and
CLOSE.  The COMPRESSION_TRANSFORM framing is written here from the spec,
independently of the server's; only the raw codecs come from the build's
xca_tool (MS-XCA codecs and liblz4).

Every reply that came compressed is recorded in `self.compressed` (the
command and the frame's form), so a test can tell what the server did.
"""

import hashlib
import os
import struct
import subprocess

from smbd_harness import (RawConn, negotiate_context, preauth_context,
                          encryption_context, negotiate_request,
                          parse_negotiate_response, smb2_header,
                          DIALECT_311, CIPHER_AES128_GCM, CIPHER_AES128_CCM,
                          ENCRYPTION_CAPABILITIES, NET_TIMEOUT)

COMPRESSION_CAPABILITIES = 0x0003
NONE, LZNT1, LZ77, LZ77_HUFFMAN, PATTERN_V1, LZ4 = 0, 1, 2, 3, 4, 5
ALGORITHMS = {"lznt1": LZNT1, "lz77": LZ77, "lz77+huffman": LZ77_HUFFMAN,
              "pattern_v1": PATTERN_V1, "lz4": LZ4}
CAP_FLAG_CHAINED = 0x1
FLAG_CHAINED = 0x1
COMP_MAGIC = b"\xfcSMB"
TF_MAGIC = b"\xfdSMB"

SESSION_SETUP, TREE_CONNECT, CREATE, CLOSE, READ, WRITE = 1, 3, 5, 6, 8, 9
STATUS_MORE_PROCESSING_REQUIRED = 0xC0000016
FLAGS_SIGNED = 0x8
READFLAG_REQUEST_COMPRESSED = 0x02


class SmbError(Exception):
    def __init__(self, what, status):
        super().__init__("%s: status 0x%08x" % (what, status))
        self.status = status


def xca_tool():
    b = os.environ.get("BUILDDIR", os.getcwd())
    return os.path.join(b, "testsuite/integration/xca_tool")


try:
    import lz4.block as _lz4   # python3-lz4: LZ4 without a process
except ImportError:
    _lz4 = None


def _cmac(key, msg):
    from Cryptodome.Cipher import AES
    from Cryptodome.Hash import CMAC
    return CMAC.new(key, msg=msg, ciphermod=AES).digest()


def codec_compress(alg, data):
    """Compressed bytes, or None when it would not shrink."""
    if alg == LZ4 and _lz4 is not None:
        out = _lz4.compress(data, store_size=False)
        return out if len(out) < len(data) else None
    r = subprocess.run([xca_tool(), "compress", str(alg)], input=data,
                       capture_output=True, timeout=60)
    if r.returncode == 3:
        return None
    if r.returncode != 0:
        raise RuntimeError("xca_tool compress %d: rc %d" % (alg,
                                                            r.returncode))
    return r.stdout


def codec_decompress(alg, data, length):
    if alg == LZ4 and _lz4 is not None:
        out = _lz4.decompress(data, uncompressed_size=length)
        if len(out) != length:
            raise ValueError("LZ4: %d bytes, not %d" % (len(out), length))
        return out
    r = subprocess.run([xca_tool(), "decompress", str(alg), str(length)],
                       input=data, capture_output=True, timeout=60)
    if r.returncode != 0:
        raise ValueError("algorithm %d: stream refused" % alg)
    return r.stdout


def compression_context(algorithms, chained=False, flags=None):
    if flags is None:
        flags = CAP_FLAG_CHAINED if chained else 0
    return negotiate_context(
        COMPRESSION_CAPABILITIES,
        struct.pack("<HHI%dH" % len(algorithms), len(algorithms), 0,
                    flags, *algorithms))


def compress_unchained(alg, msg, plain):
    """2.2.42.1: the first `plain` bytes as they are; None if no gain."""
    c = codec_compress(alg, msg[plain:])
    if c is None:
        return None
    out = struct.pack("<4sIHHI", COMP_MAGIC, len(msg) - plain, alg, 0,
                      plain) + msg[:plain] + c
    return out if len(out) < len(msg) else None


def _run(data, forward):
    if not data:
        return 0
    b = data[0] if forward else data[-1]
    n = len(data) - len(data.lstrip(bytes([b]))) if forward else \
        len(data) - len(data.rstrip(bytes([b])))
    return n if n >= 64 else 0


def compress_chained(algs, msg, plain):
    """2.2.42.2 with 3.1.4.4.1's scan: NONE(plain), Pattern_V1 forward,
    the middle compressed (or NONE), Pattern_V1 backward."""
    codec = next((a for a in algs if a != PATTERN_V1), None)
    payloads = []
    if plain:
        payloads.append(struct.pack("<HHI", NONE, 0, plain) + msg[:plain])
    data = msg[plain:]
    fwd = bwd = 0
    if PATTERN_V1 in algs:
        fwd = _run(data, True)
        if fwd < len(data):
            bwd = _run(data[fwd:], False)
    if fwd:
        payloads.append(struct.pack("<HHIBBHI", PATTERN_V1, 0, 8,
                                    data[0], 0, 0, fwd))
    mid = data[fwd:len(data) - bwd]
    if mid:
        c = codec_compress(codec, mid) if codec else None
        if c is not None and len(c) + 4 < len(mid):
            payloads.append(struct.pack("<HHII", codec, 0, 4 + len(c),
                                        len(mid)) + c)
        else:
            payloads.append(struct.pack("<HHI", NONE, 0, len(mid)) + mid)
    if bwd:
        payloads.append(struct.pack("<HHIBBHI", PATTERN_V1, 0, 8,
                                    data[-1], 0, 0, bwd))
    # the first payload header carries the CHAINED flag (2.2.42.2.1)
    first = bytearray(payloads[0])
    struct.pack_into("<H", first, 2, FLAG_CHAINED)
    payloads[0] = bytes(first)
    out = struct.pack("<4sI", COMP_MAGIC, len(msg)) + b"".join(payloads)
    return out if len(out) < len(msg) else None


def decompress(frame):
    """(message, form) of a COMPRESSION_TRANSFORM frame; form says what
    was in it: 'unchained:ALG' or 'chained:ALG,ALG,...'."""
    total, alg, flags, off = struct.unpack_from("<IHHI", frame, 4)
    if flags == 0:
        head = frame[16:16 + off]
        return (head + codec_decompress(alg, frame[16 + off:], total),
                "unchained:%d" % alg)
    out = b""
    pos = 8
    algs = []
    while pos < len(frame):
        alg, _, length = struct.unpack_from("<HHI", frame, pos)
        body = frame[pos + 8:pos + 8 + length]
        algs.append(alg)
        if alg == NONE:
            out += body
        elif alg == PATTERN_V1:
            out += bytes([body[0]]) * struct.unpack_from("<I", body, 4)[0]
        else:
            orig = struct.unpack_from("<I", body)[0]
            out += codec_decompress(alg, body[4:], orig)
        pos += 8 + length
    if len(out) != total:
        raise ValueError("chained: %d bytes, header says %d" % (len(out),
                                                                total))
    return out, "chained:" + ",".join(str(a) for a in algs)


class Client:
    """One connection, one session, one tree."""

    def __init__(self, port, user, password, algorithms=(LZ77,),
                 chained=False, encrypt=False, timeout=NET_TIMEOUT,
                 ciphers=(CIPHER_AES128_GCM,)):
        self.conn = RawConn(port, timeout=timeout)
        self.mid = 0
        self.sid = 0
        self.tid = 0
        self.encrypt = encrypt
        self.compressed = []        # (command, form) of compressed replies
        self.sent_compressed = 0    # requests that went compressed
        # replies' signatures are checked (the benchmark turns it off
        # after the logon: CMAC in Python costs 5 ms per MiB)
        self.verify = True
        self.preauth = b"\0" * 64
        self.ciphers = ciphers
        self.cipher = 0
        self._negotiate(algorithms, chained)
        self._logon(user, password)

    # -- transport -------------------------------------------------------

    def _hash(self, h, msg):
        return hashlib.sha512(h + msg).digest()

    def _sign(self, msg):
        m = bytearray(msg)
        struct.pack_into("<I", m, 16, struct.unpack_from("<I", m, 16)[0]
                         | FLAGS_SIGNED)
        m[48:64] = b"\0" * 16
        m[48:64] = _cmac(self.signing_key, bytes(m))
        return bytes(m)

    def _check_signature(self, msg):
        flags = struct.unpack_from("<I", msg, 16)[0]
        if not flags & FLAGS_SIGNED:
            return
        m = bytearray(msg)
        m[48:64] = b"\0" * 16
        if _cmac(self.signing_key, bytes(m)) != msg[48:64]:
            raise AssertionError("bad signature on a reply")

    def _aead(self, key, nonce):
        """The negotiated cipher (2.2.41: GCM takes 12 bytes of the
        Nonce field, CCM 11)."""
        from Cryptodome.Cipher import AES
        if self.cipher == CIPHER_AES128_CCM:
            return AES.new(key, AES.MODE_CCM, nonce=nonce[:11], mac_len=16)
        return AES.new(key, AES.MODE_GCM, nonce=nonce[:12])

    def _encrypt(self, msg):
        n = 11 if self.cipher == CIPHER_AES128_CCM else 12
        nonce = os.urandom(n) + b"\0" * (16 - n)
        # Nonce (16: the cipher's, then zeros), OriginalMessageSize,
        # Reserved, Flags (encrypted), SessionId: the AEAD's AAD
        hdr = struct.pack("<16sIHHQ", nonce, len(msg), 0, 1, self.sid)
        c = self._aead(self.enc_key, nonce)
        c.update(hdr)
        ct, tag = c.encrypt_and_digest(msg)
        return TF_MAGIC + tag + hdr + ct

    def _decrypt(self, frame):
        hdr = frame[20:52]
        c = self._aead(self.dec_key, frame[20:36])
        c.update(hdr)
        return c.decrypt_and_verify(frame[52:], frame[4:20])

    def send(self, msg, compress=None, plain=0):
        """Send one message: signed (after the logon) or encrypted;
        compress: None, ('unchained', alg) or ('chained', algs)."""
        if self.sid and not self.encrypt and \
                struct.unpack_from("<H", msg, 12)[0] != SESSION_SETUP:
            msg = self._sign(msg)
        if compress is not None:
            kind, what = compress
            c = compress_unchained(what, msg, plain) if kind == \
                "unchained" else compress_chained(what, msg, plain)
            if c is not None:
                msg = c
                self.sent_compressed += 1
        if self.encrypt and self.sid and hasattr(self, "enc_key"):
            msg = self._encrypt(msg)
        self.conn.send(msg)

    def recv(self):
        """The next reply as the plain SMB2 message; interim replies
        (STATUS_PENDING) are skipped."""
        while True:
            frame = self.conn.recv()
            if frame[:4] == TF_MAGIC:
                frame = self._decrypt(frame)
            form = None
            if frame[:4] == COMP_MAGIC:
                frame, form = decompress(frame)
            cmd = struct.unpack_from("<H", frame, 12)[0]
            status = struct.unpack_from("<I", frame, 8)[0]
            if status == 0x103:
                continue
            if form is not None:
                self.compressed.append((cmd, form))
            if self.verify and hasattr(self, "signing_key") and \
                    not self.encrypt:
                self._check_signature(frame)
            return frame

    def _request(self, cmd, body, charge=1, compress=None, plain=0,
                 ok=(0,)):
        mid = self.mid
        self.mid += max(charge, 1)
        msg = smb2_header(cmd, mid, credit_charge=charge, credits=256,
                          session_id=self.sid, tree_id=self.tid) + body
        self.send(msg, compress=compress, plain=plain)
        r = self.recv()
        status = struct.unpack_from("<I", r, 8)[0]
        if status not in ok:
            raise SmbError("command %d" % cmd, status)
        return r

    # -- negotiate and logon ---------------------------------------------

    def _negotiate(self, algorithms, chained):
        ctx = [preauth_context(), encryption_context(self.ciphers)]
        if algorithms is not None:
            ctx.append(compression_context(algorithms, chained))
        req = negotiate_request((DIALECT_311,), contexts=ctx, message_id=0)
        self.mid = 1
        self.conn.send(req)
        raw = self.conn.recv()
        self.preauth = self._hash(self._hash(self.preauth, req), raw)
        r = parse_negotiate_response(raw)
        if r["status"] != 0:
            raise SmbError("negotiate", r["status"])
        self.negotiated = r
        for data in r["contexts"].get(ENCRYPTION_CAPABILITIES, []):
            self.cipher = struct.unpack_from("<H", data, 2)[0]
        self.algorithms = []
        self.chained = False
        for data in r["contexts"].get(COMPRESSION_CAPABILITIES, []):
            n, _, flags = struct.unpack_from("<HHI", data)
            self.algorithms = [a for a in struct.unpack_from(
                "<%dH" % n, data, 8) if a != NONE]
            self.chained = bool(flags & CAP_FLAG_CHAINED)

    def _setup(self, token, sess_hash):
        body = struct.pack("<HBBIIHHQ", 25, 0, 1, 0, 0, 64 + 24,
                           len(token), 0) + token
        msg = smb2_header(SESSION_SETUP, self.mid, credit_charge=1,
                          credits=256, session_id=self.sid) + body
        self.mid += 1
        sess_hash = self._hash(sess_hash, msg)
        self.conn.send(msg)
        raw = self.conn.recv()
        status = struct.unpack_from("<I", raw, 8)[0]
        self.sid = struct.unpack_from("<Q", raw, 40)[0]
        if status == STATUS_MORE_PROCESSING_REQUIRED:
            sess_hash = self._hash(sess_hash, raw)
        elif status != 0:
            raise SmbError("session setup", status)
        off, ln = struct.unpack_from("<HH", raw, 64 + 4)
        return status, raw[off:off + ln], sess_hash, raw

    def _logon(self, user, password):
        from impacket import ntlm, crypto
        from impacket.spnego import (SPNEGO_NegTokenInit,
                                     SPNEGO_NegTokenResp, TypesMech)
        auth = ntlm.getNTLMSSPType1("", "", True)
        blob = SPNEGO_NegTokenInit()
        blob["MechTypes"] = [TypesMech["NTLMSSP - Microsoft NTLM Security "
                                       "Support Provider"]]
        blob["MechToken"] = auth.getData()
        h = self.preauth
        status, out, h, _ = self._setup(blob.getData(), h)
        resp = SPNEGO_NegTokenResp(out)
        type3, key = ntlm.getNTLMSSPType3(auth, resp["ResponseToken"], user,
                                          password, "", "", "")
        tok = SPNEGO_NegTokenResp()
        tok["ResponseToken"] = type3.getData()
        status, _, h, final = self._setup(tok.getData(), h)
        kdf = crypto.KDF_CounterMode
        self.signing_key = kdf(key, b"SMBSigningKey\0", h, 128)
        self.enc_key = kdf(key, b"SMBC2SCipherKey\0", h, 128)
        self.dec_key = kdf(key, b"SMBS2CCipherKey\0", h, 128)
        self._check_signature(final)

    # -- file operations -------------------------------------------------

    def tree_connect(self, share):
        path = ("\\\\127.0.0.1\\%s" % share).encode("utf-16-le")
        r = self._request(TREE_CONNECT, struct.pack("<HHHH", 9, 0, 72,
                                                    len(path)) + path)
        self.tid = struct.unpack_from("<I", r, 36)[0]
        self.share_flags = struct.unpack_from("<I", r, 64 + 4)[0]
        return self.tid

    def create(self, name, disposition=5, access=0x001F01FF):
        """CREATE (default FILE_OVERWRITE_IF, all access): the FileId."""
        n = name.encode("utf-16-le")
        body = struct.pack("<HBBIQQIIIIIHHII", 57, 0, 0, 2, 0, 0,
                           access, 0x80, 7, disposition, 0x40,
                           64 + 56, len(n), 0, 0) + n
        r = self._request(CREATE, body)
        return r[64 + 64:64 + 80]

    def close(self, fid):
        self._request(CLOSE, struct.pack("<HHI16s", 24, 0, 0, fid))

    def write(self, fid, offset, data, compress=None):
        """WRITE; compress as for send() (the header and WRITE body, 112
        bytes, stay plain, as Windows sends them)."""
        body = struct.pack("<HHIQ16sIIHHI", 49, 64 + 48, len(data), offset,
                           fid, 0, 0, 0, 0, 0) + data
        charge = max(1, (len(data) + 65535) // 65536)
        r = self._request(WRITE, body, charge=charge, compress=compress,
                          plain=64 + 48)
        return struct.unpack_from("<I", r, 64 + 4)[0]

    def read(self, fid, offset, length, request_compressed=True):
        flags = READFLAG_REQUEST_COMPRESSED if request_compressed else 0
        body = struct.pack("<HBBIQ16sIIIHHB", 49, 0x50, flags, length,
                           offset, fid, 0, 0, 0, 0, 0, 0)
        charge = max(1, (length + 65535) // 65536)
        r = self._request(READ, body, charge=charge, ok=(0, 0xC0000011))
        if struct.unpack_from("<I", r, 8)[0] != 0:
            return b""
        off = r[64 + 2]
        n = struct.unpack_from("<I", r, 64 + 4)[0]
        return r[off:off + n]

    def disconnect(self):
        self.conn.close()
