#!/usr/bin/python3
"""Access checks of CREATE against the Unix permissions (no NT ACL stored).

WRITE_DAC and WRITE_OWNER map to chmod and chown, which Unix leaves to a
file's owner: a user who may write a file that belongs to root (mode
0666) still gets ACCESS_DENIED when asking for WRITE_DAC or WRITE_OWNER,
while WRITE_DAC on the user's own file succeeds; writing the data
of the foreign file stays allowed.  Runs once per event-loop backend;
passes against Samba too (SMBD=/usr/sbin/smbd).
"""

import os
import pwd
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

FILE_READ_ATTRIBUTES = 0x80
FILE_WRITE_DATA = 0x02
WRITE_DAC = 0x00040000
WRITE_OWNER = 0x00080000
FILE_OPEN = 1
STATUS_ACCESS_DENIED = 0xC0000022


class Access(h.TestUser):

    def put(self, name, uid):
        path = os.path.join(self.smbd.share, name)
        with open(path, "wb") as f:
            f.write(b"data")
        os.chown(path, uid, -1)
        os.chmod(path, 0o666)
        return path

    def open_status(self, conn, tid, name, access):
        from impacket.smbconnection import SessionError
        try:
            fid = conn.createFile(tid, name, desiredAccess=access,
                                  creationDisposition=FILE_OPEN)
        except SessionError as e:
            return e.getErrorCode()
        conn.closeFile(tid, fid)
        return 0

    def test_write_dac_owner_only(self):
        me = pwd.getpwnam(h.TEST_USER).pw_uid
        self.put("foreign.txt", 0)
        self.put("mine.txt", me)
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("share")
            for right in (WRITE_DAC, WRITE_OWNER):
                self.assertEqual(
                    self.open_status(conn, tid, "foreign.txt",
                                     right | FILE_READ_ATTRIBUTES),
                    STATUS_ACCESS_DENIED, hex(right))
            # (Samba refuses even the owner WRITE_OWNER; not asserted)
            self.assertEqual(
                self.open_status(conn, tid, "mine.txt",
                                 WRITE_DAC | FILE_READ_ATTRIBUTES), 0)
            # the mode still lets the user write the foreign file's data
            self.assertEqual(
                self.open_status(conn, tid, "foreign.txt", FILE_WRITE_DATA),
                0)
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()


h.backend_variants(globals(), Access)

if __name__ == "__main__":
    h.main()
