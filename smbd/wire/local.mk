# smbd/wire/: the pure wire codecs (issue 37 item 2).  What the SMB2
# commands and the objects put on and take off the wire beyond the SMB2
# header: the MS-FSCC information classes, CREATE contexts, security
# descriptors and Samba's security.NTACL blob, the FSCTL structures, the
# CHANGE_NOTIFY response, DFS referrals and reparse buffers.
#
# The room's rule: pure.  Bytes in, structs out, and back: every field
# read through lib/wire.h's checked cursor, every length checked, errors
# as NTSTATUS.  No state (no static that changes, no globals), no I/O (no
# system call, no errno, no file descriptor, no socket; a debug line
# through lib/log.h is the one output), and no room above: a codec
# includes only lib/ and vfs/vfs.h (for the file-system types an encoder
# writes out, struct vfs_file_info), so that any room above vfs/ can use
# it, and each codec is tested on its own: a cmocka test under
# testsuite/unit/ and a libFuzzer target under testsuite/fuzz/ for every
# one (DEVELOPERS.md: each wire parser gets both).  What decides what to
# encode (which open, which share, which file) stays in the room that
# calls the codec.  layers.py checks the includes, and the objects' nm
# for system calls and errno (BYPASS_ROOMS).

# MS-FSCC information classes (QUERY_INFO, SET_INFO and QUERY_DIRECTORY
# encoders and decoders); CREATE contexts; self-relative security
# descriptors and Samba's security.NTACL blob.
libsmbd_a_SOURCES += \
	smbd/wire/fscc.c smbd/wire/fscc.h \
	smbd/wire/create_ctx.c smbd/wire/create_ctx.h \
	smbd/wire/sd.c smbd/wire/sd.h
# The FSCTL structures, the CHANGE_NOTIFY response, DFS referrals and
# reparse buffers (issue 35).
libsmbd_a_SOURCES += \
	smbd/wire/fsctl_wire.c smbd/wire/fsctl_wire.h \
	smbd/wire/notify_wire.c smbd/wire/notify_wire.h \
	smbd/wire/dfs_wire.c smbd/wire/dfs_wire.h \
	smbd/wire/reparse_wire.c smbd/wire/reparse_wire.h

UNIT_TESTS += testsuite/unit/test_fscc
UNIT_TESTS += testsuite/unit/test_create_ctx
UNIT_TESTS += testsuite/unit/test_sd
UNIT_TESTS += testsuite/unit/test_fsctl_wire
UNIT_TESTS += testsuite/unit/test_dfs_wire
UNIT_TESTS += testsuite/unit/test_reparse_wire
UNIT_TESTS += testsuite/unit/test_notify_wire
