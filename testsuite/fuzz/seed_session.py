#!/usr/bin/env python3
"""Seed corpora for the session fuzz targets (fuzz_transform_session,
fuzz_compound_session, fuzz_create_durable): a handful of small, valid
inputs each, in the layouts their head comments describe.

Usage: testsuite/fuzz/seed_session.py [CORPUSDIR]   (default: corpus/ here)

The ids are the harness's deterministic ones (session_env.h): session A
0x11000001 with tree 1 on [share]; session B 0x11000002 with tree 1 on
[share] and tree 2 on [ro]; the first open of an input has FileId
0x10000000001 (persistent and volatile).
"""
import os
import struct
import sys

SID_A = 0x11000001
SID_B = 0x11000002
FID1 = 0x10000000001
RELATED = 0x4
ALL_ONES = 0xFFFFFFFFFFFFFFFF

OP = dict(NEGOTIATE=0, SESSION_SETUP=1, LOGOFF=2, TCON=3, TDIS=4, CREATE=5,
          CLOSE=6, FLUSH=7, READ=8, WRITE=9, LOCK=10, IOCTL=11, CANCEL=12,
          ECHO=13, QUERY_DIRECTORY=14, NOTIFY=15, GETINFO=16, SETINFO=17,
          BREAK=18)


def utf16(s):
    return s.encode("utf-16-le")


def hdr(op, sid=SID_A, tid=1, flags=0, mid=0):
    # 2.2.1.2 SYNC header; NextCommand is filled in by compound().
    return struct.pack("<IHHIHHIIQIIQ16s", 0x424D53FE, 64, 1, 0, OP[op],
                       64, flags, 0, mid, 0xFEFF, tid, sid, b"")


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def compound(*reqs):
    """Requests (header+body) chained with 8-aligned NextCommand."""
    out = b""
    for i, r in enumerate(reqs):
        if i + 1 < len(reqs):
            r = pad8(r)
            r = r[:20] + struct.pack("<I", len(r)) + r[24:]
        out += r
    return out


def fid(persistent, volatile=None):
    return struct.pack("<QQ", persistent,
                       persistent if volatile is None else volatile)


def ctx(name, data):
    """One create context, Next 0 (chain() links them)."""
    return struct.pack("<IHHHHI", 0, 16, len(name), 0, 24, len(data)) + \
        name + b"\0" * (8 - len(name)) + data


def chain(*ctxs):
    out = b""
    for i, c in enumerate(ctxs):
        if i + 1 < len(ctxs):
            c = pad8(c)
            c = struct.pack("<I", len(c)) + c[4:]
        out += c
    return out


def create_fields(oplock=0, access=0x0012019f, attrs=0x80, share=7,
                  disposition=3, options=0x40):
    return struct.pack("<BIIIII", oplock, access, attrs, share, disposition,
                       options)


def create(name, sid=SID_A, tid=1, flags=0, contexts=b"", **kw):
    n = utf16(name)
    ctx_off = (64 + 56 + len(n) + 7) & ~7 if contexts else 0
    body = struct.pack("<HBBIQQ", 57, 0, kw.get("oplock", 0), 2, 0, 0)
    f = create_fields(**kw)[1:]
    body += f + struct.pack("<HHII", 64 + 56, len(n), ctx_off, len(contexts))
    buf = n if n else b"\0"
    if contexts:
        buf = buf + b"\0" * (ctx_off - 64 - 56 - len(buf)) + contexts
    return hdr("CREATE", sid, tid, flags) + body + buf


def close(f, sid=SID_A, tid=1, flags=0):
    return hdr("CLOSE", sid, tid, flags) + struct.pack("<HHI16s", 24, 0, 0, f)


def write(f, data, sid=SID_A, tid=1, flags=0, offset=0):
    return hdr("WRITE", sid, tid, flags) + struct.pack(
        "<HHIQ16sIIHHI", 49, 64 + 48, len(data), offset, f, 0, 0, 0, 0, 0) \
        + data


def read(f, length=64, sid=SID_A, tid=1, flags=0):
    return hdr("READ", sid, tid, flags) + struct.pack(
        "<HBBIQ16sIIIHHB", 49, 0, 0, length, 0, f, 0, 0, 0, 0, 0, 0)


def getinfo(f, info_type=1, cls=5, sid=SID_A, tid=1, flags=0):
    return hdr("GETINFO", sid, tid, flags) + struct.pack(
        "<HBBIHHIII16s", 41, info_type, cls, 4096, 0, 0, 0, 0, 0, f) + b"\0"


def setinfo_rename(f, new, sid=SID_A, tid=1, flags=0):
    n = utf16(new)
    info = struct.pack("<B7sQI", 0, b"", 0, len(n)) + n
    return hdr("SETINFO", sid, tid, flags) + struct.pack(
        "<HBBIHHI16s", 33, 1, 10, len(info), 64 + 32, 0, 0, f) + info


def lock(f, sid=SID_A, tid=1, flags=0):
    return hdr("LOCK", sid, tid, flags) + struct.pack(
        "<HHI16sQQII", 48, 1, 0, f, 0, 10, 0x2 | 0x10, 0)


def querydir(f, pattern="*", sid=SID_A, tid=1, flags=0):
    p = utf16(pattern)
    return hdr("QUERY_DIRECTORY", sid, tid, flags) + struct.pack(
        "<HBBI16sHHI", 33, 0x25, 0, 0, f, 64 + 32, len(p), 4096) + p


def notify(f, sid=SID_A, tid=1, flags=0):
    return hdr("NOTIFY", sid, tid, flags) + struct.pack(
        "<HHI16sII", 32, 0, 4096, f, 0x17, 0)


def ioctl(f, code, data=b"", sid=SID_A, tid=1, flags=0, max_out=4096):
    return hdr("IOCTL", sid, tid, flags) + struct.pack(
        "<HHI16sIIIIIIII", 57, 0, code, f, 64 + 56 if data else 0,
        len(data), 0, 0, 0, max_out, 1, 0) + (data if data else b"\0")


def setinfo_disposition(f, sid=SID_A, tid=1, flags=0):
    return hdr("SETINFO", sid, tid, flags) + struct.pack(
        "<HBBIHHI16s", 33, 1, 13, 1, 64 + 32, 0, 0, f) + b"\1"


def cancel(sid=SID_A):
    return hdr("CANCEL", sid, 0) + struct.pack("<HH", 4, 0)


def tdis(sid=SID_A, tid=1):
    return hdr("TDIS", sid, tid) + struct.pack("<HH", 4, 0)


def sesssetup(sid=SID_A):
    return hdr("SESSION_SETUP", sid, 0) + struct.pack(
        "<HBBIIHHQ", 25, 0, 1, 0, 0, 88, 0, 0) + b"\0"


def echo(sid=SID_A, tid=0, flags=0):
    return hdr("ECHO", sid, tid, flags) + struct.pack("<HH", 4, 0)


def logoff(sid=SID_A):
    return hdr("LOGOFF", sid, 0) + struct.pack("<HH", 4, 0)


def tcon(share, sid=SID_A):
    p = utf16("\\\\test\\" + share)
    return hdr("TCON", sid, 0) + struct.pack("<HHHH", 9, 0, 72, len(p)) + p


PREV = fid(ALL_ONES)  # related requests take the FileId before them


def frames(*fs):
    """fuzz_compound_session's framing: 16-bit length, then the bytes;
    the fourth and last frame takes the rest, unprefixed."""
    return b"".join((struct.pack("<H", len(f)) if i < 3 else b"") + f
                    for i, f in enumerate(fs[:4]))


def seeds_transform():
    # byte 0: bits 2-3 cipher, bit 5 patch mids; byte 1 signing algo.
    rw = compound(create("t.txt"),
                  write(PREV, b"hello", flags=RELATED),
                  read(PREV, flags=RELATED),
                  close(PREV, flags=RELATED))
    return {
        "echo_gcm": bytes([0x24, 1]) + echo(),
        "rw_ccm": bytes([0x20, 1]) + rw,
        "rw_b_256gcm": bytes([0x2d, 2]) + compound(
            create("b.txt", sid=SID_B), close(PREV, sid=SID_B,
                                               flags=RELATED)),
        "cross_session": bytes([0x24, 1]) + compound(
            create("t.txt", sid=SID_B), read(PREV, sid=SID_B,
                                              flags=RELATED)),
        "rw_302": bytes([0x30, 0]) + rw,
        "tcon_ro": bytes([0x24, 1]) + tcon("ro"),
        "logoff_echo": bytes([0x24, 1]) + compound(logoff(), echo()),
        "dir_b_ro": bytes([0x25, 1]) + compound(
            create("", sid=SID_B, tid=2, access=0x00100081, attrs=0,
                   disposition=1, options=0x1),
            querydir(PREV, sid=SID_B, tid=2, flags=RELATED),
            close(PREV, sid=SID_B, tid=2, flags=RELATED)),
        "raw_after": bytes([0xa4, 1]) + echo(),
        "sesssetup_inside": bytes([0x24, 1]) + sesssetup(),

    }


def seeds_compound():
    # byte 0: bits 0-2 dialect, bit 3 sign (bit 4: with B), bit 5 mids.
    f1 = FID1
    return {
        "related_rw": bytes([0x28, 1]) + frames(compound(
            create("c.txt"), write(PREV, b"data", flags=RELATED),
            read(PREV, flags=RELATED), getinfo(PREV, flags=RELATED),
            close(PREV, flags=RELATED))),
        "two_frames": bytes([0x28, 1]) + frames(
            create("c.txt"),
            compound(write(fid(f1), b"x" * 10), lock(fid(f1)),
                     read(fid(f1)), close(fid(f1)))),
        "mixed_sessions": bytes([0x20, 0]) + frames(compound(
            echo(), create("b.txt", sid=SID_B),
            create("n.txt", sid=SID_B, tid=2, disposition=2))),
        "rename": bytes([0x38, 2]) + frames(compound(
            create("r.txt", sid=SID_B),
            setinfo_rename(PREV, "s.txt", sid=SID_B, flags=RELATED),
            close(PREV, sid=SID_B, flags=RELATED))),
        "smb202": bytes([0x25, 0]) + frames(compound(
            create("o.txt"), close(PREV, flags=RELATED))),
        "smb300_signed": bytes([0x2b, 0]) + frames(compound(
            create("o.txt"), close(PREV, flags=RELATED))),
        "notify_last": bytes([0x28, 1]) + frames(compound(
            create("", access=0x00100081, attrs=0, disposition=1,
                   options=0x1),
            notify(PREV, flags=RELATED))),
        "logoff_related": bytes([0x20, 1]) + frames(compound(
            logoff(SID_B), create("x.txt", sid=SID_B, flags=RELATED))),
        "wrong_key": bytes([0xa8, 1]) + frames(echo(), echo(), echo()),
        "delete_on_close": bytes([0x28, 1]) + frames(
            compound(create("d.txt", access=0x0013019f, options=0x1040),
                     close(PREV, flags=RELATED)),
            create("d.txt", disposition=1)),
        "disposition": bytes([0x20, 1]) + frames(compound(
            create("e.txt", access=0x0013019f),
            setinfo_disposition(PREV, flags=RELATED),
            close(PREV, flags=RELATED))),
        "ioctl_resume_key": bytes([0x20, 1]) + frames(compound(
            create("k.txt"), ioctl(PREV, 0x00140078, flags=RELATED),
            close(PREV, flags=RELATED))),
        # B waits on A's lock, then cancels it (by MessageId).
        "lock_wait_cancel": bytes([0x20, 1]) + frames(
            compound(create("l.txt"), write(PREV, b"z" * 16, flags=RELATED),
                     lock(PREV, flags=RELATED)),
            create("l.txt", sid=SID_B, access=0x00120089),
            hdr("LOCK", SID_B, 1) + struct.pack(
                "<HHI16sQQII", 48, 1, 0, fid(FID1 + 1), 0, 10, 0x2, 0),
            cancel(SID_B)),
        # B's open breaks A's batch oplock (the break goes to A).
        "oplock_b_breaks_a": bytes([0x20, 1]) + frames(
            create("o.txt", oplock=0x09),
            create("o.txt", sid=SID_B, oplock=0x09, access=0x00120089),
            hdr("BREAK", SID_A, 1) + struct.pack("<HBBI16s", 24, 0x01, 0,
                                                 0, fid(FID1))),
        "tdis_then_use": bytes([0x20, 1]) + frames(compound(
            tdis(SID_B, 2), create("t.txt", sid=SID_B, tid=2,
                                   disposition=1))),
    }


def seeds_durable():
    # byte 0 / byte 1 selectors, 21 CREATE fields, name length, name, ctx.
    def inp(sel, sel2, name, contexts, oplock=0x09, **kw):
        n = utf16(name)
        return bytes([sel, sel2]) + create_fields(oplock=oplock, **kw) + \
            bytes([len(n)]) + n + contexts

    dh2c = ctx(b"DH2C", b"\0" * 36)
    dhnc = ctx(b"DHnC", b"\0" * 16)
    rqls = ctx(b"RqLs", b"\0" * 16 + struct.pack("<IIQ", 7, 0, 0) +
               b"\0" * 20)
    dh2q = ctx(b"DH2Q", struct.pack("<IIQ16s", 0, 0, 0, b"fuzz-guid-000001"))
    mxac = ctx(b"MxAc", b"")
    qfid = ctx(b"QFid", b"")
    return {
        "dh2c_batch": inp(0x14, 0x04, "", dh2c),
        "dh2c_lease": inp(0x3c, 0x04, "", chain(rqls, dh2c), oplock=0xff),
        "dhnc_of_v2": inp(0x04, 0x04, "", dhnc),
        "dh2c_ro_share": inp(0x16, 0x04, "", dh2c),
        "dh2c_user_b": inp(0x15, 0x04, "", dh2c),
        "dh2c_other_client": inp(0x94, 0x04, "", dh2c),
        "dh2c_wrong_guid": inp(0x44, 0x04, "", dh2c),
        "dh2c_302": inp(0x14, 0x05, "", dh2c),
        "new_dh2q_lease": inp(0x40, 0x00, "n.txt",
                              chain(rqls, dh2q, mxac, qfid), oplock=0xff),
        # The kept open's lease key on another file (3.3.5.9.8).
        "lease_key_other_file": inp(0x60, 0x00, "n.txt",
                                    chain(rqls, dh2q), oplock=0xff),
        "open_kept_name": inp(0x00, 0x04, "", b"", oplock=0x09),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    for target, seeds in (("fuzz_transform_session", seeds_transform()),
                          ("fuzz_compound_session", seeds_compound()),
                          ("fuzz_create_durable", seeds_durable())):
        d = os.path.join(top, target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
