#!/usr/bin/python3
"""Session setups per second (NTLMSSP, NTLMv2), one connection or several.

Each process opens one TCP connection, NEGOTIATEs SMB 3.0.2 and then, for
SECONDS, logs on and off again and again on that connection: SESSION_SETUP
with a raw NTLMSSP NEGOTIATE, SESSION_SETUP with the AUTHENTICATE (NTLMv2
response over the server's challenge and target info), LOGOFF.  Nothing is
signed (the servers do not require it), so the figure is the logon path:
SPNEGO/NTLMSSP parsing, the passdb lookup, the HMAC-MD5 work and the
session table.  The client is a small raw Python one (struct + hmac), the
same against both servers.

With --connect every logon is made on a new TCP connection instead
(connect, NEGOTIATE, the two SESSION_SETUPs, LOGOFF, close): a connect
storm.  A failed logon there is counted and the next one tried; on one
connection the process stops at its first failure.

Usage: logons.py [--connect] PORT USER PASSWORD [SECONDS] [NPROCS]
Prints "logons/s TOTAL min1s LOWEST errors N" (LOWEST: the fewest logons
completed in any whole second of the run, all processes together) and
one line per process.
"""

import hashlib
import hmac
import multiprocessing
import os
import socket
import struct
import sys
import time

from impacket import ntlm  # only for the NT hash (MD4 without OpenSSL)

SMB2_NEGOTIATE, SMB2_SESSION_SETUP, SMB2_LOGOFF = 0, 1, 2
MORE_PROCESSING = 0xC0000016
NEG_FLAGS = (0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 |
             0x00080000 | 0x20000000 | 0x80000000)  # unicode, req target,
# NTLM, always sign, ESS, 128, 56


class Conn:
    def __init__(self, port, timeout=30):
        self.s = socket.create_connection(("127.0.0.1", port),
                                          timeout=timeout)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.mid = 0

    def call(self, cmd, body, sid=0, credits=32):
        hdr = struct.pack("<4sHHIHHIIQIIQ16s", b"\xfeSMB", 64, 1, 0, cmd,
                          credits, 0, 0, self.mid, 0, 0, sid, b"\0" * 16)
        self.mid += 1
        msg = hdr + body
        self.s.sendall(struct.pack(">I", len(msg)) + msg)
        return self.recv()

    def recv(self):
        n = struct.unpack(">I", self.recvn(4))[0] & 0xFFFFFF
        msg = self.recvn(n)
        status = struct.unpack_from("<I", msg, 8)[0]
        sid = struct.unpack_from("<Q", msg, 40)[0]
        return status, sid, msg

    def recvn(self, n):
        buf = b""
        while len(buf) < n:
            got = self.s.recv(n - len(buf))
            if not got:
                raise ConnectionError("closed")
            buf += got
        return buf


def negotiate(c):
    dialects = [0x0202, 0x0210, 0x0300, 0x0302]
    body = struct.pack("<HHHHI16sQ", 36, len(dialects), 1, 0, 0x7F,
                       os.urandom(16), 0)
    body += b"".join(struct.pack("<H", d) for d in dialects)
    status, _, _ = c.call(SMB2_NEGOTIATE, body)
    if status != 0:
        raise RuntimeError("negotiate: 0x%08x" % status)


def setup(c, blob, sid):
    body = struct.pack("<HBBIIHHQ", 25, 0, 1, 0, 0, 64 + 24, len(blob), 0)
    return c.call(SMB2_SESSION_SETUP, body + blob, sid)


def sec_blob(msg):
    off, length = struct.unpack_from("<HH", msg, 64 + 4)
    return msg[off:off + length]


def ntlm_negotiate():
    return struct.pack("<8sII8s8s", b"NTLMSSP\0", 1, NEG_FLAGS, b"\0" * 8,
                       b"\0" * 8)


def ntlm_authenticate(chal, user, domain, nt_hash):
    flags, = struct.unpack_from("<I", chal, 20)
    server_chal = chal[24:32]
    ti_len, _, ti_off = struct.unpack_from("<HHI", chal, 40)
    target_info = chal[ti_off:ti_off + ti_len]
    v2 = hmac.new(nt_hash, (user.upper() + domain).encode("utf-16-le"),
                  hashlib.md5).digest()
    ts = (int(time.time()) + 11644473600) * 10000000
    temp = (b"\x01\x01" + b"\0" * 6 + struct.pack("<Q", ts) +
            os.urandom(8) + b"\0" * 4 + target_info + b"\0" * 4)
    proof = hmac.new(v2, server_chal + temp, hashlib.md5).digest()
    nt = proof + temp
    lm = b"\0" * 24
    dom = domain.encode("utf-16-le")
    usr = user.encode("utf-16-le")
    ws = "BENCH".encode("utf-16-le")
    off = 64
    fields, payload = b"", b""
    for data in (lm, nt, dom, usr, ws, b""):
        fields += struct.pack("<HHI", len(data), len(data), off + len(payload))
        payload += data
    hdr = (struct.pack("<8sI", b"NTLMSSP\0", 3) + fields +
           struct.pack("<I", flags & NEG_FLAGS))
    assert len(hdr) == 64
    return hdr + payload


def logon(c, user, nt_hash):
    """One logon and logoff on C; False if a reply was not the expected."""
    status, sid, msg = setup(c, ntlm_negotiate(), 0)
    if status != MORE_PROCESSING:
        return False
    status, _, _ = setup(c, ntlm_authenticate(sec_blob(msg), user, "",
                                              nt_hash), sid)
    if status != 0:
        return False
    status, _, _ = c.call(SMB2_LOGOFF, struct.pack("<HH", 4, 0), sid)
    return status == 0


def worker(idx, port, user, password, seconds, connect, q):
    """Logons for SECONDS: on one connection, or (CONNECT) each on a new
    one.  Puts (idx, logons per second, errors, logons per whole second
    of the run) on Q."""
    nt_hash = ntlm.compute_nthash(password)
    c = None
    n, errors = 0, 0
    start = time.monotonic()
    end = start + seconds
    per_sec = [0] * int(seconds)
    while time.monotonic() < end:
        try:
            if c is None:
                c = Conn(port)
                negotiate(c)
            ok = logon(c, user, nt_hash)
        except (OSError, ConnectionError, RuntimeError, struct.error):
            ok = False
        if not ok:
            errors += 1
            if not connect:
                break
        else:
            n += 1
            sec = int(time.monotonic() - start)
            if sec < len(per_sec):
                per_sec[sec] += 1
        if connect and c is not None:
            c.s.close()
            c = None
    q.put((idx, n / seconds, errors, per_sec))


def main():
    args = sys.argv[1:]
    connect = "--connect" in args
    args = [a for a in args if a != "--connect"]
    port, user, password = int(args[0]), args[1], args[2]
    seconds = int(args[3]) if len(args) > 3 else 5
    nprocs = int(args[4]) if len(args) > 4 else 1
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=worker,
                                  args=(i, port, user, password, seconds,
                                        connect, q))
          for i in range(nprocs)]
    for p in ps:
        p.start()
    res = [q.get(timeout=seconds + 60) for _ in ps]
    for p in ps:
        p.join(30)
    per_sec = [sum(r[3][i] for r in res) for i in range(int(seconds))]
    print("logons/s %.0f min1s %.0f errors %d" %
          (sum(r[1] for r in res), min(per_sec) if per_sec else 0,
           sum(r[2] for r in res)))
    for idx, rate, errors, _ in sorted(res):
        print("process %d: %.0f logons/s, %d errors" % (idx, rate, errors))
    return 0 if all(r[2] == 0 for r in res) else 1


if __name__ == "__main__":
    sys.exit(main())
