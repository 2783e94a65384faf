#!/usr/bin/python3
"""Whose order picks the cipher and the signing algorithm (MS-SMB2
3.3.5.4: the server chooses among what the client offers), ours and
Samba's side by side.

Samba's `server smb3 encryption algorithms` and `server smb3 signing
algorithms` (smb.conf(5)) list what is allowed, most preferred first:
the server's order wins, so a client that lists AES-128-CCM before
AES-128-GCM still gets GCM by default, and CCM when the server lists it
first.  Samba's "-NAME" / "+NAME" edits change the default list.  The
algorithm a dialect must use has to be allowed, or its NEGOTIATE fails
with INVALID_PARAMETER: AES-128-CCM for 3.0.x encryption, AES-128-CMAC
for 3.0.x signing (and 3.1.1 signing when nothing else is in common),
HMAC-SHA256 for 2.x.  One difference, on purpose: with every cipher
taken out, Samba 4.17 refuses every NEGOTIATE; ours negotiates without
encryption.

The last test encrypts for real with the cipher chosen (smb3client.py
speaks AES-128-GCM and AES-128-CCM), against `server smb encrypt =
required`.

SMBD=/usr/sbin/smbd runs the same against Samba.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

GCM, CCM = h.CIPHER_AES128_GCM, h.CIPHER_AES128_CCM
HMAC, CMAC, GMAC = 0, 1, 2
ENC = "server smb3 encryption algorithms"
SIGN = "server smb3 signing algorithms"
INVALID = h.STATUS_INVALID_PARAMETER
NONE = "absent"     # the context is not in the response


def signing_context(algos):
    return h.negotiate_context(h.SIGNING_CAPABILITIES, struct.pack(
        "<%dH" % (len(algos) + 1), len(algos), *algos))


# What the client sends: 3.1.1 with AES-128-CCM before AES-128-GCM and
# AES-CMAC before AES-GMAC (or no signing context, or CMAC only), 3.0
# with and without the ENCRYPTION capability, 2.1, and all of 2.0.2,
# 2.1 and 3.0 with it.
CLIENTS = {
    "311": ((h.DIALECT_311,), (CCM, GCM), (CMAC, GMAC), h.CAP_ENCRYPTION),
    "311 nosign": ((h.DIALECT_311,), (CCM, GCM), None, h.CAP_ENCRYPTION),
    "311 cmac": ((h.DIALECT_311,), (CCM, GCM), (CMAC,), h.CAP_ENCRYPTION),
    "300 enc": ((h.DIALECT_300,), None, None, h.CAP_ENCRYPTION),
    "300": ((h.DIALECT_300,), None, None, 0),
    "210": ((h.DIALECT_210,), None, None, 0),
    "202-300 enc": ((h.DIALECT_202, h.DIALECT_210, h.DIALECT_300), None,
                    None, h.CAP_ENCRYPTION),
}


class CipherChoice(h.SmbdTestCase):
    start_server = False

    def answers(self, options, clients):
        """{client: (status, dialect, cipher, signing algorithm)} from a
        server started with options."""
        srv = self.new_server(global_options=options)
        self.addCleanup(srv.cleanup)
        srv.start()
        out = {}
        for name in clients:
            dialects, ciphers, signs, caps = CLIENTS[name]
            ctx = None
            if h.DIALECT_311 in dialects:
                ctx = [h.preauth_context(), h.encryption_context(ciphers)]
                if signs is not None:
                    ctx.append(signing_context(signs))
            with srv.connect() as c:
                c.send(h.negotiate_request(dialects, contexts=ctx,
                                           capabilities=caps))
                r = h.parse_negotiate_response(c.recv())
            if r["status"] != 0:
                out[name] = (r["status"],)
                continue
            got = []
            for t in (h.ENCRYPTION_CAPABILITIES, h.SIGNING_CAPABILITIES):
                data = r["contexts"].get(t)
                got.append(struct.unpack_from("<H", data[0], 2)[0]
                           if data else NONE)
            out[name] = (0, r["dialect"]) + tuple(got)
        return out

    def check(self, options, want):
        got = self.answers(options, want)
        self.assertEqual(got, want, "with %r" % (options,))

    def test_default_order(self):
        """The client's CCM-first order loses to the server's default
        GCM-first one, its CMAC-first to GMAC-first."""
        self.check({}, {
            "311": (0, h.DIALECT_311, GCM, GMAC),
            "311 nosign": (0, h.DIALECT_311, GCM, NONE),
            "311 cmac": (0, h.DIALECT_311, GCM, CMAC),
            "300 enc": (0, h.DIALECT_300, NONE, NONE),
        })

    def test_server_lists_ccm_first(self):
        want = {"311": (0, h.DIALECT_311, CCM, GMAC),
                "311 nosign": (0, h.DIALECT_311, CCM, NONE)}
        self.check({ENC: "AES-128-CCM, AES-128-GCM"}, want)
        # the same through Samba's edit of the default list
        self.check({ENC: "-AES-128-GCM"}, want)

    def test_server_signing_order(self):
        self.check({SIGN: "HMAC-SHA256, AES-128-CMAC, AES-128-GMAC"}, {
            "311": (0, h.DIALECT_311, GCM, CMAC),
            "210": (0, h.DIALECT_210, NONE, NONE),
        })

    def test_no_common_cipher(self):
        """Nothing in common: cipher 0 (no encryption), the rest goes on;
        3.0 encryption needs AES-128-CCM."""
        self.check({ENC: "AES-256-GCM"}, {
            "311": (0, h.DIALECT_311, 0, GMAC),
            "300 enc": (INVALID,),
            "300": (0, h.DIALECT_300, NONE, NONE),
            "202-300 enc": (INVALID,),
        })

    def test_without_ccm(self):
        self.check({ENC: "-AES-128-CCM"}, {
            "311": (0, h.DIALECT_311, GCM, GMAC),
            "300 enc": (INVALID,),
            "300": (0, h.DIALECT_300, NONE, NONE),
            "210": (0, h.DIALECT_210, NONE, NONE),
            "202-300 enc": (INVALID,),
        })

    def test_without_cmac(self):
        self.check({SIGN: "-AES-128-CMAC"}, {
            "311": (0, h.DIALECT_311, GCM, GMAC),
            "311 nosign": (INVALID,),
            "311 cmac": (INVALID,),
            "300": (INVALID,),
            "210": (0, h.DIALECT_210, NONE, NONE),
        })

    def test_without_hmac(self):
        self.check({SIGN: "-HMAC-SHA256"}, {
            "311": (0, h.DIALECT_311, GCM, GMAC),
            "300 enc": (0, h.DIALECT_300, NONE, NONE),
            "210": (INVALID,),
            "202-300 enc": (0, h.DIALECT_300, NONE, NONE),
        })

    def test_no_cipher_at_all(self):
        clients = ("311", "300 enc", "300", "210")
        got = self.answers({ENC: "-AES-128-GCM -AES-128-CCM -AES-256-GCM "
                                 "-AES-256-CCM"}, clients)
        if h.is_samba():
            # Samba 4.17 finds no cipher allowed, not even none
            self.assertEqual(got, {c: (INVALID,) for c in clients})
            return
        self.assertEqual(got, {
            "311": (0, h.DIALECT_311, 0, GMAC),
            "300 enc": (INVALID,),
            "300": (0, h.DIALECT_300, NONE, NONE),
            "210": (0, h.DIALECT_210, NONE, NONE),
        })


class EncryptedWithChoice(h.TestUser, h.SmbdTestCase):
    """The cipher the server picked is the one it encrypts with."""
    global_options = {"server smb encrypt": "required",
                      ENC: "AES-128-CCM, AES-128-GCM"}

    def test_roundtrip(self):
        import smb3client as c
        for offer, want in (((GCM, CCM), CCM), ((GCM,), GCM)):
            cl = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                          algorithms=None, encrypt=True, ciphers=offer)
            self.addCleanup(cl.disconnect)
            self.assertEqual(cl.cipher, want, "offered %r" % (offer,))
            cl.tree_connect("share")
            data = os.urandom(70000)
            fid = cl.create("enc_%d.bin" % want)
            self.assertEqual(cl.write(fid, 0, data), len(data))
            self.assertEqual(cl.read(fid, 0, len(data),
                                     request_compressed=False), data)
            cl.close(fid)
            with open(self.share_path("enc_%d.bin" % want), "rb") as f:
                self.assertEqual(f.read(), data)


if __name__ == "__main__":
    h.main()
