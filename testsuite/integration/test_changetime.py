#!/usr/bin/python3
"""A ChangeTime set through FileBasicInformation reads back (issue 17).

Linux cannot set a file's ctime; without a set one ChangeTime is the write
time, as Samba answers.  MS-FSA 2.1.5.14.2 lets a client set ChangeTime
(smbtorture's smb2_create_complex sets all four times and checks them, so
smb2.create.open, smb2.dir.one/modify, smb2.getinfo.complex and
smb2.scan.* need it).  The server keeps a set ChangeTime in the locking
database with the file's real ctime while the file is open
(smbd/objects/write_time.h):

- QUERY_INFO (FileBasic/FileAll) through the open that set it and through
  another connection's open, QUERY_DIRECTORY entries, the CREATE response
  of a later open and the CLOSE response (POSTQUERY_ATTRIB) carry it; the
  same for a directory and for a time set through a stream open;
- a change of the file by another open shows again (the write time);
- it sticks to the open that set it (Open.UserSetChangeTime): that
  open's own writes and SET_INFOs (ChangeTime 0) keep it; -1 freezes it,
  -2 lets the next change show;
- a durable open keeps it after its connection dropped, also through the
  delayed write time update that runs then.

Samba 4.17 answers the write time throughout: SMBD=/usr/sbin/smbd fails
the checks of the set value.  Every test runs once per event-loop backend.
"""

import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402
from test_basicinfo import BasicShare, nttime  # noqa: E402
from test_security import (OPLOCK_BATCH, RawCtx, create_contexts,  # noqa
                           drop)

from impacket import smb3structs as s3  # noqa: E402

FILE_BASIC_INFORMATION = 4
FILE_ALL_INFORMATION = 18
FREEZE = 0xFFFFFFFFFFFFFFFF
THAW = 0xFFFFFFFFFFFFFFFE
SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB = 1
# The kernel's ctime moves in clock ticks: let one pass between a change
# and the next, so that the change is seen as one.
TICK = 0.05


class ChangeTime(BasicShare):

    def open_change(self, smb, tid, name, disposition=s3.FILE_OPEN,
                    options=0, cleanup=True, durable=False):
        """The FileId and the CREATE response's ChangeTime."""
        access = s3.GENERIC_ALL
        if options & s3.FILE_DIRECTORY_FILE:
            access = (s3.FILE_READ_DATA | s3.FILE_READ_ATTRIBUTES |
                      s3.FILE_WRITE_ATTRIBUTES)
        answers = []
        recv = smb.recvSMB

        def keep(mid):
            a = recv(mid)
            answers.append(a)
            return a

        kw = {}
        if durable:
            # MS-SMB2 2.2.13.2.3 DHnQ, with the batch oplock it needs
            kw = {"oplockLevel": OPLOCK_BATCH, "createContexts": [RawCtx(
                create_contexts([(b"DHnQ", b"\0" * 16)]))]}
        smb.recvSMB = keep
        try:
            fid = smb.create(tid, name, access,
                             s3.FILE_SHARE_READ | s3.FILE_SHARE_WRITE |
                             s3.FILE_SHARE_DELETE, options, disposition, 0,
                             **kw)
        finally:
            del smb.recvSMB
        if cleanup:
            self.addCleanup(self._close, smb, tid, fid)
        # 2.2.14: ChangeTime at 32 of the CREATE response body
        change = struct.unpack_from("<Q", answers[-1]["Data"], 32)[0]
        return fid, change

    @staticmethod
    def close_query(smb, tid, fid):
        """CLOSE with POSTQUERY_ATTRIB: the response's ChangeTime."""
        req = s3.SMB2Close()
        req["Flags"] = SMB2_CLOSE_FLAG_POSTQUERY_ATTRIB
        req["FileID"] = fid
        packet = smb.SMB_PACKET()
        packet["Command"] = s3.SMB2_CLOSE
        packet["TreeID"] = tid
        packet["Data"] = req
        ans = smb.recvSMB(smb.sendSMB(packet))
        assert ans["Status"] == 0
        return struct.unpack_from("<Q", ans["Data"], 32)[0]

    @staticmethod
    def set_basic(smb, tid, fid, write=0, change=0):
        blob = struct.pack("<QQQQII", 0, 0, write, change, 0, 0)
        smb.setInfo(tid, fid, blob, s3.SMB2_0_INFO_FILE,
                    FILE_BASIC_INFORMATION)
        time.sleep(TICK)

    @staticmethod
    def times(smb, tid, fid, cls=FILE_BASIC_INFORMATION):
        """(LastWriteTime, ChangeTime)"""
        buf = smb.queryInfo(tid, fid, b"", s3.SMB2_0_INFO_FILE, cls)
        return struct.unpack_from("<QQ", buf, 16)

    def listed_change(self, smb, tid, dirname, name):
        dfid, _ = self.open_change(smb, tid, dirname,
                            options=s3.FILE_DIRECTORY_FILE)
        for cls in (s3.FILE_DIRECTORY_INFORMATION,
                    s3.FILEID_BOTH_DIRECTORY_INFORMATION):
            buf = smb.queryDirectory(tid, dfid, name,
                                     informationClass=cls,
                                     maxBufferSize=65536)
            yield struct.unpack_from("<Q", buf, 32)[0]
            # impacket drops RESTART_SCANS: a fresh open per class
            dfid, _ = self.open_change(smb, tid, dirname,
                                options=s3.FILE_DIRECTORY_FILE)

    def write(self, smb, tid, fid, data=b"xyz"):
        smb.write(tid, fid, data, 0, len(data))
        time.sleep(TICK)

    def setUp(self):
        d = os.path.join(self.smbd.share, "d")
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o777)  # made as root; the test user writes in it
        self.set_to = nttime((int(time.time()) & ~1) + 30 * 24 * 3600)

    # -- read back everywhere -----------------------------------------
    def test_read_back(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\f.dat", s3.FILE_OVERWRITE_IF,
                           cleanup=False)
        self.write(smb, tid, fid)
        self.set_basic(smb, tid, fid, change=self.set_to)
        for cls in (FILE_BASIC_INFORMATION, FILE_ALL_INFORMATION):
            self.assertEqual(self.times(smb, tid, fid, cls)[1], self.set_to)
        # another connection (maybe another worker), a later open
        smb2, tid2 = self.connect()
        fid2, created = self.open_change(smb2, tid2, "d\\f.dat")
        self.assertEqual(created, self.set_to)
        self.assertEqual(self.times(smb2, tid2, fid2)[1], self.set_to)
        for change in self.listed_change(smb2, tid2, "d", "f.dat"):
            self.assertEqual(change, self.set_to)
        self.assertEqual(self.close_query(smb, tid, fid), self.set_to)

    def test_directory(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\sub", s3.FILE_CREATE,
                           options=s3.FILE_DIRECTORY_FILE)
        self.set_basic(smb, tid, fid, change=self.set_to)
        self.assertEqual(self.times(smb, tid, fid)[1], self.set_to)
        for change in self.listed_change(smb, tid, "d", "sub"):
            self.assertEqual(change, self.set_to)

    def test_through_stream(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\s.dat", s3.FILE_OVERWRITE_IF)
        sfid, _ = self.open_change(smb, tid, "d\\s.dat:two",
                                   s3.FILE_OVERWRITE_IF)
        self.set_basic(smb, tid, sfid, change=self.set_to)
        self.assertEqual(self.times(smb, tid, sfid)[1], self.set_to)
        self.assertEqual(self.times(smb, tid, fid)[1], self.set_to)

    # -- what ends it -------------------------------------------------
    def test_other_change_shows(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\o.dat", s3.FILE_OVERWRITE_IF)
        fid2, _ = self.open_change(smb, tid, "d\\o.dat")
        self.set_basic(smb, tid, fid, change=self.set_to)
        self.assertEqual(self.times(smb, tid, fid)[1], self.set_to)
        self.write(smb, tid, fid2)
        write, change = self.times(smb, tid, fid)
        self.assertNotEqual(change, self.set_to)
        self.assertEqual(change, write)

    def test_sticks_to_its_open(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\k.dat", s3.FILE_OVERWRITE_IF)
        self.set_basic(smb, tid, fid, change=self.set_to)
        self.write(smb, tid, fid)
        self.assertEqual(self.times(smb, tid, fid)[1], self.set_to)
        # ChangeTime 0: not changed, while the write time is set
        later = self.set_to + 10000000
        self.set_basic(smb, tid, fid, write=later)
        self.assertEqual(self.times(smb, tid, fid), (later, self.set_to))

    def test_durable_orphan(self):
        """The open outlives its connection (durable): the write time
        update due after its write runs with no connection and keeps
        the ChangeTime it set."""
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\u.dat",
                                  s3.FILE_OVERWRITE_IF, cleanup=False,
                                  durable=True)
        self.set_basic(smb, tid, fid, change=self.set_to)
        self.write(smb, tid, fid)
        drop(smb)
        time.sleep(2.5)  # SMBD_WRITE_TIME_DELAY_MS after the write
        # listed: an open would end the orphan (its batch oplock)
        smb2, tid2 = self.connect()
        for change in self.listed_change(smb2, tid2, "d", "u.dat"):
            self.assertEqual(change, self.set_to)

    def test_freeze_thaw(self):
        smb, tid = self.connect()
        fid, _ = self.open_change(smb, tid, "d\\z.dat", s3.FILE_OVERWRITE_IF)
        self.set_basic(smb, tid, fid, change=self.set_to)
        # -2 leaves the value; the next change through it shows
        self.set_basic(smb, tid, fid, change=THAW)
        self.assertEqual(self.times(smb, tid, fid)[1], self.set_to)
        self.write(smb, tid, fid)
        write, change = self.times(smb, tid, fid)
        self.assertEqual(change, write)
        # -1 freezes what is reported now: a write time set later
        # through this open no longer moves it
        self.set_basic(smb, tid, fid, change=FREEZE)
        # (the SET_INFO did the write's pending write time update)
        change = self.times(smb, tid, fid)[1]
        self.write(smb, tid, fid, b"more data")
        self.set_basic(smb, tid, fid, write=self.set_to)
        self.assertEqual(self.times(smb, tid, fid), (self.set_to, change))


h.backend_variants(globals(), ChangeTime)

if __name__ == "__main__":
    h.main()
