#!/usr/bin/python3
"""Issue 36's bad input for a member's Kerberos logons, and a winbindd
that is not there, on the AD bed (ad_env.py), for the server SMBD names
(default this build's; SMBD=/usr/sbin/smbd: Samba's).

alice's real service ticket (kinit, kvno cifs/member.smbng.test) is
doctored with the member's own key, read from the member's keytab: the
ticket is decrypted, changed and sealed again, so the server can
decrypt it and meets only the change:

  expired       endtime (and auth/start times) two hours back
  pac-sig       the PAC's server signature with one bit flipped
  pac-tamper    the PAC's PrimaryGroupId changed after signing
  no-pac        the PAC taken out of the ticket
  other-service a ticket for cifs/dc1.smbng.test filed under our name
  replay        the same SESSION_SETUP blob (one authenticator) sent on
                a second connection
  truncated     the AP-REQ cut short inside a well-formed SPNEGO token

impacket makes the AP-REQ from the doctored ccache as it is (Samba's
smbclient would fetch a fresh ticket); each case prints its status.
Then winbindd's socket is moved away: a Kerberos and an NTLM logon of a
domain user fail with NO_LOGON_SERVERS, and the server goes on serving.
And a Kerberos session encrypted with the AES-256 ciphers (whose keys
come from the whole 32-byte GSS session key) works.

The expected statuses are ours; where Samba 4.17 answers otherwise the
test says so and expects Samba's own answer when SMBD is Samba's, so
both runs pass and the difference is on record: Samba accepts a
replayed authenticator (no replay cache) and answers a truncated
AP-REQ with MORE_PROCESSING_REQUIRED (its SPNEGO moves on to the next
mechanism the client offered).

Run: testsuite/ad/run.sh testsuite/ad/test_ad_krb5.py (both servers)
or SMBD=... /usr/bin/python3 testsuite/ad/test_ad_krb5.py -v (root).
"""

import datetime
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ad_env  # noqa: E402
from ad_env import h, REALM, MEMBER_FQDN, MEMBER_IP  # noqa: E402

ENV = None
SRV = None
NET_TIMEOUT = 15

OK = 0
MORE_PROCESSING = 0xC0000016
LOGON_FAILURE = 0xC000006D
NO_IMPERSONATION_TOKEN = 0xC000005C
NO_LOGON_SERVERS = 0xC000005E


def setUpModule():
    global ENV, SRV
    ENV = ad_env.bed_for_tests()
    SRV = ad_env.member_for_tests(ENV, binary=h.smbd_binary())


def tearDownModule():
    if SRV is not None:
        SRV.cleanup()
    if ENV is not None:
        ENV.cleanup()


# -- tickets --------------------------------------------------------------

def _cifs_cred(cc, prefix=b"cifs/member"):
    return [c for c in cc.credentials
            if c["server"].prettyPrint().startswith(prefix)][0]


def _member_key(etype):
    """The member's key of that enctype, from its keytab."""
    from impacket.krb5.keytab import Keytab
    from impacket.krb5.crypto import Key
    for e in Keytab.loadFile(ENV.keytab).entries:
        kb = e.main_part["keyblock"]
        if kb["keytype"] == etype:
            return Key(etype, kb["keyvalue"]["data"])
    raise AssertionError("no key of enctype %d in the keytab" % etype)


def _pac_buffer(pac, ptype):
    n = struct.unpack("<I", pac[:4])[0]
    for i in range(n):
        t, ln, off = struct.unpack("<IIQ", pac[8 + 16 * i:24 + 16 * i])
        if t == ptype:
            return off, ln
    raise AssertionError("no PAC buffer %d" % ptype)


def doctored(mode):
    """A copy of alice's ccache whose cifs/member ticket is changed as
    mode says (see the module comment); its path."""
    from pyasn1.codec.der import decoder, encoder
    from impacket.krb5.ccache import CCache, CountedOctetString
    from impacket.krb5.asn1 import Ticket, EncTicketPart, AD_IF_RELEVANT
    from impacket.krb5.crypto import _enctype_table
    from impacket.krb5.types import KerberosTime
    from impacket.krb5.constants import AuthorizationDataType as ADT

    src = ENV.kinit("alice", ccache=ENV.path("ccache.krb5-%s" % mode))
    ENV.service_ticket(src)
    cc = CCache.loadFile(src)
    cred = _cifs_cred(cc)
    out = ENV.path("ccache.doctored-%s" % mode)
    if mode == "other-service":
        ENV.service_ticket(src, "cifs/dc1.smbng.test")
        other = _cifs_cred(CCache.loadFile(src), b"cifs/dc1")
        cred.ticket = other.ticket
        cred.header["key"] = other.header["key"]
        cc.saveFile(out)
        return out
    tkt = decoder.decode(cred.ticket["data"], asn1Spec=Ticket())[0]
    etype = int(tkt["enc-part"]["etype"])
    key = _member_key(etype)
    cipher = _enctype_table[etype]
    etp = decoder.decode(cipher.decrypt(key, 2,
                                        tkt["enc-part"]["cipher"].asOctets()),
                         asn1Spec=EncTicketPart())[0]

    def edit_pac(fn):
        ad = etp["authorization-data"]
        for i in range(len(ad)):
            if int(ad[i]["ad-type"]) != ADT.AD_IF_RELEVANT.value:
                continue
            inner = decoder.decode(ad[i]["ad-data"].asOctets(),
                                   asn1Spec=AD_IF_RELEVANT())[0]
            for j in range(len(inner)):
                if int(inner[j]["ad-type"]) == ADT.AD_WIN2K_PAC.value:
                    new = fn(bytearray(inner[j]["ad-data"].asOctets()))
                    if new is None:
                        # no PAC: an empty AD-IF-RELEVANT in its place
                        inner[j]["ad-type"] = ADT.AD_IF_RELEVANT.value
                        inner[j]["ad-data"] = encoder.encode(
                            AD_IF_RELEVANT())
                    else:
                        inner[j]["ad-data"] = bytes(new)
                    ad[i]["ad-data"] = encoder.encode(inner)
                    return
        raise AssertionError("no PAC in alice's ticket")

    if mode == "expired":
        past = datetime.datetime.utcnow() - datetime.timedelta(hours=2)
        etp["endtime"] = KerberosTime.to_asn1(past)
        earlier = past - datetime.timedelta(hours=1)
        etp["starttime"] = KerberosTime.to_asn1(earlier)
        etp["authtime"] = KerberosTime.to_asn1(earlier)
    elif mode == "pac-sig":
        def flip_sig(pac):
            off, ln = _pac_buffer(pac, 6)   # server checksum
            pac[off + ln - 1] ^= 0x01
            return pac
        edit_pac(flip_sig)
    elif mode == "pac-tamper":
        def to_admins(pac):
            off, ln = _pac_buffer(pac, 1)   # logon info
            i = bytes(pac[off:off + ln]).find(struct.pack("<I", 513))
            assert i > 0
            pac[off + i:off + i + 4] = struct.pack("<I", 512)
            return pac
        edit_pac(to_admins)
    elif mode == "no-pac":
        edit_pac(lambda pac: None)
    else:
        raise AssertionError(mode)
    tkt["enc-part"]["cipher"] = cipher.encrypt(key, 2, encoder.encode(etp),
                                               None)
    data = encoder.encode(tkt)
    t = CountedOctetString()
    t["length"] = len(data)
    t["data"] = data
    cred.ticket = t
    cc.saveFile(out)
    return out


# -- clients --------------------------------------------------------------

class Krb5Client:
    """impacket Kerberos logons from a ccache's cifs/ ticket as it is;
    remembers the SESSION_SETUP blobs it sends."""

    def __init__(self, ccache):
        from impacket.krb5.ccache import CCache
        self.tgs = _cifs_cred(CCache.loadFile(ccache)).toTGS()
        self.blobs = []

    def logon(self):
        from impacket import smb3
        from impacket.smb3structs import SMB2_SESSION_SETUP
        from impacket.smbconnection import SMBConnection, SessionError
        blobs = self.blobs
        orig = smb3.SMB3.sendSMB

        def send(conn, packet):
            if packet["Command"] == SMB2_SESSION_SETUP:
                blobs.append(bytes(packet["Data"]["Buffer"]))
            return orig(conn, packet)
        smb3.SMB3.sendSMB = send
        try:
            c = SMBConnection(MEMBER_FQDN, MEMBER_IP, sess_port=SRV.port,
                              timeout=NET_TIMEOUT)
            try:
                c.kerberosLogin("alice", "", domain=REALM, TGS=self.tgs)
                return OK
            except SessionError as e:
                return e.getErrorCode()
            finally:
                c.close()
        finally:
            smb3.SMB3.sendSMB = orig


def raw_session_setup(blob):
    """One SESSION_SETUP with this security blob on a new connection;
    the status."""
    from impacket import smb3
    from impacket.smb3structs import SMB2SessionSetup, SMB2_SESSION_SETUP
    c = smb3.SMB3(MEMBER_FQDN, MEMBER_IP, sess_port=SRV.port,
                  timeout=NET_TIMEOUT)
    try:
        s = SMB2SessionSetup()
        s["Flags"] = 0
        s["SecurityMode"] = 1
        s["Capabilities"] = 0
        s["SecurityBufferLength"] = len(blob)
        s["Buffer"] = blob
        p = c.SMB_PACKET()
        p["Command"] = SMB2_SESSION_SETUP
        p["Data"] = s
        return c.recvSMB(c.sendSMB(p))["Status"]
    finally:
        c.close_session()


def name(status):
    from impacket import nt_errors
    return nt_errors.ERROR_MESSAGES.get(status, ("0x%08x" % status,))[0]


class TestBadKerberos(unittest.TestCase):

    def expect(self, got, ours, samba=None, what=""):
        """ours: what this server answers; samba: Samba 4.17's answer
        where it differs."""
        want = samba if (samba is not None and SRV.samba) else ours
        sys.stderr.write("  %-14s %s: %s\n" % (what, "samba" if SRV.samba
                                               else "ours ", name(got)))
        self.assertEqual(got, want, "%s: %s, want %s" %
                         (what, name(got), name(want)))

    def logon(self, mode):
        return Krb5Client(doctored(mode)).logon()

    def test_good_ticket(self):
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb5-good"))
        ENV.service_ticket(cc)
        self.expect(Krb5Client(cc).logon(), OK, what="good")

    def test_expired(self):
        self.expect(self.logon("expired"), LOGON_FAILURE, what="expired")

    def test_pac_bad_signature(self):
        self.expect(self.logon("pac-sig"), LOGON_FAILURE, what="pac-sig")

    def test_pac_tampered(self):
        self.expect(self.logon("pac-tamper"), LOGON_FAILURE,
                    what="pac-tamper")

    def test_no_pac(self):
        self.expect(self.logon("no-pac"), NO_IMPERSONATION_TOKEN,
                    what="no-pac")

    def test_other_service(self):
        self.expect(self.logon("other-service"), LOGON_FAILURE,
                    what="other-service")

    def test_replayed_authenticator(self):
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb5-replay"))
        ENV.service_ticket(cc)
        k = Krb5Client(cc)
        self.assertEqual(k.logon(), OK)
        self.expect(raw_session_setup(k.blobs[0]), LOGON_FAILURE,
                    samba=OK, what="replay")

    def test_truncated_ap_req(self):
        from impacket.spnego import SPNEGO_NegTokenInit
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb5-trunc"))
        ENV.service_ticket(cc)
        k = Krb5Client(cc)
        self.assertEqual(k.logon(), OK)
        tok = SPNEGO_NegTokenInit(k.blobs[0])
        tok["MechToken"] = tok["MechToken"][:-40]
        self.expect(raw_session_setup(tok.getData()), LOGON_FAILURE,
                    samba=MORE_PROCESSING, what="truncated")


class TestEncryption(unittest.TestCase):
    """MS-SMB2 3.3.5.5.3: with an AES-256 cipher, 3.1.1's cipher keys
    come from the whole GSS session key (Session.FullSessionKey: the 32
    bytes of an AES256 subkey), not from its first 16 bytes."""

    def test_kerberos_aes256_encryption(self):
        for alg in ("AES-256-GCM", "AES-256-CCM", "AES-128-GCM"):
            rc, out = ENV.smbclient(
                "open", "ls", user="alice", kerberos=True, port=SRV.port,
                extra=["--client-protection=encrypt",
                       "--option=client smb3 encryption algorithms=%s" %
                       alg])
            self.assertEqual(rc, 0, "%s: %s" % (alg, out))


class TestWinbinddDown(unittest.TestCase):
    """winbindd's socket moved away (libwbclient finds no winbindd), then
    back: the domain's logons fail cleanly, the server keeps serving."""

    def test_no_winbindd(self):
        pipe = os.path.join(ENV.winbindd_socket_dir, "pipe")
        cc = ENV.kinit("alice", ccache=ENV.path("ccache.krb5-nowb"))
        ENV.service_ticket(cc)
        os.rename(pipe, pipe + ".away")
        try:
            krb = Krb5Client(cc).logon()
            rc, out = ENV.smbclient("open", "ls", user="bob",
                                    port=SRV.port)
        finally:
            os.rename(pipe + ".away", pipe)
        sys.stderr.write("  no winbindd: kerberos %s, ntlm %s\n" %
                         (name(krb), ad_env.nt_status(out)))
        self.assertEqual(krb, NO_LOGON_SERVERS)
        self.assertEqual(ad_env.nt_status(out), "NT_STATUS_NO_LOGON_SERVERS")
        # and with winbindd back, the same logons work
        self.assertEqual(Krb5Client(cc).logon(), OK)
        rc, out = ENV.smbclient("open", "ls", user="bob", port=SRV.port)
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    h.main()
