# vfs/: the file-system layer, the POSIX module and the stackable
# modules (vfs objects).

# vfs/name: SMB2 path rules, wildcards, case folding, 8.3 names;
# vfs/dosattrib: Samba's user.DOSATTRIB xattr.
# vfs/ntacl_xattr: Samba's security.NTACL xattr.
libsmbd_a_SOURCES += vfs/name.c vfs/name.h vfs/dosattrib.c vfs/dosattrib.h \
	vfs/ntacl_xattr.c vfs/ntacl_xattr.h

UNIT_TESTS += testsuite/unit/test_vfs_name
UNIT_TESTS += testsuite/unit/test_dosattrib

# The POSIX module (the lead's block).
libsmbd_a_SOURCES += vfs/vfs.h vfs/vfs_posix.c vfs/vfs_posix.h vfs/dirents.c vfs/dirents.h vfs/dosmode.c \
	vfs/streams.c vfs/streams.h vfs/anchor.c vfs/anchor.h \
	vfs/fault.c vfs/fault.h vfs/dircache.c vfs/dircache.h \
	vfs/handle.h vfs/handle_posix.c vfs/handle_fd.c \
	vfs/msdfs.c vfs/msdfs.h

UNIT_TESTS += testsuite/unit/test_msdfs
UNIT_TESTS += testsuite/unit/test_dircache

UNIT_TESTS += testsuite/unit/test_streams
testsuite_unit_test_streams_SOURCES = testsuite/unit/test_streams.c \
	testsuite/common/xattr_tmpfile.h

UNIT_TESTS += testsuite/unit/test_vfs_fault
UNIT_TESTS += testsuite/unit/test_vfs_handle
testsuite_unit_test_vfs_handle_SOURCES = testsuite/unit/test_vfs_handle.c \
	testsuite/common/xattr_tmpfile.h
UNIT_TESTS += testsuite/unit/test_dosmode

# The stackable module layer (vfs objects) and its modules.
libsmbd_a_SOURCES += vfs/module.c vfs/module.h vfs/recycle.c \
	vfs/catia.c vfs/catia.h vfs/name_map.h vfs/fruit.c vfs/fruit.h vfs/stream_policy.h vfs/fruit_tm.c vfs/fruit_tm.h \
	vfs/adouble.c vfs/adouble.h vfs/fruit_rsrc.c vfs/fruit_rsrc.h \
	vfs/shadow_copy2.c vfs/snapshot.c vfs/snapshot.h \
	vfs/snapdir.c vfs/snapdir.h vfs/snapper.c vfs/snapper_info.c \
	vfs/snapper_info.h

UNIT_TESTS += testsuite/unit/test_vfs_catia

UNIT_TESTS += testsuite/unit/test_vfs_fruit
testsuite_unit_test_vfs_fruit_SOURCES = testsuite/unit/test_vfs_fruit.c \
	testsuite/common/xattr_tmpfile.h

UNIT_TESTS += testsuite/unit/test_vfs_module
UNIT_TESTS += testsuite/unit/test_snapshot

# snapper's info.xml parser (vfs/snapper_info.c)
UNIT_TESTS += testsuite/unit/test_snapper_info
UNIT_TESTS += testsuite/unit/test_vfs_fruit_rsrc
UNIT_TESTS += testsuite/unit/test_vfs_fruit_tm

# fruit:copyfile: the streams a whole-file copy takes, and their copy
# behind the neutral vfs/copyfile.h (the data's is
# smbd/smb2/smb2_copychunk.c's).
libsmbd_a_SOURCES += vfs/fruit_copy.c vfs/fruit_copy.h vfs/copyfile.h

UNIT_TESTS += testsuite/unit/test_vfs_fruit_copy

# vfs/symlink: symbolic links as reparse points (issue 35).
libsmbd_a_SOURCES += vfs/symlink.c vfs/symlink.h

UNIT_TESTS += testsuite/unit/test_vfs_symlink

# vfs_openat_beneath and the path walk under a share (vfs/vfs_posix.c).
UNIT_TESTS += testsuite/unit/test_vfs_open
UNIT_TESTS += testsuite/unit/test_vfs_resolve

# vfs/fsctl_io: the fd, stat and data calls of smbd/smb2/'s FSCTL, copy
# and info handlers, NTSTATUS out (issue 37 item 1); vfs/fsinfo: the
# sparse-file FSCTLs' fallocate and SEEK_DATA calls, fstatvfs;
# vfs/setinfo: SET_INFO's mode, times, EA and directory calls.
libsmbd_a_SOURCES += vfs/fsctl_io.c vfs/fsctl_io.h vfs/fsinfo.c vfs/fsinfo.h \
	vfs/setinfo.c vfs/setinfo.h

UNIT_TESTS += testsuite/unit/test_vfs_fsctl_io
testsuite_unit_test_vfs_fsctl_io_SOURCES = testsuite/unit/test_vfs_fsctl_io.c \
	testsuite/common/xattr_tmpfile.h

# vfs/dirread: the directory calls of QUERY_DIRECTORY and CHANGE_NOTIFY's
# tree walk; vfs/watch: the kernel's change watches (inotify for
# CHANGE_NOTIFY, fanotify for directory leases), issue 37.
libsmbd_a_SOURCES += vfs/dirread.c vfs/dirread.h vfs/watch.c vfs/watch.h

# with vfs/textfile and lib/spawn (the username map's file and script).
UNIT_TESTS += testsuite/unit/test_vfs_dirread
# vfs/textfile: the `username map` file read whole (issue 37).
libsmbd_a_SOURCES += vfs/textfile.c vfs/textfile.h
# vfs/stack_props: the module stack asked by property, not by module
# name (issue 37).
libsmbd_a_SOURCES += vfs/stack_props.c vfs/stack_props.h
# vfs/stream_view: FileStreamInformation as the modules show it (issue 37).
libsmbd_a_SOURCES += vfs/stream_view.c vfs/stream_view.h
