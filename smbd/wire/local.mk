# smbd/wire/: the pure wire codecs (issue 37 item 2).  What the SMB2
# commands and the objects put on and take off the wire beyond the SMB2
# header: the MS-FSCC information classes, CREATE contexts, security
# descriptors and Samba's security.NTACL blob, the FSCTL structures, the
# CHANGE_NOTIFY response, DFS referrals and reparse buffers.
#
# The room's rule: pure.  Bytes in, structs out, and back: every field
# read through lib/wire.h's checked cursor, every length checked, errors
# as NTSTATUS.  No state (no static that changes, no globals), no I/O (no
# system call, no errno, no file descriptor, no socket), and no room
# above: a codec includes only lib/ and vfs/vfs.h (for the file-system
# types an encoder writes out, struct vfs_file_info), so that any room
# above vfs/ can use it, and each codec is tested on its own: a cmocka
# test under testsuite/unit/ and a libFuzzer target under testsuite/fuzz/
# for every one (DEVELOPERS.md: each wire parser gets both).  What
# decides what to encode (which open, which share, which file) stays in
# the room that calls the codec.  layers.py checks the includes, and the
# objects' nm for system calls and errno (BYPASS_ROOMS).
