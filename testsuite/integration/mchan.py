"""A multichannel client for the tests and the benchmark: impacket 0.10
logs on over one connection, then further connections bind to the same
session (MS-SMB2 3.2.4.1.7, SESSION_SETUP with SMB2_SESSION_FLAG_BINDING
signed with the session's key; the channel's own signing key from the
binding's NTLMSSP session key, 3.2.5.3.1).  impacket has no binding of
its own, so this does it through impacket's pieces (NTLMSSP, SPNEGO, the
SMB2 structures, the KDF), for dialect 3.0.2, where the keys need no
preauth hash.  impacket encrypts a 3.x session whenever the server can;
here only with encrypt=True (else signed: the binding needs the key).

Every channel is an impacket SMB3 whose session state is the session's,
with its own signing key, so impacket's read()/write() work on it with
the FileIds and TreeIds of the first connection.

The ClientGuid is the same on every channel unless same_guid=False
(then each connection has its own, as smbtorture's *d tests do).
"""

import random

from impacket import ntlm
from impacket import crypto
from impacket.smb3 import SMB3
from impacket.smb3structs import (SMB2SessionSetup, SMB2_SESSION_SETUP,
                                  SMB2_DIALECT_302, SMB2_FLAGS_SIGNED,
                                  SMB2_NEGOTIATE_SIGNING_REQUIRED)
from impacket.smbconnection import SMBConnection
from impacket.spnego import SPNEGO_NegTokenInit, SPNEGO_NegTokenResp, \
    TypesMech

SMB2_SESSION_FLAG_BINDING = 0x01
STATUS_MORE_PROCESSING_REQUIRED = 0xC0000016
STATUS_SUCCESS = 0


class BindError(Exception):
    def __init__(self, status):
        super().__init__("binding failed: 0x%08x" % status)
        self.status = status


def _raw(port, guid_seed, timeout):
    # impacket draws the ClientGuid from `random` when the SMB3 is made
    state = random.getstate()
    if guid_seed is not None:
        random.seed(guid_seed)
    try:
        return SMB3("127.0.0.1", "127.0.0.1", sess_port=port,
                    timeout=timeout, preferredDialect=SMB2_DIALECT_302)
    finally:
        random.setstate(state)


class Session:
    """One session over one or more channels (index 0: the first)."""

    def __init__(self, port, user, password, timeout=30, same_guid=True,
                 encrypt=False):
        self.port = port
        self.user = user
        self.password = password
        self.timeout = timeout
        self.guid_seed = random.getrandbits(64) if same_guid else None
        raw = _raw(port, self.guid_seed, timeout)
        # impacket encrypts every 3.x session whose server can; the
        # tests and the benchmark want signing only, unless asked
        if not encrypt:
            raw._Connection['SupportsEncryption'] = False
        self.first = SMBConnection(existingConnection=raw)
        self.first.login(user, password)
        self.channels = [raw]

    def bind(self):
        """A new connection bound to the session: its SMB3, usable with
        the session's TreeIds and FileIds."""
        first = self.channels[0]
        ch = _raw(self.port, self.guid_seed, self.timeout)
        s = ch._Session
        main = first._Session
        # the binding is signed with the session's key (3.2.4.1.7)
        s['SessionID'] = main['SessionID']
        s['SessionKey'] = main['SessionKey']
        s['SigningKey'] = main['SigningKey']
        s['SigningRequired'] = True
        s['SigningActivated'] = True
        auth = ntlm.getNTLMSSPType1('', '', True)
        blob = SPNEGO_NegTokenInit()
        blob['MechTypes'] = [TypesMech['NTLMSSP - Microsoft NTLM Security '
                                       'Support Provider']]
        blob['MechToken'] = auth.getData()
        ans = self._setup(ch, blob.getData())
        if ans['Status'] != STATUS_MORE_PROCESSING_REQUIRED:
            ch.close_session()
            raise BindError(ans['Status'])
        resp = SPNEGO_NegTokenResp(self._blob(ans))
        type3, key = ntlm.getNTLMSSPType3(auth, resp['ResponseToken'],
                                          self.user, self.password, '',
                                          '', '')
        tok = SPNEGO_NegTokenResp()
        tok['ResponseToken'] = type3.getData()
        ans = self._setup(ch, tok.getData())
        if ans['Status'] != STATUS_SUCCESS:
            ch.close_session()
            raise BindError(ans['Status'])
        # Channel.SigningKey from this authentication's key (3.0.2)
        s['SessionKey'] = key
        s['SigningKey'] = crypto.KDF_CounterMode(key, b"SMB2AESCMAC\x00",
                                                 b"SmbSign\x00", 128)
        s['SessionFlags'] = main['SessionFlags']
        # the session's encryption keys serve every channel (3.2.5.3.1)
        for k in ('EncryptionKey', 'DecryptionKey', 'ApplicationKey'):
            s[k] = main[k]
        s['TreeConnectTable'] = main['TreeConnectTable']
        s['OpenTable'] = main['OpenTable']
        ch.GlobalFileTable = first.GlobalFileTable
        self.channels.append(ch)
        return ch

    @staticmethod
    def _blob(ans):
        from impacket.smb3structs import SMB2SessionSetup_Response
        return SMB2SessionSetup_Response(ans['Data'])['Buffer']

    @staticmethod
    def _setup(ch, token):
        req = SMB2SessionSetup()
        req['Flags'] = SMB2_SESSION_FLAG_BINDING
        req['SecurityMode'] = SMB2_NEGOTIATE_SIGNING_REQUIRED
        req['SecurityBufferLength'] = len(token)
        req['Buffer'] = token
        packet = ch.SMB_PACKET()
        packet['Command'] = SMB2_SESSION_SETUP
        packet['Data'] = req
        # impacket's sendSMB signs only from the third message on: the
        # binding is signed here, as 3.2.4.1.7 wants every leg
        packet['MessageID'] = ch._Connection['SequenceWindow']
        ch._Connection['SequenceWindow'] += 1
        packet['SessionID'] = ch._Session['SessionID']
        packet['CreditCharge'] = 1
        packet['CreditRequestResponse'] = 127
        packet['Flags'] = SMB2_FLAGS_SIGNED
        ch.signSMB(packet)
        ch._NetBIOSSession.send_packet(packet.getData())
        return ch.recvSMB(packet['MessageID'])

    def close(self):
        for ch in self.channels:
            try:
                ch.close_session()
            except Exception:
                pass
