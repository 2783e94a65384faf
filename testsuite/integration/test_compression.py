#!/usr/bin/python3
"""SMB 3.1.1 compression (MS-SMB2 2.2.3.1.3, 2.2.42, 3.1.4.4, 3.1.5;
MS-XCA) through a real client over TCP (smb3client.py).

- NEGOTIATE: each algorithm alone, all of them in the client's order,
  chained and not; the validation of 3.3.5.4 (no algorithm, a short
  DataLength, unknown flags: INVALID_PARAMETER); `smb3 compression = no`
  in [global] leaves the context out.
- Each algorithm alone, unchained and chained: files of zeros, text and
  random bytes written compressed and read back with
  SMB2_READFLAG_REQUEST_COMPRESSED; the files on disk are exactly what was
  written; zeros and text come back compressed, random bytes do not;
  Pattern_V1 carries the zero runs in chained mode.  Signed sessions
  (the signature covers the message before compression) and encrypted
  ones (compressed, then encrypted).
- The share's `smb3 compression`: yes compresses without the flag and sets
  SMB2_SHAREFLAG_COMPRESS_DATA; no never compresses.
- Bad input: a decompression bomb (16 MiB claimed by 100 bytes) and 100
  malformed compressed frames each drop the connection (or are refused),
  the server lives, nothing allocated past the limit (log).
- smbclient, which does not offer compression, is unaffected.
"""

import os
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
import smb3client as c  # noqa: E402

CODECS = (c.LZNT1, c.LZ77, c.LZ77_HUFFMAN, c.LZ4)
SIZE = 256 * 1024


def payloads():
    text = b"".join(b"Line %d: the quick brown fox jumps over the lazy "
                    b"dog, again and again.\n" % i for i in range(6000))
    rnd = random.Random(7)
    return {
        "zeros": b"\0" * SIZE,
        "text": text[:SIZE],
        "random": bytes(rnd.getrandbits(8) for _ in range(SIZE)),
        # a sparse file's look: zeros, data, zeros
        "holes": b"\0" * 70000 + text[:50000] + b"\0" * (SIZE - 120000),
    }


class Compression(h.TestUser):
    extra_shares = [("always", [("smb3 compression", "yes")]),
                    ("never", [("smb3 compression", "no")])]

    @classmethod
    def setUpClass(cls):
        if not os.access(c.xca_tool(), os.X_OK):
            raise unittest.SkipTest("no xca_tool in BUILDDIR")
        super().setUpClass()
        cls.data = payloads()

    def client(self, algorithms, chained=False, encrypt=False,
               share="share"):
        cl = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                      algorithms=algorithms, chained=chained,
                      encrypt=encrypt)
        self.addCleanup(cl.disconnect)
        cl.tree_connect(share)
        return cl

    def roundtrip(self, cl, name, data, compress):
        fid = cl.create(name)
        sent = cl.sent_compressed
        n = cl.write(fid, 0, data, compress=compress)
        self.assertEqual(n, len(data))
        if compress is not None and data == b"\0" * len(data):
            self.assertEqual(cl.sent_compressed, sent + 1,
                             "%s: the WRITE did not go compressed" % name)
        before = len(cl.compressed)
        back = cl.read(fid, 0, len(data))
        cl.close(fid)
        self.assertEqual(back, data, "%s read back differs" % name)
        with open(self.share_path(name), "rb") as f:
            self.assertEqual(f.read(), data, "%s on disk differs" % name)
        return cl.compressed[before:]

    # -- NEGOTIATE ---------------------------------------------------------

    def test_negotiate_each_algorithm(self):
        for alg in CODECS + (c.PATTERN_V1,):
            for chained in (False, True):
                cl = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                              algorithms=(alg,), chained=chained)
                cl.disconnect()
                if self.smbd.samba:
                    self.assertEqual(cl.algorithms, [])
                    continue
                if alg == c.PATTERN_V1 and not chained:
                    # Pattern_V1 exists only inside a chain
                    self.assertEqual(cl.algorithms, [])
                else:
                    self.assertEqual(cl.algorithms, [alg])
                self.assertEqual(cl.chained, chained and
                                 cl.algorithms != [])

    def test_negotiate_keeps_client_order(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        order = (c.LZ4, c.PATTERN_V1, c.LZ77_HUFFMAN, c.LZNT1, c.LZ77)
        cl = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                      algorithms=order + (0x99,), chained=True)
        cl.disconnect()
        self.assertEqual(cl.algorithms, list(order))

    def test_negotiate_invalid(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 ignores the compression context")
        bad = [
            ("no algorithm", c.compression_context(())),
            ("short DataLength", h.negotiate_context(
                c.COMPRESSION_CAPABILITIES,
                struct.pack("<HHIH", 3, 0, 0, c.LZ77))),
            ("unknown flags", c.compression_context((c.LZ77,), flags=6)),
        ]
        for what, ctx in bad:
            with h.RawConn(self.smbd.port) as conn:
                r = conn.negotiate((h.DIALECT_311,), contexts=[
                    h.preauth_context(), ctx])
                self.assertEqual(r["status"], h.STATUS_INVALID_PARAMETER,
                                 what)
        self.server_alive()

    # -- data through each algorithm ----------------------------------------

    def check_codec(self, alg, chained, encrypt=False):
        algs = (alg, c.PATTERN_V1) if chained else (alg,)
        cl = self.client(algs, chained=chained, encrypt=encrypt)
        kind = ("chained", algs) if chained else ("unchained", alg)
        for what, data in self.data.items():
            name = "f-%d-%d-%d-%s" % (alg, chained, encrypt, what)
            got = self.roundtrip(cl, name, data, kind)
            if what == "random":
                self.assertEqual(got, [], "random data came compressed")
                continue
            self.assertEqual(len(got), 1, "%s: READ not compressed" % what)
            self.assertEqual(got[0][0], c.READ)
            form = got[0][1]
            if chained:
                self.assertTrue(form.startswith("chained:"), form)
                if what in ("zeros", "holes"):
                    self.assertIn(str(c.PATTERN_V1), form.split(":")[1])
            else:
                self.assertEqual(form, "unchained:%d" % alg)

    def test_each_algorithm_unchained(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        for alg in CODECS:
            with self.subTest(alg=alg):
                self.check_codec(alg, False)

    def test_each_algorithm_chained(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        for alg in CODECS:
            with self.subTest(alg=alg):
                self.check_codec(alg, True)

    def test_pattern_alone(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        cl = self.client((c.PATTERN_V1,), chained=True)
        got = self.roundtrip(cl, "pattern-zeros", self.data["zeros"],
                             ("chained", (c.PATTERN_V1,)))
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][1], "chained:0,4")
        # text has no runs: nothing to gain, nothing compressed
        got = self.roundtrip(cl, "pattern-text", self.data["text"],
                             ("chained", (c.PATTERN_V1,)))
        self.assertEqual(got, [])

    def test_encrypted(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        for chained in (False, True):
            with self.subTest(chained=chained):
                self.check_codec(c.LZ77, chained, encrypt=True)

    def test_large_read_in_pool(self):
        """2 MiB of text: compressed in the worker's pool (over 32 KiB)."""
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        data = self.data["text"] * 8
        cl = self.client((c.LZ4,))
        got = self.roundtrip(cl, "big", data, ("unchained", c.LZ4))
        self.assertEqual(len(got), 1)

    # -- the share's `smb3 compression` --------------------------------------

    def test_share_yes_and_no(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        cl = self.client((c.LZ77,), share="always")
        self.assertTrue(cl.share_flags & 0x00100000,
                        "SMB2_SHAREFLAG_COMPRESS_DATA not set")
        fid = cl.create("yes-zeros")
        cl.write(fid, 0, self.data["zeros"])
        self.assertEqual(cl.read(fid, 0, SIZE, request_compressed=False),
                         self.data["zeros"])
        cl.close(fid)
        self.assertEqual(len(cl.compressed), 1)
        cl = self.client((c.LZ77,), share="never")
        self.assertFalse(cl.share_flags & 0x00100000)
        fid = cl.create("no-zeros")
        cl.write(fid, 0, self.data["zeros"])
        self.assertEqual(cl.read(fid, 0, SIZE), self.data["zeros"])
        cl.close(fid)
        self.assertEqual(cl.compressed, [])
        # auto: the flag decides
        cl = self.client((c.LZ77,))
        self.assertFalse(cl.share_flags & 0x00100000)
        fid = cl.create("auto-zeros")
        cl.write(fid, 0, self.data["zeros"])
        cl.read(fid, 0, SIZE, request_compressed=False)
        self.assertEqual(cl.compressed, [])
        cl.read(fid, 0, SIZE)
        cl.close(fid)
        self.assertEqual(len(cl.compressed), 1)

    # -- bad input ----------------------------------------------------------

    def dropped(self, cl, frame):
        cl.conn.send(frame)
        return cl.conn.closed_by_peer(5) is True

    def test_bomb_refused(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        since = self.smbd.log_size()
        cl = self.client((c.LZ4, c.PATTERN_V1), chained=True)
        # unchained: 16 MiB announced, 84 bytes of LZ4 that would make them
        lz4 = c.codec_compress(c.LZ4, b"\0" * (16 << 20))
        bomb = struct.pack("<4sIHHI", c.COMP_MAGIC, 16 << 20, c.LZ4, 0,
                           0) + lz4
        self.assertLess(len(bomb), 100 * 1024)
        self.assertTrue(self.dropped(cl, bomb))
        # chained: Pattern_V1 asking for 16 MiB in 24 bytes
        cl = self.client((c.LZ4, c.PATTERN_V1), chained=True)
        bomb = struct.pack("<4sIHHIBBHI", c.COMP_MAGIC, 16 << 20,
                           c.PATTERN_V1, 1, 8, 0, 0, 0, 16 << 20)
        self.assertTrue(self.dropped(cl, bomb))
        self.assertTrue(self.smbd.wait_log(
            r"compressed message of \d+ bytes refused", since=since,
            count=2))
        self.server_alive()

    def test_malformed_frames(self):
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        rnd = random.Random(20)
        good = None
        cl = self.client((c.LZ77, c.PATTERN_V1), chained=True)
        fid = cl.create("victim")
        body = struct.pack("<HHIQ16sIIHHI", 49, 112, 4096, 0, fid, 0, 0, 0,
                           0, 0) + self.data["text"][:4096]
        msg = h.smb2_header(c.WRITE, 1000, credit_charge=1,
                            session_id=cl.sid, tree_id=cl.tid) + body
        good = c.compress_chained((c.LZ77, c.PATTERN_V1), cl._sign(msg),
                                  112)
        self.assertIsNotNone(good)
        outcomes = {}
        for i in range(100):
            f = bytearray(good)
            kind = i % 4
            if kind == 0:       # flip bytes anywhere past the magic
                for _ in range(rnd.randint(1, 8)):
                    f[rnd.randrange(4, len(f))] = rnd.getrandbits(8)
            elif kind == 1:     # truncate
                f = f[:rnd.randrange(4, len(f))]
            elif kind == 2:     # lie about sizes
                struct.pack_into("<I", f, 4, rnd.getrandbits(32))
                struct.pack_into("<I", f, 12, rnd.getrandbits(32))
            else:               # unknown algorithm or flags
                struct.pack_into("<HH", f, 8, rnd.choice((6, 7, 0xFFFF)),
                                 rnd.getrandbits(16))
            conn = self.client((c.LZ77, c.PATTERN_V1), chained=True)
            conn.conn.send(bytes(f))
            r = conn.conn.closed_by_peer(5)
            if r is True:
                outcomes["dropped"] = outcomes.get("dropped", 0) + 1
            else:
                # it decoded to something: then the reply is an error
                # (the signature no longer matches, or the write fails)
                self.assertIsNot(r, False, "no answer to frame %d" % i)
                outcomes["answered"] = outcomes.get("answered", 0) + 1
            conn.disconnect()
        self.assertEqual(sum(outcomes.values()), 100)
        self.server_alive()
        self.assertEqual(h.crash_lines(self.smbd), [])

    def test_before_logon(self):
        """Before a logon a compressed request is served (an ECHO), but
        may not grow past what a frame may hold then (64 KiB)."""
        if self.smbd.samba:
            self.skipTest("Samba 4.17 does not compress")
        since = self.smbd.log_size()
        ctx = [h.preauth_context(),
               c.compression_context((c.LZ77, c.PATTERN_V1), True)]
        with h.RawConn(self.smbd.port) as conn:
            r = conn.negotiate((h.DIALECT_311,), contexts=ctx)
            self.assertEqual(r["status"], 0)
            echo = h.echo_request(conn.mid()) + b"\0" * 200
            frame = c.compress_chained((c.LZ77, c.PATTERN_V1), echo, 68)
            self.assertIsNotNone(frame)
            conn.send(frame)
            reply = h.Smb2Response(conn.recv())
            self.assertEqual(reply.command, h.SMB2_ECHO)
            self.assertEqual(reply.status, 0)
            # an ECHO padded to 100 KiB by Pattern_V1: over the limit
            big = struct.pack("<4sI", c.COMP_MAGIC, 68 + 100 * 1024) + \
                struct.pack("<HHI", c.NONE, c.FLAG_CHAINED, 68) + \
                h.echo_request(conn.mid()) + \
                struct.pack("<HHIBBHI", c.PATTERN_V1, 0, 8, 0, 0, 0,
                            100 * 1024)
            conn.send(big)
            self.assertIs(conn.closed_by_peer(5), True)
        self.assertTrue(self.smbd.wait_log(
            r"compressed message of \d+ bytes refused", since=since))
        self.server_alive()

    def test_compressed_before_negotiated(self):
        """A compressed message on a connection that did not negotiate
        compression is dropped."""
        cl = self.client(None)
        frame = struct.pack("<4sIHHI", c.COMP_MAGIC, 100, c.LZ77, 0, 0) + \
            b"\0" * 20
        self.assertTrue(self.dropped(cl, frame))
        self.server_alive()

    # -- clients without compression ------------------------------------------

    def test_smbclient_unaffected(self):
        src = os.path.join(self.smbd.tmp, "up.bin")
        with open(src, "wb") as f:
            f.write(self.data["text"])
        rc, out = self.smbclient("-c", "put %s up.bin; get up.bin %s.back"
                                 % (src, src), share="always")
        self.assertEqual(rc, 0, out)
        with open(src + ".back", "rb") as f:
            self.assertEqual(f.read(), self.data["text"])


class CompressionOff(h.TestUser, h.SmbdTestCase):
    global_options = [("smb3 compression", "no")]

    def test_no_context(self):
        cl = c.Client(self.smbd.port, h.TEST_USER, h.TEST_PASSWORD,
                      algorithms=(c.LZ77,))
        cl.disconnect()
        self.assertNotIn(c.COMPRESSION_CAPABILITIES,
                         cl.negotiated["contexts"])

    def test_duplicate_context_refused(self):
        """Off or not, a second compression context is INVALID_PARAMETER
        (3.3.5.4)."""
        if self.smbd.samba:
            self.skipTest("Samba 4.17 ignores the compression context")
        ctx = c.compression_context((c.LZ77,))
        with h.RawConn(self.smbd.port) as conn:
            r = conn.negotiate((h.DIALECT_311,), contexts=[
                h.preauth_context(), ctx, ctx])
            self.assertEqual(r["status"], h.STATUS_INVALID_PARAMETER)


h.backend_variants(globals(), Compression)

if __name__ == "__main__":
    h.main()
