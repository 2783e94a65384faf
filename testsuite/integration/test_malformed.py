#!/usr/bin/python3
"""Malformed input on the wire: the server rejects it and keeps serving.

Each case sends one bad thing on a fresh connection and accepts either of
two outcomes: the server closes that connection, or it answers with an
error (MS-SMB2 3.3.5.4: STATUS_INVALID_PARAMETER for a bad NEGOTIATE).  It
must not hang (a reply or a close within the timeout), the NEXT connection
must still negotiate, and the server process must still be alive.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import random
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

REPLY_TIMEOUT = 5.0


class Malformed:

    def reject(self, data, statuses=None, shut_wr=False):
        """Send data on a new connection; assert a close or an error
        response (with a status in `statuses` when given); then assert
        the server still serves."""
        with self.smbd.connect(timeout=REPLY_TIMEOUT) as c:
            c.send_raw(data)
            if shut_wr:
                c.sock.shutdown(socket.SHUT_WR)
            try:
                pdu = c.recv()
            except h.ConnectionClosed:
                pdu = None
            except socket.timeout:
                self.fail("server neither answered nor closed within "
                          "%.0f s" % REPLY_TIMEOUT)
        if pdu is not None:
            r = h.Smb2Response(pdu)
            self.assertNotEqual(r.status, h.STATUS_SUCCESS,
                                "malformed request answered with success")
            if statuses:
                self.assertIn(r.status, statuses,
                              "status %#x" % r.status)
        self.server_alive()
        self.assert_negotiates()
        self.server_alive()

    def test_random_stream(self):
        rnd = random.Random(1)
        junk = bytes(rnd.getrandbits(8) for _ in range(4096))
        self.reject(junk, shut_wr=True)

    def test_random_framed(self):
        # well-framed, but the payload is no SMB
        rnd = random.Random(2)
        for n in (1, 3, 63, 64, 200, 5000):
            payload = bytes(rnd.getrandbits(8) for _ in range(n))
            if payload[:1] in (b"\xfe", b"\xff", b"\xfd", b"\xfc"):
                payload = b"\x00" + payload[1:]
            self.reject(h.netbios(payload))

    def test_random_after_smb2_magic(self):
        # a protocol id that looks right, then garbage
        rnd = random.Random(3)
        for n in (4, 20, 63, 100):
            payload = b"\xfeSMB" + bytes(rnd.getrandbits(8)
                                         for _ in range(n))
            self.reject(h.netbios(payload))

    def test_netbios_length_over_maximum(self):
        # 0xFFFFFF is far beyond MaxTransact + headers: refuse at once
        # instead of waiting for (or buffering) 16 MiB
        if self.smbd.samba:
            self.skipTest("Samba waits for the 16 MiB (we are stricter)")
        self.reject(struct.pack(">I", 0x00FFFFFF) + b"\xfeSMB" + b"\0" * 60)

    def test_netbios_length_over_maximum_then_data(self):
        self.reject(struct.pack(">I", 0x00F00000) + os.urandom(65536))

    def test_truncated_negotiate(self):
        full = h.negotiate_request()
        for cut in (64, 66, 70, 90, 64 + 36, 64 + 36 + 4):
            self.reject(h.netbios(full[:cut]),
                        statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_truncated_header(self):
        full = h.negotiate_request()
        for cut in (4, 10, 32, 63):
            self.reject(h.netbios(full[:cut]))

    def test_bogus_body_structure_size(self):
        for ssize in (0, 35, 37, 0xFFFF):
            self.reject(h.netbios(h.negotiate_request(
                structure_size=ssize)),
                statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_bogus_header_structure_size(self):
        hdr = h.smb2_header(h.SMB2_NEGOTIATE, structure_size=63)
        body = h.negotiate_request()[64:]
        self.reject(h.netbios(hdr + body))

    def test_zero_dialects(self):
        self.reject(h.netbios(h.negotiate_request(dialects=())),
                    statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_dialect_count_beyond_end(self):
        self.reject(h.netbios(h.negotiate_request(
            dialects=(h.DIALECT_202,), dialect_count=200)),
            statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_negotiate_context_beyond_end(self):
        req = bytearray(h.negotiate_request((h.DIALECT_311,)))
        # NegotiateContextOffset (body offset 28) far past the end
        struct.pack_into("<I", req, 64 + 28, 0x10000)
        self.reject(h.netbios(bytes(req)),
                    statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_negotiate_context_length_beyond_end(self):
        ctx = struct.pack("<HHI", h.PREAUTH_INTEGRITY_CAPABILITIES, 4000,
                          0) + b"\x01\x00\x20\x00\x01\x00"
        self.reject(h.netbios(h.negotiate_request(
            (h.DIALECT_311,), contexts=[ctx])),
            statuses=(h.STATUS_INVALID_PARAMETER,))

    def test_next_command_beyond_end(self):
        # 3.3.5.2.7: NextCommand must stay inside the message
        for nxt in (8, 0x48, 0x1000, 0xFFFFFFF8):
            req = bytearray(h.negotiate_request())
            struct.pack_into("<I", req, 20, nxt)
            self.reject(h.netbios(bytes(req)))

    def test_request_before_negotiate(self):
        # ECHO and SESSION_SETUP before NEGOTIATE (3.3.5.2.x): refused
        self.reject(h.netbios(h.echo_request(0)))
        self.reject(h.netbios(h.smb2_header(h.SMB2_SESSION_SETUP) +
                              b"\x19\x00" + b"\0" * 23))

    def test_second_negotiate(self):
        # 3.3.5.3.1: a NEGOTIATE on a negotiated connection: disconnect
        with self.smbd.connect(timeout=REPLY_TIMEOUT) as c:
            self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)
            c.send(h.negotiate_request(message_id=1))
            try:
                r = h.Smb2Response(c.recv())
                self.assertNotEqual(r.status, h.STATUS_SUCCESS)
            except h.ConnectionClosed:
                pass
        self.server_alive()
        self.assert_negotiates()

    def test_half_open_clients(self):
        # connections that send nothing or half a header, then vanish
        for data in (b"", b"\x00", b"\x00\x00\x00\x50\xfeSMB"):
            c = self.smbd.connect()
            if data:
                c.send_raw(data)
            c.close()
        self.server_alive()
        self.assert_negotiates()


h.backend_variants(globals(), Malformed)

if __name__ == "__main__":
    h.main()
