#!/usr/bin/python3
"""Byte-range lock/unlock pairs per second between two processes.

Each of NPROCS processes logs on over its own connection, opens one
shared file and, for SECONDS, locks and unlocks its own range (exclusive,
FAIL_IMMEDIATELY), keeping DEPTH pairs in flight so the client's Python
cost is spread over a window rather than paid per round trip.  All
processes use the same file, so every lock goes through the file's
record in the server's locking database (ours: the shared tdb; Samba:
its brlock.tdb).  Prints "pairs/s TOTAL" and one line per process.

Usage: lockpairs.py PORT USER PASSWORD [SECONDS] [NPROCS] [DEPTH]
The client is impacket: the figure is the same client against both
servers in the same run, not the server's ceiling.
"""

import multiprocessing
import struct
import sys
import time

from impacket.smbconnection import SMBConnection
from impacket import smb3structs as s3

EXCLUSIVE = 0x02
UNLOCK = 0x04
FAIL_IMMEDIATELY = 0x10


def lock_packet(smb, tid, fid, off, flags):
    req = s3.SMB2Lock()
    req["FileID"] = fid
    req["LockCount"] = 1
    req["LockSequence"] = 0
    req["Locks"] = struct.pack("<QQII", off, 1, flags, 0)
    packet = smb.SMB_PACKET()
    packet["Command"] = s3.SMB2_LOCK
    packet["TreeID"] = tid
    packet["Data"] = req
    return packet


def worker(idx, port, user, password, seconds, depth, q):
    c = SMBConnection("127.0.0.1", "127.0.0.1", sess_port=port, timeout=30,
                      preferredDialect=s3.SMB2_DIALECT_30)
    c.login(user, password)
    smb = c.getSMBServer()
    tid = c.connectTree("share")
    fid = smb.create(tid, "lockpairs.dat",
                     s3.FILE_READ_DATA | s3.FILE_WRITE_DATA,
                     s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE,
                     s3.FILE_NON_DIRECTORY_FILE, s3.FILE_OPEN_IF, 0)
    off = 4096 * (idx + 1)
    pairs, errors, inflight = 0, 0, []
    end = time.monotonic() + seconds
    while time.monotonic() < end or inflight:
        while time.monotonic() < end and len(inflight) < 2 * depth:
            inflight.append(smb.sendSMB(lock_packet(
                smb, tid, fid, off, EXCLUSIVE | FAIL_IMMEDIATELY)))
            inflight.append(smb.sendSMB(lock_packet(
                smb, tid, fid, off, UNLOCK)))
        for _ in range(2):
            mid = inflight.pop(0)
            try:
                if smb.recvSMB(mid)["Status"] != 0:
                    errors += 1
            except Exception:
                errors += 1
        pairs += 1
    c.close()
    q.put((idx, pairs / seconds, errors))


def main():
    port, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    nprocs = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    depth = int(sys.argv[6]) if len(sys.argv) > 6 else 8
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=worker,
                                  args=(i, port, user, password, seconds,
                                        depth, q))
          for i in range(nprocs)]
    for p in ps:
        p.start()
    res = [q.get(timeout=seconds + 60) for _ in ps]
    for p in ps:
        p.join(30)
    total = sum(r[1] for r in res)
    print("pairs/s %.0f" % total)
    for idx, rate, errors in sorted(res):
        print("process %d: %.0f pairs/s, %d errors" % (idx, rate, errors))
    return 0 if all(r[2] == 0 for r in res) else 1


if __name__ == "__main__":
    sys.exit(main())
