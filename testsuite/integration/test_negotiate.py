#!/usr/bin/python3
"""NEGOTIATE and ECHO against a running server (MS-SMB2 3.3.5.3, 3.3.5.4).

Dialect selection with impacket (each of 2.0.2 .. 3.1.1), the protocol
range parameters, the SMB1 multi-protocol negotiate that upgrades to SMB2,
3.1.1 negotiate contexts, the 8 MiB I/O limits, the persistent server GUID
and ECHO; raw packets (smbd_harness) where impacket hides the fields.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

from impacket.smb3 import SMB3  # noqa: E402

EIGHT_MIB = 8 * 1024 * 1024


class Negotiate:
    """Tests on the class's default server."""

    def impacket_dialect(self, dialect):
        # impacket.smb3.SMB3 (smbconnection refuses to ask for 3.0.2)
        conn = SMB3("127.0.0.1", "127.0.0.1", sess_port=self.smbd.port,
                    timeout=h.NET_TIMEOUT, preferredDialect=dialect)
        try:
            return conn.getDialect()
        finally:
            conn.close_session()

    def test_dialect_202(self):
        self.assertEqual(self.impacket_dialect(h.DIALECT_202),
                         h.DIALECT_202)

    def test_dialect_210(self):
        self.assertEqual(self.impacket_dialect(h.DIALECT_210),
                         h.DIALECT_210)

    def test_dialect_300(self):
        self.assertEqual(self.impacket_dialect(h.DIALECT_300),
                         h.DIALECT_300)

    def test_dialect_302(self):
        self.assertEqual(self.impacket_dialect(h.DIALECT_302),
                         h.DIALECT_302)

    def test_dialect_311(self):
        self.assertEqual(self.impacket_dialect(h.DIALECT_311),
                         h.DIALECT_311)

    def test_highest_common_dialect(self):
        # 3.3.5.4: the greatest dialect both sides support
        r = self.assert_negotiates()
        self.assertEqual(r["dialect"], h.DIALECT_311)
        r = self.assert_negotiates(dialects=(h.DIALECT_202, h.DIALECT_300,
                                             h.DIALECT_210))
        self.assertEqual(r["dialect"], h.DIALECT_300)

    def test_response_fields(self):
        r = self.assert_negotiates()
        self.assertEqual(r["structure_size"], 65)
        self.assertGreaterEqual(r["credits"], 1)
        self.assertNotEqual(r["system_time"], 0)
        # a GSS token (SPNEGO negTokenInit) for the client to start with
        self.assertGreater(len(r["security_buffer"]), 0)
        self.assertEqual(r["security_buffer"][0], 0x60)

    def test_limits_8mib(self):
        # 2.1 and later: MaxTransact/MaxRead/MaxWrite are 8 MiB
        for d in (h.DIALECT_210, h.DIALECT_300, h.DIALECT_302,
                  h.DIALECT_311):
            r = self.assert_negotiates(dialects=(d,))
            self.assertEqual(r["dialect"], d)
            for k in ("max_transact", "max_read", "max_write"):
                self.assertEqual(r[k], EIGHT_MIB, "%s for %#x" % (k, d))

    def test_limits_202(self):
        # 2.0.2 has no multi-credit requests: 64 KiB at most (3.3.5.4)
        r = self.assert_negotiates(dialects=(h.DIALECT_202,))
        for k in ("max_transact", "max_read", "max_write"):
            self.assertLessEqual(r[k], 65536, k)
            self.assertGreater(r[k], 0, k)

    def test_contexts_311(self):
        # 3.3.5.4: preauth integrity (SHA-512, a salt) and the chosen cipher
        offered = (h.CIPHER_AES128_GCM, h.CIPHER_AES128_CCM)
        with self.smbd.connect() as c:
            r = c.negotiate((h.DIALECT_311,), contexts=[
                h.preauth_context(), h.encryption_context(offered)])
        self.assertEqual(r["status"], h.STATUS_SUCCESS)
        self.assertEqual(r["dialect"], h.DIALECT_311)
        # 2.2.4: offset from the SMB2 header to the first, 8-byte-aligned
        # context (the 4-byte transport header does not count)
        self.assertEqual(r["context_offset"] % 8, 0,
                         "NegotiateContextOffset %d not 8-byte aligned" %
                         r["context_offset"])
        ctx = r["contexts"]
        self.assertEqual(len(ctx.get(h.PREAUTH_INTEGRITY_CAPABILITIES, [])),
                         1)
        pa = ctx[h.PREAUTH_INTEGRITY_CAPABILITIES][0]
        count, salt_len, alg = struct.unpack_from("<HHH", pa, 0)
        self.assertEqual((count, alg), (1, h.HASH_SHA512))
        self.assertEqual(len(pa), 6 + salt_len)
        self.assertEqual(len(ctx.get(h.ENCRYPTION_CAPABILITIES, [])), 1)
        enc = ctx[h.ENCRYPTION_CAPABILITIES][0]
        count, cipher = struct.unpack_from("<HH", enc, 0)
        self.assertEqual(count, 1)
        self.assertIn(cipher, offered)
        self.assertTrue(r["capabilities"] & h.CAP_ENCRYPTION == 0,
                        "3.1.1 signals encryption by context, not the "
                        "capability bit (2.2.4)")

    def test_signing_context_311(self):
        # 3.3.5.4: SIGNING_CAPABILITIES answered with one offered algorithm
        offered = (2, 1, 0)     # AES-GMAC, AES-CMAC, HMAC-SHA256
        sig = h.negotiate_context(h.SIGNING_CAPABILITIES,
                                  struct.pack("<4H", 3, *offered))
        with self.smbd.connect() as c:
            r = c.negotiate((h.DIALECT_311,), contexts=[
                h.preauth_context(), h.encryption_context(), sig])
        self.assertEqual(r["status"], h.STATUS_SUCCESS)
        got = r["contexts"].get(h.SIGNING_CAPABILITIES, [])
        self.assertEqual(len(got), 1, "no signing context in the response")
        count, alg = struct.unpack_from("<HH", got[0], 0)
        self.assertEqual(count, 1)
        self.assertIn(alg, offered)

    def test_311_without_preauth_refused(self):
        # 3.3.5.4: no PREAUTH_INTEGRITY context -> STATUS_INVALID_PARAMETER
        with self.smbd.connect() as c:
            c.send(h.negotiate_request((h.DIALECT_311,),
                                       contexts=[h.encryption_context()]))
            try:
                r = h.parse_negotiate_response(c.recv())
            except h.ConnectionClosed:
                return
        self.assertEqual(r["status"], h.STATUS_INVALID_PARAMETER)
        self.server_alive()

    def test_smb1_negotiate_wildcard(self):
        # 3.3.5.3.1: "SMB 2.???" offered -> SMB2 response, dialect 0x02FF,
        # then the client negotiates again with SMB2 on the same connection
        with self.smbd.connect() as c:
            c.send(h.smb1_negotiate_request())
            r = h.parse_negotiate_response(c.recv())
            self.assertEqual(r["status"], h.STATUS_SUCCESS)
            self.assertEqual(r["dialect"], h.DIALECT_WILDCARD)
            self.assertEqual(r["message_id"], 0)
            c.next_mid = 1
            r = c.negotiate()
            self.assertEqual(r["status"], h.STATUS_SUCCESS)
            self.assertEqual(r["dialect"], h.DIALECT_311)

    def test_smb1_negotiate_202(self):
        # only "SMB 2.002" among SMB2 strings -> dialect 0x0202 directly
        with self.smbd.connect() as c:
            c.send(h.smb1_negotiate_request(("NT LM 0.12", "SMB 2.002")))
            r = h.parse_negotiate_response(c.recv())
            self.assertEqual(r["status"], h.STATUS_SUCCESS)
            self.assertEqual(r["dialect"], h.DIALECT_202)
            c.next_mid = 1
            self.assertEqual(c.echo(), h.STATUS_SUCCESS)

    def test_server_guid_same_on_two_connections(self):
        a = self.assert_negotiates()["server_guid"]
        b = self.assert_negotiates()["server_guid"]
        self.assertEqual(a, b)
        self.assertNotEqual(a, b"\0" * 16)

    def test_echo(self):
        with self.smbd.connect() as c:
            self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)
            for _ in range(3):
                self.assertEqual(c.echo(), h.STATUS_SUCCESS)

    def test_io_backend_logged(self):
        # DESIGN.md "Fallback": the loop backend is chosen at start and
        # logged; this proves the class really runs on the backend it asks
        # for (a line naming "backend" or "loop" and io_uring/epoll)
        if self.smbd.samba:
            self.skipTest("Samba has no io backend parameter")
        self.assert_negotiates()
        rx = (r"(?im)^.*(backend|loop).*\b%s\b.*$" % self.io_backend)
        self.assertTrue(self.smbd.wait_log(rx, 5.0),
                        "no log line says the %s backend is used" %
                        self.io_backend)

    def test_many_connections(self):
        conns = [self.smbd.connect() for _ in range(20)]
        try:
            for c in conns:
                self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)
            for c in conns:
                self.assertEqual(c.echo(), h.STATUS_SUCCESS)
        finally:
            for c in conns:
                c.close()


class NegotiateConfig:
    """Tests that need their own server (protocol range, restart)."""

    start_server = False

    def test_server_max_protocol(self):
        with self.new_server(
                global_options={"server max protocol": "SMB2_10"}) as srv:
            r = self.assert_negotiates(srv)
            self.assertEqual(r["dialect"], h.DIALECT_210)
            # with only 3.x offered there is no common dialect
            with srv.connect() as c:
                c.send(h.negotiate_request((h.DIALECT_300, h.DIALECT_311)))
                try:
                    r = h.parse_negotiate_response(c.recv())
                    self.assertNotEqual(r["status"], h.STATUS_SUCCESS)
                except h.ConnectionClosed:
                    pass
            self.server_alive(srv)

    def test_server_max_protocol_alias(self):
        # Samba's names: "SMB2" is SMB2_10, "SMB3" is SMB3_11
        with self.new_server(
                global_options={"server max protocol": "SMB2"}) as srv:
            r = self.assert_negotiates(srv)
            self.assertEqual(r["dialect"], h.DIALECT_210)
        with self.new_server(
                global_options={"server max protocol": "SMB3_00"}) as srv:
            r = self.assert_negotiates(srv)
            self.assertEqual(r["dialect"], h.DIALECT_300)

    def test_server_min_protocol(self):
        with self.new_server(
                global_options={"server min protocol": "SMB3"}) as srv:
            # 3.3.5.4: no common dialect -> STATUS_NOT_SUPPORTED
            with srv.connect() as c:
                c.send(h.negotiate_request((h.DIALECT_202, h.DIALECT_210)))
                try:
                    r = h.parse_negotiate_response(c.recv())
                    self.assertEqual(r["status"], h.STATUS_NOT_SUPPORTED)
                except h.ConnectionClosed:
                    pass
            r = self.assert_negotiates(srv)
            self.assertEqual(r["dialect"], h.DIALECT_311)
            # as in Samba, "SMB3" means its newest variant, SMB3_11
            with srv.connect() as c:
                r = c.negotiate((h.DIALECT_210, h.DIALECT_300))
                self.assertEqual(r["status"], h.STATUS_NOT_SUPPORTED)
            self.server_alive(srv)

    def test_server_guid_persistent(self):
        # the GUID lives in the state directory: same after a restart
        srv = self.new_server()
        try:
            srv.start()
            a = self.assert_negotiates(srv)["server_guid"]
            srv.restart()
            b = self.assert_negotiates(srv)["server_guid"]
            self.assertEqual(a, b)
        finally:
            srv.cleanup()


h.backend_variants(globals(), Negotiate)
h.backend_variants(globals(), NegotiateConfig)

if __name__ == "__main__":
    h.main()
