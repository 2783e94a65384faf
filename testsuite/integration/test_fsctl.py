#!/usr/bin/python3
"""File-system FSCTLs with real clients.

Server-side copy: smbclient's `scopy` (FSCTL_SRV_REQUEST_RESUME_KEY, then
FSCTL_SRV_COPYCHUNK_WRITE requests, as Windows Explorer copies inside a
share) of a 20 MiB file, more than the 16 MiB one request may copy, and
the same through impacket's IOCTL call chunk by chunk, checking each
SRV_COPYCHUNK_RESPONSE; the copies must hash like the source.

Sparse files: FSCTL_SET_SPARSE, FSCTL_SET_ZERO_DATA over the first half
of a 1 MiB file, then FSCTL_QUERY_ALLOCATED_RANGES, whose answer must be
what SEEK_DATA/SEEK_HOLE and st_blocks say about the file on disk.

Network interfaces: FSCTL_QUERY_NETWORK_INTERFACE_INFO (MS-SMB2
3.3.5.15.11) with `interfaces` in Samba's multichannel syntax
("127.0.0.1;speed=...,capability=RSS,if_index=..."): the one address the
entry names, with the speed, RSS capability and index it gives; a bad
option is refused at start with the parameter named (testparm too).

Every test runs once per event-loop backend (io_uring, epoll); passes
against Samba too (SMBD=/usr/sbin/smbd), except the refusal of a bad
option, which is ours.
"""

import hashlib
import os
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

SMB2_0_IOCTL_IS_FSCTL = 1
FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078
FSCTL_SRV_COPYCHUNK_WRITE = 0x001480F2
FSCTL_SET_SPARSE = 0x000900C4
FSCTL_SET_ZERO_DATA = 0x000980C8
FSCTL_QUERY_ALLOCATED_RANGES = 0x000940CF
FILE_ATTRIBUTE_SPARSE_FILE = 0x200
FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC
RSS_CAPABLE = 0x1
IFACE_SPEED = 12345678000
IFACE_INDEX = 77

MIB = 1024 * 1024
BIG = 20 * MIB              # more than one request's 16 MiB


def sha256_file(path):
    d = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(MIB), b""):
            d.update(block)
    return d.hexdigest()


def disk_ranges(path):
    """The data extents of a file as the kernel reports them."""
    out = []
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        size = os.fstat(fd).st_size
        off = 0
        while off < size:
            try:
                d = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            e = os.lseek(fd, d, os.SEEK_HOLE)
            out.append((d, e - d))
            off = e
    finally:
        os.close(fd)
    return out


class Fsctl(h.TestUser):

    def ioctl(self, conn, tid, fid, code, blob=b"", max_out=0):
        return bytes(conn._SMBConnection.ioctl(
            tid, fid, ctlCode=code, flags=SMB2_0_IOCTL_IS_FSCTL,
            inputBlob=blob, maxInputResponse=0,
            maxOutputResponse=max_out))

    def make_source(self, name, size):
        path = os.path.join(self.smbd.share, name)
        with open(path, "wb") as f:
            for _ in range(size // MIB):
                f.write(os.urandom(MIB))
        os.chmod(path, 0o666)
        return path

    def test_scopy_smbclient(self):
        src = self.make_source("scopy_src.bin", BIG)
        dst = os.path.join(self.smbd.share, "scopy_dst.bin")
        rc, out = self.smbclient("-m", "SMB3", "-c",
                                 "scopy scopy_src.bin scopy_dst.bin")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("NT_STATUS_", out)
        self.assertEqual(os.path.getsize(dst), BIG)
        self.assertEqual(sha256_file(dst), sha256_file(src))
        os.unlink(src)
        os.unlink(dst)
        self.server_alive()

    def test_copychunk_impacket(self):
        src = self.make_source("cc_src.bin", BIG)
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("share")
            sfid = conn.createFile(tid, "cc_src.bin",
                                   desiredAccess=0x00120089,
                                   creationDisposition=1)
            key = self.ioctl(conn, tid, sfid, FSCTL_SRV_REQUEST_RESUME_KEY,
                             max_out=32)[:24]
            # GENERIC_WRITE | FILE_READ_ATTRIBUTES, overwrite-if
            dfid = conn.createFile(tid, "cc_dst.bin",
                                   desiredAccess=0x40000080,
                                   creationDisposition=5)
            off = 0
            while off < BIG:
                n = min(16, (BIG - off) // MIB)
                blob = key + struct.pack("<II", n, 0)
                for i in range(n):
                    o = off + i * MIB
                    blob += struct.pack("<QQII", o, o, MIB, 0)
                rsp = self.ioctl(conn, tid, dfid, FSCTL_SRV_COPYCHUNK_WRITE,
                                 blob, max_out=12)
                # SRV_COPYCHUNK_RESPONSE: all chunks, all bytes
                self.assertEqual(struct.unpack("<III", rsp),
                                 (n, 0, n * MIB))
                off += n * MIB
            conn.closeFile(tid, dfid)
            conn.closeFile(tid, sfid)
            dst = os.path.join(self.smbd.share, "cc_dst.bin")
            self.assertEqual(sha256_file(dst), sha256_file(src))
            conn.deleteFile("share", "cc_dst.bin")
            conn.logoff()
        finally:
            conn.close()
        os.unlink(src)
        self.server_alive()

    def qar(self, conn, tid, fid, off, length):
        rsp = self.ioctl(conn, tid, fid, FSCTL_QUERY_ALLOCATED_RANGES,
                         struct.pack("<QQ", off, length), max_out=4096)
        return [struct.unpack_from("<QQ", rsp, i)
                for i in range(0, len(rsp), 16)]

    def test_sparse(self):
        name = "sparse.bin"
        path = os.path.join(self.smbd.share, name)
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("share")
            fid = conn.createFile(tid, name, desiredAccess=0x0012019f,
                                  creationDisposition=5)
            conn.writeFile(tid, fid, os.urandom(MIB), 0)
            # not sparse yet: all of it is allocated
            self.assertEqual(self.qar(conn, tid, fid, 0, 2 * MIB),
                             [(0, MIB)])
            self.ioctl(conn, tid, fid, FSCTL_SET_SPARSE, b"\x01")
            attrs = conn.listPath("share", name)[0].get_attributes()
            self.assertTrue(attrs & FILE_ATTRIBUTE_SPARSE_FILE)
            # punch out the first half, past EOF changes nothing
            self.ioctl(conn, tid, fid, FSCTL_SET_ZERO_DATA,
                       struct.pack("<QQ", 0, MIB // 2))
            self.ioctl(conn, tid, fid, FSCTL_SET_ZERO_DATA,
                       struct.pack("<QQ", MIB, 4 * MIB))
            self.assertEqual(os.path.getsize(path), MIB)
            ranges = self.qar(conn, tid, fid, 0, MIB)
            self.assertEqual(ranges, [(MIB // 2, MIB // 2)])
            self.assertEqual(ranges, disk_ranges(path))
            allocated = os.stat(path).st_blocks * 512
            self.assertGreaterEqual(allocated, MIB // 2)
            self.assertLess(allocated, MIB // 2 + 64 * 1024)
            # the hole reads as zeros
            self.assertEqual(conn.readFile(tid, fid, 0, 4096),
                             b"\0" * 4096)
            conn.closeFile(tid, fid)
            conn.deleteFile("share", name)
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()


h.backend_variants(globals(), Fsctl)


def parse_interfaces(blob):
    """2.2.32.5 NETWORK_INTERFACE_INFO entries: (index, capability,
    speed, family, address)."""
    out, off = [], 0
    while True:
        nxt, idx, cap, _res, speed = struct.unpack_from("<IIIIQ", blob, off)
        fam = struct.unpack_from("<H", blob, off + 24)[0]
        if fam == 0x2:
            addr = socket.inet_ntop(socket.AF_INET,
                                    blob[off + 28:off + 32])
        else:
            addr = socket.inet_ntop(socket.AF_INET6,
                                    blob[off + 32:off + 48])
        out.append((idx, cap, speed, fam, addr))
        if nxt == 0:
            return out
        off += nxt


class NetInterfaces(h.TestUser):
    global_options = [
        ("interfaces", '"127.0.0.1;speed=%d,capability=RSS,if_index=%d"'
         % (IFACE_SPEED, IFACE_INDEX)),
        ("server multi channel support", "yes")]

    def test_interface_info_from_interfaces(self):
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("IPC$")
            blob = bytes(conn._SMBConnection.ioctl(
                tid, None, ctlCode=FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                flags=SMB2_0_IOCTL_IS_FSCTL, inputBlob=b"",
                maxInputResponse=0, maxOutputResponse=65536))
        finally:
            conn.close()
        self.assertEqual(parse_interfaces(blob),
                         [(IFACE_INDEX, RSS_CAPABLE, IFACE_SPEED, 0x2,
                           "127.0.0.1")])

    def test_bad_option_refused(self):
        if h.is_samba():
            self.skipTest("ours: a bad interfaces option stops the start")
        bad = self.new_server(global_options=[
            ("interfaces", '"127.0.0.1;speed=fast"')])
        self.addCleanup(bad.cleanup)
        with self.assertRaises(Exception):
            bad.start(timeout=10)
        self.assertRegex(bad.log_text(),
                         r"interfaces: \"127\.0\.0\.1;speed=fast\": "
                         r"speed 'fast' is not a positive number")
        r = subprocess.run([os.path.join(os.environ.get("BUILDDIR", "."),
                                         "utils", "testparm"), "-s",
                            bad.conf], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("speed 'fast' is not a positive number", r.stderr)


h.backend_variants(globals(), NetInterfaces)

if __name__ == "__main__":
    h.main()
