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

Domain mode (issue 36): logons.py --domain [--connect] [--seconds S]
[--procs N] [--rounds R] [--ours SMBD] builds the Active Directory bed
(testsuite/ad/ad_env.py: a Samba AD DC, the member joined with Samba's
net ads join, Samba's winbindd; root, private namespaces) and starts two
member servers on it, Samba's smbd on member.smbng.test:445 and ours
(--ours, default $SMBD or the build's smbd/smbd) on :1445, both at debug
level 1.  Then, for R rounds, the servers interleaved, N processes log
on and off for S seconds:

  kerberos  SPNEGO with a Kerberos AP-REQ for cifs/member.smbng.test,
            from alice's ticket (kinit and kvno once, before the rounds);
            every logon a fresh authenticator (time, microseconds, a new
            confounder), encrypted with the ticket's session key by
            impacket's crypto into a template built once with impacket's
            ASN.1 types, so the client costs one AES-CTS encryption
  ntlm      the raw NTLMv2 client above as SMBNG\bob: each logon is
            checked by winbindd with the DC over netlogon

It prints one line per point and a table: per server and kind the median
of the rounds' logons/s with the lowest and highest.  A server that
refuses security = ads (ours before issue 36) is reported and left out.
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
    def __init__(self, port, timeout=30, host="127.0.0.1"):
        self.s = socket.create_connection((host, port), timeout=timeout)
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


def logon(c, user, nt_hash, domain=""):
    """One logon and logoff on C; False if a reply was not the expected."""
    status, sid, msg = setup(c, ntlm_negotiate(), 0)
    if status != MORE_PROCESSING:
        return False
    status, _, _ = setup(c, ntlm_authenticate(sec_blob(msg), user, domain,
                                              nt_hash), sid)
    if status != 0:
        return False
    return logoff(c, sid)


def logoff(c, sid):
    status, _, _ = c.call(SMB2_LOGOFF, struct.pack("<HH", 4, 0), sid)
    return status == 0


class KerberosTokens:
    """SPNEGO NegTokenInit blobs carrying a Kerberos AP-REQ (RFC 4120
    5.5.1, in the GSS-API framing of RFC 4121 4.1) for one service
    ticket of a ccache, each with a fresh authenticator.  The AP-REQ is
    built once with impacket's ASN.1 types around a stand-in ciphertext;
    next() fills in the time (KerberosTime, 15 bytes) and the
    microseconds (3-byte INTEGER: 65536..999999, distinct per process
    within a second) and puts the authenticator's encryption (key usage
    11, a new confounder each time) where the stand-in was."""

    def __init__(self, ccache, spn, realm, user, idx=0, nprocs=1):
        import datetime
        from impacket.krb5 import constants, crypto
        from impacket.krb5.asn1 import AP_REQ, Authenticator, seq_set
        from impacket.krb5.asn1 import Ticket as TicketAsn1
        from impacket.krb5.ccache import CCache
        from impacket.krb5.types import KerberosTime, Principal, Ticket
        from impacket.spnego import (SPNEGO_NegTokenInit, TypesMech,
                                     ASN1_AID, ASN1_OID, asn1encode)
        from pyasn1.codec.der import decoder, encoder
        from pyasn1.type.univ import noValue
        cred = CCache.loadFile(ccache).getCredential(spn + "@" + realm,
                                                     anySPN=False)
        if cred is None:
            raise RuntimeError("no ticket for %s in %s" % (spn, ccache))
        self.cipher = crypto._enctype_table[cred["key"]["keytype"]]()
        self.key = crypto.Key(self.cipher.enctype,
                              cred["key"]["keyvalue"])
        ticket = Ticket()
        ticket.from_asn1(decoder.decode(cred.ticket["data"],
                                        asn1Spec=TicketAsn1())[0])
        auth = Authenticator()
        auth["authenticator-vno"] = 5
        auth["crealm"] = realm
        seq_set(auth, "cname", Principal(
            user, type=constants.PrincipalNameType.NT_PRINCIPAL.value
        ).components_to_asn1)
        marker_time = datetime.datetime(2000, 1, 1, 0, 0, 0)
        auth["cusec"] = 0x0ABCDE
        auth["ctime"] = KerberosTime.to_asn1(marker_time)
        plain = encoder.encode(auth)
        self.t_at = plain.index(b"20000101000000Z")
        self.u_at = plain.index(b"\x02\x03\x0a\xbc\xde") + 2
        self.plain = bytearray(plain)
        stand_in = os.urandom(len(self.encrypt()))
        ap = AP_REQ()
        ap["pvno"] = 5
        ap["msg-type"] = int(constants.ApplicationTagNumbers.AP_REQ.value)
        ap["ap-options"] = constants.encodeFlags([])
        seq_set(ap, "ticket", ticket.to_asn1)
        ap["authenticator"] = noValue
        ap["authenticator"]["etype"] = self.cipher.enctype
        ap["authenticator"]["cipher"] = stand_in
        blob = SPNEGO_NegTokenInit()
        blob["MechTypes"] = [TypesMech["MS KRB5 - Microsoft Kerberos 5"]]
        blob["MechToken"] = struct.pack("B", ASN1_AID) + asn1encode(
            struct.pack("B", ASN1_OID) +
            asn1encode(TypesMech["KRB5 - Kerberos 5"]) + b"\x01\x00" +
            encoder.encode(ap))
        data = blob.getData()
        at = data.index(stand_in)
        self.head, self.tail = data[:at], data[at + len(stand_in):]
        self.n = 0
        self.idx, self.nprocs = idx, nprocs

    def encrypt(self):
        return self.cipher.encrypt(self.key, 11, bytes(self.plain), None)

    def next(self):
        now = time.time()
        self.plain[self.t_at:self.t_at + 15] = time.strftime(
            "%Y%m%d%H%M%SZ", time.gmtime(now)).encode()
        usec = 65536 + (self.n * self.nprocs + self.idx) % 934464
        self.n += 1
        self.plain[self.u_at:self.u_at + 3] = usec.to_bytes(3, "big")
        return self.head + self.encrypt() + self.tail


def kerberos_logon(c, tokens):
    """One Kerberos logon (a single SESSION_SETUP) and logoff on C."""
    status, sid, _ = setup(c, tokens.next(), 0)
    if status != 0:
        return False
    return logoff(c, sid)


def worker(idx, port, user, password, seconds, connect, q, host="127.0.0.1",
           domain="", krb=None):
    """Logons for SECONDS: on one connection, or (CONNECT) each on a new
    one.  Puts (idx, logons per second, errors, logons per whole second
    of the run) on Q.  krb: (ccache, spn, realm, nprocs): Kerberos logons
    as USER from that ccache instead of NTLM."""
    if krb is not None:
        tokens = KerberosTokens(krb[0], krb[1], krb[2], user, idx, krb[3])

        def one(c):
            return kerberos_logon(c, tokens)
    else:
        nt_hash = ntlm.compute_nthash(password)

        def one(c):
            return logon(c, user, nt_hash, domain)
    c = None
    n, errors = 0, 0
    start = time.monotonic()
    end = start + seconds
    per_sec = [0] * int(seconds)
    while time.monotonic() < end:
        try:
            if c is None:
                c = Conn(port, host=host)
                negotiate(c)
            ok = one(c)
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


def run_point(port, user, password, seconds, nprocs, connect,
              host="127.0.0.1", domain="", krb=None):
    """NPROCS processes logging on for SECONDS; (logons/s, lowest
    second, errors)."""
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=worker,
                                  args=(i, port, user, password, seconds,
                                        connect, q, host, domain,
                                        None if krb is None
                                        else tuple(krb) + (nprocs,)))
          for i in range(nprocs)]
    for p in ps:
        p.start()
    res = [q.get(timeout=seconds + 60) for _ in ps]
    for p in ps:
        p.join(30)
    per_sec = [sum(r[3][i] for r in res) for i in range(int(seconds))]
    return (sum(r[1] for r in res), min(per_sec) if per_sec else 0,
            sum(r[2] for r in res))


def domain_main(args):
    """--domain: Kerberos and NTLM domain logons per second, Samba's
    member smbd and ours in one AD bed, interleaved rounds."""
    import argparse
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "ad"))
    import ad_env
    ap = argparse.ArgumentParser(prog="logons.py --domain")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connect", action="store_true")
    ap.add_argument("--ours", default=None)
    ap.add_argument("--samba", default=ad_env.SAMBA_SMBD)
    o = ap.parse_args(args)
    ours = o.ours or os.environ.get("SMBD")
    if not ours:
        bd = os.environ.get("BUILDDIR") or os.path.join(
            os.path.dirname(os.path.dirname(here)), "build")
        ours = os.path.join(bd, "smbd", "smbd")
    why = ad_env.unavailable_reason()
    if why:
        print("SKIP: %s" % why)
        return 77
    # the bed's namespaces before any process or thread is made
    env = ad_env.AdEnv(winbindd_debug=1)
    try:
        env.start()
    except ad_env.AdUnavailable as e:
        print("SKIP: %s" % e)
        return 77
    print("bed: %s" % ", ".join("%s %.1f s" % kv
                                for kv in env.timings.items()))
    servers = []
    for name, binary, port in (("samba", o.samba, 445),
                               ("ours", ours, 1445)):
        srv = ad_env.MemberSmbd(env, binary=binary, port=port, debug=1)
        try:
            srv.start()
        except ad_env.ServerRefused as e:
            print("%s (%s): refuses security = ads: %s" % (name, binary, e))
            continue
        except ad_env.StepFailed as e:
            print("%s (%s): does not start: %s" % (name, binary, e))
            continue
        servers.append((name, srv))
    cc = env.kinit("alice")
    spn = "cifs/" + ad_env.MEMBER_FQDN
    env.service_ticket(cc, spn)
    kinds = (("kerberos", "alice", "", "", (cc, spn, ad_env.REALM)),
             ("ntlm", "bob", ad_env.USERS["bob"], ad_env.DOMAIN, None))
    rates = {}
    failed = False
    for r in range(o.rounds):
        order = servers if r % 2 == 0 else list(reversed(servers))
        for name, srv in order:
            for kind, user, pw, dom, krb in kinds:
                rate, low, errors = run_point(
                    srv.port, user, pw, o.seconds, o.procs, o.connect,
                    host=ad_env.MEMBER_IP, domain=dom, krb=krb)
                rates.setdefault((name, kind), []).append(rate)
                failed |= errors > 0 and not o.connect
                print("round %d %-5s %-8s logons/s %6.0f min1s %5.0f "
                      "errors %d" % (r + 1, name, kind, rate, low, errors))
                sys.stdout.flush()
    print("\n%d processes, %d s a point, %d rounds, %s" %
          (o.procs, o.seconds, o.rounds,
           "a new connection per logon" if o.connect
           else "one connection per process"))
    print("%-6s %-9s %9s %9s %9s" % ("server", "logon", "median", "lowest",
                                     "highest"))
    for (name, kind), v in rates.items():
        v = sorted(v)
        print("%-6s %-9s %9.0f %9.0f %9.0f" % (name, kind, v[len(v) // 2],
                                               v[0], v[-1]))
    for _, srv in servers:
        srv.cleanup()
    env.cleanup()
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    if "--domain" in args:
        args.remove("--domain")
        return domain_main(args)
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
