#!/usr/bin/python3
"""NT ACLs in security.NTACL decide CREATE's access on a share with
`vfs objects = acl_xattr` (the directories and files here are the user's
own with mode 0777/0666, so the Unix permissions allow everything):

  - a directory whose DACL leaves out FILE_ADD_FILE / FILE_ADD_SUBDIRECTORY
    refuses a new file / subdirectory (MS-FSA 2.1.5.1.1);
  - a file created under a directory with an inheritable ACE gets a
    security.NTACL of its own (MS-DTYP 2.5.3.4);
  - a file whose DACL gives the user read access only refuses an open
    for writing and allows one for reading.

The descriptors are written as Samba's version 1 blob with setxattr,
as root.  Runs once per event-loop backend; passes against Samba too
(SMBD=/usr/sbin/smbd).
"""

import os
import pwd
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

FILE_READ_DATA = 0x01
FILE_WRITE_DATA = 0x02
FILE_APPEND_DATA = 0x04
FILE_READ_ATTRIBUTES = 0x80
FILE_ALL_ACCESS = 0x001F01FF
FILE_READ = 0x00120089
FILE_OPEN = 1
FILE_CREATE = 2
FILE_DIRECTORY_FILE = 0x01
OI_CI = 0x03
STATUS_ACCESS_DENIED = 0xC0000022


def unix_user_sid(uid):
    """S-1-22-1-uid."""
    return struct.pack("<BB6sII", 1, 2, b"\0" * 5 + b"\x16", 1, uid)


EVERYONE = struct.pack("<BB6sI", 1, 1, b"\0" * 5 + b"\x01", 0)


def ntacl_blob(owner, aces):
    """Version 1 security.NTACL: NDR header, then a self-relative
    descriptor whose offsets count from the blob's start."""
    body = b""
    for flags, mask, sid in aces:
        body += struct.pack("<BBHI", 0, flags, 8 + len(sid), mask) + sid
    acl = struct.pack("<BBHHH", 2, 0, 8 + len(body), len(aces), 0) + body
    owner_off = 8 + 20
    dacl_off = owner_off + len(owner)
    sd = struct.pack("<BBHIIII", 1, 0, 0x8004, owner_off, 0, 0,
                     dacl_off) + owner + acl
    return struct.pack("<HHI", 1, 1, 0x00020000) + sd


class NtAcl(h.TestUser):
    share_options = [("vfs objects", "acl_xattr")]

    def make(self, name, is_dir, uid, aces):
        path = os.path.join(self.smbd.share, name)
        if is_dir:
            os.mkdir(path)
            os.chmod(path, 0o777)
        else:
            with open(path, "wb") as f:
                f.write(b"data")
            os.chmod(path, 0o666)
        os.chown(path, uid, -1)
        os.setxattr(path, "security.NTACL",
                    ntacl_blob(unix_user_sid(uid), aces))
        return path

    def status(self, conn, tid, name, access, disposition, options=0x40):
        from impacket.smbconnection import SessionError
        try:
            fid = conn.createFile(tid, name, desiredAccess=access,
                                  creationDisposition=disposition,
                                  creationOption=options)
        except SessionError as e:
            return e.getErrorCode()
        conn.closeFile(tid, fid)
        return 0

    def test_ntacl_decides(self):
        me = pwd.getpwnam(h.TEST_USER).pw_uid
        self.make("noadd", True, me,
                  [(0, FILE_ALL_ACCESS & ~(FILE_WRITE_DATA |
                                           FILE_APPEND_DATA), EVERYONE)])
        self.make("add", True, me,
                  [(OI_CI, FILE_ALL_ACCESS, unix_user_sid(me))])
        self.make("ro.txt", False, me, [(0, FILE_READ, unix_user_sid(me))])
        conn = self.impacket_logon()
        try:
            tid = conn.connectTree("share")
            self.assertEqual(self.status(conn, tid, "noadd\\f.txt",
                                         FILE_READ_ATTRIBUTES, FILE_CREATE),
                             STATUS_ACCESS_DENIED)
            self.assertEqual(self.status(conn, tid, "noadd\\d",
                                         FILE_READ_ATTRIBUTES, FILE_CREATE,
                                         FILE_DIRECTORY_FILE),
                             STATUS_ACCESS_DENIED)
            self.assertFalse(os.path.exists(
                os.path.join(self.smbd.share, "noadd", "f.txt")))
            self.assertEqual(self.status(conn, tid, "add\\f.txt",
                                         FILE_READ_ATTRIBUTES, FILE_CREATE),
                             0)
            self.assertTrue(os.getxattr(
                os.path.join(self.smbd.share, "add", "f.txt"),
                "security.NTACL"))
            self.assertEqual(self.status(conn, tid, "ro.txt",
                                         FILE_WRITE_DATA, FILE_OPEN),
                             STATUS_ACCESS_DENIED)
            self.assertEqual(self.status(conn, tid, "ro.txt",
                                         FILE_READ_DATA, FILE_OPEN), 0)
            conn.logoff()
        finally:
            conn.close()
        self.server_alive()


h.backend_variants(globals(), NtAcl)

if __name__ == "__main__":
    h.main()
